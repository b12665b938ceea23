/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink_internal.h - struct sink and what its files share: sink.c (the
 * interface, accounting, closing), sink_file.c (write()) and
 * sink_socket.c (connection, sending, reconnection).
 */
#ifndef FXTPROF_SINK_INTERNAL_H
#define FXTPROF_SINK_INTERNAL_H

#include "flight_window.h"
#include "record_queue.h"
#include "sink.h"
#include "transport/netaddr.h"
#include "transport/stream_ack.h"

enum sink_state {
	SINK_UP,		/* connected (or a file) */
	SINK_DOWN,		/* peer gone, waiting for the backoff timer */
	SINK_CONNECTING,	/* connect in flight */
	SINK_GONE,		/* peer gone for good */
	SINK_CONFIRMING,	/* all sent, half-closed: awaiting the receiver */
	SINK_CLOSED,		/* flush-and-close finished */
};

struct sink {
	struct ev_handler send_h;	/* SINK_SEND_URING: the send in flight */
	struct ev_handler pollout_h;	/* wait for room in the socket */
	struct ev_handler timer_h;	/* reconnect backoff */
	struct ev_handler connect_h;
	struct ev_handler recv_h;	/* the receiver's acknowledgement */
	struct evloop *loop;
	int fd;
	bool socket;
	enum sink_send_mode send_mode;
	enum sink_state state;
	bool closing;			/* flush_close: accept nothing more */
	bool teardown;			/* sink__close: start nothing new */
	bool sending, polling, timing, connecting, receiving;
	bool segment_wanted;		/* a stream started, nothing written */
	int error;

	struct record_queue q;
	/* A window sink (sink__open_window()): records go here, not to q. */
	struct flight_window *win;
	/* An archive sink (sink_archive.c): records go to its chunk. */
	struct archive_writer *arch;
	unsigned int arch_kind;		/* of the reservation in progress */
	bool arch_live, arch_timing;
	unsigned int arch_flush_ms;
	int64_t arch_cut_ms;		/* CLOCK_MONOTONIC of the last cut */
	uint64_t arch_lost_records;	/* lost chunks already counted */
	uint64_t arch_lost_bytes;
	struct ev_handler arch_timer_h;	/* live: the flush timer */
	struct __kernel_timespec arch_ts;

	/* Reconnection. */
	bool reconnect;
	int sndbuf;
	struct netaddr addrs[NETADDR_MAX];
	int naddrs, addr_next;
	unsigned int backoff_ms;
	struct __kernel_timespec backoff_ts;

	uint64_t gap_records;		/* dropped since the last notice */
	struct sink_stats st;

	/* Delivery: what the current stream had sent when it started. */
	uint64_t stream_records, stream_bytes;
	unsigned char ack[STREAM_ACK_SIZE];
	size_t ack_len;
	unsigned int file_mode;
};

/* sink.c */
void sink_count_drop(struct sink *s, unsigned int kind, uint64_t bytes);
/* @n bytes of the queue's front left: count them and what they completed. */
void sink_sent(struct sink *s, size_t n);
/* The peer will never read what is queued: drop it all, counted. */
void sink_drop_queue(struct sink *s);
/* An orderly end: files are synced and closed, sockets half-closed. */
void sink_finish_close(struct sink *s);
/*
 * The current stream ended: of what it sent, @records and @bytes were
 * confirmed at the destination (at most what it sent); the rest is
 * unconfirmed.  The next stream starts from here.
 */
void sink_settle(struct sink *s, uint64_t records, uint64_t bytes);

/* sink_file.c */
int sink_file_open(const char *uri, unsigned int mode, char *err,
		   size_t errlen);
/* fdatasync (regular files), close, settle: the file's orderly end. */
void sink_file_finish(struct sink *s);
/* write() everything queued; a failure is sticky in s->error. */
int sink_file_write_out(struct sink *s);

/* sink_archive.c */
int sink_archive_open(struct sink *s, const char *uri,
		      const struct sink_opts *opts, char *err, size_t errlen);
/* Start the archive on s->fd; 0 or -errno. */
int sink_archive_start(struct sink *s, const struct sink_opts *opts);
void *sink_archive_reserve(struct sink *s, size_t len, unsigned int kind);
void sink_archive_commit(struct sink *s);
/* Live: write the partial chunk if it is older than the flush time. */
int sink_archive_flush(struct sink *s);
bool sink_archive_cut_wanted(const struct sink *s);
void sink_archive_segment_begun(struct sink *s);
/* Finish the archive (trailer, footer), sync and close the file. */
void sink_archive_flush_close(struct sink *s);
/* Stop the timer; what the chunk holds is dropped and counted. */
void sink_archive_give_up(struct sink *s);

/* sink_socket.c */
void sink_socket_init(struct sink *s);
int sink_socket_open(struct sink *s, const char *uri, char *err,
		     size_t errlen);
/* Hand what is queued to the kernel, as far as it takes it now. */
void sink_socket_flush(struct sink *s);
/*
 * With nothing queued or in flight: send() the start of a record from the
 * caller's memory; returns the bytes the socket took (0 for a file).
 */
size_t sink_socket_send_first(struct sink *s, const void *rec, size_t len);
/* Called after each commit: sends early once a batch is queued. */
void sink_socket_committed(struct sink *s);
void sink_socket_flush_close(struct sink *s);
/* Half-close and wait for the receiver's acknowledgement (CONFIRMING). */
void sink_socket_confirm(struct sink *s);
/* Settle the stream from what the peer's kernel has not acknowledged. */
void sink_socket_settle_outq(struct sink *s);
/* Cancel what is in flight and wait for it (sink__close). */
void sink_socket_cancel_all(struct sink *s);

#endif /* FXTPROF_SINK_INTERNAL_H */
