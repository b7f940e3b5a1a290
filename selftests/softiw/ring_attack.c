// SPDX-License-Identifier: GPL-2.0
/*
 * ring_attack: a process that writes garbage into the rings it shares
 * with the kernel (include/uapi/rdma/softiw-abi.h), one case each
 * (kselftest harness, TAP output; run by sec_ring.sh).
 *
 *   ring_attack [harness options]
 *
 * The environment is verbs_env.h's: rdma_cm connections over loopback on
 * sw0.  Each case reaches the provider's rings of a connected QP (the
 * provider's own objects, userspace/softiw.h) and writes into them what
 * a well-behaved provider never would: unknown opcodes and flags, too
 * many SGEs, lengths past the limits, SGEs naming memory the process did
 * not register, producer indices out of range, garbage consumer indices,
 * and entries rewritten while the kernel reads them; and it rings its
 * context's doorbell file for QPs that are not its own.
 *
 * What the kernel must do (uring.c): complete the bad entry with the
 * status the ABI names (LOC_QP_OP_ERR, LOC_LEN_ERR, LOC_PROT_ERR), move
 * the QP to ERROR with IBV_EVENT_QP_FATAL, flush what follows, leave
 * every byte of the peer's memory outside its receive buffers alone, and
 * keep the process's other connection working.  sec_ring.sh checks the
 * guest log for oopses and warnings afterwards.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_verbs.h>

#include "verbs_env.h"
#include "softiw.h"		/* the provider's objects (userspace/) */

#define store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define MSG_LEN		64
#define RECV_OFF	(1u << 20)	/* server receive buffers from here */
#define RECV_LEN	4096

FIXTURE(ring) {
	struct env e;
};

FIXTURE_SETUP(ring)
{
	struct env_opts o = { .nconn = 2 };

	env_open(_metadata, &self->e, &o);
}

FIXTURE_TEARDOWN(ring)
{
	env_close(&self->e);
}

#define CQP(self) ((self)->e.cid[0]->qp)
#define SQP(self) ((self)->e.sid[0]->qp)

/* ---- reaching into the rings ---- */

static struct softiw_sqe *sq_slot(struct ibv_qp *qp, uint32_t idx)
{
	struct softiw_qp *q = to_softiw_qp(qp);

	return softiw_uring_slot(&q->sq, idx, sizeof(struct softiw_sqe));
}

/* A well-formed signaled SEND of MSG_LEN octets from the client buffer. */
static void sqe_send(struct env *e, struct softiw_sqe *s, uint64_t wr_id)
{
	memset(s, 0, sizeof(*s));
	s->wr_id = wr_id;
	s->opcode = SOFTIW_SQE_SEND;
	s->flags = SOFTIW_SQE_F_SIGNALED;
	s->num_sge = 1;
	s->sge[0].addr = (uintptr_t)e->c.buf;
	s->sge[0].length = MSG_LEN;
	s->sge[0].lkey = e->c.mr->lkey;
}

/* Publish the entry at the provider's head, as the provider would. */
static void sq_publish_one(struct ibv_qp *qp)
{
	struct softiw_qp *q = to_softiw_qp(qp);

	q->sq.head++;
	store_release(&q->sq.ctrl->head, q->sq.head);
}

/*
 * The doorbell without the provider: an empty POST_SEND write command
 * on the context's command file, whatever the ring's producer index
 * says (the provider would have repaired it).
 */
static int sq_doorbell_raw(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req;
	struct ib_uverbs_post_send_resp resp;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	return 0;
}

static void post_recvs(struct __test_metadata *_metadata, struct env *e,
		       struct ibv_qp *qp, int n, uint64_t wr_id0)
{
	struct ibv_sge sg;
	int i;

	for (i = 0; i < n; i++) {
		sg = sge_of(&e->s, RECV_OFF + (size_t)i * RECV_LEN, RECV_LEN);
		ASSERT_EQ(0, post_recv1(qp, wr_id0 + i, &sg, 1));
	}
}

