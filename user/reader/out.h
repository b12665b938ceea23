/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * out.h - where the trace goes: a file, stdout, or a stream socket.
 *
 * Records enter whole through out__write() (an fxt_sink_fn) and leave as
 * bytes.  A record is either queued in full or dropped in full, never cut:
 * the queue is capped at max_buffered bytes, and a record that does not fit
 * is dropped and counted by FXT record type and in bytes.  Sockets are
 * written through io_uring, one ordered send in flight, so the thread that
 * drains the kernel rings never blocks on a slow peer.  Files are written
 * with plain write(): the disk is the one place where waiting is allowed.
 *
 * Invariant, for records and for bytes alike:
 *	committed = sent + buffered + dropped
 */
#ifndef FXTPROF_OUT_H
#define FXTPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evloop.h"

#define OUT_DEFAULT_MAX_BUFFERED	(64u << 20)

struct out_stats {
	uint64_t committed_records;
	uint64_t committed_bytes;
	uint64_t sent_records;		/* wholly handed to the kernel */
	uint64_t sent_bytes;
	uint64_t buffered_records;	/* queued, possibly partly sent */
	uint64_t buffered_bytes;
	uint64_t dropped_records;
	uint64_t dropped_bytes;
	uint64_t dropped_by_type[16];	/* by FXT record type */
};

struct out;

/*
 * Open @uri: a path, file:///path, "-" for stdout, tcp://host:port or
 * unix:///path.  Returns 0 or -errno with a message in @err.
 */
int out__open(struct out **op, const char *uri, struct evloop *loop,
	      size_t max_buffered, char *err, size_t errlen);

/* fxt_sink_fn: queue one whole record, or drop it whole (-ENOBUFS). */
int out__write(void *ctx, const void *rec, size_t len);

/* Start sending (sockets) or write out (files) what is queued. */
int out__flush(struct out *o);

/*
 * Drops not yet announced in-band.  The caller writes the notice (an FXT
 * provider buffer-overflow event and a counter) and then calls
 * out__gap_announced() with the totals it reported.
 */
bool out__gap_pending(const struct out *o);
void out__gap_announced(struct out *o);

/* Stop accepting records; true once everything queued has left. */
bool out__drained(const struct out *o);
/* The peer went away or a write failed: errno of the failure, else 0. */
int out__error(const struct out *o);
bool out__is_socket(const struct out *o);

const struct out_stats *out__stats(const struct out *o);
/* Close the descriptor and free; queued data is counted as dropped. */
void out__close(struct out *o);

#endif /* FXTPROF_OUT_H */
