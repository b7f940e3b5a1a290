/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * softiw kernel <-> libibverbs provider ABI.
 *
 * Both sides are built from this one header and change in lock-step: any
 * change to a structure below bumps SOFTIW_ABI_VERSION.  Fixed-width types,
 * explicit padding and __aligned_u64 only, so 32- and 64-bit processes see
 * the same layout.
 */
#ifndef SOFTIW_ABI_USER_H
#define SOFTIW_ABI_USER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SOFTIW_ABI_VERSION 3

/*
 * sysfs attribute of every softiw ib_device
 * (/sys/class/infiniband/<dev>/softiw_abi_version).  It holds
 * SOFTIW_ABI_VERSION in decimal; the provider recognises softiw devices by
 * it, because an out-of-tree driver reports RDMA_DRIVER_UNKNOWN.
 */
#define SOFTIW_SYSFS_ABI_ATTR "softiw_abi_version"

/* @flags of the alloc_ucontext request: give the process a doorbell file */
#define SOFTIW_UCTX_F_DOORBELL_FD	0x1

/*
 * Request of alloc_ucontext (driver data after ib_uverbs_get_context).
 * Unknown flags and a non-zero @reserved are refused (EINVAL).
 */
struct softiw_alloc_ucontext_req {
	__u32 flags;		/* SOFTIW_UCTX_F_* */
	__u32 reserved;
};

/* Response to alloc_ucontext (driver data after ib_uverbs_get_context_resp). */
struct softiw_alloc_ucontext_resp {
	__u32 abi_version;	/* SOFTIW_ABI_VERSION of the kernel */
	__s32 doorbell_fd;	/* the doorbell file (O_CLOEXEC), or -1 */
	__aligned_u64 reserved2;
};

/*
 * The doorbell file: asked for with SOFTIW_UCTX_F_DOORBELL_FD, one per
 * context, owned by the process (it closes it with the context).
 *
 *   ioctl(doorbell_fd, SOFTIW_IOCTL_SQ_DOORBELL, qp_num)
 *
 * has the same effect as an empty POST_SEND on the QP's handle: the
 * kernel takes what the QP's SQ ring holds and runs its TX engine in the
 * caller's context.  Only QPs of the context the file was made for are
 * reached: 0, or -1 with errno ENOENT (no such QP in this context),
 * EINVAL (@qp_num out of range), ENODEV (the context is gone) or ENOTTY
 * (another request).
 */
#define SOFTIW_IOCTL_MAGIC		0xb5
#define SOFTIW_IOCTL_SQ_DOORBELL	_IO(SOFTIW_IOCTL_MAGIC, 0x01)

/*
 * Rings shared with the kernel.
 *
 * Every user CQ, QP (its SQ and RQ) and SRQ has its rings in memory the
 * process maps from the device file: the create response gives the mmap
 * offset (@*_key) and the length of each.  A mapped ring starts with a
 * struct softiw_ring_ctrl; its entries follow at SOFTIW_RING_ENTRIES_OFF,
 * @*_size of them (a power of two), slot = index & (size - 1).  Indices
 * are free-running 32-bit counters.
 *
 *   ring     producer (writes @head)   consumer (writes @tail)
 *   SQ, RQ   process                   kernel: @tail counts completed
 *                                      entries; a slot is free again once
 *                                      @tail passed it
 *   SRQ      process                   kernel: @tail counts entries taken
 *   CQ       kernel                    process
 *
 * The producer writes an entry and then @head (release order); the
 * consumer reads @head (acquire order) before the entries.  The kernel
 * copies each entry it consumes once and checks the copy: whatever the
 * process writes into a ring, at any time, can at worst put its own QP
 * into the error state.  A QP's work requests are refused on the rings
 * (they must go through the rings, not the POST_SEND / POST_RECV
 * commands); the doorbell file (above) or an empty POST_SEND is the SQ
 * doorbell, and an empty POST_RECV makes the kernel flush the RQ of a QP
 * in the error state.
 */
#define SOFTIW_RING_ENTRIES_OFF	256

