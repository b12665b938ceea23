// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind.c - the module's user stack walk (kmod/unwind_walk.c) and
 * its rows (kmod/unwind_rows.c), built for the host through
 * tests/host/kshim: copy_from_user_nofault() reads a stack this test lays
 * out at a made-up user address, and fails outside it.
 *
 * Synthetic frames of known layout, each walked by hand-built rows: a
 * CFA from sp and from fp, the return address in lr at the leaf and above
 * it, the outermost frame, a fault, the budget, the depth, frames that go
 * down or loop, PAC bits, the frame-pointer fallback.  Then the checker of
 * FXTPROF_IOC_UNWIND_LOAD against an oracle written from the uapi header,
 * on random and mutated tables, each table it accepts also walked over
 * random stacks.  Built plain and under ASan+UBSan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uaccess.h>

#include "kselftest_harness.h"
#include "unwind.h"

/* ---- user memory --------------------------------------------------- */

#define STACK_BASE	0x7ffff0000000ul
#define STACK_SIZE	4096ul
#define BIAS		0x555500000000ul

static unsigned char stack_mem[STACK_SIZE];

long copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	unsigned long addr = (unsigned long)src;

	if (addr < STACK_BASE || size > STACK_SIZE ||
	    addr - STACK_BASE > STACK_SIZE - size)
		return -EFAULT;
	memcpy(dst, stack_mem + (addr - STACK_BASE), size);
	return 0;
}

static void put(unsigned long addr, unsigned long v)
{
	memcpy(stack_mem + (addr - STACK_BASE), &v, sizeof(v));
}

/* As arm64 with 48-bit virtual addresses: the PAC sits above bit 47. */
unsigned long fxtprof_ustack_strip_pac(unsigned long addr)
{
	return addr & ((1ul << 48) - 1);
}

/* ---- tables ---------------------------------------------------------- */

#define SP	FXTPROF_UNWIND_CFA_SP
#define FP	FXTPROF_UNWIND_CFA_FP
#define NONE	FXTPROF_UNWIND_CFA_NONE
#define IN_LR	FXTPROF_UNWIND_ROW_RA_IN_LR
#define FP_SAVED FXTPROF_UNWIND_ROW_FP_SAVED
#define OUTERMOST FXTPROF_UNWIND_ROW_OUTERMOST
#define NO_RULE	FXTPROF_UNWIND_ROW_NO_RULE

static struct fxtprof_unwind_row row(__u32 pc, __u8 reg, __s16 cfa, __s16 ra,
				     __s16 fp, __u8 flags)
{
	struct fxtprof_unwind_row r = {
		.pc = pc, .cfa_reg = reg, .cfa_offset = cfa,
		.ra_offset = ra, .fp_offset = fp, .flags = flags,
	};
	return r;
}

static struct fxtprof_unwind_tab *tab_new(const struct fxtprof_unwind_row *rows,
					  __u32 nr, __u32 pc_end)
{
	struct fxtprof_unwind_tab *t;

	t = calloc(1, sizeof(*t) + nr * sizeof(*rows));
	if (!t)
		abort();
	memcpy(t->rows, rows, nr * sizeof(*rows));
	t->nr_rows = nr;
	t->pc_end = pc_end;
	return t;
}

/*
 * The program: A (leaf, CFA sp + 16) called by B (CFA sp + 32) called by
 * M (CFA fp + 16, fp saved) called by S, the outermost frame; a gap with
 * no CFI after each, and a region of rules a row cannot say (a PLT).
 */
#define A_PC	0x1010u
#define B_RET	0x2040u
#define M_RET	0x3040u
#define S_RET	0x4040u
#define PLT_PC	0x4200u

