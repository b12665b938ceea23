// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_source_ops.c - the eBPF source as a record source (source.h): its
 * ops table over the loader's API (bpf_source.h), and its table of data
 * sources.  Built over either loader, the real one (bpf_source.c) or the
 * stand-in without libbpf (bpf/bpf_source_none.c), which refuses at
 * configure with a sentence saying so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source/bpf_source.h"
#include "source/source.h"

/*
 * In the module's terms.  It must follow what bpf_source.c implements:
 * its check_config() refuses the bits of the sources not available here.
 */
const struct fxtprof_source bpf_source_data_sources[] = {
	{
		.flags = FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT,
		.cfg_flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK |
			     FXTPROF_CFG_USTACK | FXTPROF_CFG_SKIP_IDLE |
			     FXTPROF_CFG_UNWIND,
		.name = "cpu.sampling",
		.description = "perf timer samples with kernel and user stacks",
	},
	{
		.flags = FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT,
		.cfg_flags = FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT,
		.name = "task.lifecycle",
		.description = "fork, exec, exit and rename, and every thread at start",
	},
	{
		.flags = FXTPROF_SOURCE_AVAILABLE,
		.cfg_flags = FXTPROF_CFG_SCHED,
		.name = "sched.switch",
		.description = "context switches and wakeups",
	},
	{
		/* Its bit, so that --sources drops it from the default. */
		.cfg_flags = FXTPROF_CFG_ANNOTATE,
		.name = "app.annotations",
		.description = "module only",
	},
};

const unsigned int bpf_source_nr_data_sources =
	sizeof(bpf_source_data_sources) / sizeof(bpf_source_data_sources[0]);

struct bpf_record_source {
	struct source base;
	struct bpf_source bpf;
};

static struct bpf_source *loader(const struct source *src)
{
	return &((struct bpf_record_source *)src)->bpf;
}

/* The loader's sentence, as the source's. */
static int failed(struct source *src, int ret)
{
	snprintf(src->msg, sizeof(src->msg), "%s",
		 bpf_source__error(loader(src)));
	return ret;
}

/* Nothing to open before the configuration: the table is static. */
static int bpf_record_source__open(struct source *src,
				   const struct source_opts *opts)
{
	(void)src;
	(void)opts;
	return 0;
}

static int bpf_record_source__data_sources(struct source *src,
					   struct fxtprof_source *tab,
					   unsigned int max)
{
	unsigned int n = bpf_source_nr_data_sources;

	(void)src;
	if (n > max)
		n = max;
	memcpy(tab, bpf_source_data_sources, n * sizeof(*tab));
	return (int)n;
}

/* The prerequisites are checked here, once --sources has been resolved. */
static int bpf_record_source__configure(struct source *src,
					const struct fxtprof_config *cfg)
{
	struct fxtprof_config c = *cfg;
	int ret;

	/* Annotations need the module's device: not in this default. */
	c.flags &= ~FXTPROF_CFG_ANNOTATE;
	ret = bpf_source__open(loader(src), NULL);
	if (!ret)
		ret = bpf_source__configure(loader(src), &c);
	return ret ? failed(src, ret) : 0;
}

static void bpf_record_source__close(struct source *src)
{
	bpf_source__close(loader(src));
}

static int bpf_record_source__fd(const struct source *src)
{
	return bpf_source__fd(loader(src));
}

static int bpf_record_source__start(struct source *src)
{
	int ret = bpf_source__start(loader(src));

	return ret ? failed(src, ret) : 0;
}

static int bpf_record_source__stop(struct source *src)
{
	return bpf_source__stop(loader(src));
}

/* LOST records come from counters at every drain: nothing to push out. */
static int bpf_record_source__flush(struct source *src, __u64 *seq)
{
	*seq = 0;
	return bpf_source__flush(loader(src));
}

/* Drained once drained. */
static bool bpf_record_source__flush_done(const struct source *src,
					  __u64 seq)
{
	(void)src;
	(void)seq;
	return true;
}

static int bpf_record_source__drain(struct source *src, fxtprof_rec_cb cb,
				    void *ctx)
{
	unsigned int cpu;
	int ret = bpf_source__drain(loader(src), cb, ctx, &cpu);

	if (ret >= 0)
		return 0;
	snprintf(src->msg, sizeof(src->msg), "%s (CPU %u)",
		 bpf_source__error(loader(src)), cpu);
	return ret;
}

static void bpf_record_source__stats(struct source *src,
				     struct fxtprof_stats *total, FILE *report)
{
	bpf_source__stats(loader(src), total, report);
}

static int bpf_record_source__unwind_load(struct source *src,
					  struct fxtprof_unwind_table *t)
{
	return bpf_source__unwind_load(loader(src), t);
}

static int bpf_record_source__unwind_map(struct source *src,
					 const struct fxtprof_unwind_map *map)
{
	return bpf_source__unwind_map(loader(src), map);
}

static int bpf_record_source__unwind_unload(struct source *src, __u32 id)
{
	return bpf_source__unwind_unload(loader(src), id);
}

const struct source_ops bpf_source_ops = {
	.name		= "bpf",
	.desc		= "the bpf source",
	.size		= sizeof(struct bpf_record_source),
	.open		= bpf_record_source__open,
	.data_sources	= bpf_record_source__data_sources,
	.configure	= bpf_record_source__configure,
	.close		= bpf_record_source__close,
	.fd		= bpf_record_source__fd,
	.start		= bpf_record_source__start,
	.stop		= bpf_record_source__stop,
	.flush		= bpf_record_source__flush,
	.flush_done	= bpf_record_source__flush_done,
	.drain		= bpf_record_source__drain,
	.stats		= bpf_record_source__stats,
	.unwind_load	= bpf_record_source__unwind_load,
	.unwind_map	= bpf_record_source__unwind_map,
	.unwind_unload	= bpf_record_source__unwind_unload,
	.offcpu		= true,
};
