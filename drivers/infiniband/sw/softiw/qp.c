// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw queue pairs: the QP verbs, the iWARP QP state machine mapped onto
 * ib_qp_state, the SQ and RQ rings with in-order completion, flushing,
 * and the QP lookup iw_cm and the engines use.
 *
 * State mapping (RFC 5040 section 10 <-> ib):
 *   IDLE      <-> RESET, INIT, RTR (@ib_state remembers which)
 *   RTS       <-> RTS, entered only through the CM (softiw_qp_rts())
 *   CLOSING   <-> SQD: graceful close requested (iw_cm_disconnect)
 *   ERROR     <-> ERR: every outstanding entry completes with a flush
 *                 status, from @flush_work
 * A Terminate (softiw_qp_terminate()) is sent by the TX engine and the
 * QP goes to ERROR at once; TERMINATE is never a resting state here.
 *
 * Rings: indices are free-running u32.  SQ: [tail, tx_next) belong to
 * the TX/RX engines, [tx_next, head) are not started.  RQ: [tail,
 * tx_next) were taken by the RX engine and not completed yet, [tx_next,
 * head) are free buffers.  Once the state is ERROR the flush work owns
 * [tail, head) of both, and softiw_sq_done()/softiw_rq_done() become
 * no-ops, so nothing completes twice.
 *
 * Locking: qp->state_lock, then sq.lock / rq.lock, then cq->lock (inside
 * softiw_cq_add()).  Posts read @state under the queue lock, and
 * softiw_qp_error() writes it before queueing the flush, which takes the
 * queue lock: an entry posted just before the change is flushed, one
 * posted after it sees ERROR and queues the flush itself.  Completion
 * handlers are called with no QP lock held, never from post_send or
 * post_recv; asynchronous events come from @event_work, with no softiw
 * lock held.  The QP table (sdev->qp_xa) is read under RCU alone
 * (the doorbell at every post, the CM, iw_cm's get_qp):
 * destroy_qp waits a grace period after the erase, so a QP found that
 * way is still memory, and a reference is taken only while it is live.
 * Who may bind a QP to a connection is decided here too
 * (softiw_qp_get_bindable(), iw_cm's get_qp).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <rdma/ib_user_verbs.h>

#include "softiw.h"
#include "cm.h"
#include "cq.h"
#include "mem.h"
#include "copy.h"
#include "qp.h"
#include "rdmap.h"
#include "txrx.h"

#define SOFTIW_MAX_QPN		0xffffffu

/*
 * IB_QP_ACCESS_FLAGS a QP takes.  Remote write and read are what it
 * grants its peer (checked on every inbound Write and Read Request, on
 * top of the region's own rights); local write and MW bind mean nothing
 * for a QP and are accepted as other RNICs accept them.
 */
#define QP_ACCESS_SUPPORTED	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_MW_BIND)
/* What rdma_cm's iWARP setup grants (iw_cm_init_qp_attr()). */
#define QP_ACCESS_RDMA_CM	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)

/* ---- lookup and references ---- */

static void qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct softiw_qp, ref)->released);
}

struct softiw_qp *softiw_qp_get_rcu(struct softiw_device *sdev, u32 qpn)
{
	struct softiw_qp *qp;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "QP lookup outside RCU");
	/* destroy_qp waits a grace period after the erase: still memory */
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	return qp;
}

void softiw_qp_ref(struct softiw_qp *qp)
{
	kref_get(&qp->ref);
}

void softiw_qp_put(struct softiw_qp *qp)
{
	kref_put(&qp->ref, qp_release);
}

/*
 * May the calling context bind @qp to a connection?  Called in the
 * context of the connect or accept itself: from the process's own system
 * call for rdma_cm's user ids (ucma), from kernel threads and work items
 * for kernel ULPs.  A user QP belongs to the process that created it
 * (thread groups compare by struct pid, which no PID namespace or reuse
 * can fake); a kernel QP to the kernel, or to a caller that holds
 * CAP_SYS_ADMIN in the initial namespace (a ULP that connects from a
 * mount(2), such as the SMB Direct client, does so with it).
 * security.rst, "Control plane", says why.
 */
static bool qp_caller_may_bind(const struct softiw_qp *qp)
{
	bool kthread = current->flags & PF_KTHREAD;

	if (qp->owner)
		return !kthread && task_tgid(current) == qp->owner;
	return kthread || ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

static struct softiw_qp *qp_find_bindable(struct softiw_device *sdev,
					  int qpn)
{
	struct softiw_qp *qp;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "QP lookup outside RCU");
	qp = qpn >= 0 ? xa_load(&sdev->qp_xa, qpn) : NULL;
	if (qp && qp_caller_may_bind(qp))
		return qp;
	softiw_stat_inc(sdev, SOFTIW_STAT_CM_QP_REFUSED);
	ibdev_dbg(&sdev->ibdev, "QP %d: %s\n", qpn,
		  qp ? "not the caller's to bind" : "no such QP");
	return NULL;
}

struct softiw_qp *softiw_qp_get_bindable(struct softiw_device *sdev, u32 qpn)
{
	struct softiw_qp *qp;