/* The next completion on @cq that belongs to @qp; others are counted. */
static void poll_qp(struct __test_metadata *_metadata, struct ibv_cq *cq,
		    struct ibv_qp *qp, struct ibv_wc *wc, int *others)
{
	for (;;) {
		poll_n(_metadata, cq, 1, wc);
		if (wc->qp_num == qp->qp_num)
			return;
		if (others)
			(*others)++;
	}
}

/* Everything @cq holds until it stays quiet; how many. */
static int drain(struct ibv_cq *cq)
{
	long quiet = now_ms() + QUIET_MS;
	struct ibv_wc wc;
	int n = 0;

	while (now_ms() < quiet) {
		if (ibv_poll_cq(cq, 1, &wc) > 0) {
			n++;
			quiet = now_ms() + QUIET_MS;
		} else {
			usleep(2000);
		}
	}
	return n;
}

/* Connection 1 moves a SEND after connection 0 was attacked. */
static void other_conn_works(struct __test_metadata *_metadata, struct env *e)
{
	struct ibv_qp *cqp = e->cid[1]->qp, *sqp = e->sid[1]->qp;
	struct ibv_sge sg = sge_of(&e->s, 0, RECV_LEN);
	struct ibv_wc wc;

	drain(e->c.scq);
	drain(e->s.rcq);
	memset(e->s.buf, FILL, RECV_LEN);
	fill_pat(e->c.buf + 8192, 1000, 7);
	ASSERT_EQ(0, post_recv1(sqp, 900, &sg, 1));
	sg = sge_of(&e->c, 8192, 1000);
	ASSERT_EQ(0, post_op(cqp, IBV_WR_SEND, 901, &sg, 1, IBV_SEND_SIGNALED,
			     0, 0));
	poll_qp(_metadata, e->c.scq, cqp, &wc, NULL);
	check_wc(_metadata, &wc, 901, IBV_WC_SUCCESS, IBV_WC_SEND, cqp);
	poll_qp(_metadata, e->s.rcq, sqp, &wc, NULL);
	check_wc(_metadata, &wc, 900, IBV_WC_SUCCESS, IBV_WC_RECV, sqp);
	ASSERT_EQ(1000, wc.byte_len);
	ASSERT_EQ(-1, diff_mem(e->s.buf, e->c.buf + 8192, 1000));
	ASSERT_EQ(-1, diff_byte(e->s.buf + 1000, RECV_LEN - 1000, FILL));
	ASSERT_EQ(IBV_QPS_RTS, qp_state(cqp));
}

/*
 * The common shape of the SQ entry attacks: a good SEND (wr_id 1), the
 * entry @bad as given (wr_id 2), then a good SEND through the provider
 * (wr_id 3, its doorbell).  1 succeeds, 2 completes with @status, 3 is
 * flushed; the QP is in ERROR with QP_FATAL; the peer received only the
 * first message; connection 1 still works.
 */
