// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DDP (RFC 5041) sections 4-7: header formats, segmentation examples,
 * MSN rules, receive validation order and error numbers.
 */
#include "tap.h"
#include "ddp.h"

/* --- a fake STag table and receive queues for the validators --- */
struct fake {
	struct softiw_ddp_stag_info stag[4];
	u32 nr_stag;
	u32 lookups;
	struct softiw_ddp_ubuf_info q[3];
};

static int fake_stag(void *ctx, u32 stag, struct softiw_ddp_stag_info *i)
{
	struct fake *f = ctx;

	f->lookups++;
	if (stag >= f->nr_stag)
		return -1;
	*i = f->stag[stag];
	return 0;
}

static int fake_ubuf(void *ctx, u32 qn, u32 msn, struct softiw_ddp_ubuf_info *i)
{
	struct fake *f = ctx;

	*i = f->q[qn];
	return 0;
}

static struct fake fk;
static struct softiw_ddp_stream st = {
	.pd = 7, .qp = 3, .nr_qn = 3,
	.stag_lookup = fake_stag, .ubuf_lookup = fake_ubuf, .ctx = &fk,
};

static void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk.nr_stag = 3;
	/* STag 0: PD 7, any QP, TO 0x1000..0x1fff, read+write */
	fk.stag[0] = (struct softiw_ddp_stag_info){ 7, SOFTIW_DDP_ANY_QP,
		0x1000, 0x1000, 3 };
	/* STag 1: PD 8 */
	fk.stag[1] = (struct softiw_ddp_stag_info){ 8, SOFTIW_DDP_ANY_QP,
		0, 0x1000, 3 };
	/* STag 2: PD 7, bound to QP 4, write only, ends at 2^64 */
	fk.stag[2] = (struct softiw_ddp_stag_info){ 7, 4,
		0xfffffffffffff000ull, 0x1000, 1 };
	/* QN 0: MSNs 5..6 have 100-octet buffers */
	fk.q[0] = (struct softiw_ddp_ubuf_info){ 5, 2, 100 };
	fk.q[1] = (struct softiw_ddp_ubuf_info){ 1, 0, 0 };
	fk.q[2] = (struct softiw_ddp_ubuf_info){ 0xffffffffu, 2, 64 };
}

static struct softiw_ddp_hdr tagged(u32 stag, u64 to)
{
	struct softiw_ddp_hdr h = { .tagged = true, .last = true, .dv = 1,
				    .stag = stag, .to = to };
	return h;
}

static struct softiw_ddp_hdr untagged(u32 qn, u32 msn, u32 mo)
{
	struct softiw_ddp_hdr h = { .last = true, .dv = 1, .qn = qn,
				    .msn = msn, .mo = mo };
	return h;
}

TEST(rfc5041_s4_2_tagged_header_format)
{
	struct softiw_ddp_hdr h = tagged(0x11223344, 0x0102030405060708ull), d;
	const u8 want[14] = { 0xc1, 0x5a, 0x11, 0x22, 0x33, 0x44,
			      1, 2, 3, 4, 5, 6, 7, 8 };
	u8 b[20];

	h.rsvdulp = 0x5a;
	CHECK_EQ(softiw_ddp_hdr_encode(&h, b, sizeof(b)), 14);
	CHECK_MEM(b, want, 14);
	CHECK_EQ(softiw_ddp_hdr_encode(&h, b, 13), -ENOSPC);
	CHECK_EQ(softiw_ddp_hdr_decode(want, 14, &d), SOFTIW_WIRE_OK);
	CHECK(d.tagged && d.last);
	CHECK_EQ(d.rsvdulp, 0x5a);
	CHECK_EQ(d.stag, 0x11223344);
	CHECK_EQ(d.to, 0x0102030405060708ull);
}

