// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw device: creation of the ib_device, its sysfs attribute, its
 * binding to one netdev, and the netdev notifier that keeps the port in
 * step with the netdev (state, MTU, MAC, unregistration).
 *
 * Locking: netdev events arrive under RTNL, which also guards
 * softiw_device.port_active.  The notifier holds an ib_device_try_get()
 * reference on the device while it works, so the device cannot finish
 * unregistering underneath it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/iw_cm.h>
#include <rdma/softiw-abi.h>

#include "softiw.h"
#include "cm.h"
#include "mem.h"

/* The port is usable when the netdev is up and has carrier. */
bool softiw_port_is_active(const struct softiw_device *sdev)
{
	return netif_running(sdev->netdev) && netif_carrier_ok(sdev->netdev);
}

/*
 * /sys/class/infiniband/<dev>/softiw_abi_version: the provider recognises
 * softiw devices by this attribute (the name is part of the ABI header).
 */
static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SOFTIW_ABI_VERSION);
}

static struct device_attribute softiw_attr_abi_version = {
	.attr = { .name = SOFTIW_SYSFS_ABI_ATTR, .mode = 0444 },
	.show = abi_version_show,
};

static struct attribute *softiw_dev_attrs[] = {
	&softiw_attr_abi_version.attr,
	NULL
};

static const struct attribute_group softiw_dev_attr_group = {
	.attrs = softiw_dev_attrs,
};

/*
 * ib_core calls this once, when the device is freed: after the last verb
 * returned on unregistration, or from ib_dealloc_device() when
 * registration failed.  It undoes softiw_device_alloc().
 */
static void softiw_device_dealloc_driver(struct ib_device *ibdev)
{
	struct softiw_device *sdev = to_softiw_dev(ibdev);

	softiw_device_unlink(sdev);
	softiw_rm_check_empty(sdev);
	WARN_ON(!list_empty(&sdev->rm_procs));
	mutex_destroy(&sdev->rm_procs_lock);
	WARN_ON(!xa_empty(&sdev->qp_xa));
	xa_destroy(&sdev->qp_xa);
	softiw_stag_table_destroy(sdev);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
}

static const struct ib_device_ops softiw_device_ops = {
	.owner = THIS_MODULE,
	/* out of tree: no driver id of our own (see main.c) */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SOFTIW_ABI_VERSION,
	.device_group = &softiw_dev_attr_group,
	.dealloc_driver = softiw_device_dealloc_driver,
};

static void softiw_node_guid_set(struct softiw_device *sdev)
{
	__be64 guid;

	/* EUI-64 from the MAC, as the RDMA core does for RoCE GIDs */
	addrconf_addr_eui48((u8 *)&guid, sdev->netdev->dev_addr);
	WRITE_ONCE(sdev->ibdev.node_guid, guid);
}

/**
 * softiw_device_alloc() - create an unregistered softiw device for a netdev
 * @netdev: the netdev to bind to; the caller holds a reference
 *
 * Return: the device, not on any list (self-linked @list), or ERR_PTR.
 * Once it returns, ib_dealloc_device() undoes everything.
 */
struct softiw_device *softiw_device_alloc(struct net_device *netdev)
{
	struct softiw_device *sdev;
	struct ib_device *ibdev;
	int ret;

	sdev = ib_alloc_device(softiw_device, ibdev);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	ibdev = &sdev->ibdev;

	/* everything dealloc_driver undoes is set before the ops */
	INIT_LIST_HEAD(&sdev->list);
	INIT_LIST_HEAD(&sdev->cm_pending);
	mutex_init(&sdev->rm_procs_lock);
	INIT_LIST_HEAD(&sdev->rm_procs);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	sdev->qp_next = 0;
	atomic64_set(&sdev->qp_serial, 0);
	/* cannot fail; an ERR return here would precede the ops */
	softiw_stag_table_init(sdev);
	sdev->netdev = netdev;
	netdev_hold(netdev, &sdev->netdev_tracker, GFP_KERNEL);
	sdev->port_active = softiw_port_is_active(sdev);

