/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * push_cutter.h - one FXT stream, fed as it arrives, cut into intervals
 * of the trace's own time, each a self-contained FXT stream.
 *
 * Interval k covers the wall-clock seconds [k * I, (k + 1) * I) (I the
 * interval), so that the intervals of a stream chain with no gap and no
 * overlap, and those of different boards line up.  The wall clock of a
 * timestamp comes from the stream's clock object (fxt-mapping.md); a
 * stream without one is anchored to this host's clock when its first
 * event arrives.
 *
 * An interval's stream holds every definition of the stream before its
 * last event (FXT kinds 0, 1, 2, 3, 5, 6, 7, as archive_extract.h says:
 * metadata, strings, threads, shared stacks, names, mappings, symbols),
 * in stream order, and its own events; an untimed record that is not a
 * definition (a blob after its sample) goes with the event before it.
 * Rings are drained a CPU at a time, so events come in blocks that are
 * not sorted by time: two intervals are open at once, and the older is
 * closed only when an event a quarter interval (at most 1 s) past its
 * end arrives.  An event older than both open intervals goes to the
 * older one (counted as late).
 */
#ifndef FXTPROF_PUSH_CUTTER_H
#define FXTPROF_PUSH_CUTTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fxt_reader;

/*
 * A closed interval with at least one event: its stream (@len bytes, the
 * callee's to keep: it frees it), the wall-clock seconds it covers, and
 * the trace time its events span.  0 or -errno (which the feed returns).
 */
typedef int (*push_interval_fn)(void *ctx, unsigned char *fxt, size_t len,
				uint64_t from_s, uint64_t until_s);

struct push_buf {
	unsigned char *data;
	size_t len, cap;
};

struct push_open_interval {
	uint64_t k;			/* the interval's number */
	struct push_buf b;		/* empty until its first event */
	bool has_events;
};

struct push_cutter {
	uint64_t interval_ns, grace_ns;
	push_interval_fn emit;
	void *ctx;
	struct fxt_reader *rd;		/* strings and the clock object */
	bool have_clock;
	uint64_t clock_boot_ns, clock_real_ns;
	struct push_buf defs;		/* every definition so far */
	struct push_open_interval iv[2];	/* k and k + 1 */
	bool open;
	struct push_buf *last;		/* where the last event went */
	uint64_t late;			/* events older than both */
	uint64_t first_ts, last_ts;	/* of the events, trace time */
};

int push_cutter__init(struct push_cutter *c, unsigned int interval_s,
		      push_interval_fn emit, void *ctx);
void push_cutter__release(struct push_cutter *c);
/*
 * The records in @len bytes: the bytes of the whole ones, taken (a cut
 * one at the end is left for the next call), -EPROTO for a record with
 * no size, or the emitter's -errno.
 */
ssize_t push_cutter__feed(struct push_cutter *c, const unsigned char *p,
			  size_t len);
/* The stream ended: close both open intervals.  0 or -errno. */
int push_cutter__end(struct push_cutter *c);

#endif /* FXTPROF_PUSH_CUTTER_H */
