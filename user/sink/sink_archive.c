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
 * away), so committed = sent + buffered + dropped holds.  The file is
 * created and ended by sink_fileio.c, as the file sink's is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sink_backends.h"
#include "sink_fileio.h"

struct sink_archive {
	struct sink s;			/* first: see sink_alloc() */
	int fd;
	struct archive_writer *arch;
	unsigned int kind;		/* of the reservation in progress */
	bool live, timing;
	unsigned int flush_ms;
	int64_t cut_ms;			/* CLOCK_MONOTONIC of the last cut */
	uint64_t lost_records;		/* lost chunks already counted */
	uint64_t lost_bytes;
	struct ev_handler timer_h;	/* live: the flush timer */
	struct __kernel_timespec ts;
};

static struct sink_archive *sink_archive(struct sink *s)
{
	return sink_container_of(s, struct sink_archive, s);
}

bool sink__is_archive_uri(const char *uri)
{
	size_t n = strlen(uri);

	return n > 5 && !strcmp(uri + n - 5, ".fxtz") &&
	       (!strstr(uri, "://") || !strncmp(uri, "file://", 7));
}

/* The writer's counts into the sink's: sent, dropped, buffered. */
static void sync_stats(struct sink_archive *a)
{
	struct archive_writer_stats ws;
	struct sink *s = &a->s;
	struct sink_stats *st = &s->st;
	uint64_t lost;

	archive_writer__stats(a->arch, &ws);
	st->sent_records = ws.records_written;
	st->sent_bytes = ws.bytes_written;
	lost = ws.records_lost - a->lost_records;
	if (lost) {
		/* Kinds unknown: the chunk is counted as a whole. */
		st->dropped_records += lost;
		st->dropped_bytes += ws.bytes_lost - a->lost_bytes;
		s->gap_records += lost;
		a->lost_records = ws.records_lost;
		a->lost_bytes = ws.bytes_lost;
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

static bool flush_due(const struct sink_archive *a)
{
	return a->s.st.buffered_records &&
	       sink_now_ms() - a->cut_ms >= (int64_t)a->flush_ms;
}

/*
 * Live: the partial chunk goes out.  What follows is a new segment if the
 * chunk was worth its replay, else it continues the chunk: a trickle of
 * records must not cost a replay every flush.
 */
static void live_flush(struct sink_archive *a)
{
	if (!sink_accepting(&a->s) || !flush_due(a))
		return;
	if (archive_writer__flush(a->arch) == 1)
		a->s.segment_wanted = true;
	a->cut_ms = sink_now_ms();
	sync_stats(a);
}

static void arm_timer(struct sink_archive *a)
{
	struct io_uring_sqe *sqe;

	if (!a->s.loop || a->s.closing || a->timing)
		return;
	sqe = evloop__sqe(a->s.loop, &a->timer_h);
	if (!sqe)
		return;		/* sink__flush() still flushes */
	a->ts.tv_sec = a->flush_ms / 1000;
	a->ts.tv_nsec = (long long)(a->flush_ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &a->ts, 0, 0);
	a->timing = true;
}

static void on_timer(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct sink_archive *a = sink_container_of(h, struct sink_archive,
						   timer_h);

	a->timing = false;
	if (cqe->res == -ECANCELED || a->s.teardown || a->s.closing)
		return;
	live_flush(a);
	arm_timer(a);
}

static void cancel_timer(struct sink_archive *a)
{
	struct io_uring_sqe *sqe;

	if (!a->timing)
		return;
	sqe = evloop__sqe(a->s.loop, NULL);
	if (sqe)
		io_uring_prep_cancel(sqe, &a->timer_h, 0);
	/* The timeout's completion must come before the sink goes. */
	while (a->timing && evloop__run_once(a->s.loop, 1000) >= 0)
		;
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

static void sink_archive_init(struct sink *s, const struct sink_opts *opts)
{
	struct sink_archive *a = sink_archive(s);

	(void)opts;		/* taken when it starts */
	a->fd = -1;
	a->timer_h.complete = on_timer;
}

static void sink_archive_release(struct sink *s)
{
	archive_writer__free(sink_archive(s)->arch);
}

/* Start the archive on @fd; 0 or -errno (the fd is then still ours). */
static int sink_archive_start(struct sink_archive *a, int fd,
			      const struct sink_opts *opts)
{
	int ret;

	a->live = opts->archive_opts.live;
	a->flush_ms = opts->archive_flush_ms ? opts->archive_flush_ms :
					       ARCHIVE_DEFAULT_FLUSH_MS;
	ret = archive_writer__open(&a->arch, fd, &opts->archive_opts);
	if (ret)
		return ret;
	a->fd = fd;
	a->cut_ms = sink_now_ms();
	if (a->live)
		arm_timer(a);
	return 0;
}

static int sink_archive_open(struct sink *s, const char *uri,
			     const struct sink_opts *opts, char *err,
			     size_t errlen)
{
	int fd = sink_fileio_create(uri, opts, err, errlen), ret;

	if (fd < 0)
		return fd;
	ret = sink_archive_start(sink_archive(s), fd, opts);
	if (ret) {
		close(fd);
		snprintf(err, errlen, "%s: cannot start the archive: %s", uri,
			 strerror(-ret));
	}
	return ret;
}

int sink__open_archive_fd(struct sink **sp, int fd, struct evloop *loop,
			  const struct sink_opts *opts)
{
	static const struct sink_opts defaults;
	struct sink *s;
	int ret;

	if (!opts)
		opts = &defaults;
	ret = sink_alloc(&s, &sink_archive_ops, loop, opts);
	if (ret)
		return ret;
	ret = sink_archive_start(sink_archive(s), fd, opts);
	if (ret) {
		sink_free(s);	/* the fd is still the caller's */
		return ret;
	}
	*sp = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The operations                                                      */
/* ------------------------------------------------------------------ */

static void *sink_archive_reserve(struct sink *s, size_t len,
				  unsigned int kind)
{
	struct sink_archive *a = sink_archive(s);

	if (!sink_accepting(s))
		return NULL;
	a->kind = kind;
	return archive_writer__reserve(a->arch, len);
}

static void sink_archive_commit(struct sink *s)
{
	struct sink_archive *a = sink_archive(s);

	archive_writer__commit(a->arch, a->kind);
	sync_stats(a);
}

/* Live: write the partial chunk if it is older than the flush time. */
static int sink_archive_flush(struct sink *s)
{
	if (sink_archive(s)->live)
		live_flush(sink_archive(s));
	return -sink__error(s);
}

/* Also when the chunk is full, to cut it there. */
static bool sink_archive_segment_wanted(const struct sink *s)
{
	const struct sink_archive *a =
		sink_container_of(s, const struct sink_archive, s);

	return (s->segment_wanted || archive_writer__cut_wanted(a->arch)) &&
	       sink_accepting(s);
}

static void sink_archive_segment_begun(struct sink *s)
{
	struct sink_archive *a = sink_archive(s);

	archive_writer__cut(a->arch, 0);
	a->cut_ms = sink_now_ms();
	sync_stats(a);
}

/* Finish the archive (trailer, footer), sync and close the file. */
static void sink_archive_flush_close(struct sink *s)
{
	struct sink_archive *a = sink_archive(s);

	cancel_timer(a);
	/* The drops before the end are the archive's to tell. */
	archive_writer__count_dropped(a->arch, s->st.dropped_records,
				      s->st.dropped_bytes);
	archive_writer__finish(a->arch);
	sync_stats(a);
	sink_fileio_finish(s, &a->fd);
}

/* Stop the timer; what the chunk holds is dropped and counted. */
static void sink_archive_give_up(struct sink *s)
{
	struct sink_archive *a = sink_archive(s);
	struct sink_stats *st = &s->st;

	cancel_timer(a);
	/* The unwritten chunk: dropped, its kinds unknown. */
	st->dropped_records += st->buffered_records;
	st->dropped_bytes += st->buffered_bytes;
	st->buffered_records = st->buffered_bytes = 0;
	archive_writer__free(a->arch);
	a->arch = NULL;
	sink_fileio_abandon(s, &a->fd);
}

/* The chunk buffers: the chunk's records fill them as they come. */
static void sink_archive_memory(const struct sink *s, struct sink_memory *m)
{
	size_t n = archive_writer__bytes(sink_archive((struct sink *)s)->arch);

	m->held += n;
	m->resident += n;
}

const struct sink_ops sink_archive_ops = {
	.by_record	= true,
	.size		= sizeof(struct sink_archive),
	.init		= sink_archive_init,
	.open		= sink_archive_open,
	.reserve	= sink_archive_reserve,
	.commit		= sink_archive_commit,
	.flush		= sink_archive_flush,
	.segment_wanted	= sink_archive_segment_wanted,
	.segment_begun	= sink_archive_segment_begun,
	.flush_close	= sink_archive_flush_close,
	.give_up	= sink_archive_give_up,
	.release	= sink_archive_release,
	.memory		= sink_archive_memory,
};
