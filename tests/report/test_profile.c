// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_profile.c - user/profile/profile.c on recordings written in memory
 * with the FXT writer: names at sample time (exec, rename, CPU blocks out
 * of time order), idle samples, the mapping rule with fork inheritance,
 * kernel images and symbols replayed by segments, the wall clock of a
 * timestamp from the clock object, stack copies paired with their
 * samples and given to an unwinder, and bad input (a truncated stream,
 * malformed mapping, symbol and clock objects) failing with the byte
 * offset.  Built plain and under ASan+UBSan (asan/).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "profile/profile.h"
#include "profile/profile_runs.h"

struct buf {
	char *p;
	size_t n, cap;
};

static int sink(void *ctx, const void *rec, size_t len)
{
	struct buf *b = ctx;

	if (b->n + len > b->cap) {
		b->cap = (b->n + len) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, rec, len);
	b->n += len;
	return 0;
}

struct rec {
	struct fxt_writer *w;
	struct buf b;
};

static void rec_open(struct rec *r)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink,
				     .ctx = &r->b };

	memset(r, 0, sizeof(*r));
	if (fxt_writer__new(&o, &r->w) ||
	    fxt_writer__prologue(r->w, 1, "fxtprof", 1000000000ull))
		abort();
}

static struct fxt_sref ref(struct rec *r, const char *s)
{
	struct fxt_sref x;

	if (fxt_writer__string_ref(r->w, s, strlen(s), &x))
		abort();
	return x;
}

static struct fxt_arg u64a(struct rec *r, const char *n, uint64_t v)
{
	struct fxt_arg a = { .name = ref(r, n), .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

static struct fxt_arg stra(struct rec *r, const char *n, const char *v)
{
	struct fxt_arg a = { .name = ref(r, n), .type = FXT_ARG_STRING };

	a.v.str = fxt_sref_inline(v, strlen(v));
	return a;
}

static void names(struct rec *r, uint32_t pid, uint32_t tid, const char *n)
{
	if (pid == tid && fxt_writer__process_name(r->w, pid, n, strlen(n)))
		abort();
	if (fxt_writer__thread_name(r->w, pid, tid, n, strlen(n)))
		abort();
}

static void sample(struct rec *r, uint64_t ts, uint32_t pid, uint32_t tid,
		   uint32_t cpu, const char *mode, const uint64_t *ips,
		   unsigned int nk, unsigned int n)
{
	struct fxt_tref th = fxt_tref_inline(pid, tid);
	struct fxt_arg a[3] = { u64a(r, "cpu", cpu), stra(r, "mode", mode),
				u64a(r, "kframes", nk) };

	if (fxt_writer__instant(r->w, ts, &th, ref(r, "cpu"),
				ref(r, "sample"), a, 3))
		abort();
	if (n && fxt_writer__stack_sample(r->w, ts, pid, tid, ips, n))
		abort();
}

static void task(struct rec *r, const char *what, uint64_t ts, uint32_t pid,
		 uint32_t tid, uint32_t cpid, uint32_t ctid)
{
	struct fxt_tref th = fxt_tref_inline(pid, tid);
	struct fxt_arg a[2] = { u64a(r, "child_pid", cpid),
				u64a(r, "child_tid", ctid) };

	if (fxt_writer__instant(r->w, ts, &th, ref(r, "task"), ref(r, what),
				a, !strcmp(what, "fork") ? 2 : 0))
		abort();
}

static void mapping(struct rec *r, uint64_t serial, uint32_t pid,
		    uint64_t start, uint64_t end, uint64_t time, bool initial,
		    const char *path)
{
	struct fxt_arg a[7] = { u64a(r, "pid", pid), u64a(r, "start", start),
				u64a(r, "end", end), u64a(r, "pgoff", 0x1000),
				u64a(r, "time", time),
				stra(r, "build_id", "00112233445566778899aabbccddeeff01020304") };
	unsigned int n = 6;

	if (initial) {
		a[n].name = ref(r, "initial");
		a[n].type = FXT_ARG_BOOL;
		a[n++].v.b = true;
	}
	if (fxt_writer__kobj(r->w, 0x80, serial,
			     fxt_sref_inline(path, strlen(path)), a, n))
		abort();
}

static void kernel(struct rec *r)
{
	struct fxt_arg ka[2] = { u64a(r, "end", 0xffffffff82000000ull) };
	struct fxt_arg sa[2] = { u64a(r, "size", 0x100) };

	ka[1].name = ref(r, "kernel");
	ka[1].type = FXT_ARG_BOOL;
	ka[1].v.b = true;
	if (fxt_writer__kobj(r->w, 0x81, 0xffffffff81000000ull,
			     fxt_sref_inline("[kernel.kallsyms]", 17), ka, 2) ||
	    fxt_writer__kobj(r->w, 0x82, 0xffffffff81001000ull,
			     fxt_sref_inline("do_syscall_64", 13), sa, 1) ||
	    fxt_writer__kobj(r->w, 0x82, 0xffffffff81000800ull,
			     fxt_sref_inline("entry_SYSCALL_64", 16), sa, 1))
		abort();
}

static struct profile *load(struct __test_metadata *_metadata, struct rec *r,
			    struct profile_error *err)
{
	struct profile *p = NULL;
	int ret = profile__load_buffer(r->b.p, r->b.n, &p, err);

