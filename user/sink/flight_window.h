/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flight_window.h - the flight recorder's window: the newest stretch of an
 * encoded record stream, held in memory, bounded in time and in bytes, from
 * which a self-contained snapshot can be written at any moment.
 *
 * It is the store behind a window sink (sink__open_window(), sink.h): the
 * encoder reserves and commits whole records into it as into any sink, with
 * their kind (the FXT record type).  The window never cuts a record: it
 * evicts whole records, oldest first.
 *
 * Self-contained snapshots come from segments, the pipeline's own
 * mechanism (Documentation/architecture.md): the window asks for a new
 * segment (sink__segment_wanted()) every quarter of its length, and the
 * state then writes the prologue and replays every live name, mapping,
 * kernel image and kernel symbol.  Each record is one of two classes:
 *  - definitions (FXT metadata, initialization, string, thread, userspace
 *    and kernel object records: kinds 0, 1, 2, 3, 6, 7) are what later
 *    records refer to; they are kept for as long as their segment lives;
 *  - everything else (events, blobs, scheduling records) is timed, and
 *    evicted once older than the window or when the byte bound needs room.
 * A segment dies when no event of it is left.  A snapshot writes, from the
 * segment holding the first event at or after its start time, every
 * segment's definitions and its remaining events in their original order:
 * a valid stream, since a record only refers to definitions before it.
 * It is one stream: later segments leave out their stream header (magic,
 * provider, initialization), and their string records redefine the table
 * from where the encoder's reset left it.
 *
 * Times: the timestamp word of FXT events and scheduling records (word 1);
 * a record without one takes the time of the record before it (a stack
 * blob follows its sample's event).
 */
#ifndef FXTPROF_FLIGHT_WINDOW_H
#define FXTPROF_FLIGHT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Events are stored in chunks of this size (mmap'd, so freed for real). */
#define FLIGHT_CHUNK_SIZE	(256u << 10)
/* The byte bound's floor: a few chunks and a segment's replay. */
#define FLIGHT_MIN_BYTES	(4u << 20)
/* Kept beyond the window, so a snapshot taken a drain turn after its
 * trigger still reaches a full window back from the trigger. */
#define FLIGHT_MARGIN_NS	1000000000ull

struct flight_window_opts {
	uint64_t window_ns;	/* SECONDS, > 0 */
	uint64_t max_bytes;	/* >= FLIGHT_MIN_BYTES */
};

struct flight_window_stats {
	uint64_t held_bytes;		/* memory held now: chunks + definitions */
	uint64_t held_max;		/* the most it ever held */
	uint64_t over_bound;		/* commits that left it above the bound */
	uint64_t records;		/* held now */
	uint64_t segments;		/* live now */
	uint64_t segments_begun;
	uint64_t committed;		/* taken, ever */
	uint64_t refused;		/* too large for a chunk, or closed */
	uint64_t evicted_time;		/* events older than the window */
	uint64_t evicted_bytes;		/* events and segments for the bound */
	uint64_t oldest_ns, newest_ns;	/* of the events held (0: none) */
	uint64_t bound_cut_ns;		/* newest event the bound evicted */
};

struct flight_snapshot_stats {
	uint64_t bytes;
	uint64_t records;
	uint64_t events;
	uint64_t segments;
	uint64_t first_ns, last_ns;	/* of the events written */
	bool cut_by_bound;		/* the bound evicted events after @from */
};

struct flight_window;

int flight_window__new(struct flight_window **wp,
		       const struct flight_window_opts *o);
void flight_window__free(struct flight_window *w);

/* Room for one record of @len bytes (a multiple of 8), or NULL: refused. */
void *flight_window__reserve(struct flight_window *w, size_t len,
			     unsigned int kind);
void flight_window__commit(struct flight_window *w);

bool flight_window__segment_wanted(const struct flight_window *w);
/* The records from now on belong to a new segment. */
void flight_window__segment_begun(struct flight_window *w);
/* Refuse everything from now on. */
void flight_window__close(struct flight_window *w);

/*
 * Write a snapshot of the events at or after @from_ns (and the segments
 * they need) to @fd, with write(); 0 or -errno.  The window is unchanged.
 */
int flight_window__snapshot(const struct flight_window *w, int fd,
			    uint64_t from_ns, struct flight_snapshot_stats *st);

void flight_window__stats(const struct flight_window *w,
			  struct flight_window_stats *st);

#endif /* FXTPROF_FLIGHT_WINDOW_H */
