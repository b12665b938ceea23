/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kring.h - the producer side of one CPU's ring (struct fxtprof_kring):
 * the state kmod/kring.c reserves and commits records with.
 *
 * kmod/kring.c is compiled twice: into fxtprof.ko, and on the host by the
 * ring tests (tests/host/build.mk), against a shim of the few kernel
 * primitives it uses (tests/host/kshim/).  So this header and kring.c
 * include nothing beyond those primitives: allocation and mapping live in
 * kmod/kring_mem.c, which only the module builds.
 *
 * The consumer's view of a ring is a different object, libfxtprof's
 * struct fxtprof_ring (include/libfxtprof.h).
 */
#ifndef _FXTPROF_KRING_H
#define _FXTPROF_KRING_H

#include <linux/irq_work.h>
#include <linux/types.h>
#include <linux/fxtprof.h>

struct page;
struct wait_queue_head;

/*
 * One CPU's ring.  The producer side is only ever entered on the ring's own
 * CPU with interrupts disabled (the sampling hrtimer runs in hard irq, the
 * task probes and the snapshot disable interrupts around their record, the
 * flush runs in an IPI), so a record can never be interleaved with another
 * one: a tracepoint record interrupted by the timer is impossible by
 * construction.  The one exception, flushing an offline CPU's ring from
 * another CPU, happens under cpus_read_lock() while no producer can run.
 */
struct fxtprof_kring {
	struct fxtprof_ring_consumer *cons;	/* user-writable page */
	struct fxtprof_ring_ctrl *ctrl;		/* read-only for the user */
	u8 *data;				/* size bytes, mapped twice */
	void *vaddr;				/* vmap of the whole region */
	struct page **pages;			/* meta pages, then data once */
	unsigned int nr_pages;
	int cpu;
	u64 size;
	u64 mask;
	u64 watermark;
	u64 head;				/* private producer_pos */
	/*
	 * producer_pos at the last stop or flush: poll() reports the ring
	 * readable until the reader has consumed up to here, whatever the
	 * watermark.  Written by fxtprof_kring_mark_drain(), read by poll.
	 */
	u64 drain_pos;

	/* Drops not yet reported by a LOST record. */
	u64 pend_records;
	u64 pend_bytes;
	u64 pend_first_ns;
	u64 pend_last_ns;

	/* Statistics, written by the producer, read by GET_STATS. */
	u64 records;
	u64 bytes;
	u64 samples;
	u64 lost_records;
	u64 lost_bytes;
	u64 timer_overruns;
	u64 handler_ns;
	u64 handler_calls;
	u64 ustack_faults;
	u64 unwind_table_frames;
	u64 unwind_fp_frames;
	u64 unwind_rule_frames;
	u64 ustack_ends[FXTPROF_USTACK_END_SLOTS];

	struct irq_work wakeup;
	struct wait_queue_head *wq;
};

/* kring.c: the producer core, shared with the host tests. */
void *fxtprof_kring_reserve(struct fxtprof_kring *ring, u32 size, u16 type,
			    u64 now);
void fxtprof_kring_commit(struct fxtprof_kring *ring, u32 size);
void fxtprof_kring_lose(struct fxtprof_kring *ring, u32 size, u64 now);
void fxtprof_kring_mark_drain(struct fxtprof_kring *ring);
bool fxtprof_kring_readable(const struct fxtprof_kring *ring);
void fxtprof_kring_stats(const struct fxtprof_kring *ring,
			 struct fxtprof_stats *st);

/* kring_mem.c: memory and wakeups, module only. */
struct fxtprof_kring *fxtprof_kring_alloc(int cpu, u64 size, u64 watermark,
					  struct wait_queue_head *wq);
void fxtprof_kring_free(struct fxtprof_kring *ring);
struct page *fxtprof_kring_page(const struct fxtprof_kring *ring,
				unsigned long pgoff);

#endif /* _FXTPROF_KRING_H */
