/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw provider: its device and context objects and the functions one
 * file of the provider calls in another.
 *
 * Locking: a struct softiw_device is immutable after alloc_device and is
 * freed by libibverbs through uninit_device when its last reference goes.
 * A struct softiw_context belongs to the application's ibv_context; the
 * fields here are written once in alloc_context, before libibverbs
 * publishes the context, and only read afterwards.
 */
#ifndef SOFTIW_PROVIDER_H
#define SOFTIW_PROVIDER_H

#include "verbs_provider.h"

struct softiw_device {
	struct verbs_device vdev;
};

struct softiw_context {
	struct verbs_context vctx;
	uint32_t abi_version;	/* from the kernel's alloc_ucontext response */
};

static inline struct softiw_context *to_softiw_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct softiw_context, vctx.context);
}

/* device.c: the provider descriptor, registered from a constructor */
extern const struct verbs_device_ops verbs_provider_softiw;

/* verbs.c: PD, MR, CQ, QP and SRQ verbs, added to every context */
extern const struct verbs_context_ops softiw_object_ops;

/* context.c */
struct verbs_context *softiw_alloc_context(struct ibv_device *ibdev,
					   int cmd_fd, void *private_data);

#endif /* SOFTIW_PROVIDER_H */
