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

#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

struct softiw_qp;
struct softiw_wqe;
struct softiw_rqe;
struct tx_defer_slot;
struct softiw_tx_zc;
struct softiw_tx_zcb;
struct bio_vec;
struct ubuf_info;

/* SGEs of one work request (SOFTIW_MAX_SGE, checked in tx.c) */
#define SOFTIW_TX_SGE_REFS	6

struct softiw_mem;

/* The Read Response the TX engine is sending (copied from qp->ird). */
struct softiw_tx_rresp {
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	u32 src_stag;
	u64 src_to;
};

/* A work request staged in a batch, waiting for TCP to take it. */
struct softiw_tx_pend {
	struct softiw_wqe *wqe;
	u32 end;		/* batch octet after its last one */
};

/*
 * Per-QP transmit state (tx.c).  The first part lives as long as the QP
 * (softiw_txrx_qp_init() at creation): doorbells, deferred kicks and the
 * work item may reach it at any time, a stream attached or not.  The
 * rest, from @sock on, belongs to one stream: attach clears and sets it
 * holding @run, detach frees what it points to.
 */
struct softiw_qp_tx {
	struct work_struct work;
	spinlock_t lock;		/* @stopped vs. kick, @term* */
	struct mutex run;		/* held by whoever runs the engine */
	bool rerun;			/* the work found @run taken: run again */
	struct task_struct *owner;	/* poster running the engine inline */
	/* its deferred-kick slot (tx.c) while it runs inline; tx.run */
	struct tx_defer_slot *defer;
	/* one stream's, from here on */
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
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	bool term_pending;		/* @term waits to be sent */
	bool term_sent;			/* Terminate staged: send nothing more */
	struct softiw_rdmap_term term;
	u32 buf_size;			/* octets at @buf (either kind) */
	u32 batch_max;			/* stage no more than this, but one FPDU */
	u8 *copy_buf;			/* batch sent by copy (kvmalloc) */
	struct page *page;		/* batch spliced into TCP, or NULL */
	struct page *spare;		/* the one before, while TCP holds it */
	u8 page_order;
	bool spliced;			/* @buf is @page's: splice, not copy */
	u8 *ulpdu;			/* one ULPDU being framed */
	u32 ulpdu_size;
	u32 mulpdu;			/* effective MULPDU used */
	u8 cur;				/* message in progress: TX_CUR_* */
	bool prefer_sq;			/* fairness: SQ next, then Read Resp */
	bool rtr_pending;		/* initiator: RTR not yet staged */
	struct softiw_ddp_segmenter seg;	/* segments of @cur */
	struct softiw_tx_rresp rresp;	/* Read Response in progress */
	/* zero-copy transmit: payload referenced in the application's pages */
	struct softiw_tx_zc *zc;	/* shared with the batches, or NULL */
	struct softiw_tx_zcb *zcb;	/* this batch's completion, or NULL */
	struct bio_vec *frag;		/* with @zcb: the batch, in wire order */
	u32 nr_frags;
	u32 frag_mark;			/* @buf octets from here not in @frag */
	u32 zc_len;			/* payload octets not in @buf */
	bool zc_wqe;			/* @wqe's payload goes zero-copy */
	bool zc_route_copies;		/* the kernel copies fragments anyway */
	/*
	 * The regions tx_check_sges() found for @sge_wqe's SGEs, referenced
	 * while tx_fill() runs, so that tx_gather() does not look them up
	 * a second time (it still checks each under the region's lock).
	 */
	struct softiw_wqe *sge_wqe;
	struct softiw_mem *sge_mem[SOFTIW_TX_SGE_REFS];
	/* the same for the source of the Read Response in @rresp */
	struct softiw_mem *rresp_mem;
	u32 nr_pend;			/* WQEs staged, waiting for TCP */
	struct softiw_tx_pend pend[16];
};

