// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rawpeer: the crafted FPDUs (one named case per RFC 5040/5041/5044
 * receive error), receiving and printing what the peer sends, and the
 * reference validator used in listen mode: it checks each FPDU with the
 * wire core exactly as a receiver must and answers an error with the
 * Terminate the wire core prescribes, so rawpeer against rawpeer shows on
 * the host what softiw must answer in the VM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rawpeer.h"

/* What one crafted segment looks like before and after framing. */
struct rp_seg {
	u8 opcode;
	u32 stag;
	u64 to;
	u32 qn;
	u32 msn;
	u32 mo;
	u32 len;		/* payload octets */
	bool bad_dv;		/* DDP version 0 */
	int ctrl;		/* >= 0: RDMAP Control octet to send instead */
	bool bad_crc;		/* flip a CRC bit after framing */
	bool split;		/* send the FPDU in two writes, 0.2 s apart */
	/* then, in the same send(), a Write with a guessed key at to + 256 */
	bool then_wrong_key;
	int ulpdu_len;		/* >= 0: send only this many ULPDU octets */
	int mutation;		/* rp_send_mutated(): MUT_* */
	struct softiw_rdmap_read_req rr;
};

static const char *const rp_cases[] = {
	"write", "send", "read", "unknown-stag", "wrong-key", "bounds",
	"wrong-pd",
	"to-wrap", "bad-ddp-ver", "bad-ddp-ver-untagged", "bad-qn",
	"msn-nobuf", "msn-range", "bad-mo", "too-long", "bad-opcode",
	"bad-rdmap-ver", "read-bad-stag", "read-bounds", "crc-error",
	"bad-fpdu-len", "write-split", "crc-error-split", "write-wrong-key",
	NULL,
};

void rp_list_cases(void)
{
	int i;

	for (i = 0; rp_cases[i]; i++)
		printf("%s\n", rp_cases[i]);
}

/* Fill @s for case @name; returns -1 for an unknown name. */
static int case_setup(struct rp_conn *c, const char *name,
		      const struct rp_opts *o, struct rp_seg *s)
{
	bool send = false, read = false;

	memset(s, 0, sizeof(*s));
	s->ctrl = -1;
	s->ulpdu_len = -1;
	s->opcode = SOFTIW_RDMAP_WRITE;
	s->stag = o->stag;
	s->to = o->to;
	s->len = o->seglen;

	if (!strcmp(name, "write")) {
	} else if (!strcmp(name, "write-split")) {
		s->split = true;
	} else if (!strcmp(name, "write-wrong-key")) {
		s->then_wrong_key = true;
	} else if (!strcmp(name, "crc-error-split")) {
		s->bad_crc = true;
		s->split = true;
	} else if (!strcmp(name, "unknown-stag")) {
		/* A different STag index: never allocated by the victim. */
		s->stag = o->stag ^ 0x7fff0000u;
	} else if (!strcmp(name, "wrong-key")) {
		/* The right index, a guessed key: as good as no STag. */
		s->stag = (o->stag & ~0xffu) | ((o->stag + 1) & 0xffu);
	} else if (!strcmp(name, "bounds")) {
		s->to = o->to + o->len - s->len / 2;
	} else if (!strcmp(name, "wrong-pd")) {
		s->stag = o->stag2;
		s->to = o->to2;
	} else if (!strcmp(name, "to-wrap")) {
		s->to = 0 - (u64)(s->len / 2);
	} else if (!strcmp(name, "bad-ddp-ver")) {
		s->bad_dv = true;
	} else if (!strcmp(name, "crc-error")) {
		s->bad_crc = true;
	} else if (!strcmp(name, "bad-fpdu-len")) {
		/* ULPDU_Length 6: shorter than any DDP header. */
		s->ulpdu_len = 6;
	} else if (!strcmp(name, "read") || !strcmp(name, "read-bad-stag") ||
		   !strcmp(name, "read-bounds")) {
		read = true;
	} else {
		send = true;
	}

	if (send) {
		s->opcode = SOFTIW_RDMAP_SEND;
		s->qn = SOFTIW_RDMAP_QN_SEND;
		s->msn = c->msn[SOFTIW_RDMAP_QN_SEND];
		if (s->len > o->rlen)
			s->len = o->rlen;
		if (!strcmp(name, "send")) {
			c->msn[SOFTIW_RDMAP_QN_SEND]++;
		} else if (!strcmp(name, "bad-ddp-ver-untagged")) {
			s->bad_dv = true;
		} else if (!strcmp(name, "bad-qn")) {
			s->qn = 5;
		} else if (!strcmp(name, "msn-nobuf")) {
			s->msn += o->nrecv;
		} else if (!strcmp(name, "msn-range")) {
			s->msn -= 1;
		} else if (!strcmp(name, "bad-mo")) {
			s->mo = o->rlen + 4;
			s->len = 4;
		} else if (!strcmp(name, "too-long")) {
			s->len = o->rlen + 4;
		} else if (!strcmp(name, "bad-opcode")) {
			s->ctrl = softiw_rdmap_ctrl(0x9);
		} else if (!strcmp(name, "bad-rdmap-ver")) {
			s->ctrl = SOFTIW_RDMAP_SEND;	/* RV 0 */
		} else {
			return -1;
		}
	}
	if (read) {
		s->opcode = SOFTIW_RDMAP_READ_REQ;
		s->qn = SOFTIW_RDMAP_QN_READ_REQ;
		s->msn = c->msn[SOFTIW_RDMAP_QN_READ_REQ]++;
		s->len = 0;
		s->rr.sink_stag = 0x5a5a5a00u;
		s->rr.sink_to = 0x1000;
		s->rr.size = o->seglen;
		s->rr.src_stag = o->stag;
		s->rr.src_to = o->to;
		if (!strcmp(name, "read-bad-stag"))
			s->rr.src_stag ^= 0x7fff0000u;
		else if (!strcmp(name, "read-bounds"))
			s->rr.src_to = o->to + o->len - o->seglen / 2;
	}
	return 0;
}

