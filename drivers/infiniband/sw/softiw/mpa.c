// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPA (RFC 5044, RFC 6581): Request/Reply frames, v2 IRD/ORD negotiation,
 * FPDU framing with PAD, CRC32c and Markers, and MULPDU.
 *
 * Owns no state: the per-direction stream positions live in the caller's
 * struct softiw_mpa_tx / softiw_mpa_rx.  Every length read from the wire
 * is checked against the caller's buffer length before it is used.
 *
 * Locking: none; the caller serialises each stream state.
 */
#include "mpa.h"

/* Flag octet and the octet offsets of a Request/Reply frame. */
#define RR_OFF_FLAGS	16
#define RR_OFF_REV	17
#define RR_OFF_PD_LEN	18

int softiw_mpa_rr_encode(const struct softiw_mpa_rr *rr, u8 *buf,
			 size_t buflen)
{
	u32 v2_len = rr->enhanced ? SOFTIW_MPA_V2_LEN : 0;
	u32 pd_total = v2_len + rr->pd_len;
	u8 flags = 0;
	u8 *p;

	if (rr->rev != SOFTIW_MPA_REV1 && rr->rev != SOFTIW_MPA_REV2)
		return -EINVAL;
	/* The enhanced flag is defined by Rev 2 only. */
	if (rr->enhanced && rr->rev != SOFTIW_MPA_REV2)
		return -EINVAL;
	if (pd_total > SOFTIW_MPA_PD_MAX)
		return -EMSGSIZE;
	if (buflen < SOFTIW_MPA_RR_HDR_LEN + pd_total)
		return -ENOSPC;

	memcpy(buf, rr->reply ? SOFTIW_MPA_KEY_REP : SOFTIW_MPA_KEY_REQ,
	       SOFTIW_MPA_KEY_LEN);
	if (rr->markers)
		flags |= SOFTIW_MPA_FLAG_M;
	if (rr->crc)
		flags |= SOFTIW_MPA_FLAG_C;
	/* R is meaningful in a Reply only; never send it in a Request. */
	if (rr->reject && rr->reply)
		flags |= SOFTIW_MPA_FLAG_R;
	if (rr->enhanced)
		flags |= SOFTIW_MPA_FLAG_ENHANCED;
	buf[RR_OFF_FLAGS] = flags;
	buf[RR_OFF_REV] = rr->rev;
	softiw_wire_put_be16(buf + RR_OFF_PD_LEN, pd_total);
	p = buf + SOFTIW_MPA_RR_HDR_LEN;

	if (rr->enhanced) {
		u16 ird = rr->v2.ird & SOFTIW_MPA_V2_IRD_ORD_MASK;
		u16 ord = rr->v2.ord & SOFTIW_MPA_V2_IRD_ORD_MASK;

		if (rr->v2.p2p)
			ird |= SOFTIW_MPA_V2_P2P;
		if (rr->v2.rtr & SOFTIW_MPA_RTR_SEND)
			ird |= SOFTIW_MPA_V2_RTR_SEND;
		if (rr->v2.rtr & SOFTIW_MPA_RTR_WRITE)
			ord |= SOFTIW_MPA_V2_RTR_WRITE;
		if (rr->v2.rtr & SOFTIW_MPA_RTR_READ)
			ord |= SOFTIW_MPA_V2_RTR_READ;
		softiw_wire_put_be16(p, ird);
		softiw_wire_put_be16(p + 2, ord);
		p += SOFTIW_MPA_V2_LEN;
	}
	if (rr->pd_len)
		memcpy(p, rr->pd, rr->pd_len);
	return SOFTIW_MPA_RR_HDR_LEN + pd_total;
}

static void rr_decode_v2(const u8 *p, struct softiw_mpa_v2 *v2)
{
	u16 ird = softiw_wire_get_be16(p);
	u16 ord = softiw_wire_get_be16(p + 2);

	v2->ird = ird & SOFTIW_MPA_V2_IRD_ORD_MASK;
	v2->ord = ord & SOFTIW_MPA_V2_IRD_ORD_MASK;
	v2->p2p = ird & SOFTIW_MPA_V2_P2P;
	v2->rtr = 0;
	if (ird & SOFTIW_MPA_V2_RTR_SEND)
		v2->rtr |= SOFTIW_MPA_RTR_SEND;
	if (ord & SOFTIW_MPA_V2_RTR_WRITE)
		v2->rtr |= SOFTIW_MPA_RTR_WRITE;
	if (ord & SOFTIW_MPA_V2_RTR_READ)
		v2->rtr |= SOFTIW_MPA_RTR_READ;
}

