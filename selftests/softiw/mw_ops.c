// SPDX-License-Identifier: GPL-2.0
/*
 * mw_ops: memory windows and revocation on softiw (RFC 5040 2.1, RFC 5042
 * 5.3 and 6.2), one kselftest-harness case each.
 *
 *   mw_ops [harness options]        (run by sec_mw.sh)
 *
 * The set-up is verbs_ops.c's (verbs_env.h): one process, a "client" end
 * and a "server" end with their own PDs, connected over loopback with
 * rdma_cm.  Windows live on the server; the client is the remote peer
 * that uses (or abuses) them.  Every refusal is checked three ways: the
 * error completion, both QPs in ERROR where the RFCs say the stream ends,
 * and the server's memory unchanged outside what was allowed.
 *
 * The revocation cases race a stream of RDMA Writes against Local
 * Invalidate and ibv_dereg_mr(): once the revocation has completed, the
 * memory must not change again, however the race went (RFC 5042 6.2.2).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "verbs_env.h"

#define WIN_OFF		65536u		/* window start in the server buffer */
#define WIN_LEN		8192u
#define RW		(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

FIXTURE(mw) {
	struct env e;
	struct ibv_mr *mr;		/* server buffer, with MW_BIND */
};

static struct ibv_mr *bind_region(struct __test_metadata *_metadata,
				  struct env *e, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(e->s.pd, e->s.buf, BUF_LEN, access);

	ASSERT_NE(NULL, mr) TH_LOG("ibv_reg_mr: %s", strerror(errno));
	return mr;
}

FIXTURE_SETUP(mw)
{
	struct env_opts o = { .nconn = 2 };

	env_open(_metadata, &self->e, &o);
	self->mr = bind_region(_metadata, &self->e, IBV_ACCESS_LOCAL_WRITE |
			       RW | IBV_ACCESS_MW_BIND);
}

FIXTURE_TEARDOWN(mw)
{
	if (self->mr)
		ibv_dereg_mr(self->mr);
	env_close(&self->e);
}

#define CQP(self, k) ((self)->e.cid[k]->qp)
#define SQP(self, k) ((self)->e.sid[k]->qp)
#define WIN_ADDR(self) ((uintptr_t)(self)->e.s.buf + WIN_OFF)

static struct ibv_mw *mw_new(struct __test_metadata *_metadata,
			     struct env *e, enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->s.pd, type);

	ASSERT_NE(NULL, mw) TH_LOG("ibv_alloc_mw: %s", strerror(errno));
	ASSERT_EQ(type, mw->type);
	return mw;
}

/* The bind's completion on @qp's send CQ, with @status. */
static void bind_done(struct __test_metadata *_metadata, struct env *e,
		      struct ibv_qp *qp, uint64_t wr_id,
		      enum ibv_wc_status status)
{
	struct ibv_wc wc;

	poll_n(_metadata, qp->send_cq, 1, &wc);
	check_wc(_metadata, &wc, wr_id, status, IBV_WC_BIND_MW, qp);
}

/* ibv_bind_mw() of type 1 window @mw onto [off, off + len) of @mr. */
static void bind1(struct __test_metadata *_metadata, struct env *e,
		  struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
		  size_t off, size_t len, int access,
		  enum ibv_wc_status status)
{
	struct ibv_mw_bind b = {
		.wr_id = 500,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = len ? mr : NULL,
			.addr = len ? (uintptr_t)e->s.buf + off : 0,
			.length = len,
			.mw_access_flags = access,
		},
	};
	uint32_t old = mw->rkey;

	ASSERT_EQ(0, ibv_bind_mw(qp, mw, &b));
	ASSERT_EQ(old >> 8, mw->rkey >> 8) TH_LOG("the index changed");
	ASSERT_NE(old, mw->rkey) TH_LOG("the key did not change");
	bind_done(_metadata, e, qp, 500, status);
}

