// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw verbs glue: argument checks and translation between ib_core's
 * verbs and softiw objects.
 *
 * Here: device and port queries, user contexts, protection domains and
 * the ops table.  CQs (cq.c), QPs (qp.c), SRQs (srq.c) and MRs (mem.c)
 * implement their own verbs; the iw_cm connection ops are cm.c's
 * softiw_cm_ops, which device.c adds to every device.
 *
 * Locking: none of its own.  ib_core serialises creation and destruction
 * of each object; the PD count is atomic.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/sched/task.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/softiw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "softiw.h"
#include "cq.h"
#include "mem.h"
#include "qp.h"
#include "uring.h"

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
	/* the device limits as they are now (rm.c, module parameters) */
	attr->max_pd = softiw_rm_dev_limit(SOFTIW_RES_PD);
	attr->max_qp = softiw_rm_dev_limit(SOFTIW_RES_QP);
	attr->max_qp_wr = SOFTIW_MAX_QP_WR;
	attr->max_send_sge = SOFTIW_MAX_SGE;
	attr->max_recv_sge = SOFTIW_MAX_SGE;
	attr->max_sge_rd = SOFTIW_MAX_SGE_RD;
	attr->max_cq = softiw_rm_dev_limit(SOFTIW_RES_CQ);
	attr->max_cqe = SOFTIW_MAX_CQE;
	attr->max_mr = softiw_rm_dev_limit(SOFTIW_RES_MR);
	/* windows take STags from the same budget as regions */
	attr->max_mw = softiw_rm_dev_limit(SOFTIW_RES_MR);
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp_rd_atom = SOFTIW_MAX_IRD;
	attr->max_qp_init_rd_atom = SOFTIW_MAX_ORD;
	attr->max_res_rd_atom = SOFTIW_MAX_QP * SOFTIW_MAX_IRD;
	attr->max_srq = softiw_rm_dev_limit(SOFTIW_RES_SRQ);
	attr->max_srq_wr = SOFTIW_MAX_SRQ_WR;
	attr->max_srq_sge = SOFTIW_MAX_SGE;
	attr->max_fast_reg_page_list_len = SOFTIW_MAX_FRMR_PAGES;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
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
	/* connections through iw_cm (cm.c) */
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SOFTIW_MAX_MSG_SIZE;

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

static int alloc_ucontext(struct ib_ucontext *ibucontext,
			  struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibucontext->device);
	struct softiw_ucontext *uctx = container_of(ibucontext,
						    struct softiw_ucontext,
						    ibucontext);
	struct softiw_alloc_ucontext_resp resp = {
		.abi_version = SOFTIW_ABI_VERSION,
		.doorbell_fd = -1,
	};
	struct softiw_alloc_ucontext_req req = {};
	struct softiw_doorbell_new nd;
	int ret;

	if (!softiw_udata_in_ok(udata, sizeof(req)))
		return -EINVAL;
	if (udata->inlen &&
	    ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req))))
		return -EFAULT;
	if ((req.flags & ~SOFTIW_UCTX_F_DOORBELL_FD) || req.reserved)
		return -EINVAL;
	/* a provider that cannot take the whole response is not ours */
	if (udata->outlen < sizeof(resp)) {
		softiw_dbg_dev(sdev, "response space %zu < %zu\n",
			       udata->outlen, sizeof(resp));
		return -EINVAL;
	}
	/* every context of this process shares one set of limits */
	ret = softiw_rm_proc_attach(sdev, uctx);
	if (ret)
		return ret;
	if (!(req.flags & SOFTIW_UCTX_F_DOORBELL_FD)) {
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		goto out;
	}

	ret = softiw_doorbell_create(uctx, &nd);
	if (ret)
		goto out;
	resp.doorbell_fd = nd.fd;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		softiw_doorbell_discard(&nd);
		goto out;
	}
	/* the process gets the fd only once nothing here can fail */
	softiw_doorbell_install(uctx, &nd);
out:
	if (ret)
		softiw_rm_proc_detach(sdev, uctx);
	return ret;
}

