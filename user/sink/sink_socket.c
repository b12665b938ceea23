// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_socket.c - the stream socket sink: connecting, sending the queue,
 * reconnecting with backoff, and confirming delivery.
 *
 * Sending (SINK_SEND_URING, the default): once a batch of 64 KiB is
 * queued, and at each flush, the queue's next contiguous run (up to 1 MiB)
 * goes out as one io_uring send, submitted at once.  The kernel sends
 * inline what the socket takes and, when it is full, waits on its own
 * poll and completes the send as the peer reads, while this thread goes
 * on encoding; one send is in flight, so the stream stays in order.  With
 * nothing queued, sink__write() first tries a non-blocking send() from
 * the caller's memory and queues only what the socket did not take.
 *
 * SINK_SEND_DIRECT (send() first, the remainder through io_uring) and
 * SINK_SEND_POLL (send() only, POLLOUT through io_uring) are the
 * alternatives `make bench-socket` measures against it
 * (Documentation/architecture.md has the figures and the choice).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "sink_backends.h"
#include "transport/netaddr.h"
#include "transport/stream_ack.h"

/* One send, and one flush, move at most this much: the loop gets turns. */
#define SINK_SEND_MAX		(1u << 20)
#define SINK_FLUSH_MAX		(4u << 20)
/* A commit that leaves this much unsent starts sending it. */
#define SINK_BATCH		(64u << 10)
/* Reconnect backoff: doubles from the first to the last value. */
#define SINK_BACKOFF_MIN_MS	100
#define SINK_BACKOFF_MAX_MS	5000

struct sink_socket {
	struct sink s;			/* first: see sink_alloc() */
	struct ev_handler send_h;	/* SINK_SEND_URING: the send in flight */
	struct ev_handler pollout_h;	/* wait for room in the socket */
	struct ev_handler timer_h;	/* reconnect backoff */
	struct ev_handler connect_h;
	struct ev_handler recv_h;	/* the receiver's acknowledgement */
	int fd;
	enum sink_send_mode send_mode;
	bool sending, polling, timing, connecting, receiving;

	/* Reconnection. */
	bool reconnect;
	int sndbuf;
	struct netaddr addrs[NETADDR_MAX];
	int naddrs, addr_next;
	unsigned int backoff_ms;
	struct __kernel_timespec backoff_ts;

	/* Delivery: the receiver's acknowledgement, as it arrives. */
	unsigned char ack[STREAM_ACK_SIZE];
	size_t ack_len;
};

#define SOCKET_OF(h, member) \
	sink_container_of(h, struct sink_socket, member)

static struct sink_socket *sink_socket(struct sink *s)
{
	return sink_container_of(s, struct sink_socket, s);
}

static void sink_socket_confirm(struct sink_socket *k);

/* An orderly end: half-close and wait for the receiver, once connected. */
static void sink_socket_finish(struct sink_socket *k)
{
	if (k->fd < 0)
		k->s.state = SINK_CLOSED;
	else
		sink_socket_confirm(k);		/* CLOSED once it answers */
}

/* ------------------------------------------------------------------ */
/* Connection                                                          */
/* ------------------------------------------------------------------ */

static void sink_arm_timer(struct sink_socket *k)
{
	struct io_uring_sqe *sqe = evloop__sqe(k->s.loop, &k->timer_h);

	if (!sqe) {
		k->s.state = SINK_GONE;
		return;
	}
	k->backoff_ts.tv_sec = k->backoff_ms / 1000;
	k->backoff_ts.tv_nsec = (long long)(k->backoff_ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &k->backoff_ts, 0, 0);
	k->timing = true;
	k->s.state = SINK_DOWN;
	if (k->backoff_ms < SINK_BACKOFF_MAX_MS / 2)
		k->backoff_ms *= 2;
	else
		k->backoff_ms = SINK_BACKOFF_MAX_MS;
}

static int sink_new_socket(const struct sink_socket *k,
			   const struct netaddr *a)
{
	int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (k->sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &k->sndbuf,
			   sizeof(k->sndbuf));
	return fd;
}

