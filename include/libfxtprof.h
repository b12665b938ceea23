/* SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause) */
/*
 * libfxtprof.h - libfxtprof: attach to /dev/fxtprof and consume its rings.
 * The library's public header: it needs nothing but itself and
 * <linux/fxtprof.h>, so it builds from an installed include path
 * (`make install`).
 *
 * One library, used by the tests, the reader and the benchmarks, so the
 * ring protocol is written exactly once.  Conventions (as libbpf/liburing):
 *  - functions are object__method;
 *  - they return 0 (or a count) on success and a negative errno on
 *    failure, and never touch errno for the caller's benefit;
 *  - nothing here allocates or blocks on the consuming fast path.
 *
 * Two objects:
 *  - struct fxtprof_dev: an open device: configure/start/stop/flush/stats
 *    and the per-CPU rings it maps.
 *  - struct fxtprof_ring: one mapped ring, the consumer's side (the
 *    module's side is its own struct fxtprof_kring).  Its fields are
 *    visible only so it can be embedded; treat them as private.
 *
 * Consuming one ring:
 *
 *	const void *p; size_t len;
 *	if (fxtprof_ring__peek(ring, &p, &len) == 0 && len) {
 *		... records in [p, p + len), contiguous even across the wrap ...
 *		fxtprof_ring__consume(ring, len);
 *	}
 *
 * or fxtprof_ring__drain(ring, cb, ctx), which validates every record
 * before handing it to cb.  Each ring has exactly one consumer: the
 * functions on one ring are not thread-safe, different rings are
 * independent.
 */
#ifndef LIBFXTPROF_H
#define LIBFXTPROF_H

#include <stddef.h>
#include <linux/fxtprof.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* One ring                                                            */
/* ------------------------------------------------------------------ */

struct fxtprof_ring {
	/* everything here is private */
	struct fxtprof_ring_consumer *consumer;	/* shared, RW */
	const struct fxtprof_ring_ctrl *ctrl;	/* shared, RO */
	const unsigned char *data;		/* 2 * size bytes, RO */
	__u64 size;				/* validated copy of data_size */
	__u64 mask;
	__u64 cons;	/* our consumer_pos; we are its only writer */
	__u64 flush_seq;	/* of the last FLUSH record drained, 0: none */
	__u32 cpu;	/* validated copy of ctrl->cpu */
};

/*
 * Attach to a ring laid out as in <linux/fxtprof.h>.
 * @consumer_page: the RW consumer page.
 * @ctrl_and_data: control page followed by the data mapped twice.
 * @len: bytes mapped at @ctrl_and_data.
 * The geometry in the control page is untrusted: it is checked (magic,
 * version, power-of-two size, data_offset, @len large enough) before
 * anything reads a record, and never read again afterwards.
 * Returns 0, -EINVAL (bad geometry or short mapping), -EPROTO (bad magic),
 * -EPROTONOSUPPORT (other ABI version) or -EPROTO if the positions are
 * already inconsistent.
 */
int fxtprof_ring__attach(struct fxtprof_ring *ring, void *consumer_page,
			 const void *ctrl_and_data, size_t len);

/*
 * The contiguous span of pending bytes, [*data, *data + *len); *len may be
 * 0.  Returns 0, or -EPROTO if the producer position is impossible.
 */
int fxtprof_ring__peek(struct fxtprof_ring *ring, const void **data,
		       size_t *len);

/* Give back @len bytes (whole records) of what peek returned. */
void fxtprof_ring__consume(struct fxtprof_ring *ring, size_t len);

/* Pending bytes right now (a hint: the producer keeps going). */
size_t fxtprof_ring__pending(const struct fxtprof_ring *ring);

static inline __u32 fxtprof_ring__cpu(const struct fxtprof_ring *ring)
{
	return ring->cpu;
}

static inline __u64 fxtprof_ring__size(const struct fxtprof_ring *ring)
{
	return ring->size;
}

