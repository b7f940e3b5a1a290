// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw provider: protection domains, memory regions, completion queues,
 * queue pairs and shared receive queues.
 *
 * Every verb here proxies the process's request to the kernel through
 * libibverbs' uverbs command helpers: the kernel's resource manager
 * allocates, checks and accounts each object.  The create responses of
 * CQs, QPs and SRQs carry the rings the process shares with the kernel
 * (softiw-abi.h), which are mapped here; posting and polling on them is
 * fastpath.c's.
 *
 * Locking: none beyond the rings' own (fastpath.c).  The objects are
 * owned by libibverbs' callers, which serialise creation and
 * destruction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

static struct ibv_mw *softiw_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int softiw_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

static struct ibv_cq *softiw_create_cq(struct ibv_context *ibctx, int cqe,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct {
		struct ib_uverbs_create_cq_resp ibv;
		struct softiw_create_cq_resp drv;
	} resp;
	struct ibv_create_cq cmd;
	struct softiw_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret)
		goto err;
	ret = softiw_uring_map(ibctx, &cq->ring, resp.drv.cq_key,
			       resp.drv.cq_size, resp.drv.cq_len,
			       sizeof(struct softiw_cqe));
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err;
	}
	return &cq->vcq.cq;
err:
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = ret;
	return NULL;
}

static int softiw_destroy_cq(struct ibv_cq *cq)
{
	struct softiw_cq *scq = to_softiw_cq(cq);
	int ret = ibv_cmd_destroy_cq(cq);

	if (ret)
		return ret;
	softiw_uring_unmap(&scq->ring);
	pthread_spin_destroy(&scq->lock);
	free(scq);
	return 0;
}

static int softiw_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

static int qp_map_rings(struct ibv_context *ibctx, struct softiw_qp *qp,
			const struct softiw_create_qp_resp *r)
{
	int ret;

	ret = softiw_uring_map(ibctx, &qp->sq, r->sq_key, r->sq_size,
			       r->sq_len, sizeof(struct softiw_sqe));
	if (ret || !r->rq_key)
		return ret;
	ret = softiw_uring_map(ibctx, &qp->rq, r->rq_key, r->rq_size,
			       r->rq_len, sizeof(struct softiw_rqe_abi));
	if (ret)
		softiw_uring_unmap(&qp->sq);
	return ret;
}

static struct ibv_qp *softiw_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr)
{
	struct {
		struct ib_uverbs_create_qp_resp ibv;
		struct softiw_create_qp_resp drv;
	} resp;
	struct ibv_qp_init_attr_ex attr_ex;
	struct ibv_create_qp cmd;
	struct softiw_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	memset(&attr_ex, 0, sizeof(attr_ex));
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_qp_ex(pd->context, &qp->vqp, &attr_ex, &cmd,
				   sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret)
		goto err;
	ret = qp_map_rings(pd->context, qp, &resp.drv);
	if (ret) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		goto err;
	}
	/* the kernel's limits, which may exceed what was asked */
	attr->cap = attr_ex.cap;
	qp->max_send_wr = attr_ex.cap.max_send_wr;
	qp->max_recv_wr = attr_ex.cap.max_recv_wr;
	qp->max_send_sge = attr_ex.cap.max_send_sge;
	qp->max_recv_sge = attr_ex.cap.max_recv_sge;
	qp->max_inline = attr_ex.cap.max_inline_data;
	return &qp->vqp.qp;
err:
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	errno = ret;
	return NULL;
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
	struct softiw_qp *sqp = to_softiw_qp(qp);
	int ret = ibv_cmd_destroy_qp(qp);

	if (ret)
		return ret;
	softiw_uring_unmap(&sqp->rq);
	softiw_uring_unmap(&sqp->sq);
	pthread_spin_destroy(&sqp->sq_lock);
	pthread_spin_destroy(&sqp->rq_lock);
	free(sqp);
	return 0;
}

static struct ibv_srq *softiw_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *attr)
{
	struct {
		struct ib_uverbs_create_srq_resp ibv;
		struct softiw_create_srq_resp drv;
	} resp;
	struct ibv_create_srq cmd;
	struct softiw_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv, sizeof(resp));
	if (ret)
		goto err;
	ret = softiw_uring_map(pd->context, &srq->ring, resp.drv.srq_key,
			       resp.drv.srq_size, resp.drv.srq_len,
			       sizeof(struct softiw_rqe_abi));
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err;
	}
	srq->max_wr = attr->attr.max_wr < srq->ring.size ?
		      attr->attr.max_wr : srq->ring.size;
	srq->max_sge = attr->attr.max_sge;
	return &srq->vsrq.srq;
err:
	pthread_spin_destroy(&srq->lock);
	free(srq);
	errno = ret;
	return NULL;
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
	struct softiw_srq *ssrq = to_softiw_srq(srq);
	int ret = ibv_cmd_destroy_srq(srq);

	if (ret)
		return ret;
	softiw_uring_unmap(&ssrq->ring);
	pthread_spin_destroy(&ssrq->lock);
	free(ssrq);
	return 0;
}

const struct verbs_context_ops softiw_object_ops = {
	.alloc_pd = softiw_alloc_pd,
	.dealloc_pd = softiw_dealloc_pd,
	.reg_mr = softiw_reg_mr,
	.dereg_mr = softiw_dereg_mr,
	.alloc_mw = softiw_alloc_mw,
	.dealloc_mw = softiw_dealloc_mw,
	.bind_mw = softiw_bind_mw,
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
