/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink_internal.h - struct sink and what its files share: sink.c (the
 * interface, accounting, closing), sink_file.c (write()) and
 * sink_socket.c (connection, sending, reconnection).
 */
#ifndef FXTPROF_SINK_INTERNAL_H
#define FXTPROF_SINK_INTERNAL_H

#include "record_queue.h"
#include "sink.h"
#include "transport/netaddr.h"

enum sink_state {
	SINK_UP,		/* connected (or a file) */
	SINK_DOWN,		/* peer gone, waiting for the backoff timer */
	SINK_CONNECTING,	/* connect in flight */
	SINK_GONE,		/* peer gone for good */
	SINK_CLOSED,		/* flush-and-close finished */
};

struct sink {
	struct ev_handler send_h;	/* SINK_SEND_URING: the send in flight */
	struct ev_handler pollout_h;	/* wait for room in the socket */
	struct ev_handler timer_h;	/* reconnect backoff */
	struct ev_handler connect_h;
	struct evloop *loop;
	int fd;
	bool socket;
	enum sink_send_mode send_mode;
	enum sink_state state;
	bool closing;			/* flush_close: accept nothing more */
	bool teardown;			/* sink__close: start nothing new */
	bool sending, polling, timing, connecting;
	bool segment_wanted;		/* a stream started, nothing written */
	int error;

	struct record_queue q;

	/* Reconnection. */
	bool reconnect;
	int sndbuf;
	struct netaddr addrs[NETADDR_MAX];
	int naddrs, addr_next;
	unsigned int backoff_ms;
	struct __kernel_timespec backoff_ts;

	uint64_t gap_records;		/* dropped since the last notice */
	struct sink_stats st;
};

/* sink.c */
void sink_count_drop(struct sink *s, unsigned int kind, uint64_t bytes);
/* @n bytes of the queue's front left: count them and what they completed. */
void sink_sent(struct sink *s, size_t n);
/* The peer will never read what is queued: drop it all, counted. */
void sink_drop_queue(struct sink *s);
/* An orderly end: FIN for sockets, close, CLOSED. */
void sink_finish_close(struct sink *s);

/* sink_file.c */
int sink_file_open(const char *uri, char *err, size_t errlen);
/* write() everything queued; a failure is sticky in s->error. */
int sink_file_write_out(struct sink *s);

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
/* Cancel what is in flight and wait for it (sink__close). */
void sink_socket_cancel_all(struct sink *s);

#endif /* FXTPROF_SINK_INTERNAL_H */
