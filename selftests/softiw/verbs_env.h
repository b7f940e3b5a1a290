/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs_env.h: the test environment the verbs selftests share
 * (verbs_ops.c, ring_attack.c): an rdma_cm RC connection over loopback
 * in one process, a listener and a connector on the softiw device that
 * owns VERBS_ADDR (default 10.78.0.1, sw0 in ns0 of dp_lib.sh), both on
 * one event channel.  The "client" end posts, the "server" end responds.
 * Each end has its own PD, send and receive CQs (each with a completion
 * channel) and one 4 MiB buffer registered with every right.  Helpers
 * post, poll and check completions, QP states and async events, with
 * kselftest-harness assertions.
 */
#ifndef SOFTIW_VERBS_ENV_H
#define SOFTIW_VERBS_ENV_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "kselftest_harness.h"

#define BUF_LEN		(4u << 20)	/* registered buffer of each end */
#define TMO_MS		15000		/* completions, events (TCG is slow) */
#define QUIET_MS	300		/* "nothing more arrives" */
#define MAX_CONN	2
#define SQ_DEPTH	64
#define RQ_DEPTH	64
#define WANT_INLINE	256
#define FILL		0xa5		/* what untouched memory holds */

struct end {
	struct ibv_pd *pd;
	struct ibv_comp_channel *sch, *rch;
	struct ibv_cq *scq, *rcq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

struct env {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct end c, s;
	struct ibv_srq *srq;		/* server end, when asked for */
	struct rdma_cm_id *cid[MAX_CONN], *sid[MAX_CONN];
	int nconn;
	struct ibv_qp_cap cap;		/* client QP 0, as granted */
};

struct env_opts {
	int scq_cqe;			/* client send CQ depth (0: default) */
	int s_rcq_cqe;			/* server receive CQ depth (0: default) */
	int srq_wr;			/* server SRQ depth (0: no SRQ) */
	int nconn;
};

/* ---- small helpers ---- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static uint8_t pat(size_t i, unsigned int seed)
{
	return (uint8_t)(i * 131 + (i >> 9) + seed * 29 + 1);
}

static void fill_pat(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(i, seed);
}

/* First offset in [0, len) where @p differs from @want, or -1. */
static long diff_byte(const uint8_t *p, size_t len, uint8_t want)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != want)
			return (long)i;
	return -1;
}

static long diff_mem(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static const char *addr_str(void)
{
	const char *a = getenv("VERBS_ADDR");

	return a && *a ? a : "10.78.0.1";
}

/* ---- rdma_cm ---- */

static void get_ev(struct __test_metadata *_metadata, struct env *e,
		   struct rdma_cm_event *out)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = e->ch->fd, .events = POLLIN };

	ASSERT_EQ(1, poll(&pfd, 1, TMO_MS)) {
		TH_LOG("no rdma_cm event within %d ms", TMO_MS);
	}
	ASSERT_EQ(0, rdma_get_cm_event(e->ch, &ev));
	*out = *ev;
	rdma_ack_cm_event(ev);
}

static void want_ev(struct __test_metadata *_metadata, struct env *e,
		    enum rdma_cm_event_type type, struct rdma_cm_event *out)
{
	get_ev(_metadata, e, out);
	ASSERT_EQ(type, out->event) {
		TH_LOG("rdma_cm: got %s (status %d), want %s",
		       rdma_event_str(out->event), out->status,
		       rdma_event_str(type));
	}
}

