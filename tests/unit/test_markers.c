// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPA Markers (RFC 5044 section 5): insertion every 512 octets of stream
 * from the first FPDU, FPDUPTR back to the FPDU start, CRC over Markers,
 * ULPDU_Length excluding them; removal and checking on receive.  The
 * builder is compared against a per-octet reference model written here.
 */
#include "tap.h"
#include "crc32c.h"
#include "mpa.h"

/* Reference: emit FPDU content octet by octet, Marker at each boundary. */
static size_t ref_fpdu(u32 pos, const u8 *ulpdu, u32 ulen, bool crc, u8 *out)
{
	u8 content[70000];
	u32 pre = 2 + ulen + softiw_mpa_pad(ulen), clen = pre + 4, c, w = 0;
	u32 start = pos;

	softiw_wire_put_be16(content, ulen);
	memcpy(content + 2, ulpdu, ulen);
	memset(content + 2 + ulen, 0, pre - 2 - ulen);
	for (c = 0; c < clen; c++) {
		if (c == pre) {
			u32 v = 0;

			if ((pos % 512) == 0) {
				softiw_wire_put_be32(out + w, pos - start);
				w += 4;
				pos += 4;
			}
			if (crc)
				v = softiw_mpa_crc(softiw_host_crc32c, out, w);
			softiw_wire_put_le32(out + w, v);
			return w + 4;
		}
		if ((pos % 512) == 0) {
			softiw_wire_put_be32(out + w, pos - start);
			w += 4;
			pos += 4;
		}
		out[w++] = content[c];
		pos++;
	}
	return 0;
}

static u8 ulpdu[2000], got[4096], want[4096], strip[2100];

TEST(rfc5044_s5_marker_insertion_matches_model)
{
	u32 pos, ulen;
	int i;

	for (i = 0; i < 2000; i++)
		ulpdu[i] = i * 13 + 1;
	for (pos = 0; pos < 1100; pos += 4) {
		for (ulen = 0; ulen < 1100; ulen += 37) {
			struct softiw_mpa_tx tx = {
				.crc32c = softiw_host_crc32c, .crc = true,
				.markers = true, .pos = pos,
			};
			size_t n = ref_fpdu(pos, ulpdu, ulen, true, want);
			int m = softiw_mpa_fpdu_build(&tx, ulpdu, ulen, got,
						      sizeof(got));

			CHECK_EQ(m, n);
			CHECK_EQ(softiw_mpa_wire_len(ulen, true, pos), n);
			if (m != (int)n || memcmp(got, want, n)) {
				printf("# pos %u ulen %u\n", pos, ulen);
				CHECK_MEM(got, want, n);
				return;
			}
			CHECK_EQ(tx.pos, pos + n);
		}
	}
}

TEST(rfc5044_s5_first_fpdu_starts_with_marker)
{
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true };
	const u8 zero[4] = { 0 };
	int n;

	n = softiw_mpa_fpdu_build(&tx, ulpdu, 14, got, sizeof(got));
	CHECK_EQ(n, 24);
	CHECK_MEM(got, zero, 4);		/* FPDUPTR 0 at stream start */
	CHECK_EQ(softiw_wire_get_be16(got + 4), 14);	/* excludes Marker */
	CHECK_EQ(softiw_wire_get_le32(got + 20),
		 softiw_mpa_crc(softiw_host_crc32c, got, 20));
}

TEST(rfc5044_s5_marker_roundtrip_stream)
{
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true };
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true };
	static u8 stream[20000];
	size_t off = 0, roff = 0;
	u32 lens[] = { 0, 1, 500, 506, 507, 508, 509, 1442, 3, 1000, 14 };
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int n = softiw_mpa_fpdu_build(&tx, ulpdu, lens[i], stream + off,
					      sizeof(stream) - off);
		CHECK(n > 0);
		off += n;
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct softiw_mpa_fpdu f;
		u32 s = softiw_mpa_fpdu_parse(&rx, stream + roff, off - roff,
					      strip, sizeof(strip), &f);

		CHECK_EQ(s, SOFTIW_WIRE_OK);
		if (s)
			return;
		CHECK_EQ(f.ulpdu_len, lens[i]);
		CHECK_MEM(f.ulpdu, ulpdu, lens[i]);
		roff += f.wire_len;
	}
	CHECK_EQ(roff, off);
	CHECK_EQ(rx.pos, tx.pos);
}

TEST(rfc5044_s5_marker_pointing_elsewhere)
{
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true, .pos = 100 };
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true, .pos = 100 };
	struct softiw_mpa_fpdu f;
	int n = softiw_mpa_fpdu_build(&tx, ulpdu, 1000, got, sizeof(got));
	u32 m = 512 - 100;	/* first Marker's offset in the FPDU */

	CHECK_EQ(softiw_wire_get_be16(got + m + 2), m);
	got[m + 3] ^= 4;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, sizeof(strip), &f),
		 SOFTIW_MPA_ERR_MARKER);
	CHECK_EQ(rx.pos, 100);
	got[m + 3] ^= 4;
	/* Reserved half is not checked, but the CRC covers it. */
	got[m] ^= 1;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, sizeof(strip), &f),
		 SOFTIW_MPA_ERR_CRC);
	got[m] ^= 1;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, sizeof(strip), &f),
		 SOFTIW_WIRE_OK);
	/* Too small a buffer for the stripped ULPDU. */
	rx.pos = 100;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, 1000, &f),
		 SOFTIW_MPA_ERR_NOSPACE);
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, NULL, 0, &f),
		 SOFTIW_MPA_ERR_NOSPACE);
}

TEST(rfc5044_s5_leading_marker_nonzero)
{
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true, .pos = 1024 };
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true, .pos = 1024 };
	struct softiw_mpa_fpdu f;
	int n = softiw_mpa_fpdu_build(&tx, ulpdu, 30, got, sizeof(got));

	got[3] = 8;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, sizeof(strip), &f),
		 SOFTIW_MPA_ERR_MARKER);
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, 3, strip, sizeof(strip), &f),
		 SOFTIW_MPA_NEED_MORE);
}

TEST(rfc5044_s5_directions_independent)
{
	/* TX with Markers, RX without (the peer did not ask): no Markers. */
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = false };
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true,
				    .markers = true };
	struct softiw_mpa_fpdu f;
	int n = softiw_mpa_fpdu_build(&tx, ulpdu, 30, got, sizeof(got));

	CHECK_EQ(n, 36);
	/* A Marker-expecting receiver sees an FPDUPTR that is not 0. */
	got[2] = 0;
	got[3] = 1;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, got, n, strip, sizeof(strip), &f),
		 SOFTIW_MPA_ERR_MARKER);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_MPA_ERR_MARKER), 0x2003);
}

int main(void)
{
	RUN(rfc5044_s5_marker_insertion_matches_model);
	RUN(rfc5044_s5_first_fpdu_starts_with_marker);
	RUN(rfc5044_s5_marker_roundtrip_stream);
	RUN(rfc5044_s5_marker_pointing_elsewhere);
	RUN(rfc5044_s5_leading_marker_nonzero);
	RUN(rfc5044_s5_directions_independent);
	return tap_done();
}
