// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DDP (RFC 5041): segment header encode/decode, segmentation, and the
 * receive-side validation of section 7.1 returning section 7.2 errors.
 *
 * Owns no state.  Buffer and STag knowledge comes from the caller's
 * lookup callbacks; see ddp.h for what the caller must hold meanwhile.
 *
 * Locking: none.
 */
#include "ddp.h"

/* Octet offsets inside a DDP header (from the DDP Control octet). */
#define OFF_CTRL	0
#define OFF_RSVDULP	1
#define OFF_STAG	2
#define OFF_TO		6
#define OFF_RSVDULP_EXT	2
#define OFF_QN		6
#define OFF_MSN		10
#define OFF_MO		14

int softiw_ddp_hdr_encode(const struct softiw_ddp_hdr *h, u8 *buf,
			  size_t len)
{
	u32 hlen = softiw_ddp_hdr_len(h->tagged);
	u8 ctrl = SOFTIW_DDP_VERSION;

	if (len < hlen)
		return -ENOSPC;
	if (h->tagged)
		ctrl |= SOFTIW_DDP_FLAG_T;
	if (h->last)
		ctrl |= SOFTIW_DDP_FLAG_L;
	buf[OFF_CTRL] = ctrl;
	buf[OFF_RSVDULP] = h->rsvdulp;
	if (h->tagged) {
		softiw_wire_put_be32(buf + OFF_STAG, h->stag);
		softiw_wire_put_be64(buf + OFF_TO, h->to);
	} else {
		softiw_wire_put_be32(buf + OFF_RSVDULP_EXT, h->rsvdulp_ext);
		softiw_wire_put_be32(buf + OFF_QN, h->qn);
		softiw_wire_put_be32(buf + OFF_MSN, h->msn);
		softiw_wire_put_be32(buf + OFF_MO, h->mo);
	}
	return hlen;
}

u32 softiw_ddp_hdr_decode(const u8 *buf, size_t len,
			  struct softiw_ddp_hdr *h)
{
	u8 ctrl;

	memset(h, 0, sizeof(*h));
	/* T is needed to know the header length: one octet first. */
	if (len < 1)
		return SOFTIW_DDP_ERR_SHORT;
	ctrl = buf[OFF_CTRL];
	h->tagged = ctrl & SOFTIW_DDP_FLAG_T;
	h->last = ctrl & SOFTIW_DDP_FLAG_L;
	h->dv = ctrl & SOFTIW_DDP_DV_MASK;
	if (len < softiw_ddp_hdr_len(h->tagged))
		return SOFTIW_DDP_ERR_SHORT;

	h->rsvdulp = buf[OFF_RSVDULP];
	if (h->tagged) {
		h->stag = softiw_wire_get_be32(buf + OFF_STAG);
		h->to = softiw_wire_get_be64(buf + OFF_TO);
	} else {
		h->rsvdulp_ext = softiw_wire_get_be32(buf + OFF_RSVDULP_EXT);
		h->qn = softiw_wire_get_be32(buf + OFF_QN);
		h->msn = softiw_wire_get_be32(buf + OFF_MSN);
		h->mo = softiw_wire_get_be32(buf + OFF_MO);
	}
	/* Rsvd bits are not checked on receive (RFC 5041 section 4.1). */
	if (h->dv != SOFTIW_DDP_VERSION)
		return h->tagged ? SOFTIW_DDP_ERR_TAGGED_VERSION :
				   SOFTIW_DDP_ERR_UNTAGGED_VERSION;
	return SOFTIW_WIRE_OK;
}

int softiw_ddp_seg_init(struct softiw_ddp_segmenter *s,
			const struct softiw_ddp_hdr *base, u32 msg_len,
			u32 mulpdu)
{
	u32 hlen = softiw_ddp_hdr_len(base->tagged);

	if (mulpdu <= hlen)
		return -EINVAL;
	s->base = *base;
	s->base.dv = SOFTIW_DDP_VERSION;
	s->msg_len = msg_len;
	s->max_payload = mulpdu - hlen;
	s->off = 0;
	s->done = false;
	return 0;
}

bool softiw_ddp_seg_next(struct softiw_ddp_segmenter *s,
			 struct softiw_ddp_hdr *h, u32 *payload_off,
			 u32 *payload_len)
{
	u32 left, plen;

	if (s->done)
		return false;
	left = s->msg_len - s->off;
	plen = left < s->max_payload ? left : s->max_payload;

	*h = s->base;
	if (h->tagged)
		h->to = s->base.to + s->off;	/* TO = initial TO + offset */
	else
		h->mo = s->off;			/* MO = offset, 0 first */
	/* L on the last segment only; a zero-length message is one. */
	h->last = plen == left;
	*payload_off = s->off;
	*payload_len = plen;
	s->off += plen;
	s->done = h->last;
	return true;
}

