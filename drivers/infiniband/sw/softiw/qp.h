/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw queue pairs: the QP object, its iWARP state machine (RFC 5040
 * section 10 states mapped onto ib_qp_state), the send and receive work
 * queues, shared receive queues, in-order completion and flushing.
 * Owned by qp.c (QP, SQ, RQ) and srq.c (SRQ).
 *
 * Who touches what:
 *   post_send/post_recv (any context)   append to sq/rq under the queue lock
 *   TX engine (txrx.h, one work item)   takes SQ entries from sq.tx_next,
 *                                       marks them done
 *   RX engine (softirq)                 takes RQ/SRQ entries, completes
 *                                       READs in sq order, queues inbound
 *                                       Read Requests in ird
 *   CM (cm.h)                           moves the QP to RTS and out of it
 *
 * Lifetime: ib_core allocates struct softiw_qp (INIT_RDMA_OBJ_SIZE) and
 * frees it as soon as destroy_qp returns, so destroy_qp first closes the
 * connection, stops both engines and waits until every reference taken
 * through softiw_qp_get_rcu(), softiw_qp_get_bindable() or iw_add_ref
 * is gone.
 *
 * Locking order: qp->state_lock, then sq.lock / rq.lock / ird.lock, then
 * cq->lock.  None is held while calling into the CM or the socket layer.
 */
#ifndef SOFTIW_QP_H
#define SOFTIW_QP_H

#include <linux/kref.h>
#include <linux/completion.h>
#include <rdma/ib_verbs.h>

#include "mem.h"
#include "rm.h"
#include "txrx.h"
#include "uring.h"

struct softiw_device;
struct softiw_cq;
struct softiw_pd;
struct softiw_cep;

/* Limits, advertised by query_device and enforced by create/post. */
#define SOFTIW_MAX_QP		1024
#define SOFTIW_MAX_QP_WR	1024
#define SOFTIW_MAX_SGE		6
#define SOFTIW_MAX_SGE_RD	1	/* one Data Sink STag per Read */
#define SOFTIW_MAX_INLINE	256
#define SOFTIW_MAX_ORD		32
#define SOFTIW_MAX_IRD		32
#define SOFTIW_MAX_MSG_SIZE	SOFTIW_MAX_MSG_ABI	/* 2^31 */
#define SOFTIW_MAX_CQ		1024
#define SOFTIW_MAX_CQE		(64 * 1024)
#define SOFTIW_MAX_CQ_ENTRIES	(4 * 1024 * 1024)	/* of all CQs */
#define SOFTIW_MAX_MR		(64 * 1024)
#define SOFTIW_MAX_SRQ		256
#define SOFTIW_MAX_SRQ_WR	4096

/* iWARP QP states (RFC 5040 section 10). */
enum softiw_qp_state {
	SOFTIW_QP_IDLE,		/* ib RESET, INIT, RTR: no stream yet */
	SOFTIW_QP_RTS,		/* stream attached, full operation */
	SOFTIW_QP_CLOSING,	/* graceful close under way (ib SQD) */
	SOFTIW_QP_TERMINATE,	/* Terminate sent or received (ib SQE) */
	SOFTIW_QP_ERROR,	/* everything flushed (ib ERR) */
};

enum softiw_wr_opcode {
	SOFTIW_WR_SEND,
	SOFTIW_WR_SEND_INV,	/* Send with Invalidate of @inv_stag */
	SOFTIW_WR_WRITE,
	SOFTIW_WR_READ,
	SOFTIW_WR_LOCAL_INV,	/* local invalidate of @inv_stag */
	SOFTIW_WR_REG_MR,	/* fast register (kernel ULPs) */
	SOFTIW_WR_BIND_MW,	/* bind a memory window (user rings) */
};

#define SOFTIW_WQE_SIGNALED	0x01
#define SOFTIW_WQE_SOLICITED	0x02	/* Send with Solicited Event */
#define SOFTIW_WQE_INLINE	0x04	/* payload in @inline_data */
#define SOFTIW_WQE_FENCE	0x08	/* wait for prior READs */
#define SOFTIW_WQE_READ_INV	0x10	/* READ: then invalidate @inv_stag */
#define SOFTIW_WQE_DONE		0x80	/* engine finished; awaiting in-order CQE */

