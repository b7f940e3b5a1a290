// SPDX-License-Identifier: GPL-2.0
/*
 * encoded.c - oracle streams produced by the wire core's encoder.
 *
 * Owns: the traffic the oracle asks the encoder for, and what tshark must
 * then show.  Two conversations: (1) an MPA v2 exchange with CRC and
 * private data, the zero-length Write RTR, Send / Send with SE / Send
 * with Invalidate / Send with SE and Invalidate, a multi-segment RDMA
 * Write, a Read Request answered by a multi-segment Read Response, two
 * FPDUs packed in one TCP segment, and a Terminate for a DDP bounds
 * error that copies the offending header; (2) an MPA v1 exchange and a
 * Terminate for an RDMAP access error on a Read Request (M, D and R).
 * With "markers" both sides ask for Markers and every FPDU carries them.
 *
 * Every expected value is computed here from the request made to the
 * encoder (sizes, offsets, MSNs counted independently), never read back
 * from the bytes the encoder produced.
 *
 * Locking: none.
 */
#include <string.h>

#include "oracle.h"
#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"
#include "crc32c.h"

#define EMSS		1460
#define WRITE_STAG	0x0a0b0c01u
#define WRITE_TO	0x7f0000001000ull
#define WRITE_LEN	4000u
#define SINK_STAG	0x0b0b0b02u
#define SINK_TO		0x2000ull
#define SRC_STAG	0x0c0c0c03u
#define SRC_TO		0x3000ull
#define READ_LEN	3000u
#define INVAL_STAG	0xdead0001u

struct side {
	struct pcap_conv *conv;
	enum pcap_dir dir;
	struct softiw_mpa_tx tx;
	u32 pos;	/* our own count of stream octets since the first FPDU */
};

static u8 ulpdu[0x10000];
static u8 fpdu[0x10000 + 1024];
static u8 data[8192];

/*
 * Where the Markers of an FPDU with a @ulen ULPDU go when it starts at
 * @s->pos, computed here from RFC 5044 alone: one every 512 octets of
 * the stream, FPDUPTR = octets from the FPDU's ULPDU_Length field to the
 * Marker.  Appends the FPDUPTRs to @list (comma separated), advances
 * @s->pos and returns the FPDU's length on the wire.
 */
static u32 expect_layout(struct side *s, u32 ulen, char *list, size_t size)
{
	u32 content = 2 + ulen + (4 - (2 + ulen) % 4) % 4, w = 0, c = 0;
	bool markers = s->tx.markers;
	size_t used = strlen(list);

	while (c < content || (markers && (s->pos + w) % 512 == 0)) {
		if (markers && (s->pos + w) % 512 == 0) {
			used += snprintf(list + used, size - used, "%s%u",
					 used ? "," : "", w);
			w += 4;
			if (c == content)
				break;	/* the Marker between PAD and CRC */
			continue;
		}
		w++;
		c++;
	}
	w += 4;		/* CRC */
	s->pos += w;
	return w;
}

static void expect_markers(struct oracle_out *o, unsigned int f,
			   const char *list)
{
	char res[128];
	size_t i, n = 0;

	if (!*list) {
		oracle_expect_absent(o, f, "iwarp_mpa.marker_fpduptr");
		return;
	}
	oracle_expect(o, f, "iwarp_mpa.marker_fpduptr", "%s", list);
	/* As many reserved fields, all zero. */
	for (i = 0; list[i] && n + 3 < sizeof(res); i++)
		if (!i || list[i] == ',')
			n += snprintf(res + n, sizeof(res) - n, "%s0", i ? "," : "");
	oracle_expect(o, f, "iwarp_mpa.marker_res", "%s", res);
}

/*
 * Frame @len octets of ULPDU with @s's MPA state and send the FPDU as one
 * TCP segment.  Returns the frame number, 0 on error.
 */
