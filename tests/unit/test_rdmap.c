// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMAP (RFC 5040): control field, opcodes, Invalidate STag, Read
 * Request, Terminate format and the error -> Terminate mapping.
 */
#include "tap.h"
#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

static u8 b[128];

/* ULPDU with header for @op (msn 1, stag 0x55, to 0x10, inval 0xabc). */
static int mk(u8 op)
{
	struct softiw_rdmap_hdr h;

	memset(b, 0, sizeof(b));
	if (softiw_rdmap_hdr_init(&h, op, 0x55, 0x10, 1, 0xabc))
		return -1;
	h.ddp.last = true;
	return softiw_ddp_hdr_encode(&h.ddp, b, sizeof(b));
}

TEST(rfc5040_s4_1_control_rv1_every_opcode)
{
	const u8 tagged[8] = { 1, 0, 1, 0, 0, 0, 0, 0 };
	const u8 qn[8] = { 0, 1, 0, 0, 0, 0, 0, 2 };
	const u8 hlen[8] = { 14, 46, 14, 18, 18, 18, 18, 22 };
	struct softiw_rdmap_hdr h;
	u8 op;

	for (op = 0; op <= 7; op++) {
		CHECK(mk(op) > 0);
		CHECK_EQ(b[1], 0x40 | op);
		CHECK_EQ(!!(b[0] & 0x80), tagged[op]);
		CHECK_EQ(softiw_rdmap_hdr_decode(b, hlen[op], &h), SOFTIW_WIRE_OK);
		CHECK_EQ(h.opcode, op);
		CHECK_EQ(h.hdr_len, hlen[op]);
		CHECK_EQ(softiw_rdmap_opinfo(op)->tagged, tagged[op]);
		if (!tagged[op])
			CHECK_EQ(h.ddp.qn, qn[op]);
	}
	CHECK(!softiw_rdmap_opinfo(8));
	CHECK(!softiw_rdmap_opinfo(0xf));
}

TEST(rfc5040_s4_1_invalid_rdmap_version)
{
	struct softiw_rdmap_hdr h;
	u8 rv;

	for (rv = 0; rv < 4; rv++) {
		if (rv == 1)
			continue;
		mk(SOFTIW_RDMAP_SEND);
		b[1] = (rv << 6) | SOFTIW_RDMAP_SEND;
		CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h),
			 SOFTIW_RDMAP_ERR_VERSION);
	}
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_RDMAP_ERR_VERSION), 0x0205);
	/* The Rsv bits are not checked. */
	mk(SOFTIW_RDMAP_SEND);
	b[1] |= SOFTIW_RDMAP_RSV_MASK;
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_WIRE_OK);
}

TEST(rfc5040_s4_1_unexpected_opcode)
{
	struct softiw_rdmap_hdr h;
	u8 op;

	for (op = 8; op <= 0xf; op++) {
		mk(SOFTIW_RDMAP_SEND);
		b[1] = 0x40 | op;
		CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_RDMAP_ERR_OPCODE);
	}
	/* A Write in an untagged segment, a Send in a tagged one. */
	mk(SOFTIW_RDMAP_SEND);
	b[1] = 0x40 | SOFTIW_RDMAP_WRITE;
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_RDMAP_ERR_OPCODE);
	mk(SOFTIW_RDMAP_WRITE);
	b[1] = 0x40 | SOFTIW_RDMAP_SEND;
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 14, &h), SOFTIW_RDMAP_ERR_OPCODE);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_RDMAP_ERR_OPCODE), 0x0206);
	CHECK_EQ(softiw_rdmap_hdr_init(&h, 8, 0, 0, 1, 0), -EINVAL);
}

TEST(rfc5040_s5_qn_per_opcode)
{
	struct softiw_rdmap_hdr h;

	mk(SOFTIW_RDMAP_SEND);
	softiw_wire_put_be32(b + 6, 1);	/* Send on the Read Request queue */
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_DDP_ERR_INVALID_QN);
	mk(SOFTIW_RDMAP_TERMINATE);
	softiw_wire_put_be32(b + 6, 0);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 22, &h), SOFTIW_DDP_ERR_INVALID_QN);
}

TEST(rfc5040_s4_invalidate_stag_field)
{
	struct softiw_rdmap_hdr h;

	mk(SOFTIW_RDMAP_SEND_INV);
	CHECK_EQ(softiw_wire_get_be32(b + 2), 0xabc);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_WIRE_OK);
	CHECK_EQ(h.inval_stag, 0xabc);
	mk(SOFTIW_RDMAP_SEND_SE_INV);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 18, &h), SOFTIW_WIRE_OK);
	CHECK_EQ(h.inval_stag, 0xabc);
	/* Plain Send: RsvdULP[8:39] is reserved, sent 0. */
	mk(SOFTIW_RDMAP_SEND);
	CHECK_EQ(softiw_wire_get_be32(b + 2), 0);
	mk(SOFTIW_RDMAP_SEND_SE);
	CHECK_EQ(softiw_wire_get_be32(b + 2), 0);
}

