// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stack_copy.c - the host's unwind of stack copies
 * (user/unwind/stack_copy.h) on real copies: scopy_work (-O2, no frame
 * pointers, hot in qsort's callback and at the bottom of a 41-deep
 * recursion) is sampled with perf_event_open (PERF_SAMPLE_REGS_USER |
 * _STACK_USER), each sample turned into a struct fxtprof_stack_copy and
 * unwound with the files of /proc/PID/maps.  Of the samples whose leaf
 * is in the program, 95 % must reach main through every frame the code
 * calls, in order.  The same copies, encoded as the recorder does, go
 * through `fxtprof report`.  Bad copies end in a counted failure; an
 * aarch64 copy made by hand unwinds on this x86_64 host.  Needs root
 * (perf of a child with its user stack).  Prints TAP.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fxt_test_util.h"
#include "encode/encoder.h"
#include "encode/fxt_encoder.h"
#include "fxt/fxt.h"
#include "unwind/stack_copy.h"

#define WORK		UNWIND_FIXTURES "/scopy_work"
#define NOFP		UNWIND_FIXTURES "/nofp"
#define DEPTH		41
#define NOFP_ARM64	UNWIND_FIXTURES "/nofp-arm64"
#define WANT_SAMPLES	2000
#define STACK_BYTES	8192
#define RING_PAGES	256
#define MAX_PCS		128
#define MAX_MAPS	64

/* perf's x86 register numbers (asm/perf_regs.h) in DWARF order. */
static const unsigned int perf_of_dwarf[FXTPROF_STACK_COPY_REGS_X86_64] = {
	0 /* ax */, 3 /* dx */, 2 /* cx */, 1 /* bx */, 4 /* si */,
	5 /* di */, 6 /* bp */, 7 /* sp */, 16, 17, 18, 19, 20, 21, 22, 23,
	8 /* ip */,
};
#define PERF_REGS_MASK	(0x1ffull | 0xff0000ull)

struct copy {
	size_t len;
	struct fxtprof_stack_copy *c;
};

struct capture {
	struct copy copies[WANT_SAMPLES];
	unsigned int nr;
	struct stack_copy_module maps[MAX_MAPS];
	unsigned int nr_maps;
	uint64_t prog_bias;
};

/* A function of the fixture: [start, end) as ELF addresses. */
struct func {
	const char *name;
	uint64_t start, end;
};

static int func_of(const char *path, const char *name, struct func *f)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	Elf *elf;
	int found = -ENOENT;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)) && found) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name) &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC) {
				f->name = name;
				f->start = s.st_value;
				f->end = s.st_value + s.st_size;
				found = 0;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static long perf_open(struct perf_event_attr *a, pid_t pid)
{
	return syscall(SYS_perf_event_open, a, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* One PERF_RECORD_SAMPLE, as a struct fxtprof_stack_copy. */
static void take_sample(struct capture *cap, const uint64_t *w, size_t words)
{
	uint64_t regs[24], abi, size, dyn;
	struct fxtprof_stack_copy *c;
	size_t i = 3, n = 0, len;	/* after ip, pid/tid, time */

	if (words < 4 || cap->nr >= WANT_SAMPLES)
		return;
	abi = w[i++];
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;		/* in the kernel with no user context */
	for (n = 0; n < 24; n++)
		if (PERF_REGS_MASK & (1ull << n))
			regs[n] = w[i++];
	size = w[i++];
	if (!size || i + size / 8 >= words)
		return;
	dyn = w[i + size / 8];
	if (dyn > size)
		return;
	len = sizeof(*c) + 8 * FXTPROF_STACK_COPY_REGS_X86_64 + dyn;
	c = calloc(1, len);
	if (!c)
		return;
	c->machine = EM_X86_64;
	c->nr_regs = FXTPROF_STACK_COPY_REGS_X86_64;
	c->size = (uint32_t)dyn;
	for (n = 0; n < FXTPROF_STACK_COPY_REGS_X86_64; n++)
		c->regs[n] = regs[perf_of_dwarf[n]];
	memcpy(&c->regs[FXTPROF_STACK_COPY_REGS_X86_64], &w[i], dyn);
	cap->copies[cap->nr].c = c;
	cap->copies[cap->nr].len = len;
	cap->nr++;
}

/* Take what the ring holds: whole records, a wrapped one put together. */
static void drain(struct capture *cap, struct perf_event_mmap_page *pg,
		  size_t data_size)
{
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	static uint64_t rec[(STACK_BYTES + 4096) / 8];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % data_size, k;

		for (k = 0; k < sizeof(h); k++)
			((unsigned char *)&h)[k] = data[(off + k) % data_size];
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		for (k = 0; k < h.size; k++)
			((unsigned char *)rec)[k] = data[(off + k) % data_size];
		if (h.type == PERF_RECORD_SAMPLE)
			take_sample(cap, rec + 1, (h.size - sizeof(h)) / 8);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* The executable file mappings of pid. */
static void read_maps(struct capture *cap, pid_t pid)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f) && cap->nr_maps < MAX_MAPS) {
		struct stack_copy_module *m = &cap->maps[cap->nr_maps];
		unsigned long long s, e, off;
		char perms[8], file[400];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %399s", &s, &e,
			   perms, &off, file) != 5 || perms[2] != 'x' ||
		    file[0] != '/')
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		m->path = strdup(file);
		cap->nr_maps++;
	}
	if (f)
		fclose(f);
}

