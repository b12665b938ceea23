/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * push.h - profiles pushed to Grafana Pyroscope while streams arrive
 * (`fxtprof receive --push`, `fxtprof record --push`).
 *
 * The caller writes each stream to a file as it always does and tells
 * the pusher only the file's path and, after each write, how many bytes
 * of it are whole records (push_stream__commit(): one atomic store).  It
 * never waits for the pusher.  Two threads do the rest:
 *   - the cutter tails every file, cuts its records into intervals of
 *     --push-interval seconds of the trace's own time
 *     (push_cutter.h), loads each interval as a profile, names its frames
 *     and encodes one pprof per process (push_encode.h);
 *   - the sender posts them to Pyroscope's /ingest (push_http.c), with
 *     bounded retries that back off.
 * Between them a queue of at most --push-queue bytes (push_queue.h):
 * when it is full, whole intervals are dropped and counted.
 *
 * Every function is called from one thread, the caller's.  A build
 * without libcurl (the board's static build) has push_none.c, whose
 * pusher__new() refuses with a sentence.
 */
#ifndef FXTPROF_PUSH_H
#define FXTPROF_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbolize/symbolizer.h"

#define PUSH_DEFAULT_APP	"fxtprof"
#define PUSH_DEFAULT_INTERVAL_S	10
#define PUSH_DEFAULT_QUEUE	(64ull << 20)
#define PUSH_DEFAULT_TIMEOUT_S	10
/* Retries back off from 1 s, doubling up to 30 s, 5 tries in all. */
#define PUSH_RETRY_FIRST_MS	1000
#define PUSH_RETRY_MAX_MS	30000
#define PUSH_MAX_TRIES		5

struct push_opts {
	const char *url;		/* pyroscope+http://HOST:PORT[/PREFIX] */
	const char *app;		/* the series' name, APP.cpu */
	const char *labels;		/* "k=v,k=v" added to every series */
	unsigned int interval_s;	/* of trace time, per profile */
	uint64_t queue_bytes;		/* bodies waiting to be sent */
	unsigned int timeout_s;		/* per request; the final drain */
	struct symbolizer_opts sym;	/* --symfs, --debug-dir, ... */
};

/* Defaults in @o (url and sym left as they are). */
void push_opts__init(struct push_opts *o);

struct push_stats {
	uint64_t pushed;		/* intervals Pyroscope took whole */
	uint64_t dropped;		/* queue full, out of tries, or at exit */
	uint64_t refused;		/* a 4xx answer: never retried */
	uint64_t failed;		/* could not be loaded or encoded */
	uint64_t requests;		/* HTTP requests answered 2xx */
	uint64_t retries;
	uint64_t bytes;			/* of the bodies sent */
	int last_refusal;		/* its HTTP status, 0 if none */
	int last_failure;		/* the last retried one's, 0 if none */
	char last_error[160];		/* the last transport error, or "" */
	uint64_t cpu_ns;		/* of the cutter and the sender */
	uint64_t profile_ns;		/* trace time the intervals covered */
};

struct pusher;
struct push_stream;

/*
 * Check @o (the URL, the labels) and start the two threads.  0, or
 * -errno with a sentence in @err.
 */
int pusher__new(const struct push_opts *o, struct pusher **out, char *err,
		size_t errlen);
/*
 * A new stream, written to @path from now on.  NULL when out of memory:
 * the stream is then received but not pushed (counted as failed).
 */
struct push_stream *pusher__add(struct pusher *p, const char *path);
/* The first @len bytes of the stream's file are whole records. */
void push_stream__commit(struct push_stream *s, uint64_t len);
/* The stream is over: the pusher reads to its end, then forgets it. */
void push_stream__end(struct push_stream *s);
/*
 * Push what is left (the last intervals of every stream), wait for the
 * sender to empty its queue for at most the timeout, drop the rest, stop
 * the threads and free @p.  *@st gets the totals.
 */
void pusher__finish(struct pusher *p, struct push_stats *st);

/*
 * "push: N intervals pushed, D dropped, R refused (HTTP 400)" and the
 * CPU the pushing took, to @f.  true when nothing was lost: the exit
 * status of the command is non-zero otherwise.
 */
bool push_stats__print(const struct push_stats *st, FILE *f);

#endif /* FXTPROF_PUSH_H */
