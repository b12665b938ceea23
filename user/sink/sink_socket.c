// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_socket.c - the stream socket sink: connecting, sending the queue,
 * reconnecting with backoff.
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
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "sink_internal.h"

/* One send, and one flush, move at most this much: the loop gets turns. */
#define SINK_SEND_MAX		(1u << 20)
#define SINK_FLUSH_MAX		(4u << 20)
/* A commit that leaves this much unsent starts sending it. */
#define SINK_BATCH		(64u << 10)
/* Reconnect backoff: doubles from the first to the last value. */
#define SINK_BACKOFF_MIN_MS	100
#define SINK_BACKOFF_MAX_MS	5000

#define SINK_OF(h, member) \
	((struct sink *)((char *)(h) - offsetof(struct sink, member)))

static void sink_submit(struct sink *s);

/* ------------------------------------------------------------------ */
/* Connection                                                          */
/* ------------------------------------------------------------------ */

static void sink_arm_timer(struct sink *s)
{
	struct io_uring_sqe *sqe = evloop__sqe(s->loop, &s->timer_h);

	if (!sqe) {
		s->state = SINK_GONE;
		return;
	}
	s->backoff_ts.tv_sec = s->backoff_ms / 1000;
	s->backoff_ts.tv_nsec = (long long)(s->backoff_ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &s->backoff_ts, 0, 0);
	s->timing = true;
	s->state = SINK_DOWN;
	if (s->backoff_ms < SINK_BACKOFF_MAX_MS / 2)
		s->backoff_ms *= 2;
	else
		s->backoff_ms = SINK_BACKOFF_MAX_MS;
}

static int sink_new_socket(const struct sink *s, const struct netaddr *a)
{
	int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (s->sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->sndbuf,
			   sizeof(s->sndbuf));
	return fd;
}

/* Connect asynchronously, trying the resolved addresses in turn. */
static void sink_start_connect(struct sink *s)
{
	const struct netaddr *a = &s->addrs[s->addr_next];
	struct io_uring_sqe *sqe;
	int fd = sink_new_socket(s, a);

	if (fd < 0) {
		s->error = -fd;
		sink_arm_timer(s);
		return;
	}
	sqe = evloop__sqe(s->loop, &s->connect_h);
	if (!sqe) {
		close(fd);
		s->error = EBUSY;
		sink_arm_timer(s);
		return;
	}
	s->fd = fd;
	io_uring_prep_connect(sqe, fd, (const struct sockaddr *)&a->ss, a->len);
	s->connecting = true;
	s->state = SINK_CONNECTING;
}

/*
 * The peer went away: stop sending, keep counting, maybe try again.  It
 * did not take the stream in order, so nothing of it is confirmed.
 */
static void sink_peer_gone(struct sink *s, int err)
{
	s->error = err;
	s->st.disconnects++;
	sink_settle(s, 0, 0);
	close(s->fd);
	s->fd = -1;
	sink_drop_queue(s);
	if (s->closing)
		s->state = SINK_CLOSED;
	else if (s->reconnect)
		sink_arm_timer(s);
	else
		s->state = SINK_GONE;
}

static void sink_on_timer(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, timer_h);

	(void)cqe;
	s->timing = false;
	if (s->state == SINK_DOWN && !s->closing)
		sink_start_connect(s);
}

static void sink_on_connect(struct ev_handler *h,
			    const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, connect_h);

	s->connecting = false;
	if (cqe->res < 0) {
		close(s->fd);
		s->fd = -1;
		s->error = -cqe->res;
		if (s->closing) {
			s->state = SINK_CLOSED;
			return;
		}
		s->addr_next = (s->addr_next + 1) % s->naddrs;
		sink_arm_timer(s);
		return;
	}
	s->st.connects++;
	if (s->closing) {
		/* Nothing was accepted meanwhile: there is nothing to say. */
		sink_finish_close(s);
		return;
	}
	s->state = SINK_UP;
	s->error = 0;
	s->backoff_ms = SINK_BACKOFF_MIN_MS;
	s->stream_records = s->st.sent_records;
	s->stream_bytes = s->st.sent_bytes;
	/*
	 * A fresh stream: ask for its prologue and state.  The queue is
	 * empty (the old stream's records were dropped with the peer), so
	 * the next records written are the segment's first.
	 */
	s->segment_wanted = true;
}

/* The first connection is made synchronously: nothing is draining yet. */
static int sink_connect_now(struct sink *s, char *err, size_t errlen)
{
	int i, fd, ret = -ECONNREFUSED;

	for (i = 0; i < s->naddrs; i++) {
		fd = sink_new_socket(s, &s->addrs[i]);
		if (fd < 0) {
			ret = fd;
			continue;
		}
		if (!connect(fd, (const struct sockaddr *)&s->addrs[i].ss,
			     s->addrs[i].len)) {
			s->fd = fd;
			s->addr_next = i;
			s->st.connects++;
			return 0;
		}
		ret = -errno;
		close(fd);
	}
	snprintf(err, errlen, "cannot connect: %s", strerror(-ret));
	return ret;
}

