// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_fuzz: random but structurally valid verbs, rdma_cm traffic and
 * scribbles into the process's own rings, from several processes at once
 * (dp_fuzz.sh runs it unprivileged; `make fuzz-vm` for longer).
 *
 *   verbs_fuzz [-s SEED] [-t SECS] [-p PROCS] ADDR PORT
 *
 * PROCS processes (default 3), process i seeded with SEED + i, each for
 * SECS seconds (default 30) over the softiw device that owns ADDR (one
 * rdma_cm context, as an application has it).  Each listens on
 * ADDR:PORT+i and draws actions at random from: PD, CQ, SRQ, QP, MR and
 * MW create/destroy with random attributes (sizes from 0 to absurd,
 * rights in every combination, ranges past the buffer), modify_qp to
 * random states with random masks, modify_srq, query_qp, bind_mw,
 * post_send of every opcode with random SGEs, keys, addresses and
 * flags, post_recv and post_srq_recv, poll_cq and req_notify_cq,
 * connects to any process's listener (accepted or rejected at random),
 * disconnects and abrupt destroys, random bytes written into its own
 * SQ, RQ and SRQ rings and into the CQ rings' control words (what the
 * kernel reads), and doorbells for its own and for invented QP numbers.
 * A thread per process takes and acknowledges async events.
 *
 * One canary buffer per process is registered with no rights at all:
 * nothing, local or remote, may write to it, and it is compared at the
 * end.  Every call must return (SIGALRM after SECS + 120 s fails the
 * process).  Exit 0 when every process ended by itself and its canary
 * is intact.  The seed is printed first: the same seed replays the same
 * choices (timing, and so what the kernel sees, still differs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "softiw.h"		/* the provider's objects (userspace/) */

#define NPD	3
#define NCQ	5
#define NSRQ	3
#define NQP	6
#define NMR	6
#define NMW	3
#define NCONN	8
#define MEM_LEN	(1u << 20)
#define CANARY_LEN 8192

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* a size: mostly small, sometimes 0, huge or random */
static uint32_t rsize(uint32_t typ)
{
	switch (below(8)) {
	case 0:
		return 0;
	case 1:
		return (uint32_t)rnd();
	case 2:
		return 1u << below(32);
	default:
		return 1 + below(typ);
	}
}

enum cstate { C_FREE, C_RESOLVING, C_ROUTING, C_CONNECTING, C_ACCEPTING,
	      C_UP, C_DOWN };

struct conn {
	struct rdma_cm_id *id;
	enum cstate st;
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd[NPD];
	struct ibv_cq *cq[NCQ];
	struct ibv_srq *srq[NSRQ];
	struct ibv_qp *qp[NQP];
	struct ibv_mr *mr[NMR];
	struct ibv_mw *mw[NMW];
	struct ibv_mr *canary_mr;
	struct ibv_pd *pd0;		/* the canary's, never destroyed */
	struct ibv_cq *cm_cq;		/* for connections, never destroyed */
	struct conn conn[NCONN];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *lid;
	uint8_t *mem, *canary;
	int doorbell_fd;
	long ops, established, wcs, scribbles, refused;
	int last_refusal;		/* the last event that ended an attempt */
	int last_status;		/* and its status */
	long requests, accept_errs;
} P;

static struct addrinfo *base_ai;
static int nprocs, base_port;

/*
 * process @i's listener (an IPv4 address: main() asks getaddrinfo() for
 * AF_INET only).  A sockaddr_in, not a sockaddr_storage written through
 * a cast: at -O2 GCC dropped that store to sin_port (strict aliasing),
 * and every process listened on a port of the kernel's choosing.
 */
static struct sockaddr_in addr_of(int i)
{
	struct sockaddr_in sin;

	memcpy(&sin, base_ai->ai_addr, sizeof(sin));
	sin.sin_port = htons(base_port + i);
	return sin;
}

/* a pool PD, now and then the canary's (never destroyed) */
static struct ibv_pd *any_pd(void)
{
	return below(4) ? P.pd[below(NPD)] : P.pd0;
}

static struct ibv_cq *any_cq(void)
{
	return P.cq[below(NCQ)];
}

/* any QP: the pool's or a connection's */
static struct ibv_qp *any_qp(void)
{
	if (below(2)) {
		struct conn *c = &P.conn[below(NCONN)];

		return c->id && c->id->qp ? c->id->qp : NULL;
	}
	return P.qp[below(NQP)];
}

static uint32_t any_key(void)
{
	struct ibv_mw *mw;
	struct ibv_mr *mr;

	switch (below(4)) {
	case 0:
		return (uint32_t)rnd();
	case 1:
		return P.canary_mr->lkey;
	case 2:
		mw = P.mw[below(NMW)];
		if (mw)
			return mw->rkey;
		/* fall through */
	default:
		mr = P.mr[below(NMR)];
		return mr ? (below(2) ? mr->lkey : mr->rkey) : (uint32_t)rnd();
	}
}

static uint64_t any_addr(void)
{
	switch (below(4)) {
	case 0:
		return rnd();
	case 1:
		return (uintptr_t)P.canary + below(CANARY_LEN);
	default:
		return (uintptr_t)P.mem + below(MEM_LEN);
	}
}

static int any_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
	};
	int a = 0, i;

	for (i = 0; i < 6; i++)
		if (below(2))
			a |= bits[i];
	return a;
}