/*
 * The sequence number of the last FLUSH record fxtprof_ring__drain()
 * handed out (0 before the first): the reader has consumed everything
 * committed on this CPU before that flush.
 */
static inline __u64 fxtprof_ring__flush_seq(const struct fxtprof_ring *ring)
{
	return ring->flush_seq;
}

/*
 * Called for each record by fxtprof_ring__drain().  @rec has passed
 * fxtprof_rec__validate(); it points into the ring and stays valid only
 * until the callback returns.  Return 0 to go on; nonzero stops the drain
 * after this record (which counts as consumed); a negative value is
 * returned by fxtprof_ring__drain().
 */
typedef int (*fxtprof_rec_cb)(void *ctx, const struct fxtprof_rec_hdr *rec);

/*
 * Hand every record pending at the time of the call to @cb, then consume
 * them.  Bounded: records committed during the walk wait for the next
 * call.  Returns the number of records handed to @cb, the callback's
 * negative return, or -EPROTO for a corrupt ring (nothing past the bad
 * record is consumed; the ring stays unusable).
 */
int fxtprof_ring__drain(struct fxtprof_ring *ring, fxtprof_rec_cb cb,
			void *ctx);

/*
 * Check one record: @avail bytes are readable at @rec.  Size >= 16,
 * multiple of 8, <= @avail, known type, at least the type's struct,
 * sample stack counts, a sample's stack copy (registers and stack bytes)
 * and exec filename inside the record.
 * Returns 0 or -EPROTO.
 */
int fxtprof_rec__validate(const struct fxtprof_rec_hdr *rec, size_t avail);

/*
 * The stack copy of a validated sample (ABI 6, FXTPROF_CFG_STACK_COPY),
 * NULL if it has none: 8 + 8 * nr_regs + size bytes, inside the record.
 */
static inline const struct fxtprof_stack_copy *
fxtprof_sample__stack_copy(const struct fxtprof_sample *s)
{
	if (!(s->flags & FXTPROF_SAMPLE_STACK_COPY))
		return NULL;
	/* A cast C++ takes too: the header is installed for both. */
	return (const struct fxtprof_stack_copy *)
		&s->ips[(__u32)s->nr_kernel + s->nr_user];
}

/* The wait after an OFFCPU record's ips[] (its size checked by the drain). */
static inline const struct fxtprof_offcpu *
fxtprof_sample__offcpu(const struct fxtprof_sample *s)
{
	return (const struct fxtprof_offcpu *)
		&s->ips[(__u32)s->nr_kernel + s->nr_user];
}

/* ------------------------------------------------------------------ */
/* The device                                                          */
/* ------------------------------------------------------------------ */

struct fxtprof_dev;

/*
 * Open @path (NULL: FXTPROF_DEVICE) and read its info.  If the device is
 * already configured, its rings are mapped too.
 */
int fxtprof_dev__open(const char *path, struct fxtprof_dev **devp);
/* Unmap every ring and close; NULL is fine. */
void fxtprof_dev__close(struct fxtprof_dev *dev);
int fxtprof_dev__fd(const struct fxtprof_dev *dev);
/* Cached info, refreshed by configure, start and stop. */
const struct fxtprof_info *fxtprof_dev__info(const struct fxtprof_dev *dev);
/* Re-read the info from the module. */
int fxtprof_dev__refresh(struct fxtprof_dev *dev);

/*
 * Unmap the old rings, configure, map the ring of every CPU that has
 * one and attach to them (FXTPROF_IOC_ATTACH, which START needs).  A
 * failed configure leaves the earlier configuration (and its mappings and
 * attachment) in place.  -EBUSY while running.
 */
int fxtprof_dev__configure(struct fxtprof_dev *dev,
			   const struct fxtprof_config *cfg);
