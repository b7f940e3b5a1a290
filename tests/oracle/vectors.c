// SPDX-License-Identifier: GPL-2.0
/*
 * vectors.c - known-good iWARP frames, byte for byte, for the oracle.
 *
 * Owns: a fixed set of frames written by hand from the RFCs' layouts
 * (an MPA v1 and an MPA v2 exchange followed by Send, RDMA Write, padded
 * Send, Read Request, Terminate and a zero-length Write RTR), with their
 * CRC32c precomputed.  They test the capture path and check.py
 * independently of the encoder: if these fail, the oracle itself is
 * broken, not the wire core.
 *
 * Locking: none.
 */
#include <stdint.h>

#include "oracle.h"

/* Keys: "MPA ID Req Frame" and "MPA ID Rep Frame" (differ at octet 9). */
static const uint8_t v1_req[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x40, 0x01, 0x00, 0x00,
};

static const uint8_t v1_rep[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x40, 0x01, 0x00, 0x00,
};

/* Send "ABCD", QN 0, MSN 1, MO 0, L=1 */
static const uint8_t send_abcd[] = {
	0x00, 0x16, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x41, 0x42, 0x43, 0x44, 0x32, 0xe6, 0x1a, 0xfb,
};

/* RDMA Write, STag 0x12345678, TO 0x1000, payload 01..08 */
static const uint8_t write8[] = {
	0x00, 0x16, 0xc1, 0x40, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04,
	0x05, 0x06, 0x07, 0x08, 0x50, 0x4c, 0x11, 0x3b,
};

/* Send "Hello", MSN 2: 23-octet ULPDU, three octets of PAD */
static const uint8_t send_hello[] = {
	0x00, 0x17, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00, 0x8f, 0xbd,
	0xc7, 0x50,
};

/* Read Request QN 1 MSN 1: sink 0xab01/0x2000, 64 octets, source 0xcd02/0x3000 */
static const uint8_t read_req[] = {
	0x00, 0x2e, 0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xab, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0xcd, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, 0x71, 0x10,
	0x5d, 0x9f,
};

/* Terminate QN 2 MSN 1: LLP, EType 0, MPA CRC error, no headers */
static const uint8_t term_crc[] = {
	0x00, 0x16, 0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x20, 0x02, 0x00, 0x00, 0x7f, 0xe4, 0x25, 0x85,
};

/* MPA v2: IRD 16 + P2P; ORD 16 + Write and Read RTR offered / Write chosen */
static const uint8_t v2_req[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x50, 0x02, 0x00, 0x04, 0x80, 0x10, 0xc0, 0x10,
};

static const uint8_t v2_rep[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x50, 0x02, 0x00, 0x04, 0x80, 0x10, 0x80, 0x10,
};

/* Zero-length RDMA Write RTR, STag 0, TO 0 */
static const uint8_t rtr_write[] = {
	0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa3, 0x05, 0x72, 0xab,
};

static void expect_rr(struct oracle_out *o, unsigned int f, int reply,
		      int crc, int rev, int pdlen)
{
	oracle_expect(o, f, reply ? "iwarp_mpa.key.rep" : "iwarp_mpa.key.req",
		      "%s", reply ? "4d504120494420526570204672616d65" :
				    "4d504120494420526571204672616d65");
	oracle_expect(o, f, "iwarp_mpa.marker_flag", "0");
	oracle_expect(o, f, "iwarp_mpa.crc_flag", "%d", crc);
	oracle_expect(o, f, "iwarp_mpa.rej_flag", "0");
	oracle_expect(o, f, "iwarp_mpa.rev", "%d", rev);
	oracle_expect(o, f, "iwarp_mpa.pdlength", "%d", pdlen);
	oracle_expect_absent(o, f, "iwarp_mpa.fpdu");
}

static void expect_untagged(struct oracle_out *o, unsigned int f,
			    int opcode, int qn, int msn, int mo)
{
	oracle_expect(o, f, "iwarp_ddp.tagged_flag", "0");
	oracle_expect(o, f, "iwarp_ddp.last_flag", "1");
	oracle_expect(o, f, "iwarp_ddp.dv", "1");
	oracle_expect(o, f, "iwarp_ddp.qn", "%d", qn);
	oracle_expect(o, f, "iwarp_ddp.msn", "%d", msn);
	oracle_expect(o, f, "iwarp_ddp.mo", "%d", mo);
	oracle_expect(o, f, "iwarp_rdma.version", "1");
	oracle_expect(o, f, "iwarp_rdma.opcode", "%d", opcode);
}

