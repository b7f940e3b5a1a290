// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_ops: the semantics of the individual verbs on softiw, one test
 * case each (kselftest harness, TAP output).
 *
 *   verbs_ops [harness options]        (run by dp_verbs.sh)
 *
 * Every case builds its own rdma_cm RC connection over loopback in one
 * process: a listener and a connector on the softiw device that owns
 * VERBS_ADDR (default 10.78.0.1, sw0 in ns0 of dp_lib.sh), both on one
 * event channel.  The "client" end posts the operations under test, the
 * "server" end is the responder.  Each end has its own PD, send and
 * receive CQs (each with a completion channel) and one 4 MiB buffer
 * registered with every right; guard octets around whatever a transfer
 * must touch are checked to be untouched.
 *
 * Assertions are on data, completions (status, opcode, byte_len, wr_id,
 * wc_flags, qp_num), errno values, QP states and async events.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "verbs_env.h"

/* ---- the fixture: one connection, default options ---- */

FIXTURE(conn) {
	struct env e;
};

FIXTURE_SETUP(conn)
{
	env_open(_metadata, &self->e, NULL);
}

FIXTURE_TEARDOWN(conn)
{
	env_close(&self->e);
}

#define CQP(self) ((self)->e.cid[0]->qp)
#define SQP(self) ((self)->e.sid[0]->qp)

/* ---- SEND / RECV ---- */

TEST_F(conn, send_recv_one_sge)
{
	struct env *e = &self->e;
	struct ibv_sge r = sge_of(&e->s, 8192, 4096);
	struct ibv_sge s = sge_of(&e->c, 100, 1000);

	fill_pat(e->c.buf + 100, 1000, 1);
	ASSERT_EQ(0, post_recv1(SQP(self), 77, &r, 1));
	do_op(_metadata, e, IBV_WR_SEND, 11, &s, 1, 0, 0, 0);
	check_recv(_metadata, e, 77, 1000);
	ASSERT_EQ(-1, diff_mem(e->s.buf + 8192, e->c.buf + 100, 1000));
	ASSERT_EQ(-1, diff_byte(e->s.buf, 8192, FILL));
	ASSERT_EQ(-1, diff_byte(e->s.buf + 9192, BUF_LEN - 9192, FILL)) {
		TH_LOG("receive buffer written beyond byte_len");
	}
}

TEST_F(conn, send_recv_max_sge)
{
	struct env *e = &self->e;
	struct ibv_sge s[16], r[16];
	unsigned int ns = e->cap.max_send_sge, nr = e->cap.max_recv_sge, i;
	size_t soff = 0, roff = 0, total = 0, off;
	uint8_t *want;

	ASSERT_GE(ns, 1u);
	ASSERT_GE(nr, 1u);
	ASSERT_LE(ns, 16u);
	ASSERT_LE(nr, 16u);
	ASSERT_EQ(e->dattr.max_sge, (int)ns);
	/* sender: SGE i is 1000 + 37 i octets at scattered offsets */
	for (i = 0; i < ns; i++) {
		s[i] = sge_of(&e->c, 65536 * (ns - i) + 3 * i, 1000 + 37 * i);
		total += s[i].length;
	}
	want = malloc(total);
	ASSERT_NE(NULL, want);
	for (i = 0; i < ns; i++) {
		fill_pat(e->c.buf + (s[i].addr - (uintptr_t)e->c.buf),
			 s[i].length, 10 + i);
		memcpy(want + soff, (void *)(uintptr_t)s[i].addr, s[i].length);
		soff += s[i].length;
	}
	/* receiver: total split into nr SGEs; the last has room to spare */
	for (i = 0; i < nr; i++) {
		uint32_t len = i + 1 < nr ? total / nr - 5 * i :
				total - roff + 100;

		r[i] = sge_of(&e->s, 1048576 + 32768 * (nr - i) + 5 * i, len);
		roff += len;
	}
	ASSERT_EQ(0, post_recv1(SQP(self), 5, r, nr));
	do_op(_metadata, e, IBV_WR_SEND, 6, s, ns, 0, 0, 0);
	check_recv(_metadata, e, 5, total);
	for (i = 0, off = 0; i < nr; i++) {
		size_t n = i + 1 < nr ? r[i].length : total - off;
		uint8_t *p = e->s.buf + (r[i].addr - (uintptr_t)e->s.buf);

		ASSERT_EQ(-1, diff_mem(p, want + off, n)) TH_LOG("recv SGE %u", i);
		ASSERT_EQ(FILL, p[-1]) TH_LOG("guard before recv SGE %u", i);
		ASSERT_EQ(FILL, p[r[i].length]) TH_LOG("guard after SGE %u", i);
		if (i + 1 == nr)
			ASSERT_EQ(-1, diff_byte(p + n, r[i].length - n, FILL));
		off += n;
	}
	free(want);
}

TEST_F(conn, send_zero_length)
{
	struct env *e = &self->e;
	struct ibv_sge r = sge_of(&e->s, 0, 4096);
	struct ibv_sge z = sge_of(&e->c, 0, 0);

	ASSERT_EQ(0, post_recv1(SQP(self), 1, &r, 1));
	ASSERT_EQ(0, post_recv1(SQP(self), 2, &r, 1));
	do_op(_metadata, e, IBV_WR_SEND, 3, NULL, 0, 0, 0, 0);
	check_recv(_metadata, e, 1, 0);
	do_op(_metadata, e, IBV_WR_SEND, 4, &z, 1, 0, 0, 0);
	check_recv(_metadata, e, 2, 0);
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
}

TEST_F(conn, write_zero_length)
{
	struct env *e = &self->e;

	do_op(_metadata, e, IBV_WR_RDMA_WRITE, 9, NULL, 0, 0,
	      (uintptr_t)e->s.buf + 4096, e->s.mr->rkey);
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
	poll_none(_metadata, e->s.rcq);
}

TEST_F(conn, read_zero_length)
{
	struct env *e = &self->e;

	do_op(_metadata, e, IBV_WR_RDMA_READ, 10, NULL, 0, 0,
	      (uintptr_t)e->s.buf + 4096, e->s.mr->rkey);
	ASSERT_EQ(-1, diff_byte(e->c.buf, BUF_LEN, FILL));
	/* the QP still works */
	fill_pat(e->s.buf, 64, 3);
	{
		struct ibv_sge l = sge_of(&e->c, 0, 64);

		do_op(_metadata, e, IBV_WR_RDMA_READ, 11, &l, 1, 0,
		      (uintptr_t)e->s.buf, e->s.mr->rkey);
	}
	ASSERT_EQ(-1, diff_mem(e->c.buf, e->s.buf, 64));
}

TEST_F(conn, send_inline)
{
	struct env *e = &self->e;
	uint32_t max = e->cap.max_inline_data;
	uint32_t lens[] = { 1, 64, max / 2 + 1, max };
	uint8_t src[1024], want[1024];
	unsigned int i;

	ASSERT_GE(max, 1u) TH_LOG("QP granted no inline data");
	ASSERT_LE(max, sizeof(src));
	for (i = 0; i < 4; i++) {
		struct ibv_sge r = sge_of(&e->s, 65536 * i, 4096);
		/* from unregistered memory: inline needs no lkey */
		struct ibv_sge s = {
			.addr = (uintptr_t)src, .length = lens[i], .lkey = 0,
		};

		fill_pat(src, lens[i], 40 + i);
		memcpy(want, src, lens[i]);
		ASSERT_EQ(0, post_recv1(SQP(self), 100 + i, &r, 1));
		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_SEND, 200 + i, &s, 1,
				     IBV_SEND_INLINE | IBV_SEND_SIGNALED, 0, 0));
		memset(src, 0xff, sizeof(src));	/* inline copied at post */
		check_recv(_metadata, e, 100 + i, lens[i]);
		{
			struct ibv_wc wc;

			poll_n(_metadata, e->c.scq, 1, &wc);
			check_wc(_metadata, &wc, 200 + i, IBV_WC_SUCCESS,
				 IBV_WC_SEND, CQP(self));
		}
		ASSERT_EQ(-1, diff_mem(e->s.buf + 65536 * i, want, lens[i])) {
			TH_LOG("inline send of %u octets", lens[i]);
		}
	}
}

