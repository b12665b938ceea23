// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_record_unwind.c - the recorder's side of the unwind tables
 * (user/cmd/record_unwind.c) against a fake source that keeps what it is
 * given: this process's executable mappings, as the /proc sweep writes
 * them, must each load their file's table once per build id and map it
 * at the bias that puts a function's address on its row; the memory cap
 * and a full source are counted; the config asks for tables only where
 * they can be walked (not with --call-graph fp or dwarf), and falls back
 * on a source that refuses them.
 * The tables are built by the recorder's worker thread: the test waits
 * for it (record_unwind__complete, through its eventfd), with a bound.
 * Prints TAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "record_opts.h"
#include "record_unwind.h"
#include "source/mmap_rec.h"
#include "source/proc_maps.h"
#include "source/source.h"
#include "unwind/unwind_cache.h"
#include "unwind/unwind_table.h"

#define MAX_CALLS	256

/*
 * The fake: tables by id, and the ranges mapped, in order.  It refuses a
 * load past refuse_after loads, or (max_live) while that many tables are
 * loaded and not unloaded.
 */
struct fake_source {
	struct source base;
	unsigned int loads, refuse_after, max_live, live;
	struct fxtprof_unwind_table tables[MAX_CALLS];
	struct fxtprof_unwind_map maps[MAX_CALLS];
	unsigned int nr_maps;
	uint32_t unloaded[MAX_CALLS];
	unsigned int nr_unloaded;
};

static int fake_load(struct source *src, struct fxtprof_unwind_table *t)
{
	struct fake_source *f = (struct fake_source *)src;

	if (f->loads >= f->refuse_after || f->loads == MAX_CALLS ||
	    (f->max_live && f->live >= f->max_live))
		return -ENOSPC;
	t->id = ++f->loads;
	f->tables[t->id - 1] = *t;
	f->live++;
	return 0;
}

static int fake_unload(struct source *src, __u32 id)
{
	struct fake_source *f = (struct fake_source *)src;

	if (!id || id > f->loads || f->nr_unloaded == MAX_CALLS)
		return -ENOENT;
	f->unloaded[f->nr_unloaded++] = id;
	f->live--;
	return 0;
}

static int fake_map(struct source *src, const struct fxtprof_unwind_map *m)
{
	struct fake_source *f = (struct fake_source *)src;

	if (f->nr_maps == MAX_CALLS)
		return -ENOSPC;
	f->maps[f->nr_maps++] = *m;
	return 0;
}

static const struct source_ops fake_ops = {
	.name = "fake", .desc = "the fake source",
	.unwind_load = fake_load, .unwind_map = fake_map,
	.unwind_unload = fake_unload,
};

/* A fake that takes every table, as a test's next part starts with. */
static void fake_reset(struct fake_source *f)
{
	memset(f, 0, sizeof(*f));
	f->base.ops = &fake_ops;
	f->refuse_after = ~0u;
}
static const struct source_ops no_unwind_ops = {
	.name = "old", .desc = "the old source",
};

/*
 * This process's executable mappings through @ru, as the sweep has them
 * (@wait: as the sweep at the start gives them).
 */
