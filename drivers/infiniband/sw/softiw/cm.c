// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softiw connection management: the iw_cm provider ops, the listening
 * sockets, connection endpoints (CEPs), the MPA Request/Reply exchange
 * (RFC 5044, RFC 6581) and the teardown of a stream.
 *
 * Listening sockets: rdma_cm calls iw_create_listen on every iWARP
 * device for a wildcard listen.  Only devices whose netdev is in the
 * listening id's namespace listen; on the others the listen is dormant
 * (no socket), so a namespace's ports and connections stay its own.  A
 * wildcard listen's socket is bound to the device's netdev (as upstream
 * siw binds its own), so it takes the port on that netdev only and other
 * iWARP drivers can listen on the same port on theirs.  Connections to
 * one of the netdev's own addresses from this host travel over "lo" but
 * are still matched to the netdev owning the address (the kernel routes
 * local traffic with that device as the input interface), so loopback
 * reaches a bound listener; 127.0.0.1 and ::1 belong to "lo", and to a
 * device on it.  A listen on a specific address binds the address and no
 * device.  Sockets are shared by (netns, address, port, device): each
 * listen is a struct softiw_listener on its socket's list, and a new
 * connection goes to the listener whose device owns the connection's
 * local address (else the first).
 *
 * A CEP owns one TCP socket.  Its socket callbacks (softirq) only set an
 * event bit and queue the CEP's work item; every decision runs in that
 * work item or in an iw_* op, both under cep->mutex, so the state machine
 * below has a single writer at a time:
 *
 *   passive: AWAIT_REQ -> AWAIT_ACCEPT -(iw_accept)-> CONNECTED
 *   active:  (iw_connect) AWAIT_TCP -> AWAIT_REPLY -> CONNECTED
 *   CONNECTED -(local graceful close)-> CLOSING -> DEAD
 *   any -> DEAD (socket released, cm_id and QP let go)
 *
 * A connect or accept binds the QP it names only if qp.c says the caller
 * may (softiw_qp_get_bindable()) and the QP is idle with no endpoint
 * (cep_bind_qp()).  Passive connections still reading their MPA Request
 * are bounded per listen and per device, the oldest dropped first
 * (cm_pending_room()).
 *
 * iw_cm rules kept here: exactly one CONNECT_REPLY after iw_connect
 * returned 0; ESTABLISHED from iw_accept only; CLOSE exactly once and only
 * for a connection whose CONNECT_REPLY(0) or ESTABLISHED iw_cm took (it
 * stops the kernel on a CLOSE for any other); nothing on a listener's
 * cm_id after iw_destroy_listen returned.
 *
 * Locking, in order: cep->mutex, softiw_cm_mutex (listeners and their
 * pending CEPs), qp->state_lock (qp->cep), sk->sk_callback_lock.  All CM
 * work items run on one ordered workqueue, so two of them never run at
 * once.
 *
 * References on a CEP: one for sk_user_data while its callbacks are
 * installed, one per queued work item or armed timer, one for qp->cep and
 * one for the iw_cm child's provider_data (from CONNECT_REQUEST until
 * iw_accept/iw_reject).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "softiw.h"
#include "cm.h"
#include "mpa.h"
#include "qp.h"
#include "txrx.h"

/* Module parameters. */
bool softiw_cm_mpa_crc = true;
module_param_named(mpa_crc, softiw_cm_mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc,
		 "Request MPA CRC32c on new connections (default true; a peer's request is always honoured)");

bool softiw_cm_mpa_markers;
module_param_named(mpa_markers, softiw_cm_mpa_markers, bool, 0644);
MODULE_PARM_DESC(mpa_markers,
		 "Request MPA Markers from the peer (default false)");

bool softiw_cm_mpa_v2 = true;
module_param_named(mpa_v2, softiw_cm_mpa_v2, bool, 0644);
MODULE_PARM_DESC(mpa_v2,
		 "Offer MPA v2 (RFC 6581 IRD/ORD, peer-to-peer RTR) on connect (default true)");

unsigned int softiw_cm_mpa_timeout_ms = 10000;
static unsigned int cm_listen_pending_max = 256;
static unsigned int cm_dev_pending_max = 1024;

/* The CM's numeric parameters and the range each must stay in. */
static const struct {
	unsigned int *val;
	unsigned int min, max;
} cm_uint_params[] = {
	{ &softiw_cm_mpa_timeout_ms, 10, 600000 },
	{ &cm_listen_pending_max, 1, 65536 },
	{ &cm_dev_pending_max, 1, 65536 },
};

static int cm_uint_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cm_uint_params); i++)
		if (cm_uint_params[i].val == kp->arg)
			break;
	if (WARN_ON_ONCE(i == ARRAY_SIZE(cm_uint_params)))
		return -EINVAL;
	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (v < cm_uint_params[i].min || v > cm_uint_params[i].max) {
		pr_err("%s=%u refused: must be %u..%u\n", kp->name, v,
		       cm_uint_params[i].min, cm_uint_params[i].max);
		return -EINVAL;
	}
	WRITE_ONCE(*cm_uint_params[i].val, v);
	return 0;
}

static const struct kernel_param_ops cm_uint_ops = {
	.set = cm_uint_set,
	.get = param_get_uint,
};

