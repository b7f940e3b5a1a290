// SPDX-License-Identifier: GPL-2.0
/*
 * fault_sweep: every allocation softiw makes on behalf of a verb, failed
 * one at a time (dp_allocfail.sh, on a kernel with fault injection).
 *
 *   fault_sweep DEV ADDR PORT
 *
 * Systematic, in the style of syzkaller's fail-nth: for each step of a
 * verbs object lifecycle on DEV (open, PD, CQ, SRQ, QP, QP on the SRQ,
 * MRs of 64 KiB and 4 MiB, MW, QP to INIT) and of an rdma_cm connection
 * over loopback on ADDR:PORT (listen, connect, accept, a Send with
 * its data compared, disconnect), the steps before it are built without
 * faults, /proc/thread-self/fail-nth is set to N just before the step's
 * call and cleared just after, and N runs 1, 2, 3, ... until the step
 * completes without reaching the N-th allocation.  The caller
 * (dp_allocfail.sh) restricts failslab and fail_page_alloc to stack
 * traces through softiw.ko, so N counts softiw's allocation sites on
 * that path (and what softiw calls: ib_umem, sockets, TCP).
 *
 * With a fault injected the step must either succeed (the failure was
 * absorbed, e.g. kvmalloc falling back to vmalloc) or fail cleanly: an
 * error return with errno set, or an error event or completion within
 * EV_MS; and everything built must then be destroyed without error.  A
 * step that fails without a fault, a hang (EV_MS without the event the
 * step must end in), a destroy that fails or a signal fails the test.
 * The kernel's side (no oops, no leak, no lockdep report) is checked by
 * the VM runner's log check and the kmemleak scan after rmmod.
 *
 * Prints TAP, one line per step with its number of sites, errors and
 * absorbed failures, and a total; exits 0 when every line is ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "open_dev.h"

#define EV_MS		30000	/* an event or completion (debug kernel, TCG) */
#define MAX_N		400	/* sites per step, far above any real path */
#define SMALL_MR	(64u << 10)
#define BIG_MR		(4u << 20)
#define MSG_LEN		3000

static int nth_fd = -1;
static int tests, failed;
static long total_sites, total_err, total_absorbed;

static void arm(unsigned int n)
{
	char b[16];
	int l = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, l, 0) != l) {
		perror("fault_sweep: write fail-nth");
		exit(1);
	}
}

/* Clear fail-nth; true if the armed fault was injected. */
static int disarm(void)
{
	char b[16] = "";
	int injected;

	if (pread(nth_fd, b, sizeof(b) - 1, 0) <= 0) {
		perror("fault_sweep: read fail-nth");
		exit(1);
	}
	injected = atoi(b) == 0;
	arm(0);
	return injected;
}

/* ---- the verbs lifecycle ---- */

struct vst {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp, *qp_srq;
	struct ibv_mr *mr, *mr_big;
	struct ibv_mw *mw;
	void *buf, *big;
};

static const char *dev_name;

static int v_open(struct vst *s)
{
	s->ctx = open_dev(dev_name);
	return s->ctx ? 0 : -1;
}

static int v_pd(struct vst *s)
{
	s->pd = ibv_alloc_pd(s->ctx);
	return s->pd ? 0 : -1;
}

static int v_cq(struct vst *s)
{
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	return s->cq ? 0 : -1;
}

static int v_srq(struct vst *s)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 32, .max_sge = 2 } };

	s->srq = ibv_create_srq(s->pd, &a);
	return s->srq ? 0 : -1;
}

static struct ibv_qp *make_qp(struct vst *s, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .srq = srq,
		.cap = { .max_send_wr = 32, .max_recv_wr = srq ? 0 : 32,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(s->pd, &a);
}

static int v_qp(struct vst *s)
{
	s->qp = make_qp(s, NULL);
	return s->qp ? 0 : -1;
}

static int v_qp_srq(struct vst *s)
{
	s->qp_srq = make_qp(s, s->srq);
	return s->qp_srq ? 0 : -1;
}

static const int all_rights = IBV_ACCESS_LOCAL_WRITE |
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_MW_BIND;

static int v_mr(struct vst *s)
{
	s->mr = ibv_reg_mr(s->pd, s->buf, SMALL_MR, all_rights);
	return s->mr ? 0 : -1;
}

static int v_mr_big(struct vst *s)
{
	s->mr_big = ibv_reg_mr(s->pd, s->big, BIG_MR, all_rights);
	return s->mr_big ? 0 : -1;
}

static int v_mw(struct vst *s)
{
	s->mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	return s->mw ? 0 : -1;
}

static int v_init(struct vst *s)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	errno = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PORT |
			      IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS);
	return errno ? -1 : 0;
}

