// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw RX engine: the socket's data_ready callback reads the stream
 * with tcp_read_sock() and feeds a streaming FPDU parser.  Per FPDU:
 *
 *   CRC      with CRC in use, nothing of an FPDU is placed before its
 *            CRC is known good (RFC 5044 section 8): rx_fpdu_verify()
 *            waits until the whole FPDU is in the socket's receive queue
 *            and checks its CRC there, without consuming or copying it
 *            (rx_fpdu_verify_here() when it lies in one skb and there are
 *            no Markers: straight over the skb's pages, in one CRC call
 *            when it lies in one piece of memory, as small FPDUs do);
 *   HDR      ULPDU_Length and the DDP/RDMAP header (whole Read Request,
 *            Terminate body) are gathered into rx.hdr, then decoded and
 *            validated with the wire core BEFORE any placement;
 *   PAYLOAD  placed straight from the skb into the registered region or
 *            the receive buffer (softiw_mem_copy_in_skb()), no
 *            intermediate copy;
 *   PAD, CRC only then is anything delivered (completions, Read
 *            Requests queued, Terminates acted on).
 *
 * Markers (params.markers_rx) are stripped wherever the 512-octet grid
 * of the stream (rx.mpa.pos) falls, checked (FPDUPTR) and covered by the
 * CRC, as mpa.c frames them.
 *
 * Any error stops the stream: rx.stopped is set, everything after is
 * dropped, and softiw_qp_terminate() sends the Terminate the wire core
 * maps the error to.  An error found in a header is reported only once
 * the FPDU's CRC is known, so a corrupted FPDU reports the CRC error.
 *
 * Locking: data_ready runs with the socket lock held (bh_lock_sock in
 * softirq, or the owner in release_sock()), so the socket layer
 * serialises it; qp->rx is only touched there, and by attach/detach
 * when no data_ready can run.  sk_callback_lock (read) keeps the QP
 * attached for the duration of the callback.  The region a lookup found
 * stays referenced in rx.mem until rx_actor() returns (rx_mem()), so
 * that validation and placement, and the next FPDUs of the same skb,
 * find it without another lookup; every copy still checks it under its
 * lock.  Revocation waits for at most one skb's FPDUs.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "softiw.h"
#include "crc.h"
#include "copy.h"
#include "mem.h"
#include "cm.h"
#include "qp.h"
#include "txrx.h"

enum {
	RX_HDR,
	RX_PAYLOAD,
	RX_PAD,
	RX_CRC,
};

enum {
	RX_T_SKIP,		/* payload only counted (and CRC'd) */
	RX_T_MEM,		/* tagged: rx.h.ddp.stag at rx.addr */
	RX_T_RQE,		/* untagged: rx.rqe at rx.mo */
};

/* Octets from stream position @pos to the next Marker position. */
static u32 rx_to_marker(u32 pos)
{
	return (SOFTIW_MPA_MARKER_PERIOD - pos % SOFTIW_MPA_MARKER_PERIOD) %
	       SOFTIW_MPA_MARKER_PERIOD;
}

/* A streaming CRC is kept only when the FPDU was not verified up front. */
static bool rx_crc_live(const struct softiw_qp_rx *rx)
{
	return rx->mpa.crc && !rx->crc_checked;
}

static void rx_crc(struct softiw_qp_rx *rx, const u8 *buf, u32 len)
{
	if (rx_crc_live(rx))
		rx->crc = softiw_crc32c(rx->crc, buf, len);
}

/* Consume @len octets of the skb into the CRC only (or not at all). */
static void rx_crc_skb(struct softiw_qp_rx *rx, const struct sk_buff *skb,
		       int off, u32 len)
{
	u8 tmp[64];

	while (rx_crc_live(rx) && len) {
		u32 n = min_t(u32, len, sizeof(tmp));

		if (skb_copy_bits(skb, off, tmp, n))
			return;
		rx->crc = softiw_crc32c(rx->crc, tmp, n);
		off += n;
		len -= n;
	}
}

static void rx_mem_put(struct softiw_qp_rx *rx)
{
	if (rx->mem)
		softiw_mem_put(rx->mem);
	rx->mem = NULL;
}

int softiw_rx_init(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 i;

	memset(rx, 0, sizeof(*rx));
	rx->rqe = kmalloc(sizeof(*rx->rqe), GFP_KERNEL);
	if (!rx->rqe)
		return -ENOMEM;
	rx->mpa.crc32c = softiw_mpa_crc32c;
	rx->mpa.crc = qp->params.crc;
	rx->mpa.markers = qp->params.markers_rx;
	for (i = 0; i < SOFTIW_RDMAP_NR_QN; i++)
		rx->msn_expect[i] = SOFTIW_DDP_MSN_INITIAL;
	/*
	 * RFC 5044 / 6581: the Responder sends nothing before the
	 * Initiator's first FPDU (the RTR when one was negotiated).
	 */
	rx->rtr_pending = !qp->params.initiator;
	rx->state = RX_HDR;
	return 0;
}

