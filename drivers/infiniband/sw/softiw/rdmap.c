// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMAP (RFC 5040): opcode table, message header encode/decode, the Read
 * Request body, Terminate encode/parse, and softiw_rdmap_term_for_error(),
 * the single place that decides which Terminate an error produces.
 *
 * Owns no state apart from the constant opcode table.
 *
 * Locking: none.
 */
#include "mpa.h"
#include "rdmap.h"

#define DDP_UNTAGGED	SOFTIW_DDP_UNTAGGED_HDR_LEN
#define DDP_TAGGED	SOFTIW_DDP_TAGGED_HDR_LEN

static const struct softiw_rdmap_opinfo opinfo[SOFTIW_RDMAP_OPCODE_MAX + 1] = {
	[SOFTIW_RDMAP_WRITE] = {
		.tagged = true, .hdr_len = DDP_TAGGED,
	},
	[SOFTIW_RDMAP_READ_REQ] = {
		.qn = SOFTIW_RDMAP_QN_READ_REQ,
		.hdr_len = DDP_UNTAGGED + SOFTIW_RDMAP_READ_REQ_LEN,
	},
	[SOFTIW_RDMAP_READ_RESP] = {
		.tagged = true, .hdr_len = DDP_TAGGED,
	},
	[SOFTIW_RDMAP_SEND] = {
		.qn = SOFTIW_RDMAP_QN_SEND, .hdr_len = DDP_UNTAGGED,
	},
	[SOFTIW_RDMAP_SEND_INV] = {
		.qn = SOFTIW_RDMAP_QN_SEND, .hdr_len = DDP_UNTAGGED,
		.has_inval_stag = true,
	},
	[SOFTIW_RDMAP_SEND_SE] = {
		.qn = SOFTIW_RDMAP_QN_SEND, .hdr_len = DDP_UNTAGGED,
	},
	[SOFTIW_RDMAP_SEND_SE_INV] = {
		.qn = SOFTIW_RDMAP_QN_SEND, .hdr_len = DDP_UNTAGGED,
		.has_inval_stag = true,
	},
	[SOFTIW_RDMAP_TERMINATE] = {
		.qn = SOFTIW_RDMAP_QN_TERMINATE,
		.hdr_len = DDP_UNTAGGED + SOFTIW_RDMAP_TERM_CTRL_LEN,
	},
};

const struct softiw_rdmap_opinfo *softiw_rdmap_opinfo(u8 opcode)
{
	if (opcode > SOFTIW_RDMAP_OPCODE_MAX)
		return NULL;
	return &opinfo[opcode];
}

int softiw_rdmap_hdr_init(struct softiw_rdmap_hdr *h, u8 opcode,
			  u32 stag, u64 to, u32 msn, u32 inval_stag)
{
	const struct softiw_rdmap_opinfo *oi = softiw_rdmap_opinfo(opcode);

	if (!oi)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->opcode = opcode;
	h->hdr_len = oi->hdr_len;
	h->ddp.tagged = oi->tagged;
	h->ddp.dv = SOFTIW_DDP_VERSION;
	h->ddp.rsvdulp = softiw_rdmap_ctrl(opcode);
	if (oi->tagged) {
		h->ddp.stag = stag;
		h->ddp.to = to;
	} else {
		h->ddp.qn = oi->qn;
		h->ddp.msn = msn;
	}
	if (oi->has_inval_stag) {
		h->inval_stag = inval_stag;
		h->ddp.rsvdulp_ext = inval_stag;
	}
	return 0;
}

u32 softiw_rdmap_hdr_decode(const u8 *buf, size_t len,
			    struct softiw_rdmap_hdr *h)
{
	const struct softiw_rdmap_opinfo *oi;
	u32 status;
	u8 ctrl;

	memset(h, 0, sizeof(*h));
	status = softiw_ddp_hdr_decode(buf, len, &h->ddp);
	h->hdr_len = softiw_ddp_hdr_len(h->ddp.tagged);
	if (status)
		return status;

	ctrl = h->ddp.rsvdulp;
	h->opcode = ctrl & SOFTIW_RDMAP_OPCODE_MASK;
	/* The Rsv bits are not checked on receive. */
	if ((ctrl & SOFTIW_RDMAP_RV_MASK) >> SOFTIW_RDMAP_RV_SHIFT !=
	    SOFTIW_RDMAP_VERSION)
		return SOFTIW_RDMAP_ERR_VERSION;
	oi = softiw_rdmap_opinfo(h->opcode);
	/* Undefined (incl. RFC 7306) opcodes, or the wrong buffer model. */
	if (!oi || oi->tagged != h->ddp.tagged)
		return SOFTIW_RDMAP_ERR_OPCODE;
	if (!oi->tagged && h->ddp.qn != oi->qn)
		return SOFTIW_DDP_ERR_INVALID_QN;
	if (oi->has_inval_stag)
		h->inval_stag = h->ddp.rsvdulp_ext;
	h->hdr_len = oi->hdr_len;
	if (len < oi->hdr_len)
		return SOFTIW_DDP_ERR_SHORT;
	return SOFTIW_WIRE_OK;
}

