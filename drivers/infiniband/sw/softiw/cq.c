// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw completion queues: the CQ verbs and softiw_cq_push() for the
 * engines and for flushing.
 *
 * Locking: cq->lock (irqsave, producers run in softirq) guards the ring
 * indices, @notify and @overflow.  The completion handler and the CQ
 * error event are called after the lock is dropped.  A CQE names its QP
 * by number; poll_cq turns that into the ib_qp through the device's QP
 * table, so no kernel pointer is ever stored in the ring (a user CQ's
 * ring is mapped by the process, see cq.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "softiw.h"
#include "cq.h"
#include "qp.h"
#include "txrx.h"

/*
 * The consumer index.  A process may write anything there: a value not in
 * [head - cqe, head] makes the ring look full, which costs only that
 * process its completions.  Acquire: the process read the entries before
 * it moved the index, so they may be overwritten after this.
 */
static u32 cq_tail(struct softiw_cq *cq)
{
	/* pairs with the provider's release of @tail */
	return cq->ring.ctrl ? smp_load_acquire(&cq->ring.ctrl->tail) :
			       cq->tail;
}

/* The overflow event, from a work item: no softiw lock is held. */
static void cq_event_work(struct work_struct *work)
{
	struct softiw_cq *cq = container_of(work, struct softiw_cq,
					    event_work);
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * The window (softiw_rm_share_take()) opens whenever the CQ is no more
 * than a quarter full; once it is three quarters full, a QP over its
 * share of the receive completions since then is refused.  CQs of fewer
 * than SOFTIW_CQ_SHARE_MIN entries are left alone: a ULP that shares so
 * small a CQ polls it closely, and a few completions are no flood.  A
 * garbage consumer index of a process makes its CQ look full: that costs
 * only the process's own streams.
 */
#define SOFTIW_CQ_SHARE_MIN	16

bool softiw_cq_rq_take(struct softiw_cq *cq, struct softiw_qp *qp)
{
	u32 depth = cq->ibcq.cqe, used, qp_takes, win_takes;
	unsigned long flags;
	bool refused;

	/*
	 * A CQ that receives for one QP has no share to keep: no lock, no
	 * count.  A second QP joining starts the counts afresh, as if a
	 * window had just opened.
	 */
	if (atomic_read(&cq->rq_users) < 2)
		return false;
	spin_lock_irqsave(&cq->lock, flags);
	used = min(cq->head - cq_tail(cq), depth);
	refused = softiw_rm_share_take(&cq->win, &qp->rcq_mark,
				       atomic_read(&cq->rq_users), depth,
				       used <= depth / 4,
				       depth >= SOFTIW_CQ_SHARE_MIN &&
				       used >= depth - depth / 4);
	qp_takes = qp->rcq_mark.takes;
	win_takes = cq->win.takes;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (refused) {
		softiw_stat_inc(qp->sdev, SOFTIW_STAT_CQ_FLOOD);
		ibdev_dbg(&qp->sdev->ibdev,
			  "qp %u: refused a receive: %u of %u receive completions since the CQ was a quarter full\n",
			  qp->ibqp.qp_num, qp_takes, win_takes);
	}
	return refused;
}

int softiw_cq_add(struct softiw_cq *cq, const struct softiw_cqe *cqe,
		  bool solicited, bool *notify)
{
	unsigned long flags;
	bool raise = false;
	int ret = 0;

	*notify = false;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		ret = -ENOSPC;
	} else if (cq->head - cq_tail(cq) >= cq->ibcq.cqe) {
		/* never overwrite an unread entry: drop, report once */
		cq->overflow = true;
		raise = true;
		ret = -ENOSPC;
	} else {
		cq->queue[cq->head & (cq->size - 1)] = *cqe;
		cq->head++;
		if (cq->ring.ctrl)
			/* the entry before the index: pairs with the provider */
			smp_store_release(&cq->ring.ctrl->head, cq->head);
		if (cq->notify == IB_CQ_NEXT_COMP ||
		    (cq->notify == IB_CQ_SOLICITED &&
		     (solicited || cqe->status != IB_WC_SUCCESS))) {
			cq->notify = 0;
			*notify = true;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (raise)
		softiw_queue_work(&cq->event_work);
	return ret;
}

void softiw_cq_notify(struct softiw_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int softiw_cq_push(struct softiw_cq *cq, const struct softiw_cqe *cqe,
		   bool solicited)
{
	bool notify;
	int ret = softiw_cq_add(cq, cqe, solicited, &notify);

	if (notify)
		softiw_cq_notify(cq);
	return ret;
}

/* A user CQ's ring, and the response that says where to map it. */
static int cq_create_ring(struct softiw_cq *cq, struct ib_udata *udata)
{
	struct softiw_create_cq_resp resp = {};
	int ret;

	ret = softiw_uring_create(udata, &cq->ring, cq->size,
				  sizeof(struct softiw_cqe), &resp.cq_key);
	if (ret)
		return ret;
	cq->queue = cq->ring.entries;
	resp.cq_size = cq->ring.size;
	resp.cq_len = cq->ring.len;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		softiw_uring_destroy(&cq->ring);
	return ret;
}

int softiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct uverbs_attr_bundle *attrs)
{
	struct softiw_device *sdev = to_softiw_dev(ibcq->device);
	struct softiw_cq *cq = to_softiw_cq(ibcq);
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > SOFTIW_MAX_CQE)
		return -EINVAL;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct softiw_create_cq_resp))
		return -EINVAL;
	cq->uctx = udata ? softiw_uctx(udata) : NULL;
	cq->size = roundup_pow_of_two(attr->cqe);
	ret = softiw_rm_charge(sdev, cq->uctx, SOFTIW_RES_CQ, 1);
	if (ret)
		return ret;
	ret = softiw_rm_charge(sdev, cq->uctx, SOFTIW_RES_CQE, cq->size);
	if (ret)
		goto err_cq;

	spin_lock_init(&cq->lock);
	if (udata) {
		ret = cq_create_ring(cq, udata);
	} else {
		cq->queue = vcalloc(cq->size, sizeof(*cq->queue));
		ret = cq->queue ? 0 : -ENOMEM;
	}
	if (ret)
		goto err_count;
	cq->head = 0;
	cq->tail = 0;
	cq->notify = 0;
	cq->overflow = false;
	INIT_WORK(&cq->event_work, cq_event_work);
	atomic_set(&cq->rq_users, 0);
	cq->win.gen = 0;
	cq->win.takes = 0;
	ibcq->cqe = attr->cqe;
	return 0;

err_count:
	softiw_rm_uncharge(sdev, cq->uctx, SOFTIW_RES_CQE, cq->size);
err_cq:
	softiw_rm_uncharge(sdev, cq->uctx, SOFTIW_RES_CQ, 1);
	return ret;
}

int softiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct softiw_cq *cq = to_softiw_cq(ibcq);

	/* ib_core refuses while a QP or SRQ still uses the CQ: none adds */
	cancel_work_sync(&cq->event_work);
	if (cq->ring.ctrl)
		softiw_uring_destroy(&cq->ring);
	else
		vfree(cq->queue);
	softiw_rm_uncharge(to_softiw_dev(ibcq->device), cq->uctx,
			   SOFTIW_RES_CQE, cq->size);
	softiw_rm_uncharge(to_softiw_dev(ibcq->device), cq->uctx,
			   SOFTIW_RES_CQ, 1);
	return 0;
}

static void cqe_to_wc(struct softiw_device *sdev, const struct softiw_cqe *e,
		      struct ib_wc *wc)
{
	struct softiw_qp *qp;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->byte_len = e->byte_len;
	if (e->flags & SOFTIW_CQE_F_INVALIDATE) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = e->inv_stag;
	}
	/*
	 * A QP cannot be destroyed while its consumer polls for it, and its
	 * number is reused only after the cyclic allocator wrapped, so the
	 * lookup finds the QP that produced the entry.
	 */
	qp = xa_load(&sdev->qp_xa, e->qp_num);
	wc->qp = qp ? &qp->ibqp : NULL;
}

int softiw_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct softiw_device *sdev = to_softiw_dev(ibcq->device);
	struct softiw_cq *cq = to_softiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

	/* a user CQ is polled in the process, through its ring */
	if (cq->ring.ctrl)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->tail != cq->head) {
		cqe_to_wc(sdev, &cq->queue[cq->tail & (cq->size - 1)], &wc[n]);
		cq->tail++;
		/* an entry whose QP is gone has no one to go to */
		if (wc[n].qp)
			n++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int softiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct softiw_cq *cq = to_softiw_cq(ibcq);
	u32 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP includes solicited ones: never narrow an armed CQ */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->head != cq_tail(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
