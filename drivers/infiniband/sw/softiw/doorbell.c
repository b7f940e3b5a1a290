// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw doorbell file: the cheap way for a process to tell the kernel
 * that its SQ ring has new entries (include/uapi/rdma/softiw-abi.h).
 *
 * A process that asks for it at alloc_ucontext gets one anonymous file
 * per context; ioctl(SOFTIW_IOCTL_SQ_DOORBELL, qp_num) finds the QP in
 * that context and kicks its TX engine, which runs in the caller's
 * context as it does for an empty POST_SEND.  The uverbs command path
 * does the same, but first parses a command, looks up and locks the QP's
 * uobject and allocates and frees a work request buffer: under QEMU's
 * TCG that is about a sixth of a 64-octet message's one-way time.  Here
 * the work is one lockless QP table lookup.
 *
 * The file names only its context, never a QP or the device directly: a
 * QP is found by number and must belong to that context, so a process
 * (or one it passed the file to) reaches nothing else.  The context
 * going away (the process closing it, or the device being removed)
 * severs the link; the file then answers ENODEV until it is closed.
 *
 * Locking: a lookup runs under rcu_read_lock(): @uctx is read with
 * rcu_dereference() and the QP found in the device's table is taken
 * with kref_get_unless_zero() (destroy_qp waits a grace period after it
 * erases the QP, softiw_qp_get_rcu()).  The context's teardown clears
 * @uctx and waits a grace period, so no lookup still uses it.  The QP
 * reference keeps the QP alive while its engine runs; nothing is held
 * then.  @ref counts the file and the context.
 */
#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>

#include "softiw.h"
#include "qp.h"

struct softiw_doorbell {
	struct kref ref;
	/* NULL once the context is gone */
	struct softiw_ucontext __rcu *uctx;
};

static void db_free(struct kref *ref)
{
	kfree(container_of(ref, struct softiw_doorbell, ref));
}

static int db_release(struct inode *inode, struct file *file)
{
	struct softiw_doorbell *db = file->private_data;

	kref_put(&db->ref, db_free);
	return 0;
}

/* The QP numbered @qpn of the file's context, referenced, or an error. */
static struct softiw_qp *db_qp_get(struct softiw_doorbell *db, u32 qpn)
{
	struct softiw_qp *qp = ERR_PTR(-ENODEV);
	struct softiw_ucontext *uctx;

	rcu_read_lock();
	uctx = rcu_dereference(db->uctx);
	if (uctx) {
		qp = softiw_qp_get_rcu(to_softiw_dev(uctx->ibucontext.device),
				       qpn);
		if (qp && qp->uctx != uctx) {
			softiw_qp_put(qp);
			qp = NULL;
		}
		if (!qp)
			qp = ERR_PTR(-ENOENT);
	}
	rcu_read_unlock();
	return qp;
}

static long db_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct softiw_qp *qp;

	if (cmd != SOFTIW_IOCTL_SQ_DOORBELL)
		return -ENOTTY;
	if (arg > U32_MAX)
		return -EINVAL;
	qp = db_qp_get(file->private_data, arg);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	softiw_qp_sq_doorbell(qp);
	softiw_qp_put(qp);
	return 0;
}

static const struct file_operations softiw_db_fops = {
	.owner = THIS_MODULE,
	.release = db_release,
	.unlocked_ioctl = db_ioctl,
	/* the argument is a number, not a pointer */
	.compat_ioctl = db_ioctl,
	.llseek = noop_llseek,
};

int softiw_doorbell_create(struct softiw_ucontext *uctx,
			   struct softiw_doorbell_new *nd)
{
	struct softiw_doorbell *db;
	int fd;

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return -ENOMEM;
	kref_init(&db->ref);		/* the file's */
	RCU_INIT_POINTER(db->uctx, uctx);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		kfree(db);
		return fd;
	}
	nd->file = anon_inode_getfile("[softiw-doorbell]", &softiw_db_fops, db,
				      O_RDWR | O_CLOEXEC);
	if (IS_ERR(nd->file)) {
		put_unused_fd(fd);
		kfree(db);
		return PTR_ERR(nd->file);
	}
	nd->fd = fd;
	nd->db = db;
	return 0;
}

void softiw_doorbell_install(struct softiw_ucontext *uctx,
			     struct softiw_doorbell_new *nd)
{
	kref_get(&nd->db->ref);		/* the context's */
	uctx->db = nd->db;
	fd_install(nd->fd, nd->file);
}

void softiw_doorbell_discard(struct softiw_doorbell_new *nd)
{
	put_unused_fd(nd->fd);
	/* the file's reference goes with the file */
	fput(nd->file);
}

void softiw_doorbell_sever(struct softiw_ucontext *uctx)
{
	struct softiw_doorbell *db = uctx->db;

	if (!db)
		return;
	RCU_INIT_POINTER(db->uctx, NULL);
	/* a lookup that still saw the context is over */
	synchronize_rcu();
	uctx->db = NULL;
	kref_put(&db->ref, db_free);
}