/* Give back a receive buffer taken for a message that will not finish. */
static void rx_drop_rqe(struct softiw_qp *qp, u8 status)
{
	struct softiw_qp_rx *rx = &qp->rx;

	if (!rx->have_rqe)
		return;
	rx->have_rqe = false;
	softiw_rq_done(qp, rx->rqe, status, 0, false, 0, false);
}

void softiw_rx_release(struct softiw_qp *qp)
{
	rx_mem_put(&qp->rx);
	if (!qp->rx.rqe)
		return;
	rx_drop_rqe(qp, IB_WC_WR_FLUSH_ERR);
	kfree(qp->rx.rqe);
	qp->rx.rqe = NULL;
}

/* Stop the stream for @err and send its Terminate. */
static void rx_fail(struct softiw_qp *qp, u32 err, u8 rqe_status)
{
	struct softiw_qp_rx *rx = &qp->rx;

	rx->stopped = true;
	rx_drop_rqe(qp, rqe_status);
	softiw_qp_terminate(qp, err, rx->hdr, rx->hdr_got);
}

/*
 * The actor's range is always inside the skb, so a failed skb_copy_bits()
 * cannot happen; should it, the stream position is lost: stop it.
 */
static u32 rx_broken(struct softiw_qp *qp, u32 len)
{
	rx_fail(qp, SOFTIW_DDP_ERR_CATASTROPHIC, IB_WC_WR_FLUSH_ERR);
	return len;
}

/*
 * The valid region or window @stag names, from rx.mem when it is that
 * one, else looked up and kept there in place of the last one; NULL if
 * there is none.  The reference is rx.mem's: rx_actor() lets go of it.
 */
static struct softiw_mem *rx_mem(struct softiw_qp *qp, u32 stag)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_mem *mem = rx->mem;

	if (mem && READ_ONCE(mem->stag) == stag && READ_ONCE(mem->valid))
		return mem;
	rx_mem_put(rx);
	rx->mem = softiw_mem_get(qp->sdev, stag);
	return rx->mem;
}

/* DDP STag lookup for the validators (ctx is the QP). */
static int rx_stag_lookup(void *ctx, u32 stag,
			  struct softiw_ddp_stag_info *info)
{
	struct softiw_qp *qp = ctx;
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_mem *mem = rx_mem(qp, stag);

	if (!mem)
		return -ENOENT;
	/* The stream's PD is 0 in the validator's eyes; any other is 1. */
	info->pd = mem->pd == qp->pd ? 0 : 1;
	info->qp = softiw_mem_stream_qp(mem, qp);
	info->access = 0;
	if (rx->h.opcode == SOFTIW_RDMAP_READ_RESP) {
		struct softiw_wqe *wqe = rx->rresp_wqe;

		/* The sink is exactly the READ's local SGE. */
		if (!wqe || !wqe->num_sge || stag != wqe->sge[0].lkey)
			return -ENOENT;
		info->base = wqe->sge[0].addr;
		info->len = wqe->sge[0].length;
		if (!softiw_mem_check(mem, qp, info->base, info->len,
				      IB_ACCESS_LOCAL_WRITE))
			info->access = SOFTIW_DDP_ACCESS_REMOTE_WRITE;
	} else {
		/*
		 * What the region allows and the QP grants its peer
		 * (IB_QP_ACCESS_FLAGS): a Write or Read Request needs both.
		 */
		int access = READ_ONCE(mem->access) & READ_ONCE(qp->access);

		/* lockless, for the Terminate; placement checks again */
		info->base = READ_ONCE(mem->iova);
		info->len = READ_ONCE(mem->len);
		if (access & IB_ACCESS_REMOTE_WRITE)
			info->access |= SOFTIW_DDP_ACCESS_REMOTE_WRITE;
		if (access & IB_ACCESS_REMOTE_READ)
			info->access |= SOFTIW_DDP_ACCESS_REMOTE_READ;
	}
	return 0;
}

/* DDP untagged-buffer lookup (ctx is the QP). */
static int rx_ubuf_lookup(void *ctx, u32 qn, u32 msn,
			  struct softiw_ddp_ubuf_info *info)
{
	struct softiw_qp *qp = ctx;
	struct softiw_qp_rx *rx = &qp->rx;

	info->msn_first = rx->msn_expect[qn];
	info->nr_bufs = 1;
	info->len = 0;
	switch (qn) {
	case SOFTIW_RDMAP_QN_SEND:
		/* A new message takes the next receive buffer. */
		if (!rx->have_rqe && msn == rx->msn_expect[qn])
			rx->have_rqe = softiw_rq_take(qp, rx->rqe);
		if (!rx->have_rqe)
			info->nr_bufs = 0;
		else
			info->len = rx->rqe->length;
		break;
	case SOFTIW_RDMAP_QN_READ_REQ:
		/* IRD is enforced when the request is queued. */
		break;
	default:
		/* A Terminate's body beyond what rx.hdr keeps is skipped. */
		info->len = U32_MAX;
		break;
	}
	return 0;
}

