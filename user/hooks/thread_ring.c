// SPDX-License-Identifier: GPL-2.0-only
/*
 * thread_ring.c - one producer, one consumer, whole records (thread_ring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "thread_ring.h"

int thread_ring__init(struct thread_ring *r, size_t size)
{
	size_t sz = 4096;

	while (sz < size && sz < ((size_t)1 << 30))
		sz <<= 1;
	memset(r, 0, sizeof(*r));
	/* Pages are touched as the ring fills: an idle thread costs little. */
	r->buf = mmap(NULL, sz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->buf == MAP_FAILED) {
		r->buf = NULL;
		return -errno;
	}
	r->size = sz;
	return 0;
}

void thread_ring__fini(struct thread_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->size);
	r->buf = NULL;
}

static int has_room(struct thread_ring *r, uint64_t tail, size_t need)
{
	if (tail + need - r->cached_head <= r->size)
		return 1;
	r->cached_head = atomic_load_explicit(&r->head, memory_order_acquire);
	return tail + need - r->cached_head <= r->size;
}

void *thread_ring__reserve(struct thread_ring *r, size_t len)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t off = tail & (r->size - 1);
	size_t to_end = r->size - off;

	if (len > r->size / 2)
		return NULL;
	if (len > to_end) {
		struct fxtprof_rec_hdr *skip = (void *)(r->buf + off);

		/* The skip and the record must both fit, or neither goes. */
		if (!has_room(r, tail, to_end + len))
			return NULL;
		skip->size = (uint32_t)to_end;
		skip->type = THREAD_RING_SKIP;
		tail += to_end;
		off = 0;
	} else if (!has_room(r, tail, len)) {
		return NULL;
	}
	r->reserved = tail + len;
	if (tail != atomic_load_explicit(&r->tail, memory_order_relaxed))
		atomic_store_explicit(&r->tail, tail, memory_order_release);
	return r->buf + off;
}

void thread_ring__commit(struct thread_ring *r)
{
	atomic_store_explicit(&r->tail, r->reserved, memory_order_release);
}

unsigned int thread_ring__drain(struct thread_ring *r, thread_ring_cb cb,
				void *ctx)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	unsigned int n = 0;

	while (head < tail) {
		const struct fxtprof_rec_hdr *rec =
			(const void *)(r->buf + (head & (r->size - 1)));

		if (rec->type != THREAD_RING_SKIP) {
			cb(ctx, rec);
			n++;
		}
		head += rec->size;
	}
	atomic_store_explicit(&r->head, head, memory_order_release);
	return n;
}
