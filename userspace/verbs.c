// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw provider: protection domains, memory regions, completion queues,
 * queue pairs and shared receive queues.
 *
 * Every verb here proxies the process's request to the kernel through
 * libibverbs' uverbs command helpers: the kernel's resource manager
 * allocates, checks and accounts each object, and posting and polling are
 * uverbs commands too (POST_SEND, POST_RECV, POST_SRQ_RECV, POLL_CQ), so
 * the kernel copies and validates every work request before it uses it.
 * No driver data is exchanged: softiw-abi.h defines none for these
 * commands.
 *
 * Locking: none.  The objects are owned by libibverbs' callers, which
 * serialise creation and destruction; the kernel serialises the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "softiw.h"

static struct ibv_pd *softiw_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int softiw_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *softiw_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, uint64_t hca_va,
				    int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int softiw_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_cq *softiw_create_cq(struct ibv_context *ibctx, int cqe,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct ib_uverbs_create_cq_resp resp;
	struct ibv_create_cq cmd;
	struct verbs_cq *vcq;
	int ret;

	vcq = calloc(1, sizeof(*vcq));
	if (!vcq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &vcq->cq,
				&cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vcq);
		errno = ret;
		return NULL;
	}
	return &vcq->cq;
}

static int softiw_destroy_cq(struct ibv_cq *cq)
{
	int ret = ibv_cmd_destroy_cq(cq);

	if (!ret)
		free(container_of(cq, struct verbs_cq, cq));
	return ret;
}

static int softiw_poll_cq(struct ibv_cq *cq, int num_entries,
			  struct ibv_wc *wc)
{
	return ibv_cmd_poll_cq(cq, num_entries, wc);
}

static int softiw_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

static struct ibv_qp *softiw_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_qp_init_attr_ex attr_ex;
	struct ibv_create_qp cmd;
	struct verbs_qp *vqp;
	int ret;

	vqp = calloc(1, sizeof(*vqp));
	if (!vqp)
		return NULL;
	memset(&attr_ex, 0, sizeof(attr_ex));
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_qp_ex(pd->context, vqp, &attr_ex, &cmd,
				   sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vqp);
		errno = ret;
		return NULL;
	}
	/* the kernel's limits, which may exceed what was asked */
	attr->cap = attr_ex.cap;
	return &vqp->qp;
}

static int softiw_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int softiw_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
}

static int softiw_destroy_qp(struct ibv_qp *qp)
{
	int ret = ibv_cmd_destroy_qp(qp);

	if (!ret)
		free(container_of(qp, struct verbs_qp, qp));
	return ret;
}

static int softiw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			    struct ibv_send_wr **bad_wr)
{
	return ibv_cmd_post_send(qp, wr, bad_wr);
}

static int softiw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_recv(qp, wr, bad_wr);
}

static struct ibv_srq *softiw_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *attr)
{
	struct ib_uverbs_create_srq_resp resp;
	struct ibv_create_srq cmd;
	struct verbs_srq *vsrq;
	int ret;

	vsrq = calloc(1, sizeof(*vsrq));
	if (!vsrq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_srq(pd, &vsrq->srq, attr, &cmd, sizeof(cmd),
				 &resp, sizeof(resp));
	if (ret) {
		free(vsrq);
		errno = ret;
		return NULL;
	}
	return &vsrq->srq;
}

static int softiw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			     int attr_mask)
{
	struct ibv_modify_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int softiw_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int softiw_destroy_srq(struct ibv_srq *srq)
{
	int ret = ibv_cmd_destroy_srq(srq);

	if (!ret)
		free(container_of(srq, struct verbs_srq, srq));
	return ret;
}

static int softiw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
}

const struct verbs_context_ops softiw_object_ops = {
	.alloc_pd = softiw_alloc_pd,
	.dealloc_pd = softiw_dealloc_pd,
	.reg_mr = softiw_reg_mr,
	.dereg_mr = softiw_dereg_mr,
	.create_cq = softiw_create_cq,
	.destroy_cq = softiw_destroy_cq,
	.poll_cq = softiw_poll_cq,
	.req_notify_cq = softiw_req_notify_cq,
	.create_qp = softiw_create_qp,
	.query_qp = softiw_query_qp,
	.modify_qp = softiw_modify_qp,
	.destroy_qp = softiw_destroy_qp,
	.post_send = softiw_post_send,
	.post_recv = softiw_post_recv,
	.create_srq = softiw_create_srq,
	.modify_srq = softiw_modify_srq,
	.query_srq = softiw_query_srq,
	.destroy_srq = softiw_destroy_srq,
	.post_srq_recv = softiw_post_srq_recv,
};