module_param_cb(mpa_timeout_ms, &cm_uint_ops, &softiw_cm_mpa_timeout_ms,
		0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Wait for the peer's MPA Request/Reply and for a graceful close, in ms (10..600000, default 10000)");
module_param_cb(cm_listen_pending_max, &cm_uint_ops, &cm_listen_pending_max,
		0644);
MODULE_PARM_DESC(cm_listen_pending_max,
		 "Connections one listen holds before their MPA Request is in (1..65536, default 256)");
module_param_cb(cm_dev_pending_max, &cm_uint_ops, &cm_dev_pending_max,
		0644);
MODULE_PARM_DESC(cm_dev_pending_max,
		 "Connections a device's listens hold before their MPA Request is in (1..65536, default 1024)");

static unsigned long mpa_timeout(void)
{
	return msecs_to_jiffies(READ_ONCE(softiw_cm_mpa_timeout_ms));
}

/* ULP private data that fits an MPA frame next to the v2 IRD/ORD words. */
#define SOFTIW_CM_PD_MAX	(SOFTIW_MPA_PD_MAX - SOFTIW_MPA_V2_LEN)

static struct workqueue_struct *softiw_cm_wq;
/* guards softiw_lsocks, every lsock's listeners and the pending CEPs */
static DEFINE_MUTEX(softiw_cm_mutex);
static LIST_HEAD(softiw_lsocks);
/* woken whenever a CEP lets go of its QP (softiw_cm_qp_unbind()) */
static DECLARE_WAIT_QUEUE_HEAD(softiw_cm_waitq);
static atomic_t softiw_cep_count = ATOMIC_INIT(0);
static atomic_t softiw_lsock_count = ATOMIC_INIT(0);

/* One kernel listening socket, shared by every listen on its address. */
struct softiw_lsock {
	struct list_head entry;		/* on softiw_lsocks */
	struct net *net;
	struct sockaddr_storage addr;	/* as bound */
	int ifindex;			/* netdev bound to, 0: none */
	struct socket *sock;
	struct list_head listeners;	/* struct softiw_listener.entry */
	struct work_struct accept_work;
	void (*orig_data_ready)(struct sock *sk);
	bool dead;			/* being destroyed: accept nothing */
};

/*
 * One iw_create_listen: cm_id->provider_data.  @ls is NULL for a listen
 * of another namespace than the device's (dormant, see create_listen).
 */
struct softiw_listener {
	struct list_head entry;		/* on lsock->listeners */
	struct softiw_lsock *ls;
	struct iw_cm_id *cm_id;		/* cm_id->add_ref held */
	struct softiw_device *sdev;
	struct list_head pending;	/* CEPs reading their MPA Request */
	unsigned int nr_pending;	/* on @pending */
};

enum softiw_cep_state {
	SOFTIW_CEP_AWAIT_REQ,		/* passive: reading the Request */
	SOFTIW_CEP_AWAIT_ACCEPT,	/* passive: CONNECT_REQUEST delivered */
	SOFTIW_CEP_AWAIT_TCP,		/* active: TCP handshake under way */
	SOFTIW_CEP_AWAIT_REPLY,		/* active: Request sent */
	SOFTIW_CEP_CONNECTED,		/* RTS: the engines own the stream */
	SOFTIW_CEP_CLOSING,		/* SHUT_WR sent, waiting for the FIN */
	SOFTIW_CEP_DEAD,		/* socket released */
};

/* Event bits (cep->events), set from any context. */
enum {
	CEP_EV_READ,		/* data_ready */
	CEP_EV_FIN,		/* peer closed its side */
	CEP_EV_RESET,		/* stream reset or failed */
	CEP_EV_TIMEOUT,		/* timer fired */
	CEP_EV_CLOSE,		/* QP asked for a graceful close */
	CEP_EV_ABORT,		/* QP (or listener) asked for an abort */
	CEP_EV_TCP,		/* active: the TCP handshake finished */
};

struct softiw_cep {
	struct kref ref;
	struct mutex mutex;		/* see the file comment */
	enum softiw_cep_state state;
	unsigned long events;		/* CEP_EV_* bits, atomic */
	struct work_struct work;
	struct delayed_work timer;
	struct softiw_device *sdev;
	struct socket *sock;		/* NULL once released */
	struct iw_cm_id *cm_id;		/* with add_ref; NULL if none */
	struct softiw_qp *qp;		/* bound (cep_bind_qp()), referenced; or NULL */
	/* passive, AWAIT_REQ only; all under softiw_cm_mutex */
	struct softiw_listener *listener;
	struct list_head pending;	/* on listener->pending */
	struct list_head dev_pending;	/* on sdev->cm_pending */
	bool upcalled;			/* iw_cm took CONNECT_REPLY(0)/ESTABLISHED */
	bool sent_enhanced;		/* active: our Request was v2 */
	bool our_crc;			/* C in our frame */
	bool our_markers;		/* M in our frame */
	struct softiw_mpa_v2 offered;	/* active: v2 words we sent */
	u16 conn_pd_len;		/* active: private data to send */
	u8 conn_pd[SOFTIW_CM_PD_MAX];
	void (*orig_data_ready)(struct sock *sk);
	void (*orig_state_change)(struct sock *sk);
	void (*orig_write_space)(struct sock *sk);
	struct softiw_mpa_rr peer;	/* the peer's frame; pd points at buf */
	u16 rcvd;			/* octets of the frame in buf */
	u8 buf[SOFTIW_MPA_RR_MAX_LEN];
};

/* ---------------------------------------------------------------------- */
/* CEP life */

static void cep_free(struct kref *ref)
{
	struct softiw_cep *cep = container_of(ref, struct softiw_cep, ref);

	mutex_destroy(&cep->mutex);
	kfree(cep);
	atomic_dec(&softiw_cep_count);
}

static void cep_put(struct softiw_cep *cep)
{
	kref_put(&cep->ref, cep_free);
}

/* Record @bit and run the work item.  Caller holds a reference. */
static void cep_post(struct softiw_cep *cep, int bit)
{
	set_bit(bit, &cep->events);
	kref_get(&cep->ref);
	if (!queue_work(softiw_cm_wq, &cep->work))
		cep_put(cep);	/* already queued: never the last reference */
}

static void cep_timer_fn(struct work_struct *w)
{
	struct softiw_cep *cep = container_of(to_delayed_work(w),
					      struct softiw_cep, timer);

	cep_post(cep, CEP_EV_TIMEOUT);
	cep_put(cep);
}

static void cep_arm_timer(struct softiw_cep *cep)
{
	kref_get(&cep->ref);
	if (!queue_delayed_work(softiw_cm_wq, &cep->timer, mpa_timeout()))
		cep_put(cep);
}

/*
 * The timer work runs on the same ordered workqueue as the CEP work that
 * calls this, so it is either still pending (cancelled here) or has
 * already posted CEP_EV_TIMEOUT, which is cleared.
 */
static void cep_cancel_timer(struct softiw_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		cep_put(cep);
	clear_bit(CEP_EV_TIMEOUT, &cep->events);
}

static void cep_work_fn(struct work_struct *w);

static struct softiw_cep *cep_alloc(struct softiw_device *sdev)
{
	struct softiw_cep *cep;

	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->mutex);
	INIT_WORK(&cep->work, cep_work_fn);
	INIT_DELAYED_WORK(&cep->timer, cep_timer_fn);
	INIT_LIST_HEAD(&cep->pending);
	INIT_LIST_HEAD(&cep->dev_pending);
	cep->sdev = sdev;
	atomic_inc(&softiw_cep_count);
	return cep;
}

/*
 * Passive connections reading their MPA Request are bounded per listen
 * (cm_listen_pending_max) and per device (cm_dev_pending_max), so a peer
 * that opens TCP connections and never finishes MPA holds a bounded
 * amount of kernel state.  softiw_cm_mutex for all three.
 */
static void cep_pend(struct softiw_cep *cep, struct softiw_listener *l)
{
	cep->listener = l;
	list_add_tail(&cep->pending, &l->pending);
	list_add_tail(&cep->dev_pending, &l->sdev->cm_pending);
	l->nr_pending++;
	l->sdev->cm_nr_pending++;
}

static void cep_unpend(struct softiw_cep *cep)
{
	struct softiw_listener *l = cep->listener;

	lockdep_assert_held(&softiw_cm_mutex);
	if (!l)
		return;
	list_del_init(&cep->pending);
	list_del_init(&cep->dev_pending);
	l->nr_pending--;
	l->sdev->cm_nr_pending--;
	cep->listener = NULL;
}

/*
 * Make room for one more pending connection on @l: while the listen (or
 * its device) is at its bound, its oldest connection (or the device's)
 * is dropped and counted (cm_pending_dropped).  The oldest, because a
 * peer that finishes MPA at all does so within moments of its TCP
 * handshake: what has waited longest is what a flood left behind, and a
 * newcomer that is legitimate gets its turn.
 */
static void cm_pending_room(struct softiw_listener *l)
{
	struct softiw_device *sdev = l->sdev;
	struct softiw_cep *old;

	lockdep_assert_held(&softiw_cm_mutex);
	for (;;) {
		if (l->nr_pending >= READ_ONCE(cm_listen_pending_max))
			old = list_first_entry(&l->pending, struct softiw_cep,
					       pending);
		else if (sdev->cm_nr_pending >= READ_ONCE(cm_dev_pending_max))
			old = list_first_entry(&sdev->cm_pending,
					       struct softiw_cep, dev_pending);
		else
			return;
		softiw_stat_inc(sdev, SOFTIW_STAT_CM_PENDING_DROPPED);
		cep_unpend(old);
		cep_post(old, CEP_EV_ABORT);
	}
}

/* ---------------------------------------------------------------------- */
/* Socket callbacks */

static struct softiw_cep *cep_of_sk(const struct sock *sk)
{
	return __locked_read_sk_user_data_with_flags(sk, 0);
}

