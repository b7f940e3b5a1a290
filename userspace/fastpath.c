// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw provider fast path: ibv_post_send, ibv_post_recv,
 * ibv_post_srq_recv and ibv_poll_cq on the rings shared with the kernel
 * (include/uapi/rdma/softiw-abi.h), without a system call except the SQ
 * doorbell when the kernel's TX engine is idle.
 *
 * Who writes what: we write SQ, RQ and SRQ entries and their @head, and
 * a CQ's @tail; the kernel writes the rest.  The kernel copies and
 * checks every entry it takes, so nothing here is trusted by it: these
 * checks only give the application the errors it expects at post time.
 *
 * Ordering: an entry is written before its ring's @head (release); a
 * consumer index is read (acquire) before the slots it frees are reused.
 * After publishing SQ entries we read the kernel's ENGINE_ACTIVE flag and
 * QP state behind a full fence, which pairs with the fence the kernel
 * puts between clearing the flag and its last look at our @head.
 *
 * Locking: one spinlock per ring (the CQ's for pollers, the SQ's and
 * RQ's for posters, the SRQ's); no lock is held across a system call
 * other than the doorbell.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/mman.h>

#include "softiw.h"

#define load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define full_fence()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

int softiw_uring_map(struct ibv_context *ibctx, struct softiw_uring *r,
		     uint64_t key, uint32_t size, uint32_t len, size_t esize)
{
	void *p;

	/* the kernel's sizes must describe a ring that fits its mapping */
	if (!size || (size & (size - 1)) ||
	    len < SOFTIW_RING_ENTRIES_OFF + (uint64_t)size * esize)
		return EPROTO;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ibctx->cmd_fd, key);
	if (p == MAP_FAILED)
		return errno;
	r->ctrl = p;
	r->entries = (char *)p + SOFTIW_RING_ENTRIES_OFF;
	r->size = size;
	r->len = len;
	r->head = r->ctrl->head;
	return 0;
}

void softiw_uring_unmap(struct softiw_uring *r)
{
	if (r->ctrl)
		munmap(r->ctrl, r->len);
	r->ctrl = NULL;
}

/* ---- CQ ---- */

static void wc_from_cqe(struct ibv_wc *wc, const struct softiw_cqe *e)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->byte_len = e->byte_len;
	wc->qp_num = e->qp_num;
	if (e->flags & SOFTIW_CQE_F_INVALIDATE) {
		wc->wc_flags = IBV_WC_WITH_INV;
		wc->invalidated_rkey = e->inv_stag;
	}
}

int softiw_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct softiw_cq *cq = to_softiw_cq(ibcq);
	struct softiw_ring_ctrl *c = cq->ring.ctrl;
	uint32_t head, tail;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	tail = c->tail;
	head = load_acquire(&c->head);
	while (n < num_entries && tail != head) {
		wc_from_cqe(&wc[n], softiw_uring_slot(&cq->ring, tail,
						      sizeof(struct softiw_cqe)));
		tail++;
		n++;
	}
	/* the entries are read: the kernel may reuse their slots */
	if (n)
		store_release(&c->tail, tail);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* ---- SQ ---- */

static int sqe_inline(struct softiw_qp *qp, struct softiw_sqe *sqe,
		      const struct ibv_send_wr *wr)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > qp->max_inline || len > SOFTIW_MAX_INLINE_ABI)
		return EINVAL;
	len = 0;
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(sqe->inline_data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	sqe->inline_len = len;
	sqe->flags |= SOFTIW_SQE_F_INLINE;
	return 0;
}

static int sqe_sges(struct softiw_sqe *sqe, const struct ibv_send_wr *wr,
		    uint32_t max_sge)
{
	uint64_t len = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	/* the kernel would refuse it at ingest; refuse it here, at post */
	if (len > SOFTIW_MAX_MSG_ABI)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		sqe->sge[i].addr = wr->sg_list[i].addr;
		sqe->sge[i].length = wr->sg_list[i].length;
		sqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sqe->num_sge = wr->num_sge;
	return 0;
}

