/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink_core.h - what every sink back end builds on: the common part of a
 * sink (struct sink), the operations a back end implements (struct
 * sink_ops) and the core's helpers they call (user/sink/sink.c).
 *
 * A back end (sink_file.c, sink_socket.c, sink_archive.c, sink_window.c)
 * has its own struct, which begins with a struct sink: sink_alloc()
 * allocates it (ops->size), and the back end reaches its own part with
 * sink_container_of().  The core keeps what all of them share: the
 * accounting behind
 *	committed = sent + buffered + dropped
 * and the settlement of each stream, the record queue, the segment and
 * gap flags, and the life cycle seen from outside (closing, done).  It
 * calls a back end only through its ops; a back end never calls another.
 * A new sink is one new file defining its ops, declared in
 * sink_backends.h, and one line in the table of sink_open.c.
 */
#ifndef FXTPROF_SINK_CORE_H
#define FXTPROF_SINK_CORE_H

#include <stddef.h>

#include "record_queue.h"
#include "sink.h"

#define sink_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * The queue of the sinks that write a file (and of those that keep
 * records elsewhere, whose queue only sizes the gap notice): it bounds
 * the size of a record they take.
 */
#define SINK_FILE_CAP		(8u << 20)

enum sink_state {
	SINK_UP,		/* connected (or a file) */
	SINK_DOWN,		/* peer gone, waiting for the backoff timer */
	SINK_CONNECTING,	/* connect in flight */
	SINK_GONE,		/* peer gone for good, or the file failed */
	SINK_CONFIRMING,	/* all sent, half-closed: awaiting the receiver */
	SINK_CLOSED,		/* flush-and-close finished */
};

struct sink;

/*
 * One table per back end, like the kernel's struct bpf_map_ops.  Optional
 * operations are marked; the core does without them.
 */
struct sink_ops {
	/* A stream socket: delivery is confirmed by the receiver. */
	bool socket;
	/*
	 * It keeps or drops committed records one by one, not as the
	 * stream they were written in (the flight window evicts the oldest
	 * events, an archive cuts chunks): a record may not refer to an
	 * earlier event (sink__takes_references()).
	 */
	bool by_record;
	/* The back end's struct; its first member is its struct sink. */
	size_t size;
	/* Optional: the queue's capacity for @opts, else SINK_FILE_CAP. */
	size_t (*queue_cap)(const struct sink_opts *opts);
	/* Optional: set up the back end's part of a fresh, zeroed sink. */
	void (*init)(struct sink *s, const struct sink_opts *opts);
	/*
	 * Start the stream to @uri, for a back end the table in sink_open.c
	 * chooses: 0 or -errno, with a message in @err when there is more
	 * to say than strerror.
	 */
	int (*open)(struct sink *s, const char *uri,
		    const struct sink_opts *opts, char *err, size_t errlen);
	/*
	 * Room for one record, or NULL: the core counts the drop.  The
	 * queue's back ends use sink_queue_reserve().
	 */
	void *(*reserve)(struct sink *s, size_t len, unsigned int kind);
	void (*commit)(struct sink *s);
	/* Optional: a copying write; else reserve, copy and commit. */
	int (*write)(struct sink *s, const void *rec, size_t len,
		     unsigned int kind);
	/* Start sending, or write out, what is held: 0 or -errno. */
	int (*flush)(struct sink *s);
	/* Optional: else the core's flag, while it accepts records. */
	bool (*segment_wanted)(const struct sink *s);
	/* Optional: the state began a segment (the flag is cleared). */
	void (*segment_begun)(struct sink *s);
	/* s->closing is set: end in order, CLOSED when done. */
	void (*flush_close)(struct sink *s);
	/*
	 * Optional: stop at once (s->teardown is set): cancel what is in
	 * flight, settle the stream with what can be known and close.  The
	 * core then drops what is queued and marks the sink CLOSED.
	 */
	void (*give_up)(struct sink *s);
	/* Optional: else everything committed was delivered. */
	bool (*complete)(const struct sink *s);
	/* Optional: what the back end holds besides the core's queue. */
	void (*memory)(const struct sink *s, struct sink_memory *m);
	/* Optional: release what the back end holds (sink_free()). */
	void (*release)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	struct evloop *loop;
	enum sink_state state;
	bool closing;			/* flush_close: accept nothing more */
	bool teardown;			/* sink__close: start nothing new */
	bool segment_wanted;		/* a stream started, nothing written */
	int error;

	struct record_queue q;
	uint64_t gap_records;		/* dropped since the last notice */
	struct sink_stats st;
	/* Delivery: what the current stream had sent when it started. */
	uint64_t stream_records, stream_bytes;
};

/*
 * A sink of @ops: its struct (ops->size bytes, zeroed), the common part set
 * up with a queue for @opts, then ops->init.  0 or -errno.  The first
 * stream starts at open, so it wants its segment.
 */
int sink_alloc(struct sink **sp, const struct sink_ops *ops,
	       struct evloop *loop, const struct sink_opts *opts);
/* ops->release, then free what sink_alloc() set up. */
void sink_free(struct sink *s);

/* Records are taken: the stream is up and not closing. */
static inline bool sink_accepting(const struct sink *s)
{
	return s->state == SINK_UP && !s->closing;
}

/* Room in the queue, while the sink accepts records. */
void *sink_queue_reserve(struct sink *s, size_t len, unsigned int kind);
/* The record reserved last is queued, its first @sent bytes gone already. */
void sink_queue_commit(struct sink *s, size_t sent);

/* @n bytes of the queue's front left: count them and what they completed. */
void sink_sent(struct sink *s, size_t n);
/* The peer will never read what is queued: drop it all, counted. */
void sink_drop_queue(struct sink *s);
/*
 * The current stream ended: of what it sent, @records and @bytes were
 * confirmed at the destination (at most what it sent); the rest is
 * unconfirmed.  The next stream starts from here.
 */
void sink_settle(struct sink *s, uint64_t records, uint64_t bytes);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t sink_now_ms(void);
/* A new stream starts now: it settles from what is sent from here on. */
void sink_stream_start(struct sink *s);

#endif /* FXTPROF_SINK_CORE_H */
