// SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause)
/*
 * ring_sim.c - the module's producer side, in userspace.
 *
 * Memory (one memfd, offsets as the module's mmap offsets of one CPU):
 *
 *   0        consumer page
 *   page     control page
 *   2*page   data, size bytes
 *
 * Two views of control + data, each reserving page + 2*size of address
 * space and mapping the data file range twice with MAP_FIXED:
 *   producer: RW   (writes records contiguously across the wrap)
 *   consumer: RO   (what fxtprof_ring__attach() gets from the module)
 * The consumer page is mapped once, RW, and shared by both sides.
 *
 * The producer half of the contract in ring.c:
 *   (A) smp_load_acquire(consumer_pos) before reusing space, pairs with
 *       the consumer's smp_store_release(consumer_pos) after reading;
 *   (B) smp_store_release(producer_pos) after writing the record, pairs
 *       with the consumer's smp_load_acquire(producer_pos).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libfxtprof_internal.h"
#include "ring_sim.h"

struct fxtprof_ring_sim {
	int memfd;
	size_t page;
	__u64 size;
	__u64 mask;
	__u32 cpu;

	struct fxtprof_ring_consumer *consumer;	/* shared, RW */
	struct fxtprof_ring_ctrl *ctrl;		/* producer view, RW */
	unsigned char *data;			/* producer view, 2 * size */
	void *ro;				/* consumer view, RO */
	size_t view_len;			/* page + 2 * size */

	/* Producer state: only the producer thread touches these. */
	__u64 prod;		/* next free byte; published at commit */
	__u64 cons;		/* last consumer_pos seen: space below is free */
	__u64 open_end;		/* end of the open reservation, 0 if none */
	__u16 open_type;

	/* Loss not yet reported in a LOST record, as the module keeps it. */
	__u64 unrep_records;
	__u64 unrep_bytes;
	__u64 unrep_first_ns;
	__u64 unrep_last_ns;

	struct fxtprof_stats stats;
};

