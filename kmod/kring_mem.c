// SPDX-License-Identifier: GPL-2.0-only
/*
 * kring_mem.c - the memory of the per-CPU rings and their wakeup.
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
 * record at the wrap point.  The producer itself is kmod/kring.c.
 */

#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "kring.h"

#define FXTPROF_META_PAGES	2

static void fxtprof_kring_wakeup(struct irq_work *work)
{
	struct fxtprof_kring *ring = container_of(work, struct fxtprof_kring,
						  wakeup);

	wake_up_interruptible_poll(ring->wq, EPOLLIN | EPOLLRDNORM);
}

struct fxtprof_kring *fxtprof_kring_alloc(int cpu, u64 size, u64 watermark,
					  struct wait_queue_head *wq)
{
	unsigned int nr_data = size >> PAGE_SHIFT;
	unsigned int nr_pages = FXTPROF_META_PAGES + nr_data;
	struct page **map_pages;
	struct fxtprof_kring *ring;
	unsigned int i;

	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL, cpu_to_node(cpu));
	if (!ring)
		return NULL;

	ring->pages = kvmalloc_array(nr_pages, sizeof(*ring->pages),
				     GFP_KERNEL | __GFP_ZERO);
	if (!ring->pages)
		goto out_free_ring;

	for (i = 0; i < nr_pages; i++) {
		/* A large ring takes a while: let a killed caller go. */
		if (fatal_signal_pending(current))
			goto out_free_pages;
		ring->pages[i] = alloc_pages_node(cpu_to_node(cpu),
						  GFP_KERNEL_ACCOUNT | __GFP_ZERO |
						  __GFP_NORETRY | __GFP_NOWARN, 0);
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
	init_irq_work(&ring->wakeup, fxtprof_kring_wakeup);

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

/*
 * The page at @pgoff of the ring's mapping (the layout above), or NULL
 * past its end: the reader's mapping takes its pages from here as it
 * touches them (kmod/main.c, fxtprof_vm_fault()).
 */
struct page *fxtprof_kring_page(const struct fxtprof_kring *ring,
				unsigned long pgoff)
{
	const unsigned long nr_data = ring->size >> PAGE_SHIFT;

	if (pgoff >= ring->nr_pages + nr_data)
		return NULL;
	if (pgoff >= ring->nr_pages)
		pgoff -= nr_data;
	return ring->pages[pgoff];
}

void fxtprof_kring_free(struct fxtprof_kring *ring)
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
