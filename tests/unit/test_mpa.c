// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPA (RFC 5044) and MPA v2 (RFC 6581): connection frames, negotiation,
 * FPDU framing, CRC, Markers, MULPDU.
 */
#include "tap.h"
#include "crc32c.h"
#include "mpa.h"

static const char req_key[] = "MPA ID Req Frame";
static const char rep_key[] = "MPA ID Rep Frame";

static size_t mk_rr(u8 *b, const char *key, u8 flags, u8 rev, u16 pdlen)
{
	memcpy(b, key, 16);
	b[16] = flags;
	b[17] = rev;
	softiw_wire_put_be16(b + 18, pdlen);
	return 20;
}

TEST(rfc5044_s7_1_req_rep_keys)
{
	CHECK_MEM(SOFTIW_MPA_KEY_REQ, req_key, 16);
	CHECK_MEM(SOFTIW_MPA_KEY_REP, rep_key, 16);
}

TEST(rfc5044_s7_1_parse_bad_key)
{
	u8 b[32];
	struct softiw_mpa_rr rr;

	mk_rr(b, rep_key, 0x40, 1, 0);
	/* A Reply key where a Request is expected, and vice versa. */
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_KEY);
	mk_rr(b, req_key, 0x40, 1, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, true, &rr), SOFTIW_MPA_ERR_RR_KEY);
	b[3] = 'x';
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_KEY);
	/* Detected before the whole key has arrived. */
	CHECK_EQ(softiw_mpa_rr_parse(b, 5, false, &rr), SOFTIW_MPA_ERR_RR_KEY);
	CHECK_EQ(softiw_mpa_rr_parse(b, 3, false, &rr), SOFTIW_MPA_NEED_MORE);
}

TEST(rfc5044_s7_1_parse_bad_rev)
{
	u8 b[32];
	struct softiw_mpa_rr rr;

	mk_rr(b, req_key, 0x40, 0, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_REV);
	mk_rr(b, req_key, 0x40, 3, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_REV);
	mk_rr(b, req_key, 0x40, 0xff, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_REV);
}

TEST(rfc5044_s7_1_pd_length_max_512)
{
	static u8 b[SOFTIW_MPA_RR_MAX_LEN + 8];
	struct softiw_mpa_rr rr;

	memset(b, 0x5a, sizeof(b));
	mk_rr(b, req_key, 0, 1, 512);
	CHECK_EQ(softiw_mpa_rr_parse(b, 532, false, &rr), SOFTIW_WIRE_OK);
	CHECK_EQ(rr.pd_len, 512);
	CHECK(rr.pd == b + 20);
	CHECK_EQ(rr.frame_len, 532);
	mk_rr(b, req_key, 0, 1, 513);
	CHECK_EQ(softiw_mpa_rr_parse(b, 533, false, &rr), SOFTIW_MPA_ERR_RR_PD_SIZE);
	/* Refused from the header alone: no waiting for 0xffff octets. */
	mk_rr(b, req_key, 0, 1, 0xffff);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_PD_SIZE);
}

TEST(rfc5044_s7_1_encode_pd_oversize)
{
	static u8 pd[600], b[700];
	struct softiw_mpa_rr rr = { .rev = 1, .pd = pd, .pd_len = 513 };

	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), -EMSGSIZE);
	rr.pd_len = 512;
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), 532);
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, 531), -ENOSPC);
	/* v2: the 4 IRD/ORD octets count against the 512. */
	rr.rev = 2;
	rr.enhanced = true;
	rr.pd_len = 509;
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), -EMSGSIZE);
	rr.pd_len = 508;
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), 532);
	rr.rev = 1;
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), -EINVAL);
	rr.rev = 0;
	rr.enhanced = false;
	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), -EINVAL);
}

TEST(rfc5044_s7_1_truncated_frame)
{
	u8 b[40];
	struct softiw_mpa_rr rr;

	mk_rr(b, req_key, 0x40, 1, 8);
	CHECK_EQ(softiw_mpa_rr_parse(b, 19, false, &rr), SOFTIW_MPA_NEED_MORE);
	CHECK_EQ(rr.frame_len, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 27, false, &rr), SOFTIW_MPA_NEED_MORE);
	CHECK_EQ(rr.frame_len, 28);
	CHECK_EQ(softiw_mpa_rr_parse(b, 28, false, &rr), SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_mpa_rr_check_end(&rr, 28), SOFTIW_WIRE_OK);
	CHECK_EQ(softiw_mpa_rr_check_end(&rr, 29), SOFTIW_MPA_ERR_RR_TRAILING);
}

