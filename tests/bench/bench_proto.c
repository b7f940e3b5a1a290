// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_proto.c - host micro-benchmark of the wire core's per-segment
 * hot path (issue "Speed": make bench-proto).
 *
 * Two operations, each on one DDP segment per iteration:
 *  encode:           segmenter step, DDP/RDMAP header build and MPA
 *                    framing (ULPDU_Length, payload copy, PAD, CRC);
 *  validate+decode:  MPA FPDU parse (CRC check), DDP + RDMAP header
 *                    decode, section 7.1 tagged validation against a
 *                    one-entry STag table and the in-message check.
 * The message is an RDMA Write, so every segment is a full MULPDU
 * (1460 or 9000 octets of ULPDU) except possibly the last of a message.
 *
 * CRC variants: "off" (CRC field zero, not checked), "table" (the
 * portable byte-at-a-time CRC32c of tests/lib, used by all host tests)
 * and "sse4.2" (the CPU's crc32 instruction, which is what the kernel's
 * crc32c() uses on x86, so this row is the one to compare with the
 * module).  Results are the best of several timed runs.
 *
 * Locking: none; single-threaded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"
#include "crc32c.h"

#define MSG_LEN		0x100000u	/* one 1 MiB RDMA Write per message */
#define STAG		0x1234abcdu
#define BASE_TO		0x100000000ull
#define RUN_NS		250000000ll	/* 0.25 s per timed run */
#define RUNS		5