TEST(rfc5041_s4_3_untagged_header_format)
{
	struct softiw_ddp_hdr h = untagged(0xa1a2a3a4, 0xb1b2b3b4, 0xc1c2c3c4), d;
	const u8 want[18] = { 0x01, 0x99, 0xd1, 0xd2, 0xd3, 0xd4,
			      0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4,
			      0xc1, 0xc2, 0xc3, 0xc4 };
	u8 b[18];

	h.last = false;
	h.rsvdulp = 0x99;
	h.rsvdulp_ext = 0xd1d2d3d4;
	CHECK_EQ(softiw_ddp_hdr_encode(&h, b, sizeof(b)), 18);
	CHECK_MEM(b, want, 18);
	CHECK_EQ(softiw_ddp_hdr_decode(want, 18, &d), SOFTIW_WIRE_OK);
	CHECK(!d.tagged && !d.last);
	CHECK_EQ(d.rsvdulp_ext, 0xd1d2d3d4);
	CHECK_EQ(d.qn, 0xa1a2a3a4);
	CHECK_EQ(d.msn, 0xb1b2b3b4);
	CHECK_EQ(d.mo, 0xc1c2c3c4);
}

TEST(rfc5041_s4_1_rsvd_zero_on_tx_ignored_on_rx)
{
	struct softiw_ddp_hdr h = tagged(1, 2), d;
	u8 b[14];

	h.dv = 3;	/* the encoder always writes DV = 1 */
	softiw_ddp_hdr_encode(&h, b, sizeof(b));
	CHECK_EQ(b[0] & SOFTIW_DDP_RSVD_MASK, 0);
	CHECK_EQ(b[0] & SOFTIW_DDP_DV_MASK, 1);
	b[0] |= SOFTIW_DDP_RSVD_MASK;
	CHECK_EQ(softiw_ddp_hdr_decode(b, 14, &d), SOFTIW_WIRE_OK);
}

TEST(rfc5041_s4_1_invalid_ddp_version)
{
	u8 t[14] = { 0xc0 }, u[18] = { 0x42 };
	struct softiw_ddp_hdr d;

	CHECK_EQ(softiw_ddp_hdr_decode(t, 14, &d), SOFTIW_DDP_ERR_TAGGED_VERSION);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_TAGGED_VERSION), 0x1104);
	CHECK_EQ(softiw_ddp_hdr_decode(u, 18, &d),
		 SOFTIW_DDP_ERR_UNTAGGED_VERSION);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_UNTAGGED_VERSION), 0x1206);
	u[0] = 0x03;
	CHECK_EQ(softiw_ddp_hdr_decode(u, 18, &d),
		 SOFTIW_DDP_ERR_UNTAGGED_VERSION);
}

TEST(rfc5041_s4_truncated_header)
{
	u8 b[18] = { 0x81 };
	struct softiw_ddp_hdr d;

	CHECK_EQ(softiw_ddp_hdr_decode(b, 0, &d), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_ddp_hdr_decode(b, 13, &d), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_ddp_hdr_decode(b, 14, &d), SOFTIW_WIRE_OK);
	b[0] = 0x01;
	CHECK_EQ(softiw_ddp_hdr_decode(b, 17, &d), SOFTIW_DDP_ERR_SHORT);
	CHECK_EQ(softiw_ddp_hdr_decode(b, 18, &d), SOFTIW_WIRE_OK);
}

/* Segment a message and check the (offset, length, L) sequence. */
static void seg_run(struct softiw_ddp_hdr base, u32 len, u32 mulpdu,
		    const u32 *offs, const u32 *lens, u32 n)
{
	struct softiw_ddp_segmenter s;
	struct softiw_ddp_hdr h;
	u32 off, plen, i = 0;

	CHECK_EQ(softiw_ddp_seg_init(&s, &base, len, mulpdu), 0);
	while (softiw_ddp_seg_next(&s, &h, &off, &plen)) {
		CHECK(i < n);
		if (i >= n)
			return;
		CHECK_EQ(off, offs[i] - (base.tagged ? base.to : 0));
		CHECK_EQ(plen, lens[i]);
		CHECK_EQ(base.tagged ? h.to : h.mo, offs[i]);
		CHECK_EQ(h.last, i == n - 1);
		CHECK(softiw_ddp_hdr_len(h.tagged) + plen <= mulpdu);
		CHECK_EQ(h.stag, base.stag);
		CHECK_EQ(h.qn, base.qn);
		CHECK_EQ(h.msn, base.msn);
		CHECK_EQ(h.rsvdulp, base.rsvdulp);
		i++;
	}
	CHECK_EQ(i, n);
	CHECK_EQ(softiw_ddp_seg_count(len, mulpdu, base.tagged), n);
}

