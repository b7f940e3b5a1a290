/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw resource manager (RFC 5042 section 2's privileged resource
 * manager): every PD, CQ, QP, SRQ and MR, and every CQ entry, is charged
 * here before it is created and uncharged when it is destroyed, against
 * a per-device limit and, for objects of a process, a per-process limit
 * (all the contexts a process opens on the device share one, struct
 * softiw_rm_proc).  The limits are module parameters (rm.c), read at
 * each charge, so a change applies to new allocations.  A refusal
 * returns -ENOMEM (-EINVAL for a request beyond what a single object may
 * ever have is the caller's), counts in the device's statistics
 * (res_refused) and never touches what others hold.
 *
 * Memory a process pins for its MRs is limited by RLIMIT_MEMLOCK
 * (ib_umem_get()), and every uverbs object also by the rdma cgroup
 * controller (ib_core charges it before calling us).
 *
 * The fair share of resources several streams draw on (an SRQ's
 * buffers, a shared CQ's entries) is decided here too, see
 * softiw_rm_share_take().
 *
 * Locking: none for charging; the counters are atomic_t, charged with an
 * add that is undone when it went past the limit.  A device's list of
 * processes is guarded by its rm_procs_lock (attach and detach only).
 * The fair-share windows live in the shared objects and are serialised
 * by their locks.
 */
#ifndef SOFTIW_RM_H
#define SOFTIW_RM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>

enum softiw_res {
	SOFTIW_RES_PD,
	SOFTIW_RES_CQ,
	SOFTIW_RES_QP,
	SOFTIW_RES_SRQ,
	SOFTIW_RES_MR,
	SOFTIW_RES_CQE,		/* entries of all CQs together */
	SOFTIW_NR_RES
};

/* What one device or one process holds. */
struct softiw_rm_usage {
	atomic_t used[SOFTIW_NR_RES];
};

struct softiw_device;
struct softiw_ucontext;

/*
 * One process's share of one device: every ucontext the process opens on
 * the device points at the same entry, so opening the device again does
 * not give it a second share.  On the device's list under its
 * rm_procs_lock; freed with the last of those contexts (all their
 * objects are gone by then).
 */
struct softiw_rm_proc {
	struct list_head entry;
	struct pid *tgid;		/* the process (thread group) */
	unsigned int contexts;		/* rm_procs_lock */
	struct softiw_rm_usage rm;
};

/*
 * softiw_rm_proc_attach() - a process opens @uctx on @sdev: link it to
 * the calling process's share (created on its first context).  0 or
 * -ENOMEM.  softiw_rm_proc_detach() undoes it when the context goes.
 */
int softiw_rm_proc_attach(struct softiw_device *sdev,
			  struct softiw_ucontext *uctx);
void softiw_rm_proc_detach(struct softiw_device *sdev,
			   struct softiw_ucontext *uctx);

/*
 * softiw_rm_charge() - take @n of @res for @uctx (NULL: a kernel user)
 * on @sdev.  0, or -ENOMEM when a limit would be exceeded (nothing is
 * taken then).
 */
int softiw_rm_charge(struct softiw_device *sdev, struct softiw_ucontext *uctx,
		     enum softiw_res res, u32 n);
/* softiw_rm_uncharge() - give back what softiw_rm_charge() took. */
void softiw_rm_uncharge(struct softiw_device *sdev,
			struct softiw_ucontext *uctx, enum softiw_res res,
			u32 n);
/* Warn if anything is still charged to @sdev (its last moment). */
void softiw_rm_check_empty(struct softiw_device *sdev);
/* The device limit of @res now (query_device reports it). */
u32 softiw_rm_dev_limit(enum softiw_res res);

/*
 * Fair share of a resource several streams draw on (RFC 5042 6.4.3): an
 * SRQ's receive buffers, a shared CQ's entries.  A window opens whenever
 * the resource is plentiful again; within it the takes of all streams
 * (struct softiw_share_win, in the shared object) and of each stream
 * (struct softiw_share_mark, in its QP) are counted.  Once the resource
 * is scarce, a stream that took more than 3/2 of its fair share of the
 * window, and more than an eighth of @depth, is refused, so the rest is
 * left to the others.  A lone stream starves no one and is never
 * refused.  The caller serialises calls for one window (the object's
 * lock).
 */
struct softiw_share_win {
	u32 gen;
	u32 takes;
};

struct softiw_share_mark {
	u32 gen;
	u32 takes;
};

/*
 * softiw_rm_share_take() - one take by the stream of @m from the
 * resource of @w, shared by @users streams, @depth deep.  @plenty: the
 * resource is plentiful (a new window starts); @scarce: it is nearly
 * gone.  True if the take is refused (nothing counted then).
 */
bool softiw_rm_share_take(struct softiw_share_win *w,
			  struct softiw_share_mark *m, u32 users, u32 depth,
			  bool plenty, bool scarce);

#endif /* SOFTIW_RM_H */
