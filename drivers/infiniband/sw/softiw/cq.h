/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw completion queues.  Owned by cq.c.
 *
 * A CQ is a ring of struct softiw_cqe (softiw-abi.h).  A kernel CQ's
 * ring is private and its consumer is poll_cq; a user CQ's ring is
 * mapped by the process (uring.h), which polls it without a system call
 * and writes the consumer index itself, so the kernel trusts that index
 * only to decide whether the ring is full.  Producers are the TX engine
 * (workqueue or a poster's system call), the RX engine (softirq) and
 * flushing (process context).  A full CQ never overwrites an unread
 * entry: the new completion is dropped, the CQ is marked in error and
 * IB_EVENT_CQ_ERR is raised once, from @event_work (no softiw lock held,
 * so the handler may poll or post).
 *
 * Locking: softiw_cq.lock (irqsave) guards the ring indices, the notify
 * state and the overflow flag.  The completion handler is called with no
 * CQ lock held and never from inside post_send/post_recv.
 */
#ifndef SOFTIW_CQ_H
#define SOFTIW_CQ_H

#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/softiw-abi.h>

#include "rm.h"
#include "uring.h"

/**
 * struct softiw_cq - a completion queue
 * @ibcq: the RDMA core's CQ; ibcq.cqe is the usable depth
 * @lock: guards everything below
 * @queue: @size entries, @size a power of two > ibcq.cqe
 * @head: next entry to write (producer), free-running
 * @tail: next entry to read (consumer), free-running; for a user CQ
 *	the process's index in @ring is used instead
 * @ring: a user CQ's mapped ring (@queue is its entries), else unused
 * @notify: armed notification: 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 * @overflow: an entry was dropped; the CQ is in error
 * @event_work: raises IB_EVENT_CQ_ERR after an overflow
 * @rq_users: QPs that have this CQ as their receive CQ
 * @win: fair-share window of receive completions (softiw_cq_rq_take())
 */
struct softiw_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* see the struct comment */
	struct softiw_cqe *queue;
	u32 size;
	u32 head;
	u32 tail;
	u32 notify;
	bool overflow;
	struct work_struct event_work;
	atomic_t rq_users;
	struct softiw_share_win win;
	struct softiw_uring ring;
	struct softiw_ucontext *uctx;	/* charged to (rm.c), or NULL */
};

static inline struct softiw_cq *to_softiw_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct softiw_cq, ibcq);
}

/*
 * softiw_cq_push() - add one completion; @solicited marks a receive
 * completion of a message with the Solicited Event flag.  Calls the
 * completion handler if armed.  Returns 0 or -ENOSPC (overflow: dropped,
 * CQ error raised).  Any context.
 */
int softiw_cq_push(struct softiw_cq *cq, const struct softiw_cqe *cqe,
		   bool solicited);

/*
 * softiw_cq_add() - softiw_cq_push() without the upcall: sets *@notify
 * when the caller must call softiw_cq_notify() once it has dropped its
 * own locks (used to complete work requests in order under a queue lock).
 */
int softiw_cq_add(struct softiw_cq *cq, const struct softiw_cqe *cqe,
		  bool solicited, bool *notify);
void softiw_cq_notify(struct softiw_cq *cq);

/*
 * softiw_cq_rq_take() - @qp is about to take a receive buffer for an
 * inbound message, whose completion will go to @cq, its receive CQ.
 * RFC 5042 6.4.3: when QPs share the CQ, a stream that fills it with
 * more than its share is refused (true; counted as cq_flood_refused),
 * so the RX engine terminates that stream before the CQ overflows for
 * everyone.  Any context.
 */
bool softiw_cq_rq_take(struct softiw_cq *cq, struct softiw_qp *qp);

/* cq.c: the CQ verbs, for verbs.c (create_cq has the 6.12 signature) */
int softiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct uverbs_attr_bundle *attrs);
int softiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int softiw_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int softiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* SOFTIW_CQ_H */