static void fill_sges(struct ibv_sge *sg, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sg[i].addr = any_addr();
		sg[i].length = rsize(4096);
		sg[i].lkey = any_key();
	}
}

/* ---- actions ---- */

static void a_pd(void)
{
	int i = below(NPD);

	if (P.pd[i]) {
		if (!ibv_dealloc_pd(P.pd[i]))
			P.pd[i] = NULL;
	} else {
		P.pd[i] = ibv_alloc_pd(P.ctx);
	}
}

static void a_cq(void)
{
	int i = below(NCQ);

	if (P.cq[i]) {
		if (!ibv_destroy_cq(P.cq[i]))
			P.cq[i] = NULL;
	} else {
		P.cq[i] = ibv_create_cq(P.ctx, (int)rsize(256), NULL, NULL, 0);
	}
}

static void a_srq(void)
{
	int i = below(NSRQ);
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = rsize(64), .max_sge = rsize(4),
			  .srq_limit = rsize(8) },
	};
	struct ibv_pd *pd = any_pd();

	if (P.srq[i]) {
		if (below(3)) {
			struct ibv_srq_attr m = { .max_wr = rsize(64),
						  .srq_limit = rsize(64) };

			ibv_modify_srq(P.srq[i], &m, below(4));
		} else if (!ibv_destroy_srq(P.srq[i])) {
			P.srq[i] = NULL;
		}
	} else if (pd) {
		P.srq[i] = ibv_create_srq(pd, &a);
	}
}

static void a_qp(void)
{
	int i = below(NQP);
	struct ibv_qp_init_attr a = {
		.send_cq = any_cq(), .recv_cq = any_cq(),
		.srq = below(3) ? NULL : P.srq[below(NSRQ)],
		.cap = { .max_send_wr = rsize(64), .max_recv_wr = rsize(64),
			 .max_send_sge = rsize(4), .max_recv_sge = rsize(4),
			 .max_inline_data = rsize(256) },
		.qp_type = below(8) ? IBV_QPT_RC : IBV_QPT_UD,
		.sq_sig_all = below(2),
	};
	struct ibv_pd *pd = any_pd();

	if (P.qp[i]) {
		if (!ibv_destroy_qp(P.qp[i]))
			P.qp[i] = NULL;
	} else if (pd && a.send_cq && a.recv_cq) {
		P.qp[i] = ibv_create_qp(pd, &a);
	}
}

static void a_modify_qp(void)
{
	struct ibv_qp *qp = any_qp();
	struct ibv_qp_attr a = {
		.qp_state = below(7), .cur_qp_state = below(7),
		.port_num = below(4) ? 1 : below(256),
		.qp_access_flags = any_access(),
		.max_rd_atomic = below(32), .max_dest_rd_atomic = below(32),
		.timeout = below(32), .retry_cnt = below(8),
		.min_rnr_timer = below(32), .path_mtu = 1 + below(5),
		.sq_draining = below(2),
	};
	struct ibv_qp_init_attr ia;

	if (!qp)
		return;
	if (below(4))
		ibv_modify_qp(qp, &a, (int)(rnd() & 0x1fffff));
	else
		ibv_query_qp(qp, &a, (int)(rnd() & 0x1fffff), &ia);
}

