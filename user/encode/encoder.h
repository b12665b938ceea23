/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * encoder.h - the interface between the stream state and an encoder.
 *
 * The state (user/state) sees fxtprof records go by, keeps what a new
 * segment needs (names, loss totals, error counts) and calls an encoder to
 * turn records and its notices into an output format.  An encoder writes
 * each record straight into its sink (user/sink) and knows nothing of the
 * state's tables: it is told every name it must write.  FXT is the only
 * encoder today (fxt_encoder.h); pprof or Perfetto protobuf would be more
 * implementations of the same operations.
 *
 * Every operation returns 0 or -errno.  -ENOBUFS means the sink dropped a
 * record (the sink counted it); any other error is the encoder's own and
 * the state counts it as an encoder error.
 */
#ifndef FXTPROF_ENCODER_H
#define FXTPROF_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

struct encoder_ops {
	/* Forget per-stream state (string tables) and write the prologue. */
	int (*begin_segment)(void *enc);
	/*
	 * The recorder's two clocks read together: the event at boot time
	 * @boot_ns (CLOCK_BOOTTIME, the clock of every timestamp) happened
	 * at wall time @realtime_ns (CLOCK_REALTIME).
	 */
	int (*wall_clock)(void *enc, uint64_t boot_ns, uint64_t realtime_ns);
	/*
	 * One record.  Names carried by fork, exec, rename and snapshot
	 * records are not written here: the state calls the name operations
	 * first, so an encoder need not remember them.  LOST records go to
	 * kernel_lost() instead, with the totals.
	 */
	int (*record)(void *enc, const struct fxtprof_rec_hdr *rec);
	int (*process_name)(void *enc, uint32_t pid, const char *comm);
	int (*thread_name)(void *enc, uint32_t pid, uint32_t tid,
			   const char *comm);
	/*
	 * Optional (NULL: process_name is used): the process's name with
	 * its container, its pid in its own pid namespace (@nspid, -1:
	 * unknown) and its cgroup v2 path (@cgroup, NULL: unknown).
	 */
	int (*process_info)(void *enc, uint32_t pid, const char *comm,
			    int64_t nspid, const char *cgroup);
	/*
	 * Optional: a function a JIT compiler wrote in process @pid's
	 * /tmp/perf-PID.map (source/perf_map.h), @len bytes of @name.
	 */
	int (*jit_symbol)(void *enc, uint32_t pid, uint64_t start,
			  uint64_t size, const char *name, size_t len);
	/*
	 * Optional: a chunk of a collected file, @len bytes of payload laid
	 * out as fxt_profile.h's FXT_PROFILE_FILE says.
	 */
	int (*file_chunk)(void *enc, const void *payload, size_t len);
	/* The kernel rings lost data: the running totals, at @ts. */
	int (*kernel_lost)(void *enc, uint64_t ts, uint64_t records,
			   uint64_t bytes);
	/* In-band notices: the output dropped records; encoder errors. */
	int (*output_gap)(void *enc, uint64_t ts, uint64_t records,
			  uint64_t bytes);
	int (*encode_errors)(void *enc, uint64_t ts, uint64_t records,
			     int last_error);
	/* The recording's final statistics. */
	int (*final_stats)(void *enc, uint64_t ts,
			   const struct fxtprof_stats *total);
};

struct encoder {
	const struct encoder_ops *ops;
	void *ctx;
};

#endif /* FXTPROF_ENCODER_H */
