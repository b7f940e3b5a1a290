// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw resource manager: the limits (module parameters) and the
 * charging of every scarce resource (see rm.h for the rules and the
 * locking).
 *
 * Each resource has a device limit dev_max_<res> (at most what softiw
 * implements, the SOFTIW_MAX_* values) and a per-process limit
 * ctx_max_<res> (at most the device limit when charged), which all the
 * contexts one process opens on the device share (softiw_rm_proc).  The defaults
 * give one process a quarter of the device, so that no single process
 * can exhaust a resource for the others; raise ctx_max_* for a machine
 * with one big user.
 *
 * It also holds the fair-share rule (softiw_rm_share_take()) by which
 * srq.c and cq.c keep one remote stream from draining what several
 * share; the caller's lock serialises it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "softiw.h"
#include "qp.h"
#include "rm.h"

struct softiw_rm_limit {
	const char *name;
	u32 hard;		/* what softiw implements */
	unsigned int dev;	/* dev_max_<name> */
	unsigned int ctx;	/* ctx_max_<name> */
};

static struct softiw_rm_limit softiw_rm_limits[SOFTIW_NR_RES] = {
	[SOFTIW_RES_PD] = { "pd", SOFTIW_MAX_PD, SOFTIW_MAX_PD,
			    SOFTIW_MAX_PD / 4 },
	[SOFTIW_RES_CQ] = { "cq", SOFTIW_MAX_CQ, SOFTIW_MAX_CQ,
			    SOFTIW_MAX_CQ / 4 },
	[SOFTIW_RES_QP] = { "qp", SOFTIW_MAX_QP, SOFTIW_MAX_QP,
			    SOFTIW_MAX_QP / 4 },
	[SOFTIW_RES_SRQ] = { "srq", SOFTIW_MAX_SRQ, SOFTIW_MAX_SRQ,
			     SOFTIW_MAX_SRQ / 4 },
	[SOFTIW_RES_MR] = { "mr", SOFTIW_MAX_MR, SOFTIW_MAX_MR,
			    SOFTIW_MAX_MR / 4 },
	[SOFTIW_RES_CQE] = { "cqe", SOFTIW_MAX_CQ_ENTRIES,
			     SOFTIW_MAX_CQ_ENTRIES,
			     SOFTIW_MAX_CQ_ENTRIES / 4 },
};

/* A limit parameter: a number in 1..the resource's hard limit. */
static int rm_limit_set(const char *val, const struct kernel_param *kp)
{
	unsigned int *p = kp->arg, v;
	u32 hard = 0;
	int i, ret;

	for (i = 0; i < SOFTIW_NR_RES; i++)
		if (p == &softiw_rm_limits[i].dev ||
		    p == &softiw_rm_limits[i].ctx)
			hard = softiw_rm_limits[i].hard;
	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (!v || v > hard) {
		pr_err("%s=%u refused: must be 1..%u\n", kp->name, v, hard);
		return -EINVAL;
	}
	WRITE_ONCE(*p, v);
	return 0;
}

static const struct kernel_param_ops rm_limit_ops = {
	.set = rm_limit_set,
	.get = param_get_uint,
};

