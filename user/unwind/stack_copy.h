/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stack_copy.h - unwind a sample's copy of the user registers and stack
 * (struct fxtprof_stack_copy, `--call-graph dwarf`) on the host, with
 * elfutils' libdwfl: the files' CFI, the copy's registers as the first
 * frame and its bytes as the only memory.  Documentation/unwinding.md,
 * "Stack-copy mode".
 *
 * How to call it, for one process in one epoch of its mappings:
 *
 *	struct stack_copy_unwinder *u;
 *	int err = stack_copy_unwinder__new(EM_X86_64, &u);
 *	// each executable mapping, with the file found for it
 *	struct stack_copy_module m = {
 *		.start = 0x5555..., .end = ..., .pgoff = 0x1000,
 *		.path = "/usr/bin/prog",
 *	};
 *	err = stack_copy_unwinder__add(u, &m);	// -errno: file unusable
 *	...
 *	uint64_t pcs[128];
 *	unsigned int nr;
 *	enum stack_copy_end end = stack_copy_unwinder__unwind(u, copy, len,
 *							      pcs, 128, &nr);
 *	...
 *	stack_copy_unwinder__free(u);
 *
 * The copy is checked before use: anything malformed ends in
 * STACK_COPY_BAD_COPY and no frames, never a read outside [copy, copy +
 * len).  x86_64 and aarch64 copies unwind on any host (libdw's backends
 * hold both); arm64 pointer authentication bits are stripped from the pc,
 * the link register and every word read from the copied stack.  Modules
 * may be added until the first unwind; reuse the unwinder for every copy
 * of the process while its mappings do not change (adding files is the
 * costly part).  Not thread safe: one unwinder per thread.
 */
#ifndef FXTPROF_UNWIND_STACK_COPY_H
#define FXTPROF_UNWIND_STACK_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <linux/fxtprof.h>

/* One executable mapping of the process and the file behind it. */
struct stack_copy_module {
	uint64_t start, end;	/* [start, end) in the process */
	uint64_t pgoff;		/* file offset mapped at start */
	const char *path;	/* the ELF file to read (found by build id) */
};

/* How an unwind ended: the first two gave frames, the others none. */
enum stack_copy_end {
	STACK_COPY_END_OK,	/* reached the outermost frame */
	STACK_COPY_END_SHORT,	/* stopped early: copy ended, no CFI, depth */
	STACK_COPY_BAD_COPY,	/* malformed: sizes, register count */
	STACK_COPY_WRONG_MACHINE, /* not this unwinder's machine */
	STACK_COPY_NO_SP,	/* the stack bytes do not cover the SP */
	STACK_COPY_NO_MODULE,	/* the pc lies in no added module */
	STACK_COPY_FAILED,	/* libdwfl gave no frame at all */
	STACK_COPY__NR,
};

struct stack_copy_unwinder;

/*
 * Check a copy of len bytes: 0 and *hdr, -EPROTONOSUPPORT for a machine
 * other than x86_64 and aarch64, -EINVAL when malformed.
 */
int stack_copy__check(const void *copy, size_t len,
		      const struct fxtprof_stack_copy **hdr);
/* The copy's register numbers of sp and pc for machine, else -EINVAL. */
int stack_copy__sp_pc(unsigned int machine, unsigned int *sp,
		      unsigned int *pc, unsigned int *nr_regs);
const char *stack_copy_end__name(enum stack_copy_end end);

/* An unwinder for copies of machine (EM_X86_64 or EM_AARCH64). */
int stack_copy_unwinder__new(unsigned int machine,
			     struct stack_copy_unwinder **out);
void stack_copy_unwinder__free(struct stack_copy_unwinder *u);
/*
 * Add one mapping's file: 0, or -errno when the file cannot be read, has
 * another machine, or maps nothing at pgoff.  Mappings of one file at
 * one load bias are added once.
 */
int stack_copy_unwinder__add(struct stack_copy_unwinder *u,
			     const struct stack_copy_module *m);
/*
 * Unwind the copy of len bytes into pcs (up to max, leaf first, the
 * leaf as interrupted and the others return addresses as found): *nr of
 * them.  pcs[0] is the copy's pc whenever the copy is good.
 */
enum stack_copy_end stack_copy_unwinder__unwind(struct stack_copy_unwinder *u,
						const void *copy, size_t len,
						uint64_t *pcs,
						unsigned int max,
						unsigned int *nr);

#endif /* FXTPROF_UNWIND_STACK_COPY_H */
