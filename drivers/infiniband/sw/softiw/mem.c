// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw memory: the per-device STag table, the MR verbs (user, DMA and
 * fast-register regions) and every copy into or out of registered memory.
 *
 * STags are unpredictable (RFC 5042 section 6.1.1): the 24-bit index is
 * drawn at random from a sparse space (retrying on collision) and the
 * 8-bit key is random per registration; the last few freed indices are
 * remembered and never drawn again at once.
 *
 * Lifetime: the table holds one reference on a region from registration
 * to revocation.  softiw_mem_get() looks the index up under RCU and takes
 * a reference with kref_get_unless_zero(); dereg removes the index, drops
 * the table's reference and waits until every placement that holds one
 * has finished, then frees the region after a grace period.
 *
 * Windows: alloc_mw gives a window its STag, unbound (invalid).  A Bind
 * work request (softiw_mw_bind(), from the TX engine) opens it onto a
 * range of a user region with remote rights only; the region's @windows
 * count keeps it from being deregistered meanwhile.  Invalidation, unbind
 * and dealloc take the window's write lock before they let go of the
 * region, so no copy through the window outlives its binding.
 *
 * Locking: the xarray has its own lock; sdev->stag_lock guards the list
 * of recently freed indices; mem->lock (reader/writer, irqsave) covers
 * @valid, @stag, the bounds, rights and binding: copies hold the read
 * side, changes the write side (see mem.h).  A bind takes the region's
 * lock, then, after dropping it, the window's; no path nests them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "softiw.h"
#include "crc.h"
#include "copy.h"
#include "mem.h"
#include "qp.h"
#include "ddp.h"

#define STAG_INDEX_MASK		0xffffffu
#define STAG_ALLOC_TRIES	64

/*
 * Access rights a region may carry; everything else is refused, remote
 * atomics among them until RFC 7306 atomics are implemented.
 */
#define MEM_ACCESS_SUPPORTED	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_MW_BIND)