#define RM_PARAMS(res, what, hard)					\
	module_param_cb(dev_max_##res, &rm_limit_ops,			\
			&softiw_rm_limits[SOFTIW_RES_##what].dev, 0644); \
	MODULE_PARM_DESC(dev_max_##res,					\
			 "Per-device limit of " #res "s (1.." #hard ")"); \
	module_param_cb(ctx_max_##res, &rm_limit_ops,			\
			&softiw_rm_limits[SOFTIW_RES_##what].ctx, 0644); \
	MODULE_PARM_DESC(ctx_max_##res,					\
			 "Per-process limit of " #res "s (1.." #hard ", default a quarter of it)")

RM_PARAMS(pd, PD, 1024);
RM_PARAMS(cq, CQ, 1024);
RM_PARAMS(qp, QP, 1024);
RM_PARAMS(srq, SRQ, 256);
RM_PARAMS(mr, MR, 65536);
RM_PARAMS(cqe, CQE, 4194304);

u32 softiw_rm_dev_limit(enum softiw_res res)
{
	return READ_ONCE(softiw_rm_limits[res].dev);
}

static bool rm_take(atomic_t *used, u32 n, u32 limit)
{
	if (n > limit)
		return false;
	if ((u32)atomic_add_return(n, used) <= limit)
		return true;
	atomic_sub(n, used);
	return false;
}

int softiw_rm_charge(struct softiw_device *sdev, struct softiw_ucontext *uctx,
		     enum softiw_res res, u32 n)
{
	const struct softiw_rm_limit *l = &softiw_rm_limits[res];
	u32 dev = READ_ONCE(l->dev), ctx = min(READ_ONCE(l->ctx), dev);

	if (!rm_take(&sdev->rm.used[res], n, dev)) {
		ibdev_dbg(&sdev->ibdev, "%u %s refused: device limit %u\n",
			  n, l->name, dev);
		goto refused;
	}
	if (uctx && !rm_take(&uctx->proc->rm.used[res], n, ctx)) {
		atomic_sub(n, &sdev->rm.used[res]);
		ibdev_dbg(&sdev->ibdev, "%u %s refused: process limit %u\n",
			  n, l->name, ctx);
		goto refused;
	}
	return 0;
refused:
	softiw_stat_inc(sdev, SOFTIW_STAT_RES_REFUSED);
	return -ENOMEM;
}

void softiw_rm_uncharge(struct softiw_device *sdev,
			struct softiw_ucontext *uctx, enum softiw_res res,
			u32 n)
{
	atomic_sub(n, &sdev->rm.used[res]);
	if (uctx)
		atomic_sub(n, &uctx->proc->rm.used[res]);
}

/* Warn about anything still charged to @u (@whose: for the message). */
static void rm_usage_check_empty(const struct softiw_rm_usage *u,
				 const char *whose)
{
	int i;

	for (i = 0; i < SOFTIW_NR_RES; i++)
		WARN(atomic_read(&u->used[i]), "%s: %d %s still charged\n",
		     whose, atomic_read(&u->used[i]),
		     softiw_rm_limits[i].name);
}

int softiw_rm_proc_attach(struct softiw_device *sdev,
			  struct softiw_ucontext *uctx)
{
	struct pid *tgid = task_tgid(current);
	struct softiw_rm_proc *p;

	mutex_lock(&sdev->rm_procs_lock);
	list_for_each_entry(p, &sdev->rm_procs, entry)
		if (p->tgid == tgid)
			goto found;
	p = kzalloc(sizeof(*p), SOFTIW_GFP_USER);
	if (!p) {
		mutex_unlock(&sdev->rm_procs_lock);
		return -ENOMEM;
	}
	p->tgid = get_pid(tgid);
	list_add(&p->entry, &sdev->rm_procs);
found:
	p->contexts++;
	uctx->proc = p;
	mutex_unlock(&sdev->rm_procs_lock);
	return 0;
}

void softiw_rm_proc_detach(struct softiw_device *sdev,
			   struct softiw_ucontext *uctx)
{
	struct softiw_rm_proc *p = uctx->proc;

	mutex_lock(&sdev->rm_procs_lock);
	if (--p->contexts) {
		p = NULL;
	} else {
		list_del(&p->entry);
		rm_usage_check_empty(&p->rm, "a process");
	}
	mutex_unlock(&sdev->rm_procs_lock);
	uctx->proc = NULL;
	if (p) {
		put_pid(p->tgid);
		kfree(p);
	}
}

void softiw_rm_check_empty(struct softiw_device *sdev)
{
	rm_usage_check_empty(&sdev->rm, dev_name(&sdev->ibdev.dev));
}

bool softiw_rm_share_take(struct softiw_share_win *w,
			  struct softiw_share_mark *m, u32 users, u32 depth,
			  bool plenty, bool scarce)
{
	if (plenty) {
		w->gen++;
		w->takes = 0;
	}
	if (m->gen != w->gen) {
		m->gen = w->gen;
		m->takes = 0;
	}
	if (users > 1 && scarce && m->takes > depth / 8 &&
	    (u64)m->takes * users * 2 > (u64)w->takes * 3)
		return true;
	w->takes++;
	m->takes++;
	return false;
}
