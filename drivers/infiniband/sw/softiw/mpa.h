/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MPA (RFC 5044) and MPA v2 enhanced connection setup (RFC 6581): the
 * MPA Request/Reply frames, FPDU framing (ULPDU_Length, PAD, CRC32c),
 * Markers and the MULPDU rule.  Pure functions over caller buffers; see
 * wire_port.h for the status convention.
 *
 * Stream positions: Markers sit every SOFTIW_MPA_MARKER_PERIOD octets of
 * TCP sequence space counted from the first octet of the first FPDU of a
 * direction.  The TX and RX stream states below keep that position
 * (modulo 2^32, which is a multiple of the period) so each direction's
 * Markers are handled independently.
 *
 * Locking: none here; a stream state belongs to one direction of one
 * connection and its owner serialises access.
 */
#ifndef SOFTIW_MPA_H
#define SOFTIW_MPA_H

#include "wire_port.h"

#define SOFTIW_MPA_KEY_LEN		16
#define SOFTIW_MPA_KEY_REQ		"MPA ID Req Frame"
#define SOFTIW_MPA_KEY_REP		"MPA ID Rep Frame"
#define SOFTIW_MPA_RR_HDR_LEN		20	/* key + flags + rev + PD_Length */
#define SOFTIW_MPA_PD_MAX		512	/* RFC 5044 limit on PD_Length */
#define SOFTIW_MPA_RR_MAX_LEN		(SOFTIW_MPA_RR_HDR_LEN + SOFTIW_MPA_PD_MAX)

/* Flags octet (offset 16) of a Request/Reply frame. */
#define SOFTIW_MPA_FLAG_M		0x80	/* Markers wanted towards sender */
#define SOFTIW_MPA_FLAG_C		0x40	/* CRC wanted */
#define SOFTIW_MPA_FLAG_R		0x20	/* Reject (Reply only) */
#define SOFTIW_MPA_FLAG_ENHANCED	0x10	/* RFC 6581 IRD/ORD in PD */
#define SOFTIW_MPA_FLAG_RES		0x0f	/* sent 0, ignored on receive */

#define SOFTIW_MPA_REV1			1
#define SOFTIW_MPA_REV2			2

/* RFC 6581 IRD/ORD words, the first 4 octets of the private data. */
#define SOFTIW_MPA_V2_LEN		4
#define SOFTIW_MPA_V2_P2P		0x8000	/* IRD word: peer-to-peer, RTR */
#define SOFTIW_MPA_V2_RTR_SEND		0x4000	/* IRD word: zero-length Send */
#define SOFTIW_MPA_V2_RTR_WRITE		0x8000	/* ORD word: zero-length Write */
#define SOFTIW_MPA_V2_RTR_READ		0x4000	/* ORD word: zero-length Read */
#define SOFTIW_MPA_V2_IRD_ORD_MASK	0x3fff

/* FPDU layout. */
#define SOFTIW_MPA_HDR_LEN		2	/* ULPDU_Length */
#define SOFTIW_MPA_CRC_LEN		4
#define SOFTIW_MPA_MARKER_LEN		4
#define SOFTIW_MPA_MARKER_PERIOD	512
#define SOFTIW_MPA_FPDU_MIN		8	/* 2 + 0 + 2 pad + 4 */

/*
 * MPA errors.  All map to Terminate Layer 2 (LLP); EType 0 as sent by
 * Linux siw.  The connection-frame errors share code 0x04 and differ in
 * the detail number so a caller (and a test) can tell them apart.
 */