static const struct {
	const char *name;
	int (*fn)(struct vst *s);
} vsteps[] = {
	{ "open device", v_open },
	{ "alloc PD", v_pd },
	{ "create CQ", v_cq },
	{ "create SRQ", v_srq },
	{ "create QP", v_qp },
	{ "create QP on the SRQ", v_qp_srq },
	{ "register a 64 KiB MR", v_mr },
	{ "register a 4 MiB MR", v_mr_big },
	{ "alloc MW type 2", v_mw },
	{ "modify QP to INIT", v_init },
};
#define NVSTEPS ((int)(sizeof(vsteps) / sizeof(vsteps[0])))

/* Destroy whatever @s holds; the number of destroys that failed. */
static int v_teardown(struct vst *s)
{
	int bad = 0;

	if (s->mw)
		bad += !!ibv_dealloc_mw(s->mw);
	if (s->mr_big)
		bad += !!ibv_dereg_mr(s->mr_big);
	if (s->mr)
		bad += !!ibv_dereg_mr(s->mr);
	if (s->qp_srq)
		bad += !!ibv_destroy_qp(s->qp_srq);
	if (s->qp)
		bad += !!ibv_destroy_qp(s->qp);
	if (s->srq)
		bad += !!ibv_destroy_srq(s->srq);
	if (s->cq)
		bad += !!ibv_destroy_cq(s->cq);
	if (s->pd)
		bad += !!ibv_dealloc_pd(s->pd);
	if (s->ctx)
		bad += !!ibv_close_device(s->ctx);
	s->mw = NULL;
	s->mr_big = s->mr = NULL;
	s->qp_srq = s->qp = NULL;
	s->srq = NULL;
	s->cq = NULL;
	s->pd = NULL;
	s->ctx = NULL;
	return bad;
}

static void result(int ok, const char *step, int sites, int err,
		   int absorbed, const char *why)
{
	tests++;
	if (!ok)
		failed++;
	total_sites += sites;
	total_err += err;
	total_absorbed += absorbed;
	printf("%s %d - %s: %d allocation sites, %d failed with an error, %d absorbed%s%s\n",
	       ok ? "ok" : "not ok", tests, step, sites, err, absorbed,
	       why ? ": " : "", why ? why : "");
	fflush(stdout);
}

static void sweep_verbs(struct vst *s)
{
	char why[160];
	int k, i, n;

	for (k = 0; k < NVSTEPS; k++) {
		int err = 0, absorbed = 0, ok = 1, done = 0;

		why[0] = 0;
		for (n = 1; n <= MAX_N && ok && !done; n++) {
			int r, injected;

			for (i = 0; i < k; i++)
				if (vsteps[i].fn(s)) {
					snprintf(why, sizeof(why),
						 "%s failed without a fault: %s",
						 vsteps[i].name, strerror(errno));
					ok = 0;
					break;
				}
			if (ok) {
				errno = 0;
				arm(n);
				r = vsteps[k].fn(s);
				injected = disarm();
				if (!injected) {
					done = 1;
					if (r) {
						snprintf(why, sizeof(why),
							 "failed without a fault: %s",
							 strerror(errno));
						ok = 0;
					}
				} else if (r) {
					err++;
					if (!errno) {
						snprintf(why, sizeof(why),
							 "fault %d: error without errno", n);
						ok = 0;
					}
				} else {
					absorbed++;
				}
			}
			if (v_teardown(s)) {
				snprintf(why, sizeof(why),
					 "fault %d: a destroy failed", n);
				ok = 0;
			}
		}
		if (ok && !done) {
			snprintf(why, sizeof(why), "more than %d sites", MAX_N);
			ok = 0;
		}
		result(ok, vsteps[k].name, n - 2, err, absorbed,
		       why[0] ? why : NULL);
	}
}

/* ---- an rdma_cm connection over loopback ---- */