static void a_mr(void)
{
	int i = below(NMR);
	struct ibv_pd *pd = any_pd();
	uint64_t off = below(MEM_LEN), len;

	if (P.mr[i]) {
		if (!ibv_dereg_mr(P.mr[i]))
			P.mr[i] = NULL;
		return;
	}
	if (!pd)
		return;
	len = below(4) ? below(MEM_LEN - off + 1) : rsize(MEM_LEN);
	if (below(8))
		P.mr[i] = ibv_reg_mr(pd, P.mem + off, len, any_access());
	else	/* an address nobody mapped */
		P.mr[i] = ibv_reg_mr(pd, (void *)(uintptr_t)(rnd() & ~0xfffull),
				     len, any_access());
}

static void a_mw(void)
{
	int i = below(NMW);
	struct ibv_pd *pd = any_pd();
	struct ibv_qp *qp;

	if (P.mw[i]) {
		switch (below(3)) {
		case 0:
			if (!ibv_dealloc_mw(P.mw[i]))
				P.mw[i] = NULL;
			break;
		default:
			qp = any_qp();
			if (qp && P.mw[i]->type == IBV_MW_TYPE_1) {
				struct ibv_mw_bind b = {
					.wr_id = rnd(),
					.send_flags = below(2) ? IBV_SEND_SIGNALED : 0,
					.bind_info = {
						.mr = P.mr[below(NMR)],
						.addr = any_addr(),
						.length = rsize(MEM_LEN),
						.mw_access_flags = any_access(),
					},
				};

				if (b.bind_info.mr)
					ibv_bind_mw(qp, P.mw[i], &b);
			}
		}
	} else if (pd) {
		P.mw[i] = ibv_alloc_mw(pd, below(2) ? IBV_MW_TYPE_1 :
						      IBV_MW_TYPE_2);
	}
}

static void a_post_send(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_qp *qp = any_qp();
	struct ibv_sge sg[3][5];
	struct ibv_send_wr wr[3], *bad;
	int n = 1 + below(3), i;

	if (!qp)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].opcode = below(16) ? ops[below(10)] :
			(enum ibv_wr_opcode)below(256);
		wr[i].num_sge = below(6);
		fill_sges(sg[i], 5);
		wr[i].sg_list = sg[i];
		wr[i].send_flags = (int)(rnd() & 0x3f);
		if (wr[i].send_flags & IBV_SEND_INLINE) {
			int j;

			/*
			 * Inline data is read here, by the provider: only
			 * memory this process owns, as an application
			 * would pass (the kernel sees the copied octets).
			 */
			for (j = 0; j < 5; j++) {
				sg[i][j].length = below(128);
				sg[i][j].addr = (uintptr_t)P.mem +
						below(MEM_LEN - 128);
			}
		}
		wr[i].imm_data = (uint32_t)rnd();
		wr[i].wr.rdma.remote_addr = below(2) ? any_addr() : rnd();
		wr[i].wr.rdma.rkey = any_key();
		if (wr[i].opcode == IBV_WR_BIND_MW) {
			wr[i].bind_mw.mw = P.mw[below(NMW)];
			wr[i].bind_mw.rkey = any_key();
			wr[i].bind_mw.bind_info.mr = P.mr[below(NMR)];
			wr[i].bind_mw.bind_info.addr = any_addr();
			wr[i].bind_mw.bind_info.length = rsize(MEM_LEN);
			wr[i].bind_mw.bind_info.mw_access_flags = any_access();
			if (!wr[i].bind_mw.mw || !wr[i].bind_mw.bind_info.mr)
				wr[i].opcode = IBV_WR_SEND;
		}
	}
	ibv_post_send(qp, wr, &bad);
}