/* Connect asynchronously, trying the resolved addresses in turn. */
static void sink_start_connect(struct sink_socket *k)
{
	const struct netaddr *a = &k->addrs[k->addr_next];
	struct io_uring_sqe *sqe;
	int fd = sink_new_socket(k, a);

	if (fd < 0) {
		k->s.error = -fd;
		sink_arm_timer(k);
		return;
	}
	sqe = evloop__sqe(k->s.loop, &k->connect_h);
	if (!sqe) {
		close(fd);
		k->s.error = EBUSY;
		sink_arm_timer(k);
		return;
	}
	k->fd = fd;
	io_uring_prep_connect(sqe, fd, (const struct sockaddr *)&a->ss, a->len);
	k->connecting = true;
	k->s.state = SINK_CONNECTING;
}

/*
 * The peer went away: stop sending, keep counting, maybe try again.  It
 * did not take the stream in order, so nothing of it is confirmed.
 */
static void sink_peer_gone(struct sink_socket *k, int err)
{
	struct sink *s = &k->s;

	s->error = err;
	s->st.disconnects++;
	sink_settle(s, 0, 0);
	close(k->fd);
	k->fd = -1;
	sink_drop_queue(s);
	if (s->closing)
		s->state = SINK_CLOSED;
	else if (k->reconnect)
		sink_arm_timer(k);
	else
		s->state = SINK_GONE;
}

static void sink_on_timer(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink_socket *k = SOCKET_OF(h, timer_h);

	(void)cqe;
	k->timing = false;
	if (k->s.state == SINK_DOWN && !k->s.closing)
		sink_start_connect(k);
}

static void sink_on_connect(struct ev_handler *h,
			    const struct io_uring_cqe *cqe)
{
	struct sink_socket *k = SOCKET_OF(h, connect_h);
	struct sink *s = &k->s;

	k->connecting = false;
	if (cqe->res < 0) {
		close(k->fd);
		k->fd = -1;
		s->error = -cqe->res;
		if (s->closing) {
			s->state = SINK_CLOSED;
			return;
		}
		k->addr_next = (k->addr_next + 1) % k->naddrs;
		sink_arm_timer(k);
		return;
	}
	s->st.connects++;
	if (s->closing) {
		/* Nothing was accepted meanwhile: there is nothing to say. */
		sink_socket_finish(k);
		return;
	}
	s->state = SINK_UP;
	s->error = 0;
	k->backoff_ms = SINK_BACKOFF_MIN_MS;
	sink_stream_start(s);
	/*
	 * A fresh stream: ask for its prologue and state.  The queue is
	 * empty (the old stream's records were dropped with the peer), so
	 * the next records written are the segment's first.
	 */
	s->segment_wanted = true;
}