struct softiw_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/*
 * One send work request, copied out of the caller's ib_send_wr at post
 * time (so nothing the caller changes later is seen).  Local SGEs are
 * checked against the STag table when the TX engine uses them.
 */
struct softiw_wqe {
	u64 wr_id;
	u8 opcode;		/* enum softiw_wr_opcode */
	u8 flags;		/* SOFTIW_WQE_* */
	u8 num_sge;
	u8 status;		/* enum ib_wc_status once DONE */
	u32 length;		/* total payload (sum of SGEs or inline) */
	u32 rkey;		/* WRITE/READ: remote STag */
	u32 inv_stag;		/* SEND_INV, LOCAL_INV */
	u64 remote_addr;	/* WRITE/READ: remote TO */
	struct ib_mr *reg_mr;	/* REG_MR */
	u32 reg_key;
	int reg_access;
	struct softiw_mw_bind bind;	/* BIND_MW */
	struct softiw_sge sge[SOFTIW_MAX_SGE];
	u8 inline_data[SOFTIW_MAX_INLINE];
};

/* One receive work request (RQ or SRQ). */
struct softiw_rqe {
	u64 wr_id;
	u8 num_sge;
	u8 status;		/* a bad user ring entry: its error status */
	u16 reserved;
	u32 length;		/* sum of SGE lengths */
	struct softiw_sge sge[SOFTIW_MAX_SGE];
};

/*
 * A work queue ring.  Indices are free-running u32; slot = index &
 * (size - 1).  For the SQ: [tail, tx_next) are being transmitted or wait
 * for a Read Response / an earlier entry's completion, [tx_next, head)
 * are not started.  For RQ/SRQ tx_next is unused.
 */
struct softiw_wq {
	spinlock_t lock;		/* see the struct comment */
	u32 size;		/* power of two */
	u32 max_wr;		/* usable depth reported to the caller */
	u32 head;
	u32 tx_next;
	u32 tail;
	void *slots;		/* vmalloc'ed, size entries */
};

/* An inbound RDMA Read Request waiting for the TX engine (RFC 5040 IRD). */
struct softiw_read_req {
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	u32 src_stag;
	u64 src_to;
	u32 done;		/* octets already answered */
};

/* What the CM negotiated; given to the QP on entering RTS. */
struct softiw_conn_params {
	bool initiator;
	bool crc;		/* MPA CRC in both directions */
	bool markers_tx;	/* insert Markers in what we send */
	bool markers_rx;	/* peer inserts Markers: strip them */
	u16 ird;		/* inbound Read Requests we accept */
	u16 ord;		/* outbound Read Requests outstanding */
	u32 mulpdu;		/* from the socket's effective MSS */
	u8 rtr;			/* SOFTIW_MPA_RTR_*: initiator sends / responder expects; 0 none */
};

struct softiw_srq {
	struct ib_srq ibsrq;
	struct softiw_wq rq;	/* of struct softiw_rqe */
	u32 limit;		/* srq_limit; 0 = not armed; rq.lock */
	/* raises IB_EVENT_SRQ_LIMIT_REACHED with no lock held */
	struct work_struct event_work;
	u32 max_sge;
	bool is_user;
	struct softiw_uring ring;	/* user SRQ: the process's ring */
	struct softiw_ucontext *uctx;	/* charged to (rm.c), or NULL */
	/* the fair-share window (srq.c), rq.lock */
	struct softiw_share_win win;
};

