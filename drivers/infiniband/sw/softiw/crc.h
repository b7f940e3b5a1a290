/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw MPA CRC32c (crc.c): the one function the data path computes the
 * FPDU CRC with.  Same contract as the kernel's crc32c(): no initial or
 * final inversion.  Which implementation runs is decided once, at module
 * load (softiw_crc_init()); nothing to lock afterwards.
 */
#ifndef SOFTIW_CRC_H
#define SOFTIW_CRC_H

#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/jump_label.h>
#include <linux/types.h>

DECLARE_STATIC_KEY_FALSE(softiw_crc_table);

static inline u32 softiw_crc32c(u32 crc, const void *buf, unsigned int len)
{
	if (static_branch_unlikely(&softiw_crc_table))
		return __crc32c_le(crc, buf, len);
	return crc32c(crc, buf, len);
}

/* softiw_crc32c() as a function: the wire core's softiw_crc32c_fn */
u32 softiw_mpa_crc32c(u32 crc, const void *buf, unsigned int len);

int softiw_crc_init(void);

#endif /* SOFTIW_CRC_H */
