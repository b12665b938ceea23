// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_window.c - the window sink: the flight recorder's in-memory window
 * (flight_window.h) behind the sink interface, so that the encoder writes
 * into it and the state gives it segments as to any sink.  It writes
 * nothing by itself: snapshots are taken from sink__window().  It is done
 * as soon as it is flush-closed, and complete when it refused nothing.
 */
#include "sink_backends.h"

struct sink_window {
	struct sink s;			/* first: see sink_alloc() */
	struct flight_window *win;
};

static struct sink_window *sink_window(struct sink *s)
{
	return sink_container_of(s, struct sink_window, s);
}

static void sink_window_release(struct sink *s)
{
	flight_window__free(sink_window(s)->win);
}

int sink__open_window(struct sink **sp, const struct flight_window_opts *o)
{
	static const struct sink_opts defaults;
	struct sink *s;
	int ret;

	/* No loop; the queue only ever sizes the gap notice. */
	ret = sink_alloc(&s, &sink_window_ops, NULL, &defaults);
	if (ret)
		return ret;
	ret = flight_window__new(&sink_window(s)->win, o);
	if (ret) {
		sink_free(s);
		return ret;
	}
	*sp = s;
	return 0;
}

struct flight_window *sink__window(struct sink *s)
{
	return s->ops == &sink_window_ops ? sink_window(s)->win : NULL;
}

/* The window refuses what it cannot hold, and after it is closed. */
static void *sink_window_reserve(struct sink *s, size_t len,
				 unsigned int kind)
{
	return flight_window__reserve(sink_window(s)->win, len, kind);
}

static void sink_window_commit(struct sink *s)
{
	flight_window__commit(sink_window(s)->win);
}

static int sink_window_flush(struct sink *s)
{
	(void)s;
	return 0;
}

/* Every quarter of the window, for snapshots that start anywhere. */
static bool sink_window_segment_wanted(const struct sink *s)
{
	const struct sink_window *w =
		sink_container_of(s, const struct sink_window, s);

	return !s->closing && flight_window__segment_wanted(w->win);
}

static void sink_window_segment_begun(struct sink *s)
{
	flight_window__segment_begun(sink_window(s)->win);
}

static void sink_window_flush_close(struct sink *s)
{
	flight_window__close(sink_window(s)->win);
	s->state = SINK_CLOSED;
}

/* Nothing is delivered anywhere: complete when nothing was refused. */
static bool sink_window_complete(const struct sink *s)
{
	return s->state == SINK_CLOSED && !s->st.dropped_records;
}

/* The window's chunks and definitions, all touched when held. */
static void sink_window_memory(const struct sink *s, struct sink_memory *m)
{
	struct flight_window_stats st;

	flight_window__stats(sink_window((struct sink *)s)->win, &st);
	m->held += st.held_bytes;
	m->resident += st.held_bytes;
}

const struct sink_ops sink_window_ops = {
	.by_record	= true,
	.size		= sizeof(struct sink_window),
	.reserve	= sink_window_reserve,
	.commit		= sink_window_commit,
	.flush		= sink_window_flush,
	.segment_wanted	= sink_window_segment_wanted,
	.segment_begun	= sink_window_segment_begun,
	.flush_close	= sink_window_flush_close,
	.complete	= sink_window_complete,
	.memory		= sink_window_memory,
	.release	= sink_window_release,
};