/* A Bind work request for type 2 window @mw with the new STag @rkey. */
static int post_bind2(struct ibv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		      struct ibv_mr *mr, uintptr_t addr, size_t len,
		      int access)
{
	struct ibv_send_wr wr = {
		.wr_id = 600,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	return ibv_post_send(qp, &wr, &bad);
}

/* A signaled Local Invalidate of @rkey on @qp. */
static int post_local_inv(struct ibv_qp *qp, uint64_t wr_id, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = rkey,
	}, *bad = NULL;

	return ibv_post_send(qp, &wr, &bad);
}

static void bind2(struct __test_metadata *_metadata, struct env *e,
		  struct ibv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		  struct ibv_mr *mr, size_t off, size_t len, int access,
		  enum ibv_wc_status status)
{
	ASSERT_EQ(0, post_bind2(qp, mw, rkey, mr, (uintptr_t)e->s.buf + off,
				len, access));
	bind_done(_metadata, e, qp, 600, status);
	if (status == IBV_WC_SUCCESS)
		mw->rkey = rkey;
}

/* Client QP @k writes @len pattern octets to @raddr through @rkey: OK. */
static void write_ok(struct __test_metadata *_metadata, struct env *e, int k,
		     uint64_t raddr, uint32_t rkey, uint32_t len,
		     unsigned int seed)
{
	struct ibv_sge l = sge_of(&e->c, 0, len);
	struct ibv_wc wc;

	fill_pat(e->c.buf, len, seed);
	ASSERT_EQ(0, post_op(e->cid[k]->qp, IBV_WR_RDMA_WRITE, 10 + k, &l, 1,
			     IBV_SEND_SIGNALED, raddr, rkey));
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, 10 + k, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		 e->cid[k]->qp);
	/* a READ behind it proves the WRITE was placed (RFC 5040 ordering) */
	l = sge_of(&e->c, BUF_LEN / 2, 4);
	ASSERT_EQ(0, post_op(e->cid[k]->qp, IBV_WR_RDMA_READ, 20 + k, &l, 1,
			     IBV_SEND_SIGNALED, (uintptr_t)e->s.buf,
			     e->s.mr->rkey));
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, 20 + k, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
		 e->cid[k]->qp);
}

/*
 * Client QP @k tries @op of @len octets at @raddr through @rkey: the
 * operation (or, for a WRITE, which completes when sent, the READ behind
 * it) fails and both QPs of that connection end in ERROR.
 */
static void access_refused(struct __test_metadata *_metadata, struct env *e,
			   int k, enum ibv_wr_opcode op, uint64_t raddr,
			   uint32_t rkey, uint32_t len)
{
	struct ibv_sge l = sge_of(&e->c, 0, len);
	struct ibv_wc wc[2];
	int n = 1, i, errs = 0;

	fill_pat(e->c.buf, len, 77);
	ASSERT_EQ(0, post_op(e->cid[k]->qp, op, 1, &l, 1, IBV_SEND_SIGNALED,
			     raddr, rkey));
	if (op == IBV_WR_RDMA_WRITE) {
		struct ibv_sge l2 = sge_of(&e->c, BUF_LEN / 2, 16);

		ASSERT_EQ(0, post_op(e->cid[k]->qp, IBV_WR_RDMA_READ, 2, &l2,
				     1, IBV_SEND_SIGNALED,
				     (uintptr_t)e->s.buf, e->s.mr->rkey));
		n = 2;
	}
	poll_n(_metadata, e->c.scq, n, wc);
	for (i = 0; i < n; i++)
		errs += wc[i].status != IBV_WC_SUCCESS;
	ASSERT_LT(0, errs) TH_LOG("the access was not refused");
	if (op == IBV_WR_RDMA_READ)
		ASSERT_EQ(IBV_WC_REM_ACCESS_ERR, wc[0].status) {
			TH_LOG("READ: %s", ibv_wc_status_str(wc[0].status));
		}
	wait_qp_err(_metadata, e->cid[k]->qp, "requester");
	wait_qp_err(_metadata, e->sid[k]->qp, "responder");
}

