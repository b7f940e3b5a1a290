/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw: the device object and the prototypes other files of the module
 * call, grouped by the file that owns them.
 *
 * Locking, in the order it must be taken:
 *   softiw_dev_mutex (main.c)  guards writers of softiw_dev_list and
 *                              serialises device creation;
 *   RTNL                       guards softiw_device.port_active and every
 *                              netdev event.
 * RTNL is never held while taking softiw_dev_mutex: the netdev notifier
 * finds its device through RCU instead (softiw_device_get_by_netdev()).
 */
#ifndef SOFTIW_H
#define SOFTIW_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "rm.h"
#include "stats.h"

/*
 * Memory softiw allocates for a process's verbs (its queues, rings and
 * registrations): charged to the process's memory cgroup, and a cgroup
 * at its limit makes the verb fail with ENOMEM rather than wake the OOM
 * killer.
 */
#define SOFTIW_GFP_USER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
			 __GFP_NOWARN)

/* Limits of what is implemented; query_device advertises exactly these. */
#define SOFTIW_MAX_PD		1024

/**
 * struct softiw_device - one softiw RNIC, bound to one netdev
 * @ibdev: the RDMA core's device; first, as ib_alloc_device() requires
 * @netdev: the bound netdev.  Our own reference (@netdev_tracker) is taken
 *	at creation and dropped in dealloc_driver, so the pointer is valid
 *	for the whole life of the softiw_device.
 * @netdev_tracker: reference tracker for @netdev
 * @list: entry on softiw_dev_list; added and removed under
 *	softiw_dev_mutex, read under RCU
 * @port_active: the port state last reported through ib_dispatch_event();
 *	RTNL
 * @rm: what the device's users hold, charged by the resource manager
 *	(rm.c) against its limits
 * @stag_xa: the STag table, index (STag >> 8) -> struct softiw_mem (mem.c)
 * @stag_lock: guards @stag_recent
 * @stag_recent: the most recently freed STag indices, not reissued at once
 * @stag_recent_pos: next slot of @stag_recent to overwrite
 * @qp_xa: QP number -> struct softiw_qp (qp.c); lookups run under RCU
 *	(iw_cm's get_qp under the xa_lock with interrupts off, so every
 *	writer uses the _irq variants)
 * @qp_next: cyclic allocation cursor for @qp_xa
 * @qp_serial: last softiw_qp.serial handed out (never reused)
 * @stats: counters of refused operations (stats.h)
 * @cm_pending: passive connections of the device's listens still reading
 *	their MPA Request, oldest first (cm.c); softiw_cm_mutex
 * @cm_nr_pending: how many; softiw_cm_mutex
 * @rm_procs: the processes with a context on the device, each with its
 *	share of the per-process limits (struct softiw_rm_proc, rm.c)
 */
struct softiw_device {
	struct ib_device ibdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head list;
	bool port_active;
	struct softiw_rm_usage rm;
	struct xarray stag_xa;
	spinlock_t stag_lock;		/* guards @stag_recent* */
	u32 stag_recent[16];
	u32 stag_recent_pos;
	struct xarray qp_xa;
	u32 qp_next;
	atomic64_t qp_serial;
	atomic64_t stats[SOFTIW_NR_STATS];
	struct list_head cm_pending;
	unsigned int cm_nr_pending;
	struct mutex rm_procs_lock;	/* guards @rm_procs */
	struct list_head rm_procs;
};

static inline struct softiw_device *to_softiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct softiw_device, ibdev);
}

struct softiw_doorbell;

/*
 * A process's context: @proc is the share of the process that opened it,
 * which its objects are charged to (rm.c); @db its doorbell file's link
 * to it, or NULL (doorbell.c).
 */
struct softiw_ucontext {
	struct ib_ucontext ibucontext;
	struct softiw_rm_proc *proc;
	struct softiw_doorbell *db;
};

/* The ucontext an object of a process was charged to, or NULL. */
static inline struct softiw_ucontext *softiw_uctx(struct ib_udata *udata)
{
	return rdma_udata_to_drv_context(udata, struct softiw_ucontext,
					 ibucontext);
}

/* @uctx: charged to (rm.c), NULL for a kernel user */
struct softiw_pd {
	struct ib_pd ibpd;
	struct softiw_ucontext *uctx;
};

static inline struct softiw_pd *to_softiw_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct softiw_pd, ibpd);
}

#define softiw_dbg_dev(sdev, fmt, ...)					\
	ibdev_dbg(&(sdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)

/* main.c: /sys/kernel/debug/softiw (an error pointer without debugfs) */
extern struct dentry *softiw_debugfs_root;

/*
 * main.c: a read-only module parameter naming a routine chosen at load
 * (crc.c, copy.c): it takes one of @names (index into @req) and reads back
 * the one decided (@used).  module_param_cb(name, &softiw_choice_ops,
 * &choice, 0444).
 */
struct softiw_choice {
	const char * const *names;
	size_t nr;
	int req;	/* as given at load */
	int used;	/* as decided */
};

extern const struct kernel_param_ops softiw_choice_ops;

/* main.c: the device list */
struct softiw_device *softiw_device_get_by_netdev(struct net_device *netdev);
void softiw_device_unlink(struct softiw_device *sdev);

/* device.c: ib_device creation and the netdev binding */
struct softiw_device *softiw_device_alloc(struct net_device *netdev);
void softiw_device_netdev_check(struct softiw_device *sdev);
bool softiw_port_is_active(const struct softiw_device *sdev);
int softiw_netdev_notifier_register(void);
void softiw_netdev_notifier_unregister(void);

/*
 * doorbell.c: a context's doorbell file.  softiw_doorbell_create() makes
 * it without publishing it; then either softiw_doorbell_install() gives
 * the process the fd and links the context, or
 * softiw_doorbell_discard() drops it.  softiw_doorbell_sever() unlinks
 * the context when it goes away.
 */
struct softiw_doorbell_new {
	struct softiw_doorbell *db;
	struct file *file;
	int fd;
};

int softiw_doorbell_create(struct softiw_ucontext *uctx,
			   struct softiw_doorbell_new *nd);
void softiw_doorbell_install(struct softiw_ucontext *uctx,
			     struct softiw_doorbell_new *nd);
void softiw_doorbell_discard(struct softiw_doorbell_new *nd);
void softiw_doorbell_sever(struct softiw_ucontext *uctx);

/* verbs.c: the verbs glue */
extern const struct ib_device_ops softiw_verbs_ops;

#endif /* SOFTIW_H */