static u8 payload[MSG_LEN];
static u8 ulpdu[0x10000];
static u8 wire[0x10000 + 1024];
/* Results feed the exit status, so no work can be optimised away. */
static u32 sink;

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static u32 hw_crc32c(u32 crc, const void *buf, unsigned int len)
{
	const u8 *p = buf;
	u64 c = crc;

	while (len >= 8) {
		u64 v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

static bool have_hw_crc(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#else
#define hw_crc32c softiw_host_crc32c
static bool have_hw_crc(void)
{
	return false;
}
#endif

struct variant {
	const char *name;
	bool crc;
	softiw_crc32c_fn fn;
};

static int stag_lookup(void *ctx, u32 stag, struct softiw_ddp_stag_info *info)
{
	if (stag != STAG)
		return -1;
	info->pd = 1;
	info->qp = 2;
	info->base = BASE_TO;
	info->len = MSG_LEN;
	info->access = SOFTIW_DDP_ACCESS_REMOTE_WRITE;
	return 0;
}

static int ubuf_lookup(void *ctx, u32 qn, u32 msn,
		       struct softiw_ddp_ubuf_info *info)
{
	return -1;	/* only tagged segments here */
}

static const struct softiw_ddp_stream stream = {
	.pd = 1,
	.qp = 2,
	.nr_qn = SOFTIW_RDMAP_NR_QN,
	.stag_lookup = stag_lookup,
	.ubuf_lookup = ubuf_lookup,
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_proto: %s\n", what);
	exit(1);
}

/* Encode segments for about RUN_NS; returns segments per second. */
static double run_encode(const struct variant *v, u32 mulpdu)
{
	struct softiw_mpa_tx tx = { .crc32c = v->fn, .crc = v->crc };
	long long start = now_ns(), t;
	unsigned long long segs = 0;

	do {
		struct softiw_ddp_segmenter sg;
		struct softiw_rdmap_hdr rh;
		struct softiw_ddp_hdr h;
		u32 off, len;
		int i;

		if (softiw_rdmap_hdr_init(&rh, SOFTIW_RDMAP_WRITE, STAG,
					  BASE_TO, 0, 0) ||
		    softiw_ddp_seg_init(&sg, &rh.ddp, MSG_LEN, mulpdu))
			die("encode setup failed");
		while (softiw_ddp_seg_next(&sg, &h, &off, &len)) {
			int hl = softiw_ddp_hdr_encode(&h, ulpdu, sizeof(ulpdu));

			memcpy(ulpdu + hl, payload + off, len);
			i = softiw_mpa_fpdu_build(&tx, ulpdu, hl + len, wire,
						  sizeof(wire));
			if (i <= 0)
				die("fpdu_build failed");
			sink += wire[i - 1];
			segs++;
		}
		t = now_ns();
	} while (t - start < RUN_NS);
	return segs * 1e9 / (t - start);
}

/* Build one message's FPDUs once, then validate+decode them repeatedly. */
static double run_decode(const struct variant *v, u32 mulpdu)
{
	static u8 fpdus[MSG_LEN + MSG_LEN / 8 + 4096];
	struct softiw_mpa_tx tx = { .crc32c = v->fn, .crc = v->crc };
	struct softiw_ddp_segmenter sg;
	struct softiw_rdmap_hdr rh;
	struct softiw_ddp_hdr h;
	unsigned long long segs = 0;
	size_t total = 0;
	long long start, t;
	u32 off, len;

	if (softiw_rdmap_hdr_init(&rh, SOFTIW_RDMAP_WRITE, STAG, BASE_TO, 0, 0) ||
	    softiw_ddp_seg_init(&sg, &rh.ddp, MSG_LEN, mulpdu))
		die("decode setup failed");
	while (softiw_ddp_seg_next(&sg, &h, &off, &len)) {
		int hl = softiw_ddp_hdr_encode(&h, ulpdu, sizeof(ulpdu));
		int n;

		memcpy(ulpdu + hl, payload + off, len);
		n = softiw_mpa_fpdu_build(&tx, ulpdu, hl + len, fpdus + total,
					  sizeof(fpdus) - total);
		if (n <= 0)
			die("fpdu_build failed");
		total += n;
	}

	start = now_ns();
	do {
		struct softiw_mpa_rx rx = { .crc32c = v->fn, .crc = v->crc };
		struct softiw_ddp_rx_msg msg = { 0 };
		size_t pos = 0;

		while (pos < total) {
			struct softiw_mpa_fpdu f;
			struct softiw_rdmap_hdr d;
			u32 plen;

			if (softiw_mpa_fpdu_parse(&rx, fpdus + pos, total - pos,
						  NULL, 0, &f) ||
			    softiw_rdmap_hdr_decode(f.ulpdu, f.ulpdu_len, &d))
				die("parse failed");
			plen = f.ulpdu_len - d.hdr_len;
			if (softiw_ddp_validate_tagged(&stream, &d.ddp, plen,
						       SOFTIW_DDP_ACCESS_REMOTE_WRITE,
						       NULL) ||
			    softiw_ddp_rx_msg_check(&msg, &d.ddp, plen))
				die("validation failed");
			sink += f.ulpdu[d.hdr_len];
			pos += f.wire_len;
			segs++;
		}
		t = now_ns();
	} while (t - start < RUN_NS);
	return segs * 1e9 / (t - start);
}

static double best(double (*fn)(const struct variant *, u32),
		   const struct variant *v, u32 mulpdu)
{
	double b = 0, r;
	int i;

	for (i = 0; i < RUNS; i++) {
		r = fn(v, mulpdu);
		if (r > b)
			b = r;
	}
	return b;
}

int main(void)
{
	static const u32 mulpdus[] = { 1460, 9000 };
	struct variant variants[] = {
		{ "off", false, softiw_host_crc32c },
		{ "table", true, softiw_host_crc32c },
		{ "sse4.2", true, hw_crc32c },
	};
	unsigned int nv = have_hw_crc() ? 3 : 2, i, j, k;
	static const char *const vec = "123456789";

	for (i = 0; i < MSG_LEN; i++)
		payload[i] = i * 7;
	/* Both CRC implementations must agree with the check value. */
	if (~softiw_host_crc32c(~0u, vec, 9) != 0xe3069283u ||
	    (nv == 3 && ~hw_crc32c(~0u, vec, 9) != 0xe3069283u))
		die("CRC32c self-check failed");

	printf("softiw wire core micro-benchmark: RDMA Write, %u KiB messages,\n"
	       "one DDP segment of up to MULPDU octets per FPDU\n",
	       MSG_LEN >> 10);
	printf("%-16s %7s %-7s %12s %10s\n", "operation", "MULPDU", "CRC",
	       "segments/s", "Gbit/s");
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 2; i++) {
			for (j = 0; j < nv; j++) {
				double (*fn)(const struct variant *, u32) =
					k ? run_decode : run_encode;
				double r = best(fn, &variants[j], mulpdus[i]);
				u32 pl = mulpdus[i] - SOFTIW_DDP_TAGGED_HDR_LEN;

				printf("%-16s %7u %-7s %12.0f %10.2f\n",
				       k ? "validate+decode" : "encode",
				       mulpdus[i], variants[j].name, r,
				       r * pl * 8 / 1e9);
			}
		}
	}
	printf("(Gbit/s counts DDP payload only; best of %d runs of %.2f s)\n",
	       RUNS, RUN_NS / 1e9);
	return sink == 0xdeadbeef;
}
