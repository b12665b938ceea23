// SPDX-License-Identifier: GPL-2.0-only
/*
 * kring.c - the producer core of the per-CPU rings: reserve, commit, the
 * accounting of drops, and the readiness test poll() makes.
 *
 * This file is built twice: into fxtprof.ko, and for the host ring tests
 * (tests/host/test_ring.c), which run this very code against libfxtprof's
 * consumer (user/lib/ring.c) with the kernel primitives mapped onto C11
 * atomics (tests/host/kshim/).  Keep it to the primitives included below.
 *
 * Positions are free-running u64 byte counts.  The producer owns
 * ctrl->producer_pos (and its private copy ring->head); the reader owns
 * cons->consumer_pos.  Bytes [consumer_pos, producer_pos) are pending.
 * The data is mapped twice back to back (kmod/kring_mem.c), so a record
 * is contiguous at any offset and is never split at the wrap.
 *
 * Ordering, one producer (this CPU) and one reader.  Each barrier has the
 * label of its pair, and user/lib/ring.c uses the same labels:
 *
 *   producer (this file)                    consumer (user/lib/ring.c)
 *   --------------------                    --------------------------
 *   cons = load_acquire(consumer_pos)  (A)  prod = load_acquire(producer_pos) (B)
 *   if (head + size - cons <= size)         read records in [cons, prod)
 *       write the record                    store_release(consumer_pos, new)  (A)
 *       store_release(producer_pos)    (B)
 *
 *   (A) consumer_pos: the reader's loads of the old bytes happen before
 *       the producer, seeing the space free, overwrites them.
 *   (B) producer_pos: a record's bytes are visible before the position
 *       that publishes them.
 *
 * A full ring drops the new record whole.  Drops accumulate in pend_* and
 * the next reserve that has room for both writes a LOST record first, so
 * the reader learns exactly how much is missing and when.
 */

#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/stddef.h>
#include <asm/barrier.h>

#include "kring.h"

static void fxtprof_kring_drop(struct fxtprof_kring *ring, u32 size, u64 now)
{
	if (!ring->pend_records)
		ring->pend_first_ns = now;
	ring->pend_last_ns = now;
	/* GET_STATS reads these from another CPU, hence WRITE_ONCE. */
	WRITE_ONCE(ring->pend_records, ring->pend_records + 1);
	WRITE_ONCE(ring->pend_bytes, ring->pend_bytes + size);
	WRITE_ONCE(ring->lost_records, ring->lost_records + 1);
	WRITE_ONCE(ring->lost_bytes, ring->lost_bytes + size);
	WRITE_ONCE(ring->ctrl->lost_records, ring->lost_records);
	WRITE_ONCE(ring->ctrl->lost_bytes, ring->lost_bytes);
}

/**
 * fxtprof_kring_lose - count a record of @size bytes its producer could not
 * write for want of something other than ring space
 * @ring: the current CPU's ring; interrupts must be disabled
 *
 * It is reported as the ring's own losses are: in the statistics and the
 * next LOST record.
 */
void fxtprof_kring_lose(struct fxtprof_kring *ring, u32 size, u64 now)
{
	fxtprof_kring_drop(ring, size, now);
}

static void fxtprof_kring_account(struct fxtprof_kring *ring, u32 size)
{
	WRITE_ONCE(ring->records, ring->records + 1);
	WRITE_ONCE(ring->bytes, ring->bytes + size);
}

/**
 * fxtprof_kring_reserve - find room for one record of @size bytes
 * @ring: the current CPU's ring; interrupts must be disabled
 * @size: record size, a multiple of FXTPROF_REC_ALIGN
 * @type: record type, written into the header
 * @now: CLOCK_BOOTTIME of the record
 *
 * Returns the record, its header filled in, for the caller to complete and
 * pass to fxtprof_kring_commit(); or NULL when the ring is full, in which
 * case the record is already accounted as lost.
 */
void *fxtprof_kring_reserve(struct fxtprof_kring *ring, u32 size, u16 type,
			    u64 now)
{
	u32 lost_size = ring->pend_records ? sizeof(struct fxtprof_lost) : 0;
	struct fxtprof_rec_hdr *hdr;
	u64 cons, used;

	lockdep_assert_irqs_disabled();

	/*
	 * (A) Pairs with the reader's store-release of consumer_pos in
	 * fxtprof_ring__consume(): the reader is done with every byte below
	 * cons.  The value comes from a user-writable page, so it only
	 * decides whether we write; it never chooses where (that is
	 * head & mask, always inside the mapping).
	 */
	cons = smp_load_acquire(&ring->cons->consumer_pos);
	used = ring->head - cons;
	if (used > ring->size || ring->size - used < (u64)size + lost_size) {
		fxtprof_kring_drop(ring, size, now);
		return NULL;
	}

	if (lost_size) {
		struct fxtprof_lost *lost = (void *)(ring->data +
						     (ring->head & ring->mask));

		lost->hdr.size = lost_size;
		lost->hdr.type = FXTPROF_REC_LOST;
		lost->hdr.cpu = ring->cpu;
		lost->hdr.time_ns = now;
		lost->records = ring->pend_records;
		lost->bytes = ring->pend_bytes;
		lost->first_ns = ring->pend_first_ns;
		lost->last_ns = ring->pend_last_ns;
		ring->head += lost_size;
		WRITE_ONCE(ring->pend_records, 0);
		WRITE_ONCE(ring->pend_bytes, 0);
		fxtprof_kring_account(ring, lost_size);
	}

	hdr = (void *)(ring->data + (ring->head & ring->mask));
	hdr->size = size;
	hdr->type = type;
	hdr->cpu = ring->cpu;
	hdr->time_ns = now;
	return hdr;
}

