// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw TX engine: one work item per QP turns a queued Terminate, the
 * RTR, inbound Read Requests (qp->ird) and SQ entries into FPDUs with the
 * wire core, stages up to SOFTIW_TX_BATCH octets of them and hands the
 * whole batch to TCP in one call.  Every FPDU stays a single MULPDU-sized
 * DDP segment (aligned to the TCP segments a standard peer expects); only
 * the number of socket calls shrinks.
 *
 * A batch is built in a compound page of our own and spliced into TCP
 * (its pages become the skbs' fragments: no second copy of the payload),
 * so the payload is copied once, from the registered buffer into the
 * FPDU, as TCP itself copies a send() once.  TCP holds the page until the
 * peer has ACKed and read the data; a page is written again only when
 * ours is its last reference (page_count() == 1), else the next batch
 * goes to the spare page or a new one, and the busy one is left to TCP.
 * When no page can be had without waiting, that batch is sent from the
 * QP's copy buffer with an ordinary kernel_sendmsg() (tx_splice=N: always).
 * For those, a send completion means "TCP has the octets": the
 * application's own buffer is not referenced once its payload is framed.
 * Large SENDs and WRITEs from user regions are not copied at all: their
 * payload goes to TCP in the application's own pages, and they complete
 * when TCP lets go of them ("Zero-copy transmit", below).
 *
 * The module-wide workqueue is WQ_UNBOUND | WQ_MEM_RECLAIM: kernel ULPs
 * (NFS/RDMA, NVMe-oF) may sit in the memory reclaim path, so TX must make
 * progress without allocating a worker, and unbound workers let the
 * scheduler spread many QPs over the CPUs instead of running a QP's batch
 * on the CPU that happened to post.
 *
 * A post to an idle user QP runs the engine at once in the poster's
 * context (the doorbell system call), which saves the work item's wakeup
 * per message; kernel QPs always go through the work item, so a ULP's
 * completion handler never runs inside its own post_send.  Work for
 * another user QP that the poster's own sends cause in softirq (an
 * inbound Read Request) is run by the poster afterwards ("deferred
 * kicks", below).
 *
 * Locking: everything in qp->tx except @lock, @stopped, @rerun and @term*
 * is only touched by whoever holds tx.run: the work item, a poster
 * running the engine inline, or detach while it takes the engine apart.
 * The engines never wait for it: a work item that finds it taken sets
 * @rerun, which the holder checks after letting go.
 * tx.lock (irqsave) guards @stopped against softiw_tx_kick() so that no
 * work is queued after detach, and the Terminate hand-over.  qp->sq.lock
 * guards qp->ord_outstanding (TX increments, RX decrements) and
 * qp->ord_wait (TX waits for a credit, RX kicks it); qp->ird.lock
 * guards the ird ring indices.  No lock is held across kernel_sendmsg():
 * its release_sock() may run our own data_ready.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/socket.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/dst.h>
#include <net/rtnetlink.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "softiw.h"
#include "crc.h"
#include "mem.h"
#include "cm.h"
#include "copy.h"
#include "cq.h"
#include "qp.h"
#include "txrx.h"

/* Octets of FPDUs gathered before one call into TCP (a batch page). */
#define SOFTIW_TX_BATCH		(64 * 1024)
/* Largest ULPDU we build: a full-size DDP segment or a Terminate. */
#define SOFTIW_TX_MULPDU_MAX	0xffffu

enum {
	TX_CUR_NONE,
	TX_CUR_WQE,		/* qp->tx.wqe, segmented by tx.seg */
	TX_CUR_RRESP,		/* qp->tx.rresp, segmented by tx.seg */
};

static struct workqueue_struct *softiw_tx_wq;

static bool softiw_tx_splice = true;
module_param_named(tx_splice, softiw_tx_splice, bool, 0644);
MODULE_PARM_DESC(tx_splice,
		 "Splice TX batches into TCP instead of copying them (default Y)");

static bool softiw_tx_zcopy_local;
module_param_named(tx_zcopy_local, softiw_tx_zcopy_local, bool, 0644);
MODULE_PARM_DESC(tx_zcopy_local,
		 "Zero-copy transmit also where the kernel copies the pages anyway (loopback, veth, bridge), which only costs there (default N; for testing)");

static unsigned int softiw_tx_zcopy_min = 32768;
module_param_named(tx_zcopy_min, softiw_tx_zcopy_min, uint, 0644);
MODULE_PARM_DESC(tx_zcopy_min,
		 "Send the payload of SEND and RDMA WRITE work requests of at least this many octets from the application's registered pages without copying; they complete when TCP has let go of the pages (0: always copy; default 32768)");

/*
 * Zero-copy transmit.  A SEND or RDMA WRITE of at least tx_zcopy_min
 * octets from user regions does not have its payload copied into the
 * batch page: each of its FPDUs is the header and trailer octets in the
 * batch page around the application's own pages, and the batch goes to
 * TCP as a list of page fragments (softiw_mem_pages_out() references the
 * pages; TCP takes references of its own) with MSG_ZEROCOPY and a
 * ubuf_info of ours (struct softiw_tx_zcb).  TCP keeps those pages until
 * the peer has ACKed the octets, and may send them again until then, so
 * such a work request completes only when TCP has dropped the last
 * reference to its batch's ubuf_info: softiw_tx_zc_put() marks the batch
 * released and kicks the engine, which completes its work requests
 * (tx_zc_reap(); softiw_sq_done() keeps completions in SQ order).  The
 * CRC is computed from the pages when the FPDU is framed.  Markers, a
 * kernel region, a batch without a page of ours (tx_splice=N) or a failed
 * allocation mean the payload is copied as before; so does a stream whose
 * route leaves through loopback, a veth or a bridge (unless
 * tx_zcopy_local): the kernel copies zero-copy fragments there itself
 * (skb_orphan_frags()), and our own copy into the batch is cheaper.  A batch TCP still
 * holds when the QP is detached is left to TCP and freed by its last
 * callback; its work requests are flushed with the QP.  Each batch holds
 * a module reference, since TCP may call back after the QP is gone.
 *
 * Locking: zc->lock (irqsave) guards zc->qp and the list of batches sent
 * and their @released flags; everything else is the engine's (tx.run).
 */
#define SOFTIW_TX_ZC_FRAGS	256

struct softiw_tx_zc {
	spinlock_t lock;		/* @qp, @batches, their @released */
	struct kref ref;		/* the QP's, and one per batch */
	struct softiw_qp *qp;		/* NULL once detached */
	struct list_head batches;	/* sent, not yet reaped */
};

struct softiw_tx_zcb {
	struct ubuf_info ubuf;		/* TCP's references, and ours */
	struct softiw_tx_zc *zc;
	struct list_head node;		/* in zc->batches once sent */
	bool released;			/* TCP let go of every page */
	u32 nr;
	struct softiw_wqe *wqe[ARRAY_SIZE(((struct softiw_qp_tx *)NULL)->pend)];
};

static void tx_queue(struct softiw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->tx.lock, flags);
	if (!qp->tx.stopped)
		queue_work(softiw_tx_wq, &qp->tx.work);
	spin_unlock_irqrestore(&qp->tx.lock, flags);
}

static void tx_run(struct softiw_qp *qp);

static void tx_zc_free(struct kref *ref)
{
	kfree(container_of(ref, struct softiw_tx_zc, ref));
}

static void tx_zcb_free(struct softiw_tx_zcb *b)
{
	struct softiw_tx_zc *zc = b->zc;

	kfree(b);
	kref_put(&zc->ref, tx_zc_free);
	/* TCP may call back after the last QP is gone: see the section */
	module_put(THIS_MODULE);
}

void softiw_tx_zc_put(struct ubuf_info *uarg)
{
	struct softiw_tx_zcb *b = container_of(uarg, struct softiw_tx_zcb,
					       ubuf);
	struct softiw_tx_zc *zc = b->zc;
	struct softiw_qp *qp;
	unsigned long flags;
	bool orphan;

	if (!refcount_dec_and_test(&uarg->refcnt))
		return;
	spin_lock_irqsave(&zc->lock, flags);
	b->released = true;
	qp = zc->qp;
	orphan = !qp;
	if (orphan) {
		list_del_init(&b->node);
	} else if (!in_task() || (READ_ONCE(qp->tx.owner) != current &&
				  current_work() != &qp->tx.work)) {
		/*
		 * Not called from inside the engine's own TCP call (which
		 * reaps right after it): the work item reaps.
		 */
		tx_queue(qp);
	}
	spin_unlock_irqrestore(&zc->lock, flags);
	if (orphan)
		tx_zcb_free(b);
}