/* The server buffer holds FILL everywhere except [off, off + len). */
static void only_changed(struct __test_metadata *_metadata, struct env *e,
			 size_t off, size_t len)
{
	ASSERT_EQ(-1, diff_byte(e->s.buf, off, FILL)) {
		TH_LOG("server memory changed below the window");
	}
	ASSERT_EQ(-1, diff_byte(e->s.buf + off + len, BUF_LEN - off - len,
				FILL)) {
		TH_LOG("server memory changed above the window");
	}
}

/* ---- type 1 windows (PD scope, ibv_bind_mw) ---- */

TEST_F(mw, type1_write_read)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_sge l = sge_of(&e->c, 8192, WIN_LEN);

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	/* PD scope: usable from both connections of the server's PD */
	write_ok(_metadata, e, 0, WIN_ADDR(self), mw->rkey, WIN_LEN, 3);
	ASSERT_EQ(-1, diff_mem(e->s.buf + WIN_OFF, e->c.buf, WIN_LEN));
	write_ok(_metadata, e, 1, WIN_ADDR(self) + 100, mw->rkey, 50, 4);
	ASSERT_EQ(-1, diff_mem(e->s.buf + WIN_OFF + 100, e->c.buf, 50));
	only_changed(_metadata, e, WIN_OFF, WIN_LEN);
	do_op(_metadata, e, IBV_WR_RDMA_READ, 30, &l, 1, 0, WIN_ADDR(self),
	      mw->rkey);
	ASSERT_EQ(-1, diff_mem(e->c.buf + 8192, e->s.buf + WIN_OFF, WIN_LEN));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type1_write_past_window)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	/* the region goes on; the window does not */
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE,
		       WIN_ADDR(self) + WIN_LEN - 16, mw->rkey, 17);
	access_refused(_metadata, e, 1, IBV_WR_RDMA_READ,
		       WIN_ADDR(self) - 1, mw->rkey, 16);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type1_rebind_kills_old_stag)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);
	uint32_t old;

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	old = mw->rkey;
	bind1(_metadata, e, SQP(self, 0), mw, self->mr, 2 * WIN_OFF, WIN_LEN,
	      RW, IBV_WC_SUCCESS);
	write_ok(_metadata, e, 1, (uintptr_t)e->s.buf + 2 * WIN_OFF, mw->rkey,
		 64, 5);
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self), old,
		       64);
	only_changed(_metadata, e, 2 * WIN_OFF, 64);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type1_unbind)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	bind1(_metadata, e, SQP(self, 0), mw, NULL, 0, 0, 0, IBV_WC_SUCCESS);
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type1_read_only_window)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_sge l = sge_of(&e->c, 8192, 64);

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN,
	      IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS);
	do_op(_metadata, e, IBV_WR_RDMA_READ, 30, &l, 1, 0, WIN_ADDR(self),
	      mw->rkey);
	ASSERT_EQ(-1, diff_byte(e->c.buf + 8192, 64, FILL));
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type1_not_invalidated)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_wc wc;

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	/* type 1 windows go by a bind, never by an invalidation */
	ASSERT_EQ(0, post_local_inv(SQP(self, 0), 40, mw->rkey));
	poll_n(_metadata, e->s.scq, 1, &wc);
	check_wc(_metadata, &wc, 40, IBV_WC_LOC_PROT_ERR, 0, SQP(self, 0));
	write_ok(_metadata, e, 1, WIN_ADDR(self), mw->rkey, 64, 6);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

/* ---- binds the resource manager refuses ---- */

