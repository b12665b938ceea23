/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sources.h - data source names (Documentation/commands.md, "fxtprof
 * sources"): what `fxtprof sources` lists and `fxtprof record --sources`
 * turns into configuration flags.
 */
#ifndef FXTPROF_CMD_SOURCES_H
#define FXTPROF_CMD_SOURCES_H

#include <stdint.h>

#include <libfxtprof.h>

/*
 * The options of cpu.sampling: chosen by -g, --call-graph and
 * --skip-idle, kept only when cpu.sampling itself is chosen.
 */
#define SOURCES_OPTION_FLAGS	(FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK | \
				 FXTPROF_CFG_SKIP_IDLE | FXTPROF_CFG_UNWIND)

/* Data sources read from one record source, at most. */
#define SOURCES_MAX		64

/*
 * Resolve @list ("cpu.sampling,sched.switch") against the @n data sources
 * of a record source, @tab, which @who names in sentences ("the module"):
 * *flags keeps the options of the chosen sources, gains their other bits
 * and loses every bit of the rest.  0, or -errno after printing one
 * sentence: -ENOENT for an unknown name, -EOPNOTSUPP for one this source
 * cannot provide, -EINVAL for an empty list or name.
 */
int sources_resolve(const struct fxtprof_source *tab, int n, const char *who,
		    const char *list, uint32_t *flags);

int cmd_sources(int argc, char **argv);

#endif /* FXTPROF_CMD_SOURCES_H */