TEST(rfc5044_s7_1_reject_bit_only_in_reply)
{
	u8 b[32];
	struct softiw_mpa_rr rr;

	mk_rr(b, req_key, 0x60, 1, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr),
		 SOFTIW_MPA_ERR_RR_REJECT_IN_REQ);
	mk_rr(b, rep_key, 0x60, 1, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, true, &rr), SOFTIW_WIRE_OK);
	CHECK(rr.reject && rr.crc && !rr.markers);
	/* The encoder never puts R into a Request. */
	{
		struct softiw_mpa_rr e = { .rev = 1, .reject = true };

		CHECK_EQ(softiw_mpa_rr_encode(&e, b, sizeof(b)), 20);
		CHECK_EQ(b[16], 0);
		e.reply = true;
		CHECK_EQ(softiw_mpa_rr_encode(&e, b, sizeof(b)), 20);
		CHECK_EQ(b[16], SOFTIW_MPA_FLAG_R);
	}
}

TEST(rfc5044_s7_1_res_bits_ignored)
{
	u8 b[32];
	struct softiw_mpa_rr rr;

	mk_rr(b, req_key, 0x4f, 1, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_WIRE_OK);
	CHECK(rr.crc && !rr.enhanced);
	/* 0x10 in Rev 1 is reserved, not "enhanced". */
	mk_rr(b, req_key, 0x10, 1, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_WIRE_OK);
	CHECK(!rr.enhanced);
}

TEST(rfc6581_enhanced_pd_too_short)
{
	u8 b[32];
	struct softiw_mpa_rr rr;

	mk_rr(b, req_key, 0x50, 2, 3);
	CHECK_EQ(softiw_mpa_rr_parse(b, 23, false, &rr), SOFTIW_MPA_ERR_RR_V2);
	mk_rr(b, req_key, 0x50, 2, 0);
	CHECK_EQ(softiw_mpa_rr_parse(b, 20, false, &rr), SOFTIW_MPA_ERR_RR_V2);
}

TEST(rfc6581_ird_ord_roundtrip)
{
	u8 b[64];
	const u8 upd[3] = { 1, 2, 3 };
	struct softiw_mpa_rr rr = {
		.rev = 2, .enhanced = true, .crc = true,
		.v2 = { .ird = 0x3fff, .ord = 7, .p2p = true,
			.rtr = SOFTIW_MPA_RTR_SEND | SOFTIW_MPA_RTR_READ },
		.pd = upd, .pd_len = 3,
	}, out;

	CHECK_EQ(softiw_mpa_rr_encode(&rr, b, sizeof(b)), 27);
	CHECK_EQ(softiw_wire_get_be16(b + 18), 7);
	CHECK_EQ(softiw_wire_get_be16(b + 20), 0xffff);
	CHECK_EQ(softiw_wire_get_be16(b + 22), 0x4007);
	CHECK_EQ(softiw_mpa_rr_parse(b, 27, false, &out), SOFTIW_WIRE_OK);
	CHECK(out.enhanced && out.crc && out.v2.p2p);
	CHECK_EQ(out.v2.ird, 0x3fff);
	CHECK_EQ(out.v2.ord, 7);
	CHECK_EQ(out.v2.rtr, SOFTIW_MPA_RTR_SEND | SOFTIW_MPA_RTR_READ);
	CHECK_EQ(out.pd_len, 3);
	CHECK_MEM(out.pd, upd, 3);
}