u32 softiw_ddp_seg_count(u32 msg_len, u32 mulpdu, bool tagged)
{
	u32 hlen = softiw_ddp_hdr_len(tagged);
	u32 max;

	if (mulpdu <= hlen)
		return 0;
	max = mulpdu - hlen;
	if (!msg_len)
		return 1;
	return msg_len / max + (msg_len % max ? 1 : 0);
}

u32 softiw_ddp_validate_tagged(const struct softiw_ddp_stream *s,
			       const struct softiw_ddp_hdr *h, u32 payload_len,
			       u32 access, struct softiw_ddp_stag_info *info)
{
	struct softiw_ddp_stag_info si;
	u64 off;

	/* RFC 5041 5.2: STag and TO MUST NOT be checked when length is 0. */
	if (!payload_len)
		return SOFTIW_WIRE_OK;
	if (!s->stag_lookup || s->stag_lookup(s->ctx, h->stag, &si))
		return SOFTIW_DDP_ERR_INVALID_STAG;
	/* RFC 5041 8.2: PD association, then stream association. */
	if (si.pd != s->pd ||
	    (si.qp != SOFTIW_DDP_ANY_QP && si.qp != s->qp))
		return SOFTIW_DDP_ERR_NOT_ASSOCIATED;
	if ((si.access & access) != access)
		return SOFTIW_DDP_ERR_ACCESS;
	/* Offsets relative to base cannot overflow: base + len <= 2^64. */
	if (h->to < si.base)
		return SOFTIW_DDP_ERR_BOUNDS;
	off = h->to - si.base;
	if (off >= si.len)
		return SOFTIW_DDP_ERR_BOUNDS;
	if (h->to + payload_len < h->to)
		return SOFTIW_DDP_ERR_TO_WRAP;
	if (payload_len > si.len - off)
		return SOFTIW_DDP_ERR_BOUNDS;
	if (info)
		*info = si;
	return SOFTIW_WIRE_OK;
}

u32 softiw_ddp_validate_untagged(const struct softiw_ddp_stream *s,
				 const struct softiw_ddp_hdr *h,
				 u32 payload_len,
				 struct softiw_ddp_ubuf_info *info)
{
	struct softiw_ddp_ubuf_info ub;
	u32 d;

	if (h->qn >= s->nr_qn || !s->ubuf_lookup ||
	    s->ubuf_lookup(s->ctx, h->qn, h->msn, &ub))
		return SOFTIW_DDP_ERR_INVALID_QN;
	/*
	 * Distance of the MSN from the first available buffer, modulo
	 * 2^32: the upper half of the number space is "behind" (already
	 * completed), the lower half "ahead".
	 */
	d = h->msn - ub.msn_first;
	if (d < 0x80000000u && d >= ub.nr_bufs)
		return SOFTIW_DDP_ERR_NO_BUFFER;
	if (d >= 0x80000000u)
		return SOFTIW_DDP_ERR_MSN_RANGE;
	if (h->mo > ub.len || (payload_len && h->mo == ub.len))
		return SOFTIW_DDP_ERR_INVALID_MO;
	if (payload_len > ub.len - h->mo)
		return SOFTIW_DDP_ERR_TOO_LONG;
	if (info)
		*info = ub;
	return SOFTIW_WIRE_OK;
}

u32 softiw_ddp_rx_msg_check(struct softiw_ddp_rx_msg *m,
			    const struct softiw_ddp_hdr *h, u32 payload_len)
{
	/* One state per buffer model (and QN): mixing them is a local bug. */
	if (m->active && m->tagged != h->tagged)
		return SOFTIW_DDP_ERR_CATASTROPHIC;
	if (!m->active) {
		if (!h->tagged && h->mo)
			return SOFTIW_DDP_ERR_INVALID_MO;
		m->tagged = h->tagged;
		m->stag = h->stag;
		m->qn = h->qn;
		m->msn = h->msn;
	} else if (h->tagged) {
		if (h->stag != m->stag)
			return SOFTIW_DDP_ERR_INVALID_STAG;
		if (h->to != m->next_to)
			return SOFTIW_DDP_ERR_BOUNDS;
	} else {
		if (h->qn != m->qn)
			return SOFTIW_DDP_ERR_INVALID_QN;
		if (h->msn != m->msn)
			return SOFTIW_DDP_ERR_MSN_RANGE;
		if (h->mo != m->next_mo)
			return SOFTIW_DDP_ERR_INVALID_MO;
	}
	m->next_to = h->to + payload_len;
	m->next_mo = h->mo + payload_len;
	m->active = !h->last;
	return SOFTIW_WIRE_OK;
}
