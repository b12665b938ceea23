// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink.c - see sink.h: the interface both sinks share, the accounting
 * behind committed = sent + buffered + dropped, and closing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sink_internal.h"

/* Files: write once this much is queued; the cap bounds the queue. */
#define SINK_FILE_CHUNK		(1u << 20)
#define SINK_FILE_CAP		(8u << 20)

/* ------------------------------------------------------------------ */
/* Accounting                                                          */
/* ------------------------------------------------------------------ */

void sink_count_drop(struct sink *s, unsigned int kind, uint64_t bytes)
{
	s->st.dropped_records++;
	s->st.dropped_bytes += bytes;
	s->st.dropped_by_type[kind & 0xf]++;
	s->gap_records++;
}

void sink_sent(struct sink *s, size_t n)
{
	uint64_t done = record_queue__consume(&s->q, n);

	s->st.sent_bytes += n;
	s->st.sent_records += done;
	s->st.buffered_records -= done;
	s->st.buffered_bytes = record_queue__unsent(&s->q);
}

/*
 * A record cut by the failure is dropped too; only its unsent bytes count
 * as dropped bytes, the rest did leave.
 */
void sink_drop_queue(struct sink *s)
{
	unsigned int kind;
	size_t len, unsent;

	while (record_queue__pop(&s->q, &len, &kind, &unsent)) {
		sink_count_drop(s, kind, unsent);
		s->st.buffered_records--;
	}
	s->st.buffered_bytes = 0;
}

void sink_settle(struct sink *s, uint64_t records, uint64_t bytes)
{
	uint64_t sent_records = s->st.sent_records - s->stream_records;
	uint64_t sent_bytes = s->st.sent_bytes - s->stream_bytes;

	if (records > sent_records)
		records = sent_records;
	if (bytes > sent_bytes)
		bytes = sent_bytes;
	s->st.delivered_records += records;
	s->st.delivered_bytes += bytes;
	s->st.unconfirmed_records += sent_records - records;
	s->st.unconfirmed_bytes += sent_bytes - bytes;
	s->stream_records = s->st.sent_records;
	s->stream_bytes = s->st.sent_bytes;
}

void sink_finish_close(struct sink *s)
{
	if (s->fd < 0) {
		s->state = SINK_CLOSED;
		return;
	}
	if (s->socket)
		sink_socket_confirm(s);		/* CLOSED once it answers */
	else
		sink_file_finish(s);
}

/* ------------------------------------------------------------------ */
/* Records in                                                          */
/* ------------------------------------------------------------------ */

void *sink__reserve(struct sink *s, size_t len, unsigned int kind)
{
	void *p = NULL;

	s->st.committed_records++;
	s->st.committed_bytes += len;
	if (s->win) {
		p = flight_window__reserve(s->win, len, kind);
		if (!p)
			goto drop;
		return p;
	}
	if (s->state != SINK_UP || s->closing)
		goto drop;
	if (s->arch) {
		p = sink_archive_reserve(s, len, kind);
		if (!p)
			goto drop;
		return p;
	}
	p = record_queue__reserve(&s->q, len, kind);
	/* A file waits for the disk instead of dropping. */
	if (!p && !s->socket && !sink_file_write_out(s))
		p = record_queue__reserve(&s->q, len, kind);
	if (p)
		return p;
drop:
	sink_count_drop(s, kind, len);
	return NULL;
}

/* The record reserved last is queued, its first @sent bytes gone already. */
static void sink_queued(struct sink *s, size_t sent)
{
	record_queue__commit(&s->q);
	s->st.buffered_records++;
	if (sent)
		sink_sent(s, sent);
	s->st.buffered_bytes = record_queue__unsent(&s->q);
	if (s->socket)
		sink_socket_committed(s);
	else if (record_queue__unsent(&s->q) >= SINK_FILE_CHUNK)
		sink_file_write_out(s);	/* a failure is sticky in s->error */
}

void sink__commit(struct sink *s)
{
	if (s->win)
		flight_window__commit(s->win);
	else if (s->arch)
		sink_archive_commit(s);
	else
		sink_queued(s, 0);
}