static unsigned int feed_maps(struct record_unwind *ru, bool wait)
{
	char line[FXTPROF_MAX_PATH + 128];
	union mmap_rec_buf b;
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (proc_maps__parse_line("/proc", (uint32_t)getpid(), line, 0,
					  &b) != 1)
			continue;
		record_unwind__mapping(ru, &b.m, wait);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static unsigned int feed_own_maps(struct record_unwind *ru)
{
	return feed_maps(ru, false);
}

/* Whether the worker built what it was given, and all was mapped: 10 s. */
static bool all_built(struct record_unwind *ru)
{
	struct pollfd pfd = { .fd = record_unwind__fd(ru), .events = POLLIN };

	for (int i = 0; i < 100; i++) {
		if (record_unwind__complete(ru))
			return true;
		poll(&pfd, 1, 100);
	}
	return record_unwind__complete(ru);
}

static const struct fxtprof_unwind_map *map_of(const struct fake_source *f,
					       const void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;
	unsigned int i;

	for (i = 0; i < f->nr_maps; i++)
		if (a >= f->maps[i].start && a < f->maps[i].end)
			return &f->maps[i];
	return NULL;
}

static struct fxtprof_config unwind_cfg(uint64_t memory)
{
	return (struct fxtprof_config){
		.flags = FXTPROF_CFG_USTACK | FXTPROF_CFG_UNWIND,
		.unwind_memory = memory,
	};
}

TEST(own_mappings)
{
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = ~0u };
	struct fxtprof_config cfg = unwind_cfg(FXTPROF_DEFAULT_UNWIND_MEMORY);
	void *fns[] = { (void *)printf, (void *)dlsym };
	const struct fxtprof_unwind_map *m;
	struct record_unwind ru;
	unsigned int i, n;

	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	n = feed_own_maps(&ru);
	ASSERT_LT(2u, n);
	ASSERT_TRUE(all_built(&ru));
	/* A second sweep loads nothing again: one table per build id. */
	i = f.loads;
	feed_own_maps(&ru);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(i, f.loads);
	EXPECT_EQ(2 * n, ru.mappings);
	EXPECT_EQ(0u, ru.unreadable);
	EXPECT_EQ(0u, ru.unplaced);
	EXPECT_LT(1u, f.loads);

	/* libc's printf: the bias is libc's base, and its pc has a row. */
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		const struct fxtprof_unwind_table *t;
		const struct fxtprof_unwind_row *rows, *r;
		Dl_info info;
		uint64_t pc;
		uint32_t k;

		ASSERT_NE(0, dladdr(fns[i], &info));
		m = map_of(&f, fns[i]);
		ASSERT_NE(NULL, m) TH_LOG("%s not mapped", info.dli_fname);
		EXPECT_EQ((uint64_t)(uintptr_t)info.dli_fbase, m->bias)
			TH_LOG("%s", info.dli_fname);
		EXPECT_EQ((uint32_t)getpid(), m->pid);
		ASSERT_LE(m->id, f.loads);
		t = &f.tables[m->id - 1];
		EXPECT_NE(0, t->build_id_size);
		pc = (uint64_t)(uintptr_t)fns[i] - m->bias;
		rows = (const struct fxtprof_unwind_row *)(uintptr_t)t->rows_ptr;
		for (k = 0, r = NULL; k < t->nr_rows && rows[k].pc <= pc; k++)
			r = &rows[k];
		ASSERT_NE(NULL, r);
		/* A function's entry: the return address on top of the stack. */
		EXPECT_EQ(FXTPROF_UNWIND_CFA_SP, r->cfa_reg);
		EXPECT_EQ(8, r->cfa_offset);
		EXPECT_EQ(-8, r->ra_offset);
	}
	record_unwind__fini(&ru);
}

TEST(memory_cap_and_full_source)
{
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = 1 };
	struct fxtprof_config cfg = unwind_cfg(64 << 10);
	struct unwind_cache_stats st;
	struct record_unwind ru;

	/*
	 * 64 KiB holds this program's table and small libraries', not
	 * libc's; the source takes one table and refuses the others.
	 */
	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	feed_own_maps(&ru);
	ASSERT_TRUE(all_built(&ru));
	unwind_cache__stats(ru.cache, &st);
	EXPECT_EQ(NULL, map_of(&f, (void *)printf));
	EXPECT_LE(1u, st.over_cap);
	EXPECT_GE(64u << 10, st.bytes);
	EXPECT_EQ(1u, f.loads);
	EXPECT_EQ(st.tables - 1, ru.source_full);
	EXPECT_EQ(ru.load_failed, ru.source_full);
	EXPECT_EQ(1u, ru.mapped);
	record_unwind__fini(&ru);
}

static void sample_of(struct record_unwind *ru, uint32_t pid)
{
	struct fxtprof_sample s = {
		.hdr = { .type = FXTPROF_REC_SAMPLE, .size = sizeof(s) },
		.pid = pid, .tid = pid,
	};

	record_unwind__record(ru, &s.hdr);
}

static void fork_of(struct record_unwind *ru, uint32_t parent, uint32_t child,
		    uint64_t clone_flags)
{
	struct fxtprof_fork f = {
		.hdr = { .type = FXTPROF_REC_FORK, .size = sizeof(f) },
		.parent_pid = parent, .parent_tid = parent,
		.child_pid = clone_flags & CLONE_THREAD ? parent : child,
		.child_tid = child, .clone_flags = clone_flags,
	};

	record_unwind__record(ru, &f.hdr);
}

