// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * victim: the rdma_cm server rawpeer attacks in the VM.
 *
 *   victim [OPTIONS] ADDR PORT
 *
 * Binds to ADDR (an address of the softiw netdev, so the device is known
 * before any connection), allocates two PDs and registers in each a
 * buffer filled with a known pattern and surrounded by guard octets,
 * prints
 *   STAG=0x.. ADDR=0x.. LEN=.. STAG2=0x.. ADDR2=0x.. LEN2=.. NRECV=.. RLEN=..
 * (STAG is in the QP's PD, STAG2 in the other one), accepts one
 * connection, posts NRECV receives of RLEN octets and then waits until
 * the connection is gone (or the timeout passes), printing
 *   ESTABLISHED, ASYNC <event name>, DISCONNECTED,
 *   QPSTATE=<n> (IBV_QPS_ERR is 6),
 *   WC wr_id=<n> status=<n> <status string> (one per completion),
 *   GUARD ok | GUARD corrupted ...,
 *   MRDIFF=<octets of the registered buffers that changed>
 *   MR2DIFF=<those of them in the other PD's buffer>
 *   MRWRITE=<leading octets of the first buffer that hold rawpeer's
 *           payload pattern, 0xa5 ^ offset: what its Write placed there>
 * Single threaded; exits 0 once connected, whatever the peer did.
 *
 * With -S the receives go to one shared receive queue of NRECV entries
 * and the victim accepts two connections, both on it: the first to come
 * is stream 0, the second stream 1.  It waits until both are gone and
 * prints, for each completion, WC qp=<stream> wr_id=.. status=.. and per
 * stream its QPSTATE<k>=<n>.  The selftests use it to flood the SRQ from
 * one stream while the other must keep its share (RFC 5042 6.4.3.1).
 *
 * With -P it only checks that the device can bind, allocate PDs, CQs,
 * MRs and an RC QP and listen (exit 0), else exits 4: the selftests use
 * it to skip while the data path is incomplete.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#define GUARD_LEN	64
#define GUARD_BYTE	0xee

struct buf {
	unsigned char *mem;	/* guard, data, guard */
	size_t len;		/* data octets */
};

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + 3);
}

static int buf_alloc(struct buf *b, size_t len)
{
	size_t i;

	b->len = len;
	b->mem = malloc(len + 2 * GUARD_LEN);
	if (!b->mem)
		return -1;
	memset(b->mem, GUARD_BYTE, len + 2 * GUARD_LEN);
	for (i = 0; i < len; i++)
		b->mem[GUARD_LEN + i] = pattern(i);
	return 0;
}

static unsigned char *buf_data(struct buf *b)
{
	return b->mem + GUARD_LEN;
}

/* Returns the number of corrupted guard octets; counts changed data. */
static size_t buf_check(struct buf *b, const char *name, size_t *changed)
{
	size_t i, bad = 0;

	for (i = 0; i < GUARD_LEN; i++) {
		bad += b->mem[i] != GUARD_BYTE;
		bad += b->mem[GUARD_LEN + b->len + i] != GUARD_BYTE;
	}
	for (i = 0; i < b->len; i++)
		*changed += buf_data(b)[i] != pattern(i);
	if (bad)
		printf("GUARD corrupted %s octets=%zu\n", name, bad);
	return bad;
}

/* Octets from the start of @b that hold rawpeer's Write payload. */
static size_t written_prefix(struct buf *b)
{
	size_t i = 0;

	while (i < b->len && buf_data(b)[i] == (unsigned char)(0xa5 ^ i))
		i++;
	return i;
}

