/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw provider: its device and context objects and the functions one
 * file of the provider calls in another.
 *
 * Locking: a struct softiw_device is immutable after alloc_device and is
 * freed by libibverbs through uninit_device when its last reference goes.
 * A struct softiw_context belongs to the application's ibv_context; the
 * fields here are written once in alloc_context, before libibverbs
 * publishes the context, and only read afterwards.  CQ, QP and SRQ
 * objects carry the rings they share with the kernel; see fastpath.c for
 * who writes what.
 */
#ifndef SOFTIW_PROVIDER_H
#define SOFTIW_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/softiw-abi.h>

#include "verbs_provider.h"

struct softiw_device {
	struct verbs_device vdev;
};

struct softiw_context {
	struct verbs_context vctx;
	uint32_t abi_version;	/* from the kernel's alloc_ucontext response */
	int doorbell_fd;	/* the context's doorbell file, or -1 */
};

static inline struct softiw_context *to_softiw_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct softiw_context, vctx.context);
}

/*
 * A ring shared with the kernel (softiw-abi.h): mapped from the device
 * file at create time, unmapped after the object is destroyed.
 */
struct softiw_uring {
	struct softiw_ring_ctrl *ctrl;
	void *entries;
	uint32_t size;		/* entries, a power of two */
	uint32_t head;		/* our producer index (SQ, RQ, SRQ) */
	size_t len;
};

static inline void *softiw_uring_slot(const struct softiw_uring *r,
				      uint32_t idx, size_t esize)
{
	return (char *)r->entries + (size_t)(idx & (r->size - 1)) * esize;
}

/* Completion queue: @lock serialises pollers of the ring. */
struct softiw_cq {
	struct verbs_cq vcq;
	struct softiw_uring ring;
	pthread_spinlock_t lock;
};

/* Queue pair: @sq_lock serialises posters of the SQ, @rq_lock of the RQ. */
struct softiw_qp {
	struct verbs_qp vqp;
	struct softiw_uring sq;
	struct softiw_uring rq;	/* unmapped with an SRQ */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
};

/* Shared receive queue: @lock serialises posters. */
struct softiw_srq {
	struct verbs_srq vsrq;
	struct softiw_uring ring;
	pthread_spinlock_t lock;
	uint32_t max_wr;
	uint32_t max_sge;
};

static inline struct softiw_cq *to_softiw_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct softiw_cq, vcq.cq);
}

static inline struct softiw_qp *to_softiw_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct softiw_qp, vqp.qp);
}

static inline struct softiw_srq *to_softiw_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct softiw_srq, vsrq.srq);
}

/* device.c: the provider descriptor, registered from a constructor */
extern const struct verbs_device_ops verbs_provider_softiw;

/* verbs.c: PD, MR, CQ, QP and SRQ verbs, added to every context */
extern const struct verbs_context_ops softiw_object_ops;

/* fastpath.c: posting and polling on the shared rings */
int softiw_uring_map(struct ibv_context *ibctx, struct softiw_uring *r,
		     uint64_t key, uint32_t size, uint32_t len, size_t esize);
void softiw_uring_unmap(struct softiw_uring *r);
int softiw_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int softiw_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind);
int softiw_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr);
int softiw_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int softiw_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);

/* context.c */
struct verbs_context *softiw_alloc_context(struct ibv_device *ibdev,
					   int cmd_fd, void *private_data);

#endif /* SOFTIW_PROVIDER_H */
