/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oracle.h - shared state of the oracle capture generator.
 *
 * Owns: the pairing of one pcap file with its expectation file.  Each
 * expectation line says which field tshark must show in which frame, and
 * with which values, and names the check group (one TAP line in check.py)
 * that the line belongs to.  Expectations come from what the generator
 * *asked* the encoder to produce, never from re-reading the bytes, so a
 * wrong encoder shows up as a mismatch against tshark's decode.
 *
 * Locking: none; single-threaded host tool.
 */
#ifndef SOFTIW_ORACLE_H
#define SOFTIW_ORACLE_H

#include "pcap_writer.h"

struct oracle_out {
	struct pcap_file pcap;
	FILE *expect;
	const char *group;	/* group for following expectations */
	int failed;		/* a write or an encoder call failed */
};

int oracle_out_open(struct oracle_out *o, const char *dir, const char *name);
int oracle_out_close(struct oracle_out *o);

/*
 * Expect @field in @frame to take, in order of appearance, the values in
 * the printf-style list (comma separated for several occurrences).
 * The special field "crc_good" expects that many CRC checks, all good.
 */
void oracle_expect(struct oracle_out *o, unsigned int frame, const char *field,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Expect @field to be absent from @frame. */
void oracle_expect_absent(struct oracle_out *o, unsigned int frame,
			  const char *field);

/* Streams: each writes one or more TCP conversations into @o. */
int oracle_vectors(struct oracle_out *o);
int oracle_encoded(struct oracle_out *o, int markers);

#endif /* SOFTIW_ORACLE_H */