TEST_F(conn, send_unsignaled)
{
	struct env *e = &self->e;
	struct ibv_wc wc[8];
	int i;

	for (i = 0; i < 6; i++) {
		struct ibv_sge r = sge_of(&e->s, 4096 * i, 4096);

		ASSERT_EQ(0, post_recv1(SQP(self), i, &r, 1));
	}
	for (i = 0; i < 6; i++) {
		struct ibv_sge s = sge_of(&e->c, 4096 * i, 100 + i);

		fill_pat(e->c.buf + 4096 * i, 100 + i, i);
		/* only the 3rd and the last are signaled */
		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_SEND, 1000 + i, &s, 1,
				     i == 2 || i == 5 ? IBV_SEND_SIGNALED : 0,
				     0, 0));
	}
	poll_n(_metadata, e->c.scq, 2, wc);
	check_wc(_metadata, &wc[0], 1002, IBV_WC_SUCCESS, IBV_WC_SEND, CQP(self));
	check_wc(_metadata, &wc[1], 1005, IBV_WC_SUCCESS, IBV_WC_SEND, CQP(self));
	poll_n(_metadata, e->s.rcq, 6, wc);
	for (i = 0; i < 6; i++) {
		check_wc(_metadata, &wc[i], i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 SQP(self));
		ASSERT_EQ(100u + i, wc[i].byte_len);
		ASSERT_EQ(-1, diff_mem(e->s.buf + 4096 * i, e->c.buf + 4096 * i,
				       100 + i));
	}
	poll_none(_metadata, e->c.scq);
}

