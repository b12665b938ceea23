// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_sim.c - the module's producer (kmod/kring.c) on a userspace copy of
 * one CPU's ring memory.
 *
 * Memory (one memfd, offsets as the module's mmap offsets of one CPU):
 *
 *   0        consumer page
 *   page     control page
 *   2*page   data, size bytes
 *
 * Two views of control + data, each reserving page + 2*size of address
 * space and mapping the data file range twice with MAP_FIXED:
 *   producer: RW   (what kmod/kring_mem.c's vmap() is to the module)
 *   consumer: RO   (what fxtprof_ring__attach() gets from the module)
 * The consumer page is mapped once, RW, and shared by both sides.
 *
 * Everything that decides what lands in the ring (fit, drop, LOST, the
 * positions and their barriers, the wakeup, poll's answer) is kring.c's;
 * this file only plays the module's callers: it allocates, and it marks
 * the "interrupts disabled" window the producer asserts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/compiler.h>

#include "kring.h"
#include "ring_sim.h"

/* The producer's lockdep assertion reads this (tests/host/kshim/). */
_Thread_local int kshim_irqs_disabled;

struct fxtprof_ring_sim {
	int memfd;
	size_t page;
	void *ro;		/* consumer view, RO */
	size_t view_len;	/* page + 2 * size */

	struct fxtprof_kring kr;	/* the producer, views in place */
	__u32 open_size;	/* size of the open reservation, 0 if none */
	__u16 open_type;
};

static int is_pow2(__u64 x)
{
	return x && !(x & (x - 1));
}

/* Map control + doubled data at a fresh address; NULL on failure. */
static void *map_view(struct fxtprof_ring_sim *sim, int prot)
{
	unsigned char *base, *p;
	size_t size = sim->kr.size;

	base = mmap(NULL, sim->view_len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = mmap(base, sim->page + size, prot, MAP_SHARED | MAP_FIXED,
		 sim->memfd, sim->page);
	if (p == MAP_FAILED)
		goto out_unmap;
	p = mmap(base + sim->page + size, size, prot,
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
	struct fxtprof_kring *kr;
	long page = sysconf(_SC_PAGESIZE);
	int err = -ENOMEM;

	*simp = NULL;
	if (page <= 0 || !is_pow2(data_size) || data_size < (size_t)page ||
	    data_size > SIZE_MAX / 4)
		return -EINVAL;
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	kr = &sim->kr;
	sim->page = page;
	sim->view_len = page + 2 * data_size;
	/* As kmod/kring_mem.c sets a ring up, with the default watermark. */
	kr->cpu = cpu;
	kr->size = data_size;
	kr->mask = data_size - 1;
	kr->watermark = data_size / 4;

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
	kr->cons = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
			sim->memfd, 0);
	if (kr->cons == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	kr->ctrl = map_view(sim, PROT_READ | PROT_WRITE);
	if (!kr->ctrl)
		goto out_unmap_consumer;
	sim->ro = map_view(sim, PROT_READ);
	if (!sim->ro)
		goto out_unmap_ctrl;
	kr->data = (unsigned char *)kr->ctrl + page;

	kr->ctrl->magic = FXTPROF_RING_MAGIC;
	kr->ctrl->version = FXTPROF_ABI_VERSION;
	kr->ctrl->cpu = cpu;
	kr->ctrl->page_size = page;
	kr->ctrl->data_size = data_size;
	kr->ctrl->data_offset = 2 * page;
	*simp = sim;
	return 0;

out_unmap_ctrl:
	munmap(kr->ctrl, sim->view_len);
out_unmap_consumer:
	munmap(kr->cons, page);
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
	munmap(sim->kr.ctrl, sim->view_len);
	munmap(sim->kr.cons, sim->page);
	close(sim->memfd);
	free(sim);
}

int fxtprof_ring_sim__attach(struct fxtprof_ring_sim *sim,
			     struct fxtprof_ring *ring)
{
	return fxtprof_ring__attach(ring, sim->kr.cons, sim->ro,
				    sim->view_len);
}

void *fxtprof_ring_sim__reserve(struct fxtprof_ring_sim *sim, __u16 type,
				__u32 size, __u64 time_ns)
{
	void *rec;

	if (size < sizeof(struct fxtprof_rec_hdr) || size % FXTPROF_REC_ALIGN ||
	    sim->open_size)
		return NULL;
	/* Every producer in the module holds interrupts off until commit. */
	kshim_irqs_disabled = 1;
	rec = fxtprof_kring_reserve(&sim->kr, size, type, time_ns);
	if (!rec) {
		kshim_irqs_disabled = 0;
		return NULL;
	}
	sim->open_size = size;
	sim->open_type = type;
	return rec;
}

void fxtprof_ring_sim__commit(struct fxtprof_ring_sim *sim)
{
	if (!sim->open_size)
		return;
	fxtprof_kring_commit(&sim->kr, sim->open_size);
	/* kmod/sampler.c counts its samples after the commit. */
	if (sim->open_type == FXTPROF_REC_SAMPLE)
		WRITE_ONCE(sim->kr.samples, sim->kr.samples + 1);
	sim->open_size = 0;
	kshim_irqs_disabled = 0;
}

int fxtprof_ring_sim__flush(struct fxtprof_ring_sim *sim, __u64 seq,
			    __u64 time_ns)
{
	struct fxtprof_flush_rec *f;
	int ret = -ENOSPC;

	/* As kmod/session.c: the reserve puts a pending LOST record first. */
	f = fxtprof_ring_sim__reserve(sim, FXTPROF_REC_FLUSH, sizeof(*f),
				      time_ns);
	if (f) {
		f->seq = seq;
		fxtprof_ring_sim__commit(sim);
		ret = 0;
	}
	/* As kmod/session.c: drained up to here, marker or not. */
	fxtprof_kring_mark_drain(&sim->kr);
	return ret;
}

void fxtprof_ring_sim__stop(struct fxtprof_ring_sim *sim)
{
	fxtprof_kring_mark_drain(&sim->kr);
}

bool fxtprof_ring_sim__readable(const struct fxtprof_ring_sim *sim)
{
	return fxtprof_kring_readable(&sim->kr);
}

unsigned long fxtprof_ring_sim__wakeups(const struct fxtprof_ring_sim *sim)
{
	return sim->kr.wakeup.queued;
}

void fxtprof_ring_sim__stats(const struct fxtprof_ring_sim *sim,
			     struct fxtprof_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->size = sizeof(*stats);
	stats->cpu = sim->kr.cpu;
	fxtprof_kring_stats(&sim->kr, stats);
}

struct fxtprof_ring_ctrl *fxtprof_ring_sim__ctrl(struct fxtprof_ring_sim *sim)
{
	return sim->kr.ctrl;
}

unsigned char *fxtprof_ring_sim__data(struct fxtprof_ring_sim *sim)
{
	return sim->kr.data;
}

void fxtprof_ring_sim__consumer_view(struct fxtprof_ring_sim *sim,
				     void **consumer_page,
				     const void **ctrl_and_data, size_t *len)
{
	*consumer_page = sim->kr.cons;
	*ctrl_and_data = sim->ro;
	*len = sim->view_len;
}