/*
 * A Bind Memory Window entry.  Type 2 windows are bound with a work
 * request the application posts; type 1 windows only through
 * ibv_bind_mw() (@type1 set by softiw_bind_mw()).  The kernel checks the
 * rest (region, range, rights, key) when it executes the entry.
 */
static int sqe_bind(struct softiw_sqe *sqe, const struct ibv_send_wr *wr,
		    bool type1)
{
	const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;
	struct ibv_mw *mw = wr->bind_mw.mw;

	if (!mw || mw->type != (type1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2))
		return EINVAL;
	/* the new STag names the same window: only its key changes */
	if ((wr->bind_mw.rkey >> 8) != (mw->rkey >> 8))
		return EINVAL;
	if (b->mw_access_flags & ~(IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE))
		return EINVAL;
	if (b->length && !b->mr)
		return EINVAL;
	sqe->opcode = SOFTIW_SQE_BIND_MW;
	sqe->bind.mw_stag = wr->bind_mw.rkey;
	sqe->bind.mr_lkey = b->mr ? b->mr->lkey : 0;
	sqe->bind.addr = b->addr;
	sqe->bind.length = b->length;
	sqe->bind.access = b->mw_access_flags;
	sqe->bind.reserved = 0;
	return 0;
}

static int sqe_from_wr(struct softiw_qp *qp, struct softiw_sqe *sqe,
		       const struct ibv_send_wr *wr, bool type1)
{
	uint32_t max_sge = qp->max_send_sge;

	memset(sqe, 0, offsetof(struct softiw_sqe, sge));
	sqe->wr_id = wr->wr_id;
	if (wr->send_flags & IBV_SEND_SIGNALED)
		sqe->flags |= SOFTIW_SQE_F_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		sqe->flags |= SOFTIW_SQE_F_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		sqe->flags |= SOFTIW_SQE_F_FENCE;

	switch (wr->opcode) {
	case IBV_WR_SEND:
		sqe->opcode = SOFTIW_SQE_SEND;
		break;
	case IBV_WR_SEND_WITH_INV:
		sqe->opcode = SOFTIW_SQE_SEND_INV;
		sqe->inv_stag = wr->invalidate_rkey;
		break;
	case IBV_WR_RDMA_WRITE:
		sqe->opcode = SOFTIW_SQE_WRITE;
		sqe->rkey = wr->wr.rdma.rkey;
		sqe->remote_addr = wr->wr.rdma.remote_addr;
		break;
	case IBV_WR_RDMA_READ:
		/* a Read Response places into one Data Sink STag */
		if (wr->send_flags & IBV_SEND_INLINE)
			return EINVAL;
		sqe->opcode = SOFTIW_SQE_READ;
		sqe->rkey = wr->wr.rdma.rkey;
		sqe->remote_addr = wr->wr.rdma.remote_addr;
		max_sge = 1;
		break;
	case IBV_WR_LOCAL_INV:
		sqe->opcode = SOFTIW_SQE_LOCAL_INV;
		sqe->inv_stag = wr->invalidate_rkey;
		return 0;
	case IBV_WR_BIND_MW:
		return sqe_bind(sqe, wr, type1);
	default:
		return EINVAL;
	}
	if (wr->send_flags & IBV_SEND_INLINE)
		return sqe_inline(qp, sqe, wr);
	return sqe_sges(sqe, wr, max_sge);
}

/*
 * The kernel takes what the ring holds and runs the TX engine in this
 * thread: through the context's doorbell file (softiw-abi.h), or, should
 * that fail or be missing, an empty POST_SEND command.
 */
