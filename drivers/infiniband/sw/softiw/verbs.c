// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw verbs glue: argument checks and translation between ib_core's
 * verbs and softiw objects.
 *
 * Implemented now: device and port queries, user contexts, protection
 * domains.  The data path (CQ, QP, MR, connection management) comes in a
 * later issue; until then those verbs exist because ib_core wants them
 * (a kernel verbs provider must have the full mandatory set, and iw_cm
 * calls the iw_* ops unconditionally) and refuse with -EOPNOTSUPP.  They
 * are grouped at the end of this file, and query_device advertises none
 * of their resources.
 *
 * Locking: none of its own.  ib_core serialises creation and destruction
 * of each object; the PD count is atomic.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/softiw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "softiw.h"

/* Driver input softiw does not understand must be absent or all zero. */
static bool softiw_udata_in_ok(struct ib_udata *udata, size_t known)
{
	if (!udata || udata->inlen <= known)
		return true;
	return ib_is_udata_cleared(udata, known, udata->inlen - known);
}

/*
 * The advertised device attributes, in one place: only resources softiw
 * implements are non-zero.
 */
static void softiw_device_attr_fill(struct softiw_device *sdev,
				    struct ib_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = sdev->ibdev.node_guid;
	attr->max_pd = SOFTIW_MAX_PD;
	/* rdma link delete may remove a softiw device */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
}

static int softiw_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	/* no driver data either way; output space beyond it stays untouched */
	if (!softiw_udata_in_ok(udata, 0))
		return -EINVAL;
	softiw_device_attr_fill(to_softiw_dev(ibdev), attr);
	return 0;
}

/*
 * For iWARP ib_core pre-fills @attr from the netdev and then calls us;
 * softiw sets every field it defines itself so the result does not
 * depend on that.
 */
static int softiw_query_port(struct ib_device *ibdev, u32 port,
			     struct ib_port_attr *attr)
{
	struct softiw_device *sdev = to_softiw_dev(ibdev);
	int ret;

	if (softiw_port_is_active(sdev)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(sdev->netdev->mtu));
	attr->gid_tbl_len = 1;
	/* no connection manager yet: IB_PORT_CM_SUP comes with it */
	attr->port_cap_flags = 0;
	/* no messages can be sent yet */
	attr->max_msg_sz = 0;

	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret)
		softiw_dbg_dev(sdev, "no link speed: %d\n", ret);
	return 0;
}

/* The one GID is the MAC, as iWARP devices report it. */
static int softiw_query_gid(struct ib_device *ibdev, u32 port, int index,
			    union ib_gid *gid)
{
	struct softiw_device *sdev = to_softiw_dev(ibdev);

	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	ether_addr_copy(gid->raw, sdev->netdev->dev_addr);
	return 0;
}

static int softiw_get_port_immutable(struct ib_device *ibdev, u32 port,
				     struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

static int softiw_alloc_ucontext(struct ib_ucontext *ibucontext,
				 struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibucontext->device);
	struct softiw_alloc_ucontext_resp resp = {
		.abi_version = SOFTIW_ABI_VERSION,
	};

	if (!softiw_udata_in_ok(udata, 0))
		return -EINVAL;
	/* a provider that cannot take the whole response is not ours */
	if (udata->outlen < sizeof(resp)) {
		softiw_dbg_dev(sdev, "response space %zu < %zu\n",
			       udata->outlen, sizeof(resp));
		return -EINVAL;
	}
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static void softiw_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
}

static int softiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibpd->device);

	if (!softiw_udata_in_ok(udata, 0))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_pd) > SOFTIW_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int softiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_softiw_dev(ibpd->device)->num_pd);
	return 0;
}

/*
 * ---- Not implemented yet: the data path (later issue). ----
 *
 * Each create refuses with -EOPNOTSUPP, so the matching destroy, modify,
 * post and poll verbs can never be reached from ib_core; they refuse too.
 */