int softiw_mem_access_check(int access)
{
	/* optional flags may be ignored by definition */
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~MEM_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;
	/* remote write implies local write (IB and RFC 5040) */
	if ((access & IB_ACCESS_REMOTE_WRITE) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

int softiw_stag_table_init(struct softiw_device *sdev)
{
	xa_init(&sdev->stag_xa);
	spin_lock_init(&sdev->stag_lock);
	memset(sdev->stag_recent, 0, sizeof(sdev->stag_recent));
	sdev->stag_recent_pos = 0;
	return 0;
}

void softiw_stag_table_destroy(struct softiw_device *sdev)
{
	/* ib_core deregisters every MR before the device goes */
	WARN_ON(!xa_empty(&sdev->stag_xa));
	xa_destroy(&sdev->stag_xa);
}

static bool stag_recently_freed(struct softiw_device *sdev, u32 index)
{
	bool found = false;
	int i;

	spin_lock(&sdev->stag_lock);
	for (i = 0; i < ARRAY_SIZE(sdev->stag_recent); i++)
		if (sdev->stag_recent[i] == index)
			found = true;
	spin_unlock(&sdev->stag_lock);
	return found;
}

static void stag_remember_freed(struct softiw_device *sdev, u32 index)
{
	spin_lock(&sdev->stag_lock);
	sdev->stag_recent[sdev->stag_recent_pos] = index;
	sdev->stag_recent_pos = (sdev->stag_recent_pos + 1) %
				ARRAY_SIZE(sdev->stag_recent);
	spin_unlock(&sdev->stag_lock);
}

/*
 * Give @mem a random STag and publish it in the table.  Index 0 is never
 * used: STag 0 and small values have special meanings to some peers
 * (the RTR zero-length operations use STag 1 with no buffer behind it).
 */
static int stag_insert(struct softiw_device *sdev, struct softiw_mem *mem)
{
	int i, ret;

	for (i = 0; i < STAG_ALLOC_TRIES; i++) {
		u32 rnd = get_random_u32();
		u32 index = rnd & STAG_INDEX_MASK;

		if (index < 2 || stag_recently_freed(sdev, index))
			continue;
		mem->stag = (index << 8) | (get_random_u32() & 0xff);
		mem->ibmr.lkey = mem->stag;
		mem->ibmr.rkey = mem->stag;
		ret = xa_insert(&sdev->stag_xa, index, mem, GFP_KERNEL);
		if (ret != -EBUSY)
			return ret;
	}
	return -ENOSPC;
}

static void mem_release(struct kref *ref)
{
	complete(&container_of(ref, struct softiw_mem, ref)->released);
}

/* The object at @stag's index, whatever its key and state, referenced. */
static struct softiw_mem *mem_get_index(struct softiw_device *sdev, u32 stag)
{
	struct softiw_mem *mem;

	rcu_read_lock();
	mem = xa_load(&sdev->stag_xa, stag >> 8);
	if (mem && !kref_get_unless_zero(&mem->ref))
		mem = NULL;
	rcu_read_unlock();
	return mem;
}

struct softiw_mem *softiw_mem_get(struct softiw_device *sdev, u32 stag)
{
	struct softiw_mem *mem = mem_get_index(sdev, stag);

	if (!mem)
		return NULL;
	if (READ_ONCE(mem->stag) != stag || !READ_ONCE(mem->valid)) {
		softiw_mem_put(mem);
		return NULL;
	}
	return mem;
}

void softiw_mem_put(struct softiw_mem *mem)
{
	kref_put(&mem->ref, mem_release);
}

/* Rights a window may carry: remote access to its region, nothing local. */
#define MW_ACCESS_SUPPORTED	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

int softiw_mem_check(const struct softiw_mem *mem, const struct softiw_qp *qp,
		     u64 addr, u64 len, int access)
{
	u64 base = READ_ONCE(mem->iova), size = READ_ONCE(mem->len);

	if (mem->pd != qp->pd)
		return -EPERM;
	if (!READ_ONCE(mem->valid))
		return -ENOENT;
	if (mem->mw_type) {
		/* an rkey only: never a local SGE or a Data Sink */
		if (!(access & MW_ACCESS_SUPPORTED))
			return -EACCES;
		if (mem->mw_type == IB_MW_TYPE_2 &&
		    READ_ONCE(mem->qp_serial) != qp->serial)
			return -EPERM;
	}
	if (access & ~READ_ONCE(mem->access))
		return -EACCES;
	/* addr + len must neither wrap nor leave [base, base + size) */
	if (addr < base || addr + len < addr || len > size ||
	    addr - base > size - len)
		return -ERANGE;
	return 0;
}

u32 softiw_mem_stream_qp(const struct softiw_mem *mem,
			 const struct softiw_qp *qp)
{
	if (mem->mw_type != IB_MW_TYPE_2)
		return SOFTIW_DDP_ANY_QP;
	if (READ_ONCE(mem->qp_serial) == qp->serial)
		return qp->ibqp.qp_num;
	/* QP numbers are 24 bits: this is neither qp_num nor ANY_QP */
	return qp->ibqp.qp_num ^ BIT(31);
}

/*
 * The kernel address of @addr in a DMA or fast-register region (those are
 * always in the linear mapping: ib_uses_virt_dma() makes every "DMA"
 * address a kernel VA), or NULL for a user region.  *@room is the number
 * of octets that are contiguous from there.
 */
static u8 *mem_kva(struct softiw_mem *mem, u64 addr, u32 *room)
{
	u64 off;
	u32 idx, poff;

	if (mem->is_dma) {
		*room = U32_MAX;
		return (u8 *)(uintptr_t)addr;
	}
	off = addr - READ_ONCE(mem->iova) + mem->page_offset;
	idx = off / mem->page_size;
	poff = off % mem->page_size;
	/*
	 * softiw_mem_check() bounded addr, but a ULP may remap a region that
	 * is still valid (rdma_rw chains the LOCAL_INV after map_mr_sg), so
	 * the page array can be shorter for a moment: refuse, never overrun.
	 */
	if (idx >= READ_ONCE(mem->npages))
		return NULL;
	*room = mem->page_size - poff;
	return (u8 *)(uintptr_t)mem->kva[idx] + poff;
}

/* User region: the page holding @addr and the offset in it. */
static struct page *mem_page(struct softiw_mem *mem, u64 addr, u32 *poff)
{
	u64 off = addr - mem->iova + mem->page_offset;
	u64 idx = off >> PAGE_SHIFT;

	if (WARN_ON_ONCE(idx >= mem->npages))
		return NULL;
	*poff = off & ~PAGE_MASK;
	return mem->pages[idx];
}

/*
 * Walk [addr, addr + len) in chunks that are contiguous in the kernel's
 * view and call @fn on each.  Stops on the first error of @fn.
 */
typedef int (*mem_chunk_fn)(u8 *p, u32 n, u32 done, void *arg);

static int mem_walk(struct softiw_mem *mem, u64 addr, u32 len,
		    mem_chunk_fn fn, void *arg)
{
	u32 done = 0;
	int ret = 0;

	while (done < len) {
		u32 n = len - done, room, poff;
		struct page *page;
		u8 *p;

		if (!mem->umem) {
			p = mem_kva(mem, addr + done, &room);
			if (!p)
				return -EFAULT;
			n = min(n, room);
			ret = fn(p, n, done, arg);
		} else {
			page = mem_page(mem, addr + done, &poff);
			if (!page)
				return -EFAULT;
			n = min_t(u32, n, PAGE_SIZE - poff);
			p = kmap_local_page(page);
			ret = fn(p + poff, n, done, arg);
			kunmap_local(p);
		}
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

static int chunk_out(u8 *p, u32 n, u32 done, void *arg)
{
	softiw_copy((u8 *)arg + done, p, n);
	return 0;
}

/*
 * Check (the key @stag included) and copy under the read side of
 * @mem->lock (see mem.h).  A bound
 * window's copies go to its region, which cannot be deregistered while
 * the window is bound; the region is walked with the window's bounds
 * already enforced, since both share one address space.
 */
static int mem_locked_walk(struct softiw_mem *mem, const struct softiw_qp *qp,
			   u32 stag, int access, u64 addr, u32 len,
			   mem_chunk_fn fn, void *arg)
{
	struct softiw_mem *target = mem;
	unsigned long flags;
	int ret;

	read_lock_irqsave(&mem->lock, flags);
	/* a re-key (window rebind, REG_MR) revokes the old key under the lock */
	ret = mem->stag == stag ? softiw_mem_check(mem, qp, addr, len, access) :
				  -ENOENT;
	if (!ret && mem->mw_type) {
		target = mem->mr;
		if (!target || !READ_ONCE(target->valid))
			ret = -ENOENT;
	}
	if (!ret && len)
		ret = mem_walk(target, addr, len, fn, arg);
	read_unlock_irqrestore(&mem->lock, flags);
	return ret;
}

int softiw_mem_copy_out(struct softiw_mem *mem, const struct softiw_qp *qp,
			u32 stag, int access, u64 addr, void *dst, u32 len)
{
	return mem_locked_walk(mem, qp, stag, access, addr, len, chunk_out,
			       dst);
}

struct skb_copy_arg {
	const struct sk_buff *skb;
	int off;
	u32 *crc;
};

static int chunk_in_skb(u8 *p, u32 n, u32 done, void *arg)
{
	struct skb_copy_arg *a = arg;
	int ret;

	ret = softiw_skb_copy(a->skb, a->off + done, p, n);
	if (ret)
		return ret;
	/* CRC over the octets as placed: what the ULP will see */
	if (a->crc)
		*a->crc = softiw_crc32c(*a->crc, p, n);
	return 0;
}

int softiw_mem_copy_in_skb(struct softiw_mem *mem, const struct softiw_qp *qp,
			   u32 stag, int access, u64 addr,
			   const struct sk_buff *skb, int skb_off, u32 len,
			   u32 *crc)
{
	struct skb_copy_arg a = { .skb = skb, .off = skb_off, .crc = crc };

	return mem_locked_walk(mem, qp, stag, access, addr, len, chunk_in_skb,
			       &a);
}

struct pages_out_arg {
	struct softiw_mem *mem;
	u64 addr;
	struct bio_vec *bv;
	u32 max;
	u32 n;
};

/* One chunk of a user region (never crosses a page): reference it. */
static int chunk_pages(u8 *p, u32 n, u32 done, void *arg)
{
	struct pages_out_arg *a = arg;
	struct page *page;
	u32 poff;

	if (a->n == a->max)
		return -E2BIG;
	page = mem_page(a->mem, a->addr + done, &poff);
	if (!page)
		return -EFAULT;
	get_page(page);
	bvec_set_page(&a->bv[a->n++], page, n, poff);
	return 0;
}

int softiw_mem_pages_out(struct softiw_mem *mem, const struct softiw_qp *qp,
			 u32 stag, u64 addr, u32 len, struct bio_vec *bv,
			 u32 max)
{
	struct pages_out_arg a = {
		.mem = mem, .addr = addr, .bv = bv, .max = max,
	};
	int ret;

	/* user regions only: their pages stay pinned while referenced */
	if (mem->mw_type || !mem->umem)
		return -EOPNOTSUPP;
	ret = mem_locked_walk(mem, qp, stag, SOFTIW_ACCESS_LOCAL_READ, addr, len,
			      chunk_pages, &a);
	if (ret) {
		while (a.n)
			put_page(a.bv[--a.n].bv_page);
		return ret;
	}
	return a.n;
}

/*
 * Unbind a window; caller holds its write lock.  Returns the region it
 * was bound onto, for mw_release_mr() once the lock is dropped.
 */
static struct softiw_mem *mw_unbind_locked(struct softiw_mem *mw)
{
	struct softiw_mem *mr = mw->mr;

	WRITE_ONCE(mw->valid, false);
	mw->mr = NULL;
	WRITE_ONCE(mw->len, 0);
	return mr;
}

static void mw_release_mr(struct softiw_mem *mr)
{
	if (mr)
		atomic_dec(&mr->windows);
}

/* May @qp invalidate @mem this way?  Caller holds @mem->lock. */
static int mem_may_invalidate(const struct softiw_mem *mem,
			      const struct softiw_qp *qp)
{
	if (mem->pd != qp->pd)
		return -EPERM;
	switch (mem->mw_type) {
	case IB_MW_TYPE_1:
		/* type 1 windows are unbound by a zero-length bind only */
		return -EINVAL;
	case IB_MW_TYPE_2:
		/* QP scope: only the QP it is bound to */
		if (!mem->valid || mem->qp_serial != qp->serial)
			return -EPERM;
		return 0;
	default:
		/* regions: only fast-register ones (kernel ULPs) */
		return mem->kva ? 0 : -EINVAL;
	}
}

int softiw_mem_invalidate(struct softiw_device *sdev, u32 stag,
			  const struct softiw_qp *qp)
{
	struct softiw_mem *mem, *mr = NULL;
	unsigned long flags;
	int ret;

	mem = mem_get_index(sdev, stag);
	if (!mem)
		return -EINVAL;

	write_lock_irqsave(&mem->lock, flags);
	if (mem->stag != stag) {
		ret = -EINVAL;
	} else {
		ret = mem_may_invalidate(mem, qp);
		if (!ret && mem->mw_type)
			mr = mw_unbind_locked(mem);
		else if (!ret)
			WRITE_ONCE(mem->valid, false);
	}
	write_unlock_irqrestore(&mem->lock, flags);
	mw_release_mr(mr);
	softiw_mem_put(mem);
	return ret;
}

static struct softiw_mem *mem_alloc(struct ib_pd *ibpd, int access)
{
	struct softiw_device *sdev = to_softiw_dev(ibpd->device);
	struct softiw_mem *mem;
	int ret;

	ret = softiw_mem_access_check(access);
	if (ret)
		return ERR_PTR(ret);
	access &= ~IB_ACCESS_OPTIONAL;
	/* a process's region counts against its memory cgroup too */
	mem = kzalloc(sizeof(*mem), to_softiw_pd(ibpd)->uctx ?
		      SOFTIW_GFP_USER : GFP_KERNEL);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	/* charged to the process that owns the PD */
	mem->uctx = to_softiw_pd(ibpd)->uctx;
	if (softiw_rm_charge(sdev, mem->uctx, SOFTIW_RES_MR, 1)) {
		kfree(mem);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&mem->ref);
	init_completion(&mem->released);
	rwlock_init(&mem->lock);
	mem->sdev = sdev;
	mem->pd = to_softiw_pd(ibpd);
	mem->access = access;
	mem->page_size = PAGE_SIZE;
	atomic_set(&mem->windows, 0);
	return mem;
}

static void mem_free(struct softiw_mem *mem)
{
	softiw_rm_uncharge(mem->sdev, mem->uctx, SOFTIW_RES_MR, 1);
	kfree_rcu(mem, rcu);
}

/*
 * Take @mem out of the STag table, then wait until every lookup reference
 * is gone (lookups that raced the erase fail kref_get_unless_zero() on
 * memory kfree_rcu() keeps alive).  The caller has revoked it already.
 */
static void mem_unpublish(struct softiw_mem *mem)
{
	u32 index = mem->stag >> 8;

	xa_erase(&mem->sdev->stag_xa, index);
	stag_remember_freed(mem->sdev, index);
	softiw_mem_put(mem);
	wait_for_completion(&mem->released);
}

/* Publish @mem; on failure frees it and returns the ERR_PTR. */
static struct ib_mr *mem_publish(struct softiw_mem *mem)
{
	int ret = stag_insert(mem->sdev, mem);

	if (ret) {
		mem_free(mem);
		return ERR_PTR(ret);
	}
	return &mem->ibmr;
}

struct ib_mr *softiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct softiw_mem *mem = mem_alloc(ibpd, access);

	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->is_dma = true;
	mem->iova = 0;
	mem->len = U64_MAX;
	mem->valid = true;
	return mem_publish(mem);
}

/* The page array of a pinned user range, in address order. */
static int mem_umem_pages(struct softiw_mem *mem)
{
	struct ib_umem *umem = mem->umem;
	struct sg_page_iter piter;
	size_t n = ib_umem_num_pages(umem), i = 0;

	if (n > U32_MAX)
		return -EINVAL;
	/* the process's own registration: charged to its memory cgroup */
	mem->pages = kvcalloc(n, sizeof(*mem->pages), SOFTIW_GFP_USER);
	if (!mem->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (i == n)
			break;
		mem->pages[i++] = sg_page_iter_page(&piter);
	}
	if (i != n) {
		kvfree(mem->pages);
		mem->pages = NULL;
		return -EFAULT;
	}
	mem->npages = n;
	mem->page_offset = ib_umem_offset(umem);
	return 0;
}

struct ib_mr *softiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
				 u64 iova, int access, struct ib_udata *udata)
{
	struct softiw_mem *mem;
	struct ib_umem *umem;
	int ret;

	/* a zero-length region names no memory; bounds must not wrap */
	if (!len || iova + len < iova || start + len < start)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	mem = mem_alloc(ibpd, access);
	if (IS_ERR(mem))
		return ERR_CAST(mem);

	umem = ib_umem_get(ibpd->device, start, len, access);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		goto err_free;
	}
	mem->umem = umem;
	ret = mem_umem_pages(mem);
	if (ret)
		goto err_umem;
	mem->iova = iova;
	mem->len = len;
	mem->valid = true;
	mem->ibmr.iova = iova;
	mem->ibmr.length = len;

	ret = stag_insert(mem->sdev, mem);
	if (ret)
		goto err_pages;
	return &mem->ibmr;

err_pages:
	kvfree(mem->pages);
err_umem:
	ib_umem_release(umem);
err_free:
	mem_free(mem);
	return ERR_PTR(ret);
}

struct ib_mr *softiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct softiw_mem *mem;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SOFTIW_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	/* rights come with each fast registration (IB_WR_REG_MR) */
	mem = mem_alloc(ibpd, 0);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->kva = kvcalloc(max_num_sg, sizeof(*mem->kva), GFP_KERNEL);
	if (!mem->kva) {
		ret = -ENOMEM;
		goto err_free;
	}
	mem->max_pages = max_num_sg;
	/* invalid until a REG_MR work request validates it */
	mem->valid = false;
	ret = stag_insert(mem->sdev, mem);
	if (ret)
		goto err_kva;
	return &mem->ibmr;

err_kva:
	kvfree(mem->kva);
err_free:
	mem_free(mem);
	return ERR_PTR(ret);
}

