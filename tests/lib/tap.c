// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TAP helpers for the host unit tests (see tap.h). */
#include <stdlib.h>
#include "tap.h"

struct tap_state tap;

void tap_hexdump(const char *what, const unsigned char *p, size_t len)
{
	size_t i;

	printf("#   %s:", what);
	for (i = 0; i < len; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

size_t tap_hex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = 0;
	char *end;

	while (*hex && n < max) {
		unsigned long v = strtoul(hex, &end, 16);

		if (end == hex)
			break;
		out[n++] = (unsigned char)v;
		hex = end;
	}
	return n;
}

int tap_done(void)
{
	printf("1..%d\n", tap.n);
	if (tap.failed)
		printf("# %d of %d tests failed\n", tap.failed, tap.n);
	return tap.failed ? 1 : 0;
}