/**
 * struct softiw_qp - a queue pair
 * @ibqp: the RDMA core's QP
 * @sdev: device
 * @ref: references from the lookups and iw_add_ref; destroy waits
 *	for @released
 * @state_lock: guards @state and @attrs transitions (mutex-free: spinlock
 *	irqsave, since the RX engine reports errors from softirq)
 * @state: enum softiw_qp_state
 * @sq: send queue of struct softiw_wqe
 * @rq: receive queue of struct softiw_rqe, unused when @srq
 * @srq: shared receive queue or NULL
 * @ird: inbound Read Requests of struct softiw_read_req (@params.ird)
 * @ord_outstanding: Read Requests sent and not yet answered
 * @ord_wait: the TX engine waits for @ord_outstanding to drop (ORD full,
 *	or a fence); the RX engine kicks it when a Read Response returns a
 *	credit.  Both under sq.lock.
 * @params: negotiated connection parameters, fixed once in RTS
 * @cep: connection endpoint from the connect or accept that bound the QP
 *	until its stream is gone (cm.c), else NULL; set only while IDLE
 * @owner: a user QP's process (thread group) that created it, the only
 *	one that may bind it to a connection; NULL for a kernel QP
 * @tx, @rx: engine state (txrx.h)
 * @ib_state: the ib state last set while IDLE (RESET, INIT or RTR)
 * @access: IB_QP_ACCESS_FLAGS: remote rights the QP grants its peer
 * @max_send_sge, @max_recv_sge, @max_inline: the QP's own limits
 * @ord_wish, @ird_wish: IB_QP_MAX_QP_RD_ATOMIC / MAX_DEST_RD_ATOMIC
 * @flush_work: completes every outstanding entry once in ERROR
 *	(softiw_qp_error(), posts in ERROR)
 * @event_work, @events: delivers the asynchronous events pending in
 *	@events (a bit per enum ib_event_type) with no lock held
 * @usq, @urq: a user QP's SQ and RQ rings (uring.h); the kernel copies
 *	their entries into @sq and @rq under the queue's lock
 * @ring_error: the process broke a ring: nothing more is executed from
 *	it, and the QP goes to ERROR once what came before has completed
 * @ring_index_bad: ... by a producer index out of range: nothing more is
 *	even read from it (the flush reads the entries of an in-range ring)
 * @resetting: an ERROR -> RESET is under way (@state_lock); another one
 *	is refused
 */
struct softiw_qp {
	struct ib_qp ibqp;
	struct softiw_device *sdev;
	struct softiw_ucontext *uctx;	/* charged to (rm.c), or NULL */
	struct pid *owner;
	/* unique for the device's life: names the QP a type 2 MW is bound to */
	u64 serial;
	/* this QP's takes in its SRQ's fair-share window (srq.c), rq.lock */
	struct softiw_share_mark srq_mark;
	/* ... and in its receive CQ's (cq.c), the CQ's lock */
	struct softiw_share_mark rcq_mark;
	struct kref ref;
	struct completion released;
	spinlock_t state_lock;	/* guards @state */
	enum softiw_qp_state state;
	struct softiw_pd *pd;
	struct softiw_cq *scq;
	struct softiw_cq *rcq;
	struct softiw_srq *srq;
	bool sq_sig_all;
	bool is_user;
	struct softiw_wq sq;
	struct softiw_wq rq;
	struct softiw_wq ird;
	u32 ord_outstanding;
	bool ord_wait;
	struct softiw_conn_params params;
	struct softiw_cep *cep;
	struct softiw_qp_tx tx;
	struct softiw_qp_rx rx;
	enum ib_qp_state ib_state;
	int access;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	u8 ord_wish;
	u8 ird_wish;
	struct work_struct flush_work;
	struct work_struct event_work;
	unsigned long events;
	struct softiw_uring usq;
	struct softiw_uring urq;
	bool ring_error;
	bool ring_index_bad;
	bool resetting;
};

static inline struct softiw_qp *to_softiw_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct softiw_qp, ibqp);
}

static inline struct softiw_srq *to_softiw_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct softiw_srq, ibsrq);
}

static inline void *softiw_wq_slot(struct softiw_wq *wq, u32 idx, size_t sz)
{
	return (u8 *)wq->slots + (size_t)(idx & (wq->size - 1)) * sz;
}

/* qp.c: lookup and references */
/* The QP @qpn with a reference, or NULL; in an RCU read-side section. */
struct softiw_qp *softiw_qp_get_rcu(struct softiw_device *sdev, u32 qpn);
void softiw_qp_ref(struct softiw_qp *qp);
void softiw_qp_put(struct softiw_qp *qp);
/*
 * softiw_qp_get_bindable() - the QP @qpn with a reference, if the calling
 * context may bind it to a connection (iw_connect, iw_accept): a user QP
 * only by the process that created it, a kernel QP only from kernel
 * context or by a caller with CAP_SYS_ADMIN.  NULL otherwise, counted
 * (cm_qp_refused).  Whether it is idle is checked when it is bound.
 */
struct softiw_qp *softiw_qp_get_bindable(struct softiw_device *sdev, u32 qpn);

