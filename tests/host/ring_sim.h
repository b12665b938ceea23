/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_sim.h - one fxtprof ring in userspace, produced by the module's own
 * producer code (kmod/kring.c built for the host).
 *
 * Builds exactly what the module exposes for one CPU (consumer page,
 * control page, data mapped twice back to back, in one memfd) and drives
 * kmod/kring.c on it the way the module's callers do: reserve, fill,
 * commit; FLUSH records as FXTPROF_IOC_FLUSH writes them; the drain mark
 * of stop and flush.  Host tests use it to run libfxtprof's consumer
 * against the real producer without a kernel, benchmarks to feed the
 * reader at rates no timer can reach.
 *
 * One producer thread per sim; the consumer may be another thread.
 */
#ifndef FXTPROF_RING_SIM_H
#define FXTPROF_RING_SIM_H

#include <stdbool.h>
#include <libfxtprof.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fxtprof_ring_sim;

/*
 * A ring for @cpu with @data_size bytes of data (a power of two, at least
 * one page) and the module's default watermark, a quarter of the ring.
 * Returns 0 or -errno.
 */
int fxtprof_ring_sim__new(__u32 cpu, size_t data_size,
			  struct fxtprof_ring_sim **simp);
void fxtprof_ring_sim__free(struct fxtprof_ring_sim *sim);

/* Attach @ring (the consumer side) to the sim's consumer view. */
int fxtprof_ring_sim__attach(struct fxtprof_ring_sim *sim,
			     struct fxtprof_ring *ring);

/*
 * Reserve a record of @size bytes (multiple of 8, >= 16), its header
 * filled in (size, type, cpu, @time_ns).  NULL if it does not fit: the
 * record is then counted as lost.  Exactly one reservation may be open;
 * nothing is visible to the consumer before commit.  Sizes the module
 * never passes (unaligned, shorter than a header) are refused without
 * being counted.
 */
void *fxtprof_ring_sim__reserve(struct fxtprof_ring_sim *sim, __u16 type,
				__u32 size, __u64 time_ns);
/* Publish the open reservation (and the LOST record before it, if any). */
void fxtprof_ring_sim__commit(struct fxtprof_ring_sim *sim);

/* As FXTPROF_IOC_FLUSH on this ring: pending LOST, then a FLUSH record,
 * then the drain mark.  Returns 0 or -ENOSPC (the marker was counted as
 * lost). */
int fxtprof_ring_sim__flush(struct fxtprof_ring_sim *sim, __u64 seq,
			    __u64 time_ns);
/* As FXTPROF_IOC_STOP on this ring, once its producers are stopped. */
void fxtprof_ring_sim__stop(struct fxtprof_ring_sim *sim);

/* What the module's poll() says of this ring (kmod/kring.c). */
bool fxtprof_ring_sim__readable(const struct fxtprof_ring_sim *sim);
/* How often the producer queued its wakeup (a watermark crossing). */
unsigned long fxtprof_ring_sim__wakeups(const struct fxtprof_ring_sim *sim);

/* Counters as FXTPROF_IOC_GET_STATS would return them. */
void fxtprof_ring_sim__stats(const struct fxtprof_ring_sim *sim,
			     struct fxtprof_stats *stats);

/*
 * Raw access for tests that corrupt the ring: the producer's writable
 * view of the control page and the data (mapped twice), and the consumer
 * view as fxtprof_ring__attach() takes it.
 */
struct fxtprof_ring_ctrl *fxtprof_ring_sim__ctrl(struct fxtprof_ring_sim *sim);
unsigned char *fxtprof_ring_sim__data(struct fxtprof_ring_sim *sim);
void fxtprof_ring_sim__consumer_view(struct fxtprof_ring_sim *sim,
				     void **consumer_page,
				     const void **ctrl_and_data, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* FXTPROF_RING_SIM_H */