/*
 * ib_core takes a reference to the calling task for the context's
 * resource-tracking entry before it asks us (ib_alloc_ucontext(), through
 * rdma_restrack_set_name()), and its GET_CONTEXT ioctl method frees a
 * context we refused without releasing that entry (6.1 and 6.12 at
 * least; the write command releases it).  Every refused open would leak
 * the process's task_struct, signal_struct and cred, and a process can
 * make us refuse at will (bad flags, its limits): drop the reference
 * here and clear it, so that a release by the core, where it makes one,
 * finds no task to put.  The entry was never added, so nobody else sees
 * it.  Found by dp_allocfail's sweep with kmemleak on.  The same method
 * leaks the reference when ib_core itself refuses before asking us (a
 * second context on the file, the rdma cgroup's hca_handle limit): that
 * only ib_core can fix, by releasing the entry before it frees.
 */
static int softiw_alloc_ucontext(struct ib_ucontext *ibucontext,
				 struct ib_udata *udata)
{
	struct rdma_restrack_entry *res = &ibucontext->res;
	int ret = alloc_ucontext(ibucontext, udata);

	if (ret && res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
	return ret;
}

static void softiw_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct softiw_ucontext *uctx = container_of(ibucontext,
						    struct softiw_ucontext,
						    ibucontext);

	softiw_doorbell_sever(uctx);
	softiw_rm_proc_detach(to_softiw_dev(ibucontext->device), uctx);
}

/*
 * The device is going away (rdma link delete, its netdev unregistered,
 * its namespace torn down) while a process still has this context open.
 * ib_core has destroyed every object of the context already and calls
 * dealloc_ucontext next, so removal need not wait for the process, which
 * sees errors from then on.  The doorbell file is severed here (ENODEV).
 * Nothing needs zapping: a ring's pages are held by the process's
 * mapping (softiw_mmap()), not by their object, and the kernel neither
 * reads nor writes them once the object is destroyed.
 */
static void softiw_disassociate_ucontext(struct ib_ucontext *ibucontext)
{
	softiw_doorbell_sever(container_of(ibucontext, struct softiw_ucontext,
					   ibucontext));
}

static int softiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct softiw_device *sdev = to_softiw_dev(ibpd->device);

	struct softiw_pd *pd = to_softiw_pd(ibpd);

	if (!softiw_udata_in_ok(udata, 0))
		return -EINVAL;
	pd->uctx = softiw_uctx(udata);
	return softiw_rm_charge(sdev, pd->uctx, SOFTIW_RES_PD, 1);
}

static int softiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct softiw_pd *pd = to_softiw_pd(ibpd);

	softiw_rm_uncharge(to_softiw_dev(ibpd->device), pd->uctx,
			   SOFTIW_RES_PD, 1);
	return 0;
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

const struct ib_device_ops softiw_verbs_ops = {
	.query_device = softiw_query_device,
	.query_port = softiw_query_port,
	.query_gid = softiw_query_gid,
	.get_port_immutable = softiw_get_port_immutable,
	.alloc_ucontext = softiw_alloc_ucontext,
	.dealloc_ucontext = softiw_dealloc_ucontext,
	.disassociate_ucontext = softiw_disassociate_ucontext,
	.mmap = softiw_mmap,
	.mmap_free = softiw_mmap_free,
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
	.query_qp = softiw_query_qp,
	.destroy_qp = softiw_destroy_qp,
	.post_send = softiw_post_send,
	.post_recv = softiw_post_recv,
	.create_srq = softiw_create_srq,
	.modify_srq = softiw_modify_srq,
	.query_srq = softiw_query_srq,
	.destroy_srq = softiw_destroy_srq,
	.post_srq_recv = softiw_post_srq_recv,
	.get_dma_mr = softiw_get_dma_mr,
	.reg_user_mr = softiw_reg_user_mr,
	.alloc_mr = softiw_alloc_mr,
	.map_mr_sg = softiw_map_mr_sg,
	.dereg_mr = softiw_dereg_mr,
	.alloc_mw = softiw_alloc_mw,
	.dealloc_mw = softiw_dealloc_mw,

	/* the iw_cm connection ops are cm.c's (softiw_cm_ops) */
	.iw_get_qp = softiw_iw_get_qp,
	.iw_add_ref = softiw_iw_add_ref,
	.iw_rem_ref = softiw_iw_rem_ref,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, softiw_ucontext, ibucontext),
	INIT_RDMA_OBJ_SIZE(ib_pd, softiw_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, softiw_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, softiw_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, softiw_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_mw, softiw_mw, ibmw),
};
