// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rdmap.c - libFuzzer target: RDMAP header, Read Request and
 * Terminate parsers, and the error-to-Terminate mapping.
 *
 * Input: octets 0-3 are a wire-core status value to map to a Terminate
 * (softiw_rdmap_term_for_error() must accept anything), the rest is one
 * ULPDU as MPA delivers it (DDP header first); for the mapping it is
 * given as the offending FPDU, with its ULPDU_Length in front.
 *
 * Invariants: a decoded header never claims more octets than the ULPDU
 * has and agrees with the opcode table; a decoded Read Request and a
 * parsed Terminate re-encode to the input octets (reserved bits aside)
 * and parse back to the same values; every rejection is a status the
 * headers document; the Terminate built for any error re-parses to the
 * same layer, type, code and flags.
 *
 * Locking: none; libFuzzer calls this single-threaded.
 */
#include <stdint.h>
#include <string.h>

#include "mpa.h"
#include "rdmap.h"
#include "fuzz_check.h"

static void check_term_equal(const struct softiw_rdmap_term *a,
			     const struct softiw_rdmap_term *b)
{
	FUZZ_CHECK(a->layer == b->layer && a->etype == b->etype &&
		   a->ecode == b->ecode);
	FUZZ_CHECK(a->m == b->m && a->d == b->d && a->r == b->r);
	if (a->m)
		FUZZ_CHECK(a->ddp_seg_len == b->ddp_seg_len);
	if (a->d) {
		FUZZ_CHECK(a->ddp_hdr_len == b->ddp_hdr_len);
		FUZZ_CHECK(!memcmp(a->ddp_hdr, b->ddp_hdr, a->ddp_hdr_len));
	}
	if (a->r)
		FUZZ_CHECK(!memcmp(a->rdma_hdr, b->rdma_hdr,
				   SOFTIW_RDMAP_TERM_RDMA_HDR_LEN));
}

/* Encode @t as a whole Terminate ULPDU and parse its body back. */
static void check_term_roundtrip(const struct softiw_rdmap_term *t, u32 msn)
{
	u8 buf[SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_TERM_MAX_LEN];
	struct softiw_rdmap_term back;
	struct softiw_rdmap_hdr h;
	int n;

	n = softiw_rdmap_term_encode(t, msn, buf, sizeof(buf));
	FUZZ_CHECK(n >= SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_TERM_CTRL_LEN);
	FUZZ_CHECK((size_t)n <= sizeof(buf));
	FUZZ_CHECK(softiw_rdmap_term_encode(t, msn, buf, n - 1) == -ENOSPC);
	n = softiw_rdmap_term_encode(t, msn, buf, sizeof(buf));

	FUZZ_CHECK(softiw_rdmap_hdr_decode(buf, n, &h) == SOFTIW_WIRE_OK);
	FUZZ_CHECK(h.opcode == SOFTIW_RDMAP_TERMINATE);
	FUZZ_CHECK(!h.ddp.tagged && h.ddp.last);
	FUZZ_CHECK(h.ddp.qn == SOFTIW_RDMAP_QN_TERMINATE);
	FUZZ_CHECK(h.ddp.msn == msn && h.ddp.mo == 0);
	memset(&back, 0, sizeof(back));
	FUZZ_CHECK(softiw_rdmap_term_parse(buf + SOFTIW_DDP_UNTAGGED_HDR_LEN,
					   n - SOFTIW_DDP_UNTAGGED_HDR_LEN,
					   &back) == SOFTIW_WIRE_OK);
	check_term_equal(t, &back);
}

static void check_read_req(const u8 *body, size_t len)
{
	struct softiw_rdmap_read_req rr;
	u8 again[SOFTIW_RDMAP_READ_REQ_LEN];
	u32 st;

	st = softiw_rdmap_read_req_decode(body, len, &rr);
	if (len < SOFTIW_RDMAP_READ_REQ_LEN) {
		FUZZ_CHECK(st == SOFTIW_DDP_ERR_SHORT);
		return;
	}
	FUZZ_CHECK(st == SOFTIW_WIRE_OK);
	FUZZ_CHECK(softiw_rdmap_read_req_encode(&rr, again, sizeof(again)) ==
		   SOFTIW_RDMAP_READ_REQ_LEN);
	FUZZ_CHECK(!memcmp(again, body, SOFTIW_RDMAP_READ_REQ_LEN));
	FUZZ_CHECK(softiw_rdmap_read_req_encode(&rr, again,
						sizeof(again) - 1) == -ENOSPC);
}

