/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Portable CRC32c (Castagnoli) for host builds of the wire core: the
 * raw register update with the kernel crc32c() contract (no inversion
 * inside; a full CRC is ~softiw_host_crc32c(~0, buf, len)).
 */
#ifndef SOFTIW_HOST_CRC32C_H
#define SOFTIW_HOST_CRC32C_H

#include <stdint.h>

uint32_t softiw_host_crc32c(uint32_t crc, const void *buf, unsigned int len);

#endif
