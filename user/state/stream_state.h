/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stream_state.h - the state part of the pipeline: what the records seen
 * so far imply for the stream (live process and thread names, the kernel's
 * loss totals, counts by record type, encoder errors), between a source
 * and an encoder.
 *
 * Records come in through stream_state__record(), an fxtprof_rec_cb that a
 * source's drain calls.  The state updates its tables and hands the record
 * to the encoder.  Whenever the sink asks for a self-contained segment (it
 * opened, or connected again), the state first has the encoder begin one
 * (the prologue) and replays the latest name of every live process and
 * thread, so a consumer that joins there sees a complete stream.
 */
#ifndef FXTPROF_STREAM_STATE_H
#define FXTPROF_STREAM_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "encode/encoder.h"
#include <libfxtprof.h>
#include "sink/sink.h"
#include "state/names.h"
#include "state/recent_exits.h"
#include "state/symbol_tables.h"

/*
 * A kernel symbol, as the record source's lookup finds it: the function
 * holding an address.  @name stays valid until the next lookup.
 */
struct stream_ksym {
	uint64_t addr;
	uint32_t size;
	const char *name;
};

/* 1 and *out filled if @ip lies in a known function, else 0. */
typedef int (*stream_ksym_lookup_fn)(void *ctx, uint64_t ip,
				     struct stream_ksym *out);

/*
 * Told of each TRIGGER record that passes, once it has been handed to the
 * encoder: how the flight recorder hears its triggers.
 */
typedef void (*stream_trigger_fn)(void *ctx,
				  const struct fxtprof_trigger_rec *rec);

/*
 * What process @pid's container is, read when the process is first seen
 * (and again at its exec): 0 with *@nspid (-1: unknown) and @cgroup (@n
 * bytes, "": unknown) filled; -ESRCH if it exited before it could be
 * read; another -errno.
 */
typedef int (*stream_proc_lookup_fn)(void *ctx, uint32_t pid, int64_t *nspid,
				     char *cgroup, size_t n);

/* Told of each process that exits (its group is dead), after its record. */
typedef void (*stream_exit_fn)(void *ctx, uint32_t pid, int64_t nspid);

struct stream_stats {
	uint64_t records[FXTPROF_REC_MAX];	/* ring records seen, by type */
	uint64_t kernel_lost_records;		/* summed from LOST records */
	uint64_t kernel_lost_bytes;
	/*
	 * Records (and notices) the encoder could not produce: an FXT limit,
	 * no memory.  Output drops are not in here: the sink counts them.
	 */
	uint64_t encode_errors;
	int last_encode_error;			/* -errno of the latest */
	uint64_t encode_errors_announced;	/* carried by the last notice */
	uint64_t segments;			/* begun, the first included */
	uint64_t ksyms;				/* distinct kernel symbols found */
	uint64_t ksym_misses;			/* kernel frames unnamed */
	uint64_t proc_infos;			/* processes' containers read */
	uint64_t proc_gone;			/* exited before they could be */
	uint64_t proc_unreadable;		/* could not, for another reason */
	uint64_t jit_symbols;			/* JIT functions written */
};

struct stream_state {
	struct encoder enc;
	/* The wall-clock anchor, replayed at each new segment; or none. */
	struct {
		uint64_t boot_ns, realtime_ns;
		bool set;
	} wall_clock;
	struct sink *sink;		/* asked for segment requests; or NULL */
	struct name_table names;	/* replayed at each new segment */
	struct symbol_tables syms;	/* likewise, after the names */
	struct recent_exits exits;	/* for records behind an exit */
	stream_ksym_lookup_fn ksym_lookup;	/* NULL: no KSYM records */
	void *ksym_ctx;
	stream_trigger_fn on_trigger;	/* NULL: nobody listens */
	void *trigger_ctx;
	stream_proc_lookup_fn proc_lookup;	/* NULL: no containers */
	void *proc_ctx;
	stream_exit_fn on_exit;		/* NULL: nobody listens */
	void *exit_ctx;
	struct stream_stats st;
};