	EXPECT_EQ(0, ret) TH_LOG("load: %s at %llu", err->msg,
				 (unsigned long long)err->offset);
	return p;
}

static void rec_close(struct rec *r)
{
	fxt_writer__free(r->w);
	free(r->b.p);
}

TEST(names_at_sample_time)
{
	static const uint64_t ips[] = { 0xffffffff81001010ull, 0x401234 };
	struct profile_error err;
	struct profile *p;
	struct rec r;
	size_t i;

	rec_open(&r);
	names(&r, 10, 10, "sh");
	/* CPU 1's block first, although its samples are later. */
	sample(&r, 5000, 10, 10, 1, "user", ips + 1, 0, 1);
	names(&r, 10, 10, "renamed");
	sample(&r, 6000, 10, 10, 1, "user", ips + 1, 0, 1);
	/* CPU 0's block: before and after the exec. */
	sample(&r, 1000, 10, 10, 0, "kernel", ips, 1, 2);
	names(&r, 10, 10, "zeta");
	task(&r, "exec", 2000, 10, 10, 0, 0);
	sample(&r, 3000, 10, 10, 0, "user", ips + 1, 0, 1);
	sample(&r, 3500, 0, 0, 3, "idle", NULL, 0, 0);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(5, profile__nr_samples(p));
	for (i = 1; i < 5; i++)
		EXPECT_LT(profile__sample(p, i - 1)->ts, profile__sample(p, i)->ts);
	EXPECT_STREQ("sh", profile__sample(p, 0)->comm);
	EXPECT_STREQ("sh", profile__sample(p, 0)->process);
	EXPECT_EQ(1, profile__sample(p, 0)->nr_kernel);
	EXPECT_EQ(1, profile__sample(p, 0)->nr_user);
	EXPECT_EQ(0xffffffff81001010ull, profile__sample(p, 0)->ips[0]);
	EXPECT_STREQ("zeta", profile__sample(p, 1)->comm);
	EXPECT_STREQ("zeta", profile__sample(p, 1)->process);
	EXPECT_STREQ("swapper/3", profile__sample(p, 2)->comm);
	EXPECT_EQ(0, profile__sample(p, 2)->nr_kernel + profile__sample(p, 2)->nr_user);
	EXPECT_EQ(3, profile__sample(p, 2)->mode);
	/* The rename is in CPU 1's block, after the sample at 5000. */
	EXPECT_STREQ("zeta", profile__sample(p, 3)->comm);
	EXPECT_STREQ("renamed", profile__sample(p, 4)->comm);
	profile__free(p);
	rec_close(&r);
}

/* A context switch on cpu at ts (type 1, no arguments). */
static void cswitch(struct rec *r, uint64_t ts, uint16_t cpu, uint32_t out,
		    uint32_t in)
{
	uint64_t *p;
	int ret;

	p = fxt_writer__begin(r->w, 4, FXT_REC_SCHED, &ret);
	if (!p)
		abort();
	p[0] = fxt_sched_switch_hdr(4, 0, cpu, 3);
	p[1] = ts;
	p[2] = out;
	p[3] = in;
	if (fxt_writer__end(r->w, 4))
		abort();
}

/*
 * The runs: each CPU's switches chain, a thread runs from the switch
 * that brings it on to the one that takes it off; a switch that does not
 * take off what the last one brought on (records lost between) breaks
 * the chain, the idle task has no runs, and a new segment starts the
 * chains over.  By tid, then start.
 */
TEST(runs_from_context_switches)
{
	struct profile_error err;
	const struct profile_run *run;
	struct profile *p;
	struct rec r;
	size_t n;

	rec_open(&r);
	cswitch(&r, 100, 0, 0, 7);	/* 7 on CPU 0 */
	cswitch(&r, 150, 1, 0, 8);	/* 8 on CPU 1 */
	cswitch(&r, 300, 0, 7, 0);	/* 7 ran 200 */
	cswitch(&r, 400, 0, 0, 7);
	cswitch(&r, 450, 1, 8, 7);	/* 8 ran 300; 7 moves (CPU 0 lost a record) */
	cswitch(&r, 500, 0, 9, 0);	/* not 7: a broken chain */
	cswitch(&r, 650, 1, 7, 0);	/* 7 ran 200 on CPU 1 */
	cswitch(&r, 700, 1, 0, 8);
	if (fxt_writer__prologue(r.w, 1, "fxtprof", 1000000000ull))
		abort();
	cswitch(&r, 800, 1, 8, 0);	/* a new segment: no run */
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(3, profile_runs__nr(profile__runs(p)));
	run = profile_runs__of(profile__runs(p), 7, &n);
	ASSERT_EQ(2, n);
	EXPECT_EQ(100, run[0].start);
	EXPECT_EQ(300, run[0].end);
	EXPECT_EQ(0, run[0].cpu);
	EXPECT_EQ(450, run[1].start);
	EXPECT_EQ(650, run[1].end);
	EXPECT_EQ(1, run[1].cpu);
	run = profile_runs__of(profile__runs(p), 8, &n);
	ASSERT_EQ(1, n);
	EXPECT_EQ(150, run[0].start);
	EXPECT_EQ(450, run[0].end);
	EXPECT_EQ(NULL, profile_runs__of(profile__runs(p), 9, &n));
	EXPECT_EQ(0, n);
	EXPECT_EQ(NULL, profile_runs__of(profile__runs(p), 0, &n));
	profile__free(p);
	rec_close(&r);

	/* No switches: no runs. */
	rec_open(&r);
	names(&r, 10, 10, "x");
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, profile_runs__nr(profile__runs(p)));
	EXPECT_EQ(NULL, profile_runs__of(profile__runs(p), 10, &n));
	profile__free(p);
	rec_close(&r);
}

/*
 * The case a VM found: the thread's samples after its exec sit in CPU 0's
 * block, drained first; the exec, with the names written before it, in
 * CPU 1's block.  The names must take the exec's time, not that of the
 * thread's last record in the file, which is later.
 */
TEST(exec_names_after_a_later_block)
{
	static const uint64_t ips[] = { 0x401234 };
	struct profile_error err;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	names(&r, 20, 20, "parent");
	task(&r, "fork", 1000, 10, 10, 20, 20);
	/* CPU 0: the child, already exec'd, samples at 3000 and 4000. */
	sample(&r, 3000, 20, 20, 0, "user", ips, 0, 1);
	sample(&r, 4000, 20, 20, 0, "user", ips, 0, 1);
	/* CPU 1: the exec's rename, then its names and the exec at 2000. */
	names(&r, 20, 20, "child");
	names(&r, 20, 20, "child");
	task(&r, "exec", 2000, 20, 20, 0, 0);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(2, profile__nr_samples(p));
	EXPECT_STREQ("child", profile__sample(p, 0)->comm);
	EXPECT_STREQ("child", profile__sample(p, 0)->process);
	EXPECT_STREQ("child", profile__sample(p, 1)->comm);
	profile__free(p);
	rec_close(&r);
}

/* Mappings that change over time, two forks down and an exec. */
static void mappings_forks_exec(struct rec *r)
{
	mapping(r, 1, 10, 0x400000, 0x500000, 777, true, "/bin/old");
	mapping(r, 2, 10, 0x400000, 0x500000, 2000, false, "/bin/new");
	mapping(r, 3, 10, 0x7f0000, 0x7f1000, 100, false, "/lib/libc.so.6");
	/* Replayed by a new segment: the same serial is the same mapping. */
	mapping(r, 1, 10, 0x400000, 0x500000, 777, true, "/bin/old");
	task(r, "fork", 3000, 10, 10, 20, 20);
	task(r, "fork", 3500, 20, 20, 30, 30);
	task(r, "exec", 4000, 30, 30, 0, 0);
	mapping(r, 4, 30, 0x800000, 0x900000, 4000, false, "/bin/child");
}

TEST(mappings_and_fork)
{
	struct profile_stats st;
	struct profile_error err;
	const struct profile_mapping *m;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	mappings_forks_exec(&r);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	profile__stats(p, &st);
	EXPECT_TRUE(st.has_mappings);
	EXPECT_EQ(4, st.mappings);
	EXPECT_EQ(4, profile__nr_mappings(p));
	m = profile__find_mapping(p, 10, 0x401000, 1000);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("/bin/old", m->path);
	EXPECT_EQ(0, m->time);		/* initial: time 0 */
	EXPECT_EQ(20, m->build_id_size);
	EXPECT_EQ(0x11, m->build_id[1]);
	m = profile__find_mapping(p, 10, 0x401000, 2000);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("/bin/new", m->path);
	EXPECT_EQ(NULL, profile__find_mapping(p, 10, 0x7f0800, 50));
	EXPECT_EQ(NULL, profile__find_mapping(p, 10, 0x500000, 9000));
	/* A child without mappings: its parent's at the fork, twice over. */
	m = profile__find_mapping(p, 20, 0x7f0800, 9000);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("/lib/libc.so.6", m->path);
	m = profile__find_mapping(p, 30, 0x401000, 3900);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("/bin/new", m->path);
	/* After its exec, what the parent had is gone. */
	EXPECT_EQ(NULL, profile__find_mapping(p, 30, 0x401000, 4100));
	m = profile__find_mapping(p, 30, 0x800010, 4100);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("/bin/child", m->path);
	EXPECT_EQ(NULL, profile__find_mapping(p, 99, 0x401000, 4100));
	profile__free(p);
	rec_close(&r);
}

/*
 * Two times of a process in one mapping epoch find the same mapping for
 * every address: what the report names once per epoch holds.  And the
 * epoch moves where the answer does (the mapping at 2000, the exec).
 */
TEST(mapping_epochs)
{
	static const uint32_t pids[] = { 10, 20, 30, 99 };
	static const uint64_t addrs[] = {
		0x400000, 0x401000, 0x4fffff, 0x500000, 0x7f0800, 0x800010,
	};
	struct profile_error err;
	struct profile *p;
	unsigned int i, k;
	uint64_t t1, t2;
	struct rec r;

	rec_open(&r);
	mappings_forks_exec(&r);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		uint32_t pid = pids[i];

		for (t1 = 0; t1 <= 5000; t1 += 50) {
			for (t2 = t1; t2 <= 5000; t2 += 50) {
				if (profile__mapping_epoch(p, pid, t1) !=
				    profile__mapping_epoch(p, pid, t2))
					continue;
				for (k = 0; k < sizeof(addrs) / sizeof(addrs[0]);
				     k++) {
					uint64_t a = addrs[k];

					ASSERT_EQ(profile__find_mapping(p, pid,
									a, t1),
						  profile__find_mapping(p, pid,
									a, t2));
				}
			}
		}
	}
	EXPECT_NE(profile__mapping_epoch(p, 10, 1999),
		  profile__mapping_epoch(p, 10, 2000));
	EXPECT_NE(profile__mapping_epoch(p, 30, 3999),
		  profile__mapping_epoch(p, 30, 4000));
	EXPECT_EQ(profile__mapping_epoch(p, 99, 0),
		  profile__mapping_epoch(p, 99, 5000));
	profile__free(p);
	rec_close(&r);
}