static void end_open(struct __test_metadata *_metadata, struct env *e,
		     struct end *x, int scq_cqe, int rcq_cqe)
{
	x->pd = ibv_alloc_pd(e->ctx);
	ASSERT_NE(NULL, x->pd);
	x->sch = ibv_create_comp_channel(e->ctx);
	x->rch = ibv_create_comp_channel(e->ctx);
	ASSERT_NE(NULL, x->sch);
	ASSERT_NE(NULL, x->rch);
	x->scq = ibv_create_cq(e->ctx, scq_cqe ? scq_cqe : 256, NULL, x->sch, 0);
	x->rcq = ibv_create_cq(e->ctx, rcq_cqe ? rcq_cqe : 256, NULL, x->rch,
			       0);
	ASSERT_NE(NULL, x->scq);
	ASSERT_NE(NULL, x->rcq);
	x->buf = aligned_alloc(4096, BUF_LEN);
	ASSERT_NE(NULL, x->buf);
	memset(x->buf, FILL, BUF_LEN);
	x->mr = ibv_reg_mr(x->pd, x->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, x->mr) TH_LOG("ibv_reg_mr: %s", strerror(errno));
}

static void qp_attr_default(struct ibv_qp_init_attr *a, struct end *x)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = x->scq;
	a->recv_cq = x->rcq;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 0;
	a->cap.max_send_wr = SQ_DEPTH;
	a->cap.max_recv_wr = RQ_DEPTH;
	a->cap.max_inline_data = WANT_INLINE;
}

/* One more connection: client id -> listener; QPs on both ends. */
static void conn_add(struct __test_metadata *_metadata, struct env *e)
{
	struct rdma_conn_param cp = {
		.initiator_depth = e->dattr.max_qp_init_rd_atom,
		.responder_resources = e->dattr.max_qp_rd_atom,
	};
	struct ibv_qp_init_attr ca, sa;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_cm_event ev;
	struct rdma_cm_id *cid, *sid;
	int k = e->nconn, est = 0, i;

	ASSERT_LT(k, MAX_CONN);
	dst.sin_port = rdma_get_src_port(e->listen);
	ASSERT_EQ(1, inet_pton(AF_INET, addr_str(), &dst.sin_addr));
	ASSERT_EQ(0, rdma_create_id(e->ch, &cid, NULL, RDMA_PS_TCP));
	e->cid[k] = cid;
	ASSERT_EQ(0, rdma_resolve_addr(cid, NULL, (struct sockaddr *)&dst,
				       TMO_MS));
	want_ev(_metadata, e, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	ASSERT_EQ(0, rdma_resolve_route(cid, TMO_MS));
	want_ev(_metadata, e, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	ASSERT_EQ(e->ctx, cid->verbs);

	qp_attr_default(&ca, &e->c);
	ca.cap.max_send_sge = e->dattr.max_sge;
	ca.cap.max_recv_sge = e->dattr.max_sge;
	ASSERT_EQ(0, rdma_create_qp(cid, e->c.pd, &ca)) {
		TH_LOG("rdma_create_qp (client): %s", strerror(errno));
	}
	if (!k)
		e->cap = ca.cap;
	ASSERT_EQ(0, rdma_connect(cid, &cp));
	want_ev(_metadata, e, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	sid = ev.id;
	e->sid[k] = sid;
	e->nconn++;
	qp_attr_default(&sa, &e->s);
	sa.cap.max_send_sge = e->dattr.max_sge;
	sa.cap.max_recv_sge = e->dattr.max_sge;
	if (e->srq) {
		sa.srq = e->srq;
		sa.cap.max_recv_wr = 0;
		sa.cap.max_recv_sge = 0;
	}
	ASSERT_EQ(0, rdma_create_qp(sid, e->s.pd, &sa)) {
		TH_LOG("rdma_create_qp (server): %s", strerror(errno));
	}
	ASSERT_EQ(0, rdma_accept(sid, &cp));
	for (i = 0; i < 2; i++) {
		want_ev(_metadata, e, RDMA_CM_EVENT_ESTABLISHED, &ev);
		est += ev.id == cid ? 1 : ev.id == sid ? 2 : 0;
	}
	ASSERT_EQ(3, est);
}

static void env_open(struct __test_metadata *_metadata, struct env *e,
		     const struct env_opts *o)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int i, fl;

	memset(e, 0, sizeof(*e));
	e->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, e->ch);
	ASSERT_EQ(0, rdma_create_id(e->ch, &e->listen, NULL, RDMA_PS_TCP));
	ASSERT_EQ(1, inet_pton(AF_INET, addr_str(), &a.sin_addr));
	ASSERT_EQ(0, rdma_bind_addr(e->listen, (struct sockaddr *)&a)) {
		TH_LOG("rdma_bind_addr %s: %s", addr_str(), strerror(errno));
	}
	ASSERT_NE(NULL, e->listen->verbs);
	ASSERT_EQ(0, rdma_listen(e->listen, 8));
	e->ctx = e->listen->verbs;
	ASSERT_EQ(0, ibv_query_device(e->ctx, &e->dattr));
	ASSERT_EQ(0, ibv_query_port(e->ctx, 1, &e->pattr));
	fl = fcntl(e->ctx->async_fd, F_GETFL);
	ASSERT_EQ(0, fcntl(e->ctx->async_fd, F_SETFL, fl | O_NONBLOCK));
	end_open(_metadata, e, &e->c, o ? o->scq_cqe : 0, 0);
	end_open(_metadata, e, &e->s, 0, o ? o->s_rcq_cqe : 0);
	if (o && o->srq_wr) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = o->srq_wr, .max_sge = 1 },
		};

		e->srq = ibv_create_srq(e->s.pd, &sa);
		ASSERT_NE(NULL, e->srq) TH_LOG("ibv_create_srq: %s",
					       strerror(errno));
	}
	for (i = 0; i < (o && o->nconn ? o->nconn : 1); i++)
		conn_add(_metadata, e);
}