/* qp.c: state changes the CM and the engines ask for */
/*
 * softiw_qp_rts() - the CM finished MPA: record @p, attach the engines to
 * @sock (softiw_txrx_attach()) and enter RTS.  -EINVAL unless IDLE.
 */
int softiw_qp_rts(struct softiw_qp *qp, const struct softiw_conn_params *p,
		  struct socket *sock);
/*
 * softiw_qp_error() - enter ERROR from any state: detach the engines,
 * flush every outstanding SQ and RQ entry with IB_WC_WR_FLUSH_ERR (SQ in
 * order, after completing what was done), raise @event (e.g.
 * IB_EVENT_QP_FATAL, or -1 for none) and tell the CM to drop the stream.
 * Any context; the flushing itself runs from a work item when called in
 * softirq.
 */
void softiw_qp_error(struct softiw_qp *qp, int event);
/* softiw_qp_terminate() - a protocol error: send the Terminate for @err
 * (a wire-core error number) describing the offending header @hdr, then
 * softiw_qp_error(qp, IB_EVENT_QP_FATAL).
 */
void softiw_qp_terminate(struct softiw_qp *qp, u32 err, const u8 *hdr,
			 u32 hdr_len);
/* The peer closed the stream gracefully (FIN seen) or it was reset. */
void softiw_qp_stream_closed(struct softiw_qp *qp, bool reset);

/* qp.c: work queue helpers for the engines */
/*
 * softiw_sq_next() - the next SQ entry to transmit (advances tx_next) or
 * NULL.  Only the TX engine calls it.  The entry stays valid until it is
 * completed.
 */
struct softiw_wqe *softiw_sq_next(struct softiw_qp *qp);
/*
 * softiw_sq_maybe_more() - a lockless hint: may softiw_sq_next() find an
 * entry (posted, or in a user QP's ring)?  False is final only for the
 * engine itself, which looks again with softiw_sq_next() before it idles.
 */
bool softiw_sq_maybe_more(struct softiw_qp *qp);
/*
 * softiw_sq_done() - the engine is finished with @wqe (TCP accepted the
 * last octet, a Read Response completed it, or it failed with @status).
 * Generates CQEs for every entry from sq.tail that is done, in order.
 */
void softiw_sq_done(struct softiw_qp *qp, struct softiw_wqe *wqe, u8 status);
/*
 * softiw_sq_oldest_read() - the oldest READ entry in [tail, tx_next) not
 * yet done (the one the next Read Response answers), or NULL.
 */
struct softiw_wqe *softiw_sq_oldest_read(struct softiw_qp *qp);
/* softiw_rq_take() - pop the next receive buffer (RQ or SRQ) into @rqe. */
bool softiw_rq_take(struct softiw_qp *qp, struct softiw_rqe *rqe);
/* softiw_rq_done() - complete a receive (byte_len, invalidate info). */
void softiw_rq_done(struct softiw_qp *qp, const struct softiw_rqe *rqe,
		    u8 status, u32 byte_len, bool solicited, u32 inv_stag,
		    bool invalidated);

/* qp.c: helpers shared with srq.c */
/* @user: a process's queue, charged to its memory cgroup */
int softiw_wq_init(struct softiw_wq *wq, u32 depth, size_t entry, bool user);
/* Copy and check a receive WR (SGE count, total length). */
int softiw_rqe_from_wr(struct softiw_rqe *rqe, const struct ib_recv_wr *wr,
		       u32 max_sge);

/* qp.c: the QP verbs, for verbs.c */
int softiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata);
int softiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
int softiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init_attr);
int softiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
/*
 * The SQ doorbell of a user QP (an empty POST_SEND, or the doorbell file
 * of doorbell.c): take what the ring holds and run the TX engine.
 */
void softiw_qp_sq_doorbell(struct softiw_qp *qp);
int softiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int softiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
struct ib_qp *softiw_iw_get_qp(struct ib_device *ibdev, int qpn);
void softiw_iw_add_ref(struct ib_qp *ibqp);
void softiw_iw_rem_ref(struct ib_qp *ibqp);

/* srq.c */
int softiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		      struct ib_udata *udata);
int softiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata);
int softiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int softiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int softiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
bool softiw_srq_take(struct softiw_srq *srq, struct softiw_rqe *rqe,
		     struct softiw_qp *qp);

#endif /* SOFTIW_QP_H */