static unsigned int send_ulpdu(struct oracle_out *o, struct side *s,
			       const u8 *u, u32 len)
{
	int n = softiw_mpa_fpdu_build(&s->tx, u, len, fpdu, sizeof(fpdu));
	char list[128] = "";
	unsigned int f;
	u32 wire;

	if (n <= 0) {
		o->failed = 1;
		return 0;
	}
	wire = expect_layout(s, len, list, sizeof(list));
	f = pcap_conv_send(s->conv, s->dir, fpdu, n);
	oracle_expect(o, f, "tcp.len", "%u", wire);
	expect_markers(o, f, list);
	return f;
}

static u32 build(const struct softiw_ddp_hdr *h, const void *body,
		 u32 body_len, const u8 *payload, u32 plen)
{
	int hl = softiw_ddp_hdr_encode(h, ulpdu, sizeof(ulpdu));

	if (hl <= 0)
		return 0;
	/* memcpy() from NULL is undefined even for 0 octets. */
	if (body_len)
		memcpy(ulpdu + hl, body, body_len);
	if (plen)
		memcpy(ulpdu + hl + body_len, payload, plen);
	return hl + body_len + plen;
}

static void expect_fpdu(struct oracle_out *o, unsigned int f, u32 ulpdu_len,
			bool markers)
{
	oracle_expect(o, f, "iwarp_mpa.ulpdulength", "%u", ulpdu_len);
	oracle_expect(o, f, "crc_good", "1");
}

static void expect_untagged(struct oracle_out *o, unsigned int f, int op,
			    u32 qn, u32 msn, u32 mo, bool last)
{
	oracle_expect(o, f, "iwarp_ddp.tagged_flag", "0");
	oracle_expect(o, f, "iwarp_ddp.last_flag", "%d", last);
	oracle_expect(o, f, "iwarp_ddp.dv", "1");
	oracle_expect(o, f, "iwarp_ddp.qn", "%u", qn);
	oracle_expect(o, f, "iwarp_ddp.msn", "%u", msn);
	oracle_expect(o, f, "iwarp_ddp.mo", "%u", mo);
	oracle_expect(o, f, "iwarp_rdma.version", "1");
	oracle_expect(o, f, "iwarp_rdma.opcode", "%d", op);
}

static void expect_tagged(struct oracle_out *o, unsigned int f, int op,
			  u32 stag, u64 to, bool last)
{
	oracle_expect(o, f, "iwarp_ddp.tagged_flag", "1");
	oracle_expect(o, f, "iwarp_ddp.last_flag", "%d", last);
	oracle_expect(o, f, "iwarp_ddp.dv", "1");
	oracle_expect(o, f, "iwarp_ddp.stag", "0x%08x", stag);
	oracle_expect(o, f, "iwarp_ddp.tagged_offset", "0x%016llx",
		      (unsigned long long)to);
	oracle_expect(o, f, "iwarp_rdma.version", "1");
	oracle_expect(o, f, "iwarp_rdma.opcode", "%d", op);
}