	ib_set_device_ops(ibdev, &softiw_device_ops);
	ib_set_device_ops(ibdev, &softiw_verbs_ops);
	ib_set_device_ops(ibdev, &softiw_cm_ops);
	ib_set_device_ops(ibdev, &softiw_stats_ops);
	/*
	 * ib_core enables none of these by default.  Processes post and
	 * poll through rings shared with the kernel (uring.c), so only the
	 * three commands the provider sends are enabled: REQ_NOTIFY_CQ, a
	 * POST_SEND without work requests (the SQ doorbell, should the
	 * doorbell file fail) and a POST_RECV without work requests (to
	 * have the receives of a QP in ERROR flushed); work requests passed
	 * through them are refused.  POLL_CQ and POST_SRQ_RECV stay off:
	 * ib_core refuses them before they reach softiw.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	/* completion vectors are a property of the device, not of the CQs */
	ibdev->num_comp_vectors = 1;
	softiw_node_guid_set(sdev);
	memcpy(ibdev->node_desc, "softiw", sizeof("softiw"));
	/*
	 * iw_cm names the interface to the iWARP port mapper; softiw needs
	 * no port mapping since it uses the host's own TCP ports.
	 */
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;

	ret = ib_device_set_netdev(ibdev, netdev, 1);
	if (ret)
		goto err_dealloc;
	return sdev;

err_dealloc:
	ib_dealloc_device(ibdev);
	return ERR_PTR(ret);
}

/* Report a port state change to the RDMA core's consumers. */
static void softiw_port_update(struct softiw_device *sdev)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
	};
	bool active = softiw_port_is_active(sdev);

	ASSERT_RTNL();
	/*
	 * An unregistering netdev goes down first; its device follows on
	 * NETDEV_UNREGISTER, and an event now would only send the RDMA
	 * core's cache to query a port whose netdev it already dropped.
	 */
	if (sdev->netdev->reg_state != NETREG_REGISTERED)
		return;
	if (active == sdev->port_active)
		return;
	sdev->port_active = active;
	event.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	softiw_dbg_dev(sdev, "port %s\n", active ? "ACTIVE" : "DOWN");
	ib_dispatch_event(&event);
}

static void softiw_gid_changed(struct softiw_device *sdev)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = IB_EVENT_GID_CHANGE,
	};

	softiw_node_guid_set(sdev);
	ib_dispatch_event(&event);
}

/**
 * softiw_device_netdev_check() - catch up with the netdev after registration
 * @sdev: a just registered device; the caller holds softiw_dev_mutex
 *
 * Netdev events that arrived while the device was registering were
 * ignored (softiw_device_get_by_netdev() fails until registration ends).
 * Under RTNL no further event can be missed, so recheck here: a netdev
 * already unregistering takes the device with it, else resync the port.
 */
void softiw_device_netdev_check(struct softiw_device *sdev)
{
	rtnl_lock();
	if (ib_device_try_get(&sdev->ibdev)) {
		if (sdev->netdev->reg_state != NETREG_REGISTERED)
			ib_unregister_device_queued(&sdev->ibdev);
		else
			softiw_port_update(sdev);
		ib_device_put(&sdev->ibdev);
	}
	rtnl_unlock();
}

static int softiw_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct softiw_device *sdev;

	ASSERT_RTNL();
	sdev = softiw_device_get_by_netdev(netdev);
	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		softiw_port_update(sdev);
		break;
	case NETDEV_CHANGEMTU:
		/* query_port reads the MTU live; nothing is cached */
		softiw_dbg_dev(sdev, "netdev MTU now %u\n", netdev->mtu);
		break;
	case NETDEV_CHANGEADDR:
		softiw_gid_changed(sdev);
		break;
	case NETDEV_UNREGISTER:
		/*
		 * RTNL is held, so the device cannot be unregistered here;
		 * the queued unregistration drops the netdev references the
		 * netdev's unregistration is waiting for.
		 */
		ibdev_info(&sdev->ibdev, "netdev %s unregistered, removing device\n",
			   netdev->name);
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block softiw_netdev_nb = {
	.notifier_call = softiw_netdev_event,
};

int softiw_netdev_notifier_register(void)
{
	return register_netdevice_notifier(&softiw_netdev_nb);
}

void softiw_netdev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&softiw_netdev_nb);
}