static struct fxtprof_unwind_tab *program_tab(__u8 a_flags, __s16 a_cfa,
					      __u8 b_flags)
{
	struct fxtprof_unwind_row rows[] = {
		row(0x1000, SP, a_cfa, a_flags & IN_LR ? 0 : -8, 0, a_flags),
		row(0x1100, NONE, 0, 0, 0, 0),
		row(0x2000, SP, 32, b_flags & IN_LR ? 0 : -8, 0, b_flags),
		row(0x2100, NONE, 0, 0, 0, 0),
		row(0x3000, FP, 16, -8, -16, FP_SAVED),
		row(0x3100, NONE, 0, 0, 0, 0),
		row(0x4000, SP, 8, 0, 0, OUTERMOST),
		row(0x4100, NONE, 0, 0, 0, NO_RULE),
	};
	struct fxtprof_unwind_tab *t = tab_new(rows, 8, 0x5000);

	if (fxtprof_unwind_rows__check(t->rows, t->nr_rows, t->pc_end))
		abort();
	return t;
}

/* The stack of A <- B <- M <- S, sp at A's; fills in @r. */
static void program_stack(struct fxtprof_uregs *r, unsigned long b_ret)
{
	unsigned long sp0 = STACK_BASE + 0x100, sp1 = sp0 + 16, sp2 = sp1 + 32;
	unsigned long m_fp = sp2 + 16;

	memset(stack_mem, 0, sizeof(stack_mem));
	put(sp0 + 8, b_ret);			/* A's CFA - 8 */
	put(sp1 + 24, BIAS + M_RET);		/* B's CFA - 8 */
	put(m_fp, 0);				/* M's CFA - 16: S's fp */
	put(m_fp + 8, BIAS + S_RET);		/* M's CFA - 8 */
	r->pc = BIAS + A_PC;
	r->sp = sp0;
	r->fp = m_fp;
	r->lr = 0;
}

struct walk {
	struct fxtprof_unwind_range range;
	struct fxtprof_ustack w;
	__u64 ips[64];
};

static void walk(struct walk *k, struct fxtprof_unwind_tab *t,
		 struct fxtprof_uregs *r, unsigned int max, unsigned int budget)
{
	memset(k, 0, sizeof(*k));
	k->range.start = BIAS;
	k->range.end = BIAS + 0x10000;
	k->range.bias = BIAS;
	k->range.tab = t;
	k->w.ranges = t ? &k->range : NULL;
	k->w.nr_ranges = t ? 1 : 0;
	k->w.ips = k->ips;
	k->w.max = max;
	k->w.budget = budget;
	fxtprof_ustack_walk(&k->w, r);
}

/* ---- walks ----------------------------------------------------------- */

TEST(sp_and_fp_cfa_to_outermost)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	walk(&k, t, &r, 64, 512);
	ASSERT_EQ(FXTPROF_USTACK_END_COMPLETE, k.w.end);
	ASSERT_EQ(4, k.w.nr);
	EXPECT_EQ(BIAS + A_PC, k.ips[0]);
	EXPECT_EQ(BIAS + B_RET, k.ips[1]);
	EXPECT_EQ(BIAS + M_RET, k.ips[2]);
	EXPECT_EQ(BIAS + S_RET, k.ips[3]);
	EXPECT_EQ(3, k.w.table_frames);
	EXPECT_EQ(0, k.w.fp_frames + k.w.rule_frames);
	EXPECT_EQ(4, k.w.reads);
	EXPECT_EQ(0, k.w.flags);
	free(t);
}

/* A return address points after its call: here at B's very end. */
TEST(return_address_looked_up_one_before)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + 0x2100);
	walk(&k, t, &r, 64, 512);
	ASSERT_EQ(FXTPROF_USTACK_END_COMPLETE, k.w.end);
	EXPECT_EQ(4, k.w.nr);
	EXPECT_EQ(3, k.w.table_frames);
	free(t);
}

/* arm64: a leaf that has not touched the stack, its return address in x30. */
TEST(ra_in_lr_at_the_leaf)
{
	struct fxtprof_unwind_tab *t = program_tab(IN_LR, 0, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	r.sp += 16;			/* A has no frame: sp is B's */
	r.lr = BIAS + B_RET;
	walk(&k, t, &r, 64, 512);
	ASSERT_EQ(FXTPROF_USTACK_END_COMPLETE, k.w.end);
	ASSERT_EQ(4, k.w.nr);
	EXPECT_EQ(BIAS + B_RET, k.ips[1]);
	EXPECT_EQ(BIAS + S_RET, k.ips[3]);
	EXPECT_EQ(3, k.w.reads);
	free(t);
}

/* Above the leaf, x30 holds someone else's return address. */
TEST(ra_in_lr_above_the_leaf_ends)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, IN_LR);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	r.lr = BIAS + 0x1234;
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_RA_IN_LR, k.w.end);
	EXPECT_EQ(2, k.w.nr);
	free(t);
}

