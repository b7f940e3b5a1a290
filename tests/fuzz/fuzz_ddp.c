// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_ddp.c - libFuzzer target: DDP header decode, RFC 5041 section 7.1
 * validation against a fake STag table, in-message checks and the
 * segmenter.
 *
 * Input: a 24-octet configuration, then records of a 2-octet big-endian
 * length and that many octets of ULPDU (one DDP segment each), as MPA
 * would hand them over one after another on one stream.
 *   cfg[0]      nr_qn (0..7)
 *   cfg[1..4]   the one valid STag; its PD/QP association from cfg[5]
 *               (bit 0: other PD, bit 1: other QP, bit 2: any QP) and
 *               its access bits from cfg[6]
 *   cfg[7..14]  its base TO; cfg[15..18] its length (octets)
 *   cfg[19..22] first MSN with a buffer; cfg[23] number of buffers (0..15,
 *               each 0..4095 octets long, length derived from the MSN)
 *
 * Invariants: decode never accepts a header longer than the input and
 * re-encoding a decoded header gives the input octets back (Rsvd zeroed);
 * a segment the validator accepts really satisfies every rule of 7.1 as
 * recomputed here from the table; every rejection is a DDP error (or the
 * LLP short-ULPDU error); the segmenter covers a message exactly once in
 * segments no larger than MULPDU with L only on the last one.
 *
 * Locking: none; libFuzzer calls this single-threaded.
 */
#include <stdint.h>
#include <string.h>

#include "ddp.h"
#include "fuzz_check.h"

#define CFG_LEN 24

struct fake_table {
	u32 stag;
	struct softiw_ddp_stag_info info;
	u32 msn_first;
	u32 nr_bufs;
};

static u64 ubuf_len(u32 msn)
{
	return (msn * 2654435761u) % 4096;
}

static int fake_stag_lookup(void *ctx, u32 stag,
			    struct softiw_ddp_stag_info *info)
{
	const struct fake_table *t = ctx;

	if (stag != t->stag)
		return -1;
	*info = t->info;
	return 0;
}

static int fake_ubuf_lookup(void *ctx, u32 qn, u32 msn,
			    struct softiw_ddp_ubuf_info *info)
{
	const struct fake_table *t = ctx;

	info->msn_first = t->msn_first;
	info->nr_bufs = t->nr_bufs;
	info->len = ubuf_len(msn);
	return 0;
}

static bool is_ddp_error(u32 st)
{
	switch (st) {
	case SOFTIW_DDP_ERR_CATASTROPHIC:
	case SOFTIW_DDP_ERR_INVALID_STAG:
	case SOFTIW_DDP_ERR_ACCESS:
	case SOFTIW_DDP_ERR_BOUNDS:
	case SOFTIW_DDP_ERR_NOT_ASSOCIATED:
	case SOFTIW_DDP_ERR_TO_WRAP:
	case SOFTIW_DDP_ERR_TAGGED_VERSION:
	case SOFTIW_DDP_ERR_INVALID_QN:
	case SOFTIW_DDP_ERR_NO_BUFFER:
	case SOFTIW_DDP_ERR_MSN_RANGE:
	case SOFTIW_DDP_ERR_INVALID_MO:
	case SOFTIW_DDP_ERR_TOO_LONG:
	case SOFTIW_DDP_ERR_UNTAGGED_VERSION:
	case SOFTIW_DDP_ERR_SHORT:
		return true;
	}
	return false;
}

static void check_tagged(const struct softiw_ddp_stream *s,
			 const struct fake_table *t,
			 const struct softiw_ddp_hdr *h, u32 plen, u32 access)
{
	const struct softiw_ddp_stag_info *i = &t->info;
	u32 st = softiw_ddp_validate_tagged(s, h, plen, access, NULL);

	FUZZ_CHECK(st == SOFTIW_WIRE_OK || is_ddp_error(st));
	FUZZ_CHECK(!st || softiw_wire_err_layer(st) == SOFTIW_LAYER_DDP);
	if (st || !plen)
		return;
	/* Accepted: recheck every rule of section 7.1 independently. */
	FUZZ_CHECK(h->stag == t->stag);
	FUZZ_CHECK(i->pd == s->pd);
	FUZZ_CHECK(i->qp == s->qp || i->qp == SOFTIW_DDP_ANY_QP);
	FUZZ_CHECK((i->access & access) == access);
	FUZZ_CHECK(h->to >= i->base);
	FUZZ_CHECK(h->to + plen > h->to);	/* no 64-bit wrap */
	FUZZ_CHECK(h->to - i->base <= i->len);
	FUZZ_CHECK(plen <= i->len - (h->to - i->base));
}

static void check_untagged(const struct softiw_ddp_stream *s,
			   const struct fake_table *t,
			   const struct softiw_ddp_hdr *h, u32 plen)
{
	u32 st = softiw_ddp_validate_untagged(s, h, plen, NULL);

	FUZZ_CHECK(st == SOFTIW_WIRE_OK || is_ddp_error(st));
	FUZZ_CHECK(!st || softiw_wire_err_layer(st) == SOFTIW_LAYER_DDP);
	if (st)
		return;
	FUZZ_CHECK(h->qn < s->nr_qn);
	FUZZ_CHECK(h->msn - t->msn_first < t->nr_bufs);	/* mod 2^32 window */
	FUZZ_CHECK((u64)h->mo + plen <= ubuf_len(h->msn));
}

static void check_segment(const u8 *seg, u32 len,
			  const struct softiw_ddp_stream *s,
			  const struct fake_table *t,
			  struct softiw_ddp_rx_msg *msgs)
{
	struct softiw_ddp_hdr h;
	u8 again[SOFTIW_DDP_UNTAGGED_HDR_LEN];
	u32 st, hlen, plen;
	int n;