	rcu_read_lock();
	qp = qp_find_bindable(sdev, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/*
 * iw_cm calls this from iw_cm_connect()/iw_cm_accept() under its cm_id
 * spinlock, and takes its reference with iw_add_ref before it lets go of
 * the lock.  That lock is an RCU read-side section (interrupts off, or
 * rcu_read_lock() inside an RT spinlock), and destroy_qp waits a grace
 * period after the erase before it drops the QP's first reference: the
 * QP found here is memory and still referenced when iw_add_ref runs.
 * A QP the caller may not bind is not found: iw_cm then fails the
 * connect or accept with -EINVAL before it touches any QP, exactly as
 * for a number no QP has.
 */
struct ib_qp *softiw_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct softiw_qp *qp;

	rcu_read_lock();
	qp = qp_find_bindable(to_softiw_dev(ibdev), qpn);
	rcu_read_unlock();
	return qp ? &qp->ibqp : NULL;
}

void softiw_iw_add_ref(struct ib_qp *ibqp)
{
	softiw_qp_ref(to_softiw_qp(ibqp));
}

void softiw_iw_rem_ref(struct ib_qp *ibqp)
{
	softiw_qp_put(to_softiw_qp(ibqp));
}

/* ---- completions ---- */

static u8 wqe_wc_opcode(const struct softiw_wqe *wqe)
{
	switch (wqe->opcode) {
	case SOFTIW_WR_WRITE:
		return IB_WC_RDMA_WRITE;
	case SOFTIW_WR_READ:
		return IB_WC_RDMA_READ;
	case SOFTIW_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SOFTIW_WR_REG_MR:
		return IB_WC_REG_MR;
	case SOFTIW_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/* Complete one SQ entry if it must be; caller holds sq.lock. */
static void sq_complete(struct softiw_qp *qp, const struct softiw_wqe *wqe,
			u8 status, bool *notify)
{
	struct softiw_cqe cqe = {
		.wr_id = wqe->wr_id,
		.qp_num = qp->ibqp.qp_num,
		.byte_len = wqe->length,
		.status = status,
		.opcode = wqe_wc_opcode(wqe),
	};
	bool n;

	/* unsignaled successful entries make no CQE; an error always does */
	if (status == IB_WC_SUCCESS && !(wqe->flags & SOFTIW_WQE_SIGNALED))
		return;
	softiw_cq_add(qp->scq, &cqe, false, &n);
	*notify |= n;
}

static void rq_complete(struct softiw_qp *qp, u64 wr_id, u8 status,
			u32 byte_len, bool solicited, u32 inv_stag,
			bool invalidated, bool *notify)
{
	struct softiw_cqe cqe = {
		.wr_id = wr_id,
		.qp_num = qp->ibqp.qp_num,
		.byte_len = byte_len,
		.status = status,
		.opcode = IB_WC_RECV,
	};
	bool n;

	if (invalidated) {
		cqe.flags = SOFTIW_CQE_F_INVALIDATE;
		cqe.inv_stag = inv_stag;
	}
	softiw_cq_add(qp->rcq, &cqe, solicited, &n);
	*notify |= n;
}

static bool qp_in_error(const struct softiw_qp *qp)
{
	return READ_ONCE(qp->state) == SOFTIW_QP_ERROR;
}

static enum ib_qp_state qp_ib_state(struct softiw_qp *qp);

/* Tell a user QP's provider the state it must check posts against. */
static void qp_publish_state(struct softiw_qp *qp)
{
	if (qp->usq.ctrl)
		WRITE_ONCE(qp->usq.ctrl->qp_state, qp_ib_state(qp));
}

/*
 * The rings' consumer indices (sq/rq lock held), published before the
 * completion they stand for: a process that polled the completion can
 * post into the freed slot at once.  The kernel's copy of the entry, not
 * the ring slot, makes the completion.
 */
static void sq_publish_tail(struct softiw_qp *qp)
{
	if (qp->usq.ctrl)
		/* the completion before the index: pairs with the provider */
		smp_store_release(&qp->usq.ctrl->tail, qp->sq.tail);
}

static void rq_publish_tail(struct softiw_qp *qp)
{
	if (qp->urq.ctrl)
		/* the completion before the index: pairs with the provider */
		smp_store_release(&qp->urq.ctrl->tail, qp->rq.tail);
}

/*
 * Take new entries from a user QP's SQ ring (sq.lock held, nothing left
 * in the private SQ).  SOFTIW_SQ_F_ENGINE_ACTIVE tells the provider that
 * the TX engine will come back here, so it need not ring the doorbell;
 * the flag is cleared before a last look at the ring, and the provider
 * stores its index before it reads the flag, so one of the two always
 * sees the other's new entry.
 */
static void sq_refill(struct softiw_qp *qp)
{
	struct softiw_ring_ctrl *c = qp->usq.ctrl;

	if (!c)
		return;
	if (softiw_sq_ingest(qp, false) <= 0) {
		WRITE_ONCE(c->flags, 0);
		smp_mb();	/* flag cleared before the head is read again */
		if (softiw_sq_ingest(qp, false) <= 0)
			return;
	}
	WRITE_ONCE(c->flags, SOFTIW_SQ_F_ENGINE_ACTIVE);
}

/*
 * Flush both queues: done SQ entries with their own status, in order,
 * the rest with IB_WC_WR_FLUSH_ERR.  Runs only in ERROR (see the file
 * comment), so no engine completes anything meanwhile.
 */
static void qp_flush(struct softiw_qp *qp)
{
	struct softiw_wqe *wqe;
	struct softiw_rqe *rqe;
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&qp->sq.lock, flags);
	/* what the process posted to its ring is flushed too */
	softiw_sq_ingest(qp, true);
	while (qp->sq.tail != qp->sq.head) {
		wqe = softiw_wq_slot(&qp->sq, qp->sq.tail++, sizeof(*wqe));
		sq_publish_tail(qp);
		sq_complete(qp, wqe, (wqe->flags & SOFTIW_WQE_DONE) ?
			    wqe->status : IB_WC_WR_FLUSH_ERR, &notify);
	}
	qp->sq.tx_next = qp->sq.head;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (notify)
		softiw_cq_notify(qp->scq);

	if (qp->srq || !qp->rq.slots)
		return;
	notify = false;
	spin_lock_irqsave(&qp->rq.lock, flags);
	softiw_rq_ingest(qp, true);
	while (qp->rq.tail != qp->rq.head) {
		rqe = softiw_wq_slot(&qp->rq, qp->rq.tail++, sizeof(*rqe));
		rq_publish_tail(qp);
		rq_complete(qp, rqe->wr_id, rqe->status ?: IB_WC_WR_FLUSH_ERR,
			    0, false, 0, false, &notify);
	}
	qp->rq.tx_next = qp->rq.head;
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (notify)
		softiw_cq_notify(qp->rcq);
}

static void qp_flush_work(struct work_struct *work)
{
	struct softiw_qp *qp = container_of(work, struct softiw_qp,
					    flush_work);

	if (qp_in_error(qp))
		qp_flush(qp);
}

/*
 * Asynchronous events reach the consumer from this work item, with no
 * softiw lock held, so its handler may post, poll or modify; each
 * pending type is delivered once, in the order of enum ib_event_type
 * (errors before IB_EVENT_QP_LAST_WQE_REACHED).
 */
static void qp_event_work(struct work_struct *work)
{
	struct softiw_qp *qp = container_of(work, struct softiw_qp,
					    event_work);
	unsigned long pending = xchg(&qp->events, 0);
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};
	unsigned int type;

	for_each_set_bit(type, &pending, BITS_PER_LONG) {
		ev.event = type;
		if (qp->ibqp.event_handler)
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

static void qp_event(struct softiw_qp *qp, enum ib_event_type type)
{
	set_bit(type, &qp->events);
	softiw_queue_work(&qp->event_work);
}

/* ---- state changes ---- */

/*
 * Enter ERROR.  @abortive resets the stream; otherwise the CM closes it
 * gracefully, which lets a queued Terminate go out first.
 */
static void qp_enter_error(struct softiw_qp *qp, int event, bool abortive)
{
	enum softiw_qp_state old;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	WRITE_ONCE(qp->state, SOFTIW_QP_ERROR);
	qp_publish_state(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (old == SOFTIW_QP_ERROR)
		return;

	softiw_cm_qp_close(qp, abortive);
	softiw_queue_work(&qp->flush_work);
	if (event >= 0)
		qp_event(qp, event);
	/* the SRQ gives this QP nothing more: ib_drain_rq() waits for this */
	if (qp->srq)
		qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

void softiw_qp_error(struct softiw_qp *qp, int event)
{
	qp_enter_error(qp, event, true);
}

void softiw_qp_terminate(struct softiw_qp *qp, u32 err, const u8 *hdr,
			 u32 hdr_len)
{
	struct softiw_rdmap_term t;
	enum softiw_qp_state state = READ_ONCE(qp->state);

	/* one Terminate per stream, and only on an attached one */
	if (state != SOFTIW_QP_RTS && state != SOFTIW_QP_CLOSING)
		return;
	softiw_rdmap_term_for_error(err, hdr, hdr_len, &t);
	softiw_stat_term(qp->sdev, t.layer, t.etype);
	ibdev_dbg(&qp->sdev->ibdev,
		  "qp %u: error %#x: Terminate layer %u etype %u code %#x\n",
		  qp->ibqp.qp_num, err, t.layer, t.etype, t.ecode);
	softiw_tx_terminate(qp, &t);
	qp_enter_error(qp, IB_EVENT_QP_FATAL, false);
}

void softiw_qp_stream_closed(struct softiw_qp *qp, bool reset)
{
	enum softiw_qp_state state = READ_ONCE(qp->state);

	ibdev_dbg(&qp->sdev->ibdev, "qp %u: stream %s in state %d\n",
		  qp->ibqp.qp_num, reset ? "reset" : "closed", state);
	/*
	 * A reset in RTS is a fatal error of the stream.  A FIN ends it
	 * normally (the CM reports the disconnect); what is still queued is
	 * flushed either way.
	 */
	qp_enter_error(qp, reset && state == SOFTIW_QP_RTS ?
		       IB_EVENT_QP_FATAL : -1, reset);
}

int softiw_qp_rts(struct softiw_qp *qp, const struct softiw_conn_params *p,
		  struct socket *sock)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != SOFTIW_QP_IDLE) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return -EINVAL;
	}
	qp->params = *p;
	/*
	 * rdma_cm gives a QP it sets up remote write and read (iw_cm's INIT
	 * attributes), but a process's connecting QP only ever gets its
	 * INIT with none (librdmacm asks before the connect exists): a QP
	 * that grants nothing at all gets those rights here.  One that
	 * grants anything keeps exactly that, and a connected QP takes
	 * whatever IB_QP_ACCESS_FLAGS its consumer sets from now on.
	 */
	if (!qp->access)
		WRITE_ONCE(qp->access, QP_ACCESS_RDMA_CM);
	/* RTS before attach: the first FPDU may arrive as soon as it runs */
	WRITE_ONCE(qp->state, SOFTIW_QP_RTS);
	qp_publish_state(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	ret = softiw_txrx_attach(qp, sock);
	if (ret) {
		spin_lock_irqsave(&qp->state_lock, flags);
		if (qp->state == SOFTIW_QP_RTS)
			WRITE_ONCE(qp->state, SOFTIW_QP_IDLE);
		qp_publish_state(qp);
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return ret;
	}
	/* sends posted before the CM finished wait for this */
	softiw_tx_kick(qp);
	return 0;
}

/* ---- work queue helpers for the engines ---- */

/*
 * The SQ ring went bad (a bad entry, or an index out of range) and every
 * entry the engines took before that point has completed: the QP goes to
 * ERROR now, so the good entries posted before the bad one are carried
 * out, not flushed (sq.lock held).
 */
static bool sq_ring_failed(struct softiw_qp *qp)
{
	return qp->ring_error && qp->sq.tail == qp->sq.tx_next;
}

bool softiw_sq_maybe_more(struct softiw_qp *qp)
{
	if (READ_ONCE(qp->sq.tx_next) != READ_ONCE(qp->sq.head))
		return true;
	return qp->usq.ctrl &&
	       READ_ONCE(qp->usq.ctrl->head) != READ_ONCE(qp->sq.head);
}

/*
 * The engine's last look before it idles, without the queue lock when
 * the ring is sound: nothing posted and nothing in the ring, so the flag
 * goes and the ring is read once more (sq_refill() does the same under
 * the lock).  Only the TX engine writes the flag and takes from the ring
 * while the QP is not in ERROR, and it is the caller.  True if idle.
 */
static bool sq_idle_unlocked(struct softiw_qp *qp)
{
	struct softiw_ring_ctrl *c = qp->usq.ctrl;
	u32 head = READ_ONCE(qp->sq.head);

	if (!c || READ_ONCE(qp->ring_error) ||
	    READ_ONCE(qp->sq.tx_next) != head || READ_ONCE(c->head) != head)
		return false;
	WRITE_ONCE(c->flags, 0);
	smp_mb();	/* flag cleared before the head is read again */
	return READ_ONCE(c->head) == head;
}

struct softiw_wqe *softiw_sq_next(struct softiw_qp *qp)
{
	struct softiw_wqe *wqe = NULL;
	enum softiw_qp_state state;
	bool ring_error = false;
	unsigned long flags;

	if (sq_idle_unlocked(qp))
		return NULL;

	spin_lock_irqsave(&qp->sq.lock, flags);
	state = READ_ONCE(qp->state);
	if (state == SOFTIW_QP_RTS || state == SOFTIW_QP_CLOSING) {
		if (qp->sq.tx_next == qp->sq.head)
			sq_refill(qp);
		if (qp->sq.tx_next != qp->sq.head)
			wqe = softiw_wq_slot(&qp->sq, qp->sq.tx_next,
					     sizeof(*wqe));
		/* a bad ring entry is done already: the flush reports it */
		if (wqe && (wqe->flags & SOFTIW_WQE_DONE))
			wqe = NULL;
		if (wqe)
			qp->sq.tx_next++;
		else
			ring_error = sq_ring_failed(qp);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (ring_error)
		softiw_qp_error(qp, IB_EVENT_QP_FATAL);
	return wqe;
}

void softiw_sq_done(struct softiw_qp *qp, struct softiw_wqe *wqe, u8 status)
{
	bool notify = false, ring_error;
	struct softiw_wqe *w;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp_in_error(qp))
		goto out;		/* the flush completes it */
	wqe->status = status;
	wqe->flags |= SOFTIW_WQE_DONE;
	while (qp->sq.tail != qp->sq.tx_next) {
		w = softiw_wq_slot(&qp->sq, qp->sq.tail, sizeof(*w));
		if (!(w->flags & SOFTIW_WQE_DONE))
			break;
		qp->sq.tail++;
		sq_publish_tail(qp);
		sq_complete(qp, w, w->status, &notify);
	}
	ring_error = sq_ring_failed(qp);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (notify)
		softiw_cq_notify(qp->scq);
	if (ring_error)
		softiw_qp_error(qp, IB_EVENT_QP_FATAL);
	return;
out:
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

struct softiw_wqe *softiw_sq_oldest_read(struct softiw_qp *qp)
{
	struct softiw_wqe *w, *found = NULL;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&qp->sq.lock, flags);
	for (i = qp->sq.tail; i != qp->sq.tx_next; i++) {
		w = softiw_wq_slot(&qp->sq, i, sizeof(*w));
		if (w->opcode == SOFTIW_WR_READ &&
		    !(w->flags & SOFTIW_WQE_DONE)) {
			found = w;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return found;
}

bool softiw_rq_take(struct softiw_qp *qp, struct softiw_rqe *rqe)
{
	struct softiw_rqe *slot = NULL;
	bool ok = false, ring_error = false;
	unsigned long flags;

	if (softiw_cq_rq_take(qp->rcq, qp))
		return false;
	if (qp->srq)
		return softiw_srq_take(qp->srq, rqe, qp);
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (!qp_in_error(qp)) {
		if (qp->rq.tx_next == qp->rq.head)
			softiw_rq_ingest(qp, false);
		if (qp->rq.tx_next != qp->rq.head)
			slot = softiw_wq_slot(&qp->rq, qp->rq.tx_next,
					      sizeof(*slot));
		if (slot && !slot->status) {
			*rqe = *slot;
			qp->rq.tx_next++;
			ok = true;
		} else {
			ring_error = qp->ring_error;
		}
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (ring_error)
		softiw_qp_error(qp, IB_EVENT_QP_FATAL);
	return ok;
}

/*
 * Receives complete in the order they were taken (RFC 5041 delivers
 * untagged messages in MSN order), so the oldest taken entry is the one
 * completing.  A taken SRQ entry left the SRQ, so it always completes
 * here, with a flush status once the QP is in ERROR.
 */
void softiw_rq_done(struct softiw_qp *qp, const struct softiw_rqe *rqe,
		    u8 status, u32 byte_len, bool solicited, u32 inv_stag,
		    bool invalidated)
{
	unsigned long flags;
	bool notify = false;

	if (qp->srq) {
		if (qp_in_error(qp) && status == IB_WC_SUCCESS)
			status = IB_WC_WR_FLUSH_ERR;
		rq_complete(qp, rqe->wr_id, status, byte_len, solicited,
			    inv_stag, invalidated, &notify);
		if (notify)
			softiw_cq_notify(qp->rcq);
		return;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (!qp_in_error(qp) && qp->rq.tail != qp->rq.tx_next) {
		qp->rq.tail++;
		rq_publish_tail(qp);
		rq_complete(qp, rqe->wr_id, status, byte_len, solicited,
			    inv_stag, invalidated, &notify);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (notify)
		softiw_cq_notify(qp->rcq);
}

/* ---- the QP verbs ---- */

int softiw_wq_init(struct softiw_wq *wq, u32 depth, size_t entry, bool user)
{
	spin_lock_init(&wq->lock);
	wq->size = roundup_pow_of_two(max(depth, 1u));
	wq->max_wr = wq->size;
	wq->head = 0;
	wq->tx_next = 0;
	wq->tail = 0;
	/* a process's queues count against its memory cgroup */
	wq->slots = __vmalloc(array_size(wq->size, entry),
			      (user ? SOFTIW_GFP_USER : GFP_KERNEL) | __GFP_ZERO);
	return wq->slots ? 0 : -ENOMEM;
}

/*
 * A user QP's rings, sized like its private SQ and RQ, and the response
 * that tells the provider where to map them.
 */
static int qp_create_rings(struct softiw_qp *qp, struct ib_udata *udata)
{
	struct softiw_create_qp_resp resp = {};
	int ret;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	ret = softiw_uring_create(udata, &qp->usq, qp->sq.size,
				  sizeof(struct softiw_sqe), &resp.sq_key);
	if (ret)
		return ret;
	resp.sq_size = qp->usq.size;
	resp.sq_len = qp->usq.len;
	if (!qp->srq) {
		ret = softiw_uring_create(udata, &qp->urq, qp->rq.size,
					  sizeof(struct softiw_rqe_abi),
					  &resp.rq_key);
		if (ret)
			goto err;
		resp.rq_size = qp->urq.size;
		resp.rq_len = qp->urq.len;
	}
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (!ret)
		return 0;
err:
	softiw_uring_destroy(&qp->urq);
	softiw_uring_destroy(&qp->usq);
	return ret;
}

static int qp_check_caps(const struct ib_qp_init_attr *attr)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (cap->max_send_wr > SOFTIW_MAX_QP_WR ||
	    cap->max_send_sge > SOFTIW_MAX_SGE ||
	    cap->max_inline_data > SOFTIW_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && (cap->max_recv_wr > SOFTIW_MAX_QP_WR ||
			   cap->max_recv_sge > SOFTIW_MAX_SGE))
		return -EINVAL;
	return 0;
}

int softiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibqp->device);
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	u32 qpn;
	int ret;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	ret = qp_check_caps(attr);
	if (ret)
		return ret;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	qp->uctx = udata ? softiw_uctx(udata) : NULL;
	ret = softiw_rm_charge(sdev, qp->uctx, SOFTIW_RES_QP, 1);
	if (ret)
		return ret;

	qp->sdev = sdev;
	kref_init(&qp->ref);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	qp->state = SOFTIW_QP_IDLE;
	qp->ib_state = IB_QPS_RESET;
	qp->pd = to_softiw_pd(ibqp->pd);
	qp->scq = to_softiw_cq(attr->send_cq);
	qp->rcq = to_softiw_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_softiw_srq(attr->srq) : NULL;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->is_user = !!udata;
	/* the process whose uverbs call this is: it alone may connect it */
	if (udata)
		qp->owner = get_task_pid(current, PIDTYPE_TGID);
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->max_inline = attr->cap.max_inline_data;
	INIT_WORK(&qp->flush_work, qp_flush_work);
	INIT_WORK(&qp->event_work, qp_event_work);
	softiw_txrx_qp_init(qp);

	ret = softiw_wq_init(&qp->sq, attr->cap.max_send_wr,
			     sizeof(struct softiw_wqe), qp->is_user);
	if (ret)
		goto err_count;
	if (!qp->srq) {
		ret = softiw_wq_init(&qp->rq, attr->cap.max_recv_wr,
				     sizeof(struct softiw_rqe), qp->is_user);
		if (ret)
			goto err_sq;
	}
	ret = softiw_wq_init(&qp->ird, SOFTIW_MAX_IRD,
			     sizeof(struct softiw_read_req), qp->is_user);
	if (ret)
		goto err_rq;
	if (udata) {
		ret = qp_create_rings(qp, udata);
		if (ret)
			goto err_ird;
	}

	/* cyclic: a just-freed QP number is not handed out again soon */
	ret = xa_alloc_cyclic_irq(&sdev->qp_xa, &qpn, qp,
				  XA_LIMIT(2, SOFTIW_MAX_QPN), &sdev->qp_next,
				  GFP_KERNEL);
	if (ret < 0)
		goto err_ird;
	ibqp->qp_num = qpn;
	qp->serial = atomic64_inc_return(&sdev->qp_serial);
	atomic_inc(&qp->rcq->rq_users);

	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.max_wr;
	return 0;

err_ird:
	softiw_uring_destroy(&qp->urq);
	softiw_uring_destroy(&qp->usq);
	vfree(qp->ird.slots);
err_rq:
	vfree(qp->rq.slots);
err_sq:
	vfree(qp->sq.slots);
err_count:
	softiw_txrx_qp_destroy(qp);
	put_pid(qp->owner);
	softiw_rm_uncharge(sdev, qp->uctx, SOFTIW_RES_QP, 1);
	return ret;
}

int softiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	struct softiw_device *sdev = qp->sdev;
	unsigned long flags;

	/* nothing completes any more: the consumer is done with the QP */
	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, SOFTIW_QP_ERROR);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/* the CM delivers CLOSE, so iw_cm drops its reference */
	softiw_cm_qp_unbind(qp);
	softiw_txrx_detach(qp);
	xa_erase_irq(&sdev->qp_xa, ibqp->qp_num);
	/* softiw_qp_get_rcu() may have found it just before: let it finish */
	synchronize_rcu();
	atomic_dec(&qp->rcq->rq_users);

	softiw_qp_put(qp);
	wait_for_completion(&qp->released);
	/*
	 * No reference is left, so no one raises an event any more (one
	 * not delivered yet is dropped) ...
	 */
	cancel_work_sync(&qp->event_work);
	/* ... nor queues the flush, which a handler's post could have done */
	cancel_work_sync(&qp->flush_work);
	/* ... nor kicks the engine */
	softiw_txrx_qp_destroy(qp);

	softiw_uring_destroy(&qp->urq);
	softiw_uring_destroy(&qp->usq);
	vfree(qp->ird.slots);
	vfree(qp->rq.slots);
	vfree(qp->sq.slots);
	put_pid(qp->owner);
	softiw_rm_uncharge(sdev, qp->uctx, SOFTIW_RES_QP, 1);
	return 0;
}

static enum ib_qp_state qp_ib_state(struct softiw_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case SOFTIW_QP_IDLE:
		return qp->ib_state;
	case SOFTIW_QP_RTS:
		return IB_QPS_RTS;
	case SOFTIW_QP_CLOSING:
		return IB_QPS_SQD;
	case SOFTIW_QP_TERMINATE:
		return IB_QPS_SQE;
	default:
		return IB_QPS_ERR;
	}
}

/*
 * ERROR -> RESET: everything was flushed; make the QP usable again.  The
 * engines are detached first (idempotent), so nothing else touches the
 * rings.
 */
static int qp_reset(struct softiw_qp *qp)
{
	unsigned long flags;

	/*
	 * One reset at a time: uverbs lets two threads modify a QP at once,
	 * and the QP stays in ERROR (so nothing binds it) until the reset
	 * that claimed it is done.
	 */
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != SOFTIW_QP_ERROR || qp->resetting) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return -EINVAL;
	}
	qp->resetting = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/* the old stream's endpoint lets go first: the QP may connect again */
	softiw_cm_qp_unbind(qp);
	softiw_txrx_detach(qp);
	flush_work(&qp->flush_work);
	qp_flush(qp);
	/* the old stream's events not delivered yet are not the new one's */
	xchg(&qp->events, 0);
	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, SOFTIW_QP_IDLE);
	qp->ib_state = IB_QPS_RESET;
	qp->ord_outstanding = 0;
	qp->ord_wait = false;
	qp->ird.head = 0;
	qp->ird.tail = 0;
	qp->resetting = false;
	/* a new stream starts with an idle engine: posts ring the doorbell */
	if (qp->usq.ctrl)
		WRITE_ONCE(qp->usq.ctrl->flags, 0);
	qp_publish_state(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return 0;
}