static void end_close(struct end *x)
{
	if (x->mr)
		ibv_dereg_mr(x->mr);
	if (x->scq)
		ibv_destroy_cq(x->scq);
	if (x->rcq)
		ibv_destroy_cq(x->rcq);
	if (x->sch)
		ibv_destroy_comp_channel(x->sch);
	if (x->rch)
		ibv_destroy_comp_channel(x->rch);
	if (x->pd)
		ibv_dealloc_pd(x->pd);
	free(x->buf);
}

static void env_close(struct env *e)
{
	int i;

	for (i = 0; i < MAX_CONN; i++) {
		if (e->cid[i]) {
			if (e->cid[i]->qp)
				rdma_destroy_qp(e->cid[i]);
			rdma_destroy_id(e->cid[i]);
		}
		if (e->sid[i]) {
			if (e->sid[i]->qp)
				rdma_destroy_qp(e->sid[i]);
			rdma_destroy_id(e->sid[i]);
		}
	}
	if (e->srq)
		ibv_destroy_srq(e->srq);
	end_close(&e->c);
	end_close(&e->s);
	if (e->listen)
		rdma_destroy_id(e->listen);
	if (e->ch)
		rdma_destroy_event_channel(e->ch);
	memset(e, 0, sizeof(*e));
}

/* ---- posting and completions ---- */

static struct ibv_sge sge_of(struct end *x, size_t off, uint32_t len)
{
	struct ibv_sge s = {
		.addr = (uintptr_t)x->buf + off,
		.length = len,
		.lkey = x->mr->lkey,
	};

	return s;
}

static int post_op(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		   struct ibv_sge *sg, int nsge, unsigned int flags,
		   uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = sg,
		.num_sge = nsge,
		.opcode = op,
		.send_flags = flags,
	}, *bad = NULL;
	int ret;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret && bad != &wr)
		return -1000;	/* bad_wr not set: reported by the callers */
	return ret;
}

static int post_recv1(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sg,
		      int nsge)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = nsge,
	}, *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Exactly @n completions from @cq within TMO_MS, into @wc. */
static void poll_n(struct __test_metadata *_metadata, struct ibv_cq *cq,
		   int n, struct ibv_wc *wc)
{
	long end = now_ms() + TMO_MS;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		ASSERT_LE(0, r) TH_LOG("ibv_poll_cq: %d", r);
		got += r;
		if (got < n) {
			ASSERT_GT(end, now_ms()) {
				TH_LOG("%d of %d completions within %d ms",
				       got, n, TMO_MS);
			}
			usleep(1000);
		}
	}
}