static bool chan_ready(struct ibv_comp_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

static void get_cq_ev(struct __test_metadata *_metadata,
		      struct ibv_comp_channel *ch, struct ibv_cq *want)
{
	struct ibv_cq *cq;
	void *ctx;

	ASSERT_TRUE(chan_ready(ch, TMO_MS)) TH_LOG("no completion event");
	ASSERT_EQ(0, ibv_get_cq_event(ch, &cq, &ctx));
	ASSERT_EQ(want, cq);
	ibv_ack_cq_events(cq, 1);
}

TEST_F(conn, send_solicited_event)
{
	struct env *e = &self->e;
	struct ibv_sge r1 = sge_of(&e->s, 0, 4096), r2 = sge_of(&e->s, 4096, 4096);
	struct ibv_sge s = sge_of(&e->c, 0, 64);
	int fl = fcntl(e->s.rch->fd, F_GETFL);

	ASSERT_EQ(0, fcntl(e->s.rch->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_EQ(0, post_recv1(SQP(self), 1, &r1, 1));
	ASSERT_EQ(0, post_recv1(SQP(self), 2, &r2, 1));
	ASSERT_EQ(0, ibv_req_notify_cq(e->s.rcq, 1));
	/* an unsolicited Send completes without an event */
	do_op(_metadata, e, IBV_WR_SEND, 10, &s, 1, 0, 0, 0);
	check_recv(_metadata, e, 1, 64);
	ASSERT_FALSE(chan_ready(e->s.rch, QUIET_MS)) {
		TH_LOG("event for an unsolicited receive (solicited_only=1)");
	}
	/* a solicited one raises it */
	do_op(_metadata, e, IBV_WR_SEND, 11, &s, 1, IBV_SEND_SOLICITED, 0, 0);
	get_cq_ev(_metadata, e->s.rch, e->s.rcq);
	check_recv(_metadata, e, 2, 64);
}

TEST_F(conn, notify_next_completion)
{
	struct env *e = &self->e;
	struct ibv_sge r = sge_of(&e->s, 0, 4096), s = sge_of(&e->c, 0, 32);

	ASSERT_EQ(0, post_recv1(SQP(self), 1, &r, 1));
	ASSERT_EQ(0, post_recv1(SQP(self), 2, &r, 1));
	ASSERT_EQ(0, ibv_req_notify_cq(e->s.rcq, 0));
	ASSERT_EQ(0, ibv_req_notify_cq(e->c.scq, 0));
	ASSERT_FALSE(chan_ready(e->s.rch, 50));
	do_op(_metadata, e, IBV_WR_SEND, 3, &s, 1, 0, 0, 0);
	get_cq_ev(_metadata, e->c.sch, e->c.scq);
	get_cq_ev(_metadata, e->s.rch, e->s.rcq);
	check_recv(_metadata, e, 1, 32);
	/* one-shot: not armed again, no event for the next one */
	do_op(_metadata, e, IBV_WR_SEND, 4, &s, 1, 0, 0, 0);
	check_recv(_metadata, e, 2, 32);
	ASSERT_FALSE(chan_ready(e->s.rch, QUIET_MS)) TH_LOG("event while unarmed");
}

/* ---- RDMA WRITE / READ ---- */

/*
 * @op of @len octets between client offset @coff and server offset
 * @soff; @nsge local SGEs of the client splitting the range.  The
 * destination end was FILL everywhere; afterwards exactly the range
 * differs.
 */
static void xfer(struct __test_metadata *_metadata, struct env *e,
		 enum ibv_wr_opcode op, size_t coff, size_t soff, uint32_t len,
		 unsigned int nsge, unsigned int seed)
{
	struct end *src = op == IBV_WR_RDMA_WRITE ? &e->c : &e->s;
	struct end *dst = op == IBV_WR_RDMA_WRITE ? &e->s : &e->c;
	size_t s_off = op == IBV_WR_RDMA_WRITE ? coff : soff;
	size_t d_off = op == IBV_WR_RDMA_WRITE ? soff : coff;
	struct ibv_sge sg[16];
	size_t off = coff;
	unsigned int i;

	ASSERT_LE(nsge, 16u);
	ASSERT_LE(s_off + len, BUF_LEN);
	ASSERT_LE(d_off + len, BUF_LEN);
	memset(dst->buf, FILL, BUF_LEN);
	fill_pat(src->buf + s_off, len, seed);
	for (i = 0; i < nsge; i++) {
		uint32_t n = i + 1 < nsge ? len / nsge : len - (off - coff);

		sg[i] = sge_of(&e->c, off, n);
		off += n;
	}
	do_op(_metadata, e, op, seed, sg, nsge, 0,
	      (uintptr_t)e->s.buf + soff, e->s.mr->rkey);
	ASSERT_EQ(-1, diff_mem(dst->buf + d_off, src->buf + s_off, len)) {
		TH_LOG("%s of %u octets: data", op == IBV_WR_RDMA_WRITE ?
		       "WRITE" : "READ", len);
	}
	ASSERT_EQ(-1, diff_byte(dst->buf, d_off, FILL)) TH_LOG("guard before");
	ASSERT_EQ(-1, diff_byte(dst->buf + d_off + len, BUF_LEN - d_off - len,
				FILL)) TH_LOG("guard after");
}

TEST_F(conn, write_sizes)
{
	xfer(_metadata, &self->e, IBV_WR_RDMA_WRITE, 3, 4097, 1, 1, 1);
	xfer(_metadata, &self->e, IBV_WR_RDMA_WRITE, 4095, 12289, 4096, 1, 2);
	xfer(_metadata, &self->e, IBV_WR_RDMA_WRITE, 65537, 1048577, 1 << 20, 1, 3);
	poll_none(_metadata, self->e.s.rcq);
}

TEST_F(conn, write_multi_sge)
{
	unsigned int n = self->e.cap.max_send_sge;

	ASSERT_GE(n, 2u);
	xfer(_metadata, &self->e, IBV_WR_RDMA_WRITE, 1001, 77777, 100003, n, 4);
	xfer(_metadata, &self->e, IBV_WR_RDMA_WRITE, 0, 1 << 20, 1 << 20, 2, 5);
}

TEST_F(conn, read_sizes)
{
	xfer(_metadata, &self->e, IBV_WR_RDMA_READ, 3, 4097, 1, 1, 1);
	xfer(_metadata, &self->e, IBV_WR_RDMA_READ, 4095, 12289, 4096, 1, 2);
	xfer(_metadata, &self->e, IBV_WR_RDMA_READ, 65537, 1048577, 1 << 20, 1, 3);
}

/*
 * Send completions mean "TCP has the octets", and the TX engine splices
 * its own batch pages into TCP: the application may rewrite its buffer
 * the moment a WRITE completes, while the peer may not have placed it
 * yet.  Fifteen 256 KiB WRITEs from one client buffer, each rewritten
 * with the next pattern as soon as the previous WRITE completed, land in
 * fifteen server slices that must each hold their own pattern.
 */
TEST_F(conn, write_reuse_after_completion)
{
	struct env *e = &self->e;
	const uint32_t len = 256 << 10;
	struct ibv_sge sg = sge_of(&e->c, 0, len);
	unsigned int i;

	memset(e->s.buf, FILL, BUF_LEN);
	for (i = 0; i < BUF_LEN / len - 1; i++) {
		fill_pat(e->c.buf, len, 100 + i);
		do_op(_metadata, e, IBV_WR_RDMA_WRITE, i, &sg, 1, 0,
		      (uintptr_t)e->s.buf + (i + 1) * len, e->s.mr->rkey);
	}
	for (i = 0; i < BUF_LEN / len - 1; i++) {
		fill_pat(e->c.buf, len, 100 + i);
		ASSERT_EQ(-1, diff_mem(e->s.buf + (i + 1) * len, e->c.buf, len))
			TH_LOG("slice %u", i);
	}
	ASSERT_EQ(-1, diff_byte(e->s.buf, len, FILL)) TH_LOG("guard");
}

/*
 * A WRITE large enough to go from the application's own pages (zero-copy:
 * tx_zcopy_min, default 32 KiB) whose source region is deregistered, and
 * whose memory is unmapped and mapped afresh with other contents, right
 * after the post.  What was framed before the deregistration is sent
 * from the pages TCP holds; what was not is refused (the lkey is gone).
 * So the WRITE completes, successfully or with a local protection error,
 * and every target octet is either the old pattern or untouched: never
 * the new contents, never anything else (and the guest log stays clean).
 */
TEST_F(conn, write_source_released_in_flight)
{
	struct env *e = &self->e;
	const size_t len = 2 << 20;
	struct ibv_sge sg;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *src, *want;
	size_t i;

	src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	want = malloc(len);
	ASSERT_NE(NULL, want);
	fill_pat(src, len, 41);
	fill_pat(want, len, 41);
	mr = ibv_reg_mr(e->c.pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	memset(e->s.buf, FILL, BUF_LEN);
	sg = (struct ibv_sge){ .addr = (uintptr_t)src, .length = len,
			       .lkey = mr->lkey };
	ASSERT_EQ(0, post_op(CQP(self), IBV_WR_RDMA_WRITE, 5, &sg, 1,
			     IBV_SEND_SIGNALED, (uintptr_t)e->s.buf,
			     e->s.mr->rkey));
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	ASSERT_EQ(src, mmap(src, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	memset(src, 0x5a, len);
	poll_n(_metadata, e->c.scq, 1, &wc);
	ASSERT_EQ(5, wc.wr_id);
	ASSERT_TRUE(wc.status == IBV_WC_SUCCESS ||
		    wc.status == IBV_WC_LOC_PROT_ERR) {
		TH_LOG("status %s", ibv_wc_status_str(wc.status));
	}
	/* what TCP took is in the target by now (loopback) */
	usleep(300 * 1000);
	for (i = 0; i < len; i++)
		if (e->s.buf[i] != want[i] && e->s.buf[i] != FILL)
			break;
	ASSERT_EQ(len, i) {
		TH_LOG("target octet %zu is %#x: neither the source's %#x nor untouched",
		       i, e->s.buf[i], want[i]);
	}
	if (wc.status == IBV_WC_SUCCESS)
		ASSERT_EQ(-1, diff_mem(e->s.buf, want, len));
	ASSERT_EQ(-1, diff_byte(e->s.buf + len, BUF_LEN - len, FILL));
	TH_LOG("WRITE: %s", ibv_wc_status_str(wc.status));
	free(want);
	munmap(src, len);
}

/*
 * A READ with several local SGEs: placed across them when the device
 * advertises max_sge_rd > 1, else refused at post (not truncated).
 */
TEST_F(conn, read_multi_sge)
{
	struct env *e = &self->e;
	struct ibv_sge sg[2] = { sge_of(&e->c, 0, 100), sge_of(&e->c, 4096, 100) };

	ASSERT_GE(e->dattr.max_sge_rd, 1);
	if (e->dattr.max_sge_rd >= 2) {
		xfer(_metadata, e, IBV_WR_RDMA_READ, 1001, 77777, 100003,
		     e->dattr.max_sge_rd, 4);
		return;
	}
	ASSERT_EQ(EINVAL, post_op(CQP(self), IBV_WR_RDMA_READ, 1, sg, 2,
				  IBV_SEND_SIGNALED, (uintptr_t)e->s.buf,
				  e->s.mr->rkey)) {
		TH_LOG("READ with 2 SGEs, max_sge_rd %d", e->dattr.max_sge_rd);
	}
	poll_none(_metadata, e->c.scq);
	xfer(_metadata, e, IBV_WR_RDMA_READ, 1001, 77777, 100003, 1, 4);
}

TEST_F(conn, read_beyond_ord_queued)
{
	struct env *e = &self->e;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_wc wc[SQ_DEPTH];
	int ord, n, i;

	ASSERT_EQ(0, ibv_query_qp(CQP(self), &a, IBV_QP_MAX_QP_RD_ATOMIC, &ia));
	ord = a.max_rd_atomic;
	ASSERT_GE(ord, 1) TH_LOG("ORD %d after connect", ord);
	n = ord * 2 + 3;
	if (n > (int)e->cap.max_send_wr)
		n = e->cap.max_send_wr;
	ASSERT_GT(n, ord);
	fill_pat(e->s.buf, BUF_LEN, 7);
	for (i = 0; i < n; i++) {
		struct ibv_sge l = sge_of(&e->c, 8192 * i + i, 5000);

		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_RDMA_READ, i, &l, 1,
				     IBV_SEND_SIGNALED,
				     (uintptr_t)e->s.buf + 16384 * i + 3 * i,
				     e->s.mr->rkey)) TH_LOG("READ %d of %d (ORD %d)",
							    i, n, ord);
	}
	poll_n(_metadata, e->c.scq, n, wc);
	for (i = 0; i < n; i++) {
		check_wc(_metadata, &wc[i], i, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
			 CQP(self));
		ASSERT_EQ(5000u, wc[i].byte_len);
		ASSERT_EQ(-1, diff_mem(e->c.buf + 8192 * i + i,
				       e->s.buf + 16384 * i + 3 * i, 5000));
	}
	ASSERT_EQ(IBV_QPS_RTS, qp_state(CQP(self)));
}

/* ---- limits: refused, not truncated ---- */

TEST_F(conn, post_too_many_sge)
{
	struct env *e = &self->e;
	struct ibv_sge sg[17];
	struct ibv_send_wr w[2] = {}, *bad = NULL;
	struct ibv_recv_wr rw = {}, *rbad = NULL;
	unsigned int i;
	struct ibv_wc wc;

	for (i = 0; i < 17; i++)
		sg[i] = sge_of(&e->c, 64 * i, 8);
	ASSERT_LT(e->cap.max_send_sge, 17u);
	ASSERT_LT(e->cap.max_recv_sge, 17u);
	/* a good WR, then one with one SGE too many */
	w[0].wr_id = 1;
	w[0].opcode = IBV_WR_RDMA_WRITE;
	w[0].sg_list = sg;
	w[0].num_sge = 1;
	w[0].send_flags = IBV_SEND_SIGNALED;
	w[0].wr.rdma.remote_addr = (uintptr_t)e->s.buf;
	w[0].wr.rdma.rkey = e->s.mr->rkey;
	w[0].next = &w[1];
	w[1] = w[0];
	w[1].wr_id = 2;
	w[1].num_sge = e->cap.max_send_sge + 1;
	w[1].next = NULL;
	i = ibv_post_send(CQP(self), w, &bad);
	ASSERT_TRUE(i == EINVAL || i == ENOMEM) TH_LOG("post_send: %u", i);
	ASSERT_EQ(&w[1], bad);
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, CQP(self));
	poll_none(_metadata, e->c.scq);
	ASSERT_EQ(-1, diff_byte(e->s.buf + 8, BUF_LEN - 8, FILL));

	rw.wr_id = 3;
	rw.sg_list = sg;
	rw.num_sge = e->cap.max_recv_sge + 1;
	i = ibv_post_recv(SQP(self), &rw, &rbad);
	ASSERT_TRUE(i == EINVAL || i == ENOMEM) TH_LOG("post_recv: %u", i);
	ASSERT_EQ(&rw, rbad);
	ASSERT_EQ(IBV_QPS_RTS, qp_state(CQP(self)));
}

TEST_F(conn, post_inline_too_long)
{
	struct env *e = &self->e;
	struct ibv_sge s = sge_of(&e->c, 0, e->cap.max_inline_data + 1);
	int ret;

	ret = post_op(CQP(self), IBV_WR_SEND, 1, &s, 1,
		      IBV_SEND_INLINE | IBV_SEND_SIGNALED, 0, 0);
	ASSERT_TRUE(ret == EINVAL || ret == ENOMEM) {
		TH_LOG("inline SEND of max_inline_data + 1 = %u octets: %d",
		       s.length, ret);
	}
	ret = post_op(CQP(self), IBV_WR_RDMA_WRITE, 2, &s, 1,
		      IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		      (uintptr_t)e->s.buf, e->s.mr->rkey);
	ASSERT_TRUE(ret == EINVAL || ret == ENOMEM) TH_LOG("inline WRITE: %d", ret);
	poll_none(_metadata, e->c.scq);
	ASSERT_EQ(-1, diff_byte(e->s.buf, BUF_LEN, FILL));
}

TEST_F(conn, post_beyond_sq_depth)
{
	struct env *e = &self->e;
	unsigned int depth = e->cap.max_send_wr, i;
	struct ibv_send_wr *w, *bad = NULL;
	struct ibv_wc wc;
	int ret;

	ASSERT_GE(depth, (unsigned int)SQ_DEPTH);
	ASSERT_LE(depth, 4096u);
	w = calloc(depth + 1, sizeof(*w));
	ASSERT_NE(NULL, w);
	/* depth + 1 zero-length WRITEs in one call: the last does not fit */
	for (i = 0; i <= depth; i++) {
		w[i].wr_id = i;
		w[i].opcode = IBV_WR_RDMA_WRITE;
		w[i].wr.rdma.remote_addr = (uintptr_t)e->s.buf;
		w[i].wr.rdma.rkey = e->s.mr->rkey;
		w[i].send_flags = i + 1 == depth ? IBV_SEND_SIGNALED : 0;
		w[i].next = i < depth ? &w[i + 1] : NULL;
	}
	ret = ibv_post_send(CQP(self), w, &bad);
	ASSERT_EQ(ENOMEM, ret) TH_LOG("WR %u beyond SQ depth %u", depth + 1, depth);
	ASSERT_EQ(&w[depth], bad);
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, depth - 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		 CQP(self));
	poll_none(_metadata, e->c.scq);
	free(w);
}

TEST_F(conn, create_qp_beyond_limits)
{
	struct env *e = &self->e;
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;
	int i;

	for (i = 0; i < 6; i++) {
		qp_attr_default(&a, &e->c);
		a.cap.max_send_sge = 1;
		a.cap.max_recv_sge = 1;
		a.cap.max_inline_data = 0;
		switch (i) {
		case 0:
			a.cap.max_send_wr = e->dattr.max_qp_wr + 1;
			break;
		case 1:
			a.cap.max_recv_wr = e->dattr.max_qp_wr + 1;
			break;
		case 2:
			a.cap.max_send_sge = e->dattr.max_sge + 1;
			break;
		case 3:
			a.cap.max_recv_sge = e->dattr.max_sge + 1;
			break;
		case 4:
			a.cap.max_inline_data = 1 << 20;
			break;
		case 5:
			a.qp_type = IBV_QPT_UD;	/* iWARP: RC only */
			break;
		}
		qp = ibv_create_qp(e->c.pd, &a);
		if (qp)
			ibv_destroy_qp(qp);
		ASSERT_EQ(NULL, qp) {
			TH_LOG("case %d: create_qp beyond limits succeeded "
			       "(wr %u/%u sge %u/%u inline %u)", i,
			       a.cap.max_send_wr, a.cap.max_recv_wr,
			       a.cap.max_send_sge, a.cap.max_recv_sge,
			       a.cap.max_inline_data);
		}
	}
	/* the limits themselves are accepted */
	qp_attr_default(&a, &e->c);
	a.cap.max_send_wr = e->dattr.max_qp_wr;
	a.cap.max_recv_wr = e->dattr.max_qp_wr;
	a.cap.max_send_sge = e->dattr.max_sge;
	a.cap.max_recv_sge = e->dattr.max_sge;
	qp = ibv_create_qp(e->c.pd, &a);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp at the limits: %s", strerror(errno));
	ASSERT_GE(a.cap.max_send_wr, (uint32_t)e->dattr.max_qp_wr);
	ibv_destroy_qp(qp);
	/* a CQ beyond max_cqe */
	{
		struct ibv_cq *cq = ibv_create_cq(e->ctx, e->dattr.max_cqe + 1,
						  NULL, NULL, 0);

		if (cq)
			ibv_destroy_cq(cq);
		ASSERT_EQ(NULL, cq) TH_LOG("CQ of max_cqe + 1 entries created");
	}
}

TEST_F(conn, post_beyond_max_msg_sz)
{
	struct env *e = &self->e;
	struct ibv_sge sg[2] = { sge_of(&e->c, 0, 0), sge_of(&e->c, 0, 1) };
	int ret;

	if (e->pattr.max_msg_sz >= 0xffffffffu)
		SKIP(return, "max_msg_sz %u: not testable cheaply",
		     e->pattr.max_msg_sz);
	/* lengths only: refused at post, before any memory is touched */
	sg[0].length = e->pattr.max_msg_sz;
	ret = post_op(CQP(self), IBV_WR_SEND, 1, sg, 2, IBV_SEND_SIGNALED, 0, 0);
	ASSERT_TRUE(ret == EINVAL || ret == ENOMEM) {
		TH_LOG("SEND of max_msg_sz + 1 = %u + 1 octets: %d",
		       e->pattr.max_msg_sz, ret);
	}
	ret = post_op(CQP(self), IBV_WR_RDMA_WRITE, 2, sg, 2, IBV_SEND_SIGNALED,
		      (uintptr_t)e->s.buf, e->s.mr->rkey);
	ASSERT_TRUE(ret == EINVAL || ret == ENOMEM) TH_LOG("WRITE: %d", ret);
	poll_none(_metadata, e->c.scq);
	ASSERT_EQ(IBV_QPS_RTS, qp_state(CQP(self)));
}

/* ---- access rights ---- */

/*
 * Remote access errors reach the requester as a Terminate (RFC 5040
 * 7.2): the requester must see an error completion for the offending
 * operation or, for a WRITE already completed locally, for the next one,
 * and both QPs must end in ERROR.
 */
/*
 * @op into a region of the server with @rights, through a server QP that
 * grants @qp_rights (IB_QP_ACCESS_FLAGS; -1: as rdma_cm set them, remote
 * write and read): the right the operation needs is missing from one of
 * the two, so the responder must refuse it.
 */
static void remote_access(struct __test_metadata *_metadata, struct env *e,
			  enum ibv_wr_opcode op, int rights, int qp_rights)
{
	struct ibv_mr *mr;
	struct ibv_sge l = sge_of(&e->c, 0, 512);
	struct ibv_wc wc[2];
	uint8_t *p = e->s.buf + 2 * BUF_LEN / 4;
	struct ibv_async_event ev;
	int n = 0, i, first_err = -1;

	mr = ibv_reg_mr(e->s.pd, p, 65536, rights);
	ASSERT_NE(NULL, mr) TH_LOG("ibv_reg_mr: %s", strerror(errno));
	if (qp_rights >= 0) {
		struct ibv_qp_attr a = { .qp_access_flags = qp_rights };
		struct ibv_qp_init_attr ia;

		ASSERT_EQ(0, ibv_modify_qp(e->sid[0]->qp, &a,
					   IBV_QP_ACCESS_FLAGS));
		ASSERT_EQ(0, ibv_query_qp(e->sid[0]->qp, &a,
					  IBV_QP_ACCESS_FLAGS, &ia));
		ASSERT_EQ(qp_rights, (int)a.qp_access_flags);
	}
	fill_pat(e->c.buf, 512, 9);
	ASSERT_EQ(0, post_op(e->cid[0]->qp, op, 1, &l, 1, IBV_SEND_SIGNALED,
			     (uintptr_t)p + 100, mr->rkey));
	/* WRITE completes when sent: a READ behind it must fail */
	if (op == IBV_WR_RDMA_WRITE) {
		struct ibv_sge l2 = sge_of(&e->c, 8192, 16);

		ASSERT_EQ(0, post_op(e->cid[0]->qp, IBV_WR_RDMA_READ, 2, &l2, 1,
				     IBV_SEND_SIGNALED,
				     (uintptr_t)e->s.buf, e->s.mr->rkey));
		n = 2;
	} else {
		n = 1;
	}
	poll_n(_metadata, e->c.scq, n, wc);
	for (i = 0; i < n; i++) {
		ASSERT_EQ((uint64_t)i + 1, wc[i].wr_id);
		if (wc[i].status != IBV_WC_SUCCESS && first_err < 0)
			first_err = i;
	}
	ASSERT_LE(0, first_err) TH_LOG("no error completion at the requester");
	/*
	 * The offending READ itself must fail with a remote access error:
	 * rx_terminate() (rx.c) completes the READ that a remote protection
	 * Terminate answers with it.
	 */
	if (op == IBV_WR_RDMA_READ) {
		ASSERT_EQ(IBV_WC_REM_ACCESS_ERR, wc[0].status) {
			TH_LOG("READ without REMOTE_READ completed %s",
			       ibv_wc_status_str(wc[0].status));
		}
	} else {
		TH_LOG("WRITE: %s, READ behind it: %s",
		       ibv_wc_status_str(wc[0].status),
		       ibv_wc_status_str(wc[1].status));
		ASSERT_TRUE(wc[first_err].status == IBV_WC_REM_ACCESS_ERR ||
			    wc[first_err].status == IBV_WC_WR_FLUSH_ERR ||
			    wc[first_err].status == IBV_WC_REM_OP_ERR) {
			TH_LOG("status %s",
			       ibv_wc_status_str(wc[first_err].status));
		}
	}
	wait_qp_err(_metadata, e->cid[0]->qp, "requester");
	wait_qp_err(_metadata, e->sid[0]->qp, "responder");
	ASSERT_TRUE(wait_async2(e, IBV_EVENT_QP_FATAL, IBV_EVENT_QP_ACCESS_ERR,
				TMO_MS, &ev)) {
		TH_LOG("no QP_FATAL / QP_ACCESS_ERR async event");
	}
	ASSERT_EQ(-1, diff_byte(p, 65536, FILL)) TH_LOG("target MR modified");
	if (op == IBV_WR_RDMA_READ)
		ASSERT_EQ(-1, diff_byte(e->c.buf + 512, BUF_LEN - 512, FILL));
	ibv_dereg_mr(mr);
}

#define ALL_RIGHTS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/* The region narrows what the QP grants ... */
TEST_F(conn, write_without_remote_write)
{
	remote_access(_metadata, &self->e, IBV_WR_RDMA_WRITE,
		      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, -1);
}

TEST_F(conn, read_without_remote_read)
{
	memset(self->e.c.buf, FILL, BUF_LEN);
	remote_access(_metadata, &self->e, IBV_WR_RDMA_READ,
		      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, -1);
}

/* ... and the QP narrows what the region allows (IB_QP_ACCESS_FLAGS). */
TEST_F(conn, write_qp_without_remote_write)
{
	remote_access(_metadata, &self->e, IBV_WR_RDMA_WRITE, ALL_RIGHTS,
		      IBV_ACCESS_REMOTE_READ);
}

TEST_F(conn, read_qp_without_remote_read)
{
	memset(self->e.c.buf, FILL, BUF_LEN);
	remote_access(_metadata, &self->e, IBV_WR_RDMA_READ, ALL_RIGHTS,
		      IBV_ACCESS_REMOTE_WRITE);
}

/* The QP grants them back: both work again on the same connection. */
TEST_F(conn, qp_access_regranted)
{
	struct env *e = &self->e;
	struct ibv_qp_attr a = { .qp_access_flags = 0 };
	struct ibv_sge l = sge_of(&e->c, 0, 256);
	struct ibv_wc wc;

	ASSERT_EQ(0, ibv_modify_qp(SQP(self), &a, IBV_QP_ACCESS_FLAGS));
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	ASSERT_EQ(0, ibv_modify_qp(SQP(self), &a, IBV_QP_ACCESS_FLAGS));
	fill_pat(e->c.buf, 256, 4);
	ASSERT_EQ(0, post_op(CQP(self), IBV_WR_RDMA_WRITE, 1, &l, 1,
			     IBV_SEND_SIGNALED, (uintptr_t)e->s.buf,
			     e->s.mr->rkey));
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		 CQP(self));
	l = sge_of(&e->c, 4096, 256);
	ASSERT_EQ(0, post_op(CQP(self), IBV_WR_RDMA_READ, 2, &l, 1,
			     IBV_SEND_SIGNALED, (uintptr_t)e->s.buf,
			     e->s.mr->rkey));
	poll_n(_metadata, e->c.scq, 1, &wc);
	check_wc(_metadata, &wc, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
		 CQP(self));
	ASSERT_EQ(256, wc.byte_len);
	ASSERT_EQ(0, memcmp(e->c.buf, e->c.buf + 4096, 256));
}

/* Remote atomics are not implemented: a QP or a region asking is refused. */
TEST_F(conn, remote_atomic_refused)
{
	struct env *e = &self->e;
	struct ibv_qp_attr a = {
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct ibv_qp_init_attr ia;

	errno = 0;
	ASSERT_NE(0, ibv_modify_qp(SQP(self), &a, IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(0, ibv_query_qp(SQP(self), &a, IBV_QP_ACCESS_FLAGS, &ia));
	ASSERT_EQ(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		  (int)a.qp_access_flags);
	errno = 0;
	ASSERT_EQ(NULL, ibv_reg_mr(e->s.pd, e->s.buf, 4096,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_ATOMIC));
	ASSERT_EQ(EOPNOTSUPP, errno);
}

TEST_F(conn, send_bad_lkey)
{
	struct env *e = &self->e;
	struct ibv_sge s = sge_of(&e->c, 0, 100);
	struct ibv_wc wc;
	int i;

	/* another STag index, same key; and the right index, wrong key */
	for (i = 0; i < 2; i++) {
		if (i) {
			env_close(e);
			env_open(_metadata, e, NULL);
			s = sge_of(&e->c, 0, 100);
		}
		s.lkey = i ? e->c.mr->lkey ^ 0x5a : e->c.mr->lkey + 0x3700;
		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_SEND, 5, &s, 1,
				     IBV_SEND_SIGNALED, 0, 0));
		poll_n(_metadata, e->c.scq, 1, &wc);
		check_wc(_metadata, &wc, 5, IBV_WC_LOC_PROT_ERR, 0, CQP(self));
		wait_qp_err(_metadata, CQP(self), "requester");
	}
}

TEST_F(conn, recv_without_local_write)
{
	struct env *e = &self->e;
	uint8_t *p = e->s.buf + BUF_LEN / 2;
	struct ibv_mr *mr = ibv_reg_mr(e->s.pd, p, 8192, 0);
	struct ibv_sge r, s = sge_of(&e->c, 0, 100);
	struct ibv_wc wc;
	int ret;

	ASSERT_NE(NULL, mr) TH_LOG("ibv_reg_mr(access 0): %s", strerror(errno));
	r.addr = (uintptr_t)p;
	r.length = 4096;
	r.lkey = mr->lkey;
	fill_pat(e->c.buf, 100, 3);
	ret = post_recv1(SQP(self), 8, &r, 1);
	if (ret) {
		/* refused at post: fine, and nothing else happens */
		ASSERT_TRUE(ret == EINVAL || ret == EACCES || ret == EPERM);
	} else {
		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_SEND, 9, &s, 1,
				     IBV_SEND_SIGNALED, 0, 0));
		poll_n(_metadata, e->s.rcq, 1, &wc);
		check_wc(_metadata, &wc, 8, IBV_WC_LOC_PROT_ERR, 0, SQP(self));
		wait_qp_err(_metadata, SQP(self), "responder");
	}
	ASSERT_EQ(-1, diff_byte(p, 8192, FILL)) TH_LOG("buffer written");
	ibv_dereg_mr(mr);
}

