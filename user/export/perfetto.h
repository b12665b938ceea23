/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto.h - an incremental emitter of Perfetto TracePackets for a CPU
 * profile: interned function names, mappings, frames and callstacks, and
 * one PerfSample per sample (Documentation/export.md has every field).
 *
 * It keeps no samples: each call emits what it needs at once, so it runs
 * as well over a loaded recording (perfetto_profile.h) as live in the
 * recorder.  Every packet goes to the callback as Trace wire format,
 * `0a <varint len> <TracePacket>`, at most PERFETTO_MAX_PACKET bytes with
 * that preamble: one FXT blob record of blob type 3 each.  One sequence
 * (trusted_packet_sequence_id 1): the first packet clears the incremental
 * state and sets BOOTTIME as the default clock; every later one needs
 * that state.  Interned data is written in the packet of the sample that
 * first uses it; when a sample brings more than fits, the surplus goes
 * in interned-data-only packets just before, never a packet cut in two.
 *
 * Functions return 0 or -errno: -ENOMEM, or the callback's error.
 *
 * Samples of another kind (the stacks of off-CPU waits) go through an
 * emitter of their own, on a sequence of their own whose defaults name
 * what its samples count (struct perfetto_timebase): Perfetto keeps them
 * apart from the CPU samples, as another perf session.
 */
#ifndef FXTPROF_PERFETTO_H
#define FXTPROF_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fuchsia's TRACE_MAX_BLOB_SIZE: one packet, preamble included. */
#define PERFETTO_MAX_PACKET	32000u
/* Longer names and paths are cut (at a UTF-8 boundary). */
#define PERFETTO_MAX_NAME	4096u
/* Longer stacks keep their leaf end. */
#define PERFETTO_MAX_FRAMES	2048u

/* PerfSample.cpu_mode (profile_packet.proto, Profiling.CpuMode). */
enum perfetto_cpu_mode {
	PERFETTO_MODE_UNKNOWN = 0,
	PERFETTO_MODE_KERNEL = 1,
	PERFETTO_MODE_USER = 2,
};

typedef int (*perfetto_emit_fn)(void *ctx, const uint8_t *packet,
				size_t len);

/* A user file mapping, as Perfetto's Mapping wants it. */
struct perfetto_mapping {
	uint64_t key;		/* the caller's id: equal keys, one mapping */
	uint64_t start, end;	/* runtime range */
	uint64_t exact_offset;	/* file offset of start (pgoff) */
	uint64_t start_offset;	/* file offset of the file's first mapping */
	uint64_t load_bias;	/* p_vaddr - p_offset */
	const char *path;
	const uint8_t *build_id;	/* raw bytes, or NULL */
	unsigned int build_id_size;
};

struct perfetto_frame {
	/*
	 * A kernel frame goes on Perfetto's magic "/kernel" mapping (no
	 * range, no build id).  A user frame without a mapping is a "dummy"
	 * frame (mapping_id 0): a name and nothing else.
	 */
	bool kernel;
	const struct perfetto_mapping *mapping;	/* user frames */
	uint64_t rel_pc;	/* ELF address in the mapping's file */
	const char *function;	/* NULL: left to offline symbolization */
};

struct perfetto_sample {
	uint64_t ts;		/* ns, CLOCK_BOOTTIME */
	uint32_t cpu, pid, tid;
	enum perfetto_cpu_mode mode;
	/* Leaf first (kernel frames, then user), as fxtprof keeps them. */
	const struct perfetto_frame *frames;
	size_t nr_frames;
};

struct perfetto_stats {
	uint64_t packets, bytes;	/* bytes with preambles */
	uint64_t function_names, mappings, frames, callstacks;
	uint64_t samples;
};

/*
 * What a sequence's samples count (PerfSampleDefaults.timebase), for an
 * emitter that is not the CPU samples' one.  The strings must outlive
 * the emitter.
 */
struct perfetto_timebase {
	uint32_t sequence_id;	/* > 1: sequence 1 is the CPU samples' */
	const char *tracepoint;	/* "group:name", e.g. "sched:sched_switch" */
	const char *name;	/* what the trace calls them, e.g. "off-cpu" */
};

struct perfetto_emitter;

/* The CPU samples' emitter: sequence 1, the CPU clock as timebase. */
int perfetto_emitter__new(perfetto_emit_fn emit, void *ctx,
			  struct perfetto_emitter **out);
/* Another kind of samples: -EINVAL for sequence 0 or 1 or no tracepoint. */
int perfetto_emitter__new_timebase(perfetto_emit_fn emit, void *ctx,
				   const struct perfetto_timebase *tb,
				   struct perfetto_emitter **out);
void perfetto_emitter__free(struct perfetto_emitter *e);

/*
 * A process (ProcessTree.Process, cmdline = [name], cmdline_is_comm) or
 * a thread of pid (ProcessTree.Thread), named at ts.  Perfetto skips a
 * process with no cmdline, so name must not be empty.
 */
int perfetto_emitter__process(struct perfetto_emitter *e, uint64_t ts,
			      uint32_t pid, const char *name);
int perfetto_emitter__thread(struct perfetto_emitter *e, uint64_t ts,
			     uint32_t pid, uint32_t tid, const char *name);
int perfetto_emitter__sample(struct perfetto_emitter *e,
			     const struct perfetto_sample *smp);
void perfetto_emitter__stats(const struct perfetto_emitter *e,
			     struct perfetto_stats *st);

#endif /* FXTPROF_PERFETTO_H */