/* Validate the decoded segment in rx.h and choose the payload target. */
static u32 rx_validate(struct softiw_qp *qp, u32 plen)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_rdmap_hdr *h = &rx->h;
	struct softiw_ddp_stream s = {
		.pd = 0,
		.qp = qp->ibqp.qp_num,
		.nr_qn = SOFTIW_RDMAP_NR_QN,
		.stag_lookup = rx_stag_lookup,
		.ubuf_lookup = rx_ubuf_lookup,
		.ctx = qp,
	};
	struct softiw_ddp_rx_msg *m;
	bool first;
	u32 st;

	if (h->ddp.tagged) {
		m = &rx->msg_tagged;
		first = !m->active;
		st = softiw_ddp_rx_msg_check(m, &h->ddp, plen);
		if (st)
			return st;
		if (h->opcode == SOFTIW_RDMAP_READ_RESP && first) {
			rx->rresp_wqe = NULL;
			/* only an answer to a Read Request we sent */
			if (!READ_ONCE(qp->ord_outstanding))
				return SOFTIW_RDMAP_ERR_OPCODE;
			if (!READ_ONCE(rx->rtr_read)) {
				rx->rresp_wqe = softiw_sq_oldest_read(qp);
				if (!rx->rresp_wqe)
					return SOFTIW_RDMAP_ERR_OPCODE;
			}
		}
		st = softiw_ddp_validate_tagged(&s, &h->ddp, plen,
						SOFTIW_DDP_ACCESS_REMOTE_WRITE,
						NULL);
		if (st)
			return st;
		if (plen) {
			rx->target = RX_T_MEM;
			rx->addr = h->ddp.to;
		}
		return SOFTIW_WIRE_OK;
	}

	m = &rx->msg[h->ddp.qn];
	st = softiw_ddp_rx_msg_check(m, &h->ddp, plen);
	if (st)
		return st;
	/* RFC 6581: a zero-length Send RTR consumes no receive buffer. */
	if (rx->rtr_pending && (qp->params.rtr & SOFTIW_MPA_RTR_SEND) &&
	    h->ddp.qn == SOFTIW_RDMAP_QN_SEND && !plen && h->ddp.last &&
	    !h->ddp.mo)
		return h->ddp.msn == rx->msn_expect[0] ?
		       SOFTIW_WIRE_OK : SOFTIW_DDP_ERR_MSN_RANGE;
	st = softiw_ddp_validate_untagged(&s, &h->ddp, plen, NULL);
	if (st)
		return st;
	if (h->ddp.qn == SOFTIW_RDMAP_QN_READ_REQ) {
		struct softiw_rdmap_read_req rr;
		const u8 *body = rx->hdr + SOFTIW_MPA_HDR_LEN +
				 SOFTIW_DDP_UNTAGGED_HDR_LEN;

		if (!h->ddp.last)
			return SOFTIW_RDMAP_ERR_OP_UNSPEC;
		st = softiw_rdmap_read_req_decode(body,
						  SOFTIW_RDMAP_READ_REQ_LEN,
						  &rr);
		if (!st)
			st = softiw_rdmap_read_req_validate(&s, &rr);
		return st;
	}
	if (h->ddp.qn == SOFTIW_RDMAP_QN_SEND && plen) {
		rx->target = RX_T_RQE;
		rx->mo = h->ddp.mo;
	}
	return SOFTIW_WIRE_OK;
}

/* Header octets wanted so far (from ULPDU_Length on), at most the ULPDU. */
static u32 rx_hdr_want(const struct softiw_qp_rx *rx)
{
	const struct softiw_rdmap_opinfo *oi;
	u32 want;

	if (rx->hdr_got < SOFTIW_MPA_HDR_LEN)
		return SOFTIW_MPA_HDR_LEN;
	if (rx->hdr_got < SOFTIW_MPA_HDR_LEN + 1) {
		want = 1;
	} else if (rx->hdr[2] & SOFTIW_DDP_FLAG_T) {
		want = SOFTIW_DDP_TAGGED_HDR_LEN;
	} else if (rx->hdr_got < SOFTIW_MPA_HDR_LEN + SOFTIW_DDP_UNTAGGED_HDR_LEN) {
		want = SOFTIW_DDP_UNTAGGED_HDR_LEN;
	} else {
		/* hdr[3] is the RDMAP Control octet. */
		u8 op = rx->hdr[3] & SOFTIW_RDMAP_OPCODE_MASK;

		oi = softiw_rdmap_opinfo(op);
		want = SOFTIW_DDP_UNTAGGED_HDR_LEN;
		if (op == SOFTIW_RDMAP_TERMINATE)
			want += SOFTIW_RDMAP_TERM_MAX_LEN;
		else if (oi && !oi->tagged)
			want = oi->hdr_len;
	}
	return SOFTIW_MPA_HDR_LEN + min(rx->ulpdu_len, want);
}

/* The header is complete: decode, validate, set up the payload. */
static void rx_hdr_done(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 got = rx->hdr_got - SOFTIW_MPA_HDR_LEN;
	u32 st;

	rx->left = rx->ulpdu_len - got;
	rx->target = RX_T_SKIP;
	st = softiw_rdmap_hdr_decode(rx->hdr + SOFTIW_MPA_HDR_LEN, got, &rx->h);
	if (!st)
		st = rx_validate(qp, rx->left);
	rx->err = st;
	if (st)
		rx->target = RX_T_SKIP;
	rx->state = rx->left ? RX_PAYLOAD : RX_PAD;
	if (!rx->left)
		rx->left = softiw_mpa_pad(rx->ulpdu_len);
}

