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
 * (a record cut by a vanished peer counts as dropped; its bytes that did
 * leave count as sent, the rest as dropped).
 *
 * Socket life cycle:
 *	UP --peer gone--> GONE             (no reconnect: drop and count)
 *	UP --peer gone--> DOWN --backoff--> CONNECTING --ok--> UP (replay)
 *	any --out__flush_close()--> closing: CLOSED once the queue is empty
 *	                            or the peer is gone
 * On every connection made after out__open(), the replay hook runs before
 * any other record is accepted, so each connection carries a stream that
 * is complete in itself.
 */
#ifndef FXTPROF_OUT_H
#define FXTPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evloop.h"

/* --max-buffered default: 64 MiB, reserved lazily (MAP_NORESERVE). */
#define OUT_DEFAULT_MAX_BUFFERED	(64u << 20)
/* Room kept for the in-band gap notice (overflow event + counter). */
#define OUT_NOTICE_ROOM			512u

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
	uint64_t connects;		/* successful connections */
	uint64_t disconnects;		/* peer went away */
};

struct out_opts {
	size_t max_buffered;		/* 0 = OUT_DEFAULT_MAX_BUFFERED */
	bool reconnect;			/* retry with backoff when the peer goes */
	int sndbuf;			/* SO_SNDBUF for sockets we create, 0 = default */
};

struct out;

/*
 * Open @uri: a path, file:///path, "-" for stdout, tcp://host:port or
 * unix:///path.  With opts->reconnect, a socket that cannot be connected
 * yet is retried in the background.  Returns 0 or -errno with a message
 * in @err.
 */
int out__open(struct out **op, const char *uri, struct evloop *loop,
	      const struct out_opts *opts, char *err, size_t errlen);

/* Adopt a connected stream socket (set blocking; never reconnected). */
int out__open_fd(struct out **op, int fd, struct evloop *loop,
		 const struct out_opts *opts);

/*
 * Called on the loop after each new connection, with the queue empty and
 * before any other record is accepted: write the prologue and the state
 * later records depend on (strings, threads, names).
 */
void out__set_replay(struct out *o, int (*replay)(void *ctx), void *ctx);

/*
 * fxt_sink_fn: queue one whole record, or drop it whole (-ENOBUFS).  A
 * record whose header does not give its length is refused (-EINVAL) and
 * not counted: that is the caller's encoder error, not an output drop.
 */
int out__write(void *ctx, const void *rec, size_t len);

/* Start sending (sockets) or write out (files) what is queued. */
int out__flush(struct out *o);

/*
 * Drops not yet announced in-band, and room to announce them now.  The
 * caller writes the notice (an FXT provider buffer-overflow event and a
 * counter with the totals) and then calls out__gap_announced().
 */
bool out__gap_pending(const struct out *o);
void out__gap_announced(struct out *o);
/* Records dropped since the last notice (whether or not there is room). */
uint64_t out__gap_records(const struct out *o);

/*
 * Flush and close: stop accepting records (later ones are dropped and
 * counted) and close once everything queued is written or the peer is
 * gone.  The loop must keep running until out__done(); out__linger() does
 * that with a deadline.
 */
void out__flush_close(struct out *o);
bool out__done(const struct out *o);
/* flush_close, then run @o's loop until done or @timeout_ms: 0/-ETIMEDOUT. */
int out__linger(struct out *o, int64_t timeout_ms);

/* Everything queued has left (the queue is empty and no send in flight). */
bool out__drained(const struct out *o);
/* Not connected: errno of the last failure, else 0. */
int out__error(const struct out *o);
bool out__is_socket(const struct out *o);
/* Bytes the queue holds at most: a larger record can never be queued. */
size_t out__capacity(const struct out *o);
/* Bytes the queue can still take. */
size_t out__room(const struct out *o);

const struct out_stats *out__stats(const struct out *o);
/* Cancel what is in flight, close and free; queued data counts as dropped. */
void out__close(struct out *o);

#endif /* FXTPROF_OUT_H */