TEST(rfc5041_s5_2_untagged_example)
{
	const u32 offs[] = { 0, 1482 }, lens[] = { 1482, 566 };

	seg_run(untagged(0, 1, 0), 2048, 1500, offs, lens, 2);
}

TEST(rfc5041_s5_2_tagged_example)
{
	const u32 offs[] = { 16384, 17870 }, lens[] = { 1486, 562 };

	seg_run(tagged(9, 16384), 2048, 1500, offs, lens, 2);
}

TEST(rfc5041_s5_2_zero_length_one_segment)
{
	const u32 offs[] = { 0 }, lens[] = { 0 }, toffs[] = { 77 };

	seg_run(untagged(0, 1, 0), 0, 1500, offs, lens, 1);
	seg_run(tagged(9, 77), 0, 1500, toffs, lens, 1);
}

TEST(rfc5041_s5_2_exact_multiple_and_mulpdu_limits)
{
	const u32 offs[] = { 0, 10 }, lens[] = { 10, 10 };
	struct softiw_ddp_segmenter s;
	struct softiw_ddp_hdr b = untagged(0, 1, 0);

	seg_run(b, 20, 28, offs, lens, 2);	/* no empty trailing segment */
	CHECK_EQ(softiw_ddp_seg_init(&s, &b, 20, 18), -EINVAL);
	b.tagged = true;
	CHECK_EQ(softiw_ddp_seg_init(&s, &b, 20, 14), -EINVAL);
	CHECK_EQ(softiw_ddp_seg_init(&s, &b, 20, 15), 0);
	CHECK_EQ(softiw_ddp_seg_count(0xffffffffu, 15, true), 0xffffffffu);
}

TEST(rfc5041_s4_3_msn_starts_at_1_and_wraps)
{
	CHECK_EQ(SOFTIW_DDP_MSN_INITIAL, 1);
	CHECK_EQ(softiw_ddp_msn_next(1), 2);
	CHECK_EQ(softiw_ddp_msn_next(0xffffffffu), 0);
}

TEST(rfc5041_s7_1_invalid_stag)
{
	struct softiw_ddp_hdr h = tagged(3, 0x1000);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, NULL),
		 SOFTIW_DDP_ERR_INVALID_STAG);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_INVALID_STAG), 0x1100);
}

TEST(rfc5041_s5_2_zero_length_tagged_not_checked)
{
	struct softiw_ddp_hdr h = tagged(3, 0xffffffffffffffffull);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 0, 1, NULL), SOFTIW_WIRE_OK);
	CHECK_EQ(fk.lookups, 0);	/* STag not even looked up */
}

TEST(rfc5041_s8_2_stag_not_associated_pd)
{
	struct softiw_ddp_hdr h = tagged(1, 0x10);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, NULL),
		 SOFTIW_DDP_ERR_NOT_ASSOCIATED);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_NOT_ASSOCIATED), 0x1102);
}

TEST(rfc5041_s8_2_stag_not_associated_stream)
{
	struct softiw_ddp_hdr h = tagged(2, 0xfffffffffffff000ull);
	struct softiw_ddp_stream other = st;

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, NULL),
		 SOFTIW_DDP_ERR_NOT_ASSOCIATED);
	other.qp = 4;
	CHECK_EQ(softiw_ddp_validate_tagged(&other, &h, 1, 1, NULL),
		 SOFTIW_WIRE_OK);
}

