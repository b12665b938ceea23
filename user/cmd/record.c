// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - `fxtprof record`: the event loop.  It assembles the pipeline
 * (Documentation/architecture.md): a record source (source.h: the module's
 * rings, or the eBPF programs) drains into the stream state, which drives
 * the FXT encoder, which writes in place into the sink.  The options are
 * record_opts.c's; the flight recorder, which listens to the stream state
 * for triggers, is record_flight.c's.
 *
 * The loop waits on three things and never busy-waits:
 *  - readiness of the source's fd (a multishot poll, re-armed whenever a
 *    completion arrives without IORING_CQE_F_MORE);
 *  - a periodic timeout, which bounds latency below the watermark and
 *    drives the status line and --duration;
 *  - SIGINT/SIGTERM (stop) and SIGUSR1 (flush, going on), read from a
 *    signalfd.
 *
 * A flush (SIGUSR1, and the one stop makes) is complete when the drains
 * have passed its FLUSH marker on every ring: then everything committed
 * before it is in the output.  See Documentation/protocol.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "record_flight.h"
#include "record_opts.h"
#include "record_collect.h"
#include "record_procs.h"
#include "record_symbols.h"
#include "record_unwind.h"
#include "push/push.h"
#include "sources.h"
#ifdef FXTPROF_HAVE_SYMBOLS
#include "export.h"
#endif
#include "encode/fxt_encoder.h"
#include "record_memory.h"
#include <libfxtprof.h>
#include "sink/sink.h"
#include "source/source.h"
#include "state/stream_state.h"
#include "transport/clock.h"
#include "transport/evloop.h"

#define TICK_MS		100
/* After a mapping, the rings are drained this soon (on_settle). */
#define SETTLE_MS	2

struct recorder {
	struct record_opts *opts;
	struct evloop loop;
	struct source *src;
	struct sink *out;
	struct fxt_encoder *enc;
	struct stream_state state;
	struct record_symbols syms;
	struct record_unwind unwind;
	/* --push: the pusher tails the output file (user/push/push.h). */
	struct pusher *pusher;
	struct push_stream *push;
	struct record_procs procs;
	struct record_collect collect;	/* --collect */

	struct ev_handler poll_h;
	struct ev_handler sideband_h;	/* a new mapping: record_symbols */
	struct ev_handler settle_h;	/* SETTLE_MS after it: the rings */
	struct __kernel_timespec settle;
	bool settle_armed;
	struct ev_handler tick_h;
	struct ev_handler sig_h;
	struct __kernel_timespec tick;
	struct signalfd_siginfo si;
	int sigfd;

	bool stop;
	bool flush_pending;		/* a SIGUSR1 flush not yet complete */
	__u64 flush_seq;
	uint64_t flush_ns;		/* when it was asked for */
	bool status_line;
	int error;
	uint64_t start_ns;
	uint64_t last_status_ns;
	uint64_t last_samples;

	bool flight;			/* --flight-recorder */
	struct flight_recorder fr;
	struct record_memory_trim trim;
};

#ifdef FXTPROF_HAVE_SYMBOLS
/*
 * --symbolize: the finished, synced recording through `fxtprof symbolize`
 * into a file beside it, which then replaces it.  Until the rename the
 * recording is untouched, so a failure here loses nothing: it only says
 * that the call stacks are missing.
 */
static int symbolize_recording(const struct record_opts *o)
{
	const char *path = record_opts__path(o->uri);
	char tmp[PATH_MAX], mode[16];
	int saved_stdout;
	char *argv[] = { "symbolize", "--mode", mode, "-o", tmp,
			 (char *)path, NULL };
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.symbolize", path) >=
	    (int)sizeof(tmp))
		return reader_err(-ENAMETOOLONG, "--symbolize: %s", path);
	snprintf(mode, sizeof(mode), "%o", o->file_mode ? o->file_mode : 0600);
	/*
	 * symbolize prints its summary on stdout; record keeps stdout for
	 * the trace ("-") and says everything else on stderr, so its summary
	 * goes there too.
	 */
	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	if (saved_stdout >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	rc = cmd_symbolize(6, argv);
	fflush(stdout);
	if (saved_stdout >= 0) {
		dup2(saved_stdout, STDOUT_FILENO);
		close(saved_stdout);
	}
	if (rc == CMD_EXIT_OK && rename(tmp, path)) {
		reader_err(-errno, "--symbolize: cannot replace %s", path);
		rc = CMD_EXIT_FAILED;
	}
	if (rc == CMD_EXIT_OK)
		fprintf(stderr, "fxtprof: --symbolize: %s now holds the "
			"recording and its call stacks\n", path);
	if (rc != CMD_EXIT_OK) {
		unlink(tmp);
		fprintf(stderr, "fxtprof: --symbolize failed: %s is the "
			"recording without its call stacks\n", path);
		return CMD_EXIT_FAILED;
	}
	return CMD_EXIT_OK;
}
#endif