/*
 * At the start of an FPDU, the octets of every header but a Terminate's
 * are fetched with one copy (rx_hdr() then takes from them only what
 * rx_hdr_want() asks for, as if it had copied piece by piece).
 */
#define RX_HDR_PEEK	(SOFTIW_MPA_HDR_LEN + SOFTIW_DDP_UNTAGGED_HDR_LEN + \
			 SOFTIW_RDMAP_READ_REQ_LEN)

static u32 rx_hdr(struct softiw_qp *qp, const struct sk_buff *skb, int off,
		  u32 len)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 used = 0, peeked = 0;

	BUILD_BUG_ON(sizeof(rx->hdr) < RX_HDR_PEEK);
	if (!rx->hdr_got) {
		peeked = min_t(u32, len, RX_HDR_PEEK);
		if (softiw_skb_copy(skb, off, rx->hdr, peeked))
			return rx_broken(qp, len);
	}
	for (;;) {
		u32 want = rx_hdr_want(rx), n;

		if (rx->hdr_got == want) {
			rx_hdr_done(qp);
			return used;
		}
		if (used == len)
			return used;
		n = min(len - used, want - rx->hdr_got);
		/* the peek covers [0, peeked) of this FPDU's header */
		if (rx->hdr_got + n > peeked &&
		    skb_copy_bits(skb, off + used, rx->hdr + rx->hdr_got, n))
			return rx_broken(qp, len);
		rx_crc(rx, rx->hdr + rx->hdr_got, n);
		rx->hdr_got += n;
		used += n;
		if (rx->hdr_got == SOFTIW_MPA_HDR_LEN)
			rx->ulpdu_len = softiw_wire_get_be16(rx->hdr);
	}
}

/*
 * Place into the tagged target: the STag is checked again under its lock
 * for each copy, so a revocation that has returned stops placement.
 */
static int rx_place_mem(struct softiw_qp *qp, const struct sk_buff *skb,
			int off, u32 n)
{
	struct softiw_qp_rx *rx = &qp->rx;
	int access = rx->h.opcode == SOFTIW_RDMAP_READ_RESP ?
		     IB_ACCESS_LOCAL_WRITE : IB_ACCESS_REMOTE_WRITE;
	struct softiw_mem *mem = rx_mem(qp, rx->h.ddp.stag);
	int ret;

	if (!mem)
		return -ENOENT;
	ret = softiw_mem_copy_in_skb(mem, qp, rx->h.ddp.stag, access, rx->addr,
				     skb, off, n,
				     rx_crc_live(rx) ? &rx->crc : NULL);
	if (!ret)
		rx->addr += n;
	return ret;
}

/* Place into the receive buffer's SGEs; returns octets placed or -errno. */
static int rx_place_rqe(struct softiw_qp *qp, const struct sk_buff *skb,
			int off, u32 n)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_mem *mem;
	struct softiw_sge *sge;
	u32 i, o = rx->mo;
	int ret;

	for (i = 0; i < rx->rqe->num_sge && i < SOFTIW_MAX_SGE; i++) {
		if (o < rx->rqe->sge[i].length)
			break;
		o -= rx->rqe->sge[i].length;
	}
	/* Validation bounded MO + length by rqe.length. */
	if (i == rx->rqe->num_sge || i == SOFTIW_MAX_SGE)
		return -EINVAL;
	sge = &rx->rqe->sge[i];
	n = min(n, sge->length - o);
	mem = rx_mem(qp, sge->lkey);
	if (!mem)
		return -ENOENT;
	ret = softiw_mem_copy_in_skb(mem, qp, sge->lkey, IB_ACCESS_LOCAL_WRITE,
				     sge->addr + o, skb, off, n,
				     rx_crc_live(rx) ? &rx->crc : NULL);
	if (ret)
		return ret;
	rx->mo += n;
	return n;
}

static u32 rx_payload(struct softiw_qp *qp, const struct sk_buff *skb,
		      int off, u32 len)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 n = min(len, rx->left);
	int ret = 0;

	if (rx->target == RX_T_MEM) {
		ret = rx_place_mem(qp, skb, off, n);
		if (ret) {
			/* revoked since validation: local protection */
			rx_fail(qp, SOFTIW_DDP_ERR_INVALID_STAG,
				IB_WC_WR_FLUSH_ERR);
			return len;
		}
	} else if (rx->target == RX_T_RQE) {
		ret = rx_place_rqe(qp, skb, off, n);
		if (ret < 0) {
			rx_fail(qp, SOFTIW_DDP_ERR_CATASTROPHIC,
				IB_WC_LOC_PROT_ERR);
			return len;
		}
		n = ret;
	} else {
		rx_crc_skb(rx, skb, off, n);
	}
	rx->left -= n;
	if (!rx->left) {
		rx->state = RX_PAD;
		rx->left = softiw_mpa_pad(rx->ulpdu_len);
	}
	return n;
}

