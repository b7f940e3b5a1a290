// SPDX-License-Identifier: GPL-2.0
/*
 * res_exhaust DEVICE RESOURCE MAX [HOLD_FILE]: a local process that takes
 * as many of RESOURCE (pd, cq, qp, srq, mr, cqe) on DEVICE as softiw
 * lets it, up to MAX + 1 attempts.  Prints one line
 *
 *   got N errno E
 *
 * (E: the errno of the refused attempt, 0 if none was refused).  With
 * HOLD_FILE it keeps what it got until that file exists, so that a
 * second process can be measured against what the first holds (run by
 * sec_limits.sh).  For "cqe" every attempt is a CQ of 256 entries;
 * for qp, srq and mr the PD and CQ they need are made first.  With
 * RES_CONTEXTS=N in the environment it opens the device N times and
 * takes from each context in turn: the process's limit is its own, not
 * each context's.  RES_QP_WR=N makes each QP's queues N deep (default
 * 4), so that QPs cost kernel memory (the memory cgroup test).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "open_dev.h"

#define CQE_STEP	256

/* One object of @res; 0 or the errno of the refusal. */
static int take(const char *res, struct ibv_context *ctx, struct ibv_pd *pd,
		struct ibv_cq *cq, void *buf)
{
	const char *wr_env = getenv("RES_QP_WR");
	uint32_t wr = wr_env ? (uint32_t)atoi(wr_env) : 4;
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	void *o;

	errno = 0;
	if (!strcmp(res, "pd"))
		o = ibv_alloc_pd(ctx);
	else if (!strcmp(res, "cq"))
		o = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	else if (!strcmp(res, "cqe"))
		o = ibv_create_cq(ctx, CQE_STEP, NULL, NULL, 0);
	else if (!strcmp(res, "qp"))
		o = ibv_create_qp(pd, &qa);
	else if (!strcmp(res, "srq"))
		o = ibv_create_srq(pd, &sa);
	else if (!strcmp(res, "mr"))
		o = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	else
		return EINVAL;
	return o ? 0 : (errno ? errno : EIO);
}

#define MAX_CTX		8

int main(int argc, char **argv)
{
	struct ibv_context *ctx[MAX_CTX];
	struct ibv_pd *pd[MAX_CTX] = {};
	struct ibv_cq *cq[MAX_CTX] = {};
	const char *res, *nctx_env = getenv("RES_CONTEXTS");
	int max, got = 0, err = 0, nctx = 1, i;
	void *buf;

	if (argc < 4) {
		fprintf(stderr, "usage: res_exhaust DEVICE RESOURCE MAX [HOLD_FILE]\n");
		return 2;
	}
	res = argv[2];
	max = atoi(argv[3]);
	if (nctx_env)
		nctx = atoi(nctx_env);
	if (nctx < 1 || nctx > MAX_CTX) {
		fprintf(stderr, "res_exhaust: RES_CONTEXTS must be 1..%d\n",
			MAX_CTX);
		return 2;
	}
	buf = aligned_alloc(4096, 4096);
	for (i = 0; i < nctx; i++) {
		ctx[i] = open_dev(argv[1]);
		if (!ctx[i]) {
			fprintf(stderr, "res_exhaust: cannot open %s\n", argv[1]);
			return 2;
		}
		if (!strcmp(res, "pd") || !strcmp(res, "cq") ||
		    !strcmp(res, "cqe"))
			continue;
		pd[i] = ibv_alloc_pd(ctx[i]);
		cq[i] = ibv_create_cq(ctx[i], 16, NULL, NULL, 0);
		if (!pd[i] || !cq[i] || !buf) {
			fprintf(stderr, "res_exhaust: PD/CQ: %s\n", strerror(errno));
			return 2;
		}
	}
	while (got <= max) {
		i = got % nctx;
		err = take(res, ctx[i], pd[i], cq[i], buf);
		if (err)
			break;
		got++;
	}
	printf("got %d errno %d\n", got, err);
	fflush(stdout);
	if (argc > 4)
		while (access(argv[4], F_OK))
			usleep(20000);
	/* everything is released when the process exits */
	return 0;
}