/* xorshift64: the mutations' random numbers, replayable from the seed */
static u32 mut_rnd(u64 *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return (u32)(*r >> 16);
}

enum { MUT_HDR_BITS, MUT_HDR_BYTE, MUT_TRUNCATE, MUT_FPDU_LEN, MUT_FPDU_BIT,
       MUT_GARBAGE, MUT_NONE, MUT_KINDS };

/* Mutate the ULPDU before framing (CRC and Markers still made right). */
static u32 mutate_ulpdu(u64 *r, int kind, u8 *ulpdu, u32 hl, u32 room)
{
	u32 i, n;

	switch (kind) {
	case MUT_HDR_BITS:
		for (n = 1 + mut_rnd(r) % 3; n; n--) {
			i = mut_rnd(r) % (hl < 28 ? hl : 28);
			ulpdu[i] ^= 1u << (mut_rnd(r) % 8);
		}
		break;
	case MUT_HDR_BYTE:
		ulpdu[mut_rnd(r) % (hl < 28 ? hl : 28)] = (u8)mut_rnd(r);
		break;
	case MUT_TRUNCATE:
		n = mut_rnd(r) % (hl + 64);
		if (n > room)
			n = room;
		for (i = hl; i < n; i++)
			ulpdu[i] = (u8)mut_rnd(r);
		hl = n;
		break;
	}
	return hl;
}

/* Mutate the framed FPDU (CRC left as it was: the receiver must see it). */
static void mutate_fpdu(u64 *r, int kind, u8 *out, int n)
{
	if (kind == MUT_FPDU_LEN) {
		out[0] = (u8)mut_rnd(r);
		out[1] = (u8)mut_rnd(r);
	} else if (kind == MUT_FPDU_BIT) {
		out[mut_rnd(r) % n] ^= 1u << (mut_rnd(r) % 8);
	}
}

static int send_seg(struct rp_conn *c, const char *name, struct rp_seg *sp,
		    u64 *mut);

int rp_send_case(struct rp_conn *c, const char *name,
		 const struct rp_opts *o)
{
	struct rp_seg s;

	if (case_setup(c, name, o, &s)) {
		fprintf(stderr, "rawpeer: unknown case '%s'\n", name);
		return -1;
	}
	return send_seg(c, name, &s, NULL);
}

/*
 * @count FPDUs, each a Write, Send or Read Request (to the victim's
 * buffer, somewhere in or near it) mutated at random: header bits or
 * octets, a truncated or extended ULPDU (all with the CRC made right, so
 * that they reach DDP and RDMAP), a wrong ULPDU_Length or any bit of the
 * frame (CRC left wrong), garbage instead of an FPDU, or nothing.  Ends
 * early when the peer closes (it answered with a Terminate).
 */