TEST(kernel_objects)
{
	struct profile_stats st;
	struct profile_error err;
	const struct profile_ksym *k;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	kernel(&r);
	kernel(&r);		/* a second segment replays them */
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	profile__stats(p, &st);
	EXPECT_FALSE(st.has_mappings);
	EXPECT_TRUE(st.has_kernel);
	EXPECT_EQ(1, profile__nr_kmods(p));
	EXPECT_EQ(2, profile__nr_ksyms(p));
	EXPECT_TRUE(profile__kmod(p, 0)->is_kernel);
	EXPECT_STREQ("[kernel.kallsyms]",
		     profile__find_kmod(p, 0xffffffff81001010ull)->name);
	EXPECT_EQ(NULL, profile__find_kmod(p, 0xffffffff82000000ull));
	k = profile__find_ksym(p, 0xffffffff810010ffull);
	ASSERT_NE(NULL, k);
	EXPECT_STREQ("do_syscall_64", k->name);
	EXPECT_EQ(NULL, profile__find_ksym(p, 0xffffffff81001100ull));
	EXPECT_EQ(NULL, profile__find_ksym(p, 0xffffffff81000000ull));
	profile__free(p);
	rec_close(&r);
}

static void clock_obj(struct rec *r, uint64_t boot_ns, uint64_t realtime_ns)
{
	struct fxt_arg a[2] = { u64a(r, "boot_ns", boot_ns),
				u64a(r, "realtime_ns", realtime_ns) };

	if (fxt_writer__kobj(r->w, 0x83, 0, fxt_sref_inline("CLOCK_REALTIME", 14),
			     a, 2))
		abort();
}