TEST(fault)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	r.sp = STACK_BASE + STACK_SIZE - 8;	/* A's return address beyond */
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_FAULT, k.w.end);
	EXPECT_EQ(1, k.w.nr);
	EXPECT_EQ(FXTPROF_SAMPLE_USTACK_FAULT, k.w.flags);
	free(t);
}

TEST(budget)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	/* A and B read once each, M twice: its second read is over. */
	program_stack(&r, BIAS + B_RET);
	walk(&k, t, &r, 64, 3);
	EXPECT_EQ(FXTPROF_USTACK_END_BUDGET, k.w.end);
	EXPECT_EQ(3, k.w.nr);
	EXPECT_EQ(3, k.w.reads);
	free(t);
}

TEST(depth)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	walk(&k, t, &r, 2, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_DEPTH, k.w.end);
	EXPECT_EQ(2, k.w.nr);
	EXPECT_EQ(FXTPROF_SAMPLE_USTACK_TRUNCATED, k.w.flags);
	walk(&k, t, &r, 0, 512);
	EXPECT_EQ(0, k.w.nr);
	free(t);
}

/* The caller's CFA must lie above: below, equal, or no return address. */
TEST(bad_frames)
{
	struct fxtprof_unwind_tab *t;
	struct fxtprof_uregs r;
	struct walk k;

	t = program_tab(0, -16, 0);
	program_stack(&r, BIAS + B_RET);
	put(r.sp - 8, BIAS + B_RET);
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_BAD_FRAME, k.w.end);
	EXPECT_EQ(1, k.w.nr);
	free(t);

	t = program_tab(0, 0, 0);
	program_stack(&r, BIAS + B_RET);
	put(r.sp - 8, BIAS + A_PC);	/* a frame that returns to itself */
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_BAD_FRAME, k.w.end);
	EXPECT_EQ(1, k.w.nr);
	free(t);

	t = program_tab(0, 16, 0);
	program_stack(&r, 0);
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_BAD_FRAME, k.w.end);
	free(t);
}

TEST(pac_bits_stripped)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, (BIAS + B_RET) | 0x002a000000000000ul);
	walk(&k, t, &r, 64, 512);
	ASSERT_EQ(FXTPROF_USTACK_END_COMPLETE, k.w.end);
	EXPECT_EQ(BIAS + B_RET, k.ips[1]);
	free(t);
}

/* Frame records at fp, chained; a pc of no table steps by them. */
static void fp_chain(struct fxtprof_uregs *r, unsigned long pc)
{
	unsigned long fp0 = STACK_BASE + 0x200, fp1 = fp0 + 0x40;

	memset(stack_mem, 0, sizeof(stack_mem));
	put(fp0, fp1);
	put(fp0 + 8, 0x7000 | 0x002a000000000000ul);
	put(fp1, 0);
	put(fp1 + 8, 0x7100);
	r->pc = pc;
	r->sp = fp0 - 0x10;
	r->fp = fp0;
	r->lr = 0;
}

TEST(frame_pointers_without_tables)
{
	struct fxtprof_uregs r;
	struct walk k;

	fp_chain(&r, 0x6000);
	walk(&k, NULL, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_FP_CHAIN, k.w.end);
	ASSERT_EQ(3, k.w.nr);
	EXPECT_EQ(0x6000, k.ips[0]);
	EXPECT_EQ(0x7000, k.ips[1]);
	EXPECT_EQ(0x7100, k.ips[2]);
	EXPECT_EQ(2, k.w.fp_frames);
	EXPECT_EQ(0, k.w.table_frames);

	/* A record pointing at itself ends, not loops. */
	fp_chain(&r, 0x6000);
	put(STACK_BASE + 0x200, STACK_BASE + 0x200);
	walk(&k, NULL, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_FP_CHAIN, k.w.end);
	EXPECT_EQ(2, k.w.nr);
}

