/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw payload and header copies (copy.c): softiw_copy() is memcpy()
 * for the data path, softiw_skb_copy() skb_copy_bits() for placement and
 * header peeks.
 * Which routine runs is decided once, at module load
 * (softiw_copy_init()); nothing to lock afterwards.
 */
#ifndef SOFTIW_COPY_H
#define SOFTIW_COPY_H

#include <linux/jump_label.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/types.h>

DECLARE_STATIC_KEY_FALSE(softiw_copy_by_words);

void softiw_copy_words(void *dst, const void *src, size_t len);

/* memcpy() for the data path: @dst and @src do not overlap */
static inline void softiw_copy(void *dst, const void *src, size_t len)
{
	if (static_branch_unlikely(&softiw_copy_by_words))
		softiw_copy_words(dst, src, len);
	else
		memcpy(dst, src, len);
}

const u8 *softiw_skb_span(const struct sk_buff *skb, u32 off, u32 *room,
			  struct page **page);
int softiw_skb_copy(const struct sk_buff *skb, u32 off, void *to, u32 len);

int softiw_copy_init(void);

#endif /* SOFTIW_COPY_H */
