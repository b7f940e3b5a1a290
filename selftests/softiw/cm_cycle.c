// SPDX-License-Identifier: GPL-2.0
/*
 * cm_cycle: rdma_cm connection churn, to prove that connection setup
 * never fails spuriously (dp_siw.sh).
 *
 *   cm_cycle -s ADDR PORT COUNT   server: listen on ADDR (0.0.0.0 or ::
 *                                 for the wildcard), accept every request
 *                                 onto a fresh QP, exit 0 after COUNT
 *                                 connections came and went; COUNT 0:
 *                                 never accept, print "request" for each
 *                                 and hold it until killed (dp_cmstates)
 *   cm_cycle -c ADDR PORT COUNT PAR
 *                                 client: COUNT connect/establish/
 *                                 disconnect cycles to ADDR, PAR at a
 *                                 time; exit 0 only if every one was
 *                                 established
 *
 * Every connection has its own PD, CQ and RC QP, so each cycle goes
 * through the whole QP lifecycle of the device it lands on.  Any refused
 * or failed attempt is printed with its event and status; the client
 * goes on and fails at the end.  Both exit 2 after CM_CYCLE_IDLE_S
 * (default 20) seconds without an event.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

struct conn {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static struct rdma_event_channel *ch;

/* A PD, CQ and QP for @id on whatever device it is bound to. */
static int conn_setup(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	id->context = c;
	c->pd = ibv_alloc_pd(id->verbs);
	c->cq = c->pd ? ibv_create_cq(id->verbs, 4, NULL, NULL, 0) : NULL;
	if (!c->cq)
		return -1;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	return rdma_create_qp(id, c->pd, &qa);
}

static void conn_destroy(struct rdma_cm_id *id)
{
	struct conn *c = id->context;

	if (id->qp)
		rdma_destroy_qp(id);
	if (c) {
		if (c->cq)
			ibv_destroy_cq(c->cq);
		if (c->pd)
			ibv_dealloc_pd(c->pd);
		free(c);
	}
	rdma_destroy_id(id);
}

/* The next event, or NULL after CM_CYCLE_IDLE_S seconds of silence. */
static struct rdma_cm_event *next_event(void)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	const char *idle = getenv("CM_CYCLE_IDLE_S");
	int secs = idle ? atoi(idle) : 20;
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, secs * 1000) != 1) {
		fprintf(stderr, "cm_cycle: no event for %d s\n", secs);
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return NULL;
	}
	return ev;
}

static struct rdma_conn_param params(void)
{
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
	};

	return p;
}

static int server(const char *addr, const char *port, long count)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST }, *ai;
	struct rdma_cm_id *l, *id;
	struct rdma_conn_param p = params();
	struct rdma_cm_event *ev;
	long gone = 0, accepted = 0;
	int event;

	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "cm_cycle: bad address %s\n", addr);
		return 1;
	}
	if (rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l, ai->ai_addr) || rdma_listen(l, 128)) {
		perror("cm_cycle: listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (!count || gone < count) {
		ev = next_event();
		if (!ev) {
			fprintf(stderr,
				"cm_cycle: server: %ld of %ld accepted connections gone\n",
				gone, accepted);
			return 2;
		}
		id = ev->id;
		event = ev->event;
		rdma_ack_cm_event(ev);
		switch (event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!count) {
				printf("request\n");
				fflush(stdout);
				break;
			}
			if (conn_setup(id) || rdma_accept(id, &p)) {
				perror("cm_cycle: accept");
				return 1;
			}
			accepted++;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_disconnect(id);
			conn_destroy(id);
			gone++;
			break;
		default:
			if (!count) {
				printf("%s\n", rdma_event_str(event));
				fflush(stdout);
				break;
			}
			fprintf(stderr, "cm_cycle: server: unexpected %s\n",
				rdma_event_str(event));
			return 1;
		}
	}
	printf("served %ld of %ld accepted\n", gone, accepted);
	rdma_destroy_id(l);
	freeaddrinfo(ai);
	return 0;
}

static int client(const char *addr, const char *port, long count, int par)
{
	struct rdma_conn_param p = params();
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST }, *ai;
	long started = 0, done = 0, established = 0, failed = 0;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int event, status, inflight = 0;

	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "cm_cycle: bad address %s\n", addr);
		return 1;
	}
	while (done < count) {
		while (inflight < par && started < count) {
			if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
			    rdma_resolve_addr(id, NULL, ai->ai_addr, 5000)) {
				perror("cm_cycle: resolve_addr");
				return 1;
			}
			started++;
			inflight++;
		}
		ev = next_event();
		if (!ev) {
			fprintf(stderr,
				"cm_cycle: %ld of %ld cycles done, %d in flight, %ld established\n",
				done, count, inflight, established);
			return 2;
		}
		id = ev->id;
		event = ev->event;
		status = ev->status;
		rdma_ack_cm_event(ev);
		switch (event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(id, 5000))
				goto fail;
			continue;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			if (conn_setup(id) || rdma_connect(id, &p))
				goto fail;
			continue;
		case RDMA_CM_EVENT_ESTABLISHED:
			established++;
			if (rdma_disconnect(id))
				goto fail;
			continue;
		case RDMA_CM_EVENT_DISCONNECTED:
			break;
		default:
			fprintf(stderr,
				"cm_cycle: cycle %ld: %s, status %d (%s)\n",
				done + 1, rdma_event_str(event), status,
				strerror(status < 0 ? -status : status));
			failed++;
			break;
		}
		conn_destroy(id);
		inflight--;
		done++;
		continue;
fail:
		fprintf(stderr, "cm_cycle: cycle %ld: after %s: %s\n",
			done + 1, rdma_event_str(event), strerror(errno));
		return 1;
	}
	freeaddrinfo(ai);
	printf("%ld cycles: %ld established, %ld failed\n", done, established,
	       failed);
	return established == count && !failed ? 0 : 1;
}

int main(int argc, char **argv)
{
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	if (argc == 5 && !strcmp(argv[1], "-s"))
		return server(argv[2], argv[3], atol(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "-c"))
		return client(argv[2], argv[3], atol(argv[4]), atoi(argv[5]));
	fprintf(stderr, "usage: cm_cycle -s ADDR PORT COUNT | -c ADDR PORT COUNT PAR\n");
	return 1;
}