static int qp_modify_state(struct softiw_qp *qp, enum ib_qp_state want)
{
	enum softiw_qp_state state;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	switch (want) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		if (state == SOFTIW_QP_IDLE)
			qp->ib_state = want;
		else if (state != SOFTIW_QP_ERROR || want != IB_QPS_RESET)
			ret = -EINVAL;
		break;
	case IB_QPS_RTS:
		/* only the CM enters RTS (softiw_qp_rts()) */
		if (state != SOFTIW_QP_RTS)
			ret = -EINVAL;
		break;
	case IB_QPS_SQD:
		if (state == SOFTIW_QP_RTS)
			WRITE_ONCE(qp->state, SOFTIW_QP_CLOSING);
		else if (state == SOFTIW_QP_IDLE)
			ret = -EINVAL;
		break;
	case IB_QPS_ERR:
		break;
	default:
		ret = -EINVAL;
		break;
	}
	qp_publish_state(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (ret)
		return ret;

	if (want == IB_QPS_SQD && state == SOFTIW_QP_RTS) {
		softiw_cm_qp_close(qp, false);
	} else if (want == IB_QPS_ERR) {
		qp_enter_error(qp, -1, true);
		/* the consumer sees the flushed entries when this returns */
		flush_work(&qp->flush_work);
	} else if (want == IB_QPS_RESET && state == SOFTIW_QP_ERROR) {
		return qp_reset(qp);
	}
	return 0;
}

int softiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SOFTIW_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SOFTIW_MAX_IRD)
		return -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != qp_ib_state(qp))
		return -EINVAL;
	/* remote atomics (and anything unknown) until they are implemented */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~QP_ACCESS_SUPPORTED))
		return -EOPNOTSUPP;

	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord_wish = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird_wish = attr->max_dest_rd_atomic;
	if (mask & IB_QP_ACCESS_FLAGS)
		WRITE_ONCE(qp->access, attr->qp_access_flags);
	/* other attributes (port, pkey, paths) mean nothing to iWARP */
	if (mask & IB_QP_STATE)
		return qp_modify_state(qp, attr->qp_state);
	return 0;
}

int softiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init_attr)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	bool rts = READ_ONCE(qp->state) != SOFTIW_QP_IDLE;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	attr->qp_state = qp_ib_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = READ_ONCE(qp->access);
	attr->path_mtu = IB_MTU_4096;
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.max_wr;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->max_rd_atomic = rts ? qp->params.ord : qp->ord_wish;
	attr->max_dest_rd_atomic = rts ? qp->params.ird : qp->ird_wish;
	attr->port_num = 1;

	init_attr->qp_type = IB_QPT_RC;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
						  IB_SIGNAL_REQ_WR;
	init_attr->port_num = 1;
	return 0;
}