u32 softiw_mpa_rr_parse(const u8 *buf, size_t len, bool expect_reply,
			struct softiw_mpa_rr *rr)
{
	const char *key = expect_reply ? SOFTIW_MPA_KEY_REP : SOFTIW_MPA_KEY_REQ;
	u16 pd_total;
	u8 flags;

	memset(rr, 0, sizeof(*rr));
	/* The key is checked as soon as it is complete: fail early. */
	if (len < SOFTIW_MPA_KEY_LEN) {
		if (memcmp(buf, key, len))
			return SOFTIW_MPA_ERR_RR_KEY;
		return SOFTIW_MPA_NEED_MORE;
	}
	if (memcmp(buf, key, SOFTIW_MPA_KEY_LEN))
		return SOFTIW_MPA_ERR_RR_KEY;
	if (len < SOFTIW_MPA_RR_HDR_LEN)
		return SOFTIW_MPA_NEED_MORE;

	flags = buf[RR_OFF_FLAGS];
	rr->reply = expect_reply;
	rr->markers = flags & SOFTIW_MPA_FLAG_M;
	rr->crc = flags & SOFTIW_MPA_FLAG_C;
	rr->reject = flags & SOFTIW_MPA_FLAG_R;
	rr->rev = buf[RR_OFF_REV];
	pd_total = softiw_wire_get_be16(buf + RR_OFF_PD_LEN);

	/* Rev 0 is the pre-IETF framing; above 2 is unknown. */
	if (rr->rev != SOFTIW_MPA_REV1 && rr->rev != SOFTIW_MPA_REV2)
		return SOFTIW_MPA_ERR_RR_REV;
	/* Checked before waiting for the PD: never buffer more than 532. */
	if (pd_total > SOFTIW_MPA_PD_MAX)
		return SOFTIW_MPA_ERR_RR_PD_SIZE;
	if (rr->reject && !expect_reply)
		return SOFTIW_MPA_ERR_RR_REJECT_IN_REQ;
	/*
	 * The 0x10 bit means "enhanced" in Rev 2 only; in Rev 1 it is a
	 * reserved bit and is ignored on receive.
	 */
	rr->enhanced = rr->rev == SOFTIW_MPA_REV2 &&
		       (flags & SOFTIW_MPA_FLAG_ENHANCED);
	if (rr->enhanced && pd_total < SOFTIW_MPA_V2_LEN)
		return SOFTIW_MPA_ERR_RR_V2;

	rr->frame_len = SOFTIW_MPA_RR_HDR_LEN + pd_total;
	if (len < rr->frame_len)
		return SOFTIW_MPA_NEED_MORE;

	buf += SOFTIW_MPA_RR_HDR_LEN;
	if (rr->enhanced) {
		rr_decode_v2(buf, &rr->v2);
		buf += SOFTIW_MPA_V2_LEN;
		pd_total -= SOFTIW_MPA_V2_LEN;
	}
	rr->pd_len = pd_total;
	rr->pd = pd_total ? buf : NULL;
	return SOFTIW_WIRE_OK;
}

u32 softiw_mpa_rr_check_end(const struct softiw_mpa_rr *rr, size_t received)
{
	return received > rr->frame_len ? SOFTIW_MPA_ERR_RR_TRAILING :
					  SOFTIW_WIRE_OK;
}

static u16 min_u16(u16 a, u16 b)
{
	return a < b ? a : b;
}

void softiw_mpa_v2_respond(const struct softiw_mpa_v2 *req, u16 max_ird,
			   u16 max_ord, struct softiw_mpa_v2 *rep)
{
	/* Our IRD serves the peer's ORD and our ORD faces the peer's IRD. */
	rep->ird = min_u16(req->ord, max_ird) & SOFTIW_MPA_V2_IRD_ORD_MASK;
	rep->ord = min_u16(req->ird, max_ord) & SOFTIW_MPA_V2_IRD_ORD_MASK;
	rep->p2p = req->p2p;
	rep->rtr = 0;
	if (!req->p2p)
		return;
	if (req->rtr & SOFTIW_MPA_RTR_WRITE)
		rep->rtr = SOFTIW_MPA_RTR_WRITE;
	else if (req->rtr & SOFTIW_MPA_RTR_READ)
		rep->rtr = SOFTIW_MPA_RTR_READ;
	else if (req->rtr & SOFTIW_MPA_RTR_SEND)
		rep->rtr = SOFTIW_MPA_RTR_SEND;
	else
		rep->rtr = SOFTIW_MPA_RTR_WRITE;
}