static void exit_of(struct record_unwind *ru, uint32_t pid, uint32_t flags)
{
	struct fxtprof_exit e = {
		.hdr = { .type = FXTPROF_REC_EXIT, .size = sizeof(e) },
		.pid = pid, .tid = pid, .flags = flags,
	};

	record_unwind__record(ru, &e.hdr);
}

/* How many of @f's ranges belong to @pid. */
static unsigned int maps_of_pid(const struct fake_source *f, uint32_t pid)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nr_maps; i++)
		n += f->maps[i].pid == pid;
	return n;
}

/*
 * The processes running at the start wait for their first sample: an
 * idle one costs no table, a busy one gets its tables then.
 */
TEST(swept_mappings_wait_for_a_sample)
{
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = ~0u };
	struct fxtprof_config cfg = unwind_cfg(FXTPROF_DEFAULT_UNWIND_MEMORY);
	struct record_unwind ru;
	unsigned int n, loads;

	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	n = feed_maps(&ru, true);
	ASSERT_LT(2u, n);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(0u, f.loads);
	EXPECT_EQ(0u, f.nr_maps);
	EXPECT_LT(2u, ru.waited);
	EXPECT_EQ(ru.waited, ru.procs.waiting);

	/* Another process's sample builds nothing of ours. */
	sample_of(&ru, (uint32_t)getpid() + 1);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(0u, f.loads);

	sample_of(&ru, (uint32_t)getpid());
	EXPECT_EQ(0u, ru.procs.waiting);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_LT(1u, f.loads);
	EXPECT_NE(NULL, map_of(&f, (void *)printf));
	EXPECT_EQ(f.nr_maps, maps_of_pid(&f, (uint32_t)getpid()));

	/* Once sampled, its later mappings do not wait. */
	loads = f.loads;
	n = f.nr_maps;
	feed_maps(&ru, true);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(0u, ru.procs.waiting);
	EXPECT_EQ(loads, f.loads);
	EXPECT_EQ(2 * n, f.nr_maps);
	record_unwind__fini(&ru);
}

/*
 * A process that ends, or execs, before it is sampled costs nothing; one
 * whose exit record never came is found gone by the tick.
 */
TEST(exit_and_exec_forget_what_waited)
{
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = ~0u };
	struct fxtprof_config cfg = unwind_cfg(FXTPROF_DEFAULT_UNWIND_MEMORY);
	struct fxtprof_exec x = {
		.hdr = { .type = FXTPROF_REC_EXEC, .size = sizeof(x) },
		.pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
	};
	struct record_unwind ru;
	uint64_t n;

	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	feed_maps(&ru, true);
	ASSERT_LT(0u, ru.procs.waiting);
	/* A thread's exit is not the process's. */
	exit_of(&ru, (uint32_t)getpid(), 0);
	EXPECT_LT(0u, ru.procs.waiting);
	exit_of(&ru, (uint32_t)getpid(), FXTPROF_EXIT_GROUP_DEAD);
	EXPECT_EQ(0u, ru.procs.waiting);
	sample_of(&ru, (uint32_t)getpid());
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(0u, f.loads);

	feed_maps(&ru, true);
	ASSERT_LT(0u, ru.procs.waiting);
	record_unwind__record(&ru, &x.hdr);
	EXPECT_EQ(0u, ru.procs.waiting);
	sample_of(&ru, (uint32_t)getpid());
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(0u, f.loads);

	/* No exit record (--no-tasks): the tick finds the process gone. */
	{
		struct unwind_proc *p;
		union mmap_rec_buf b = { 0 };
		uint32_t gone = 1u << 30;	/* above pid_max */

		b.m.hdr.size = sizeof(b.m);
		p = unwind_procs__get(&ru.procs, gone, true);
		ASSERT_NE(NULL, p);
		ASSERT_EQ(0, unwind_proc__wait(&ru.procs, p, &b.m));
		feed_maps(&ru, true);
		n = ru.procs.waiting;
		record_unwind__tick(&ru, 20000000000ull);
		EXPECT_EQ(1u, ru.pruned);
		EXPECT_EQ(n - 1, ru.procs.waiting);
		EXPECT_EQ(NULL, unwind_procs__get(&ru.procs, gone, false));
		/* Not again within 10 s. */
		record_unwind__tick(&ru, 25000000000ull);
		EXPECT_EQ(1u, ru.pruned);
	}
	record_unwind__fini(&ru);
}

