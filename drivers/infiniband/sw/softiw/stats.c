// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw per-device counters (stats.h): the rdma netlink hw counters of
 * port 1, so `rdma statistic show link sw0/1` lists what softiw refused.
 *
 * Locking: atomic64_t counters, no lock; ib_core serialises the reads.
 */
#include <rdma/ib_verbs.h>

#include "softiw.h"
#include "rdmap.h"
#include "stats.h"

static const struct rdma_stat_desc softiw_stat_descs[SOFTIW_NR_STATS] = {
	[SOFTIW_STAT_TERM_SENT] = { .name = "terminate_sent" },
	[SOFTIW_STAT_TERM_RECEIVED] = { .name = "terminate_received" },
	[SOFTIW_STAT_REMOTE_ACCESS] = { .name = "remote_access_errors" },
	[SOFTIW_STAT_REMOTE_INVALID] = { .name = "remote_invalid_requests" },
	[SOFTIW_STAT_LLP_ERRORS] = { .name = "llp_errors" },
	[SOFTIW_STAT_CRC_ERRORS] = { .name = "mpa_crc_errors" },
	[SOFTIW_STAT_MPA_TIMEOUTS] = { .name = "mpa_timeouts" },
	[SOFTIW_STAT_MPA_REJECTS] = { .name = "mpa_rejects" },
	[SOFTIW_STAT_RES_REFUSED] = { .name = "res_refused" },
	[SOFTIW_STAT_SRQ_FLOOD] = { .name = "srq_flood_refused" },
	[SOFTIW_STAT_MW_BIND_REFUSED] = { .name = "mw_bind_refused" },
	[SOFTIW_STAT_CQ_FLOOD] = { .name = "cq_flood_refused" },
	[SOFTIW_STAT_CM_QP_REFUSED] = { .name = "cm_qp_refused" },
	[SOFTIW_STAT_CM_QP_BUSY] = { .name = "cm_qp_busy" },
	[SOFTIW_STAT_CM_PENDING_DROPPED] = { .name = "cm_pending_dropped" },
	[SOFTIW_STAT_TX_SPLICED] = { .name = "tx_batches_spliced" },
	[SOFTIW_STAT_TX_COPIED] = { .name = "tx_batches_copied" },
	[SOFTIW_STAT_TX_ZEROCOPY] = { .name = "tx_batches_zerocopy" },
	[SOFTIW_STAT_TX_RUN_WORKER] = { .name = "tx_runs_worker" },
	[SOFTIW_STAT_TX_PAGE_ALLOC] = { .name = "tx_batch_pages_allocated" },
};

void softiw_stat_inc(struct softiw_device *sdev, enum softiw_stat s)
{
	atomic64_inc(&sdev->stats[s]);
}

void softiw_stat_term(struct softiw_device *sdev, u8 layer, u8 etype)
{
	softiw_stat_inc(sdev, SOFTIW_STAT_TERM_SENT);
	switch (layer) {
	case SOFTIW_LAYER_RDMAP:
		/* RFC 5040 7.4.1: error type 0 local, 1 remote protection */
		softiw_stat_inc(sdev, etype == 1 ? SOFTIW_STAT_REMOTE_ACCESS :
						   SOFTIW_STAT_REMOTE_INVALID);
		break;
	case SOFTIW_LAYER_DDP:
		/* RFC 5041 7.2: 1 tagged buffer error, 2 untagged */
		softiw_stat_inc(sdev, etype == 1 ? SOFTIW_STAT_REMOTE_ACCESS :
						   SOFTIW_STAT_REMOTE_INVALID);
		break;
	default:
		softiw_stat_inc(sdev, SOFTIW_STAT_LLP_ERRORS);
		break;
	}
}

static struct rdma_hw_stats *softiw_alloc_hw_port_stats(struct ib_device *ibdev,
							u32 port)
{
	return rdma_alloc_hw_stats_struct(softiw_stat_descs, SOFTIW_NR_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int softiw_get_hw_stats(struct ib_device *ibdev,
			       struct rdma_hw_stats *stats, u32 port, int index)
{
	struct softiw_device *sdev = to_softiw_dev(ibdev);
	int i;

	for (i = 0; i < SOFTIW_NR_STATS; i++)
		stats->value[i] = atomic64_read(&sdev->stats[i]);
	return SOFTIW_NR_STATS;
}

const struct ib_device_ops softiw_stats_ops = {
	.alloc_hw_port_stats = softiw_alloc_hw_port_stats,
	.get_hw_stats = softiw_get_hw_stats,
};