struct softiw_qp *softiw_cm_sk_qp(const struct sock *sk)
{
	struct softiw_cep *cep = cep_of_sk(sk);

	return cep ? READ_ONCE(cep->qp) : NULL;
}

static void cep_sk_data_ready(struct sock *sk)
{
	struct softiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = cep_of_sk(sk);
	if (cep)
		cep_post(cep, CEP_EV_READ);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void cep_sk_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct softiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = cep_of_sk(sk);
	if (cep) {
		orig = cep->orig_state_change;
		switch (sk->sk_state) {
		case TCP_ESTABLISHED:
			cep_post(cep, CEP_EV_TCP);
			break;
		case TCP_CLOSE_WAIT:
			cep_post(cep, CEP_EV_FIN);
			break;
		case TCP_CLOSE:
			/* tcp_reset()/timeouts set sk_err before tcp_done() */
			cep_post(cep, READ_ONCE(sk->sk_err) ? CEP_EV_RESET :
							      CEP_EV_FIN);
			break;
		default:
			break;
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
	/* a kernel function, not CEP memory: safe after the unlock */
	if (orig)
		orig(sk);
}

/*
 * Take over @sock: sk_user_data = @cep (a reference), CM data_ready and
 * state_change.  @data_ready is the original data_ready to restore (a
 * passive socket inherited the listener's callback, not the original).
 */
static void cep_sock_assoc(struct softiw_cep *cep, struct socket *sock,
			   void (*data_ready)(struct sock *sk))
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	kref_get(&cep->ref);
	write_lock_bh(&sk->sk_callback_lock);
	cep->orig_data_ready = data_ready;
	cep->orig_state_change = sk->sk_state_change;
	cep->orig_write_space = sk->sk_write_space;
	rcu_assign_sk_user_data(sk, cep);
	sk->sk_data_ready = cep_sk_data_ready;
	sk->sk_state_change = cep_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Stop the engines, restore every original callback and close the socket.
 * Once sk_user_data is cleared under the write lock no callback can reach
 * the CEP any more, so its reference is dropped (never the last: the
 * caller holds one).
 */
static void cep_sock_release(struct softiw_cep *cep, bool abortive)
{
	struct socket *sock = cep->sock;
	struct sock *sk;

	if (!sock)
		return;
	if (cep->qp)
		softiw_txrx_detach(cep->qp);
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = cep->orig_data_ready;
	sk->sk_state_change = cep->orig_state_change;
	sk->sk_write_space = cep->orig_write_space;
	rcu_assign_sk_user_data(sk, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
	cep->sock = NULL;
	cep_put(cep);

	/* SO_LINGER 0: tcp_close() sends a RST instead of a FIN */
	if (abortive)
		sock_no_linger(sk);
	sock_release(sock);
}

/* ---------------------------------------------------------------------- */
/* cm_id, QP and upcalls */

/*
 * Bind @qp to @cep, taking over the caller's QP reference: only a QP that
 * is idle (never connected, or reset since) and has no endpoint.  Checked
 * and set under qp->state_lock, so two connects or accepts naming one QP
 * cannot both win, and destroy_qp (which leaves IDLE under the same lock
 * before it looks at qp->cep) cannot miss the endpoint.  Refused: -EBUSY,
 * the reference dropped and the QP left exactly as it was.
 */
static int cep_bind_qp(struct softiw_cep *cep, struct softiw_qp *qp)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&qp->state_lock, flags);
	idle = qp->state == SOFTIW_QP_IDLE && !qp->cep;
	if (idle) {
		kref_get(&cep->ref);	/* for qp->cep */
		qp->cep = cep;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!idle) {
		softiw_stat_inc(qp->sdev, SOFTIW_STAT_CM_QP_BUSY);
		ibdev_dbg(&qp->sdev->ibdev, "QP %u: not idle or already bound\n",
			  qp->ibqp.qp_num);
		softiw_qp_put(qp);
		return -EBUSY;
	}
	WRITE_ONCE(cep->qp, qp);
	return 0;
}

static void cep_drop_qp(struct softiw_cep *cep)
{
	struct softiw_qp *qp = cep->qp;
	unsigned long flags;
	bool linked;

	if (!qp)
		return;
	spin_lock_irqsave(&qp->state_lock, flags);
	linked = qp->cep == cep;
	if (linked)
		qp->cep = NULL;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	WRITE_ONCE(cep->qp, NULL);
	if (linked)
		cep_put(cep);
	softiw_qp_put(qp);
	wake_up_all(&softiw_cm_waitq);
}

static void cep_set_cm_id(struct softiw_cep *cep, struct iw_cm_id *id)
{
	id->add_ref(id);
	cep->cm_id = id;
}

static void cep_drop_cm_id(struct softiw_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;

	if (!id)
		return;
	cep->cm_id = NULL;
	id->provider_data = NULL;
	id->rem_ref(id);
}

static void cep_event_addrs(struct softiw_cep *cep, struct iw_cm_event *ev)
{
	if (!cep->sock)
		return;
	if (kernel_getsockname(cep->sock, (struct sockaddr *)&ev->local_addr) < 0)
		memset(&ev->local_addr, 0, sizeof(ev->local_addr));
	if (kernel_getpeername(cep->sock, (struct sockaddr *)&ev->remote_addr) < 0)
		memset(&ev->remote_addr, 0, sizeof(ev->remote_addr));
}

static int cep_upcall(struct softiw_cep *cep, struct iw_cm_id *id,
		      struct iw_cm_event *ev)
{
	int ret;

	ret = id->event_handler(id, ev);
	if (ret)
		pr_debug("iw_cm refused event %d: %d\n", ev->event, ret);
	return ret;
}

static void cep_simple_upcall(struct softiw_cep *cep,
			      enum iw_cm_event_type type, int status)
{
	struct iw_cm_event ev = { .event = type, .status = status };

	if (cep->cm_id)
		cep_upcall(cep, cep->cm_id, &ev);
}

/*
 * The stream is over: release the socket, deliver CLOSE if the connection
 * was established, let go of the cm_id and the QP.
 */
static void cep_finish(struct softiw_cep *cep, bool abortive, int status)
{
	cep_cancel_timer(cep);
	cep_sock_release(cep, abortive);
	if (cep->upcalled)
		cep_simple_upcall(cep, IW_CM_EVENT_CLOSE, status);
	cep->upcalled = false;
	cep_drop_cm_id(cep);
	cep_drop_qp(cep);
	cep->state = SOFTIW_CEP_DEAD;
}

/* Active side failed before CONNECT_REPLY(0): the single error reply. */
static void cep_connect_fail(struct softiw_cep *cep, int status,
			     const void *pd, u16 pd_len)
{
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REPLY,
		.status = status,
	};

	cep_cancel_timer(cep);
	cep_event_addrs(cep, &ev);
	cep_sock_release(cep, true);
	/* unbound before the consumer hears of it: it may connect it again */
	cep_drop_qp(cep);
	if (pd_len) {
		ev.private_data = (void *)pd;
		ev.private_data_len = min_t(u16, pd_len, U8_MAX);
	}
	if (cep->cm_id)
		cep_upcall(cep, cep->cm_id, &ev);
	cep_drop_cm_id(cep);
	cep->state = SOFTIW_CEP_DEAD;
}

/* ---------------------------------------------------------------------- */
/* MPA frames */

/*
 * Read the peer's Request or Reply into cep->buf without ever taking an
 * octet past it (FPDUs may follow a Reply in the same segment).  0 when
 * complete, -EAGAIN when more must arrive, -EPROTO with *@st set for a
 * bad frame, -ECONNRESET when the stream ended, or a socket error.
 */