/* Run scopy_work and sample it until WANT_SAMPLES copies or 20 s. */
static int capture(struct capture *cap)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 100000,	/* ns: 10 kHz */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER,
		.sample_regs_user = PERF_REGS_MASK,
		.sample_stack_user = STACK_BYTES,
		.disabled = 1,
		.enable_on_exec = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.wakeup_events = 1,
	};
	size_t data_size = RING_PAGES * 4096ul;
	struct perf_event_mmap_page *pg;
	int go[2], fd, i;
	struct timespec t0, t;
	pid_t pid;

	memset(cap, 0, sizeof(*cap));
	if (pipe(go))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		alarm(30);	/* never outlive a test that died */
		execl(WORK, WORK, "1000000000", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	fd = (int)perf_open(&a, pid);
	if (fd < 0) {
		int err = -errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return err;
	}
	pg = mmap(NULL, (RING_PAGES + 1) * 4096ul, PROT_READ | PROT_WRITE,
		  MAP_SHARED, fd, 0);
	if (write(go[1], "g", 1) != 1 || pg == MAP_FAILED) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -EIO;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; cap->nr < WANT_SAMPLES; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 100);
		drain(cap, pg, data_size);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			break;
	}
	read_maps(cap, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	munmap(pg, (RING_PAGES + 1) * 4096ul);
	close(fd);
	close(go[1]);
	for (i = 0; i < (int)cap->nr_maps; i++) {
		const struct stack_copy_module *m = &cap->maps[i];

		if (strstr(m->path, "/scopy_work"))
			cap->prog_bias = m->start - m->pgoff;
	}
	return cap->nr ? 0 : -ENODATA;
}

static void release(struct capture *cap)
{
	unsigned int i;

	for (i = 0; i < cap->nr; i++)
		free(cap->copies[i].c);
	for (i = 0; i < cap->nr_maps; i++)
		free((char *)cap->maps[i].path);
}

static int new_unwinder(struct capture *cap, struct stack_copy_unwinder **u)
{
	unsigned int i;
	int err = stack_copy_unwinder__new(EM_X86_64, u);

	for (i = 0; !err && i < cap->nr_maps; i++)
		stack_copy_unwinder__add(*u, &cap->maps[i]);
	return err;
}

enum verdict { NOT_OURS, GOOD, BAD };

struct funcs {
	struct func cmp, sort, spin, rec, deep, main;
};