/*
 * @sink is only asked whether it wants a new segment, and told when it
 * got one; NULL for an output that never needs one (the encoder's first
 * segment is then begun by the first stream_state__sync()).
 */
void stream_state__init(struct stream_state *s, struct encoder enc,
			struct sink *sink);
void stream_state__fini(struct stream_state *s);

/*
 * Name the kernel frames of samples: before a sample, every function its
 * kernel frames hit that this segment has not named yet gets a KSYM
 * record.  With @fn NULL, only the functions that KSYM records of the
 * source itself named are written, in each segment that needs them.
 */
void stream_state__set_ksym_lookup(struct stream_state *s,
				   stream_ksym_lookup_fn fn, void *ctx);

/*
 * Give every process its container (encoder process_info): @fn is asked
 * when a process is first named, and again at its exec (a container's
 * runtime moves it into its cgroup and namespaces before it execs).
 */
void stream_state__set_proc_lookup(struct stream_state *s,
				   stream_proc_lookup_fn fn, void *ctx);

/* Have @fn told of every process that exits (NULL: nobody). */
void stream_state__set_exit_observer(struct stream_state *s,
				     stream_exit_fn fn, void *ctx);

/*
 * A JIT function of process @pid (encoder jit_symbol), into the stream
 * now: 0, or -errno (-EOPNOTSUPP: the encoder has no such record).
 */
int stream_state__jit_symbol(struct stream_state *s, uint32_t pid,
			     uint64_t start, uint64_t size, const char *name,
			     size_t len);

/*
 * A chunk of a collected file (encoder file_chunk), into the stream now:
 * 0, -ENOBUFS (the sink dropped it), or -errno (-EOPNOTSUPP: the encoder
 * has no such record).
 */
int stream_state__file_chunk(struct stream_state *s, const void *payload,
			     size_t len);

/* Have @fn told of every TRIGGER record from now on (NULL: nobody). */
void stream_state__set_trigger_observer(struct stream_state *s,
					stream_trigger_fn fn, void *ctx);

/*
 * Anchor the stream's timestamps to the wall clock: read CLOCK_BOOTTIME
 * and CLOCK_REALTIME together now, and begin every segment with the pair
 * (right after its prologue), so that each one, an archive's chunk or a
 * flight-recorder snapshot, tells when it was recorded.  For the
 * recorders, which timestamp with CLOCK_BOOTTIME on this machine; call
 * it before the first stream_state__sync().
 */
void stream_state__anchor_wall_clock(struct stream_state *s);

/*
 * Begin a segment if the sink wants one: prologue, the wall-clock anchor
 * (if any), the idle task's name
 * (pid 0 and tid 0, "swapper", as Perfetto names it), the names of live
 * tasks, then the kernel images and live mappings (kernel symbols come
 * with the first sample of the segment that needs each).  Every
 * entry point below calls it; call it once after opening to write the
 * prologue at once.  0 or -errno.
 */
int stream_state__sync(struct stream_state *s);

/* fxtprof_rec_cb: one validated ring record.  Always 0: keep draining. */
int stream_state__record(void *ctx, const struct fxtprof_rec_hdr *rec);

/*
 * The in-band notices.  Output gap: when the sink has drops to announce
 * and room for it; 1 if written, 0 if nothing to say, -errno.  Encoder
 * errors not yet announced: 0 when written or nothing to say, -errno
 * (it stays pending).
 */
int stream_state__announce_gap(struct stream_state *s, uint64_t ts);
int stream_state__announce_errors(struct stream_state *s, uint64_t ts);

/* The final statistics of a recording. */
int stream_state__final_stats(struct stream_state *s, uint64_t ts,
			      const struct fxtprof_stats *total);

#endif /* FXTPROF_STREAM_STATE_H */
