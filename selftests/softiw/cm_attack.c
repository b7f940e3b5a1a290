// SPDX-License-Identifier: GPL-2.0
/*
 * cm_attack: who may bind a QP to a connection (sec_cm.sh runs it).
 *
 * rdma_cm hands the driver a QP number on connect and accept; for a
 * process's rdma_cm id that number is whatever the process wrote.  Two
 * roles, run as two different unprivileged users:
 *
 *   cm_attack pair ADDR PORT GOFILE ROUNDS
 *	the victim: a listener on ADDR:PORT and two idle QPs of its own,
 *	whose numbers it prints ("qpns CLIENT SERVER"); once GOFILE exists
 *	it checks they are still idle, connects one to the other over
 *	loopback (the numbers passed in the connect and accept parameters,
 *	as a process without rdma_create_qp() does), prints "connected" and
 *	moves verified Sends and RDMA Reads: at least ROUNDS, and on until
 *	GOFILE.stop exists, so an attack in between meets them connected.
 *
 *   cm_attack attack ADDR PORT QPN...
 *	the attacker: names each QPN (other processes' QPs, kernel QPs,
 *	numbers no QP has) in rdma_connect() and in rdma_accept() of a
 *	connection of its own, and wants EINVAL each time; then connects
 *	two QPs of its own (the control: the same calls work for what it
 *	owns) and names them again, bound, and wants EBUSY.
 *
 *   cm_attack hammer ADDR PORT CYCLES
 *	a process racing itself over one QP's lifecycle: one thread posts
 *	Sends and RDMA Reads on it without pause (each post rings the
 *	doorbell), the other connects it to a second QP of its own, lets
 *	them run for up to 2 ms, tears the connection down (the client QP to
 *	ERROR, a disconnect, or the server QP to ERROR, in turn), moves both
 *	through ERROR to RESET and INIT, and connects them again, CYCLES
 *	times; then, with the poster stopped, one more connection must carry
 *	a verified Send.
 *
 * TAP-style lines ("ok ..." / "not ok ..."); exit 0 only if every one is
 * ok.
 */
#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MSG_LEN		4096
#define TMO_MS		20000

static int failures;
static struct rdma_event_channel *ch;
static struct sockaddr_in srv_addr;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static void result(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failures++;
}

static void die(const char *what)
{
	printf("not ok - %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The next CM event; dies after TMO_MS.  @want < 0: any. */
static struct rdma_cm_event *next_event(int want)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, TMO_MS) != 1) {
		errno = ETIMEDOUT;
		die("waiting for a CM event");
	}
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	if (want >= 0 && ev->event != (enum rdma_cm_event_type)want) {
		printf("not ok - CM event %s (status %d), want %s\n",
		       rdma_event_str(ev->event), ev->status,
		       rdma_event_str(want));
		exit(1);
	}
	return ev;
}

static void expect_event(int want)
{
	rdma_ack_cm_event(next_event(want));
}

/* A client id with its route to @to (NULL: the server) resolved. */
static struct rdma_cm_id *client_id_to(struct sockaddr_in *to)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)(to ? to : &srv_addr),
			      TMO_MS))
		die("rdma_resolve_addr");
	expect_event(RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(id, TMO_MS))
		die("rdma_resolve_route");
	expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED);
	return id;
}

static struct rdma_cm_id *client_id(void)
{
	return client_id_to(NULL);
}

static struct rdma_cm_id *listener(struct ibv_context **ctx)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(id, (struct sockaddr *)&srv_addr))
		die("rdma_bind_addr");
	if (rdma_listen(id, 16))
		die("rdma_listen");
	if (!id->verbs) {
		errno = ENODEV;
		die("listener not bound to a device");
	}
	*ctx = id->verbs;
	return id;
}

/* An idle RC QP of our own, in INIT with the remote rights. */
static struct ibv_qp *own_qp(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp INIT");
	return qp;
}

static void setup(const char *addr, const char *port, struct rdma_cm_id **l)
{
	struct ibv_context *ctx;

	srv_addr.sin_family = AF_INET;
	srv_addr.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &srv_addr.sin_addr) != 1) {
		errno = EINVAL;
		die("address");
	}
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	*l = listener(&ctx);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	if (!cq)
		die("PD and CQ");
}

