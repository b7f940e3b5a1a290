// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw provider: the user context (alloc/free) and the device and port
 * queries.  Everything goes through libibverbs' uverbs command helpers;
 * the only driver data is the alloc_ucontext request and response of
 * softiw-abi.h, which ask for and hand over the context's doorbell file
 * (fastpath.c rings it; closed here with the context).
 *
 * Locking: the verbs here keep no state of their own; the context fields
 * are set before libibverbs hands the context to the application.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/softiw-abi.h>

#include "softiw.h"

/* GET_CONTEXT request: core part, then ours. */
struct softiw_get_context_cmd {
	struct ibv_get_context ibv_cmd;
	struct softiw_alloc_ucontext_req drv;
};

_Static_assert(offsetof(struct softiw_get_context_cmd, drv) ==
	       sizeof(struct ibv_get_context),
	       "no padding between core and driver request");

/* GET_CONTEXT response as the kernel writes it: core part, then ours. */
struct softiw_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct softiw_alloc_ucontext_resp drv;
};

_Static_assert(offsetof(struct softiw_get_context_resp, drv) ==
	       sizeof(struct ib_uverbs_get_context_resp),
	       "no padding between core and driver response");

/*
 * The kernel's 64-bit fw_ver is 16-bit major.minor.sub in bits 47..0,
 * the convention of the in-tree soft RDMA drivers.
 */
static void format_fw_ver(char *buf, size_t size, uint64_t fw_ver)
{
	snprintf(buf, size, "%u.%u.%u", (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);
}

static int softiw_query_device_ex(struct ibv_context *ibctx,
				  const struct ibv_query_device_ex_input *input,
				  struct ibv_device_attr_ex *attr,
				  size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	format_fw_ver(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		      resp.base.fw_ver);
	return 0;
}

static int softiw_query_port(struct ibv_context *ibctx, uint8_t port_num,
			     struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ibctx, port_num, port_attr, &cmd,
				  sizeof(cmd));
}

static void softiw_free_context(struct ibv_context *ibctx)
{
	struct softiw_context *ctx = to_softiw_ctx(ibctx);

	if (ctx->doorbell_fd >= 0)
		close(ctx->doorbell_fd);
	/* Closes cmd_fd, which makes the kernel drop the ucontext. */
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops softiw_ctx_ops = {
	.free_context = softiw_free_context,
	.query_device_ex = softiw_query_device_ex,
	.query_port = softiw_query_port,
};

/*
 * Returns the new context, or NULL with errno set: the errno of the
 * GET_CONTEXT command, or EPROTO when the kernel speaks another softiw ABI.
 * cmd_fd is closed on every failure path (by libibverbs' helpers).
 */
struct verbs_context *softiw_alloc_context(struct ibv_device *ibdev,
					   int cmd_fd, void *private_data)
{
	struct softiw_get_context_resp resp;
	struct softiw_get_context_cmd cmd;
	struct softiw_context *ctx;
	int ret;

	(void)private_data;
	/* Driver id 0: softiw has no id of its own, see device.c. */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	cmd.drv.flags = SOFTIW_UCTX_F_DOORBELL_FD;
	resp.drv.doorbell_fd = -1;
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret) {
		verbs_err(&ctx->vctx, "GET_CONTEXT failed: %s\n",
			  strerror(ret));
		goto err_uninit;
	}

	/*
	 * A kernel with a shorter response leaves abi_version 0, which is
	 * refused here like any other mismatch.
	 */
	if (resp.drv.abi_version != SOFTIW_ABI_VERSION) {
		verbs_err(&ctx->vctx,
			  "kernel softiw ABI %u, provider ABI %u\n",
			  resp.drv.abi_version, SOFTIW_ABI_VERSION);
		ret = EPROTO;
		goto err_uninit;
	}
	ctx->abi_version = resp.drv.abi_version;
	/* none (-1) leaves the doorbell to the POST_SEND command */
	ctx->doorbell_fd = resp.drv.doorbell_fd;

	verbs_set_ops(&ctx->vctx, &softiw_ctx_ops);
	verbs_set_ops(&ctx->vctx, &softiw_object_ops);
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}