static void sq_bad_entry(struct __test_metadata *_metadata, struct env *e,
			 const struct softiw_sqe *bad, enum ibv_wc_status status)
{
	struct ibv_qp *qp = e->cid[0]->qp;
	struct softiw_qp *q = to_softiw_qp(qp);
	struct ibv_async_event ev;
	enum ibv_event_type want;
	struct ibv_sge sg;
	struct ibv_wc wc;

	post_recvs(_metadata, e, e->sid[0]->qp, 4, 100);
	fill_pat(e->c.buf, MSG_LEN, 1);
	sqe_send(e, sq_slot(qp, q->sq.head), 1);
	sq_publish_one(qp);
	*sq_slot(qp, q->sq.head) = *bad;
	sq_slot(qp, q->sq.head)->wr_id = 2;
	sq_publish_one(qp);
	sg = sge_of(&e->c, 0, MSG_LEN);
	ASSERT_EQ(0, post_op(qp, IBV_WR_SEND, 3, &sg, 1, IBV_SEND_SIGNALED,
			     0, 0));

	poll_qp(_metadata, e->c.scq, qp, &wc, NULL);
	check_wc(_metadata, &wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, qp);
	poll_qp(_metadata, e->c.scq, qp, &wc, NULL);
	check_wc(_metadata, &wc, 2, status, 0, qp);
	poll_qp(_metadata, e->c.scq, qp, &wc, NULL);
	check_wc(_metadata, &wc, 3, IBV_WC_WR_FLUSH_ERR, 0, qp);
	wait_qp_err(_metadata, qp, "attacked");
	/* a local protection or bind error is an access error, the rest fatal */
	want = status == IBV_WC_LOC_PROT_ERR || status == IBV_WC_MW_BIND_ERR ?
	       IBV_EVENT_QP_ACCESS_ERR : IBV_EVENT_QP_FATAL;
	ASSERT_TRUE(wait_async(e, want, TMO_MS, &ev)) {
		TH_LOG("no %s", ibv_event_type_str(want));
	}
	ASSERT_EQ(qp, ev.element.qp);

	/* the peer got message 1 and nothing else */
	poll_qp(_metadata, e->s.rcq, e->sid[0]->qp, &wc, NULL);
	check_wc(_metadata, &wc, 100, IBV_WC_SUCCESS, IBV_WC_RECV,
		 e->sid[0]->qp);
	ASSERT_EQ(MSG_LEN, wc.byte_len);
	ASSERT_EQ(-1, diff_mem(e->s.buf + RECV_OFF, e->c.buf, MSG_LEN));
	ASSERT_EQ(-1, diff_byte(e->s.buf + RECV_OFF + MSG_LEN,
				3 * RECV_LEN + RECV_LEN - MSG_LEN, FILL));
	ASSERT_EQ(-1, diff_byte(e->s.buf, RECV_OFF, FILL));
	other_conn_works(_metadata, e);
}

/* ---- SQ entries ---- */

TEST_F(ring, sq_unknown_opcode)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.opcode = 0x7f;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_bind_mw_region_as_window)
{
	struct softiw_sqe s;

	/* a Bind naming a region's STag as the window: not a window */
	sqe_send(&self->e, &s, 0);
	s.opcode = SOFTIW_SQE_BIND_MW;
	s.bind.mw_stag = self->e.c.mr->lkey ^ 1;
	s.bind.mr_lkey = self->e.c.mr->lkey;
	s.bind.addr = (uintptr_t)self->e.c.buf;
	s.bind.length = 4096;
	s.bind.access = IBV_ACCESS_REMOTE_WRITE;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_MW_BIND_ERR);
}

TEST_F(ring, sq_bind_mw_garbage_access)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.opcode = SOFTIW_SQE_BIND_MW;
	s.bind.mw_stag = 0x12345601;
	s.bind.access = 0xffffffffu;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_unknown_flag)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.flags |= 0x80;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_sge_count_garbage)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.num_sge = 255;	/* past the array, let alone the QP's limit */
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_sge_past_array)
{
	struct softiw_sqe s;
	int i;

	/* one more SGE than an entry holds (and than the QP may use) */
	sqe_send(&self->e, &s, 0);
	s.num_sge = SOFTIW_MAX_SGE_ABI + 1;
	for (i = 1; i < SOFTIW_MAX_SGE_ABI; i++)
		s.sge[i] = s.sge[0];
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_read_two_sges)
{
	struct softiw_sqe s;

	/* a Read Response has one Data Sink: two SGEs are refused */
	sqe_send(&self->e, &s, 0);
	s.opcode = SOFTIW_SQE_READ;
	s.rkey = self->e.s.mr->rkey;
	s.remote_addr = (uintptr_t)self->e.s.buf;
	s.num_sge = 2;
	s.sge[1] = s.sge[0];
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, sq_inline_too_long)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.flags |= SOFTIW_SQE_F_INLINE;
	s.num_sge = 0;
	s.inline_len = 0xffffffffu;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_LEN_ERR);
}

TEST_F(ring, sq_inline_with_sges)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.flags |= SOFTIW_SQE_F_INLINE;
	s.inline_len = 16;	/* and num_sge 1 */
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_LEN_ERR);
}

TEST_F(ring, sq_message_too_long)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.num_sge = 2;
	s.sge[0].length = 0x80000000u;
	s.sge[1] = s.sge[0];
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_LEN_ERR);
}

