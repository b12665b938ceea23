/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * synthetic_recording.h - a made-up recording, fed record by record into
 * a stream state as `fxtprof record` feeds what it drains: 2 CPUs sampling
 * every period, drained in 100 ms turns (CPU 0's batch of the turn, then
 * CPU 1's), threads 100..103 of process 100 named by SNAPSHOT records at
 * 1 s, tid 200 forked and gone at the given times, a mapping at every
 * whole second.  Optionally kernel frames on every other sample (name them
 * with synth_ksym_lookup()), LOST records, and a sink flushed every turn.
 * Used by tests/pipeline/test_flight_window.c and, through
 * tests/archive/archive_gen.h, by the archive's tests.
 */
#ifndef FXTPROF_SYNTHETIC_RECORDING_H
#define FXTPROF_SYNTHETIC_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/fxtprof.h>

#include "sink/sink.h"
#include "state/stream_state.h"

#define SYNTH_NS	1000000000ull
#define SYNTH_TURN_NS	100000000ull	/* a drain turn */
#define SYNTH_NCPU	2
#define SYNTH_BORN_TID	200

struct synth_opts {
	uint64_t period_ns;		/* each CPU samples this often */
	uint64_t born_ns, gone_ns;	/* tid 200 forked, and exits */
	bool kernel_frames;		/* 2 on every other sample */
	bool lost;			/* CPU 1 loses 7 records at 2 s, 5 at 3 s */
	struct sink *flush_sink;	/* flushed after every turn, if set */
};

struct synth {
	struct stream_state *st;
	struct synth_opts o;
	uint64_t t;			/* generated up to here */
	uint64_t samples;		/* SAMPLE records fed */
};

static inline void synth_init(struct synth *s, struct stream_state *st,
			      const struct synth_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->st = st;
	s->o = *o;
}

/* A stand-in kernel symbol table: a function every 4 KiB. */
static inline int synth_ksym_lookup(void *ctx, uint64_t ip,
				    struct stream_ksym *out)
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

static inline void synth_feed(struct synth *s, const void *rec)
{
	stream_state__record(s->st, rec);
}

static inline void synth_snapshot(struct synth *s, uint32_t tid,
				  const char *comm, uint64_t ts)
{
	struct fxtprof_snapshot r;

	memset(&r, 0, sizeof(r));
	r.hdr.size = sizeof(r);
	r.hdr.type = FXTPROF_REC_SNAPSHOT;
	r.hdr.time_ns = ts;
	r.pid = 100;
	r.tid = tid;
	r.ppid = 1;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	snprintf(r.process_comm, sizeof(r.process_comm), "main");
	synth_feed(s, &r);
}

/* 12 user frames, and 2 kernel ones on odd periods if asked for. */
static inline void synth_sample(struct synth *s, unsigned int cpu,
				uint32_t pid, uint32_t tid, uint64_t ts)
{
	union {
		struct fxtprof_sample s;
		uint64_t w[4 + 14];
	} u;
	unsigned int nk = 0, i;

	if (s->o.kernel_frames && (ts / s->o.period_ns) % 2)
		nk = 2;
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
	synth_feed(s, &u.s);
	s->samples++;
}

/* Mapping @n of process 100: /usr/lib/lib<n>.so. */
static inline void synth_mmap(struct synth *s, uint64_t ts, unsigned int n)
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
	synth_feed(s, &u.m);
}

/* tid 200 forked by 100 (@fork_it), or exiting. */
static inline void synth_task(struct synth *s, bool fork_it, uint64_t ts)
{
	if (fork_it) {
		struct fxtprof_fork f;

		memset(&f, 0, sizeof(f));
		f.hdr.size = sizeof(f);
		f.hdr.type = FXTPROF_REC_FORK;
		f.hdr.time_ns = ts;
		f.parent_pid = f.parent_tid = 100;
		f.child_pid = f.child_tid = SYNTH_BORN_TID;
		snprintf(f.comm, sizeof(f.comm), "born");
		synth_feed(s, &f);
	} else {
		struct fxtprof_exit x;

		memset(&x, 0, sizeof(x));
		x.hdr.size = sizeof(x);
		x.hdr.type = FXTPROF_REC_EXIT;
		x.hdr.time_ns = ts;
		x.pid = x.tid = SYNTH_BORN_TID;
		x.flags = FXTPROF_EXIT_GROUP_DEAD;
		snprintf(x.comm, sizeof(x.comm), "born");
		synth_feed(s, &x);
	}
}

/* The ring of CPU 1 lost @records records of 100 bytes each. */
static inline void synth_lost(struct synth *s, uint64_t ts, uint64_t records)
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
	synth_feed(s, &l);
}

/*
 * Generate from 1 s on, up to @until, a turn at a time.  CPU 1's samples
 * are tid 200's while it lives.
 */
static inline void synth_run(struct synth *s, uint64_t until)
{
	const uint64_t born = s->o.born_ns, gone = s->o.gone_ns;

	if (!s->t) {
		s->t = SYNTH_NS;
		for (uint32_t i = 0; i < 4; i++) {
			char comm[16];

			snprintf(comm, sizeof(comm), "worker%u", i);
			synth_snapshot(s, 100 + i, comm, s->t);
		}
	}
	while (s->t < until) {
		uint64_t end = s->t + SYNTH_TURN_NS;

		if (s->t % SYNTH_NS == 0)
			synth_mmap(s, s->t, (unsigned int)(s->t / SYNTH_NS));
		if (s->t <= born && end > born)
			synth_task(s, true, born);
		for (unsigned int cpu = 0; cpu < SYNTH_NCPU; cpu++) {
			for (uint64_t ts = s->t; ts < end; ts += s->o.period_ns) {
				uint32_t tid = 100 + (uint32_t)((ts / s->o.period_ns) % 4);
				uint32_t pid = 100;

				if (cpu == 1 && ts > born && ts < gone)
					pid = tid = SYNTH_BORN_TID;
				synth_sample(s, cpu, pid, tid, ts + cpu);
			}
		}
		if (s->t <= gone && end > gone)
			synth_task(s, false, gone);
		if (s->o.lost && s->t % SYNTH_NS == 0 && s->t / SYNTH_NS >= 2)
			synth_lost(s, s->t, s->t / SYNTH_NS == 2 ? 7 : 5);
		if (s->o.flush_sink)
			sink__flush(s->o.flush_sink);
		s->t = end;
	}
}

#endif /* FXTPROF_SYNTHETIC_RECORDING_H */