int sink__write(struct sink *s, const void *rec, size_t len,
		unsigned int kind)
{
	size_t sent = 0;
	unsigned char *p;

	if (!len || len % 8)
		return -EINVAL;
	if (s->win || s->arch) {
		p = sink__reserve(s, len, kind);
		if (!p)
			return -ENOBUFS;
		memcpy(p, rec, len);
		sink__commit(s);
		return 0;
	}
	/*
	 * Nothing queued: send straight from the caller's memory, and copy
	 * only what the socket did not take.  The queue then holds the
	 * record from its first unsent byte on.
	 */
	if (!record_queue__unsent(&s->q) && s->state == SINK_UP &&
	    !s->closing && record_queue__fits(&s->q, len))
		sent = sink_socket_send_first(s, rec, len);
	p = sink__reserve(s, len, kind);
	if (!p)
		return -ENOBUFS;
	/* The sent bytes' room is never sent again: they count as gone. */
	memcpy(p + sent, (const unsigned char *)rec + sent, len - sent);
	sink_queued(s, sent);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

static int sink_alloc(struct sink **sp, struct evloop *loop, bool socket,
		      const struct sink_opts *opts)
{
	struct sink *s = calloc(1, sizeof(*s));
	size_t cap = SINK_FILE_CAP;
	int ret;

	if (!s)
		return -ENOMEM;
	if (socket) {
		cap = opts && opts->max_buffered ? opts->max_buffered :
						   SINK_DEFAULT_MAX_BUFFERED;
		s->reconnect = opts && opts->reconnect;
		s->sndbuf = opts ? opts->sndbuf : 0;
		s->send_mode = opts ? opts->send_mode : SINK_SEND_URING;
	}
	s->file_mode = opts && opts->file_mode ? opts->file_mode :
						SINK_DEFAULT_FILE_MODE;
	s->loop = loop;
	s->fd = -1;
	s->socket = socket;
	/* The first stream starts at open: it wants its prologue. */
	s->segment_wanted = true;
	sink_socket_init(s);
	ret = record_queue__init(&s->q, cap);
	if (ret) {
		free(s);
		return ret;
	}
	*sp = s;
	return 0;
}

static void sink_free(struct sink *s)
{
	archive_writer__free(s->arch);
	record_queue__fini(&s->q);
	flight_window__free(s->win);
	free(s);
}

int sink__open_window(struct sink **sp, const struct flight_window_opts *o)
{
	struct sink *s;
	int ret;

	/* A socket-less sink whose queue only ever sizes the gap notice. */
	ret = sink_alloc(&s, NULL, false, NULL);
	if (ret)
		return ret;
	ret = flight_window__new(&s->win, o);
	if (ret) {
		sink_free(s);
		return ret;
	}
	*sp = s;
	return 0;
}

struct flight_window *sink__window(struct sink *s)
{
	return s->win;
}

int sink__open(struct sink **sp, const char *uri, struct evloop *loop,
	       const struct sink_opts *opts, char *err, size_t errlen)
{
	bool socket = netaddr__is_socket_uri(uri);
	bool archive = !socket && ((opts && opts->archive) ||
				   sink__is_archive_uri(uri));
	struct sink *s;
	int ret;

	err[0] = '\0';
	ret = sink_alloc(&s, loop, socket, opts);
	if (ret) {
		snprintf(err, errlen, "cannot set up the output queue");
		return ret;
	}
	if (archive) {
		struct sink_opts o = { 0 };

		ret = sink_archive_open(s, uri, opts ? opts : &o, err, errlen);
		if (ret < 0)
			goto out_free;
		*sp = s;
		return 0;
	}
	ret = socket ? sink_socket_open(s, uri, err, errlen) :
		       sink_file_open(uri, s->file_mode, err, errlen);
	if (ret < 0)
		goto out_free;
	if (!socket)
		s->fd = ret;
	*sp = s;
	return 0;

out_free:
	if (s->fd >= 0)
		close(s->fd);
	sink_free(s);
	if (!err[0])
		snprintf(err, errlen, "%s: %s", uri, strerror(-ret));
	return ret;
}

int sink__open_archive_fd(struct sink **sp, int fd, struct evloop *loop,
			  const struct sink_opts *opts)
{
	struct sink_opts o = { 0 };
	struct sink *s;
	int ret;

	ret = sink_alloc(&s, loop, false, opts);
	if (ret)
		return ret;
	s->fd = fd;
	ret = sink_archive_start(s, opts ? opts : &o);
	if (ret) {
		s->fd = -1;	/* still the caller's */
		sink_free(s);
		return ret;
	}
	*sp = s;
	return 0;
}

int sink__open_fd(struct sink **sp, int fd, struct evloop *loop,
		  const struct sink_opts *opts)
{
	int flags = fcntl(fd, F_GETFL), ret;
	struct sink *s;

	if (flags < 0)
		return -errno;
	/*
	 * Blocking: direct sends pass MSG_DONTWAIT themselves, and an
	 * io_uring send then parks in the kernel instead of -EAGAIN.
	 */
	if ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK))
		return -errno;
	ret = sink_alloc(&s, loop, true, opts);
	if (ret)
		return ret;
	s->reconnect = false;	/* no address to go back to */
	s->fd = fd;
	s->st.connects++;
	*sp = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Flushing, segments, notices                                         */
/* ------------------------------------------------------------------ */