static struct rdma_conn_param conn(uint32_t qpn)
{
	struct rdma_conn_param p = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.qp_num = qpn,
	};

	return p;
}

/*
 * Connect our QP @cqpn (client end, on @cid) to our QP @sqpn (server end,
 * accepted on the listener), both named by number; dies unless both ends
 * are established.
 */
static void connect_own(struct rdma_cm_id *cid, uint32_t cqpn, uint32_t sqpn)
{
	struct rdma_conn_param p = conn(cqpn);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *sid;
	int ests;

	if (rdma_connect(cid, &p))
		die("rdma_connect of our own QP");
	ev = next_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	sid = ev->id;
	rdma_ack_cm_event(ev);
	p = conn(sqpn);
	if (rdma_accept(sid, &p))
		die("rdma_accept of our own QP");
	for (ests = 0; ests < 2; ests++)
		expect_event(RDMA_CM_EVENT_ESTABLISHED);
}

/* ------------------------------------------------------------------ */
/* the victim */

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		die("ibv_query_qp");
	return a.qp_state;
}

/* Poll until a successful completion of each opcode in @ops (any order). */
static void poll_ops(const enum ibv_wc_opcode *ops, int n, uint32_t len,
		     const char *what)
{
	time_t end = time(NULL) + TMO_MS / 1000;
	unsigned int seen = 0;
	struct ibv_wc wc;
	int i, got;

	while (seen != (1u << n) - 1) {
		got = ibv_poll_cq(cq, 1, &wc);
		if (!got && time(NULL) < end)
			continue;
		for (i = 0; got == 1 && i < n; i++)
			if (wc.opcode == ops[i] && !(seen & (1u << i)))
				break;
		if (got != 1 || i == n || wc.status != IBV_WC_SUCCESS ||
		    ((wc.opcode & IBV_WC_RECV) && wc.byte_len != len)) {
			printf("not ok - %s: n %d status %s opcode %d len %u\n",
			       what, got,
			       got == 1 ? ibv_wc_status_str(wc.status) : "-",
			       got == 1 ? (int)wc.opcode : -1,
			       got == 1 ? wc.byte_len : 0);
			exit(1);
		}
		seen |= 1u << i;
	}
}

