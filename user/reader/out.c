// SPDX-License-Identifier: GPL-2.0-only
/*
 * out.c - see out.h.
 *
 * The queue is a byte ring of max_buffered bytes (reserved with
 * MAP_NORESERVE, so only what is used becomes resident).  It holds whole
 * FXT records back to back, so the records themselves are the framing: the
 * size in each header tells where the next one starts, and no per-record
 * bookkeeping is needed.  The ring size and every record are multiples of
 * 8 bytes, so a header never straddles the wrap.  Positions are absolute
 * stream offsets:
 *	rec_head <= head <= tail
 * rec_head starts the first record not yet wholly sent, head is the first
 * byte not yet sent, tail ends the last queued record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "netaddr.h"
#include "out.h"

/* Files: write once this much is queued; the cap bounds the ring. */
#define OUT_FILE_CHUNK		(1u << 20)
#define OUT_FILE_CAP		(8u << 20)
/* One send moves at most this much, so completions come back steadily. */
#define OUT_SEND_MAX		(1u << 20)
/* Reconnect backoff: doubles from the first to the last value. */
#define OUT_BACKOFF_MIN_MS	100
#define OUT_BACKOFF_MAX_MS	5000

enum out_state {
	OUT_UP,			/* connected (or a file) */
	OUT_DOWN,		/* peer gone, waiting for the backoff timer */
	OUT_CONNECTING,		/* connect in flight */
	OUT_GONE,		/* peer gone for good */
	OUT_CLOSED,		/* flush-and-close finished */
};

struct out {
	struct ev_handler send_h;	/* the one send in flight */
	struct ev_handler pollout_h;	/* wait for room after -EAGAIN */
	struct ev_handler timer_h;	/* reconnect backoff */
	struct ev_handler connect_h;
	struct evloop *loop;
	int fd;
	bool socket;
	enum out_state state;
	bool closing;			/* flush_close: accept nothing more */
	bool teardown;			/* out__close: start nothing new */
	bool sending, polling, timing, connecting;
	int error;

	unsigned char *ring;		/* cap bytes */
	size_t cap;
	uint64_t rec_head;		/* see the top of the file */
	uint64_t head;
	uint64_t tail;

	/* Reconnection. */
	bool reconnect;
	int sndbuf;
	struct netaddr addrs[NETADDR_MAX];
	int naddrs, addr_next;
	unsigned int backoff_ms;
	struct __kernel_timespec backoff_ts;
	int (*replay)(void *ctx);
	void *replay_ctx;

	uint64_t gap_records;		/* dropped since the last notice */
	struct out_stats st;
};

/* ------------------------------------------------------------------ */
/* Queue                                                               */
/* ------------------------------------------------------------------ */

static uint64_t rec_words(uint64_t header)
{
	if ((header & 0xf) == 15)	/* large record: 32-bit size */
		return (header >> 4) & 0xffffffffu;
	return (header >> 4) & 0xfff;
}

static uint64_t ring_header(const struct out *o, uint64_t pos)
{
	uint64_t h;

	memcpy(&h, o->ring + pos % o->cap, sizeof(h));
	return h;
}

/* Retire the records that the bytes below head completed. */
static void out_retire(struct out *o)
{
	while (o->rec_head < o->head) {
		uint64_t end = o->rec_head + 8 * rec_words(ring_header(o,
							o->rec_head));

		if (end > o->head)
			break;
		o->rec_head = end;
		o->st.sent_records++;
		o->st.buffered_records--;
	}
	o->st.buffered_bytes = o->tail - o->head;
}

static void out_count_drop(struct out *o, unsigned int type, uint64_t bytes)
{
	o->st.dropped_records++;
	o->st.dropped_bytes += bytes;
	o->st.dropped_by_type[type & 0xf]++;
	o->gap_records++;
}

/*
 * Drop everything queued: the peer is gone and will never read it.  A
 * record cut by the failure is dropped too; only its unsent bytes count as
 * dropped bytes, the rest did leave.
 */
