// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_flight_window.c - the flight recorder's window (user/sink/
 * flight_window.c) behind the real pipeline: records go through the
 * stream state and the FXT encoder into a window sink, as in `fxtprof
 * record --flight-recorder`, from a generator of 2 CPUs sampling at
 * 10 kHz, drained in 100 ms turns (each CPU's batch in turn), with threads
 * that exist before recording, one born and gone inside it, and mappings
 * made along the way.  Each snapshot is written to a memfd and must pass
 * the checker, name every thread its events are on and cover the window
 * on both CPUs to within one sampling period.  Built plain and with
 * ASan+UBSan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "encode/fxt_encoder.h"
#include "sink/flight_window.h"
#include "sink/sink.h"
#include "state/stream_state.h"
#include "snapshot_check.h"

#define NS		1000000000ull
#define PERIOD_NS	100000ull	/* 10 kHz */
#define TURN_NS		100000000ull	/* a drain turn: 100 ms */
#define NCPU		2

struct pipe {
	struct sink *sink;
	struct flight_window *win;
	struct fxt_encoder *enc;
	struct stream_state st;
	uint64_t t;		/* generated up to here */
	uint64_t born_tid;	/* the thread forked at 5 s, exits at 7 s */
};

static int pipe_open(struct pipe *p, uint64_t window_ns, uint64_t max_bytes)
{
	struct flight_window_opts o = { .window_ns = window_ns,
					.max_bytes = max_bytes };
	int ret;

	memset(p, 0, sizeof(*p));
	ret = sink__open_window(&p->sink, &o);
	if (ret)
		return ret;
	p->win = sink__window(p->sink);
	ret = fxt_encoder__new(&p->enc, p->sink);
	if (ret)
		return ret;
	stream_state__init(&p->st, fxt_encoder__encoder(p->enc), p->sink);
	return stream_state__sync(&p->st);
}

static void pipe_close(struct pipe *p)
{
	stream_state__fini(&p->st);
	fxt_encoder__free(p->enc);
	sink__close(p->sink);
}

static void feed(struct pipe *p, const void *rec)
{
	stream_state__record(&p->st, rec);
}

static void snapshot_rec(struct pipe *p, uint32_t tid, const char *comm,
			 uint64_t ts)
{
	struct fxtprof_snapshot s;

	memset(&s, 0, sizeof(s));
	s.hdr.size = sizeof(s);
	s.hdr.type = FXTPROF_REC_SNAPSHOT;
	s.hdr.time_ns = ts;
	s.pid = 100;
	s.tid = tid;
	s.ppid = 1;
	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	snprintf(s.process_comm, sizeof(s.process_comm), "main");
	feed(p, &s);
}

static void sample(struct pipe *p, unsigned int cpu, uint32_t pid,
		   uint32_t tid, uint64_t ts)
{
	union {
		struct fxtprof_sample s;
		uint64_t w[4 + 12];
	} u;

	memset(&u, 0, sizeof(u));
	u.s.hdr.size = sizeof(u);
	u.s.hdr.type = FXTPROF_REC_SAMPLE;
	u.s.hdr.cpu = (uint16_t)cpu;
	u.s.hdr.time_ns = ts;
	u.s.pid = pid;
	u.s.tid = tid;
	u.s.mode = FXTPROF_MODE_USER;
	u.s.nr_user = 12;
	for (int i = 0; i < 12; i++)
		u.s.ips[i] = 0x400000 + 0x100 * (uint64_t)i + (ts & 0xff0);
	feed(p, &u.s);
}

static void mmap_rec(struct pipe *p, uint64_t ts, unsigned int n)
{
	union {
		struct fxtprof_mmap m;
		uint64_t w[10 + 4];
	} u;

	memset(&u, 0, sizeof(u));
	u.m.hdr.size = sizeof(u);
	u.m.hdr.type = FXTPROF_REC_MMAP;
	u.m.hdr.time_ns = ts;
	u.m.pid = u.m.tid = 100;
	u.m.start = 0x7f0000000000ull + (uint64_t)n * 0x100000;
	u.m.len = 0x10000;
	u.m.filename_len = (uint16_t)snprintf((char *)u.m.filename, 32,
					      "/usr/lib/lib%u.so", n);
	feed(p, &u.m);
}

static void task(struct pipe *p, bool fork_it, uint64_t ts)
{
	if (fork_it) {
		struct fxtprof_fork f;

		memset(&f, 0, sizeof(f));
		f.hdr.size = sizeof(f);
		f.hdr.type = FXTPROF_REC_FORK;
		f.hdr.time_ns = ts;
		f.parent_pid = f.parent_tid = 100;
		f.child_pid = f.child_tid = (uint32_t)p->born_tid;
		snprintf(f.comm, sizeof(f.comm), "born");
		feed(p, &f);
	} else {
		struct fxtprof_exit x;

		memset(&x, 0, sizeof(x));
		x.hdr.size = sizeof(x);
		x.hdr.type = FXTPROF_REC_EXIT;
		x.hdr.time_ns = ts;
		x.pid = x.tid = (uint32_t)p->born_tid;
		x.flags = FXTPROF_EXIT_GROUP_DEAD;
		snprintf(x.comm, sizeof(x.comm), "born");
		feed(p, &x);
	}
}

/*
 * Generate up to @until: at every turn, CPU 0's records of the turn, then
 * CPU 1's, as the reader drains rings one after another.  Threads 100..103
 * exist from the start (SNAPSHOT records at t = 1 s); tid 200 is forked at
 * 5 s and exits at 7 s; a mapping appears every second.
 */
static void run_until(struct pipe *p, uint64_t until)
{
	if (!p->t) {
		p->t = NS;
		p->born_tid = 200;
		for (uint32_t i = 0; i < 4; i++) {
			char comm[16];

			snprintf(comm, sizeof(comm), "worker%u", i);
			snapshot_rec(p, 100 + i, comm, p->t);
		}
	}
	while (p->t < until) {
		uint64_t end = p->t + TURN_NS;

		if (p->t / NS != end / NS || p->t % NS == 0)
			mmap_rec(p, p->t, (unsigned int)(p->t / NS));
		if (p->t <= 5 * NS && end > 5 * NS)
			task(p, true, 5 * NS);
		for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
			for (uint64_t ts = p->t; ts < end; ts += PERIOD_NS) {
				uint32_t tid = 100 + (uint32_t)((ts / PERIOD_NS) % 4);
				uint32_t pid = 100;

				if (cpu == 1 && ts > 5 * NS && ts < 7 * NS)
					pid = tid = (uint32_t)p->born_tid;
				sample(p, cpu, pid, tid, ts + cpu);
			}
		}
		if (p->t <= 7 * NS && end > 7 * NS)
			task(p, false, 7 * NS);
		p->t = end;
	}
}

