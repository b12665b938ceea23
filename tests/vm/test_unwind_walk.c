// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_walk.c - the module's walk by unwind tables, end to end:
 * fxt_nofp recorded with its table (vm_nofp.h); at least 95% of its
 * samples whose leaf is in it must reach main with every expected frame
 * in order; the same of fxt_throw (tests/unwind/throw.cpp, x86_64 only:
 * no C++ cross compiler here), hot in a catch block and in a destructor
 * that a cleanup landing pad runs; and a run of fxt_nofp that exits
 * within 50 ms.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kselftest_harness.h"
#include "vm_nofp.h"

/* The frames expected of a sample that starts at @ips[0], in order. */
static bool nofp_stack_ok(const struct nofp *n, const __u64 *ips,
			  unsigned int nr)
{
	int fn[128], m = -1;
	unsigned int i;

	for (i = 0; i < nr && i < 128; i++) {
		fn[i] = nofp_fn(n, ips[i]);
		if (fn[i] == F_MAIN) {
			m = i;
			break;
		}
	}
	if (m < 0)
		return false;
	if (fn[0] == F_CMP)	/* glibc's frames between, then nofp_sort */
		return m >= 3 && fn[m - 1] == F_SORT;
	if (fn[0] == F_LEAF) {	/* the whole recursion */
		if (m != NOFP_DEPTH + 2)
			return false;
		for (i = 1; i < (unsigned int)m; i++)
			if (fn[i] != F_RECURSE)
				return false;
		return true;
	}
	if (fn[0] == F_RECURSE) {
		for (i = 1; i < (unsigned int)m; i++)
			if (fn[i] != F_RECURSE)
				return false;
	}
	if (fn[0] == F_SORT)
		return m == 1;
	return true;
}

static void log_stack(struct __test_metadata *_metadata,
		      const struct nofp *n, const struct fxtprof_sample *s)
{
	const __u64 *ips = s->ips + s->nr_kernel;
	char buf[1024];
	int len = 0;

	for (unsigned int i = 0; i < s->nr_user && i < 12; i++) {
		int f = nofp_fn(n, ips[i]);

		len += snprintf(buf + len, sizeof(buf) - len, " %s",
				f >= 0 ? fn_names[f] : "?");
		if (f < 0)
			len += snprintf(buf + len, sizeof(buf) - len, "(%#llx)",
					(unsigned long long)(ips[i] - n->c.bias));
	}
	TH_LOG("end %u, %u frames:%s", s->ustack_end, s->nr_user, buf);
}

/* The module's walk counters, summed over the CPUs. */
static void sum_stats(FIXTURE_DATA(dev) *self, struct fxtprof_stats *sum)
{
	struct fxtprof_stats st;

	memset(sum, 0, sizeof(*sum));
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(self->dev); cpu++) {
		if (!fxtprof_dev__ring(self->dev, cpu) ||
		    fxtprof_dev__stats(self->dev, cpu, &st))
			continue;
		sum->unwind_table_frames += st.unwind_table_frames;
		sum->unwind_fp_frames += st.unwind_fp_frames;
		sum->unwind_rule_frames += st.unwind_rule_frames;
	}
}

/*
 * Record fxt_nofp MODE for @ms; at least @min_samples of its samples
 * have their leaf in it (@named: in one of its named functions), and
 * 95 % of those reach main as expected.
 */
static void walk_nofp(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dev) *self, const char *mode,
		      const char *ms, unsigned int min_samples, bool named)
{
	unsigned int in_prog = 0, ok = 0, logged = 0;
	unsigned long long ends[FXTPROF_USTACK_END_MAX] = { 0 };
	struct fxtprof_stats sum;
	struct nofp n = { 0 };

	record_nofp(_metadata, self, &n, mode, ms, FXTPROF_MAX_STACK_DEPTH, 0, 0);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;
		const __u64 *ips = s->ips + s->nr_kernel;

		if (rec->type != FXTPROF_REC_SAMPLE ||
		    s->pid != (__u32)n.c.pid || !s->nr_user ||
		    ips[0] < n.c.lo || ips[0] >= n.c.hi ||
		    (named && nofp_fn(&n, ips[0]) < 0))
			continue;
		in_prog++;
		if (s->ustack_end < FXTPROF_USTACK_END_MAX)
			ends[s->ustack_end]++;
		if (nofp_stack_ok(&n, ips, s->nr_user))
			ok++;
		else if (logged++ < 5)
			log_stack(_metadata, &n, s);
	}
	sum_stats(self, &sum);
	TH_LOG("%s: %u samples in fxt_nofp, %u reach main as expected; "
	       "ends: complete %llu, fp %llu, depth %llu, fault %llu, "
	       "budget %llu, bad %llu, lr %llu; frames: table %llu, fp %llu, "
	       "no rule %llu", mode, in_prog, ok,
	       ends[FXTPROF_USTACK_END_COMPLETE], ends[FXTPROF_USTACK_END_FP_CHAIN],
	       ends[FXTPROF_USTACK_END_DEPTH], ends[FXTPROF_USTACK_END_FAULT],
	       ends[FXTPROF_USTACK_END_BUDGET], ends[FXTPROF_USTACK_END_BAD_FRAME],
	       ends[FXTPROF_USTACK_END_RA_IN_LR],
	       (unsigned long long)sum.unwind_table_frames,
	       (unsigned long long)sum.unwind_fp_frames,
	       (unsigned long long)sum.unwind_rule_frames);
	EXPECT_LE(min_samples, in_prog);
	EXPECT_LE(in_prog * 95, ok * 100ull);
	EXPECT_LT(0, sum.unwind_table_frames);
}