TEST(rfc6581_responder_choice)
{
	struct softiw_mpa_v2 req = { .ird = 16, .ord = 16, .p2p = true,
		.rtr = SOFTIW_MPA_RTR_WRITE | SOFTIW_MPA_RTR_READ }, rep;

	softiw_mpa_v2_respond(&req, 8, 32, &rep);
	CHECK_EQ(rep.ird, 8);
	CHECK_EQ(rep.ord, 16);
	CHECK(rep.p2p);
	CHECK_EQ(rep.rtr, SOFTIW_MPA_RTR_WRITE);
	req.rtr = SOFTIW_MPA_RTR_READ | SOFTIW_MPA_RTR_SEND;
	softiw_mpa_v2_respond(&req, 8, 32, &rep);
	CHECK_EQ(rep.rtr, SOFTIW_MPA_RTR_READ);
	req.rtr = SOFTIW_MPA_RTR_SEND;
	softiw_mpa_v2_respond(&req, 8, 32, &rep);
	CHECK_EQ(rep.rtr, SOFTIW_MPA_RTR_SEND);
	req.p2p = false;
	softiw_mpa_v2_respond(&req, 8, 32, &rep);
	CHECK(!rep.p2p);
	CHECK_EQ(rep.rtr, 0);
}

TEST(rfc6581_initiator_no_matching_rtr)
{
	struct softiw_mpa_v2 off = { .ird = 16, .ord = 16, .p2p = true,
		.rtr = SOFTIW_MPA_RTR_WRITE };
	struct softiw_mpa_v2 rep = { .ird = 4, .ord = 8, .p2p = true,
		.rtr = SOFTIW_MPA_RTR_READ };
	u16 ird = 0, ord = 0;

	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 16, &rep, &ird, &ord),
		 SOFTIW_MPA_ERR_NO_RTR);
	rep.rtr = SOFTIW_MPA_RTR_READ | SOFTIW_MPA_RTR_WRITE;	/* two */
	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 16, &rep, &ird, &ord),
		 SOFTIW_MPA_ERR_NO_RTR);
	rep.rtr = 0;
	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 16, &rep, &ird, &ord),
		 SOFTIW_MPA_ERR_NO_RTR);
	rep.rtr = SOFTIW_MPA_RTR_WRITE;
	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 16, &rep, &ird, &ord),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(ird, 16);
	CHECK_EQ(ord, 4);	/* lowered to the peer's IRD */
	/* LLP code 0x07 on the wire. */
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_MPA_ERR_NO_RTR), 0x2007);
}

TEST(rfc6581_initiator_insufficient_ird)
{
	struct softiw_mpa_v2 off = { .ird = 4, .ord = 4 };
	struct softiw_mpa_v2 rep = { .ird = 4, .ord = 9 };
	u16 ird = 0, ord = 0;

	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 8, &rep, &ird, &ord),
		 SOFTIW_MPA_ERR_IRD);
	CHECK_EQ(softiw_wire_term_bits(SOFTIW_MPA_ERR_IRD), 0x2006);
	rep.ord = 8;
	CHECK_EQ(softiw_mpa_v2_check_reply(&off, 8, &rep, &ird, &ord),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(ird, 8);	/* raised to the peer's ORD */
}

TEST(rfc5044_distinct_frame_errors)
{
	u32 e[] = { SOFTIW_MPA_ERR_RR_KEY, SOFTIW_MPA_ERR_RR_REV,
		    SOFTIW_MPA_ERR_RR_PD_SIZE, SOFTIW_MPA_ERR_RR_V2,
		    SOFTIW_MPA_ERR_RR_REJECT_IN_REQ,
		    SOFTIW_MPA_ERR_RR_NOT_ENHANCED,
		    SOFTIW_MPA_ERR_RR_TRAILING, SOFTIW_MPA_ERR_RR_MARKERS };
	size_t i, j;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		CHECK(softiw_wire_is_error(e[i]));
		CHECK_EQ(softiw_wire_term_bits(e[i]), 0x2004);
		for (j = 0; j < i; j++)
			CHECK(e[i] != e[j]);
	}
}

TEST(rfc5044_s4_pad_to_4)
{
	/* ULPDU_Length mod 4 = 0, 1, 2, 3 -> PAD 2, 1, 0, 3 */
	CHECK_EQ(softiw_mpa_pad(0), 2);
	CHECK_EQ(softiw_mpa_pad(1), 1);
	CHECK_EQ(softiw_mpa_pad(2), 0);
	CHECK_EQ(softiw_mpa_pad(3), 3);
	CHECK_EQ(softiw_mpa_pad(22), 0);
	CHECK_EQ(softiw_mpa_pad(23), 3);
	CHECK_EQ(softiw_mpa_fpdu_len(0), SOFTIW_MPA_FPDU_MIN);
	CHECK_EQ(softiw_mpa_fpdu_len(14), 20);
}