/* The first connection is made synchronously: nothing is draining yet. */
static int sink_connect_now(struct sink_socket *k, char *err, size_t errlen)
{
	int i, fd, ret = -ECONNREFUSED;

	for (i = 0; i < k->naddrs; i++) {
		fd = sink_new_socket(k, &k->addrs[i]);
		if (fd < 0) {
			ret = fd;
			continue;
		}
		if (!connect(fd, (const struct sockaddr *)&k->addrs[i].ss,
			     k->addrs[i].len)) {
			k->fd = fd;
			k->addr_next = i;
			k->s.st.connects++;
			return 0;
		}
		ret = -errno;
		close(fd);
	}
	snprintf(err, errlen, "cannot connect: %s", strerror(-ret));
	return ret;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

/* Wait for room in the socket; a POLLERR shows up as the send's error. */
static void sink_wait_pollout(struct sink_socket *k)
{
	struct io_uring_sqe *sqe;

	if (k->polling || k->s.teardown)
		return;
	sqe = evloop__sqe(k->s.loop, &k->pollout_h);
	if (!sqe)
		return;		/* the SQ is full: the next flush retries */
	io_uring_prep_poll_add(sqe, k->fd, POLLOUT);
	k->polling = true;
}

/* An io_uring send of the next run, parked in the kernel while full. */
static void sink_send_uring(struct sink_socket *k)
{
	struct io_uring_sqe *sqe;
	const void *p;
	size_t len;

	if (k->sending)
		return;
	len = record_queue__peek(&k->s.q, &p);
	if (!len) {
		if (k->s.closing)
			sink_socket_finish(k);
		return;
	}
	if (len > SINK_SEND_MAX)
		len = SINK_SEND_MAX;
	sqe = evloop__sqe(k->s.loop, &k->send_h);
	if (!sqe)
		return;		/* the SQ is full: the next flush retries */
	/*
	 * A blocking socket, so io_uring waits for room itself instead of
	 * failing with -EAGAIN; MSG_NOSIGNAL: a vanished peer is an error
	 * code, not SIGPIPE.
	 */
	io_uring_prep_send(sqe, k->fd, p, len, MSG_NOSIGNAL);
	k->sending = true;
	/* Now, not at the loop's next turn: the socket has room to fill. */
	evloop__submit(k->s.loop);
}

/*
 * send() what the socket takes now, a contiguous run per call.  Returns
 * true when the socket is full (or the budget spent) with data left.
 */
static bool sink_send_now(struct sink_socket *k)
{
	struct record_queue *q = &k->s.q;
	size_t budget = SINK_FLUSH_MAX;

	while (budget) {
		const void *p;
		size_t len = record_queue__peek(q, &p);
		ssize_t n;

		if (!len) {
			if (k->s.closing)
				sink_socket_finish(k);
			return false;
		}
		if (len > budget)
			len = budget;
		n = send(k->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			sink_peer_gone(k, errno);
			return false;
		}
		sink_sent(&k->s, (size_t)n);
		budget -= (size_t)n;
		/* A short send: the socket is full, the next would -EAGAIN. */
		if ((size_t)n < len)
			return record_queue__unsent(q) != 0;
	}
	return record_queue__unsent(q) != 0;
}

static void sink_submit(struct sink_socket *k)
{
	if (k->polling || k->sending || k->s.state != SINK_UP ||
	    k->s.teardown)
		return;
	switch (k->send_mode) {
	case SINK_SEND_DIRECT:
		/* What the socket does not take now goes through io_uring. */
		if (sink_send_now(k))
			sink_send_uring(k);
		break;
	case SINK_SEND_POLL:
		if (sink_send_now(k))
			sink_wait_pollout(k);
		break;
	default:
		sink_send_uring(k);
		break;
	}
}

static void sink_on_pollout(struct ev_handler *h,
			    const struct io_uring_cqe *cqe)
{
	struct sink_socket *k = SOCKET_OF(h, pollout_h);

	(void)cqe;
	k->polling = false;
	sink_submit(k);
}

static void sink_on_send(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink_socket *k = SOCKET_OF(h, send_h);

	k->sending = false;
	if (cqe->res > 0) {
		/* A short send resumes at the exact next byte. */
		sink_sent(&k->s, (size_t)cqe->res);
	} else if (cqe->res == -EAGAIN) {
		/* E.g. SO_SNDTIMEO, or a socket made non-blocking: wait. */
		sink_wait_pollout(k);
		return;
	} else if (cqe->res == -ECANCELED) {
		return;		/* sink__close() is tearing down */
	} else if (cqe->res != -EINTR) {
		sink_peer_gone(k, cqe->res ? -cqe->res : EPIPE);
		return;
	}
	sink_submit(k);
}

/*
 * With nothing queued or in flight: send() the start of a record from the
 * caller's memory; returns the bytes the socket took.
 */
static size_t sink_send_first(struct sink_socket *k, const void *rec,
			      size_t len)
{
	ssize_t n;

	if (k->sending || k->polling || k->s.teardown)
		return 0;
	do
		n = send(k->fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	/* A failure shows again, and is handled, at the next flush. */
	return n > 0 ? (size_t)n : 0;
}

/* ------------------------------------------------------------------ */
/* Confirming                                                          */
/* ------------------------------------------------------------------ */

static void sink_closed(struct sink_socket *k)
{
	close(k->fd);
	k->fd = -1;
	k->s.state = SINK_CLOSED;
}

/* Settle the stream from what the peer's kernel has not acknowledged. */
static void sink_settle_outq(struct sink_socket *k)
{
	int outq = 0;

	/*
	 * For TCP, the bytes the peer's kernel has not acknowledged; for a
	 * unix socket, those the peer has not read.  Records cannot be
	 * split, so a stream with any left is unconfirmed as a whole.
	 */
	if (ioctl(k->fd, SIOCOUTQ, &outq) || outq) {
		sink_settle(&k->s, 0, 0);
		return;
	}
	k->s.st.outq_streams++;
	sink_settle(&k->s, UINT64_MAX, UINT64_MAX);
}

static void sink_recv_ack(struct sink_socket *k)
{
	struct io_uring_sqe *sqe = evloop__sqe(k->s.loop, &k->recv_h);

	if (!sqe) {
		sink_settle_outq(k);
		sink_closed(k);
		return;
	}
	io_uring_prep_recv(sqe, k->fd, k->ack + k->ack_len,
			   STREAM_ACK_SIZE - k->ack_len, 0);
	k->receiving = true;
}

static void sink_on_recv(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink_socket *k = SOCKET_OF(h, recv_h);

	k->receiving = false;
	if (cqe->res == -ECANCELED)
		return;		/* sink__close() settles it */
	if (cqe->res == -EINTR || cqe->res == -EAGAIN) {
		sink_recv_ack(k);
		return;
	}
	if (cqe->res > 0) {
		uint64_t bytes, records;

		k->ack_len += (size_t)cqe->res;
		if (k->ack_len < STREAM_ACK_SIZE) {
			sink_recv_ack(k);
			return;
		}
		if (!stream_ack__decode(k->ack, &bytes, &records)) {
			k->s.st.acked_streams++;
			sink_settle(&k->s, records, bytes);
		} else {
			/* A peer that talks, but not fxtprof's protocol. */
			sink_settle_outq(k);
		}
	} else if (cqe->res == 0) {
		/* An orderly end without a word: not an fxtprof receiver. */
		sink_settle_outq(k);
	} else {
		/* Reset: the peer did not read all that it was sent. */
		k->s.error = -cqe->res;
		sink_settle(&k->s, 0, 0);
	}
	sink_closed(k);
}

/* Half-close and wait for the receiver's acknowledgement (CONFIRMING). */
static void sink_socket_confirm(struct sink_socket *k)
{
	/* An orderly FIN: the peer sees the end of a whole stream. */
	if (shutdown(k->fd, SHUT_WR)) {
		k->s.error = errno;
		sink_settle(&k->s, 0, 0);
		sink_closed(k);
		return;
	}
	k->s.state = SINK_CONFIRMING;
	k->ack_len = 0;
	sink_recv_ack(k);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

static size_t sink_socket_queue_cap(const struct sink_opts *opts)
{
	return opts->max_buffered ? opts->max_buffered :
				    SINK_DEFAULT_MAX_BUFFERED;
}

static void sink_socket_init(struct sink *s, const struct sink_opts *opts)
{
	struct sink_socket *k = sink_socket(s);

	k->fd = -1;
	k->reconnect = opts->reconnect;
	k->sndbuf = opts->sndbuf;
	k->send_mode = opts->send_mode;
	k->recv_h.complete = sink_on_recv;
	k->send_h.complete = sink_on_send;
	k->pollout_h.complete = sink_on_pollout;
	k->timer_h.complete = sink_on_timer;
	k->connect_h.complete = sink_on_connect;
	k->backoff_ms = SINK_BACKOFF_MIN_MS;
}

static int sink_socket_open(struct sink *s, const char *uri,
			    const struct sink_opts *opts, char *err,
			    size_t errlen)
{
	struct sink_socket *k = sink_socket(s);
	int ret;

	(void)opts;		/* taken at init */
	ret = netaddr__resolve(uri, false, k->addrs, NETADDR_MAX, err,
			       errlen);
	if (ret < 0)
		return ret;
	k->naddrs = ret;
	ret = sink_connect_now(k, err, errlen);
	if (ret) {
		if (!k->reconnect)
			return ret;
		/* Record anyway; the stream starts when the peer appears. */
		fprintf(stderr, "fxtprof: %s: %s; retrying in the background\n",
			uri, err);
		err[0] = '\0';
		s->error = -ret;
		sink_arm_timer(k);
	}
	return 0;
}

int sink__open_fd(struct sink **sp, int fd, struct evloop *loop,
		  const struct sink_opts *opts)
{
	static const struct sink_opts defaults;
	int flags = fcntl(fd, F_GETFL), ret;
	struct sink_socket *k;
	struct sink *s;

	if (flags < 0)
		return -errno;
	/*
	 * Blocking: direct sends pass MSG_DONTWAIT themselves, and an
	 * io_uring send then parks in the kernel instead of -EAGAIN.
	 */
	if ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK))
		return -errno;
	ret = sink_alloc(&s, &sink_socket_ops, loop, opts ? opts : &defaults);
	if (ret)
		return ret;
	k = sink_socket(s);
	k->reconnect = false;	/* no address to go back to */
	k->fd = fd;
	s->st.connects++;
	*sp = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The operations                                                      */
/* ------------------------------------------------------------------ */

/* The record reserved last is queued: send early once a batch is. */
static void sink_socket_queued(struct sink *s, size_t sent)
{
	sink_queue_commit(s, sent);
	if (record_queue__unsent(&s->q) >= SINK_BATCH)
		sink_submit(sink_socket(s));
}

static void sink_socket_commit(struct sink *s)
{
	sink_socket_queued(s, 0);
}

static int sink_socket_write(struct sink *s, const void *rec, size_t len,
			     unsigned int kind)
{
	size_t sent = 0;
	unsigned char *p;

	/*
	 * Nothing queued: send straight from the caller's memory, and copy
	 * only what the socket did not take.  The queue then holds the
	 * record from its first unsent byte on.
	 */
	if (!record_queue__unsent(&s->q) && sink_accepting(s) &&
	    record_queue__fits(&s->q, len))
		sent = sink_send_first(sink_socket(s), rec, len);
	p = sink__reserve(s, len, kind);
	if (!p)
		return -ENOBUFS;
	/* The sent bytes' room is never sent again: they count as gone. */
	memcpy(p + sent, (const unsigned char *)rec + sent, len - sent);
	sink_socket_queued(s, sent);
	return 0;
}

static int sink_socket_flush(struct sink *s)
{
	sink_submit(sink_socket(s));
	return s->state == SINK_UP || s->state == SINK_CONFIRMING ||
	       s->state == SINK_CLOSED ? 0 : -s->error;
}

static void sink_socket_flush_close(struct sink *s)
{
	struct sink_socket *k = sink_socket(s);

	switch (s->state) {
	case SINK_UP:
		sink_submit(k);		/* closes once empty */
		break;
	case SINK_CONNECTING:
		break;			/* the completion closes */
	default:
		/* Peer gone: nothing will be written any more. */
		sink_drop_queue(s);
		if (!k->connecting)
			sink_socket_finish(k);
		break;
	}
}

static void sink_cancel(struct sink_socket *k, struct ev_handler *h)
{
	struct io_uring_sqe *sqe = evloop__sqe(k->s.loop, NULL);

	if (sqe)
		io_uring_prep_cancel(sqe, h, 0);
}

/* Cancel what is in flight and wait for it, then settle and close. */
static void sink_socket_give_up(struct sink *s)
{
	struct sink_socket *k = sink_socket(s);

	if (k->sending)
		sink_cancel(k, &k->send_h);
	if (k->polling)
		sink_cancel(k, &k->pollout_h);
	if (k->timing)
		sink_cancel(k, &k->timer_h);
	if (k->connecting)
		sink_cancel(k, &k->connect_h);
	if (k->receiving)
		sink_cancel(k, &k->recv_h);
	while ((k->sending || k->polling || k->timing || k->connecting ||
		k->receiving) && evloop__run_once(s->loop, 1000) >= 0)
		;
	if (k->fd >= 0) {
		sink_settle_outq(k);
		close(k->fd);
		k->fd = -1;
	}
}

const struct sink_ops sink_socket_ops = {
	.socket		= true,
	.size		= sizeof(struct sink_socket),
	.queue_cap	= sink_socket_queue_cap,
	.init		= sink_socket_init,
	.open		= sink_socket_open,
	.reserve	= sink_queue_reserve,
	.commit		= sink_socket_commit,
	.write		= sink_socket_write,
	.flush		= sink_socket_flush,
	.flush_close	= sink_socket_flush_close,
	.give_up	= sink_socket_give_up,
};