TEST_F(ring, sq_sge_foreign_lkey)
{
	struct softiw_sqe s;

	/* the server end's region: another PD */
	sqe_send(&self->e, &s, 0);
	s.sge[0].addr = (uintptr_t)self->e.s.buf;
	s.sge[0].lkey = self->e.s.mr->lkey;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_PROT_ERR);
}

TEST_F(ring, sq_sge_unregistered_lkey)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.sge[0].lkey = self->e.c.mr->lkey ^ 0x5a5a5a00u;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_PROT_ERR);
}

TEST_F(ring, sq_sge_past_region)
{
	struct softiw_sqe s;

	/* the region's last octet plus one more */
	sqe_send(&self->e, &s, 0);
	s.sge[0].addr = (uintptr_t)self->e.c.buf + BUF_LEN - 1;
	s.sge[0].length = 2;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_PROT_ERR);
}

TEST_F(ring, sq_sge_kernel_address)
{
	struct softiw_sqe s;

	/* our lkey, an address in the kernel's direct map */
	sqe_send(&self->e, &s, 0);
	s.sge[0].addr = 0xffff888000100000ull;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_PROT_ERR);
}

TEST_F(ring, sq_sge_address_wraps)
{
	struct softiw_sqe s;

	sqe_send(&self->e, &s, 0);
	s.sge[0].length = 0x7fffffffu;
	s.sge[0].addr = ~0ull - 16;
	sq_bad_entry(_metadata, &self->e, &s, IBV_WC_LOC_PROT_ERR);
}

/* ---- SQ producer index ---- */

/*
 * The SQ's producer index set to @head_delta past the kernel's own (which
 * is the provider's here), then the doorbell: the QP goes to ERROR with
 * QP_FATAL, nothing is sent, nothing completes successfully.
 */
static void sq_bad_head(struct __test_metadata *_metadata, struct env *e,
			int32_t head_delta)
{
	struct ibv_qp *qp = e->cid[0]->qp;
	struct softiw_qp *q = to_softiw_qp(qp);
	struct ibv_async_event ev;
	struct ibv_wc wc;
	int i, n;

	post_recvs(_metadata, e, e->sid[0]->qp, 2, 100);
	/* the slots hold valid SENDs, so only the index is wrong */
	for (i = 0; i < (int)q->sq.size; i++)
		sqe_send(e, sq_slot(qp, i), 50 + i);
	store_release(&q->sq.ctrl->head, q->sq.head + (uint32_t)head_delta);
	ASSERT_EQ(0, sq_doorbell_raw(qp));
	wait_qp_err(_metadata, qp, "attacked");
	ASSERT_TRUE(wait_async(e, IBV_EVENT_QP_FATAL, TMO_MS, &ev)) {
		TH_LOG("no IBV_EVENT_QP_FATAL");
	}
	ASSERT_EQ(qp, ev.element.qp);
	/* whatever completed, nothing succeeded */
	for (n = 0; ibv_poll_cq(e->c.scq, 1, &wc) > 0; n++) {
		ASSERT_NE(IBV_WC_SUCCESS, wc.status) {
			TH_LOG("wr_id %llu succeeded",
			       (unsigned long long)wc.wr_id);
		}
	}
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
	other_conn_works(_metadata, e);
}

TEST_F(ring, sq_head_past_depth)
{
	sq_bad_head(_metadata, &self->e, SQ_DEPTH + 1);
}

TEST_F(ring, sq_head_far_ahead)
{
	sq_bad_head(_metadata, &self->e, 0x40000000);
}

TEST_F(ring, sq_head_behind)
{
	struct env *e = &self->e;
	struct ibv_sge sg = sge_of(&e->c, 0, MSG_LEN);
	struct ibv_wc wc;

	/* move the kernel's index forward first, then step back behind it */
	post_recvs(_metadata, e, e->sid[0]->qp, 1, 200);
	do_op(_metadata, e, IBV_WR_SEND, 7, &sg, 1, 0, 0, 0);
	poll_qp(_metadata, e->s.rcq, e->sid[0]->qp, &wc, NULL);
	memset(e->s.buf, FILL, BUF_LEN);
	sq_bad_head(_metadata, e, -1);
}

/* ---- receive rings ---- */

