// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_walk.c - the module's walk by unwind tables, end to end:
 * fxt_nofp recorded with its table (vm_nofp.h); at least 95% of its
 * samples whose leaf is in it must reach main with every expected frame
 * in order.
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
					(unsigned long long)(ips[i] - n->bias));
	}
	TH_LOG("end %u, %u frames:%s", s->ustack_end, s->nr_user, buf);
}

static void walk_nofp(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dev) *self, const char *mode)
{
	unsigned int in_prog = 0, ok = 0, logged = 0;
	unsigned long long ends[FXTPROF_USTACK_END_MAX] = { 0 };
	struct fxtprof_stats st, sum = { 0 };
	struct nofp n = { 0 };

	record_nofp(_metadata, self, &n, mode, "2000",
		    FXTPROF_MAX_STACK_DEPTH, 0, 0);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;
		const __u64 *ips = s->ips + s->nr_kernel;

		if (rec->type != FXTPROF_REC_SAMPLE || s->pid != (__u32)n.pid ||
		    !s->nr_user || ips[0] < n.lo || ips[0] >= n.hi)
			continue;
		in_prog++;
		if (s->ustack_end < FXTPROF_USTACK_END_MAX)
			ends[s->ustack_end]++;
		if (nofp_stack_ok(&n, ips, s->nr_user))
			ok++;
		else if (logged++ < 5)
			log_stack(_metadata, &n, s);
	}
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(self->dev); cpu++) {
		if (!fxtprof_dev__ring(self->dev, cpu) ||
		    fxtprof_dev__stats(self->dev, cpu, &st))
			continue;
		sum.unwind_table_frames += st.unwind_table_frames;
		sum.unwind_fp_frames += st.unwind_fp_frames;
		sum.unwind_rule_frames += st.unwind_rule_frames;
	}
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
	EXPECT_LE(100, in_prog);
	EXPECT_LE(in_prog * 95, ok * 100ull);
	EXPECT_LT(0, sum.unwind_table_frames);
}

TEST_F(dev, fp_less_qsort_callback_reaches_main)
{
	walk_nofp(_metadata, self, "qsort");
}

TEST_F(dev, fp_less_recursion_reaches_main)
{
	walk_nofp(_metadata, self, "recurse");
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

		if (rec->type != FXTPROF_REC_SAMPLE || s->pid != (__u32)n->pid ||
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
