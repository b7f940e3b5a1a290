// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw kernel compatibility helpers: the functions compat.h declares,
 * one body per probed capability (see compat.h for the list).  Owns no
 * state and takes no locks of its own.
 */
#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/uio.h>

#include "txrx.h"

int softiw_sock_splice(struct socket *sock, struct page *page,
		       unsigned int offset, unsigned int len, int flags)
{
#ifdef SOFTIW_HAVE_KERNEL_SENDPAGE
	return kernel_sendpage(sock, page, offset, len, flags);
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, offset);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
	return sock_sendmsg(sock, &msg);
#endif
}

/* TCP drops a reference to a zero-copy send's completion. */
static void softiw_ubuf_complete(struct sk_buff *skb, struct ubuf_info *uarg,
				 bool zerocopy_success)
{
	softiw_tx_zc_put(uarg);
}

#ifdef SOFTIW_HAVE_UBUF_INFO_OPS
static const struct ubuf_info_ops softiw_ubuf_ops = {
	.complete = softiw_ubuf_complete,
};
#endif

void softiw_ubuf_init(struct ubuf_info *uarg)
{
#ifdef SOFTIW_HAVE_UBUF_INFO_OPS
	uarg->ops = &softiw_ubuf_ops;
#else
	uarg->callback = softiw_ubuf_complete;
#endif
	refcount_set(&uarg->refcnt, 1);
	uarg->flags = SKBFL_ZEROCOPY_FRAG;
}