enum cstage { C_LISTEN, C_CONNECT, C_ACCEPT, C_SEND, C_DISCONNECT, C_N };
static const char *const cstage_name[C_N] = {
	"rdma_listen", "rdma_connect", "rdma_accept",
	"post a Send (data compared)", "rdma_disconnect",
};

struct cend {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
};

static struct rdma_event_channel *ch;
static struct addrinfo *ai;

/*
 * The ends whose connection attempt still owes them an event that ends
 * it (ESTABLISHED, or an error, reject or disconnect): a fault may make
 * the attempt fail, never leave it without an answer.
 */
static struct rdma_cm_id *owed[2];

/* a wait for an event timed out: a hang, never an acceptable failure */
static int hung;

static void note(struct rdma_cm_event *ev)
{
	int i;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ||
	    ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED)
		return;
	for (i = 0; i < 2; i++)
		if (owed[i] == ev->id)
			owed[i] = NULL;
}

/* After a fault: wait until every attempt got its answer; 0 if all did. */
static int settle(void)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	long end = 0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec * 1000L + ts.tv_nsec / 1000000 + EV_MS;
	while (owed[0] || owed[1]) {
		long now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
		if (now >= end || poll(&pfd, 1, end - now) != 1 ||
		    rdma_get_cm_event(ch, &ev))
			return -1;
		note(ev);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct rdma_cm_id *stray = ev->id;

			rdma_ack_cm_event(ev);
			rdma_reject(stray, NULL, 0);
			rdma_destroy_id(stray);
			continue;
		}
		rdma_ack_cm_event(ev);
	}
	return 0;
}

/* The next event of @want on @id, NULL (and a reason) otherwise. */
static int wait_ev(struct rdma_cm_id *id, enum rdma_cm_event_type want,
		   struct rdma_cm_id **new_id, char *why, size_t wl)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type, status;

	if (poll(&pfd, 1, EV_MS) != 1) {
		snprintf(why, wl, "no event within %d ms waiting for %s",
			 EV_MS, rdma_event_str(want));
		hung = 1;
		return -ETIMEDOUT;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		snprintf(why, wl, "rdma_get_cm_event: %s", strerror(errno));
		return -EIO;
	}
	type = ev->event;
	status = ev->status;
	note(ev);
	/* a request we do not want (a stray after a fault): refuse it */
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST && !new_id) {
		struct rdma_cm_id *stray = ev->id;

		rdma_ack_cm_event(ev);
		rdma_reject(stray, NULL, 0);
		rdma_destroy_id(stray);
		snprintf(why, wl, "CONNECT_REQUEST instead of %s",
			 rdma_event_str(want));
		return -EAGAIN;
	}
	if (new_id)
		*new_id = type == RDMA_CM_EVENT_CONNECT_REQUEST ? ev->id : NULL;
	if (type != (int)want || (id && ev->id != id && !new_id)) {
		snprintf(why, wl, "%s (status %d) instead of %s",
			 rdma_event_str(type), status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return type == RDMA_CM_EVENT_CONNECT_REQUEST ? -EAGAIN : -EPROTO;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

static int cend_verbs(struct cend *e)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	e->pd = ibv_alloc_pd(e->id->verbs);
	e->cq = e->pd ? ibv_create_cq(e->id->verbs, 8, NULL, NULL, 0) : NULL;
	e->buf = calloc(1, MSG_LEN);
	e->mr = e->cq && e->buf ? ibv_reg_mr(e->pd, e->buf, MSG_LEN,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!e->mr)
		return -1;
	a.send_cq = e->cq;
	a.recv_cq = e->cq;
	return rdma_create_qp(e->id, e->pd, &a);
}

static int cend_close(struct cend *e)
{
	int bad = 0;

	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->mr)
		bad += !!ibv_dereg_mr(e->mr);
	if (e->cq)
		bad += !!ibv_destroy_cq(e->cq);
	if (e->pd)
		bad += !!ibv_dealloc_pd(e->pd);
	if (e->id)
		bad += !!rdma_destroy_id(e->id);
	free(e->buf);
	memset(e, 0, sizeof(*e));
	return bad;
}

/* One completion on @e's CQ: 0 success, 1 error completion, <0 none. */
static int wait_wc(struct cend *e, struct ibv_wc *wc)
{
	long t = EV_MS;
	int n;

	while ((n = ibv_poll_cq(e->cq, 1, wc)) == 0 && t > 0) {
		usleep(1000);
		t--;
	}
	if (n != 1)
		return -1;
	return wc->status != IBV_WC_SUCCESS;
}

