// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw shared receive queues: the SRQ verbs and softiw_srq_take() for
 * the RX engine.  An SRQ is a ring of struct softiw_rqe like a QP's RQ,
 * except that an entry leaves the ring as soon as a QP takes it (the
 * taking QP completes it, see softiw_rq_done()).
 *
 * A user SRQ's entries are in the process's ring (uring.h): softiw_srq_take()
 * copies and checks the oldest one when a QP needs it, so its private
 * ring is not used.
 *
 * Locking: srq->rq.lock (irqsave, the RX engine takes entries in
 * softirq) guards the ring indices and @limit.  The limit event is
 * raised from a work item, with no softiw lock held; it fires once per
 * arming (modify_srq with IB_SRQ_LIMIT), when the number of posted
 * entries drops below the limit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/vmalloc.h>

#include "softiw.h"
#include "qp.h"
#include "txrx.h"

/* A user SRQ's ring, and the response that says where to map it. */
static int srq_create_ring(struct softiw_srq *srq, struct ib_udata *udata)
{
	struct softiw_create_srq_resp resp = {};
	int ret;

	ret = softiw_uring_create(udata, &srq->ring, srq->rq.size,
				  sizeof(struct softiw_rqe_abi), &resp.srq_key);
	if (ret)
		return ret;
	resp.srq_size = srq->ring.size;
	resp.srq_len = srq->ring.len;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		softiw_uring_destroy(&srq->ring);
	return ret;
}

/* The limit event, from a work item: no softiw lock is held. */
static void srq_event_work(struct work_struct *work)
{
	struct softiw_srq *srq = container_of(work, struct softiw_srq,
					      event_work);
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int softiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibsrq->device);
	struct softiw_srq *srq = to_softiw_srq(ibsrq);
	struct ib_srq_attr *a = &attr->attr;
	int ret;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > SOFTIW_MAX_SRQ_WR ||
	    a->max_sge > SOFTIW_MAX_SGE)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct softiw_create_srq_resp))
		return -EINVAL;
	srq->uctx = udata ? softiw_uctx(udata) : NULL;
	ret = softiw_rm_charge(sdev, srq->uctx, SOFTIW_RES_SRQ, 1);
	if (ret)
		return ret;
	ret = softiw_wq_init(&srq->rq, a->max_wr, sizeof(struct softiw_rqe),
			     !!udata);
	if (ret)
		goto err_count;
	srq->max_sge = a->max_sge;
	/* srq_limit is meaningless at creation: armed by modify_srq only */
	srq->limit = 0;
	INIT_WORK(&srq->event_work, srq_event_work);
	srq->is_user = !!udata;
	if (udata) {
		ret = srq_create_ring(srq, udata);
		if (ret)
			goto err_slots;
	}
	a->max_wr = srq->rq.max_wr;
	return 0;

err_slots:
	vfree(srq->rq.slots);

err_count:
	softiw_rm_uncharge(sdev, srq->uctx, SOFTIW_RES_SRQ, 1);
	return ret;
}

int softiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct softiw_srq *srq = to_softiw_srq(ibsrq);
	unsigned long flags;
	int ret = 0;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	/* resizing is not supported */
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	spin_lock_irqsave(&srq->rq.lock, flags);
	if (attr->srq_limit > srq->rq.max_wr)
		ret = -EINVAL;
	else
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return ret;
}

int softiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct softiw_srq *srq = to_softiw_srq(ibsrq);

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int softiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct softiw_srq *srq = to_softiw_srq(ibsrq);

	/* ib_core refuses while a QP still uses the SRQ: none can raise */
	cancel_work_sync(&srq->event_work);
	softiw_uring_destroy(&srq->ring);
	vfree(srq->rq.slots);
	softiw_rm_uncharge(to_softiw_dev(ibsrq->device), srq->uctx,
			   SOFTIW_RES_SRQ, 1);
	return 0;
}

int softiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct softiw_srq *srq = to_softiw_srq(ibsrq);
	struct softiw_rqe rqe;
	unsigned long flags;
	int ret = 0;

	/* a user SRQ is posted to through its ring */
	if (srq->ring.ctrl) {
		*bad_wr = wr;
		return wr ? -EINVAL : 0;
	}
	for (; wr; wr = wr->next) {
		ret = softiw_rqe_from_wr(&rqe, wr, srq->max_sge);
		if (ret)
			break;
		spin_lock_irqsave(&srq->rq.lock, flags);
		if (srq->rq.head - srq->rq.tail >= srq->rq.max_wr)
			ret = -ENOMEM;
		else
			memcpy(softiw_wq_slot(&srq->rq, srq->rq.head++,
					      sizeof(rqe)), &rqe, sizeof(rqe));
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		if (ret)
			break;
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * RFC 5042 section 6.4.3.1: one stream must not consume the receive
 * buffers a shared receive queue holds for all of its streams.  The
 * window (softiw_rm_share_take()) opens whenever the SRQ holds at least
 * half its depth; once it has fallen to a quarter, a QP over its share
 * is refused: it gets no buffer, so the RX engine terminates its stream
 * as for any receive without a buffer.  rq.lock held.
 */
static bool srq_flooding(struct softiw_srq *srq, struct softiw_qp *qp,
			 u32 posted)
{
	u32 depth = srq->rq.max_wr;

	return softiw_rm_share_take(&srq->win, &qp->srq_mark,
				    atomic_read(&srq->ibsrq.usecnt), depth,
				    posted >= depth / 2, posted <= depth / 4);
}

static u32 srq_posted(struct softiw_srq *srq)
{
	if (srq->ring.ctrl)
		return softiw_srq_posted(srq);
	return srq->rq.head - srq->rq.tail;
}

bool softiw_srq_take(struct softiw_srq *srq, struct softiw_rqe *rqe,
		     struct softiw_qp *qp)
{
	bool ok = false, limit = false, flood = false;
	u32 posted, qp_takes = 0, win_takes = 0;
	unsigned long flags;
	int bad = 0;

	spin_lock_irqsave(&srq->rq.lock, flags);
	posted = srq_posted(srq);
	if (posted && srq_flooding(srq, qp, posted)) {
		flood = true;
		qp_takes = qp->srq_mark.takes;
		win_takes = srq->win.takes;
	} else if (srq->ring.ctrl) {
		bad = softiw_srq_ingest_take(srq, rqe);
		ok = bad > 0;
	} else if (srq->rq.tail != srq->rq.head) {
		*rqe = *(struct softiw_rqe *)softiw_wq_slot(&srq->rq,
							   srq->rq.tail,
							   sizeof(*rqe));
		srq->rq.tail++;
		ok = true;
	}
	if (ok && srq->limit && srq_posted(srq) < srq->limit) {
		srq->limit = 0;		/* disarmed until re-armed */
		limit = true;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	if (flood) {
		softiw_stat_inc(qp->sdev, SOFTIW_STAT_SRQ_FLOOD);
		ibdev_dbg(&qp->sdev->ibdev,
			  "qp %u: refused an SRQ entry: %u of %u taken since the SRQ was half full\n",
			  qp->ibqp.qp_num, qp_takes, win_takes);
	}
	if (limit)
		softiw_queue_work(&srq->event_work);
	if (bad < 0) {
		/* the taker completes the bad entry and stops */
		softiw_rq_done(qp, rqe, rqe->status, 0, false, 0, false);
		softiw_qp_error(qp, IB_EVENT_QP_FATAL);
	}
	return ok;
}