static void expect_tagged(struct oracle_out *o, unsigned int f, int opcode,
			  unsigned int stag, unsigned long long to)
{
	oracle_expect(o, f, "iwarp_ddp.tagged_flag", "1");
	oracle_expect(o, f, "iwarp_ddp.last_flag", "1");
	oracle_expect(o, f, "iwarp_ddp.dv", "1");
	oracle_expect(o, f, "iwarp_ddp.stag", "%u", stag);
	oracle_expect(o, f, "iwarp_ddp.tagged_offset", "%llu", to);
	oracle_expect(o, f, "iwarp_rdma.version", "1");
	oracle_expect(o, f, "iwarp_rdma.opcode", "%d", opcode);
}

static void expect_fpdu(struct oracle_out *o, unsigned int f, int ulpdu_len)
{
	oracle_expect(o, f, "iwarp_mpa.ulpdulength", "%d", ulpdu_len);
	oracle_expect(o, f, "crc_good", "1");
}

int oracle_vectors(struct oracle_out *o)
{
	struct pcap_conv a, b;
	unsigned int f;

	/* Conversation 1: MPA v1 with CRC, then one of each message kind. */
	if (pcap_conv_start(&a, &o->pcap, 1))
		return -1;
	o->group = "vectors: MPA v1 Request/Reply";
	f = pcap_conv_send(&a, PCAP_INITIATOR, v1_req, sizeof(v1_req));
	expect_rr(o, f, 0, 1, 1, 0);
	f = pcap_conv_send(&a, PCAP_RESPONDER, v1_rep, sizeof(v1_rep));
	expect_rr(o, f, 1, 1, 1, 0);

	o->group = "vectors: Send, Write, padded Send";
	f = pcap_conv_send(&a, PCAP_INITIATOR, send_abcd, sizeof(send_abcd));
	expect_fpdu(o, f, 22);
	expect_untagged(o, f, 3, 0, 1, 0);
	f = pcap_conv_send(&a, PCAP_INITIATOR, write8, sizeof(write8));
	expect_fpdu(o, f, 22);
	expect_tagged(o, f, 0, 0x12345678, 0x1000);
	f = pcap_conv_send(&a, PCAP_INITIATOR, send_hello, sizeof(send_hello));
	expect_fpdu(o, f, 23);
	oracle_expect(o, f, "iwarp_mpa.pad", "000000");
	expect_untagged(o, f, 3, 0, 2, 0);

	o->group = "vectors: Read Request";
	f = pcap_conv_send(&a, PCAP_INITIATOR, read_req, sizeof(read_req));
	expect_fpdu(o, f, 46);
	expect_untagged(o, f, 1, 1, 1, 0);
	oracle_expect(o, f, "iwarp_rdma.sinkstag", "%u", 0xab01);
	oracle_expect(o, f, "iwarp_rdma.sinkto", "%u", 0x2000);
	oracle_expect(o, f, "iwarp_rdma.rdmardsz", "64");
	oracle_expect(o, f, "iwarp_rdma.srcstag", "%u", 0xcd02);
	oracle_expect(o, f, "iwarp_rdma.srcto", "%u", 0x3000);

	o->group = "vectors: Terminate";
	f = pcap_conv_send(&a, PCAP_RESPONDER, term_crc, sizeof(term_crc));
	expect_fpdu(o, f, 22);
	expect_untagged(o, f, 7, 2, 1, 0);
	oracle_expect(o, f, "iwarp_rdma.term_layer", "2");
	oracle_expect(o, f, "iwarp_rdma.term_etype_llp", "0");
	oracle_expect(o, f, "iwarp_rdma.term_errcode_llp", "2");
	oracle_expect(o, f, "iwarp_rdma.term_hdrct_m", "0");
	oracle_expect(o, f, "iwarp_rdma.hdrct_d", "0");
	oracle_expect(o, f, "iwarp_rdma.hdrct_r", "0");

	/* Conversation 2: MPA v2 negotiation and the Write RTR. */
	if (pcap_conv_start(&b, &o->pcap, 2))
		return -1;
	o->group = "vectors: MPA v2 Request/Reply and RTR";
	f = pcap_conv_send(&b, PCAP_INITIATOR, v2_req, sizeof(v2_req));
	expect_rr(o, f, 0, 1, 2, 4);
	oracle_expect(o, f, "iwarp_mpa.res", "%d", 0x10);
	oracle_expect(o, f, "iwarp_mpa.privatedata", "8010c010");
	f = pcap_conv_send(&b, PCAP_RESPONDER, v2_rep, sizeof(v2_rep));
	expect_rr(o, f, 1, 1, 2, 4);
	oracle_expect(o, f, "iwarp_mpa.privatedata", "80108010");
	f = pcap_conv_send(&b, PCAP_INITIATOR, rtr_write, sizeof(rtr_write));
	expect_fpdu(o, f, 14);
	expect_tagged(o, f, 0, 0, 0);
	return o->failed ? -1 : 0;
}
