/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw connection management: the iw_cm provider ops, listeners,
 * connection endpoints (CEPs), the MPA Request/Reply exchange (MPA v1 and
 * v2 with IRD/ORD and RTR negotiation, through the wire core) and
 * teardown.  Owned by cm.c.
 *
 * A CEP owns one TCP socket from accept/connect until the stream is
 * closed: it sets sk_user_data to itself, replaces sk_state_change (kept
 * for the whole life of the stream, to see FIN and RST) and, during the
 * MPA exchange, sk_data_ready.  On entering RTS the QP's engines take
 * over data_ready and write_space (txrx.h); the CEP restores every
 * original callback before it releases the socket.
 *
 * Blocking work (connect, the MPA exchange with its timeout, close) runs
 * on softiw_cm_wq; callbacks in softirq only queue work.
 *
 * Locking: softiw_cep.lock guards the CEP state and its cm_id/qp
 * pointers; the socket callbacks reach the CEP through sk_user_data under
 * sk->sk_callback_lock (read side).
 */
#ifndef SOFTIW_CM_H
#define SOFTIW_CM_H

#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

struct softiw_qp;

/* module parameters (cm.c) */
extern bool softiw_cm_mpa_crc;		/* mpa_crc: request CRC32c */
extern bool softiw_cm_mpa_markers;	/* mpa_markers: request Markers */
extern unsigned int softiw_cm_mpa_timeout_ms;	/* mpa_timeout_ms */
extern bool softiw_cm_mpa_v2;		/* mpa_v2: offer MPA v2 */

/* cm.c: the QP's view of its CEP; the full struct is private to cm.c */
struct softiw_cep;

/*
 * softiw_cm_sk_qp() - the QP attached to a socket's CEP, for the engines'
 * socket callbacks.  Caller holds sk->sk_callback_lock (read).  NULL
 * while no QP is attached.
 */
struct softiw_qp *softiw_cm_sk_qp(const struct sock *sk);

/*
 * softiw_cm_qp_close() - the QP left RTS: @abortive (ERROR) resets the
 * stream, otherwise (CLOSING) the CM shuts down the send side once the SQ
 * is drained and waits for the peer's FIN.  Either way the CM delivers
 * IW_CM_EVENT_DISCONNECT / IW_CM_EVENT_CLOSE to iw_cm as the contract
 * requires and releases the socket.  Any context (queues work).
 */
void softiw_cm_qp_close(struct softiw_qp *qp, bool abortive);
/*
 * softiw_cm_qp_unbind() - destroy_qp and ERROR -> RESET: like an abortive
 * close, then wait until the CEP no longer refers to @qp, so the QP can
 * be freed or bound to a new connection.  Process context.
 */
void softiw_cm_qp_unbind(struct softiw_qp *qp);

int softiw_cm_init(void);
void softiw_cm_exit(void);

/* cm.c: the iw_cm provider ops; device.c adds them to every device */
extern const struct ib_device_ops softiw_cm_ops;

#endif /* SOFTIW_CM_H */