static void check_terminate(const u8 *body, size_t len, u32 msn)
{
	struct softiw_rdmap_term t;
	u32 st;

	memset(&t, 0, sizeof(t));
	st = softiw_rdmap_term_parse(body, len, &t);
	if (st) {
		FUZZ_CHECK(st == SOFTIW_DDP_ERR_SHORT ||
			   st == SOFTIW_RDMAP_ERR_TERM_FORMAT);
		FUZZ_CHECK(st != SOFTIW_DDP_ERR_SHORT ||
			   len < SOFTIW_RDMAP_TERM_CTRL_LEN);
		return;
	}
	FUZZ_CHECK(len >= SOFTIW_RDMAP_TERM_CTRL_LEN);
	FUZZ_CHECK(t.layer <= SOFTIW_LAYER_LLP);
	FUZZ_CHECK(t.layer == body[0] >> 4 && t.etype == (body[0] & 0xf) &&
		   t.ecode == body[1]);
	FUZZ_CHECK(t.m == !!(body[2] & 0x80) && t.d == !!(body[2] & 0x40) &&
		   t.r == !!(body[2] & 0x20));
	if (t.d)
		FUZZ_CHECK(t.ddp_hdr_len == SOFTIW_DDP_TAGGED_HDR_LEN ||
			   t.ddp_hdr_len == SOFTIW_DDP_UNTAGGED_HDR_LEN);
	check_term_roundtrip(&t, msn);
}

static void check_ulpdu(const u8 *buf, size_t len)
{
	const struct softiw_rdmap_opinfo *op;
	struct softiw_rdmap_hdr h;
	u32 st;

	memset(&h, 0, sizeof(h));
	st = softiw_rdmap_hdr_decode(buf, len, &h);
	if (st) {
		FUZZ_CHECK(st == SOFTIW_DDP_ERR_SHORT ||
			   st == SOFTIW_DDP_ERR_TAGGED_VERSION ||
			   st == SOFTIW_DDP_ERR_UNTAGGED_VERSION ||
			   st == SOFTIW_RDMAP_ERR_VERSION ||
			   st == SOFTIW_RDMAP_ERR_OPCODE ||
			   st == SOFTIW_DDP_ERR_INVALID_QN);
		return;
	}
	op = softiw_rdmap_opinfo(h.opcode);
	FUZZ_CHECK(op);
	FUZZ_CHECK(h.opcode == (buf[1] & SOFTIW_RDMAP_OPCODE_MASK));
	FUZZ_CHECK((buf[1] >> SOFTIW_RDMAP_RV_SHIFT) == SOFTIW_RDMAP_VERSION);
	FUZZ_CHECK(h.ddp.tagged == op->tagged);
	FUZZ_CHECK(op->tagged || h.ddp.qn == op->qn);
	FUZZ_CHECK(h.hdr_len == op->hdr_len);
	FUZZ_CHECK(h.hdr_len <= len);
	if (op->has_inval_stag)
		FUZZ_CHECK(h.inval_stag == softiw_wire_get_be32(buf + 2));

	if (h.opcode == SOFTIW_RDMAP_READ_REQ)
		check_read_req(buf + SOFTIW_DDP_UNTAGGED_HDR_LEN,
			       len - SOFTIW_DDP_UNTAGGED_HDR_LEN);
	if (h.opcode == SOFTIW_RDMAP_TERMINATE)
		check_terminate(buf + SOFTIW_DDP_UNTAGGED_HDR_LEN,
				len - SOFTIW_DDP_UNTAGGED_HDR_LEN, h.ddp.msn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 fpdu[SOFTIW_MPA_HDR_LEN + 0xffff];
	struct softiw_rdmap_term t;
	size_t ulen;
	u32 err;

	if (size < 4)
		return 0;
	err = softiw_wire_get_be32(data);
	check_ulpdu(data + 4, size - 4);

	/*
	 * Any status, with the ULPDU as the offending FPDU's content: the
	 * mapping never fails and its Terminate must survive a round trip.
	 */
	ulen = size - 4 > 0xffff ? 0xffff : size - 4;
	softiw_wire_put_be16(fpdu, ulen);
	memcpy(fpdu + SOFTIW_MPA_HDR_LEN, data + 4, ulen);
	memset(&t, 0, sizeof(t));
	softiw_rdmap_term_for_error(err, fpdu, SOFTIW_MPA_HDR_LEN + ulen, &t);
	FUZZ_CHECK(t.layer <= SOFTIW_LAYER_LLP);
	check_term_roundtrip(&t, SOFTIW_DDP_MSN_INITIAL);
	return 0;
}