int softiw_rdmap_read_req_encode(const struct softiw_rdmap_read_req *rr,
				 u8 *buf, size_t len)
{
	if (len < SOFTIW_RDMAP_READ_REQ_LEN)
		return -ENOSPC;
	softiw_wire_put_be32(buf, rr->sink_stag);
	softiw_wire_put_be64(buf + 4, rr->sink_to);
	softiw_wire_put_be32(buf + 12, rr->size);
	softiw_wire_put_be32(buf + 16, rr->src_stag);
	softiw_wire_put_be64(buf + 20, rr->src_to);
	return SOFTIW_RDMAP_READ_REQ_LEN;
}

u32 softiw_rdmap_read_req_decode(const u8 *buf, size_t len,
				 struct softiw_rdmap_read_req *rr)
{
	if (len < SOFTIW_RDMAP_READ_REQ_LEN)
		return SOFTIW_DDP_ERR_SHORT;
	rr->sink_stag = softiw_wire_get_be32(buf);
	rr->sink_to = softiw_wire_get_be64(buf + 4);
	rr->size = softiw_wire_get_be32(buf + 12);
	rr->src_stag = softiw_wire_get_be32(buf + 16);
	rr->src_to = softiw_wire_get_be64(buf + 20);
	return SOFTIW_WIRE_OK;
}

u32 softiw_rdmap_read_req_validate(const struct softiw_ddp_stream *s,
				   const struct softiw_rdmap_read_req *rr)
{
	struct softiw_ddp_hdr h = {
		.tagged = true, .stag = rr->src_stag, .to = rr->src_to,
	};
	u32 status;

	status = softiw_ddp_validate_tagged(s, &h, rr->size,
					    SOFTIW_DDP_ACCESS_REMOTE_READ,
					    NULL);
	switch (status) {
	case SOFTIW_WIRE_OK:
		return SOFTIW_WIRE_OK;
	case SOFTIW_DDP_ERR_INVALID_STAG:
		return SOFTIW_RDMAP_ERR_INVALID_STAG;
	case SOFTIW_DDP_ERR_ACCESS:
		return SOFTIW_RDMAP_ERR_ACCESS;
	case SOFTIW_DDP_ERR_NOT_ASSOCIATED:
		return SOFTIW_RDMAP_ERR_NOT_ASSOCIATED;
	case SOFTIW_DDP_ERR_TO_WRAP:
		return SOFTIW_RDMAP_ERR_TO_WRAP;
	case SOFTIW_DDP_ERR_BOUNDS:
		return SOFTIW_RDMAP_ERR_BOUNDS;
	default:
		return SOFTIW_RDMAP_ERR_PROT_UNSPEC;
	}
}

/*
 * Whether a Terminate for @err may copy the offending headers: only when
 * the error is about a well-formed segment's buffer or operation.  For
 * LLP errors (CRC, framing, connection setup), catastrophic errors and
 * version/opcode errors the header layout itself is in doubt.
 */
static bool term_copies_headers(u32 err)
{
	u8 layer = softiw_wire_err_layer(err);
	u8 etype = softiw_wire_err_etype(err);

	switch (layer) {
	case SOFTIW_LAYER_DDP:
		return err != SOFTIW_DDP_ERR_CATASTROPHIC &&
		       err != SOFTIW_DDP_ERR_TAGGED_VERSION &&
		       err != SOFTIW_DDP_ERR_UNTAGGED_VERSION;
	case SOFTIW_LAYER_RDMAP:
		return etype != 0 && err != SOFTIW_RDMAP_ERR_VERSION &&
		       err != SOFTIW_RDMAP_ERR_OPCODE;
	default:
		return false;
	}
}

void softiw_rdmap_term_for_error(u32 err, const u8 *fpdu, size_t fpdu_len,
				 struct softiw_rdmap_term *t)
{
	const u8 *ddp;
	u32 hlen;

	memset(t, 0, sizeof(*t));
	/* Not an error, or not one of ours: a local catastrophic error. */
	if (!softiw_wire_is_error(err) ||
	    softiw_wire_err_layer(err) > SOFTIW_LAYER_LLP)
		err = SOFTIW_RDMAP_ERR_CATASTROPHIC;
	t->layer = softiw_wire_err_layer(err);
	t->etype = softiw_wire_err_etype(err);
	t->ecode = softiw_wire_err_ecode(err);
	if (!fpdu || !term_copies_headers(err) ||
	    fpdu_len < SOFTIW_MPA_HDR_LEN + 1)
		return;

	ddp = fpdu + SOFTIW_MPA_HDR_LEN;
	hlen = softiw_ddp_hdr_len(ddp[0] & SOFTIW_DDP_FLAG_T);
	if (fpdu_len < SOFTIW_MPA_HDR_LEN + hlen)
		return;
	/* DDP Segment Length: the FPDU's ULPDU_Length, verbatim. */
	t->m = true;
	t->d = true;
	t->ddp_seg_len = softiw_wire_get_be16(fpdu);
	t->ddp_hdr_len = hlen;
	memcpy(t->ddp_hdr, ddp, hlen);

