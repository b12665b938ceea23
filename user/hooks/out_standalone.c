// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_standalone.c - the standalone outputs (file://, tcp://, unix://):
 * the library writes FXT itself, through the same pipeline as `fxtprof
 * record` (stream state, FXT encoder, non-blocking sink), on a writer
 * thread of its own.
 *
 * Application threads never wait: each one appends ANNOTATION records
 * (struct fxtprof_annotation_rec, timed with CLOCK_BOOTTIME as the
 * module's records are) to a ring of its own (thread_ring.h), and a full
 * ring drops the record and counts it.  A thread's first record in its
 * ring is a SNAPSHOT naming it and its process, so the stream state names
 * every thread before its first event, and again at every new segment
 * (a reconnected socket).  A thread renamed later (prctl(PR_SET_NAME),
 * pthread_setname_np()) is renamed in the stream as `fxtprof record`
 * renames it from the module's task_rename records: a RENAME record in
 * its ring, the same path through the stream state.  Nothing tells the
 * library of a rename, and a PR_GET_NAME per annotation would cost more
 * than the annotation, so an emitting thread re-reads its comm at most
 * every COMM_CHECK_NS of its own clock, and once more when it exits or
 * calls finalize.
 *
 * The writer thread opens the pipeline itself (initialize waits for it):
 * the io_uring loop is single issuer, and only the thread that made it may
 * submit.  New threads hand their ring to the writer through a lock-free
 * list; the writer moves them to its own list, drains every ring in turn,
 * feeds the records to the stream state, and frees the rings of threads
 * that have exited once they are empty.  Between turns it waits on its io_uring
 * loop, which also completes the socket's sends.  A ring that refused
 * records says so in the stream, as the module's rings do: a LOST record
 * at the next reserve that succeeds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "encode/fxt_encoder.h"
#include "sink/sink.h"
#include "state/stream_state.h"
#include "transport/clock.h"
#include "transport/evloop.h"

#include "hooks_out.h"
#include "hooks_state.h"
#include "hooks_thread.h"

#define RING_SIZE_DEFAULT	(256u << 10)	/* per thread */
#define LINGER_MS_DEFAULT	2000
/*
 * The writer's wait between turns.  A turn that found this many records
 * or more goes again at once: the rings are filling faster than one wait
 * empties them.  Fewer, and it waits, so that a steady trickle of
 * annotations does not keep a CPU busy.
 */
#define WRITER_IDLE_MS		5
#define WRITER_BUSY_RECORDS	1024
/* How often an annotating thread looks whether it was renamed. */
#define COMM_CHECK_NS		100000000ull	/* 100 ms */

struct standalone {
	struct evloop loop;
	struct sink *sink;
	struct fxt_encoder *enc;
	struct stream_state state;
	pthread_t writer;
	char *uri;			/* until the writer opened it */
	size_t max_buffered;
	sem_t opened;			/* the writer posts open_result */
	int open_result;

	_Atomic bool stop;
	int result;			/* the writer's: 0 or -EIO */
	/* Threads not seen by the writer yet (pushed by their producers). */
	struct hooks_thread *_Atomic fresh;
	struct hooks_thread *threads;	/* the writer's */
	size_t ring_size;
	int64_t linger_ms;
	uint32_t pid, ppid;
	char process_comm[FXTPROF_COMM_LEN];
};

static struct standalone sa;

/* A size from the environment, or @def. */
static uint64_t env_u64(const char *var, uint64_t def)
{
	const char *v = getenv(var);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "fxtprof-hooks: %s=%s is not a number; using %llu\n",
			var, v, (unsigned long long)def);
		return def;
	}
	return n;
}

static void read_process_comm(char *comm)
{
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, comm, FXTPROF_COMM_LEN - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = snprintf(comm, FXTPROF_COMM_LEN, "pid %u", sa.pid);
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static void snapshot_fill(struct fxtprof_snapshot *s, uint32_t tid,
			  const char *comm)
{
	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s);
	s->hdr.type = FXTPROF_REC_SNAPSHOT;
	s->hdr.cpu = (uint16_t)sched_getcpu();
	s->hdr.time_ns = clock_ns(CLOCK_BOOTTIME);
	s->pid = sa.pid;
	s->tid = tid;
	s->ppid = sa.ppid;
	memcpy(s->comm, comm, FXTPROF_COMM_LEN - 1);
	memcpy(s->process_comm, sa.process_comm, FXTPROF_COMM_LEN);
}