/* MPA Request from @ini, Reply from @resp; returns -1 on encoder error. */
static int exchange(struct oracle_out *o, struct side *ini, struct side *resp,
		    bool v2, bool markers)
{
	static const char pd[] = "softiw oracle";
	struct softiw_mpa_rr req = {
		.markers = markers, .crc = true, .enhanced = v2,
		.rev = v2 ? SOFTIW_MPA_REV2 : SOFTIW_MPA_REV1,
		.v2 = { .ird = 8, .ord = 4, .p2p = true,
			.rtr = SOFTIW_MPA_RTR_WRITE | SOFTIW_MPA_RTR_READ },
		.pd = (const u8 *)pd, .pd_len = sizeof(pd) - 1,
	};
	struct softiw_mpa_rr rep = req;
	u8 frame[SOFTIW_MPA_RR_MAX_LEN];
	unsigned int pdlen = req.pd_len + (v2 ? SOFTIW_MPA_V2_LEN : 0);
	unsigned int f;
	int n;

	o->group = v2 ? "encoder: MPA v2 Request/Reply with private data" :
			"encoder: MPA v1 Request/Reply";
	n = softiw_mpa_rr_encode(&req, frame, sizeof(frame));
	if (n <= 0)
		return -1;
	f = pcap_conv_send(ini->conv, ini->dir, frame, n);
	oracle_expect(o, f, "iwarp_mpa.key.req", "4d504120494420526571204672616d65");
	oracle_expect(o, f, "iwarp_mpa.marker_flag", "%d", markers);
	oracle_expect(o, f, "iwarp_mpa.crc_flag", "1");
	oracle_expect(o, f, "iwarp_mpa.rej_flag", "0");
	oracle_expect(o, f, "iwarp_mpa.rev", "%d", v2 ? 2 : 1);
	oracle_expect(o, f, "iwarp_mpa.pdlength", "%u", pdlen);
	/* IRD word 0x8000|8, ORD word 0xc000|4, then the ULP's octets. */
	oracle_expect(o, f, "iwarp_mpa.privatedata", "%s%s",
		      v2 ? "8008c004" : "",
		      "736f66746977206f7261636c65");

	rep.reply = true;
	rep.pd = NULL;
	rep.pd_len = 0;
	softiw_mpa_v2_respond(&req.v2, 16, 16, &rep.v2);
	n = softiw_mpa_rr_encode(&rep, frame, sizeof(frame));
	if (n <= 0)
		return -1;
	f = pcap_conv_send(resp->conv, resp->dir, frame, n);
	oracle_expect(o, f, "iwarp_mpa.key.rep", "4d504120494420526570204672616d65");
	oracle_expect(o, f, "iwarp_mpa.marker_flag", "%d", markers);
	oracle_expect(o, f, "iwarp_mpa.crc_flag", "1");
	oracle_expect(o, f, "iwarp_mpa.rej_flag", "0");
	oracle_expect(o, f, "iwarp_mpa.rev", "%d", v2 ? 2 : 1);
	oracle_expect(o, f, "iwarp_mpa.pdlength", "%u", v2 ? 4 : 0);
	/* Responder: IRD = min(ORD_i 4, 16), ORD = min(IRD_i 8, 16), P2P, W. */
	if (v2)
		oracle_expect(o, f, "iwarp_mpa.privatedata", "80048008");

	ini->tx.markers = markers;
	resp->tx.markers = markers;
	return 0;
}

static int sends(struct oracle_out *o, struct side *s, bool markers)
{
	static const struct { int op; u32 inval; } kinds[] = {
		{ SOFTIW_RDMAP_SEND, 0 },
		{ SOFTIW_RDMAP_SEND_SE, 0 },
		{ SOFTIW_RDMAP_SEND_INV, INVAL_STAG },
		{ SOFTIW_RDMAP_SEND_SE_INV, INVAL_STAG + 1 },
	};
	struct softiw_rdmap_hdr h;
	unsigned int i, f;
	u32 len;

	o->group = "encoder: Send, Send with SE, Send with Invalidate, Send with SE and Invalidate";
	for (i = 0; i < 4; i++) {
		u32 plen = 13 + 17 * i;	/* every PAD length */

		if (softiw_rdmap_hdr_init(&h, kinds[i].op, 0, 0, i + 1,
					  kinds[i].inval))
			return -1;
		h.ddp.last = true;
		len = build(&h.ddp, NULL, 0, data, plen);
		f = send_ulpdu(o, s, ulpdu, len);
		expect_fpdu(o, f, SOFTIW_DDP_UNTAGGED_HDR_LEN + plen, markers);
		expect_untagged(o, f, kinds[i].op, SOFTIW_RDMAP_QN_SEND, i + 1,
				0, true);
		if (kinds[i].inval)
			oracle_expect(o, f, "iwarp_rdma.inval_stag", "%u",
				      kinds[i].inval);
		else
			oracle_expect_absent(o, f, "iwarp_rdma.inval_stag");
	}
	return 0;
}