/* ------------------------------------------------------------------ */
/* The source                                                          */
/* ------------------------------------------------------------------ */

/*
 * Open and configure the chosen source, with --sources resolved against
 * its table of data sources; 0 or a reported -errno.
 */
static int source_open(struct recorder *r)
{
	const struct record_opts *o = r->opts;
	const struct source_opts so = { .device = o->device };
	const struct source_ops *ops = record_opts__source(o);
	struct fxtprof_source tab[SOURCES_MAX];
	struct fxtprof_config cfg = o->cfg;
	int n, ret;

	r->src = source__new(ops);
	if (!r->src)
		return reader_err(-ENOMEM, "cannot open the %s source",
				  ops->name);
	ret = ops->open(r->src, &so);
	if (ret)
		return reader_err(ret, "%s", source__error(r->src));
	if (o->sources) {
		n = ops->data_sources(r->src, tab, SOURCES_MAX);
		if (n < 0)
			return reader_err(n, "%s", source__error(r->src));
		ret = sources_resolve(tab, n, ops->desc, o->sources,
				      &cfg.flags);
		if (ret)
			return ret;
	}
	if (o->off_cpu) {
		if (!ops->offcpu)
			return reader_err(-EOPNOTSUPP, "--off-cpu needs the "
					  "stacks of waits, which %s cannot "
					  "take", ops->desc);
		if (o->no_shared_stacks)
			return reader_err(-EINVAL, "--off-cpu writes the "
					  "stacks of waits shared: it cannot "
					  "go with --no-shared-stacks");
		cfg.flags |= FXTPROF_CFG_SCHED | FXTPROF_CFG_OFFCPU;
	}
	if ((cfg.flags & FXTPROF_CFG_STACK_COPY) && !ops->stack_copy)
		return reader_err(-EOPNOTSUPP, "--call-graph dwarf needs stack "
				  "copies, which %s cannot take: record with "
				  "--source module, or use --call-graph cfi",
				  ops->desc);
	record_unwind__config(o, ops, &cfg);
	ret = ops->configure(r->src, &cfg);
	if (ret && record_unwind__fallback(o, ret, source__error(r->src),
					   &cfg))
		ret = ops->configure(r->src, &cfg);
	if (ret)
		return reader_err(ret, "%s", source__error(r->src));
	ret = record_unwind__init(&r->unwind, r->src, &cfg);
	if (ret)
		return reader_err(ret, "cannot set up the unwind tables");
	r->syms.unwind = r->unwind.src ? &r->unwind : NULL;
	return 0;
}

/* Its sentence, if it left one, then what could not be done. */
static int source_failed(struct recorder *r, int ret, const char *what)
{
	if (*source__error(r->src))
		reader_err(ret, "%s", source__error(r->src));
	return reader_err(ret, "%s", what);
}

/* ------------------------------------------------------------------ */
/* Draining                                                            */
/* ------------------------------------------------------------------ */

/* The in-band notices, before each turn's records; retried until taken. */
static void announce(struct recorder *r)
{
	uint64_t now = clock_ns(CLOCK_BOOTTIME);

	stream_state__announce_errors(&r->state, now);
	stream_state__announce_gap(&r->state, now);
}

/* A record from the source: what it tells the unwind side, then out. */
static int source_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct recorder *r = ctx;

	record_unwind__record(&r->unwind, rec);
	return stream_state__record(&r->state, rec);
}