int rp_send_mutated(struct rp_conn *c, const struct rp_opts *o, u64 seed,
		    int count)
{
	static const char *const base[] = { "write", "send", "read" };
	u64 r = seed * 0x9e3779b97f4a7c15ull + 1;
	static u8 junk[256];
	struct rp_seg s;
	int k, kind;
	u32 i, n;

	printf("MUTATE seed=%llu count=%d\n", (unsigned long long)seed, count);
	for (k = 0; k < count; k++) {
		const char *name = base[mut_rnd(&r) % 3];

		kind = mut_rnd(&r) % MUT_KINDS;
		if (kind == MUT_GARBAGE) {
			n = 1 + mut_rnd(&r) % sizeof(junk);
			for (i = 0; i < n; i++)
				junk[i] = (u8)mut_rnd(&r);
			printf("SENT garbage len=%u\n", n);
			if (rp_send_all(c->fd, junk, n))
				return 0;	/* the peer is gone */
			continue;
		}
		case_setup(c, name, o, &s);
		s.len = mut_rnd(&r) % (o->seglen * 2 + 1);
		if (s.opcode == SOFTIW_RDMAP_WRITE)
			s.to = o->to + mut_rnd(&r) % (o->len + 64);
		else if (s.opcode == SOFTIW_RDMAP_READ_REQ)
			s.rr.size = mut_rnd(&r) % (o->len + 64);
		s.mutation = kind;
		if (send_seg(c, name, &s, &r))
			return 0;
	}
	return 0;
}

static int send_seg(struct rp_conn *c, const char *name, struct rp_seg *sp,
		    u64 *mut)
{
	static u8 ulpdu[70000], out[80000];
	struct softiw_rdmap_hdr h;
	struct rp_seg s = *sp;
	u32 hl, i;
	int n;

	if (softiw_rdmap_hdr_init(&h, s.opcode, s.stag, s.to, s.msn, 0))
		return -1;
	h.ddp.last = true;
	h.ddp.qn = s.qn;
	h.ddp.mo = s.mo;
	if (s.ctrl >= 0)
		h.ddp.rsvdulp = s.ctrl;
	n = softiw_ddp_hdr_encode(&h.ddp, ulpdu, sizeof(ulpdu));
	if (n < 0)
		return -1;
	hl = n;
	if (s.opcode == SOFTIW_RDMAP_READ_REQ) {
		n = softiw_rdmap_read_req_encode(&s.rr, ulpdu + hl,
						 sizeof(ulpdu) - hl);
		if (n < 0)
			return -1;
		hl += n;
	}
	if (s.bad_dv)
		ulpdu[0] &= ~SOFTIW_DDP_DV_MASK;
	if (s.len > sizeof(ulpdu) - hl)
		return -1;
	for (i = 0; i < s.len; i++)
		ulpdu[hl + i] = 0xa5 ^ (u8)i;
	hl += s.len;
	if (s.ulpdu_len >= 0)
		hl = s.ulpdu_len;
	if (mut)
		hl = mutate_ulpdu(mut, s.mutation, ulpdu, hl, 65535);
	n = softiw_mpa_fpdu_build(&c->tx, ulpdu, hl, out, sizeof(out));
	if (n < 0)
		return -1;
	if (mut)
		mutate_fpdu(mut, s.mutation, out, n);
	if (s.bad_crc)
		out[n - 1] ^= 0x01;
	if (s.then_wrong_key) {
		int m;

		/* the right index with another key, in the FPDU right after */
		h.ddp.stag = (s.stag & ~0xffu) | ((s.stag + 1) & 0xffu);
		h.ddp.to = s.to + 256;
		if (softiw_ddp_hdr_encode(&h.ddp, ulpdu, sizeof(ulpdu)) < 0)
			return -1;
		m = softiw_mpa_fpdu_build(&c->tx, ulpdu, hl, out + n,
					  sizeof(out) - n);
		if (m < 0)
			return -1;
		printf("SENT %s (then) stag=0x%08x to=0x%llx\n", name,
		       h.ddp.stag, (unsigned long long)h.ddp.to);
		n += m;
	}
	printf("SENT %s ulpdu_len=%u stag=0x%08x to=0x%llx qn=%u msn=%u mo=%u len=%u\n",
	       name, hl, s.stag, (unsigned long long)s.to, s.qn, s.msn, s.mo,
	       s.len);
	fflush(stdout);
	if (s.split) {
		/*
		 * The first part waits in the receiver's queue; the rest joins
		 * it in the same skb (TCP coalesces) or in the next one.
		 */
		if (rp_send_all(c->fd, out, n / 2))
			return -1;
		usleep(200000);
		return rp_send_all(c->fd, out + n / 2, n - n / 2);
	}
	return rp_send_all(c->fd, out, n);
}