static int mem_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct softiw_mem *mem = to_softiw_mem(ibmr);

	if (mem->npages == mem->max_pages)
		return -ENOMEM;
	mem->kva[mem->npages] = addr;
	/* the entry is written before placement may index it */
	smp_store_release(&mem->npages, mem->npages + 1);
	return 0;
}

/*
 * Map a kernel ULP's scatterlist for the next fast registration.  With
 * virtual DMA the "DMA" addresses ib_sg_to_pages() hands us are kernel
 * VAs of linear-map memory, which placement uses directly.  The new
 * mapping takes effect with the REG_MR work request (which also sets the
 * bounds); a region still valid from its previous registration may see
 * the array change meanwhile, and mem_kva() never reads past @npages.
 */
int softiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset)
{
	struct softiw_mem *mem = to_softiw_mem(ibmr);
	int n;

	WRITE_ONCE(mem->npages, 0);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mem_set_page);
	if (n < 0)
		return n;
	mem->page_size = ibmr->page_size;
	mem->page_offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/*
 * Revoke and free a region.  Refused while windows are bound onto it
 * (ibv_dereg_mr() documents EBUSY): the check and the revocation are one
 * step under the write lock, which a bind takes to count itself in.
 * mem_unpublish() then waits for every lookup reference.
 */
int softiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct softiw_mem *mem = to_softiw_mem(ibmr);
	unsigned long flags;

	write_lock_irqsave(&mem->lock, flags);
	if (atomic_read(&mem->windows)) {
		write_unlock_irqrestore(&mem->lock, flags);
		return -EBUSY;
	}
	WRITE_ONCE(mem->valid, false);
	mem->dead = true;
	write_unlock_irqrestore(&mem->lock, flags);
	mem_unpublish(mem);

	if (mem->umem)
		ib_umem_release(mem->umem);
	kvfree(mem->pages);
	kvfree(mem->kva);
	mem_free(mem);
	return 0;
}

/* ---- memory windows ---- */

int softiw_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct softiw_mw *smw = container_of(ibmw, struct softiw_mw, ibmw);
	struct softiw_mem *mem;
	struct ib_mr *mr;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	mem = mem_alloc(ibmw->pd, 0);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	mem->mw_type = ibmw->type;
	/* unbound: invalid, no range, until a Bind */
	mem->valid = false;
	mr = mem_publish(mem);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	smw->mem = mem;
	ibmw->rkey = mem->stag;
	return 0;
}

int softiw_dealloc_mw(struct ib_mw *ibmw)
{
	struct softiw_mem *mem = container_of(ibmw, struct softiw_mw,
					      ibmw)->mem;
	struct softiw_mem *mr;
	unsigned long flags;

	write_lock_irqsave(&mem->lock, flags);
	mr = mw_unbind_locked(mem);
	mem->dead = true;
	write_unlock_irqrestore(&mem->lock, flags);
	mw_release_mr(mr);
	mem_unpublish(mem);
	mem_free(mem);
	return 0;
}

