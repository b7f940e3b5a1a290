// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw CRC32c selection: which of the kernel's two CRC32c routines the
 * MPA layer uses, crc32c() (libcrc32c: the crypto API's best "crc32c",
 * on x86-64 the SSE4.2 crc32 instruction with PCLMULQDQ folding) or
 * __crc32c_le() (lib/crc32.c: table-driven, slice-by-8).
 *
 * On a real CPU the instruction is many times faster.  On an emulated
 * one (QEMU's TCG, where CI and the benchmarks here run) each crc32
 * instruction is a call into the emulator, and the table is about five
 * times faster.  So with crc_impl=auto (the default) softiw times both
 * over the same buffer at load and keeps the faster, the way the kernel
 * chooses its RAID6 and XOR routines at boot; crc_impl=lib or =table
 * forces one.  Both must agree on a known vector and on the timing
 * buffer, else crc32c() is used.  The choice is logged and readable in
 * /sys/module/softiw/parameters/crc_impl.
 *
 * Locking: decided in module init before any device exists; the static
 * key is only read afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "crc.h"
#include "softiw.h"

DEFINE_STATIC_KEY_FALSE(softiw_crc_table);

u32 softiw_mpa_crc32c(u32 crc, const void *buf, unsigned int len)
{
	return softiw_crc32c(crc, buf, len);
}

enum { CRC_AUTO, CRC_LIB, CRC_TABLE };

static const char * const crc_impl_names[] = {
	[CRC_AUTO] = "auto", [CRC_LIB] = "lib", [CRC_TABLE] = "table",
};

static struct softiw_choice crc_impl = {
	.names = crc_impl_names, .nr = ARRAY_SIZE(crc_impl_names),
	.req = CRC_AUTO, .used = CRC_LIB,
};
module_param_cb(crc_impl, &softiw_choice_ops, &crc_impl, 0444);
MODULE_PARM_DESC(crc_impl,
		 "MPA CRC32c routine: auto (time both at load), lib (crc32c()) or table (__crc32c_le())");

#define CRC_BENCH_LEN	4096
#define CRC_BENCH_REPS	8
#define CRC_BENCH_ROUNDS 3

/* Best of CRC_BENCH_ROUNDS, in ns for CRC_BENCH_REPS passes over @buf. */
static u64 crc_time(bool table, const u8 *buf, u32 *crc)
{
	u64 best = U64_MAX, t;
	int r, i;

	for (r = 0; r < CRC_BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < CRC_BENCH_REPS; i++)
			*crc = table ? __crc32c_le(~0u, buf, CRC_BENCH_LEN) :
				       crc32c(~0u, buf, CRC_BENCH_LEN);
		best = min(best, ktime_get_ns() - t);
	}
	return best;
}

int softiw_crc_init(void)
{
	/* RFC 3720 B.4: 32 octets of zero have the CRC32c 0x8a9136aa */
	static const u8 zeros[32];
	u64 t_lib = 0, t_table = 0;
	u32 c_lib, c_table, i;
	u8 *buf;

	crc_impl.used = CRC_LIB;
	if (crc_impl.req == CRC_LIB)
		goto out;
	if (~crc32c(~0u, zeros, sizeof(zeros)) != 0x8a9136aa ||
	    ~__crc32c_le(~0u, zeros, sizeof(zeros)) != 0x8a9136aa) {
		pr_warn("CRC32c routines disagree with RFC 3720 B.4: using crc32c()\n");
		goto out;
	}
	buf = kmalloc(CRC_BENCH_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < CRC_BENCH_LEN; i++)
		buf[i] = (u8)(i * 131 + 7);
	t_lib = crc_time(false, buf, &c_lib);
	t_table = crc_time(true, buf, &c_table);
	kfree(buf);
	if (c_lib != c_table) {
		pr_warn("CRC32c routines disagree: using crc32c()\n");
		goto out;
	}
	if (crc_impl.req == CRC_TABLE || t_table < t_lib)
		crc_impl.used = CRC_TABLE;
out:
	if (crc_impl.used == CRC_TABLE)
		static_branch_enable(&softiw_crc_table);
	if (t_lib && t_table)
		pr_info("MPA CRC32c: %s (crc_impl=%s; %llu ps/octet with crc32c(), %llu with the table)\n",
			crc_impl_names[crc_impl.used],
			crc_impl_names[crc_impl.req],
			t_lib * 1000 / (CRC_BENCH_REPS * CRC_BENCH_LEN),
			t_table * 1000 / (CRC_BENCH_REPS * CRC_BENCH_LEN));
	else
		pr_info("MPA CRC32c: %s (crc_impl=%s)\n",
			crc_impl_names[crc_impl.used],
			crc_impl_names[crc_impl.req]);
	return 0;
}