static void sq_doorbell(struct softiw_qp *qp)
{
	struct softiw_context *ctx = to_softiw_ctx(qp->vqp.qp.context);
	struct ibv_send_wr *bad;

	if (ctx->doorbell_fd >= 0 &&
	    !ioctl(ctx->doorbell_fd, SOFTIW_IOCTL_SQ_DOORBELL,
		   (unsigned long)qp->vqp.qp.qp_num))
		return;
	ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

static int sq_post(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr, bool type1)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	struct softiw_ring_ctrl *c = qp->sq.ctrl;
	uint32_t state, head;
	bool posted = false;
	int ret = 0;

	pthread_spin_lock(&qp->sq_lock);
	state = load_acquire(&c->qp_state);
	/* as the kernel had it: RTS accepts, ERROR flushes, others refuse */
	if (state != IBV_QPS_RTS && state != IBV_QPS_ERR) {
		ret = EINVAL;
		goto out;
	}
	head = qp->sq.head;
	for (; wr; wr = wr->next) {
		if (head - load_acquire(&c->tail) >= qp->max_send_wr) {
			ret = ENOMEM;
			break;
		}
		ret = sqe_from_wr(qp, softiw_uring_slot(&qp->sq, head,
						       sizeof(struct softiw_sqe)),
				  wr, type1);
		if (ret)
			break;
		head++;
		posted = true;
	}
	if (posted) {
		qp->sq.head = head;
		store_release(&c->head, head);
		full_fence();
		if (!(load_acquire(&c->flags) & SOFTIW_SQ_F_ENGINE_ACTIVE) ||
		    load_acquire(&c->qp_state) == IBV_QPS_ERR)
			sq_doorbell(qp);
	}
out:
	if (ret)
		*bad_wr = wr;
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

int softiw_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr)
{
	return sq_post(ibqp, wr, bad_wr, false);
}

/*
 * A type 1 window's next key: random (RFC 5042 6.1.1 wants STags hard to
 * predict, so not the increment ibv_inc_rkey() gives) and never the
 * current one, which the kernel would refuse.
 */
static uint32_t mw_next_rkey(uint32_t rkey)
{
	uint8_t key;

	if (getrandom(&key, sizeof(key), 0) != sizeof(key))
		key = (uint8_t)(rkey + 1);
	if (key == (uint8_t)rkey)
		key ^= 1;
	return (rkey & ~0xffu) | key;
}

int softiw_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = mw_next_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = sq_post(ibqp, &wr, &bad, true);
	if (ret)
		return ret;
	/* as other providers do: an error completion leaves it to the caller */
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* ---- RQ and SRQ ---- */

static int rqe_from_wr(struct softiw_rqe_abi *rqe, const struct ibv_recv_wr *wr,
		       uint32_t max_sge)
{
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	rqe->wr_id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->reserved = 0;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].addr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/* Append @wr's entries to @r; the kernel frees slots through @tail. */
static int ring_post_recv(struct softiw_uring *r, uint32_t max_wr,
			  uint32_t max_sge, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	uint32_t head = r->head;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (head - load_acquire(&r->ctrl->tail) >= max_wr) {
			ret = ENOMEM;
			break;
		}
		ret = rqe_from_wr(softiw_uring_slot(r, head,
						    sizeof(struct softiw_rqe_abi)),
				  wr, max_sge);
		if (ret)
			break;
		head++;
	}
	if (ret)
		*bad_wr = wr;
	if (head != r->head) {
		r->head = head;
		store_release(&r->ctrl->head, head);
	}
	return ret;
}

int softiw_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct softiw_qp *qp = to_softiw_qp(ibqp);
	struct ibv_recv_wr *bad;
	int ret;

	if (!qp->rq.ctrl) {
		*bad_wr = wr;
		return EINVAL;		/* the QP uses an SRQ */
	}
	pthread_spin_lock(&qp->rq_lock);
	/* receives start in INIT; the QP's state is in its SQ ring */
	if (load_acquire(&qp->sq.ctrl->qp_state) == IBV_QPS_RESET) {
		*bad_wr = wr;
		ret = EINVAL;
	} else {
		ret = ring_post_recv(&qp->rq, qp->max_recv_wr,
				     qp->max_recv_sge, wr, bad_wr);
	}
	full_fence();
	/* in ERROR the kernel flushes them, when asked */
	if (load_acquire(&qp->sq.ctrl->qp_state) == IBV_QPS_ERR)
		ibv_cmd_post_recv(ibqp, NULL, &bad);
	pthread_spin_unlock(&qp->rq_lock);
	return ret;
}

int softiw_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct softiw_srq *srq = to_softiw_srq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->lock);
	ret = ring_post_recv(&srq->ring, srq->max_wr, srq->max_sge, wr,
			     bad_wr);
	pthread_spin_unlock(&srq->lock);
	return ret;
}
