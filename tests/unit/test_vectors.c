// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Byte-exact wire vectors (decoded as correct by tshark's iWARP
 * dissectors): every one is built by the encoders and compared octet by
 * octet, then parsed back.
 */
#include "tap.h"
#include "crc32c.h"
#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

static u8 want[128], got[128], ulpdu[128];

static size_t vec(const char *hex)
{
	return tap_hex(hex, want, sizeof(want));
}

/* Frame one ULPDU with CRC at stream start, no Markers. */
static int fpdu(const u8 *u, u32 len)
{
	struct softiw_mpa_tx tx = { .crc32c = softiw_host_crc32c, .crc = true };

	return softiw_mpa_fpdu_build(&tx, u, len, got, sizeof(got));
}

/* Header + payload of a single-segment RDMAP message into ulpdu[]. */
static u32 msg(u8 op, u32 stag, u64 to, u32 msn, const void *pl, u32 plen)
{
	struct softiw_rdmap_hdr h;
	int n;

	softiw_rdmap_hdr_init(&h, op, stag, to, msn, 0);
	h.ddp.last = true;
	n = softiw_ddp_hdr_encode(&h.ddp, ulpdu, sizeof(ulpdu));
	memcpy(ulpdu + n, pl, plen);
	return n + plen;
}

static void check_fpdu_parses(size_t n, u8 opcode)
{
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true };
	struct softiw_mpa_fpdu f;
	struct softiw_rdmap_hdr h;

	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, want, n, NULL, 0, &f),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(f.wire_len, n);
	CHECK_EQ(softiw_rdmap_hdr_decode(f.ulpdu, f.ulpdu_len, &h),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(h.opcode, opcode);
	CHECK(h.ddp.last);
}

TEST(vector_a1_mpa_request_rev1_crc)
{
	size_t n = vec("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 40 01 00 00");
	struct softiw_mpa_rr rr = { .rev = 1, .crc = true }, p;

	CHECK_EQ(softiw_mpa_rr_encode(&rr, got, sizeof(got)), n);
	CHECK_MEM(got, want, n);
	CHECK_EQ(softiw_mpa_rr_parse(want, n, false, &p), SOFTIW_WIRE_OK);
	CHECK(p.crc && !p.markers && !p.reject && !p.enhanced);
	CHECK_EQ(p.rev, 1);
	CHECK_EQ(p.pd_len, 0);
}

TEST(vector_a2_mpa_reply_rev1_crc)
{
	size_t n = vec("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 40 01 00 00");
	struct softiw_mpa_rr rr = { .reply = true, .rev = 1, .crc = true }, p;

	CHECK_EQ(softiw_mpa_rr_encode(&rr, got, sizeof(got)), n);
	CHECK_MEM(got, want, n);
	CHECK_EQ(softiw_mpa_rr_parse(want, n, true, &p), SOFTIW_WIRE_OK);
	CHECK(p.reply && p.crc);
}

TEST(vector_a3_send_abcd)
{
	size_t n = vec("00 16 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
		       " 41 42 43 44 32 e6 1a fb");

	CHECK_EQ(fpdu(ulpdu, msg(SOFTIW_RDMAP_SEND, 0, 0, 1, "ABCD", 4)), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_SEND);
}

