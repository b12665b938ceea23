// SPDX-License-Identifier: GPL-2.0-only
/*
 * push.c - the pusher: the cutter thread that tails the streams' files
 * and encodes their intervals, the queue, and the sender thread that
 * posts them (push.h has the design).
 *
 * One mutex guards the list of new streams, the queue and the totals.
 * The caller takes it only in pusher__add() (once a stream) and
 * pusher__finish(); a commit is an atomic store, so that receiving never
 * waits for symbolizing or for the network.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "push.h"
#include "push_cutter.h"
#include "push_encode.h"
#include "push_http.h"

#define READ_CHUNK	(256u << 10)
/* A cut record longer than this is no record the framer lets through. */
#define PEND_MAX	(64u << 20)
/* How often the cutter looks at files that did not grow. */
#define POLL_MS		20

struct push_stream {
	struct push_stream *next;
	struct pusher *p;
	char *path;
	int fd;				/* the cutter's, -1 until opened */
	_Atomic uint64_t committed;
	atomic_bool ended;
	uint64_t read_off;
	unsigned char *pend;		/* read, a cut record at its end */
	size_t pend_len, pend_cap;
	struct push_cutter cut;
	bool broken;			/* could not be read or cut: skipped */
};

struct pusher {
	struct push_opts o;
	struct push_target t;
	pthread_t cutter, sender;
	bool cutter_started, sender_started;
	pthread_mutex_t lock;
	pthread_cond_t sender_cond;	/* the queue grew, or stop */
	pthread_cond_t cutter_cond;	/* finish began */
	struct push_stream *incoming;	/* added, not yet the cutter's */
	struct push_stream *streams;	/* the cutter's own */
	struct push_item *qhead, **qtail;
	size_t qbytes;
	bool stopping;			/* finish began */
	bool cutter_done;
	atomic_bool abort;		/* the sender drops the rest */
	struct push_stats st;
	struct push_http *http;
};

void push_opts__init(struct push_opts *o)
{
	o->app = PUSH_DEFAULT_APP;
	o->labels = NULL;
	o->interval_s = PUSH_DEFAULT_INTERVAL_S;
	o->queue_bytes = PUSH_DEFAULT_QUEUE;
	o->timeout_s = PUSH_DEFAULT_TIMEOUT_S;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wait on @c until @ms (CLOCK_MONOTONIC) at the latest. */
static void cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m,
			    uint64_t ms)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	pthread_cond_timedwait(c, m, &ts);
}

/* ------------------------------------------------------------------ */
/* The queue (under p->lock)                                           */
/* ------------------------------------------------------------------ */

static void queue_pop(struct pusher *p)
{
	struct push_item *it = p->qhead;

	p->qhead = it->next;
	if (!p->qhead)
		p->qtail = &p->qhead;
	p->qbytes -= it->bytes;
	push_item__free(it);
}

/*
 * Whole intervals only: one is always taken into an empty queue, however
 * large, so that a small --push-queue still pushes.
 */
static bool queue_full(const struct pusher *p, size_t more)
{
	return p->qhead && p->qbytes + more > p->o.queue_bytes;
}

/* ------------------------------------------------------------------ */
/* The cutter thread                                                   */
/* ------------------------------------------------------------------ */

static int on_interval(void *ctx, unsigned char *fxt, size_t len,
		       uint64_t from_s, uint64_t until_s)
{
	struct push_stream *s = ctx;
	struct pusher *p = s->p;
	struct push_item *it = NULL;
	bool full;
	int ret;

	pthread_mutex_lock(&p->lock);
	/* Full already: not worth the symbolizing. */
	full = queue_full(p, 1);
	if (full)
		p->st.dropped++;
	pthread_mutex_unlock(&p->lock);
	if (full) {
		free(fxt);
		return 0;
	}
	ret = push_encode__interval(&p->t, fxt, len, from_s, until_s, &it);
	free(fxt);
	pthread_mutex_lock(&p->lock);
	if (ret) {
		p->st.failed++;
	} else if (it && queue_full(p, it->bytes)) {
		p->st.dropped++;
		push_item__free(it);
	} else if (it) {
		*p->qtail = it;
		p->qtail = &it->next;
		p->qbytes += it->bytes;
		pthread_cond_signal(&p->sender_cond);
	}
	pthread_mutex_unlock(&p->lock);
	/* An interval that fails does not end the stream's pushing. */
	return ret == -ENOMEM ? ret : 0;
}

static void stream_break(struct push_stream *s)
{
	if (s->broken)
		return;
	s->broken = true;
	pthread_mutex_lock(&s->p->lock);
	s->p->st.failed++;
	pthread_mutex_unlock(&s->p->lock);
}