TEST_F(dev, fp_less_qsort_callback_reaches_main)
{
	walk_nofp(_metadata, self, "qsort", "2000", 100, false);
}

TEST_F(dev, fp_less_recursion_reaches_main)
{
	walk_nofp(_metadata, self, "recurse", "2000", 100, false);
}

/*
 * A process that exits within 50 ms: its table mapped before it works
 * (here, between its exec and its go), the samples in its functions
 * reach main.  Only those count: its static glibc's start-up runs before
 * the map (_dl_get_origin's readlink: a fault), and its exit after the
 * work; both are a larger share of 30 ms than of 2 s.  The recorder maps
 * a table only once it has read the exec's MMAP record and the worker
 * has built the table, so a process as short may be gone by then and
 * walked by frame pointers (Documentation/unwinding.md, "The recorder
 * and the cache").  About 30 samples at 1000 Hz; a starved vCPU gives
 * fewer.
 */
TEST_F(dev, process_exiting_within_50ms)
{
	walk_nofp(_metadata, self, "recurse", "30", 3, true);
}

/*
 * fxt_throw (tests/unwind/throw.cpp, static, -O2 -fomit-frame-pointer):
 * its named functions, each with the part gcc may move to NAME.cold (a
 * catch block, a landing pad), and the frames expected of its two modes,
 * leaf first; ~guard, C++-named, is none of them.
 */
static const char *const throw_fns[] = {
	"catch_spin", "catch_site", "catch_mid", "throw_loop", "throw_deep",
	"dtor_spin", "dtor_mid", "dtor_catch", "main",
};
#define THROW_NR	(sizeof(throw_fns) / sizeof(throw_fns[0]))

static const char *const throw_catch_frames[] = {
	"catch_spin", "catch_site", "catch_mid", "throw_loop", "main", NULL
};
static const char *const throw_dtor_frames[] = {
	"catch_spin", "dtor_spin", "dtor_mid", "dtor_catch", "throw_loop",
	"main", NULL
};

struct throw_prog {
	struct vm_child c;
	unsigned long long addr[THROW_NR][2], size[THROW_NR][2];
};

/* The function @ip is in (a return address unless @leaf), or NULL. */
static const char *throw_fn(const struct throw_prog *t, unsigned long long ip,
			    bool leaf)
{
	ip -= t->c.bias + !leaf;
	for (unsigned int f = 0; f < THROW_NR; f++)
		for (int part = 0; part < 2; part++)
			if (ip - t->addr[f][part] < t->size[f][part])
				return throw_fns[f];
	return NULL;
}

/* Whether the named frames of @ips, up to main, are exactly @expect. */
static bool throw_stack_ok(const struct throw_prog *t, const __u64 *ips,
			   unsigned int nr, const char *const *expect)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nr; i++) {
		const char *name = throw_fn(t, ips[i], i == 0);

		if (!name)
			continue;
		if (!expect[k] || strcmp(name, expect[k]))
			return false;
		if (!strcmp(name, "main"))
			return true;
		k++;
	}
	return false;
}

/*
 * Record fxt_throw MODE: 95 % of the samples whose leaf is one of its
 * named functions reach main with @expect in order; those elsewhere (the
 * unwinder, libstdc++, ~guard) are counted, not required.
 */
