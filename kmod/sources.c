// SPDX-License-Identifier: GPL-2.0-only
/*
 * sources.c - the module's data sources: the names FXTPROF_IOC_GET_SOURCE
 * reports for groups of FXTPROF_CFG_* bits, so that a reader can offer
 * "cpu.sampling,sched.switch" instead of flag words, and learn what this
 * module can do before it configures anything.
 *
 * The table is fixed at build time; only availability depends on the
 * running kernel (sched.switch needs its tracepoints).  A source that is
 * off costs at most a probe call that finds nothing to do: the files that
 * own it arm their timers only when its bits are in the session's flags,
 * and register their probes the first time they are (kmod/probes.c).
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "fxtprof_module.h"

struct fxtprof_source_def {
	const char *name;
	const char *description;
	u32 cfg_flags;		/* every bit the source owns */
	u32 enable_flags;	/* the bits that turn it on */
	bool is_default;
	bool (*available)(void);
};

static bool fxtprof_always(void)
{
	return true;
}

static const struct fxtprof_source_def fxtprof_sources[] = {
	{
		.name = "cpu.sampling",
		.description = "per-CPU timer samples with kernel and user stacks",
		.cfg_flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK |
			     FXTPROF_CFG_USTACK | FXTPROF_CFG_SKIP_IDLE |
			     FXTPROF_CFG_UNWIND,
		.enable_flags = FXTPROF_CFG_SAMPLE,
		.is_default = true,
		.available = fxtprof_always,
	},
	{
		.name = "task.lifecycle",
		.description = "fork, exec, exit and rename, and every thread at start",
		.cfg_flags = FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT,
		.enable_flags = FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT,
		.is_default = true,
		.available = fxtprof_always,
	},
	{
		.name = "sched.switch",
		.description = "context switches with the outgoing state, and wakeups",
		.cfg_flags = FXTPROF_CFG_SCHED,
		.enable_flags = FXTPROF_CFG_SCHED,
		.is_default = false,
		.available = fxtprof_sched_available,
	},
	{
		/*
		 * Off, a write to /dev/fxtprof-annotate is refused before it
		 * touches a ring (annotate.c); triggers need no bit.
		 */
		.name = "app.annotations",
		.description = "application annotations via /dev/fxtprof-annotate",
		.cfg_flags = FXTPROF_CFG_ANNOTATE,
		.enable_flags = FXTPROF_CFG_ANNOTATE,
		.is_default = true,
		.available = fxtprof_always,
	},
};

static_assert((FXTPROF_CFG_DEFAULT & ~(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK |
				       FXTPROF_CFG_USTACK | FXTPROF_CFG_TASKS |
				       FXTPROF_CFG_SNAPSHOT |
				       FXTPROF_CFG_ANNOTATE)) == 0,
	      "the default sources own every default configuration bit");

u32 fxtprof_nr_sources(void)
{
	return ARRAY_SIZE(fxtprof_sources);
}

/* Fill @src for src->index; @flags is the session's configuration, or 0. */
int fxtprof_source_get(struct fxtprof_source *src, bool configured, u32 flags)
{
	const struct fxtprof_source_def *d;

	if (src->index >= ARRAY_SIZE(fxtprof_sources))
		return -ENOENT;
	d = &fxtprof_sources[src->index];
	src->flags = 0;
	if (d->available())
		src->flags |= FXTPROF_SOURCE_AVAILABLE;
	if (d->is_default)
		src->flags |= FXTPROF_SOURCE_DEFAULT;
	if (configured && (flags & d->enable_flags))
		src->flags |= FXTPROF_SOURCE_ENABLED;
	src->cfg_flags = d->cfg_flags;
	strscpy_pad(src->name, d->name, sizeof(src->name));
	strscpy_pad(src->description, d->description,
		    sizeof(src->description));
	return 0;
}

/* Configuration bits whose source this kernel cannot provide. */
u32 fxtprof_sources_unavailable(void)
{
	u32 bits = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fxtprof_sources); i++)
		if (!fxtprof_sources[i].available())
			bits |= fxtprof_sources[i].cfg_flags;
	return bits;
}
