// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stack_copy.c - the stack copies of FXTPROF_CFG_STACK_COPY (ABI 6),
 * end to end, on fxt_nofp recorded with its unwind table (vm_nofp.h):
 *
 *  - every sample of it carries a copy: this machine's registers, the
 *    pc the walk started from, an SP inside its [stack]; and nearly all
 *    have stack bytes that hold return addresses into it (a copy is
 *    empty where the page at SP was never touched: the nofault read
 *    cannot fault it in, e.g. a PATH_MAX buffer in a startup syscall);
 *
 * Copies fill a ring fast (8 KiB a sample): the recordings here take
 * 16 MiB per CPU, so that the ring holds them all until the drain.
 *  - the cross-check of issue 24: on the same recording, each copy is
 *    unwound here with the host's unwinder (user/unwind/stack_copy.h,
 *    libdwfl, linked statically as the board's fxtprof is), and in at
 *    least 95% of the samples whose leaf is in the program, the module's
 *    walk by tables and the unwind of the copy give the same pcs, in
 *    order, down to main.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kselftest_harness.h"
#include "vm_nofp.h"
#include "unwind/stack_copy.h"

#ifdef __aarch64__
#define COPY_MACHINE	EM_AARCH64
#define COPY_NR_REGS	FXTPROF_STACK_COPY_REGS_ARM64
#define COPY_SP		FXTPROF_STACK_COPY_SP_ARM64
#define COPY_PC		FXTPROF_STACK_COPY_PC_ARM64
#else
#define COPY_MACHINE	EM_X86_64
#define COPY_NR_REGS	FXTPROF_STACK_COPY_REGS_X86_64
#define COPY_SP		FXTPROF_STACK_COPY_SP_X86_64
#define COPY_PC		FXTPROF_STACK_COPY_PC_X86_64
#endif

/* The sample of fxt_nofp with its leaf in the program, else NULL. */
static const struct fxtprof_sample *nofp_sample(const struct nofp *n,
						const struct fxtprof_rec_hdr *rec)
{
	const struct fxtprof_sample *s = (const void *)rec;
	__u64 leaf;

	if (rec->type != FXTPROF_REC_SAMPLE || s->pid != (__u32)n->c.pid ||
	    !s->nr_user)
		return NULL;
	leaf = s->ips[s->nr_kernel];
	return leaf >= n->c.lo && leaf < n->c.hi ? s : NULL;
}

/* A copy as the ABI describes it, of sample @s. */
static bool copy_sane(const struct nofp *n, const struct fxtprof_sample *s,
		      const struct fxtprof_stack_copy *c)
{
	__u32 nr = (__u32)s->nr_kernel + s->nr_user;

	if (c->machine != COPY_MACHINE || c->nr_regs != COPY_NR_REGS ||
	    c->size > FXTPROF_DEFAULT_STACK_COPY || c->size % 8 ||
	    s->hdr.size != sizeof(*s) + nr * 8 + sizeof(*c) +
			   c->nr_regs * 8 + c->size)
		return false;
	/*
	 * The copy may run past the stack's top into whatever is mapped
	 * there (x86_64 puts the vDSO just above it), as perf's does.
	 */
	if (c->regs[COPY_PC] != s->ips[s->nr_kernel] ||
	    c->regs[COPY_SP] < n->c.stack_lo ||
	    c->regs[COPY_SP] >= n->c.stack_hi)
		return false;
	return true;
}

/* Whether the copied stack holds a return address into the program. */
static bool copy_has_ra(const struct nofp *n,
			const struct fxtprof_stack_copy *c)
{
	const __u64 *stack = &c->regs[c->nr_regs];

	for (__u32 i = 0; i < c->size / 8; i++)
		if (stack[i] >= n->c.lo && stack[i] < n->c.hi)
			return true;
	return false;
}

TEST_F(dev, every_sample_carries_a_sane_copy)
{
	unsigned int in_prog = 0, copies = 0, sane = 0, with_ra = 0;
	struct nofp n = { 0 };

	record_nofp(_metadata, self, &n, "recurse", "1000",
		    FXTPROF_MAX_STACK_DEPTH, 0, FXTPROF_CFG_STACK_COPY);
	ASSERT_LT(0, n.c.stack_lo);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = nofp_sample(&n, rec);
		const struct fxtprof_stack_copy *c;

		if (!s)
			continue;
		in_prog++;
		c = fxtprof_sample__stack_copy(s);
		if (!c)
			continue;
		copies++;
		with_ra += copy_has_ra(&n, c);
		if (copy_sane(&n, s, c))
			sane++;
		else if (copies - sane < 5)
			TH_LOG("machine %u, %u regs, %u bytes, pc %#llx sp %#llx",
			       c->machine, c->nr_regs, c->size,
			       (unsigned long long)c->regs[COPY_PC],
			       (unsigned long long)c->regs[COPY_SP]);
	}
	TH_LOG("%u samples in fxt_nofp, %u with a copy, %u sane, %u with a "
	       "return address into it", in_prog, copies, sane, with_ra);
	EXPECT_LE(50, in_prog);
	EXPECT_EQ(in_prog, copies);
	EXPECT_EQ(copies, sane);
	EXPECT_LE(copies * 95, with_ra * 100ull);
}

/* Whether the unwind of a copy, @p (nr_p pcs), reaches main. */
static bool reaches_main(const struct nofp *n, const uint64_t *p,
			 unsigned int nr_p)
{
	for (unsigned int i = 0; i < nr_p; i++)
		if (nofp_fn(n, p[i]) == F_MAIN)
			return true;
	return false;
}

/*
 * Whether the module's walk @k (nr_k pcs) reaches main and the unwind of
 * the copy @p (nr_p pcs) gives the same pcs down to it.
 */