TEST_F(mw, bind_needs_mw_bind_right)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	/* e->s.mr has every right but MW_BIND */
	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey),
	      e->s.mr, WIN_OFF, WIN_LEN, RW, IBV_WC_MW_BIND_ERR);
	wait_qp_err(_metadata, SQP(self, 0), "binder");
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, bind_from_other_pd)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);

	/* a QP of the client's PD binding the server's window */
	bind1(_metadata, e, CQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_MW_BIND_ERR);
	wait_qp_err(_metadata, CQP(self, 0), "binder");
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, bind_past_region)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, BUF_LEN - 4096, 8192, RW, IBV_WC_MW_BIND_ERR);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, bind_write_on_read_only_region)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);
	struct ibv_mr *ro = bind_region(_metadata, e, IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_MW_BIND);

	/* a remotely writable window needs a locally writable region */
	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey), ro,
	      WIN_OFF, WIN_LEN, RW, IBV_WC_MW_BIND_ERR);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
	ASSERT_EQ(0, ibv_dereg_mr(ro));
}

TEST_F(mw, bind_same_key)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	/* the STag of the unbound window must not come back as it was */
	bind2(_metadata, e, SQP(self, 0), mw, mw->rkey, self->mr, WIN_OFF,
	      WIN_LEN, RW, IBV_WC_MW_BIND_ERR);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, bind_type2_twice)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	/*
	 * Bound type 2 windows must be invalidated before a new bind, from
	 * whichever QP of the PD it comes.  QP 1 ends in ERROR for it.
	 */
	bind2(_metadata, e, SQP(self, 1), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, 2 * WIN_OFF, WIN_LEN, RW, IBV_WC_MW_BIND_ERR);
	wait_qp_err(_metadata, SQP(self, 1), "second binder");
	/* the first binding stands */
	write_ok(_metadata, e, 0, WIN_ADDR(self), mw->rkey, 64, 7);
	ASSERT_EQ(-1, diff_mem(e->s.buf + WIN_OFF, e->c.buf, 64));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, bind_rejected_at_post)
{
	struct env *e = &self->e;
	struct ibv_mw *mw1 = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = mw_new(_metadata, e, IBV_MW_TYPE_2);

	/* type 1 windows are bound with ibv_bind_mw() only */
	ASSERT_EQ(EINVAL, post_bind2(SQP(self, 0), mw1, ibv_inc_rkey(mw1->rkey),
				     self->mr, WIN_ADDR(self), WIN_LEN, RW));
	/* the new STag must name the same window */
	ASSERT_EQ(EINVAL, post_bind2(SQP(self, 0), mw2, mw2->rkey + 0x100,
				     self->mr, WIN_ADDR(self), WIN_LEN, RW));
	/* windows carry remote rights only */
	ASSERT_EQ(EINVAL, post_bind2(SQP(self, 0), mw2, ibv_inc_rkey(mw2->rkey),
				     self->mr, WIN_ADDR(self), WIN_LEN,
				     IBV_ACCESS_LOCAL_WRITE | RW));
	poll_none(_metadata, e->s.scq);
	ASSERT_EQ(IBV_QPS_RTS, qp_state(SQP(self, 0)));
	ASSERT_EQ(0, ibv_dealloc_mw(mw1));
	ASSERT_EQ(0, ibv_dealloc_mw(mw2));
}

/* ---- type 2 windows (QP scope, Bind work request) ---- */

TEST_F(mw, type2_wrong_qp)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	/* bound to server QP 1: connection 1 may use it, connection 0 not */
	bind2(_metadata, e, SQP(self, 1), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	write_ok(_metadata, e, 1, WIN_ADDR(self), mw->rkey, 64, 8);
	ASSERT_EQ(-1, diff_mem(e->s.buf + WIN_OFF, e->c.buf, 64));
	memset(e->s.buf + WIN_OFF, FILL, 64);
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(IBV_QPS_RTS, qp_state(SQP(self, 1)));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type2_local_invalidate)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);
	struct ibv_wc wc;

	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	ASSERT_EQ(0, post_local_inv(SQP(self, 0), 41, mw->rkey));
	poll_n(_metadata, e->s.scq, 1, &wc);
	check_wc(_metadata, &wc, 41, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV,
		 SQP(self, 0));
	/* write after invalidation */
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