u32 softiw_mpa_v2_check_reply(const struct softiw_mpa_v2 *offered,
			      u16 max_ird, const struct softiw_mpa_v2 *reply,
			      u16 *ird, u16 *ord)
{
	u8 chosen = reply->rtr;

	/* The peer's ORD is how many Reads we must be able to serve. */
	if (reply->ord > max_ird)
		return SOFTIW_MPA_ERR_IRD;
	if (offered->p2p) {
		/* Exactly one kind, and one that we offered. */
		if (!chosen || (chosen & (chosen - 1)) ||
		    !(chosen & offered->rtr))
			return SOFTIW_MPA_ERR_NO_RTR;
	}
	*ird = offered->ird > reply->ord ? offered->ird : reply->ord;
	*ord = min_u16(offered->ord, reply->ird);
	return SOFTIW_WIRE_OK;
}

u32 softiw_mpa_mulpdu(u32 emss, bool markers)
{
	u32 overhead = SOFTIW_MPA_HDR_LEN + SOFTIW_MPA_CRC_LEN + emss % 4;
	u32 mulpdu;

	if (markers)
		overhead += SOFTIW_MPA_MARKER_LEN *
			    ((emss + SOFTIW_MPA_MARKER_PERIOD - 1) /
			     SOFTIW_MPA_MARKER_PERIOD);
	if (emss <= overhead)
		return 0;
	mulpdu = emss - overhead;
	return mulpdu > 0xffff ? 0xffff : mulpdu;
}

u32 softiw_mpa_crc(softiw_crc32c_fn fn, const u8 *buf, size_t len)
{
	return ~fn(~0u, buf, len);
}

/* Octets from stream position @pos to the next Marker position. */
static u32 to_marker(u32 pos)
{
	return (SOFTIW_MPA_MARKER_PERIOD - pos % SOFTIW_MPA_MARKER_PERIOD) %
	       SOFTIW_MPA_MARKER_PERIOD;
}

/*
 * Markers inside an FPDU of @content octets (Markers excluded) that
 * starts at @pos: one at every period boundary reached while FPDU octets
 * remain, including one at the very start.  A boundary right after the
 * CRC belongs to the next FPDU.  One iteration per Marker.
 */
static u32 markers_in(u32 content, u32 pos)
{
	u32 first = to_marker(pos);
	u32 n = 0;

	/* The first Marker precedes FPDU octet @first. */
	if (first >= content)
		return 0;
	content -= first;
	/* Each Marker is followed by up to 508 octets before the next. */
	n = 1 + (content - 1) / (SOFTIW_MPA_MARKER_PERIOD -
				 SOFTIW_MPA_MARKER_LEN);
	return n;
}

u32 softiw_mpa_wire_len(u32 ulpdu_len, bool markers, u32 pos)
{
	u32 content = softiw_mpa_fpdu_len(ulpdu_len);

	if (!markers)
		return content;
	return content + SOFTIW_MPA_MARKER_LEN * markers_in(content, pos);
}

/*
 * Copy @len octets at offset @off of the FPDU content before the CRC
 * (ULPDU_Length, ULPDU, PAD) to @out.
 */
static void content_copy(u8 *out, u32 off, u32 len, const u8 *ulpdu,
			 u32 ulpdu_len)
{
	u8 lenhdr[SOFTIW_MPA_HDR_LEN];
	u32 k;

	softiw_wire_put_be16(lenhdr, ulpdu_len);
	if (off < SOFTIW_MPA_HDR_LEN) {
		k = SOFTIW_MPA_HDR_LEN - off;
		k = k < len ? k : len;
		memcpy(out, lenhdr + off, k);
		out += k;
		off += k;
		len -= k;
	}
	off -= SOFTIW_MPA_HDR_LEN;
	if (len && off < ulpdu_len) {
		k = ulpdu_len - off;
		k = k < len ? k : len;
		memcpy(out, ulpdu + off, k);
		out += k;
		len -= k;
	}
	/* What is left is PAD. */
	memset(out, 0, len);
}