/* From a PLT (no rule) by fp, then by the table again to S. */
TEST(no_rule_falls_back_then_resumes)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	unsigned long rec = STACK_BASE + 0x80;
	struct fxtprof_uregs r;
	struct walk k;

	program_stack(&r, BIAS + B_RET);
	/* PLT's frame record below A's sp; the step lands on B's sp. */
	put(rec, r.fp);
	put(rec + 8, BIAS + B_RET);
	r.pc = BIAS + PLT_PC;
	r.sp = rec - 0x60;
	r.fp = rec;
	/* B's sp becomes rec + 16: move B's and M's frames there. */
	memset(stack_mem + 0x90, 0, sizeof(stack_mem) - 0x90);
	put(rec + 16 + 24, BIAS + M_RET);
	put(rec + 16 + 32 + 16, 0);
	put(rec + 16 + 32 + 24, BIAS + S_RET);
	put(rec, rec + 16 + 32 + 16);	/* M's fp */
	walk(&k, t, &r, 64, 512);
	ASSERT_EQ(FXTPROF_USTACK_END_COMPLETE, k.w.end);
	EXPECT_EQ(4, k.w.nr);
	EXPECT_EQ(1, k.w.rule_frames);
	EXPECT_EQ(2, k.w.table_frames);
	EXPECT_EQ(BIAS + S_RET, k.ips[3]);
	free(t);
}

/* A gap without CFI, and an address in no range: both by fp. */
TEST(no_cfi_falls_back)
{
	struct fxtprof_unwind_tab *t = program_tab(0, 16, 0);
	struct fxtprof_uregs r;
	struct walk k;

	fp_chain(&r, BIAS + 0x1180);
	walk(&k, t, &r, 64, 512);
	EXPECT_EQ(FXTPROF_USTACK_END_FP_CHAIN, k.w.end);
	EXPECT_EQ(3, k.w.nr);
	EXPECT_EQ(2, k.w.fp_frames);
	free(t);
}

/* ---- the checker ------------------------------------------------------ */

TEST(checker_named_cases)
{
	struct fxtprof_unwind_row good[] = {
		row(0x10, SP, 16, -8, 0, 0),
		row(0x20, FP, 16, -8, -16, FP_SAVED),
		row(0x30, SP, 0, 0, 0, IN_LR),
		row(0x40, NONE, 0, 0, 0, NO_RULE),
		row(0x50, SP, 8, 0, 0, OUTERMOST),
	};
	struct {
		const char *what;
		unsigned int i;
		struct fxtprof_unwind_row r;
	} bad[] = {
		{ "equal pcs", 1, row(0x10, SP, 16, -8, 0, 0) },
		{ "decreasing pc", 2, row(0x18, SP, 16, -8, 0, 0) },
		{ "cfa_reg 3", 0, row(0x10, 3, 16, -8, 0, 0) },
		{ "cfa_reg 255", 0, row(0x10, 255, 16, -8, 0, 0) },
		{ "unknown flag", 0, row(0x10, SP, 16, -8, 0, 1u << 4) },
		{ "NO_RULE with SP", 0, row(0x10, SP, 16, -8, 0, NO_RULE) },
		{ "ra_offset 0", 0, row(0x10, SP, 16, 0, 0, 0) },
		{ "ra_offset 4", 0, row(0x10, SP, 16, -4, 0, 0) },
		{ "fp_offset 0", 1, row(0x20, FP, 16, -8, 0, FP_SAVED) },
		{ "fp_offset -12", 1, row(0x20, FP, 16, -8, -12, FP_SAVED) },
		{ "NONE with RA_IN_LR", 3, row(0x40, NONE, 0, 0, 0, IN_LR) },
		{ "NONE with FP_SAVED", 3, row(0x40, NONE, 0, 0, -16, FP_SAVED) },
	};
	struct fxtprof_unwind_row rows[5];
	unsigned int i;

	EXPECT_EQ(0, fxtprof_unwind_rows__check(good, 5, 0x60));
	EXPECT_EQ(-EINVAL, fxtprof_unwind_rows__check(good, 5, 0x50));
	EXPECT_EQ(-EINVAL, fxtprof_unwind_rows__check(good, 0, 0x60));
	EXPECT_EQ(-EINVAL, fxtprof_unwind_rows__check(good,
						     FXTPROF_UNWIND_MAX_ROWS + 1,
						     0x60));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(rows, good, sizeof(rows));
		rows[bad[i].i] = bad[i].r;
		EXPECT_EQ(-EINVAL, fxtprof_unwind_rows__check(rows, 5, 0x60))
			TH_LOG("%s accepted", bad[i].what);
	}
}