/*
 * One connection's life with fail-nth armed at @n (0: never) around
 * @stage's call.  *injected says whether the fault hit.  Returns 0 when
 * the round ended cleanly (fully working, or failing at or after the
 * fault with an error), -1 with @why otherwise.
 */
static int cm_round(enum cstage stage, unsigned int n, int *injected,
		    int *errored, char *why, size_t wl)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct cend l = { 0 }, c = { 0 }, s = { 0 };
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bs;
	struct ibv_recv_wr *br;
	struct ibv_wc wc;
	int r, fault_seen = 0, ret = -1, i;

	*injected = 0;
	*errored = 0;
	why[0] = 0;
	hung = 0;
#define ARM(st) do { if (stage == (st) && n) arm(n); } while (0)
#define DISARM(st) do { if (stage == (st) && n) fault_seen = *injected = disarm(); } while (0)
/* a failure is fine at or after the fault, a defect before it */
#define FAILED(msg) do { \
		if (!why[0]) \
			snprintf(why, wl, "%s", msg); \
		ret = fault_seen ? 0 : -1; *errored = fault_seen; goto out; \
	} while (0)

	if (rdma_create_id(ch, &l.id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l.id, ai->ai_addr))
		FAILED("listener id/bind");
	ARM(C_LISTEN);
	r = rdma_listen(l.id, 4);
	DISARM(C_LISTEN);
	if (r)
		FAILED("rdma_listen failed");

	if (rdma_create_id(ch, &c.id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c.id, NULL, ai->ai_addr, 2000) ||
	    wait_ev(c.id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, why, wl) ||
	    rdma_resolve_route(c.id, 2000) ||
	    wait_ev(c.id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, why, wl) ||
	    cend_verbs(&c))
		FAILED("client id, route or verbs");
	ARM(C_CONNECT);
	r = rdma_connect(c.id, &p);
	DISARM(C_CONNECT);
	if (r)
		FAILED("rdma_connect failed");
	owed[0] = c.id;

	r = wait_ev(l.id, RDMA_CM_EVENT_CONNECT_REQUEST, &s.id, why, wl);
	if (r || !s.id)
		FAILED("no connect request");
	if (cend_verbs(&s))
		FAILED("server verbs");
	sge.addr = (uintptr_t)s.buf;
	sge.length = MSG_LEN;
	sge.lkey = s.mr->lkey;
	if (ibv_post_recv(s.id->qp, &rwr, &br))
		FAILED("post recv");
	ARM(C_ACCEPT);
	r = rdma_accept(s.id, &p);
	DISARM(C_ACCEPT);
	if (r)
		FAILED("rdma_accept failed");
	owed[1] = s.id;
	/* both ESTABLISHED, in either order */
	for (i = 0; i < 2; i++) {
		struct rdma_cm_event *ev;
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

		if (poll(&pfd, 1, EV_MS) != 1) {
			snprintf(why, wl, "no ESTABLISHED within %d ms", EV_MS);
			ret = -1;
			goto out;
		}
		if (rdma_get_cm_event(ch, &ev))
			FAILED("rdma_get_cm_event");
		note(ev);
		r = ev->event;
		rdma_ack_cm_event(ev);
		if (r != RDMA_CM_EVENT_ESTABLISHED) {
			snprintf(why, wl, "%s instead of ESTABLISHED",
				 rdma_event_str(r));
			FAILED("");
		}
	}

	for (i = 0; i < MSG_LEN; i++)
		c.buf[i] = (char)(i * 7 + n);
	sge.addr = (uintptr_t)c.buf;
	sge.lkey = c.mr->lkey;
	ARM(C_SEND);
	r = ibv_post_send(c.id->qp, &swr, &bs);
	DISARM(C_SEND);
	if (r)
		FAILED("ibv_post_send failed");
	r = wait_wc(&c, &wc);
	if (r < 0) {
		snprintf(why, wl, "no Send completion within %d ms", EV_MS);
		ret = -1;
		goto out;
	}
	if (r > 0)
		FAILED("Send completed in error");
	r = wait_wc(&s, &wc);
	if (r < 0) {
		snprintf(why, wl, "no receive completion within %d ms", EV_MS);
		ret = -1;
		goto out;
	}
	if (r > 0 || wc.byte_len != MSG_LEN)
		FAILED("receive completed in error or short");
	if (memcmp(s.buf, c.buf, MSG_LEN)) {
		snprintf(why, wl, "received data differ from what was sent");
		ret = -1;
		goto out;
	}

	ARM(C_DISCONNECT);
	r = rdma_disconnect(c.id);
	DISARM(C_DISCONNECT);
	if (r)
		FAILED("rdma_disconnect failed");
	for (i = 0; i < 2; i++)
		if (wait_ev(NULL, RDMA_CM_EVENT_DISCONNECTED, NULL, why, wl))
			FAILED("no DISCONNECTED");
	ret = 0;