/* The region a bind opens onto, counted in (its @windows), or ERR_PTR. */
static struct softiw_mem *mw_bind_region(struct softiw_qp *qp,
					 const struct softiw_mw_bind *b)
{
	struct softiw_mem *mr = softiw_mem_get(qp->sdev, b->mr_lkey);
	unsigned long flags;
	int ret;

	if (!mr)
		return ERR_PTR(-EINVAL);
	/* user regions of this PD that allow binding, range inside */
	if (mr->mw_type || !mr->umem)
		ret = -EINVAL;
	else if (!(READ_ONCE(mr->access) & IB_ACCESS_MW_BIND))
		ret = -EPERM;
	else
		ret = softiw_mem_check(mr, qp, b->addr, b->length, 0);
	/* a window that may be written needs a locally writable region */
	if (!ret && (b->access & IB_ACCESS_REMOTE_WRITE) &&
	    !(READ_ONCE(mr->access) & IB_ACCESS_LOCAL_WRITE))
		ret = -EPERM;
	if (!ret) {
		write_lock_irqsave(&mr->lock, flags);
		if (mr->valid && !mr->dead)
			atomic_inc(&mr->windows);
		else
			ret = -EINVAL;
		write_unlock_irqrestore(&mr->lock, flags);
	}
	softiw_mem_put(mr);
	return ret ? ERR_PTR(ret) : mr;
}