/*
 * @flags of an SQ's control block, written by the kernel only.
 * ENGINE_ACTIVE: the kernel reads @head again before it idles, so a post
 * needs no doorbell.
 */
#define SOFTIW_SQ_F_ENGINE_ACTIVE	0x1

struct softiw_ring_ctrl {
	__u32 head;		/* producer's */
	__u32 reserved0[15];
	__u32 tail;		/* consumer's */
	__u32 reserved1[15];
	/* written by the kernel only (SQ ring of a QP) */
	__u32 flags;		/* SOFTIW_SQ_F_* */
	__u32 qp_state;		/* enum ib_qp_state = enum ibv_qp_state */
	__u32 reserved2[14];
};

struct softiw_sge_abi {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

#define SOFTIW_MAX_SGE_ABI	6
#define SOFTIW_MAX_INLINE_ABI	256
/* largest message (sum of SGE lengths) a work request may carry */
#define SOFTIW_MAX_MSG_ABI	0x80000000u

/* SQ entry opcodes */
enum softiw_sqe_opcode {
	SOFTIW_SQE_SEND = 0,
	SOFTIW_SQE_SEND_INV = 1,	/* Send with Invalidate of @inv_stag */
	SOFTIW_SQE_WRITE = 2,
	SOFTIW_SQE_READ = 3,
	SOFTIW_SQE_LOCAL_INV = 4,	/* invalidate @inv_stag locally */
	SOFTIW_SQE_BIND_MW = 5,		/* bind @bind (memory windows) */
};

/* SQ entry flags */
#define SOFTIW_SQE_F_SIGNALED	0x01
#define SOFTIW_SQE_F_SOLICITED	0x02	/* Send with Solicited Event */
#define SOFTIW_SQE_F_INLINE	0x04	/* payload in @inline_data */
#define SOFTIW_SQE_F_FENCE	0x08

struct softiw_sqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* enum softiw_sqe_opcode */
	__u8 flags;		/* SOFTIW_SQE_F_* */
	__u8 num_sge;		/* SGEs in @sge, 0 with INLINE */
	__u8 reserved;
	__u32 inline_len;	/* octets in @inline_data with INLINE */
	__u32 rkey;		/* WRITE, READ: remote STag */
	__u32 inv_stag;		/* SEND_INV, LOCAL_INV */
	__aligned_u64 remote_addr;	/* WRITE, READ: remote TO */
	union {
		struct softiw_sge_abi sge[SOFTIW_MAX_SGE_ABI];
		__u8 inline_data[SOFTIW_MAX_INLINE_ABI];
		struct {
			__u32 mw_stag;	/* the window's STag after binding */
			__u32 mr_lkey;	/* the region it opens onto */
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 access;	/* IB_UVERBS_ACCESS_* */
			__u32 reserved;
		} bind;
	};
};

struct softiw_rqe_abi {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct softiw_sge_abi sge[SOFTIW_MAX_SGE_ABI];
};

/* CQ entry flags */
#define SOFTIW_CQE_F_INVALIDATE	0x01	/* @inv_stag was invalidated */

struct softiw_cqe {
	__aligned_u64 wr_id;
	__u32 qp_num;
	__u32 byte_len;
	__u32 inv_stag;
	__u8 status;		/* enum ib_wc_status = enum ibv_wc_status */
	__u8 opcode;		/* enum ib_uverbs_wc_opcode (IBV_WC_*) */
	__u8 flags;		/* SOFTIW_CQE_F_* */
	__u8 reserved;
};

/* Driver data of the create responses. */
struct softiw_create_cq_resp {
	__aligned_u64 cq_key;
	__u32 cq_size;
	__u32 cq_len;
};

struct softiw_create_qp_resp {
	__aligned_u64 sq_key;
	__aligned_u64 rq_key;	/* 0 with an SRQ */
	__u32 sq_size;
	__u32 sq_len;
	__u32 rq_size;
	__u32 rq_len;
};

struct softiw_create_srq_resp {
	__aligned_u64 srq_key;
	__u32 srq_size;
	__u32 srq_len;
};

#endif /* SOFTIW_ABI_USER_H */
