// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Table-driven CRC32c, reflected polynomial 0x82F63B78.  The table is
 * built on first use; host tests are single-threaded, and a racing
 * second build would write identical values anyway.
 */
#include "crc32c.h"

static uint32_t table[256];
static int table_ready;

static void table_init(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
		table[i] = c;
	}
	table_ready = 1;
}

uint32_t softiw_host_crc32c(uint32_t crc, const void *buf, unsigned int len)
{
	const uint8_t *p = buf;

	if (!table_ready)
		table_init();
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}
