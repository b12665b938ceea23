/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_nofp.h - a test program (struct vm_child) recorded with its unwind
 * table, built by user/unwind/ (libdw, what the recorder runs), loaded
 * with libfxtprof and mapped for the child's pid before it runs; and
 * fxt_nofp (built -O2 -fomit-frame-pointer, static: glibc's qsort is in
 * it too), its functions, and the frames its samples have:
 *
 *   qsort:    nofp_cmp <- (glibc, one frame or more) <- nofp_sort <- main
 *   recurse:  nofp_leaf <- nofp_recurse x 41 <- main
 *
 * Shared by the tests of the module's walk (test_unwind_walk.c) and of
 * the stack copies (test_stack_copy.c).  Include it once, after
 * vm_fixture.h, in a test program.
 */
#ifndef FXTPROF_VM_NOFP_H
#define FXTPROF_VM_NOFP_H

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
struct vm_child {
	pid_t pid;
	int to, from;			/* its stdin and stdout */
	unsigned long long lo, hi;	/* its executable addresses */
	unsigned long long pgoff;	/* the file offset mapped at lo */
	unsigned long long stack_lo, stack_hi;	/* its [stack] */
	unsigned long long bias;
};

struct nofp {
	struct vm_child c;
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

/* @path MODE MS, started and waiting for its go; its mappings found. */
static int vm_child_spawn(struct vm_child *n, const char *path,
			  const char *mode, const char *ms)
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
			   &end, perms, &off, name) != 5)
			continue;
		if (perms[2] == 'x' && strstr(name, base)) {
			n->lo = start;
			n->hi = end;
			n->pgoff = off;
			n->bias = start - off - delta;
			ret = 0;
		} else if (!strcmp(name, "[stack]")) {
			n->stack_lo = start;
			n->stack_hi = end;
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

/*
 * Record @path MODE for MS milliseconds, its table loaded and mapped
 * before it runs, with the walk bounded by @depth frames and @budget
 * reads, and @flags (FXTPROF_CFG_*) on top of the sampling and the walk.
 */
static void vm_child_record(struct __test_metadata *_metadata,
			    FIXTURE_DATA(dev) *self, struct vm_child *n,
			    const char *path, const char *mode, const char *ms,
			    __u16 depth, __u32 budget, __u32 flags)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE |
					    FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_UNWIND | flags, 1000,
					    1 << 20);
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

	ASSERT_EQ(0, vm_child_spawn(n, path, mode, ms));
	m = (struct fxtprof_unwind_map){
		.pid = n->pid, .id = arg.id, .start = n->lo, .end = n->hi,
		.bias = n->bias,
	};
	ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	/*
	 * Sampling starts once the child has exec'd: this test program and
	 * the child are both static at the same link address, so a sample
	 * of the forked child before its exec would pass for the child's,
	 * on a stack that is not its [stack].
	 */
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
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
			__u32 budget, __u32 flags)
{
	const char *path = vm_test_path("fxt_nofp");

	for (int f = 0; f < F_NR; f++) {
		ASSERT_EQ(0, vm_elf_sym(path, fn_names[f], &n->addr[f],
					&n->size[f])) TH_LOG("%s", fn_names[f]);
	}
	vm_child_record(_metadata, self, &n->c, path, mode, ms, depth, budget,
			flags);
}

#endif /* FXTPROF_VM_NOFP_H */
