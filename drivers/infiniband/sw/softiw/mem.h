/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw memory: the STag table, memory regions (user, DMA, fast-register)
 * and every copy into or out of registered memory.  Owned by mem.c.
 *
 * An STag is (index << 8) | key.  The index names a slot of the device's
 * STag table (an xarray); the 8-bit key is chosen per registration.  A
 * lookup takes a reference (kref_get_unless_zero() under RCU); placement
 * holds it for the duration of one copy, so revocation (dereg, Local
 * Invalidate, Send with Invalidate) can wait for in-flight placement.
 *
 * Locking: the STag table is an xarray (its own lock); softiw_mem.valid is
 * written under softiw_mem.lock and read locklessly (READ_ONCE) on the
 * placement path, where the final check is repeated under the lock.
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
 * struct softiw_mem - one registered region (MR), or later a window
 * @ibmr: the RDMA core's MR; lkey == rkey == @stag
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
 * @rcu: the region is freed after a grace period, since softiw_mem_get()
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
	spinlock_t lock;		/* see the struct comment */
	bool valid;
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
 * softiw_mem_check() - may @pd access [@addr, @addr + @len) of @mem with
 * @access (IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_READ/WRITE, or 0 for a
 * local read)?  Returns 0, -EACCES (rights), -EPERM (other PD), -ERANGE
 * (base or bounds, including 64-bit wrap), -ENOENT (invalidated).
 */
int softiw_mem_check(const struct softiw_mem *mem, const struct softiw_pd *pd,
		     u64 addr, u64 len, int access);

/*
 * Copies.  @addr is in the region's address space and the range must
 * already have passed softiw_mem_check().  Pages are reached through
 * kmap_local_page(); no copy sleeps, so all are callable from softirq.
 * @crc, when not NULL, is updated (crc32c, no inversion) over the octets
 * copied, so RX can check the MPA CRC of payload it placed directly.
 */
void softiw_mem_copy_out(struct softiw_mem *mem, u64 addr, void *dst,
			 u32 len);
void softiw_mem_copy_in(struct softiw_mem *mem, u64 addr, const void *src,
			u32 len);
int softiw_mem_copy_in_skb(struct softiw_mem *mem, u64 addr,
			   const struct sk_buff *skb, int skb_off, u32 len,
			   u32 *crc);

/*
 * softiw_mem_invalidate() - revoke @stag (Local Invalidate, Send with
 * Invalidate).  Refused (-EPERM) unless the region belongs to @pd; -EINVAL
 * for an unknown STag or a region that may not be invalidated remotely
 * (@remote and not a fast-register MR / window).  Waits for nothing: it
 * only clears @valid under the lock, so placement that already passed
 * its check finishes and later placement is refused.
 */
int softiw_mem_invalidate(struct softiw_device *sdev, u32 stag,
			  const struct softiw_pd *pd, bool remote);

/* mem.c: the MR verbs, for verbs.c */
struct ib_mr *softiw_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *softiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
				 u64 iova, int access, struct ib_udata *udata);
struct ib_mr *softiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			      u32 max_num_sg);
int softiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
int softiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* SOFTIW_MEM_H */