/* A snapshot from @from into memory, and what it holds. */
static void take(struct __test_metadata *_metadata, struct pipe *p,
		 uint64_t from, struct flight_snapshot_stats *fs,
		 struct snap_info *si)
{
	int fd = memfd_create("snapshot", MFD_CLOEXEC);
	void *buf;
	off_t len;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, flight_window__snapshot(p->win, fd, from, fs));
	len = lseek(fd, 0, SEEK_END);
	ASSERT_EQ((off_t)fs->bytes, len);
	buf = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	snap_analyze(buf, (size_t)len, si);
	munmap(buf, (size_t)len);
	close(fd);
	ASSERT_EQ(0, si->err) TH_LOG("%s", si->errmsg);
}

TEST(window_keeps_its_seconds_and_names_every_thread)
{
	struct flight_window_stats ws;
	struct flight_snapshot_stats fs;
	struct snap_info *si = calloc(1, sizeof(*si));
	struct pipe p;
	uint64_t from;

	ASSERT_NE(NULL, si);
	ASSERT_EQ(0, pipe_open(&p, 2 * NS, 256ull << 20));
	/* To 7.5 s: the thread born at 5 s lives in the window's start. */
	run_until(&p, 7 * NS + NS / 2);
	flight_window__stats(p.win, &ws);
	/* The window plus its margin, and one turn of drain order. */
	EXPECT_GE(ws.oldest_ns + 2 * NS + FLIGHT_MARGIN_NS + TURN_NS,
		  ws.newest_ns);
	EXPECT_EQ(0, ws.refused);
	EXPECT_EQ(0, ws.evicted_bytes);
	EXPECT_LT(0, ws.evicted_time);
	/* A quarter of the window each, over the window and its margin. */
	EXPECT_GE(7, ws.segments);

	from = p.t - 2 * NS;
	take(_metadata, &p, from, &fs, si);
	EXPECT_EQ(0, si->unnamed) TH_LOG("tid %llu unnamed",
					 (unsigned long long)si->first_unnamed_tid);
	EXPECT_TRUE(snap_named(si, 200));	/* born before the window */
	EXPECT_TRUE(snap_named(si, 101));	/* there from the start */
	EXPECT_LT(0, si->mappings);
	EXPECT_FALSE(fs.cut_by_bound);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		EXPECT_TRUE(si->cpus & (1u << cpu));
		EXPECT_LE(si->cpu_first[cpu], from + PERIOD_NS + cpu);
		EXPECT_GE(si->cpu_first[cpu], from);
		EXPECT_GE(si->cpu_last[cpu] + PERIOD_NS + cpu, p.t);
	}
	/* 2 s on 2 CPUs at 10 kHz: every sample, none twice. */
	EXPECT_EQ(NCPU * (2 * NS / PERIOD_NS), si->samples);
	/* Events and their stack blobs. */
	EXPECT_EQ(fs.events, si->events + si->samples);
	free(si);
	pipe_close(&p);
}

