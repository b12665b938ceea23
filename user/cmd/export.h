/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * export.h - `fxtprof export` (pprof) and `fxtprof symbolize` (the FXT
 * with its profile as embedded Perfetto TracePackets), and what the two
 * share: their symbol options, the input read whole and checked for whole
 * records, and private output files.
 */
#ifndef FXTPROF_CMD_EXPORT_H
#define FXTPROF_CMD_EXPORT_H

#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>

#include "export/export_stack.h"
#include "report/report_annot.h"
#include "symbolize/symbolizer.h"

struct export_cmd {
	const char *input;
	const char *output;
	const char *time;		/* --time FROM,TO (export), or NULL */
	const char *diff_base;		/* --diff-base BASE (export), or NULL */
	bool off_cpu;			/* --off-cpu (export): the waits */
	unsigned int mode;		/* of the output file */
	struct symbolizer_opts sym;
	struct rt_annot_opts annot;	/* export: --region, ... */
	/* The input, read whole, and the loaded recording. */
	uint8_t *data;
	size_t len;
	struct profile *profile;
	struct symbolizer *symbolizer;
	/* The input's mtime (0: standard input), and its last sample. */
	uint64_t input_mtime_ns;
	uint64_t last_sample_ns;
};

int cmd_export(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);

/*
 * The options of cmd ("export" or "symbolize") into c; *format gets
 * --format (export only).  -1 to go on, else the exit status to return.
 */
int export_cmd__parse(struct export_cmd *c, int argc, char **argv,
		      const char *cmd, const char **format);

/*
 * Read c->input ("-" = stdin) whole, check that it is whole FXT records,
 * load it and make the symbolizer.  0, or -errno with the reason printed.
 */
int export_cmd__load(struct export_cmd *c);
void export_cmd__release(struct export_cmd *c);
/*
 * Write len bytes to c->output ("-" = stdout), created c->mode (an
 * existing file is made c->mode too).  A file that fails is removed.
 * 0, or -errno with the reason printed.
 */
int export_cmd__write(const struct export_cmd *c, const void *data,
		      size_t len);
/* Where the summary goes: stdout, or stderr when the output is stdout. */
FILE *export_cmd__info(const struct export_cmd *c);
/* "unresolved: N of M frames (no file: ..., ...)" and the files' problems. */
void export_cmd__print_unresolved(const struct export_cmd *c,
				  const struct export_stats *st);

/*
 * Walk the FXT records of data by their headers, calling fn (if not
 * NULL) for each.  0, -EPROTO if the last record is cut or a header is
 * zero (its offset in *bad), or fn's error.
 */
int export_fxt_records(const uint8_t *data, size_t len,
		       int (*fn)(void *ctx, const uint8_t *rec, size_t len),
		       void *ctx, uint64_t *bad);

#endif /* FXTPROF_CMD_EXPORT_H */