/*
 * Client QP 0 sends a 32-octet Send with Invalidate of @rkey into a
 * 256-octet receive on server QP 0; returns the receive's completion.
 */
static void send_inv(struct __test_metadata *_metadata, struct env *e,
		     uint32_t rkey, struct ibv_wc *rwc)
{
	struct ibv_sge r = sge_of(&e->s, 0, 256), s = sge_of(&e->c, 0, 32);
	struct ibv_send_wr wr = {
		.wr_id = 42, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	ASSERT_EQ(0, post_recv1(e->sid[0]->qp, 90, &r, 1));
	wr.invalidate_rkey = rkey;
	fill_pat(e->c.buf, 32, 9);
	ASSERT_EQ(0, ibv_post_send(e->cid[0]->qp, &wr, &bad));
	poll_n(_metadata, e->c.scq, 1, &wc);
	ASSERT_EQ(42, wc.wr_id);
	poll_n(_metadata, e->s.rcq, 1, rwc);
	ASSERT_EQ(90, rwc->wr_id);
	memset(e->s.buf, FILL, 256);
}

TEST_F(mw, type2_send_with_invalidate)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);
	struct ibv_wc wc;

	bind2(_metadata, e, SQP(self, 0), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	send_inv(_metadata, e, mw->rkey, &wc);
	check_wc(_metadata, &wc, 90, IBV_WC_SUCCESS, IBV_WC_RECV, SQP(self, 0));
	ASSERT_EQ(32, wc.byte_len);
	ASSERT_EQ(IBV_WC_WITH_INV, wc.wc_flags & IBV_WC_WITH_INV);
	ASSERT_EQ(mw->rkey, wc.invalidated_rkey);
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, type2_invalidate_from_wrong_qp)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);
	struct ibv_wc wc;

	bind2(_metadata, e, SQP(self, 1), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	/* connection 0's peer may not revoke connection 1's window */
	send_inv(_metadata, e, mw->rkey, &wc);
	ASSERT_NE(IBV_WC_SUCCESS, wc.status);
	wait_qp_err(_metadata, SQP(self, 0), "responder");
	write_ok(_metadata, e, 1, WIN_ADDR(self), mw->rkey, 64, 10);
	ASSERT_EQ(-1, diff_mem(e->s.buf + WIN_OFF, e->c.buf, 64));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(mw, window_is_no_lkey)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_sge s = { .addr = WIN_ADDR(self), .length = 64 };
	struct ibv_wc wc;

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	s.lkey = mw->rkey;
	ASSERT_EQ(0, post_op(SQP(self, 0), IBV_WR_SEND, 44, &s, 1,
			     IBV_SEND_SIGNALED, 0, 0));
	poll_n(_metadata, e->s.scq, 1, &wc);
	check_wc(_metadata, &wc, 44, IBV_WC_LOC_PROT_ERR, 0, SQP(self, 0));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
}

/* ---- windows and their region ---- */

TEST_F(mw, dereg_refused_while_bound)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_1);

	bind1(_metadata, e, SQP(self, 0), mw, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	ASSERT_EQ(EBUSY, ibv_dereg_mr(self->mr));
	/* the region is untouched by the refusal */
	write_ok(_metadata, e, 0, WIN_ADDR(self), mw->rkey, 64, 11);
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
	ASSERT_EQ(0, ibv_dereg_mr(self->mr));
	self->mr = NULL;
}

TEST_F(mw, type2_outlives_its_qp)
{
	struct env *e = &self->e;
	struct ibv_mw *mw = mw_new(_metadata, e, IBV_MW_TYPE_2);

	bind2(_metadata, e, SQP(self, 1), mw, ibv_inc_rkey(mw->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	/* its QP goes; the window stays bound to it and usable by no QP */
	rdma_destroy_qp(e->sid[1]);
	access_refused(_metadata, e, 0, IBV_WR_RDMA_WRITE, WIN_ADDR(self),
		       mw->rkey, 64);
	only_changed(_metadata, e, 0, 0);
	ASSERT_EQ(EBUSY, ibv_dereg_mr(self->mr));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));
	ASSERT_EQ(0, ibv_dereg_mr(self->mr));
	self->mr = NULL;
}

