/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw TX and RX engines: the per-QP state of each direction of an
 * attached stream and the calls the QP and CM code make into them.
 * Owned by tx.c (struct softiw_qp_tx) and rx.c (struct softiw_qp_rx).
 *
 * TX runs in one work item per QP on softiw_tx_wq (never two at once for
 * a QP): it turns SQ entries and inbound Read Requests into FPDUs with the
 * wire core and hands many of them to TCP per call, and is woken by
 * post_send (softiw_tx_kick()), by the socket's write_space callback and
 * by the RX engine (a new Read Request, a Read Response that freed ORD).
 *
 * RX runs in the socket's data_ready callback (softirq) through
 * tcp_read_sock(): it parses FPDUs with the wire core, validates each
 * segment before placement and places payload straight from the skb into
 * the target memory.
 *
 * Locking: the TX state is only touched by the TX work item; the RX state
 * only by data_ready, which the socket layer serialises (socket lock).
 * Both read qp->params, which is fixed before attach.
 */
#ifndef SOFTIW_TXRX_H
#define SOFTIW_TXRX_H

#include <linux/workqueue.h>
#include <net/sock.h>

#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

struct softiw_qp;
struct softiw_wqe;

/* Per-QP transmit state (tx.c). */
struct softiw_qp_tx {
	struct work_struct work;
	struct socket *sock;		/* attached stream, or NULL */
	struct softiw_mpa_tx mpa;
	u32 msn_send;			/* next MSN on QN 0 */
	u32 msn_rreq;			/* next MSN on QN 1 */
	u32 msn_term;			/* next MSN on QN 2 */
	struct softiw_wqe *wqe;		/* entry being transmitted, or NULL */
	u32 wqe_off;			/* payload octets of @wqe already framed */
	u8 *buf;			/* staging of framed octets for TCP */
	u32 buf_len;			/* octets staged */
	u32 buf_sent;			/* of those, accepted by TCP */
	bool stopped;			/* detached: no more work */
	/* the TX engine may add fields below */
};

/* Per-QP receive state (rx.c). */
struct softiw_qp_rx {
	struct softiw_mpa_rx mpa;
	u32 msn_expect[3];		/* next MSN expected per QN */
	bool stopped;			/* after an error: drop everything */
	/* the RX engine may add fields below */
};

/* tx.c + rx.c: module-wide setup (the TX workqueue) */
int softiw_txrx_init(void);
void softiw_txrx_exit(void);

/*
 * softiw_txrx_attach() - take over @sock's data_ready and write_space
 * callbacks for @qp (sk_user_data already points at the QP's CM endpoint;
 * see cm.h) and start both engines.  If @qp->params.initiator and
 * params.rtr is set, the first FPDU sent is the RTR message.
 */
int softiw_txrx_attach(struct softiw_qp *qp, struct socket *sock);
/*
 * softiw_txrx_detach() - restore the callbacks, stop both engines and wait
 * until neither runs.  Process context; idempotent.
 */
void softiw_txrx_detach(struct softiw_qp *qp);

/* Schedule the TX engine (post_send, RX). Any context. */
void softiw_tx_kick(struct softiw_qp *qp);
/*
 * softiw_tx_terminate() - queue a Terminate built from @t and make it the
 * next thing sent; after it the TX engine sends nothing more.  Any
 * context.
 */
void softiw_tx_terminate(struct softiw_qp *qp,
			 const struct softiw_rdmap_term *t);

#endif /* SOFTIW_TXRX_H */