/* A tagged message of @msg_len octets in MULPDU-sized segments. */
static int tagged_msg(struct oracle_out *o, struct side *s, int op, u32 stag,
		      u64 to, u32 msg_len, bool markers)
{
	u32 mulpdu = softiw_mpa_mulpdu(EMSS, markers);
	u32 max = mulpdu - SOFTIW_DDP_TAGGED_HDR_LEN, off = 0;
	struct softiw_ddp_segmenter sg;
	struct softiw_rdmap_hdr rh;
	struct softiw_ddp_hdr h;
	u32 poff, plen, len;
	unsigned int f;

	if (softiw_rdmap_hdr_init(&rh, op, stag, to, 0, 0) ||
	    softiw_ddp_seg_init(&sg, &rh.ddp, msg_len, mulpdu))
		return -1;
	while (softiw_ddp_seg_next(&sg, &h, &poff, &plen)) {
		/* The segment we expect, independently of the segmenter. */
		u32 want = msg_len - off < max ? msg_len - off : max;

		len = build(&h, NULL, 0, data + poff, plen);
		f = send_ulpdu(o, s, ulpdu, len);
		expect_fpdu(o, f, SOFTIW_DDP_TAGGED_HDR_LEN + want, markers);
		expect_tagged(o, f, op, stag, to + off, off + want == msg_len);
		off += want;
		if (off > msg_len)
			return -1;
	}
	return off == msg_len ? 0 : -1;
}

static unsigned int read_request(struct oracle_out *o, struct side *s,
				 u32 msn, bool markers, u32 *len)
{
	struct softiw_rdmap_read_req rr = {
		.sink_stag = SINK_STAG, .sink_to = SINK_TO, .size = READ_LEN,
		.src_stag = SRC_STAG, .src_to = SRC_TO,
	};
	u8 body[SOFTIW_RDMAP_READ_REQ_LEN];
	struct softiw_rdmap_hdr h;
	unsigned int f;

	if (softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_READ_REQ, 0, 0, msn, 0) ||
	    softiw_rdmap_read_req_encode(&rr, body, sizeof(body)) !=
	    SOFTIW_RDMAP_READ_REQ_LEN)
		return 0;
	h.ddp.last = true;
	*len = build(&h.ddp, body, sizeof(body), NULL, 0);
	f = send_ulpdu(o, s, ulpdu, *len);
	expect_fpdu(o, f, SOFTIW_DDP_UNTAGGED_HDR_LEN + 28, markers);
	expect_untagged(o, f, SOFTIW_RDMAP_READ_REQ, SOFTIW_RDMAP_QN_READ_REQ,
			msn, 0, true);
	oracle_expect(o, f, "iwarp_rdma.sinkstag", "%u", SINK_STAG);
	oracle_expect(o, f, "iwarp_rdma.sinkto", "%llu", SINK_TO);
	oracle_expect(o, f, "iwarp_rdma.rdmardsz", "%u", READ_LEN);
	oracle_expect(o, f, "iwarp_rdma.srcstag", "%u", SRC_STAG);
	oracle_expect(o, f, "iwarp_rdma.srcto", "%llu", SRC_TO);
	return f;
}