static int get_cm_event(struct rdma_event_channel *ch,
			enum rdma_cm_event_type want, struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("victim: rdma_get_cm_event");
		return -1;
	}
	ok = ev->event == want;
	if (!ok)
		printf("CMEVENT %s (wanted %s) status=%d\n",
		       rdma_event_str(ev->event), rdma_event_str(want),
		       ev->status);
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* -S: two streams on one SRQ of @nrecv receives of @rlen octets. */
static int run_srq(struct rdma_event_channel *ch, struct rdma_cm_id *lid,
		   struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_mr *rmr,
		   struct buf *rb, int nrecv, size_t rlen, int timeout_s)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = nrecv, .max_sge = 1 },
	};
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	struct rdma_cm_id *id[2] = { NULL, NULL };
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr qa;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	int i, k, n = 0, gone = 0;
	time_t end = time(NULL) + timeout_s;

	srq = ibv_create_srq(pd, &sa);
	if (!srq) {
		perror("victim: ibv_create_srq");
		return 1;
	}
	for (i = 0; i < nrecv; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf_data(rb) + i * rlen,
			.length = rlen, .lkey = rmr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *badwr;

		if (ibv_post_srq_recv(srq, &wr, &badwr)) {
			perror("victim: ibv_post_srq_recv");
			return 1;
		}
	}
	/* Accept two streams, then wait until both are gone. */
	while (gone < 2 && time(NULL) < end) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;

		if (poll(&pfd, 1, 500) <= 0 || rdma_get_cm_event(ch, &ev))
			continue;
		printf("CMEVENT %s status=%d\n", rdma_event_str(ev->event),
		       ev->status);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && n < 2) {
			memset(&qa, 0, sizeof(qa));
			qa.send_cq = cq;
			qa.recv_cq = cq;
			qa.srq = srq;
			qa.qp_type = IBV_QPT_RC;
			qa.cap.max_send_wr = 4;
			qa.cap.max_send_sge = 1;
			id[n] = ev->id;
			if (rdma_create_qp(ev->id, pd, &qa) ||
			    rdma_accept(ev->id, &cp)) {
				perror("victim: accept");
				return 1;
			}
			n++;
		} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
			gone++;
		}
		rdma_ack_cm_event(ev);
	}
	printf("%s\n", gone == 2 ? "DISCONNECTED" : "TIMEOUT");
	for (k = 0; k < n; k++)
		if (!ibv_query_qp(id[k]->qp, &attr, IBV_QP_STATE, &qa))
			printf("QPSTATE%d=%d\n", k, attr.qp_state);
	while (ibv_poll_cq(cq, 1, &wc) > 0) {
		for (k = 0; k < n && id[k]->qp->qp_num != wc.qp_num; k++)
			;
		printf("WC qp=%d wr_id=%llu status=%d %s\n", k,
		       (unsigned long long)wc.wr_id, wc.status,
		       ibv_wc_status_str(wc.status));
	}
	for (k = 0; k < n; k++) {
		rdma_disconnect(id[k]);
		rdma_destroy_qp(id[k]);
		rdma_destroy_id(id[k]);
	}
	ibv_destroy_srq(srq);
	return 0;
}