TEST(rfc5041_s7_1_stag_buffer_allows_placement)
{
	struct softiw_ddp_hdr h = tagged(2, 0xfffffffffffff000ull);
	struct softiw_ddp_stream other = st;

	fake_reset();
	other.qp = 4;
	CHECK_EQ(softiw_ddp_validate_tagged(&other, &h, 1,
					    SOFTIW_DDP_ACCESS_REMOTE_READ, NULL),
		 SOFTIW_DDP_ERR_ACCESS);
	/* On the wire DDP has no access code: Invalid STag. */
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_ACCESS), 0x1100);
}

TEST(rfc5041_s7_1_base_or_bounds)
{
	struct softiw_ddp_stag_info i;
	struct softiw_ddp_hdr h;

	fake_reset();
	h = tagged(0, 0xfff);
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
	h.to = 0x2000;
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
	h.to = 0x1fff;
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 2, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 1, 1, &i), SOFTIW_WIRE_OK);
	CHECK_EQ(i.base, 0x1000);
	h.to = 0x1000;
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 0x1000, 1, NULL),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 0x1001, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_BOUNDS), 0x1101);
}

TEST(rfc5041_s7_1_to_wrap)
{
	struct softiw_ddp_stream s4 = st;
	struct softiw_ddp_hdr h = tagged(2, 0xffffffffffffff00ull);

	fake_reset();
	s4.qp = 4;
	/* Region ends exactly at 2^64: the sum wraps to 0. */
	CHECK_EQ(softiw_ddp_validate_tagged(&s4, &h, 0x100, 1, NULL),
		 SOFTIW_DDP_ERR_TO_WRAP);
	CHECK_EQ(softiw_ddp_validate_tagged(&s4, &h, 0xff, 1, NULL),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_TO_WRAP), 0x1103);
	/* With a wrapping sum a naive "end" test would pass: must not. */
	h = tagged(0, 0xffffffffffffff00ull);
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 0x200, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
}

TEST(rfc5041_s7_1_invalid_qn)
{
	struct softiw_ddp_hdr h = untagged(3, 5, 0);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_INVALID_QN);
	h.qn = 0xffffffffu;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_INVALID_QN);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_INVALID_QN), 0x1201);
}

TEST(rfc5041_s7_1_no_buffer_for_msn)
{
	struct softiw_ddp_hdr h = untagged(1, 1, 0);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_NO_BUFFER);	/* none posted on QN 1 */
	h = untagged(0, 7, 0);
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_NO_BUFFER);	/* past the last posted */
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_NO_BUFFER), 0x1202);
}

TEST(rfc5041_s7_1_msn_range)
{
	struct softiw_ddp_ubuf_info i;
	struct softiw_ddp_hdr h = untagged(0, 4, 0);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_MSN_RANGE);	/* already completed */
	h.msn = 6;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, &i), SOFTIW_WIRE_OK);
	CHECK_EQ(i.msn_first, 5);
	/* The window on QN 2 spans the wrap 0xffffffff -> 0. */
	h = untagged(2, 0, 0);
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL), SOFTIW_WIRE_OK);
	h.msn = 0xfffffffeu;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_MSN_RANGE);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_MSN_RANGE), 0x1203);
}

TEST(rfc5041_s7_1_invalid_mo)
{
	struct softiw_ddp_hdr h = untagged(0, 5, 100);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 1, NULL),
		 SOFTIW_DDP_ERR_INVALID_MO);
	h.mo = 101;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 0, NULL),
		 SOFTIW_DDP_ERR_INVALID_MO);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_INVALID_MO), 0x1204);
}

TEST(rfc5041_s7_1_message_too_long)
{
	struct softiw_ddp_hdr h = untagged(0, 5, 50);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 51, NULL),
		 SOFTIW_DDP_ERR_TOO_LONG);
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 50, NULL), SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_DDP_ERR_TOO_LONG), 0x1205);
}

