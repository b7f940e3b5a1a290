/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rawpeer: an iWARP peer without RDMA, for testing softiw's receive
 * validation from the wire.  It speaks MPA over a plain TCP socket with
 * the softiw wire core (mpa.c, ddp.c, rdmap.c compiled for the host) and
 * sends deliberately malformed FPDUs.
 *
 *   mpa_xchg.c  TCP connect/listen and the MPA Request/Reply exchange
 *   fpdu.c      crafting the test cases, receiving and printing FPDUs,
 *               and the reference validator of listen mode
 *   main.c      command line and the step script
 *
 * Single threaded, blocking sockets with a receive timeout: no locking.
 */
#ifndef RAWPEER_H
#define RAWPEER_H

#include "wire_port.h"
#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

/* Everything the command line sets. */
struct rp_opts {
	bool crc;		/* C in our frame */
	bool v2;		/* Rev 2, enhanced, p2p with a Write RTR */
	u32 stag;		/* a valid STag of the victim's QP's PD */
	u64 to;			/* its buffer address (TO base) */
	u64 len;		/* its length */
	u32 stag2;		/* a valid STag of ANOTHER PD */
	u64 to2;
	u64 len2;
	u32 nrecv;		/* receives the victim posted on QN 0 */
	u32 rlen;		/* length of each of them */
	u32 seglen;		/* payload octets of a crafted segment */
	int timeout_s;		/* receive timeout */
};

/* One connection after the MPA exchange. */
struct rp_conn {
	int fd;
	struct softiw_mpa_tx tx;
	struct softiw_mpa_rx rx;
	u32 msn[SOFTIW_RDMAP_NR_QN];	/* next MSN we send per QN */
	u8 rbuf[SOFTIW_MPA_RX_BUF_LEN(65535) + 8];
	size_t rfill;			/* octets in rbuf */
};

/* mpa_xchg.c */
int rp_connect(struct rp_conn *c, const char *addr, const char *port,
	       const struct rp_opts *o);
int rp_listen(struct rp_conn *c, const char *port, const struct rp_opts *o);
int rp_send_all(int fd, const void *buf, size_t len);

/* fpdu.c */
int rp_send_case(struct rp_conn *c, const char *name,
		 const struct rp_opts *o);
int rp_send_mutated(struct rp_conn *c, const struct rp_opts *o, u64 seed,
		    int count);
void rp_list_cases(void);
int rp_recv_print(struct rp_conn *c, const struct rp_opts *o, bool validate,
		  int max);

#endif /* RAWPEER_H */