TEST_F(mw, exit_with_window_bound)
{
	struct env *e = &self->e;
	struct ibv_mw *mw1 = mw_new(_metadata, e, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = mw_new(_metadata, e, IBV_MW_TYPE_2);

	bind1(_metadata, e, SQP(self, 0), mw1, self->mr, WIN_OFF, WIN_LEN, RW,
	      IBV_WC_SUCCESS);
	bind2(_metadata, e, SQP(self, 1), mw2, ibv_inc_rkey(mw2->rkey),
	      self->mr, WIN_OFF, WIN_LEN, RW, IBV_WC_SUCCESS);
	/*
	 * The harness runs each case in a child; this one ends without
	 * freeing anything, so uverbs tears down the MR (refused while
	 * bound), the windows and the rest at exit.  sec_mw.sh checks the
	 * kernel log and that the device is idle afterwards.
	 */
	fflush(NULL);
	_exit(0);
}

/* ---- revocation racing placement (RFC 5042 6.2.2) ---- */

#define RACE_WRITES	60		/* within SQ_DEPTH */
#define RACE_LEN	(256u << 10)
#define RACE_OFF	(1u << 20)	/* target in the server buffer */
#define RACE_SRCS	8		/* distinct source patterns */

/*
 * Stream RACE_WRITES Writes of RACE_LEN to @raddr through @rkey, each
 * from another of RACE_SRCS patterns, so a late one would show.
 */
static void race_writes(struct __test_metadata *_metadata, struct env *e,
			uint64_t raddr, uint32_t rkey)
{
	int i;

	for (i = 0; i < RACE_SRCS; i++)
		fill_pat(e->c.buf + (size_t)i * RACE_LEN, RACE_LEN, 20 + i);
	for (i = 0; i < RACE_WRITES; i++) {
		struct ibv_sge l = sge_of(&e->c,
					  (size_t)(i % RACE_SRCS) * RACE_LEN,
					  RACE_LEN);

		ASSERT_EQ(0, post_op(e->cid[0]->qp, IBV_WR_RDMA_WRITE, 100 + i,
				     &l, 1, 0, raddr, rkey));
	}
}

/*
 * The revoker runs beside the thread that posts the Writes (posting can
 * push the data out at once): it waits for the first octets to land,
 * then revokes.  It reports through @ret, never through the harness.
 */
enum race_kind { RACE_LOCAL_INV, RACE_DEALLOC_MW, RACE_DEREG_MR };

struct race {
	struct env *e;
	enum race_kind kind;
	struct ibv_qp *qp;		/* RACE_LOCAL_INV: the window's QP */
	struct ibv_mw *mw;
	struct ibv_mr *mr;
	int ret;			/* 0, or what went wrong */
	const char *what;
};

static void *race_revoker(void *arg)
{
	struct race *r = arg;
	const uint8_t *p = r->e->s.buf + RACE_OFF;
	long end = now_ms() + TMO_MS;
	struct ibv_wc wc;
	int n;

	while (diff_byte(p, 64, FILL) < 0) {
		if (now_ms() > end) {
			r->what = "no Write arrived";
			r->ret = ETIMEDOUT;
			return NULL;
		}
		__sync_synchronize();
	}
	switch (r->kind) {
	case RACE_LOCAL_INV:
		r->what = "ibv_post_send(LOCAL_INV)";
		r->ret = post_local_inv(r->qp, 45, r->mw->rkey);
		while (!r->ret && !(n = ibv_poll_cq(r->e->s.scq, 1, &wc))) {
			if (now_ms() > end)
				r->ret = ETIMEDOUT;
		}
		if (!r->ret && (n < 0 || wc.status != IBV_WC_SUCCESS ||
				wc.wr_id != 45)) {
			r->what = "LOCAL_INV completion";
			r->ret = EIO;
		}
		break;
	case RACE_DEALLOC_MW:
		r->what = "ibv_dealloc_mw";
		r->ret = ibv_dealloc_mw(r->mw);
		break;
	case RACE_DEREG_MR:
		r->what = "ibv_dereg_mr";
		r->ret = ibv_dereg_mr(r->mr);
		break;
	}
	return NULL;
}

static void race_run(struct __test_metadata *_metadata, struct race *r,
		     uint32_t rkey)
{
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, race_revoker, r));
	race_writes(_metadata, r->e, (uintptr_t)r->e->s.buf + RACE_OFF, rkey);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, r->ret) TH_LOG("%s: %s", r->what, strerror(r->ret));
}