/* ---- fuzz --------------------------------------------------------------- */

static __u64 rng_state = 0x2545f4914f6cdd1dull;

static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Small and edge values, so that random rows are often valid. */
static __s16 rnd_off(void)
{
	static const __s16 v[] = { 0, 8, -8, 16, -16, 4, -4, 32, 24, -24,
				   0x7ff8, -0x8000, 1, -1 };

	return rnd() % 4 ? v[rnd() % ARRAY_SIZE(v)] : (__s16)rnd();
}

static void rnd_row(struct fxtprof_unwind_row *r, __u32 pc)
{
	r->pc = pc;
	r->cfa_reg = rnd() % 8 ? rnd() % FXTPROF_UNWIND_CFA_MAX : rnd();
	r->flags = rnd() % 8 ? rnd() % 16 : rnd();
	r->cfa_offset = rnd_off();
	r->ra_offset = rnd_off();
	r->fp_offset = rnd_off();
}

/* The oracle: the uapi comment of FXTPROF_IOC_UNWIND_LOAD, row by row. */
static int oracle(const struct fxtprof_unwind_row *rows, __u32 nr,
		  __u32 pc_end)
{
	for (__u32 i = 0; i < nr; i++) {
		const struct fxtprof_unwind_row *r = &rows[i];
		int saves_ra = !(r->flags & (IN_LR | OUTERMOST));
		int saves_fp = (r->flags & FP_SAVED) && !(r->flags & OUTERMOST);

		if (r->cfa_reg > FP || r->flags > 15)
			return -EINVAL;
		if (i && r->pc <= rows[i - 1].pc)
			return -EINVAL;
		if (r->pc >= pc_end)
			return -EINVAL;
		if (r->cfa_reg == NONE) {
			if (r->flags & (IN_LR | FP_SAVED))
				return -EINVAL;
			continue;
		}
		if (r->flags & NO_RULE)
			return -EINVAL;
		if (saves_ra && (!r->ra_offset || r->ra_offset % 8))
			return -EINVAL;
		if (saves_fp && (!r->fp_offset || r->fp_offset % 8))
			return -EINVAL;
	}
	return nr ? 0 : -EINVAL;
}

/* A table the checker took: its searches against linear ones, then walks. */
static void exercise(struct __test_metadata *_metadata,
		     struct fxtprof_unwind_tab *t)
{
	for (int i = 0; i < 16; i++) {
		__u64 pc = rnd() % (t->pc_end + 64);
		const struct fxtprof_unwind_row *want = NULL;

		for (__u32 j = 0; j < t->nr_rows; j++)
			if (t->rows[j].pc <= pc && pc < t->pc_end)
				want = &t->rows[j];
		ASSERT_EQ(want, fxtprof_unwind_row_find(t, pc));
	}
	for (int i = 0; i < 4; i++) {
		struct fxtprof_uregs r;
		struct walk k;

		for (unsigned int j = 0; j < STACK_SIZE / 8; j++)
			put(STACK_BASE + 8 * j, rnd() % 2 ?
			    BIAS + rnd() % (t->pc_end + 16) :
			    STACK_BASE + rnd() % STACK_SIZE);
		r.pc = BIAS + rnd() % (t->pc_end + 16);
		r.sp = STACK_BASE + rnd() % STACK_SIZE;
		r.fp = STACK_BASE + rnd() % STACK_SIZE;
		r.lr = rnd();
		walk(&k, t, &r, 1 + rnd() % 63, 1 + rnd() % 512);
		ASSERT_LE(k.w.nr, k.w.max);
		ASSERT_LE(k.w.reads, k.w.budget);
		ASSERT_GT(k.w.end, FXTPROF_USTACK_END_NONE);
		ASSERT_LT(k.w.end, FXTPROF_USTACK_END_MAX);
		ASSERT_EQ(k.w.nr - 1, k.w.table_frames + k.w.fp_frames +
				      k.w.rule_frames);
	}
}

