// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the fxtprof command: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "sources.h"
#ifdef FXTPROF_HAVE_SYMBOLS
#include "export.h"
#endif

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
	{ "unwind", cmd_unwind, "the unwind table record builds for an ELF "
				"file" },
	{ "buildid-archive", cmd_buildid_archive, "the files a recording's "
		"mappings name, by build id, in a tar for the host" },
#ifdef FXTPROF_HAVE_SYMBOLS
	/* The commands that name frames: they need libdw. */
	{ "report", cmd_report, "top functions, call trees, as perf report "
				"(--summary: processes, records)" },
	{ "diff", cmd_diff, "two recordings compared: the functions whose "
			    "share changed most" },
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
		fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].help);
#ifndef FXTPROF_HAVE_SYMBOLS
	fprintf(f, "\nreport, diff, flamegraph, export, symbolize: not in this build "
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