static int cep_read_frame(struct softiw_cep *cep, bool reply, u32 *st)
{
	struct kvec iov;
	struct msghdr msg = {};
	size_t want;
	int ret;

	for (;;) {
		*st = softiw_mpa_rr_parse(cep->buf, cep->rcvd, reply,
					  &cep->peer);
		if (*st == SOFTIW_WIRE_OK)
			return 0;
		if (*st != SOFTIW_MPA_NEED_MORE)
			return -EPROTO;
		/* frame_len <= 532 = sizeof(buf): PD_Length was checked */
		want = (cep->peer.frame_len ? cep->peer.frame_len :
			SOFTIW_MPA_RR_HDR_LEN) - cep->rcvd;
		if (WARN_ON_ONCE(cep->rcvd + want > sizeof(cep->buf)))
			return -EPROTO;
		iov.iov_base = cep->buf + cep->rcvd;
		iov.iov_len = want;
		ret = kernel_recvmsg(cep->sock, &msg, &iov, 1, want,
				     MSG_DONTWAIT);
		if (ret == -EAGAIN)
			return ret;
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -ECONNRESET;
		cep->rcvd += ret;
	}
}

/* Octets queued after the frame (the RFC 5044 startup rule). */
static bool cep_more_queued(struct softiw_cep *cep)
{
	struct msghdr msg = {};
	struct kvec iov;
	u8 b;

	iov.iov_base = &b;
	iov.iov_len = 1;
	return kernel_recvmsg(cep->sock, &msg, &iov, 1, 1,
			      MSG_DONTWAIT | MSG_PEEK) > 0;
}

static int cep_send(struct softiw_cep *cep, const u8 *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	int ret;

	ret = kernel_sendmsg(cep->sock, &msg, &iov, 1, len);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;
}

/* Encode @rr into a temporary buffer and send it. */
static int cep_send_rr(struct softiw_cep *cep, const struct softiw_mpa_rr *rr)
{
	u8 *buf;
	int len, ret;

	buf = kmalloc(SOFTIW_MPA_RR_MAX_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = softiw_mpa_rr_encode(rr, buf, SOFTIW_MPA_RR_MAX_LEN);
	ret = len < 0 ? len : cep_send(cep, buf, len);
	kfree(buf);
	return ret;
}

/* A Reply with R=1 answering the peer's Request in cep->peer. */
static int cep_send_reject(struct softiw_cep *cep, const void *pd, u16 len)
{
	struct softiw_mpa_rr rr = {
		.reply = true,
		.reject = true,
		.rev = SOFTIW_MPA_REV1,
		.pd = pd,
		.pd_len = len,
	};

	if (cep->peer.rev == SOFTIW_MPA_REV2 && cep->peer.enhanced) {
		rr.rev = SOFTIW_MPA_REV2;
		rr.enhanced = true;
	}
	return cep_send_rr(cep, &rr);
}

static u32 cep_mulpdu(struct softiw_cep *cep, bool markers)
{
	return softiw_mpa_mulpdu(READ_ONCE(tcp_sk(cep->sock->sk)->mss_cache),
				 markers);
}

/* ---------------------------------------------------------------------- */
/* Passive side */

/* Silent drop of a connection not (or no longer) offered to iw_cm. */
static void cep_passive_drop(struct softiw_cep *cep)
{
	mutex_lock(&softiw_cm_mutex);
	cep_unpend(cep);
	mutex_unlock(&softiw_cm_mutex);
	cep_finish(cep, true, 0);
}

static void cep_deliver_request(struct softiw_cep *cep)
{
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.provider_data = cep,
	};
	struct softiw_listener *l;
	int ret;

	cep_event_addrs(cep, &ev);
	if (cep->peer.pd_len) {
		ev.private_data = (void *)cep->peer.pd;
		ev.private_data_len = min_t(u16, cep->peer.pd_len, U8_MAX);
	}
	/* the requester's view: its IRD and ORD (v1: our limits) */
	if (cep->peer.enhanced) {
		ev.ird = min_t(u16, cep->peer.v2.ird, SOFTIW_MAX_ORD);
		ev.ord = min_t(u16, cep->peer.v2.ord, SOFTIW_MAX_IRD);
	} else {
		ev.ird = SOFTIW_MAX_ORD;
		ev.ord = SOFTIW_MAX_IRD;
	}

	mutex_lock(&softiw_cm_mutex);
	l = cep->listener;
	if (l) {
		cep_unpend(cep);
		cep->state = SOFTIW_CEP_AWAIT_ACCEPT;
		kref_get(&cep->ref);	/* the child's provider_data */
		/*
		 * Under softiw_cm_mutex, so iw_destroy_listen cannot have
		 * returned; the handler only queues (never sleeps).
		 */
		ret = cep_upcall(cep, l->cm_id, &ev);
		if (ret) {
			cep->state = SOFTIW_CEP_AWAIT_REQ;
			cep_put(cep);	/* not the last: the caller holds one */
		}
	}
	mutex_unlock(&softiw_cm_mutex);
	if (!l || cep->state != SOFTIW_CEP_AWAIT_ACCEPT)
		cep_finish(cep, true, 0);
}

static void cep_read_request(struct softiw_cep *cep)
{
	u32 st;
	int ret;

	ret = cep_read_frame(cep, false, &st);
	if (ret == -EAGAIN)
		return;
	if (ret == 0 && cep_more_queued(cep)) {
		st = softiw_mpa_rr_check_end(&cep->peer, cep->rcvd + 1);
		ret = -EPROTO;
	}
	if (ret) {
		pr_debug("bad MPA Request: %d status %#x\n", ret, st);
		if (ret == -EPROTO)
			softiw_stat_inc(cep->sdev, SOFTIW_STAT_MPA_REJECTS);
		/* a wrong key may not be MPA at all: just close */
		if (ret == -EPROTO && st != SOFTIW_MPA_ERR_RR_KEY &&
		    cep->rcvd >= SOFTIW_MPA_RR_HDR_LEN)
			cep_send_reject(cep, NULL, 0);
		cep_passive_drop(cep);
		return;
	}
	cep_cancel_timer(cep);
	cep_deliver_request(cep);
}

/* ---------------------------------------------------------------------- */
/* Active side */

