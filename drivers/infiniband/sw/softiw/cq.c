// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* placeholder: the data path (issue 4) fills this file */
