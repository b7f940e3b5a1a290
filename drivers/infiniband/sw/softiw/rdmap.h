/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMAP (RFC 5040): the RDMAP Control field carried in DDP RsvdULP[0:7],
 * every opcode with its buffer model and queue, the Invalidate STag of
 * the Send-with-Invalidate variants, the Read Request body, the
 * Terminate message, and the one mapping from any error the wire core
 * detects to the Terminate the RFCs prescribe.  Pure functions over
 * caller buffers; see wire_port.h for the status convention.
 *
 * Locking: none here.
 */
#ifndef SOFTIW_RDMAP_H
#define SOFTIW_RDMAP_H

#include "wire_port.h"
#include "ddp.h"

/* RDMAP Control octet: |RV(2)|Rsv(2)|OpCode(4)| */
#define SOFTIW_RDMAP_RV_MASK		0xc0
#define SOFTIW_RDMAP_RV_SHIFT		6
#define SOFTIW_RDMAP_VERSION		1
#define SOFTIW_RDMAP_RSV_MASK		0x30	/* sent 0, not checked */
#define SOFTIW_RDMAP_OPCODE_MASK	0x0f

enum softiw_rdmap_opcode {
	SOFTIW_RDMAP_WRITE = 0x0,
	SOFTIW_RDMAP_READ_REQ = 0x1,
	SOFTIW_RDMAP_READ_RESP = 0x2,
	SOFTIW_RDMAP_SEND = 0x3,
	SOFTIW_RDMAP_SEND_INV = 0x4,
	SOFTIW_RDMAP_SEND_SE = 0x5,
	SOFTIW_RDMAP_SEND_SE_INV = 0x6,
	SOFTIW_RDMAP_TERMINATE = 0x7,
	SOFTIW_RDMAP_OPCODE_MAX = SOFTIW_RDMAP_TERMINATE,
};

/* Untagged queues as RDMAP uses them (DDP QN). */
#define SOFTIW_RDMAP_QN_SEND		0
#define SOFTIW_RDMAP_QN_READ_REQ	1
#define SOFTIW_RDMAP_QN_TERMINATE	2
#define SOFTIW_RDMAP_NR_QN		3

#define SOFTIW_RDMAP_READ_REQ_LEN	28	/* Read Request body */
#define SOFTIW_RDMAP_TERM_CTRL_LEN	4
#define SOFTIW_RDMAP_TERM_SEGLEN_LEN	2	/* DDP Segment Length */
#define SOFTIW_RDMAP_TERM_RDMA_HDR_LEN	SOFTIW_RDMAP_READ_REQ_LEN
/* Largest Terminate body: control + seg len + untagged hdr + RDMA hdr. */
#define SOFTIW_RDMAP_TERM_MAX_LEN					\
	(SOFTIW_RDMAP_TERM_CTRL_LEN + SOFTIW_RDMAP_TERM_SEGLEN_LEN +	\
	 SOFTIW_DDP_UNTAGGED_HDR_LEN + SOFTIW_RDMAP_TERM_RDMA_HDR_LEN)

/* Terminate Control header-copy flags (in the low 16 bits). */
#define SOFTIW_RDMAP_TERM_M		0x8000	/* DDP Segment Length valid */
#define SOFTIW_RDMAP_TERM_D		0x4000	/* DDP header included */
#define SOFTIW_RDMAP_TERM_R		0x2000	/* RDMA header included */
#define SOFTIW_RDMAP_TERM_RSVD		0x1fff

