/* SPDX-License-Identifier: GPL-2.0 */
/*
 * open_dev.h: open an RDMA device by name, for the local-attacker
 * programs (mr_attack.c, res_exhaust.c).
 */
#ifndef SOFTIW_OPEN_DEV_H
#define SOFTIW_OPEN_DEV_H

#include <string.h>
#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

#endif /* SOFTIW_OPEN_DEV_H */