/*
 * The first clock object anchors every timestamp, before it and after
 * it; a later segment's repeats nothing new (a different one is
 * ignored); without one there is no wall clock.
 */
TEST(wall_clock)
{
	const uint64_t boot = 2000000000ull, real = 1700000000000000000ull;
	struct profile_error err;
	struct profile *p;
	struct rec r;
	uint64_t wall = 7;

	rec_open(&r);
	kernel(&r);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	EXPECT_FALSE(profile__wall_clock(p, boot, &wall));
	EXPECT_EQ(7, wall);
	profile__free(p);
	rec_close(&r);

	rec_open(&r);
	clock_obj(&r, boot, real);
	kernel(&r);
	clock_obj(&r, boot + 5, real);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	ASSERT_TRUE(profile__wall_clock(p, boot, &wall));
	EXPECT_EQ(real, wall);
	ASSERT_TRUE(profile__wall_clock(p, boot + 1500000000ull, &wall));
	EXPECT_EQ(real + 1500000000ull, wall);
	ASSERT_TRUE(profile__wall_clock(p, boot - 1000000000ull, &wall));
	EXPECT_EQ(real - 1000000000ull, wall);
	profile__free(p);
	rec_close(&r);

	/* A timestamp that would be before 1970: none. */
	rec_open(&r);
	clock_obj(&r, boot, 1000);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	EXPECT_FALSE(profile__wall_clock(p, boot - 1001, &wall));
	ASSERT_TRUE(profile__wall_clock(p, boot - 1000, &wall));
	EXPECT_EQ(0, wall);
	profile__free(p);
	rec_close(&r);
}