TEST(rfc5044_s4_mulpdu_from_emss)
{
	CHECK_EQ(softiw_mpa_mulpdu(1460, false), 1454);
	CHECK_EQ(softiw_mpa_mulpdu(1460, true), 1442);
	CHECK_EQ(softiw_mpa_mulpdu(8948, false), 8942);
	CHECK_EQ(softiw_mpa_mulpdu(8948, true), 8870);
	CHECK_EQ(softiw_mpa_mulpdu(536, false), 530);
	CHECK_EQ(softiw_mpa_mulpdu(536, true), 522);
	CHECK_EQ(softiw_mpa_mulpdu(1461, false), 1454);
	CHECK_EQ(softiw_mpa_mulpdu(6, false), 0);
	CHECK_EQ(softiw_mpa_mulpdu(0, true), 0);
	/* An FPDU with a MULPDU-sized ULPDU fits in one EMSS. */
	CHECK(softiw_mpa_fpdu_len(softiw_mpa_mulpdu(1460, false)) <= 1460);
	CHECK(softiw_mpa_fpdu_len(softiw_mpa_mulpdu(1461, false)) <= 1461);
}

static struct softiw_mpa_tx tx_init(bool crc, bool markers)
{
	struct softiw_mpa_tx t = {
		.crc32c = softiw_host_crc32c, .crc = crc, .markers = markers,
	};
	return t;
}

static struct softiw_mpa_rx rx_init(bool crc, bool markers)
{
	struct softiw_mpa_rx r = {
		.crc32c = softiw_host_crc32c, .crc = crc, .markers = markers,
	};
	return r;
}

TEST(rfc5044_s6_crc_covers_fpdu)
{
	u8 ulpdu[23], out[64];
	struct softiw_mpa_tx tx = tx_init(true, false);
	struct softiw_mpa_rx rx = rx_init(true, false);
	struct softiw_mpa_fpdu f;
	int n, i;

	for (i = 0; i < 23; i++)
		ulpdu[i] = i;
	n = softiw_mpa_fpdu_build(&tx, ulpdu, 23, out, sizeof(out));
	CHECK_EQ(n, 32);
	CHECK_EQ(tx.pos, 32);
	CHECK_EQ(softiw_wire_get_le32(out + 28),
		 softiw_mpa_crc(softiw_host_crc32c, out, 28));
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, n, NULL, 0, &f), SOFTIW_WIRE_OK);
	CHECK_EQ(f.ulpdu_len, 23);
	CHECK(f.ulpdu == out + 2);
	CHECK_EQ(rx.pos, 32);
	/*
	 * Every covered octet matters: length, data, pad.  (Flipping the
	 * length high bit makes the FPDU longer than the buffer.)
	 */
	for (i = 0; i < 28; i++) {
		rx.pos = 0;
		out[i] ^= 0x01;
		CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, n, NULL, 0, &f),
			 i == 0 ? SOFTIW_MPA_NEED_MORE : SOFTIW_MPA_ERR_CRC);
		CHECK_EQ(rx.pos, 0);
		out[i] ^= 0x01;
	}
	/* The CRC field itself. */
	out[30] ^= 0x80;
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, n, NULL, 0, &f),
		 SOFTIW_MPA_ERR_CRC);
}

