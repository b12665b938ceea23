/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink.h - the framed byte sink: where the encoded records go (a file,
 * stdout, or a stream socket).
 *
 * Records enter whole, with their boundaries: an encoder reserves room for
 * one record with sink__reserve(), builds it there and calls
 * sink__commit(); a caller that holds finished bytes uses sink__write().
 * The sink never reads the records.  A record is either queued in full or
 * dropped in full, never cut: the queue is capped at max_buffered bytes,
 * and a record that does not fit is dropped and counted, by the kind the
 * encoder gave (for FXT, the record type) and in bytes.
 *
 * Sockets are written in batches (a contiguous run of records per send)
 * through io_uring, one send in flight, submitted as soon as a batch is
 * queued: the kernel sends at once what the socket takes and completes the
 * rest as the peer reads, so the thread that drains the kernel rings never
 * blocks on a slow peer.  Files are written with plain write(): the disk
 * is the one place where waiting is allowed, so a file waits instead of
 * dropping (it drops only after a write failed, or a record larger than
 * its 8 MiB queue).
 *
 * Invariant, for records and for bytes alike:
 *	committed = sent + buffered + dropped
 * (a record cut by a vanished peer counts as dropped; its bytes that did
 * leave count as sent, the rest as dropped).
 *
 * Delivery: "sent" means handed to the kernel, not received.  Each stream
 * is settled when it ends, and its sent records become delivered or
 * unconfirmed, so that once the sink is closed
 *	sent = delivered + unconfirmed
 * A file is delivered when every write(), fdatasync() and close()
 * succeeded.  A socket, at flush-and-close, half-closes and waits for the
 * receiver's word: `fxtprof receive` answers with an acknowledgement of
 * the bytes and records it wrote (user/transport/stream_ack.h),
 * which settles the stream exactly.  A peer that is not fxtprof and ends
 * the stream in order (EOF), or is still there when the sink is closed,
 * is settled from SIOCOUTQ: what its kernel acknowledged.  A stream that
 * ends in an error (the peer reset it: it did not read everything) is
 * unconfirmed as a whole.
 *
 * Socket life cycle:
 *	UP --peer gone--> GONE             (no reconnect: drop and count)
 *	UP --peer gone--> DOWN --backoff--> CONNECTING --ok--> UP (new segment)
 *	any --sink__flush_close()--> closing: once the queue is empty,
 *	    CONFIRMING (half-closed, waiting for the receiver) --> CLOSED;
 *	    CLOSED at once when the peer is gone
 *
 * Segments: every stream the sink starts (the file, the first connection,
 * each reconnection) must be complete in itself.  The sink asks for that
 * with sink__segment_wanted(); whoever owns the stream's state (the state
 * part, above the encoder) writes the prologue and the replay of names and
 * then calls sink__segment_begun().  The sink calls nobody back.
 *
 * Back ends: sink.c is the interface and the accounting; each kind of
 * sink (sink_file.c, sink_socket.c, sink_archive.c, sink_window.c) is a
 * struct sink_ops (sink_core.h), and sink_open.c chooses one by URI.
 */
#ifndef FXTPROF_SINK_H
#define FXTPROF_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive/archive.h"
#include "flight_window.h"
#include "transport/evloop.h"

/* --max-buffered default: 64 MiB, reserved lazily (MAP_NORESERVE). */
#define SINK_DEFAULT_MAX_BUFFERED	(64u << 20)
/* Room kept for the in-band gap notice (overflow event + counter). */
#define SINK_NOTICE_ROOM		512u
/* Files are created with this mode unless sink_opts.file_mode says else. */
#define SINK_DEFAULT_FILE_MODE		0600

struct sink_stats {
	uint64_t committed_records;	/* offered: reserved or written */
	uint64_t committed_bytes;
	uint64_t sent_records;		/* wholly handed to the kernel */
	uint64_t sent_bytes;
	uint64_t buffered_records;	/* queued, possibly partly sent */
	uint64_t buffered_bytes;	/* queued and not sent */
	uint64_t dropped_records;
	uint64_t dropped_bytes;
	uint64_t dropped_by_type[16];	/* by the kind the encoder gave */
	uint64_t connects;		/* successful connections */
	uint64_t disconnects;		/* peer went away */
	/* Sent records, settled when their stream ended (see above). */
	uint64_t delivered_records;	/* confirmed at the destination */
	uint64_t delivered_bytes;
	uint64_t unconfirmed_records;	/* sent, never confirmed: lost */
	uint64_t unconfirmed_bytes;
	uint64_t acked_streams;		/* settled by the receiver's ack */
	uint64_t outq_streams;		/* settled from SIOCOUTQ */
};

/*
 * How a socket sink hands its queue to the kernel.  Whatever the mode, a
 * record written with sink__write() while nothing is queued is first
 * sent with a non-blocking send() straight from the caller's memory, and
 * only the remainder is queued.  bench-socket measures the three;
 * Documentation/architecture.md says why the default is the default.
 */
enum sink_send_mode {
	/* The queue's next run as an io_uring send, submitted at once. */
	SINK_SEND_URING = 0,
	/* Non-blocking send() first; the remainder as an io_uring send. */
	SINK_SEND_DIRECT,
	/* Non-blocking send() only; wait for POLLOUT through io_uring. */
	SINK_SEND_POLL,
};