	memset(&h, 0, sizeof(h));
	st = softiw_ddp_hdr_decode(seg, len, &h);
	if (st == SOFTIW_DDP_ERR_SHORT) {
		FUZZ_CHECK(len < softiw_ddp_hdr_len(len && (seg[0] & 0x80)));
		return;
	}
	hlen = softiw_ddp_hdr_len(h.tagged);
	FUZZ_CHECK(len >= hlen);
	FUZZ_CHECK(h.tagged == !!(seg[0] & SOFTIW_DDP_FLAG_T));
	FUZZ_CHECK(h.last == !!(seg[0] & SOFTIW_DDP_FLAG_L));
	if (st) {
		FUZZ_CHECK(st == (h.tagged ? SOFTIW_DDP_ERR_TAGGED_VERSION :
				  SOFTIW_DDP_ERR_UNTAGGED_VERSION));
		FUZZ_CHECK((seg[0] & SOFTIW_DDP_DV_MASK) != SOFTIW_DDP_VERSION);
		return;
	}
	FUZZ_CHECK(h.dv == SOFTIW_DDP_VERSION);

	/* Re-encode: identical octets except the reserved bits. */
	n = softiw_ddp_hdr_encode(&h, again, sizeof(again));
	FUZZ_CHECK(n > 0 && (u32)n == hlen);
	FUZZ_CHECK(again[0] == (seg[0] & ~SOFTIW_DDP_RSVD_MASK));
	FUZZ_CHECK(!memcmp(again + 1, seg + 1, hlen - 1));
	FUZZ_CHECK(softiw_ddp_hdr_encode(&h, again, hlen - 1) == -ENOSPC);

	plen = len - hlen;
	if (h.tagged) {
		check_tagged(s, t, &h, plen, SOFTIW_DDP_ACCESS_REMOTE_WRITE);
		check_tagged(s, t, &h, plen, SOFTIW_DDP_ACCESS_REMOTE_READ);
	} else {
		check_untagged(s, t, &h, plen);
	}

	/* One in-message state per QN (mod 4) and one for tagged. */
	st = softiw_ddp_rx_msg_check(&msgs[h.tagged ? 4 : h.qn & 3], &h, plen);
	FUZZ_CHECK(st == SOFTIW_WIRE_OK || is_ddp_error(st));
}

static void check_segmenter(const u8 *cfg)
{
	struct softiw_ddp_segmenter sg;
	struct softiw_ddp_hdr base, h;
	u32 msg_len = softiw_wire_get_be32(cfg + 15) & 0xffff;
	u32 mulpdu = softiw_wire_get_be16(cfg + 19);
	u32 off, plen, sum = 0, count = 0, hlen;

	memset(&base, 0, sizeof(base));
	base.tagged = cfg[5] & 8;
	base.stag = softiw_wire_get_be32(cfg + 1);
	base.to = softiw_wire_get_be64(cfg + 7);
	base.qn = cfg[0];
	base.msn = softiw_wire_get_be32(cfg + 19);
	hlen = softiw_ddp_hdr_len(base.tagged);
	if (softiw_ddp_seg_init(&sg, &base, msg_len, mulpdu)) {
		FUZZ_CHECK(mulpdu <= hlen);
		return;
	}
	FUZZ_CHECK(mulpdu > hlen);
	while (softiw_ddp_seg_next(&sg, &h, &off, &plen)) {
		FUZZ_CHECK(count <= msg_len);
		FUZZ_CHECK(off == sum);
		FUZZ_CHECK(hlen + plen <= mulpdu);
		FUZZ_CHECK(h.tagged == base.tagged);
		if (h.tagged) {
			FUZZ_CHECK(h.stag == base.stag);
			FUZZ_CHECK(h.to == base.to + off);
		} else {
			FUZZ_CHECK(h.qn == base.qn && h.msn == base.msn);
			FUZZ_CHECK(h.mo == off);
		}
		sum += plen;
		count++;
		FUZZ_CHECK(h.last == (sum == msg_len));
		FUZZ_CHECK(plen || msg_len == 0);
	}
	FUZZ_CHECK(sum == msg_len);
	FUZZ_CHECK(count == softiw_ddp_seg_count(msg_len, mulpdu, base.tagged));
	FUZZ_CHECK(count >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct softiw_ddp_rx_msg msgs[5];
	struct fake_table t;
	struct softiw_ddp_stream s = {
		.pd = 7,
		.qp = 11,
		.stag_lookup = fake_stag_lookup,
		.ubuf_lookup = fake_ubuf_lookup,
		.ctx = &t,
	};
	size_t off = CFG_LEN;

	if (size < CFG_LEN)
		return 0;
	memset(msgs, 0, sizeof(msgs));
	s.nr_qn = data[0] & 7;
	t.stag = softiw_wire_get_be32(data + 1);
	t.info.pd = s.pd + (data[5] & 1);
	t.info.qp = data[5] & 4 ? SOFTIW_DDP_ANY_QP : s.qp + !!(data[5] & 2);
	t.info.access = data[6] & 3;
	t.info.base = softiw_wire_get_be64(data + 7);
	t.info.len = softiw_wire_get_be32(data + 15);
	/* The table promises base + len <= 2^64 (ddp.h). */
	if (t.info.base + t.info.len < t.info.base)
		t.info.len = -t.info.base;
	t.msn_first = softiw_wire_get_be32(data + 19);
	t.nr_bufs = data[23] & 15;

	check_segmenter(data);

	while (off + 2 <= size) {
		u32 len = softiw_wire_get_be16(data + off);

		off += 2;
		if (len > size - off)
			len = size - off;
		check_segment(data + off, len, &s, &t, msgs);
		off += len;
	}
	return 0;
}
