/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind.h - user stack walks: by the unwind tables that userspace loads
 * (FXTPROF_IOC_UNWIND_LOAD and _MAP, Documentation/unwinding.md) and by
 * frame pointers where a pc has none.
 *
 * kmod/unwind_rows.c (checking and searching rows) and kmod/unwind_walk.c
 * (the walk) are compiled twice, as kmod/kring.c is: into fxtprof.ko, and
 * on the host by tests/host/test_unwind.c against tests/host/kshim/.  So
 * this header and those two files include nothing beyond the primitives
 * the shim provides.  The session's store of tables and process ranges,
 * with its RCU and its ioctls, is kmod/unwind_table.c, module only.
 */
#ifndef _FXTPROF_UNWIND_H
#define _FXTPROF_UNWIND_H

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/fxtprof.h>
#include <fxtprof_unwind_check.h>	/* the row checks */

/* A frame record as both x86-64 (rbp chain) and arm64 (x29 chain) lay it out. */
struct fxtprof_frame {
	unsigned long next_fp;
	unsigned long ret;
};

/*
 * One loaded table: immutable once loaded; freed by UNWIND_UNLOAD after a
 * grace period, or with the session's store (kmod/unwind_table.c), which
 * no walk can be reading by then.
 */
struct fxtprof_unwind_tab {
	u32 id;
	u32 nr_rows;
	u32 pc_end;
	u8 build_id_size;
	u8 build_id[FXTPROF_BUILD_ID_MAX];
	struct fxtprof_unwind_row rows[];
};

/* A process's addresses [start, end) run @tab at @bias. */
struct fxtprof_unwind_range {
	u64 start;
	u64 end;
	u64 bias;
	const struct fxtprof_unwind_tab *tab;
};

/* The registers of the frame being unwound. */
struct fxtprof_uregs {
	unsigned long pc;
	unsigned long sp;
	unsigned long fp;	/* rbp on x86_64, x29 on arm64 */
	unsigned long lr;	/* arm64's x30; 0 where there is none */
};

/*
 * One walk: what the caller gives it, and what it found.  With no ranges
 * every frame is stepped by its frame pointer: that is the walk without
 * FXTPROF_CFG_UNWIND.
 */
struct fxtprof_ustack {
	/* in */
	const struct fxtprof_unwind_range *ranges;	/* sorted, or NULL */
	unsigned int nr_ranges;
	u64 *ips;
	unsigned int max;		/* ustack_depth */
	unsigned int budget;		/* user memory reads */
	/* out */
	unsigned int nr;		/* ips stored */
	unsigned int reads;
	u8 end;				/* enum fxtprof_ustack_end */
	u8 flags;			/* FXTPROF_SAMPLE_USTACK_* */
	unsigned int table_frames;	/* callers found by a row */
	unsigned int fp_frames;		/* by fp: no row for the pc */
	unsigned int rule_frames;	/* by fp: the row has no rule */
};

/* unwind_rows.c */
const struct fxtprof_unwind_row *
fxtprof_unwind_row_find(const struct fxtprof_unwind_tab *tab, u64 pc);
const struct fxtprof_unwind_range *
fxtprof_unwind_range_find(const struct fxtprof_unwind_range *ranges,
			  unsigned int nr, u64 addr);

/* unwind_walk.c: never sleeps, allocates or locks; hard irq is fine. */
void fxtprof_ustack_walk(struct fxtprof_ustack *w, struct fxtprof_uregs *regs);

/*
 * stack.c: a user return address without its pointer-authentication code
 * (arm64; the identity on x86_64).  The host test brings its own.
 */
unsigned long fxtprof_ustack_strip_pac(unsigned long addr);

#endif /* _FXTPROF_UNWIND_H */