#define FUZZ_ROUNDS	200000

TEST(checker_fuzz_random)
{
	struct fxtprof_unwind_row rows[12];
	unsigned int accepted = 0;

	for (int n = 0; n < FUZZ_ROUNDS; n++) {
		__u32 nr = rnd() % 13, pc = rnd() % 64, pc_end;
		struct fxtprof_unwind_tab *t;
		int want, got;

		for (__u32 i = 0; i < nr; i++) {
			/* Mostly increasing, sometimes not. */
			pc += rnd() % 8 ? 1 + rnd() % 64 : -(rnd() % 4);
			rnd_row(&rows[i], pc);
		}
		pc_end = pc + (rnd() % 8 ? 1 + rnd() % 64 : 0);
		want = oracle(rows, nr, pc_end);
		got = fxtprof_unwind_rows__check(rows, nr, pc_end);
		ASSERT_EQ(want, got)
			TH_LOG("round %d: %u rows", n, nr);
		if (got)
			continue;
		accepted++;
		t = tab_new(rows, nr, pc_end);
		exercise(_metadata, t);
		free(t);
	}
	/* The oracle must not be trivially "reject everything". */
	ASSERT_GT(accepted, FUZZ_ROUNDS / 50);
}

TEST(checker_fuzz_mutated)
{
	struct fxtprof_unwind_tab *base = program_tab(0, 16, 0);
	unsigned int rejected = 0;

	for (int n = 0; n < FUZZ_ROUNDS; n++) {
		struct fxtprof_unwind_tab *t = tab_new(base->rows, base->nr_rows,
						       base->pc_end);
		struct fxtprof_unwind_row *r = &t->rows[rnd() % t->nr_rows];
		int want, got;

		/* One field of one row, or the end, at a time. */
		switch (rnd() % 7) {
		case 0:
			r->pc = rnd() % 2 ? r->pc + rnd() % 0x200 - 0x100 :
					    (__u32)rnd();
			break;
		case 1:
			r->cfa_reg = rnd();
			break;
		case 2:
			r->flags = rnd();
			break;
		case 3:
			r->cfa_offset = rnd_off();
			break;
		case 4:
			r->ra_offset = rnd_off();
			break;
		case 5:
			r->fp_offset = rnd_off();
			break;
		case 6:
			t->pc_end = rnd() % 2 ? rnd() % 0x5100 : (__u32)rnd();
			break;
		}
		want = oracle(t->rows, t->nr_rows, t->pc_end);
		got = fxtprof_unwind_rows__check(t->rows, t->nr_rows, t->pc_end);
		ASSERT_EQ(want, got) TH_LOG("round %d", n);
		if (got)
			rejected++;
		else
			exercise(_metadata, t);
		free(t);
	}
	ASSERT_GT(rejected, FUZZ_ROUNDS / 10);
	free(base);
}

/* Ranges: the binary search against a linear one. */
TEST(range_search)
{
	struct fxtprof_unwind_range ranges[16];

	for (int n = 0; n < 2000; n++) {
		unsigned int nr = rnd() % 17;
		__u64 at = rnd() % 64;

		for (unsigned int i = 0; i < nr; i++) {
			ranges[i].start = at + rnd() % 3 * (rnd() % 32);
			ranges[i].end = ranges[i].start + 1 + rnd() % 32;
			at = ranges[i].end;
		}
		for (int i = 0; i < 32; i++) {
			__u64 addr = rnd() % (at + 8);
			const struct fxtprof_unwind_range *want = NULL;

			for (unsigned int j = 0; j < nr; j++)
				if (ranges[j].start <= addr &&
				    addr < ranges[j].end)
					want = &ranges[j];
			ASSERT_EQ(want,
				  fxtprof_unwind_range_find(ranges, nr, addr));
		}
	}
}

TEST_HARNESS_MAIN