TEST(rfc5040_s4_truncated_headers)
{
	struct softiw_rdmap_hdr h;
	struct softiw_rdmap_read_req rr;

	mk(SOFTIW_RDMAP_READ_REQ);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 45, &h), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 17, &h), SOFTIW_DDP_ERR_SHORT);
	mk(SOFTIW_RDMAP_TERMINATE);
	CHECK_EQ(softiw_rdmap_hdr_decode(b, 21, &h), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_rdmap_read_req_decode(b, 27, &rr), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_rdmap_read_req_encode(&rr, b, 27), -ENOSPC);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_SHORT), 0x2003);
}

static int src_lookup(void *ctx, u32 stag, struct softiw_ddp_stag_info *i)
{
	if (stag != 0x77)
		return -1;
	*i = (struct softiw_ddp_stag_info){ .pd = 1, .qp = SOFTIW_DDP_ANY_QP,
		.base = 0x1000, .len = 0x100,
		.access = SOFTIW_DDP_ACCESS_REMOTE_READ };
	return 0;
}

TEST(rfc5040_s4_4_read_request_source_checks)
{
	struct softiw_ddp_stream s = { .pd = 1, .qp = 2, .nr_qn = 3,
				       .stag_lookup = src_lookup };
	struct softiw_rdmap_read_req rr = { .src_stag = 0x77, .src_to = 0x1000,
					    .size = 0x100 };

	CHECK_EQ(softiw_rdmap_read_req_validate(&s, &rr), SOFTIW_WIRE_OK);
	rr.size = 0x101;
	CHECK_EQ(softiw_rdmap_read_req_validate(&s, &rr), SOFTIW_RDMAP_ERR_BOUNDS);
	rr.src_stag = 0x78;
	CHECK_EQ(softiw_rdmap_read_req_validate(&s, &rr),
		 SOFTIW_RDMAP_ERR_INVALID_STAG);
	rr.size = 0;	/* zero-length Read (RTR): nothing checked */
	CHECK_EQ(softiw_rdmap_read_req_validate(&s, &rr), SOFTIW_WIRE_OK);
	rr.src_stag = 0x77;
	rr.size = 1;
	s.pd = 2;
	CHECK_EQ(softiw_rdmap_read_req_validate(&s, &rr),
		 SOFTIW_RDMAP_ERR_NOT_ASSOCIATED);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_RDMAP_ERR_NOT_ASSOCIATED), 0x0103);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_RDMAP_ERR_ACCESS), 0x0102);
}

TEST(rfc5040_s4_8_terminate_ddp_error_copies_header)
{
	struct softiw_rdmap_term t, p;
	u8 fpdu[64], out[96];
	int n;

	/* A tagged Write FPDU: ULPDU_Length + 14-octet header + payload. */
	softiw_wire_put_be16(fpdu, 14 + 8);
	memcpy(fpdu + 2, "\xc1\x40\x12\x34\x56\x78\0\0\0\0\0\0\x10\0", 14);
	softiw_rdmap_term_for_error(SOFTIW_DDP_ERR_INVALID_STAG, fpdu, 24, &t);
	CHECK(t.m && t.d && !t.r);
	CHECK_EQ(t.layer, 1);
	CHECK_EQ(t.etype, 1);
	CHECK_EQ(t.ecode, 0);
	CHECK_EQ(t.ddp_seg_len, 22);
	CHECK_EQ(t.ddp_hdr_len, 14);
	CHECK_MEM(t.ddp_hdr, fpdu + 2, 14);
	n = softiw_rdmap_term_encode(&t, 1, out, sizeof(out));
	CHECK_EQ(n, 18 + 4 + 2 + 14);
	CHECK_EQ(softiw_wire_get_be32(out + 18), 0x1100c000);
	CHECK_EQ(softiw_rdmap_term_parse(out + 18, n - 18, &p), SOFTIW_WIRE_OK);
	CHECK(p.m && p.d && !p.r);
	CHECK_EQ(p.ddp_hdr_len, 14);
	CHECK_MEM(p.ddp_hdr, fpdu + 2, 14);
	CHECK_EQ(softiw_rdmap_term_status(&p), SOFTIW_DDP_ERR_INVALID_STAG);
	CHECK_EQ(softiw_rdmap_term_encode(&t, 1, out, n - 1), -ENOSPC);
	/* Terminate header: QN 2, MSN 1, MO 0, L. */
	CHECK_EQ(out[0], 0x41);
	CHECK_EQ(out[1], 0x47);
	CHECK_EQ(softiw_wire_get_be32(out + 6), 2);
	CHECK_EQ(softiw_wire_get_be32(out + 10), 1);
	CHECK_EQ(softiw_wire_get_be32(out + 14), 0);
}

