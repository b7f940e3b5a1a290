/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softiw kernel compatibility: force-included before every source file
 * (Kbuild: -include compat.h).
 *
 * The module is written against the newest supported kernel API (6.12).
 * Where older kernels differ, Kbuild greps the target kernel's headers and
 * passes -DSOFTIW_HAVE_<capability>; this file is the one place that turns
 * a missing capability into a definition the main code can use, and the
 * list below is the one place to read what differs.  No kernel version
 * checks anywhere.
 *
 * This header includes nothing, so it does not change what a source file
 * sees before its own #includes (pr_fmt etc. stay the file's business).
 *
 * Capabilities probed:
 *
 * SOFTIW_HAVE_CREATE_CQ_ATTRS
 *	ib_device_ops.create_cq receives the struct uverbs_attr_bundle
 *	(6.12).  Older kernels (6.1) pass the bundle's driver_udata, or NULL
 *	from kernel callers; verbs.c then registers a shim with the old
 *	signature that recovers the bundle with container_of().
 *
 * SOFTIW_HAVE_KERNEL_SENDPAGE
 *	kernel_sendpage() exists (6.1): pages are spliced into a socket
 *	with it.  Without it (6.12) sendmsg() with MSG_SPLICE_PAGES over a
 *	bio_vec does the same.  (6.1's headers define MSG_SPLICE_PAGES but
 *	its TCP ignores the flag, so the flag itself is not the probe.)
 *
 * SOFTIW_HAVE_SKB_FRAGS_READABLE
 *	skb_frags_readable() exists (6.12): an skb's frags may be device
 *	memory the CPU cannot read (devmem TCP), and code that maps frag
 *	pages itself must ask first.  Without it (6.1) every frag is a
 *	page of memory, and the fallback below says so.
 *
 * SOFTIW_HAVE_UBUF_INFO_OPS
 *	struct ubuf_info (the completion of a zero-copy send) points at a
 *	struct ubuf_info_ops with a complete() callback (6.12); older
 *	kernels (6.1) have one callback pointer of the same signature in
 *	the ubuf_info itself.  softiw_ubuf_init() fills in either.
 *
 * SOFTIW_HAVE_VM_FLAGS_SET
 *	a VMA's flags are changed through vm_flags_set() (6.12; the field
 *	is const to everyone else).  Older kernels (6.1) have no helper and
 *	the flags are set directly; the fallback below does that.
 *
 * Helpers built on the capabilities live in compat.c and are declared
 * at the end of this file.
 */
#ifndef SOFTIW_COMPAT_H
#define SOFTIW_COMPAT_H

struct socket;
struct page;
struct ubuf_info;

#ifndef SOFTIW_HAVE_SKB_FRAGS_READABLE
#define skb_frags_readable(skb) true
#endif

#ifndef SOFTIW_HAVE_VM_FLAGS_SET
#define vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#endif

/*
 * Hand @len octets at @offset of the (compound) @page to TCP without
 * copying them; TCP takes its own page references.  MSG_* @flags.
 * Returns octets accepted or -errno, as sendmsg() does.
 */
int softiw_sock_splice(struct socket *sock, struct page *page,
		       unsigned int offset, unsigned int len, int flags);

/*
 * Make @uarg the completion of a zero-copy send owned by the TX engine:
 * one reference (the caller's), user-page fragments, and a callback that
 * calls softiw_tx_zc_put() (txrx.h) for each reference TCP drops.
 */
void softiw_ubuf_init(struct ubuf_info *uarg);

#endif /* SOFTIW_COMPAT_H */