TEST(rfc5041_s7_1_untagged_check_order)
{
	/* Several faults at once: the earliest check of 7.1 wins. */
	struct softiw_ddp_hdr h = untagged(5, 99, 1000);

	fake_reset();
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 5000, NULL),
		 SOFTIW_DDP_ERR_INVALID_QN);
	h.qn = 0;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 5000, NULL),
		 SOFTIW_DDP_ERR_NO_BUFFER);
	h.msn = 5;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 5000, NULL),
		 SOFTIW_DDP_ERR_INVALID_MO);
	h.mo = 0;
	CHECK_EQ(softiw_ddp_validate_untagged(&st, &h, 5000, NULL),
		 SOFTIW_DDP_ERR_TOO_LONG);
}

TEST(rfc5041_s7_1_tagged_check_order)
{
	struct softiw_ddp_hdr h = tagged(1, 0xffffffffffffffffull);

	fake_reset();
	/* PD mismatch before access, bounds and wrap. */
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 100, 2, NULL),
		 SOFTIW_DDP_ERR_NOT_ASSOCIATED);
	h.stag = 0;
	CHECK_EQ(softiw_ddp_validate_tagged(&st, &h, 100, 1, NULL),
		 SOFTIW_DDP_ERR_BOUNDS);
}

TEST(rfc5041_s4_segments_of_message_consistent)
{
	struct softiw_ddp_rx_msg m = { 0 };
	struct softiw_ddp_hdr h = untagged(0, 5, 0);

	h.last = false;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_WIRE_OK);
	h.mo = 11;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_INVALID_MO);
	h.mo = 10;
	h.msn = 6;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_MSN_RANGE);
	h.msn = 5;
	h.qn = 1;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_INVALID_QN);
	h.qn = 0;
	h.last = true;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_WIRE_OK);
	CHECK(!m.active);
	h = untagged(0, 6, 4);	/* first segment must have MO 0 */
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_INVALID_MO);

	memset(&m, 0, sizeof(m));
	h = tagged(9, 100);
	h.last = false;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_WIRE_OK);
	h.stag = 8;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_INVALID_STAG);
	h.stag = 9;
	h.to = 111;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_DDP_ERR_BOUNDS);
	h.to = 110;
	CHECK_EQ(softiw_ddp_rx_msg_check(&m, &h, 10), SOFTIW_WIRE_OK);
}

int main(void)
{
	RUN(rfc5041_s4_2_tagged_header_format);
	RUN(rfc5041_s4_3_untagged_header_format);
	RUN(rfc5041_s4_1_rsvd_zero_on_tx_ignored_on_rx);
	RUN(rfc5041_s4_1_invalid_ddp_version);
	RUN(rfc5041_s4_truncated_header);
	RUN(rfc5041_s5_2_untagged_example);
	RUN(rfc5041_s5_2_tagged_example);
	RUN(rfc5041_s5_2_zero_length_one_segment);
	RUN(rfc5041_s5_2_exact_multiple_and_mulpdu_limits);
	RUN(rfc5041_s4_3_msn_starts_at_1_and_wraps);
	RUN(rfc5041_s7_1_invalid_stag);
	RUN(rfc5041_s5_2_zero_length_tagged_not_checked);
	RUN(rfc5041_s8_2_stag_not_associated_pd);
	RUN(rfc5041_s8_2_stag_not_associated_stream);
	RUN(rfc5041_s7_1_stag_buffer_allows_placement);
	RUN(rfc5041_s7_1_base_or_bounds);
	RUN(rfc5041_s7_1_to_wrap);
	RUN(rfc5041_s7_1_invalid_qn);
	RUN(rfc5041_s7_1_no_buffer_for_msn);
	RUN(rfc5041_s7_1_msn_range);
	RUN(rfc5041_s7_1_invalid_mo);
	RUN(rfc5041_s7_1_message_too_long);
	RUN(rfc5041_s7_1_untagged_check_order);
	RUN(rfc5041_s7_1_tagged_check_order);
	RUN(rfc5041_s4_segments_of_message_consistent);
	return tap_done();
}