TEST(rfc5040_s4_8_terminate_read_request_copies_rdma_header)
{
	struct softiw_rdmap_term t, p;
	u8 fpdu[48], out[96];
	int n, i;

	softiw_wire_put_be16(fpdu, 46);
	memcpy(fpdu + 2, "\x41\x41\0\0\0\0\0\0\0\x01\0\0\0\x01\0\0\0\0", 18);
	for (i = 0; i < 28; i++)
		fpdu[20 + i] = 0xa0 + i;
	softiw_rdmap_term_for_error(SOFTIW_RDMAP_ERR_BOUNDS, fpdu, 48, &t);
	CHECK(t.m && t.d && t.r);
	CHECK_EQ(t.layer, 0);
	CHECK_EQ(t.etype, 1);
	CHECK_EQ(t.ecode, 1);
	CHECK_MEM(t.rdma_hdr, fpdu + 20, 28);
	n = softiw_rdmap_term_encode(&t, 1, out, sizeof(out));
	CHECK_EQ(n, 18 + SOFTIW_RDMAP_TERM_MAX_LEN);
	CHECK_EQ(n, 70);
	CHECK_EQ(softiw_rdmap_term_parse(out + 18, n - 18, &p), SOFTIW_WIRE_OK);
	CHECK(p.r);
	CHECK_MEM(p.rdma_hdr, fpdu + 20, 28);
	/* Truncated Read Request: no RDMA header copied. */
	softiw_rdmap_term_for_error(SOFTIW_RDMAP_ERR_BOUNDS, fpdu, 47, &t);
	CHECK(t.d && !t.r);
}

TEST(rfc5040_s4_8_terminate_no_headers_when_layout_unknown)
{
	u32 errs[] = { SOFTIW_MPA_ERR_CRC, SOFTIW_MPA_ERR_MARKER,
		       SOFTIW_MPA_ERR_RR_KEY, SOFTIW_DDP_ERR_SHORT,
		       SOFTIW_DDP_ERR_TAGGED_VERSION,
		       SOFTIW_DDP_ERR_UNTAGGED_VERSION,
		       SOFTIW_DDP_ERR_CATASTROPHIC, SOFTIW_RDMAP_ERR_VERSION,
		       SOFTIW_RDMAP_ERR_OPCODE, SOFTIW_RDMAP_ERR_CATASTROPHIC };
	struct softiw_rdmap_term t;
	u8 fpdu[48] = { 0, 46, 0x41, 0x41 };
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		softiw_rdmap_term_for_error(errs[i], fpdu, sizeof(fpdu), &t);
		CHECK(!t.m && !t.d && !t.r);
		CHECK_EQ(softiw_rdmap_term_status(&t) & 0xffff,
			 softiw_wire_term_bits(errs[i]));
	}
	/* A non-error value is a local catastrophic error. */
	softiw_rdmap_term_for_error(0, NULL, 0, &t);
	CHECK_EQ(t.layer, 0);
	CHECK_EQ(t.etype, 0);
	CHECK_EQ(t.ecode, 0xff);
	/* An error value with an undefined layer: also catastrophic. */
	softiw_rdmap_term_for_error(SOFTIW_WIRE_ERR(0, 4, 1, 1), fpdu,
				    sizeof(fpdu), &t);
	CHECK_EQ(t.layer, 0);
	CHECK_EQ(t.ecode, 0xff);
	CHECK(!t.d);
	/* A DDP buffer error without the FPDU has nothing to copy. */
	softiw_rdmap_term_for_error(SOFTIW_DDP_ERR_TOO_LONG, fpdu, 10, &t);
	CHECK(!t.d);
	CHECK_EQ(t.ecode, 5);
}

