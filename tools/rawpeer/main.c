// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rawpeer: command line and step script.
 *
 *   rawpeer [OPTIONS] connect ADDR PORT STEP...
 *   rawpeer [OPTIONS] listen PORT STEP...
 *
 * connect is the MPA Initiator, listen the Responder (one connection).
 * Each STEP runs in order:
 *   CASE       send one crafted FPDU (rawpeer --list prints the cases)
 *   recv       print every FPDU received until EOF or timeout
 *   recv1      print the next FPDU
 *   validate   be the reference receiver: print valid FPDUs, answer the
 *              first invalid one with the prescribed Terminate
 *   sleep:N    wait N seconds
 *   mutate:N:SEED  send N randomly mutated FPDUs (fpdu.c), stopping
 *              early when the peer closes
 * Output lines (MPA, SENT, FPDU, TERMINATE, EOF, TIMEOUT, RXERR) are
 * meant for tests to match.  Exit 0, 1 on an error, 2 if recv timed out.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rawpeer.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: rawpeer [OPTIONS] connect ADDR PORT STEP...\n"
		"       rawpeer [OPTIONS] listen PORT STEP...\n"
		"options: --no-crc --v2 --stag S --to A --len L --stag2 S\n"
		"         --to2 A --len2 L --nrecv N --rlen L --seglen L\n"
		"         --timeout SECS --list\n");
	exit(1);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "no-crc", no_argument, NULL, 'C' },
		{ "v2", no_argument, NULL, 'V' },
		{ "stag", required_argument, NULL, 's' },
		{ "to", required_argument, NULL, 'a' },
		{ "len", required_argument, NULL, 'l' },
		{ "stag2", required_argument, NULL, 'S' },
		{ "to2", required_argument, NULL, 'A' },
		{ "len2", required_argument, NULL, 'L' },
		{ "nrecv", required_argument, NULL, 'n' },
		{ "rlen", required_argument, NULL, 'r' },
		{ "seglen", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "list", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rp_opts o = {
		.crc = true, .len = 4096, .len2 = 4096, .nrecv = 4,
		.rlen = 256, .seglen = 64, .timeout_s = 10,
	};
	static struct rp_conn c;
	int opt, i, rc = 0, r;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'C': o.crc = false; break;
		case 'V': o.v2 = true; break;
		case 's': o.stag = num(optarg); break;
		case 'a': o.to = num(optarg); break;
		case 'l': o.len = num(optarg); break;
		case 'S': o.stag2 = num(optarg); break;
		case 'A': o.to2 = num(optarg); break;
		case 'L': o.len2 = num(optarg); break;
		case 'n': o.nrecv = num(optarg); break;
		case 'r': o.rlen = num(optarg); break;
		case 'g': o.seglen = num(optarg); break;
		case 't': o.timeout_s = num(optarg); break;
		case 'h': rp_list_cases(); return 0;
		default: usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (optind < argc && !strcmp(argv[optind], "connect") &&
	    argc - optind >= 3) {
		if (rp_connect(&c, argv[optind + 1], argv[optind + 2], &o))
			return 1;
		i = optind + 3;
	} else if (optind < argc && !strcmp(argv[optind], "listen") &&
		   argc - optind >= 2) {
		if (rp_listen(&c, argv[optind + 1], &o))
			return 1;
		i = optind + 2;
	} else {
		usage();
	}
	for (; i < argc && rc != 1; i++) {
		if (!strcmp(argv[i], "recv") || !strcmp(argv[i], "recv1") ||
		    !strcmp(argv[i], "validate")) {
			r = rp_recv_print(&c, &o, argv[i][0] == 'v',
					  !strcmp(argv[i], "recv1"));
			if (r < 0)
				rc = 1;
			else if (r > 0)
				rc = 2;
		} else if (!strncmp(argv[i], "sleep:", 6)) {
			sleep(num(argv[i] + 6));
		} else if (!strncmp(argv[i], "mutate:", 7)) {
			char *seed = strchr(argv[i] + 7, ':');

			if (!seed)
				usage();
			*seed++ = 0;
			rp_send_mutated(&c, &o, num(seed), num(argv[i] + 7));
		} else if (rp_send_case(&c, argv[i], &o)) {
			rc = 1;
		}
	}
	close(c.fd);
	return rc;
}