/* Complete the work requests of every batch TCP has let go of. */
static void tx_zc_reap(struct softiw_qp *qp)
{
	struct softiw_tx_zc *zc = qp->tx.zc;
	struct softiw_tx_zcb *b, *tmp;
	unsigned long flags;
	LIST_HEAD(done);
	u32 i;

	if (!zc || list_empty(&zc->batches))
		return;
	spin_lock_irqsave(&zc->lock, flags);
	list_for_each_entry_safe(b, tmp, &zc->batches, node)
		if (b->released)
			list_move_tail(&b->node, &done);
	spin_unlock_irqrestore(&zc->lock, flags);
	list_for_each_entry_safe(b, tmp, &done, node) {
		for (i = 0; i < b->nr; i++)
			softiw_sq_done(qp, b->wqe[i], IB_WC_SUCCESS);
		tx_zcb_free(b);
	}
}

/*
 * Deferred kicks.  A thread running a user QP's engine inline hands
 * FPDUs to TCP; over veth or loopback the receiving side's softirq runs
 * right there, in that thread, and may find work for another user QP's
 * engine (an inbound Read Request to answer).  Waking a worker for it
 * would put a switch to the worker and back on the Read's critical path;
 * instead the softirq notes the QP (referenced) in the thread's slot on
 * this CPU, and the thread runs that engine itself when its own is done.
 * One level only: engines run from a slot get no slot of their own, and
 * a slot that fills up, or an engine that goes round for another batch,
 * hands what it holds to the workqueue.
 *
 * Slots are per CPU.  Their owner cannot migrate while it holds one
 * (migrate_disable()) and touches it with bottom halves off; the only
 * other user is softirq on the same CPU interrupting that very thread
 * (current == @task), so nothing else is needed.
 */
#define TX_DEFER_SLOTS	4
#define TX_DEFER_QPS	4

struct tx_defer_slot {
	struct task_struct *task;
	unsigned int n;
	struct softiw_qp *qp[TX_DEFER_QPS];
};

struct tx_defer_cpu {
	struct tx_defer_slot slot[TX_DEFER_SLOTS];
};

static DEFINE_PER_CPU(struct tx_defer_cpu, tx_defer_cpu);

/* A free slot of this CPU for current (migration off), or NULL. */
static struct tx_defer_slot *tx_defer_claim(void)
{
	struct tx_defer_cpu *c;
	struct tx_defer_slot *slot = NULL;
	int i;

	local_bh_disable();
	c = this_cpu_ptr(&tx_defer_cpu);
	for (i = 0; i < TX_DEFER_SLOTS; i++) {
		if (!c->slot[i].task) {
			slot = &c->slot[i];
			slot->task = current;
			slot->n = 0;
			break;
		}
	}
	local_bh_enable();
	return slot;
}

/* Softirq: note @qp for the thread it interrupted, if that one has a slot. */
static bool tx_defer_add(struct softiw_qp *qp)
{
	struct tx_defer_cpu *c;
	struct tx_defer_slot *slot;
	unsigned int i, j;

	if (!qp->is_user || !in_serving_softirq() || in_hardirq())
		return false;
	c = this_cpu_ptr(&tx_defer_cpu);
	for (i = 0; i < TX_DEFER_SLOTS; i++) {
		slot = &c->slot[i];
		if (slot->task != current)
			continue;
		for (j = 0; j < slot->n; j++)
			if (slot->qp[j] == qp)
				return true;
		if (slot->n == TX_DEFER_QPS)
			return false;
		softiw_qp_ref(qp);
		slot->qp[slot->n++] = qp;
		return true;
	}
	return false;
}

/*
 * Take what @slot holds; with @done the slot is given back when it
 * holds nothing.  Returns how many QPs went to @qp.
 */
static unsigned int tx_defer_take(struct tx_defer_slot *slot,
				  struct softiw_qp **qp, bool done)
{
	unsigned int n;

	local_bh_disable();
	n = slot->n;
	memcpy(qp, slot->qp, n * sizeof(*qp));
	slot->n = 0;
	if (done && !n)
		slot->task = NULL;
	local_bh_enable();
	return n;
}

static void tx_kick_once(struct softiw_qp *qp, bool inline_ok);

/*
 * Run (@inline_ok) or queue the engines @slot holds; with @done, until it
 * stays empty, and then give it back.  Engines run from here may fill it
 * again (their sends cause softirq work too); after TX_DEFER_ROUNDS
 * rounds the rest goes to the workqueue.
 */
#define TX_DEFER_ROUNDS	8

static void tx_defer_run(struct tx_defer_slot *slot, bool inline_ok,
			 bool done)
{
	struct softiw_qp *qp[TX_DEFER_QPS];
	unsigned int i, n, round = 0;

	do {
		n = tx_defer_take(slot, qp, done);
		inline_ok &= ++round <= TX_DEFER_ROUNDS;
		for (i = 0; i < n; i++) {
			tx_kick_once(qp[i], inline_ok);
			softiw_qp_put(qp[i]);
		}
	} while (n && done);
}

/*
 * Run the engine in the caller's context if it may and nobody else is;
 * with @defer, kicks for other user QPs that our own sends cause in
 * softirq are run here afterwards (see above).
 */
static bool tx_run_inline(struct softiw_qp *qp, bool defer)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct tx_defer_slot *slot = NULL;

	if (!qp->is_user || !in_task() || !preemptible() ||
	    READ_ONCE(tx->owner) == current || READ_ONCE(tx->stopped))
		return false;
	if (!mutex_trylock(&tx->run))
		return false;
	/* detached meanwhile (detach sets @stopped before it takes @run) */
	if (READ_ONCE(tx->stopped)) {
		mutex_unlock(&tx->run);
		return true;
	}
	if (defer) {
		migrate_disable();
		slot = tx_defer_claim();
	}
	tx->defer = slot;
	WRITE_ONCE(tx->owner, current);
	tx_run(qp);
	WRITE_ONCE(tx->owner, NULL);
	tx->defer = NULL;
	mutex_unlock(&tx->run);
	/* the unlock before reading @rerun: pairs with tx_work()'s barrier */
	smp_mb();
	if (xchg(&tx->rerun, false))
		tx_queue(qp);
	if (defer) {
		if (slot)
			tx_defer_run(slot, true, true);
		migrate_enable();
	}
	return true;
}

static void tx_kick_once(struct softiw_qp *qp, bool inline_ok)
{
	/* Pairs with the release in softiw_txrx_attach(): the stream is set up */
	if (!smp_load_acquire(&qp->tx.sock))
		return;
	if (!inline_ok || !tx_run_inline(qp, false))
		tx_queue(qp);
}

void softiw_tx_kick(struct softiw_qp *qp)
{
	/* Pairs with the release in softiw_txrx_attach(): the stream is set up */
	if (!smp_load_acquire(&qp->tx.sock))
		return;
	if (tx_run_inline(qp, true))
		return;
	if (!tx_defer_add(qp))
		tx_queue(qp);
}

void softiw_queue_work(struct work_struct *work)
{
	queue_work(softiw_tx_wq, work);
}

void softiw_tx_terminate(struct softiw_qp *qp,
			 const struct softiw_rdmap_term *t)
{
	unsigned long flags;

	/* As in softiw_tx_kick(): the stream is set up once sock is. */
	if (!smp_load_acquire(&qp->tx.sock))
		return;
	spin_lock_irqsave(&qp->tx.lock, flags);
	if (!qp->tx.term_pending && !qp->tx.term_sent) {
		qp->tx.term = *t;
		qp->tx.term_pending = true;
	}
	if (!qp->tx.stopped)
		queue_work(softiw_tx_wq, &qp->tx.work);
	spin_unlock_irqrestore(&qp->tx.lock, flags);
}

/* Room in the staging buffer for one FPDU carrying @ulpdu_len octets? */
static bool tx_room(struct softiw_qp_tx *tx, u32 ulpdu_len)
{
	u32 wire = softiw_mpa_wire_len(ulpdu_len, tx->mpa.markers,
				       tx->mpa.pos);

	if (tx->buf_len && tx->buf_len + tx->zc_len + wire > tx->batch_max)
		return false;
	return tx->buf_len + wire <= tx->buf_size;
}

