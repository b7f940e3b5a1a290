/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Portability layer of the softiw wire core (mpa.c, ddp.c, rdmap.c).
 *
 * The wire core is plain C that is compiled both into softiw.ko and into
 * host unit tests and fuzzers.  This header is the only place that knows
 * which of the two it is: it maps the fixed-width types, bool, size_t,
 * memcpy/memset and byte order.  The wire code itself never includes a
 * kernel or libc header.
 *
 * Byte order: every field is accessed through the softiw_wire_get_*() and
 * softiw_wire_put_*() helpers below, which read and write big-endian (or,
 * for the MPA CRC only, little-endian) values at an arbitrary, possibly
 * unaligned, byte address.  No wire struct is ever overlaid on a buffer,
 * so there is no alignment or sparse endianness hazard.
 *
 * Errors: every parser and validator returns a u32 status that is 0 for
 * success, a small positive value for a non-error condition (for example
 * "need more bytes"), or an error built with SOFTIW_WIRE_ERR().  An error
 * carries the Terminate Layer, Error Type and Error Code that RFC 5040
 * section 4.8 prescribes for it, so the value's low 16 bits are exactly the
 * upper half of a Terminate Control field; a detail number keeps errors
 * that share a Terminate code distinct (e.g. the many kinds of bad MPA
 * Request/Reply frame, which are all LLP code 0x04).
 *
 * Locking: none.  Nothing here has state; callers own their buffers.
 */
#ifndef SOFTIW_WIRE_PORT_H
#define SOFTIW_WIRE_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <asm/byteorder.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <endian.h>

/* The compiler's own fixed-width types: no <stdint.h> names needed. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
/* Host builds have no sparse: the endian types are plain integers. */
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u32 __le32;

#define cpu_to_be16(x) htobe16(x)
#define cpu_to_be32(x) htobe32(x)
#define cpu_to_be64(x) htobe64(x)
#define be16_to_cpu(x) be16toh(x)
#define be32_to_cpu(x) be32toh(x)
#define be64_to_cpu(x) be64toh(x)
#endif /* __KERNEL__ */

/*
 * Status values.  Bit 24 marks an error; bits 16..23 a detail number;
 * bits 12..15 the Terminate Layer, 8..11 the Error Type, 0..7 the Error
 * Code.  softiw_wire_term_bits() gives the upper half of a Terminate
 * Control word.
 */
#define SOFTIW_WIRE_OK			0u
#define SOFTIW_WIRE_ERR_FLAG		0x01000000u
#define SOFTIW_WIRE_ERR(detail, layer, etype, code)			\
	(SOFTIW_WIRE_ERR_FLAG | ((u32)(detail) << 16) |			\
	 ((u32)(layer) << 12) | ((u32)(etype) << 8) | (u32)(code))

/* Terminate Layer values (RFC 5040 section 4.8). */
#define SOFTIW_LAYER_RDMAP		0x0
#define SOFTIW_LAYER_DDP		0x1
#define SOFTIW_LAYER_LLP		0x2

static inline bool softiw_wire_is_error(u32 status)
{
	return (status & SOFTIW_WIRE_ERR_FLAG) != 0;
}

static inline u8 softiw_wire_err_layer(u32 err)
{
	return (err >> 12) & 0xf;
}

static inline u8 softiw_wire_err_etype(u32 err)
{
	return (err >> 8) & 0xf;
}

static inline u8 softiw_wire_err_ecode(u32 err)
{
	return err & 0xff;
}

/* Upper 16 bits of the Terminate Control field for this error. */
static inline u16 softiw_wire_term_bits(u32 err)
{
	return err & 0xffff;
}

/*
 * CRC32c update function: the raw Castagnoli CRC register update, with
 * the same contract as the kernel's crc32c(): no initial or final
 * inversion is applied by the function itself.  The kernel passes
 * crc32c(); host tests pass softiw_host_crc32c() from tests/lib.
 * A full CRC is ~fn(~0, buf, len).
 */
typedef u32 (*softiw_crc32c_fn)(u32 crc, const void *buf, unsigned int len);

/* Unaligned big-endian accessors on wire bytes. */
static inline u16 softiw_wire_get_be16(const u8 *p)
{
	return (u16)((p[0] << 8) | p[1]);
}

static inline u32 softiw_wire_get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) |
	       (u32)p[3];
}

static inline u64 softiw_wire_get_be64(const u8 *p)
{
	return ((u64)softiw_wire_get_be32(p) << 32) |
	       softiw_wire_get_be32(p + 4);
}

static inline void softiw_wire_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void softiw_wire_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static inline void softiw_wire_put_be64(u8 *p, u64 v)
{
	softiw_wire_put_be32(p, v >> 32);
	softiw_wire_put_be32(p + 4, v & 0xffffffffu);
}

/* The MPA CRC is the only little-endian field on the wire. */
static inline u32 softiw_wire_get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) |
	       (u32)p[0];
}

static inline void softiw_wire_put_le32(u8 *p, u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

#endif /* SOFTIW_WIRE_PORT_H */