int sink__flush(struct sink *s)
{
	if (s->win)
		return 0;
	if (s->arch)
		return sink_archive_flush(s);
	if (!s->socket)
		return s->state == SINK_UP ? sink_file_write_out(s) : -s->error;
	sink_socket_flush(s);
	return s->state == SINK_UP || s->state == SINK_CONFIRMING ||
	       s->state == SINK_CLOSED ? 0 : -s->error;
}

bool sink__segment_wanted(const struct sink *s)
{
	if (s->win)
		return !s->closing && flight_window__segment_wanted(s->win);
	/* An archive: also when its chunk is full, to cut it there. */
	if (s->arch && sink_archive_cut_wanted(s))
		return s->state == SINK_UP && !s->closing;
	return s->segment_wanted && s->state == SINK_UP && !s->closing;
}

void sink__segment_begun(struct sink *s)
{
	s->segment_wanted = false;
	if (s->win)
		flight_window__segment_begun(s->win);
	else if (s->arch)
		sink_archive_segment_begun(s);
}

bool sink__gap_pending(const struct sink *s)
{
	return s->gap_records && s->state == SINK_UP && !s->closing &&
	       record_queue__fits(&s->q, SINK_NOTICE_ROOM);
}

void sink__gap_announced(struct sink *s)
{
	s->gap_records = 0;
}

uint64_t sink__gap_records(const struct sink *s)
{
	return s->gap_records;
}

/* ------------------------------------------------------------------ */
/* Closing                                                             */
/* ------------------------------------------------------------------ */

void sink__flush_close(struct sink *s)
{
	if (s->closing)
		return;
	s->closing = true;
	if (s->win) {
		flight_window__close(s->win);
		s->state = SINK_CLOSED;
		return;
	}
	if (s->arch) {
		sink_archive_flush_close(s);
		return;
	}
	switch (s->state) {
	case SINK_UP:
		if (!s->socket) {
			sink_file_write_out(s);
			sink_finish_close(s);
		} else {
			sink_socket_flush_close(s);	/* closes once empty */
		}
		break;
	case SINK_CONNECTING:
		break;			/* the completion closes */
	default:
		/* Peer gone: nothing will be written any more. */
		sink_drop_queue(s);
		if (!s->connecting)
			sink_finish_close(s);
		break;
	}
}

bool sink__done(const struct sink *s)
{
	return s->state == SINK_CLOSED;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Stop waiting: cancel what is in flight, drop what is queued, and settle
 * the stream with what can be known now.  The sink is CLOSED, its
 * statistics final.
 */
static void sink_give_up(struct sink *s)
{
	s->teardown = true;
	if (s->socket)
		sink_socket_cancel_all(s);
	if (s->arch)
		sink_archive_give_up(s);
	sink_drop_queue(s);
	if (s->fd >= 0) {
		if (s->socket)
			sink_socket_settle_outq(s);
		else
			sink_settle(s, 0, 0);
		close(s->fd);
		s->fd = -1;
	}
	s->state = SINK_CLOSED;
}

int sink__linger(struct sink *s, int64_t timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms, left;
	int ret = 0;

	sink__flush_close(s);
	while (!sink__done(s)) {
		left = deadline - now_ms();
		if (left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		if (evloop__run_once(s->loop, left < 100 ? (int)left : 100) < 0) {
			ret = -EIO;
			break;
		}
	}
	if (ret)
		sink_give_up(s);
	return ret;
}

bool sink__drained(const struct sink *s)
{
	if (s->arch)
		return !s->st.buffered_records;
	return !record_queue__unsent(&s->q) && !s->sending;
}

int sink__error(const struct sink *s)
{
	return s->state == SINK_UP || s->state == SINK_CONFIRMING ? 0 : s->error;
}

bool sink__complete(const struct sink *s)
{
	const struct sink_stats *st = &s->st;

	if (s->win)
		return s->state == SINK_CLOSED && !st->dropped_records;
	return s->state == SINK_CLOSED && !s->error && !st->dropped_records &&
	       !st->unconfirmed_records && !st->unconfirmed_bytes &&
	       !st->buffered_records &&
	       st->delivered_records == st->committed_records;
}

bool sink__is_socket(const struct sink *s)
{
	return s->socket;
}

size_t sink__capacity(const struct sink *s)
{
	return s->q.cap;
}

bool sink__fits(const struct sink *s, size_t len)
{
	return record_queue__fits(&s->q, len);
}

const struct sink_stats *sink__stats(const struct sink *s)
{
	return &s->st;
}

void sink__close(struct sink *s)
{
	if (!s)
		return;
	s->closing = true;
	/*
	 * The kernel may still point into the queue or at the timespec; a
	 * cancelled send may still have moved bytes, which are counted.  A
	 * stream never flushed and closed is settled with what the peer's
	 * kernel has: all that can be said of it.
	 */
	sink_give_up(s);
	sink_free(s);
}
