// SPDX-License-Identifier: GPL-2.0
/*
 * oracle_gen.c - writes the oracle's captures and their expectations.
 *
 * Usage: oracle_gen OUTDIR STREAM...
 *   STREAM is "vectors" (hand-built known-good frames), "encoder" (frames
 *   from the wire core's encoder, CRC on) or "markers" (the same with MPA
 *   Markers in both directions).  For each STREAM it writes
 *   OUTDIR/STREAM.pcap and OUTDIR/STREAM.expect for check.py.
 *
 * Owns: the expectation file format, one line per expectation:
 *   group <TAB> frame <TAB> field <TAB> value[,value...]   (or "-" = absent)
 *
 * Locking: none; single-threaded host tool.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oracle.h"

int oracle_out_open(struct oracle_out *o, const char *dir, const char *name)
{
	char path[4096];

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "%s/%s.pcap", dir, name);
	if (pcap_open(&o->pcap, path)) {
		perror(path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	o->expect = fopen(path, "w");
	if (!o->expect) {
		perror(path);
		pcap_close(&o->pcap);
		return -1;
	}
	o->group = "ungrouped";
	return 0;
}

int oracle_out_close(struct oracle_out *o)
{
	int ret = o->failed ? -1 : 0;

	if (fclose(o->expect))
		ret = -1;
	if (pcap_close(&o->pcap))
		ret = -1;
	return ret;
}

void oracle_expect(struct oracle_out *o, unsigned int frame, const char *field,
		   const char *fmt, ...)
{
	va_list ap;

	/* Frame 0 means the pcap write failed; remember it, write nothing. */
	if (!frame) {
		o->failed = 1;
		return;
	}
	fprintf(o->expect, "%s\t%u\t%s\t", o->group, frame, field);
	va_start(ap, fmt);
	vfprintf(o->expect, fmt, ap);
	va_end(ap);
	fputc('\n', o->expect);
}

void oracle_expect_absent(struct oracle_out *o, unsigned int frame,
			  const char *field)
{
	oracle_expect(o, frame, field, "-");
}

int main(int argc, char **argv)
{
	struct oracle_out o;
	int i, ret, status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUTDIR vectors|encoder|markers...\n",
			argv[0]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "vectors") && strcmp(argv[i], "encoder") &&
		    strcmp(argv[i], "markers")) {
			fprintf(stderr, "oracle_gen: unknown stream '%s'\n",
				argv[i]);
			return 2;
		}
		if (oracle_out_open(&o, argv[1], argv[i]))
			return 1;
		if (!strcmp(argv[i], "vectors"))
			ret = oracle_vectors(&o);
		else
			ret = oracle_encoded(&o, !strcmp(argv[i], "markers"));
		if (oracle_out_close(&o) || ret) {
			fprintf(stderr, "oracle_gen: stream '%s' failed\n",
				argv[i]);
			status = 1;
		}
	}
	return status;
}