static void cep_read_reply(struct softiw_cep *cep)
{
	struct iw_cm_event ev = { .event = IW_CM_EVENT_CONNECT_REPLY };
	struct softiw_conn_params p = { .initiator = true };
	struct softiw_mpa_rr *rep = &cep->peer;
	u32 st;
	int ret;

	ret = cep_read_frame(cep, true, &st);
	if (ret == -EAGAIN)
		return;
	if (ret) {
		pr_debug("MPA Reply: %d status %#x\n", ret, st);
		if (ret == -EPROTO)
			softiw_stat_inc(cep->sdev, SOFTIW_STAT_MPA_REJECTS);
		cep_connect_fail(cep, ret == -EPROTO ? -EPROTO : -ECONNRESET,
				 NULL, 0);
		return;
	}
	cep_cancel_timer(cep);
	if (rep->reject) {
		pr_debug("MPA Reply rejects the connection\n");
		cep_connect_fail(cep, -ECONNREFUSED, rep->pd, rep->pd_len);
		return;
	}

	if (cep->sent_enhanced && rep->enhanced) {
		st = softiw_mpa_v2_check_reply(&cep->offered, SOFTIW_MAX_IRD,
					       &rep->v2, &p.ird, &p.ord);
		if (st != SOFTIW_WIRE_OK) {
			pr_debug("MPA v2 negotiation failed: %#x\n", st);
			cep_connect_fail(cep, -EPROTO, NULL, 0);
			return;
		}
		p.rtr = cep->offered.p2p ? rep->v2.rtr : 0;
	} else if (rep->rev == SOFTIW_MPA_REV1 || !cep->sent_enhanced) {
		/* MPA v1 fallback: no IRD/ORD exchange, no RTR */
		p.ird = cep->offered.ird;
		p.ord = cep->offered.ord;
	} else {
		cep_connect_fail(cep, -EPROTO, NULL, 0);
		return;
	}
	p.crc = cep->our_crc || rep->crc;
	p.markers_rx = cep->our_markers;
	p.markers_tx = rep->markers;
	p.mulpdu = cep_mulpdu(cep, p.markers_tx);
	if (!p.mulpdu) {
		cep_connect_fail(cep, -EINVAL, NULL, 0);
		return;
	}

	ret = softiw_qp_rts(cep->qp, &p, cep->sock);
	if (ret) {
		pr_debug("initiator RTS failed: %d\n", ret);
		cep_connect_fail(cep, ret, NULL, 0);
		return;
	}
	pr_debug("connected: rev %u crc %d markers %d/%d ird %u ord %u rtr %#x mulpdu %u\n",
		 rep->rev, p.crc, p.markers_tx, p.markers_rx, p.ird, p.ord,
		 p.rtr, p.mulpdu);
	cep->state = SOFTIW_CEP_CONNECTED;
	cep_event_addrs(cep, &ev);
	if (rep->pd_len) {
		ev.private_data = (void *)rep->pd;
		ev.private_data_len = min_t(u16, rep->pd_len, U8_MAX);
	}
	ev.ird = p.ird;
	ev.ord = p.ord;
	cep->upcalled = !cep_upcall(cep, cep->cm_id, &ev);
}

/* ---------------------------------------------------------------------- */
/* Work item */

#define CEP_EV(x)	BIT(CEP_EV_##x)

/* Active: send our MPA Request (RFC 5044 / RFC 6581) on the new stream. */
static int cep_send_request(struct softiw_cep *cep)
{
	struct softiw_mpa_rr req = { .reply = false };

	req.rev = cep->sent_enhanced ? SOFTIW_MPA_REV2 : SOFTIW_MPA_REV1;
	req.enhanced = cep->sent_enhanced;
	req.crc = cep->our_crc;
	req.markers = cep->our_markers;
	req.v2 = cep->offered;
	req.pd = cep->conn_pd;
	req.pd_len = cep->conn_pd_len;
	return cep_send_rr(cep, &req);
}

/*
 * Active, AWAIT_TCP: look at the socket.  Still in SYN_SENT: wait on.
 * Connected: send the Request and wait for the Reply (a fresh timer).
 * Anything else is the handshake's failure, reported as the one
 * CONNECT_REPLY (ECONNREFUSED for a RST, else the socket's error).
 */
static void cep_tcp_progress(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int state = READ_ONCE(sk->sk_state), ret;

	if (state == TCP_SYN_SENT)
		return;
	if (state != TCP_ESTABLISHED && state != TCP_CLOSE_WAIT) {
		ret = sock_error(sk);
		cep_connect_fail(cep, ret ? ret : -ECONNRESET, NULL, 0);
		return;
	}
	ret = cep_send_request(cep);
	if (ret) {
		cep_connect_fail(cep, ret, NULL, 0);
		return;
	}
	cep_cancel_timer(cep);
	cep_arm_timer(cep);
	cep->state = SOFTIW_CEP_AWAIT_REPLY;
	/* the Reply may already be queued */
	cep_post(cep, CEP_EV_READ);
}

static void cep_handle_connected(struct softiw_cep *cep, unsigned long ev)
{
	if (ev & CEP_EV(ABORT)) {
		cep_finish(cep, true, 0);
	} else if (ev & CEP_EV(RESET)) {
		softiw_qp_stream_closed(cep->qp, true);
		cep_finish(cep, true, -ECONNRESET);
	} else if (ev & CEP_EV(FIN)) {
		softiw_qp_stream_closed(cep->qp, false);
		cep_simple_upcall(cep, IW_CM_EVENT_DISCONNECT, 0);
		cep_finish(cep, false, 0);
	} else if (ev & CEP_EV(CLOSE)) {
		/*
		 * Graceful: stop the engines first, which pushes what TX
		 * has staged (a Terminate among it) into the socket, so our
		 * FIN follows it.  The peer's FIN (or the timer) ends it.
		 */
		softiw_txrx_detach(cep->qp);
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		cep->state = SOFTIW_CEP_CLOSING;
		cep_arm_timer(cep);
	}
}

static void cep_handle(struct softiw_cep *cep, unsigned long ev)
{
	const unsigned long ends = CEP_EV(ABORT) | CEP_EV(RESET) | CEP_EV(FIN);
	enum softiw_cep_state prev;

	if ((ev & CEP_EV(TIMEOUT)) && (cep->state == SOFTIW_CEP_AWAIT_REQ ||
				       cep->state == SOFTIW_CEP_AWAIT_TCP ||
				       cep->state == SOFTIW_CEP_AWAIT_REPLY))
		softiw_stat_inc(cep->sdev, SOFTIW_STAT_MPA_TIMEOUTS);
	do {
		prev = cep->state;
		switch (cep->state) {
		case SOFTIW_CEP_AWAIT_REQ:
			if (ev & (CEP_EV(ABORT) | CEP_EV(TIMEOUT)))
				cep_passive_drop(cep);
			else if (ev & (CEP_EV(READ) | CEP_EV(FIN) | CEP_EV(RESET)))
				cep_read_request(cep);
			ev &= ~CEP_EV(READ);
			break;
		case SOFTIW_CEP_AWAIT_ACCEPT:
			/* no upcall possible: iw_accept/iw_reject will see it */
			if (ev & ends)
				cep_sock_release(cep, true);
			ev = 0;
			break;
		case SOFTIW_CEP_AWAIT_TCP:
			if (ev & CEP_EV(ABORT))
				cep_connect_fail(cep, -ECONNABORTED, NULL, 0);
			else if (ev & CEP_EV(TIMEOUT))
				cep_connect_fail(cep, -ETIMEDOUT, NULL, 0);
			else
				cep_tcp_progress(cep);
			ev &= ~(CEP_EV(TCP) | CEP_EV(TIMEOUT) | CEP_EV(RESET) |
				CEP_EV(FIN));
			break;
		case SOFTIW_CEP_AWAIT_REPLY:
			if (ev & CEP_EV(ABORT))
				cep_connect_fail(cep, -ECONNABORTED, NULL, 0);
			else if (ev & (CEP_EV(READ) | CEP_EV(FIN) | CEP_EV(RESET)))
				cep_read_reply(cep);
			else if (ev & CEP_EV(TIMEOUT))
				cep_connect_fail(cep, -ETIMEDOUT, NULL, 0);
			ev &= ~(CEP_EV(READ) | CEP_EV(TIMEOUT));
			break;
		case SOFTIW_CEP_CONNECTED:
			cep_handle_connected(cep, ev);
			ev = 0;
			break;
		case SOFTIW_CEP_CLOSING:
			if (ev & (ends | CEP_EV(TIMEOUT))) {
				softiw_qp_stream_closed(cep->qp,
							!(ev & CEP_EV(FIN)));
				cep_finish(cep, !(ev & CEP_EV(FIN)), 0);
			}
			ev = 0;
			break;
		case SOFTIW_CEP_DEAD:
			ev = 0;
			break;
		}
	} while (ev && cep->state != prev);
}

