/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw memory: the STag table, memory regions (user, DMA, fast-register)
 * and every copy into or out of registered memory.  Owned by mem.c.
 *
 * An STag is (index << 8) | key.  The index names a slot of the device's
 * STag table (an xarray); the 8-bit key is chosen per registration (per
 * bind for a memory window).  A lookup takes a reference
 * (kref_get_unless_zero() under RCU) that keeps the object alive.
 *
 * A memory window (RFC 5040 2.1, type 1 with PD scope or type 2 bound to
 * one QP) is a softiw_mem of its own STag that opens a sub-range of a
 * user region with remote rights only; placement through it copies into
 * the region's pages.  A region refuses deregistration while windows are
 * bound onto it (@windows), so a bound window's @mr is always alive.
 *
 * Locking: the STag table is an xarray (its own lock).  softiw_mem.lock
 * is a reader/writer lock: every copy into or out of the object checks
 * its rights and bounds and copies under the read side, and everything
 * that changes them (registration, bind, invalidation, dereg) takes the
 * write side.  So once a revocation has returned, no placement through
 * the STag is in progress and none can start (RFC 5042 6.2.2).  Fields
 * are also read locklessly (READ_ONCE) for the early checks that decide
 * which Terminate to send; only the locked check guards memory.
 */
#ifndef SOFTIW_MEM_H
#define SOFTIW_MEM_H

#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>

struct softiw_device;
struct softiw_pd;
struct softiw_qp;

/* Pages of one fast-register MR (max_fast_reg_page_list_len). */
#define SOFTIW_MAX_FRMR_PAGES		512

/* Access a caller asks of a region (subset of IB_ACCESS_*). */
#define SOFTIW_ACCESS_LOCAL_READ	0	/* always allowed */

/**
 * struct softiw_mem - one registered region (MR) or memory window (MW)
 * @ibmr: the RDMA core's MR (regions); lkey == rkey == @stag
 * @ref: lookup references; the table holds one until revocation
 * @released: completed when @ref drops to zero
 * @sdev: owning device
 * @pd: protection domain the region belongs to
 * @stag: full STag
 * @iova: first address of the region in its address space (user VA,
 *	kernel VA for DMA/fast-register MRs, or the ULP's iova)
 * @len: length in octets; @iova + @len does not wrap
 * @access: IB_ACCESS_* flags
 * @valid: false once invalidated; placement refuses an invalid region
 * @is_dma: DMA MR: @iova is 0, @len is U64_MAX, addresses are kernel VAs
 * @umem: pinned user pages (user MRs), else NULL
 * @pages: page array for @umem, @npages entries; @page_offset is the
 *	offset of @iova within the first page
 * @kva: fast-register MRs: kernel virtual address of each page
 *	(map_mr_sg), @npages entries, @page_size each; @page_offset is
 *	then the offset of ibmr.iova within the first one
 * @mw_type: 0 for a region, IB_MW_TYPE_1 or IB_MW_TYPE_2 for a window
 * @dead: deregistered or deallocated; never becomes valid again
 * @mr: bound window: the region it opens onto, else NULL
 * @qp_serial: bound type 2 window: softiw_qp.serial of its QP
 * @windows: region: windows bound onto it (dereg is refused until 0)
 * @rcu: the object is freed after a grace period, since softiw_mem_get()
 *	finds it under RCU
 */
struct softiw_mem {
	struct ib_mr ibmr;
	struct softiw_ucontext *uctx;	/* charged to (rm.c), or NULL */
	struct kref ref;
	struct completion released;
	struct softiw_device *sdev;
	struct softiw_pd *pd;
	u32 stag;
	u64 iova;
	u64 len;
	int access;
	rwlock_t lock;			/* see the file comment */
	bool valid;
	bool dead;
	u8 mw_type;
	struct softiw_mem *mr;
	u64 qp_serial;
	atomic_t windows;
	bool is_dma;
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	u32 page_offset;
	u64 *kva;
	u32 max_pages;
	u32 page_size;
	struct rcu_head rcu;
};

static inline struct softiw_mem *to_softiw_mem(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct softiw_mem, ibmr);
}

/* mem.c: STag table */
int softiw_stag_table_init(struct softiw_device *sdev);
void softiw_stag_table_destroy(struct softiw_device *sdev);

/*
 * softiw_mem_get() - the valid region named by @stag (index and key must
 * both match), with a reference; NULL if none.  Callable in any context.
 */
struct softiw_mem *softiw_mem_get(struct softiw_device *sdev, u32 stag);
void softiw_mem_put(struct softiw_mem *mem);

/*
 * softiw_mem_check() - may @qp access [@addr, @addr + @len) of @mem with
 * @access (IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_READ/WRITE, or 0 for a
 * local read)?  Returns 0, -EACCES (rights; a window has remote rights
 * only), -EPERM (other PD, or a type 2 window bound to another QP),
 * -ERANGE (base or bounds, including 64-bit wrap), -ENOENT (invalidated).
 * Lockless: an early check; the copies below check again under the lock.
 */
