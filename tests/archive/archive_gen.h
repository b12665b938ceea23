/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_gen.h - the recording of tests/pipeline/synthetic_recording.h
 * driven through the real pipeline for the archive's tests (stream state,
 * FXT encoder, a sink opened on a URI and flushed every 100 ms turn):
 * sampling at @period_ns, tid 200 forked at 1.5 s and gone at 2.5 s,
 * kernel frames on every other sample named through the stand-in kernel
 * symbol lookup, and CPU 1's ring losing 7 records at 2 s and 5 at 3 s.
 */
#ifndef FXTPROF_ARCHIVE_GEN_H
#define FXTPROF_ARCHIVE_GEN_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "encode/fxt_encoder.h"
#include "sink/sink.h"
#include "state/stream_state.h"
#include "synthetic_recording.h"

#define GEN_NS		SYNTH_NS
#define GEN_TURN_NS	SYNTH_TURN_NS
#define GEN_NCPU	SYNTH_NCPU

struct gen {
	struct sink *sink;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct synth synth;
	uint64_t samples;
};

static inline int gen_open(struct gen *g, const char *uri,
			   const struct sink_opts *so, uint64_t period_ns)
{
	char err[256];
	int ret;

	memset(g, 0, sizeof(*g));
	ret = sink__open(&g->sink, uri, NULL, so, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	ret = fxt_encoder__new(&g->enc, g->sink);
	if (ret)
		return ret;
	stream_state__init(&g->st, fxt_encoder__encoder(g->enc), g->sink);
	stream_state__set_ksym_lookup(&g->st, synth_ksym_lookup, NULL);
	synth_init(&g->synth, &g->st, &(struct synth_opts){
		.period_ns = period_ns,
		.born_ns = GEN_NS + GEN_NS / 2,
		.gone_ns = 2 * GEN_NS + GEN_NS / 2,
		.kernel_frames = true,
		.lost = true,
		.flush_sink = g->sink,
	});
	return stream_state__sync(&g->st);
}

/* Flush-close; 0 if the sink is complete. */
static inline int gen_close(struct gen *g)
{
	int ret;

	sink__flush_close(g->sink);
	ret = sink__done(g->sink) && sink__complete(g->sink) ? 0 : -EIO;
	stream_state__fini(&g->st);
	fxt_encoder__free(g->enc);
	sink__close(g->sink);
	return ret;
}

static inline void gen_feed(struct gen *g, const void *rec)
{
	synth_feed(&g->synth, rec);
}

static inline void gen_mmap(struct gen *g, uint64_t ts, unsigned int n)
{
	synth_mmap(&g->synth, ts, n);
}

/* Generate from 1 s on, up to @until; the sink is flushed every turn. */
static inline void gen_run(struct gen *g, uint64_t until)
{
	synth_run(&g->synth, until);
	g->samples = g->synth.samples;
}

#endif /* FXTPROF_ARCHIVE_GEN_H */
