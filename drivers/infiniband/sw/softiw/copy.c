// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw copy selection: how the data path copies octets it cannot hand
 * over by reference (inline data, a payload into a transmit batch, a
 * placement from an skb, a header peek): the kernel's memcpy() or a loop
 * of 8-octet words.
 *
 * The kernel's x86-64 memcpy() is one "rep movsb" on CPUs that advertise
 * ERMS (up to 6.1) or FSRM (later kernels).  A real CPU runs that at
 * cache speed.  QEMU's TCG (where CI and the benchmarks here run)
 * emulates it one octet at a time, four to eight times slower than a loop
 * of word loads and stores at every size from a 36-octet header to a
 * 64 KiB payload (performance.rst).  So with
 * copy_impl=auto (the default) softiw times both at load, over many small
 * copies and over one page-sized copy, and takes the words only if they
 * win both, the way crc.c chooses its CRC32c routine; copy_impl=memcpy or
 * =words forces one.  The choice is logged and readable in
 * /sys/module/softiw/parameters/copy_impl.
 *
 * Locking: decided in module init before any device exists; the static
 * key is only read afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "softiw.h"
#include "copy.h"

DEFINE_STATIC_KEY_FALSE(softiw_copy_by_words);

/* one word from or to any address (x86 and most others allow it) */
static __always_inline u64 copy_ld(const u8 *p)
{
	u64 w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static __always_inline void copy_st(u8 *p, u64 w)
{
	memcpy(p, &w, sizeof(w));
}

void softiw_copy_words(void *dst, const void *src, size_t len)
{
	const u8 *s = src;
	u8 *d = dst;

	for (; len >= 32; s += 32, d += 32, len -= 32) {
		u64 w0 = copy_ld(s), w1 = copy_ld(s + 8);
		u64 w2 = copy_ld(s + 16), w3 = copy_ld(s + 24);

		copy_st(d, w0);
		copy_st(d + 8, w1);
		copy_st(d + 16, w2);
		copy_st(d + 24, w3);
	}
	for (; len >= 8; s += 8, d += 8, len -= 8)
		copy_st(d, copy_ld(s));
	/* keeps the compiler from turning the tail into a memcpy() call */
	for (; len; len--) {
		*d++ = *s++;
		barrier();
	}
}

/*
 * The octets at @off of @skb that lie in one piece of memory: the linear
 * part, or one page of one frag.  Returns their address and count in
 * *@room, with *@page to kunmap_local() after (NULL for the linear part);
 * NULL if @off is past the frags or they are not readable.
 */
const u8 *softiw_skb_span(const struct sk_buff *skb, u32 off, u32 *room,
			  struct page **page)
{
	u32 hlen = skb_headlen(skb), i;

	*page = NULL;
	if (off < hlen) {
		*room = hlen - off;
		return skb->data + off;
	}
	if (!skb_frags_readable(skb))
		return NULL;
	off -= hlen;
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];
		u32 size = skb_frag_size(f), at;

		if (off >= size) {
			off -= size;
			continue;
		}
		at = skb_frag_off(f) + off;
		*room = min_t(u32, size - off, PAGE_SIZE - offset_in_page(at));
		*page = nth_page(skb_frag_page(f), at >> PAGE_SHIFT);
		return (u8 *)kmap_local_page(*page) + offset_in_page(at);
	}
	return NULL;
}

/*
 * skb_copy_bits() with softiw_copy(): piece by piece over the linear part
 * and the frags (a header peek is usually one piece); what lies beyond
 * them (a frag list) is left to skb_copy_bits().
 */
int softiw_skb_copy(const struct sk_buff *skb, u32 off, void *to, u32 len)
{
	u8 *d = to;

	while (len) {
		struct page *page;
		const u8 *p;
		u32 n;

		p = softiw_skb_span(skb, off, &n, &page);
		if (!p)
			return skb_copy_bits(skb, off, d, len);
		n = min(n, len);
		softiw_copy(d, p, n);
		if (page)
			kunmap_local(p);
		d += n;
		off += n;
		len -= n;
	}
	return 0;
}

enum { COPY_AUTO, COPY_MEMCPY, COPY_WORDS };

static const char * const copy_impl_names[] = {
	[COPY_AUTO] = "auto", [COPY_MEMCPY] = "memcpy", [COPY_WORDS] = "words",
};