/* After a completed revocation the target stays as it was. */
static void race_settled(struct __test_metadata *_metadata, struct env *e)
{
	uint8_t *snap = malloc(RACE_LEN);
	const uint8_t *last = e->c.buf +
			      (size_t)((RACE_WRITES - 1) % RACE_SRCS) * RACE_LEN;
	long end = now_ms() + 3 * QUIET_MS;
	bool refused;

	ASSERT_NE(NULL, snap);
	memcpy(snap, e->s.buf + RACE_OFF, RACE_LEN);
	while (now_ms() < end)
		usleep(10000);
	ASSERT_EQ(-1, diff_mem(e->s.buf + RACE_OFF, snap, RACE_LEN)) {
		TH_LOG("the target changed after its revocation completed");
	}
	free(snap);
	only_changed(_metadata, e, RACE_OFF, RACE_LEN);
	/* either every Write got in first, or the stream was cut off */
	refused = qp_state(e->cid[0]->qp) == IBV_QPS_ERR;
	if (!refused)
		ASSERT_EQ(-1, diff_mem(e->s.buf + RACE_OFF, last, RACE_LEN)) {
			TH_LOG("not refused, yet the last Write is not there");
		}
	TH_LOG("writes %s", refused ? "refused after the revocation" :
	       "all placed before it");
}

TEST_F(mw, race_invalidate_vs_writes)
{
	struct env *e = &self->e;
	struct race r = {
		.e = e, .kind = RACE_LOCAL_INV, .qp = SQP(self, 0),
		.mw = mw_new(_metadata, e, IBV_MW_TYPE_2),
	};

	bind2(_metadata, e, SQP(self, 0), r.mw, ibv_inc_rkey(r.mw->rkey),
	      self->mr, RACE_OFF, RACE_LEN, RW, IBV_WC_SUCCESS);
	race_run(_metadata, &r, r.mw->rkey);
	race_settled(_metadata, e);
	ASSERT_EQ(0, ibv_dealloc_mw(r.mw));
}

TEST_F(mw, race_dealloc_vs_writes)
{
	struct env *e = &self->e;
	struct race r = {
		.e = e, .kind = RACE_DEALLOC_MW,
		.mw = mw_new(_metadata, e, IBV_MW_TYPE_1),
	};

	bind1(_metadata, e, SQP(self, 0), r.mw, self->mr, RACE_OFF, RACE_LEN,
	      RW, IBV_WC_SUCCESS);
	race_run(_metadata, &r, r.mw->rkey);
	race_settled(_metadata, e);
}

TEST_F(mw, race_dereg_vs_writes)
{
	struct env *e = &self->e;
	struct race r = { .e = e, .kind = RACE_DEREG_MR };

	r.mr = ibv_reg_mr(e->s.pd, e->s.buf + RACE_OFF, RACE_LEN,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, r.mr);
	race_run(_metadata, &r, r.mr->rkey);
	race_settled(_metadata, e);
}

TEST_HARNESS_MAIN
