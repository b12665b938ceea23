// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_archive.c - the archive sink: records go into the current chunk of
 * an archive writer (user/archive/archive.h) instead of the queue, in
 * place, as the encoder fills its reservation.
 *
 * Chunks are segments.  When the chunk reaches a limit the sink says it
 * wants a segment (sink__segment_wanted()); the state, before its next
 * record, calls sink__segment_begun(), and that is where the chunk is cut:
 * the new chunk starts with the prologue and the replay of names,
 * mappings and kernel symbols, and decodes alone.  A live archive also
 * writes the partial chunk when it is older than the flush time, on an
 * io_uring timeout (or at sink__flush() without a loop), between two of
 * the state's calls; what follows is a new segment, or, when the chunk
 * held too few events to be worth a replay, a continuation of it.
 *
 * Accounting: records in the chunk are buffered; written chunks are sent;
 * at close the file is synced and the sent records are delivered.  A
 * chunk whose write failed is dropped whole (the writer truncated it
 * away), so committed = sent + buffered + dropped holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sink_internal.h"

#define SINK_OF(h, member) \
	((struct sink *)((char *)(h) - offsetof(struct sink, member)))

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool sink__is_archive_uri(const char *uri)
{
	size_t n = strlen(uri);

	return n > 5 && !strcmp(uri + n - 5, ".fxtz") &&
	       (!strstr(uri, "://") || !strncmp(uri, "file://", 7));
}

/* The writer's counts into the sink's: sent, dropped, buffered. */
static void sync_stats(struct sink *s)
{
	struct archive_writer_stats ws;
	struct sink_stats *st = &s->st;
	uint64_t lost;

	archive_writer__stats(s->arch, &ws);
	st->sent_records = ws.records_written;
	st->sent_bytes = ws.bytes_written;
	lost = ws.records_lost - s->arch_lost_records;
	if (lost) {
		/* Kinds unknown: the chunk is counted as a whole. */
		st->dropped_records += lost;
		st->dropped_bytes += ws.bytes_lost - s->arch_lost_bytes;
		s->gap_records += lost;
		s->arch_lost_records = ws.records_lost;
		s->arch_lost_bytes = ws.bytes_lost;
	}
	if (ws.error && !s->error) {
		s->error = -ws.error;
		s->state = SINK_GONE;
	}
	st->buffered_records = st->committed_records - st->sent_records -
			       st->dropped_records;
	st->buffered_bytes = st->committed_bytes - st->sent_bytes -
			     st->dropped_bytes;
}

static void cut(struct sink *s, unsigned int flags)
{
	archive_writer__cut(s->arch, flags);
	s->arch_cut_ms = mono_ms();
	sync_stats(s);
}

static bool flush_due(const struct sink *s)
{
	return s->st.buffered_records &&
	       mono_ms() - s->arch_cut_ms >= (int64_t)s->arch_flush_ms;
}

/*
 * Live: the partial chunk goes out.  What follows is a new segment if the
 * chunk was worth its replay, else it continues the chunk: a trickle of
 * records must not cost a replay every flush.
 */
static void live_flush(struct sink *s)
{
	if (s->state != SINK_UP || s->closing || !flush_due(s))
		return;
	if (archive_writer__flush(s->arch) == 1)
		s->segment_wanted = true;
	s->arch_cut_ms = mono_ms();
	sync_stats(s);
}

static void arm_timer(struct sink *s)
{
	struct io_uring_sqe *sqe;

	if (!s->loop || s->closing || s->arch_timing)
		return;
	sqe = evloop__sqe(s->loop, &s->arch_timer_h);
	if (!sqe)
		return;		/* sink__flush() still flushes */
	s->arch_ts.tv_sec = s->arch_flush_ms / 1000;
	s->arch_ts.tv_nsec = (long long)(s->arch_flush_ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &s->arch_ts, 0, 0);
	s->arch_timing = true;
}

static void on_timer(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink *s = SINK_OF(h, arch_timer_h);

	s->arch_timing = false;
	if (cqe->res == -ECANCELED || s->teardown || s->closing)
		return;
	live_flush(s);
	arm_timer(s);
}

int sink_archive_start(struct sink *s, const struct sink_opts *opts)
{
	int ret;

	s->arch_live = opts->archive_opts.live;
	s->arch_flush_ms = opts->archive_flush_ms ? opts->archive_flush_ms :
						    ARCHIVE_DEFAULT_FLUSH_MS;
	s->arch_timer_h.complete = on_timer;
	ret = archive_writer__open(&s->arch, s->fd, &opts->archive_opts);
	if (ret)
		return ret;
	s->arch_cut_ms = mono_ms();
	if (s->arch_live)
		arm_timer(s);
	return 0;
}

int sink_archive_open(struct sink *s, const char *uri,
		      const struct sink_opts *opts, char *err, size_t errlen)
{
	int ret = sink_file_open(uri, s->file_mode, err, errlen);

	if (ret < 0)
		return ret;
	s->fd = ret;
	ret = sink_archive_start(s, opts);
	if (ret)
		snprintf(err, errlen, "%s: cannot start the archive: %s", uri,
			 strerror(-ret));
	return ret;
}

void *sink_archive_reserve(struct sink *s, size_t len, unsigned int kind)
{
	s->arch_kind = kind;
	return archive_writer__reserve(s->arch, len);
}

void sink_archive_commit(struct sink *s)
{
	archive_writer__commit(s->arch, s->arch_kind);
	sync_stats(s);
}

int sink_archive_flush(struct sink *s)
{
	if (s->arch_live)
		live_flush(s);
	return sink__error(s) ? -sink__error(s) : 0;
}

bool sink_archive_cut_wanted(const struct sink *s)
{
	return archive_writer__cut_wanted(s->arch);
}

void sink_archive_segment_begun(struct sink *s)
{
	cut(s, 0);
}

static void cancel_timer(struct sink *s)
{
	struct io_uring_sqe *sqe;

	if (!s->arch_timing)
		return;
	sqe = evloop__sqe(s->loop, NULL);
	if (sqe)
		io_uring_prep_cancel(sqe, &s->arch_timer_h, 0);
	/* The timeout's completion must come before the sink goes. */
	while (s->arch_timing && evloop__run_once(s->loop, 1000) >= 0)
		;
}

void sink_archive_flush_close(struct sink *s)
{
	cancel_timer(s);
	/* The drops before the end are the archive's to tell. */
	archive_writer__count_dropped(s->arch, s->st.dropped_records,
				      s->st.dropped_bytes);
	archive_writer__finish(s->arch);
	sync_stats(s);
	if (s->state == SINK_UP)
		sink_file_finish(s);
	else
		sink_finish_close(s);
}

void sink_archive_give_up(struct sink *s)
{
	struct sink_stats *st = &s->st;

	s->teardown = true;
	cancel_timer(s);
	/* The unwritten chunk: dropped, its kinds unknown. */
	st->dropped_records += st->buffered_records;
	st->dropped_bytes += st->buffered_bytes;
	st->buffered_records = st->buffered_bytes = 0;
	archive_writer__free(s->arch);
	s->arch = NULL;
}
