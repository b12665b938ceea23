/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc_maps.h - the executable mappings that exist when a recording
 * starts, from one sweep of /proc/PID/maps of every process.
 *
 * Every executable mapping becomes an FXTPROF_REC_MMAP record flagged
 * FXTPROF_MMAP_INITIAL, with the build id read from the mapped file.
 * File mappings keep their path; anonymous executable memory is named
 * "//anon", the vDSO "[vdso]"; [vsyscall] (a kernel address) is skipped.
 * A process that exits during the sweep simply has fewer mappings: the
 * side-band source, opened before the sweep, sees every later mapping.
 */
#ifndef FXTPROF_PROC_MAPS_H
#define FXTPROF_PROC_MAPS_H

#include <stdint.h>

#include <libfxtprof.h>

struct proc_maps_stats {
	uint64_t processes;	/* whose maps were read */
	uint64_t mappings;	/* records handed on */
	uint64_t build_ids;	/* of them, with a build id */
};

/*
 * Sweep @proc (NULL: "/proc"), handing each record, time stamped @ts, to
 * @cb.  0 or -errno if @proc cannot be read at all.
 */
int proc_maps__sweep(const char *proc, uint64_t ts, fxtprof_rec_cb cb,
		     void *ctx, struct proc_maps_stats *st);

/*
 * One line of a maps file as a record in @b (for tests and the sweep):
 * 1 if it is an executable mapping worth recording, 0 if not.
 */
union mmap_rec_buf;
int proc_maps__parse_line(const char *proc, uint32_t pid, const char *line,
			  uint64_t ts, union mmap_rec_buf *b);

#endif /* FXTPROF_PROC_MAPS_H */