/*
 * A bad entry at the head of the server's RQ, then a SEND from the
 * client: the server's QP completes the entry with @status and goes to
 * ERROR with QP_FATAL; no octet of the server's memory changes.
 */
static void rq_bad_entry(struct __test_metadata *_metadata, struct env *e,
			 const struct softiw_rqe_abi *bad,
			 enum ibv_wc_status status)
{
	struct ibv_qp *sqp = e->sid[0]->qp;
	struct softiw_qp *q = to_softiw_qp(sqp);
	struct ibv_async_event ev;
	struct ibv_sge sg = sge_of(&e->c, 0, MSG_LEN);
	struct ibv_wc wc;

	*(struct softiw_rqe_abi *)softiw_uring_slot(&q->rq, q->rq.head,
						     sizeof(*bad)) = *bad;
	q->rq.head++;
	store_release(&q->rq.ctrl->head, q->rq.head);
	fill_pat(e->c.buf, MSG_LEN, 3);
	ASSERT_EQ(0, post_op(e->cid[0]->qp, IBV_WR_SEND, 1, &sg, 1,
			     IBV_SEND_SIGNALED, 0, 0));
	poll_qp(_metadata, e->s.rcq, sqp, &wc, NULL);
	check_wc(_metadata, &wc, 77, status, 0, sqp);
	wait_qp_err(_metadata, sqp, "attacked");
	ASSERT_TRUE(wait_async2(e, IBV_EVENT_QP_FATAL, IBV_EVENT_QP_ACCESS_ERR,
				TMO_MS, &ev)) {
		TH_LOG("no IBV_EVENT_QP_FATAL or QP_ACCESS_ERR");
	}
	ASSERT_EQ(sqp, ev.element.qp);
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
	/* the responder's Terminate (or close) takes the client down too */
	wait_qp_err(_metadata, e->cid[0]->qp, "client");
	other_conn_works(_metadata, e);
}