TEST(rfc5040_s4_8_every_error_maps_to_its_code)
{
	static const struct { u32 err; u8 l, et, c; } map[] = {
		{ SOFTIW_MPA_ERR_CRC, 2, 0, 2 }, { SOFTIW_MPA_ERR_MARKER, 2, 0, 3 },
		{ SOFTIW_MPA_ERR_RR_REV, 2, 0, 4 }, { SOFTIW_MPA_ERR_IRD, 2, 0, 6 },
		{ SOFTIW_MPA_ERR_NO_RTR, 2, 0, 7 },
		{ SOFTIW_DDP_ERR_CATASTROPHIC, 1, 0, 0 },
		{ SOFTIW_DDP_ERR_INVALID_STAG, 1, 1, 0 },
		{ SOFTIW_DDP_ERR_ACCESS, 1, 1, 0 },
		{ SOFTIW_DDP_ERR_BOUNDS, 1, 1, 1 },
		{ SOFTIW_DDP_ERR_NOT_ASSOCIATED, 1, 1, 2 },
		{ SOFTIW_DDP_ERR_TO_WRAP, 1, 1, 3 },
		{ SOFTIW_DDP_ERR_TAGGED_VERSION, 1, 1, 4 },
		{ SOFTIW_DDP_ERR_INVALID_QN, 1, 2, 1 },
		{ SOFTIW_DDP_ERR_NO_BUFFER, 1, 2, 2 },
		{ SOFTIW_DDP_ERR_MSN_RANGE, 1, 2, 3 },
		{ SOFTIW_DDP_ERR_INVALID_MO, 1, 2, 4 },
		{ SOFTIW_DDP_ERR_TOO_LONG, 1, 2, 5 },
		{ SOFTIW_DDP_ERR_UNTAGGED_VERSION, 1, 2, 6 },
		{ SOFTIW_RDMAP_ERR_INVALID_STAG, 0, 1, 0 },
		{ SOFTIW_RDMAP_ERR_ACCESS, 0, 1, 2 },
		{ SOFTIW_RDMAP_ERR_TO_WRAP, 0, 1, 4 },
		{ SOFTIW_RDMAP_ERR_INV_PROT, 0, 1, 9 },
		{ SOFTIW_RDMAP_ERR_VERSION, 0, 2, 5 },
		{ SOFTIW_RDMAP_ERR_OPCODE, 0, 2, 6 },
		{ SOFTIW_RDMAP_ERR_STREAM_CATASTROPHIC, 0, 2, 7 },
		{ SOFTIW_RDMAP_ERR_GLOBAL_CATASTROPHIC, 0, 2, 8 },
		{ SOFTIW_RDMAP_ERR_INV_OP, 0, 2, 9 },
	};
	struct softiw_rdmap_term t;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		softiw_rdmap_term_for_error(map[i].err, NULL, 0, &t);
		CHECK_EQ(t.layer, map[i].l);
		CHECK_EQ(t.etype, map[i].et);
		CHECK_EQ(t.ecode, map[i].c);
	}
}

TEST(rfc5040_s4_8_terminate_parse_malformed)
{
	struct softiw_rdmap_term t;
	u8 body[8] = { 0x30, 0, 0, 0 };

	CHECK_EQ(softiw_rdmap_term_parse(body, 3, &t), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_rdmap_term_parse(body, 4, &t), SOFTIW_RDMAP_ERR_TERM_FORMAT);
	body[0] = 0x10;
	body[2] = 0xc0;	/* M|D but no room for the header */
	CHECK_EQ(softiw_rdmap_term_parse(body, 8, &t), SOFTIW_RDMAP_ERR_TERM_FORMAT);
	body[2] = 0x20;	/* R but no room */
	CHECK_EQ(softiw_rdmap_term_parse(body, 8, &t), SOFTIW_RDMAP_ERR_TERM_FORMAT);
	/* LLP EType 3 (cxgb4, irdma) is accepted like EType 0 (siw). */
	body[0] = 0x23;
	body[1] = 0x02;
	body[2] = 0;
	CHECK_EQ(softiw_rdmap_term_parse(body, 4, &t), SOFTIW_WIRE_OK);
	CHECK_EQ(t.layer, 2);
	CHECK_EQ(t.etype, 3);
	CHECK_EQ(t.ecode, 2);
}

int main(void)
{
	RUN(rfc5040_s4_1_control_rv1_every_opcode);
	RUN(rfc5040_s4_1_invalid_rdmap_version);
	RUN(rfc5040_s4_1_unexpected_opcode);
	RUN(rfc5040_s5_qn_per_opcode);
	RUN(rfc5040_s4_invalidate_stag_field);
	RUN(rfc5040_s4_truncated_headers);
	RUN(rfc5040_s4_4_read_request_source_checks);
	RUN(rfc5040_s4_8_terminate_ddp_error_copies_header);
	RUN(rfc5040_s4_8_terminate_read_request_copies_rdma_header);
	RUN(rfc5040_s4_8_terminate_no_headers_when_layout_unknown);
	RUN(rfc5040_s4_8_every_error_maps_to_its_code);
	RUN(rfc5040_s4_8_terminate_parse_malformed);
	return tap_done();
}
