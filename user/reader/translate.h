/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * translate.h - fxtprof ring records to FXT.
 *
 * Mapping (Documentation/fxt-mapping.md has the full table):
 *  - snapshot, fork, exec, rename: kernel objects naming the process
 *    (tgid) and the thread (tid, with a koid-typed "process" argument);
 *  - sample: an instant event "cpu"/"sample" on the thread with args cpu,
 *    mode and kframes, followed by the stack as a large blob in the Fuchsia
 *    kernel sampler's convention (kernel frames first, then user frames,
 *    each leaf first; kframes says where the user frames begin);
 *  - fork, exec, exit: instant events in category "task" with arguments;
 *  - LOST: a provider buffer-overflow event plus the counter
 *    "fxtprof:kernel_lost" with the running totals.
 */
#ifndef FXTPROF_TRANSLATE_H
#define FXTPROF_TRANSLATE_H

#include <stdint.h>

#include "fxt.h"
#include "fxtprof.h"
#include "names.h"

#define TRANSLATE_PROVIDER_ID	1
#define TRANSLATE_PROVIDER_NAME	"fxtprof"

struct translate_stats {
	uint64_t records[FXTPROF_REC_MAX];	/* ring records seen, by type */
	uint64_t kernel_lost_records;		/* summed from LOST records */
	uint64_t kernel_lost_bytes;
	/*
	 * Records the encoder could not turn into FXT (an FXT limit, bad
	 * UTF-8 it could not repair, no memory), apart from the records the
	 * output dropped, which the output counts itself.
	 */
	uint64_t encode_errors;
	int last_encode_error;			/* -errno of the latest */
	uint64_t encode_errors_announced;	/* carried by the last notice */
};

struct translator {
	struct fxt_writer *w;
	uint64_t generation;		/* of the cached refs below */
	struct fxt_sref s_cpu, s_sample, s_task, s_fork, s_exec, s_exit,
			s_mode[4], s_kframes, s_child_pid, s_child_tid,
			s_clone_flags, s_filename, s_old_tid, s_exit_code,
			s_group_dead, s_meta, s_kernel_lost, s_records,
			s_bytes, s_out_dropped, s_stats, s_samples,
			s_lost_unreported, s_mode_key, s_lost_records;
	uint64_t self_pid;		/* counters live on the reader */
	uint64_t self_tid;
	struct name_table names;	/* replayed on each new stream */
	struct translate_stats st;
};

int translator__init(struct translator *t, struct fxt_writer *w);
void translator__fini(struct translator *t);

/* Magic, provider, initialization: the start of every stream. */
int translator__prologue(struct translator *t);

/*
 * Start a stream that is complete in itself (a new connection): forget
 * the writer's string state, write the prologue, then the latest name of
 * every live process and thread.  Fits out__set_replay().
 */
int translator__new_stream(void *ctx);

/* fxtprof_rec_cb: translate one validated ring record. */
int translator__record(void *ctx, const struct fxtprof_rec_hdr *rec);

/* In-band notice of records the output dropped: overflow event + counter. */
int translator__output_gap(struct translator *t, uint64_t ts,
			   uint64_t dropped_records, uint64_t dropped_bytes);

/*
 * In-band notice of encoder errors not yet announced: a counter
 * "fxtprof:encode_errors" with the running total.  0 when there is
 * nothing to say or it was written, else -errno (it stays pending).
 */
int translator__encode_errors_notice(struct translator *t, uint64_t ts);

/* The final statistics of a recording, as a counter on the reader thread. */
int translator__final_stats(struct translator *t, uint64_t ts,
			    const struct fxtprof_stats *total);

#endif /* FXTPROF_TRANSLATE_H */