/* The reference receiver's state: the peer's buffers, from the options. */
struct rp_ref {
	const struct rp_opts *o;
	u32 send_first;		/* MSN of the next untagged Send buffer */
	u32 send_used;		/* buffers consumed */
	struct softiw_ddp_rx_msg msg[SOFTIW_RDMAP_NR_QN + 1];
};

static int ref_stag(void *ctx, u32 stag, struct softiw_ddp_stag_info *info)
{
	const struct rp_opts *o = ((struct rp_ref *)ctx)->o;

	info->qp = SOFTIW_DDP_ANY_QP;
	info->access = SOFTIW_DDP_ACCESS_REMOTE_WRITE |
		       SOFTIW_DDP_ACCESS_REMOTE_READ;
	if (stag == o->stag) {
		info->pd = 1;
		info->base = o->to;
		info->len = o->len;
		return 0;
	}
	if (stag == o->stag2) {
		info->pd = 2;
		info->base = o->to2;
		info->len = o->len2;
		return 0;
	}
	return -1;
}

static int ref_ubuf(void *ctx, u32 qn, u32 msn,
		    struct softiw_ddp_ubuf_info *info)
{
	struct rp_ref *r = ctx;

	if (qn == SOFTIW_RDMAP_QN_SEND) {
		info->msn_first = r->send_first;
		info->nr_bufs = r->o->nrecv - r->send_used;
		info->len = r->o->rlen;
	} else {
		/* Read Requests and Terminates: no posted buffers needed. */
		info->msn_first = msn;
		info->nr_bufs = 1;
		info->len = SOFTIW_RDMAP_TERM_MAX_LEN;
	}
	return 0;
}

/* RFC 5041 section 7.1 in receive order; returns a wire status. */
static u32 ref_check(struct rp_ref *r, const u8 *ulpdu, u32 len,
		     const struct softiw_rdmap_hdr *h)
{
	struct softiw_ddp_stream s = {
		.pd = 1, .qp = 1, .nr_qn = SOFTIW_RDMAP_NR_QN,
		.stag_lookup = ref_stag, .ubuf_lookup = ref_ubuf, .ctx = r,
	};
	struct softiw_rdmap_read_req rr;
	u32 plen = len - h->hdr_len, st;
	int slot = h->ddp.tagged ? SOFTIW_RDMAP_NR_QN : (int)h->ddp.qn;

	if (h->ddp.tagged)
		st = softiw_ddp_validate_tagged(&s, &h->ddp, plen,
						SOFTIW_DDP_ACCESS_REMOTE_WRITE,
						NULL);
	else
		st = softiw_ddp_validate_untagged(&s, &h->ddp, plen, NULL);
	if (st)
		return st;
	st = softiw_ddp_rx_msg_check(&r->msg[slot], &h->ddp, plen);
	if (st)
		return st;
	if (h->opcode == SOFTIW_RDMAP_READ_REQ) {
		st = softiw_rdmap_read_req_decode(ulpdu +
						  SOFTIW_DDP_UNTAGGED_HDR_LEN,
						  len - SOFTIW_DDP_UNTAGGED_HDR_LEN,
						  &rr);
		if (!st)
			st = softiw_rdmap_read_req_validate(&s, &rr);
		if (st)
			return st;
	}
	if (!h->ddp.tagged && h->ddp.qn == SOFTIW_RDMAP_QN_SEND &&
	    h->ddp.last) {
		r->send_first++;
		r->send_used++;
	}
	return SOFTIW_WIRE_OK;
}

static int send_term(struct rp_conn *c, u32 err, const u8 *fpdu,
		     size_t fpdu_len)
{
	static u8 ulpdu[SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_TERM_MAX_LEN];
	static u8 out[sizeof(ulpdu) + 64];
	struct softiw_rdmap_term t;
	int n;

	softiw_rdmap_term_for_error(err, fpdu, fpdu_len, &t);
	n = softiw_rdmap_term_encode(&t, c->msn[SOFTIW_RDMAP_QN_TERMINATE]++,
				     ulpdu, sizeof(ulpdu));
	if (n < 0)
		return -1;
	n = softiw_mpa_fpdu_build(&c->tx, ulpdu, n, out, sizeof(out));
	if (n < 0)
		return -1;
	printf("SENT-TERMINATE layer=%u type=%u code=%u\n", t.layer, t.etype,
	       t.ecode);
	fflush(stdout);
	return rp_send_all(c->fd, out, n);
}