/*
 * fork without exec reports no mapping: the child gets its parent's
 * ranges, the same tables at the same biases, also those whose tables
 * were still being built at the fork; a thread gets none (it shares
 * them); and what of the parent still waits, waits for the child too,
 * built from the child's own /proc entries.
 */
TEST(forked_child_gets_its_parents_ranges)
{
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = ~0u };
	struct fxtprof_config cfg = unwind_cfg(FXTPROF_DEFAULT_UNWIND_MEMORY);
	uint32_t me = (uint32_t)getpid(), fake_child = 1u << 30;
	struct record_unwind ru;
	unsigned int i, n, j;
	int gate[2];
	pid_t child;
	char c;

	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	feed_own_maps(&ru);
	ASSERT_TRUE(all_built(&ru));
	n = f.nr_maps;
	ASSERT_LT(1u, n);
	fork_of(&ru, me, me + 1, CLONE_THREAD | CLONE_VM);
	EXPECT_EQ(n, f.nr_maps);
	fork_of(&ru, me, fake_child, 0);
	ASSERT_EQ(2 * n, f.nr_maps);
	EXPECT_EQ(n, ru.inherited);
	for (i = 0; i < n; i++) {
		j = n + i;
		EXPECT_EQ(fake_child, f.maps[j].pid);
		EXPECT_EQ(f.maps[i].start, f.maps[j].start);
		EXPECT_EQ(f.maps[i].end, f.maps[j].end);
		EXPECT_EQ(f.maps[i].bias, f.maps[j].bias);
		EXPECT_EQ(f.maps[i].id, f.maps[j].id);
	}
	/* A grandchild of the fake child inherits through it. */
	fork_of(&ru, fake_child, fake_child + 1, 0);
	EXPECT_EQ(n, maps_of_pid(&f, fake_child + 1));
	/*
	 * Neither fake child's exit comes, as when it was handled before
	 * their fork: the tick finds them gone and takes back the ranges
	 * the source holds for them, with one map of no table over all.
	 */
	i = f.nr_maps;
	record_unwind__tick(&ru, 20000000000ull);
	EXPECT_EQ(2u, ru.pruned);
	EXPECT_EQ(2u, ru.ranges_taken_back);
	ASSERT_EQ(i + 2, f.nr_maps);
	for (j = i; j < f.nr_maps; j++) {
		EXPECT_TRUE(f.maps[j].pid == fake_child ||
			    f.maps[j].pid == fake_child + 1);
		EXPECT_EQ(0u, f.maps[j].id);
		EXPECT_EQ(0u, f.maps[j].start);
		EXPECT_EQ(~0ull, f.maps[j].end);
	}
	record_unwind__fini(&ru);

	/* Forked while the parent's tables are with the worker: heirs. */
	fake_reset(&f);
	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	feed_own_maps(&ru);
	fork_of(&ru, me, fake_child, 0);
	EXPECT_EQ(0u, f.nr_maps);
	ASSERT_TRUE(all_built(&ru));
	n = maps_of_pid(&f, me);
	ASSERT_LT(1u, n);
	EXPECT_EQ(n, maps_of_pid(&f, fake_child));
	/* Once all landed, a later fork is given ranges, not heirship. */
	fork_of(&ru, me, fake_child + 1, 0);
	EXPECT_EQ(n, maps_of_pid(&f, fake_child + 1));
	record_unwind__fini(&ru);

	/* A waiting parent: the real child's sample builds its tables. */
	fake_reset(&f);
	ASSERT_EQ(0, pipe(gate));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		close(gate[1]);
		_exit(read(gate[0], &c, 1) < 0);
	}
	close(gate[0]);
	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	feed_maps(&ru, true);
	n = ru.procs.waiting;
	ASSERT_LT(1u, n);
	fork_of(&ru, me, (uint32_t)child, 0);
	EXPECT_EQ(2 * n, ru.procs.waiting);
	sample_of(&ru, (uint32_t)child);
	EXPECT_EQ(n, ru.procs.waiting);
	ASSERT_TRUE(all_built(&ru));
	EXPECT_LT(1u, f.loads);
	EXPECT_EQ(0u, ru.unreadable);
	EXPECT_EQ(f.nr_maps, maps_of_pid(&f, (uint32_t)child));
	EXPECT_LT(1u, f.nr_maps);
	close(gate[1]);
	waitpid(child, NULL, 0);
	record_unwind__fini(&ru);
}

