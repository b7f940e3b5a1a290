// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_mpa_stream.c - libFuzzer target: the MPA FPDU/Marker stream parser.
 *
 * Input: octet 0 selects the receive state (bit 0: CRC checked, bit 1:
 * Markers expected), octets 1-2 give the stream position of the first
 * FPDU (so Markers land anywhere in it), the rest is the TCP byte stream,
 * parsed FPDU after FPDU until it ends or an error stops it, as the RX
 * path would.
 *
 * Invariants: a parsed FPDU lies within the input and occupies exactly
 * softiw_mpa_wire_len() octets; the same bytes cut one octet short give
 * NEED_MORE; the ULPDU pointer lies inside the input or the ULPDU buffer
 * and holds exactly the FPDU's octets with every Marker (each pointing
 * back to the FPDU start) removed, as recomputed here;
 * with CRC on the received CRC is the CRC32c of the FPDU (computed here
 * independently); re-framing the ULPDU with the encoder at the same
 * position gives an FPDU that parses back to the same ULPDU and, with
 * zero PAD and reserved Marker octets, the identical bytes; errors are
 * MPA (LLP) errors and leave the state untouched.
 *
 * Locking: none; libFuzzer calls this single-threaded.
 */
#include <stdint.h>
#include <string.h>

#include "mpa.h"
#include "crc32c.h"
#include "fuzz_check.h"

/* Largest FPDU with Markers: 2 + 65535 + 3 + 4 plus one Marker per 512. */
#define MAX_WIRE	(SOFTIW_MPA_HDR_LEN + 0xffff + 3 + SOFTIW_MPA_CRC_LEN + \
			 4 * (0x10000 / SOFTIW_MPA_MARKER_PERIOD + 2))

static u8 ulpdu_buf[SOFTIW_MPA_RX_BUF_LEN(0xffff)];
static u8 again_buf[SOFTIW_MPA_RX_BUF_LEN(0xffff)];
static u8 reencoded[MAX_WIRE];

static u32 host_crc(const u8 *p, size_t len)
{
	return ~softiw_host_crc32c(~0u, p, len);
}

/* Input bytes of one FPDU with PAD and Marker reserved octets zero? */
static bool canonical(const u8 *in, u32 wire_len, u16 ulpdu_len,
		      bool markers, u32 pos)
{
	u32 pad = softiw_mpa_pad(ulpdu_len), i, data = 0;
	u32 pad_start = SOFTIW_MPA_HDR_LEN + ulpdu_len;

	for (i = 0; i + SOFTIW_MPA_CRC_LEN < wire_len; i++) {
		if (markers && (pos + i) % SOFTIW_MPA_MARKER_PERIOD == 0) {
			if (in[i] || in[i + 1])
				return false;
			i += SOFTIW_MPA_MARKER_LEN - 1;
			continue;
		}
		if (data >= pad_start && data < pad_start + pad && in[i])
			return false;
		data++;
	}
	return true;
}

/*
 * Marker removal done independently: copy the FPDU's octets before the
 * CRC, skipping 4 at every Marker position, and compare the ULPDU part
 * with what the parser returned.
 */
static void check_strip(const struct softiw_mpa_rx *before,
			const struct softiw_mpa_fpdu *f, const u8 *in)
{
	static u8 content[MAX_WIRE];
	u32 i, n = 0;

	for (i = 0; i + SOFTIW_MPA_CRC_LEN < f->wire_len; i++) {
		if (before->markers &&
		    (before->pos + i) % SOFTIW_MPA_MARKER_PERIOD == 0) {
			/* Every Marker points back to this FPDU's start. */
			FUZZ_CHECK(softiw_wire_get_be16(in + i + 2) == i);
			i += SOFTIW_MPA_MARKER_LEN - 1;
			continue;
		}
		content[n++] = in[i];
	}
	FUZZ_CHECK(n == softiw_mpa_fpdu_len(f->ulpdu_len) - SOFTIW_MPA_CRC_LEN);
	FUZZ_CHECK(softiw_wire_get_be16(content) == f->ulpdu_len);
	FUZZ_CHECK(!memcmp(content + SOFTIW_MPA_HDR_LEN, f->ulpdu,
			   f->ulpdu_len));
}

