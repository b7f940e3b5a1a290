// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw user rings: allocating and mapping the rings a process shares
 * with the kernel, and the copy-in and check of every SQ, RQ and SRQ
 * entry the process wrote (see uring.h for the rules and the locking).
 *
 * What a process can do to a ring, and what it gets:
 *   - a producer index more than the queue depth ahead of the kernel's
 *     consumer index, or behind it: ring error, QP to ERROR;
 *   - an entry with an unknown opcode or flag, too many SGEs, inline data
 *     longer than the QP's limit or a total length over 2^31: that entry
 *     completes with IB_WC_LOC_QP_OP_ERR (IB_WC_LOC_LEN_ERR for lengths)
 *     and the QP goes to ERROR;
 *   - an SGE naming memory it did not register: the engines check every
 *     SGE against the STag table when they use it (IB_WC_LOC_PROT_ERR);
 *   - rewriting an entry while the kernel reads it: the kernel reads it
 *     once, into its own memory, and checks that copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "softiw.h"
#include "copy.h"
#include "qp.h"
#include "uring.h"

struct softiw_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
};

static struct softiw_mmap_entry *to_softiw_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct softiw_mmap_entry, rdma);
}

int softiw_uring_create(struct ib_udata *udata, struct softiw_uring *r,
			u32 size, size_t esize, u64 *key)
{
	struct softiw_ucontext *uctx;
	struct softiw_mmap_entry *e;
	size_t len;
	int ret;

	uctx = rdma_udata_to_drv_context(udata, struct softiw_ucontext,
					 ibucontext);
	if (!uctx || !is_power_of_2(size))
		return -EINVAL;
	len = PAGE_ALIGN(SOFTIW_RING_ENTRIES_OFF + (size_t)size * esize);
	if (len > U32_MAX)
		return -EINVAL;
	e = kzalloc(sizeof(*e), SOFTIW_GFP_USER);
	if (!e)
		return -ENOMEM;
	/*
	 * Charged to the process's memory cgroup (vmalloc_user() cannot
	 * be), so softiw_mmap() maps it page by page.
	 */
	e->vaddr = __vmalloc(len, SOFTIW_GFP_USER | __GFP_ZERO);
	if (!e->vaddr) {
		kfree(e);
		return -ENOMEM;
	}
	ret = rdma_user_mmap_entry_insert(&uctx->ibucontext, &e->rdma, len);
	if (ret) {
		vfree(e->vaddr);
		kfree(e);
		return ret;
	}
	r->ctrl = e->vaddr;
	r->entries = (u8 *)e->vaddr + SOFTIW_RING_ENTRIES_OFF;
	r->size = size;
	r->len = len;
	r->mentry = &e->rdma;
	*key = rdma_user_mmap_get_offset(&e->rdma);
	return 0;
}

void softiw_uring_destroy(struct softiw_uring *r)
{
	if (!r->mentry)
		return;
	rdma_user_mmap_entry_remove(r->mentry);
	r->mentry = NULL;
	r->ctrl = NULL;
	r->entries = NULL;
}

int softiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	unsigned long off;
	void *vaddr;
	int ret;

	/* the entry checks that the length matches what was inserted */
	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;
	/*
	 * The entry matched the mapping's length to its own.  Each page
	 * stays referenced by the mapping after the entry goes, as
	 * remap_vmalloc_range() would leave it (which takes only
	 * vmalloc_user() memory).
	 */
	vaddr = to_softiw_mmap(rdma)->vaddr;
	/* as remap_vmalloc_range() has it: no growing, no core dump */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0, ret = 0; !ret && off < vma->vm_end - vma->vm_start;
	     off += PAGE_SIZE)
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((u8 *)vaddr + off));
	rdma_user_mmap_entry_put(rdma);
	return ret;
}

void softiw_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct softiw_mmap_entry *e = to_softiw_mmap(rdma);

	vfree(e->vaddr);
	kfree(e);
}

/* ---- SQ ---- */

static int sge_from_abi(struct softiw_sge *dst,
			const struct softiw_sge_abi *src, u32 n, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		sum += src[i].length;
	}
	if (sum > SOFTIW_MAX_MSG_SIZE)
		return -EMSGSIZE;
	*total = sum;
	return 0;
}

#define SQE_FLAGS_KNOWN (SOFTIW_SQE_F_SIGNALED | SOFTIW_SQE_F_SOLICITED | \
			 SOFTIW_SQE_F_INLINE | SOFTIW_SQE_F_FENCE)

/*
 * Turn the process's entry @s (already a private copy) into @wqe.
 * Returns 0, or the work completion status for a bad entry.
 */