static struct softiw_choice copy_impl = {
	.names = copy_impl_names, .nr = ARRAY_SIZE(copy_impl_names),
	.req = COPY_AUTO, .used = COPY_MEMCPY,
};
module_param_cb(copy_impl, &softiw_choice_ops, &copy_impl, 0444);
MODULE_PARM_DESC(copy_impl,
		 "data path copies: auto (time both at load), memcpy or words");

#define COPY_BENCH_LEN		4096
#define COPY_BENCH_SMALL	64
#define COPY_BENCH_REPS		8
#define COPY_BENCH_ROUNDS	3
#define COPY_CHECK_MAX		100	/* lengths 0..this are checked */
#define COPY_CHECK_LEN		(COPY_CHECK_MAX + 8)

/*
 * Best of COPY_BENCH_ROUNDS, in ns for COPY_BENCH_REPS copies of
 * COPY_BENCH_LEN octets from @src to @dst, in @piece-octet copies; the
 * source is one octet off alignment, as a payload behind a header is.
 */
static noinline u64 copy_time(bool words, u8 *dst, const u8 *src, u32 piece)
{
	u64 best = U64_MAX, t;
	int r, i;
	u32 o;

	/* a length the compiler cannot see, as on the data path */
	OPTIMIZER_HIDE_VAR(piece);
	for (r = 0; r < COPY_BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < COPY_BENCH_REPS; i++) {
			for (o = 0; o < COPY_BENCH_LEN; o += piece) {
				if (words)
					softiw_copy_words(dst + o, src + 1 + o,
							  piece);
				else
					memcpy(dst + o, src + 1 + o, piece);
			}
			barrier();
		}
		best = min(best, ktime_get_ns() - t);
	}
	return best;
}

#define COPY_PS(t)	((t) * 1000 / (COPY_BENCH_REPS * COPY_BENCH_LEN))

int softiw_copy_init(void)
{
	u64 m_small = 0, w_small = 0, m_page = 0, w_page = 0;
	u8 *src, *a, *b;
	u32 i;

	copy_impl.used = copy_impl.req == COPY_WORDS ? COPY_WORDS : COPY_MEMCPY;
	src = kmalloc(3 * COPY_BENCH_LEN + 1, GFP_KERNEL);
	if (!src)
		return -ENOMEM;
	a = src + COPY_BENCH_LEN + 1;
	b = a + COPY_BENCH_LEN;
	for (i = 0; i < COPY_BENCH_LEN + 1; i++)
		src[i] = (u8)(i * 131 + 7);
	/* the words must copy exactly what memcpy() does, at any length */
	for (i = 0; copy_impl.req != COPY_MEMCPY && i <= COPY_CHECK_MAX; i++) {
		memset(a, 0x5a, COPY_CHECK_LEN);
		memset(b, 0x5a, COPY_CHECK_LEN);
		memcpy(a + 3, src + 1, i);
		softiw_copy_words(b + 3, src + 1, i);
		if (memcmp(a, b, COPY_CHECK_LEN)) {
			pr_warn("word copy of %u octets differs from memcpy(): using memcpy()\n",
				i);
			copy_impl.used = COPY_MEMCPY;
			goto out;
		}
	}
	if (copy_impl.req == COPY_AUTO) {
		m_small = copy_time(false, a, src, COPY_BENCH_SMALL);
		w_small = copy_time(true, a, src, COPY_BENCH_SMALL);
		m_page = copy_time(false, a, src, COPY_BENCH_LEN);
		w_page = copy_time(true, a, src, COPY_BENCH_LEN);
		if (w_small < m_small && w_page < m_page)
			copy_impl.used = COPY_WORDS;
	}
out:
	kfree(src);
	if (copy_impl.used == COPY_WORDS)
		static_branch_enable(&softiw_copy_by_words);
	if (m_small)
		pr_info("data path copies: %s (copy_impl=%s; ps/octet with memcpy() and words: %llu and %llu in %u-octet copies, %llu and %llu in %u-octet copies)\n",
			copy_impl_names[copy_impl.used],
			copy_impl_names[copy_impl.req],
			COPY_PS(m_small), COPY_PS(w_small), COPY_BENCH_SMALL,
			COPY_PS(m_page), COPY_PS(w_page), COPY_BENCH_LEN);
	else
		pr_info("data path copies: %s (copy_impl=%s)\n",
			copy_impl_names[copy_impl.used],
			copy_impl_names[copy_impl.req]);
	return 0;
}