static void marker_put(u8 *p, u32 fpduptr)
{
	softiw_wire_put_be16(p, 0);
	softiw_wire_put_be16(p + 2, fpduptr);
}

int softiw_mpa_fpdu_build(struct softiw_mpa_tx *tx, const u8 *ulpdu,
			  u32 ulpdu_len, u8 *out, size_t out_len)
{
	u32 pre = SOFTIW_MPA_HDR_LEN + ulpdu_len + softiw_mpa_pad(ulpdu_len);
	u32 wire, w = 0, c = 0;
	u32 crc = 0;

	if (ulpdu_len > 0xffff)
		return -EMSGSIZE;
	wire = softiw_mpa_wire_len(ulpdu_len, tx->markers, tx->pos);
	if (out_len < wire)
		return -ENOSPC;

	if (!tx->markers) {
		content_copy(out, 0, pre, ulpdu, ulpdu_len);
		w = pre;
	} else {
		/*
		 * Alternate Markers and runs of content.  Every position is
		 * 4-aligned (FPDUs are 4n long and start at 0), so a Marker
		 * never splits the CRC or ULPDU_Length.
		 */
		while (c < pre) {
			u32 run = to_marker(tx->pos + w);

			if (!run) {
				marker_put(out + w, w);
				w += SOFTIW_MPA_MARKER_LEN;
				run = SOFTIW_MPA_MARKER_PERIOD -
				      SOFTIW_MPA_MARKER_LEN;
			}
			if (run > pre - c)
				run = pre - c;
			content_copy(out + w, c, run, ulpdu, ulpdu_len);
			w += run;
			c += run;
		}
		/* A boundary between PAD and CRC: the Marker is ours. */
		if (!to_marker(tx->pos + w)) {
			marker_put(out + w, w);
			w += SOFTIW_MPA_MARKER_LEN;
		}
	}
	if (tx->crc)
		crc = softiw_mpa_crc(tx->crc32c, out, w);
	softiw_wire_put_le32(out + w, crc);
	w += SOFTIW_MPA_CRC_LEN;
	tx->pos += w;
	return w;
}

int softiw_mpa_fpdu_seal(struct softiw_mpa_tx *tx, u8 *fpdu, u32 ulpdu_len,
			 size_t fpdu_len)
{
	u32 pre = SOFTIW_MPA_HDR_LEN + ulpdu_len + softiw_mpa_pad(ulpdu_len);
	u32 crc = 0;

	if (ulpdu_len > 0xffff)
		return -EMSGSIZE;
	if (tx->markers)
		return -EINVAL;
	if (fpdu_len < pre + SOFTIW_MPA_CRC_LEN)
		return -ENOSPC;
	softiw_wire_put_be16(fpdu, ulpdu_len);
	memset(fpdu + SOFTIW_MPA_HDR_LEN + ulpdu_len, 0,
	       pre - SOFTIW_MPA_HDR_LEN - ulpdu_len);
	if (tx->crc)
		crc = softiw_mpa_crc(tx->crc32c, fpdu, pre);
	softiw_wire_put_le32(fpdu + pre, crc);
	tx->pos += pre + SOFTIW_MPA_CRC_LEN;
	return pre + SOFTIW_MPA_CRC_LEN;
}

int softiw_mpa_fpdu_open(struct softiw_mpa_tx *tx, u8 *fpdu, u32 ulpdu_len,
			 u32 hlen, u32 *crc_reg)
{
	if (ulpdu_len > 0xffff)
		return -EMSGSIZE;
	if (tx->markers || hlen > ulpdu_len)
		return -EINVAL;
	softiw_wire_put_be16(fpdu, ulpdu_len);
	*crc_reg = tx->crc ? tx->crc32c(~0u, fpdu, SOFTIW_MPA_HDR_LEN + hlen) :
		   0;
	return 0;
}