/* A new thread's ring: joins the writer's list.  0 or -errno. */
static int out_standalone__add_thread(struct hooks_thread *t)
{
	struct fxtprof_snapshot *s;
	char comm[FXTPROF_COMM_LEN] = "";
	int ret;

	ret = thread_ring__init(&t->ring, sa.ring_size);
	if (ret)
		return ret;
	prctl(PR_GET_NAME, comm);
	memcpy(t->comm, comm, sizeof(t->comm));
	/* The ring is empty: the snapshot fits. */
	s = thread_ring__reserve(&t->ring, sizeof(*s));
	snapshot_fill(s, t->tid, comm);
	t->comm_checked_ns = s->hdr.time_ns;
	thread_ring__commit(&t->ring);

	atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	t->next = atomic_load_explicit(&sa.fresh, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&sa.fresh, &t->next, t,
						      memory_order_release,
						      memory_order_relaxed))
		;
	return 0;
}

/*
 * Drops are said in the stream as the module's rings say theirs: a LOST
 * record, in the ring, at the next reserve that succeeds.
 */
static bool report_lost(struct hooks_thread *t)
{
	struct fxtprof_lost *l = thread_ring__reserve(&t->ring, sizeof(*l));

	if (!l)
		return false;
	l->hdr.size = sizeof(*l);
	l->hdr.type = FXTPROF_REC_LOST;
	l->hdr.cpu = (uint16_t)sched_getcpu();
	l->hdr.time_ns = t->lost_last_ns;
	l->records = t->lost_records;
	l->bytes = t->lost_bytes;
	l->first_ns = t->lost_first_ns;
	l->last_ns = t->lost_last_ns;
	thread_ring__commit(&t->ring);
	t->lost_records = t->lost_bytes = 0;
	t->lost_first_ns = t->lost_last_ns = 0;
	return true;
}

/*
 * A ring too full for the RENAME keeps the old name in t->comm: the next
 * check tries again.
 */
static void check_comm(struct hooks_thread *t, uint64_t now)
{
	char comm[FXTPROF_COMM_LEN] = "";
	struct fxtprof_rename *r;

	t->comm_checked_ns = now;
	if (prctl(PR_GET_NAME, comm) || !memcmp(comm, t->comm, sizeof(comm)))
		return;
	r = thread_ring__reserve(&t->ring, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->hdr.size = sizeof(*r);
	r->hdr.type = FXTPROF_REC_RENAME;
	r->hdr.cpu = (uint16_t)sched_getcpu();
	r->hdr.time_ns = now;
	r->pid = t->pid;
	r->tid = t->tid;
	memcpy(r->old_comm, t->comm, sizeof(r->old_comm));
	memcpy(r->comm, comm, sizeof(r->comm));
	thread_ring__commit(&t->ring);
	memcpy(t->comm, comm, sizeof(t->comm));
}

static void out_standalone__check_comm(struct hooks_thread *t)
{
	if (t->ring_ok && (!t->lost_records || report_lost(t)))
		check_comm(t, clock_ns(CLOCK_BOOTTIME));
}

void out_standalone__emit(struct hooks_thread *t, unsigned int kind,
			  uint64_t key, const char *name, uint16_t len)
{
	size_t size = offsetof(struct fxtprof_annotation_rec, name) +
		      (((size_t)len + 7) & ~(size_t)7);
	uint64_t now = clock_ns(CLOCK_BOOTTIME);
	struct fxtprof_annotation_rec *r = NULL;

	if (t->ring_ok && (!t->lost_records || report_lost(t))) {
		if (now - t->comm_checked_ns >= COMM_CHECK_NS)
			check_comm(t, now);
		r = thread_ring__reserve(&t->ring, size);
	}
	if (!r) {
		if (!t->lost_records++)
			t->lost_first_ns = now;
		t->lost_last_ns = now;
		t->lost_bytes += size;
		hooks_inc(dropped);
		return;
	}
	r->hdr.size = (uint32_t)size;
	r->hdr.type = FXTPROF_REC_ANNOTATION;
	r->hdr.cpu = (uint16_t)sched_getcpu();
	r->hdr.time_ns = now;
	r->pid = t->pid;
	r->tid = t->tid;
	r->kind = (uint16_t)kind;
	r->name_len = len;
	r->reserved = 0;
	r->key = key;
	/* Zero the padding of the last word, then the name over it. */
	if (len & 7)
		memset(r->name + (len & ~7u), 0, 8);
	memcpy(r->name, name, len);
	thread_ring__commit(&t->ring);
}

static void writer_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	(void)ctx;
	if (rec->type == FXTPROF_REC_ANNOTATION)
		hooks_inc(annotations);
	stream_state__record(&sa.state, rec);
}

