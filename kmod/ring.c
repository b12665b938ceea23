// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring.c - the per-CPU single-producer rings that userspace maps.
 *
 * Memory of one ring, as vmap()ed in the kernel and mmap()ed by the reader:
 *
 *   +-----------+-----------+--------------------+--------------------+
 *   | consumer  | control   | data pages         | the same data      |
 *   | page (RW) | page (RO) | size bytes (RO)    | pages again (RO)   |
 *   +-----------+-----------+--------------------+--------------------+
 *
 * Mapping the data twice back to back (as kernel/bpf/ringbuf.c does) makes
 * every record contiguous at any offset, so neither side ever splits a
 * record at the wrap point.
 *
 * Positions are free-running u64 byte counts.  The producer owns
 * ctrl->producer_pos (and its private copy ring->head); the reader owns
 * cons->consumer_pos.  Bytes [consumer_pos, producer_pos) are pending.
 *
 * Ordering contract, one producer (this CPU) and one reader:
 *
 *   producer (kernel)                      reader (user/lib/ring.c)
 *   ------------------                     ------------------------
 *   cons = load_acquire(consumer_pos)  (A) head = load_acquire(producer_pos) (C)
 *   if (head + size - cons <= size)        read records in [tail, head)
 *       write the record                   store_release(consumer_pos, new) (D)
 *       store_release(producer_pos)    (B)
 *
 *   A pairs with D: the reader's loads of the old bytes complete before the
 *   producer sees the space as free and overwrites it.
 *   B pairs with C: the record's bytes are visible before the position that
 *   publishes them.
 *
 * A full ring drops the new record whole.  Drops accumulate in pend_* and
 * the next reserve that has room for both writes a LOST record first, so
 * the reader learns exactly how much is missing and when.
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "fxtprof_module.h"

#define FXTPROF_META_PAGES	2

static void fxtprof_ring_wakeup(struct irq_work *work)
{
	struct fxtprof_ring *ring = container_of(work, struct fxtprof_ring,
						 wakeup);

	wake_up_interruptible_poll(ring->wq, EPOLLIN | EPOLLRDNORM);
}

struct fxtprof_ring *fxtprof_ring_alloc(int cpu, u64 size, u64 watermark,
					wait_queue_head_t *wq)
{
	unsigned int nr_data = size >> PAGE_SHIFT;
	unsigned int nr_pages = FXTPROF_META_PAGES + nr_data;
	struct page **map_pages;
	struct fxtprof_ring *ring;
	unsigned int i;

	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL, cpu_to_node(cpu));
	if (!ring)
		return NULL;

	ring->pages = kvmalloc_array(nr_pages, sizeof(*ring->pages),
				     GFP_KERNEL | __GFP_ZERO);
	if (!ring->pages)
		goto out_free_ring;

	for (i = 0; i < nr_pages; i++) {
		ring->pages[i] = alloc_pages_node(cpu_to_node(cpu),
						  GFP_KERNEL_ACCOUNT | __GFP_ZERO |
						  __GFP_NOWARN, 0);
		if (!ring->pages[i])
			goto out_free_pages;
		ring->nr_pages++;
	}

	/* The data pages appear twice in the kernel mapping too. */
	map_pages = kvmalloc_array(nr_pages + nr_data, sizeof(*map_pages),
				   GFP_KERNEL);
	if (!map_pages)
		goto out_free_pages;
	memcpy(map_pages, ring->pages, nr_pages * sizeof(*map_pages));
	memcpy(map_pages + nr_pages, ring->pages + FXTPROF_META_PAGES,
	       nr_data * sizeof(*map_pages));
	ring->vaddr = vmap(map_pages, nr_pages + nr_data, VM_MAP | VM_USERMAP,
			   PAGE_KERNEL);
	kvfree(map_pages);
	if (!ring->vaddr)
		goto out_free_pages;

	ring->cons = ring->vaddr;
	ring->ctrl = ring->vaddr + PAGE_SIZE;
	ring->data = ring->vaddr + FXTPROF_META_PAGES * PAGE_SIZE;
	ring->cpu = cpu;
	ring->size = size;
	ring->mask = size - 1;
	ring->watermark = watermark;
	ring->wq = wq;
	init_irq_work(&ring->wakeup, fxtprof_ring_wakeup);

	ring->ctrl->magic = FXTPROF_RING_MAGIC;
	ring->ctrl->version = FXTPROF_ABI_VERSION;
	ring->ctrl->cpu = cpu;
	ring->ctrl->page_size = PAGE_SIZE;
	ring->ctrl->data_size = size;
	ring->ctrl->data_offset = FXTPROF_META_PAGES * PAGE_SIZE;
	return ring;