/* ---- posting ---- */

/* Copy and check the SGEs of a WR; the total must fit a message. */
static int sges_copy(struct softiw_sge *dst, const struct ib_sge *src,
		     int num_sge, u32 max_sge, u32 *total)
{
	u64 sum = 0;
	int i;

	if (num_sge < 0 || num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		sum += src[i].length;
	}
	if (sum > SOFTIW_MAX_MSG_SIZE)
		return -EINVAL;
	*total = sum;
	return 0;
}

/*
 * Inline data is copied now, so the caller may reuse its buffers at once.
 * Only kernel QPs post work requests (user QPs post through their rings,
 * uring.c), so the SGEs are kernel addresses.
 */
static int wqe_copy_inline(struct softiw_qp *qp, struct softiw_wqe *wqe,
			   const struct ib_send_wr *wr)
{
	u32 off = 0;
	int i;

	if (wqe->length > qp->max_inline)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		softiw_copy(wqe->inline_data + off,
			    (void *)(uintptr_t)sge->addr, sge->length);
		off += sge->length;
	}
	wqe->num_sge = 0;
	wqe->flags |= SOFTIW_WQE_INLINE;
	return 0;
}

static int wqe_from_wr(struct softiw_qp *qp, struct softiw_wqe *wqe,
		       const struct ib_send_wr *wr)
{
	u32 max_sge = qp->max_send_sge;
	int ret;

	memset(wqe, 0, offsetof(struct softiw_wqe, inline_data));
	wqe->wr_id = wr->wr_id;
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sq_sig_all)
		wqe->flags |= SOFTIW_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->flags |= SOFTIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->flags |= SOFTIW_WQE_FENCE;

	switch (wr->opcode) {
	case IB_WR_SEND:
		wqe->opcode = SOFTIW_WR_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->opcode = SOFTIW_WR_SEND_INV;
		wqe->inv_stag = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
		wqe->opcode = SOFTIW_WR_WRITE;
		wqe->rkey = rdma_wr(wr)->rkey;
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_RDMA_READ_WITH_INV:
		/* iWARP rdma_rw: invalidate the sink locally once read */
		wqe->flags |= SOFTIW_WQE_READ_INV;
		wqe->inv_stag = wr->ex.invalidate_rkey;
		fallthrough;
	case IB_WR_RDMA_READ:
		/* a Read Response places into one Data Sink STag */
		wqe->opcode = SOFTIW_WR_READ;
		wqe->rkey = rdma_wr(wr)->rkey;
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		max_sge = min_t(u32, max_sge, SOFTIW_MAX_SGE_RD);
		if (wr->send_flags & IB_SEND_INLINE)
			return -EINVAL;
		break;
	case IB_WR_LOCAL_INV:
		wqe->opcode = SOFTIW_WR_LOCAL_INV;
		wqe->inv_stag = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		/* kernel ULPs only: uverbs never passes it */
		if (qp->is_user || !reg_wr(wr)->mr ||
		    reg_wr(wr)->mr->device != qp->ibqp.device)
			return -EINVAL;
		ret = softiw_mem_access_check(reg_wr(wr)->access);
		if (ret)
			return ret;
		wqe->opcode = SOFTIW_WR_REG_MR;
		wqe->reg_mr = reg_wr(wr)->mr;
		wqe->reg_key = reg_wr(wr)->key;
		wqe->reg_access = reg_wr(wr)->access;
		return 0;
	default:
		return -EINVAL;
	}

	ret = sges_copy(wqe->sge, wr->sg_list, wr->num_sge, max_sge,
			&wqe->length);
	if (ret)
		return ret;
	wqe->num_sge = wr->num_sge;
	if ((wr->send_flags & IB_SEND_INLINE) && wqe->length)
		return wqe_copy_inline(qp, wqe, wr);
	return 0;
}