/*
 * A stack copy blob, as the encoder writes it; the payload's first byte
 * tells the fake unwinder below what to answer.
 */
static void copy(struct rec *r, uint64_t ts, uint32_t pid, uint32_t tid,
		 char mark)
{
	struct fxt_tref th = fxt_tref_inline(pid, tid);
	char data[16] = { mark };

	if (fxt_writer__large_blob(r->w, ts, &th, ref(r, "fxtprof"),
				   ref(r, "ustack_copy"), NULL, 0, data,
				   sizeof(data)))
		abort();
}

struct fake_unwind {
	unsigned int calls;
	size_t bad_len;
};

/* 'F' fails (why 3); another mark gives 3 frames, the first the mark. */
static int fake_unwind(void *ctx, const struct profile *p,
		       const struct profile_sample *smp, const void *data,
		       size_t len, uint64_t *pcs, unsigned int max,
		       unsigned int *why)
{
	struct fake_unwind *f = ctx;
	char mark = *(const char *)data;

	(void)p;
	(void)smp;
	f->calls++;
	if (len != 16 || max < 3)
		f->bad_len++;
	if (mark == 'F') {
		*why = 3;
		return 0;
	}
	pcs[0] = 0x1000 + (uint64_t)mark;
	pcs[1] = 0x2000;
	pcs[2] = 0x3000;
	return 3;
}