/* A child that maps @path executable and waits for its gate to close. */
static pid_t mapper(const char *path, int gate[2])
{
	pid_t pid;
	char c;
	int fd;

	if (pipe(gate))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	close(gate[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			   fd, 0) == MAP_FAILED)
		_exit(1);
	/* The parent reads /proc/PID/maps until the mapping shows. */
	_exit(read(gate[0], &c, 1) < 0);
}

/* @pid's mapping of @path, once it shows, as the sweep gives it: 10 s. */
static bool feed_mapping_of(struct record_unwind *ru, pid_t pid,
			    const char *path)
{
	char maps[64], line[FXTPROF_MAX_PATH + 128];
	union mmap_rec_buf b;
	bool found = false;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	for (int i = 0; i < 1000 && !found; i++) {
		f = fopen(maps, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (!strstr(line, path) ||
			    proc_maps__parse_line("/proc", (uint32_t)pid, line,
						  0, &b) != 1)
				continue;
			record_unwind__mapping(ru, &b.m, true);
			found = true;
			break;
		}
		if (f)
			fclose(f);
		if (!found)
			poll(NULL, 0, 10);
	}
	return found;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sample_at(struct record_unwind *ru, uint32_t pid, uint64_t ns)
{
	struct fxtprof_sample s = {
		.hdr = { .type = FXTPROF_REC_SAMPLE, .size = sizeof(s),
			 .time_ns = ns },
		.pid = pid, .tid = pid,
	};

	record_unwind__record(ru, &s.hdr);
}

static size_t table_size(const char *path)
{
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];
	size_t n;

	if (unwind_table__build_path(path, &t, why))
		return 0;
	n = unwind_table__size(t);
	unwind_table__free(t);
	return n;
}

/*
 * The memory holds one of two tables.  A process sampled now takes it
 * from one whose last sample is older than the idle window: the idle
 * table's range is removed, the source unloads it, the cache frees it,
 * and its mapping waits again.  When that process runs again, within the
 * window of the other, nothing is evicted: it waits, counted.
 */