static void out_drop_queue(struct out *o)
{
	while (o->rec_head < o->tail) {
		uint64_t h = ring_header(o, o->rec_head);
		uint64_t end = o->rec_head + 8 * rec_words(h);
		uint64_t from = o->rec_head > o->head ? o->rec_head : o->head;

		out_count_drop(o, h & 0xf, end - from);
		o->st.buffered_records--;
		o->rec_head = end;
	}
	o->head = o->rec_head = o->tail;
	o->st.buffered_bytes = 0;
}

size_t out__capacity(const struct out *o)
{
	return o->cap;
}

size_t out__room(const struct out *o)
{
	/* From rec_head: retiring a record reads its header from the ring. */
	return o->cap - (size_t)(o->tail - o->rec_head);
}

int out__write(void *ctx, const void *rec, size_t len)
{
	struct out *o = ctx;
	uint64_t header = 0;
	size_t off, first;

	if (len >= 8)
		memcpy(&header, rec, 8);
	/*
	 * The queue is framed by the headers: they must tell the truth.  A
	 * record that lies is the encoder's error, not a drop: the caller
	 * counts it.
	 */
	if (len < 8 || len % 8 || rec_words(header) * 8 != len)
		return -EINVAL;
	o->st.committed_records++;
	o->st.committed_bytes += len;
	if (o->state != OUT_UP || o->closing)
		goto drop;
	if (len > out__room(o)) {
		/* A file waits for the disk instead of dropping. */
		if (o->socket || out__flush(o) || len > out__room(o))
			goto drop;
	}
	off = o->tail % o->cap;
	first = len < o->cap - off ? len : o->cap - off;
	memcpy(o->ring + off, rec, first);
	memcpy(o->ring, (const unsigned char *)rec + first, len - first);
	o->tail += len;
	o->st.buffered_records++;
	o->st.buffered_bytes = o->tail - o->head;

	if (!o->socket && o->tail - o->head >= OUT_FILE_CHUNK)
		out__flush(o);	/* a failure is sticky in o->error */
	return 0;

drop:
	out_count_drop(o, header & 0xf, len);
	return -ENOBUFS;
}

/* ------------------------------------------------------------------ */
/* Connection                                                          */
/* ------------------------------------------------------------------ */

static void out_finish_close(struct out *o)
{
	if (o->fd >= 0) {
		/* An orderly FIN: the peer sees the end of a whole stream. */
		if (o->socket)
			shutdown(o->fd, SHUT_WR);
		close(o->fd);
		o->fd = -1;
	}
	o->state = OUT_CLOSED;
}

static void out_arm_timer(struct out *o)
{
	struct io_uring_sqe *sqe = evloop__sqe(o->loop, &o->timer_h);

	if (!sqe) {
		o->state = OUT_GONE;
		return;
	}
	o->backoff_ts.tv_sec = o->backoff_ms / 1000;
	o->backoff_ts.tv_nsec = (long long)(o->backoff_ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &o->backoff_ts, 0, 0);
	o->timing = true;
	o->state = OUT_DOWN;
	if (o->backoff_ms < OUT_BACKOFF_MAX_MS / 2)
		o->backoff_ms *= 2;
	else
		o->backoff_ms = OUT_BACKOFF_MAX_MS;
}

static int out_new_socket(const struct out *o, const struct netaddr *a)
{
	int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (o->sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->sndbuf,
			   sizeof(o->sndbuf));
	return fd;
}

/* Connect asynchronously, trying the resolved addresses in turn. */
static void out_start_connect(struct out *o)
{
	const struct netaddr *a = &o->addrs[o->addr_next];
	struct io_uring_sqe *sqe;
	int fd = out_new_socket(o, a);

	if (fd < 0) {
		o->error = -fd;
		out_arm_timer(o);
		return;
	}
	sqe = evloop__sqe(o->loop, &o->connect_h);
	if (!sqe) {
		close(fd);
		o->error = EBUSY;
		out_arm_timer(o);
		return;
	}
	o->fd = fd;
	io_uring_prep_connect(sqe, fd, (const struct sockaddr *)&a->ss, a->len);
	o->connecting = true;
	o->state = OUT_CONNECTING;
}

