// SPDX-License-Identifier: MIT
/*
 * fxt_tools.c - `dump` and `check` command-line front ends.
 *
 * Both stream their input in fixed chunks, so arbitrarily large traces
 * and pipes (FILE = "-") work in bounded memory.  Options are parsed by
 * hand, not getopt(), because these run as subcommands of a larger
 * binary and must not depend on or disturb global getopt state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

#define CHUNK		65536
#define LINE_MAX_LEN	(256 * 1024)

static FILE *open_input(const char *path)
{
	if (!strcmp(path, "-"))
		return stdin;
	return fopen(path, "rb");
}

static void close_input(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

static int dump_usage(FILE *out)
{
	fprintf(out, "usage: dump [-o] FILE|-\n"
		     "  print every FXT record on one line\n"
		     "  -o  prefix each line with its byte offset\n");
	return 2;
}

int fxt_dump_main(int argc, char **argv)
{
	const char *path = NULL;
	bool offsets = false;
	struct fxt_record *rec = NULL;
	struct fxt_reader *r = NULL;
	char *chunk = NULL, *line = NULL;
	FILE *in = NULL;
	int ret = 1, err = 0;
	uint64_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o"))
			offsets = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return dump_usage(stdout), 0;
		else if (!path && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			path = argv[i];
		else
			return dump_usage(stderr);
	}
	if (!path)
		return dump_usage(stderr);
	in = open_input(path);
	if (!in) {
		fprintf(stderr, "dump: %s: %s\n", path, strerror(errno));
		return 2;
	}
	rec = malloc(sizeof(*rec));
	chunk = malloc(CHUNK);
	line = malloc(LINE_MAX_LEN);
	if (!rec || !chunk || !line || fxt_reader__new(FXT_READER_LENIENT, &r)) {
		fprintf(stderr, "dump: out of memory\n");
		ret = 2;
		goto out;
	}
	for (;;) {
		size_t got = fread(chunk, 1, CHUNK, in);

		if (got) {
			err = fxt_reader__feed(r, chunk, got);
			if (err)
				break;
		}
		while ((err = fxt_reader__next(r, rec)) > 0) {
			fxt_record__format(rec, line, LINE_MAX_LEN);
			if (offsets)
				printf("0x%08" PRIx64 " ", rec->offset);
			fputs(line, stdout);
			if (rec->warn_rule) {
				const struct fxt_error *w = fxt_reader__warning(r);

				printf("  # warning: %s: %s", w->rule, w->msg);
			}
			putchar('\n');
			n++;
		}
		if (err < 0 || got < CHUNK)
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "dump: %s: read error\n", path);
		ret = 2;
		goto out;
	}
	if (!err)
		err = fxt_reader__finish(r);
	if (err) {
		const struct fxt_error *e = fxt_reader__error(r);

		if (e->rule)
			fprintf(stderr, "offset 0x%" PRIx64 ": %s: %s\n",
				e->offset, e->rule, e->msg);
		else
			fprintf(stderr, "dump: %s\n", strerror(-err));
		goto out;
	}
	ret = 0;
out:
	fflush(stdout);
	fxt_reader__free(r);
	free(line);
	free(chunk);
	free(rec);
	close_input(in);
	return ret;
}

static int check_usage(FILE *out)
{
	fprintf(out, "usage: check [-q] [-W] FILE|-\n"
		     "  validate an FXT stream against the format and Perfetto's import rules\n"
		     "  -q  no summary, no warnings\n"
		     "  -W  treat warnings as errors\n");
	return 2;
}

struct check_opts {
	bool quiet;
	bool werror;
	bool failed;
	struct fxt_error first;
};

static void on_warning(void *ctx, const struct fxt_error *w)
{
	struct check_opts *o = ctx;

	if (o->werror && !o->failed) {
		o->failed = true;
		o->first = *w;
	}
	if (!o->quiet && !o->werror)
		fprintf(stderr, "offset 0x%" PRIx64 ": warning: %s: %s\n",
			w->offset, w->rule, w->msg);
}

int fxt_check_main(int argc, char **argv)
{
	struct check_opts o = { 0 };
	struct fxt_checker *c = NULL;
	const struct fxt_check_stats *st;
	const char *path = NULL;
	char *chunk = NULL;
	FILE *in;
	int ret = 2, err = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			o.quiet = true;
		else if (!strcmp(argv[i], "-W"))
			o.werror = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return check_usage(stdout), 0;
		else if (!path && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			path = argv[i];
		else
			return check_usage(stderr);
	}
	if (!path)
		return check_usage(stderr);
	in = open_input(path);
	if (!in) {
		fprintf(stderr, "check: %s: %s\n", path, strerror(errno));
		return 2;
	}
	chunk = malloc(CHUNK);
	if (!chunk || fxt_checker__new(on_warning, &o, &c)) {
		fprintf(stderr, "check: out of memory\n");
		goto out;
	}
	for (;;) {
		size_t got = fread(chunk, 1, CHUNK, in);

		if (got)
			err = fxt_checker__feed(c, chunk, got);
		if (err || o.failed || got < CHUNK)
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "check: %s: read error\n", path);
		goto out;
	}
	if (!err && !o.failed)
		err = fxt_checker__finish(c);
	if (o.failed && !err) {
		fprintf(stderr, "offset 0x%" PRIx64 ": %s: %s\n",
			o.first.offset, o.first.rule, o.first.msg);
		ret = 1;
		goto out;
	}
	if (err) {
		const struct fxt_error *e = fxt_checker__error(c);

		if (e->rule)
			fprintf(stderr, "offset 0x%" PRIx64 ": %s: %s\n",
				e->offset, e->rule, e->msg);
		else
			fprintf(stderr, "check: %s\n", strerror(-err));
		ret = 1;
		goto out;
	}
	st = fxt_checker__stats(c);
	if (!o.quiet) {
		printf("ok: %" PRIu64 " records, %" PRIu64 " bytes, %" PRIu64
		       " warnings\n", st->records, st->bytes, st->warnings);
		for (unsigned int t = 0; t < 16; t++)
			if (st->by_type[t])
				printf("  %-17s %" PRIu64 "\n",
				       fxt_record_type__name(t), st->by_type[t]);
	}
	ret = 0;
out:
	fflush(stdout);
	fxt_checker__free(c);
	free(chunk);
	close_input(in);
	return ret;
}