int sink_socket_open(struct sink *s, const char *uri, char *err,
		     size_t errlen)
{
	int ret = netaddr__resolve(uri, false, s->addrs, NETADDR_MAX, err,
				   errlen);

	if (ret < 0)
		return ret;
	s->naddrs = ret;
	ret = sink_connect_now(s, err, errlen);
	if (ret) {
		if (!s->reconnect)
			return ret;
		/* Record anyway; the stream starts when the peer appears. */
		fprintf(stderr, "fxtprof: %s: %s; retrying in the background\n",
			uri, err);
		err[0] = '\0';
		s->error = -ret;
		sink_arm_timer(s);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

/* Wait for room in the socket; a POLLERR shows up as the send's error. */
static void sink_wait_pollout(struct sink *s)
{
	struct io_uring_sqe *sqe;

	if (s->polling || s->teardown)
		return;
	sqe = evloop__sqe(s->loop, &s->pollout_h);
	if (!sqe)
		return;		/* the SQ is full: the next flush retries */
	io_uring_prep_poll_add(sqe, s->fd, POLLOUT);
	s->polling = true;
}

/* An io_uring send of the next run, parked in the kernel while full. */
static void sink_send_uring(struct sink *s)
{
	struct io_uring_sqe *sqe;
	const void *p;
	size_t len;

	if (s->sending)
		return;
	len = record_queue__peek(&s->q, &p);
	if (!len) {
		if (s->closing)
			sink_finish_close(s);
		return;
	}
	if (len > SINK_SEND_MAX)
		len = SINK_SEND_MAX;
	sqe = evloop__sqe(s->loop, &s->send_h);
	if (!sqe)
		return;		/* the SQ is full: the next flush retries */
	/*
	 * A blocking socket, so io_uring waits for room itself instead of
	 * failing with -EAGAIN; MSG_NOSIGNAL: a vanished peer is an error
	 * code, not SIGPIPE.
	 */
	io_uring_prep_send(sqe, s->fd, p, len, MSG_NOSIGNAL);
	s->sending = true;
	/* Now, not at the loop's next turn: the socket has room to fill. */
	evloop__submit(s->loop);
}

/*
 * send() what the socket takes now, a contiguous run per call.  Returns
 * true when the socket is full (or the budget spent) with data left.
 */
static bool sink_send_now(struct sink *s)
{
	size_t budget = SINK_FLUSH_MAX;

	while (budget) {
		const void *p;
		size_t len = record_queue__peek(&s->q, &p);
		ssize_t n;

		if (!len) {
			if (s->closing)
				sink_finish_close(s);
			return false;
		}
		if (len > budget)
			len = budget;
		n = send(s->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			sink_peer_gone(s, errno);
			return false;
		}
		sink_sent(s, (size_t)n);
		budget -= (size_t)n;
		/* A short send: the socket is full, the next would -EAGAIN. */
		if ((size_t)n < len)
			return record_queue__unsent(&s->q) != 0;
	}
	return record_queue__unsent(&s->q) != 0;
}

static void sink_submit(struct sink *s)
{
	if (s->polling || s->sending || s->state != SINK_UP || s->teardown)
		return;
	switch (s->send_mode) {
	case SINK_SEND_DIRECT:
		/* What the socket does not take now goes through io_uring. */
		if (sink_send_now(s))
			sink_send_uring(s);
		break;
	case SINK_SEND_POLL:
		if (sink_send_now(s))
			sink_wait_pollout(s);
		break;
	default:
		sink_send_uring(s);
		break;
	}
}

static void sink_on_pollout(struct ev_handler *h,
			    const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, pollout_h);

	(void)cqe;
	s->polling = false;
	sink_submit(s);
}

static void sink_on_send(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, send_h);

	s->sending = false;
	if (cqe->res > 0) {
		/* A short send resumes at the exact next byte. */
		sink_sent(s, (size_t)cqe->res);
	} else if (cqe->res == -EAGAIN) {
		/* E.g. SO_SNDTIMEO, or a socket made non-blocking: wait. */
		sink_wait_pollout(s);
		return;
	} else if (cqe->res == -ECANCELED) {
		return;		/* sink__close() is tearing down */
	} else if (cqe->res != -EINTR) {
		sink_peer_gone(s, cqe->res ? -cqe->res : EPIPE);
		return;
	}
	sink_submit(s);
}