/* Frame the ULPDU in tx->ulpdu into the staging buffer. */
static int tx_frame(struct softiw_qp_tx *tx, u32 ulpdu_len)
{
	int n = softiw_mpa_fpdu_build(&tx->mpa, tx->ulpdu, ulpdu_len,
				      tx->buf + tx->buf_len,
				      tx->buf_size - tx->buf_len);

	if (n < 0)
		return n;
	tx->buf_len += n;
	return 0;
}

/*
 * Where a data segment's ULPDU is built.  Without Markers the FPDU's
 * content is contiguous, so the ULPDU goes straight into its place in the
 * staging buffer and is framed there (softiw_mpa_fpdu_seal()): the
 * payload is copied once, from the registered buffer to the batch.  With
 * Markers it is built in tx->ulpdu and framed by copy.  The caller
 * checked the room (tx_room()), which covers the whole FPDU.
 */
static u8 *tx_ulpdu_at(struct softiw_qp_tx *tx, u32 *size)
{
	if (tx->mpa.markers) {
		*size = tx->ulpdu_size;
		return tx->ulpdu;
	}
	*size = tx->buf_size - tx->buf_len - SOFTIW_MPA_HDR_LEN;
	return tx->buf + tx->buf_len + SOFTIW_MPA_HDR_LEN;
}

/*
 * Frame one DDP segment: header @h, then @plen payload octets already at
 * @ulpdu (from tx_ulpdu_at()) + header length.
 */
static int tx_segment(struct softiw_qp_tx *tx, const struct softiw_ddp_hdr *h,
		      u8 *ulpdu, u32 size, u32 plen)
{
	int hlen = softiw_ddp_hdr_encode(h, ulpdu, size);
	int n;

	if (hlen < 0)
		return hlen;
	if (ulpdu == tx->ulpdu)
		return tx_frame(tx, hlen + plen);
	n = softiw_mpa_fpdu_seal(&tx->mpa, tx->buf + tx->buf_len, hlen + plen,
				 tx->buf_size - tx->buf_len);
	if (n < 0)
		return n;
	tx->buf_len += n;
	return 0;
}

static u32 tx_mem_err(int err)
{
	switch (err) {
	case -EACCES:
		return SOFTIW_RDMAP_ERR_ACCESS;
	case -EPERM:
		return SOFTIW_RDMAP_ERR_NOT_ASSOCIATED;
	case -ERANGE:
		return SOFTIW_RDMAP_ERR_BOUNDS;
	default:
		return SOFTIW_RDMAP_ERR_INVALID_STAG;
	}
}

static_assert(SOFTIW_TX_SGE_REFS == SOFTIW_MAX_SGE);

/* Let go of the regions tx_check_sges() kept for tx->sge_wqe. */
static void tx_sge_mem_put(struct softiw_qp_tx *tx)
{
	u32 i;

	if (!tx->sge_wqe)
		return;
	for (i = 0; i < ARRAY_SIZE(tx->sge_mem); i++) {
		if (tx->sge_mem[i])
			softiw_mem_put(tx->sge_mem[i]);
		tx->sge_mem[i] = NULL;
	}
	tx->sge_wqe = NULL;
}

/*
 * The region of SGE @i of @wqe: the one tx_check_sges() kept if it still
 * carries the SGE's key, else looked up (NULL if unknown).  *@kept says
 * which, so the caller drops only a reference of its own.
 */
static struct softiw_mem *tx_sge_mem(struct softiw_qp *qp,
				     struct softiw_wqe *wqe, u32 i,
				     bool *kept)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_mem *mem = tx->sge_wqe == wqe ? tx->sge_mem[i] : NULL;

	*kept = mem && READ_ONCE(mem->stag) == wqe->sge[i].lkey;
	return *kept ? mem : softiw_mem_get(qp->sdev, wqe->sge[i].lkey);
}

/*
 * Copy @len payload octets from offset @off of @wqe's local buffers to
 * @dst.  Each SGE's region (by its lkey) is checked (valid, local read,
 * PD, bounds) under its lock for exactly the octets used, so a region
 * revoked mid-message is refused.
 */