static const char *fake_why(unsigned int why)
{
	return why == 3 ? "three" : "other";
}

/*
 * Each copy goes with the sample just before it on its thread at its
 * time, after the sample's frames or alone; the samples that walked no
 * user stack beyond the leaf get the unwinder's frames after their
 * kernel ones, equal stacks sharing one array; the others keep theirs.
 */
TEST(stack_copies)
{
	static const uint64_t ka[] = { 0xffffffff81001000ull, 0x401000 };
	static const uint64_t walked[] = { 0x401000, 0x401100, 0x401200 };
	struct fake_unwind f = { 0 };
	struct profile_unwinder uw = {
		.unwind = fake_unwind, .why_name = fake_why, .ctx = &f,
	};
	struct profile_copy_stats st;
	const struct profile_sample *s[6];
	struct profile_error err;
	struct profile *p;
	struct rec r;
	unsigned int i;

	rec_open(&r);
	names(&r, 10, 11, "prog");
	copy(&r, 50, 10, 11, 'X');		/* after no sample: skipped */
	sample(&r, 100, 10, 11, 0, "kernel", ka, 1, 2);
	copy(&r, 100, 10, 11, 'A');
	sample(&r, 200, 10, 11, 0, "user", NULL, 0, 0);
	copy(&r, 200, 10, 11, 'B');
	sample(&r, 300, 10, 11, 0, "user", walked, 0, 3);
	copy(&r, 300, 10, 11, 'C');		/* walked: kept as is */
	sample(&r, 400, 10, 11, 0, "user", walked, 0, 1);
	copy(&r, 400, 10, 12, 'D');		/* another thread: skipped */
	sample(&r, 500, 10, 11, 0, "user", walked, 0, 1);
	copy(&r, 500, 10, 11, 'F');		/* the unwinder fails */
	sample(&r, 600, 10, 11, 0, "user", walked, 0, 1);
	copy(&r, 600, 10, 11, 'B');		/* B's stack again */
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(6, profile__nr_samples(p));
	for (i = 0; i < 6; i++)
		s[i] = profile__sample(p, i);
	profile__copy_stats(p, &st);
	EXPECT_EQ(5, st.copies);
	EXPECT_EQ(0, st.unwound);

	ASSERT_EQ(0, profile__unwind_copies(p, &uw));
	EXPECT_EQ(4, f.calls);			/* not C's */
	EXPECT_EQ(0, f.bad_len);
	profile__copy_stats(p, &st);
	EXPECT_EQ(5, st.copies);
	EXPECT_EQ(3, st.unwound);
	EXPECT_EQ(1, st.failed);
	EXPECT_EQ(1, st.failed_why[3]);
	EXPECT_STREQ("three", st.why_name(3));
	/* A: its kernel frame, then the unwound ones. */
	EXPECT_EQ(1, s[0]->nr_kernel);
	EXPECT_EQ(3, s[0]->nr_user);
	EXPECT_EQ(ka[0], s[0]->ips[0]);
	EXPECT_EQ(0x1000 + 'A', s[0]->ips[1]);
	EXPECT_EQ(0x3000, s[0]->ips[3]);
	/* B, no frames of its own, and the last, share one stack. */
	EXPECT_EQ(0, s[1]->nr_kernel);
	EXPECT_EQ(3, s[1]->nr_user);
	EXPECT_EQ(0x1000 + 'B', s[1]->ips[0]);
	EXPECT_EQ(s[1]->ips, s[5]->ips);
	/* C walked; D's copy went astray; F's unwind failed: as recorded. */
	EXPECT_EQ(3, s[2]->nr_user);
	EXPECT_EQ(walked[2], s[2]->ips[2]);
	EXPECT_EQ(1, s[3]->nr_user);
	EXPECT_EQ(1, s[4]->nr_user);
	EXPECT_EQ(walked[0], s[4]->ips[0]);
	/* Once only. */
	ASSERT_EQ(0, profile__unwind_copies(p, &uw));
	EXPECT_EQ(4, f.calls);
	profile__free(p);
	rec_close(&r);
}