/* Append @wqe; -ENOMEM when full.  Returns the QP state seen. */
static int sq_append(struct softiw_qp *qp, const struct softiw_wqe *wqe,
		     enum softiw_qp_state *state)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	*state = READ_ONCE(qp->state);
	if (*state == SOFTIW_QP_IDLE || *state == SOFTIW_QP_CLOSING)
		ret = -EINVAL;
	else if (qp->sq.head - qp->sq.tail >= qp->sq.max_wr)
		ret = -ENOMEM;
	else
		memcpy(softiw_wq_slot(&qp->sq, qp->sq.head++, sizeof(*wqe)),
		       wqe, sizeof(*wqe));
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return ret;
}

/*
 * Work requests are accepted in RTS (and in ERROR, where they complete
 * with a flush status from the flush work, never from inside this call).
 * Before the CM has attached a stream a send has nowhere to go.
 */
/*
 * A user QP posts through its rings; an empty POST_SEND is its doorbell
 * (the TX engine takes the new entries) and an empty POST_RECV asks for
 * the flush of a QP in ERROR.  Work request lists are refused.
 */
static int qp_doorbell(struct softiw_qp *qp, bool send)
{
	enum softiw_qp_state state = READ_ONCE(qp->state);

	if (send && state == SOFTIW_QP_RTS)
		softiw_tx_kick(qp);
	else if (state == SOFTIW_QP_ERROR)
		softiw_queue_work(&qp->flush_work);
	return 0;
}