static int funcs__find(struct funcs *fn)
{
	return func_of(WORK, "slow_cmp", &fn->cmp) ||
	       func_of(WORK, "sort_round", &fn->sort) ||
	       func_of(WORK, "spin", &fn->spin) ||
	       func_of(WORK, "descend", &fn->rec) ||
	       func_of(WORK, "run_deep", &fn->deep) ||
	       func_of(WORK, "main", &fn->main) ? -ENOENT : 0;
}

/*
 * The text of scopy_work is mapped at its ELF addresses plus a bias
 * (start - pgoff: its segments' offsets equal their addresses).
 */
static bool in(const struct capture *cap, const struct func *f, uint64_t pc)
{
	return pc - cap->prog_bias >= f->start && pc - cap->prog_bias < f->end;
}

static bool in_prog(const struct capture *cap, uint64_t pc)
{
	unsigned int i;

	for (i = 0; i < cap->nr_maps; i++)
		if (strstr(cap->maps[i].path, "/scopy_work") &&
		    pc >= cap->maps[i].start && pc < cap->maps[i].end)
			return true;
	return false;
}

/* Whether frame *i (a return address: its call is at pc - 1) is in f. */
static bool next_is(const struct capture *cap, const struct func *f,
		    const uint64_t *pcs, unsigned int nr, unsigned int *i)
{
	if (*i >= nr || !in(cap, f, pcs[*i] - 1))
		return false;
	++*i;
	return true;
}

/*
 * Every frame the code calls, in order, up to main: slow_cmp, libc's
 * qsort frames, sort_round, main; spin, descend x 41, run_deep, main
 * (and every leaf on the way, with the frames above it).
 */