TEST(truncated)
{
	static const uint64_t ips[] = { 0x401234, 0x401300 };
	struct profile_error err;
	struct profile *p = (void *)1;
	struct rec r;

	rec_open(&r);
	sample(&r, 1000, 10, 10, 0, "user", ips, 0, 2);
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n - 5, &p, &err));
	EXPECT_EQ(NULL, p);
	EXPECT_GT(err.offset, 0);
	EXPECT_NE(NULL, strstr(err.msg, "ends inside a record")) TH_LOG("%s", err.msg);
	rec_close(&r);
}

TEST(malformed_mapping)
{
	struct profile_error err;
	struct profile *p;
	struct rec r;
	size_t off;

	rec_open(&r);
	off = r.b.n;
	/* end below start */
	mapping(&r, 5, 10, 0x500000, 0x400000, 0, true, "/bin/x");
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	/* The object's own offset, after the strings its arguments need. */
	EXPECT_LE(off, err.offset);
	EXPECT_GT(r.b.n, err.offset);
	EXPECT_EQ(0, err.offset % 8);
	EXPECT_NE(NULL, strstr(err.msg, "mapping object 5: end")) TH_LOG("%s", err.msg);
	rec_close(&r);

	rec_open(&r);
	{
		struct fxt_arg a[4] = { u64a(&r, "pid", 1), u64a(&r, "start", 1),
					u64a(&r, "end", 9), stra(&r, "pgoff", "x") };

		off = r.b.n;
		ASSERT_EQ(0, fxt_writer__kobj(r.w, 0x80, 6,
					      fxt_sref_inline("/y", 2), a, 4));
	}
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "mapping object 6: pid, start, end and pgoff")) TH_LOG("%s", err.msg);
	rec_close(&r);

	rec_open(&r);
	{
		struct fxt_arg a[5] = { u64a(&r, "pid", 1), u64a(&r, "start", 1),
					u64a(&r, "end", 9), u64a(&r, "pgoff", 0),
					stra(&r, "build_id", "xyz") };

		ASSERT_EQ(0, fxt_writer__kobj(r.w, 0x80, 7,
					      fxt_sref_inline("/y", 2), a, 5));
	}
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "build_id")) TH_LOG("%s", err.msg);
	rec_close(&r);

	rec_open(&r);
	ASSERT_EQ(0, fxt_writer__kobj(r.w, 0x82, 0xffffffff81000000ull,
				      fxt_sref_inline("f", 1), NULL, 0));
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "kernel symbol object")) TH_LOG("%s", err.msg);
	rec_close(&r);

	rec_open(&r);
	{
		struct fxt_arg a[2] = { u64a(&r, "boot_ns", 1),
					stra(&r, "realtime_ns", "now") };

		ASSERT_EQ(0, fxt_writer__kobj(r.w, 0x83, 0,
					      fxt_sref_inline("c", 1), a, 2));
	}
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "clock object")) TH_LOG("%s", err.msg);
	rec_close(&r);
}

/* A JIT function object: koid its start, pid and size. */
static void jit(struct rec *r, uint32_t pid, uint64_t start, uint64_t size,
		const char *name)
{
	struct fxt_arg a[2] = { u64a(r, "pid", pid), u64a(r, "size", size) };

	if (fxt_writer__kobj(r->w, 0x84, start,
			     fxt_sref_inline(name, strlen(name)), a, 2))
		abort();
}

TEST(containers_and_jit_functions)
{
	const struct profile_process *pr;
	const struct profile_jit *j;
	struct profile_error err;
	struct profile *p;
	struct rec r;
	struct fxt_arg a[2];

	rec_open(&r);
	a[0] = stra(&r, "cgroup", "/c/app.scope");
	a[1].name = ref(&r, "nspid");
	a[1].type = FXT_ARG_INT32;
	a[1].v.i32 = 1;
	ASSERT_EQ(0, fxt_writer__process_name_args(r.w, 100, "app", 3, a, 2));
	names(&r, 200, 200, "plain");
	/* Unsorted; one start listed twice: the later one wins. */
	jit(&r, 100, 0x2000, 0x10, "b");
	jit(&r, 100, 0x1000, 0x10, "a");
	jit(&r, 100, 0x1000, 0x20, "a2");
	jit(&r, 7, 0x1000, 0x100, "other");
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	pr = profile__process(p, 100);
	ASSERT_NE(NULL, pr);
	EXPECT_EQ(1, pr->nspid);
	EXPECT_STREQ("/c/app.scope", pr->cgroup);
	EXPECT_EQ(NULL, profile__process(p, 200));
	EXPECT_EQ(4, profile__nr_jits(p));
	j = profile__find_jit(p, 100, 0x1018);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("a2", j->name);
	j = profile__find_jit(p, 100, 0x2005);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("b", j->name);
	EXPECT_EQ(NULL, profile__find_jit(p, 100, 0x2010));
	EXPECT_EQ(NULL, profile__find_jit(p, 100, 0xfff));
	EXPECT_EQ(NULL, profile__find_jit(p, 101, 0x1000));
	profile__free(p);
	rec_close(&r);
}