TEST(byte_bound_holds_and_snapshot_stays_whole)
{
	struct flight_window_stats ws;
	struct flight_snapshot_stats fs;
	struct snap_info *si = calloc(1, sizeof(*si));
	struct pipe p;

	ASSERT_NE(NULL, si);
	/* 60 s could not fit in 4 MiB at 20000 samples/s. */
	ASSERT_EQ(0, pipe_open(&p, 60 * NS, FLIGHT_MIN_BYTES));
	for (uint64_t t = 2 * NS; t <= 20 * NS; t += NS) {
		run_until(&p, t);
		flight_window__stats(p.win, &ws);
		ASSERT_LE(ws.held_bytes, FLIGHT_MIN_BYTES);
	}
	EXPECT_LE(ws.held_max, FLIGHT_MIN_BYTES);
	EXPECT_EQ(0, ws.over_bound);
	EXPECT_LT(0, ws.evicted_bytes);
	EXPECT_EQ(0, ws.refused);

	take(_metadata, &p, 0, &fs, si);
	EXPECT_TRUE(fs.cut_by_bound);
	EXPECT_EQ(0, si->unnamed) TH_LOG("tid %llu unnamed",
					 (unsigned long long)si->first_unnamed_tid);
	EXPECT_LT(10000, si->samples);
	EXPECT_LE(fs.bytes, FLIGHT_MIN_BYTES);
	/* What is left is the newest: it reaches the end on both CPUs. */
	for (unsigned int cpu = 0; cpu < NCPU; cpu++)
		EXPECT_GE(si->cpu_last[cpu] + PERIOD_NS + cpu, p.t);
	free(si);
	pipe_close(&p);
}

TEST(snapshots_leave_the_window_as_it_was)
{
	struct flight_snapshot_stats a, b;
	struct snap_info *si = calloc(1, sizeof(*si));
	struct pipe p;

	ASSERT_NE(NULL, si);
	ASSERT_EQ(0, pipe_open(&p, NS, 64ull << 20));
	run_until(&p, 3 * NS);
	take(_metadata, &p, p.t - NS, &a, si);
	take(_metadata, &p, p.t - NS, &b, si);
	EXPECT_EQ(a.bytes, b.bytes);
	EXPECT_EQ(a.records, b.records);
	/* Then recording goes on and the next one is of later records. */
	run_until(&p, 4 * NS);
	take(_metadata, &p, p.t - NS, &b, si);
	EXPECT_GT(b.first_ns, a.first_ns);
	EXPECT_EQ(0, si->unnamed);
	/* Nothing in range: a valid stream with its names, no events. */
	take(_metadata, &p, p.t + 10 * NS, &b, si);
	EXPECT_EQ(0, b.events);
	EXPECT_EQ(0, si->samples);
	free(si);
	pipe_close(&p);
}

TEST(refuses_whole_records_only)
{
	struct flight_window_opts o = { .window_ns = NS,
					.max_bytes = FLIGHT_MIN_BYTES };
	struct flight_window_stats ws;
	struct flight_window *w;
	uint64_t *r;

	ASSERT_EQ(-EINVAL, flight_window__new(&w, &(struct flight_window_opts){
		.window_ns = NS, .max_bytes = FLIGHT_MIN_BYTES - 1 }));
	ASSERT_EQ(0, flight_window__new(&w, &o));
	/* Larger than a chunk: refused whole, counted. */
	EXPECT_EQ(NULL, flight_window__reserve(w, FLIGHT_CHUNK_SIZE, 4));
	EXPECT_EQ(NULL, flight_window__reserve(w, 12, 4));	/* not 8n */
	r = flight_window__reserve(w, 16, 4);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, (uintptr_t)r % 8);
	r[0] = 0x24;
	r[1] = 5 * NS;
	flight_window__commit(w);
	flight_window__close(w);
	EXPECT_EQ(NULL, flight_window__reserve(w, 16, 4));
	flight_window__stats(w, &ws);
	EXPECT_EQ(3, ws.refused);
	EXPECT_EQ(1, ws.records);
	EXPECT_EQ(5 * NS, ws.oldest_ns);
	flight_window__free(w);
}

TEST_HARNESS_MAIN
