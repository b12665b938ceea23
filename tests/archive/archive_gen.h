/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_gen.h - a recording made up for the archive's tests, driven
 * through the real pipeline (stream state, FXT encoder, a sink opened on a
 * URI): 2 CPUs sampling at @period_ns, drained in 100 ms turns (each CPU's
 * batch in turn), threads 100..103 that exist before it starts, tid 200
 * forked at 1.5 s and gone at 2.5 s, a mapping every second, and kernel
 * frames on every other sample, named through a stand-in kernel symbol
 * lookup.  As in tests/pipeline/test_flight_window.c.
 */
#ifndef FXTPROF_ARCHIVE_GEN_H
#define FXTPROF_ARCHIVE_GEN_H

#include <stdio.h>
#include <string.h>

#include "encode/fxt_encoder.h"
#include "sink/sink.h"
#include "state/stream_state.h"

#define GEN_NS		1000000000ull
#define GEN_TURN_NS	100000000ull
#define GEN_NCPU	2

struct gen {
	struct sink *sink;
	struct fxt_encoder *enc;
	struct stream_state st;
	uint64_t period_ns;
	uint64_t t;
	uint64_t samples;
};

static int gen_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	static char name[32];

	(void)ctx;
	out->addr = ip & ~0xfffull;
	out->size = 0x1000;
	snprintf(name, sizeof(name), "kfunc_%llx",
		 (unsigned long long)(out->addr >> 12) & 0xfff);
	out->name = name;
	return 1;
}

static int gen_open(struct gen *g, const char *uri,
		    const struct sink_opts *so, uint64_t period_ns)
{
	char err[256];
	int ret;

	memset(g, 0, sizeof(*g));
	g->period_ns = period_ns;
	ret = sink__open(&g->sink, uri, NULL, so, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	ret = fxt_encoder__new(&g->enc, g->sink);
	if (ret)
		return ret;
	stream_state__init(&g->st, fxt_encoder__encoder(g->enc), g->sink);
	stream_state__set_ksym_lookup(&g->st, gen_lookup, NULL);
	return stream_state__sync(&g->st);
}

/* Flush-close; 0 if the sink is complete. */
static int gen_close(struct gen *g)
{
	int ret;

	sink__flush_close(g->sink);
	ret = sink__done(g->sink) && sink__complete(g->sink) ? 0 : -EIO;
	stream_state__fini(&g->st);
	fxt_encoder__free(g->enc);
	sink__close(g->sink);
	return ret;
}

static void gen_feed(struct gen *g, const void *rec)
{
	stream_state__record(&g->st, rec);
}

static void gen_snapshot(struct gen *g, uint32_t tid, const char *comm,
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
	gen_feed(g, &s);
}

static void gen_sample(struct gen *g, unsigned int cpu, uint32_t pid,
		       uint32_t tid, uint64_t ts)
{
	union {
		struct fxtprof_sample s;
		uint64_t w[4 + 14];
	} u;
	unsigned int nk = (ts / g->period_ns) % 2 ? 2 : 0, i;

	memset(&u, 0, sizeof(u));
	u.s.hdr.size = (uint32_t)(32 + 8 * (nk + 12));
	u.s.hdr.type = FXTPROF_REC_SAMPLE;
	u.s.hdr.cpu = (uint16_t)cpu;
	u.s.hdr.time_ns = ts;
	u.s.pid = pid;
	u.s.tid = tid;
	u.s.mode = nk ? FXTPROF_MODE_KERNEL : FXTPROF_MODE_USER;
	u.s.nr_kernel = (uint16_t)nk;
	u.s.nr_user = 12;
	for (i = 0; i < nk; i++)
		u.s.ips[i] = 0xffffffff81000000ull + 0x1000 * ((ts >> 8) % 16) +
			     0x10 * i;
	for (; i < nk + 12; i++)
		u.s.ips[i] = 0x400000 + 0x100 * (uint64_t)i + (ts & 0xff0);
	gen_feed(g, &u.s);
	g->samples++;
}

static void gen_mmap(struct gen *g, uint64_t ts, unsigned int n)
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
	gen_feed(g, &u.m);
}

static void gen_task(struct gen *g, bool fork_it, uint64_t ts)
{
	if (fork_it) {
		struct fxtprof_fork f;

		memset(&f, 0, sizeof(f));
		f.hdr.size = sizeof(f);
		f.hdr.type = FXTPROF_REC_FORK;
		f.hdr.time_ns = ts;
		f.parent_pid = f.parent_tid = 100;
		f.child_pid = f.child_tid = 200;
		snprintf(f.comm, sizeof(f.comm), "born");
		gen_feed(g, &f);
	} else {
		struct fxtprof_exit x;

		memset(&x, 0, sizeof(x));
		x.hdr.size = sizeof(x);
		x.hdr.type = FXTPROF_REC_EXIT;
		x.hdr.time_ns = ts;
		x.pid = x.tid = 200;
		x.flags = FXTPROF_EXIT_GROUP_DEAD;
		snprintf(x.comm, sizeof(x.comm), "born");
		gen_feed(g, &x);
	}
}

/* The ring of CPU 1 lost @records records of 100 bytes each. */
static void gen_lost(struct gen *g, uint64_t ts, uint64_t records)
{
	struct fxtprof_lost l;

	memset(&l, 0, sizeof(l));
	l.hdr.size = sizeof(l);
	l.hdr.type = FXTPROF_REC_LOST;
	l.hdr.cpu = 1;
	l.hdr.time_ns = ts;
	l.records = records;
	l.bytes = 100 * records;
	l.first_ns = l.last_ns = ts;
	gen_feed(g, &l);
}

/*
 * Generate from 1 s on, up to @until; the sink is flushed every turn.
 * CPU 1's ring loses 7 records at 2 s and 5 more at 3 s.
 */
static void gen_run(struct gen *g, uint64_t until)
{
	const uint64_t born = GEN_NS + GEN_NS / 2, gone = 2 * GEN_NS + GEN_NS / 2;

	if (!g->t) {
		g->t = GEN_NS;
		for (uint32_t i = 0; i < 4; i++) {
			char comm[16];

			snprintf(comm, sizeof(comm), "worker%u", i);
			gen_snapshot(g, 100 + i, comm, g->t);
		}
	}
	while (g->t < until) {
		uint64_t end = g->t + GEN_TURN_NS;

		if (g->t % GEN_NS == 0)
			gen_mmap(g, g->t, (unsigned int)(g->t / GEN_NS));
		if (g->t <= born && end > born)
			gen_task(g, true, born);
		for (unsigned int cpu = 0; cpu < GEN_NCPU; cpu++) {
			for (uint64_t ts = g->t; ts < end; ts += g->period_ns) {
				uint32_t tid = 100 + (uint32_t)((ts / g->period_ns) % 4);
				uint32_t pid = 100;

				if (cpu == 1 && ts > born && ts < gone)
					pid = tid = 200;
				gen_sample(g, cpu, pid, tid, ts + cpu);
			}
		}
		if (g->t <= gone && end > gone)
			gen_task(g, false, gone);
		if (g->t % GEN_NS == 0 && g->t / GEN_NS >= 2)
			gen_lost(g, g->t, g->t / GEN_NS == 2 ? 7 : 5);
		sink__flush(g->sink);
		g->t = end;
	}
}

#endif /* FXTPROF_ARCHIVE_GEN_H */