TEST(malformed_container_and_jit)
{
	struct profile_error err;
	struct profile *p;
	struct rec r;
	struct fxt_arg a;

	rec_open(&r);
	jit(&r, 1, 0x1000, 0, "zero");
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "JIT function object 0x1000")) TH_LOG("%s", err.msg);
	rec_close(&r);

	rec_open(&r);
	a = stra(&r, "nspid", "one");
	ASSERT_EQ(0, fxt_writer__process_name_args(r.w, 9, "x", 1, &a, 1));
	EXPECT_EQ(-EPROTO, profile__load_buffer(r.b.p, r.b.n, &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "process object 9: nspid")) TH_LOG("%s", err.msg);
	rec_close(&r);
}

TEST(empty_and_garbage)
{
	static const char junk[] = "this is not an FXT stream at all";
	struct profile_error err;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	p = load(_metadata, &r, &err);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, profile__nr_samples(p));
	EXPECT_EQ(NULL, profile__find_mapping(p, 1, 2, 3));
	EXPECT_EQ(NULL, profile__find_ksym(p, 2));
	profile__free(p);
	rec_close(&r);
	EXPECT_GT(0, profile__load_buffer(junk, sizeof(junk) - 1, &p, &err));
	EXPECT_NE(0, err.msg[0]);
	EXPECT_GT(0, profile__load("/nonexistent/x.fxt", &p, &err));
	EXPECT_NE(NULL, strstr(err.msg, "/nonexistent/x.fxt"));
}

/*
 * Every truncation and many byte flips of a good recording: each load
 * succeeds or fails with a message, never crashes or leaks (ASan).
 */
TEST(mutations)
{
	static const uint64_t ips[] = { 0xffffffff81001010ull, 0x401234,
					0x401300 };
	struct profile_error err;
	struct profile *p;
	struct rec r;
	unsigned int i, fails = 0;
	size_t cut;
	char *copy;

	rec_open(&r);
	kernel(&r);
	names(&r, 10, 10, "sh");
	mapping(&r, 1, 10, 0x400000, 0x500000, 0, true, "/bin/x");
	task(&r, "fork", 900, 10, 10, 20, 20);
	sample(&r, 1000, 10, 10, 0, "kernel", ips, 1, 3);
	names(&r, 10, 10, "zeta");
	task(&r, "exec", 2000, 10, 10, 0, 0);
	sample(&r, 3000, 20, 20, 1, "user", ips + 1, 0, 2);
	for (cut = 0; cut < r.b.n; cut += 8) {
		int ret = profile__load_buffer(r.b.p, cut, &p, &err);

		if (ret) {
			EXPECT_NE(0, err.msg[0]);
			fails++;
		} else {
			profile__free(p);
		}
	}
	EXPECT_LT(0, fails);
	copy = malloc(r.b.n);
	ASSERT_NE(NULL, copy);
	srand(10);
	for (i = 0; i < 3000; i++) {
		unsigned int k;

		memcpy(copy, r.b.p, r.b.n);
		for (k = 0; k < 1 + i % 4; k++)
			copy[(size_t)rand() % r.b.n] ^= (char)(1 << (rand() % 8));
		if (profile__load_buffer(copy, r.b.n, &p, &err)) {
			EXPECT_NE(0, err.msg[0]);
		} else {
			profile__free(p);
		}
	}
	free(copy);
	rec_close(&r);
}

TEST_HARNESS_MAIN
