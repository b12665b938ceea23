// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_walk.c - a real stack walked by the module's walk with a
 * real table: this program, built -O2 -fomit-frame-pointer, captures its
 * registers and a copy of its stack deep in a call chain that keeps no
 * frame pointers, builds the table of its own file (user/unwind/), maps
 * it over its text as the recorder does (unwind_table__bias), and walks
 * the copy with kmod/unwind_walk.c, built for the host through
 * tests/host/kshim (copy_from_user_nofault reads the copy).  The frames
 * must be the chain's, in order, up to its root, every caller found by a
 * row.  x86_64 (the host).  Prints TAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uaccess.h>

#include "kselftest_harness.h"

#include "unwind.h"
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

/* The walk's user memory: the copied stack, -EFAULT outside it. */
long copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	uint64_t addr = (uint64_t)(uintptr_t)src;

	if (addr < cap.base || size > cap.len ||
	    addr - cap.base > cap.len - size)
		return -EFAULT;
	memcpy(dst, cap.bytes + (addr - cap.base), size);
	return 0;
}

unsigned long fxtprof_ustack_strip_pac(unsigned long addr)
{
	return addr;	/* x86_64 */
}

/* This program's executable PT_LOAD, where it is loaded. */
struct text {
	uint64_t start, end, pgoff;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->start = info->dlpi_addr + ph->p_vaddr;
			t->end = t->start + ph->p_memsz;
			t->pgoff = ph->p_offset;
			return 1;	/* the first object: the program */
		}
	}
	return 1;
}

/* The module's copy of a table: its header, then the rows. */
static struct fxtprof_unwind_tab *module_table(const struct unwind_table *t)
{
	size_t rows = (size_t)t->nr_rows * sizeof(t->rows[0]);
	struct fxtprof_unwind_tab *tab = calloc(1, sizeof(*tab) + rows);

	if (!tab)
		return NULL;
	tab->id = 1;
	tab->nr_rows = t->nr_rows;
	tab->pc_end = t->pc_end;
	memcpy(tab->rows, t->rows, rows);
	return tab;
}

TEST(walk_fp_less_chain)
{
	static const char *const want[] = {
		"chain_capture", "chain_level3", "chain_level2",
		"chain_level1", "chain_root",
	};
	const size_t n = sizeof(want) / sizeof(want[0]);
	struct fxtprof_unwind_range range;
	struct fxtprof_unwind_tab *tab;
	struct fxtprof_ustack w = { 0 };
	struct fxtprof_uregs regs;
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];
	struct text text = { 0 };
	uint64_t bias;
	u64 ips[8];
	size_t i;

	chain_sink = chain_root(5);
	ASSERT_EQ(0, unwind_table__build_path("/proc/self/exe", &t, why))
		TH_LOG("%s", why);
	ASSERT_EQ(1, dl_iterate_phdr(find_text, &text));
	ASSERT_NE(0, text.start);
	/* Mapped as the recorder maps it. */
	range.start = text.start & ~4095ull;
	range.end = text.end;
	ASSERT_EQ(0, unwind_table__bias(t, range.start, text.pgoff & ~4095ull,
					&bias));
	range.bias = bias;
	tab = module_table(t);
	ASSERT_NE(NULL, tab);
	ASSERT_EQ(0, fxtprof_unwind_rows__check(tab->rows, tab->nr_rows,
					       tab->pc_end));
	range.tab = tab;

	w.ranges = &range;
	w.nr_ranges = 1;
	w.ips = ips;
	w.max = n;
	w.budget = FXTPROF_DEFAULT_UNWIND_BUDGET;
	regs = (struct fxtprof_uregs){ cap.pc, cap.sp, cap.fp, 0 };
	fxtprof_ustack_walk(&w, &regs);
	ASSERT_EQ(n, w.nr);
	EXPECT_EQ(FXTPROF_USTACK_END_DEPTH, w.end);
	EXPECT_EQ(n - 1, w.table_frames);
	EXPECT_EQ(0u, w.fp_frames + w.rule_frames);
	for (i = 0; i < w.nr; i++) {
		Dl_info info;

		ASSERT_NE(0, dladdr((void *)(uintptr_t)(ips[i] - (i ? 1 : 0)),
				    &info));
		ASSERT_NE(NULL, info.dli_sname) TH_LOG("frame %zu: %#llx", i,
						    (unsigned long long)ips[i]);
		fprintf(stderr, "# frame %zu: %s\n", i, info.dli_sname);
		EXPECT_STREQ(want[i], info.dli_sname);
	}
	free(tab);
	unwind_table__free(t);
}

TEST_HARNESS_MAIN