static int drain_rings(struct recorder *r)
{
	int ret;

	announce(r);
	/*
	 * Mappings first: a sample's mapping was created before the sample,
	 * so it is in the side-band by now and goes out ahead of it.
	 */
	record_symbols__drain(&r->syms);
	ret = r->src->ops->drain(r->src, source_record, r);
	if (ret)
		return reader_err(ret, "%s", source__error(r->src));
	sink__flush(r->out);
	if (r->flush_pending &&
	    r->src->ops->flush_done(r->src, r->flush_seq)) {
		r->flush_pending = false;
		if (!r->opts->quiet)
			fprintf(stderr, "fxtprof: flush %llu complete after %.3f ms\n",
				(unsigned long long)r->flush_seq,
				(double)(clock_ns(CLOCK_BOOTTIME) - r->flush_ns) / 1e6);
	}
	if (r->flight)
		flight_recorder__turn(&r->fr);
	return 0;
}

/* -v: the recorder's memory, part by part (record_memory.h). */
static void memory_account(struct recorder *r)
{
	struct record_memory m;
	int ret = record_memory__take(&m, &r->state, r->out, &r->syms,
				      &r->unwind);

	if (ret)
		reader_err(ret, "memory: /proc/self cannot be read; its parts "
			   "are missing below");
	record_memory__print(stderr, &m, &r->trim);
}

/*
 * SIGUSR1: everything committed until now goes to the output, and the
 * recording goes on.  A flush asked for while one is pending supersedes
 * it: its marker comes later on every ring.
 */
static void request_flush(struct recorder *r)
{
	uint64_t now = clock_ns(CLOCK_BOOTTIME);
	__u64 seq;
	int ret = r->src->ops->flush(r->src, &seq);

	if (ret) {
		reader_err(ret, "flush failed; recording goes on");
		return;
	}
	if (!r->opts->quiet)
		fprintf(stderr, "fxtprof: flush %llu requested (SIGUSR1)\n",
			(unsigned long long)seq);
	r->flush_pending = true;
	r->flush_seq = seq;
	r->flush_ns = now;
	if (drain_rings(r))
		r->stop = true;
}

/* ------------------------------------------------------------------ */
/* Event handlers                                                      */
/* ------------------------------------------------------------------ */

static void arm_poll(struct recorder *r)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, &r->poll_h);

	if (sqe)
		io_uring_prep_poll_multishot(sqe, r->src->ops->fd(r->src),
					     POLLIN);
}

/* One shot: perf's poll says "new data" once per wakeup. */
static void arm_sideband(struct recorder *r)
{
	int fd = record_symbols__fd(&r->syms);
	struct io_uring_sqe *sqe;

	if (fd < 0)
		return;
	sqe = evloop__sqe(&r->loop, &r->sideband_h);
	if (sqe)
		io_uring_prep_poll_add(sqe, fd, POLLIN);
}

/*
 * The rings, SETTLE_MS after a mapping: an exec's record comes after its
 * new image's mappings, and the source drops the process's unwind ranges
 * when the exec ends; the recorder gives them again when it reads that
 * record (record_unwind.c, on_exec), which should not wait for the tick.
 */
static void on_settle(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    settle_h));

	(void)cqe;
	r->settle_armed = false;
	if (!r->stop && drain_rings(r))
		r->stop = true;
}

/* A one-shot timeout of @ms on @h; whether it was queued. */
static bool arm_timeout(struct recorder *r, struct ev_handler *h,
			struct __kernel_timespec *ts, unsigned int ms)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, h);

	ts->tv_sec = ms / 1000;
	ts->tv_nsec = (ms % 1000) * 1000000ll;
	if (sqe)
		io_uring_prep_timeout(sqe, ts, 0, 0);
	return sqe;
}

/* Only unwinding needs the exec record soon: without it, the tick. */
static void arm_settle(struct recorder *r)
{
	if (!r->settle_armed && record_unwind__active(&r->unwind))
		r->settle_armed = arm_timeout(r, &r->settle_h, &r->settle,
					      SETTLE_MS);
}

/*
 * A mapping was made: hand it on now, so that its unwind table is mapped
 * while the process starts (a process of 30 ms is over by the next tick).
 */
static void on_sideband(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    sideband_h));

	if (cqe->res < 0 && cqe->res != -ECANCELED)
		return;		/* the tick still drains it */
	record_symbols__drain(&r->syms);
	if (r->stop)
		return;
	arm_sideband(r);
	arm_settle(r);
}

static void arm_tick(struct recorder *r)
{
	arm_timeout(r, &r->tick_h, &r->tick, TICK_MS);
}

static void arm_signal(struct recorder *r)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, &r->sig_h);

	if (sqe)
		io_uring_prep_read(sqe, r->sigfd, &r->si, sizeof(r->si), 0);
}

