// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_file.c - the file (and stdout) sink: plain write() of the queue.
 *
 * A file waits for the disk instead of dropping: when a record does not
 * fit, the queue is written out first.  The queue is written once a chunk
 * has gathered, so it starts over at offset 0 and stays in the cache.
 *
 * A file that cannot be written any more (ENOSPC, EIO, ...) ends on its
 * last whole record: a record cut by the failure is truncated away and
 * counted as dropped, as are all that follow.  The file is created and
 * ended by sink_fileio.c, as the archive sink's is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "sink_backends.h"
#include "sink_fileio.h"

/* Write once this much is queued (the queue holds SINK_FILE_CAP). */
#define SINK_FILE_CHUNK		(1u << 20)

struct sink_file {
	struct sink s;			/* first: see sink_alloc() */
	int fd;
};

static struct sink_file *sink_file(struct sink *s)
{
	return sink_container_of(s, struct sink_file, s);
}

/*
 * The file failed with @err: cut it back to its last whole record, and
 * drop (and count) everything after it.
 */
static void sink_file_failed(struct sink_file *f, int err)
{
	struct sink *s = &f->s;
	size_t cut = s->q.front_sent;

	s->error = err;
	s->state = SINK_GONE;
	if (cut && !ftruncate(f->fd, (off_t)(s->st.sent_bytes - cut))) {
		/*
		 * The cut record's written bytes left the file again: they
		 * count as dropped, with its unsent rest (sink_drop_queue).
		 */
		s->st.sent_bytes -= cut;
		s->st.dropped_bytes += cut;
	}
	sink_drop_queue(s);
}

/* write() everything queued; a failure is sticky in s->error. */
static int sink_file_write_out(struct sink_file *f)
{
	for (;;) {
		const void *p;
		size_t len = record_queue__peek(&f->s.q, &p);
		ssize_t n;

		if (!len)
			return 0;
		n = write(f->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sink_file_failed(f, errno);
			return -f->s.error;
		}
		sink_sent(&f->s, (size_t)n);
	}
}

static int sink_file_open(struct sink *s, const char *uri,
			  const struct sink_opts *opts, char *err,
			  size_t errlen)
{
	struct sink_file *f = sink_file(s);

	f->fd = sink_fileio_create(uri, opts, err, errlen);
	return f->fd < 0 ? f->fd : 0;
}

static void *sink_file_reserve(struct sink *s, size_t len, unsigned int kind)
{
	void *p = sink_queue_reserve(s, len, kind);

	/* A file waits for the disk instead of dropping. */
	if (!p && sink_accepting(s) && !sink_file_write_out(sink_file(s)))
		p = sink_queue_reserve(s, len, kind);
	return p;
}

static void sink_file_commit(struct sink *s)
{
	sink_queue_commit(s, 0);
	if (record_queue__unsent(&s->q) >= SINK_FILE_CHUNK)
		sink_file_write_out(sink_file(s));	/* sticky in s->error */
}

static int sink_file_flush(struct sink *s)
{
	return s->state == SINK_UP ? sink_file_write_out(sink_file(s)) :
				     -s->error;
}

static void sink_file_flush_close(struct sink *s)
{
	struct sink_file *f = sink_file(s);

	if (s->state == SINK_UP)
		sink_file_write_out(f);
	else
		sink_drop_queue(s);	/* the file failed: nothing goes */
	sink_fileio_finish(s, &f->fd);
}

static void sink_file_give_up(struct sink *s)
{
	sink_fileio_abandon(s, &sink_file(s)->fd);
}

const struct sink_ops sink_file_ops = {
	.size		= sizeof(struct sink_file),
	.open		= sink_file_open,
	.reserve	= sink_file_reserve,
	.commit		= sink_file_commit,
	.flush		= sink_file_flush,
	.flush_close	= sink_file_flush_close,
	.give_up	= sink_file_give_up,
};