int fxtprof_dev__start(struct fxtprof_dev *dev);
int fxtprof_dev__stop(struct fxtprof_dev *dev);
/*
 * FXTPROF_IOC_FLUSH; *seq (may be NULL) gets the marker's sequence.  The
 * flush is complete once fxtprof_dev__flush_done() says so: drain the
 * rings (fxtprof_ring__drain()) until then.
 */
int fxtprof_dev__flush(struct fxtprof_dev *dev, __u64 *seq);
/*
 * 1 when every ring has been drained past the FLUSH marker of @seq (or of
 * a later flush), 0 while some ring has not.  A ring too full to take the
 * marker (the module counts it lost) is complete once drained past where
 * its producer was when the flush returned, for the last flush made
 * through @dev.
 */
int fxtprof_dev__flush_done(const struct fxtprof_dev *dev, __u64 seq);
/*
 * FXTPROF_IOC_DETACH: stop, write a last FLUSH and give the device up for
 * a new session.  The rings stay mapped and readable: drain them until
 * empty, then fxtprof_dev__close().  Afterwards only info, stats and the
 * rings work.
 */
int fxtprof_dev__detach(struct fxtprof_dev *dev);
/*
 * FXTPROF_IOC_SYNC: returns once the module has processed every earlier
 * request of this session; *requests (may be NULL) gets their count.
 */
int fxtprof_dev__sync(struct fxtprof_dev *dev, __u64 *requests);
int fxtprof_dev__stats(struct fxtprof_dev *dev, __u32 cpu,
		       struct fxtprof_stats *stats);
/*
 * Data source @index (0 .. info.nr_sources - 1): FXTPROF_IOC_GET_SOURCE,
 * name and description NUL terminated.  -ENOENT past the last one.
 */
int fxtprof_dev__source(struct fxtprof_dev *dev, __u32 index,
			struct fxtprof_source *src);
/* The first @max data sources into @tab: their number, or -errno. */
int fxtprof_dev__sources(struct fxtprof_dev *dev, struct fxtprof_source *tab,
			 unsigned int max);

/*
 * FXTPROF_IOC_UNWIND_LOAD (ABI 5): give the session the unwind table of
 * @t (size is filled in).  On 0 and on -EEXIST (the build id has a table
 * already), @t->id is the table's.  -EINVAL for a bad table, -ENOSPC past
 * the configuration's unwind_memory, -EBUSY without FXTPROF_CFG_UNWIND.
 */
int fxtprof_dev__unwind_load(struct fxtprof_dev *dev,
			     struct fxtprof_unwind_table *t);
/*
 * FXTPROF_IOC_UNWIND_MAP (ABI 5): @m->pid's [start, end) runs table
 * @m->id at @m->bias, or (id 0) has no table.  Errors as the ioctl's.
 */
int fxtprof_dev__unwind_map(struct fxtprof_dev *dev,
			    const struct fxtprof_unwind_map *m);
/*
 * FXTPROF_IOC_UNWIND_UNLOAD (ABI 7): drop table @id, which no range runs
 * any more.  -ENOENT for no such table, -ENOTEMPTY while a range runs it.
 */
int fxtprof_dev__unwind_unload(struct fxtprof_dev *dev, __u32 id);
/*
 * FXTPROF_IOC_KSYM (ABI 8): the kernel symbol holding @addr into @q
 * (zeroed, size filled in): its start, length and name.  -ENOENT where
 * no symbol holds it, -EPERM without CAP_SYSLOG.
 */
int fxtprof_dev__ksym(struct fxtprof_dev *dev, __u64 addr,
		      struct fxtprof_ksym_query *q);

/* Ring ids are 0 .. nr_rings - 1 (0 before configure). */
unsigned int fxtprof_dev__nr_rings(const struct fxtprof_dev *dev);
/* The ring of @cpu, or NULL if that CPU has none (or out of range). */
struct fxtprof_ring *fxtprof_dev__ring(struct fxtprof_dev *dev, __u32 cpu);

#ifdef __cplusplus
}
#endif

#endif /* LIBFXTPROF_H */