out:
	/*
	 * A server end that failed before it accepted is closed first, as
	 * an application would: its client must hear of it.
	 */
	if (ret == 0 && fault_seen && s.id && !owed[1])
		cend_close(&s);
	if (ret == 0 && fault_seen && settle()) {
		snprintf(why, wl, "after the fault, no event ended the %s's connection attempt within %d ms",
			 owed[0] ? "client" : "server", EV_MS);
		ret = -1;
	}
	owed[0] = owed[1] = NULL;
	if (hung)
		ret = -1;
	if (cend_close(&s) + cend_close(&c) + cend_close(&l)) {
		snprintf(why, wl, "a destroy failed");
		ret = -1;
	}
	return ret;
#undef ARM
#undef DISARM
#undef FAILED
}

static void sweep_cm(void)
{
	char why[200];
	int st;

	for (st = 0; st < C_N; st++) {
		int err = 0, absorbed = 0, ok = 1, done = 0, n;

		for (n = 1; n <= MAX_N && ok && !done; n++) {
			int injected, errored;

			if (cm_round(st, n, &injected, &errored, why,
				     sizeof(why))) {
				char m[200];

				snprintf(m, sizeof(m), "fault %d%s: %.150s", n,
					 injected ? "" : " (not reached)", why);
				snprintf(why, sizeof(why), "%s", m);
				ok = 0;
			} else if (!injected) {
				done = 1;
			} else if (errored) {
				err++;
			} else {
				absorbed++;
			}
		}
		if (ok && !done) {
			snprintf(why, sizeof(why), "more than %d sites", MAX_N);
			ok = 0;
		}
		result(ok, cstage_name[st], n - 2, err, absorbed,
		       ok ? NULL : why);
	}
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST };
	struct vst s = { 0 };
	int injected, errored;
	char why[200];

	if (argc != 4) {
		fprintf(stderr, "usage: fault_sweep DEV ADDR PORT\n");
		return 2;
	}
	dev_name = argv[1];
	if (getaddrinfo(argv[2], argv[3], &hints, &ai)) {
		fprintf(stderr, "fault_sweep: bad address %s\n", argv[2]);
		return 2;
	}
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0) {
		perror("fault_sweep: /proc/thread-self/fail-nth");
		return 2;
	}
	s.buf = aligned_alloc(4096, SMALL_MR);
	s.big = aligned_alloc(4096, BIG_MR);
	ch = rdma_create_event_channel();
	if (!s.buf || !s.big || !ch) {
		perror("fault_sweep: setup");
		return 2;
	}
	memset(s.buf, 0, SMALL_MR);
	memset(s.big, 0, BIG_MR);

	/* without faults, everything must work */
	if (cm_round(C_N, 0, &injected, &errored, why, sizeof(why))) {
		printf("not ok 1 - a connection without faults: %s\n", why);
		return 1;
	}
	printf("TAP version 13\n");
	sweep_verbs(&s);
	sweep_cm();
	/* and after all of it, again */
	tests++;
	if (cm_round(C_N, 0, &injected, &errored, why, sizeof(why))) {
		failed++;
		printf("not ok %d - a connection after the sweep: %s\n",
		       tests, why);
	} else {
		printf("ok %d - a connection after the sweep moves verified data\n",
		       tests);
	}
	printf("# %ld allocation sites failed one at a time: %ld errors, %ld absorbed\n",
	       total_sites, total_err, total_absorbed);
	printf("1..%d\n", tests);
	return failed ? 1 : 0;
}