enum softiw_mpa_error {
	SOFTIW_MPA_ERR_CRC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_LLP, 0, 0x02),
	/* Marker FPDUPTR or ULPDU_Length inconsistent with the stream. */
	SOFTIW_MPA_ERR_MARKER = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_LLP, 0, 0x03),
	/* ULPDU shorter than the DDP/RDMAP header it must hold. */
	SOFTIW_MPA_ERR_ULPDU_SHORT = SOFTIW_WIRE_ERR(1, SOFTIW_LAYER_LLP, 0, 0x03),
	SOFTIW_MPA_ERR_RR_KEY = SOFTIW_WIRE_ERR(1, SOFTIW_LAYER_LLP, 0, 0x04),
	SOFTIW_MPA_ERR_RR_REV = SOFTIW_WIRE_ERR(2, SOFTIW_LAYER_LLP, 0, 0x04),
	/* PD_Length above SOFTIW_MPA_PD_MAX. */
	SOFTIW_MPA_ERR_RR_PD_SIZE = SOFTIW_WIRE_ERR(3, SOFTIW_LAYER_LLP, 0, 0x04),
	/* Enhanced flag with PD_Length < 4, or flag/Rev disagree. */
	SOFTIW_MPA_ERR_RR_V2 = SOFTIW_WIRE_ERR(4, SOFTIW_LAYER_LLP, 0, 0x04),
	/* R set in a Request. */
	SOFTIW_MPA_ERR_RR_REJECT_IN_REQ = SOFTIW_WIRE_ERR(5, SOFTIW_LAYER_LLP, 0, 0x04),
	/* Reply is not Rev 2 + enhanced after an enhanced Request. */
	SOFTIW_MPA_ERR_RR_NOT_ENHANCED = SOFTIW_WIRE_ERR(6, SOFTIW_LAYER_LLP, 0, 0x04),
	/* More octets than the frame before FPDU mode (RFC 5044 startup). */
	SOFTIW_MPA_ERR_RR_TRAILING = SOFTIW_WIRE_ERR(7, SOFTIW_LAYER_LLP, 0, 0x04),
	/* Markers requested but not supported by the local end. */
	SOFTIW_MPA_ERR_RR_MARKERS = SOFTIW_WIRE_ERR(8, SOFTIW_LAYER_LLP, 0, 0x04),
	SOFTIW_MPA_ERR_CATASTROPHIC = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_LLP, 0, 0x05),
	SOFTIW_MPA_ERR_IRD = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_LLP, 0, 0x06),
	SOFTIW_MPA_ERR_NO_RTR = SOFTIW_WIRE_ERR(0, SOFTIW_LAYER_LLP, 0, 0x07),
	/* Caller's output buffer too small: a local bug, not a peer error. */
	SOFTIW_MPA_ERR_NOSPACE = SOFTIW_WIRE_ERR(9, SOFTIW_LAYER_LLP, 0, 0x05),
};

/* Non-error status: the buffer ends before the frame/FPDU does. */
#define SOFTIW_MPA_NEED_MORE		1u

/* RTR message kinds of RFC 6581 (a bit set of these). */
#define SOFTIW_MPA_RTR_SEND		0x1
#define SOFTIW_MPA_RTR_WRITE		0x2
#define SOFTIW_MPA_RTR_READ		0x4

/* IRD/ORD and peer-to-peer parameters carried by an enhanced frame. */
struct softiw_mpa_v2 {
	u16 ird;		/* 14-bit value */
	u16 ord;		/* 14-bit value */
	bool p2p;		/* peer-to-peer: an RTR will be sent */
	u8 rtr;			/* SOFTIW_MPA_RTR_* bits: offered or chosen */
};

/*
 * A decoded (or to be encoded) MPA Request/Reply frame.  @pd points into
 * the parsed buffer at the ULP private data, i.e. after the 4 v2 octets
 * when @enhanced; it is NULL when @pd_len is 0.
 */
struct softiw_mpa_rr {
	bool reply;		/* key: Rep (true) or Req (false) */
	bool markers;		/* M */
	bool crc;		/* C */
	bool reject;		/* R */
	bool enhanced;		/* 0x10 flag, with @v2 valid */
	u8 rev;
	struct softiw_mpa_v2 v2;
	const u8 *pd;		/* ULP private data */
	u16 pd_len;		/* ULP private data length (excl. v2 octets) */
	u16 frame_len;		/* 20 + PD_Length: octets the frame occupies */
};

/*
 * softiw_mpa_rr_encode() - build a Request (@rr->reply false) or Reply.
 * Writes 20 + (enhanced ? 4 : 0) + @rr->pd_len octets to @buf, reading
 * @rr->pd_len octets from @rr->pd.  Flags, rev and v2 words come from @rr;
 * reserved bits are sent as zero.  Returns the frame length (> 0), or
 * -EMSGSIZE if the PD_Length would exceed 512, -ENOSPC if @buflen is too
 * small, -EINVAL for Rev other than 1/2 or enhanced with Rev 1.
 */
int softiw_mpa_rr_encode(const struct softiw_mpa_rr *rr, u8 *buf,
			 size_t buflen);

/*
 * softiw_mpa_rr_parse() - parse a frame at the start of @buf.
 * Reads at most @len octets and never more than the frame.  @expect_reply
 * selects which key is valid.  Returns SOFTIW_WIRE_OK with @rr filled in,
 * SOFTIW_MPA_NEED_MORE if @len is less than the frame (in that case
 * @rr->frame_len is set once the 20-octet header is complete, else 0),
 * or one of the SOFTIW_MPA_ERR_RR_* errors, checked in this order: key,
 * revision (1 or 2), PD_Length <= 512, R in a Request, enhanced flag
 * consistent with Rev and PD_Length >= 4.  Octets after the frame are
 * not looked at: use softiw_mpa_rr_check_end() for the startup rule.
 */
u32 softiw_mpa_rr_parse(const u8 *buf, size_t len, bool expect_reply,
			struct softiw_mpa_rr *rr);