static int tx_gather(struct softiw_qp *qp, struct softiw_wqe *wqe, u32 off,
		     u8 *dst, u32 len)
{
	bool kept;
	u32 i;
	int ret;

	if (wqe->flags & SOFTIW_WQE_INLINE) {
		if (off > sizeof(wqe->inline_data) ||
		    len > sizeof(wqe->inline_data) - off)
			return -EINVAL;
		softiw_copy(dst, wqe->inline_data + off, len);
		return 0;
	}
	for (i = 0; i < wqe->num_sge && i < SOFTIW_MAX_SGE && len; i++) {
		struct softiw_sge *sge = &wqe->sge[i];
		struct softiw_mem *mem;
		u32 n;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min(len, sge->length - off);
		mem = tx_sge_mem(qp, wqe, i, &kept);
		if (!mem)
			return -ENOENT;
		ret = softiw_mem_copy_out(mem, qp, sge->lkey,
					  SOFTIW_ACCESS_LOCAL_READ,
					  sge->addr + off, dst, n);
		if (!kept)
			softiw_mem_put(mem);
		if (ret)
			return -EACCES;
		dst += n;
		len -= n;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

/* Check every SGE of @wqe up front (@access for each), before any octet
 * of the message goes out.  With @keep the regions stay referenced for
 * tx_gather() until tx_fill() returns (tx_sge_mem_put()).
 */
static int tx_check_sges(struct softiw_qp *qp, struct softiw_wqe *wqe,
			 int access, bool keep)
{
	struct softiw_qp_tx *tx = &qp->tx;
	u64 total = 0;
	u32 i;

	if (wqe->flags & SOFTIW_WQE_INLINE)
		return wqe->length <= SOFTIW_MAX_INLINE ? 0 : -EINVAL;
	if (wqe->num_sge > SOFTIW_MAX_SGE)
		return -EINVAL;
	if (keep) {
		tx_sge_mem_put(tx);
		tx->sge_wqe = wqe;
	}
	for (i = 0; i < wqe->num_sge; i++) {
		struct softiw_sge *sge = &wqe->sge[i];
		struct softiw_mem *mem;
		int ret;

		total += sge->length;
		if (!sge->length)
			continue;
		mem = softiw_mem_get(qp->sdev, sge->lkey);
		if (!mem) {
			ibdev_dbg(&qp->sdev->ibdev, "qp %u: lkey %#x unknown\n",
				  qp->ibqp.qp_num, sge->lkey);
			return -ENOENT;
		}
		ret = softiw_mem_check(mem, qp, sge->addr, sge->length,
				       access);
		if (ret || !keep)
			softiw_mem_put(mem);
		else
			tx->sge_mem[i] = mem;
		if (ret) {
			ibdev_dbg(&qp->sdev->ibdev,
				  "qp %u: lkey %#x [%#llx, +%u) access %#x: %d\n",
				  qp->ibqp.qp_num, sge->lkey, sge->addr,
				  sge->length, access, ret);
			return ret;
		}
	}
	return total == wqe->length ? 0 : -EINVAL;
}

/* Does @wqe's payload go from the application's pages (see above)? */
static bool tx_zc_wanted(struct softiw_qp *qp, struct softiw_wqe *wqe)
{
	u32 min = READ_ONCE(softiw_tx_zcopy_min);

	return qp->is_user && qp->tx.zc && min && wqe->length >= min &&
	       (!qp->tx.zc_route_copies || READ_ONCE(softiw_tx_zcopy_local)) &&
	       !(wqe->flags & SOFTIW_WQE_INLINE) &&
	       (wqe->opcode == SOFTIW_WR_SEND ||
		wqe->opcode == SOFTIW_WR_SEND_INV ||
		wqe->opcode == SOFTIW_WR_WRITE);
}

/* The batch's ubuf_info, made when its first zero-copy FPDU is staged. */
static bool tx_zc_begin(struct softiw_qp_tx *tx)
{
	struct softiw_tx_zcb *b;

	if (tx->zcb)
		return true;
	b = kzalloc(sizeof(*b), GFP_NOWAIT | __GFP_NOWARN);
	if (!b)
		return false;
	if (!try_module_get(THIS_MODULE)) {
		kfree(b);
		return false;
	}
	softiw_ubuf_init(&b->ubuf);
	kref_get(&tx->zc->ref);
	b->zc = tx->zc;
	INIT_LIST_HEAD(&b->node);
	tx->zcb = b;
	return true;
}

/* Drop our references to the batch's fragments. */
static void tx_zc_frags_put(struct softiw_qp_tx *tx)
{
	while (tx->nr_frags)
		put_page(tx->frag[--tx->nr_frags].bv_page);
	tx->frag_mark = 0;
	tx->zc_len = 0;
}

/* The batch page's octets from frag_mark to @end become a fragment. */
static void tx_zc_run(struct softiw_qp_tx *tx, u32 end)
{
	if (end == tx->frag_mark)
		return;
	get_page(tx->page);
	bvec_set_page(&tx->frag[tx->nr_frags++], tx->page,
		      end - tx->frag_mark, tx->frag_mark);
	tx->frag_mark = end;
}

/*
 * Reference @len payload octets from offset @off of @wqe's user regions
 * as fragments at @bv (room for @max).  Returns the number used, or
 * -EOPNOTSUPP (some SGE is not a user region: copy instead), -E2BIG, or
 * another error of the check; nothing stays referenced on error.
 */
static int tx_zc_gather(struct softiw_qp *qp, struct softiw_wqe *wqe, u32 off,
			u32 len, struct bio_vec *bv, u32 max)
{
	u32 i, n = 0;
	bool kept;
	int ret = 0;

	for (i = 0; i < wqe->num_sge && i < SOFTIW_MAX_SGE && len; i++) {
		struct softiw_sge *sge = &wqe->sge[i];
		struct softiw_mem *mem;
		u32 part;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		part = min(len, sge->length - off);
		mem = tx_sge_mem(qp, wqe, i, &kept);
		if (!mem) {
			ret = -ENOENT;
			break;
		}
		ret = softiw_mem_pages_out(mem, qp, sge->lkey, sge->addr + off,
					   part, bv + n, max - n);
		if (!kept)
			softiw_mem_put(mem);
		if (ret < 0)
			break;
		n += ret;
		ret = 0;
		len -= part;
		off = 0;
	}
	if (!ret && len)
		ret = -EINVAL;
	if (ret) {
		while (n)
			put_page(bv[--n].bv_page);
		return ret;
	}
	return n;
}

/*
 * Stage one DDP segment (header @h of @hlen octets, @plen payload octets
 * from offset @off of the current WQE) with its payload referenced in
 * place.  Returns 0, -E2BIG (no fragments left: the batch is full),
 * -EOPNOTSUPP (copy it instead; nothing staged) or another -errno.
 */
static int tx_zc_segment(struct softiw_qp *qp, const struct softiw_ddp_hdr *h,
			 u32 off, u32 plen, u32 hlen)
{
	struct softiw_qp_tx *tx = &qp->tx;
	u8 *fpdu = tx->buf + tx->buf_len;
	u32 reg, i, at;
	int n, ret;

	/* the header run, the payload, and the run that ends the batch */
	if (!tx->spliced)
		return -EOPNOTSUPP;
	if (tx->nr_frags + 3 > SOFTIW_TX_ZC_FRAGS)
		return -E2BIG;
	at = tx->nr_frags + 1;
	n = tx_zc_gather(qp, tx->wqe, off, plen, tx->frag + at,
			 SOFTIW_TX_ZC_FRAGS - 1 - at);
	if (n < 0)
		return n;
	ret = softiw_ddp_hdr_encode(h, fpdu + SOFTIW_MPA_HDR_LEN,
				    tx->buf_size - tx->buf_len -
				    SOFTIW_MPA_HDR_LEN);
	if (ret >= 0)
		ret = softiw_mpa_fpdu_open(&tx->mpa, fpdu, hlen + plen, hlen,
					   &reg);
	if (ret >= 0 && !tx_zc_begin(tx))
		ret = -EOPNOTSUPP;
	if (ret < 0) {
		while (n)
			put_page(tx->frag[at + --n].bv_page);
		return ret;
	}
	if (tx->mpa.crc) {
		for (i = at; i < at + n; i++) {
			u8 *p = kmap_local_page(tx->frag[i].bv_page);

			reg = tx->mpa.crc32c(reg, p + tx->frag[i].bv_offset,
					     tx->frag[i].bv_len);
			kunmap_local(p);
		}
	}
	tx->buf_len += SOFTIW_MPA_HDR_LEN + hlen;
	tx_zc_run(tx, tx->buf_len);
	tx->nr_frags += n;
	tx->zc_len += plen;
	/* PAD and CRC start the next run of the batch page */
	ret = softiw_mpa_fpdu_close(&tx->mpa, reg, hlen + plen,
				    tx->buf + tx->buf_len,
				    tx->buf_size - tx->buf_len);
	if (ret < 0)
		return ret;	/* cannot happen: tx_room() checked */
	tx->buf_len += ret;
	return 0;
}

/* A local error on @wqe: complete it with @status, QP to ERROR. */
static void tx_wqe_fail(struct softiw_qp *qp, struct softiw_wqe *wqe,
			u8 status)
{
	qp->tx.wqe = NULL;
	qp->tx.cur = TX_CUR_NONE;
	softiw_sq_done(qp, wqe, status);
	softiw_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
}

/*
 * @wqe (qp->tx.wqe, nothing of it staged) is refused with @status.  The
 * entries staged ahead of it go out and complete first: until then it
 * waits as for ORD or a fence, and tx_pick_sq() starts it again.
 */
static bool tx_wqe_refuse(struct softiw_qp *qp, struct softiw_wqe *wqe,
			  u8 status)
{
	if (!qp->tx.nr_pend)
		tx_wqe_fail(qp, wqe, status);
	return false;
}

/*
 * A local operation on @wqe (Local Invalidate, fast registration, Bind)
 * returned @ret: success completes it at once; a failure is refused with
 * @status by tx_wqe_refuse(), after the entries staged ahead of it.
 */
static bool tx_local_done(struct softiw_qp *qp, struct softiw_wqe *wqe,
			  int ret, u8 status)
{
	if (ret)
		return tx_wqe_refuse(qp, wqe, status);
	qp->tx.wqe = NULL;
	softiw_sq_done(qp, wqe, IB_WC_SUCCESS);
	return false;
}

/* Fast registration (IB_WR_REG_MR): the MR takes the new key and access. */
static int tx_reg_mr(struct softiw_qp *qp, struct softiw_wqe *wqe)
{
	struct softiw_mem *mem;
	unsigned long flags;

	if (!wqe->reg_mr)
		return -EINVAL;
	mem = to_softiw_mem(wqe->reg_mr);
	/* only fast-register MRs of this PD, same STag index */
	if (!mem->kva || mem->pd != qp->pd ||
	    (wqe->reg_key >> 8) != (mem->stag >> 8))
		return -EPERM;
	/*
	 * Placement reads these locklessly (softiw_mem_get() and
	 * softiw_mem_check() use READ_ONCE); @valid goes last, so a lookup
	 * that sees it also sees the new range and rights.
	 */
	write_lock_irqsave(&mem->lock, flags);
	WRITE_ONCE(mem->access, wqe->reg_access);
	WRITE_ONCE(mem->iova, mem->ibmr.iova);
	WRITE_ONCE(mem->len, mem->ibmr.length);
	mem->ibmr.lkey = wqe->reg_key;
	mem->ibmr.rkey = wqe->reg_key;
	WRITE_ONCE(mem->stag, wqe->reg_key);
	smp_wmb();	/* range and rights before @valid, see above */
	WRITE_ONCE(mem->valid, true);
	write_unlock_irqrestore(&mem->lock, flags);
	return 0;
}

/*
 * Take the ORD credit for one Read Request; false if none is free, and
 * then RX kicks us when a Read Response returns one (qp->ord_wait).
 */
static bool tx_ord_take(struct softiw_qp *qp)
{
	unsigned long flags;
	bool ok = false;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->ord_outstanding < qp->params.ord) {
		qp->ord_outstanding++;
		ok = true;
	} else {
		qp->ord_wait = true;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return ok;
}

/* Reads outstanding (a fence waits): RX kicks us when one is answered. */
static bool tx_reads_outstanding(struct softiw_qp *qp)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&qp->sq.lock, flags);
	busy = qp->ord_outstanding != 0;
	if (busy)
		qp->ord_wait = true;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return busy;
}

