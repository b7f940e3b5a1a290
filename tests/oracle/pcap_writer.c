// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_writer.c - synthetic Ethernet/IPv4/TCP capture writer for the oracle.
 *
 * Owns the on-disk pcap format (classic libpcap, microsecond timestamps,
 * linktype 1 = Ethernet) and the header arithmetic around each payload.
 * Everything multi-byte on the wire is written big-endian by hand; the pcap
 * record headers are written little-endian, matching the magic we emit.
 *
 * Locking: none; single-threaded host tool.
 */
#include <string.h>

#include "pcap_writer.h"

#define ETH_HLEN	14
#define IP_HLEN		20
#define TCP_HLEN	20
#define MAX_PAYLOAD	65000	/* keeps the IPv4 total length in 16 bits */

#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_PSH		0x08
#define TCP_ACK		0x10

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* One's-complement sum of 16-bit big-endian words, odd tail padded with 0. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

int pcap_open(struct pcap_file *pf, const char *path)
{
	uint8_t gh[24];

	memset(pf, 0, sizeof(*pf));
	pf->fp = fopen(path, "wb");
	if (!pf->fp)
		return -1;
	put_le32(gh, 0xa1b2c3d4);	/* magic: microsecond timestamps */
	put_le16(gh + 4, 2);		/* version 2.4 */
	put_le16(gh + 6, 4);
	put_le32(gh + 8, 0);		/* thiszone */
	put_le32(gh + 12, 0);		/* sigfigs */
	put_le32(gh + 16, 65535);	/* snaplen */
	put_le32(gh + 20, 1);		/* LINKTYPE_ETHERNET */
	if (fwrite(gh, sizeof(gh), 1, pf->fp) != 1) {
		fclose(pf->fp);
		pf->fp = NULL;
		return -1;
	}
	return 0;
}

int pcap_close(struct pcap_file *pf)
{
	int ret = 0;

	if (!pf->fp)
		return -1;
	if (fclose(pf->fp))
		ret = -1;
	pf->fp = NULL;
	return ret;
}

static unsigned int write_segment(struct pcap_conv *c, enum pcap_dir dir,
				  uint8_t flags, const void *data, size_t len)
{
	static uint8_t frame[ETH_HLEN + IP_HLEN + TCP_HLEN + MAX_PAYLOAD];
	enum pcap_dir peer = dir == PCAP_INITIATOR ? PCAP_RESPONDER :
			     PCAP_INITIATOR;
	struct pcap_file *pf = c->pf;
	uint8_t *eth = frame, *ip = eth + ETH_HLEN, *tcp = ip + IP_HLEN;
	size_t flen = ETH_HLEN + IP_HLEN + TCP_HLEN + len;
	uint8_t pseudo[12], rec[16];
	uint32_t sum;

	if (!pf->fp || len > MAX_PAYLOAD)
		return 0;

	/* Ethernet: locally administered MACs derived from the side. */
	memcpy(eth, "\x02\x00\x00\x00\x00\x00", 6);
	eth[5] = c->ip[peer][3];
	memcpy(eth + 6, "\x02\x00\x00\x00\x00\x00", 6);
	eth[11] = c->ip[dir][3];
	put_be16(eth + 12, 0x0800);

	/* IPv4, no options, DF set. */
	memset(ip, 0, IP_HLEN);
	ip[0] = 0x45;
	put_be16(ip + 2, IP_HLEN + TCP_HLEN + len);
	put_be16(ip + 4, pf->frames & 0xffff);
	put_be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, c->ip[dir], 4);
	memcpy(ip + 16, c->ip[peer], 4);
	put_be16(ip + 10, csum_fold(csum_add(0, ip, IP_HLEN)));

	/* TCP, no options; the ACK covers everything the peer sent. */
	memset(tcp, 0, TCP_HLEN);
	put_be16(tcp, c->port[dir]);
	put_be16(tcp + 2, c->port[peer]);
	put_be32(tcp + 4, c->seq[dir]);
	put_be32(tcp + 8, flags & TCP_ACK ? c->seq[peer] : 0);
	tcp[12] = (TCP_HLEN / 4) << 4;
	tcp[13] = flags;
	put_be16(tcp + 14, 65535);
	if (len)
		memcpy(tcp + TCP_HLEN, data, len);

	memcpy(pseudo, c->ip[dir], 4);
	memcpy(pseudo + 4, c->ip[peer], 4);
	pseudo[8] = 0;
	pseudo[9] = 6;
	put_be16(pseudo + 10, TCP_HLEN + len);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	sum = csum_add(sum, tcp, TCP_HLEN + len);
	put_be16(tcp + 16, csum_fold(sum));

	/* SYN and FIN each take one sequence number. */
	c->seq[dir] += len + !!(flags & (TCP_SYN | TCP_FIN));

	pf->usec += 1000;
	put_le32(rec, pf->usec / 1000000);
	put_le32(rec + 4, pf->usec % 1000000);
	put_le32(rec + 8, flen);
	put_le32(rec + 12, flen);
	if (fwrite(rec, sizeof(rec), 1, pf->fp) != 1 ||
	    fwrite(frame, flen, 1, pf->fp) != 1)
		return 0;
	return ++pf->frames;
}

int pcap_conv_start(struct pcap_conv *c, struct pcap_file *pf, unsigned int id)
{
	memset(c, 0, sizeof(*c));
	c->pf = pf;
	memcpy(c->ip[PCAP_INITIATOR], "\x0a\x00\x00\x01", 4);
	memcpy(c->ip[PCAP_RESPONDER], "\x0a\x00\x00\x02", 4);
	c->ip[PCAP_INITIATOR][2] = id;
	c->ip[PCAP_RESPONDER][2] = id;
	c->port[PCAP_INITIATOR] = 40000 + id;
	c->port[PCAP_RESPONDER] = 50000 + id;
	c->seq[PCAP_INITIATOR] = 0x1000 * (id + 1);
	c->seq[PCAP_RESPONDER] = 0x80000000u + 0x1000 * (id + 1);

	if (!write_segment(c, PCAP_INITIATOR, TCP_SYN, NULL, 0) ||
	    !write_segment(c, PCAP_RESPONDER, TCP_SYN | TCP_ACK, NULL, 0) ||
	    !write_segment(c, PCAP_INITIATOR, TCP_ACK, NULL, 0))
		return -1;
	return 0;
}

unsigned int pcap_conv_send(struct pcap_conv *c, enum pcap_dir dir,
			    const void *data, size_t len)
{
	return write_segment(c, dir, TCP_PSH | TCP_ACK, data, len);
}