/* The peer went away: stop sending, keep counting, maybe try again. */
static void out_peer_gone(struct out *o, int err)
{
	o->error = err;
	o->st.disconnects++;
	close(o->fd);
	o->fd = -1;
	out_drop_queue(o);
	if (o->closing)
		o->state = OUT_CLOSED;
	else if (o->reconnect)
		out_arm_timer(o);
	else
		o->state = OUT_GONE;
}

static void out_on_timer(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct out *o = (void *)((char *)h - offsetof(struct out, timer_h));

	(void)cqe;
	o->timing = false;
	if (o->state == OUT_DOWN && !o->closing)
		out_start_connect(o);
}

static void out_submit_send(struct out *o);

static void out_on_connect(struct ev_handler *h,
			   const struct io_uring_cqe *cqe)
{
	struct out *o = (void *)((char *)h - offsetof(struct out, connect_h));

	o->connecting = false;
	if (cqe->res < 0) {
		close(o->fd);
		o->fd = -1;
		o->error = -cqe->res;
		if (o->closing) {
			o->state = OUT_CLOSED;
			return;
		}
		o->addr_next = (o->addr_next + 1) % o->naddrs;
		out_arm_timer(o);
		return;
	}
	o->st.connects++;
	if (o->closing) {
		/* Nothing was accepted meanwhile: there is nothing to say. */
		out_finish_close(o);
		return;
	}
	o->state = OUT_UP;
	o->error = 0;
	o->backoff_ms = OUT_BACKOFF_MIN_MS;
	/* A fresh stream: its prologue and state go before anything else. */
	if (o->replay)
		o->replay(o->replay_ctx);
	out_submit_send(o);
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

static void out_submit_send(struct out *o)
{
	size_t off = o->head % o->cap, len = o->tail - o->head;
	struct io_uring_sqe *sqe;

	if (o->sending || o->polling || o->state != OUT_UP || o->teardown)
		return;
	if (!len) {
		if (o->closing)
			out_finish_close(o);
		return;
	}
	if (len > o->cap - off)
		len = o->cap - off;
	if (len > OUT_SEND_MAX)
		len = OUT_SEND_MAX;
	sqe = evloop__sqe(o->loop, &o->send_h);
	if (!sqe)
		return;		/* the SQ is full: the next flush retries */
	/*
	 * A blocking socket, so io_uring waits for room itself instead of
	 * failing with -EAGAIN; MSG_NOSIGNAL: a vanished peer is an error
	 * code, not SIGPIPE.
	 */
	io_uring_prep_send(sqe, o->fd, o->ring + off, len, MSG_NOSIGNAL);
	o->sending = true;
}

static void out_on_pollout(struct ev_handler *h,
			   const struct io_uring_cqe *cqe)
{
	struct out *o = (void *)((char *)h - offsetof(struct out, pollout_h));

	(void)cqe;
	o->polling = false;
	out_submit_send(o);	/* a POLLERR shows up as the send's error */
}

static void out_on_send(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct out *o = (void *)((char *)h - offsetof(struct out, send_h));
	struct io_uring_sqe *sqe;

	o->sending = false;
	if (cqe->res > 0) {
		/* A short send resumes at the exact next byte. */
		o->head += (uint64_t)cqe->res;
		o->st.sent_bytes += (uint64_t)cqe->res;
		out_retire(o);
	} else if (cqe->res == -EAGAIN) {
		/* E.g. SO_SNDTIMEO, or a socket made non-blocking: wait. */
		if (o->teardown)
			return;
		sqe = evloop__sqe(o->loop, &o->pollout_h);
		if (sqe) {
			io_uring_prep_poll_add(sqe, o->fd, POLLOUT);
			o->polling = true;
		}
		return;
	} else if (cqe->res == -ECANCELED) {
		return;		/* out__close() is tearing down */
	} else if (cqe->res != -EINTR) {
		out_peer_gone(o, cqe->res ? -cqe->res : EPIPE);
		return;
	}
	out_submit_send(o);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

static int out_alloc(struct out **op, struct evloop *loop, bool socket,
		     const struct out_opts *opts)
{
	struct out *o = calloc(1, sizeof(*o));
	size_t cap = OUT_FILE_CAP;

	if (!o)
		return -ENOMEM;
	if (socket) {
		cap = opts && opts->max_buffered ? opts->max_buffered :
						   OUT_DEFAULT_MAX_BUFFERED;
		o->reconnect = opts && opts->reconnect;
		o->sndbuf = opts ? opts->sndbuf : 0;
	}
	o->send_h.complete = out_on_send;
	o->pollout_h.complete = out_on_pollout;
	o->timer_h.complete = out_on_timer;
	o->connect_h.complete = out_on_connect;
	o->loop = loop;
	o->fd = -1;
	o->socket = socket;
	o->backoff_ms = OUT_BACKOFF_MIN_MS;
	o->cap = cap & ~(size_t)7;	/* records are multiples of 8 */
	if (o->cap < 4096) {
		free(o);
		return -EINVAL;
	}
	o->ring = mmap(NULL, o->cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (o->ring == MAP_FAILED) {
		free(o);
		return -ENOMEM;
	}
	/*
	 * Huge pages where the system allows: filling the queue then takes
	 * a fault per 2 MiB instead of per 4 KiB, which shows in the drain
	 * loop's latency while a peer stalls.  Only a hint.
	 */
	madvise(o->ring, o->cap, MADV_HUGEPAGE);
	*op = o;
	return 0;
}

static void out_free(struct out *o)
{
	munmap(o->ring, o->cap);
	free(o);
}

/* The first connection is made synchronously: nothing is draining yet. */
static int out_connect_now(struct out *o, char *err, size_t errlen)
{
	int i, fd, ret = -ECONNREFUSED;

	for (i = 0; i < o->naddrs; i++) {
		fd = out_new_socket(o, &o->addrs[i]);
		if (fd < 0) {
			ret = fd;
			continue;
		}
		if (!connect(fd, (const struct sockaddr *)&o->addrs[i].ss,
			     o->addrs[i].len)) {
			o->fd = fd;
			o->addr_next = i;
			o->st.connects++;
			return 0;
		}
		ret = -errno;
		close(fd);
	}
	snprintf(err, errlen, "cannot connect: %s", strerror(-ret));
	return ret;
}

static int out_open_file(const char *uri, char *err, size_t errlen)
{
	const char *path = uri;
	int fd;

	if (!strcmp(uri, "-")) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	if (!strncmp(uri, "file://", 7))
		path = uri + 7;
	else if (strstr(uri, "://")) {
		snprintf(err, errlen, "unknown URI scheme in '%s'", uri);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fd = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
	}
	return fd;
}

int out__open(struct out **op, const char *uri, struct evloop *loop,
	      const struct out_opts *opts, char *err, size_t errlen)
{
	bool socket = netaddr__is_socket_uri(uri);
	struct out *o;
	int ret;

	err[0] = '\0';
	ret = out_alloc(&o, loop, socket, opts);
	if (ret) {
		snprintf(err, errlen, "cannot set up the output queue");
		return ret;
	}
	if (!socket) {
		ret = out_open_file(uri, err, errlen);
		if (ret < 0)
			goto out_free;
		o->fd = ret;
		*op = o;
		return 0;
	}
	ret = netaddr__resolve(uri, false, o->addrs, NETADDR_MAX, err, errlen);
	if (ret < 0)
		goto out_free;
	o->naddrs = ret;
	ret = out_connect_now(o, err, errlen);
	if (ret) {
		if (!o->reconnect)
			goto out_free;
		/* Record anyway; the stream starts when the peer appears. */
		fprintf(stderr, "fxtprof: %s: %s; retrying in the background\n",
			uri, err);
		err[0] = '\0';
		o->error = -ret;
		out_arm_timer(o);
	}
	*op = o;
	return 0;

out_free:
	out_free(o);
	if (!err[0])
		snprintf(err, errlen, "%s: %s", uri, strerror(-ret));
	return ret;
}

int out__open_fd(struct out **op, int fd, struct evloop *loop,
		 const struct out_opts *opts)
{
	int flags = fcntl(fd, F_GETFL), ret;
	struct out *o;

	if (flags < 0)
		return -errno;
	/* Blocking, so that io_uring parks the send instead of -EAGAIN. */
	if ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK))
		return -errno;
	ret = out_alloc(&o, loop, true, opts);
	if (ret)
		return ret;
	o->reconnect = false;	/* no address to go back to */
	o->fd = fd;
	o->st.connects++;
	*op = o;
	return 0;
}

void out__set_replay(struct out *o, int (*replay)(void *ctx), void *ctx)
{
	o->replay = replay;
	o->replay_ctx = ctx;
}

/* ------------------------------------------------------------------ */
/* Flushing and closing                                                */
/* ------------------------------------------------------------------ */

static int out_write_file(struct out *o)
{
	while (o->head < o->tail) {
		size_t off = o->head % o->cap, len = o->tail - o->head;
		ssize_t n;

		if (len > o->cap - off)
			len = o->cap - off;
		n = write(o->fd, o->ring + off, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->error = errno;
			o->state = OUT_GONE;
			out_drop_queue(o);
			return -o->error;
		}
		o->head += (uint64_t)n;
		o->st.sent_bytes += (uint64_t)n;
		out_retire(o);
	}
	return 0;
}

int out__flush(struct out *o)
{
	if (!o->socket)
		return o->state == OUT_UP ? out_write_file(o) : -o->error;
	out_submit_send(o);
	return o->state == OUT_UP || o->state == OUT_CLOSED ? 0 : -o->error;
}

bool out__gap_pending(const struct out *o)
{
	return o->gap_records && o->state == OUT_UP && !o->closing &&
	       out__room(o) >= OUT_NOTICE_ROOM;
}

void out__gap_announced(struct out *o)
{
	o->gap_records = 0;
}

uint64_t out__gap_records(const struct out *o)
{
	return o->gap_records;
}

void out__flush_close(struct out *o)
{
	if (o->closing)
		return;
	o->closing = true;
	switch (o->state) {
	case OUT_UP:
		if (!o->socket) {
			out_write_file(o);
			out_finish_close(o);
		} else {
			out_submit_send(o);	/* closes once empty */
		}
		break;
	case OUT_CONNECTING:
		break;			/* the completion closes */
	default:
		/* Peer gone: nothing will be written any more. */
		out_drop_queue(o);
		if (!o->connecting)
			out_finish_close(o);
		break;
	}
}

bool out__done(const struct out *o)
{
	return o->state == OUT_CLOSED;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int out__linger(struct out *o, int64_t timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms, left;

	out__flush_close(o);
	while (!out__done(o)) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (evloop__run_once(o->loop, left < 100 ? (int)left : 100) < 0)
			return -EIO;
	}
	return 0;
}

bool out__drained(const struct out *o)
{
	return o->head == o->tail && !o->sending;
}

int out__error(const struct out *o)
{
	return o->state == OUT_UP ? 0 : o->error;
}

bool out__is_socket(const struct out *o)
{
	return o->socket;
}

const struct out_stats *out__stats(const struct out *o)
{
	return &o->st;
}

static void out_cancel(struct out *o, struct ev_handler *h)
{
	struct io_uring_sqe *sqe = evloop__sqe(o->loop, NULL);

	if (sqe)
		io_uring_prep_cancel(sqe, h, 0);
}

void out__close(struct out *o)
{
	if (!o)
		return;
	o->closing = o->teardown = true;
	/* The kernel still points into the ring or at the timespec. */
	if (o->sending)
		out_cancel(o, &o->send_h);
	if (o->polling)
		out_cancel(o, &o->pollout_h);
	if (o->timing)
		out_cancel(o, &o->timer_h);
	if (o->connecting)
		out_cancel(o, &o->connect_h);
	while ((o->sending || o->polling || o->timing || o->connecting) &&
	       evloop__run_once(o->loop, 1000) >= 0)
		;
	/* A cancelled send may still have moved bytes: they are counted. */
	out_drop_queue(o);
	if (o->fd >= 0)
		close(o->fd);
	out_free(o);
}
