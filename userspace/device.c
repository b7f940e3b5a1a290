// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw provider: registration with libibverbs and recognition of softiw
 * devices.
 *
 * An out-of-tree kernel driver cannot have an rdma_driver_id of its own, so
 * a softiw device reports RDMA_DRIVER_UNKNOWN and the match table cannot
 * find it.  Instead, every softiw ib_device carries the sysfs attribute
 * SOFTIW_SYSFS_ABI_ATTR holding the kernel's SOFTIW_ABI_VERSION, and
 * softiw_match_device() accepts exactly the devices whose attribute holds
 * the version this provider was built with.  The device name is chosen by
 * the user ("rdma link add NAME") and is never looked at.
 *
 * Locking: libibverbs calls match_device/alloc_device/uninit_device under
 * its device list lock; nothing here keeps state between calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/softiw-abi.h>

#include "softiw.h"

/*
 * Read the decimal ABI version in <ibdev_path>/softiw_abi_version.
 * Returns 0 and sets *version, or a positive errno: ENOENT when the
 * attribute is missing (not a softiw device), EINVAL when it is garbage.
 */
static int read_abi_attr(const struct verbs_sysfs_dev *sysfs_dev,
			 unsigned long *version)
{
	char path[IBV_SYSFS_PATH_MAX + sizeof(SOFTIW_SYSFS_ABI_ATTR) + 1];
	char buf[24];
	char *end;
	ssize_t len;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", sysfs_dev->ibdev_path,
		     SOFTIW_SYSFS_ABI_ATTR) >= (int)sizeof(path))
		return ENAMETOOLONG;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return errno;
	buf[len] = '\0';

	/* One decimal number and at most a newline: anything else is junk. */
	errno = 0;
	*version = strtoul(buf, &end, 10);
	if (end == buf || errno || (*end && strcmp(end, "\n")))
		return EINVAL;
	return 0;
}

static bool softiw_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	unsigned long version;
	int ret;

	ret = read_abi_attr(sysfs_dev, &version);
	if (ret == ENOENT)
		return false;
	if (ret) {
		fprintf(stderr, "softiw: %s: unreadable %s: %s\n",
			sysfs_dev->ibdev_name, SOFTIW_SYSFS_ABI_ATTR,
			strerror(ret));
		return false;
	}
	if (version != SOFTIW_ABI_VERSION) {
		fprintf(stderr,
			"softiw: %s: kernel ABI %lu, this provider speaks %u; rebuild the provider with the module\n",
			sysfs_dev->ibdev_name, version, SOFTIW_ABI_VERSION);
		return false;
	}
	return true;
}

static struct verbs_device *softiw_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct softiw_device *dev;

	(void)sysfs_dev;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void softiw_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct softiw_device, vdev));
}

/*
 * libibverbs walks match_table for any device with a known driver id
 * without checking for NULL, so an empty table is required even though
 * softiw_match_device() does all the matching.
 */
static const struct verbs_match_ent softiw_match_table[] = {
	{ .kind = VERBS_MATCH_SENTINEL },
};

/*
 * Exported under rdma-core's naming convention for provider descriptors
 * (verbs_provider_<name>) so tools and tests can find it with dlsym();
 * the version script keeps every other symbol local.
 */
const struct verbs_device_ops verbs_provider_softiw = {
	.name = "softiw",
	/* The uverbs driver ABI the kernel reports (uverbs_abi_ver). */
	.match_min_abi_version = SOFTIW_ABI_VERSION,
	.match_max_abi_version = SOFTIW_ABI_VERSION,
	.match_table = softiw_match_table,
	.match_device = softiw_match_device,
	.alloc_device = softiw_alloc_device,
	.uninit_device = softiw_uninit_device,
	.alloc_context = softiw_alloc_context,
};

/*
 * libibverbs dlopen()s the provider with RTLD_NOW; this runs then, and
 * libibverbs keeps the pointer for the life of the process (it never
 * dlclose()s providers), so a static const descriptor is safe.
 */
static void __attribute__((constructor)) softiw_register(void)
{
	verbs_register_driver_34(&verbs_provider_softiw);
}