static int softiw_create_cq(struct ib_cq *ibcq,
			    const struct ib_cq_init_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

#ifndef SOFTIW_HAVE_CREATE_CQ_ATTRS
/* See compat.h: the core hands us the bundle's driver_udata, or NULL. */
static int softiw_create_cq_udata(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct ib_udata *udata)
{
	struct uverbs_attr_bundle *attrs = NULL;

	if (udata)
		attrs = container_of(udata, struct uverbs_attr_bundle,
				     driver_udata);
	return softiw_create_cq(ibcq, attr, attrs);
}
#endif

static int softiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int softiw_poll_cq(struct ib_cq *ibcq, int num_entries,
			  struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

static int softiw_req_notify_cq(struct ib_cq *ibcq,
				enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int softiw_create_qp(struct ib_qp *ibqp,
			    struct ib_qp_init_attr *attr,
			    struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int softiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			    int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int softiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int softiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			    const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int softiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			    const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *softiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *softiw_reg_user_mr(struct ib_pd *ibpd, u64 start,
					u64 len, u64 iova, int access,
					struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int softiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

/*
 * iw_cm calls these without checking that they exist.  A wildcard
 * rdma_listen() listens on every iWARP device and fails as a whole if one
 * device refuses, so softiw accepts a wildcard listen (it can never
 * deliver a connection request while it has no QPs) and refuses one
 * bound to its own address.
 */
static bool softiw_addr_is_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	switch (ss->ss_family) {
	case AF_INET:
		return sin->sin_addr.s_addr == htonl(INADDR_ANY);
	case AF_INET6:
		return ipv6_addr_any(&sin6->sin6_addr);
	default:
		return false;
	}
}

static int softiw_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	return softiw_addr_is_any(&cm_id->local_addr) ? 0 : -EOPNOTSUPP;
}

static int softiw_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	return 0;
}

static int softiw_iw_connect(struct iw_cm_id *cm_id,
			     struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int softiw_iw_accept(struct iw_cm_id *cm_id,
			    struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int softiw_iw_reject(struct iw_cm_id *cm_id, const void *pdata,
			    u8 pdata_len)
{
	return -EOPNOTSUPP;
}

/* No QP exists, so iw_cm's connect/accept stop at the NULL (-EINVAL). */
static struct ib_qp *softiw_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	return NULL;
}

static void softiw_iw_add_ref(struct ib_qp *ibqp)
{
}

static void softiw_iw_rem_ref(struct ib_qp *ibqp)
{
}

const struct ib_device_ops softiw_verbs_ops = {
	.query_device = softiw_query_device,
	.query_port = softiw_query_port,
	.query_gid = softiw_query_gid,
	.get_port_immutable = softiw_get_port_immutable,
	.alloc_ucontext = softiw_alloc_ucontext,
	.dealloc_ucontext = softiw_dealloc_ucontext,
	.alloc_pd = softiw_alloc_pd,
	.dealloc_pd = softiw_dealloc_pd,

#ifdef SOFTIW_HAVE_CREATE_CQ_ATTRS
	.create_cq = softiw_create_cq,
#else
	.create_cq = softiw_create_cq_udata,
#endif
	.destroy_cq = softiw_destroy_cq,
	.poll_cq = softiw_poll_cq,
	.req_notify_cq = softiw_req_notify_cq,
	.create_qp = softiw_create_qp,
	.modify_qp = softiw_modify_qp,
	.destroy_qp = softiw_destroy_qp,
	.post_send = softiw_post_send,
	.post_recv = softiw_post_recv,
	.get_dma_mr = softiw_get_dma_mr,
	.reg_user_mr = softiw_reg_user_mr,
	.dereg_mr = softiw_dereg_mr,

	.iw_create_listen = softiw_iw_create_listen,
	.iw_destroy_listen = softiw_iw_destroy_listen,
	.iw_connect = softiw_iw_connect,
	.iw_accept = softiw_iw_accept,
	.iw_reject = softiw_iw_reject,
	.iw_get_qp = softiw_iw_get_qp,
	.iw_add_ref = softiw_iw_add_ref,
	.iw_rem_ref = softiw_iw_rem_ref,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, softiw_ucontext, ibucontext),
	INIT_RDMA_OBJ_SIZE(ib_pd, softiw_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, softiw_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, softiw_qp, ibqp),
};
