/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * softiw kernel <-> libibverbs provider ABI.
 *
 * Both sides are built from this one header and change in lock-step: any
 * change to a structure below bumps SOFTIW_ABI_VERSION.  Fixed-width types,
 * explicit padding and __aligned_u64 only, so 32- and 64-bit processes see
 * the same layout.
 */
#ifndef SOFTIW_ABI_USER_H
#define SOFTIW_ABI_USER_H

#include <linux/types.h>

#define SOFTIW_ABI_VERSION 1

/*
 * sysfs attribute of every softiw ib_device
 * (/sys/class/infiniband/<dev>/softiw_abi_version).  It holds
 * SOFTIW_ABI_VERSION in decimal; the provider recognises softiw devices by
 * it, because an out-of-tree driver reports RDMA_DRIVER_UNKNOWN.
 */
#define SOFTIW_SYSFS_ABI_ATTR "softiw_abi_version"

/* Response to alloc_ucontext (driver data after ib_uverbs_get_context_resp). */
struct softiw_alloc_ucontext_resp {
	__u32 abi_version;	/* SOFTIW_ABI_VERSION of the kernel */
	__u32 reserved;
	__aligned_u64 reserved2;
};

#endif /* SOFTIW_ABI_USER_H */