/**
 * fxtprof_kring_commit - publish the record from the last reserve
 * @ring: the ring passed to fxtprof_kring_reserve(), interrupts still disabled
 * @size: the size passed to fxtprof_kring_reserve(), or less: a producer
 *	  that reserved room for its largest record commits what it
 *	  filled, having set the header's size to it
 *
 * Publishes a LOST record written by the reserve together with the record.
 */
void fxtprof_kring_commit(struct fxtprof_kring *ring, u32 size)
{
	/* Only decides whether to wake the reader: no ordering needed. */
	u64 cons = READ_ONCE(ring->cons->consumer_pos);
	u64 old_used = ring->ctrl->producer_pos - cons;

	ring->head += size;
	fxtprof_kring_account(ring, size);
	/*
	 * (B) Pairs with the reader's load-acquire of producer_pos in
	 * fxtprof_ring__peek(): the record, and a LOST record before it,
	 * are written before the position that covers them is visible.
	 */
	smp_store_release(&ring->ctrl->producer_pos, ring->head);

	/*
	 * Wake the reader when the ring crosses the watermark, not on every
	 * record above it: a reader that is behind drains on its own timer.
	 * Through irq_work, so the wait queue's lock is never taken from the
	 * timer or a tracepoint probe.
	 */
	if (old_used < ring->watermark && ring->head - cons >= ring->watermark)
		irq_work_queue(&ring->wakeup);
}

/**
 * fxtprof_kring_mark_drain - ask the reader for everything committed so far
 * @ring: a ring no producer can enter meanwhile: its own CPU with
 *	  interrupts disabled, or any CPU once the producers are stopped
 *
 * Until the reader has consumed up to the current producer position,
 * fxtprof_kring_readable() is true whatever the watermark.  The caller
 * wakes the wait queue afterwards; the wakeup orders this store before the
 * poller's re-check.
 */
void fxtprof_kring_mark_drain(struct fxtprof_kring *ring)
{
	WRITE_ONCE(ring->drain_pos, ring->head);
}

/**
 * fxtprof_kring_readable - does the reader have work on this ring?
 * @ring: any ring, from any context
 *
 * True when a watermark's worth is pending, or when the reader has not yet
 * consumed what the last stop or flush asked for.  A pure comparison of
 * published positions: it changes nothing, so every caller gets the same
 * answer for the same positions.  A garbage consumer_pos makes the ring
 * look more than full, so it reads as readable.  Plain READ_ONCE()s: the
 * answer only decides whether poll() reports EPOLLIN, and the reader
 * re-reads the positions with (B) before it reads a record.
 */
bool fxtprof_kring_readable(const struct fxtprof_kring *ring)
{
	u64 cons = READ_ONCE(ring->cons->consumer_pos);
	u64 prod = READ_ONCE(ring->ctrl->producer_pos);
	u64 drain = READ_ONCE(ring->drain_pos);

	return prod - cons >= ring->watermark || (s64)(drain - cons) > 0;
}

void fxtprof_kring_stats(const struct fxtprof_kring *ring,
			 struct fxtprof_stats *st)
{
	unsigned int i;

	st->records = READ_ONCE(ring->records);
	st->bytes = READ_ONCE(ring->bytes);
	st->samples = READ_ONCE(ring->samples);
	st->lost_records = READ_ONCE(ring->lost_records);
	st->lost_bytes = READ_ONCE(ring->lost_bytes);
	st->lost_unreported = READ_ONCE(ring->pend_records);
	st->lost_unreported_bytes = READ_ONCE(ring->pend_bytes);
	st->timer_overruns = READ_ONCE(ring->timer_overruns);
	st->handler_ns = READ_ONCE(ring->handler_ns);
	st->handler_calls = READ_ONCE(ring->handler_calls);
	st->ustack_faults = READ_ONCE(ring->ustack_faults);
	st->unwind_table_frames = READ_ONCE(ring->unwind_table_frames);
	st->unwind_fp_frames = READ_ONCE(ring->unwind_fp_frames);
	st->unwind_rule_frames = READ_ONCE(ring->unwind_rule_frames);
	for (i = 0; i < FXTPROF_USTACK_END_SLOTS; i++)
		st->ustack_ends[i] = READ_ONCE(ring->ustack_ends[i]);
}