/* Queue a validated inbound Read Request for the TX engine. */
static u32 rx_read_req(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_rdmap_read_req rr;
	struct softiw_read_req *slot;
	unsigned long flags;
	u32 limit;

	softiw_rdmap_read_req_decode(rx->hdr + SOFTIW_MPA_HDR_LEN +
				     SOFTIW_DDP_UNTAGGED_HDR_LEN,
				     SOFTIW_RDMAP_READ_REQ_LEN, &rr);
	spin_lock_irqsave(&qp->ird.lock, flags);
	limit = min_t(u32, qp->params.ird, qp->ird.size);
	if (!qp->ird.slots || qp->ird.head - qp->ird.tail >= limit) {
		spin_unlock_irqrestore(&qp->ird.lock, flags);
		return SOFTIW_RDMAP_ERR_STREAM_CATASTROPHIC;
	}
	slot = softiw_wq_slot(&qp->ird, qp->ird.head, sizeof(*slot));
	slot->sink_stag = rr.sink_stag;
	slot->sink_to = rr.sink_to;
	slot->len = rr.size;
	slot->src_stag = rr.src_stag;
	slot->src_to = rr.src_to;
	slot->done = 0;
	qp->ird.head++;
	spin_unlock_irqrestore(&qp->ird.lock, flags);
	rx->msn_expect[SOFTIW_RDMAP_QN_READ_REQ]++;
	softiw_tx_kick(qp);
	return SOFTIW_WIRE_OK;
}

/* The last segment of a Read Response is placed. */
static void rx_read_resp_done(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	unsigned long flags;
	bool kick;

	if (rx->rresp_wqe) {
		struct softiw_wqe *wqe = rx->rresp_wqe;
		u8 status = IB_WC_SUCCESS;

		/*
		 * Read with Local Invalidate: the Data Sink is revoked before
		 * the completion.  Its STag is the sink SGE's: rdma_rw fills
		 * invalidate_rkey before it bumps the MR's key at post time,
		 * so that field may name the previous registration.
		 */
		if (wqe->flags & SOFTIW_WQE_READ_INV) {
			u32 stag = wqe->num_sge ? wqe->sge[0].lkey :
						  wqe->inv_stag;

			if (softiw_mem_invalidate(qp->sdev, stag, qp)) {
				ibdev_dbg(&qp->sdev->ibdev,
					  "qp %u: Read with Invalidate of %#x refused\n",
					  qp->ibqp.qp_num, stag);
				status = IB_WC_LOC_PROT_ERR;
			}
		}
		softiw_sq_done(qp, wqe, status);
	} else {
		WRITE_ONCE(rx->rtr_read, false);
	}
	rx->rresp_wqe = NULL;
	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->ord_outstanding)
		qp->ord_outstanding--;
	/* only a TX engine waiting for the credit (or a fence) needs us */
	kick = qp->ord_wait;
	qp->ord_wait = false;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (kick)
		softiw_tx_kick(qp);
}

/* A Send's last segment is placed: invalidate if asked, complete. */
static u32 rx_send_done(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_rdmap_hdr *h = &rx->h;
	u8 op = h->opcode;
	bool inv = op == SOFTIW_RDMAP_SEND_INV || op == SOFTIW_RDMAP_SEND_SE_INV;
	bool se = op == SOFTIW_RDMAP_SEND_SE || op == SOFTIW_RDMAP_SEND_SE_INV;
	u32 byte_len = h->ddp.mo + (rx->ulpdu_len - SOFTIW_DDP_UNTAGGED_HDR_LEN);

	rx->msn_expect[SOFTIW_RDMAP_QN_SEND]++;
	if (inv && softiw_mem_invalidate(qp->sdev, h->inval_stag, qp))
		return SOFTIW_RDMAP_ERR_INV_OP;
	if (rx->have_rqe) {
		rx->have_rqe = false;
		softiw_rq_done(qp, rx->rqe, IB_WC_SUCCESS, byte_len, se,
			       h->inval_stag, inv);
	}
	return SOFTIW_WIRE_OK;
}

static void rx_terminate(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 off = SOFTIW_MPA_HDR_LEN + SOFTIW_DDP_UNTAGGED_HDR_LEN;
	struct softiw_rdmap_term t = {};
	u32 st = softiw_rdmap_term_parse(rx->hdr + off, rx->hdr_got - off, &t);

	ibdev_dbg(&qp->sdev->ibdev,
		  "qp %u: Terminate received (%#x): layer %u etype %u code %#x\n",
		  qp->ibqp.qp_num, st, t.layer, t.etype, t.ecode);
	softiw_stat_inc(qp->sdev, SOFTIW_STAT_TERM_RECEIVED);
	rx->stopped = true;
	rx_drop_rqe(qp, IB_WC_WR_FLUSH_ERR);
	/*
	 * An RDMAP-layer remote protection error (RFC 5040 section 7.4.1)
	 * is the peer refusing a Read Request's Data Source; Read Requests
	 * are answered in order, so it is the oldest READ still waiting:
	 * that one completes with the error, the rest is flushed.
	 */
	if (st == SOFTIW_WIRE_OK && t.layer == SOFTIW_LAYER_RDMAP &&
	    t.etype == 0x1) {
		struct softiw_wqe *wqe = softiw_sq_oldest_read(qp);

		if (wqe)
			softiw_sq_done(qp, wqe, IB_WC_REM_ACCESS_ERR);
	}
	softiw_qp_error(qp, IB_EVENT_QP_FATAL);
}

