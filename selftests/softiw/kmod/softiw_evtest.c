// SPDX-License-Identifier: GPL-2.0
/*
 * softiw_evtest: a kernel consumer whose asynchronous event handler polls
 * the CQ and posts to the QP (dp_events.sh).  An RNIC that raised the
 * event with one of its own locks held (the QP's receive queue lock, say)
 * would deadlock here.  The test runs at load and load fails unless it
 * passes:
 *
 *   insmod softiw_evtest.ko dev=sw0
 *
 * A QP with a one-entry CQ gets three receives and is moved to ERROR:
 * the flushed receives overflow the CQ, the device raises
 * IB_EVENT_CQ_ERR, and the handler must be able to poll the entry that
 * fit and post one more receive (flushed in turn) from there.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

static char *dev = "sw0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");

static struct {
	struct completion done;
	struct ib_qp *qp;
	int events, polled, post_ret, other;
} t;

static void cq_event(struct ib_event *ev, void *ctx)
{
	struct ib_recv_wr wr = { .wr_id = 99 };
	const struct ib_recv_wr *bad;
	struct ib_wc wc[4];

	if (ev->event != IB_EVENT_CQ_ERR) {
		t.other++;
		return;
	}
	t.events++;
	t.polled = ib_poll_cq(ev->element.cq, 4, wc);
	t.post_ret = ib_post_recv(t.qp, &wr, &bad);
	complete(&t.done);
}

static void qp_event(struct ib_event *ev, void *ctx)
{
	t.other++;
}

static int modify(struct ib_qp *qp, enum ib_qp_state st)
{
	struct ib_qp_attr a = { .qp_state = st };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

static int evtest(struct ib_device *ibdev)
{
	struct ib_cq_init_attr ca = { .cqe = 1 };
	struct ib_qp_init_attr qa = {
		.event_handler = qp_event,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_pd *pd;
	struct ib_cq *cq;
	int i, ret;

	init_completion(&t.done);
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	cq = ib_create_cq(ibdev, NULL, cq_event, NULL, &ca);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_pd;
	}
	qa.send_cq = cq;
	qa.recv_cq = cq;
	t.qp = ib_create_qp(pd, &qa);
	if (IS_ERR(t.qp)) {
		ret = PTR_ERR(t.qp);
		goto out_cq;
	}
	ret = modify(t.qp, IB_QPS_INIT);
	for (i = 0; !ret && i < 3; i++) {
		wr.wr_id = i;
		ret = ib_post_recv(t.qp, &wr, &bad);
	}
	if (!ret)
		ret = modify(t.qp, IB_QPS_ERR);
	if (ret) {
		pr_err("softiw_evtest: setup failed: %d\n", ret);
		goto out_qp;
	}
	if (!wait_for_completion_timeout(&t.done, 10 * HZ)) {
		pr_err("softiw_evtest: no IB_EVENT_CQ_ERR within 10 s\n");
		ret = -ETIMEDOUT;
		goto out_qp;
	}
	pr_info("softiw_evtest: CQ_ERR: handler polled %d, post_recv %d, other events %d\n",
		t.polled, t.post_ret, t.other);
	if (t.polled != 1 || t.post_ret || t.other)
		ret = -EIO;
out_qp:
	ib_destroy_qp(t.qp);
out_cq:
	ib_destroy_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
	if (!ret && t.events != 1) {
		pr_err("softiw_evtest: %d CQ_ERR events, want 1\n", t.events);
		ret = -EIO;
	}
	return ret;
}

static int __init evtest_init(void)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev,
							RDMA_DRIVER_UNKNOWN);
	int ret;

	if (!ibdev) {
		pr_err("softiw_evtest: no RDMA device %s\n", dev);
		return -ENODEV;
	}
	ret = evtest(ibdev);
	ib_device_put(ibdev);
	pr_info("softiw_evtest: %s\n", ret ? "FAILED" : "passed");
	return ret;
}

static void __exit evtest_exit(void)
{
}

module_init(evtest_init);
module_exit(evtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softiw selftest: async event handler that polls and posts");
