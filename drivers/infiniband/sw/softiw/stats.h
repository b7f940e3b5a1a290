/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw per-device counters of refused and failed operations: what a
 * remote or local peer attempted and softiw refused (RFC 5042's
 * countermeasures), shown by `rdma statistic show link DEV/1`.  Owned by
 * stats.c; any file counts with softiw_stat_inc().
 *
 * Locking: none; the counters are atomic64_t in struct softiw_device and
 * are read one by one (a snapshot is not atomic as a whole).
 */
#ifndef SOFTIW_STATS_H
#define SOFTIW_STATS_H

#include <linux/atomic.h>
#include <rdma/ib_verbs.h>

enum softiw_stat {
	SOFTIW_STAT_TERM_SENT,		/* Terminates sent, for any error */
	SOFTIW_STAT_TERM_RECEIVED,	/* Terminates received */
	SOFTIW_STAT_REMOTE_ACCESS,	/* tagged / RDMAP protection errors */
	SOFTIW_STAT_REMOTE_INVALID,	/* untagged DDP / RDMAP operation errors */
	SOFTIW_STAT_LLP_ERRORS,		/* MPA: CRC, FPDU length, Markers */
	SOFTIW_STAT_CRC_ERRORS,		/* MPA CRC mismatches (also LLP) */
	SOFTIW_STAT_MPA_TIMEOUTS,	/* connection attempts timed out */
	SOFTIW_STAT_MPA_REJECTS,	/* malformed or refused MPA frames */
	SOFTIW_STAT_RES_REFUSED,	/* allocations over a limit (rm.c) */
	SOFTIW_STAT_SRQ_FLOOD,		/* streams cut off for flooding an SRQ */
	SOFTIW_STAT_MW_BIND_REFUSED,	/* Bind Memory Window requests refused */
	SOFTIW_STAT_CQ_FLOOD,		/* streams cut off for flooding a CQ */
	SOFTIW_STAT_CM_QP_REFUSED,	/* connect/accept named a QP not the caller's */
	SOFTIW_STAT_CM_QP_BUSY,		/* ... a QP not idle or already bound */
	SOFTIW_STAT_CM_PENDING_DROPPED,	/* connections dropped before MPA: bound */
	SOFTIW_STAT_TX_SPLICED,		/* TX batches spliced into TCP */
	SOFTIW_STAT_TX_COPIED,		/* TX batches TCP copied (no page) */
	SOFTIW_STAT_TX_ZEROCOPY,	/* TX batches with user pages (zero-copy) */
	SOFTIW_STAT_TX_RUN_WORKER,	/* TX engine runs in the workqueue */
	SOFTIW_STAT_TX_PAGE_ALLOC,	/* batch pages allocated (both busy) */
	SOFTIW_NR_STATS
};

struct softiw_device;

void softiw_stat_inc(struct softiw_device *sdev, enum softiw_stat s);
/* Count a Terminate sent with this layer and error type. */
void softiw_stat_term(struct softiw_device *sdev, u8 layer, u8 etype);

extern const struct ib_device_ops softiw_stats_ops;

#endif /* SOFTIW_STATS_H */