/* Stage the single-segment Read Request of @wqe (or the Read RTR). */
static int tx_read_req(struct softiw_qp *qp, struct softiw_wqe *wqe)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_rdmap_read_req rr = {};
	struct softiw_rdmap_hdr h;
	int hlen, n;

	softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_READ_REQ, 0, 0, tx->msn_rreq, 0);
	h.ddp.last = true;
	if (wqe && wqe->num_sge) {
		rr.sink_stag = wqe->sge[0].lkey;
		rr.sink_to = wqe->sge[0].addr;
	}
	if (wqe) {
		rr.size = wqe->length;
		rr.src_stag = wqe->rkey;
		rr.src_to = wqe->remote_addr;
	}
	hlen = softiw_ddp_hdr_encode(&h.ddp, tx->ulpdu, tx->ulpdu_size);
	if (hlen < 0)
		return hlen;
	n = softiw_rdmap_read_req_encode(&rr, tx->ulpdu + hlen,
					 tx->ulpdu_size - hlen);
	if (n < 0)
		return n;
	n = tx_frame(tx, hlen + n);
	if (!n)
		tx->msn_rreq = softiw_ddp_msn_next(tx->msn_rreq);
	return n;
}

/* The RTR of RFC 6581: the initiator's first FPDU. */
static int tx_rtr(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_rdmap_hdr h;
	int ret;

	if (!tx_room(tx, SOFTIW_DDP_UNTAGGED_HDR_LEN +
			 SOFTIW_RDMAP_READ_REQ_LEN))
		return -ENOSPC;
	/* zero-length messages: the header alone, built by copy */
	if (qp->params.rtr & SOFTIW_MPA_RTR_WRITE) {
		softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_WRITE, 0, 0, 0, 0);
		h.ddp.last = true;
		ret = tx_segment(tx, &h.ddp, tx->ulpdu, tx->ulpdu_size, 0);
	} else if (qp->params.rtr & SOFTIW_MPA_RTR_READ) {
		/* Uses one ORD credit; RX returns it on the Read Response. */
		if (!tx_ord_take(qp))
			return -EPROTO;
		WRITE_ONCE(qp->rx.rtr_read, true);
		ret = tx_read_req(qp, NULL);
	} else {
		softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_SEND, 0, 0,
				      tx->msn_send, 0);
		h.ddp.last = true;
		ret = tx_segment(tx, &h.ddp, tx->ulpdu, tx->ulpdu_size, 0);
		if (!ret)
			tx->msn_send = softiw_ddp_msn_next(tx->msn_send);
	}
	if (!ret)
		tx->rtr_pending = false;
	return ret;
}

/* Stage the queued Terminate; afterwards nothing else is sent. */
static void tx_term(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_rdmap_term t;
	unsigned long flags;
	int n;

	spin_lock_irqsave(&tx->lock, flags);
	t = tx->term;
	spin_unlock_irqrestore(&tx->lock, flags);
	n = softiw_rdmap_term_encode(&t, tx->msn_term, tx->ulpdu,
				     tx->ulpdu_size);
	if (n < 0 || !tx_room(tx, n))
		return;		/* retried once the batch is out */
	if (tx_frame(tx, n))
		return;
	tx->msn_term = softiw_ddp_msn_next(tx->msn_term);
	spin_lock_irqsave(&tx->lock, flags);
	tx->term_pending = false;
	tx->term_sent = true;
	spin_unlock_irqrestore(&tx->lock, flags);
}

/* Next segment of the current message; false when it did not fit. */
static bool tx_next_segment(struct softiw_qp *qp, bool *done, int *err)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_ddp_segmenter save = tx->seg;
	struct softiw_ddp_hdr h;
	u32 off, plen, hlen, size;
	u8 *ulpdu;

	*err = 0;
	if (!softiw_ddp_seg_next(&tx->seg, &h, &off, &plen)) {
		*done = true;
		return true;
	}
	hlen = softiw_ddp_hdr_len(h.tagged);
	if (!tx_room(tx, hlen + plen)) {
		tx->seg = save;
		return false;
	}
	if (tx->cur == TX_CUR_WQE && tx->zc_wqe && plen) {
		*err = tx_zc_segment(qp, &h, off, plen, hlen);
		if (*err == -E2BIG) {
			*err = 0;
			tx->seg = save;
			return false;
		}
		if (*err != -EOPNOTSUPP) {
			*done = h.last;
			return true;
		}
		/* not a user region, or no ubuf_info: copy from here on */
		tx->zc_wqe = false;
	}
	ulpdu = tx_ulpdu_at(tx, &size);
	if (tx->cur == TX_CUR_WQE) {
		*err = tx_gather(qp, tx->wqe, off, ulpdu + hlen, plen);
	} else if (plen) {
		struct softiw_mem *mem = tx->rresp_mem;

		/* the source tx_rresp_start() kept, while tx_fill() runs */
		if (!mem || READ_ONCE(mem->stag) != tx->rresp.src_stag) {
			if (mem)
				softiw_mem_put(mem);
			mem = softiw_mem_get(qp->sdev, tx->rresp.src_stag);
			tx->rresp_mem = mem;
		}
		*err = mem ? softiw_mem_copy_out(mem, qp, tx->rresp.src_stag,
						 IB_ACCESS_REMOTE_READ,
						 tx->rresp.src_to + off,
						 ulpdu + hlen, plen) : -ENOENT;
	}
	if (!*err)
		*err = tx_segment(tx, &h, ulpdu, size, plen);
	*done = h.last;
	return true;
}

/* Pop the Read Request at the head of qp->ird into tx->rresp. */
static bool tx_rresp_start(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_read_req *rr;
	struct softiw_rdmap_hdr h;
	unsigned long flags;
	bool found = false;
	int err;

	/* a hint: RX kicks us after it queues a request */
	if (READ_ONCE(qp->ird.tail) == READ_ONCE(qp->ird.head))
		return false;
	spin_lock_irqsave(&qp->ird.lock, flags);
	if (qp->ird.slots && qp->ird.tail != qp->ird.head) {
		rr = softiw_wq_slot(&qp->ird, qp->ird.tail, sizeof(*rr));
		tx->rresp.sink_stag = rr->sink_stag;
		tx->rresp.sink_to = rr->sink_to;
		tx->rresp.len = rr->len;
		tx->rresp.src_stag = rr->src_stag;
		tx->rresp.src_to = rr->src_to;
		qp->ird.tail++;
		found = true;
	}
	spin_unlock_irqrestore(&qp->ird.lock, flags);
	if (!found)
		return false;

	/* Check the whole source once; each segment re-checks its part. */
	if (tx->rresp.len) {
		struct softiw_mem *mem = softiw_mem_get(qp->sdev,
							tx->rresp.src_stag);

		err = mem ? softiw_mem_check(mem, qp, tx->rresp.src_to,
					     tx->rresp.len,
					     IB_ACCESS_REMOTE_READ) : -ENOENT;
		/* kept for the segments (tx_next_segment()) */
		if (tx->rresp_mem)
			softiw_mem_put(tx->rresp_mem);
		tx->rresp_mem = err ? NULL : mem;
		if (err && mem)
			softiw_mem_put(mem);
		if (err) {
			softiw_qp_terminate(qp, tx_mem_err(err), NULL, 0);
			return false;
		}
	}
	softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_READ_RESP, tx->rresp.sink_stag,
			      tx->rresp.sink_to, 0, 0);
	if (softiw_ddp_seg_init(&tx->seg, &h.ddp, tx->rresp.len, tx->mulpdu))
		return false;
	tx->cur = TX_CUR_RRESP;
	return true;
}

/*
 * Start @wqe.  Returns true if it became the current message; false if
 * it was handled at once (LOCAL_INV, REG_MR, a failure) or must wait
 * (ORD, fence: then it stays in tx->wqe with tx->cur NONE).
 */
