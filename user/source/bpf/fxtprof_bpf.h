/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fxtprof_bpf.h - what the BPF programs (fxtprof.bpf.c) and their loader
 * (user/source/bpf_source.c) share besides the uapi records: the limits of
 * the object and the per-CPU counter block.  Included by both sides, so
 * only __u64/__u32 types (vmlinux.h or <linux/types.h> provide them).
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

#endif /* FXTPROF_BPF_H */