TEST_F(ring, rq_too_many_sge)
{
	struct softiw_rqe_abi r = { .wr_id = 77, .num_sge = 0x10000 };

	rq_bad_entry(_metadata, &self->e, &r, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, rq_reserved_set)
{
	struct softiw_rqe_abi r = { .wr_id = 77, .num_sge = 1, .reserved = 1 };

	r.sge[0] = (struct softiw_sge_abi){
		.addr = (uintptr_t)self->e.s.buf, .length = RECV_LEN,
		.lkey = self->e.s.mr->lkey,
	};
	rq_bad_entry(_metadata, &self->e, &r, IBV_WC_LOC_QP_OP_ERR);
}

TEST_F(ring, rq_message_too_long)
{
	struct softiw_rqe_abi r = { .wr_id = 77, .num_sge = 2 };

	r.sge[0] = (struct softiw_sge_abi){
		.addr = (uintptr_t)self->e.s.buf, .length = 0x80000000u,
		.lkey = self->e.s.mr->lkey,
	};
	r.sge[1] = r.sge[0];
	rq_bad_entry(_metadata, &self->e, &r, IBV_WC_LOC_LEN_ERR);
}

TEST_F(ring, rq_foreign_lkey)
{
	struct softiw_rqe_abi r = { .wr_id = 77, .num_sge = 1 };

	/* the client end's region: another PD than the server QP's */
	r.sge[0] = (struct softiw_sge_abi){
		.addr = (uintptr_t)self->e.c.buf + 4096, .length = RECV_LEN,
		.lkey = self->e.c.mr->lkey,
	};
	rq_bad_entry(_metadata, &self->e, &r, IBV_WC_LOC_PROT_ERR);
	ASSERT_EQ(-1, diff_byte(self->e.c.buf + 4096, RECV_LEN, FILL));
}

TEST_F(ring, rq_head_out_of_range)
{
	struct env *e = &self->e;
	struct ibv_qp *sqp = e->sid[0]->qp;
	struct softiw_qp *q = to_softiw_qp(sqp);
	struct ibv_sge sg = sge_of(&e->c, 0, MSG_LEN);
	struct ibv_async_event ev;

	store_release(&q->rq.ctrl->head, q->rq.head + 0x7fff0000u);
	ASSERT_EQ(0, post_op(e->cid[0]->qp, IBV_WR_SEND, 1, &sg, 1,
			     IBV_SEND_SIGNALED, 0, 0));
	wait_qp_err(_metadata, sqp, "attacked");
	ASSERT_TRUE(wait_async(e, IBV_EVENT_QP_FATAL, TMO_MS, &ev)) {
		TH_LOG("no IBV_EVENT_QP_FATAL");
	}
	ASSERT_EQ(sqp, ev.element.qp);
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
	wait_qp_err(_metadata, e->cid[0]->qp, "client");
	other_conn_works(_metadata, e);
}

/* An SRQ entry with too many SGEs: the QP that takes it fails. */
TEST(srq_bad_entry)
{
	struct env_opts o = { .srq_wr = 16, .nconn = 1 };
	struct ibv_async_event ev;
	struct softiw_srq *q;
	struct softiw_rqe_abi *r;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct env e;

	env_open(_metadata, &e, &o);
	q = to_softiw_srq(e.srq);
	r = softiw_uring_slot(&q->ring, q->ring.head, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->wr_id = 77;
	r->num_sge = 2;		/* the SRQ has max_sge 1 */
	r->sge[0] = (struct softiw_sge_abi){
		.addr = (uintptr_t)e.s.buf, .length = RECV_LEN,
		.lkey = e.s.mr->lkey,
	};
	r->sge[1] = r->sge[0];
	q->ring.head++;
	store_release(&q->ring.ctrl->head, q->ring.head);
	sg = sge_of(&e.c, 0, MSG_LEN);
	ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_SEND, 1, &sg, 1,
			     IBV_SEND_SIGNALED, 0, 0));
	poll_qp(_metadata, e.s.rcq, e.sid[0]->qp, &wc, NULL);
	check_wc(_metadata, &wc, 77, IBV_WC_LOC_QP_OP_ERR, 0, e.sid[0]->qp);
	wait_qp_err(_metadata, e.sid[0]->qp, "taker");
	ASSERT_TRUE(wait_async(&e, IBV_EVENT_QP_FATAL, TMO_MS, &ev)) {
		TH_LOG("no IBV_EVENT_QP_FATAL");
	}
	ASSERT_EQ(-1, diff_byte(e.s.buf, BUF_LEN, FILL));
	env_close(&e);
}

/* ---- CQ consumer index ---- */

TEST_F(ring, cq_tail_garbage)
{
	struct env *e = &self->e;
	struct softiw_cq *cq = to_softiw_cq(e->c.scq);
	struct ibv_sge sg = sge_of(&e->c, 0, MSG_LEN);
	struct ibv_async_event ev;
	uint32_t head;

	/* a consumer index far past the producer's: the ring looks full */
	post_recvs(_metadata, e, e->sid[0]->qp, 1, 100);
	head = load_acquire(&cq->ring.ctrl->head);
	store_release(&cq->ring.ctrl->tail, head + 0x40000000u);
	ASSERT_EQ(0, post_op(e->cid[0]->qp, IBV_WR_SEND, 1, &sg, 1,
			     IBV_SEND_SIGNALED, 0, 0));
	ASSERT_TRUE(wait_async(e, IBV_EVENT_CQ_ERR, TMO_MS, &ev)) {
		TH_LOG("no IBV_EVENT_CQ_ERR");
	}
	ASSERT_EQ(e->c.scq, ev.element.cq);
	/* nothing was written: the producer index did not move */
	ASSERT_EQ(head, load_acquire(&cq->ring.ctrl->head));
	/* the message itself went through */
	{
		struct ibv_wc wc;

		poll_qp(_metadata, e->s.rcq, e->sid[0]->qp, &wc, NULL);
		check_wc(_metadata, &wc, 100, IBV_WC_SUCCESS, IBV_WC_RECV,
			 e->sid[0]->qp);
	}
}

/* ---- entries rewritten while the kernel reads them ---- */

struct scribbler {
	struct softiw_qp *q;
	volatile bool stop;
	unsigned long writes;
};

