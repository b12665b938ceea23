/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_procs.h - what `fxtprof record` adds to each process it names,
 * from /proc, beside the source's records: its container (cgroup v2 path
 * and pid in its own namespace, source/proc_info.h) when it is first
 * seen, and the functions its JIT compiler listed in /tmp/perf-PID.map
 * (source/perf_map.h) when it exits or, if it lives on, when the
 * recording ends.  Documentation/fxt-mapping.md has the records.
 */
#ifndef FXTPROF_RECORD_PROCS_H
#define FXTPROF_RECORD_PROCS_H

#include <stdint.h>

struct stream_state;

/* At most this of one map, and of all maps of a recording. */
#define RECORD_JIT_MAP_MAX_ENTRIES	(1u << 18)
#define RECORD_JIT_MAP_MAX_BYTES	(32u << 20)
#define RECORD_JIT_TOTAL_MAX_ENTRIES	(1u << 22)

struct record_procs {
	struct stream_state *state;
	const char *proc;		/* "/proc", or a test's */
	const char *tmp;		/* "/tmp", or a test's: absolute */
	uint64_t jit_maps;		/* read */
	uint64_t jit_entries;		/* functions written */
	uint64_t jit_bad_lines;
	uint64_t jit_truncated;		/* maps cut at a cap */
	uint64_t jit_unreadable;	/* present, but not read */
	uint64_t jit_write_errors;
	const char *jit_first_error;	/* the first bad line's why */
	char jit_first_error_path[128];
	uint64_t jit_first_error_line;
};

/* Ask @state to give processes their containers, and hear of exits. */
void record_procs__init(struct record_procs *rp, struct stream_state *state);

/* At the end, every ring drained: the maps of the processes that live. */
void record_procs__finish(struct record_procs *rp);

/* The summary's line: containers read, processes gone, JIT functions. */
void record_procs__summary(const struct record_procs *rp);

/*
 * Process @pid's map (@nspid: its pid in its namespace, -1 unknown) into
 * the stream, if it wrote one.  @alive: read through /proc/PID/root, so
 * that a process in another mount namespace is reached.
 */
void record_procs__read_jit(struct record_procs *rp, uint32_t pid,
			    int64_t nspid, bool alive);

#endif /* FXTPROF_RECORD_PROCS_H */