/* ------------------------------------------------------------------ */
/* Confirming                                                          */
/* ------------------------------------------------------------------ */

static void sink_closed(struct sink *s)
{
	close(s->fd);
	s->fd = -1;
	s->state = SINK_CLOSED;
}

void sink_socket_settle_outq(struct sink *s)
{
	int outq = 0;

	/*
	 * For TCP, the bytes the peer's kernel has not acknowledged; for a
	 * unix socket, those the peer has not read.  Records cannot be
	 * split, so a stream with any left is unconfirmed as a whole.
	 */
	if (ioctl(s->fd, SIOCOUTQ, &outq) || outq) {
		sink_settle(s, 0, 0);
		return;
	}
	s->st.outq_streams++;
	sink_settle(s, UINT64_MAX, UINT64_MAX);
}

static void sink_recv_ack(struct sink *s)
{
	struct io_uring_sqe *sqe = evloop__sqe(s->loop, &s->recv_h);

	if (!sqe) {
		sink_socket_settle_outq(s);
		sink_closed(s);
		return;
	}
	io_uring_prep_recv(sqe, s->fd, s->ack + s->ack_len,
			   STREAM_ACK_SIZE - s->ack_len, 0);
	s->receiving = true;
}

static void sink_on_recv(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, recv_h);

	s->receiving = false;
	if (cqe->res == -ECANCELED)
		return;		/* sink__close() settles it */
	if (cqe->res == -EINTR || cqe->res == -EAGAIN) {
		sink_recv_ack(s);
		return;
	}
	if (cqe->res > 0) {
		uint64_t bytes, records;

		s->ack_len += (size_t)cqe->res;
		if (s->ack_len < STREAM_ACK_SIZE) {
			sink_recv_ack(s);
			return;
		}
		if (!stream_ack__decode(s->ack, &bytes, &records)) {
			s->st.acked_streams++;
			sink_settle(s, records, bytes);
		} else {
			/* A peer that talks, but not fxtprof's protocol. */
			sink_socket_settle_outq(s);
		}
	} else if (cqe->res == 0) {
		/* An orderly end without a word: not an fxtprof receiver. */
		sink_socket_settle_outq(s);
	} else {
		/* Reset: the peer did not read all that it was sent. */
		s->error = -cqe->res;
		sink_settle(s, 0, 0);
	}
	sink_closed(s);
}

void sink_socket_confirm(struct sink *s)
{
	/* An orderly FIN: the peer sees the end of a whole stream. */
	if (shutdown(s->fd, SHUT_WR)) {
		s->error = errno;
		sink_settle(s, 0, 0);
		sink_closed(s);
		return;
	}
	s->state = SINK_CONFIRMING;
	s->ack_len = 0;
	sink_recv_ack(s);
}

/* ------------------------------------------------------------------ */
/* Set-up and teardown                                                 */
/* ------------------------------------------------------------------ */

void sink_socket_init(struct sink *s)
{
	s->recv_h.complete = sink_on_recv;
	s->send_h.complete = sink_on_send;
	s->pollout_h.complete = sink_on_pollout;
	s->timer_h.complete = sink_on_timer;
	s->connect_h.complete = sink_on_connect;
	s->backoff_ms = SINK_BACKOFF_MIN_MS;
}

void sink_socket_flush(struct sink *s)
{
	sink_submit(s);
}

size_t sink_socket_send_first(struct sink *s, const void *rec, size_t len)
{
	ssize_t n;

	if (!s->socket || s->sending || s->polling || s->teardown)
		return 0;
	do
		n = send(s->fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	/* A failure shows again, and is handled, at the next flush. */
	return n > 0 ? (size_t)n : 0;
}

void sink_socket_committed(struct sink *s)
{
	if (record_queue__unsent(&s->q) >= SINK_BATCH)
		sink_submit(s);
}

void sink_socket_flush_close(struct sink *s)
{
	sink_submit(s);
}

static void sink_cancel(struct sink *s, struct ev_handler *h)
{
	struct io_uring_sqe *sqe = evloop__sqe(s->loop, NULL);

	if (sqe)
		io_uring_prep_cancel(sqe, h, 0);
}

void sink_socket_cancel_all(struct sink *s)
{
	if (s->sending)
		sink_cancel(s, &s->send_h);
	if (s->polling)
		sink_cancel(s, &s->pollout_h);
	if (s->timing)
		sink_cancel(s, &s->timer_h);
	if (s->connecting)
		sink_cancel(s, &s->connect_h);
	if (s->receiving)
		sink_cancel(s, &s->recv_h);
	while ((s->sending || s->polling || s->timing || s->connecting ||
		s->receiving) && evloop__run_once(s->loop, 1000) >= 0)
		;
}