static void check_reencode(const struct softiw_mpa_rx *before,
			   const struct softiw_mpa_fpdu *f, const u8 *in)
{
	struct softiw_mpa_tx tx = {
		.crc32c = softiw_host_crc32c,
		.crc = before->crc,
		.markers = before->markers,
		.pos = before->pos,
	};
	struct softiw_mpa_rx rx = *before;
	struct softiw_mpa_fpdu again;
	int n;

	n = softiw_mpa_fpdu_build(&tx, f->ulpdu, f->ulpdu_len, reencoded,
				  sizeof(reencoded));
	FUZZ_CHECK(n > 0 && (u32)n == f->wire_len);
	FUZZ_CHECK(tx.pos == before->pos + f->wire_len);

	FUZZ_CHECK(softiw_mpa_fpdu_parse(&rx, reencoded, n, again_buf,
					 sizeof(again_buf), &again) ==
		   SOFTIW_WIRE_OK);
	FUZZ_CHECK(again.ulpdu_len == f->ulpdu_len);
	FUZZ_CHECK(again.wire_len == f->wire_len);
	FUZZ_CHECK(!memcmp(again.ulpdu, f->ulpdu, f->ulpdu_len));

	/*
	 * The encoder writes zero PAD and zero reserved Marker octets and,
	 * with CRC off, a zero CRC: only an input that did the same must
	 * come out byte-identical.
	 */
	if (canonical(in, f->wire_len, f->ulpdu_len, before->markers,
		      before->pos) &&
	    (before->crc || !softiw_wire_get_le32(in + f->wire_len - 4)))
		FUZZ_CHECK(!memcmp(reencoded, in, f->wire_len));
}

static void check_fpdu(const struct softiw_mpa_rx *before,
		       const struct softiw_mpa_rx *after,
		       const struct softiw_mpa_fpdu *f, const u8 *in,
		       size_t in_len)
{
	struct softiw_mpa_rx rx = *before;
	struct softiw_mpa_fpdu cut;
	u32 st;

	FUZZ_CHECK(f->wire_len >= SOFTIW_MPA_FPDU_MIN);
	FUZZ_CHECK(f->wire_len <= in_len);
	FUZZ_CHECK(f->wire_len == softiw_mpa_wire_len(f->ulpdu_len,
						      before->markers,
						      before->pos));
	FUZZ_CHECK(after->pos == before->pos + f->wire_len);
	if (before->markers)
		FUZZ_CHECK(f->ulpdu >= ulpdu_buf &&
			   f->ulpdu + f->ulpdu_len <= ulpdu_buf + sizeof(ulpdu_buf));
	else
		FUZZ_CHECK(f->ulpdu == in + SOFTIW_MPA_HDR_LEN);

	if (before->crc) {
		FUZZ_CHECK(f->crc_rx == softiw_wire_get_le32(in + f->wire_len - 4));
		FUZZ_CHECK(f->crc_rx == host_crc(in, f->wire_len - 4));
	}

	/* One octet short must never be accepted. */
	st = softiw_mpa_fpdu_parse(&rx, in, f->wire_len - 1, again_buf,
				   sizeof(again_buf), &cut);
	FUZZ_CHECK(st == SOFTIW_MPA_NEED_MORE);
	FUZZ_CHECK(rx.pos == before->pos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c };
	size_t off;

	if (size < 3)
		return 0;
	rx.crc = data[0] & 1;
	rx.markers = data[0] & 2;
	rx.pos = softiw_wire_get_be16(data + 1);
	off = 3;

	while (off < size) {
		struct softiw_mpa_rx before = rx;
		struct softiw_mpa_fpdu f;
		u32 st;

		memset(&f, 0, sizeof(f));
		st = softiw_mpa_fpdu_parse(&rx, data + off, size - off,
					   ulpdu_buf, sizeof(ulpdu_buf), &f);
		if (st == SOFTIW_MPA_NEED_MORE) {
			FUZZ_CHECK(rx.pos == before.pos);
			FUZZ_CHECK(f.wire_len == 0 || f.wire_len > size - off);
			break;
		}
		if (softiw_wire_is_error(st)) {
			FUZZ_CHECK(softiw_wire_err_layer(st) == SOFTIW_LAYER_LLP);
			FUZZ_CHECK(st == SOFTIW_MPA_ERR_CRC ||
				   st == SOFTIW_MPA_ERR_MARKER);
			FUZZ_CHECK(st != SOFTIW_MPA_ERR_CRC || before.crc);
			FUZZ_CHECK(st != SOFTIW_MPA_ERR_MARKER || before.markers);
			FUZZ_CHECK(rx.pos == before.pos);
			break;	/* MPA never resynchronises */
		}
		FUZZ_CHECK(st == SOFTIW_WIRE_OK);
		check_fpdu(&before, &rx, &f, data + off, size - off);
		check_strip(&before, &f, data + off);
		check_reencode(&before, &f, data + off);
		off += f.wire_len;
	}
	return 0;
}