static int pair(const char *gofile, int rounds)
{
	struct ibv_qp *cqp, *sqp;
	struct rdma_cm_id *cid;
	struct ibv_mr *mr;
	static const enum ibv_wc_opcode sr[] = {
		IBV_WC_SEND, IBV_WC_RECV, IBV_WC_RDMA_READ
	};
	uint8_t *buf;
	char stop[4096];
	int i, r;

	buf = calloc(4, MSG_LEN);
	mr = buf ? ibv_reg_mr(pd, buf, 4 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ) : NULL;
	if (!mr)
		die("ibv_reg_mr");
	cqp = own_qp();
	sqp = own_qp();
	cid = client_id();
	printf("qpns %u %u\n", cqp->qp_num, sqp->qp_num);
	fflush(stdout);

	for (i = 0; access(gofile, F_OK); i++) {
		if (i > 2400) {
			errno = ETIMEDOUT;
			die("waiting for the go file");
		}
		usleep(50000);
	}
	result(qp_state(cqp) == IBV_QPS_INIT && qp_state(sqp) == IBV_QPS_INIT,
	       "victim's idle QPs %u and %u still in INIT after the attack",
	       cqp->qp_num, sqp->qp_num);

	connect_own(cid, cqp->qp_num, sqp->qp_num);
	printf("connected\n");
	fflush(stdout);

	snprintf(stop, sizeof(stop), "%s.stop", gofile);
	/* buf: [0] client's send, [1] server's receive, [2] client's read */
	for (r = 0; r < rounds || access(stop, F_OK); r++) {
		if (r > 1000000) {
			errno = ETIMEDOUT;
			die("waiting for the stop file");
		}
		struct ibv_sge s = { (uintptr_t)buf, MSG_LEN, mr->lkey };
		struct ibv_sge rs = { (uintptr_t)buf + MSG_LEN, MSG_LEN,
				      mr->lkey };
		struct ibv_sge rd = { (uintptr_t)buf + 2 * MSG_LEN, MSG_LEN,
				      mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *brw;
		struct ibv_send_wr swr = {
			.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bsw;

		for (i = 0; i < MSG_LEN; i++)
			buf[i] = (uint8_t)(i * 7 + r * 13 + 1);
		memset(buf + MSG_LEN, 0, 2 * MSG_LEN);
		if (ibv_post_recv(sqp, &rwr, &brw) ||
		    ibv_post_send(cqp, &swr, &bsw))
			die("post");
		poll_ops(sr, 2, MSG_LEN, "victim Send");
		if (memcmp(buf, buf + MSG_LEN, MSG_LEN)) {
			printf("not ok - round %d: received data differs\n", r);
			return 1;
		}
		swr.opcode = IBV_WR_RDMA_READ;
		swr.sg_list = &rd;
		swr.wr.rdma.remote_addr = (uintptr_t)buf + MSG_LEN;
		swr.wr.rdma.rkey = mr->rkey;
		if (ibv_post_send(cqp, &swr, &bsw))
			die("post READ");
		poll_ops(sr + 2, 1, MSG_LEN, "victim RDMA Read");
		if (memcmp(buf, buf + 2 * MSG_LEN, MSG_LEN)) {
			printf("not ok - round %d: read data differs\n", r);
			return 1;
		}
	}
	result(qp_state(cqp) == IBV_QPS_RTS && qp_state(sqp) == IBV_QPS_RTS,
	       "victim moved %d verified Sends and Reads; both QPs in RTS", r);
	rdma_disconnect(cid);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* the attacker */

static void want_errno(int ret, int want, const char *what, uint32_t qpn)
{
	if (!ret)
		result(0, "%s naming QP %u succeeded, want %s", what, qpn,
		       strerror(want));
	else
		result(errno == want, "%s naming QP %u refused: %s", what,
		       qpn, strerror(errno));
}

/* rdma_connect() naming @qpn on a fresh id must fail with @want. */
static void try_connect(uint32_t qpn, int want)
{
	struct rdma_cm_id *id = client_id();
	struct rdma_conn_param p = conn(qpn);
	int ret = rdma_connect(id, &p);

	want_errno(ret, want, "rdma_connect", qpn);
	if (!ret) {
		/* it connected someone's QP to us: leave it to the kernel */
		return;
	}
	rdma_destroy_id(id);
}

/*
 * A connection of our own (client QP @cqp) arrives at our listener; the
 * accept names @qpn.  The client end must then hear a refusal.
 */
static void try_accept(struct ibv_qp *cqp, uint32_t qpn, int want)
{
	struct rdma_cm_id *cid = client_id(), *sid;
	struct rdma_conn_param p = conn(cqp->qp_num);
	struct rdma_cm_event *ev;
	int ret;

	if (rdma_connect(cid, &p))
		die("attacker's own rdma_connect");
	ev = next_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	sid = ev->id;
	rdma_ack_cm_event(ev);
	p = conn(qpn);
	ret = rdma_accept(sid, &p);
	want_errno(ret, want, "rdma_accept", qpn);
	if (ret) {
		ev = next_event(-1);
		if (ev->event != RDMA_CM_EVENT_REJECTED &&
		    ev->event != RDMA_CM_EVENT_CONNECT_ERROR &&
		    ev->event != RDMA_CM_EVENT_UNREACHABLE)
			result(0, "client of a refused accept got %s",
			       rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
		rdma_destroy_id(sid);
	}
	rdma_destroy_id(cid);
}

/*
 * Our @qp connects to a plain TCP listener of ours that never answers the
 * MPA Request: the QP is idle but has an endpoint.  Naming it again is
 * EBUSY.  Closing the listener resets the stream; the connect fails, and
 * by the time the failure is reported the QP is free again.
 */
static void try_busy_connecting(struct ibv_qp *qp)
{
	struct sockaddr_in mute = srv_addr;
	struct rdma_conn_param p = conn(qp->qp_num);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int one = 1, fd;

	mute.sin_port = htons(ntohs(srv_addr.sin_port) + 1);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&mute, sizeof(mute)) || listen(fd, 4))
		die("a mute TCP listener");
	id = client_id_to(&mute);
	if (rdma_connect(id, &p))
		die("connect to the mute listener");
	try_connect(qp->qp_num, EBUSY);
	close(fd);
	ev = next_event(-1);
	result(ev->event == RDMA_CM_EVENT_REJECTED ||
	       ev->event == RDMA_CM_EVENT_CONNECT_ERROR ||
	       ev->event == RDMA_CM_EVENT_UNREACHABLE,
	       "connect to a listener that went away: %s",
	       rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	result(qp_state(qp) == IBV_QPS_INIT, "QP %u still in INIT after it",
	       qp->qp_num);
}

static int attack(int n, char **qpns)
{
	struct ibv_qp *a_cli, *a_srv, *a_cli2;
	struct rdma_cm_id *cid;
	int i;

	a_cli = own_qp();
	a_srv = own_qp();
	a_cli2 = own_qp();
	printf("# attacker's own QPs %u %u %u\n", a_cli->qp_num,
	       a_srv->qp_num, a_cli2->qp_num);
	for (i = 0; i < n; i++) {
		uint32_t q = strtoul(qpns[i], NULL, 0);

		if (q == a_cli->qp_num || q == a_srv->qp_num ||
		    q == a_cli2->qp_num)
			continue;
		try_connect(q, EINVAL);
		try_accept(a_cli, q, EINVAL);
	}

	/* idle with an endpoint (connecting); free again once it failed */
	try_busy_connecting(a_cli2);
	/* the control: our own QPs connect with the very same calls */
	cid = client_id();
	connect_own(cid, a_cli->qp_num, a_srv->qp_num);
	result(1, "own QPs %u and %u connected", a_cli->qp_num, a_srv->qp_num);
	/* bound and in RTS: neither may be named again */
	try_connect(a_cli->qp_num, EBUSY);
	try_accept(a_cli2, a_srv->qp_num, EBUSY);
	rdma_disconnect(cid);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* the lifecycle hammer */

static volatile int hammer_stop;
static struct ibv_qp *hq_c, *hq_s;
static struct ibv_mr *hmr;
static uint8_t *hbuf;

static void *hammer_poster(void *arg)
{
	unsigned long *posts = arg;
	struct ibv_wc wc[16];

	while (!hammer_stop) {
		struct ibv_sge s = { (uintptr_t)hbuf, 64, hmr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &s, .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		wr.opcode = (*posts & 1) ? IBV_WR_RDMA_READ : IBV_WR_SEND;
		wr.wr.rdma.remote_addr = (uintptr_t)hbuf + MSG_LEN;
		wr.wr.rdma.rkey = hmr->rkey;
		if (!ibv_post_send(hq_c, &wr, &bad))
			(*posts)++;
		/* whatever completes, flushed or not, is only drained */
		while (ibv_poll_cq(cq, 16, wc) > 0)
			;
		if (!(*posts & 63))
			usleep(100);
	}
	return NULL;
}

static void qp_to(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = {
		.qp_state = st,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE |
			  (st == IBV_QPS_INIT ? IBV_QP_ACCESS_FLAGS : 0)))
		die(st == IBV_QPS_RESET ? "modify to RESET" :
		    st == IBV_QPS_INIT ? "modify to INIT" : "modify to ERROR");
}

/*
 * Connect hq_c to hq_s.  Returns 0 with both ends established, or -1
 * (and cleans up) if the connection failed, which racing posts may cause
 * (a Send with no receive posted yet ends the stream).
 */
static int hammer_connect(struct rdma_cm_id **cidp, struct rdma_cm_id **sidp)
{
	struct rdma_conn_param p = conn(hq_c->qp_num);
	struct rdma_cm_id *cid = client_id(), *sid = NULL;
	struct rdma_cm_event *ev;
	int ests = 0, i;

	if (rdma_connect(cid, &p))
		die("hammer rdma_connect");
	while (ests < 2) {
		ev = next_event(-1);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			sid = ev->id;
			rdma_ack_cm_event(ev);
			/* receives first: the first Send may follow at once */
			for (i = 0; i < 8; i++) {
				struct ibv_sge s = {
					(uintptr_t)hbuf + 2 * MSG_LEN, MSG_LEN,
					hmr->lkey
				};
				struct ibv_recv_wr w = {
					.sg_list = &s, .num_sge = 1
				}, *b;

				ibv_post_recv(hq_s, &w, &b);
			}
			p = conn(hq_s->qp_num);
			if (rdma_accept(sid, &p))
				die("hammer rdma_accept");
			continue;
		}
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			ests++;
			rdma_ack_cm_event(ev);
			continue;
		}
		/* a disconnect or error of this attempt: give it up */
		rdma_ack_cm_event(ev);
		*cidp = cid;
		*sidp = sid;
		return -1;
	}
	*cidp = cid;
	*sidp = sid;
	return 0;
}

static void hammer_teardown(struct rdma_cm_id *cid, struct rdma_cm_id *sid,
			    unsigned int how)
{
	if (how == 0)
		qp_to(hq_c, IBV_QPS_ERR);
	else if (how == 1)
		rdma_disconnect(cid);
	else
		qp_to(hq_s, IBV_QPS_ERR);
	qp_to(hq_c, IBV_QPS_ERR);
	qp_to(hq_s, IBV_QPS_ERR);
	/* destroying the ids drops their events not read yet */
	if (sid)
		rdma_destroy_id(sid);
	rdma_destroy_id(cid);
	qp_to(hq_c, IBV_QPS_RESET);
	qp_to(hq_s, IBV_QPS_RESET);
	qp_to(hq_c, IBV_QPS_INIT);
	qp_to(hq_s, IBV_QPS_INIT);
}

static int hammer(int cycles)
{
	static const enum ibv_wc_opcode sr[] = { IBV_WC_SEND, IBV_WC_RECV };
	unsigned long posts = 0;
	struct rdma_cm_id *cid, *sid;
	pthread_t poster;
	int c, ok = 0, i;

	hbuf = calloc(3, MSG_LEN);
	hmr = hbuf ? ibv_reg_mr(pd, hbuf, 3 * MSG_LEN,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!hmr)
		die("ibv_reg_mr");
	hq_c = own_qp();
	hq_s = own_qp();
	if (pthread_create(&poster, NULL, hammer_poster, &posts))
		die("pthread_create");
	srandom(getpid());
	for (c = 0; c < cycles; c++) {
		if (!hammer_connect(&cid, &sid)) {
			ok++;
			usleep(random() % 2000);
		}
		hammer_teardown(cid, sid, c % 3);
		if (!((c + 1) % 250)) {
			printf("# %d cycles, %d connected, %lu posts\n", c + 1,
			       ok, posts);
			fflush(stdout);
		}
	}
	hammer_stop = 1;
	pthread_join(poster, NULL);
	result(ok > cycles / 2, "%d connect/teardown/reset cycles, %d connected, %lu posts racing them",
	       cycles, ok, posts);

	/* the QPs still work: one more connection, one verified Send */
	while (ibv_poll_cq(cq, 1, (struct ibv_wc[1]){}) > 0)
		;
	if (hammer_connect(&cid, &sid))
		die("the last connection");
	for (i = 0; i < 64; i++)
		hbuf[i] = (uint8_t)(i * 5 + 3);
	{
		struct ibv_sge s = { (uintptr_t)hbuf, 64, hmr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (ibv_post_send(hq_c, &wr, &bad))
			die("the last Send");
	}
	poll_ops(sr, 2, 64, "the last Send");
	result(!memcmp(hbuf, hbuf + 2 * MSG_LEN, 64),
	       "after the cycles a new connection carries a verified Send");
	rdma_disconnect(cid);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *l;

	if (argc >= 6 && !strcmp(argv[1], "pair")) {
		setup(argv[2], argv[3], &l);
		return pair(argv[4], atoi(argv[5]));
	}
	if (argc >= 5 && !strcmp(argv[1], "attack")) {
		setup(argv[2], argv[3], &l);
		return attack(argc - 4, argv + 4);
	}
	if (argc >= 5 && !strcmp(argv[1], "hammer")) {
		setup(argv[2], argv[3], &l);
		return hammer(atoi(argv[4]));
	}
	fprintf(stderr, "usage: %s pair ADDR PORT GOFILE ROUNDS\n"
		"       %s attack ADDR PORT QPN...\n"
		"       %s hammer ADDR PORT CYCLES\n", argv[0], argv[0],
		argv[0]);
	return 2;
}