static bool tx_wqe_start(struct softiw_qp *qp, struct softiw_wqe *wqe)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_rdmap_hdr h;
	u8 op;
	int ret;

	tx->wqe = wqe;
	tx->wqe_off = 0;
	if ((wqe->flags & SOFTIW_WQE_FENCE) && tx_reads_outstanding(qp))
		return false;
	switch (wqe->opcode) {
	case SOFTIW_WR_SEND:
	case SOFTIW_WR_SEND_INV:
		if (wqe->opcode == SOFTIW_WR_SEND_INV)
			op = (wqe->flags & SOFTIW_WQE_SOLICITED) ?
			     SOFTIW_RDMAP_SEND_SE_INV : SOFTIW_RDMAP_SEND_INV;
		else
			op = (wqe->flags & SOFTIW_WQE_SOLICITED) ?
			     SOFTIW_RDMAP_SEND_SE : SOFTIW_RDMAP_SEND;
		softiw_rdmap_hdr_init(&h, op, 0, 0, tx->msn_send,
				      wqe->inv_stag);
		break;
	case SOFTIW_WR_WRITE:
		softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_WRITE, wqe->rkey,
				      wqe->remote_addr, 0, 0);
		break;
	case SOFTIW_WR_READ:
		if (!qp->params.ord || wqe->num_sge > 1 ||
		    (wqe->length && !wqe->num_sge) ||
		    (wqe->flags & SOFTIW_WQE_INLINE))
			return tx_wqe_refuse(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		if (wqe->length &&
		    tx_check_sges(qp, wqe, IB_ACCESS_LOCAL_WRITE, false))
			return tx_wqe_refuse(qp, wqe, IB_WC_LOC_PROT_ERR);
		if (!tx_room(tx, SOFTIW_DDP_UNTAGGED_HDR_LEN +
				 SOFTIW_RDMAP_READ_REQ_LEN))
			return false;
		if (!tx_ord_take(qp))
			return false;	/* RX kicks us when one returns */
		ret = tx_read_req(qp, wqe);
		tx->wqe = NULL;
		/* The Read Response completes it (rx.c). */
		if (ret)
			softiw_qp_error(qp, IB_EVENT_QP_FATAL);
		return false;
	case SOFTIW_WR_LOCAL_INV:
		ret = softiw_mem_invalidate(qp->sdev, wqe->inv_stag, qp);
		return tx_local_done(qp, wqe, ret, IB_WC_LOC_PROT_ERR);
	case SOFTIW_WR_REG_MR:
		ret = tx_reg_mr(qp, wqe);
		return tx_local_done(qp, wqe, ret, IB_WC_LOC_PROT_ERR);
	case SOFTIW_WR_BIND_MW:
		ret = softiw_mw_bind(qp, &wqe->bind);
		/* counted once: a refusal may wait for the entries ahead */
		if (ret && !tx->nr_pend) {
			ibdev_dbg(&qp->sdev->ibdev,
				  "qp %u: bind of MW %#x refused: %d\n",
				  qp->ibqp.qp_num, wqe->bind.mw_stag, ret);
			softiw_stat_inc(qp->sdev, SOFTIW_STAT_MW_BIND_REFUSED);
		}
		return tx_local_done(qp, wqe, ret, IB_WC_MW_BIND_ERR);
	default:
		return tx_wqe_refuse(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	}
	if (tx_check_sges(qp, wqe, SOFTIW_ACCESS_LOCAL_READ, true))
		return tx_wqe_refuse(qp, wqe, IB_WC_LOC_PROT_ERR);
	if (softiw_ddp_seg_init(&tx->seg, &h.ddp, wqe->length, tx->mulpdu))
		return tx_wqe_refuse(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	tx->zc_wqe = tx_zc_wanted(qp, wqe);
	tx->cur = TX_CUR_WQE;
	return true;
}

/* The SQ side of tx_pick(). */
static bool tx_pick_sq(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_wqe *wqe;

	if (tx->wqe)			/* an entry waiting for ORD or fence */
		return tx_wqe_start(qp, tx->wqe);
	/*
	 * With FPDUs staged and nothing new in sight, they go to TCP first:
	 * the full look at the ring (which may idle the engine) comes when
	 * tx_run() fills the next batch.
	 */
	if (tx->buf_len && !softiw_sq_maybe_more(qp))
		return false;
	while (!READ_ONCE(tx->stopped) &&
	       tx->nr_pend < ARRAY_SIZE(tx->pend) &&
	       (wqe = softiw_sq_next(qp))) {
		if (tx_wqe_start(qp, wqe))
			return true;
		if (tx->wqe)
			break;		/* waits for ORD, fence or room */
	}
	return false;
}

/* Pick the next message: Read Responses and SQ entries take turns. */
static bool tx_pick(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	bool sq_first = tx->prefer_sq;

	if (sq_first && tx_pick_sq(qp)) {
		tx->prefer_sq = false;
		return true;
	}
	if (tx_rresp_start(qp)) {
		tx->prefer_sq = true;
		return true;
	}
	if (!sq_first && tx_pick_sq(qp)) {
		tx->prefer_sq = true;
		return true;
	}
	return false;
}

/* A message's last segment is staged. */
static void tx_msg_done(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_wqe *wqe = tx->wqe;

	if (tx->cur == TX_CUR_WQE) {
		if (wqe->opcode == SOFTIW_WR_SEND ||
		    wqe->opcode == SOFTIW_WR_SEND_INV)
			tx->msn_send = softiw_ddp_msn_next(tx->msn_send);
		tx->pend[tx->nr_pend].wqe = wqe;
		tx->pend[tx->nr_pend].end = tx->buf_len + tx->zc_len;
		tx->nr_pend++;
		tx->wqe = NULL;
	}
	tx->cur = TX_CUR_NONE;
}

static bool tx_page_idle(struct page *page)
{
	return page_count(page) == 1;
}

/*
 * Where the next batch is built (the previous one is all with TCP): our
 * batch page if TCP has let go of it, else the spare if TCP has let go of
 * that, else a new page, the busy spare being left to TCP; the copy
 * buffer when none of that works without waiting.
 */
static void tx_batch_begin(struct softiw_qp_tx *tx)
{
	struct page *page;

	tx->spliced = false;
	tx->buf = tx->copy_buf;
	if (!READ_ONCE(softiw_tx_splice))
		return;
	if (!tx->page || !tx_page_idle(tx->page)) {
		if (tx->spare && tx_page_idle(tx->spare)) {
			swap(tx->page, tx->spare);
		} else {
			page = alloc_pages(GFP_NOWAIT | __GFP_NOWARN | __GFP_COMP,
					   tx->page_order);
			if (!page)
				return;
			softiw_stat_inc(container_of(tx, struct softiw_qp, tx)->sdev,
					SOFTIW_STAT_TX_PAGE_ALLOC);
			if (tx->spare)
				put_page(tx->spare);
			tx->spare = tx->page;
			tx->page = page;
		}
	}
	tx->spliced = true;
	tx->buf = page_address(tx->page);
}

static void tx_pages_put(struct softiw_qp_tx *tx)
{
	if (tx->page)
		put_page(tx->page);
	if (tx->spare)
		put_page(tx->spare);
	tx->page = NULL;
	tx->spare = NULL;
}

/* Stage FPDUs until the batch is full or nothing is left; true if any. */
static bool tx_fill(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	u32 start = tx->buf_len;
	bool done;
	int err;

	if (!start)
		tx_batch_begin(tx);

	while (!READ_ONCE(tx->stopped)) {
		if (READ_ONCE(tx->term_pending)) {
			tx_term(qp);
			break;
		}
		if (tx->rtr_pending) {
			if (tx_rtr(qp))
				break;
			continue;
		}
		/* RFC 6581: the responder sends nothing before the RTR. */
		if (READ_ONCE(qp->rx.rtr_pending))
			break;
		if (tx->cur == TX_CUR_NONE) {
			if (tx->nr_pend == ARRAY_SIZE(tx->pend) || !tx_pick(qp))
				break;
			continue;
		}
		if (!tx_next_segment(qp, &done, &err))
			break;		/* batch full */
		if (err) {
			if (tx->cur == TX_CUR_WQE) {
				tx_wqe_fail(qp, tx->wqe, IB_WC_LOC_PROT_ERR);
			} else {
				tx->cur = TX_CUR_NONE;
				softiw_qp_terminate(qp, tx_mem_err(err), NULL, 0);
			}
			break;
		}
		if (done)
			tx_msg_done(qp);
	}
	/* no region stays referenced outside tx_fill(): dereg waits for us */
	tx_sge_mem_put(tx);
	if (tx->rresp_mem)
		softiw_mem_put(tx->rresp_mem);
	tx->rresp_mem = NULL;
	return tx->buf_len > start;
}

/*
 * Complete the staged WQEs TCP has fully accepted; those of a zero-copy
 * batch wait for its release (tx_zc_sent()).
 */
static void tx_complete(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	u32 i, n = 0;

	if (tx->zcb)
		return;
	for (i = 0; i < tx->nr_pend; i++) {
		if (tx->pend[i].end > tx->buf_sent)
			break;
		softiw_sq_done(qp, tx->pend[i].wqe, IB_WC_SUCCESS);
		n++;
	}
	if (!n)
		return;
	memmove(tx->pend, tx->pend + n, (tx->nr_pend - n) * sizeof(tx->pend[0]));
	tx->nr_pend -= n;
}

/*
 * A zero-copy batch is all with TCP: its staged WQEs become the batch's,
 * which is listed for tx_zc_reap(), and our references go (the last of
 * them may release it at once, when TCP is done already).
 */
static void tx_zc_sent(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_tx_zcb *b = tx->zcb;
	unsigned long flags;
	u32 i;

	for (i = 0; i < tx->nr_pend; i++)
		b->wqe[b->nr++] = tx->pend[i].wqe;
	tx->nr_pend = 0;
	spin_lock_irqsave(&tx->zc->lock, flags);
	list_add_tail(&b->node, &tx->zc->batches);
	spin_unlock_irqrestore(&tx->zc->lock, flags);
	tx_zc_frags_put(tx);
	tx->zcb = NULL;
	softiw_tx_zc_put(&b->ubuf);
}

/* Send the fragments of a zero-copy batch from octet @tx->buf_sent on. */
static int tx_zc_push(struct softiw_qp_tx *tx, u32 len, int flags)
{
	struct msghdr msg = {
		.msg_flags = flags | MSG_ZEROCOPY,
		.msg_ubuf = &tx->zcb->ubuf,
	};

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, tx->frag, tx->nr_frags, len);
	iov_iter_advance(&msg.msg_iter, tx->buf_sent);
	return sock_sendmsg(tx->sock, &msg);
}

