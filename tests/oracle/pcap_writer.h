/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcap_writer.h - synthetic Ethernet/IPv4/TCP capture writer for the oracle.
 *
 * Owns: one pcap file and any number of TCP conversations written into it.
 * Each conversation opens with SYN, SYN-ACK, ACK and then carries whatever
 * byte strings the caller hands it, one TCP segment per call, with correct
 * IPv4 and TCP lengths, sequence numbers and checksums, so that tshark's
 * TCP layer passes the payload to the iWARP dissectors untouched.
 *
 * Locking: none; single-threaded host tool.
 */
#ifndef SOFTIW_PCAP_WRITER_H
#define SOFTIW_PCAP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pcap_file {
	FILE *fp;
	unsigned int frames;	/* frames written so far; tshark numbers from 1 */
	uint32_t usec;		/* synthetic timestamp, 1 ms per frame */
};

/* Direction of a segment within a conversation. */
enum pcap_dir { PCAP_INITIATOR, PCAP_RESPONDER };

struct pcap_conv {
	struct pcap_file *pf;
	uint8_t ip[2][4];	/* [PCAP_INITIATOR], [PCAP_RESPONDER] */
	uint16_t port[2];
	uint32_t seq[2];	/* next sequence number each side sends */
};

int pcap_open(struct pcap_file *pf, const char *path);
int pcap_close(struct pcap_file *pf);

/*
 * Start a conversation: writes the three-way handshake.  @id makes the
 * addresses and ports unique within one capture.
 */
int pcap_conv_start(struct pcap_conv *c, struct pcap_file *pf, unsigned int id);

/*
 * Write @len bytes as one PSH|ACK segment from @dir.  Returns the frame
 * number tshark will give it (1-based), or 0 on error.
 */
unsigned int pcap_conv_send(struct pcap_conv *c, enum pcap_dir dir,
			    const void *data, size_t len);

#endif /* SOFTIW_PCAP_WRITER_H */
