// SPDX-License-Identifier: GPL-2.0
/*
 * mr_attack DEVICE: what a local process can learn about and do with
 * STags (RFC 5042 sections 6.1.1 and 5.3), through the provider as any
 * process would.  Prints TAP; exits 0 only if every check passes.
 *
 *   stags-distinct       1000 live registrations have 1000 STags
 *   stag-not-reissued    a freed STag index is not handed out again
 *                        within the next 16 registrations
 *   stag-no-stride       consecutive STags show no common difference
 *   stag-key-random      the 8-bit key takes every value
 *   stag-index-spread    the index's top bit is set about half the time
 *   lkey-is-rkey         an iWARP STag names the region locally too
 *   reg-unmapped         memory the process has no mapping for: refused
 *   reg-readonly-write   a read-only mapping with write access: refused
 *   reg-readonly-read    ... with remote read only: allowed
 *   reg-unsupported-access  an access flag softiw does not implement
 *                        (zero-based): refused, not ignored
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "open_dev.h"

#define ROUNDS		5000
#define LIVE		1000
#define RECENT		16

static int n_test, n_fail;

static void ok(int cond, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ok(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	n_test++;
	printf("%sok %d - %s", cond ? "" : "not ", n_test, name);
	if (fmt && *fmt) {
		printf(" # ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	if (!cond)
		n_fail++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	static uint32_t stag[ROUNDS], delta[ROUNDS];
	static struct ibv_mr *live[LIVE];
	long page = sysconf(_SC_PAGESIZE);
	int i, j, reissued = 0, top = 0, same = 0, lk = 1, keys = 0;
	unsigned char seen[256] = { 0 };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	void *buf, *ro;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(page, page);
	if (!pd || !buf) {
		fprintf(stderr, "alloc_pd: %s\n", strerror(errno));
		return 1;
	}

	/* 1000 registrations of one page at once: all STags distinct */
	for (i = 0; i < LIVE; i++) {
		live[i] = ibv_reg_mr(pd, buf, page, acc);
		if (!live[i])
			break;
		stag[i] = live[i]->rkey;
	}
	ok(i == LIVE, "stags-live", "%d of %d registered (%s)", i, LIVE,
	   i == LIVE ? "" : strerror(errno));
	qsort(stag, i, sizeof(stag[0]), cmp_u32);
	for (j = 1; j < i; j++)
		same += stag[j] == stag[j - 1];
	ok(i == LIVE && !same, "stags-distinct", "%d duplicates", same);
	for (j = 0; j < i; j++)
		ibv_dereg_mr(live[j]);

	/* register, record, deregister, many times over */
	for (i = 0; i < ROUNDS; i++) {
		mr = ibv_reg_mr(pd, buf, page, acc);
		if (!mr)
			break;
		stag[i] = mr->rkey;
		lk &= mr->lkey == mr->rkey;
		ibv_dereg_mr(mr);
	}
	ok(i == ROUNDS, "stag-rounds", "%d of %d", i, ROUNDS);
	for (i = 0; i < ROUNDS; i++) {
		for (j = i + 1; j <= i + RECENT && j < ROUNDS; j++)
			reissued += (stag[j] >> 8) == (stag[i] >> 8);
		if (i)
			delta[i - 1] = stag[i] - stag[i - 1];
		seen[stag[i] & 0xff] = 1;
		top += (stag[i] >> 31) & 1;
	}
	ok(!reissued, "stag-not-reissued",
	   "%d indices reissued within %d registrations", reissued, RECENT);
	qsort(delta, ROUNDS - 1, sizeof(delta[0]), cmp_u32);
	for (i = 1, j = 1, same = 1; i < ROUNDS - 1; i++) {
		j = delta[i] == delta[i - 1] ? j + 1 : 1;
		if (j > same)
			same = j;
	}
	/* random 32-bit differences repeat essentially never */
	ok(same <= ROUNDS / 100, "stag-no-stride",
	   "most common difference between consecutive STags occurs %d times in %d",
	   same, ROUNDS - 1);
	for (i = 0; i < 256; i++)
		keys += seen[i];
	ok(keys == 256, "stag-key-random", "%d of 256 key values seen", keys);
	ok(top > ROUNDS * 2 / 5 && top < ROUNDS * 3 / 5, "stag-index-spread",
	   "top bit set in %d of %d", top, ROUNDS);
	ok(lk, "lkey-is-rkey", "%s", lk ? "" : "an lkey differs from its rkey");

	/* exposing memory the process cannot access itself */
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return 1;
	munmap(ro, page);
	mr = ibv_reg_mr(pd, ro, page, acc);
	ok(!mr, "reg-unmapped", "%s", mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return 1;
	mr = ibv_reg_mr(pd, ro, page, acc);
	ok(!mr, "reg-readonly-write", "%s", mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, ro, page, IBV_ACCESS_REMOTE_READ);
	ok(mr != NULL, "reg-readonly-read", "%s", mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	/* zero-based regions are not implemented: refused, not ignored */
	mr = ibv_reg_mr(pd, buf, page, acc | IBV_ACCESS_ZERO_BASED);
	ok(!mr, "reg-unsupported-access", "%s", mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);

	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