/* RDMAP error numbers (RFC 5040 section 4.8, Terminate Layer 0). */
enum softiw_rdmap_error {
	/* Linux siw sends code 0xff for a local catastrophic error. */
	SOFTIW_RDMAP_ERR_CATASTROPHIC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x0, 0xff),
	SOFTIW_RDMAP_ERR_INVALID_STAG = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x00),
	SOFTIW_RDMAP_ERR_BOUNDS = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x01),
	SOFTIW_RDMAP_ERR_ACCESS = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x02),
	SOFTIW_RDMAP_ERR_NOT_ASSOCIATED = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x03),
	SOFTIW_RDMAP_ERR_TO_WRAP = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x04),
	SOFTIW_RDMAP_ERR_INV_PROT = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0x09),
	SOFTIW_RDMAP_ERR_PROT_UNSPEC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x1, 0xff),
	SOFTIW_RDMAP_ERR_VERSION = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0x05),
	SOFTIW_RDMAP_ERR_OPCODE = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0x06),
	/* e.g. an inbound Read Request beyond the negotiated IRD */
	SOFTIW_RDMAP_ERR_STREAM_CATASTROPHIC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0x07),
	SOFTIW_RDMAP_ERR_GLOBAL_CATASTROPHIC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0x08),
	SOFTIW_RDMAP_ERR_INV_OP = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0x09),
	SOFTIW_RDMAP_ERR_OP_UNSPEC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_RDMAP, 0x2, 0xff),
	/* Terminate body too short or with reserved layer (parser only) */
	SOFTIW_RDMAP_ERR_TERM_FORMAT = SOFTIW_WIRE_ERR(1, SOFTIW_LAYER_RDMAP, 0x2, 0xff),
};

/* What each opcode is on the wire. */
struct softiw_rdmap_opinfo {
	bool tagged;		/* DDP T */
	u8 qn;			/* untagged queue */
	u8 hdr_len;		/* DDP header + RDMAP fixed body */
	bool has_inval_stag;	/* RsvdULP[8:39] is the Invalidate STag */
};

/* Table lookup; NULL for an undefined opcode (0x8..0xf). */
const struct softiw_rdmap_opinfo *softiw_rdmap_opinfo(u8 opcode);

/* RDMAP Control octet for @opcode with RV = 1. */
static inline u8 softiw_rdmap_ctrl(u8 opcode)
{
	return (SOFTIW_RDMAP_VERSION << SOFTIW_RDMAP_RV_SHIFT) |
	       (opcode & SOFTIW_RDMAP_OPCODE_MASK);
}

/* A decoded RDMAP message header (one DDP segment's view). */
struct softiw_rdmap_hdr {
	struct softiw_ddp_hdr ddp;
	u8 opcode;
	u32 inval_stag;		/* Send with (SE and) Invalidate only */
	u32 hdr_len;		/* octets of DDP header + RDMAP fixed body */
};

/*
 * softiw_rdmap_hdr_init() - fill @h->ddp for the first segment of an
 * @opcode message: T, RsvdULP (Control octet, Invalidate STag), QN for
 * untagged opcodes, @stag/@to for tagged ones, @msn for untagged ones.
 * Returns 0 or -EINVAL for an undefined opcode.
 */
int softiw_rdmap_hdr_init(struct softiw_rdmap_hdr *h, u8 opcode,
			  u32 stag, u64 to, u32 msn, u32 inval_stag);

/*
 * softiw_rdmap_hdr_decode() - decode and check the DDP + RDMAP headers at
 * the start of a ULPDU of @len octets.  Reads at most @len octets and at
 * most the opcode's fixed header.  Order of checks: DDP header length
 * (SOFTIW_DDP_ERR_SHORT), DV (SOFTIW_DDP_ERR_*_VERSION), RV
 * (SOFTIW_RDMAP_ERR_VERSION), opcode defined and its T matching
 * (SOFTIW_RDMAP_ERR_OPCODE), QN matching the opcode for untagged ones
 * (SOFTIW_DDP_ERR_INVALID_QN), the opcode's fixed body present
 * (SOFTIW_DDP_ERR_SHORT).  On a version, opcode or QN error @h is still
 * filled from what was readable, for the Terminate.
 */
u32 softiw_rdmap_hdr_decode(const u8 *buf, size_t len,
			    struct softiw_rdmap_hdr *h);

/* RDMA Read Request body (28 octets after the untagged DDP header). */
struct softiw_rdmap_read_req {
	u32 sink_stag;
	u64 sink_to;
	u32 size;		/* RDMA Read Message Size; 0 is the Read RTR */
	u32 src_stag;
	u64 src_to;
};