TEST_F(conn, read_sink_without_local_write)
{
	struct env *e = &self->e;
	uint8_t *p = e->c.buf + BUF_LEN / 2;
	struct ibv_mr *mr = ibv_reg_mr(e->c.pd, p, 8192, 0);
	struct ibv_sge l;
	struct ibv_wc wc;
	int ret;

	ASSERT_NE(NULL, mr);
	l.addr = (uintptr_t)p;
	l.length = 4096;
	l.lkey = mr->lkey;
	fill_pat(e->s.buf, 4096, 1);
	ret = post_op(CQP(self), IBV_WR_RDMA_READ, 3, &l, 1, IBV_SEND_SIGNALED,
		      (uintptr_t)e->s.buf, e->s.mr->rkey);
	if (ret) {
		ASSERT_TRUE(ret == EINVAL || ret == EACCES || ret == EPERM);
	} else {
		poll_n(_metadata, e->c.scq, 1, &wc);
		check_wc(_metadata, &wc, 3, IBV_WC_LOC_PROT_ERR, 0, CQP(self));
		wait_qp_err(_metadata, CQP(self), "requester");
	}
	ASSERT_EQ(-1, diff_byte(p, 8192, FILL)) TH_LOG("READ sink written");
	ibv_dereg_mr(mr);
}