void softiw_qp_sq_doorbell(struct softiw_qp *qp)
{
	qp_doorbell(qp, true);
}

int softiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	enum softiw_qp_state state = READ_ONCE(qp->state);
	struct softiw_wqe wqe;
	bool posted = false;
	int ret = 0;

	if (qp->usq.ctrl) {
		if (!wr)
			return qp_doorbell(qp, true);
		*bad_wr = wr;
		return -EINVAL;
	}

	for (; wr; wr = wr->next) {
		ret = wqe_from_wr(qp, &wqe, wr);
		if (!ret)
			ret = sq_append(qp, &wqe, &state);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		posted = true;
	}
	if (posted) {
		if (state == SOFTIW_QP_RTS)
			softiw_tx_kick(qp);
		else if (state == SOFTIW_QP_ERROR)
			softiw_queue_work(&qp->flush_work);
	}
	return ret;
}

int softiw_rqe_from_wr(struct softiw_rqe *rqe, const struct ib_recv_wr *wr,
		       u32 max_sge)
{
	int ret;

	rqe->wr_id = wr->wr_id;
	rqe->status = 0;
	ret = sges_copy(rqe->sge, wr->sg_list, wr->num_sge, max_sge,
			&rqe->length);
	if (ret)
		return ret;
	rqe->num_sge = wr->num_sge;
	return 0;
}

int softiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	struct softiw_rqe rqe;
	bool flush = false;
	unsigned long flags;
	int ret = 0;

	if (qp->usq.ctrl && !wr)
		return qp_doorbell(qp, false);
	if (qp->srq || qp->usq.ctrl) {
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		ret = softiw_rqe_from_wr(&rqe, wr, qp->max_recv_sge);
		if (ret)
			break;
		spin_lock_irqsave(&qp->rq.lock, flags);
		if (READ_ONCE(qp->state) == SOFTIW_QP_IDLE &&
		    qp->ib_state == IB_QPS_RESET)
			ret = -EINVAL;		/* receives start in INIT */
		else if (qp->rq.head - qp->rq.tail >= qp->rq.max_wr)
			ret = -ENOMEM;
		else
			memcpy(softiw_wq_slot(&qp->rq, qp->rq.head++,
					      sizeof(rqe)), &rqe, sizeof(rqe));
		flush |= READ_ONCE(qp->state) == SOFTIW_QP_ERROR;
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		if (ret)
			break;
	}
	if (ret)
		*bad_wr = wr;
	if (flush)
		softiw_queue_work(&qp->flush_work);
	return ret;
}