/* Per-QP receive state (rx.c). */
struct softiw_qp_rx {
	struct softiw_mpa_rx mpa;
	u32 msn_expect[3];		/* next MSN expected per QN */
	bool stopped;			/* after an error: drop everything */
	/* the RX engine may add fields below */
	bool detached;			/* callbacks restored: do nothing */
	struct task_struct *owner;	/* task running data_ready, if any */
	bool rtr_pending;		/* responder: no FPDU (RTR) received yet */
	bool rtr_read;			/* our zero-length Read RTR unanswered */
	u8 state;			/* RX_* parser state (rx.c) */
	bool in_fpdu;			/* an FPDU's first octet was seen */
	u32 crc;			/* CRC32c register over this FPDU */
	bool crc_checked;		/* this FPDU's CRC verified up front */
	u32 verify_seq;			/* TCP seq the next FPDU starts at */
	u32 verify_until;		/* ...and no check before this seq */
	u32 fpdu_start;			/* mpa.pos where the FPDU began */
	u32 left;			/* octets left in @state */
	u8 mk_got;			/* octets of the current Marker seen */
	u8 mk[SOFTIW_MPA_MARKER_LEN];
	u8 crc_got;
	u8 crc_wire[SOFTIW_MPA_CRC_LEN];
	u32 hdr_got;			/* octets in @hdr (from ULPDU_Length) */
	u32 hdr_need;
	u8 hdr[SOFTIW_MPA_HDR_LEN + SOFTIW_DDP_UNTAGGED_HDR_LEN +
	       SOFTIW_RDMAP_TERM_MAX_LEN];
	u32 ulpdu_len;
	u32 err;			/* error found, reported after the CRC */
	struct softiw_rdmap_hdr h;	/* header of the current segment */
	u8 target;			/* RX_T_*: where the payload goes */
	u64 addr;			/* tagged: next TO to place at */
	u32 mo;				/* untagged: next MO to place at */
	struct softiw_ddp_rx_msg msg[SOFTIW_RDMAP_NR_QN];
	struct softiw_ddp_rx_msg msg_tagged;
	bool have_rqe;			/* @rqe taken for the Send in progress */
	struct softiw_rqe *rqe;		/* allocated at attach */
	struct softiw_wqe *rresp_wqe;	/* READ the Read Response answers */
	/* region last looked up, referenced while rx_actor() runs (rx.c) */
	struct softiw_mem *mem;
};

/* tx.c + rx.c: module-wide setup (the TX workqueue) */
int softiw_txrx_init(void);
void softiw_txrx_exit(void);

/*
 * softiw_txrx_qp_init() - create_qp: set up what the engines keep for the
 * QP's whole life (locks, the work item); softiw_txrx_qp_destroy() at
 * destroy_qp, once nothing can reach the QP, waits for the work item.
 */
void softiw_txrx_qp_init(struct softiw_qp *qp);
void softiw_txrx_qp_destroy(struct softiw_qp *qp);
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
 * softiw_queue_work() - run @work on the engines' workqueue, which is
 * WQ_MEM_RECLAIM: kernel ULPs (NVMe-oF, NFS) flush QP work from their
 * own reclaim-safe workqueues.
 */
void softiw_queue_work(struct work_struct *work);
/*
 * softiw_tx_terminate() - queue a Terminate built from @t and make it the
 * next thing sent; after it the TX engine sends nothing more.  Any
 * context.
 */
void softiw_tx_terminate(struct softiw_qp *qp,
			 const struct softiw_rdmap_term *t);

/* rx.c, for tx.c: the data_ready callback and the RX state's life */
/*
 * TCP dropped one reference to a zero-copy batch's completion (@uarg);
 * the last one completes the batch's work requests (through the engine).
 * Any context.
 */
void softiw_tx_zc_put(struct ubuf_info *uarg);

void softiw_rx_data_ready(struct sock *sk);
int softiw_rx_init(struct softiw_qp *qp);
void softiw_rx_release(struct softiw_qp *qp);

#endif /* SOFTIW_TXRX_H */