int softiw_mem_check(const struct softiw_mem *mem, const struct softiw_qp *qp,
		     u64 addr, u64 len, int access);

/*
 * softiw_mem_stream_qp() - the QP id the DDP validator should see for
 * @mem on @qp's stream: SOFTIW_DDP_ANY_QP unless @mem is a type 2 window.
 */
u32 softiw_mem_stream_qp(const struct softiw_mem *mem,
			 const struct softiw_qp *qp);

/*
 * Copies.  Each checks, under the read side of @mem->lock, that @mem
 * still carries @stag (the STag or lkey it was found by: a window rebind
 * or a REG_MR changes the key under the write side, -ENOENT) and
 * [@addr, @addr + @len) for @qp and @access as softiw_mem_check() does,
 * and copies under that lock, returning the check's error (nothing
 * copied) or 0.  @addr is in the
 * STag's address space (a window's is its region's).  Pages are reached
 * through kmap_local_page(); no copy sleeps, so all are callable from
 * softirq.  @crc, when not NULL, is updated (crc32c, no inversion) over
 * the octets copied, so RX can check the MPA CRC of payload it placed
 * directly.
 */
int softiw_mem_copy_out(struct softiw_mem *mem, const struct softiw_qp *qp,
			u32 stag, int access, u64 addr, void *dst, u32 len);
int softiw_mem_copy_in_skb(struct softiw_mem *mem, const struct softiw_qp *qp,
			   u32 stag, int access, u64 addr,
			   const struct sk_buff *skb, int skb_off, u32 len,
			   u32 *crc);

/*
 * softiw_mem_pages_out() - zero-copy transmit: instead of copying
 * [@addr, @addr + @len) out of user region @mem, describe it as page
 * fragments in @bv (at most @max), each page referenced by us (the caller
 * put_page()s them when TCP has taken its own), after the checks of a
 * local read (and of @stag, as above) under the read side of @mem->lock.  A fragment never
 * crosses a page.  Returns the fragments used, -E2BIG when @max is too
 * few, -EOPNOTSUPP for anything but a user region (kernel memory is
 * copied), or the check's error; on error nothing is referenced.  The
 * pages stay valid while referenced, even if the region is deregistered.
 */
int softiw_mem_pages_out(struct softiw_mem *mem, const struct softiw_qp *qp,
			 u32 stag, u64 addr, u32 len, struct bio_vec *bv,
			 u32 max);

/*
 * softiw_mem_invalidate() - revoke @stag (Local Invalidate, Send with
 * Invalidate, Read with Invalidate) on behalf of @qp.  -EPERM unless the
 * object belongs to @qp's PD (and a type 2 window is bound to @qp);
 * -EINVAL for an unknown STag or one that may not be invalidated at all:
 * user and DMA regions and type 1 windows.  Fast-register regions and
 * type 2 windows may be, locally or remotely.  Takes the write side of the
 * lock, so it returns only when no placement through @stag is in
 * progress; later placement is refused.  Callable from softirq.
 */
int softiw_mem_invalidate(struct softiw_device *sdev, u32 stag,
			  const struct softiw_qp *qp);

/* A Bind Memory Window work request (user rings only). */
struct softiw_mw_bind {
	u32 mw_stag;		/* the window's STag after the bind */
	u32 mr_lkey;		/* region to open onto; unused for an unbind */
	u64 addr;
	u64 length;		/* 0: unbind (type 1 only) */
	int access;		/* IB_ACCESS_REMOTE_READ / _WRITE */
};

/*
 * softiw_mw_bind() - bind, rebind (type 1) or unbind (type 1, @length 0)
 * the window named by @b->mw_stag's index for @qp.  The new key must
 * differ from the window's current one, so STags of an earlier binding
 * stay dead.  Returns 0, -EINVAL (not a window, bad range, rights or
 * key), -EPERM (another PD; region without MW_BIND), -EBUSY (a type 2
 * window still bound).  Callable from the TX engine (any context).
 */
int softiw_mw_bind(struct softiw_qp *qp, const struct softiw_mw_bind *b);

/* mem.c: the MR verbs, for verbs.c */
/*
 * softiw_mem_access_check() - may a region carry @access (IB_ACCESS_*)?
 * 0, -EOPNOTSUPP for a right softiw does not implement (remote atomics),
 * -EINVAL for remote write without local write.  Registration and fast
 * registration (REG_MR work requests) both ask.
 */
int softiw_mem_access_check(int access);
struct ib_mr *softiw_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *softiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
				 u64 iova, int access, struct ib_udata *udata);
struct ib_mr *softiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			      u32 max_num_sg);
int softiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
int softiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* mem.c: the MW verbs */
struct softiw_mw {
	struct ib_mw ibmw;
	struct softiw_mem *mem;
};

int softiw_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int softiw_dealloc_mw(struct ib_mw *ibmw);

#endif /* SOFTIW_MEM_H */