/* ---- flush ---- */

TEST_F(conn, flush_on_error)
{
	struct env *e = &self->e;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[32];
	int i, ok = 0;

	for (i = 0; i < 8; i++) {
		struct ibv_sge r = sge_of(&e->c, 4096 * i, 4096);

		ASSERT_EQ(0, post_recv1(CQP(self), 100 + i, &r, 1));
	}
	/* 16 WRITEs of 256 KiB: some are still queued at the modify */
	for (i = 0; i < 16; i++) {
		struct ibv_sge s = sge_of(&e->c, 0, 256 << 10);

		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_RDMA_WRITE, i, &s, 1,
				     IBV_SEND_SIGNALED,
				     (uintptr_t)e->s.buf + (256 << 10) * (i % 8),
				     e->s.mr->rkey));
	}
	ASSERT_EQ(0, ibv_modify_qp(CQP(self), &a, IBV_QP_STATE));
	ASSERT_EQ(IBV_QPS_ERR, qp_state(CQP(self)));
	poll_n(_metadata, e->c.rcq, 8, wc);
	for (i = 0; i < 8; i++)
		check_wc(_metadata, &wc[i], 100 + i, IBV_WC_WR_FLUSH_ERR, 0,
			 CQP(self));
	poll_n(_metadata, e->c.scq, 16, wc);
	for (i = 0; i < 16; i++) {
		ASSERT_EQ((uint64_t)i, wc[i].wr_id) TH_LOG("send flush order");
		if (wc[i].status == IBV_WC_SUCCESS) {
			ASSERT_EQ(ok, i) TH_LOG("success after a flushed WR");
			ASSERT_EQ(IBV_WC_RDMA_WRITE, wc[i].opcode);
			ok++;
		} else {
			ASSERT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status) {
				TH_LOG("wr %d: %s", i,
				       ibv_wc_status_str(wc[i].status));
			}
		}
		ASSERT_EQ(CQP(self)->qp_num, wc[i].qp_num);
	}
	TH_LOG("%d of 16 WRITEs completed before the flush", ok);
	/* posted in ERROR: flushed too, in order */
	for (i = 0; i < 3; i++) {
		struct ibv_sge s = sge_of(&e->c, 0, 16);

		ASSERT_EQ(0, post_op(CQP(self), IBV_WR_SEND, 50 + i, &s, 1,
				     i == 1 ? IBV_SEND_SIGNALED : 0, 0, 0));
	}
	{
		struct ibv_sge r = sge_of(&e->c, 0, 16);

		ASSERT_EQ(0, post_recv1(CQP(self), 60, &r, 1));
	}
	poll_n(_metadata, e->c.scq, 3, wc);
	for (i = 0; i < 3; i++)
		check_wc(_metadata, &wc[i], 50 + i, IBV_WC_WR_FLUSH_ERR, 0,
			 CQP(self));
	poll_n(_metadata, e->c.rcq, 1, wc);
	check_wc(_metadata, &wc[0], 60, IBV_WC_WR_FLUSH_ERR, 0, CQP(self));
	poll_none(_metadata, e->c.scq);
	wait_qp_err(_metadata, SQP(self), "peer");
}

