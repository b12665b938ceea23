/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_opts.h - the options of `fxtprof record`, its usage, and the
 * table of record sources that --source chooses from.
 */
#ifndef FXTPROF_RECORD_OPTS_H
#define FXTPROF_RECORD_OPTS_H

#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "archive/archive.h"
#include "push/push.h"
#include <libfxtprof.h>

struct source_ops;

#define RECORD_MAX_TRIGGERS	32	/* names in --trigger */

/* How -g walks user stacks (--call-graph fp|cfi|dwarf). */
enum record_ustack_walk {
	RECORD_USTACK_TABLES,	/* the default: tables, fp where none */
	RECORD_USTACK_FP,	/* frame pointers only, as before ABI 5 */
	RECORD_USTACK_DWARF,	/* stack copies, unwound on the host (ABI 6) */
};

struct record_opts {
	struct fxtprof_config cfg;
	const struct source_ops *source;	/* --source; NULL: auto */
	const char *sources;	/* --sources LIST, resolved at open */
	const char *device;
	const char *uri;
	const char *collect_dir;	/* --collect: mapped files, by build id */
	uint64_t collect_max;		/* --collect-max, 0: the default */
	const char *ready_file;	/* --ready-file: created once recording */
	double duration;	/* seconds, 0 = until a signal */
	double linger;		/* seconds to wait for the output at exit */
	uint64_t max_buffered;
	unsigned int file_mode;	/* 0 = the sink's default, 0600 */
	bool reconnect;
	uint64_t cpumask[16];	/* -C, up to 1024 CPUs */
	bool quiet;
	bool verbose;		/* -v: the memory account too */
	bool no_mmap;		/* no mapping records */
	bool no_ksyms;		/* no kernel symbol records */
	bool no_shared_stacks;	/* every sample's frames in its own blob */
	bool symbolize;		/* append the Perfetto profile at the end */
	bool off_cpu;		/* --off-cpu: waits with their stacks */
	enum record_ustack_walk ustack_walk;
	uint64_t unwind_memory;	/* --unwind-memory */
	uint32_t stack_copy_size;	/* --call-graph dwarf,SIZE; 0: default */
	/* --flight-recorder: a window of this many seconds, 0 = off. */
	double flight_secs;
	uint64_t max_window_bytes;
	/* --archive, --live-archive, the chunk limits (sink.h). */
	bool archive;
	struct archive_writer_opts archive_opts;
	unsigned int archive_flush_ms;
	const char *triggers[RECORD_MAX_TRIGGERS];
	unsigned int ntriggers;
	char trigger_buf[4096];	/* the names, split out of their lists */
	struct push_opts push;	/* --push: url set, else not pushed */
};

/*
 * Parse record's command line into @o: 0; 1 when --help printed the
 * usage; -errno after saying what is wrong.
 */
int record_opts__parse(struct record_opts *o, int argc, char **argv);

/*
 * The source to record from: --source's, or for auto the first one in
 * the table whose probe takes it (said on stderr, unless -q).
 */
const struct source_ops *record_opts__source(const struct record_opts *o);

/* The file a URI names, or NULL for stdout and sockets. */
const char *record_opts__path(const char *uri);

/* --collect stream: the files go inside the stream, not to a directory. */
static inline bool record_opts__collect_stream(const struct record_opts *o)
{
	return o->collect_dir && !strcmp(o->collect_dir, "stream");
}

#endif /* FXTPROF_RECORD_OPTS_H */
