/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile_annot.h - the application annotations of a loaded recording:
 * the regions, Kokkos kernels and sections that threads declared
 * (Documentation/fxt-mapping.md, "Annotations"), as intervals, and for
 * every sample the intervals it was taken in on its own thread.
 *
 * FXT form, all on the annotating thread, at the annotation's time:
 *  - region:  duration begin/end, category "region", nested per thread;
 *  - kernel:  duration begin/end, category "kernel", argument kernel_id;
 *  - section: async begin/end, category "section", correlation id = key;
 *  - event:   instant, category "event" (only counted here).
 * Regions and kernels share the thread's duration stack, as Perfetto
 * draws them: an end closes the innermost open interval of its kind and
 * name, and whatever is still open inside it (its end was lost).
 * Sections pair by (process, key), so one may end on another thread; it
 * holds the samples of the thread that began it.  An end with nothing
 * to close is ignored and counted; a begin still open when the recording
 * ends lasts to its end (end UINT64_MAX).
 */
#ifndef FXTPROF_PROFILE_ANNOT_H
#define FXTPROF_PROFILE_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile_annots;
struct profile_sample;
struct fxt_record;

enum profile_annot_kind {
	PROFILE_ANNOT_REGION,
	PROFILE_ANNOT_KERNEL,
	PROFILE_ANNOT_SECTION,
	PROFILE_ANNOT__NR,
};

/* One interval: [begin, end) in ns, CLOCK_BOOTTIME like the samples. */
struct profile_annot {
	const char *name;		/* owned by the profile */
	uint64_t begin, end;		/* end UINT64_MAX: open at the end */
	uint64_t id;			/* section key, kernel_id; else 0 */
	uint32_t pid, tid;		/* the thread that began it */
	uint32_t parent;		/* regions, kernels: enclosing + 1 */
	uint16_t depth;			/* regions, kernels: 0 outermost */
	uint8_t kind;			/* enum profile_annot_kind */
};

struct profile_annot_stats {
	uint64_t by_kind[PROFILE_ANNOT__NR];	/* intervals */
	uint64_t events;		/* instants of category "event" */
	uint64_t unmatched_ends;	/* ends with nothing open: ignored */
	uint64_t open_at_end;		/* begins never ended: to the end */
	uint64_t closed_by_outer;	/* still open when an outer one ended */
	uint64_t section_rebegun;	/* begin of an open key: ignored */
};

size_t profile_annots__nr(const struct profile_annots *a);
const struct profile_annot *profile_annots__get(const struct profile_annots *a,
						size_t i);
void profile_annots__stats(const struct profile_annots *a,
			   struct profile_annot_stats *st);
/*
 * The intervals sample i (profile__sample() order) was taken in, on its
 * thread: the regions and kernels outermost first, then the sections by
 * begin.  Returns how many there are; at most max are stored in out.
 */
unsigned int profile_annots__of_sample(const struct profile_annots *a,
				       size_t i,
				       const struct profile_annot **out,
				       unsigned int max);

/* ---- for the loader (user/profile/profile.c) ------------------------ */

int profile_annots__new(struct profile_annots **out);
void profile_annots__free(struct profile_annots *a);
/* 1 if event record rec is an annotation (then pass it to _add), else 0. */
int profile_annots__is_annotation(const struct fxt_record *rec);
/*
 * Keep annotation rec, at ts ns, file position seq, with its name
 * already interned by the loader.  0 or -ENOMEM.
 */
int profile_annots__add(struct profile_annots *a, const struct fxt_record *rec,
			uint64_t ts, uint64_t seq, const char *name);
/*
 * The loader's samples, sorted by time: sample i is at
 * (char *)first + i * stride (within the loader's own records).
 */
struct profile_annot_samples {
	const struct profile_sample *first;
	size_t stride, nr;
};
/*
 * Once the samples are sorted: build the intervals and each sample's
 * context.  0 or -ENOMEM.
 */
int profile_annots__index(struct profile_annots *a,
			  const struct profile_annot_samples *ss);

#endif /* FXTPROF_PROFILE_ANNOT_H */
