// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_flight_window.c - the flight recorder's window (user/sink/
 * flight_window.c) behind the real pipeline: records go through the
 * stream state and the FXT encoder into a window sink, as in `fxtprof
 * record --flight-recorder`, from the recording of
 * tests/pipeline/synthetic_recording.h: 2 CPUs sampling at 10 kHz, drained
 * in 100 ms turns (each CPU's batch in turn), with threads that exist
 * before recording, one born and gone inside it, and mappings made along
 * the way.  Each snapshot is written to a memfd and must pass
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
#include "synthetic_recording.h"

#define NS		SYNTH_NS
#define PERIOD_NS	100000ull	/* 10 kHz */
#define TURN_NS		SYNTH_TURN_NS
#define NCPU		SYNTH_NCPU

struct pipe {
	struct sink *sink;
	struct flight_window *win;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct synth synth;
};

/* The recording: tid 200 is forked at 5 s and exits at 7 s. */
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
	stream_state__set_ksym_lookup(&p->st, synth_ksym_lookup, NULL);
	synth_init(&p->synth, &p->st, &(struct synth_opts){
		.period_ns = PERIOD_NS, .born_ns = 5 * NS, .gone_ns = 7 * NS,
		.kernel_frames = true });
	return stream_state__sync(&p->st);
}

static void pipe_close(struct pipe *p)
{
	stream_state__fini(&p->st);
	fxt_encoder__free(p->enc);
	sink__close(p->sink);
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
	synth_run(&p.synth, 7 * NS + NS / 2);
	flight_window__stats(p.win, &ws);
	/* The window plus its margin, and one turn of drain order. */
	EXPECT_GE(ws.oldest_ns + 2 * NS + FLIGHT_MARGIN_NS + TURN_NS,
		  ws.newest_ns);
	EXPECT_EQ(0, ws.refused);
	EXPECT_EQ(0, ws.evicted_bytes);
	EXPECT_LT(0, ws.evicted_time);
	/* A quarter of the window each, over the window and its margin. */
	EXPECT_GE(7, ws.segments);

	from = p.synth.t - 2 * NS;
	take(_metadata, &p, from, &fs, si);
	EXPECT_EQ(0, si->unnamed) TH_LOG("tid %llu unnamed",
					 (unsigned long long)si->first_unnamed_tid);
	EXPECT_TRUE(snap_named(si, 200));	/* born before the window */
	EXPECT_TRUE(snap_named(si, 101));	/* there from the start */
	EXPECT_LT(0, si->mappings);
	/*
	 * A kernel function is named before its frames.  The snapshot's
	 * segments, one stream, each name it again: at most once each.
	 */
	EXPECT_LT(0, si->ksyms);
	EXPECT_EQ(0, si->ksym_late);
	EXPECT_GE((ws.segments - 1) * 16, si->ksym_twice);
	EXPECT_FALSE(fs.cut_by_bound);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		EXPECT_TRUE(si->cpus & (1u << cpu));
		EXPECT_LE(si->cpu_first[cpu], from + PERIOD_NS + cpu);
		EXPECT_GE(si->cpu_first[cpu], from);
		EXPECT_GE(si->cpu_last[cpu] + PERIOD_NS + cpu, p.synth.t);
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
		synth_run(&p.synth, t);
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
		EXPECT_GE(si->cpu_last[cpu] + PERIOD_NS + cpu, p.synth.t);
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
	synth_run(&p.synth, 3 * NS);
	take(_metadata, &p, p.synth.t - NS, &a, si);
	take(_metadata, &p, p.synth.t - NS, &b, si);
	EXPECT_EQ(a.bytes, b.bytes);
	EXPECT_EQ(a.records, b.records);
	/* Then recording goes on and the next one is of later records. */
	synth_run(&p.synth, 4 * NS);
	take(_metadata, &p, p.synth.t - NS, &b, si);
	EXPECT_GT(b.first_ns, a.first_ns);
	EXPECT_EQ(0, si->unnamed);
	/* Nothing in range: a valid stream with its names, no events. */
	take(_metadata, &p, p.synth.t + 10 * NS, &b, si);
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
