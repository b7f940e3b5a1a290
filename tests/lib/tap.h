/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal TAP producer for the host unit tests.  Each TEST() is one
 * "ok N - name" / "not ok N - name" line; a failed CHECK() prints the
 * expression and location as a TAP diagnostic and fails the test.
 * tap_done() prints the plan and returns the exit status.
 */
#ifndef SOFTIW_TAP_H
#define SOFTIW_TAP_H

#include <stdio.h>
#include <string.h>

struct tap_state {
	int n;
	int failed;
	int cur_failed;
};

extern struct tap_state tap;

#define TEST(name) static void name(void)

/* Run one test function and print its result line. */
#define RUN(name) do {							\
	tap.cur_failed = 0;						\
	name();								\
	tap.n++;							\
	printf("%sok %d - %s\n", tap.cur_failed ? "not " : "",		\
	       tap.n, #name);						\
	if (tap.cur_failed)						\
		tap.failed++;						\
	fflush(stdout);							\
} while (0)

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: CHECK(%s) failed\n",			\
		       __FILE__, __LINE__, #cond);			\
		tap.cur_failed = 1;					\
	}								\
} while (0)

/* Compare two integers, printing both on mismatch. */
#define CHECK_EQ(a, b) do {						\
	unsigned long long _a = (unsigned long long)(a);		\
	unsigned long long _b = (unsigned long long)(b);		\
	if (_a != _b) {							\
		printf("# %s:%d: %s == %s failed: 0x%llx != 0x%llx\n",	\
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
		tap.cur_failed = 1;					\
	}								\
} while (0)

#define CHECK_MEM(a, b, len) do {					\
	if (memcmp((a), (b), (len))) {					\
		printf("# %s:%d: memcmp(%s, %s, %s) differs\n",		\
		       __FILE__, __LINE__, #a, #b, #len);		\
		tap_hexdump("got", (const unsigned char *)(a), (len));	\
		tap_hexdump("want", (const unsigned char *)(b), (len));	\
		tap.cur_failed = 1;					\
	}								\
} while (0)

void tap_hexdump(const char *what, const unsigned char *p, size_t len);
/* Parse "aa bb cc" into @out; returns the number of octets. */
size_t tap_hex(const char *hex, unsigned char *out, size_t max);
int tap_done(void);

#endif