int softiw_mpa_fpdu_close(struct softiw_mpa_tx *tx, u32 crc_reg,
			  u32 ulpdu_len, u8 *trail, size_t trail_len)
{
	u32 pad = softiw_mpa_pad(ulpdu_len);
	u32 crc = 0;

	if (trail_len < pad + SOFTIW_MPA_CRC_LEN)
		return -ENOSPC;
	memset(trail, 0, pad);
	if (tx->crc)
		crc = ~tx->crc32c(crc_reg, trail, pad);
	softiw_wire_put_le32(trail + pad, crc);
	tx->pos += SOFTIW_MPA_HDR_LEN + ulpdu_len + pad + SOFTIW_MPA_CRC_LEN;
	return pad + SOFTIW_MPA_CRC_LEN;
}

/*
 * Check every Marker of an FPDU of @wire octets at @in (stream position
 * @pos) points back to its start, and copy the content between them
 * (without the CRC) into @dst, which has room for @content octets.
 */
static u32 markers_strip(const u8 *in, u32 wire, u32 pos, u8 *dst,
			 u32 content)
{
	u32 w = 0, c = 0;

	while (w < wire - SOFTIW_MPA_CRC_LEN) {
		u32 run = to_marker(pos + w);

		if (!run) {
			if (softiw_wire_get_be16(in + w + 2) != w)
				return SOFTIW_MPA_ERR_MARKER;
			w += SOFTIW_MPA_MARKER_LEN;
			run = SOFTIW_MPA_MARKER_PERIOD - SOFTIW_MPA_MARKER_LEN;
		}
		if (run > wire - SOFTIW_MPA_CRC_LEN - w)
			run = wire - SOFTIW_MPA_CRC_LEN - w;
		/* Cannot happen by construction of @wire; checked anyway. */
		if (run > content - c)
			return SOFTIW_MPA_ERR_MARKER;
		memcpy(dst + c, in + w, run);
		w += run;
		c += run;
	}
	return SOFTIW_WIRE_OK;
}

u32 softiw_mpa_fpdu_parse(struct softiw_mpa_rx *rx, const u8 *in,
			  size_t in_len, u8 *ulpdu_buf, size_t ulpdu_buf_len,
			  struct softiw_mpa_fpdu *f)
{
	u32 lead = 0, ulen, content, wire;
	u32 status;

	memset(f, 0, sizeof(*f));
	if (rx->markers && !to_marker(rx->pos)) {
		/* The FPDU starts with a Marker, which must point at itself. */
		lead = SOFTIW_MPA_MARKER_LEN;
		if (in_len < lead)
			return SOFTIW_MPA_NEED_MORE;
		if (softiw_wire_get_be16(in + 2) != 0)
			return SOFTIW_MPA_ERR_MARKER;
	}
	if (rx->markers && rx->pos % 4)
		return SOFTIW_MPA_ERR_MARKER;	/* caller lost FPDU alignment */
	if (in_len < lead + SOFTIW_MPA_HDR_LEN)
		return SOFTIW_MPA_NEED_MORE;

	ulen = softiw_wire_get_be16(in + lead);
	content = softiw_mpa_fpdu_len(ulen);
	wire = softiw_mpa_wire_len(ulen, rx->markers, rx->pos);
	f->wire_len = wire;
	f->ulpdu_len = ulen;
	if (in_len < wire)
		return SOFTIW_MPA_NEED_MORE;

	if (!rx->markers) {
		f->ulpdu = in + SOFTIW_MPA_HDR_LEN;
	} else {
		u32 pre = content - SOFTIW_MPA_CRC_LEN;

		/*
		 * The stripped content holds ULPDU_Length and PAD too, so
		 * @ulpdu_buf must have room for them (see mpa.h).
		 */
		if (!ulpdu_buf || ulpdu_buf_len < pre)
			return SOFTIW_MPA_ERR_NOSPACE;
		status = markers_strip(in, wire, rx->pos, ulpdu_buf, pre);
		if (status)
			return status;
		/* Drop the 2-octet ULPDU_Length: ULPDU starts after it. */
		memmove(ulpdu_buf, ulpdu_buf + SOFTIW_MPA_HDR_LEN, ulen);
		f->ulpdu = ulpdu_buf;
	}

	f->crc_rx = softiw_wire_get_le32(in + wire - SOFTIW_MPA_CRC_LEN);
	if (rx->crc &&
	    softiw_mpa_crc(rx->crc32c, in, wire - SOFTIW_MPA_CRC_LEN) !=
	    f->crc_rx) {
		f->ulpdu = NULL;
		return SOFTIW_MPA_ERR_CRC;
	}
	rx->pos += wire;
	return SOFTIW_WIRE_OK;
}