static void walk_throw(struct __test_metadata *_metadata,
		       FIXTURE_DATA(dev) *self, const char *mode,
		       const char *const *expect)
{
	const char *path = vm_test_path("fxt_throw");
	unsigned int in_prog = 0, ok = 0, other = 0, other_main = 0;
	struct throw_prog t = { 0 };
	struct fxtprof_stats sum;
	char part[64];

	if (access(path, X_OK))
		SKIP(return, "no fxt_throw: no C++ cross compiler for this arch");
	for (unsigned int f = 0; f < THROW_NR; f++) {
		ASSERT_EQ(0, vm_elf_sym(path, throw_fns[f], &t.addr[f][0],
					&t.size[f][0])) TH_LOG("%s", throw_fns[f]);
		snprintf(part, sizeof(part), "%s.cold", throw_fns[f]);
		vm_elf_sym(path, part, &t.addr[f][1], &t.size[f][1]);
	}
	vm_child_record(_metadata, self, &t.c, path, mode, "2000",
			FXTPROF_MAX_STACK_DEPTH, 0, 0);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;
		const __u64 *ips = s->ips + s->nr_kernel;

		if (rec->type != FXTPROF_REC_SAMPLE ||
		    s->pid != (__u32)t.c.pid || !s->nr_user)
			continue;
		if (throw_fn(&t, ips[0], true)) {
			in_prog++;
			ok += throw_stack_ok(&t, ips, s->nr_user, expect);
			continue;
		}
		other++;
		for (unsigned int i = 1; i < s->nr_user; i++) {
			const char *name = throw_fn(&t, ips[i], false);

			if (name && !strcmp(name, "main")) {
				other_main++;
				break;
			}
		}
	}
	sum_stats(self, &sum);
	TH_LOG("throw %s: %u samples in its functions, %u reach main as "
	       "expected; %u elsewhere (the unwinder), %u of them reach main; "
	       "frames: table %llu, fp %llu, no rule %llu", mode, in_prog, ok,
	       other, other_main,
	       (unsigned long long)sum.unwind_table_frames,
	       (unsigned long long)sum.unwind_fp_frames,
	       (unsigned long long)sum.unwind_rule_frames);
	EXPECT_LE(100, in_prog);
	EXPECT_LE(in_prog * 95, ok * 100ull);
}

/* Hot in a catch block, 4 frames below main, after a throw through 4. */
TEST_F(dev, cpp_catch_block_after_a_throw_reaches_main)
{
	walk_throw(_metadata, self, "catch", throw_catch_frames);
}

/* Hot in a destructor that a cleanup landing pad runs during unwinding. */
TEST_F(dev, cpp_destructor_in_a_landing_pad_reaches_main)
{
	walk_throw(_metadata, self, "dtor", throw_dtor_frames);
}

/*
 * Of @n's samples in nofp_leaf (into *@leaf), those whose walk ended with
 * @end after at most @max_nr frames (into *@cut); a walk cut by the depth
 * must say so in its flags too.
 */
static void leaf_ends(const struct vm_recs *r, const struct nofp *n,
		      unsigned int max_nr, __u8 end, unsigned int *leaf,
		      unsigned int *cut)
{
	*leaf = 0;
	*cut = 0;
	vm_recs_for_each(r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;

		if (rec->type != FXTPROF_REC_SAMPLE ||
		    s->pid != (__u32)n->c.pid ||
		    !s->nr_user ||
		    nofp_fn(n, s->ips[s->nr_kernel]) != F_LEAF)
			continue;
		(*leaf)++;
		if (s->nr_user <= max_nr && s->ustack_end == end &&
		    (end != FXTPROF_USTACK_END_DEPTH ||
		     s->flags & FXTPROF_SAMPLE_USTACK_TRUNCATED))
			(*cut)++;
	}
}

/* The depth and the budget end the walk of the 43-frame recursion. */
TEST_F(dev, depth_and_budget_stop_the_walk)
{
	unsigned int leaf, cut;
	struct nofp n = { 0 };

	record_nofp(_metadata, self, &n, "recurse", "1000", 5, 0, 0);
	leaf_ends(&self->r, &n, 5, FXTPROF_USTACK_END_DEPTH, &leaf, &cut);
	TH_LOG("depth 5: %u samples in nofp_leaf, %u cut at 5 frames",
	       leaf, cut);
	EXPECT_LE(50, leaf);
	EXPECT_LE(leaf * 95, cut * 100ull);

	vm_recs_free(&self->r);
	memset(&self->r, 0, sizeof(self->r));
	/*
	 * A frame of nofp_recurse takes one read: 8 reads give 9 frames, 10
	 * on arm64, where nofp_leaf's return address is still in x30.
	 */
	record_nofp(_metadata, self, &n, "recurse", "1000",
		    FXTPROF_MAX_STACK_DEPTH, 8, 0);
	leaf_ends(&self->r, &n, 10, FXTPROF_USTACK_END_BUDGET, &leaf, &cut);
	TH_LOG("budget 8: %u samples in nofp_leaf, %u cut by the budget",
	       leaf, cut);
	EXPECT_LE(50, leaf);
	EXPECT_LE(leaf * 95, cut * 100ull);
}

TEST_HARNESS_MAIN