/*
 * A thread that exited, once its ring is drained: the stream state is told
 * as the module tells `fxtprof record`, with an EXIT record, so that it
 * forgets the thread's name.  Without it, a process that starts and ends
 * threads forever would grow the name table forever.
 */
static void writer_thread_exited(const struct hooks_thread *t)
{
	struct fxtprof_exit x = {
		.hdr = {
			.size = sizeof(x),
			.type = FXTPROF_REC_EXIT,
			.cpu = (uint16_t)sched_getcpu(),
			.time_ns = t->exit_ns,
		},
		.pid = t->pid,
		.tid = t->tid,
	};

	memcpy(x.comm, t->comm, sizeof(x.comm));
	stream_state__record(&sa.state, &x.hdr);
}

/* Drain each ring of @list; free those of threads gone.  The records. */
static unsigned int writer_drain_list(struct hooks_thread **list)
{
	struct hooks_thread **pp, *t;
	unsigned int n = 0;

	for (pp = list; (t = *pp);) {
		/* Read before draining: what it wrote before exiting is in. */
		bool gone = atomic_load_explicit(&t->exited,
						 memory_order_acquire);

		n += thread_ring__drain(&t->ring, writer_record, NULL);
		if (gone) {
			*pp = t->next;
			writer_thread_exited(t);
			hooks_thread__put(t);
		} else {
			pp = &t->next;
		}
	}
	return n;
}

/*
 * One turn over every ring; returns the records drained.  The threads
 * known already go first, so that the exit of one whose tid a new thread
 * took again reaches the stream state before the new thread's name.
 */
static unsigned int writer_drain(void)
{
	struct hooks_thread *fresh, *added = NULL, *t;
	unsigned int n;

	n = writer_drain_list(&sa.threads);
	fresh = atomic_exchange_explicit(&sa.fresh, NULL, memory_order_acquire);
	while (fresh) {
		t = fresh;
		fresh = t->next;
		t->next = added;
		added = t;
	}
	n += writer_drain_list(&added);
	while ((t = added)) {
		added = t->next;
		t->next = sa.threads;
		sa.threads = t;
	}
	return n;
}

/* The notices, and the output's counts for fxtprof_get_stats(). */
static void writer_announce(void)
{
	uint64_t now = clock_ns(CLOCK_BOOTTIME);

	stream_state__announce_errors(&sa.state, now);
	stream_state__announce_gap(&sa.state, now);
	atomic_store_explicit(&hooks_count.output_dropped,
			      sink__stats(sa.sink)->dropped_records,
			      memory_order_relaxed);
	atomic_store_explicit(&hooks_count.encode_errors,
			      sa.state.st.encode_errors, memory_order_relaxed);
}

/* After the last drain: the notices, then flush and close, bounded. */
static int writer_finish(void)
{
	uint64_t deadline = clock_ns(CLOCK_BOOTTIME) +
			    (uint64_t)sa.linger_ms * 1000000;
	const struct sink_stats *st;
	int ret = 0;

	for (;;) {
		writer_announce();
		sink__flush(sa.sink);
		if (!sink__gap_records(sa.sink) || sink__error(sa.sink) ||
		    clock_ns(CLOCK_BOOTTIME) >= deadline)
			break;
		evloop__run_once(&sa.loop, WRITER_IDLE_MS);
	}
	if (sink__linger(sa.sink, sa.linger_ms))
		fprintf(stderr, "fxtprof-hooks: output not drained after %lld ms\n",
			(long long)sa.linger_ms);
	st = sink__stats(sa.sink);
	/* What is still queued is dropped by the close. */
	atomic_store(&hooks_count.output_dropped,
		     st->dropped_records + st->buffered_records);
	atomic_store(&hooks_count.encode_errors, sa.state.st.encode_errors);
	if (sa.state.st.encode_errors || !sink__complete(sa.sink))
		ret = -EIO;
	return ret;
}