struct sink_opts {
	size_t max_buffered;		/* 0 = SINK_DEFAULT_MAX_BUFFERED */
	bool reconnect;			/* retry with backoff when the peer goes */
	int sndbuf;			/* SO_SNDBUF for sockets we create, 0 = default */
	enum sink_send_mode send_mode;
	unsigned int file_mode;		/* 0 = SINK_DEFAULT_FILE_MODE */
	/*
	 * A file as an archive (user/archive/archive.h), also chosen by a
	 * name ending in .fxtz: each chunk one segment.  archive_opts.live:
	 * chunks only, the partial one written every archive_flush_ms
	 * (0 = ARCHIVE_DEFAULT_FLUSH_MS).
	 */
	bool archive;
	struct archive_writer_opts archive_opts;
	unsigned int archive_flush_ms;
};

/* A path or file:// URI whose name ends in .fxtz: an archive. */
bool sink__is_archive_uri(const char *uri);

struct sink;

/*
 * Open @uri: a path, file:///path, "-" for stdout, tcp://host:port or
 * unix:///path.  With opts->reconnect, a socket that cannot be connected
 * yet is retried in the background.  Returns 0 or -errno with a message
 * in @err.
 */
int sink__open(struct sink **sp, const char *uri, struct evloop *loop,
	       const struct sink_opts *opts, char *err, size_t errlen);

/*
 * Adopt @fd, an empty file opened for writing, as an archive sink (the
 * sink closes it).  opts->archive_opts as for sink__open().
 */
int sink__open_archive_fd(struct sink **sp, int fd, struct evloop *loop,
			  const struct sink_opts *opts);

/* Adopt a connected stream socket (set blocking; never reconnected). */
int sink__open_fd(struct sink **sp, int fd, struct evloop *loop,
		  const struct sink_opts *opts);

/*
 * A window sink: the flight recorder's in-memory window (flight_window.h)
 * behind the sink interface, so that the encoder writes into it and the
 * state gives it segments as to any sink.  It writes nothing by itself:
 * snapshots are taken from sink__window().  It is done as soon as it is
 * flush-closed, and complete when it refused nothing.
 */
int sink__open_window(struct sink **sp, const struct flight_window_opts *o);
/* The window of a window sink, NULL for any other. */
struct flight_window *sink__window(struct sink *s);

/*
 * Room for one record of @len bytes (a multiple of 8), 8-byte aligned, or
 * NULL: the record is then dropped whole and counted under @kind (0..15).
 * Fill all of it, then sink__commit().  One reservation at a time.
 */
void *sink__reserve(struct sink *s, size_t len, unsigned int kind);
void sink__commit(struct sink *s);

/*
 * Queue a finished record by copying: 0, -ENOBUFS (dropped whole and
 * counted) or -EINVAL (@len not a positive multiple of 8: refused and not
 * counted, as the caller's error rather than an output drop).  With
 * nothing queued, a socket sink first sends from @rec with a non-blocking
 * send() and copies only what the socket did not take.
 */
int sink__write(struct sink *s, const void *rec, size_t len,
		unsigned int kind);

/* Start sending (sockets) or write out (files) what is queued. */
int sink__flush(struct sink *s);

/*
 * The sink started a stream (opened, or connected again) and nothing has
 * been written to it yet: the next records should make it self-contained.
 */
bool sink__segment_wanted(const struct sink *s);
void sink__segment_begun(struct sink *s);

/*
 * Whether a record may refer to an earlier event of its segment (a shared
 * stack, fxt_profile.h): a file or a socket keeps the stream as written;
 * the flight window and archives keep records one by one.
 */
bool sink__takes_references(const struct sink *s);

/*
 * The memory a sink holds for what it has not written yet: its record
 * queue (resident: the pages of it that are in memory), the flight
 * window's chunks and definitions, an archive's chunk buffers.
 */
struct sink_memory {
	uint64_t held;			/* allocated or mapped */
	uint64_t resident;		/* of it, in memory */
};
void sink__memory(const struct sink *s, struct sink_memory *m);

/*
 * Drops not yet announced in-band, and room to announce them now.  The
 * caller writes the notice (for FXT, a provider buffer-overflow event and
 * a counter with the totals) and then calls sink__gap_announced().
 */
bool sink__gap_pending(const struct sink *s);
void sink__gap_announced(struct sink *s);
/* Records dropped since the last notice (whether or not there is room). */
uint64_t sink__gap_records(const struct sink *s);

/*
 * Flush and close: stop accepting records (later ones are dropped and
 * counted) and close once everything queued is written or the peer is
 * gone.  The loop must keep running until sink__done(); sink__linger()
 * does that with a deadline.
 */
void sink__flush_close(struct sink *s);
bool sink__done(const struct sink *s);
/* flush_close, then run the loop until done or @timeout_ms: 0/-ETIMEDOUT. */
int sink__linger(struct sink *s, int64_t timeout_ms);

/* Not connected, or the file failed: errno of the last failure, else 0. */
int sink__error(const struct sink *s);
/* Everything committed was delivered and confirmed: nothing was lost. */
bool sink__complete(const struct sink *s);
bool sink__is_socket(const struct sink *s);
/* Bytes the queue holds at most: a larger record can never be queued. */
size_t sink__capacity(const struct sink *s);
/* Whether a record of @len bytes would be queued now. */
bool sink__fits(const struct sink *s, size_t len);

const struct sink_stats *sink__stats(const struct sink *s);
/* Cancel what is in flight, close and free; queued data counts as dropped. */
void sink__close(struct sink *s);

#endif /* FXTPROF_SINK_H */