/*
 * softiw_mpa_rr_check_end() - a peer may send nothing after its frame
 * until the connection is in full operation (the Responder waits for the
 * Initiator's first FPDU).  Returns SOFTIW_MPA_ERR_RR_TRAILING if
 * @received exceeds @rr->frame_len, else SOFTIW_WIRE_OK.
 */
u32 softiw_mpa_rr_check_end(const struct softiw_mpa_rr *rr, size_t received);

/*
 * softiw_mpa_v2_respond() - Responder side of RFC 6581 negotiation.
 * From the Initiator's @req v2 words and the local limits, fill @rep:
 * IRD = min(req ORD, @max_ird), ORD = min(req IRD, @max_ord); if the
 * Initiator asked for peer-to-peer, set p2p and choose exactly one RTR
 * from those offered, preferring Write, then Read, then Send (Write when
 * nothing was offered, as Linux siw does).
 */
void softiw_mpa_v2_respond(const struct softiw_mpa_v2 *req, u16 max_ird,
			   u16 max_ord, struct softiw_mpa_v2 *rep);

/*
 * softiw_mpa_v2_check_reply() - Initiator side, on the Reply's v2 words.
 * @offered: what our Request carried.  @max_ird: the largest IRD we can
 * provide.  On success returns SOFTIW_WIRE_OK and sets *@ird (raised to
 * the peer's ORD) and *@ord (lowered to the peer's IRD).  Errors:
 * SOFTIW_MPA_ERR_IRD if the peer's ORD exceeds @max_ird,
 * SOFTIW_MPA_ERR_NO_RTR if we asked for p2p and the Reply does not pick
 * exactly one of the RTR kinds we offered.
 */
u32 softiw_mpa_v2_check_reply(const struct softiw_mpa_v2 *offered,
			      u16 max_ird, const struct softiw_mpa_v2 *reply,
			      u16 *ird, u16 *ord);

/* PAD octets after a ULPDU of @ulpdu_len so that 2 + len + pad is 4n. */
static inline u32 softiw_mpa_pad(u32 ulpdu_len)
{
	return (4 - ((SOFTIW_MPA_HDR_LEN + ulpdu_len) & 3)) & 3;
}

/* FPDU octets excluding Markers: ULPDU_Length + ULPDU + PAD + CRC. */
static inline u32 softiw_mpa_fpdu_len(u32 ulpdu_len)
{
	return SOFTIW_MPA_HDR_LEN + ulpdu_len + softiw_mpa_pad(ulpdu_len) +
	       SOFTIW_MPA_CRC_LEN;
}

/*
 * softiw_mpa_mulpdu() - MULPDU for a TCP effective MSS (RFC 5044):
 * EMSS - (6 + EMSS % 4) without Markers, and additionally minus
 * 4 * ceil(EMSS / 512) with Markers.  Returns 0 if EMSS is too small to
 * carry any ULPDU; at most 0xffff (ULPDU_Length is 16 bits).
 */
u32 softiw_mpa_mulpdu(u32 emss, bool markers);

/*
 * softiw_mpa_wire_len() - octets an FPDU with a @ulpdu_len ULPDU occupies
 * in the stream when it starts at stream position @pos, Markers included
 * when @markers (the FPDU's own leading Marker at a period boundary too).
 */
u32 softiw_mpa_wire_len(u32 ulpdu_len, bool markers, u32 pos);

/* CRC32c value over @len octets at @buf (full inversion applied). */
u32 softiw_mpa_crc(softiw_crc32c_fn fn, const u8 *buf, size_t len);

/* One direction's transmit state. */
struct softiw_mpa_tx {
	softiw_crc32c_fn crc32c;	/* used when @crc */
	bool crc;		/* negotiated C: compute CRC, else send 0 */
	bool markers;		/* peer's M: insert Markers */
	u32 pos;		/* stream octets sent since the first FPDU */
};

/*
 * softiw_mpa_fpdu_build() - frame one ULPDU (exactly one DDP segment).
 * Reads @ulpdu_len octets at @ulpdu, writes the whole FPDU (ULPDU_Length,
 * ULPDU, zero PAD, Markers at every period boundary pointing back to the
 * FPDU start, CRC over everything before the CRC including Markers, or
 * zero when CRC is off) to @out and advances @tx->pos.  Returns the
 * octets written (softiw_mpa_wire_len()), -EMSGSIZE if @ulpdu_len does
 * not fit in 16 bits, or -ENOSPC if @out_len is too small (@tx unchanged).
 */
int softiw_mpa_fpdu_build(struct softiw_mpa_tx *tx, const u8 *ulpdu,
			  u32 ulpdu_len, u8 *out, size_t out_len);

