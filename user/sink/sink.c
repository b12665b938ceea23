// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink.c - the core of every sink (see sink.h and sink_core.h): the
 * interface, which calls the back end through its ops; the accounting
 * behind committed = sent + buffered + dropped and the settlement of each
 * stream; the record queue the file and socket sinks share; the segment
 * and gap flags; lingering and closing.  It names no back end: they are
 * chosen in sink_open.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sink_core.h"

/* ------------------------------------------------------------------ */
/* Accounting                                                          */
/* ------------------------------------------------------------------ */

static void sink_count_drop(struct sink *s, unsigned int kind, uint64_t bytes)
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
	sink_stream_start(s);
}

void sink_stream_start(struct sink *s)
{
	s->stream_records = s->st.sent_records;
	s->stream_bytes = s->st.sent_bytes;
}

/* ------------------------------------------------------------------ */
/* Records in                                                          */
/* ------------------------------------------------------------------ */

void *sink_queue_reserve(struct sink *s, size_t len, unsigned int kind)
{
	if (!sink_accepting(s))
		return NULL;
	return record_queue__reserve(&s->q, len, kind);
}

void sink_queue_commit(struct sink *s, size_t sent)
{
	record_queue__commit(&s->q);
	s->st.buffered_records++;
	if (sent)
		sink_sent(s, sent);
	s->st.buffered_bytes = record_queue__unsent(&s->q);
}

void *sink__reserve(struct sink *s, size_t len, unsigned int kind)
{
	void *p;

	s->st.committed_records++;
	s->st.committed_bytes += len;
	p = s->ops->reserve(s, len, kind);
	if (!p)
		sink_count_drop(s, kind, len);
	return p;
}

void sink__commit(struct sink *s)
{
	s->ops->commit(s);
}

int sink__write(struct sink *s, const void *rec, size_t len,
		unsigned int kind)
{
	void *p;

	if (!len || len % 8)
		return -EINVAL;
	if (s->ops->write)
		return s->ops->write(s, rec, len, kind);
	p = sink__reserve(s, len, kind);
	if (!p)
		return -ENOBUFS;
	memcpy(p, rec, len);
	sink__commit(s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setting up                                                          */
/* ------------------------------------------------------------------ */

int sink_alloc(struct sink **sp, const struct sink_ops *ops,
	       struct evloop *loop, const struct sink_opts *opts)
{
	size_t cap = ops->queue_cap ? ops->queue_cap(opts) : SINK_FILE_CAP;
	struct sink *s = calloc(1, ops->size);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = record_queue__init(&s->q, cap);
	if (ret) {
		free(s);
		return ret;
	}
	s->ops = ops;
	s->loop = loop;
	s->state = SINK_UP;
	s->segment_wanted = true;
	if (ops->init)
		ops->init(s, opts);
	*sp = s;
	return 0;
}

void sink_free(struct sink *s)
{
	if (s->ops->release)
		s->ops->release(s);
	record_queue__fini(&s->q);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Flushing, segments, notices                                         */
/* ------------------------------------------------------------------ */

int sink__flush(struct sink *s)
{
	return s->ops->flush(s);
}

bool sink__segment_wanted(const struct sink *s)
{
	if (s->ops->segment_wanted)
		return s->ops->segment_wanted(s);
	return s->segment_wanted && sink_accepting(s);
}

void sink__memory(const struct sink *s, struct sink_memory *m)
{
	record_queue__memory(&s->q, &m->held, &m->resident);
	if (s->ops->memory)
		s->ops->memory(s, m);
}

bool sink__takes_references(const struct sink *s)
{
	return !s->ops->by_record;
}

void sink__segment_begun(struct sink *s)
{
	s->segment_wanted = false;
	if (s->ops->segment_begun)
		s->ops->segment_begun(s);
}

bool sink__gap_pending(const struct sink *s)
{
	return s->gap_records && sink_accepting(s) &&
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
	s->ops->flush_close(s);
}

bool sink__done(const struct sink *s)
{
	return s->state == SINK_CLOSED;
}

int64_t sink_now_ms(void)
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
	if (s->ops->give_up)
		s->ops->give_up(s);
	sink_drop_queue(s);
	s->state = SINK_CLOSED;
}

int sink__linger(struct sink *s, int64_t timeout_ms)
{
	int64_t deadline = sink_now_ms() + timeout_ms, left;
	int ret = 0;

	sink__flush_close(s);
	while (!sink__done(s)) {
		left = deadline - sink_now_ms();
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

int sink__error(const struct sink *s)
{
	return s->state == SINK_UP || s->state == SINK_CONFIRMING ? 0 : s->error;
}

bool sink__complete(const struct sink *s)
{
	const struct sink_stats *st = &s->st;

	if (s->ops->complete)
		return s->ops->complete(s);
	return s->state == SINK_CLOSED && !s->error && !st->dropped_records &&
	       !st->unconfirmed_records && !st->unconfirmed_bytes &&
	       !st->buffered_records &&
	       st->delivered_records == st->committed_records;
}

bool sink__is_socket(const struct sink *s)
{
	return s->ops->socket;
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
	 * The kernel may still point into the queue or at a timespec; a
	 * cancelled send may still have moved bytes, which are counted.  A
	 * stream never flushed and closed is settled with what the peer's
	 * kernel has: all that can be said of it.
	 */
	sink_give_up(s);
	sink_free(s);
}