/* Framing in place gives the octets framing by copy gives, CRC or not. */
TEST(rfc5044_s4_fpdu_seal_in_place)
{
	static const u32 lens[] = { 0, 1, 2, 3, 4, 5, 23, 1446, 0xffff };
	static u8 ulpdu[0x10000], want[0x10010], got[0x10010];
	int crc, i, n, m;
	u32 k;

	for (k = 0; k < sizeof(ulpdu); k++)
		ulpdu[k] = (u8)(k * 7 + 3);
	for (crc = 0; crc < 2; crc++) {
		for (i = 0; i < (int)(sizeof(lens) / sizeof(lens[0])); i++) {
			struct softiw_mpa_tx a = tx_init(crc, false);
			struct softiw_mpa_tx b = tx_init(crc, false);

			a.pos = b.pos = 36;
			n = softiw_mpa_fpdu_build(&a, ulpdu, lens[i], want,
						  sizeof(want));
			memset(got, 0xee, sizeof(got));
			memcpy(got + SOFTIW_MPA_HDR_LEN, ulpdu, lens[i]);
			m = softiw_mpa_fpdu_seal(&b, got, lens[i], sizeof(got));
			CHECK_EQ(m, n);
			CHECK_MEM(got, want, n);
			CHECK_EQ(b.pos, a.pos);
			/* nothing written past the FPDU */
			CHECK_EQ(got[n], 0xee);
		}
	}
	{
		struct softiw_mpa_tx t = tx_init(true, false);
		struct softiw_mpa_tx mk = tx_init(true, true);

		/* too small: nothing changes */
		CHECK_EQ(softiw_mpa_fpdu_seal(&t, got, 40, 47), -ENOSPC);
		CHECK_EQ(t.pos, 0);
		CHECK_EQ(softiw_mpa_fpdu_seal(&t, got, 0x10000, sizeof(got)),
			 -EMSGSIZE);
		/* Markers move the ULPDU: not in place */
		CHECK_EQ(softiw_mpa_fpdu_seal(&mk, got, 40, sizeof(got)),
			 -EINVAL);
		CHECK_EQ(mk.pos, 0);
	}
}

/* Split framing (payload sent from elsewhere) gives the same octets. */
TEST(rfc5044_s4_fpdu_split_framing)
{
	static const u32 lens[] = { 14, 15, 17, 18, 1446, 1460, 0xffff };
	static u8 ulpdu[0x10000], want[0x10010], got[0x10010];
	const u32 hlen = 14;
	int crc, i, n, t;
	u32 k, reg;

	for (k = 0; k < sizeof(ulpdu); k++)
		ulpdu[k] = (u8)(k * 5 + 1);
	for (crc = 0; crc < 2; crc++) {
		for (i = 0; i < (int)(sizeof(lens) / sizeof(lens[0])); i++) {
			struct softiw_mpa_tx a = tx_init(crc, false);
			struct softiw_mpa_tx b = tx_init(crc, false);
			u32 rest = lens[i] - hlen;

			a.pos = b.pos = 100;
			n = softiw_mpa_fpdu_build(&a, ulpdu, lens[i], want,
						  sizeof(want));
			memset(got, 0xee, sizeof(got));
			memcpy(got + SOFTIW_MPA_HDR_LEN, ulpdu, hlen);
			CHECK_EQ(softiw_mpa_fpdu_open(&b, got, lens[i], hlen,
						      &reg), 0);
			CHECK_EQ(b.pos, 100);
			/* the payload, in two pieces as from two pages */
			memcpy(got + SOFTIW_MPA_HDR_LEN + hlen, ulpdu + hlen,
			       rest);
			if (crc) {
				reg = b.crc32c(reg, ulpdu + hlen, rest / 2);
				reg = b.crc32c(reg, ulpdu + hlen + rest / 2,
					       rest - rest / 2);
			}
			t = softiw_mpa_fpdu_close(&b, reg, lens[i],
						  got + SOFTIW_MPA_HDR_LEN +
						  lens[i], 7);
			CHECK_EQ(SOFTIW_MPA_HDR_LEN + (int)lens[i] + t, n);
			CHECK_MEM(got, want, n);
			CHECK_EQ(b.pos, a.pos);
			CHECK_EQ(got[n], 0xee);
		}
	}
	{
		struct softiw_mpa_tx t = tx_init(true, false);
		struct softiw_mpa_tx mk = tx_init(true, true);

		CHECK_EQ(softiw_mpa_fpdu_open(&t, got, 0x10000, 14, &reg),
			 -EMSGSIZE);
		CHECK_EQ(softiw_mpa_fpdu_open(&t, got, 10, 14, &reg), -EINVAL);
		CHECK_EQ(softiw_mpa_fpdu_open(&mk, got, 40, 14, &reg),
			 -EINVAL);
		/* PAD 2 + CRC 4 do not fit in 5: nothing written */
		got[0] = 0xee;
		CHECK_EQ(softiw_mpa_fpdu_close(&t, 0, 40, got, 5), -ENOSPC);
		CHECK_EQ(got[0], 0xee);
		CHECK_EQ(t.pos, 0);
	}
}