static enum verdict judge(const struct capture *cap, const struct funcs *fn,
			  const uint64_t *pcs, unsigned int nr)
{
	unsigned int i = 1, levels = 0;

	if (!nr || !in_prog(cap, pcs[0]))
		return NOT_OURS;
	if (in(cap, &fn->main, pcs[0]))
		return GOOD;
	if (in(cap, &fn->cmp, pcs[0])) {
		while (i < nr && !in_prog(cap, pcs[i]))
			i++;
		if (i == 1)
			return BAD;	/* qsort's frames are missing */
	}
	if (in(cap, &fn->cmp, pcs[0]) || in(cap, &fn->sort, pcs[0])) {
		if (!in(cap, &fn->sort, pcs[0]) &&
		    !next_is(cap, &fn->sort, pcs, nr, &i))
			return BAD;
		return next_is(cap, &fn->main, pcs, nr, &i) ? GOOD : BAD;
	}
	/* A PLT stub, crt code: nothing known to expect. */
	if (!in(cap, &fn->spin, pcs[0]) && !in(cap, &fn->rec, pcs[0]) &&
	    !in(cap, &fn->deep, pcs[0]))
		return NOT_OURS;
	if (in(cap, &fn->spin, pcs[0]) || in(cap, &fn->rec, pcs[0])) {
		levels = in(cap, &fn->rec, pcs[0]);
		while (next_is(cap, &fn->rec, pcs, nr, &i))
			levels++;
		/* Below spin: all 41; elsewhere, as deep as it got. */
		if (in(cap, &fn->spin, pcs[0]) ? levels != DEPTH :
		    levels > DEPTH)
			return BAD;
	}
	if (!in(cap, &fn->deep, pcs[0]) &&
	    !next_is(cap, &fn->deep, pcs, nr, &i))
		return BAD;
	return next_is(cap, &fn->main, pcs, nr, &i) ? GOOD : BAD;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

TEST(real_copies_reach_main)
{
	static struct capture cap;
	struct stack_copy_unwinder *u;
	unsigned int i, ours = 0, good = 0, in_cmp = 0, in_rec = 0;
	unsigned int ends[STACK_COPY__NR] = { 0 };
	struct funcs fn;
	double t0, t1;
	int ret;

	ASSERT_EQ(0, funcs__find(&fn));
	ret = capture(&cap);
	if (ret == -EACCES || ret == -EPERM || ret == -ENOENT)
		SKIP(return, "perf_event_open: %s (root needed)", strerror(-ret));
	ASSERT_EQ(0, ret);
	ASSERT_GE(cap.nr, 500);
	ASSERT_NE(0, cap.prog_bias);
	ASSERT_EQ(0, new_unwinder(&cap, &u));
	t0 = now_us();
	for (i = 0; i < cap.nr; i++) {
		uint64_t pcs[MAX_PCS];
		unsigned int nr;
		enum stack_copy_end end;
		enum verdict v;

		end = stack_copy_unwinder__unwind(u, cap.copies[i].c,
						  cap.copies[i].len, pcs,
						  MAX_PCS, &nr);
		ends[end]++;
		v = judge(&cap, &fn, pcs, nr);
		if (v == NOT_OURS)
			continue;
		ours++;
		good += v == GOOD;
		in_cmp += in(&cap, &fn.cmp, pcs[0]);
		in_rec += in(&cap, &fn.spin, pcs[0]);
		if (v == BAD && ours - good <= 3) {
			unsigned int k;

			TH_LOG("bad: end %s, %u frames",
			       stack_copy_end__name(end), nr);
			for (k = 0; k < nr; k++)
				TH_LOG("  %#llx", (unsigned long long)pcs[k]);
		}
	}
	t1 = now_us();
	for (i = 0; i < STACK_COPY__NR; i++)
		if (ends[i])
			TH_LOG("%u copies ended %s", ends[i],
			       stack_copy_end__name(i));
	TH_LOG("%u copies, %u with the leaf in the program (%u in slow_cmp, "
	       "%u in spin), %u reach main: %.1f us per copy", cap.nr, ours,
	       in_cmp, in_rec, good, (t1 - t0) / cap.nr);
	EXPECT_GE(in_cmp * 5, ours);
	EXPECT_GE(in_rec * 5, ours);
	EXPECT_GE(good * 100, ours * 95);
	stack_copy_unwinder__free(u);
	release(&cap);
}

/* A good copy of nofp's main with its stack, to damage. */
static struct fxtprof_stack_copy *good_copy(size_t *len, unsigned int size)
{
	struct fxtprof_stack_copy *c;

	*len = sizeof(*c) + 8 * FXTPROF_STACK_COPY_REGS_X86_64 + size;
	c = calloc(1, *len);
	c->machine = EM_X86_64;
	c->nr_regs = FXTPROF_STACK_COPY_REGS_X86_64;
	c->size = size;
	c->regs[FXTPROF_STACK_COPY_SP_X86_64] = 0x7ffff000;
	return c;
}

TEST(bad_copies_are_counted)
{
	struct stack_copy_module m = {
		.start = 0x1000, .end = 0x2000, .pgoff = 0x1000, .path = NOFP,
	};
	struct stack_copy_unwinder *u;
	struct fxtprof_stack_copy *c;
	uint64_t pcs[8];
	unsigned int nr;
	struct func fmain;
	size_t len;

	ASSERT_EQ(0, func_of(NOFP, "main", &fmain));
	ASSERT_EQ(0, stack_copy_unwinder__new(EM_X86_64, &u));
	/* nofp's text where it lies in the file, bias 0. */
	ASSERT_EQ(0, stack_copy_unwinder__add(u, &m));
	c = good_copy(&len, 64);
	c->regs[FXTPROF_STACK_COPY_PC_X86_64] = fmain.start;
	EXPECT_GE(STACK_COPY_END_SHORT,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	EXPECT_LE(1, nr);
	EXPECT_EQ(fmain.start, pcs[0]);
	/* Truncated: the header, a register, the stack. */
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, 4, pcs, 8, &nr));
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, 8 + 8 * 3, pcs, 8, &nr));
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len - 8, pcs, 8, &nr));
	EXPECT_EQ(0, nr);
	/* A size beyond the payload, one that wraps the address space. */
	c->size = 1u << 30;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->size = 64;
	c->regs[FXTPROF_STACK_COPY_SP_X86_64] = ~0ull - 8;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->regs[FXTPROF_STACK_COPY_SP_X86_64] = 0x7ffff000;
	/* Register counts: none, too many, arm64's. */
	c->nr_regs = 0;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->nr_regs = 0xffff;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->nr_regs = FXTPROF_STACK_COPY_REGS_ARM64;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->nr_regs = FXTPROF_STACK_COPY_REGS_X86_64;
	/* Another machine: unknown, or known but not the unwinder's. */
	c->machine = EM_386;
	EXPECT_EQ(STACK_COPY_WRONG_MACHINE,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->machine = EM_AARCH64;
	EXPECT_EQ(STACK_COPY_BAD_COPY,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->machine = EM_X86_64;
	/* No stack at the SP; a pc in no file. */
	c->size = 0;
	EXPECT_EQ(STACK_COPY_NO_SP,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	c->size = 64;
	c->regs[FXTPROF_STACK_COPY_PC_X86_64] = 0x12345678;
	EXPECT_EQ(STACK_COPY_NO_MODULE,
		  stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr));
	/* A file of another machine is refused. */
	m.path = NOFP_ARM64;
	EXPECT_EQ(-EBUSY, stack_copy_unwinder__add(u, &m));
	free(c);
	stack_copy_unwinder__free(u);
	ASSERT_EQ(0, stack_copy_unwinder__new(EM_X86_64, &u));
	EXPECT_EQ(-EXDEV, stack_copy_unwinder__add(u, &m));
	stack_copy_unwinder__free(u);
}

/*
 * An aarch64 copy on this x86_64 host: interrupted at nofp_cmp's first
 * instruction (a leaf: its caller is in x30, with a PAC in the high bits
 * that must go), the stack empty of frames.  The caller is found.
 */
TEST(arm64_copy)
{
	struct stack_copy_module m = {
		.start = 0x400000, .end = 0x500000, .pgoff = 0,
		.path = NOFP_ARM64,
	};
	struct stack_copy_unwinder *u;
	struct fxtprof_stack_copy *c;
	struct func cmp, fmain;
	uint64_t pcs[8], bias = 0x400000;
	unsigned int nr;
	size_t len;

	ASSERT_EQ(0, func_of(NOFP_ARM64, "nofp_cmp", &cmp));
	ASSERT_EQ(0, func_of(NOFP_ARM64, "main", &fmain));
	ASSERT_EQ(0, stack_copy_unwinder__new(EM_AARCH64, &u));
	ASSERT_EQ(0, stack_copy_unwinder__add(u, &m));
	len = sizeof(*c) + 8 * FXTPROF_STACK_COPY_REGS_ARM64 + 64;
	c = calloc(1, len);
	c->machine = EM_AARCH64;
	c->nr_regs = FXTPROF_STACK_COPY_REGS_ARM64;
	c->size = 64;
	c->regs[FXTPROF_STACK_COPY_SP_ARM64] = 0xfffffff000;
	c->regs[FXTPROF_STACK_COPY_PC_ARM64] = bias + cmp.start;
	c->regs[30] = (0x2aull << 48) | (bias + fmain.start + 16);
	stack_copy_unwinder__unwind(u, c, len, pcs, 8, &nr);
	ASSERT_LE(2, nr);
	EXPECT_EQ(bias + cmp.start, pcs[0]);
	EXPECT_EQ(bias + fmain.start + 16, pcs[1]);
	free(c);
	stack_copy_unwinder__free(u);
}

/* ---- a recording with copies, through `fxtprof report` ------------- */

static int encode_mmap(struct encoder *enc, uint32_t pid,
		       const struct stack_copy_module *m)
{
	size_t flen = strlen(m->path), size = (sizeof(struct fxtprof_mmap) +
					       flen + 1 + 7) & ~7ul;
	struct fxtprof_mmap *r = calloc(1, size);
	int err;

	r->hdr.size = (uint32_t)size;
	r->hdr.type = FXTPROF_REC_MMAP;
	r->hdr.time_ns = 1;
	r->pid = r->tid = pid;
	r->start = m->start;
	r->len = m->end - m->start;
	r->pgoff = m->pgoff;
	r->flags = FXTPROF_MMAP_INITIAL;
	r->filename_len = (uint16_t)flen;
	memcpy(r->filename, m->path, flen);
	err = enc->ops->record(enc->ctx, &r->hdr);
	free(r);
	return err;
}

/* A sample of the leaf only, as the module sends it in dwarf mode. */
static int encode_sample(struct encoder *enc, uint32_t pid, uint64_t ts,
			 const struct copy *cp)
{
	size_t size = (sizeof(struct fxtprof_sample) + 8 + cp->len + 7) & ~7ul;
	struct fxtprof_sample *s = calloc(1, size);
	int err;

	s->hdr.size = (uint32_t)size;
	s->hdr.type = FXTPROF_REC_SAMPLE;
	s->hdr.time_ns = ts;
	s->pid = s->tid = pid;
	s->mode = FXTPROF_MODE_USER;
	s->flags = FXTPROF_SAMPLE_STACK_COPY;
	s->nr_user = 1;
	s->ips[0] = cp->c->regs[FXTPROF_STACK_COPY_PC_X86_64];
	memcpy(&s->ips[1], cp->c, cp->len);
	err = enc->ops->record(enc->ctx, &s->hdr);
	free(s);
	return err;
}

/*
 * The copies, as the recorder writes them (user/encode), a bad one among
 * them; `fxtprof report` counts them in its header and shows qsort's
 * callback and the recursion under main.
 */
TEST(report_of_copies)
{
	static struct capture cap;
	struct memsink out = { 0 };
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .write = memsink_write, .ctx = &out,
	};
	struct fxt_encoder *fe;
	struct encoder enc;
	char path[] = "/tmp/test_stack_copy.XXXXXX", cmd[512], line[1024];
	unsigned int i;
	bool header = false, cmp = false, rec = false;
	double main_children = 0;
	int ret;
	FILE *f;
	int fd;

	ret = capture(&cap);
	if (ret == -EACCES || ret == -EPERM || ret == -ENOENT)
		SKIP(return, "perf_event_open: %s (root needed)", strerror(-ret));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fxt_encoder__new_opts(&fe, &wo));
	enc = fxt_encoder__encoder(fe);
	ASSERT_EQ(0, enc.ops->begin_segment(enc.ctx));
	ASSERT_EQ(0, enc.ops->process_name(enc.ctx, 4242, "scopy_work"));
	for (i = 0; i < cap.nr_maps; i++)
		ASSERT_EQ(0, encode_mmap(&enc, 4242, &cap.maps[i]));
	cap.copies[0].c->nr_regs = 3;	/* bad: counted, not unwound */
	for (i = 0; i < cap.nr; i++)
		ASSERT_EQ(0, encode_sample(&enc, 4242, 1000 + i,
					   &cap.copies[i]));
	fxt_encoder__free(fe);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)out.len, write(fd, out.buf, out.len));
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", FXTPROF_BIN, path);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "# stack copies: ")) {
			TH_LOG("%s", line);
			header = strstr(line, "bad copy 1") != NULL;
		}
		cmp |= strstr(line, "[.] slow_cmp") != NULL;
		rec |= strstr(line, "[.] descend") != NULL;
		/* Every stack reaches main: main's children are all. */
		if (strstr(line, "[.] main\n"))
			sscanf(line, " %lf%%", &main_children);
	}
	EXPECT_EQ(0, pclose(f));
	EXPECT_TRUE(header);
	EXPECT_TRUE(cmp);
	EXPECT_TRUE(rec);
	EXPECT_LE(95.0, main_children);
	unlink(path);
	memsink_free(&out);
	release(&cap);
}

TEST_HARNESS_MAIN