static void a_post_recv(void)
{
	struct ibv_sge sg[5];
	struct ibv_recv_wr wr = { .wr_id = rnd(), .sg_list = sg,
				  .num_sge = below(6) }, *bad;
	struct ibv_srq *srq = P.srq[below(NSRQ)];
	struct ibv_qp *qp = any_qp();

	fill_sges(sg, 5);
	if (below(3) && srq)
		ibv_post_srq_recv(srq, &wr, &bad);
	else if (qp)
		ibv_post_recv(qp, &wr, &bad);
}

static void a_poll(void)
{
	struct ibv_wc wc[16];
	struct ibv_cq *cq = any_cq();

	if (!cq)
		return;
	if (below(4)) {
		int n = ibv_poll_cq(cq, 1 + below(16), wc);

		if (n > 0)
			P.wcs += n;
	}
	else
		ibv_req_notify_cq(cq, below(2));
}

/* random octets into one of the process's own rings (what the kernel reads) */
static void a_scribble(void)
{
	struct softiw_uring *r = NULL;
	struct ibv_qp *qp = any_qp();
	struct ibv_srq *srq = P.srq[below(NSRQ)];
	struct ibv_cq *cq = any_cq();
	size_t off, n, i;
	uint8_t *p;

	switch (below(4)) {
	case 0:
		if (qp)
			r = &to_softiw_qp(qp)->sq;
		break;
	case 1:
		if (qp && !qp->srq)
			r = &to_softiw_qp(qp)->rq;
		break;
	case 2:
		if (srq)
			r = &to_softiw_srq(srq)->ring;
		break;
	default:
		/* a CQ's control words only: its entries are the provider's */
		if (cq) {
			struct softiw_ring_ctrl *c = to_softiw_cq(cq)->ring.ctrl;

			if (c)
				__atomic_store_n(below(2) ? &c->tail : &c->head,
						 (uint32_t)rnd(), __ATOMIC_RELEASE);
		}
		return;
	}
	if (!r || !r->ctrl || !r->len)
		return;
	p = (uint8_t *)r->ctrl;
	off = below(r->len);
	n = 1 + below(64);
	if (off + n > r->len)
		n = r->len - off;
	for (i = 0; i < n; i++)
		p[off + i] = (uint8_t)rnd();
	P.scribbles++;
	if (qp && P.doorbell_fd >= 0)
		ioctl(P.doorbell_fd, SOFTIW_IOCTL_SQ_DOORBELL,
		      (unsigned long)qp->qp_num);
}

static void a_doorbell(void)
{
	struct ibv_qp *qp = any_qp();
	unsigned long qpn = qp && below(2) ? qp->qp_num : (uint32_t)rnd();

	if (P.doorbell_fd >= 0)
		ioctl(P.doorbell_fd, SOFTIW_IOCTL_SQ_DOORBELL,
		      below(8) ? qpn : (unsigned long)rnd());
}

/* ---- rdma_cm ---- */

static struct conn *free_conn(void)
{
	int i;

	for (i = 0; i < NCONN; i++)
		if (P.conn[i].st == C_FREE)
			return &P.conn[i];
	return NULL;
}

static void conn_drop(struct conn *c)
{
	if (c->id) {
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
	}
	c->id = NULL;
	c->st = C_FREE;
}

static int conn_qp(struct conn *c)
{
	struct ibv_qp_init_attr a = {
		.send_cq = any_cq(), .recv_cq = any_cq(),
		.cap = { .max_send_wr = 1 + below(32),
			 .max_recv_wr = 1 + below(32),
			 .max_send_sge = 1 + below(3),
			 .max_recv_sge = 1 + below(3) },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_pd *pd = any_pd();

	/* mostly what the pool has, else the objects kept for connections */
	if (!pd)
		pd = P.pd0;
	if (!a.send_cq)
		a.send_cq = P.cm_cq;
	if (!a.recv_cq)
		a.recv_cq = P.cm_cq;
	return rdma_create_qp(c->id, pd, &a);
}

static struct rdma_conn_param cparam(void)
{
	struct rdma_conn_param p = {
		.responder_resources = below(8), .initiator_depth = below(8),
		.private_data_len = below(4) ? 0 : below(200),
	};
	static uint8_t pd[256];

	p.private_data = pd;
	return p;
}

static void a_connect(void)
{
	struct conn *c = free_conn();
	struct sockaddr_in sin = addr_of(below(nprocs));

	if (!c || rdma_create_id(P.ch, &c->id, c, RDMA_PS_TCP)) {
		if (c)
			c->id = NULL;
		return;
	}
	c->st = C_RESOLVING;
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&sin, 2000))
		conn_drop(c);
}

