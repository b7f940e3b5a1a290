// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_mpa_rr.c - libFuzzer target: MPA Request/Reply parser (RFC 5044,
 * RFC 6581 enhanced mode) and the v2 IRD/ORD negotiation.
 *
 * Input: octet 0 bit 0 selects whether a Reply (1) or a Request (0) is
 * expected; octets 1-2 are local IRD/ORD limits for the negotiation; the
 * rest is the received byte stream starting with the frame.
 *
 * Invariants: a parsed frame never claims more octets than were given;
 * with fewer octets than the frame the parser asks for more; every error
 * is one of the documented connection-frame errors; re-encoding a parsed
 * frame gives the input octets back (ignoring the reserved flag bits,
 * which include 0x10 in Rev 1);
 * a Reply built by softiw_mpa_v2_respond() for a parsed enhanced Request
 * is accepted by softiw_mpa_v2_check_reply() when it offered an RTR, and
 * respects the requested limits.
 *
 * Locking: none; libFuzzer calls this single-threaded.
 */
#include <stdint.h>
#include <string.h>

#include "mpa.h"
#include "fuzz_check.h"

static bool is_rr_error(u32 st)
{
	switch (st) {
	case SOFTIW_MPA_ERR_RR_KEY:
	case SOFTIW_MPA_ERR_RR_REV:
	case SOFTIW_MPA_ERR_RR_PD_SIZE:
	case SOFTIW_MPA_ERR_RR_V2:
	case SOFTIW_MPA_ERR_RR_REJECT_IN_REQ:
		return true;
	}
	return false;
}

static void check_negotiation(const struct softiw_mpa_v2 *req, u16 max_ird,
			      u16 max_ord)
{
	struct softiw_mpa_v2 rep;
	u16 ird = 0, ord = 0;
	u32 st;

	memset(&rep, 0, sizeof(rep));
	softiw_mpa_v2_respond(req, max_ird, max_ord, &rep);
	FUZZ_CHECK(rep.ird <= req->ord && rep.ird <= max_ird);
	FUZZ_CHECK(rep.ord <= req->ird && rep.ord <= max_ord);
	FUZZ_CHECK(rep.p2p == req->p2p);
	if (!req->p2p)
		return;
	/* Exactly one RTR, and one that was offered if any was. */
	FUZZ_CHECK(rep.rtr == SOFTIW_MPA_RTR_SEND ||
		   rep.rtr == SOFTIW_MPA_RTR_WRITE ||
		   rep.rtr == SOFTIW_MPA_RTR_READ);
	if (!req->rtr)
		return;
	FUZZ_CHECK(rep.rtr & req->rtr);
	/* Our own Initiator accepts our own Responder's choice. */
	st = softiw_mpa_v2_check_reply(req, SOFTIW_MPA_V2_IRD_ORD_MASK, &rep,
				       &ird, &ord);
	FUZZ_CHECK(st == SOFTIW_WIRE_OK);
	FUZZ_CHECK(ird >= rep.ord && ord <= rep.ird);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 again[SOFTIW_MPA_RR_MAX_LEN];
	struct softiw_mpa_rr rr;
	const u8 *in;
	size_t len;
	bool reply;
	u32 st;
	int n;

	if (size < 3)
		return 0;
	reply = data[0] & 1;
	in = data + 3;
	len = size - 3;

	memset(&rr, 0, sizeof(rr));
	st = softiw_mpa_rr_parse(in, len, reply, &rr);
	if (st == SOFTIW_MPA_NEED_MORE) {
		if (len < SOFTIW_MPA_RR_HDR_LEN)
			FUZZ_CHECK(rr.frame_len == 0);
		else
			FUZZ_CHECK(rr.frame_len > len);
		return 0;
	}
	if (st) {
		FUZZ_CHECK(is_rr_error(st));
		FUZZ_CHECK(softiw_wire_err_layer(st) == SOFTIW_LAYER_LLP);
		FUZZ_CHECK(softiw_wire_err_ecode(st) == 0x04);
		return 0;
	}

	FUZZ_CHECK(rr.frame_len >= SOFTIW_MPA_RR_HDR_LEN);
	FUZZ_CHECK(rr.frame_len <= len && rr.frame_len <= SOFTIW_MPA_RR_MAX_LEN);
	FUZZ_CHECK(rr.frame_len == SOFTIW_MPA_RR_HDR_LEN +
		   softiw_wire_get_be16(in + 18));
	FUZZ_CHECK(rr.reply == reply);
	FUZZ_CHECK(rr.rev == SOFTIW_MPA_REV1 || rr.rev == SOFTIW_MPA_REV2);
	FUZZ_CHECK(!rr.reject || reply);
	FUZZ_CHECK(rr.frame_len == SOFTIW_MPA_RR_HDR_LEN + rr.pd_len +
		   (rr.enhanced ? SOFTIW_MPA_V2_LEN : 0));
	if (rr.pd_len)
		FUZZ_CHECK(rr.pd >= in && rr.pd + rr.pd_len <= in + rr.frame_len);

	/* Re-encode: the same octets, reserved flag bits cleared. */
	n = softiw_mpa_rr_encode(&rr, again, sizeof(again));
	FUZZ_CHECK(n > 0 && (u32)n == rr.frame_len);
	FUZZ_CHECK(!memcmp(again, in, 16));
	/* In Rev 1 the 0x10 bit is reserved too: ignored, sent as 0. */
	FUZZ_CHECK(again[16] == (in[16] & ~(SOFTIW_MPA_FLAG_RES |
			(rr.rev == SOFTIW_MPA_REV1 ? SOFTIW_MPA_FLAG_ENHANCED : 0))));
	FUZZ_CHECK(!memcmp(again + 17, in + 17, n - 17) ||
		   rr.enhanced);
	if (rr.enhanced) {
		struct softiw_mpa_rr back;

		/* v2 words: only their defined bits survive a round trip. */
		FUZZ_CHECK(softiw_mpa_rr_parse(again, n, reply, &back) ==
			   SOFTIW_WIRE_OK);
		FUZZ_CHECK(back.v2.ird == rr.v2.ird && back.v2.ord == rr.v2.ord &&
			   back.v2.p2p == rr.v2.p2p && back.v2.rtr == rr.v2.rtr);
		FUZZ_CHECK(!memcmp(again + 17, in + 17, 3));
		FUZZ_CHECK(!memcmp(again + 24, in + 24, n - 24));
		if (!reply)
			check_negotiation(&rr.v2, data[1] & 0x3f, data[2] & 0x3f);
	}
	FUZZ_CHECK(softiw_mpa_rr_encode(&rr, again, n - 1) == -ENOSPC);

	/* The startup rule: nothing may follow the frame. */
	st = softiw_mpa_rr_check_end(&rr, len);
	FUZZ_CHECK(st == (len > rr.frame_len ? SOFTIW_MPA_ERR_RR_TRAILING :
			  SOFTIW_WIRE_OK));
	return 0;
}