static void on_poll(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    poll_h));

	if (cqe->res < 0 && cqe->res != -ECANCELED) {
		r->error = reader_err(cqe->res, "poll on the device failed");
		r->stop = true;
		return;
	}
	if (drain_rings(r))
		r->stop = true;
	record_collect__send(&r->collect);
	if (!(cqe->flags & IORING_CQE_F_MORE) && !r->stop)
		arm_poll(r);
}

static void print_status(struct recorder *r, uint64_t now)
{
	const struct sink_stats *os = sink__stats(r->out);
	uint64_t samples = r->state.st.records[FXTPROF_REC_SAMPLE];
	double dt = (double)(now - r->last_status_ns) / 1e9;

	double out_mb = (double)os->sent_bytes / 1e6;

	/* A flight recorder sends nothing: what its window holds instead. */
	if (r->flight) {
		struct flight_window_stats ws;

		flight_window__stats(r->fr.win, &ws);
		out_mb = (double)ws.held_bytes / 1e6;
	}
	fprintf(stderr, "\r\033[Kfxtprof: %.0f samples/s, kernel lost %" PRIu64
		" records, %s %.1f MB, dropped %" PRIu64,
		dt > 0 ? (double)(samples - r->last_samples) / dt : 0.0,
		r->state.st.kernel_lost_records, r->flight ? "window" : "out",
		out_mb, os->dropped_records);
	r->last_samples = samples;
	r->last_status_ns = now;
}

/*
 * --push: what the file holds now.  A record the sink has not written
 * whole yet waits in the pusher for the rest.
 */
static void record_push_commit(struct recorder *r)
{
	struct stat st;

	if (r->push && !stat(record_opts__path(r->opts->uri), &st))
		push_stream__commit(r->push, (uint64_t)st.st_size);
}

/*
 * --push: the file is whole (the sink is closed): push its last
 * intervals and say what became of them.  false when some were lost.
 */
static bool record_push_finish(struct recorder *r)
{
	struct push_stats st;

	if (!r->pusher)
		return true;
	record_push_commit(r);
	push_stream__end(r->push);
	pusher__finish(r->pusher, &st);
	r->pusher = NULL;
	/* Said even with -q: a loss changes the exit status. */
	return push_stats__print(&st, stderr);
}

static void on_tick(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    tick_h));
	uint64_t now = clock_ns(CLOCK_BOOTTIME);

	(void)cqe;
	if (drain_rings(r))
		r->stop = true;
	record_collect__send(&r->collect);
	record_push_commit(r);
	record_unwind__tick(&r->unwind, now);
	record_memory__trim(&r->trim, now);
	if (r->status_line && now - r->last_status_ns >= 1000000000u)
		print_status(r, now);
	if (r->opts->duration > 0 &&
	    (double)(now - r->start_ns) >= r->opts->duration * 1e9)
		r->stop = true;
	if (!r->stop)
		arm_tick(r);
}

static void on_signal(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    sig_h));

	if (cqe->res == (int)sizeof(r->si) && r->si.ssi_signo == SIGUSR1) {
		request_flush(r);
		if (r->opts->verbose)
			memory_account(r);
		if (!r->stop)
			arm_signal(r);
		return;
	}
	if (cqe->res == (int)sizeof(r->si) && r->si.ssi_signo == SIGUSR2 &&
	    r->flight) {
		flight_recorder__request(&r->fr, "sigusr2", 7,
					 clock_ns(CLOCK_BOOTTIME));
		if (!r->stop)
			arm_signal(r);
		return;
	}
	r->stop = true;
}

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