static void a_disconnect(void)
{
	struct conn *c = &P.conn[below(NCONN)];

	if (c->st == C_FREE)
		return;
	if (below(2) && c->st == C_UP)
		rdma_disconnect(c->id);
	else
		conn_drop(c);
}

static void cm_events(void)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;
	struct conn *c;
	int k;

	for (k = 0; k < 8 && !rdma_get_cm_event(P.ch, &ev); k++) {
		struct rdma_cm_id *id = ev->id;
		int type = ev->event, status = ev->status;

		c = id == P.lid ? NULL : id->context;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			c = free_conn();
			if (!c || below(5) == 0) {
				rdma_reject(id, NULL, 0);
				rdma_destroy_id(id);
				continue;
			}
			c->id = id;
			id->context = c;
			c->st = C_ACCEPTING;
			p = cparam();
			P.requests++;
			if (conn_qp(c) || rdma_accept(id, &p)) {
				P.accept_errs++;
				conn_drop(c);
			}
			continue;
		}
		rdma_ack_cm_event(ev);
		if (!c)
			continue;
		switch (type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			c->st = C_ROUTING;
			if (rdma_resolve_route(id, 2000))
				conn_drop(c);
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			c->st = C_CONNECTING;
			p = cparam();
			if (conn_qp(c) || rdma_connect(id, &p))
				conn_drop(c);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			c->st = C_UP;
			P.established++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			c->st = C_DOWN;
			conn_drop(c);
			break;
		default:	/* errors, rejects, unreachable, ... */
			P.refused++;
			P.last_refusal = type;
			P.last_status = status;
			conn_drop(c);
		}
	}
}

static void *async_thread(void *arg)
{
	struct ibv_async_event ev;

	(void)arg;
	while (!ibv_get_async_event(P.ctx, &ev))
		ibv_ack_async_event(&ev);
	return NULL;
}