	/* Only a Read Request has an RDMA header to copy. */
	if (!(ddp[0] & SOFTIW_DDP_FLAG_T) &&
	    (ddp[1] & SOFTIW_RDMAP_OPCODE_MASK) == SOFTIW_RDMAP_READ_REQ &&
	    fpdu_len >= SOFTIW_MPA_HDR_LEN + hlen +
			SOFTIW_RDMAP_TERM_RDMA_HDR_LEN) {
		t->r = true;
		memcpy(t->rdma_hdr, ddp + hlen, SOFTIW_RDMAP_TERM_RDMA_HDR_LEN);
	}
}

int softiw_rdmap_term_encode(const struct softiw_rdmap_term *t, u32 msn,
			     u8 *buf, size_t len)
{
	struct softiw_rdmap_hdr h;
	u32 need = SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_TERM_CTRL_LEN;
	u32 ctrl;
	u8 *p;

	if (t->d)
		need += SOFTIW_RDMAP_TERM_SEGLEN_LEN + t->ddp_hdr_len;
	if (t->r)
		need += SOFTIW_RDMAP_TERM_RDMA_HDR_LEN;
	if (len < need || (t->d && t->ddp_hdr_len != DDP_TAGGED &&
			   t->ddp_hdr_len != DDP_UNTAGGED))
		return -ENOSPC;

	softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_TERMINATE, 0, 0, msn, 0);
	h.ddp.last = true;
	softiw_ddp_hdr_encode(&h.ddp, buf, len);
	p = buf + SOFTIW_DDP_UNTAGGED_HDR_LEN;

	ctrl = ((u32)(t->layer & 0xf) << 28) | ((u32)(t->etype & 0xf) << 24) |
	       ((u32)t->ecode << 16);
	if (t->m)
		ctrl |= SOFTIW_RDMAP_TERM_M;
	if (t->d)
		ctrl |= SOFTIW_RDMAP_TERM_D;
	if (t->r)
		ctrl |= SOFTIW_RDMAP_TERM_R;
	softiw_wire_put_be32(p, ctrl);
	p += SOFTIW_RDMAP_TERM_CTRL_LEN;
	if (t->d) {
		softiw_wire_put_be16(p, t->m ? t->ddp_seg_len : 0);
		p += SOFTIW_RDMAP_TERM_SEGLEN_LEN;
		memcpy(p, t->ddp_hdr, t->ddp_hdr_len);
		p += t->ddp_hdr_len;
	}
	if (t->r) {
		memcpy(p, t->rdma_hdr, SOFTIW_RDMAP_TERM_RDMA_HDR_LEN);
		p += SOFTIW_RDMAP_TERM_RDMA_HDR_LEN;
	}
	return p - buf;
}

u32 softiw_rdmap_term_parse(const u8 *buf, size_t len,
			    struct softiw_rdmap_term *t)
{
	size_t off = SOFTIW_RDMAP_TERM_CTRL_LEN;
	u32 ctrl;

	memset(t, 0, sizeof(*t));
	if (len < SOFTIW_RDMAP_TERM_CTRL_LEN)
		return SOFTIW_DDP_ERR_SHORT;
	ctrl = softiw_wire_get_be32(buf);
	t->layer = ctrl >> 28;
	t->etype = (ctrl >> 24) & 0xf;
	t->ecode = (ctrl >> 16) & 0xff;
	t->m = ctrl & SOFTIW_RDMAP_TERM_M;
	t->d = ctrl & SOFTIW_RDMAP_TERM_D;
	t->r = ctrl & SOFTIW_RDMAP_TERM_R;
	if (t->layer > SOFTIW_LAYER_LLP)
		return SOFTIW_RDMAP_ERR_TERM_FORMAT;

	if (t->d) {
		/* Segment length, then at least the DDP Control octet. */
		if (len < off + SOFTIW_RDMAP_TERM_SEGLEN_LEN + 1)
			return SOFTIW_RDMAP_ERR_TERM_FORMAT;
		t->ddp_seg_len = softiw_wire_get_be16(buf + off);
		off += SOFTIW_RDMAP_TERM_SEGLEN_LEN;
		t->ddp_hdr_len = softiw_ddp_hdr_len(buf[off] & SOFTIW_DDP_FLAG_T);
		if (len < off + t->ddp_hdr_len)
			return SOFTIW_RDMAP_ERR_TERM_FORMAT;
		memcpy(t->ddp_hdr, buf + off, t->ddp_hdr_len);
		off += t->ddp_hdr_len;
	}
	if (t->r) {
		if (len < off + SOFTIW_RDMAP_TERM_RDMA_HDR_LEN)
			return SOFTIW_RDMAP_ERR_TERM_FORMAT;
		memcpy(t->rdma_hdr, buf + off, SOFTIW_RDMAP_TERM_RDMA_HDR_LEN);
	}
	return SOFTIW_WIRE_OK;
}