static void *scribble(void *arg)
{
	struct scribbler *s = arg;
	uint32_t size = s->q->sq.size;
	unsigned int seed = 12345;

	while (!s->stop) {
		uint8_t *e = softiw_uring_slot(&s->q->sq, rand_r(&seed) % size,
					       sizeof(struct softiw_sqe));
		size_t off = rand_r(&seed) % (sizeof(struct softiw_sqe) - 8);
		uint64_t v = ((uint64_t)rand_r(&seed) << 32) | rand_r(&seed);

		/* often a small value: opcodes, flags and counts near valid */
		if (rand_r(&seed) & 1)
			v &= 0xff;
		memcpy(e + off, &v, sizeof(v));
		s->writes++;
	}
	return NULL;
}

TEST_F(ring, sq_rewritten_while_read)
{
	struct env *e = &self->e;
	struct ibv_qp *qp = e->cid[0]->qp;
	struct scribbler s = { .q = to_softiw_qp(qp) };
	struct ibv_sge sg = sge_of(&e->c, 0, MSG_LEN);
	int posted = 0, done = 0, ok = 0, failed = 0, r;
	long end = now_ms() + 20000;
	struct ibv_wc wc[16];
	pthread_t t;
	int i;

	/* receive buffers at RECV_OFF; all else of the server's stays FILL */
	post_recvs(_metadata, e, e->sid[0]->qp, 32, 1000);
	ASSERT_EQ(0, pthread_create(&t, NULL, scribble, &s));
	while (posted < 32 && now_ms() < end &&
	       qp_state(qp) != IBV_QPS_ERR) {
		r = post_op(qp, IBV_WR_SEND, posted, &sg, 1, IBV_SEND_SIGNALED,
			    0, 0);
		if (!r)
			posted++;
		r = ibv_poll_cq(e->c.scq, 16, wc);
		for (i = 0; i < r; i++) {
			done++;
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else
				failed++;
		}
		usleep(500);
	}
	s.stop = true;
	pthread_join(t, NULL);
	done += drain(e->c.scq);
	TH_LOG("%d posted, %d completions (%d before the end: %d ok, %d failed), %lu rewrites",
	       posted, done, ok + failed, ok, failed, s.writes);
	ASSERT_LT(0, s.writes);
	/* the server's memory outside its receive buffers is untouched */
	ASSERT_EQ(-1, diff_byte(e->s.buf, RECV_OFF, FILL));
	ASSERT_EQ(-1, diff_byte(e->s.buf + RECV_OFF + 32 * RECV_LEN,
				BUF_LEN - RECV_OFF - 32 * RECV_LEN, FILL));
	/* and the receives that completed fit their buffers */
	while (ibv_poll_cq(e->s.rcq, 1, wc) > 0)
		if (wc[0].status == IBV_WC_SUCCESS)
			ASSERT_GE(RECV_LEN, wc[0].byte_len);
	other_conn_works(_metadata, e);
}

/* ---- the doorbell file ---- */

static int doorbell(int fd, unsigned long qpn)
{
	return ioctl(fd, SOFTIW_IOCTL_SQ_DOORBELL, qpn) ? errno : 0;
}

/*
 * The context's doorbell file: close-on-exec, an anonymous inode of its
 * own, and it rings: a SEND placed in the ring without the provider is
 * sent when the file's doorbell names the QP.
 */
