/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw resource manager (RFC 5042 section 2's privileged resource
 * manager): every PD, CQ, QP, SRQ and MR, and every CQ entry, is charged
 * here before it is created and uncharged when it is destroyed, against
 * a per-device limit and, for objects of a process, a per-process (per
 * ucontext) limit.  The limits are module parameters (rm.c), read at
 * each charge, so a change applies to new allocations.  A refusal
 * returns -ENOMEM (-EINVAL for a request beyond what a single object may
 * ever have is the caller's), counts in the device's statistics
 * (res_refused) and never touches what others hold.
 *
 * Memory a process pins for its MRs is limited by RLIMIT_MEMLOCK
 * (ib_umem_get()), and every uverbs object also by the rdma cgroup
 * controller (ib_core charges it before calling us).
 *
 * Locking: none; the counters are atomic_t, charged with an add that is
 * undone when it went past the limit.
 */
#ifndef SOFTIW_RM_H
#define SOFTIW_RM_H

#include <linux/atomic.h>
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

/* What one device or one ucontext holds. */
struct softiw_rm_usage {
	atomic_t used[SOFTIW_NR_RES];
};

struct softiw_device;
struct softiw_ucontext;

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

#endif /* SOFTIW_RM_H */