static int one_process(int idx, uint64_t seed, int secs)
{
	struct sockaddr_in sin = addr_of(idx);
	static void (*const acts[])(void) = {
		a_pd, a_cq, a_cq, a_srq, a_qp, a_qp, a_modify_qp, a_modify_qp,
		a_mr, a_mr, a_mw, a_post_send, a_post_send, a_post_send,
		a_post_recv, a_post_recv, a_poll, a_poll, a_scribble,
		a_doorbell, a_connect, a_connect, a_disconnect,
	};
	time_t end = time(NULL) + secs;
	pthread_t th;
	int i, fl;

	rs = seed * 2654435761u + 1;
	alarm(secs + 120);
	P.doorbell_fd = -1;
	P.mem = aligned_alloc(4096, MEM_LEN);
	P.canary = aligned_alloc(4096, CANARY_LEN);
	P.ch = rdma_create_event_channel();
	if (!P.mem || !P.canary || !P.ch)
		return 2;
	memset(P.mem, 0x5a, MEM_LEN);
	memset(P.canary, 0xc3, CANARY_LEN);
	fl = fcntl(P.ch->fd, F_GETFL);
	fcntl(P.ch->fd, F_SETFL, fl | O_NONBLOCK);
	if (rdma_create_id(P.ch, &P.lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(P.lid, (struct sockaddr *)&sin) ||
	    rdma_listen(P.lid, 8) || !P.lid->verbs) {
		fprintf(stderr, "verbs_fuzz %d: cannot listen: %s\n", idx,
			strerror(errno));
		return 2;
	}
	/* rdma_get_src_port() gives the port in network order */
	if (ntohs(rdma_get_src_port(P.lid)) != base_port + idx) {
		fprintf(stderr, "verbs_fuzz %d: listening on port %u, not %d\n",
			idx, ntohs(rdma_get_src_port(P.lid)), base_port + idx);
		return 2;
	}
	P.ctx = P.lid->verbs;
	P.doorbell_fd = to_softiw_ctx(P.ctx)->doorbell_fd;
	P.pd0 = ibv_alloc_pd(P.ctx);
	P.cm_cq = ibv_create_cq(P.ctx, 64, NULL, NULL, 0);
	P.canary_mr = P.pd0 ? ibv_reg_mr(P.pd0, P.canary, CANARY_LEN, 0) : NULL;
	if (!P.canary_mr || !P.cm_cq) {
		fprintf(stderr, "verbs_fuzz %d: cannot register the canary\n", idx);
		return 2;
	}
	if (pthread_create(&th, NULL, async_thread, NULL))
		return 2;
	while (time(NULL) < end) {
		acts[below(sizeof(acts) / sizeof(acts[0]))]();
		P.ops++;
		cm_events();
	}
	/* orderly end: connections, then objects in dependency order */
	for (i = 0; i < NCONN; i++)
		if (P.conn[i].st != C_FREE)
			conn_drop(&P.conn[i]);
	for (i = 0; i < NQP; i++)
		if (P.qp[i])
			ibv_destroy_qp(P.qp[i]);
	for (i = 0; i < NSRQ; i++)
		if (P.srq[i])
			ibv_destroy_srq(P.srq[i]);
	for (i = 0; i < NMW; i++)
		if (P.mw[i])
			ibv_dealloc_mw(P.mw[i]);
	for (i = 0; i < NMR; i++)
		if (P.mr[i])
			ibv_dereg_mr(P.mr[i]);
	for (i = 0; i < CANARY_LEN; i++)
		if (P.canary[i] != 0xc3) {
			printf("not ok - process %d: canary octet %d written (0x%02x)\n",
			       idx, i, P.canary[i]);
			fflush(stdout);
			return 1;
		}
	printf("# process %d (seed %llu): %ld actions, %ld connections established, %ld ended by an error event (last %s, status %d), %ld requests (%ld accepts failed), %ld completions polled, %ld ring scribbles, canary intact\n",
	       idx, (unsigned long long)seed, P.ops, P.established, P.refused,
	       P.refused ? rdma_event_str(P.last_refusal) : "none",
	       P.last_status, P.requests, P.accept_errs, P.wcs,
	       P.scribbles);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST };
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	int secs = 30, opt, i, bad = 0, st;
	pid_t pid;

	nprocs = 3;
	while ((opt = getopt(argc, argv, "s:t:p:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'p':
			nprocs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2 || secs < 1 || nprocs < 1 || nprocs > 32)
		goto usage;
	base_port = atoi(argv[optind + 1]);
	if (getaddrinfo(argv[optind], NULL, &hints, &base_ai) ||
	    base_port < 1 || base_port + nprocs - 1 > 65535) {
		fprintf(stderr, "verbs_fuzz: bad address or port\n");
		return 2;
	}
	printf("# verbs_fuzz: seed %llu, %d processes, %d s (replay: -s %llu -p %d)\n",
	       (unsigned long long)seed, nprocs, secs,
	       (unsigned long long)seed, nprocs);
	fflush(stdout);
	for (i = 0; i < nprocs; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (!pid)
			_exit(one_process(i, seed + i, secs));
	}
	for (i = 0; i < nprocs; i++) {
		pid = wait(&st);
		if (pid < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			bad++;
			if (WIFSIGNALED(st))
				printf("not ok - a fuzz process died of signal %d%s\n",
				       WTERMSIG(st),
				       WTERMSIG(st) == SIGALRM ? " (a call hung)" : "");
			else
				printf("not ok - a fuzz process exited %d\n",
				       WEXITSTATUS(st));
		}
	}
	if (!bad)
		printf("ok - %d fuzz processes ended by themselves, canaries intact\n",
		       nprocs);
	return bad ? 1 : 0;
usage:
	fprintf(stderr, "usage: verbs_fuzz [-s SEED] [-t SECS] [-p PROCS] ADDR PORT\n");
	return 2;
}