/* CRC known: report a pending error, or deliver what the segment means. */
static void rx_fpdu_done(struct softiw_qp *qp)
{
	struct softiw_qp_rx *rx = &qp->rx;
	struct softiw_rdmap_hdr *h = &rx->h;
	u32 st = rx->err;

	if (rx_crc_live(rx) && ~rx->crc != softiw_wire_get_le32(rx->crc_wire))
		st = SOFTIW_MPA_ERR_CRC;
	if (st == SOFTIW_MPA_ERR_CRC)
		softiw_stat_inc(qp->sdev, SOFTIW_STAT_CRC_ERRORS);
	if (!st && rx->rtr_pending) {
		WRITE_ONCE(rx->rtr_pending, false);
		softiw_tx_kick(qp);
		if ((qp->params.rtr & SOFTIW_MPA_RTR_SEND) &&
		    h->opcode == SOFTIW_RDMAP_SEND && !h->ddp.mo &&
		    rx->ulpdu_len == SOFTIW_DDP_UNTAGGED_HDR_LEN) {
			rx->msn_expect[SOFTIW_RDMAP_QN_SEND]++;
			goto next;
		}
	}
	if (!st) {
		switch (h->opcode) {
		case SOFTIW_RDMAP_SEND:
		case SOFTIW_RDMAP_SEND_INV:
		case SOFTIW_RDMAP_SEND_SE:
		case SOFTIW_RDMAP_SEND_SE_INV:
			if (h->ddp.last)
				st = rx_send_done(qp);
			break;
		case SOFTIW_RDMAP_READ_REQ:
			st = rx_read_req(qp);
			break;
		case SOFTIW_RDMAP_READ_RESP:
			if (h->ddp.last)
				rx_read_resp_done(qp);
			break;
		case SOFTIW_RDMAP_TERMINATE:
			rx_terminate(qp);
			return;
		default:
			break;
		}
	}
	if (st) {
		rx_fail(qp, st, st == SOFTIW_DDP_ERR_TOO_LONG ?
			IB_WC_LOC_LEN_ERR : IB_WC_WR_FLUSH_ERR);
		return;
	}
next:
	rx->in_fpdu = false;
	rx->state = RX_HDR;
	rx->hdr_got = 0;
	rx->crc_got = 0;
	rx->crc_checked = false;
	rx->err = 0;
	rx->target = RX_T_SKIP;
}

static u32 rx_trailer(struct softiw_qp *qp, const struct sk_buff *skb,
		      int off, u32 len)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u8 pad[3];
	u32 n;

	if (rx->state == RX_PAD) {
		n = min(len, rx->left);
		if (n && rx_crc_live(rx) && !skb_copy_bits(skb, off, pad, n))
			rx_crc(rx, pad, n);
		rx->left -= n;
		if (!rx->left)
			rx->state = RX_CRC;
		return n;
	}
	n = min_t(u32, len, SOFTIW_MPA_CRC_LEN - rx->crc_got);
	/* only a CRC still to be checked is read (without CRC it is zero) */
	if (rx_crc_live(rx) &&
	    skb_copy_bits(skb, off, rx->crc_wire + rx->crc_got, n))
		return rx_broken(qp, len);
	rx->crc_got += n;
	if (rx->crc_got == SOFTIW_MPA_CRC_LEN)
		rx_fpdu_done(qp);
	return n;
}

/* Octets of a Marker at the current position; checked when complete. */
static u32 rx_marker(struct softiw_qp *qp, const struct sk_buff *skb, int off,
		     u32 len)
{
	struct softiw_qp_rx *rx = &qp->rx;
	u32 n = min_t(u32, len, SOFTIW_MPA_MARKER_LEN - rx->mk_got);

	if (skb_copy_bits(skb, off, rx->mk + rx->mk_got, n))
		return rx_broken(qp, len);
	rx_crc(rx, rx->mk + rx->mk_got, n);
	rx->mk_got += n;
	if (rx->mk_got == SOFTIW_MPA_MARKER_LEN) {
		u32 pos = rx->mpa.pos + n - SOFTIW_MPA_MARKER_LEN;

		rx->mk_got = 0;
		/* FPDUPTR: distance back to the start of this FPDU. */
		if (softiw_wire_get_be16(rx->mk + 2) != pos - rx->fpdu_start)
			rx_fail(qp, SOFTIW_MPA_ERR_MARKER, IB_WC_WR_FLUSH_ERR);
	}
	return n;
}

/*
 * Walk over the stream octets of an FPDU still in the receive queue:
 * Markers (by stream position) go into the CRC as rx_marker() counts
 * them; of the other octets the first two are ULPDU_Length, the last
 * four the CRC field, the rest CRC'd.
 */
struct rx_walk {
	u32 pos;		/* stream position of the next octet */
	u32 plain;		/* non-Marker octets of the FPDU seen */
	u32 fpdu_len;		/* non-Marker octets in all; 0 = not known */
	u32 crc;
	u8 len_wire[SOFTIW_MPA_HDR_LEN];
	u8 crc_wire[SOFTIW_MPA_CRC_LEN];
	bool markers;
};