/* Map control + doubled data at a fresh address; NULL on failure. */
static void *map_view(struct fxtprof_ring_sim *sim, int prot)
{
	unsigned char *base, *p;

	base = mmap(NULL, sim->view_len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = mmap(base, sim->page + sim->size, prot, MAP_SHARED | MAP_FIXED,
		 sim->memfd, sim->page);
	if (p == MAP_FAILED)
		goto out_unmap;
	p = mmap(base + sim->page + sim->size, sim->size, prot,
		 MAP_SHARED | MAP_FIXED, sim->memfd, 2 * sim->page);
	if (p == MAP_FAILED)
		goto out_unmap;
	return base;

out_unmap:
	munmap(base, sim->view_len);
	return NULL;
}

int fxtprof_ring_sim__new(__u32 cpu, size_t data_size,
			  struct fxtprof_ring_sim **simp)
{
	struct fxtprof_ring_sim *sim;
	long page = sysconf(_SC_PAGESIZE);
	int err = -ENOMEM;

	*simp = NULL;
	if (page <= 0 || !fxt_is_pow2(data_size) || data_size < (size_t)page ||
	    data_size > SIZE_MAX / 4)
		return -EINVAL;
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	sim->page = page;
	sim->size = data_size;
	sim->mask = data_size - 1;
	sim->cpu = cpu;
	sim->view_len = page + 2 * data_size;
	sim->stats.size = sizeof(sim->stats);
	sim->stats.cpu = cpu;

	sim->memfd = memfd_create("fxtprof-ring-sim", MFD_CLOEXEC);
	if (sim->memfd < 0) {
		err = -errno;
		goto out_free;
	}
	/* memfd pages read as zero: an empty ring, both positions 0. */
	if (ftruncate(sim->memfd, 2 * page + data_size)) {
		err = -errno;
		goto out_close;
	}
	sim->consumer = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
			     sim->memfd, 0);
	if (sim->consumer == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	sim->ctrl = map_view(sim, PROT_READ | PROT_WRITE);
	if (!sim->ctrl)
		goto out_unmap_consumer;
	sim->ro = map_view(sim, PROT_READ);
	if (!sim->ro)
		goto out_unmap_ctrl;
	sim->data = (unsigned char *)sim->ctrl + page;

	sim->ctrl->magic = FXTPROF_RING_MAGIC;
	sim->ctrl->version = FXTPROF_ABI_VERSION;
	sim->ctrl->cpu = cpu;
	sim->ctrl->page_size = page;
	sim->ctrl->data_size = data_size;
	sim->ctrl->data_offset = 2 * page;
	*simp = sim;
	return 0;

out_unmap_ctrl:
	munmap(sim->ctrl, sim->view_len);
out_unmap_consumer:
	munmap(sim->consumer, page);
out_close:
	close(sim->memfd);
out_free:
	free(sim);
	return err;
}

void fxtprof_ring_sim__free(struct fxtprof_ring_sim *sim)
{
	if (!sim)
		return;
	munmap(sim->ro, sim->view_len);
	munmap(sim->ctrl, sim->view_len);
	munmap(sim->consumer, sim->page);
	close(sim->memfd);
	free(sim);
}

int fxtprof_ring_sim__attach(struct fxtprof_ring_sim *sim,
			     struct fxtprof_ring *ring)
{
	return fxtprof_ring__attach(ring, sim->consumer, sim->ro,
				    sim->view_len);
}

/* Count a dropped record, as the module does when a reserve fails. */
static void drop(struct fxtprof_ring_sim *sim, __u32 size, __u64 time_ns)
{
	if (!sim->unrep_records)
		sim->unrep_first_ns = time_ns;
	sim->unrep_last_ns = time_ns;
	sim->unrep_records++;
	sim->unrep_bytes += size;
	sim->stats.lost_records++;
	sim->stats.lost_bytes += size;
	/* Cumulative counters in the control page, for a reader that
	 * wants them without an ioctl.  Plain stores: only this thread
	 * writes them, readers take them as a snapshot. */
	WRITE_ONCE(sim->ctrl->lost_records, sim->stats.lost_records);
	WRITE_ONCE(sim->ctrl->lost_bytes, sim->stats.lost_bytes);
}

/* Does @need more bytes fit at sim->prod? */
static int fits(struct fxtprof_ring_sim *sim, __u64 need)
{
	if (fxt_likely(sim->prod + need - sim->cons <= sim->size))
		return 1;
	/*
	 * (A) Pairs with the consumer's smp_store_release(consumer_pos)
	 * after it read the records: once we see the new position, its
	 * reads are done and the space may be overwritten.  Refreshed only
	 * when the cached position says "full", which keeps the shared
	 * cache line out of the fast path.
	 */
	__u64 cons = smp_load_acquire(&sim->consumer->consumer_pos);

	/* The consumer page is writable by the consumer: trust it only
	 * if it lies within the ring behind us, like the module. */
	if (sim->prod - cons > sim->size)
		return 0;
	sim->cons = cons;
	return sim->prod + need - sim->cons <= sim->size;
}

static void put_hdr(struct fxtprof_ring_sim *sim, __u64 pos, __u16 type,
		    __u32 size, __u64 time_ns)
{
	struct fxtprof_rec_hdr *h = (void *)(sim->data + (pos & sim->mask));

	h->size = size;
	h->type = type;
	h->cpu = sim->cpu;
	h->time_ns = time_ns;
}

void *fxtprof_ring_sim__reserve(struct fxtprof_ring_sim *sim, __u16 type,
				__u32 size, __u64 time_ns)
{
	__u64 need = size;

	if (size < sizeof(struct fxtprof_rec_hdr) || size % FXTPROF_REC_ALIGN ||
	    sim->open_end)
		return NULL;
	if (fxt_unlikely(sim->unrep_records))
		need += sizeof(struct fxtprof_lost);
	/* Whole records or nothing: never a partial one. */
	if (fxt_unlikely(!fits(sim, need))) {
		drop(sim, size, time_ns);
		return NULL;
	}
	if (fxt_unlikely(sim->unrep_records)) {
		struct fxtprof_lost *l = (void *)(sim->data +
						  (sim->prod & sim->mask));

		put_hdr(sim, sim->prod, FXTPROF_REC_LOST, sizeof(*l), time_ns);
		l->records = sim->unrep_records;
		l->bytes = sim->unrep_bytes;
		l->first_ns = sim->unrep_first_ns;
		l->last_ns = sim->unrep_last_ns;
		sim->unrep_records = 0;
		sim->unrep_bytes = 0;
		sim->prod += sizeof(*l);
		sim->stats.records++;
		sim->stats.bytes += sizeof(*l);
	}
	put_hdr(sim, sim->prod, type, size, time_ns);
	sim->open_end = sim->prod + size;
	sim->open_type = type;
	return sim->data + (sim->prod & sim->mask);
}

void fxtprof_ring_sim__commit(struct fxtprof_ring_sim *sim)
{
	if (!sim->open_end)
		return;
	sim->stats.records++;
	sim->stats.bytes += sim->open_end - sim->prod;
	if (sim->open_type == FXTPROF_REC_SAMPLE)
		sim->stats.samples++;
	sim->prod = sim->open_end;
	sim->open_end = 0;
	/*
	 * (B) Pairs with the consumer's smp_load_acquire(producer_pos):
	 * the record (and a LOST record before it) is fully written
	 * before the consumer can see the position that covers it.
	 */
	smp_store_release(&sim->ctrl->producer_pos, sim->prod);
}

int fxtprof_ring_sim__flush(struct fxtprof_ring_sim *sim, __u64 seq,
			    __u64 time_ns)
{
	struct fxtprof_flush_rec *f;

	/* reserve() puts the pending LOST record first. */
	f = fxtprof_ring_sim__reserve(sim, FXTPROF_REC_FLUSH, sizeof(*f),
				      time_ns);
	if (!f)
		return -ENOSPC;
	f->seq = seq;
	fxtprof_ring_sim__commit(sim);
	return 0;
}

void fxtprof_ring_sim__stats(const struct fxtprof_ring_sim *sim,
			     struct fxtprof_stats *stats)
{
	*stats = sim->stats;
	stats->lost_unreported = sim->unrep_records;
}

struct fxtprof_ring_ctrl *fxtprof_ring_sim__ctrl(struct fxtprof_ring_sim *sim)
{
	return sim->ctrl;
}

unsigned char *fxtprof_ring_sim__data(struct fxtprof_ring_sim *sim)
{
	return sim->data;
}

void fxtprof_ring_sim__consumer_view(struct fxtprof_ring_sim *sim,
				     void **consumer_page,
				     const void **ctrl_and_data, size_t *len)
{
	*consumer_page = sim->consumer;
	*ctrl_and_data = sim->ro;
	*len = sim->view_len;
}