static bool same_to_main(const struct nofp *n, const __u64 *k,
			 unsigned int nr_k, const uint64_t *p,
			 unsigned int nr_p)
{
	for (unsigned int i = 0; i < nr_k && i < nr_p; i++) {
		if (k[i] != p[i])
			return false;
		if (nofp_fn(n, k[i]) == F_MAIN)
			return true;
	}
	return false;
}

static void log_both(struct __test_metadata *_metadata, const struct nofp *n,
		     const struct fxtprof_sample *s, const uint64_t *p,
		     unsigned int nr_p, enum stack_copy_end end)
{
	const __u64 *k = s->ips + s->nr_kernel;
	unsigned int nr_k = s->nr_user;
	char buf[1024];
	int len = 0;

	for (unsigned int i = 0; i < 8 && (i < nr_k || i < nr_p); i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %#llx/%#llx",
				i < nr_k ? (unsigned long long)(k[i] - n->c.bias) : 0,
				i < nr_p ? (unsigned long long)(p[i] - n->c.bias) : 0);
	TH_LOG("walk %u frames (end %u), copy %u (%s), walk/copy:%s", nr_k,
	       s->ustack_end, nr_p, stack_copy_end__name(end), buf);
}

/* What one recording's copies gave against its walks. */
struct cross_counts {
	unsigned int in_prog, in_main, same;
	unsigned int ends[STACK_COPY__NR];
};

/* Record fxt_nofp MODE for @ms and count what its copies give. */
static void cross_count(struct __test_metadata *_metadata,
			FIXTURE_DATA(dev) *self, const char *mode,
			unsigned int ms, struct cross_counts *k)
{
	unsigned int logged = 0;
	struct stack_copy_unwinder *u;
	struct stack_copy_module m;
	uint64_t pcs[FXTPROF_MAX_STACK_DEPTH];
	struct nofp n = { 0 };
	char arg[16];

	memset(k, 0, sizeof(*k));
	snprintf(arg, sizeof(arg), "%u", ms);
	record_nofp(_metadata, self, &n, mode, arg,
		    FXTPROF_MAX_STACK_DEPTH, 0, FXTPROF_CFG_STACK_COPY);
	ASSERT_EQ(0, stack_copy_unwinder__new(COPY_MACHINE, &u));
	m = (struct stack_copy_module){
		.start = n.c.lo, .end = n.c.hi, .pgoff = n.c.pgoff,
		.path = vm_test_path("fxt_nofp"),
	};
	ASSERT_EQ(0, stack_copy_unwinder__add(u, &m));
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = nofp_sample(&n, rec);
		const struct fxtprof_stack_copy *c;
		enum stack_copy_end end;
		unsigned int nr = 0;

		if (!s || !(c = fxtprof_sample__stack_copy(s)))
			continue;
		k->in_prog++;
		end = stack_copy_unwinder__unwind(u, c, sizeof(*c) +
						  c->nr_regs * 8 + c->size,
						  pcs, FXTPROF_MAX_STACK_DEPTH,
						  &nr);
		k->ends[end]++;
		/*
		 * Samples taken before main or after it returned (the static
		 * binary's start-up and exit, a larger share on the slow
		 * debug kernel) are not the workload: compare the samples
		 * the reference unwind puts under main.
		 */
		if (!reaches_main(&n, pcs, nr))
			continue;
		k->in_main++;
		if (same_to_main(&n, s->ips + s->nr_kernel, s->nr_user, pcs,
				 nr))
			k->same++;
		else if (logged++ < 5)
			log_both(_metadata, &n, s, pcs, nr, end);
	}
	stack_copy_unwinder__free(u);
	TH_LOG("%s, %u ms: %u samples in fxt_nofp, %u whose copy unwinds to "
	       "main, %u of them the same in the walk", mode, ms, k->in_prog,
	       k->in_main, k->same);
	/* How the copies' unwinds ended, so that a shortfall says why. */
	for (unsigned int e = 0; e < STACK_COPY__NR; e++)
		if (k->ends[e])
			TH_LOG("%s: copies whose unwind ended '%s': %u", mode,
			       stack_copy_end__name(e), k->ends[e]);
}

/*
 * The cross-check wants 100 samples under main.  How many a 2 s run gets
 * depends on how much CPU the guest gets: under TCG beside two busy host
 * CPUs, the debug kernel has given 75.  A run that falls short is
 * recorded again, twice as long, on a fresh session, up to 16 s (the
 * rings, 16 MiB a CPU, hold about 1900 copies each: more than TCG's
 * sampling gives in that time).
 */
static void cross_check(struct __test_metadata *_metadata,
			FIXTURE_DATA(dev) *self, const char *mode)
{
	struct cross_counts k;
	unsigned int ms;

	for (ms = 2000;; ms *= 2) {
		cross_count(_metadata, self, mode, ms, &k);
		if (k.in_main >= 100 || ms >= 16000)
			break;
		vm_recs_free(&self->r);
		fxtprof_dev__close(self->dev);
		ASSERT_EQ(0, fxtprof_dev__open(NULL, &self->dev));
		self->info = fxtprof_dev__info(self->dev);
	}
	EXPECT_LE(100, k.in_main);
	EXPECT_LE(k.in_prog * 80, k.in_main * 100ull);
	EXPECT_LE(k.in_main * 95, k.same * 100ull);
}

TEST_F(dev, copies_unwind_as_the_walk_in_qsort)
{
	cross_check(_metadata, self, "qsort");
}

TEST_F(dev, copies_unwind_as_the_walk_in_recursion)
{
	cross_check(_metadata, self, "recurse");
}

TEST_HARNESS_MAIN
