// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* placeholder: the wire core (issue 3) replaces this file */
