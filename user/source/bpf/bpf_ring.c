// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_ring.c - see bpf_ring.h.  The ordering contract, producer left:
 *
 *   bpf_ringbuf_output (kernel)            bpf_ring__drain (us)
 *   reserve: producer_pos += slot,         prod = load_acquire(producer_pos)
 *            header len = size | BUSY      len  = load_acquire(header.len)
 *   copy the record                        stop at BUSY; read the record
 *   commit: xchg(len, len & ~BUSY)         store(consumer_pos), SEQ_CST
 *
 * The consumer store is SEQ_CST, not release: a later load of
 * producer_pos (ours, or the kernel's poll re-check) must not pass it, or
 * a wakeup could be lost (bpf-notes.md 3.2).  Nothing read from the shared
 * pages is trusted beyond what was checked: positions against our own,
 * lengths against what is pending, records by fxtprof_rec__validate().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "bpf_ring.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int corrupt(struct bpf_ring *r, const char *why)
{
	r->why = why;
	return -EPROTO;
}

int bpf_ring__init(struct bpf_ring *r, unsigned long *consumer_pos,
		   const unsigned long *producer_pos, const unsigned char *data,
		   uint64_t size, unsigned int nr_cpus)
{
	uint64_t prod;

	r->why = NULL;
	if (!consumer_pos || !producer_pos || !data || !nr_cpus ||
	    size < 8 || (size & (size - 1)))
		return -EINVAL;
	r->consumer_pos = consumer_pos;
	r->producer_pos = producer_pos;
	r->data = data;
	r->size = size;
	r->mask = size - 1;
	r->nr_cpus = nr_cpus;
	r->cons = __atomic_load_n(consumer_pos, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n(producer_pos, __ATOMIC_ACQUIRE);
	if (prod - r->cons > size || (prod - r->cons) % 8)
		return corrupt(r, "the ring buffer's positions are corrupt");
	return 0;
}

int bpf_ring__drain(struct bpf_ring *r, fxtprof_rec_cb cb, void *ctx,
		    uint64_t busy_wait_ns, unsigned int *bad_cpu)
{
	uint64_t prod, cons = r->cons, deadline = 0;
	int ret = 0, err;

	*bad_cpu = 0;
	prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
	/* More than a ring's worth would read past the double mapping. */
	if (prod - cons > r->size || (prod - cons) % 8)
		return corrupt(r, "the ring buffer's producer position is corrupt");
	while (cons < prod) {
		const uint32_t *hdr = (const void *)(r->data + (cons & r->mask));
		const struct fxtprof_rec_hdr *rec = (const void *)(hdr + 2);
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE), rlen;
		uint64_t slot;

		if (len & BPF_RING_BUSY_BIT) {
			/* While running, its producer commits soon and the
			 * next pass takes it; after stop, wait it out. */
			if (!busy_wait_ns)
				break;
			if (!deadline)
				deadline = now_ns() + busy_wait_ns;
			if (now_ns() > deadline) {
				r->why = "a ring buffer record stayed busy after stop";
				ret = -ETIMEDOUT;
				break;
			}
			sched_yield();
			continue;
		}
		rlen = len & ~(BPF_RING_BUSY_BIT | BPF_RING_DISCARD_BIT);
		slot = ((uint64_t)rlen + BPF_RING_HDR_SZ + 7) & ~7ull;
		if (slot > prod - cons) {
			ret = corrupt(r, "a ring buffer record runs past the "
				      "producer position");
			break;
		}
		if (!(len & BPF_RING_DISCARD_BIT)) {
			/* Every record fxtprof writes is its own length. */
			if (rlen < sizeof(*rec) || rec->size != rlen ||
			    fxtprof_rec__validate(rec, rlen) ||
			    rec->cpu >= r->nr_cpus) {
				*bad_cpu = rlen >= sizeof(*rec) ? rec->cpu : 0;
				ret = corrupt(r, "a corrupt record in the ring "
					      "buffer");
				break;
			}
			err = cb(ctx, rec);
			if (err) {
				cons += slot;
				ret = err < 0 ? err : 0;
				break;
			}
		}
		cons += slot;
	}
	if (cons != r->cons) {
		r->cons = cons;
		__atomic_store_n(r->consumer_pos, cons, __ATOMIC_SEQ_CST);
	}
	return ret;
}
