// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_walk.c - a stack walked with a table: this program, built
 * -O2 -fomit-frame-pointer, captures its registers and a copy of its
 * stack deep in a call chain that keeps no frame pointers, builds the
 * table of its own file (user/unwind/), and walks the copy as the module
 * would, with a step function written for this test only: the leaf's row
 * at its pc, each caller's at its return address - 1.  The frames must be
 * the chain's, in order, up to its root.  x86_64 (the host).  Prints TAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include "unwind/unwind_table.h"

#define STACK_COPY	(64u << 10)
#define MAX_FRAMES	32

struct capture {
	uint64_t pc, sp, fp;
	uint64_t base;			/* the stack address of bytes[0] */
	size_t len;
	unsigned char bytes[STACK_COPY];
};

static struct capture cap;
volatile unsigned long chain_sink;

/* The registers here, and the stack from sp up to its top or 64 KiB. */
__attribute__((noinline)) void chain_capture(void)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;
	uint64_t top;

	asm volatile("lea 0(%%rip), %0\n\t"
		     "mov %%rsp, %1\n\t"
		     "mov %%rbp, %2"
		     : "=r"(cap.pc), "=r"(cap.sp), "=r"(cap.fp));
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &lo, &size);
	pthread_attr_destroy(&attr);
	top = (uint64_t)(uintptr_t)lo + size;
	cap.base = cap.sp;
	cap.len = top - cap.sp < STACK_COPY ? top - cap.sp : STACK_COPY;
	memcpy(cap.bytes, (const void *)(uintptr_t)cap.sp, cap.len);
}

/* Each level keeps a value across its call: a frame of its own, no fp. */
__attribute__((noinline)) unsigned long chain_level3(unsigned long x)
{
	unsigned long keep[4] = { x, x + 1, x + 2, x + 3 };

	chain_capture();
	return keep[x & 3] + chain_sink;
}

__attribute__((noinline)) unsigned long chain_level2(unsigned long x)
{
	unsigned long r = chain_level3(x * 3);

	return r + x;
}

__attribute__((noinline)) unsigned long chain_level1(unsigned long x)
{
	unsigned long r = chain_level2(x + 7);

	return r ^ x;
}

__attribute__((noinline)) unsigned long chain_root(unsigned long x)
{
	unsigned long r = chain_level1(x);

	return r * 2;
}

/* A word of the copied stack, false outside the copy. */
static int stack_read(uint64_t addr, uint64_t *v)
{
	if (addr < cap.base || addr + 8 > cap.base + cap.len)
		return 0;
	memcpy(v, cap.bytes + (addr - cap.base), 8);
	return 1;
}

struct walk_regs {
	uint64_t pc, sp, fp;
};

/*
 * One step, as include/uapi/linux/fxtprof.h defines a row: 1 with @r the
 * caller's registers, 0 where the walk ends (no row, no rule, a read
 * outside the copy).  @bias: the file's vaddr is pc - bias.
 */
static int step(const struct unwind_table *t, uint64_t bias, bool leaf,
		struct walk_regs *r)
{
	const struct fxtprof_unwind_row *row;
	uint64_t cfa, ra, fp = r->fp;

	row = unwind_table__lookup(t, r->pc - bias - (leaf ? 0 : 1));
	if (!row || row->cfa_reg == FXTPROF_UNWIND_CFA_NONE ||
	    (row->flags & (FXTPROF_UNWIND_ROW_OUTERMOST |
			   FXTPROF_UNWIND_ROW_RA_IN_LR)))
		return 0;
	cfa = (row->cfa_reg == FXTPROF_UNWIND_CFA_SP ? r->sp : r->fp) +
	      (int64_t)row->cfa_offset;
	if (!stack_read(cfa + (int64_t)row->ra_offset, &ra))
		return 0;
	if ((row->flags & FXTPROF_UNWIND_ROW_FP_SAVED) &&
	    !stack_read(cfa + (int64_t)row->fp_offset, &fp))
		return 0;
	if (cfa <= r->sp)	/* the stack grows down: a caller is above */
		return 0;
	*r = (struct walk_regs){ .pc = ra, .sp = cfa, .fp = fp };
	return 1;
}

TEST(walk_fp_less_chain)
{
	static const char *const want[] = {
		"chain_capture", "chain_level3", "chain_level2",
		"chain_level1", "chain_root",
	};
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];
	struct walk_regs r;
	Dl_info info;
	size_t n = 0;
	uint64_t bias;

	chain_sink = chain_root(5);
	ASSERT_EQ(0, unwind_table__build_path("/proc/self/exe", &t, why))
		TH_LOG("%s", why);
	ASSERT_NE(0, dladdr((void *)(uintptr_t)cap.pc, &info));
	/* A PIE whose first PT_LOAD is at vaddr 0: bias is its base. */
	bias = (uint64_t)(uintptr_t)info.dli_fbase;
	r = (struct walk_regs){ cap.pc, cap.sp, cap.fp };
	do {
		ASSERT_NE(0, dladdr((void *)(uintptr_t)(r.pc - (n ? 1 : 0)),
				    &info));
		ASSERT_NE(NULL, info.dli_sname) TH_LOG("frame %zu: %#llx", n,
						    (unsigned long long)r.pc);
		fprintf(stderr, "# frame %zu: %s\n", n, info.dli_sname);
		ASSERT_STREQ(want[n], info.dli_sname);
		n++;
	} while (n < sizeof(want) / sizeof(want[0]) && step(t, bias, n == 1, &r));
	EXPECT_EQ(sizeof(want) / sizeof(want[0]), n);
	unwind_table__free(t);
}

TEST_HARNESS_MAIN