/*
 * Hand the staged octets to TCP without blocking.  Returns 0 when all
 * went out, -EAGAIN when the socket is full (write_space re-queues us;
 * TCP set SOCK_NOSPACE before refusing, so the wakeup cannot be lost),
 * or another -errno when the stream is broken.
 */
static int tx_push(struct softiw_qp *qp, bool complete)
{
	struct softiw_qp_tx *tx = &qp->tx;
	u32 len = tx->buf_len + tx->zc_len;
	int ret = 0;

	if (tx->zcb)
		tx_zc_run(tx, tx->buf_len);
	while (tx->buf_sent < len) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
		struct kvec iov = {
			.iov_base = tx->buf + tx->buf_sent,
			.iov_len = tx->buf_len - tx->buf_sent,
		};

		if (tx->zcb)
			ret = tx_zc_push(tx, len, msg.msg_flags);
		else if (tx->spliced)
			ret = softiw_sock_splice(tx->sock, tx->page,
						 tx->buf_sent, iov.iov_len,
						 msg.msg_flags);
		else
			ret = kernel_sendmsg(tx->sock, &msg, &iov, 1,
					     iov.iov_len);
		if (ret <= 0) {
			ret = ret ? ret : -EAGAIN;
			break;
		}
		tx->buf_sent += ret;
		ret = 0;
	}
	if (!ret && tx->zcb) {
		tx_zc_sent(qp);
		softiw_stat_inc(qp->sdev, SOFTIW_STAT_TX_ZEROCOPY);
	} else if (!ret && tx->buf_len) {
		softiw_stat_inc(qp->sdev, tx->spliced ?
				SOFTIW_STAT_TX_SPLICED :
				SOFTIW_STAT_TX_COPIED);
	}
	if (complete)
		tx_complete(qp);
	if (!ret) {
		tx->buf_len = 0;
		tx->buf_sent = 0;
		/* completions refer to offsets of the batch just sent */
		tx->nr_pend = complete ? tx->nr_pend : 0;
	}
	return ret;
}

/* Best effort, never blocking: what is staged, then a queued Terminate. */
static void tx_final(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;

	if (!tx->buf || tx_push(qp, false))
		return;
	if (tx->term_pending && !tx->term_sent) {
		tx_batch_begin(tx);
		tx_term(qp);
		tx_push(qp, false);
	}
}

/* The engine proper; the caller holds tx.run. */
static void tx_run(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	bool again = false;
	int ret;

	while (!READ_ONCE(tx->stopped)) {
		/* an idle engine has nothing staged (nor completions due) */
		ret = tx->buf_len ? tx_push(qp, true) : 0;
		tx_zc_reap(qp);
		if (ret == -EAGAIN)
			return;
		if (ret) {
			softiw_qp_error(qp, IB_EVENT_QP_FATAL);
			return;
		}
		if (tx->term_sent || !tx_fill(qp))
			return;
		/* another batch: what waits for us goes to the workqueue */
		if (again && tx->defer)
			tx_defer_run(tx->defer, false, false);
		again = true;
		cond_resched();
	}
	/* Stopped from inside the engine (a Terminate for a local error). */
	tx_final(qp);
}

static void tx_work(struct work_struct *work)
{
	struct softiw_qp *qp = container_of(work, struct softiw_qp, tx.work);
	struct softiw_qp_tx *tx = &qp->tx;

	WRITE_ONCE(tx->rerun, true);
	/* @rerun before the trylock: a holder letting go after it sees it */
	smp_mb();
	if (!mutex_trylock(&tx->run))
		return;
	WRITE_ONCE(tx->rerun, false);
	softiw_stat_inc(qp->sdev, SOFTIW_STAT_TX_RUN_WORKER);
	tx_run(qp);
	mutex_unlock(&tx->run);
	/* the unlock before reading @rerun, as in tx_run_inline() */
	smp_mb();
	if (xchg(&tx->rerun, false))
		tx_queue(qp);
}

