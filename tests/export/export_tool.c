// SPDX-License-Identifier: GPL-2.0-only
/*
 * export_tool.c - `fxtprof export` and `fxtprof symbolize` without the
 * rest of fxtprof, for tests/export/test_export.sh: the two commands'
 * own code (user/cmd/export.c, symbolize.c), called as main.c calls them;
 * reader_err() is user/cmd/cmd_helpers.c's.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "export.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return cmd_export(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "symbolize"))
		return cmd_symbolize(argc - 1, argv + 1);
	fprintf(stderr, "usage: export_tool export|symbolize ...\n");
	return 2;
}
