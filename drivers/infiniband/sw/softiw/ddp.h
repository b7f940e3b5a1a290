/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DDP (RFC 5041): tagged and untagged segment headers, segmentation of a
 * message into MULPDU-sized segments, and the receive validation of
 * section 7.1 with the error numbers of section 7.2.  Pure functions over
 * caller buffers; see wire_port.h for the status convention.
 *
 * A DDP header here starts at the DDP Control octet, i.e. just after the
 * 2-octet MPA ULPDU_Length: it is the ULPDU as MPA hands it over.
 *
 * Locking: none here.  The validators call back into the caller (STag and
 * untagged-buffer lookups) synchronously; whatever the callbacks need to
 * be stable (the STag table entry, the receive queue) must be held by the
 * caller for the duration of the call and until placement is done.
 */
#ifndef SOFTIW_DDP_H
#define SOFTIW_DDP_H

#include "wire_port.h"

#define SOFTIW_DDP_TAGGED_HDR_LEN	14
#define SOFTIW_DDP_UNTAGGED_HDR_LEN	18

/* DDP Control octet. */
#define SOFTIW_DDP_FLAG_T		0x80	/* Tagged buffer model */
#define SOFTIW_DDP_FLAG_L		0x40	/* Last segment of the message */
#define SOFTIW_DDP_RSVD_MASK		0x3c	/* sent 0, not checked */
#define SOFTIW_DDP_DV_MASK		0x03
#define SOFTIW_DDP_VERSION		1

/* MSN of the first message on every queue; it wraps 0xffffffff -> 0. */
#define SOFTIW_DDP_MSN_INITIAL		1u

/* DDP error numbers of RFC 5041 section 7.2 (Terminate Layer 1). */
enum softiw_ddp_error {
	SOFTIW_DDP_ERR_CATASTROPHIC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x0, 0x00),
	SOFTIW_DDP_ERR_INVALID_STAG = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x1, 0x00),
	/*
	 * The STag exists but its buffer does not allow this placement
	 * (access rights).  DDP has no own code for it: it is reported as
	 * Invalid STag, as Linux siw does, but stays distinct here so RDMAP
	 * can report its Access Rights Violation instead.
	 */
	SOFTIW_DDP_ERR_ACCESS = SOFTIW_WIRE_ERR(1, SOFTIW_LAYER_DDP, 0x1, 0x00),
	SOFTIW_DDP_ERR_BOUNDS = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x1, 0x01),
	SOFTIW_DDP_ERR_NOT_ASSOCIATED = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x1, 0x02),
	SOFTIW_DDP_ERR_TO_WRAP = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x1, 0x03),
	SOFTIW_DDP_ERR_TAGGED_VERSION = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x1, 0x04),
	SOFTIW_DDP_ERR_INVALID_QN = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x01),
	SOFTIW_DDP_ERR_NO_BUFFER = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x02),
	SOFTIW_DDP_ERR_MSN_RANGE = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x03),
	SOFTIW_DDP_ERR_INVALID_MO = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x04),
	SOFTIW_DDP_ERR_TOO_LONG = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x05),
	SOFTIW_DDP_ERR_UNTAGGED_VERSION = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_DDP, 0x2, 0x06),
	/*
	 * The ULPDU is shorter than the DDP header: MPA's length and the
	 * header disagree (Terminate LLP code 0x03, as Linux siw sends).
	 */
	SOFTIW_DDP_ERR_SHORT = SOFTIW_WIRE_ERR(2, SOFTIW_LAYER_LLP, 0x0, 0x03),
};

/*
 * A DDP segment header.  RsvdULP is split the way RDMAP uses it:
 * @rsvdulp holds RsvdULP[0:7] (the RDMAP Control octet) and @rsvdulp_ext
 * RsvdULP[8:39] (untagged only; RDMAP's Invalidate STag).  Tagged headers
 * use @stag and @to; untagged ones @qn, @msn and @mo.
 */
struct softiw_ddp_hdr {
	bool tagged;		/* T */
	bool last;		/* L */
	u8 dv;			/* DDP version; 1 on transmit */
	u8 rsvdulp;		/* RsvdULP[0:7] */
	u32 rsvdulp_ext;	/* RsvdULP[8:39], untagged */
	u32 stag;		/* tagged */
	u64 to;			/* tagged */
	u32 qn;			/* untagged */
	u32 msn;		/* untagged */
	u32 mo;			/* untagged */
};