/* Terminate for @err about the FPDU content held in @bad (@bad_len). */
static int terminate(struct oracle_out *o, struct side *s, u32 err,
		     const u8 *bad, u32 bad_len, bool markers, int m_d,
		     int r, u32 copied_hdr_len)
{
	struct softiw_rdmap_term t;
	unsigned int f;
	int n;

	softiw_rdmap_term_for_error(err, bad, bad_len, &t);
	n = softiw_rdmap_term_encode(&t, SOFTIW_DDP_MSN_INITIAL, ulpdu,
				     sizeof(ulpdu));
	if (n <= 0)
		return -1;
	f = send_ulpdu(o, s, ulpdu, n);
	expect_fpdu(o, f, SOFTIW_DDP_UNTAGGED_HDR_LEN + 4 +
		    (m_d ? 2 + copied_hdr_len : 0) + (r ? 28 : 0), markers);
	expect_untagged(o, f, SOFTIW_RDMAP_TERMINATE,
			SOFTIW_RDMAP_QN_TERMINATE, 1, 0, true);
	oracle_expect(o, f, "iwarp_rdma.term_layer", "%u",
		      softiw_wire_err_layer(err));
	oracle_expect(o, f, "iwarp_rdma.term_hdrct_m", "%d", m_d);
	oracle_expect(o, f, "iwarp_rdma.hdrct_d", "%d", m_d);
	oracle_expect(o, f, "iwarp_rdma.hdrct_r", "%d", r);
	if (m_d) {
		oracle_expect(o, f, "iwarp_rdma.term_ddp_seg_len", "%04x",
			      bad_len - SOFTIW_MPA_HDR_LEN);
		char hex[2 * SOFTIW_DDP_UNTAGGED_HDR_LEN + 1];
		u32 k;

		/* The header of the FPDU we said was bad, as we built it. */
		for (k = 0; k < copied_hdr_len; k++)
			sprintf(hex + 2 * k, "%02x", bad[SOFTIW_MPA_HDR_LEN + k]);
		oracle_expect(o, f, "iwarp_rdma.term_ddp_h", "%s", hex);
	}
	if (r) {
		char hex[2 * SOFTIW_RDMAP_TERM_RDMA_HDR_LEN + 1];
		const u8 *body = bad + SOFTIW_MPA_HDR_LEN + copied_hdr_len;
		u32 k;

		for (k = 0; k < SOFTIW_RDMAP_TERM_RDMA_HDR_LEN; k++)
			sprintf(hex + 2 * k, "%02x", body[k]);
		oracle_expect(o, f, "iwarp_rdma.term_rdma_h", "%s", hex);
	}
	switch (softiw_wire_err_layer(err)) {
	case SOFTIW_LAYER_RDMAP:
		oracle_expect(o, f, "iwarp_rdma.term_etype_rdma", "%u",
			      softiw_wire_err_etype(err));
		oracle_expect(o, f, "iwarp_rdma.term_errcode_rdma", "%u",
			      softiw_wire_err_ecode(err));
		break;
	case SOFTIW_LAYER_DDP:
		oracle_expect(o, f, "iwarp_rdma.term_etype_ddp", "%u",
			      softiw_wire_err_etype(err));
		oracle_expect(o, f, softiw_wire_err_etype(err) == 1 ?
			      "iwarp_rdma.term_errcode_ddp_tagged" :
			      "iwarp_rdma.term_errcode_ddp_untagged", "%u",
			      softiw_wire_err_ecode(err));
		break;
	default:
		oracle_expect(o, f, "iwarp_rdma.term_etype_llp", "%u",
			      softiw_wire_err_etype(err));
		oracle_expect(o, f, "iwarp_rdma.term_errcode_llp", "%u",
			      softiw_wire_err_ecode(err));
	}
	return 0;
}

