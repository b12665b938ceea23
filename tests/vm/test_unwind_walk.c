// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_walk.c - the module's walk by unwind tables, end to end: the
 * table of fxt_nofp (built -O2 -fomit-frame-pointer, static: glibc's qsort
 * is in it too) is built here from its CFI by user/unwind/ (libdw, what
 * the recorder runs), loaded with libfxtprof and mapped for the child's
 * pid; then at least 95% of its samples whose leaf is in it must reach
 * main with every expected frame in order:
 *
 *   qsort:    nofp_cmp <- (glibc, one frame or more) <- nofp_sort <- main
 *   recurse:  nofp_leaf <- nofp_recurse x 41 <- main
 *
 * and fxt_throw (tests/unwind/throw.cpp, x86_64 only: no C++ cross
 * compiler here), hot in a catch block and in a destructor that a
 * cleanup landing pad runs; and a run of fxt_nofp that exits within
 * 50 ms.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "unwind/unwind_table.h"
#include "vm_util.h"
#include "vm_fixture.h"

#define NOFP_DEPTH	40	/* fxt_nofp.c's */

enum { F_CMP, F_SORT, F_LEAF, F_RECURSE, F_MAIN, F_NR };

static const char *const fn_names[F_NR] = {
	"nofp_cmp", "nofp_sort", "nofp_leaf", "nofp_recurse", "main",
};

/* A test program, started and waiting at its gate. */
struct child {
	pid_t pid;
	int to, from;			/* its stdin and stdout */
	unsigned long long lo, hi;	/* its executable addresses */
	unsigned long long bias;
};

struct nofp {
	struct child c;
	unsigned long long addr[F_NR], size[F_NR];
};

/* p_vaddr - p_offset of the executable segment of ELF file @path. */
static int exec_segment_delta(const char *path, unsigned long long *delta)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY), ret = -ENOENT;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out_close;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && ph.p_flags & PF_X) {
			*delta = ph.p_vaddr - ph.p_offset;
			ret = 0;
			break;
		}
	}
out_close:
	close(fd);
	return ret;
}

/* @path MODE MS, started and waiting for its go; its mapping found. */
static int child_spawn(struct child *n, const char *path, const char *mode,
		       const char *ms)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned long long start, end, off, delta = 0;
	int to[2], from[2], ret = -ENOENT;
	char line[512], name[256];
	FILE *maps;

	if (pipe(to) || pipe(from))
		return -errno;
	n->pid = fork();
	if (n->pid < 0)
		return -errno;
	if (n->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(path, base, mode, ms, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	n->to = to[1];
	n->from = from[0];
	/* Its first byte: the exec is done, its mappings are there. */
	if (read(n->from, line, 1) != 1)
		return -ECHILD;
	ret = exec_segment_delta(path, &delta);
	if (ret)
		return ret;
	snprintf(line, sizeof(line), "/proc/%d/maps", n->pid);
	maps = fopen(line, "r");
	if (!maps)
		return -errno;
	ret = -ENOENT;
	while (fgets(line, sizeof(line), maps)) {
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &start,
			   &end, perms, &off, name) == 5 &&
		    perms[2] == 'x' && strstr(name, base)) {
			n->lo = start;
			n->hi = end;
			n->bias = start - off - delta;
			ret = 0;
		}
	}
	fclose(maps);
	return ret;
}

static int nofp_fn(const struct nofp *n, unsigned long long ip)
{
	for (int f = 0; f < F_NR; f++)
		if (ip - n->c.bias - n->addr[f] < n->size[f])
			return f;
	return -1;
}

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

/*
 * Record @path MODE for MS milliseconds, its table loaded and mapped
 * before it runs, with the walk bounded by @depth frames and @budget
 * reads.
 */
static void record_child(struct __test_metadata *_metadata,
			 FIXTURE_DATA(dev) *self, struct child *n,
			 const char *path, const char *mode, const char *ms,
			 __u16 depth, __u32 budget)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE |
					    FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_UNWIND, 1000, 1 << 20);
	struct fxtprof_unwind_table arg;
	struct fxtprof_unwind_map m;
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];
	int status;

	ASSERT_EQ(0, unwind_table__build_path(path, &t, why)) TH_LOG("%s", why);
	TH_LOG("%u rows, %u from sp, %u from fp, %u without a rule",
	       t->nr_rows, t->counts.cfa_sp, t->counts.cfa_fp,
	       t->counts.no_rule);
	c.ustack_depth = depth;
	c.unwind_budget = budget;
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	unwind_table__to_uapi(t, &arg);
	ASSERT_EQ(0, fxtprof_dev__unwind_load(self->dev, &arg));
	unwind_table__free(t);
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));

	ASSERT_EQ(0, child_spawn(n, path, mode, ms));
	m = (struct fxtprof_unwind_map){
		.pid = n->pid, .id = arg.id, .start = n->lo, .end = n->hi,
		.bias = n->bias,
	};
	ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	ASSERT_EQ(1, write(n->to, "g", 1));
	ASSERT_EQ(n->pid, waitpid(n->pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	close(n->to);
	close(n->from);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
}

/* fxt_nofp MODE, with its functions' addresses, recorded so. */
static void record_nofp(struct __test_metadata *_metadata,
			FIXTURE_DATA(dev) *self, struct nofp *n,
			const char *mode, const char *ms, __u16 depth,
			__u32 budget)
{
	const char *path = vm_test_path("fxt_nofp");

	for (int f = 0; f < F_NR; f++) {
		ASSERT_EQ(0, vm_elf_sym(path, fn_names[f], &n->addr[f],
					&n->size[f])) TH_LOG("%s", fn_names[f]);
	}
	record_child(_metadata, self, &n->c, path, mode, ms, depth, budget);
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

	record_nofp(_metadata, self, &n, mode, ms, FXTPROF_MAX_STACK_DEPTH, 0);
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
	struct child c;
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
	record_child(_metadata, self, &t.c, path, mode, "2000",
		     FXTPROF_MAX_STACK_DEPTH, 0);
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

	record_nofp(_metadata, self, &n, "recurse", "1000", 5, 0);
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
		    FXTPROF_MAX_STACK_DEPTH, 8);
	leaf_ends(&self->r, &n, 10, FXTPROF_USTACK_END_BUDGET, &leaf, &cut);
	TH_LOG("budget 8: %u samples in nofp_leaf, %u cut by the budget",
	       leaf, cut);
	EXPECT_LE(50, leaf);
	EXPECT_LE(leaf * 95, cut * 100ull);
}

TEST_HARNESS_MAIN
