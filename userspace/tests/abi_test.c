// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of the provider's binary interface with libibverbs, no device
 * needed.  Prints TAP; exits non-zero when any check fails.
 *
 * 1. Compile time: the layouts in verbs_provider.h against the sizes and
 *    offsets of rdma-core 44 on x86_64.  The numbers were established by
 *    compiling the structure definitions of rdma-core's v44.0
 *    libibverbs/driver.h (with ccan's list_node as two pointers) and
 *    printing sizeof/offsetof, and agree with a hand count (76 pointers in
 *    verbs_context_ops; 992 bytes of verbs_sysfs_dev with 4 bytes of
 *    padding before sysfs_cdev and before time_created).
 * 2. Run time, against the installed libibverbs: verbs_context_ops is
 *    handed to the real verbs_set_ops() and the real ibv_query_port(),
 *    ibv_query_device_ex() and ibv_close_device() must land in our
 *    functions (one slot off and libibverbs' EOPNOTSUPP stubs answer).
 * 3. The provider itself (dlopen()ed, which also runs its registration):
 *    its descriptor, match_device on crafted sysfs directories, and the
 *    error paths of alloc_context.
 *
 * usage: abi_test /path/to/libsoftiw-rdmav34.so
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/softiw-abi.h>

#include "../verbs_provider.h"

#if defined(__x86_64__)
#define CHECK_SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), "sizeof " #type)
#define CHECK_OFF(type, member, off) \
	_Static_assert(offsetof(struct type, member) == (off), #type "." #member)

CHECK_SIZE(verbs_match_ent, 24);
CHECK_OFF(verbs_match_ent, u, 8);
CHECK_OFF(verbs_match_ent, kind, 20);

CHECK_SIZE(verbs_sysfs_dev, 992);
CHECK_OFF(verbs_sysfs_dev, provider_data, 16);
CHECK_OFF(verbs_sysfs_dev, sysfs_name, 36);
CHECK_OFF(verbs_sysfs_dev, sysfs_cdev, 104);
CHECK_OFF(verbs_sysfs_dev, ibdev_name, 112);
CHECK_OFF(verbs_sysfs_dev, ibdev_path, 176);
CHECK_OFF(verbs_sysfs_dev, modalias, 432);
CHECK_OFF(verbs_sysfs_dev, node_guid, 944);
CHECK_OFF(verbs_sysfs_dev, driver_id, 952);
CHECK_OFF(verbs_sysfs_dev, abi_ver, 968);
CHECK_OFF(verbs_sysfs_dev, time_created, 976);

CHECK_SIZE(verbs_device_ops, 72);
CHECK_OFF(verbs_device_ops, match_table, 16);
CHECK_OFF(verbs_device_ops, match_device, 32);
CHECK_OFF(verbs_device_ops, alloc_context, 40);
CHECK_OFF(verbs_device_ops, alloc_device, 56);
CHECK_OFF(verbs_device_ops, uninit_device, 64);

CHECK_SIZE(ibv_device, 664);
CHECK_SIZE(verbs_device, 712);
CHECK_OFF(verbs_device, ops, 664);
CHECK_OFF(verbs_device, refcount, 672);
CHECK_OFF(verbs_device, sysfs, 696);
CHECK_OFF(verbs_device, core_support, 704);

CHECK_SIZE(verbs_context_ops, 76 * 8);
CHECK_OFF(verbs_context_ops, free_context, 312);
CHECK_OFF(verbs_context_ops, query_device_ex, 464);
CHECK_OFF(verbs_context_ops, query_port, 480);
CHECK_OFF(verbs_context_ops, query_qp_data_in_order, 496);
CHECK_OFF(verbs_context_ops, unimport_pd, 600);

CHECK_SIZE(ibv_get_context, 16);
CHECK_SIZE(ibv_query_port, 24);
#endif

static int tests, failures;

static void check(int ok, const char *what)
{
	tests++;
	if (!ok)
		failures++;
	printf("%sok %d - %s\n", ok ? "" : "not ", tests, what);
	fflush(stdout);
}

/* --- 2. verbs_context_ops through the real libibverbs --- */

static struct {
	int query_port_port;
	int query_device_ex;
	int free_context;
} hits;

static int mark_query_port(struct ibv_context *ibctx, uint8_t port_num,
			   struct ibv_port_attr *attr)
{
	(void)ibctx;
	hits.query_port_port = port_num;
	attr->max_msg_sz = 0x12345;
	return 0;
}

static int mark_query_device_ex(struct ibv_context *ibctx,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t size)
{
	(void)ibctx;
	(void)input;
	hits.query_device_ex++;
	if (size >= sizeof(attr->orig_attr))
		attr->orig_attr.max_qp = 4242;
	return 0;
}

struct test_ctx {
	uint64_t before;	/* a driver field ahead of verbs_context */
	struct verbs_context vctx;
};

static void mark_free_context(struct ibv_context *ibctx)
{
	struct test_ctx *ctx = container_of(ibctx, struct test_ctx,
					    vctx.context);

	hits.free_context++;
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops mark_ops = {
	.free_context = mark_free_context,
	.query_device_ex = mark_query_device_ex,
	.query_port = mark_query_port,
};

static void uninit_static_device(struct verbs_device *vdev)
{
	(void)vdev;	/* static storage; refcount never reaches zero here */
}

static const struct verbs_device_ops fake_dev_ops = {
	.name = "abi_test",
	.uninit_device = uninit_static_device,
};

static struct verbs_device fake_dev;

static void init_fake_dev(void)
{
	memset(&fake_dev, 0, sizeof(fake_dev));
	fake_dev.ops = &fake_dev_ops;
	/* One reference held by this test for the whole run. */
	atomic_init(&fake_dev.refcount, 1);
	strcpy(fake_dev.device.name, "abi_test0");
	fake_dev.device.node_type = IBV_NODE_RNIC;
	fake_dev.device.transport_type = IBV_TRANSPORT_IWARP;
}

static void test_context_ops_layout(void)
{
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct test_ctx *ctx;
	struct ibv_pd *pd;
	int fd, ret;

	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ctx = verbs_init_and_alloc_context(&fake_dev.device, fd, ctx, vctx, 0);
	check(ctx != NULL, "_verbs_init_and_alloc_context allocates a context");
	if (!ctx)
		return;
	check(ctx->vctx.context.device == &fake_dev.device &&
	      ctx->vctx.context.cmd_fd == fd,
	      "context found at offsetof(member) inside the driver struct");
	check(atomic_load(&fake_dev.refcount) == 2,
	      "libibverbs took a device reference (verbs_device.refcount offset)");

	verbs_set_ops(&ctx->vctx, &mark_ops);

	memset(&pattr, 0, sizeof(pattr));
	ret = ibv_query_port(&ctx->vctx.context, 1, &pattr);
	check(ret == 0 && hits.query_port_port == 1 && pattr.max_msg_sz == 0x12345,
	      "ibv_query_port() reaches verbs_context_ops.query_port");

	memset(&dattr, 0, sizeof(dattr));
	ret = ibv_query_device_ex(&ctx->vctx.context, NULL, &dattr);
	check(ret == 0 && hits.query_device_ex == 1 &&
	      dattr.orig_attr.max_qp == 4242,
	      "ibv_query_device_ex() reaches verbs_context_ops.query_device_ex");

	errno = 0;
	pd = ibv_alloc_pd(&ctx->vctx.context);
	check(!pd && errno == EOPNOTSUPP,
	      "an op we left NULL is answered by libibverbs (EOPNOTSUPP)");

	ret = ibv_close_device(&ctx->vctx.context);
	check(ret == 0 && hits.free_context == 1,
	      "ibv_close_device() reaches verbs_context_ops.free_context");
	check(atomic_load(&fake_dev.refcount) == 1,
	      "verbs_uninit_context dropped the device reference");
}

/* --- 3. the provider --- */

static const struct verbs_device_ops *provider;

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Run match_device on a directory holding softiw_abi_version = text. */
static int match_with(const char *dir, const char *text)
{
	static struct verbs_sysfs_dev sdev;
	char path[512];

	memset(&sdev, 0, sizeof(sdev));
	snprintf(sdev.ibdev_path, sizeof(sdev.ibdev_path), "%s", dir);
	strcpy(sdev.ibdev_name, "fake0");
	snprintf(path, sizeof(path), "%s/%s", dir, SOFTIW_SYSFS_ABI_ATTR);
	unlink(path);
	if (text && write_file(dir, SOFTIW_SYSFS_ABI_ATTR, text))
		return -1;
	return provider->match_device(&sdev);
}

static void test_match_device(void)
{
	char dir[] = "/tmp/softiw-abi-test.XXXXXX";
	char good[16], bare[16], bad[16];
	char path[512];

	if (!mkdtemp(dir)) {
		check(0, "mkdtemp for fake sysfs directories");
		return;
	}
	snprintf(good, sizeof(good), "%u\n", SOFTIW_ABI_VERSION);
	snprintf(bare, sizeof(bare), "%u", SOFTIW_ABI_VERSION);
	snprintf(bad, sizeof(bad), "%u\n", SOFTIW_ABI_VERSION + 1);

	check(match_with(dir, good) == 1, "match_device accepts our ABI version");
	check(match_with(dir, bare) == 1,
	      "match_device accepts the version without a newline");
	check(match_with(dir, bad) == 0, "match_device refuses another ABI version");
	check(match_with(dir, NULL) == 0, "match_device refuses a device without the attribute");
	check(match_with(dir, "") == 0, "match_device refuses an empty attribute");
	check(match_with(dir, "1x\n") == 0 && match_with(dir, "1\n\n") == 0 &&
	      match_with(dir, "abc") == 0,
	      "match_device refuses garbage");

	snprintf(path, sizeof(path), "%s/%s", dir, SOFTIW_SYSFS_ABI_ATTR);
	unlink(path);
	rmdir(dir);
}

static void test_alloc_context_errors(void)
{
	struct verbs_context *vctx;
	int pipefd[2];

	/*
	 * A write that fails: GET_CONTEXT's ioctl gets ENOTTY, its write()
	 * fallback EBADF on a pipe's read end.  alloc_context must return
	 * NULL with that errno and close the fd.
	 */
	if (pipe(pipefd)) {
		check(0, "pipe");
		return;
	}
	errno = 0;
	vctx = provider->alloc_context(&fake_dev.device, pipefd[0], NULL);
	check(!vctx && errno == EBADF,
	      "alloc_context fails with the command's errno");
	check(fcntl(pipefd[0], F_GETFD) == -1 && errno == EBADF,
	      "alloc_context closed cmd_fd on failure");
	close(pipefd[1]);

	/*
	 * A "kernel" that accepts the command but writes no response (the
	 * write() to /dev/null succeeds): abi_version stays 0 and must be
	 * refused.  libibverbs then takes async_fd 0 from the empty response
	 * and closes it, so fd 0 is made a spare /dev/null first.
	 */
	close(0);
	if (open("/dev/null", O_RDONLY) != 0) {
		check(0, "reopen fd 0");
		return;
	}
	errno = 0;
	vctx = provider->alloc_context(&fake_dev.device,
				       open("/dev/null", O_RDWR | O_CLOEXEC),
				       NULL);
	check(!vctx && errno == EPROTO,
	      "alloc_context refuses a response without our ABI version (EPROTO)");
	check(atomic_load(&fake_dev.refcount) == 1,
	      "failed alloc_context left no device reference behind");
}

static void test_provider(const char *so)
{
	void *h;

	h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	check(h != NULL, "provider loads with RTLD_NOW (all symbols resolve)");
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return;
	}
	provider = dlsym(h, "verbs_provider_softiw");
	check(provider != NULL, "provider exports verbs_provider_softiw");
	check(dlsym(h, "softiw_alloc_context") == NULL,
	      "provider keeps its other symbols local");
	if (!provider)
		return;
	check(provider->name && !strcmp(provider->name, "softiw"),
	      "descriptor name is softiw");
	check(provider->match_table &&
	      provider->match_table[0].kind == VERBS_MATCH_SENTINEL,
	      "match_table is an empty, terminated table (never NULL)");
	check(provider->match_min_abi_version == SOFTIW_ABI_VERSION &&
	      provider->match_max_abi_version == SOFTIW_ABI_VERSION,
	      "uverbs driver ABI range is exactly SOFTIW_ABI_VERSION");
	check(provider->match_device && provider->alloc_device &&
	      provider->uninit_device && provider->alloc_context &&
	      !provider->import_context && !provider->static_providers,
	      "descriptor callbacks present (no import_context)");
	if (provider->match_device)
		test_match_device();
	if (provider->alloc_device && provider->uninit_device) {
		struct verbs_device *vdev = provider->alloc_device(NULL);

		check(vdev != NULL, "alloc_device allocates");
		if (vdev)
			provider->uninit_device(vdev);
	}
	if (provider->alloc_context)
		test_alloc_context_errors();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PROVIDER.so\n", argv[0]);
		return 2;
	}
	/* Keep libibverbs' error log quiet: the failures here are expected. */
	setenv("VERBS_LOG_LEVEL", "0", 1);
	init_fake_dev();
	test_context_ops_layout();
	test_provider(argv[1]);
	printf("1..%d\n", tests);
	printf("# %d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