/*
 * Read what was committed since the last look and cut it.  true when it
 * did something; *@done once the stream is over and read.
 */
static bool stream_pump(struct push_stream *s, bool *done)
{
	/* ended before committed: once ended, committed is the last one. */
	bool ended = atomic_load_explicit(&s->ended, memory_order_acquire);
	uint64_t committed = atomic_load_explicit(&s->committed,
						  memory_order_acquire);
	size_t want;
	ssize_t n;

	*done = false;
	if (s->broken || committed <= s->read_off) {
		if (ended) {
			if (!s->broken && push_cutter__end(&s->cut))
				stream_break(s);
			*done = true;
		}
		return false;
	}
	if (s->fd < 0) {
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			stream_break(s);
			return true;
		}
	}
	want = committed - s->read_off < READ_CHUNK ?
	       (size_t)(committed - s->read_off) : READ_CHUNK;
	if (s->pend_cap - s->pend_len < want) {
		size_t cap = s->pend_len + want;
		unsigned char *b;

		if (cap > PEND_MAX || !(b = realloc(s->pend, cap))) {
			stream_break(s);
			return true;
		}
		s->pend = b;
		s->pend_cap = cap;
	}
	n = pread(s->fd, s->pend + s->pend_len, want, (off_t)s->read_off);
	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return true;
		stream_break(s);
		return true;
	}
	s->read_off += (uint64_t)n;
	s->pend_len += (size_t)n;
	n = push_cutter__feed(&s->cut, s->pend, s->pend_len);
	if (n < 0) {
		stream_break(s);
		return true;
	}
	memmove(s->pend, s->pend + n, s->pend_len - (size_t)n);
	s->pend_len -= (size_t)n;
	return true;
}

static void stream_free(struct push_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	push_cutter__release(&s->cut);
	free(s->pend);
	free(s->path);
	free(s);
}