static int setup_signals(struct recorder *r, sigset_t *old)
{
	sigset_t set;

	r->sigfd = reader_signalfd(old);
	if (r->sigfd < 0)
		return r->sigfd;
	/*
	 * The stop signals, SIGUSR1 for a flush and, with the flight
	 * recorder, SIGUSR2 for a snapshot (the fd's mask is replaced, not
	 * added to).
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	if (r->flight)
		sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) ||
	    signalfd(r->sigfd, &set, SFD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

/*
 * Stop, then flush: the marker is the last record of every ring, and
 * once the drains pass it on every ring nothing committed is left.  The
 * flush also writes any pending LOST record, so the counts end exact.
 */
static int stop_and_flush(struct recorder *r)
{
	uint64_t deadline;
	__u64 seq;
	int ret;

	ret = r->src->ops->stop(r->src);
	if (ret)
		return reader_err(ret, "cannot stop the session");
	ret = r->src->ops->flush(r->src, &seq);
	if (ret)
		return reader_err(ret, "cannot flush the session");
	deadline = clock_ns(CLOCK_BOOTTIME) + 5 * 1000000000ull;
	for (;;) {
		ret = drain_rings(r);
		if (ret)
			return ret;
		if (r->src->ops->flush_done(r->src, seq))
			return 0;
		if (clock_ns(CLOCK_BOOTTIME) >= deadline)
			return reader_err(-ETIMEDOUT, "flush %llu at stop did not complete: the end of the recording is missing",
					  (unsigned long long)seq);
		evloop__run_once(&r->loop, TICK_MS);
	}
}

/*
 * --collect stream: the files queued go into the stream before its end,
 * as the loop sends them, within the linger time (a stuck peer must not
 * hold us); what is left is abandoned and counted.
 */
static void collect_finish(struct recorder *r)
{
	uint64_t deadline = clock_ns(CLOCK_BOOTTIME) +
			    (uint64_t)(r->opts->linger * 1e9);

	while (record_collect__pending(&r->collect) && !sink__error(r->out) &&
	       clock_ns(CLOCK_BOOTTIME) < deadline) {
		record_collect__send(&r->collect);
		sink__flush(r->out);
		evloop__run_once(&r->loop, 5);
	}
	record_collect__send(&r->collect);
}

/* Stop sampling and drain to the very end: nothing committed is lost. */
static int finish(struct recorder *r, struct fxtprof_stats *total)
{
	uint64_t deadline;
	int ret;

	ret = stop_and_flush(r);
	if (ret)
		return ret;
	/* Triggers seen in the last turns: every ring is drained now. */
	if (r->flight)
		flight_recorder__finish(&r->fr);
	/* The JIT maps of the processes that live on. */
	record_procs__finish(&r->procs);
	/* Every mapping is met: the files queued are copied, then done. */
	collect_finish(r);
	record_collect__fini(&r->collect);

	r->src->ops->stats(r->src, total, r->opts->quiet ? NULL : stderr);
	stream_state__final_stats(&r->state, clock_ns(CLOCK_BOOTTIME), total);
	/*
	 * The last notice carries the final totals: wait (within the linger
	 * time) for room to write it, so the stream's count is exact.
	 */
	deadline = clock_ns(CLOCK_BOOTTIME) + (uint64_t)(r->opts->linger * 1e9);
	for (;;) {
		announce(r);
		sink__flush(r->out);
		if (!sink__gap_records(r->out) || sink__error(r->out) ||
		    clock_ns(CLOCK_BOOTTIME) >= deadline)
			break;
		evloop__run_once(&r->loop, TICK_MS);
	}

	/* Flush and close, bounded: a stuck peer must not hold us. */
	if (sink__linger(r->out, (int64_t)(r->opts->linger * 1e3)) &&
	    !r->opts->quiet)
		fprintf(stderr, "fxtprof: output not drained after %.1f s\n",
			r->opts->linger);
	return 0;
}

/*
 * --ready-file: the session samples and its first drain is armed, so a
 * workload started from now on is recorded.  Written beside and renamed,
 * so that whoever waits for the file never reads it half written.
 */
static int write_ready_file(const char *path)
{
	char tmp[PATH_MAX], pid[32];
	int fd, n, ret = 0;
	ssize_t w;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return reader_err(-ENAMETOOLONG, "--ready-file: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return reader_err(-errno, "--ready-file: cannot create %s",
				  tmp);
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	w = write(fd, pid, (size_t)n);
	if (w != n)
		ret = w < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return reader_err(ret, "--ready-file: cannot write %s", path);
	}
	return 0;
}

/* The reader's own cost: make bench-reader quotes this line. */
static void reader_cpu_line(double secs)
{
	struct rusage ru;
	double u, k;

	if (getrusage(RUSAGE_SELF, &ru) || !(secs > 0))
		return;
	u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	k = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "fxtprof: reader CPU %.3f s user + %.3f s system = "
		"%.2f%% of one core over %.1f s\n", u, k,
		100.0 * (u + k) / secs, secs);
}