static inline u32 softiw_ddp_hdr_len(bool tagged)
{
	return tagged ? SOFTIW_DDP_TAGGED_HDR_LEN : SOFTIW_DDP_UNTAGGED_HDR_LEN;
}

/* Next MSN on a queue: +1 modulo 2^32 (0xffffffff wraps to 0). */
static inline u32 softiw_ddp_msn_next(u32 msn)
{
	return msn + 1;
}

/*
 * softiw_ddp_hdr_encode() - write @h (14 or 18 octets) to @buf.  DV is
 * written as SOFTIW_DDP_VERSION whatever @h->dv says, Rsvd as 0.  Returns
 * the header length, or -ENOSPC if @len is too small.
 */
int softiw_ddp_hdr_encode(const struct softiw_ddp_hdr *h, u8 *buf,
			  size_t len);

/*
 * softiw_ddp_hdr_decode() - decode the header at the start of a ULPDU of
 * @len octets.  Reads at most the header.  Returns SOFTIW_WIRE_OK;
 * SOFTIW_DDP_ERR_SHORT if @len is less than the header that T selects;
 * SOFTIW_DDP_ERR_TAGGED_VERSION / _UNTAGGED_VERSION if DV is not 1 (the
 * header is still decoded into @h so a Terminate can copy it).  The
 * payload is the @len - softiw_ddp_hdr_len(h->tagged) octets after it.
 */
u32 softiw_ddp_hdr_decode(const u8 *buf, size_t len,
			  struct softiw_ddp_hdr *h);

/*
 * Segmentation (RFC 5041 section 5.2).  Initialise with the message's
 * first header (tagged: STag and initial TO; untagged: QN, MSN; RsvdULP
 * either way), then call softiw_ddp_seg_next() until it returns false.
 */
struct softiw_ddp_segmenter {
	struct softiw_ddp_hdr base;
	u32 msg_len;		/* ULP message length, < 2^32 */
	u32 max_payload;	/* MULPDU - header length */
	u32 off;		/* offset of the next segment's payload */
	bool done;
};

/*
 * softiw_ddp_seg_init() - returns 0, or -EINVAL if @mulpdu cannot hold
 * the header plus at least one payload octet.
 */
int softiw_ddp_seg_init(struct softiw_ddp_segmenter *s,
			const struct softiw_ddp_hdr *base, u32 msg_len,
			u32 mulpdu);

/*
 * softiw_ddp_seg_next() - header and payload range of the next segment:
 * MO (untagged) or TO (tagged) = start + offset, L only on the last one,
 * every other field as in the base header.  A zero-length message gives
 * exactly one segment.  Returns false when all segments were produced.
 */
bool softiw_ddp_seg_next(struct softiw_ddp_segmenter *s,
			 struct softiw_ddp_hdr *h, u32 *payload_off,
			 u32 *payload_len);

/* Number of segments softiw_ddp_seg_next() will produce (at least 1). */
u32 softiw_ddp_seg_count(u32 msg_len, u32 mulpdu, bool tagged);

/* Access a tagged buffer must allow (bits of softiw_ddp_stag_info.access). */
#define SOFTIW_DDP_ACCESS_REMOTE_WRITE	0x1	/* Write, Read Response sink */
#define SOFTIW_DDP_ACCESS_REMOTE_READ	0x2	/* Read Request source */

/* Wildcard for softiw_ddp_stag_info.qp: STag scoped to a whole PD. */
#define SOFTIW_DDP_ANY_QP		0xffffffffu

/* What the caller knows about a registered STag. */
struct softiw_ddp_stag_info {
	u32 pd;			/* protection domain id */
	u32 qp;			/* stream (QP) id, or SOFTIW_DDP_ANY_QP */
	u64 base;		/* first valid TO */
	u64 len;		/* octets valid from @base; base + len <= 2^64 */
	u32 access;		/* SOFTIW_DDP_ACCESS_* allowed */
};

/*
 * STag lookup callback: fill @info for a valid STag and return 0, or
 * return non-zero if the STag is not valid (unknown or revoked).
 */
typedef int (*softiw_ddp_stag_lookup_fn)(void *ctx, u32 stag,
					 struct softiw_ddp_stag_info *info);