/*
 * softiw_mpa_fpdu_seal() - frame a ULPDU built in place (no Markers): the
 * @ulpdu_len octets are already at @fpdu + SOFTIW_MPA_HDR_LEN; writes
 * ULPDU_Length before them and the zero PAD and CRC (or zero) after them,
 * so the result equals softiw_mpa_fpdu_build()'s, without copying the
 * ULPDU.  Advances @tx->pos.  Returns the FPDU's length, -EMSGSIZE as
 * above, -EINVAL when @tx inserts Markers (they would move the ULPDU), or
 * -ENOSPC if @fpdu_len is too small (@tx unchanged).
 */
int softiw_mpa_fpdu_seal(struct softiw_mpa_tx *tx, u8 *fpdu, u32 ulpdu_len,
			 size_t fpdu_len);

/*
 * Split framing, for a ULPDU whose payload TCP takes from pages of its own
 * (zero-copy transmit; no Markers).  softiw_mpa_fpdu_open() writes
 * ULPDU_Length at @fpdu, where the first @hlen octets of the @ulpdu_len
 * octet ULPDU already follow it, and returns the CRC32c register over
 * those SOFTIW_MPA_HDR_LEN + @hlen octets (0 without CRC).  The caller runs
 * the register on over the remaining @ulpdu_len - @hlen octets with
 * @tx->crc32c (when @tx->crc), then softiw_mpa_fpdu_close() writes the
 * zero PAD and the CRC (or zero) at @trail and advances @tx->pos.  The
 * octets on the wire equal softiw_mpa_fpdu_build()'s.  open returns
 * -EMSGSIZE, -EINVAL (Markers, or @hlen past @ulpdu_len) as seal does;
 * close returns the octets written at @trail (PAD and CRC) or -ENOSPC.
 */
int softiw_mpa_fpdu_open(struct softiw_mpa_tx *tx, u8 *fpdu, u32 ulpdu_len,
			 u32 hlen, u32 *crc_reg);
int softiw_mpa_fpdu_close(struct softiw_mpa_tx *tx, u32 crc_reg,
			  u32 ulpdu_len, u8 *trail, size_t trail_len);

/* One direction's receive state. */
struct softiw_mpa_rx {
	softiw_crc32c_fn crc32c;	/* used when @crc */
	bool crc;		/* negotiated C: check CRC */
	bool markers;		/* our M: expect and strip Markers */
	u32 pos;		/* stream octets received since the first FPDU */
};

/* Room for any ULPDU after Marker removal, with its length and PAD. */
#define SOFTIW_MPA_RX_BUF_LEN(ulpdu_len)				\
	(SOFTIW_MPA_HDR_LEN + (ulpdu_len) + 3)

/* A received FPDU, as found by softiw_mpa_fpdu_parse(). */
struct softiw_mpa_fpdu {
	const u8 *ulpdu;	/* the ULPDU: in the input or in ulpdu_buf */
	u16 ulpdu_len;		/* ULPDU_Length */
	u32 wire_len;		/* octets of the stream the FPDU occupies */
	u32 crc_rx;		/* CRC as received (value, not wire bytes) */
};

/*
 * softiw_mpa_fpdu_parse() - take one FPDU from the front of @in.
 * @in must start at an FPDU boundary at stream position @rx->pos.  Reads
 * at most @in_len octets.  Without Markers the ULPDU is left in place and
 * @f->ulpdu points into @in; with Markers it is copied, Markers removed,
 * into @ulpdu_buf (@ulpdu_buf_len octets, at least
 * softiw_mpa_fpdu_len(ULPDU_Length) - 4 = SOFTIW_MPA_RX_BUF_LEN(65535) is
 * always enough; NULL allowed without Markers).
 * Returns:
 *  SOFTIW_WIRE_OK: @f filled, @rx->pos advanced by @f->wire_len;
 *  SOFTIW_MPA_NEED_MORE: @in ends inside the FPDU; @f->wire_len is the
 *   full length if ULPDU_Length was readable, else 0; @rx unchanged;
 *  SOFTIW_MPA_ERR_MARKER: a Marker's FPDUPTR does not point back to this
 *   FPDU's start (checked before anything is copied);
 *  SOFTIW_MPA_ERR_CRC: CRC mismatch (only when @rx->crc);
 *  SOFTIW_MPA_ERR_NOSPACE: @ulpdu_buf too small for the ULPDU.
 * On an error @rx is unchanged; the caller must stop the stream (RFC 5044:
 * MPA does not resynchronise) and use the error for its Terminate.
 */
u32 softiw_mpa_fpdu_parse(struct softiw_mpa_rx *rx, const u8 *in,
			  size_t in_len, u8 *ulpdu_buf, size_t ulpdu_buf_len,
			  struct softiw_mpa_fpdu *f);

#endif /* SOFTIW_MPA_H */