static void tx_write_space(struct sock *sk)
{
	struct softiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = softiw_cm_sk_qp(sk);
	if (qp && !qp->rx.detached && sk_stream_is_writeable(sk)) {
		if (sk->sk_socket)
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		softiw_tx_kick(qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Does the stream leave through a device that copies zero-copy fragments
 * anyway: loopback (local delivery), a veth or a bridge (forwarding)?
 */
static bool tx_zc_route_copies(struct sock *sk)
{
	struct dst_entry *dst = sk_dst_get(sk);
	const struct net_device *dev = dst ? dst->dev : NULL;
	bool copies = true;

	if (dev) {
		const char *kind = dev->rtnl_link_ops ?
				   dev->rtnl_link_ops->kind : "";

		copies = (dev->flags & IFF_LOOPBACK) || !strcmp(kind, "veth") ||
			 !strcmp(kind, "bridge");
	}
	dst_release(dst);
	return copies;
}

/*
 * Zero-copy needs the shared state and a fragment array; without them
 * (Markers on TX, no memory) payload is copied.
 */
static void tx_zc_attach(struct softiw_qp *qp, struct sock *sk)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct softiw_tx_zc *zc;

	if (tx->mpa.markers)
		return;
	tx->zc_route_copies = tx_zc_route_copies(sk);
	zc = kzalloc(sizeof(*zc), GFP_KERNEL);
	tx->frag = kvmalloc_array(SOFTIW_TX_ZC_FRAGS, sizeof(*tx->frag),
				  GFP_KERNEL);
	if (!zc || !tx->frag) {
		kfree(zc);
		kvfree(tx->frag);
		tx->frag = NULL;
		return;
	}
	spin_lock_init(&zc->lock);
	kref_init(&zc->ref);
	zc->qp = qp;
	INIT_LIST_HEAD(&zc->batches);
	tx->zc = zc;
}

/*
 * Detach (tx.run held, engine stopped): from now on a batch's last
 * callback frees it.  Batches TCP has released already complete here;
 * the others' work requests are flushed with the QP.
 */
static void tx_zc_detach(struct softiw_qp *qp)
{
	struct softiw_tx_zc *zc = qp->tx.zc;
	unsigned long flags;

	if (!zc)
		return;
	tx_zc_reap(qp);
	spin_lock_irqsave(&zc->lock, flags);
	zc->qp = NULL;
	spin_unlock_irqrestore(&zc->lock, flags);
	/* released between the reap and the lock: ours to free */
	tx_zc_reap(qp);
}

/*
 * After detach's tx_final(): a batch TCP did not take whole is given up
 * (the fragments TCP took stay its own), and our part of the shared
 * state goes.
 */
static void tx_zc_abort(struct softiw_qp_tx *tx)
{
	struct softiw_tx_zcb *b = tx->zcb;

	if (b) {
		tx_zc_frags_put(tx);
		tx->zcb = NULL;
		softiw_tx_zc_put(&b->ubuf);
	}
	tx->nr_frags = 0;
	if (tx->zc)
		kref_put(&tx->zc->ref, tx_zc_free);
	tx->zc = NULL;
	kvfree(tx->frag);
	tx->frag = NULL;
}

int softiw_txrx_attach(struct softiw_qp *qp, struct socket *sock)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct sock *sk = sock->sk;
	u32 mulpdu = min_t(u32, qp->params.mulpdu, SOFTIW_TX_MULPDU_MAX);
	u32 ulpdu_size, fpdu_max;
	unsigned long flags;

	/* The smallest segment we must build is a whole Read Request. */
	if (mulpdu < SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_READ_REQ_LEN)
		return -EINVAL;
	ulpdu_size = max_t(u32, mulpdu, SOFTIW_DDP_UNTAGGED_HDR_LEN +
			   SOFTIW_RDMAP_TERM_MAX_LEN);
	/*
	 * The stream's part of @tx is cleared and set holding @run: a
	 * doorbell or a work item left over from the last stream either
	 * finished with it or finds it whole.
	 */
	mutex_lock(&tx->run);
	if (tx->sock) {
		mutex_unlock(&tx->run);
		return -EBUSY;
	}
	memset_startat(tx, 0, sock);
	tx->ulpdu_size = ulpdu_size;
	tx->ulpdu = kvmalloc(ulpdu_size, GFP_KERNEL);
	if (!tx->ulpdu)
		goto err_unlock;
	/*
	 * A batch page holds SOFTIW_TX_BATCH octets, or at least as much
	 * again as the largest FPDU (Markers included) where FPDUs are big;
	 * a batch stops one largest FPDU short of its end.
	 */
	fpdu_max = ulpdu_size + SOFTIW_MPA_HDR_LEN + 3 + SOFTIW_MPA_CRC_LEN +
		   SOFTIW_MPA_MARKER_LEN * (ulpdu_size / 256 + 2);
	tx->page_order = get_order(SOFTIW_TX_BATCH);
	if (fpdu_max > SOFTIW_TX_BATCH / 4)
		tx->page_order = get_order(SOFTIW_TX_BATCH + fpdu_max);
	tx->buf_size = PAGE_SIZE << tx->page_order;
	tx->batch_max = tx->buf_size - fpdu_max;
	tx->copy_buf = kvmalloc(tx->buf_size, GFP_KERNEL);
	if (!tx->copy_buf)
		goto err_free_ulpdu;
	tx->buf = tx->copy_buf;
	tx->mulpdu = mulpdu;
	tx->mpa.crc32c = softiw_mpa_crc32c;
	tx->mpa.crc = qp->params.crc;
	tx->mpa.markers = qp->params.markers_tx;
	tx->msn_send = SOFTIW_DDP_MSN_INITIAL;
	tx->msn_rreq = SOFTIW_DDP_MSN_INITIAL;
	tx->msn_term = SOFTIW_DDP_MSN_INITIAL;
	tx->rtr_pending = qp->params.initiator && qp->params.rtr;
	tx_zc_attach(qp, sk);
	if (softiw_rx_init(qp))
		goto err_free_buf;

	write_lock_bh(&sk->sk_callback_lock);
	tx->saved_data_ready = sk->sk_data_ready;
	tx->saved_write_space = sk->sk_write_space;
	sk->sk_data_ready = softiw_rx_data_ready;
	sk->sk_write_space = tx_write_space;
	/* Publishes the stream's state to softiw_tx_kick(). */
	smp_store_release(&tx->sock, sock);
	write_unlock_bh(&sk->sk_callback_lock);
	mutex_unlock(&tx->run);

	/* FPDUs that arrived before the callbacks were ours. */
	lock_sock(sk);
	softiw_rx_data_ready(sk);
	release_sock(sk);
	softiw_tx_kick(qp);
	return 0;

err_free_buf:
	tx_zc_abort(tx);
	kvfree(tx->copy_buf);
	tx->copy_buf = NULL;
	tx->buf = NULL;
err_free_ulpdu:
	kvfree(tx->ulpdu);
	tx->ulpdu = NULL;
err_unlock:
	/* no stream after all: a kick or work item that gets here stops */
	spin_lock_irqsave(&tx->lock, flags);
	tx->stopped = true;
	spin_unlock_irqrestore(&tx->lock, flags);
	mutex_unlock(&tx->run);
	return -ENOMEM;
}

void softiw_txrx_qp_init(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;

	spin_lock_init(&tx->lock);
	mutex_init(&tx->run);
	INIT_WORK(&tx->work, tx_work);
	/* no stream: kicks find @sock NULL, a stray work item @stopped */
	tx->stopped = true;
}

void softiw_txrx_qp_destroy(struct softiw_qp *qp)
{
	/* queued by a kick that raced the last detach, if any */
	cancel_work_sync(&qp->tx.work);
	mutex_destroy(&qp->tx.run);
}

/* Is the caller one of our own engine contexts for @qp? */
static bool txrx_in_engine(struct softiw_qp *qp)
{
	return !in_task() || current_work() == &qp->tx.work ||
	       READ_ONCE(qp->tx.owner) == current ||
	       READ_ONCE(qp->rx.owner) == current;
}

void softiw_txrx_detach(struct softiw_qp *qp)
{
	struct softiw_qp_tx *tx = &qp->tx;
	struct socket *sock = READ_ONCE(tx->sock);
	unsigned long flags;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	spin_lock_irqsave(&tx->lock, flags);
	tx->stopped = true;
	spin_unlock_irqrestore(&tx->lock, flags);
	WRITE_ONCE(qp->rx.stopped, true);
	/*
	 * From softirq, from the TX work or from inside our data_ready we
	 * can neither take sk_callback_lock for writing nor wait for
	 * ourselves: the engines are stopped, and the next call from plain
	 * process context (destroy_qp at the latest) finishes the job.
	 */
	if (txrx_in_engine(qp))
		return;

	write_lock_bh(&sk->sk_callback_lock);
	if (!qp->rx.detached) {
		/*
		 * A data_ready that already loaded our pointer sees
		 * @detached under the read lock and does nothing.
		 */
		qp->rx.detached = true;
		sk->sk_data_ready = tx->saved_data_ready;
		sk->sk_write_space = tx->saved_write_space;
	}
	write_unlock_bh(&sk->sk_callback_lock);

	cancel_work_sync(&tx->work);
	/*
	 * A poster may still be running the engine inline: wait for it, and
	 * keep @run until the engine's state is gone, so that one who
	 * passed the @stopped check before we set it and takes @run only
	 * now finds @stopped (tx_run_inline()) and nothing freed under it.
	 * The work item only trylocks @run, so cancelling it here is safe.
	 */
	mutex_lock(&tx->run);
	cancel_work_sync(&tx->work);
	tx_zc_detach(qp);
	tx_final(qp);
	tx_zc_abort(tx);
	softiw_rx_release(qp);
	/* pages TCP still holds are freed when it lets go */
	tx_pages_put(tx);
	kvfree(tx->copy_buf);
	tx->copy_buf = NULL;
	tx->buf = NULL;
	kvfree(tx->ulpdu);
	tx->ulpdu = NULL;
	tx->wqe = NULL;
	tx->nr_pend = 0;
	WRITE_ONCE(tx->sock, NULL);
	mutex_unlock(&tx->run);
}

int softiw_txrx_init(void)
{
	softiw_tx_wq = alloc_workqueue("softiw_tx", WQ_UNBOUND | WQ_MEM_RECLAIM,
				       0);
	return softiw_tx_wq ? 0 : -ENOMEM;
}

void softiw_txrx_exit(void)
{
	destroy_workqueue(softiw_tx_wq);
}