int oracle_encoded(struct oracle_out *o, int markers)
{
	struct pcap_conv c1, c2;
	struct side i1 = { .conv = &c1, .dir = PCAP_INITIATOR };
	struct side r1 = { .conv = &c1, .dir = PCAP_RESPONDER };
	struct side i2 = { .conv = &c2, .dir = PCAP_INITIATOR };
	struct side r2 = { .conv = &c2, .dir = PCAP_RESPONDER };
	struct side *sides[] = { &i1, &r1, &i2, &r2 };
	struct softiw_rdmap_hdr h;
	u8 bad[64], pack[256];
	unsigned int i, f, nb, np;
	char list[128];
	u32 len, wire;
	int n;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 13 + 1;
	for (i = 0; i < 4; i++) {
		sides[i]->tx.crc32c = softiw_host_crc32c;
		sides[i]->tx.crc = true;
	}

	/* Conversation 1: v2 with private data. */
	if (pcap_conv_start(&c1, &o->pcap, markers ? 5 : 3) ||
	    exchange(o, &i1, &r1, true, markers))
		return -1;

	o->group = "encoder: zero-length RDMA Write RTR";
	if (softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_WRITE, 0, 0, 0, 0))
		return -1;
	h.ddp.last = true;
	len = build(&h.ddp, NULL, 0, NULL, 0);
	f = send_ulpdu(o, &i1, ulpdu, len);
	expect_fpdu(o, f, SOFTIW_DDP_TAGGED_HDR_LEN, markers);
	expect_tagged(o, f, SOFTIW_RDMAP_WRITE, 0, 0, true);

	if (sends(o, &i1, markers))
		return -1;

	o->group = "encoder: RDMA Write, tagged, 3 segments at MULPDU(EMSS 1460)";
	if (tagged_msg(o, &i1, SOFTIW_RDMAP_WRITE, WRITE_STAG, WRITE_TO,
		       WRITE_LEN, markers))
		return -1;

	o->group = "encoder: Read Request";
	if (!read_request(o, &i1, 1, markers, &len))
		return -1;

	o->group = "encoder: Read Response, tagged, 3 segments";
	if (tagged_msg(o, &r1, SOFTIW_RDMAP_READ_RESP, SINK_STAG, SINK_TO,
		       READ_LEN, markers))
		return -1;

	/* Two Sends in one TCP segment: tshark must find both FPDUs. */
	o->group = "encoder: two FPDUs in one TCP segment";
	np = 0;
	list[0] = 0;
	wire = 0;
	for (i = 0; i < 2; i++) {
		if (softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_SEND, 0, 0, 5 + i, 0))
			return -1;
		h.ddp.last = true;
		len = build(&h.ddp, NULL, 0, data, 6);
		n = softiw_mpa_fpdu_build(&i1.tx, ulpdu, len, pack + np,
					  sizeof(pack) - np);
		if (n <= 0)
			return -1;
		np += n;
		wire += expect_layout(&i1, len, list, sizeof(list));
	}
	f = pcap_conv_send(&c1, PCAP_INITIATOR, pack, np);
	oracle_expect(o, f, "tcp.len", "%u", wire);
	expect_markers(o, f, list);
	oracle_expect(o, f, "iwarp_mpa.ulpdulength", "24,24");
	oracle_expect(o, f, "crc_good", "2");
	oracle_expect(o, f, "iwarp_ddp.msn", "5,6");
	oracle_expect(o, f, "iwarp_rdma.opcode", "3,3");

	/*
	 * The Responder found a Write beyond its buffer: Terminate for a
	 * DDP tagged bounds error, copying that FPDU's header.
	 */
	o->group = "encoder: Terminate, DDP bounds error, DDP header copied";
	if (softiw_rdmap_hdr_init(&h, SOFTIW_RDMAP_WRITE, WRITE_STAG,
				  WRITE_TO + 0x100000, 0, 0))
		return -1;
	h.ddp.last = true;
	nb = build(&h.ddp, NULL, 0, data, 20);
	softiw_wire_put_be16(bad, nb);
	memcpy(bad + SOFTIW_MPA_HDR_LEN, ulpdu, nb);
	if (terminate(o, &r1, SOFTIW_DDP_ERR_BOUNDS, bad,
		      SOFTIW_MPA_HDR_LEN + nb, markers, 1, 0,
		      SOFTIW_DDP_TAGGED_HDR_LEN))
		return -1;

	/* Conversation 2: v1, a Read Request refused by the Data Source. */
	if (pcap_conv_start(&c2, &o->pcap, markers ? 6 : 4) ||
	    exchange(o, &i2, &r2, false, markers))
		return -1;
	o->group = "encoder: Read Request (v1 stream)";
	if (!read_request(o, &i2, 1, markers, &len))
		return -1;
	softiw_wire_put_be16(bad, len);
	memcpy(bad + SOFTIW_MPA_HDR_LEN, ulpdu, len);
	/*
	 * The Data Source has no IRD left for it: RDMAP Remote Operation
	 * error 0x07, with the Read Request's DDP and RDMA headers.  (Not a
	 * Remote Protection error: tshark 4.0 sizes the copied DDP header
	 * by EType alone, taking EType 1 at any Layer as "DDP tagged", 14
	 * octets, so it cannot decode an RDMAP EType 1 Terminate of an
	 * untagged segment; the unit tests cover that case.)
	 */
	o->group = "encoder: Terminate, RDMAP IRD exceeded, DDP and RDMA headers copied";
	if (terminate(o, &r2, SOFTIW_RDMAP_ERR_STREAM_CATASTROPHIC, bad,
		      SOFTIW_MPA_HDR_LEN + len, markers, 1, 1,
		      SOFTIW_DDP_UNTAGGED_HDR_LEN))
		return -1;
	return o->failed ? -1 : 0;
}