/*
 * The pipeline, opened on the writer thread: its io_uring is single
 * issuer, so the thread that submits must be the one that made it.
 * 0 or -errno, said on stderr.
 */
static int writer_open(void)
{
	struct sink_opts so = { 0 };
	struct fxtprof_snapshot s;
	char err[256] = "";
	int ret;

	so.max_buffered = sa.max_buffered;
	ret = evloop__init(&sa.loop, 16);
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: cannot set up io_uring: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = sink__open(&sa.sink, sa.uri, &sa.loop, &so, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: %s\n", err);
		goto out_fini_loop;
	}
	ret = fxt_encoder__new(&sa.enc, sa.sink);
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: cannot create the FXT encoder: %s\n",
			strerror(-ret));
		goto out_close_sink;
	}
	stream_state__init(&sa.state, fxt_encoder__encoder(sa.enc), sa.sink);
	stream_state__anchor_wall_clock(&sa.state);
	ret = stream_state__sync(&sa.state);
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: cannot write the trace prologue: %s\n",
			strerror(-ret));
		goto out_free_encoder;
	}
	/* The process is named even if its main thread never annotates. */
	snapshot_fill(&s, sa.pid, sa.process_comm);
	stream_state__record(&sa.state, &s.hdr);
	return 0;

out_free_encoder:
	stream_state__fini(&sa.state);
	fxt_encoder__free(sa.enc);
out_close_sink:
	sink__close(sa.sink);
out_fini_loop:
	evloop__fini(&sa.loop);
	return ret;
}

static void writer_close(void)
{
	stream_state__fini(&sa.state);
	fxt_encoder__free(sa.enc);
	sink__close(sa.sink);
	evloop__fini(&sa.loop);
}

static void *writer_main(void *arg)
{
	int ret = writer_open();

	(void)arg;
	sa.open_result = ret;
	sem_post(&sa.opened);
	if (ret)
		return NULL;
	for (;;) {
		bool stop = atomic_load_explicit(&sa.stop, memory_order_acquire);
		unsigned int n = writer_drain();

		writer_announce();
		sink__flush(sa.sink);
		if (stop && !n)
			break;
		evloop__run_once(&sa.loop,
				 n >= WRITER_BUSY_RECORDS ? 0 : WRITER_IDLE_MS);
	}
	sa.result = writer_finish();
	writer_close();
	return NULL;
}

int out_standalone__open(const char *uri)
{
	sigset_t all, old;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.pid = (uint32_t)getpid();
	sa.ppid = (uint32_t)getppid();
	sa.ring_size = env_u64("FXTPROF_HOOKS_RING_SIZE", RING_SIZE_DEFAULT);
	sa.linger_ms = (int64_t)env_u64("FXTPROF_HOOKS_LINGER_MS",
					LINGER_MS_DEFAULT);
	sa.max_buffered = env_u64("FXTPROF_HOOKS_MAX_BUFFERED", 0);
	read_process_comm(sa.process_comm);
	sa.uri = strdup(uri);
	if (!sa.uri || sem_init(&sa.opened, 0, 0)) {
		free(sa.uri);
		return -ENOMEM;
	}

	/* The writer takes no signal: they stay the application's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&sa.writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: cannot start the writer thread: %s\n",
			strerror(-ret));
		goto out_free;
	}
	pthread_setname_np(sa.writer, "fxtprof-hooks");
	while (sem_wait(&sa.opened) && errno == EINTR)
		;
	ret = sa.open_result;
	if (ret)
		pthread_join(sa.writer, NULL);
out_free:
	sem_destroy(&sa.opened);
	free(sa.uri);
	sa.uri = NULL;
	return ret;
}

int out_standalone__close(void)
{
	struct hooks_thread *t;

	atomic_store_explicit(&sa.stop, true, memory_order_release);
	pthread_join(sa.writer, NULL);
	/* Let go of the rings; a live thread frees its own when it exits. */
	t = atomic_exchange(&sa.fresh, NULL);
	while (t) {
		struct hooks_thread *next = t->next;

		hooks_thread__put(t);
		t = next;
	}
	while ((t = sa.threads)) {
		sa.threads = t->next;
		hooks_thread__put(t);
	}
	return sa.result;
}

const struct hooks_thread_ops out_standalone_thread_ops = {
	.add = out_standalone__add_thread,
	.check_comm = out_standalone__check_comm,
};