/* ---- CQ overflow ---- */

TEST(cq_overflow)
{
	struct env_opts o = { .scq_cqe = 4 };
	struct env e;
	struct ibv_async_event ev;
	struct ibv_wc wc[64];
	int n, i, got = 0, r;
	bool seen;

	env_open(_metadata, &e, &o);
	n = e.c.scq->cqe;
	ASSERT_GE(n, 4);
	ASSERT_LT(n + 4, SQ_DEPTH);
	for (i = 0; i < n + 4; i++) {
		struct ibv_sge s = sge_of(&e.c, 64 * i, 64);

		fill_pat(e.c.buf + 64 * i, 64, i);
		ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_RDMA_WRITE, i, &s, 1,
				     IBV_SEND_SIGNALED,
				     (uintptr_t)e.s.buf + 64 * i, e.s.mr->rkey));
	}
	seen = wait_async(&e, IBV_EVENT_CQ_ERR, TMO_MS, &ev);
	ASSERT_TRUE(seen) TH_LOG("no IBV_EVENT_CQ_ERR for %d completions "
				 "on a CQ of %d", n + 4, n);
	ASSERT_EQ(e.c.scq, ev.element.cq);
	for (;;) {
		r = ibv_poll_cq(e.c.scq, 64 - got, wc + got);
		if (r <= 0)
			break;
		got += r;
	}
	ASSERT_EQ(n, got) TH_LOG("read %d completions from a full CQ of %d",
				 got, n);
	for (i = 0; i < got; i++) {
		ASSERT_EQ((uint64_t)i, wc[i].wr_id) TH_LOG("entry %d", i);
		ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status);
		ASSERT_EQ(IBV_WC_RDMA_WRITE, wc[i].opcode);
		ASSERT_EQ(e.cid[0]->qp->qp_num, wc[i].qp_num);
	}
	env_close(&e);
}