TEST(rfc5044_s6_crc_off_sends_zero)
{
	u8 ulpdu[4] = { 1, 2, 3, 4 }, out[16];
	struct softiw_mpa_tx tx = tx_init(false, false);
	struct softiw_mpa_rx rx = rx_init(false, false);
	struct softiw_mpa_fpdu f;
	const u8 zero[4] = { 0 };

	CHECK_EQ(softiw_mpa_fpdu_build(&tx, ulpdu, 4, out, sizeof(out)), 12);
	CHECK_MEM(out + 8, zero, 4);
	out[11] = 0x77;	/* not checked without CRC */
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, 12, NULL, 0, &f), SOFTIW_WIRE_OK);
	CHECK_EQ(f.crc_rx, 0x77000000);
}

TEST(rfc5044_s4_fpdu_truncated)
{
	u8 ulpdu[40] = { 0 }, out[64];
	struct softiw_mpa_tx tx = tx_init(true, false);
	struct softiw_mpa_rx rx = rx_init(true, false);
	struct softiw_mpa_fpdu f;
	int n, i;

	n = softiw_mpa_fpdu_build(&tx, ulpdu, 40, out, sizeof(out));
	CHECK_EQ(n, 48);
	for (i = 0; i < n; i++) {
		CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, i, NULL, 0, &f),
			 SOFTIW_MPA_NEED_MORE);
		CHECK_EQ(f.wire_len, i < 2 ? 0 : 48);
	}
	/* Output too small: nothing written, state unchanged. */
	tx.pos = 0;
	CHECK_EQ(softiw_mpa_fpdu_build(&tx, ulpdu, 40, out, 47), -ENOSPC);
	CHECK_EQ(tx.pos, 0);
	CHECK_EQ(softiw_mpa_fpdu_build(&tx, ulpdu, 0x10000, out, 47), -EMSGSIZE);
}

TEST(rfc5044_s4_fpdus_back_to_back)
{
	u8 a[5] = "abcde", b[1] = "z", out[64];
	struct softiw_mpa_tx tx = tx_init(true, false);
	struct softiw_mpa_rx rx = rx_init(true, false);
	struct softiw_mpa_fpdu f;
	int n1, n2;

	n1 = softiw_mpa_fpdu_build(&tx, a, 5, out, sizeof(out));
	n2 = softiw_mpa_fpdu_build(&tx, b, 1, out + n1, sizeof(out) - n1);
	CHECK_EQ(n1, 12);
	CHECK_EQ(n2, 8);
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out, n1 + n2, NULL, 0, &f),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(f.wire_len, 12);
	CHECK_MEM(f.ulpdu, a, 5);
	CHECK_EQ(softiw_mpa_fpdu_parse(&rx, out + 12, n2, NULL, 0, &f),
		 SOFTIW_WIRE_OK);
	CHECK_EQ(f.ulpdu_len, 1);
	CHECK_EQ(f.ulpdu[0], 'z');
	CHECK_EQ(rx.pos, 20);
}

int main(void)
{
	RUN(rfc5044_s7_1_req_rep_keys);
	RUN(rfc5044_s7_1_parse_bad_key);
	RUN(rfc5044_s7_1_parse_bad_rev);
	RUN(rfc5044_s7_1_pd_length_max_512);
	RUN(rfc5044_s7_1_encode_pd_oversize);
	RUN(rfc5044_s7_1_truncated_frame);
	RUN(rfc5044_s7_1_reject_bit_only_in_reply);
	RUN(rfc5044_s7_1_res_bits_ignored);
	RUN(rfc6581_enhanced_pd_too_short);
	RUN(rfc6581_ird_ord_roundtrip);
	RUN(rfc6581_responder_choice);
	RUN(rfc6581_initiator_no_matching_rtr);
	RUN(rfc6581_initiator_insufficient_ird);
	RUN(rfc5044_distinct_frame_errors);
	RUN(rfc5044_s4_pad_to_4);
	RUN(rfc5044_s4_mulpdu_from_emss);
	RUN(rfc5044_s6_crc_covers_fpdu);
	RUN(rfc5044_s4_fpdu_seal_in_place);
	RUN(rfc5044_s4_fpdu_split_framing);
	RUN(rfc5044_s6_crc_off_sends_zero);
	RUN(rfc5044_s4_fpdu_truncated);
	RUN(rfc5044_s4_fpdus_back_to_back);
	return tap_done();
}
