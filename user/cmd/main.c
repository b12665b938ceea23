// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the fxtprof command: dispatch to a subcommand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "cmd.h"
#include "sources.h"
#include "fxt/fxt_reader.h"
#ifdef FXTPROF_HAVE_SYMBOLS
#include "export.h"
#include "report.h"
#endif

int reader_err(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("fxtprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
	return err;
}

int reader_parse_mode(const char *s, unsigned int *mode)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || errno || v > 0777)
		return -EINVAL;
	*mode = (unsigned int)v;
	return 0;
}

int reader_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int reader_signalfd(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "record a system-wide profile to a URI" },
	{ "trigger", cmd_trigger, "fire a named trigger into the running "
				  "recording" },
	{ "send", cmd_send, "replay a recorded FXT file to a URI" },
	{ "receive", cmd_receive, "accept FXT streams and write each to a file" },
	{ "sources", cmd_sources, "list the data sources of the module and of "
				  "the bpf source" },
	{ "dump", cmd_dump, "print any FXT stream, one record per line" },
	{ "check", cmd_check, "validate an FXT stream against the spec "
			      "and Perfetto's import rules" },
	{ "info", cmd_info, "the summary of an archive (.fxtz), without "
			    "decompressing it" },
	{ "extract", cmd_extract, "a time range of an archive as a "
				  "self-contained FXT stream" },
	{ "archive", cmd_archive, "archive repair: finish an archive that was "
				  "cut off" },
#ifdef FXTPROF_HAVE_SYMBOLS
	/* The commands that name frames: they need libdw. */
	{ "report", cmd_report, "top functions, call trees, as perf report "
				"(--summary: processes, records)" },
	{ "flamegraph", cmd_flamegraph, "an interactive SVG flame graph, or "
					"folded stacks" },
	{ "export", cmd_export, "the profile as gzipped pprof, for go tool "
				"pprof and speedscope" },
	{ "symbolize", cmd_symbolize, "the FXT plus its profile as Perfetto "
				      "call stacks, in blob records" },
#endif
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: fxtprof COMMAND [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
#ifndef FXTPROF_HAVE_SYMBOLS
	fprintf(f, "\nreport, flamegraph, export, symbolize: not in this build "
		   "(symbolization needs\nlibdw); run them on the host\n");
#endif
	fprintf(f, "\n'fxtprof COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "fxtprof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
