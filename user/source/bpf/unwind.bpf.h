/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind.bpf.h - the sampling program's user stack walk from unwind
 * tables (FXTPROF_CFG_UNWIND), included by fxtprof.bpf.c only.  The maps
 * are laid out in fxtprof_bpf.h and filled by the loader
 * (user/source/bpf/bpf_unwind.c); Documentation/unwinding.md, "The bpf
 * source's walk", has the design.
 *
 * Per frame: the process's range that holds the pc (a binary search of at
 * most FXTPROF_BPF_UNWIND_RANGE_STEPS steps), the table's row (at most
 * FXTPROF_BPF_UNWIND_ROW_STEPS), then the row's rule, or one
 * frame-pointer step where there is no table or no rule.  The frames are
 * a bpf_loop() (5.17) over ustack_depth, so the verifier checks one frame
 * whatever the depth; the two searches are bounded loops inside it.
 * Every user read goes through bpf_probe_read_user(), which cannot fault,
 * and counts against unwind_budget.
 *
 * The walk's state lives in a per-CPU map value, not on the stack: what
 * the program loads from a map is unknown to the verifier, so every
 * frame starts from the same state and the callback's check converges
 * at once.  On the stack, the frame count and the reads were constants
 * the verifier followed frame by frame and path by path, past its
 * million instructions.
 */
#ifndef FXTPROF_UNWIND_BPF_H
#define FXTPROF_UNWIND_BPF_H

/* Sized by the loader from unwind_memory before the load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fxtprof_bpf_unwind_rows);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FXTPROF_BPF_UNWIND_MAX_TABLES);
	__type(key, __u32);
	__type(value, struct fxtprof_bpf_unwind_table);
} unwind_tables SEC(".maps");

/* Preallocated (perf_event programs need it on 6.1); sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxtprof_bpf_unwind_proc);
} unwind_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxtprof_bpf_unwind_stats);
} unwind_stats SEC(".maps");

const volatile __u32 unwind_budget = FXTPROF_DEFAULT_UNWIND_BUDGET;

/*
 * The user registers as words of the ptrace layouts, which the ABI fixes
 * (x86-64 struct pt_regs, arm64 struct user_pt_regs): the same indexes
 * serve the perf event's registers and the task's, without CO-RE, and
 * x86's cs, a u16 in recent BTF, is read as the whole word it is in.
 */
#if defined(__TARGET_ARCH_x86)
#define UREG_FP		4	/* rbp */
#define UREG_PC		16
#define UREG_MODE	17	/* cs */
#define UREG_SP		19
#define UREG_LR		UREG_PC	/* none: never used (no RA_IN_LR rows) */
#define USER32_CS	0x23
#define ureg_compat(mode)	(((mode) & 0xffff) == USER32_CS)
/* No pointer authentication. */
#define strip_pac(ra)		(ra)
#elif defined(__TARGET_ARCH_arm64)
#define UREG_FP		29	/* x29 */
#define UREG_LR		30	/* x30 */
#define UREG_SP		31
#define UREG_PC		32
#define UREG_MODE	33	/* pstate */
#define PSR_MODE32_BIT	0x10
#define ureg_compat(mode)	((mode) & PSR_MODE32_BIT)
/*
 * A PAC sits in the bits above the user address space, which Debian's
 * kernels configure at 48 bits (ARM64_VA_BITS_48): keep the address.
 */
#define USER_VA_BITS	48
#define strip_pac(ra)		((ra) & ((1ull << USER_VA_BITS) - 1))
#else
#error "the bpf source supports x86_64 and arm64"
#endif

#define MAX_UIPS	(2 * FXTPROF_MAX_STACK_DEPTH)	/* kernel + user */

/* Where the walk stands, in unwind_walk. */
struct ustack_walk {
	__u64 pc, sp, fp, lr;
	__u64 base;		/* index in ips of the user leaf: nr_kernel */
	__u64 n;		/* user frames in ips */
	__u64 max;		/* ustack_depth */
	__u64 reads;
	__u64 end;		/* enum fxtprof_ustack_end, 0 while walking */
	__u64 tgid;
	/* frames by how they were found, as struct fxtprof_stats counts */
	__u64 table_frames, fp_frames, rule_frames;
};

/* Samples do not nest on a CPU: one walk per CPU at a time. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_walk);
} unwind_walk SEC(".maps");

enum ustack_frame_kind {
	FRAME_TABLE,		/* a row's rule */
	FRAME_FP,		/* a frame-pointer step: no table for the pc */
	FRAME_RULE,		/* a frame-pointer step: a CFA_NONE row */
};

/* Read a user word, counted against the budget; 0 or the walk ends. */
static __always_inline int read_user(struct ustack_walk *st, void *dst,
				     __u32 size, __u64 addr)
{
	if (st->reads >= unwind_budget) {
		st->end = FXTPROF_USTACK_END_BUDGET;
		return -1;
	}
	st->reads++;
	if (bpf_probe_read_user(dst, size, (const void *)addr)) {
		st->end = FXTPROF_USTACK_END_FAULT;
		return -1;
	}
	return 0;
}