/* Feed @n octets at @p; returns true once the FPDU is complete. */
static bool rx_walk_feed(struct rx_walk *w, const u8 *p, u32 n)
{
	while (n) {
		u32 k, in = w->pos % SOFTIW_MPA_MARKER_PERIOD;

		if (w->markers && in < SOFTIW_MPA_MARKER_LEN) {
			k = min(n, SOFTIW_MPA_MARKER_LEN - in);
			w->crc = softiw_crc32c(w->crc, p, k);
		} else {
			k = w->markers ? min(n, rx_to_marker(w->pos)) : n;
			if (w->plain < SOFTIW_MPA_HDR_LEN) {
				k = min(k, SOFTIW_MPA_HDR_LEN - w->plain);
				memcpy(w->len_wire + w->plain, p, k);
				w->crc = softiw_crc32c(w->crc, p, k);
			} else if (w->plain < w->fpdu_len - SOFTIW_MPA_CRC_LEN) {
				k = min(k, w->fpdu_len - SOFTIW_MPA_CRC_LEN -
					   w->plain);
				w->crc = softiw_crc32c(w->crc, p, k);
			} else {
				u32 at = w->plain -
					 (w->fpdu_len - SOFTIW_MPA_CRC_LEN);

				k = min(k, w->fpdu_len - w->plain);
				memcpy(w->crc_wire + at, p, k);
			}
			w->plain += k;
			if (w->plain == SOFTIW_MPA_HDR_LEN) {
				u32 ulen = softiw_wire_get_be16(w->len_wire);

				w->fpdu_len = softiw_mpa_fpdu_len(ulen);
			}
			if (w->fpdu_len && w->plain == w->fpdu_len) {
				w->pos += k;
				return true;
			}
		}
		w->pos += k;
		p += k;
		n -= k;
	}
	return false;
}

enum { RX_VERIFY_WAIT, RX_VERIFY_OK, RX_VERIFY_BAD };

/*
 * The FPDU starting at @off of @skb (the head of the receive queue, as
 * tcp_read_sock() hands it to the actor): RX_VERIFY_OK if it is all there
 * and its CRC matches, RX_VERIFY_BAD if it does not, RX_VERIFY_WAIT if
 * part of it has not arrived yet.
 */
static int rx_fpdu_verify(struct softiw_qp *qp, struct sk_buff *skb, u32 off)
{
	struct sock *sk = skb->sk;	/* queued skbs are owned by the socket */
	struct softiw_qp_rx *rx = &qp->rx;
	struct rx_walk w = {
		.pos = qp->rx.mpa.pos,
		.fpdu_len = SOFTIW_MPA_HDR_LEN + SOFTIW_MPA_CRC_LEN,
		.crc = ~0u,
		.markers = qp->rx.mpa.markers,
	};
	u32 seq = TCP_SKB_CB(skb)->seq + off;

	/* Not worth a walk before the octets known to be missing arrive. */
	if (seq == rx->verify_seq &&
	    before(READ_ONCE(tcp_sk(sk)->rcv_nxt), rx->verify_until))
		return RX_VERIFY_WAIT;
	rx->verify_seq = seq;
	skb_queue_walk_from(&sk->sk_receive_queue, skb) {
		u32 start = seq - TCP_SKB_CB(skb)->seq, consumed = 0, n;
		struct skb_seq_state st;
		const u8 *data;
		bool done = false;

		if (start >= skb->len)
			continue;
		skb_prepare_seq_read(skb, start, skb->len, &st);
		while (!done && (n = skb_seq_read(consumed, &data, &st))) {
			u32 before = w.pos;

			done = rx_walk_feed(&w, data, n);
			consumed += w.pos - before;
		}
		if (done) {
			skb_abort_seq_read(&st);
			return ~w.crc == softiw_wire_get_le32(w.crc_wire) ?
			       RX_VERIFY_OK : RX_VERIFY_BAD;
		}
		seq += skb->len - start;
	}
	/* At least the rest of the FPDU proper is missing, Markers aside. */
	rx->verify_until = seq + (w.fpdu_len - w.plain);
	/* Make room for the rest if the queue is filling up. */
	if (!(sk->sk_userlocks & SOCK_RCVBUF_LOCK) &&
	    atomic_read(&sk->sk_rmem_alloc) > READ_ONCE(sk->sk_rcvbuf) / 2) {
		int max = READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_rmem[2]);

		WRITE_ONCE(sk->sk_rcvbuf,
			   min(READ_ONCE(sk->sk_rcvbuf) * 2, max));
	}
	return RX_VERIFY_WAIT;
}

/*
 * CRC32c of @len octets at @off of @skb's linear part and page frags, or
 * false if they are not all there or not readable (a frag list, device
 * memory: rx_fpdu_verify() decides then).
 */
static bool rx_skb_crc(const struct sk_buff *skb, u32 off, u32 len, u32 *crc)
{
	while (len) {
		struct page *page;
		const u8 *p;
		u32 n;

		p = softiw_skb_span(skb, off, &n, &page);
		if (!p)
			return false;
		n = min(n, len);
		*crc = softiw_crc32c(*crc, p, n);
		if (page)
			kunmap_local(p);
		off += n;
		len -= n;
	}
	return true;
}

