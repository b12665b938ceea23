// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind.c - `fxtprof unwind [-s] FILE...`: the unwind table the recorder
 * builds for each file (user/unwind/), row by row, with counts of rows by
 * kind, as `readelf --debug-dump=frames-interp` prints the CFI it comes
 * from.  -s prints the counts only.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "unwind/unwind_table.h"

static const char *const cfi_names[] = {
	[UNWIND_CFI_NONE] = "no CFI",
	[UNWIND_CFI_EH_FRAME] = ".eh_frame",
	[UNWIND_CFI_DEBUG_FRAME] = ".debug_frame",
};

static void print_row(const struct fxtprof_unwind_row *r)
{
	static const char *const regs[] = {
		[FXTPROF_UNWIND_CFA_NONE] = "none",
		[FXTPROF_UNWIND_CFA_SP] = "sp",
		[FXTPROF_UNWIND_CFA_FP] = "fp",
	};

	printf("  %#010x", r->pc);
	if (r->cfa_reg == FXTPROF_UNWIND_CFA_NONE)
		printf(" %s", r->flags & FXTPROF_UNWIND_ROW_NO_RULE ?
			      "no rule" : "no cfi");
	else
		printf(" cfa=%s%+d", regs[r->cfa_reg], r->cfa_offset);
	if (r->flags & FXTPROF_UNWIND_ROW_OUTERMOST)
		printf(" outermost");
	else if (r->flags & FXTPROF_UNWIND_ROW_RA_IN_LR)
		printf(" ra=lr");
	else if (r->cfa_reg != FXTPROF_UNWIND_CFA_NONE)
		printf(" ra=cfa%+d", r->ra_offset);
	if (r->flags & FXTPROF_UNWIND_ROW_FP_SAVED)
		printf(" fp=cfa%+d", r->fp_offset);
	putchar('\n');
}

static void print_table(const char *path, const struct unwind_table *t,
			bool rows)
{
	const struct unwind_table_counts *c = &t->counts;
	unsigned int i;

	printf("%s: %s, %s (%llu bytes), build id ", path,
	       t->machine == 183 ? "aarch64" : "x86_64", cfi_names[t->cfi],
	       (unsigned long long)t->cfi_bytes);
	for (i = 0; i < t->build_id_size; i++)
		printf("%02x", t->build_id[i]);
	printf("%s, %u rows, %zu bytes, pc_end %#x\n",
	       t->build_id_size ? "" : "(none)", t->nr_rows,
	       unwind_table__size(t), t->pc_end);
	printf("  rows: cfa=sp %u, cfa=fp %u, no cfi %u, no rule %u, "
	       "outermost %u, ra=lr %u, fp saved %u; bad FDEs %u\n",
	       c->cfa_sp, c->cfa_fp, c->no_cfi, c->no_rule, c->outermost,
	       c->ra_in_lr, c->fp_saved, c->bad_fdes);
	if (rows)
		for (i = 0; i < t->nr_rows; i++)
			print_row(&t->rows[i]);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fxtprof unwind [-s|--summary] FILE...\n"
		   "Print the unwind table fxtprof record builds for each ELF "
		   "file\n(Documentation/unwinding.md): its rows, and counts "
		   "of rows by kind.\n"
		   "  -s, --summary   the counts only\n");
}

int cmd_unwind(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool rows = true;
	int c, i, status = CMD_EXIT_OK;

	while ((c = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			rows = false;
			break;
		case 'h':
			usage(stdout);
			return CMD_EXIT_OK;
		default:
			usage(stderr);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return CMD_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		char why[UNWIND_WHY_LEN];
		struct unwind_table *t;

		if (unwind_table__build_path(argv[i], &t, why)) {
			fprintf(stderr, "fxtprof unwind: %s: %s\n", argv[i], why);
			status = CMD_EXIT_FAILED;
			continue;
		}
		print_table(argv[i], t, rows);
		unwind_table__free(t);
	}
	return status;
}