/* Write the 28-octet body; returns 28 or -ENOSPC. */
int softiw_rdmap_read_req_encode(const struct softiw_rdmap_read_req *rr,
				 u8 *buf, size_t len);

/* Decode the 28-octet body; returns SOFTIW_WIRE_OK or SOFTIW_DDP_ERR_SHORT. */
u32 softiw_rdmap_read_req_decode(const u8 *buf, size_t len,
				 struct softiw_rdmap_read_req *rr);

/*
 * softiw_rdmap_read_req_validate() - the Data Source's check of a Read
 * Request's source buffer.  Uses the DDP tagged validation (lookup, PD
 * and QP association, remote-read access, bounds, wrap) and reports it
 * in RDMAP's own codes (Layer 0, EType 1).  A zero-size Read (the RTR)
 * is not checked.
 */
u32 softiw_rdmap_read_req_validate(const struct softiw_ddp_stream *s,
				   const struct softiw_rdmap_read_req *rr);

/* A Terminate message body. */
struct softiw_rdmap_term {
	u8 layer;		/* SOFTIW_LAYER_* */
	u8 etype;
	u8 ecode;
	bool m;			/* @ddp_seg_len valid */
	bool d;			/* @ddp_hdr holds the terminated DDP header */
	bool r;			/* @rdma_hdr holds the terminated RDMA header */
	u16 ddp_seg_len;
	u8 ddp_hdr_len;		/* 14 or 18 when @d */
	u8 ddp_hdr[SOFTIW_DDP_UNTAGGED_HDR_LEN];
	u8 rdma_hdr[SOFTIW_RDMAP_TERM_RDMA_HDR_LEN];
};

/*
 * softiw_rdmap_term_for_error() - THE mapping from a wire-core error to
 * the Terminate to send.  @err is any SOFTIW_*_ERR_* value (other values
 * give a local catastrophic RDMAP Terminate).  @fpdu/@fpdu_len is the
 * offending FPDU from its ULPDU_Length field on (may be NULL/0 when there
 * is none, e.g. a bad Reply frame).  Headers are copied only when the
 * error concerns a segment whose header is known to be well-formed:
 * DDP buffer errors and RDMAP protection/operation errors get M, D, the
 * ULPDU_Length as DDP Segment Length and the 14/18-octet DDP header, plus
 * R and the 28-octet RDMA header when the segment is a complete Read
 * Request.  LLP errors, catastrophic errors, version and opcode errors
 * carry no headers (the layout is unknown).  Fills @t; never fails.
 */
void softiw_rdmap_term_for_error(u32 err, const u8 *fpdu, size_t fpdu_len,
				 struct softiw_rdmap_term *t);

/*
 * softiw_rdmap_term_encode() - write a whole Terminate ULPDU to @buf:
 * untagged DDP header (QN 2, @msn, MO 0, L), RDMAP Control (opcode 7),
 * Terminate Control and the copied headers @t selects.  Returns the ULPDU
 * length or -ENOSPC.
 */
int softiw_rdmap_term_encode(const struct softiw_rdmap_term *t, u32 msn,
			     u8 *buf, size_t len);

/*
 * softiw_rdmap_term_parse() - parse a received Terminate body (the octets
 * after the untagged DDP header, @len of them).  Fewer than 4 octets is
 * SOFTIW_DDP_ERR_SHORT; Layer 3..15 and a D or R flag
 * without room for the header are SOFTIW_RDMAP_ERR_TERM_FORMAT; reserved
 * bits are ignored.  The copied DDP header's length follows its T bit.
 * LLP Terminates with EType 0 (siw) and 3 (cxgb4/irdma) are both accepted.
 */
u32 softiw_rdmap_term_parse(const u8 *buf, size_t len,
			    struct softiw_rdmap_term *t);

/* The u32 status a received Terminate stands for (layer/etype/code). */
static inline u32 softiw_rdmap_term_status(const struct softiw_rdmap_term *t)
{
	return SOFTIW_WIRE_ERR(0, t->layer, t->etype, t->ecode);
}

#endif /* SOFTIW_RDMAP_H */