TEST(vector_a4_rdma_write)
{
	const u8 pl[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	size_t n = vec("00 16 c1 40 12 34 56 78 00 00 00 00 00 00 10 00 01 02 03 04"
		       " 05 06 07 08 50 4c 11 3b");

	CHECK_EQ(fpdu(ulpdu, msg(SOFTIW_RDMAP_WRITE, 0x12345678, 0x1000, 0,
				 pl, 8)), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_WRITE);
}

TEST(vector_a5_send_hello_pad)
{
	size_t n = vec("00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00"
		       " 48 65 6c 6c 6f 00 00 00 8f bd c7 50");

	CHECK_EQ(fpdu(ulpdu, msg(SOFTIW_RDMAP_SEND, 0, 0, 2, "Hello", 5)), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_SEND);
}

TEST(vector_a6_read_request)
{
	struct softiw_rdmap_read_req rr = {
		.sink_stag = 0xab01, .sink_to = 0x2000, .size = 64,
		.src_stag = 0xcd02, .src_to = 0x3000,
	}, p;
	u8 body[28];
	size_t n = vec("00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
		       " 00 00 ab 01 00 00 00 00 00 00 20 00 00 00 00 40 00 00 cd 02"
		       " 00 00 00 00 00 00 30 00 71 10 5d 9f");

	CHECK_EQ(softiw_rdmap_read_req_encode(&rr, body, sizeof(body)), 28);
	CHECK_EQ(fpdu(ulpdu, msg(SOFTIW_RDMAP_READ_REQ, 0, 0, 1, body, 28)), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_READ_REQ);
	CHECK_EQ(softiw_rdmap_read_req_decode(want + 20, 28, &p), SOFTIW_WIRE_OK);
	CHECK_EQ(p.sink_stag, 0xab01);
	CHECK_EQ(p.sink_to, 0x2000);
	CHECK_EQ(p.size, 64);
	CHECK_EQ(p.src_stag, 0xcd02);
	CHECK_EQ(p.src_to, 0x3000);
}

TEST(vector_a7_terminate_llp_crc)
{
	struct softiw_rdmap_term t;
	size_t n = vec("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00"
		       " 20 02 00 00 7f e4 25 85");
	int u;

	softiw_rdmap_term_for_error(SOFTIW_MPA_ERR_CRC, want, n, &t);
	CHECK(!t.m && !t.d && !t.r);
	u = softiw_rdmap_term_encode(&t, 1, ulpdu, sizeof(ulpdu));
	CHECK_EQ(u, 22);
	CHECK_EQ(fpdu(ulpdu, u), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_TERMINATE);
	CHECK_EQ(softiw_rdmap_term_parse(want + 20, 4, &t), SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_rdmap_term_status(&t) & 0xffff, 0x2002);
}

TEST(vector_b1_mpa_v2_request)
{
	size_t n = vec("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 50 02 00 04"
		       " 80 10 c0 10");
	struct softiw_mpa_rr rr = {
		.rev = 2, .crc = true, .enhanced = true,
		.v2 = { .ird = 16, .ord = 16, .p2p = true,
			.rtr = SOFTIW_MPA_RTR_WRITE | SOFTIW_MPA_RTR_READ },
	}, p;

	CHECK_EQ(softiw_mpa_rr_encode(&rr, got, sizeof(got)), n);
	CHECK_MEM(got, want, n);
	CHECK_EQ(softiw_mpa_rr_parse(want, n, false, &p), SOFTIW_WIRE_OK);
	CHECK(p.enhanced && p.v2.p2p);
	CHECK_EQ(p.v2.ird, 16);
	CHECK_EQ(p.v2.ord, 16);
	CHECK_EQ(p.v2.rtr, SOFTIW_MPA_RTR_WRITE | SOFTIW_MPA_RTR_READ);
	CHECK_EQ(p.pd_len, 0);
	CHECK(!p.pd);
}

TEST(vector_b2_mpa_v2_reply)
{
	size_t n = vec("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 50 02 00 04"
		       " 80 10 80 10");
	struct softiw_mpa_rr req, rep = { .reply = true, .rev = 2, .crc = true,
					  .enhanced = true };

	/* B1 answered by our responder logic gives exactly B2. */
	tap_hex("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 50 02 00 04"
		" 80 10 c0 10", ulpdu, sizeof(ulpdu));
	CHECK_EQ(softiw_mpa_rr_parse(ulpdu, 24, false, &req), SOFTIW_WIRE_OK);
	softiw_mpa_v2_respond(&req.v2, 16, 16, &rep.v2);
	CHECK_EQ(softiw_mpa_rr_encode(&rep, got, sizeof(got)), n);
	CHECK_MEM(got, want, n);
}

TEST(vector_b3_rtr_zero_length_write)
{
	size_t n = vec("00 0e c1 40 00 00 00 00 00 00 00 00 00 00 00 00 a3 05 72 ab");

	CHECK_EQ(fpdu(ulpdu, msg(SOFTIW_RDMAP_WRITE, 0, 0, 0, "", 0)), n);
	CHECK_MEM(got, want, n);
	check_fpdu_parses(n, SOFTIW_RDMAP_WRITE);
}

TEST(vector_a3_flipped_bit_gives_a7)
{
	struct softiw_mpa_rx rx = { .crc32c = softiw_host_crc32c, .crc = true };
	struct softiw_mpa_fpdu f;
	struct softiw_rdmap_term t;
	u8 a7[28];
	size_t n = vec("00 16 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
		       " 41 42 43 44 32 e6 1a fb");
	u32 s;
	int u;

	want[21] ^= 0x10;
	s = softiw_mpa_fpdu_parse(&rx, want, n, NULL, 0, &f);
	CHECK_EQ(s, SOFTIW_MPA_ERR_CRC);
	softiw_rdmap_term_for_error(s, want, n, &t);
	u = softiw_rdmap_term_encode(&t, 1, ulpdu, sizeof(ulpdu));
	CHECK_EQ(fpdu(ulpdu, u), 28);
	tap_hex("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00"
		" 20 02 00 00 7f e4 25 85", a7, sizeof(a7));
	CHECK_MEM(got, a7, 28);
}

int main(void)
{
	RUN(vector_a1_mpa_request_rev1_crc);
	RUN(vector_a2_mpa_reply_rev1_crc);
	RUN(vector_a3_send_abcd);
	RUN(vector_a4_rdma_write);
	RUN(vector_a5_send_hello_pad);
	RUN(vector_a6_read_request);
	RUN(vector_a7_terminate_llp_crc);
	RUN(vector_b1_mpa_v2_request);
	RUN(vector_b2_mpa_v2_reply);
	RUN(vector_b3_rtr_zero_length_write);
	RUN(vector_a3_flipped_bit_gives_a7);
	return tap_done();
}