/* Nothing more arrives at @cq for QUIET_MS. */
static void poll_none(struct __test_metadata *_metadata, struct ibv_cq *cq)
{
	long end = now_ms() + QUIET_MS;
	struct ibv_wc wc;
	int r;

	while (now_ms() < end) {
		r = ibv_poll_cq(cq, 1, &wc);
		ASSERT_EQ(0, r) {
			TH_LOG("unexpected completion: wr_id %llu status %s",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
		}
		usleep(2000);
	}
}

static void check_wc(struct __test_metadata *_metadata,
		     const struct ibv_wc *wc, uint64_t wr_id,
		     enum ibv_wc_status st, enum ibv_wc_opcode op,
		     struct ibv_qp *qp)
{
	ASSERT_EQ(wr_id, wc->wr_id);
	ASSERT_EQ(st, wc->status) {
		TH_LOG("wr_id %llu: status %s, want %s",
		       (unsigned long long)wc->wr_id,
		       ibv_wc_status_str(wc->status), ibv_wc_status_str(st));
	}
	if (st == IBV_WC_SUCCESS)
		ASSERT_EQ(op, wc->opcode);	/* undefined on errors */
	ASSERT_EQ(qp->qp_num, wc->qp_num);
}

/* One signaled op on client QP @k and its successful completion. */
static void do_op(struct __test_metadata *_metadata, struct env *e,
		  enum ibv_wr_opcode op, uint64_t wr_id, struct ibv_sge *sg,
		  int nsge, unsigned int flags, uint64_t raddr, uint32_t rkey)
{
	struct ibv_qp *qp = e->cid[0]->qp;
	enum ibv_wc_opcode wop = op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
				 op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
				 IBV_WC_SEND;
	struct ibv_wc wc;
	uint32_t len = 0;
	int i;

	for (i = 0; i < nsge; i++)
		len += sg[i].length;
	ASSERT_EQ(0, post_op(qp, op, wr_id, sg, nsge, flags | IBV_SEND_SIGNALED,
			     raddr, rkey));
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, wr_id, IBV_WC_SUCCESS, wop, qp);
	if (op == IBV_WR_RDMA_READ)
		ASSERT_EQ(len, wc.byte_len);
}

static void check_recv(struct __test_metadata *_metadata, struct env *e,
		       uint64_t wr_id, uint32_t len)
{
	struct ibv_wc wc;

	poll_n(_metadata, e->s.rcq, 1, &wc);
	check_wc(_metadata, &wc, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV,
		 e->sid[0]->qp);
	ASSERT_EQ(len, wc.byte_len);
	ASSERT_EQ(0, wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV));
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* @qp reaches ERROR within TMO_MS. */
static void wait_qp_err(struct __test_metadata *_metadata, struct ibv_qp *qp,
			const char *who)
{
	long end = now_ms() + TMO_MS;

	while (qp_state(qp) != IBV_QPS_ERR && now_ms() < end)
		usleep(5000);
	ASSERT_EQ(IBV_QPS_ERR, qp_state(qp)) TH_LOG("%s QP not in ERROR", who);
}

/*
 * Wait for async event @type or @type2 (others are acked and skipped);
 * true if seen.
 */
static bool wait_async2(struct env *e, enum ibv_event_type type,
			enum ibv_event_type type2, int ms,
			struct ibv_async_event *out)
{
	long end = now_ms() + ms;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

	for (;;) {
		long left = end - now_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		if (ibv_get_async_event(e->ctx, &ev))
			continue;
		*out = ev;
		ibv_ack_async_event(&ev);
		if (ev.event_type == type || ev.event_type == type2)
			return true;
	}
}

static bool wait_async(struct env *e, enum ibv_event_type type, int ms,
		       struct ibv_async_event *out)
{
	return wait_async2(e, type, type, ms, out);
}

#endif /* SOFTIW_VERBS_ENV_H */