TEST(idle_table_is_evicted_for_a_running_process)
{
	const char *a = UNWIND_FIXTURES "/nofp", *b = UNWIND_FIXTURES "/throw";
	struct fake_source f = { .base.ops = &fake_ops, .refuse_after = ~0u,
				 .max_live = 1 };
	size_t sa = table_size(a), sb = table_size(b);
	struct fxtprof_config cfg = unwind_cfg((sa > sb ? sa : sb) + 100);
	struct unwind_cache_stats st;
	struct record_unwind ru;
	int gate_a[2], gate_b[2];
	pid_t pa, pb;
	uint64_t t0;
	unsigned int i, removed = 0;

	ASSERT_LT(0u, sa);
	ASSERT_LT(sa > sb ? sa : sb, sa + sb - 100);
	pa = mapper(a, gate_a);
	pb = mapper(b, gate_b);
	ASSERT_LT(0, pa);
	ASSERT_LT(0, pb);
	close(gate_a[0]);
	close(gate_b[0]);
	ASSERT_EQ(0, record_unwind__init(&ru, &f.base, &cfg));
	ru.evict_idle_ns = 200 * 1000000ull;
	ASSERT_TRUE(feed_mapping_of(&ru, pa, a));
	ASSERT_TRUE(feed_mapping_of(&ru, pb, b));
	EXPECT_EQ(2u, ru.procs.waiting);

	sample_at(&ru, (uint32_t)pa, now_ns());
	ASSERT_TRUE(all_built(&ru));
	ASSERT_EQ(1u, f.loads);
	ASSERT_EQ(1u, maps_of_pid(&f, (uint32_t)pa));
	/* The window passes for a's table (a condition, not a sleep). */
	t0 = now_ns();
	while (now_ns() < t0 + 2 * ru.evict_idle_ns)
		poll(NULL, 0, 20);

	sample_at(&ru, (uint32_t)pb, now_ns());
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(1u, ru.evicted);
	ASSERT_EQ(1u, f.nr_unloaded);
	EXPECT_EQ(1u, f.unloaded[0]);
	EXPECT_EQ(2u, f.loads);
	EXPECT_EQ(1u, f.live);
	/* a's range went (id 0) before the unload; b's came after. */
	for (i = 0; i < f.nr_maps; i++)
		removed += f.maps[i].pid == (uint32_t)pa && !f.maps[i].id;
	EXPECT_EQ(1u, removed);
	EXPECT_EQ(2u, f.maps[f.nr_maps - 1].id);
	EXPECT_EQ((uint32_t)pb, f.maps[f.nr_maps - 1].pid);
	EXPECT_EQ(1u, ru.procs.waiting);	/* a's, again */
	unwind_cache__stats(ru.cache, &st);
	EXPECT_EQ(1u, st.evicted);
	EXPECT_EQ(1u, st.tables);
	EXPECT_EQ(sb, st.bytes);

	/* a runs again while b is in use: no turn-taking, a waits. */
	sample_at(&ru, (uint32_t)pb, now_ns());
	sample_at(&ru, (uint32_t)pa, now_ns());
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(1u, ru.evicted);
	EXPECT_EQ(2u, f.loads);
	EXPECT_LE(1u, ru.no_room);
	EXPECT_EQ(1u, ru.procs.waiting);
	/* And not again before the retry time, however often it runs. */
	i = ru.no_room;
	sample_at(&ru, (uint32_t)pa, now_ns());
	ASSERT_TRUE(all_built(&ru));
	EXPECT_EQ(i, ru.no_room);

	record_unwind__fini(&ru);
	close(gate_a[1]);
	close(gate_b[1]);
	waitpid(pa, NULL, 0);
	waitpid(pb, NULL, 0);
}

TEST(config)
{
	struct record_opts o = { .quiet = true,
				 .unwind_memory = 1 << 20 };
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_DEFAULT };
	struct record_unwind ru;

	record_unwind__config(&o, &fake_ops, &cfg);
	EXPECT_TRUE(cfg.flags & FXTPROF_CFG_UNWIND);
	EXPECT_EQ(1u << 20, cfg.unwind_memory);
	EXPECT_EQ(FXTPROF_DEFAULT_UNWIND_BUDGET, cfg.unwind_budget);

	/* An older module: EINVAL, then the same without tables. */
	EXPECT_FALSE(record_unwind__fallback(&o, -ENODEV, "", &cfg));
	EXPECT_TRUE(record_unwind__fallback(&o, -EINVAL, "", &cfg));
	EXPECT_FALSE(cfg.flags & FXTPROF_CFG_UNWIND);
	EXPECT_EQ(0u, cfg.unwind_memory);
	EXPECT_FALSE(record_unwind__fallback(&o, -EINVAL, "", &cfg));
	ASSERT_EQ(0, record_unwind__init(&ru, NULL, &cfg));
	EXPECT_EQ(NULL, ru.src);
	record_unwind__fini(&ru);

	/* A source without the ops, --call-graph fp, no user stacks. */
	cfg.flags = FXTPROF_CFG_DEFAULT;
	record_unwind__config(&o, &no_unwind_ops, &cfg);
	EXPECT_FALSE(cfg.flags & FXTPROF_CFG_UNWIND);
	o.ustack_walk = RECORD_USTACK_FP;
	record_unwind__config(&o, &fake_ops, &cfg);
	EXPECT_FALSE(cfg.flags & FXTPROF_CFG_UNWIND);
	/* --call-graph dwarf: the copies are unwound on the host. */
	o.ustack_walk = RECORD_USTACK_DWARF;
	record_unwind__config(&o, &fake_ops, &cfg);
	EXPECT_FALSE(cfg.flags & FXTPROF_CFG_UNWIND);
	o.ustack_walk = RECORD_USTACK_TABLES;
	cfg.flags = FXTPROF_CFG_KSTACK;
	record_unwind__config(&o, &fake_ops, &cfg);
	EXPECT_FALSE(cfg.flags & FXTPROF_CFG_UNWIND);
}

TEST_HARNESS_MAIN