static void cep_work_fn(struct work_struct *w)
{
	struct softiw_cep *cep = container_of(w, struct softiw_cep, work);

	mutex_lock(&cep->mutex);
	cep_handle(cep, xchg(&cep->events, 0));
	mutex_unlock(&cep->mutex);
	cep_put(cep);
}

/* ---------------------------------------------------------------------- */
/* QP side (cm.h) */

static struct softiw_cep *qp_get_cep(struct softiw_qp *qp)
{
	struct softiw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	cep = qp->cep;
	if (cep)
		kref_get(&cep->ref);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return cep;
}

void softiw_cm_qp_close(struct softiw_qp *qp, bool abortive)
{
	struct softiw_cep *cep = qp_get_cep(qp);

	if (!cep)
		return;
	cep_post(cep, abortive ? CEP_EV_ABORT : CEP_EV_CLOSE);
	cep_put(cep);
}

void softiw_cm_qp_unbind(struct softiw_qp *qp)
{
	might_sleep();
	softiw_cm_qp_close(qp, true);
	wait_event(softiw_cm_waitq, !READ_ONCE(qp->cep));
}

/* ---------------------------------------------------------------------- */
/* Sockets and addresses */

static int cm_addr_len(int family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
				   sizeof(struct sockaddr_in6);
}

static bool cm_family_ok(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET ||
	       (IS_ENABLED(CONFIG_IPV6) && a->ss_family == AF_INET6);
}

static __be16 cm_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_port;
	return ((const struct sockaddr_in6 *)a)->sin6_port;
}

static bool cm_addr_equal(const struct sockaddr_storage *a,
			  const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family || cm_port(a) != cm_port(b))
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr) &&
	       ((const struct sockaddr_in6 *)a)->sin6_scope_id ==
	       ((const struct sockaddr_in6 *)b)->sin6_scope_id;
}

/* The wildcard address (of either family), as rdma_cm's listens use it. */
static bool cm_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

static bool cm_v4_on_dev(struct net_device *ndev, __be32 addr)
{
	struct net_device *dev;
	bool ret;

	rcu_read_lock();
	dev = __ip_dev_find(dev_net(ndev), addr, false);
	ret = dev == ndev;
	rcu_read_unlock();
	return ret;
}

/* Is @a (a connection's local address) an address of @ndev? */
static bool cm_dev_has_addr(struct net_device *ndev,
			    const struct sockaddr_storage *a)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a;

	if (a->ss_family == AF_INET)
		return cm_v4_on_dev(ndev,
				    ((const struct sockaddr_in *)a)->sin_addr.s_addr);
	if (ipv6_addr_v4mapped(&s6->sin6_addr))
		return cm_v4_on_dev(ndev, s6->sin6_addr.s6_addr32[3]);
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(dev_net(ndev), &s6->sin6_addr, ndev, 0);
}

/*
 * A TCP socket in the namespace of the device's netdev.  Created as a
 * non-kernel socket (kern=0) on purpose: such a socket holds a reference
 * on its namespace, so the namespace cannot be freed under a socket the
 * CM still owns (kernel sockets do not pin their namespace).
 */
static int cm_sock_create(struct softiw_device *sdev, int family,
			  struct socket **res)
{
	return __sock_create(dev_net(sdev->netdev), family, SOCK_STREAM,
			     IPPROTO_TCP, res, 0);
}

/* ---------------------------------------------------------------------- */
/* iw_connect */

static int cm_connect_sock(struct softiw_device *sdev, struct iw_cm_id *id,
			   struct socket **res)
{
	struct sockaddr_storage laddr = id->local_addr;
	const struct sockaddr_storage *raddr;
	struct socket *sock;
	int ret;

	raddr = cm_port(&id->m_remote_addr) ? &id->m_remote_addr :
					      &id->remote_addr;
	if (!cm_family_ok(raddr) || laddr.ss_family != raddr->ss_family)
		return -EAFNOSUPPORT;
	ret = cm_sock_create(sdev, raddr->ss_family, &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	if (id->tos_set && raddr->ss_family == AF_INET)
		ip_sock_set_tos(sock->sk, id->tos);
	ret = kernel_bind(sock, (struct sockaddr *)&laddr,
			  cm_addr_len(laddr.ss_family));
	if (ret == -EADDRINUSE && cm_port(&laddr)) {
		/* rdma_cm's port space is not TCP's: let TCP pick one */
		if (laddr.ss_family == AF_INET)
			((struct sockaddr_in *)&laddr)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&laddr)->sin6_port = 0;
		ret = kernel_bind(sock, (struct sockaddr *)&laddr,
				  cm_addr_len(laddr.ss_family));
	}
	if (ret)
		goto err_release;
	tcp_sock_set_nodelay(sock->sk);
	/* non-blocking: cep_tcp_progress() sees the outcome */
	ret = kernel_connect(sock, (struct sockaddr *)raddr,
			     cm_addr_len(raddr->ss_family), O_NONBLOCK);
	if (ret == -EINPROGRESS)
		ret = 0;
	if (ret)
		goto err_release;
	*res = sock;
	return 0;

err_release:
	sock_release(sock);
	return ret;
}

static int softiw_iw_connect(struct iw_cm_id *id,
			     struct iw_cm_conn_param *param)
{
	struct softiw_device *sdev = to_softiw_dev(id->device);
	struct softiw_cep *cep;
	struct softiw_qp *qp;
	struct socket *sock;
	int ret;