static u8 wqe_from_sqe(struct softiw_qp *qp, struct softiw_wqe *wqe,
		       const struct softiw_sqe *s)
{
	u32 max_sge = qp->max_send_sge;

	/*
	 * The scalars; @bind, @sge and @inline_data are read only as far as
	 * this entry sets them (@num_sge, @length, a Bind's opcode).
	 */
	memset(wqe, 0, offsetof(struct softiw_wqe, bind));
	wqe->wr_id = s->wr_id;
	if (s->flags & ~SQE_FLAGS_KNOWN)
		return IB_WC_LOC_QP_OP_ERR;
	if ((s->flags & SOFTIW_SQE_F_SIGNALED) || qp->sq_sig_all)
		wqe->flags |= SOFTIW_WQE_SIGNALED;
	if (s->flags & SOFTIW_SQE_F_SOLICITED)
		wqe->flags |= SOFTIW_WQE_SOLICITED;
	if (s->flags & SOFTIW_SQE_F_FENCE)
		wqe->flags |= SOFTIW_WQE_FENCE;

	switch (s->opcode) {
	case SOFTIW_SQE_SEND:
		wqe->opcode = SOFTIW_WR_SEND;
		break;
	case SOFTIW_SQE_SEND_INV:
		wqe->opcode = SOFTIW_WR_SEND_INV;
		wqe->inv_stag = s->inv_stag;
		break;
	case SOFTIW_SQE_WRITE:
		wqe->opcode = SOFTIW_WR_WRITE;
		wqe->rkey = s->rkey;
		wqe->remote_addr = s->remote_addr;
		break;
	case SOFTIW_SQE_READ:
		if (s->flags & SOFTIW_SQE_F_INLINE)
			return IB_WC_LOC_QP_OP_ERR;
		wqe->opcode = SOFTIW_WR_READ;
		wqe->rkey = s->rkey;
		wqe->remote_addr = s->remote_addr;
		max_sge = min_t(u32, max_sge, SOFTIW_MAX_SGE_RD);
		break;
	case SOFTIW_SQE_LOCAL_INV:
		wqe->opcode = SOFTIW_WR_LOCAL_INV;
		wqe->inv_stag = s->inv_stag;
		return 0;
	case SOFTIW_SQE_BIND_MW:
		/* every field is checked by softiw_mw_bind() at execution */
		if (s->bind.access > INT_MAX)
			return IB_WC_LOC_QP_OP_ERR;
		wqe->opcode = SOFTIW_WR_BIND_MW;
		wqe->bind.mw_stag = s->bind.mw_stag;
		wqe->bind.mr_lkey = s->bind.mr_lkey;
		wqe->bind.addr = s->bind.addr;
		wqe->bind.length = s->bind.length;
		wqe->bind.access = s->bind.access;
		return 0;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}

	if (s->flags & SOFTIW_SQE_F_INLINE) {
		if (s->num_sge || s->inline_len > qp->max_inline)
			return IB_WC_LOC_LEN_ERR;
		softiw_copy(wqe->inline_data, s->inline_data, s->inline_len);
		wqe->length = s->inline_len;
		wqe->flags |= SOFTIW_WQE_INLINE;
		return 0;
	}
	if (s->num_sge > max_sge)
		return IB_WC_LOC_QP_OP_ERR;
	if (sge_from_abi(wqe->sge, s->sge, s->num_sge, &wqe->length))
		return IB_WC_LOC_LEN_ERR;
	wqe->num_sge = s->num_sge;
	return 0;
}

/*
 * Copy the SQ entry at @slot into @s, reading each octet of the ring at
 * most once: the fixed part, then as much of the union as the copied
 * flags and length call for (inline data, or SGEs and Bind).  What is
 * left of @s is never read: wqe_from_sqe() refuses inline data longer
 * than the union and more SGEs than it holds.  Copies are costly where
 * the CPU is emulated, and most entries use a small part of theirs.
 */
static void sqe_copy(struct softiw_sqe *s, const struct softiw_sqe *slot)
{
	size_t fixed = offsetof(struct softiw_sqe, sge), n;

	memcpy(s, slot, fixed);
	barrier();	/* the fields as copied, not re-read */
	/* only these carry inline data; any other reads SGEs or Bind */
	if ((s->flags & SOFTIW_SQE_F_INLINE) &&
	    (s->opcode == SOFTIW_SQE_SEND || s->opcode == SOFTIW_SQE_SEND_INV ||
	     s->opcode == SOFTIW_SQE_WRITE))
		n = min_t(size_t, s->inline_len, sizeof(s->inline_data));
	else
		n = max(sizeof(s->sge), sizeof(s->bind));
	softiw_copy((u8 *)s + fixed, (const u8 *)slot + fixed, n);
}

/* May the ring be read?  0, or -EINVAL once it is broken (see qp.h). */
static int ring_readable(struct softiw_qp *qp, bool flush)
{
	if (qp->ring_index_bad || (qp->ring_error && !flush))
		return -EINVAL;
	return 0;
}

static void ring_index_bad(struct softiw_qp *qp, const char *ring, u32 uhead,
			   u32 head, u32 limit)
{
	ibdev_dbg(&qp->sdev->ibdev,
		  "qp %u: %s ring head %u out of range [%u, %u]\n",
		  qp->ibqp.qp_num, ring, uhead, head, limit);
	qp->ring_error = true;
	qp->ring_index_bad = true;
}