int softiw_mw_bind(struct softiw_qp *qp, const struct softiw_mw_bind *b)
{
	struct softiw_mem *mw, *mr = NULL, *old = NULL;
	unsigned long flags;
	int ret = 0;

	mw = mem_get_index(qp->sdev, b->mw_stag);
	if (!mw)
		return -EINVAL;
	if (!mw->mw_type)
		ret = -EINVAL;
	else if (mw->pd != qp->pd)
		ret = -EPERM;
	else if (b->access & ~MW_ACCESS_SUPPORTED)
		ret = -EINVAL;
	else if (!b->length && mw->mw_type == IB_MW_TYPE_2)
		ret = -EINVAL;	/* type 2: invalidate, never bind to nothing */
	if (!ret && b->length) {
		mr = mw_bind_region(qp, b);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			mr = NULL;
		}
	}
	if (ret)
		goto out;

	write_lock_irqsave(&mw->lock, flags);
	if (mw->dead || (mw->stag & 0xff) == (b->mw_stag & 0xff))
		ret = -EINVAL;
	else if (mw->mw_type == IB_MW_TYPE_2 && mw->valid)
		ret = -EBUSY;
	if (ret) {
		write_unlock_irqrestore(&mw->lock, flags);
		mw_release_mr(mr);
		goto out;
	}
	old = mw_unbind_locked(mw);
	WRITE_ONCE(mw->stag, b->mw_stag);
	if (mr) {
		mw->mr = mr;
		WRITE_ONCE(mw->iova, b->addr);
		WRITE_ONCE(mw->len, b->length);
		WRITE_ONCE(mw->access, b->access);
		WRITE_ONCE(mw->qp_serial, qp->serial);
		smp_wmb();	/* range and rights before @valid */
		WRITE_ONCE(mw->valid, true);
	}
	write_unlock_irqrestore(&mw->lock, flags);
	mw_release_mr(old);
out:
	softiw_mem_put(mw);
	return ret;
}
