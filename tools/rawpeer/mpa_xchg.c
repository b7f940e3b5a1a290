// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rawpeer: TCP connection setup and the MPA Request/Reply exchange (RFC
 * 5044 section 7.1, RFC 6581 for Rev 2), built and parsed with the
 * wire core.  Frames are read exactly (header, then PD_Length octets) so
 * nothing of the FPDU stream is consumed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "rawpeer.h"
#include "crc32c.h"

#define RP_IRD_ORD	16

int rp_send_all(int fd, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0) {
			perror("rawpeer: send");
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int read_exact(int fd, u8 *buf, size_t len)
{
	while (len) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n <= 0) {
			if (n == 0)
				printf("EOF\n");
			else
				printf("TIMEOUT\n");
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* Read one Request or Reply frame into @buf and parse it. */
static int read_frame(int fd, bool reply, u8 *buf, struct softiw_mpa_rr *rr)
{
	u32 st;

	if (read_exact(fd, buf, SOFTIW_MPA_RR_HDR_LEN))
		return -1;
	st = softiw_mpa_rr_parse(buf, SOFTIW_MPA_RR_HDR_LEN, reply, rr);
	if (st == SOFTIW_MPA_NEED_MORE && rr->frame_len) {
		if (read_exact(fd, buf + SOFTIW_MPA_RR_HDR_LEN,
			       rr->frame_len - SOFTIW_MPA_RR_HDR_LEN))
			return -1;
		st = softiw_mpa_rr_parse(buf, rr->frame_len, reply, rr);
	}
	if (st != SOFTIW_WIRE_OK) {
		printf("MPA bad-frame status=0x%08x\n", st);
		return -1;
	}
	printf("MPA %s rev=%u crc=%d markers=%d reject=%d enhanced=%d pd_len=%u\n",
	       reply ? "reply" : "request", rr->rev, rr->crc, rr->markers,
	       rr->reject, rr->enhanced, rr->pd_len);
	return 0;
}

static void conn_init(struct rp_conn *c, int fd, bool crc)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->tx.crc32c = softiw_host_crc32c;
	c->tx.crc = crc;
	c->rx.crc32c = softiw_host_crc32c;
	c->rx.crc = crc;
	for (i = 0; i < SOFTIW_RDMAP_NR_QN; i++)
		c->msn[i] = SOFTIW_DDP_MSN_INITIAL;
}

static void set_timeout(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The RFC 6581 RTR the Initiator sends first: a zero-length Write. */
static int send_rtr(struct rp_conn *c)
{
	struct softiw_rdmap_hdr h;
	u8 ulpdu[SOFTIW_DDP_TAGGED_HDR_LEN], out[64];
	int n;

	softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_WRITE, 0, 0, 0, 0);
	h.ddp.last = true;
	softiw_ddp_hdr_encode(&h.ddp, ulpdu, sizeof(ulpdu));
	n = softiw_mpa_fpdu_build(&c->tx, ulpdu, sizeof(ulpdu), out,
				  sizeof(out));
	return n < 0 ? -1 : rp_send_all(c->fd, out, n);
}

int rp_connect(struct rp_conn *c, const char *addr, const char *port,
	       const struct rp_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct softiw_mpa_rr req = { 0 }, rep;
	u8 buf[SOFTIW_MPA_RR_MAX_LEN];
	int fd, n;

	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "rawpeer: cannot resolve %s %s\n", addr, port);
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("rawpeer: connect");
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	set_timeout(fd, o->timeout_s);

	req.crc = o->crc;
	req.rev = o->v2 ? SOFTIW_MPA_REV2 : SOFTIW_MPA_REV1;
	req.enhanced = o->v2;
	req.v2.ird = RP_IRD_ORD;
	req.v2.ord = RP_IRD_ORD;
	req.v2.p2p = o->v2;
	req.v2.rtr = SOFTIW_MPA_RTR_WRITE;
	n = softiw_mpa_rr_encode(&req, buf, sizeof(buf));
	if (n < 0 || rp_send_all(fd, buf, n))
		goto err;
	if (read_frame(fd, true, buf, &rep))
		goto err;
	if (rep.reject) {
		printf("MPA rejected\n");
		goto err;
	}
	conn_init(c, fd, req.crc || rep.crc);
	if (rep.enhanced && rep.v2.p2p && send_rtr(c))
		goto err;
	return 0;
err:
	close(fd);
	return -1;
}

int rp_listen(struct rp_conn *c, const char *port, const struct rp_opts *o)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct softiw_mpa_rr req, rep = { .reply = true };
	u8 buf[SOFTIW_MPA_RR_MAX_LEN];
	int lfd, fd, n, one = 1;

	sin.sin_port = htons(atoi(port));
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return -1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1)) {
		perror("rawpeer: listen");
		close(lfd);
		return -1;
	}
	printf("LISTENING port=%s\n", port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0) {
		perror("rawpeer: accept");
		return -1;
	}
	set_timeout(fd, o->timeout_s);
	if (read_frame(fd, false, buf, &req))
		goto err;
	rep.crc = o->crc || req.crc;
	rep.rev = req.rev;
	rep.enhanced = req.enhanced;
	if (req.enhanced)
		softiw_mpa_v2_respond(&req.v2, RP_IRD_ORD, RP_IRD_ORD, &rep.v2);
	n = softiw_mpa_rr_encode(&rep, buf, sizeof(buf));
	if (n < 0 || rp_send_all(fd, buf, n))
		goto err;
	conn_init(c, fd, rep.crc);
	return 0;
err:
	close(fd);
	return -1;
}
