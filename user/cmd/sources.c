// SPDX-License-Identifier: GPL-2.0-only
/*
 * sources.c - `fxtprof sources` and the --sources list of record.
 *
 * The module describes its sources itself (FXTPROF_IOC_GET_SOURCE); the
 * bpf source has no device to ask: its table is in
 * user/source/bpf_source_ops.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "sources.h"
#include "source/bpf_source.h"

int sources_resolve(const struct fxtprof_source *tab, int n, const char *who,
		    const char *list, uint32_t *flags)
{
	uint32_t owned = 0, chosen = 0;
	const char *p = list;
	int i;

	for (i = 0; i < n; i++)
		owned |= tab[i].cfg_flags;
	if (!*list)
		return reader_err(-EINVAL, "--sources needs at least one name "
				  "(fxtprof sources lists them)");
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len)
			return reader_err(-EINVAL, "empty name in --sources "
					  "'%s'", list);
		for (i = 0; i < n; i++)
			if (strlen(tab[i].name) == len &&
			    !memcmp(tab[i].name, p, len))
				break;
		if (i == n)
			return reader_err(-ENOENT, "unknown data source "
					  "'%.*s' in %s (fxtprof sources lists "
					  "them)", (int)len, p, who);
		if (!(tab[i].flags & FXTPROF_SOURCE_AVAILABLE) ||
		    !tab[i].cfg_flags)
			return reader_err(-EOPNOTSUPP, "data source '%s' is "
					  "not available in %s", tab[i].name,
					  who);
		chosen |= tab[i].cfg_flags;
		p += len;
		if (*p == ',')
			p++;
		if (!*p && p[-1] == ',')
			return reader_err(-EINVAL, "empty name in --sources "
					  "'%s'", list);
	}
	*flags = (*flags & ~owned) | (*flags & chosen) |
		 (chosen & ~SOURCES_OPTION_FLAGS);
	return 0;
}

/* How a source's user stacks can be walked: by tables, or by fp only. */
static const char *ustack_walk(const struct fxtprof_source *src)
{
	if (src->cfg_flags & FXTPROF_CFG_UNWIND)
		return "tables";
	return src->cfg_flags & FXTPROF_CFG_USTACK ? "fp" : "-";
}

static void print_table(const struct fxtprof_source *tab, int n)
{
	printf("  %-16s %-9s %-7s %-7s %-6s %s\n", "NAME", "AVAILABLE",
	       "DEFAULT", "ENABLED", "USTACK", "DESCRIPTION");
	for (int i = 0; i < n; i++)
		printf("  %-16s %-9s %-7s %-7s %-6s %s\n", tab[i].name,
		       tab[i].flags & FXTPROF_SOURCE_AVAILABLE ? "yes" : "no",
		       tab[i].flags & FXTPROF_SOURCE_DEFAULT ? "yes" : "no",
		       tab[i].flags & FXTPROF_SOURCE_ENABLED ? "yes" : "-",
		       ustack_walk(&tab[i]), tab[i].description);
}

static void sources_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof sources [--device PATH]\n"
"  The data sources the loaded module offers, and those of the bpf source,\n"
"  by the names fxtprof record --sources takes.  ENABLED: in the module's\n"
"  current configuration (always '-' from a fresh open).\n"
"      --device PATH      the fxtprof device (default %s)\n"
"Exit status: 0 when the module was listed or is not loaded; 1 when it is\n"
"loaded but could not be asked (busy: another process holds the device).\n",
		FXTPROF_DEVICE);
}

int cmd_sources(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *device = FXTPROF_DEVICE;
	struct fxtprof_source tab[SOURCES_MAX];
	struct fxtprof_dev *dev;
	int c, n, ret, status = CMD_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			device = optarg;
			break;
		case 'h':
			sources_usage(stdout);
			return CMD_EXIT_OK;
		default:
			sources_usage(stderr);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		sources_usage(stderr);
		return CMD_EXIT_USAGE;
	}

	ret = fxtprof_dev__open(device, &dev);
	if (ret == -ENOENT) {
		printf("module (%s): not loaded\n", device);
	} else if (ret) {
		fflush(stdout);
		reader_err(ret, "module (%s): cannot open it%s", device,
			   ret == -EBUSY ? " (a recording holds it)" : "");
		status = CMD_EXIT_FAILED;
	} else {
		n = fxtprof_dev__sources(dev, tab, SOURCES_MAX);
		if (n < 0) {
			reader_err(n, "module (%s): cannot read its data "
				   "sources", device);
			status = CMD_EXIT_FAILED;
		} else {
			printf("module (%s, ABI %u):\n", device,
			       fxtprof_dev__info(dev)->abi_version);
			print_table(tab, n);
		}
		fxtprof_dev__close(dev);
	}
	printf("bpf (fxtprof record --source bpf):\n");
	print_table(bpf_source_data_sources, (int)bpf_source_nr_data_sources);
	return status;
}