/*
 * RFC 5042 6.4.3: a peer cannot flood the asynchronous event path.  A
 * burst of 40 bad Writes and then 20 more after the QPs failed, on a CQ
 * of 4, give one event per object: the two QPs' once each, the CQ's
 * once, nothing more.
 */
TEST(event_storm)
{
	struct env_opts o = { .scq_cqe = 4 };
	struct pollfd pfd = { .events = POLLIN };
	struct ibv_async_event ev;
	int i, n_qp = 0, n_cq = 0, n_other = 0, round;
	struct env e;

	env_open(_metadata, &e, &o);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < (round ? 20 : 40); i++) {
			struct ibv_sge s = sge_of(&e.c, 64 * i, 64);

			/* a bad rkey; signaled, so the small CQ overflows */
			ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_RDMA_WRITE,
					     i, &s, 1, IBV_SEND_SIGNALED,
					     (uintptr_t)e.s.buf,
					     e.s.mr->rkey ^ 0x100));
		}
		if (!round)
			wait_qp_err(_metadata, e.sid[0]->qp, "responder");
	}
	/* collect until quiet: the bound is on the total, not a rate */
	pfd.fd = e.ctx->async_fd;
	while (poll(&pfd, 1, 3 * QUIET_MS) > 0) {
		if (ibv_get_async_event(e.ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_CQ_ERR)
			n_cq++;
		else if ((ev.event_type == IBV_EVENT_QP_FATAL ||
			  ev.event_type == IBV_EVENT_QP_ACCESS_ERR ||
			  ev.event_type == IBV_EVENT_QP_REQ_ERR) &&
			 (ev.element.qp == e.cid[0]->qp ||
			  ev.element.qp == e.sid[0]->qp))
			n_qp++;
		else
			n_other++;
	}
	TH_LOG("events: %d QP, %d CQ, %d other", n_qp, n_cq, n_other);
	ASSERT_EQ(2, n_qp) TH_LOG("want one per QP");
	ASSERT_EQ(1, n_cq) TH_LOG("want one for the overflowing CQ");
	ASSERT_EQ(0, n_other);
	ASSERT_EQ(-1, diff_byte(e.s.buf, BUF_LEN, FILL));
	env_close(&e);
}

/* ---- SRQ ---- */

TEST(srq_two_qps)
{
	struct env_opts o = { .srq_wr = 16, .nconn = 2 };
	struct ibv_wc wc[8];
	struct env e;
	int i, k, seen[8] = {}, per_qp[2] = {};

	env_open(_metadata, &e, &o);
	ASSERT_NE(NULL, e.sid[1]);
	{	/* a QP on an SRQ has no receive queue of its own */
		struct ibv_sge r = sge_of(&e.s, 0, 64);

		ASSERT_NE(0, post_recv1(e.sid[0]->qp, 99, &r, 1)) {
			TH_LOG("post_recv on a QP with an SRQ accepted");
		}
	}
	for (i = 0; i < 8; i++) {
		struct ibv_sge r = sge_of(&e.s, 8192 * i, 4096);
		struct ibv_recv_wr wr = { .wr_id = 500 + i, .sg_list = &r,
					  .num_sge = 1 }, *bad;

		ASSERT_EQ(0, ibv_post_srq_recv(e.srq, &wr, &bad));
	}
	/* two Sends from each client, alternating */
	for (i = 0; i < 4; i++) {
		struct ibv_sge s = sge_of(&e.c, 4096 * i, 200 + i);
		struct ibv_wc swc;

		fill_pat(e.c.buf + 4096 * i, 200 + i, 60 + i);
		ASSERT_EQ(0, post_op(e.cid[i % 2]->qp, IBV_WR_SEND, i, &s, 1,
				     IBV_SEND_SIGNALED, 0, 0));
		poll_n(_metadata, e.c.scq, 1, &swc);
		check_wc(_metadata, &swc, i, IBV_WC_SUCCESS, IBV_WC_SEND,
			 e.cid[i % 2]->qp);
		/* one at a time, so the SRQ order is the send order */
		poll_n(_metadata, e.s.rcq, 1, &wc[i]);
	}
	for (i = 0; i < 4; i++) {
		uint32_t len = 200 + i;
		int slot = (int)wc[i].wr_id - 500;

		ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status);
		ASSERT_EQ(IBV_WC_RECV, wc[i].opcode);
		ASSERT_EQ(len, wc[i].byte_len);
		ASSERT_EQ(500u + i, wc[i].wr_id) TH_LOG("SRQ entries in order");
		ASSERT_TRUE(slot >= 0 && slot < 8);
		ASSERT_EQ(0, seen[slot]);
		seen[slot] = 1;
		k = wc[i].qp_num == e.sid[0]->qp->qp_num ? 0 :
		    wc[i].qp_num == e.sid[1]->qp->qp_num ? 1 : -1;
		ASSERT_EQ(i % 2, k) TH_LOG("receive %d on the wrong QP", i);
		per_qp[k]++;
		ASSERT_EQ(-1, diff_mem(e.s.buf + 8192 * slot, e.c.buf + 4096 * i,
				       len));
		ASSERT_EQ(FILL, e.s.buf[8192 * slot + len]);
	}
	ASSERT_EQ(2, per_qp[0]);
	ASSERT_EQ(2, per_qp[1]);
	env_close(&e);
}

/*
 * RFC 5042 6.4.3.1: a stream flooding an SRQ with minimum-size Sends
 * while the ULP does not replenish it is cut off once the SRQ is down to
 * a quarter, so the other stream still finds buffers (srq.c).  The
 * counter it moves (srq_flood_refused) is checked by dp_verbs.sh: sysfs
 * of a namespace does not show the device.
 */
TEST(srq_flood_fair_share)
{
	struct env_opts o = { .srq_wr = 64, .nconn = 2 };
	struct ibv_sge s;
	struct ibv_wc wc;
	int i, ok0 = 0, ok1 = 0, other = 0;
	struct env e;

	env_open(_metadata, &e, &o);
	{
		struct ibv_srq_attr sa;

		ASSERT_EQ(0, ibv_query_srq(e.srq, &sa));
		ASSERT_EQ(64u, sa.max_wr) TH_LOG("SRQ depth");
	}
	for (i = 0; i < 64; i++) {
		struct ibv_sge r = sge_of(&e.s, 256 * i, 64);
		struct ibv_recv_wr wr = { .wr_id = 1000 + i, .sg_list = &r,
					  .num_sge = 1 }, *bad;

		ASSERT_EQ(0, ibv_post_srq_recv(e.srq, &wr, &bad));
	}
	/* the flood: 60 one-octet Sends on connection 0, nothing reposted */
	s = sge_of(&e.c, 0, 1);
	for (i = 0; i < 60; i++)
		ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_SEND, i, &s, 1, 0,
				     0, 0));
	wait_qp_err(_metadata, e.sid[0]->qp, "flooding server");
	wait_qp_err(_metadata, e.cid[0]->qp, "flooding client");
	/* 48 took the SRQ from 64 down to 16; the 49th was refused */
	while (ibv_poll_cq(e.s.rcq, 1, &wc) > 0) {
		if (wc.qp_num == e.sid[0]->qp->qp_num &&
		    wc.status == IBV_WC_SUCCESS)
			ok0++;
		else if (wc.status != IBV_WC_WR_FLUSH_ERR)
			other++;
	}
	ASSERT_EQ(48, ok0);
	ASSERT_EQ(0, other);

	/* the other stream still has the last quarter */
	fill_pat(e.c.buf + 4096, 32, 5);
	s = sge_of(&e.c, 4096, 32);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, post_op(e.cid[1]->qp, IBV_WR_SEND, 100 + i, &s, 1,
				     0, 0, 0));
	}
	for (i = 0; i < 10; i++) {
		poll_n(_metadata, e.s.rcq, 1, &wc);
		ASSERT_EQ(e.sid[1]->qp->qp_num, wc.qp_num);
		ASSERT_EQ(IBV_WC_SUCCESS, wc.status) {
			TH_LOG("receive %d of the other stream: %s", i,
			       ibv_wc_status_str(wc.status));
		}
		ASSERT_EQ(32, wc.byte_len);
		ok1++;
	}
	ASSERT_EQ(10, ok1);
	ASSERT_EQ(IBV_QPS_RTS, qp_state(e.sid[1]->qp));
	env_close(&e);
}