int main(int argc, char **argv)
{
	size_t len = 4096, rlen = 256, changed = 0, changed2 = 0, bad = 0;
	int nrecv = 4, timeout_s = 20, access = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_TCP }, *rai;
	struct rdma_cm_id *lid, *id;
	struct rdma_event_channel *ch;
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr, *mr2, *rmr;
	struct ibv_cq *cq;
	struct buf b, b2, rb;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	bool gone = false;
	time_t end;
	bool probe = false, use_srq = false;
	int opt, i;

	while ((opt = getopt(argc, argv, "PSa:l:n:r:t:")) != -1) {
		switch (opt) {
		case 'P':	/* probe: exit 0 if the objects can be made */
			probe = true;
			break;
		case 'S':	/* two streams on one SRQ */
			use_srq = true;
			break;
		case 'a':	/* remote access of the first buffer: r, w, rw */
			access = IBV_ACCESS_LOCAL_WRITE;
			if (strchr(optarg, 'r'))
				access |= IBV_ACCESS_REMOTE_READ;
			if (strchr(optarg, 'w'))
				access |= IBV_ACCESS_REMOTE_WRITE;
			break;
		case 'l': len = strtoul(optarg, NULL, 0); break;
		case 'n': nrecv = atoi(optarg); break;
		case 'r': rlen = strtoul(optarg, NULL, 0); break;
		case 't': timeout_s = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP)) {
		perror("victim: rdma_create_id");
		return 1;
	}
	if (rdma_getaddrinfo(argv[optind], argv[optind + 1], &hints, &rai)) {
		perror("victim: rdma_getaddrinfo");
		return 1;
	}
	if (rdma_bind_addr(lid, rai->ai_src_addr)) {
		perror("victim: rdma_bind_addr");
		return probe ? 4 : 1;
	}
	if (!lid->verbs) {
		fprintf(stderr, "victim: %s is not on an RDMA device\n",
			argv[optind]);
		return probe ? 4 : 1;
	}
	pd = ibv_alloc_pd(lid->verbs);
	pd2 = ibv_alloc_pd(lid->verbs);
	cq = ibv_create_cq(lid->verbs, 2 * nrecv + 8, NULL, NULL, 0);
	if (!pd || !pd2 || !cq || buf_alloc(&b, len) || buf_alloc(&b2, len) ||
	    buf_alloc(&rb, rlen * nrecv)) {
		perror("victim: setup");
		return probe ? 4 : 1;
	}
	mr = ibv_reg_mr(pd, buf_data(&b), len, access);
	mr2 = ibv_reg_mr(pd2, buf_data(&b2), len, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	rmr = ibv_reg_mr(pd, buf_data(&rb), rlen * nrecv,
			 IBV_ACCESS_LOCAL_WRITE);
	if (!mr || !mr2 || !rmr) {
		perror("victim: ibv_reg_mr");
		return probe ? 4 : 1;
	}
	if (probe) {
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 1;
		qa.cap.max_recv_wr = 1;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(lid, pd, &qa) || rdma_listen(lid, 1)) {
			perror("victim: probe: QP or listen");
			return 4;
		}
		printf("PROBE ok\n");
		return 0;
	}
	if (rdma_listen(lid, 2)) {
		perror("victim: rdma_listen");
		return 1;
	}
	printf("STAG=0x%08x ADDR=0x%llx LEN=%zu STAG2=0x%08x ADDR2=0x%llx LEN2=%zu NRECV=%d RLEN=%zu\n",
	       mr->rkey, (unsigned long long)(uintptr_t)buf_data(&b), len,
	       mr2->rkey, (unsigned long long)(uintptr_t)buf_data(&b2), len,
	       nrecv, rlen);
	if (use_srq)
		return run_srq(ch, lid, pd, cq, rmr, &rb, nrecv, rlen,
			       timeout_s);

	if (get_cm_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &id))
		return 1;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = nrecv ? nrecv : 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qa)) {
		perror("victim: rdma_create_qp");
		return 1;
	}
	for (i = 0; i < nrecv; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf_data(&rb) + i * rlen,
			.length = rlen, .lkey = rmr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *badwr;

		if (ibv_post_recv(id->qp, &wr, &badwr)) {
			perror("victim: ibv_post_recv");
			return 1;
		}
	}
	if (rdma_accept(id, &cp)) {
		perror("victim: rdma_accept");
		return 1;
	}
	if (get_cm_event(ch, RDMA_CM_EVENT_ESTABLISHED, NULL) == 0)
		printf("ESTABLISHED\n");

	/* Wait for the peer to go away, reporting async events meanwhile. */
	end = time(NULL) + timeout_s;
	while (!gone && time(NULL) < end) {
		struct pollfd pfd[2] = {
			{ .fd = ch->fd, .events = POLLIN },
			{ .fd = id->verbs->async_fd, .events = POLLIN },
		};

		if (poll(pfd, 2, 500) <= 0)
			continue;
		if (pfd[1].revents & POLLIN) {
			struct ibv_async_event ae;

			if (!ibv_get_async_event(id->verbs, &ae)) {
				printf("ASYNC %s\n",
				       ibv_event_type_str(ae.event_type));
				ibv_ack_async_event(&ae);
			}
		}
		if (pfd[0].revents & POLLIN) {
			struct rdma_cm_event *ev;

			if (rdma_get_cm_event(ch, &ev))
				break;
			printf("CMEVENT %s status=%d\n",
			       rdma_event_str(ev->event), ev->status);
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				gone = true;
			rdma_ack_cm_event(ev);
		}
	}
	if (gone)
		printf("DISCONNECTED\n");
	else
		printf("TIMEOUT\n");
	/* Any async event that raced the disconnect. */
	{
		struct pollfd pfd = { .fd = id->verbs->async_fd,
				      .events = POLLIN };
		struct ibv_async_event ae;

		while (poll(&pfd, 1, 200) > 0 &&
		       !ibv_get_async_event(id->verbs, &ae)) {
			printf("ASYNC %s\n", ibv_event_type_str(ae.event_type));
			ibv_ack_async_event(&ae);
		}
	}
	if (!ibv_query_qp(id->qp, &attr, IBV_QP_STATE, &qa))
		printf("QPSTATE=%d\n", attr.qp_state);
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		printf("WC wr_id=%llu status=%d %s\n",
		       (unsigned long long)wc.wr_id, wc.status,
		       ibv_wc_status_str(wc.status));
	bad += buf_check(&b2, "mr2", &changed2);
	bad += buf_check(&b, "mr", &changed);
	bad += buf_check(&rb, "recv", &changed);
	if (!bad)
		printf("GUARD ok\n");
	printf("MRDIFF=%zu\n", changed + changed2);
	printf("MR2DIFF=%zu\n", changed2);
	printf("MRWRITE=%zu\n", written_prefix(&b));
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(rmr);
	ibv_dereg_mr(mr2);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd2);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_id(lid);
	rdma_freeaddrinfo(rai);
	rdma_destroy_event_channel(ch);
	return 0;
usage:
	fprintf(stderr, "usage: victim [-P] [-S] [-a r|w|rw] [-l LEN] [-n NRECV] [-r RLEN] [-t SECS] ADDR PORT\n");
	return 1;
}