TEST_F(ring, doorbell_file_rings)
{
	struct env *e = &self->e;
	struct ibv_qp *qp = CQP(self);
	struct softiw_context *ctx = to_softiw_ctx(qp->context);
	struct softiw_qp *q = to_softiw_qp(qp);
	char path[64], name[128];
	struct ibv_wc wc;
	ssize_t n;

	ASSERT_LE(0, ctx->doorbell_fd);
	ASSERT_EQ(FD_CLOEXEC, fcntl(ctx->doorbell_fd, F_GETFD) & FD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", ctx->doorbell_fd);
	n = readlink(path, name, sizeof(name) - 1);
	ASSERT_LT(0, n);
	name[n] = 0;
	ASSERT_STREQ("anon_inode:[softiw-doorbell]", name);

	post_recvs(_metadata, e, SQP(self), 1, 100);
	fill_pat(e->c.buf, MSG_LEN, 3);
	sqe_send(e, sq_slot(qp, q->sq.head), 1);
	sq_publish_one(qp);
	ASSERT_EQ(0, doorbell(ctx->doorbell_fd, qp->qp_num));
	poll_qp(_metadata, e->c.scq, qp, &wc, NULL);
	check_wc(_metadata, &wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, qp);
	poll_qp(_metadata, e->s.rcq, SQP(self), &wc, NULL);
	check_wc(_metadata, &wc, 100, IBV_WC_SUCCESS, IBV_WC_RECV, SQP(self));
	ASSERT_EQ(MSG_LEN, wc.byte_len);
	ASSERT_EQ(-1, diff_mem(e->s.buf + RECV_OFF, e->c.buf, MSG_LEN));
	ASSERT_EQ(IBV_QPS_RTS, qp_state(qp));
}

/*
 * A doorbell file reaches only the QPs of its own context: a QP of
 * another context of the same process is ENOENT either way, so are
 * unknown numbers; a number past 32 bits is EINVAL, another request
 * ENOTTY.  Once its context is closed, a copy of the file answers
 * ENODEV.  None of it disturbs the QPs.
 */
TEST_F(ring, doorbell_file_confined)
{
	struct env *e = &self->e;
	struct ibv_qp *qp = CQP(self);
	int fd = to_softiw_ctx(qp->context)->doorbell_fd, fd2, fd2_copy;
	struct ibv_qp_init_attr a;
	struct ibv_context *ctx2;
	struct ibv_qp *qp2;
	struct ibv_cq *cq2;
	struct ibv_pd *pd2;
	uint32_t qpn2;

	ctx2 = ibv_open_device(qp->context->device);
	ASSERT_NE(NULL, ctx2);
	fd2 = to_softiw_ctx(ctx2)->doorbell_fd;
	ASSERT_LE(0, fd2);
	ASSERT_NE(fd, fd2);
	pd2 = ibv_alloc_pd(ctx2);
	ASSERT_NE(NULL, pd2);
	cq2 = ibv_create_cq(ctx2, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq2);
	memset(&a, 0, sizeof(a));
	a.send_cq = cq2;
	a.recv_cq = cq2;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 4;
	a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	qp2 = ibv_create_qp(pd2, &a);
	ASSERT_NE(NULL, qp2);
	qpn2 = qp2->qp_num;

	ASSERT_EQ(0, doorbell(fd2, qpn2));
	ASSERT_EQ(ENOENT, doorbell(fd, qpn2));
	ASSERT_EQ(ENOENT, doorbell(fd2, qp->qp_num));
	ASSERT_EQ(ENOENT, doorbell(fd, 0xffffff));
	if (sizeof(unsigned long) > 4)
		ASSERT_EQ(EINVAL, doorbell(fd, qp->qp_num +
					       ((unsigned long)UINT32_MAX + 1)));
	ASSERT_EQ(ENOTTY, ioctl(fd, _IO(SOFTIW_IOCTL_MAGIC, 0x02), 0) ?
			  errno : 0);

	/* a copy outlives the context: it answers, reaching nothing */
	fd2_copy = dup(fd2);
	ASSERT_LE(0, fd2_copy);
	ASSERT_EQ(0, ibv_destroy_qp(qp2));
	ASSERT_EQ(ENOENT, doorbell(fd2_copy, qpn2));
	ASSERT_EQ(0, ibv_destroy_cq(cq2));
	ASSERT_EQ(0, ibv_dealloc_pd(pd2));
	ASSERT_EQ(0, ibv_close_device(ctx2));
	ASSERT_EQ(-1, fcntl(fd2, F_GETFD));	/* closed with its context */
	ASSERT_EQ(ENODEV, doorbell(fd2_copy, qpn2));
	ASSERT_EQ(ENODEV, doorbell(fd2_copy, qp->qp_num));
	ASSERT_EQ(0, close(fd2_copy));

	/* the process's own connections never noticed */
	ASSERT_EQ(IBV_QPS_RTS, qp_state(qp));
	other_conn_works(_metadata, e);
}

TEST_HARNESS_MAIN
