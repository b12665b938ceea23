/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fxtprof_bpf.h - what the BPF programs (fxtprof.bpf.c) and their loader
 * (user/source/bpf_source.c) share besides the uapi records: the limits of
 * the object, the per-CPU counter block and the unwind maps' layout.
 * Included by both sides after <linux/fxtprof.h>, so only its types and
 * __u64/__u32 (vmlinux.h or <linux/types.h> provide them).
 */
#ifndef FXTPROF_BPF_H
#define FXTPROF_BPF_H

/* CPUs the object has counter slots for: CPU ids must stay below it. */
#define FXTPROF_BPF_MAX_CPUS	1024

/* Scratch slots of the per-CPU scratch array, one per program kind, so a
 * sample interrupting a task program on the same CPU has its own. */
#define FXTPROF_BPF_SCRATCH_SAMPLE	0
#define FXTPROF_BPF_SCRATCH_EXEC	1
#define FXTPROF_BPF_SCRATCH_SLOTS	2
/* Big enough for a sample with two full stacks and for an exec record
 * with the longest filename (plus the byte that detects truncation). */
#define FXTPROF_BPF_SCRATCH_SIZE	2112

/*
 * One CPU's counters, in the object's .bss (mmapped by the loader), on a
 * cache line of its own.  The programs add with atomics (they nest on a
 * CPU: a sample can interrupt a task program); the reader only reads,
 * except ack_lost, the lost_records value it last turned into a LOST
 * record, which tells the programs when a new run of drops begins.
 */
struct fxtprof_bpf_counters {
	__u64 records;		/* records written */
	__u64 bytes;
	__u64 samples;		/* of records, samples */
	__u64 lost_bytes;	/* added before lost_records */
	__u64 lost_records;	/* reserve failures, cumulative */
	__u64 lost_first_ns;	/* first drop after the reader's ack */
	__u64 lost_last_ns;	/* last drop */
	__u64 ack_lost;		/* written by the reader */
};

/*
 * Unwind tables in BPF maps (Documentation/unwinding.md, "The bpf source's
 * walk").  The loader (bpf_unwind.c) writes them, the sampling program
 * (unwind.bpf.h) reads them:
 *
 *   unwind_rows    ARRAY, mmapped by the loader: every table's rows, the
 *                  tables one after the other, two rows an element (24
 *                  bytes: no padding, so the array is the uapi rows as
 *                  they are, and the loader copies them in with memcpy)
 *   unwind_tables  ARRAY indexed by table id: where its rows are
 *   unwind_procs   HASH tgid -> the process's ranges, sorted by start
 */
#define FXTPROF_BPF_UNWIND_ROWS_PER_ELEM	2
#define FXTPROF_BPF_UNWIND_MAX_TABLES	4096	/* ids 1 .. 4095 */
#define FXTPROF_BPF_UNWIND_MAX_RANGES	64	/* per process, a power of 2 */
/* Steps of the binary searches: log2 of FXTPROF_UNWIND_MAX_ROWS + 1, and
 * of FXTPROF_BPF_UNWIND_MAX_RANGES + 1. */
#define FXTPROF_BPF_UNWIND_ROW_STEPS	25
#define FXTPROF_BPF_UNWIND_RANGE_STEPS	7

struct fxtprof_bpf_unwind_rows {
	struct fxtprof_unwind_row r[FXTPROF_BPF_UNWIND_ROWS_PER_ELEM];
};

struct fxtprof_bpf_unwind_table {
	__u32 first;		/* index of its first row in unwind_rows */
	__u32 nr_rows;		/* 0: no such table */
	__u32 pc_end;
};

struct fxtprof_bpf_unwind_range {
	__u64 start;
	__u64 end;
	__u64 bias;		/* file vaddr = pc - bias */
	__u32 id;		/* unwind_tables index */
	__u32 pad;
};

struct fxtprof_bpf_unwind_proc {
	__u32 nr;		/* ranges in use, r[0 .. nr), sorted */
	__u32 pad;
	struct fxtprof_bpf_unwind_range r[FXTPROF_BPF_UNWIND_MAX_RANGES];
};

/*
 * The walk's counters, in a per-CPU array of one element: only the
 * sampling program writes them, and samples do not nest on a CPU.  The
 * same meanings as struct fxtprof_stats' fields of the same names.
 */
struct fxtprof_bpf_unwind_stats {
	__u64 table_frames;
	__u64 fp_frames;
	__u64 rule_frames;
	__u64 ustack_faults;
	__u64 ustack_ends[FXTPROF_USTACK_END_SLOTS];
};

#endif /* FXTPROF_BPF_H */
