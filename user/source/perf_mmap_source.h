/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_mmap_source.h - every executable mapping created while recording,
 * from the kernel's perf side-band records.
 *
 * One PERF_COUNT_SW_DUMMY software event per online CPU, for every
 * process (pid -1), counts nothing: it exists to carry the kernel's
 * PERF_RECORD_MMAP2 records, written at mmap() (and mprotect()) time by
 * perf_event_mmap(), with the build id the kernel read from the file's
 * first page (Linux >= 5.12), time stamped in CLOCK_BOOTTIME like the
 * module's records.  Each executable one becomes an FXTPROF_REC_MMAP
 * record.  A kernel that refuses build ids gets events without them, and
 * the build id is read from the file instead (racy for files that go
 * away).  Needs perf_event_open() rights for system-wide events:
 * CAP_PERFMON (or CAP_SYS_ADMIN), or perf_event_paranoid <= 0.
 */
#ifndef FXTPROF_PERF_MMAP_SOURCE_H
#define FXTPROF_PERF_MMAP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

#define PERF_MMAP_RING_SIZE	(128u << 10)	/* data bytes per CPU */

struct perf_mmap_ring;
union mmap_rec_buf;

struct perf_mmap_source {
	struct perf_mmap_ring *rings;
	unsigned int nr;
	bool kernel_build_ids;		/* the kernel took build_id = 1 */
	uint64_t lost;			/* from PERF_RECORD_LOST */
	uint64_t mappings;		/* records handed on */
	uint64_t file_build_ids;	/* build ids read from files */
	union mmap_rec_buf *buf;
	unsigned char *copy;		/* a record that wraps the ring */
	int wake_fd;			/* see perf_mmap_source__fd() */
};

/*
 * Open the events on every online CPU and map their rings (@ring_size
 * data bytes each, a power of two; 0 = the default).  0 or -errno (e.g.
 * -EACCES without the rights above), with nothing left open.
 */
int perf_mmap_source__open(struct perf_mmap_source *s, size_t ring_size);
void perf_mmap_source__close(struct perf_mmap_source *s);

/*
 * An fd that polls readable when a ring has a new record (an epoll fd
 * over them), for the reader to drain at once; -1 if there is none, and
 * then draining at the reader's own pace is all there is.
 */
int perf_mmap_source__fd(const struct perf_mmap_source *s);

/* Hand every pending executable mapping to @cb: 0 or -errno. */
int perf_mmap_source__drain(struct perf_mmap_source *s, fxtprof_rec_cb cb,
			    void *ctx);

#endif /* FXTPROF_PERF_MMAP_SOURCE_H */