int softiw_sq_ingest(struct softiw_qp *qp, bool flush)
{
	struct softiw_wq *sq = &qp->sq;
	struct softiw_sqe s;
	struct softiw_wqe *wqe;
	u32 uhead, n = 0;
	int bad = 0;
	u8 status;

	if (!qp->usq.ctrl)
		return 0;
	if (ring_readable(qp, flush))
		return -EINVAL;
	/* entries before the index: pairs with the process's release */
	uhead = smp_load_acquire(&qp->usq.ctrl->head);
	if (uhead - sq->tail > sq->max_wr || uhead - sq->head > sq->max_wr) {
		ring_index_bad(qp, "SQ", uhead, sq->head, sq->tail + sq->max_wr);
		return -EINVAL;
	}
	while (sq->head != uhead) {
		sqe_copy(&s, softiw_uring_slot(&qp->usq, sq->head, sizeof(s)));
		/* from here on only the copy counts */
		barrier();
		wqe = softiw_wq_slot(sq, sq->head, sizeof(*wqe));
		status = wqe_from_sqe(qp, wqe, &s);
		sq->head++;
		n++;
		if (status) {
			ibdev_dbg(&qp->sdev->ibdev,
				  "qp %u: bad SQ entry (opcode %u flags %#x sges %u): status %u\n",
				  qp->ibqp.qp_num, s.opcode, s.flags,
				  s.num_sge, status);
			wqe->status = status;
			wqe->flags |= SOFTIW_WQE_DONE;
			qp->ring_error = true;
			bad = -EINVAL;
			if (!flush)
				break;
		}
	}
	return bad ? bad : n;
}

/* ---- RQ and SRQ ---- */

/* Copy-in of one receive entry; 0 or the status for a bad one. */
static u8 rqe_from_abi(struct softiw_rqe *rqe, const struct softiw_rqe_abi *a,
		       u32 max_sge)
{
	u32 total;

	/* @sge is read only as far as @num_sge */
	memset(rqe, 0, offsetof(struct softiw_rqe, sge));
	rqe->wr_id = a->wr_id;
	if (a->num_sge > max_sge || a->reserved)
		return IB_WC_LOC_QP_OP_ERR;
	if (sge_from_abi(rqe->sge, a->sge, a->num_sge, &total))
		return IB_WC_LOC_LEN_ERR;
	rqe->num_sge = a->num_sge;
	rqe->length = total;
	return 0;
}

int softiw_rq_ingest(struct softiw_qp *qp, bool flush)
{
	struct softiw_wq *rq = &qp->rq;
	struct softiw_rqe_abi a;
	struct softiw_rqe *rqe;
	u32 uhead, n = 0;
	int bad = 0;
	u8 status;

	if (!qp->urq.ctrl)
		return 0;
	if (ring_readable(qp, flush))
		return -EINVAL;
	/* pairs with the provider's release: entries before the index */
	uhead = smp_load_acquire(&qp->urq.ctrl->head);
	if (uhead - rq->tail > rq->max_wr || uhead - rq->head > rq->max_wr) {
		ring_index_bad(qp, "RQ", uhead, rq->head, rq->tail + rq->max_wr);
		return -EINVAL;
	}
	while (rq->head != uhead) {
		memcpy(&a, softiw_uring_slot(&qp->urq, rq->head, sizeof(a)),
		       sizeof(a));
		barrier();
		rqe = softiw_wq_slot(rq, rq->head, sizeof(*rqe));
		status = rqe_from_abi(rqe, &a, qp->max_recv_sge);
		rq->head++;
		n++;
		if (status) {
			ibdev_dbg(&qp->sdev->ibdev,
				  "qp %u: bad RQ entry (sges %u): status %u\n",
				  qp->ibqp.qp_num, a.num_sge, status);
			rqe->status = status;
			qp->ring_error = true;
			bad = -EINVAL;
			if (!flush)
				break;
		}
	}
	return bad ? bad : n;
}

u32 softiw_srq_posted(struct softiw_srq *srq)
{
	u32 uhead = READ_ONCE(srq->ring.ctrl->head);

	return min(uhead - srq->rq.tail, srq->rq.max_wr);
}

int softiw_srq_ingest_take(struct softiw_srq *srq, struct softiw_rqe *rqe)
{
	struct softiw_wq *rq = &srq->rq;
	struct softiw_rqe_abi a;
	u32 uhead;
	u8 status;

	/* pairs with the provider's release: entries before the index */
	uhead = smp_load_acquire(&srq->ring.ctrl->head);
	if (uhead == rq->tail)
		return 0;
	if (uhead - rq->tail > rq->max_wr) {
		/* nothing sane to take; the taker reports it */
		memset(rqe, 0, sizeof(*rqe));
		rqe->status = IB_WC_LOC_QP_OP_ERR;
		return -EINVAL;
	}
	memcpy(&a, softiw_uring_slot(&srq->ring, rq->tail, sizeof(a)),
	       sizeof(a));
	barrier();
	rq->tail++;
	WRITE_ONCE(srq->ring.ctrl->tail, rq->tail);
	status = rqe_from_abi(rqe, &a, srq->max_sge);
	if (status) {
		rqe->status = status;
		return -EINVAL;
	}
	return 1;
}
