/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof.h - a loaded recording as one gzipped profile.proto
 * (perftools.profiles), the format of `go tool pprof`, speedscope and
 * Perfetto's pprof importer.  Documentation/export.md has the layout.
 */
#ifndef FXTPROF_PPROF_H
#define FXTPROF_PPROF_H

#include "export_stack.h"
#include "pb_writer.h"

/* Which samples a profile holds: those keep(ctx, i) is true for. */
struct pprof_filter {
	bool (*keep)(void *ctx, size_t i);	/* i: profile__sample()'s */
	void *ctx;
};
/*
 * The gzipped profile of the samples of p that f keeps (all if f is NULL),
 * named by s, into out (reset first), with Profile.time_nanos = time_nanos:
 * the wall clock of the first sample, in nanoseconds since the epoch
 * (0: unknown, left out).  0 or -errno: -ENOMEM, a symbolizer error, -EIO
 * if zlib fails.
 */
int pprof__encode_filtered(const struct profile *p, struct symbolizer *s,
			   const struct pprof_filter *f, uint64_t time_nanos,
			   struct pb_buf *out, struct export_stats *st);

/* One recording, for a profile made of two, or of its waits. */
struct pprof_input {
	const struct profile *p;
	struct symbolizer *s;
	const struct pprof_filter *f;	/* or NULL: every sample */
	struct export_stats *st;	/* its own counts */
	bool waits;			/* pprof__encode_waits()'s */
};

/*
 * The off-CPU waits of @in's recording (record --off-cpu) as a profile:
 * values "waits"/count and "off-cpu"/nanoseconds, the time each stack
 * waited; labels state and waker besides pid, tid, cpu, comm.  @in->f's
 * i is profile__wait()'s.  0, -ENODATA when it keeps none, or as
 * pprof__encode_filtered().
 */
int pprof__encode_waits(const struct pprof_input *in, uint64_t time_nanos,
			struct pb_buf *out);

/*
 * A differential profile, as `go tool pprof -diff_base=BASE NEW` builds
 * one: NEW's samples, and BASE's with their values negated and the label
 * pprof::base=true, so that every total is NEW minus BASE.  BASE's values
 * are scaled by NEW's samples / BASE's (*scale), so that recordings of
 * different lengths and rates compare by share, and timed with NEW's
 * period.  0, -ENODATA when either keeps no sample, or as
 * pprof__encode_filtered().
 */
int pprof__encode_diff(const struct pprof_input *new,
		       const struct pprof_input *base, uint64_t time_nanos,
		       struct pb_buf *out, double *scale);

/* Gzip (RFC 1952, zlib's deflate) len bytes of in into out (reset). */
int pprof__gzip(const void *in, size_t len, struct pb_buf *out);

#endif /* FXTPROF_PPROF_H */
