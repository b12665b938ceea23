/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_map.h - the symbol maps that JIT compilers write for perf,
 * /tmp/perf-PID.map (Node.js --perf-basic-prof, Python 3.12 -X perf,
 * perf-map-agent for the JVM): one function a line, "START SIZE name",
 * START and SIZE in hex (with or without 0x), name to the end of the line.
 *
 * The recorder reads a process's map when the process exits and, for
 * those still alive, at the end of the recording, and writes each
 * function into the stream (Documentation/fxt-mapping.md, "JIT
 * functions").  A map is read under caps: a line or a whole file past
 * them is not read, and counted.
 */
#ifndef FXTPROF_PERF_MAP_H
#define FXTPROF_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>

/* A name longer than this is cut; a line longer than the buffer is bad. */
#define PERF_MAP_NAME_MAX	1024
/* One function spans at most this: a larger SIZE is a bad line. */
#define PERF_MAP_SIZE_MAX	(1ull << 32)

struct perf_map_entry {
	uint64_t start, size;
	const char *name;	/* valid during the callback only */
	size_t name_len;	/* <= PERF_MAP_NAME_MAX */
};

struct perf_map_stats {
	uint64_t entries;	/* handed on */
	uint64_t bad_lines;	/* not "START SIZE name" */
	uint64_t truncated;	/* maps cut short at a cap */
	const char *first_error; /* why the first bad line was, or NULL */
	uint64_t first_error_line;	/* its line number, from 1 */
};

/*
 * One line (without its newline) into @e: 0; -EINVAL and *@why (a
 * sentence) for a bad one: no hex START or SIZE, SIZE 0 or over
 * PERF_MAP_SIZE_MAX, START + SIZE past the address space, no name.
 */
int perf_map__parse_line(const char *line, size_t len,
			 struct perf_map_entry *e, const char **why);

/* Told of each function; non-zero stops the read (returned). */
typedef int (*perf_map_fn)(void *ctx, const struct perf_map_entry *e);

/*
 * Read the map at @fd (closed by the caller), at most @max_entries
 * functions and @max_bytes of text: a map with more is cut there and
 * counted in st->truncated.
 * Bad lines are skipped and counted.  0, -errno of a read, or what @fn
 * returned.
 */
int perf_map__read_fd(int fd, uint64_t max_entries, uint64_t max_bytes,
		      perf_map_fn fn, void *ctx, struct perf_map_stats *st);

#endif /* FXTPROF_PERF_MAP_H */
