/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_ring.h - consuming a BPF ring buffer (BPF_MAP_TYPE_RINGBUF) whose
 * records are fxtprof uapi records, validating each before handing it on.
 *
 * The layout is the kernel's (kernel/bpf/ringbuf.c): a consumer page the
 * reader writes (consumer_pos), a producer page (producer_pos) and the
 * data, mapped twice back to back so that every record is contiguous.
 * Each record is preceded by an 8-byte header { u32 len; u32 pg_off; }
 * whose len carries BUSY (bit 31, still being written) and DISCARD (bit
 * 30); a slot is round_up(len + 8, 8) bytes.  Kept apart from the loader
 * so the host tests can drive it over a simulated ring.
 */
#ifndef FXTPROF_BPF_RING_H
#define FXTPROF_BPF_RING_H

#include <stdint.h>

#include <libfxtprof.h>

#define BPF_RING_BUSY_BIT	(1u << 31)
#define BPF_RING_DISCARD_BIT	(1u << 30)
#define BPF_RING_HDR_SZ		8

struct bpf_ring {
	unsigned long *consumer_pos;		/* shared, we write it */
	const unsigned long *producer_pos;	/* shared, read only */
	const unsigned char *data;		/* size bytes, mapped twice */
	uint64_t size, mask;
	uint64_t cons;				/* our own consumer position */
	unsigned int nr_cpus;			/* records' cpu must be below */
	const char *why;			/* the last failure, or NULL */
};

/*
 * Attach to a mapped ring of @size data bytes (a power of two); records'
 * cpu must be below @nr_cpus.  0, or -EINVAL/-EPROTO.
 */
int bpf_ring__init(struct bpf_ring *r, unsigned long *consumer_pos,
		   const unsigned long *producer_pos, const unsigned char *data,
		   uint64_t size, unsigned int nr_cpus);

/*
 * Hand every committed record, in ring order, to @cb, and release their
 * space.  A record still being written ends the pass, unless @busy_wait_ns
 * is non-zero (after stop): it is then waited for that long.  Returns 0,
 * @cb's negative return, -ETIMEDOUT, or -EPROTO for a corrupt ring with
 * r->why saying what and *bad_cpu the record's cpu (or 0).
 */
int bpf_ring__drain(struct bpf_ring *r, fxtprof_rec_cb cb, void *ctx,
		    uint64_t busy_wait_ns, unsigned int *bad_cpu);

#endif /* FXTPROF_BPF_RING_H */
