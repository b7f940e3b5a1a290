// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CRC32c: RFC 3720 B.4 vectors, and the MPA wire byte order. */
#include "tap.h"
#include "crc32c.h"
#include "mpa.h"

static u32 crc_of(const u8 *p, size_t n)
{
	return softiw_mpa_crc(softiw_host_crc32c, p, n);
}

TEST(rfc3720_b4_zeros)
{
	u8 b[32];

	memset(b, 0, sizeof(b));
	CHECK_EQ(crc_of(b, 32), 0x8A9136AA);
}

TEST(rfc3720_b4_ones)
{
	u8 b[32];

	memset(b, 0xff, sizeof(b));
	CHECK_EQ(crc_of(b, 32), 0x62A8AB43);
}

TEST(rfc3720_b4_incrementing)
{
	u8 b[32];
	int i;

	for (i = 0; i < 32; i++)
		b[i] = i;
	CHECK_EQ(crc_of(b, 32), 0x46DD794E);
}

TEST(rfc3720_b4_decrementing)
{
	u8 b[32];
	int i;

	for (i = 0; i < 32; i++)
		b[i] = 31 - i;
	CHECK_EQ(crc_of(b, 32), 0x113FDB5C);
}

TEST(rfc3720_b4_iscsi_read_pdu)
{
	u8 b[64];
	size_t n = tap_hex("01 c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
			   "14 00 00 00 00 00 04 00 00 00 00 14 00 00 00 18 "
			   "28 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00",
			   b, sizeof(b));

	CHECK_EQ(n, 48);
	CHECK_EQ(crc_of(b, n), 0xD9963A56);
}

TEST(crc32c_check_value)
{
	CHECK_EQ(crc_of((const u8 *)"123456789", 9), 0xE3069283);
}

/* RFC 3720 B.4 lists the CRC bytes least significant first: MPA does too. */
TEST(rfc5044_crc_wire_order_le)
{
	u8 b[32], w[4];
	const u8 want[4] = { 0xaa, 0x36, 0x91, 0x8a };

	memset(b, 0, sizeof(b));
	softiw_wire_put_le32(w, crc_of(b, 32));
	CHECK_MEM(w, want, 4);
	CHECK_EQ(softiw_wire_get_le32(want), 0x8A9136AA);
}

/* The update function is incremental, as the kernel data path needs. */
TEST(crc32c_incremental)
{
	u8 b[100];
	u32 c;
	int i;

	for (i = 0; i < 100; i++)
		b[i] = i * 7;
	c = softiw_host_crc32c(~0u, b, 33);
	c = softiw_host_crc32c(c, b + 33, 67);
	CHECK_EQ(~c, crc_of(b, 100));
}

int main(void)
{
	RUN(rfc3720_b4_zeros);
	RUN(rfc3720_b4_ones);
	RUN(rfc3720_b4_incrementing);
	RUN(rfc3720_b4_decrementing);
	RUN(rfc3720_b4_iscsi_read_pdu);
	RUN(crc32c_check_value);
	RUN(rfc5044_crc_wire_order_le);
	RUN(crc32c_incremental);
	return tap_done();
}