static void summary(struct recorder *r, const struct fxtprof_stats *total)
{
	const struct stream_stats *ts = &r->state.st;
	double secs = (double)(clock_ns(CLOCK_BOOTTIME) - r->start_ns) / 1e9;

	if (r->status_line)
		fputc('\n', stderr);
	fprintf(stderr,
		"fxtprof: %.1f s: %" PRIu64 " samples, %" PRIu64 " forks, %"
		PRIu64 " execs, %" PRIu64 " exits, %" PRIu64 " threads at start\n",
		secs, ts->records[FXTPROF_REC_SAMPLE],
		ts->records[FXTPROF_REC_FORK], ts->records[FXTPROF_REC_EXEC],
		ts->records[FXTPROF_REC_EXIT], ts->records[FXTPROF_REC_SNAPSHOT]);
	if (ts->records[FXTPROF_REC_SWITCH] || ts->records[FXTPROF_REC_WAKEUP])
		fprintf(stderr, "fxtprof: %" PRIu64 " context switches, %"
			PRIu64 " wakeups\n", ts->records[FXTPROF_REC_SWITCH],
			ts->records[FXTPROF_REC_WAKEUP]);
	if (r->opts->off_cpu)
		fprintf(stderr, "fxtprof: %" PRIu64 " off-CPU waits of at "
			"least %.3f ms, with their stacks\n",
			ts->records[FXTPROF_REC_OFFCPU],
			(double)r->opts->cfg.offcpu_min_ns / 1e6);
	/* The bpf source's one ring buffer is a kernel ring too. */
	if (total->lost_records)
		fprintf(stderr, "fxtprof: kernel rings lost %llu records"
			" (%llu bytes); try a larger -m\n",
			(unsigned long long)total->lost_records,
			(unsigned long long)total->lost_bytes);
	else
		fprintf(stderr, "fxtprof: kernel rings lost nothing\n");
	if (ts->encode_errors)
		fprintf(stderr, "fxtprof: %" PRIu64 " records could not be"
			" encoded (last: %s); they are not output drops\n",
			ts->encode_errors, strerror(-ts->last_encode_error));
	else
		fprintf(stderr, "fxtprof: encoder errors: none\n");
	record_symbols__summary(&r->syms, r->opts, &r->state.st);
	record_procs__summary(&r->procs);
	record_collect__summary(&r->collect);
	record_unwind__summary(&r->unwind, total);
	if (r->flight)
		flight_recorder__summary(&r->fr);
	else
		cmd_delivery_summary(r->out, r->opts->uri, false);
	if (total->handler_calls)
		fprintf(stderr, "fxtprof: sampling handler %.1f us on average\n",
			(double)total->handler_ns / (double)total->handler_calls / 1e3);
	reader_cpu_line(secs);
	if (r->opts->verbose)
		memory_account(r);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	struct recorder r;
	struct sink_opts sopts = { 0 };
	struct fxtprof_stats total;
	sigset_t oldmask;
	char err[256];
	int ret, status = CMD_EXIT_OK;

	ret = record_opts__parse(&opts, argc, argv);
	if (ret)
		return ret > 0 ? CMD_EXIT_OK : CMD_EXIT_USAGE;
	record_memory__settle_allocator();

	memset(&r, 0, sizeof(r));
	r.opts = &opts;
	r.sigfd = -1;
	r.poll_h.complete = on_poll;
	r.sideband_h.complete = on_sideband;
	r.settle_h.complete = on_settle;
	r.tick_h.complete = on_tick;
	r.sig_h.complete = on_signal;
	r.status_line = !opts.quiet && isatty(STDERR_FILENO);

	ret = source_open(&r);
	if (ret)
		goto out_close_source;
	ret = evloop__init(&r.loop, 64);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		goto out_close_source;
	}
	sopts.max_buffered = opts.max_buffered;
	sopts.reconnect = opts.reconnect;
	sopts.file_mode = opts.file_mode;
	sopts.archive = opts.archive;
	sopts.archive_opts = opts.archive_opts;
	sopts.archive_flush_ms = opts.archive_flush_ms;
	r.flight = opts.flight_secs > 0;
	if (r.flight) {
		ret = flight_recorder__open(&r.fr, &opts, &r.out);
		if (ret)
			goto out_fini_loop;
	} else {
		ret = sink__open(&r.out, opts.uri, &r.loop, &sopts, err,
				 sizeof(err));
		if (ret) {
			reader_err(ret, "%s", err);
			goto out_fini_loop;
		}
	}
	if (opts.push.url) {
		ret = pusher__new(&opts.push, &r.pusher, err, sizeof(err));
		if (ret) {
			reader_err(ret, "--push: %s", err);
			goto out_free_fxt_encoder;
		}
		r.push = pusher__add(r.pusher, record_opts__path(opts.uri));
	}
	ret = fxt_encoder__new(&r.enc, r.out);
	if (!ret)
		ret = fxt_encoder__share_stacks(r.enc, !opts.no_shared_stacks &&
						sink__takes_references(r.out));
	if (ret) {
		reader_err(ret, "cannot create the FXT encoder");
		goto out_free_fxt_encoder;
	}
	stream_state__init(&r.state, fxt_encoder__encoder(r.enc), r.out);
	stream_state__anchor_wall_clock(&r.state);
	record_procs__init(&r.procs, &r.state);
	if (r.flight)
		flight_recorder__listen(&r.fr, &r.state);
	ret = stream_state__sync(&r.state);
	if (ret) {
		reader_err(ret, "cannot write the trace prologue");
		goto out_free_encoder;
	}
	ret = setup_signals(&r, &oldmask);
	if (ret) {
		reader_err(ret, "cannot set up signals");
		goto out_free_encoder;
	}

	if (record_opts__collect_stream(&opts)) {
		ret = record_collect__init_stream(&r.collect, &r.state, r.out,
						  opts.collect_max);
		if (ret) {
			reader_err(ret, "--collect stream");
			goto out_restore_signals;
		}
		r.syms.collect = &r.collect;
	} else if (opts.collect_dir) {
		ret = record_collect__init(&r.collect, opts.collect_dir);
		if (ret) {
			reader_err(ret, "--collect %s", opts.collect_dir);
			goto out_restore_signals;
		}
		r.syms.collect = &r.collect;
	}
	record_symbols__capture(&r.syms, &opts, &r.state, r.src);
	ret = r.src->ops->start(r.src);
	if (ret) {
		source_failed(&r, ret, "cannot start the session");
		goto out_restore_signals;
	}
	r.start_ns = r.last_status_ns = clock_ns(CLOCK_BOOTTIME);
	arm_poll(&r);
	arm_sideband(&r);
	arm_tick(&r);
	arm_signal(&r);
	record_unwind__start(&r.unwind, &r.loop);
	if (opts.ready_file) {
		ret = evloop__submit(&r.loop);
		if (ret)
			r.error = reader_err(ret, "cannot submit to io_uring");
		else
			r.error = write_ready_file(opts.ready_file);
		r.stop = r.error != 0;
	}
	while (!r.stop) {
		ret = evloop__run_once(&r.loop, -1);
		if (ret < 0) {
			r.error = reader_err(ret, "event loop failed");
			break;
		}
	}
	ret = finish(&r, &total);
	if (!opts.quiet)
		summary(&r, &total);
	if (!ret)
		ret = r.error;
	status = ret ? CMD_EXIT_FAILED : CMD_EXIT_OK;
	/*
	 * A recording with holes, whether the encoder or the output made
	 * them, is not a success: the output is incomplete.
	 */
	if (!ret && (r.state.st.encode_errors || !sink__complete(r.out) ||
		     (r.flight && !flight_recorder__complete(&r.fr)))) {
		if (opts.quiet)
			reader_err(-EIO, "the output to %s is incomplete",
				   opts.uri);
		status = CMD_EXIT_INCOMPLETE;
	}

out_restore_signals:
	close(r.sigfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_free_encoder:
	record_collect__fini(&r.collect);
	record_symbols__fini(&r.syms);
	stream_state__fini(&r.state);
out_free_fxt_encoder:
	fxt_encoder__free(r.enc);
	sink__close(r.out);
	/* After sink__close(): the file is whole. */
	if (!record_push_finish(&r) && status == CMD_EXIT_OK)
		status = CMD_EXIT_INCOMPLETE;
out_fini_loop:
	evloop__fini(&r.loop);
out_close_source:
	record_unwind__fini(&r.unwind);
	source__free(r.src);
	if (ret)
		return CMD_EXIT_FAILED;
#ifdef FXTPROF_HAVE_SYMBOLS
	/* After sink__close(): the file is whole and synced. */
	if (opts.symbolize && symbolize_recording(&opts) != CMD_EXIT_OK)
		return CMD_EXIT_FAILED;
#endif
	return status;
}