out_free_pages:
	for (i = 0; i < ring->nr_pages; i++)
		__free_page(ring->pages[i]);
	kvfree(ring->pages);
out_free_ring:
	kfree(ring);
	return NULL;
}

void fxtprof_ring_free(struct fxtprof_ring *ring)
{
	unsigned int i;

	if (!ring)
		return;
	/* A wakeup queued by the last commit must not run on freed memory. */
	irq_work_sync(&ring->wakeup);
	vunmap(ring->vaddr);
	for (i = 0; i < ring->nr_pages; i++)
		__free_page(ring->pages[i]);
	kvfree(ring->pages);
	kfree(ring);
}

static void fxtprof_ring_drop(struct fxtprof_ring *ring, u32 size, u64 now)
{
	if (!ring->pend_records)
		ring->pend_first_ns = now;
	ring->pend_last_ns = now;
	ring->pend_records++;
	ring->pend_bytes += size;
	WRITE_ONCE(ring->lost_records, ring->lost_records + 1);
	WRITE_ONCE(ring->lost_bytes, ring->lost_bytes + size);
	WRITE_ONCE(ring->ctrl->lost_records, ring->lost_records);
	WRITE_ONCE(ring->ctrl->lost_bytes, ring->lost_bytes);
}

static void fxtprof_ring_account(struct fxtprof_ring *ring, u32 size)
{
	WRITE_ONCE(ring->records, ring->records + 1);
	WRITE_ONCE(ring->bytes, ring->bytes + size);
}

/**
 * fxtprof_ring_reserve - find room for one record of @size bytes
 * @ring: the current CPU's ring; interrupts must be disabled
 * @size: record size, a multiple of FXTPROF_REC_ALIGN
 * @type: record type, written into the header
 * @now: CLOCK_BOOTTIME of the record
 *
 * Returns the record, its header filled in, for the caller to complete and
 * pass to fxtprof_ring_commit(); or NULL when the ring is full, in which
 * case the record is already accounted as lost.
 */
void *fxtprof_ring_reserve(struct fxtprof_ring *ring, u32 size, u16 type,
			   u64 now)
{
	u32 lost_size = ring->pend_records ? sizeof(struct fxtprof_lost) : 0;
	struct fxtprof_rec_hdr *hdr;
	u64 cons, used;

	lockdep_assert_irqs_disabled();

	/*
	 * (A) Pairs with the reader's store-release of consumer_pos (D): the
	 * reader is done with every byte below cons.  The value comes from a
	 * user-writable page, so it only decides whether we write; it never
	 * chooses where (that is head & mask, always inside the mapping).
	 */
	cons = smp_load_acquire(&ring->cons->consumer_pos);
	used = ring->head - cons;
	if (used > ring->size || ring->size - used < (u64)size + lost_size) {
		fxtprof_ring_drop(ring, size, now);
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
		ring->pend_records = 0;
		ring->pend_bytes = 0;
		fxtprof_ring_account(ring, lost_size);
	}

	hdr = (void *)(ring->data + (ring->head & ring->mask));
	hdr->size = size;
	hdr->type = type;
	hdr->cpu = ring->cpu;
	hdr->time_ns = now;
	return hdr;
}

/**
 * fxtprof_ring_commit - publish the record from the last reserve
 * @ring: the ring passed to fxtprof_ring_reserve(), interrupts still disabled
 * @size: the size passed to fxtprof_ring_reserve()
 *
 * Publishes a LOST record written by the reserve together with the record.
 */
void fxtprof_ring_commit(struct fxtprof_ring *ring, u32 size)
{
	u64 cons = READ_ONCE(ring->cons->consumer_pos);
	u64 old_used = ring->ctrl->producer_pos - cons;

	ring->head += size;
	fxtprof_ring_account(ring, size);
	/* (B) Pairs with the reader's load-acquire of producer_pos (C). */
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

/* Pending bytes; garbage in consumer_pos yields a value > size. */
u64 fxtprof_ring_used(const struct fxtprof_ring *ring)
{
	return READ_ONCE(ring->ctrl->producer_pos) -
	       READ_ONCE(ring->cons->consumer_pos);
}

void fxtprof_ring_stats(const struct fxtprof_ring *ring,
			struct fxtprof_stats *st)
{
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
}