/* The range of @p that holds @pc: the last to start at or below it. */
static __always_inline const struct fxtprof_bpf_unwind_range *
range_of(const struct fxtprof_bpf_unwind_proc *p, __u64 pc)
{
	const struct fxtprof_bpf_unwind_range *r;
	__u32 lo = 0, hi = p->nr, mid, i;

	if (hi > FXTPROF_BPF_UNWIND_MAX_RANGES)
		hi = FXTPROF_BPF_UNWIND_MAX_RANGES;
	if (!hi)
		return NULL;
	for (i = 0; i < FXTPROF_BPF_UNWIND_RANGE_STEPS && lo + 1 < hi; i++) {
		mid = (lo + hi) / 2;
		if (p->r[mid & (FXTPROF_BPF_UNWIND_MAX_RANGES - 1)].start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	r = &p->r[lo & (FXTPROF_BPF_UNWIND_MAX_RANGES - 1)];
	return r->start <= pc && pc < r->end ? r : NULL;
}

static __always_inline const struct fxtprof_unwind_row *row_at(__u32 idx)
{
	const struct fxtprof_bpf_unwind_rows *e;
	__u32 key = idx / FXTPROF_BPF_UNWIND_ROWS_PER_ELEM;

	e = bpf_map_lookup_elem(&unwind_rows, &key);
	return e ? &e->r[idx & (FXTPROF_BPF_UNWIND_ROWS_PER_ELEM - 1)] : NULL;
}

/* Table @id's row for file address @rel, the last at or below it. */
static __always_inline int row_of(__u32 id, __u64 rel,
				  struct fxtprof_unwind_row *row)
{
	const struct fxtprof_bpf_unwind_table *t;
	const struct fxtprof_unwind_row *r;
	__u32 lo = 0, hi, mid, first, i;

	t = bpf_map_lookup_elem(&unwind_tables, &id);
	if (!t || !t->nr_rows || rel >= t->pc_end)
		return -1;
	first = t->first;
	hi = t->nr_rows;
	for (i = 0; i < FXTPROF_BPF_UNWIND_ROW_STEPS && lo + 1 < hi; i++) {
		mid = lo + (hi - lo) / 2;
		r = row_at(first + mid);
		if (!r)
			return -1;
		if (r->pc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	r = row_at(first + lo);
	if (!r || r->pc > rel)
		return -1;
	*row = *r;
	return 0;
}

/*
 * One frame: find the caller of st->pc and push it.  A bpf_loop()
 * callback: 0 goes on, 1 stops with st->end set.
 */
static long unwind_step(__u32 i, void *ctx)
{
	__u32 key = FXTPROF_BPF_SCRATCH_SAMPLE, zero = 0, tgid;
	const struct fxtprof_bpf_unwind_range *range = NULL;
	const struct fxtprof_bpf_unwind_proc *proc;
	struct fxtprof_unwind_row row;
	struct fxtprof_sample *s;
	struct ustack_walk *st;
	__u64 pc, cfa, ra, fp, frame[2], idx;
	enum ustack_frame_kind kind = FRAME_FP;

	st = bpf_map_lookup_elem(&unwind_walk, &zero);
	if (!st)
		return 1;
	fp = st->fp;
	tgid = st->tgid;

	/* A caller's pc is a return address: its call is the byte before. */
	pc = st->n > 1 ? st->pc - 1 : st->pc;
	proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
	if (proc)
		range = range_of(proc, pc);
	if (range && !row_of(range->id, pc - range->bias, &row))
		kind = row.cfa_reg == FXTPROF_UNWIND_CFA_NONE ? FRAME_RULE :
		       FRAME_TABLE;

	if (kind == FRAME_TABLE) {
		if (row.flags & FXTPROF_UNWIND_ROW_OUTERMOST) {
			st->end = FXTPROF_USTACK_END_COMPLETE;
			return 1;
		}
		cfa = (row.cfa_reg == FXTPROF_UNWIND_CFA_SP ? st->sp : st->fp) +
		      (__s64)row.cfa_offset;
		if (row.flags & FXTPROF_UNWIND_ROW_RA_IN_LR) {
			/* Only the interrupted frame has its lr. */
			if (st->n > 1) {
				st->end = FXTPROF_USTACK_END_RA_IN_LR;
				return 1;
			}
			ra = st->lr;
		} else if (read_user(st, &ra, 8, cfa + (__s64)row.ra_offset)) {
			return 1;
		}
		if ((row.flags & FXTPROF_UNWIND_ROW_FP_SAVED) &&
		    read_user(st, &fp, 8, cfa + (__s64)row.fp_offset))
			return 1;
		/* The caller's frame lies above; only a leaf may share sp. */
		if (cfa < st->sp || (cfa == st->sp && st->n > 1)) {
			st->end = FXTPROF_USTACK_END_BAD_FRAME;
			return 1;
		}
	} else {
		/* One frame-pointer step: the record {fp, ra} at fp. */
		if (!st->fp || st->fp < st->sp || (st->fp & 7)) {
			st->end = FXTPROF_USTACK_END_FP_CHAIN;
			return 1;
		}
		if (read_user(st, frame, sizeof(frame), st->fp))
			return 1;
		fp = frame[0];
		ra = frame[1];
		cfa = st->fp + sizeof(frame);
	}
	ra = strip_pac(ra);
	if (!ra) {
		st->end = kind == FRAME_TABLE ? FXTPROF_USTACK_END_BAD_FRAME :
			  FXTPROF_USTACK_END_FP_CHAIN;
		return 1;
	}
	if (st->n >= st->max) {
		st->end = FXTPROF_USTACK_END_DEPTH;
		return 1;
	}
	s = bpf_map_lookup_elem(&scratch, &key);
	idx = st->base + st->n;
	if (!s || idx >= MAX_UIPS)
		return 1;
	s->ips[idx] = ra;
	st->n++;
	if (kind == FRAME_TABLE)
		st->table_frames++;
	else if (kind == FRAME_RULE)
		st->rule_frames++;
	else
		st->fp_frames++;
	st->pc = ra;
	st->sp = cfa;
	st->fp = fp;
	return 0;
}

/*
 * The user registers of the sampled task: the event's when it
 * interrupted user mode, else those saved at its entry to the kernel.
 * 0, or -1 for a task without user registers (a kernel thread).
 */
static __always_inline int user_regs(void *ctx, bool kernel,
				     struct ustack_walk *st, __u64 *mode)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const __u64 *regs;

	if (task->flags & PF_KTHREAD)
		return -1;
	/* Only a perf event interrupts user mode: @ctx is then its. */
	if (!kernel) {
		regs = (const __u64 *)&((struct bpf_perf_event_data *)ctx)->regs;
		st->pc = regs[UREG_PC];
		st->sp = regs[UREG_SP];
		st->fp = regs[UREG_FP];
		st->lr = regs[UREG_LR];
		*mode = regs[UREG_MODE];
		return 0;
	}
	regs = (const __u64 *)bpf_task_pt_regs(task);
	if (bpf_probe_read_kernel(&st->pc, 8, regs + UREG_PC) ||
	    bpf_probe_read_kernel(&st->sp, 8, regs + UREG_SP) ||
	    bpf_probe_read_kernel(&st->fp, 8, regs + UREG_FP) ||
	    bpf_probe_read_kernel(&st->lr, 8, regs + UREG_LR) ||
	    bpf_probe_read_kernel(mode, 8, regs + UREG_MODE))
		return -1;
	return 0;
}

/*
 * Walk the current task's user stack into s->ips[nk ..]: the number of
 * frames; *end says how the stack ended and *flags gets USTACK_TRUNCATED
 * or USTACK_FAULT as the frame-pointer walk sets them.
 */
static __always_inline __u32 unwind_user(void *ctx,
					 struct fxtprof_sample *s, __u32 nk,
					 bool kernel, __u8 *flags, __u8 *end)
{
	struct fxtprof_bpf_unwind_stats *stats;
	struct ustack_walk *st;
	__u32 key = 0, n;
	__u64 mode = 0;

	*end = FXTPROF_USTACK_END_NONE;
	st = bpf_map_lookup_elem(&unwind_walk, &key);
	if (!st)
		return 0;
	__builtin_memset(st, 0, sizeof(*st));
	if (user_regs(ctx, kernel, st, &mode) || nk >= MAX_UIPS ||
	    !ustack_depth)
		return 0;
	s->ips[nk & (MAX_UIPS - 1)] = st->pc;
	st->n = 1;
	if (ureg_compat(mode)) {
		/* 32-bit frames are another layout: the pc is all we give. */
		st->end = FXTPROF_USTACK_END_COMPAT;
	} else {
		st->base = nk;
		st->max = ustack_depth;
		st->tgid = bpf_get_current_pid_tgid() >> 32;
		bpf_loop(ustack_depth, unwind_step, NULL, 0);
		/* ustack_depth frames taken and none left to find */
		if (!st->end)
			st->end = FXTPROF_USTACK_END_DEPTH;
	}
	if (st->end == FXTPROF_USTACK_END_DEPTH)
		*flags |= FXTPROF_SAMPLE_USTACK_TRUNCATED;
	if (st->end == FXTPROF_USTACK_END_FAULT)
		*flags |= FXTPROF_SAMPLE_USTACK_FAULT;
	*end = st->end;

	stats = bpf_map_lookup_elem(&unwind_stats, &key);
	if (stats) {
		stats->table_frames += st->table_frames;
		stats->fp_frames += st->fp_frames;
		stats->rule_frames += st->rule_frames;
		stats->ustack_faults += st->end == FXTPROF_USTACK_END_FAULT;
		stats->ustack_ends[st->end & (FXTPROF_USTACK_END_SLOTS - 1)]++;
	}
	n = st->n;
	return n;
}

#endif /* FXTPROF_UNWIND_BPF_H */