static void *cutter_main(void *arg)
{
	struct pusher *p = arg;
	struct push_stream **pp, *s;
	bool stopping, busy, done;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		while ((s = p->incoming)) {
			p->incoming = s->next;
			s->next = p->streams;
			p->streams = s;
		}
		stopping = p->stopping;
		pthread_mutex_unlock(&p->lock);
		busy = false;
		for (pp = &p->streams; (s = *pp);) {
			busy |= stream_pump(s, &done);
			if (!done) {
				pp = &s->next;
				continue;
			}
			*pp = s->next;
			pthread_mutex_lock(&p->lock);
			if (s->cut.last_ts > s->cut.first_ts)
				p->st.profile_ns += s->cut.last_ts -
						    s->cut.first_ts;
			pthread_mutex_unlock(&p->lock);
			stream_free(s);
		}
		if (stopping && !p->streams)
			break;
		if (busy)
			continue;
		pthread_mutex_lock(&p->lock);
		if (!p->stopping && !p->incoming)
			cond_wait_until(&p->cutter_cond, &p->lock,
					mono_ms() + POLL_MS);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_lock(&p->lock);
	p->cutter_done = true;
	p->st.cpu_ns += thread_cpu_ns();
	pthread_cond_signal(&p->sender_cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The sender thread                                                   */
/* ------------------------------------------------------------------ */

static uint64_t backoff_ms(unsigned int tries)
{
	uint64_t ms = PUSH_RETRY_FIRST_MS;

	while (--tries && ms < PUSH_RETRY_MAX_MS)
		ms *= 2;
	return ms < PUSH_RETRY_MAX_MS ? ms : PUSH_RETRY_MAX_MS;
}

/* What the answer to the head's first request means (under the lock). */
static void sender_settle(struct pusher *p, int ret, long status,
			  const char *err)
{
	struct push_item *it = p->qhead;
	struct push_request *r = it->reqs;

	if (!ret && status >= 200 && status < 300) {
		p->st.requests++;
		p->st.bytes += r->len;
		it->reqs = r->next;
		it->tries = 0;
		free(r->url);
		free(r->body);
		free(r);
		if (!it->reqs) {
			p->st.pushed++;
			queue_pop(p);
		}
		return;
	}
	/* A 4xx is the request's fault: sending it again changes nothing. */
	if (!ret && status >= 400 && status < 500 && status != 408 &&
	    status != 429) {
		p->st.refused++;
		p->st.last_refusal = (int)status;
		queue_pop(p);
		return;
	}
	if (ret == -ECANCELED)
		return;		/* aborted: dropped with the rest */
	if (ret)
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", err);
	else
		p->st.last_failure = (int)status;
	if (++it->tries >= PUSH_MAX_TRIES) {
		p->st.dropped++;
		queue_pop(p);
		return;
	}
	p->st.retries++;
	it->next_try_ms = mono_ms() + backoff_ms(it->tries);
}

static void *sender_main(void *arg)
{
	struct pusher *p = arg;
	char err[256];
	struct push_request *r;
	long status;
	int ret;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (atomic_load(&p->abort)) {
			while (p->qhead) {
				p->st.dropped++;
				queue_pop(p);
			}
			if (p->cutter_done)
				break;
		}
		if (!p->qhead) {
			if (p->cutter_done)
				break;
			pthread_cond_wait(&p->sender_cond, &p->lock);
			continue;
		}
		if (p->qhead->next_try_ms > mono_ms()) {
			cond_wait_until(&p->sender_cond, &p->lock,
					p->qhead->next_try_ms);
			continue;
		}
		/* The head stays in the queue, and only this thread pops. */
		r = p->qhead->reqs;
		pthread_mutex_unlock(&p->lock);
		status = 0;
		err[0] = '\0';
		ret = push_http__post(p->http, r->url, r->body, r->len, &status,
				      err, sizeof(err));
		pthread_mutex_lock(&p->lock);
		sender_settle(p, ret, status, err);
	}
	p->st.cpu_ns += thread_cpu_ns();
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The caller's side                                                   */
/* ------------------------------------------------------------------ */

int pusher__new(const struct push_opts *o, struct pusher **out, char *err,
		size_t errlen)
{
	sigset_t all, old;
	struct pusher *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->o = *o;
	p->qtail = &p->qhead;
	ret = push_target__init(&p->t, o, err, errlen);
	if (ret)
		goto out_free;
	ret = push_http__new(o->timeout_s, &p->abort, &p->http);
	if (ret) {
		snprintf(err, errlen, "cannot start libcurl");
		goto out_free;
	}
	pthread_mutex_init(&p->lock, NULL);
	{
		pthread_condattr_t ca;

		/* Timed waits on CLOCK_MONOTONIC: a clock step is no stall. */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->sender_cond, &ca);
		pthread_cond_init(&p->cutter_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	/*
	 * The threads take no signal: the caller's loop reads its own from
	 * a signalfd, and a SIGINT delivered to a thread would be lost.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&p->cutter, NULL, cutter_main, p);
	if (!ret) {
		p->cutter_started = true;
		ret = -pthread_create(&p->sender, NULL, sender_main, p);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		snprintf(err, errlen, "cannot start the push threads: %s",
			 strerror(-ret));
		p->sender_started = false;
		pusher__finish(p, NULL);
		return ret;
	}
	p->sender_started = true;
	*out = p;
	return 0;
out_free:
	push_http__free(p->http);
	free(p);
	return ret;
}

struct push_stream *pusher__add(struct pusher *p, const char *path)
{
	struct push_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path)) ||
	    push_cutter__init(&s->cut, p->o.interval_s, on_interval, s)) {
		if (s) {
			push_cutter__release(&s->cut);
			free(s->path);
		}
		free(s);
		pthread_mutex_lock(&p->lock);
		p->st.failed++;
		pthread_mutex_unlock(&p->lock);
		return NULL;
	}
	s->p = p;
	s->fd = -1;
	pthread_mutex_lock(&p->lock);
	s->next = p->incoming;
	p->incoming = s;
	pthread_mutex_unlock(&p->lock);
	return s;
}

void push_stream__commit(struct push_stream *s, uint64_t len)
{
	if (s)
		atomic_store_explicit(&s->committed, len, memory_order_release);
}

void push_stream__end(struct push_stream *s)
{
	if (s)
		atomic_store_explicit(&s->ended, true, memory_order_release);
}

void pusher__finish(struct pusher *p, struct push_stats *st)
{
	uint64_t deadline;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->cutter_cond);
	pthread_mutex_unlock(&p->lock);
	if (p->cutter_started)
		pthread_join(p->cutter, NULL);
	else
		p->cutter_done = true;
	/* The network gets one timeout to take what is queued. */
	deadline = mono_ms() + (uint64_t)p->o.timeout_s * 1000;
	pthread_mutex_lock(&p->lock);
	while (p->sender_started && p->qhead && mono_ms() < deadline)
		cond_wait_until(&p->cutter_cond, &p->lock, mono_ms() + POLL_MS);
	atomic_store(&p->abort, true);
	pthread_cond_broadcast(&p->sender_cond);
	pthread_mutex_unlock(&p->lock);
	if (p->sender_started)
		pthread_join(p->sender, NULL);
	while (p->qhead) {
		p->st.dropped++;
		queue_pop(p);
	}
	if (st)
		*st = p->st;
	push_http__free(p->http);
	pthread_cond_destroy(&p->sender_cond);
	pthread_cond_destroy(&p->cutter_cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
