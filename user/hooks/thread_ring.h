/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * thread_ring.h - the bounded queue between one application thread (the
 * only producer) and the library's writer thread (the only consumer), in
 * standalone mode.
 *
 * Records (fxtprof ring records, sizes multiples of 8) are written whole
 * and contiguous, so the consumer hands them to the stream state in place.
 * A record that does not fit before the end of the memory is preceded by a
 * skip marker that sends the consumer back to the start.  Positions only
 * grow; the producer owns tail, the consumer head, each published with
 * release and read with acquire, and the producer caches the head it last
 * saw so that a ring with room costs it no shared cache line.  When the
 * ring is full the record is refused: the application never waits.
 */
#ifndef FXTPROF_HOOKS_THREAD_RING_H
#define FXTPROF_HOOKS_THREAD_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtprof.h>

/* A skip marker's type: not an fxtprof record type. */
#define THREAD_RING_SKIP	0xffffu

struct thread_ring {
	unsigned char *buf;
	size_t size;			/* a power of two */

	_Atomic uint64_t head __attribute__((aligned(64)));	/* consumer */
	_Atomic uint64_t tail __attribute__((aligned(64)));	/* producer */
	uint64_t cached_head;		/* producer's view of head */
	uint64_t reserved;		/* producer: the open reservation */
};

/* @size bytes rounded up to a power of two, at least 4096: 0 or -errno. */
int thread_ring__init(struct thread_ring *r, size_t size);
void thread_ring__fini(struct thread_ring *r);

/* Producer: room for @len bytes (multiple of 8), or NULL: full. */
void *thread_ring__reserve(struct thread_ring *r, size_t len);
void thread_ring__commit(struct thread_ring *r);

/*
 * Consumer: call @cb on every record committed so far, in order.
 * Returns how many.
 */
typedef void (*thread_ring_cb)(void *ctx, const struct fxtprof_rec_hdr *rec);
unsigned int thread_ring__drain(struct thread_ring *r, thread_ring_cb cb,
				void *ctx);

#endif /* FXTPROF_HOOKS_THREAD_RING_H */
