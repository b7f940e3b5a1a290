/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw user rings: the SQ, RQ, SRQ and CQ rings a process maps
 * (include/uapi/rdma/softiw-abi.h), and the kernel's side of them.
 * Owned by uring.c.
 *
 * The kernel never works on a ring entry in place.  Each SQ, RQ or SRQ
 * entry the process wrote is copied once into kernel memory (the QP's or
 * SRQ's private ring, or the caller's buffer) and checked there; only the
 * copy is used afterwards.  Ring indices the process writes are checked
 * against what the queue can hold before anything is copied.
 *
 * Locking: the ingest functions run under the lock of the queue they
 * fill (qp->sq.lock, qp->rq.lock, srq->rq.lock) and never take another
 * one; a ring error is returned, and the caller moves the QP to ERROR
 * after dropping that lock.
 */
#ifndef SOFTIW_URING_H
#define SOFTIW_URING_H

#include <rdma/ib_verbs.h>
#include <rdma/softiw-abi.h>

struct softiw_qp;
struct softiw_srq;
struct softiw_rqe;

/**
 * struct softiw_uring - one ring mapped by a process
 * @ctrl: the control block at the start of the mapping
 * @entries: the entries, at SOFTIW_RING_ENTRIES_OFF
 * @size: number of entries, a power of two
 * @len: bytes mapped
 * @mentry: the mmap entry that owns the memory (freed on last unmap)
 */
struct softiw_uring {
	struct softiw_ring_ctrl *ctrl;
	void *entries;
	u32 size;
	u32 len;
	struct rdma_user_mmap_entry *mentry;
};

static inline void *softiw_uring_slot(const struct softiw_uring *r, u32 idx,
				      size_t esize)
{
	return (u8 *)r->entries + (size_t)(idx & (r->size - 1)) * esize;
}

/*
 * softiw_uring_create() - allocate a zeroed ring of @size (a power of
 * two) entries of @esize octets and make it mappable through @udata's
 * context; *@key is the mmap offset for the process.
 */
int softiw_uring_create(struct ib_udata *udata, struct softiw_uring *r,
			u32 size, size_t esize, u64 *key);
/* The kernel is done with @r; the memory goes with the last mapping. */
void softiw_uring_destroy(struct softiw_uring *r);

/* The ucontext's mmap and mmap_free ops. */
int softiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void softiw_mmap_free(struct rdma_user_mmap_entry *entry);

/*
 * softiw_sq_ingest() - copy what the process added to @qp's SQ ring into
 * the private SQ, checking each entry.  Caller holds qp->sq.lock.
 * Returns the number of entries taken, or -EINVAL for a ring index out
 * of range or a bad entry (the bad entry is in the private SQ, marked
 * done with its error status, and nothing after it is taken).  With
 * @flush (the QP is in ERROR and everything is about to be flushed) the
 * entries after a bad one are taken too, unless the index is bad.
 */
int softiw_sq_ingest(struct softiw_qp *qp, bool flush);
/* The same for the RQ ring; caller holds qp->rq.lock. */
int softiw_rq_ingest(struct softiw_qp *qp, bool flush);
/*
 * softiw_srq_ingest_take() - take the oldest entry of a user SRQ's ring
 * into @rqe.  Caller holds srq->rq.lock.  1 taken, 0 empty, -EINVAL for a
 * bad index or entry (which is consumed, its wr_id in @rqe).
 */
int softiw_srq_ingest_take(struct softiw_srq *srq, struct softiw_rqe *rqe);
/* Entries posted to a user SRQ's ring and not taken (for the limit). */
u32 softiw_srq_posted(struct softiw_srq *srq);

#endif /* SOFTIW_URING_H */