	if (param->private_data_len > SOFTIW_CM_PD_MAX)
		return -EINVAL;
	qp = softiw_qp_get_bindable(sdev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = cep_alloc(sdev);
	if (!cep) {
		softiw_qp_put(qp);
		return -ENOMEM;
	}

	mutex_lock(&cep->mutex);
	/* bound before any packet leaves: a busy QP sends nothing */
	ret = cep_bind_qp(cep, qp);
	if (ret)
		goto err_cep;
	ret = cm_connect_sock(sdev, id, &sock);
	if (ret) {
		pr_debug("TCP connect failed: %d\n", ret);
		goto err_cep;
	}
	cep_set_cm_id(cep, id);
	cep_sock_assoc(cep, sock, sock->sk->sk_data_ready);

	cep->our_crc = READ_ONCE(softiw_cm_mpa_crc);
	cep->our_markers = READ_ONCE(softiw_cm_mpa_markers);
	cep->sent_enhanced = READ_ONCE(softiw_cm_mpa_v2);
	cep->offered.ird = min_t(u32, param->ird, SOFTIW_MAX_IRD);
	cep->offered.ord = min_t(u32, param->ord, SOFTIW_MAX_ORD);
	if (cep->sent_enhanced) {
		cep->offered.p2p = true;
		cep->offered.rtr = SOFTIW_MPA_RTR_WRITE | SOFTIW_MPA_RTR_READ;
	}
	/* iw_cm's buffer is gone once we return: keep a copy */
	if (param->private_data_len)
		memcpy(cep->conn_pd, param->private_data,
		       param->private_data_len);
	cep->conn_pd_len = param->private_data_len;

	/*
	 * The handshake finishes (or fails) asynchronously: the state
	 * change callback, or this first look should it already be over,
	 * moves the CEP on; the timer bounds the TCP handshake and then
	 * the wait for the Reply.
	 */
	cep->state = SOFTIW_CEP_AWAIT_TCP;
	cep_arm_timer(cep);
	cep_post(cep, CEP_EV_TCP);
	mutex_unlock(&cep->mutex);
	cep_put(cep);	/* the allocation's; the others keep it */
	return 0;

err_cep:
	/* no event was or will be delivered: iw_cm sees only @ret */
	cep_drop_qp(cep);
	cep->state = SOFTIW_CEP_DEAD;
	mutex_unlock(&cep->mutex);
	cep_put(cep);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* iw_accept / iw_reject */

/* Let go of the iw_cm child's provider_data reference. */
static void cep_unlink_child(struct softiw_cep *cep, struct iw_cm_id *id)
{
	id->provider_data = NULL;
	cep_put(cep);
}

static int cep_accept(struct softiw_cep *cep, struct iw_cm_id *id,
		      struct iw_cm_conn_param *param)
{
	struct iw_cm_event ev = { .event = IW_CM_EVENT_ESTABLISHED };
	struct softiw_mpa_rr rep = { .reply = true };
	struct softiw_conn_params p = { .initiator = false };
	const struct softiw_mpa_rr *req = &cep->peer;
	u16 max_ird, max_ord;
	struct softiw_qp *qp;
	int ret;

	if (cep->state != SOFTIW_CEP_AWAIT_ACCEPT || !cep->sock)
		return -ECONNRESET;
	if (param->private_data_len > SOFTIW_CM_PD_MAX)
		return -EINVAL;
	qp = softiw_qp_get_bindable(cep->sdev, param->qpn);
	if (!qp)
		return -EINVAL;
	ret = cep_bind_qp(cep, qp);
	if (ret)
		return ret;
	cep_set_cm_id(cep, id);

	max_ird = min_t(u32, param->ird, SOFTIW_MAX_IRD);
	max_ord = min_t(u32, param->ord, SOFTIW_MAX_ORD);
	rep.rev = req->rev;
	if (req->enhanced && READ_ONCE(softiw_cm_mpa_v2)) {
		rep.enhanced = true;
		softiw_mpa_v2_respond(&req->v2, max_ird, max_ord, &rep.v2);
		p.ird = rep.v2.ird;
		p.ord = rep.v2.ord;
		p.rtr = rep.v2.p2p ? rep.v2.rtr : 0;
	} else {
		rep.rev = SOFTIW_MPA_REV1;
		p.ird = max_ird;
		p.ord = max_ord;
	}
	/* RFC 5044: CRC must be used when the peer asks for it */
	rep.crc = READ_ONCE(softiw_cm_mpa_crc) || req->crc;
	rep.markers = READ_ONCE(softiw_cm_mpa_markers);
	rep.pd = param->private_data;
	rep.pd_len = param->private_data_len;
	p.crc = rep.crc;
	p.markers_rx = rep.markers;
	p.markers_tx = req->markers;
	p.mulpdu = cep_mulpdu(cep, p.markers_tx);
	if (!p.mulpdu)
		return -EINVAL;

	/* RTS first: the Initiator's first FPDU may follow our Reply at once */
	ret = softiw_qp_rts(qp, &p, cep->sock);
	if (ret)
		return ret;
	ret = cep_send_rr(cep, &rep);
	if (ret) {
		softiw_qp_stream_closed(qp, true);
		return ret;
	}
	cep->state = SOFTIW_CEP_CONNECTED;
	cep_event_addrs(cep, &ev);
	ev.ird = p.ird;
	ev.ord = p.ord;
	cep->upcalled = !cep_upcall(cep, id, &ev);
	return 0;
}

static int softiw_iw_accept(struct iw_cm_id *id,
			    struct iw_cm_conn_param *param)
{
	struct softiw_cep *cep = id->provider_data;
	int ret;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->mutex);
	ret = cep_accept(cep, id, param);
	pr_debug("accept: %d\n", ret);
	if (ret)
		cep_finish(cep, true, 0);	/* no events after an error */
	mutex_unlock(&cep->mutex);
	cep_unlink_child(cep, id);
	return ret;
}

static int softiw_iw_reject(struct iw_cm_id *id, const void *pdata,
			    u8 pdata_len)
{
	struct softiw_cep *cep = id->provider_data;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->mutex);
	if (cep->state == SOFTIW_CEP_AWAIT_ACCEPT && cep->sock) {
		cep_send_reject(cep, pdata, pdata_len);
		/* graceful: the Reject goes out, followed by our FIN */
		cep_finish(cep, false, 0);
	} else {
		cep_finish(cep, true, 0);
	}
	mutex_unlock(&cep->mutex);
	cep_unlink_child(cep, id);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Listeners */

static struct softiw_lsock *ls_of_sk(const struct sock *sk)
{
	return __locked_read_sk_user_data_with_flags(sk, SK_USER_DATA_NOCOPY);
}

/*
 * Also inherited by accepted children until we take them over; their
 * sk_user_data is NULL (NOCOPY) and their state is not LISTEN.
 */
static void ls_sk_data_ready(struct sock *sk)
{
	struct softiw_lsock *ls;

	read_lock_bh(&sk->sk_callback_lock);
	ls = ls_of_sk(sk);
	if (ls && sk->sk_state == TCP_LISTEN)
		queue_work(softiw_cm_wq, &ls->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static struct softiw_listener *ls_pick(struct softiw_lsock *ls,
				       struct socket *sock)
{
	struct sockaddr_storage a = {};
	struct softiw_listener *l;

	lockdep_assert_held(&softiw_cm_mutex);
	if (kernel_getsockname(sock, (struct sockaddr *)&a) >= 0) {
		list_for_each_entry(l, &ls->listeners, entry)
			if (cm_dev_has_addr(l->sdev->netdev, &a))
				return l;
	}
	return list_first_entry_or_null(&ls->listeners,
					struct softiw_listener, entry);
}

/* A new connection: a CEP waiting for the MPA Request. */
static void ls_new_conn(struct softiw_lsock *ls, struct socket *sock)
{
	struct softiw_listener *l = ls_pick(ls, sock);
	struct softiw_cep *cep;

	if (l)
		cm_pending_room(l);
	cep = l ? cep_alloc(l->sdev) : NULL;
	if (!cep) {
		sock_no_linger(sock->sk);
		sock_release(sock);
		return;
	}
	tcp_sock_set_nodelay(sock->sk);
	sock->sk->sk_sndtimeo = mpa_timeout();
	cep->state = SOFTIW_CEP_AWAIT_REQ;
	cep_pend(cep, l);
	cep_sock_assoc(cep, sock, ls->orig_data_ready);
	cep_arm_timer(cep);
	/* the Request may have arrived before our callbacks */
	cep_post(cep, CEP_EV_READ);
	cep_put(cep);
}

/*
 * Connections accepted per run: the work item goes to the back of the
 * ordered queue for the rest, so the new connections' first reads (their
 * MPA Requests) run before more arrive to push them out of the pending
 * bound.
 */
#define CM_ACCEPT_BATCH		8

static void ls_accept_work(struct work_struct *w)
{
	struct softiw_lsock *ls = container_of(w, struct softiw_lsock,
					       accept_work);
	struct socket *sock;
	int n = 0;

	mutex_lock(&softiw_cm_mutex);
	while (!ls->dead && !kernel_accept(ls->sock, &sock, O_NONBLOCK)) {
		ls_new_conn(ls, sock);
		if (++n == CM_ACCEPT_BATCH) {
			queue_work(softiw_cm_wq, &ls->accept_work);
			break;
		}
	}
	mutex_unlock(&softiw_cm_mutex);
}

static struct softiw_lsock *ls_find(struct net *net,
				    const struct sockaddr_storage *addr,
				    int ifindex)
{
	struct softiw_lsock *ls;

	lockdep_assert_held(&softiw_cm_mutex);
	list_for_each_entry(ls, &softiw_lsocks, entry)
		if (net_eq(ls->net, net) && ls->ifindex == ifindex &&
		    cm_addr_equal(&ls->addr, addr))
			return ls;
	return NULL;
}

static struct softiw_lsock *ls_create(struct softiw_device *sdev,
				      struct iw_cm_id *id, int ifindex,
				      int backlog)
{
	struct softiw_lsock *ls;
	struct sock *sk;
	int ret;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&ls->listeners);
	INIT_WORK(&ls->accept_work, ls_accept_work);
	ls->net = dev_net(sdev->netdev);
	ls->addr = id->local_addr;
	ls->ifindex = ifindex;

	ret = cm_sock_create(sdev, ls->addr.ss_family, &ls->sock);
	if (ret)
		goto err_free;
	sk = ls->sock->sk;
	sock_set_reuseaddr(sk);
	if (ifindex) {
		ret = sock_bindtoindex(sk, ifindex, true);
		if (ret)
			goto err_sock;
	}
	if (ls->addr.ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(sk);
	if (id->tos_set && ls->addr.ss_family == AF_INET)
		ip_sock_set_tos(sk, id->tos);
	ret = kernel_bind(ls->sock, (struct sockaddr *)&ls->addr,
			  cm_addr_len(ls->addr.ss_family));
	if (ret)
		goto err_sock;

	write_lock_bh(&sk->sk_callback_lock);
	ls->orig_data_ready = sk->sk_data_ready;
	__rcu_assign_sk_user_data_with_flags(sk, ls, SK_USER_DATA_NOCOPY);
	sk->sk_data_ready = ls_sk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	ret = kernel_listen(ls->sock, backlog);
	if (ret)
		goto err_sock;
	list_add_tail(&ls->entry, &softiw_lsocks);
	atomic_inc(&softiw_lsock_count);
	return ls;

err_sock:
	sock_release(ls->sock);
err_free:
	kfree(ls);
	return ERR_PTR(ret);
}

/* Caller holds softiw_cm_mutex and has unlinked @ls; it stops accepting. */
static void ls_stop(struct softiw_lsock *ls)
{
	struct sock *sk = ls->sock->sk;

	ls->dead = true;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = ls->orig_data_ready;
	rcu_assign_sk_user_data(sk, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
}

/* After ls_stop() and without softiw_cm_mutex (the accept work takes it). */
static void ls_destroy(struct softiw_lsock *ls)
{
	cancel_work_sync(&ls->accept_work);
	sock_release(ls->sock);
	atomic_dec(&softiw_lsock_count);
	kfree(ls);
}

/*
 * The network namespace of the rdma_cm id that @id serves, or NULL if it
 * cannot be told.  rdma_cm creates every iw_cm id with its own private id
 * as the context, and that private id begins with the public struct
 * rdma_cm_id (so since rdma_cm's beginning); the device both carry
 * confirms it before anything else is read.
 */
static struct net *cm_id_net(const struct iw_cm_id *id)
{
	const struct rdma_cm_id *cm = id->context;

	if (!cm || READ_ONCE(cm->device) != id->device)
		return NULL;
	return cm->route.addr.dev_addr.net;
}

static int softiw_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct softiw_device *sdev = to_softiw_dev(id->device);
	struct net *net = cm_id_net(id);
	struct softiw_listener *l;
	struct softiw_lsock *ls;
	int ifindex = 0;

	if (!cm_family_ok(&id->local_addr))
		return -EAFNOSUPPORT;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->pending);
	l->sdev = sdev;
	l->cm_id = id;

	/*
	 * rdma_cm hands a wildcard listen to every iWARP device, whatever
	 * namespace its netdev is in.  A listen belongs to its id's
	 * namespace only: on a device of another one it stays dormant, so
	 * it neither takes that namespace's port nor receives its
	 * connections.
	 */
	if (net && !net_eq(net, dev_net(sdev->netdev))) {
		softiw_dbg_dev(sdev, "listen of another namespace: dormant\n");
		id->add_ref(id);
		id->provider_data = l;
		return 0;
	}

	/* a wildcard listen takes its port on the device's netdev only */
	if (cm_addr_any(&id->local_addr))
		ifindex = sdev->netdev->ifindex;
	mutex_lock(&softiw_cm_mutex);
	ls = ls_find(dev_net(sdev->netdev), &id->local_addr, ifindex);
	if (!ls)
		ls = ls_create(sdev, id, ifindex, backlog);
	if (IS_ERR(ls)) {
		mutex_unlock(&softiw_cm_mutex);
		kfree(l);
		return PTR_ERR(ls);
	}
	l->ls = ls;
	list_add_tail(&l->entry, &ls->listeners);
	id->add_ref(id);
	id->provider_data = l;
	mutex_unlock(&softiw_cm_mutex);
	return 0;
}

/*
 * Take @l off its listening socket; the socket goes with its last listen.
 * Connections still in MPA setup will never be offered: they are dropped.
 */
static void ls_leave(struct softiw_listener *l)
{
	struct softiw_lsock *ls = l->ls, *gone = NULL;
	struct softiw_cep *cep, *next;

	mutex_lock(&softiw_cm_mutex);
	list_del(&l->entry);
	list_for_each_entry_safe(cep, next, &l->pending, pending) {
		cep_unpend(cep);
		cep_post(cep, CEP_EV_ABORT);
	}
	if (list_empty(&ls->listeners)) {
		list_del(&ls->entry);
		ls_stop(ls);
		gone = ls;
	}
	mutex_unlock(&softiw_cm_mutex);

	if (gone)
		ls_destroy(gone);
}

static int softiw_iw_destroy_listen(struct iw_cm_id *id)
{
	struct softiw_listener *l = id->provider_data;

	if (!l)
		return 0;
	/* a dormant listen (another namespace's) has no socket to leave */
	if (l->ls)
		ls_leave(l);
	id->provider_data = NULL;
	kfree(l);
	id->rem_ref(id);
	return 0;
}

const struct ib_device_ops softiw_cm_ops = {
	.iw_connect = softiw_iw_connect,
	.iw_accept = softiw_iw_accept,
	.iw_reject = softiw_iw_reject,
	.iw_create_listen = softiw_iw_create_listen,
	.iw_destroy_listen = softiw_iw_destroy_listen,
};

/* ---------------------------------------------------------------------- */

int softiw_cm_init(void)
{
	/* ordered: CM work items never run concurrently (see top) */
	softiw_cm_wq = alloc_ordered_workqueue("softiw_cm", WQ_MEM_RECLAIM);
	if (!softiw_cm_wq)
		return -ENOMEM;
	/* live counts, for leak checks (selftests/softiw/dp_teardown.sh) */
	debugfs_create_atomic_t("cm_endpoints", 0444, softiw_debugfs_root,
				&softiw_cep_count);
	debugfs_create_atomic_t("cm_listen_sockets", 0444, softiw_debugfs_root,
				&softiw_lsock_count);
	return 0;
}

/*
 * After every device is unregistered: iw_cm has destroyed every listener
 * and connection by then, so only queued work remains, which
 * destroy_workqueue() runs to the end.
 */
void softiw_cm_exit(void)
{
	destroy_workqueue(softiw_cm_wq);
	if (atomic_read(&softiw_cep_count))
		pr_err("%d connection endpoints leaked\n",
		       atomic_read(&softiw_cep_count));
	if (!list_empty(&softiw_lsocks))
		pr_err("listening sockets leaked\n");
}