/*
 * What the caller knows about untagged buffers on queue (@qn, @msn):
 * buffers are available for MSNs @msn_first .. @msn_first + @nr_bufs - 1
 * (mod 2^32), and @len is the length of the one for the asked-for MSN
 * (only read when that MSN lies in the window).
 */
struct softiw_ddp_ubuf_info {
	u32 msn_first;
	u32 nr_bufs;
	u64 len;
};

/* Untagged lookup callback: fill @info and return 0 (always, for a QN
 * below softiw_ddp_stream.nr_qn).
 */
typedef int (*softiw_ddp_ubuf_lookup_fn)(void *ctx, u32 qn, u32 msn,
					 struct softiw_ddp_ubuf_info *info);

/* The receiving DDP stream, as the validators see it. */
struct softiw_ddp_stream {
	u32 pd;			/* the stream's protection domain */
	u32 qp;			/* the stream's id */
	u32 nr_qn;		/* valid QNs are 0 .. nr_qn - 1 */
	softiw_ddp_stag_lookup_fn stag_lookup;
	softiw_ddp_ubuf_lookup_fn ubuf_lookup;
	void *ctx;		/* passed to both callbacks */
};

/*
 * softiw_ddp_validate_tagged() - RFC 5041 section 7.1, tagged, for a
 * segment carrying @payload_len octets at @h->to into @h->stag, needing
 * @access.  A zero-length segment passes without any look at STag/TO
 * (section 5.2).  Order: STag valid (lookup) -> Invalid STag; associated
 * with this stream's PD and QP -> Not Associated; access allowed ->
 * SOFTIW_DDP_ERR_ACCESS; TO below base or above the end -> Bounds;
 * TO + length wraps 64 bits -> TO Wrap; TO + length past the end ->
 * Bounds.  @info (may be NULL) receives the lookup result on success.
 */
u32 softiw_ddp_validate_tagged(const struct softiw_ddp_stream *s,
			       const struct softiw_ddp_hdr *h, u32 payload_len,
			       u32 access, struct softiw_ddp_stag_info *info);

/*
 * softiw_ddp_validate_untagged() - RFC 5041 section 7.1, untagged.
 * Order: QN < nr_qn -> Invalid QN; a buffer for (QN, MSN): none posted or
 * MSN past the last posted one -> No Buffer; MO within the buffer ->
 * Invalid MO; MO + length within it -> Too Long; MSN not before the first
 * available one (i.e. inside the window) -> MSN Range.  An MSN behind the
 * window has no buffer to measure MO against and reports MSN Range.
 * Zero-length segments are checked the same way (a zero-length Send
 * still consumes a buffer).  @info (may be NULL) receives the lookup.
 */
u32 softiw_ddp_validate_untagged(const struct softiw_ddp_stream *s,
				 const struct softiw_ddp_hdr *h,
				 u32 payload_len,
				 struct softiw_ddp_ubuf_info *info);

/*
 * In-message consistency for in-order reception: every segment of one
 * message carries the same STag (tagged) or QN and MSN (untagged), and
 * continues at the TO/MO where the previous one ended.
 */
struct softiw_ddp_rx_msg {
	bool active;		/* a message has begun and not ended (no L) */
	bool tagged;
	u32 stag;
	u64 next_to;
	u32 qn;
	u32 msn;
	u32 next_mo;
};

/*
 * softiw_ddp_rx_msg_check() - check segment @h (@payload_len octets)
 * against @m and update @m.  Errors: STag changed -> Invalid STag; TO not
 * contiguous -> Bounds; QN changed -> Invalid QN; MSN changed -> MSN
 * Range; MO not contiguous (or nonzero on a first segment) -> Invalid MO.
 * A first segment (m->active false) only checks MO == 0 when untagged.
 * Messages of different QNs and tagged messages may interleave on the
 * wire, so the caller keeps one state per QN and one for tagged
 * messages; a tagged segment against an untagged state (or the reverse)
 * is the caller's bug and gives SOFTIW_DDP_ERR_CATASTROPHIC.
 */
u32 softiw_ddp_rx_msg_check(struct softiw_ddp_rx_msg *m,
			    const struct softiw_ddp_hdr *h, u32 payload_len);

#endif /* SOFTIW_DDP_H */