/*
 * RFC 5042 6.4.3: a stream flooding a receive CQ it shares with another
 * stream is cut off before the CQ overflows.  The server's two QPs share
 * a receive CQ of D entries; connection 0 sends one-octet messages into
 * D - D/4 + 8 posted receives and nobody polls.  From an empty CQ the
 * window opens at D/4 and stream 0 is alone in it, so it is refused when
 * the CQ is three quarters full: exactly D - D/4 are received, its
 * other 8 receives are flushed, and stream 1's messages still fit: no
 * CQ error, everything in order.
 */
TEST(cq_flood_fair_share)
{
	struct env_opts o = { .nconn = 2, .s_rcq_cqe = 64 };
	struct ibv_async_event ev;
	struct pollfd pfd = { .events = POLLIN };
	int d, want, posted, i, ok0 = 0, fl0 = 0, ok1 = 0;
	struct ibv_sge s;
	struct ibv_wc wc;
	struct env e;

	env_open(_metadata, &e, &o);
	d = e.s.rcq->cqe;
	ASSERT_GE(d, 64);
	want = d - d / 4;
	posted = want + 8;
	ASSERT_LE(posted, RQ_DEPTH) TH_LOG("CQ of %d is deeper than asked", d);
	for (i = 0; i < posted; i++) {
		struct ibv_sge r = sge_of(&e.s, 64 * i, 64);

		ASSERT_EQ(0, post_recv1(e.sid[0]->qp, 1000 + i, &r, 1));
	}
	for (i = 0; i < 4; i++) {
		struct ibv_sge r = sge_of(&e.s, BUF_LEN / 2 + 64 * i, 64);

		ASSERT_EQ(0, post_recv1(e.sid[1]->qp, 2000 + i, &r, 1));
	}
	s = sge_of(&e.c, 0, 1);
	for (i = 0; i < posted; i++)
		ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_SEND, i, &s, 1, 0,
				     0, 0));
	wait_qp_err(_metadata, e.sid[0]->qp, "flooding server");
	fill_pat(e.c.buf + 4096, 32, 6);
	s = sge_of(&e.c, 4096, 32);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, post_op(e.cid[1]->qp, IBV_WR_SEND, 100 + i, &s, 1,
				     0, 0, 0));
	/* all of it fits: posted + 4 <= d */
	for (i = 0; i < posted + 4; i++) {
		poll_n(_metadata, e.s.rcq, 1, &wc);
		if (wc.qp_num == e.sid[0]->qp->qp_num) {
			ASSERT_EQ(1000 + ok0 + fl0, wc.wr_id) {
				TH_LOG("stream 0 out of order");
			}
			if (wc.status == IBV_WC_SUCCESS) {
				ASSERT_EQ(0, fl0) TH_LOG("success after a flush");
				ok0++;
			} else {
				ASSERT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
				fl0++;
			}
		} else {
			ASSERT_EQ(e.sid[1]->qp->qp_num, wc.qp_num);
			ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
			ASSERT_EQ(2000 + ok1, wc.wr_id);
			ASSERT_EQ(32, wc.byte_len);
			ok1++;
		}
	}
	ASSERT_EQ(want, ok0) TH_LOG("stream 0 received %d, want %d", ok0, want);
	ASSERT_EQ(8, fl0);
	ASSERT_EQ(4, ok1);
	ASSERT_EQ(-1, diff_mem(e.s.buf + BUF_LEN / 2 + 64 * 3, e.c.buf + 4096,
			       32));
	ASSERT_EQ(IBV_QPS_RTS, qp_state(e.sid[1]->qp));
	/* no CQ error for anyone */
	pfd.fd = e.ctx->async_fd;
	while (poll(&pfd, 1, QUIET_MS) > 0) {
		if (ibv_get_async_event(e.ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		ASSERT_NE(IBV_EVENT_CQ_ERR, ev.event_type);
	}
	env_close(&e);
}

/*
 * A QP on an SRQ entering ERROR raises IBV_EVENT_QP_LAST_WQE_REACHED
 * (the SRQ gives it nothing more; the kernel's ib_drain_rq() waits for
 * it), once, and only for that QP.
 */
TEST(srq_last_wqe_reached)
{
	struct env_opts o = { .srq_wr = 16, .nconn = 1 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct env e;

	env_open(_metadata, &e, &o);
	ASSERT_FALSE(wait_async(&e, IBV_EVENT_QP_LAST_WQE_REACHED, QUIET_MS,
				&ev)) TH_LOG("LAST_WQE_REACHED before any error");
	ASSERT_EQ(0, ibv_modify_qp(e.sid[0]->qp, &a, IBV_QP_STATE));
	ASSERT_TRUE(wait_async(&e, IBV_EVENT_QP_LAST_WQE_REACHED, TMO_MS, &ev))
		TH_LOG("no LAST_WQE_REACHED for the SRQ's QP in ERROR");
	ASSERT_EQ(e.sid[0]->qp, ev.element.qp);
	ASSERT_FALSE(wait_async(&e, IBV_EVENT_QP_LAST_WQE_REACHED, QUIET_MS,
				&ev)) TH_LOG("a second LAST_WQE_REACHED");
	env_close(&e);
}

TEST(srq_limit_event)
{
	struct env_opts o = { .srq_wr = 16, .nconn = 1 };
	struct ibv_srq_attr sa = { .srq_limit = 3 };
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct env e;
	int i;

	env_open(_metadata, &e, &o);
	for (i = 0; i < 5; i++) {
		struct ibv_sge r = sge_of(&e.s, 4096 * i, 4096);
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &r,
					  .num_sge = 1 }, *bad;

		ASSERT_EQ(0, ibv_post_srq_recv(e.srq, &wr, &bad));
	}
	ASSERT_EQ(0, ibv_modify_srq(e.srq, &sa, IBV_SRQ_LIMIT));
	memset(&sa, 0, sizeof(sa));
	ASSERT_EQ(0, ibv_query_srq(e.srq, &sa));
	ASSERT_EQ(3u, sa.srq_limit);
	/* 5 -> 4 -> 3 posted: not below the limit of 3 yet */
	for (i = 0; i < 5; i++) {
		struct ibv_sge s = sge_of(&e.c, 0, 10);
		bool got;

		ASSERT_EQ(0, post_op(e.cid[0]->qp, IBV_WR_SEND, i, &s, 1, 0, 0, 0));
		poll_n(_metadata, e.s.rcq, 1, &wc);
		check_wc(_metadata, &wc, i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 e.sid[0]->qp);
		got = wait_async(&e, IBV_EVENT_SRQ_LIMIT_REACHED,
				 i == 2 ? TMO_MS : QUIET_MS, &ev);
		if (i == 2) {
			/* 2 left < 3 */
			ASSERT_TRUE(got) TH_LOG("no SRQ_LIMIT_REACHED at 2 < 3");
			ASSERT_EQ(e.srq, ev.element.srq);
			memset(&sa, 0, sizeof(sa));
			ASSERT_EQ(0, ibv_query_srq(e.srq, &sa));
			ASSERT_EQ(0u, sa.srq_limit) TH_LOG("limit not disarmed");
		} else {
			ASSERT_FALSE(got) TH_LOG("SRQ_LIMIT_REACHED after receive %d",
						 i);
		}
	}
	env_close(&e);
}

TEST_HARNESS_MAIN
