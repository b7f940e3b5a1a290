// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw module entry: init/exit, the "softiw" rdma link type and the list
 * of softiw devices.
 *
 * softiw reports RDMA_DRIVER_UNKNOWN (an out-of-tree driver has no driver
 * id), which ib_core treats as a wildcard: ib_device_get_by_netdev() would
 * match other drivers' devices and ib_unregister_driver() would remove
 * them.  So softiw keeps its own list and never asks ib_core by driver id.
 *
 * Locking: softiw_dev_mutex guards every change of softiw_dev_list and is
 * held from newlink's duplicate checks to the end of registration, so the
 * checks and the insertion are atomic.  It may be held while taking RTNL, never the other way
 * round; the netdev notifier (under RTNL) walks the list under RCU.  An
 * entry leaves the list in dealloc_driver, after ib_core has stopped
 * calling the device, and its memory outlives an RCU grace period (see
 * softiw_device_unlink()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/rdma_netlink.h>

#include "softiw.h"
#include "cm.h"
#include "txrx.h"
#include "crc.h"
#include "copy.h"

static DEFINE_MUTEX(softiw_dev_mutex);
static LIST_HEAD(softiw_dev_list);

static int choice_set(const char *val, const struct kernel_param *kp)
{
	struct softiw_choice *c = kp->arg;
	int i = __sysfs_match_string(c->names, c->nr, val);

	if (i < 0)
		return -EINVAL;
	c->req = i;
	return 0;
}

static int choice_get(char *buf, const struct kernel_param *kp)
{
	const struct softiw_choice *c = kp->arg;

	return sysfs_emit(buf, "%s\n", c->names[c->used]);
}

const struct kernel_param_ops softiw_choice_ops = {
	.set = choice_set,
	.get = choice_get,
};

/**
 * softiw_device_get_by_netdev() - find the registered softiw device of a netdev
 * @netdev: the netdev
 *
 * Return: the device with an ib_device_try_get() reference the caller
 * drops with ib_device_put(), or NULL when @netdev has no softiw device or
 * it is not (or no longer) registered.  Callable under RTNL.
 */
struct softiw_device *softiw_device_get_by_netdev(struct net_device *netdev)
{
	struct softiw_device *sdev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(sdev, &softiw_dev_list, list) {
		/*
		 * try_get fails before registration completes and once
		 * unregistration has begun: events for such a device are
		 * no one's business (newlink rechecks the netdev itself).
		 */
		if (sdev->netdev == netdev && ib_device_try_get(&sdev->ibdev)) {
			found = sdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * softiw_device_unlink() - take a device off softiw_dev_list
 * @sdev: the device, on the list or never added (self-linked)
 *
 * Called once, from dealloc_driver.  Waits for an RCU grace period so no
 * softiw_device_get_by_netdev() walker still looks at @sdev when ib_core
 * frees it.
 */
void softiw_device_unlink(struct softiw_device *sdev)
{
	mutex_lock(&softiw_dev_mutex);
	list_del_rcu(&sdev->list);
	mutex_unlock(&softiw_dev_mutex);
	synchronize_rcu();
}

/* Refuse a second device on one netdev and a name already in use. */
static int softiw_check_unique(const char *ibdev_name,
			       struct net_device *netdev)
{
	struct softiw_device *sdev;
	struct ib_device *ibdev;

	lockdep_assert_held(&softiw_dev_mutex);

	list_for_each_entry(sdev, &softiw_dev_list, list) {
		if (sdev->netdev == netdev) {
			pr_info("cannot add %s: netdev %s already has softiw device %s\n",
				ibdev_name, netdev->name,
				dev_name(&sdev->ibdev.dev));
			return -EEXIST;
		}
	}
	/*
	 * Any driver's device counts.  A name taken by another driver after
	 * this check still makes ib_register_device() fail (-ENFILE).
	 */
	ibdev = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (ibdev) {
		ib_device_put(ibdev);
		pr_info("cannot add %s: an RDMA device of that name exists\n",
			ibdev_name);
		return -EEXIST;
	}
	return 0;
}

/*
 * rdma link add <ibdev_name> type softiw netdev <netdev>
 *
 * The device is allocated before softiw_dev_mutex is taken because every
 * ib_dealloc_device() ends in dealloc_driver, which takes the mutex.
 */
static int softiw_newlink(const char *ibdev_name, struct net_device *netdev)
{
	struct softiw_device *sdev;
	int ret;

	sdev = softiw_device_alloc(netdev);
	if (IS_ERR(sdev)) {
		pr_info("cannot add %s on %s: %ld\n", ibdev_name, netdev->name,
			PTR_ERR(sdev));
		return PTR_ERR(sdev);
	}

	mutex_lock(&softiw_dev_mutex);
	ret = softiw_check_unique(ibdev_name, netdev);
	if (ret)
		goto err_unlock;
	list_add_tail_rcu(&sdev->list, &softiw_dev_list);

	ret = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (ret) {
		pr_info("cannot add %s on %s: registration failed: %d\n",
			ibdev_name, netdev->name, ret);
		goto err_unlock;
	}

	/*
	 * Registered: from here a concurrent unregistration may start, but
	 * it cannot free sdev while we hold softiw_dev_mutex (dealloc_driver
	 * takes it).
	 */
	softiw_device_netdev_check(sdev);
	ibdev_info(&sdev->ibdev, "softiw device on netdev %s\n", netdev->name);
	mutex_unlock(&softiw_dev_mutex);
	return 0;

err_unlock:
	mutex_unlock(&softiw_dev_mutex);
	/* unlinks sdev if it was added (dealloc_driver) */
	ib_dealloc_device(&sdev->ibdev);
	return ret;
}

static struct rdma_link_ops softiw_link_ops = {
	.type = "softiw",
	.newlink = softiw_newlink,
};

/*
 * Unregister every device still on the list and return only when all of
 * them are gone.  ib_unregister_device() fences against an unregistration
 * already in flight (the netdev notifier's queued one, rdma link delete):
 * it waits for it on the device's unregistration lock, and dealloc_driver
 * runs inside that lock, so once it returns the device is off the list.
 * get_device() keeps the memory valid across the unlocked call.
 */
static void softiw_unregister_all(void)
{
	struct softiw_device *sdev;

	for (;;) {
		mutex_lock(&softiw_dev_mutex);
		sdev = list_first_entry_or_null(&softiw_dev_list,
						struct softiw_device, list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		mutex_unlock(&softiw_dev_mutex);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

struct dentry *softiw_debugfs_root;

static int __init softiw_init(void)
{
	int ret;

	/* debugfs is optional: its helpers accept an error pointer */
	ret = softiw_crc_init();
	if (!ret)
		ret = softiw_copy_init();
	if (ret)
		return ret;
	softiw_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = softiw_txrx_init();
	if (ret)
		goto err_debugfs;
	ret = softiw_cm_init();
	if (ret)
		goto err_txrx;
	ret = softiw_netdev_notifier_register();
	if (ret)
		goto err_cm;
	rdma_link_register(&softiw_link_ops);
	return 0;

err_cm:
	softiw_cm_exit();
err_txrx:
	softiw_txrx_exit();
err_debugfs:
	debugfs_remove_recursive(softiw_debugfs_root);
	return ret;
}

static void __exit softiw_exit(void)
{
	/*
	 * No newlink runs after rdma_link_unregister(): it waits for the
	 * ones in progress.  softiw_unregister_all() also waits for
	 * unregistrations the notifier queued.  The notifier goes last, on
	 * an empty list: unregistering it replays NETDEV_UNREGISTER for
	 * every netdev, which must not find a device any more.
	 */
	rdma_link_unregister(&softiw_link_ops);
	softiw_unregister_all();
	softiw_netdev_notifier_unregister();
	softiw_cm_exit();
	softiw_txrx_exit();
	debugfs_remove_recursive(softiw_debugfs_root);
}

module_init(softiw_init);
module_exit(softiw_exit);

MODULE_AUTHOR("softiw developers");
MODULE_DESCRIPTION("Software iWARP RDMA device (MPA/DDP/RDMAP over TCP)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("softiw");
/* the MPA CRC (crc.c: crc32c()) needs a crc32c implementation loaded first */
MODULE_SOFTDEP("pre: crc32c");