/*
 * rx_fpdu_verify() for the common case, without walking the queue: no
 * Markers and the whole FPDU within the @avail octets at @off of this
 * skb.  RX_VERIFY_WAIT when that is not so (the walk decides then).
 * Small FPDUs usually lie in one piece of memory (the sender's FPDU in
 * one frag): those are checked in place with one CRC call, the rest
 * piece by piece.
 */
static int rx_fpdu_verify_here(struct softiw_qp *qp, const struct sk_buff *skb,
			       u32 off, u32 avail)
{
	u8 w[SOFTIW_MPA_CRC_LEN];
	u32 fpdu_len, crc = ~0u, room;
	struct page *page;
	const u8 *p;

	if (qp->rx.mpa.markers || avail < SOFTIW_MPA_HDR_LEN)
		return RX_VERIFY_WAIT;
	p = softiw_skb_span(skb, off, &room, &page);
	if (p && room >= SOFTIW_MPA_HDR_LEN) {
		fpdu_len = softiw_mpa_fpdu_len(softiw_wire_get_be16(p));
		if (fpdu_len <= min(room, avail)) {
			crc = softiw_crc32c(crc, p, fpdu_len - SOFTIW_MPA_CRC_LEN);
			crc = ~crc ^ softiw_wire_get_le32(p + fpdu_len -
							  SOFTIW_MPA_CRC_LEN);
			if (page)
				kunmap_local(p);
			return crc ? RX_VERIFY_BAD : RX_VERIFY_OK;
		}
	}
	if (page)
		kunmap_local(p);
	if (skb_copy_bits(skb, off, w, SOFTIW_MPA_HDR_LEN))
		return RX_VERIFY_WAIT;
	fpdu_len = softiw_mpa_fpdu_len(softiw_wire_get_be16(w));
	if (fpdu_len > avail ||
	    !rx_skb_crc(skb, off, fpdu_len - SOFTIW_MPA_CRC_LEN, &crc) ||
	    skb_copy_bits(skb, off + fpdu_len - SOFTIW_MPA_CRC_LEN, w,
			  SOFTIW_MPA_CRC_LEN))
		return RX_VERIFY_WAIT;
	return ~crc == softiw_wire_get_le32(w) ? RX_VERIFY_OK : RX_VERIFY_BAD;
}

static int rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
		    unsigned int offset, size_t len)
{
	struct softiw_qp *qp = desc->arg.data;
	struct softiw_qp_rx *rx = &qp->rx;
	u32 total = min_t(size_t, len, INT_MAX), done = 0;

	while (done < total && !READ_ONCE(rx->stopped)) {
		u32 n = total - done, used;
		int off = offset + done;

		/* An FPDU starts with its first octet, Marker or not. */
		if (!rx->in_fpdu) {
			if (rx->mpa.crc) {
				int v = rx_fpdu_verify_here(qp, skb, off, n);

				if (v == RX_VERIFY_WAIT)
					v = rx_fpdu_verify(qp, skb, off);

				if (v == RX_VERIFY_WAIT) {
					/* leave the rest queued until more comes */
					desc->count = 0;
					rx_mem_put(rx);
					return done;
				}
				if (v == RX_VERIFY_BAD) {
					rx->hdr_got = 0;
					softiw_stat_inc(qp->sdev,
							SOFTIW_STAT_CRC_ERRORS);
					rx_fail(qp, SOFTIW_MPA_ERR_CRC,
						IB_WC_WR_FLUSH_ERR);
					break;
				}
				rx->crc_checked = true;
			}
			rx->in_fpdu = true;
			rx->crc = ~0u;
			rx->fpdu_start = rx->mpa.pos;
		}
		if (rx->mpa.markers) {
			if (rx->mpa.pos % SOFTIW_MPA_MARKER_PERIOD <
			    SOFTIW_MPA_MARKER_LEN) {
				used = rx_marker(qp, skb, off, n);
				rx->mpa.pos += used;
				done += used;
				continue;
			}
			n = min(n, rx_to_marker(rx->mpa.pos));
		}
		if (rx->state == RX_HDR)
			used = rx_hdr(qp, skb, off, n);
		else if (rx->state == RX_PAYLOAD)
			used = rx_payload(qp, skb, off, n);
		else
			used = rx_trailer(qp, skb, off, n);
		rx->mpa.pos += used;
		done += used;
	}
	rx_mem_put(rx);
	/* After an error the rest of the stream is dropped (RFC 5041 7.1). */
	return len;
}

void softiw_rx_data_ready(struct sock *sk)
{
	read_descriptor_t desc = { .count = 1 };
	struct softiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = softiw_cm_sk_qp(sk);
	if (qp && !qp->rx.detached) {
		bool task = in_task();

		if (task)
			WRITE_ONCE(qp->rx.owner, current);
		desc.arg.data = qp;
		tcp_read_sock(sk, &desc, rx_actor);
		if (task)
			WRITE_ONCE(qp->rx.owner, NULL);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}