static void print_fpdu(const u8 *ulpdu, u32 len,
		       const struct softiw_rdmap_hdr *h)
{
	struct softiw_rdmap_term t;
	u32 st;

	if (h->opcode == SOFTIW_RDMAP_TERMINATE && !h->ddp.tagged) {
		st = softiw_rdmap_term_parse(ulpdu + SOFTIW_DDP_UNTAGGED_HDR_LEN,
					     len - SOFTIW_DDP_UNTAGGED_HDR_LEN,
					     &t);
		if (st) {
			printf("TERMINATE malformed status=0x%08x\n", st);
			return;
		}
		printf("TERMINATE layer=%u type=%u code=%u m=%d d=%d r=%d seglen=%u ddp_hdr_len=%u\n",
		       t.layer, t.etype, t.ecode, t.m, t.d, t.r,
		       t.ddp_seg_len, t.d ? t.ddp_hdr_len : 0);
		return;
	}
	if (h->ddp.tagged)
		printf("FPDU opcode=%u last=%d stag=0x%08x to=0x%llx len=%u\n",
		       h->opcode, h->ddp.last, h->ddp.stag,
		       (unsigned long long)h->ddp.to, len - h->hdr_len);
	else
		printf("FPDU opcode=%u last=%d qn=%u msn=%u mo=%u len=%u\n",
		       h->opcode, h->ddp.last, h->ddp.qn, h->ddp.msn,
		       h->ddp.mo, len - h->hdr_len);
}

/*
 * Receive and print up to @max FPDUs (0: until EOF or timeout).  With
 * @validate, act as the reference receiver: the first invalid FPDU is
 * answered with a Terminate and the connection is shut down.
 * Returns 0 on EOF or after @max FPDUs, 1 on a timeout, -1 on errors.
 */
int rp_recv_print(struct rp_conn *c, const struct rp_opts *o, bool validate,
		  int max)
{
	static struct rp_ref ref;
	struct softiw_rdmap_hdr h;
	struct softiw_mpa_fpdu f;
	int seen = 0;
	u32 st;

	ref.o = o;
	ref.send_first = SOFTIW_DDP_MSN_INITIAL;
	for (;;) {
		st = softiw_mpa_fpdu_parse(&c->rx, c->rbuf, c->rfill, NULL, 0,
					   &f);
		if (st == SOFTIW_MPA_NEED_MORE) {
			ssize_t n;

			if (c->rfill == sizeof(c->rbuf))
				return -1;
			n = recv(c->fd, c->rbuf + c->rfill,
				 sizeof(c->rbuf) - c->rfill, 0);
			if (n == 0) {
				printf("EOF\n");
				return 0;
			}
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				printf("TIMEOUT\n");
				return 1;
			}
			if (n < 0) {
				/* A reset after the Terminate is a close too. */
				printf("RESET errno=%d\n", errno);
				return 0;
			}
			c->rfill += n;
			continue;
		}
		if (st) {
			printf("RXERR status=0x%08x\n", st);
			if (validate)
				send_term(c, st, NULL, 0);
			goto stop;
		}
		st = softiw_rdmap_hdr_decode(f.ulpdu, f.ulpdu_len, &h);
		if (st == SOFTIW_WIRE_OK || !validate)
			print_fpdu(f.ulpdu, f.ulpdu_len, &h);
		if (validate && st == SOFTIW_WIRE_OK &&
		    h.opcode != SOFTIW_RDMAP_TERMINATE)
			st = ref_check(&ref, f.ulpdu, f.ulpdu_len, &h);
		if (validate && st) {
			send_term(c, st, f.ulpdu - SOFTIW_MPA_HDR_LEN,
				  f.ulpdu_len + SOFTIW_MPA_HDR_LEN);
			goto stop;
		}
		memmove(c->rbuf, c->rbuf + f.wire_len, c->rfill - f.wire_len);
		c->rfill -= f.wire_len;
		if (max && ++seen >= max)
			return 0;
	}
stop:
	fflush(stdout);
	shutdown(c->fd, SHUT_WR);
	return 0;
}
