/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_check.h - invariant checks for the libFuzzer targets.
 *
 * An invariant that does not hold is a bug in the wire core: report what
 * was violated and abort(), which libFuzzer records as a crash together
 * with the input that caused it.
 *
 * Locking: none.
 */
#ifndef SOFTIW_FUZZ_CHECK_H
#define SOFTIW_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif /* SOFTIW_FUZZ_CHECK_H */
