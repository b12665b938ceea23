// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_source.c - the module's per-CPU rings as a record source
 * (source.h): /dev/fxtprof through libfxtprof (user/lib), which maps the
 * rings and consumes them.  A flush is complete once the drains passed
 * its marker on every ring (Documentation/protocol.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source/source.h"

struct ring_source {
	struct source base;
	struct fxtprof_dev *dev;
};

static struct ring_source *ring_source(const struct source *src)
{
	return (struct ring_source *)src;
}

static const char *device_path(const struct source_opts *opts)
{
	return opts->device ? opts->device : FXTPROF_DEVICE;
}

static int ring_source__probe(const struct source_opts *opts, char *why,
			      size_t len)
{
	const char *dev = device_path(opts);
	int present = !access(dev, F_OK);

	snprintf(why, len, "%s %s", dev, present ? "exists" : "does not exist");
	return present;
}

static int ring_source__open(struct source *src,
			     const struct source_opts *opts)
{
	int ret = fxtprof_dev__open(opts->device, &ring_source(src)->dev);

	if (ret)
		snprintf(src->msg, sizeof(src->msg), "cannot open %s (is "
			 "fxtprof.ko loaded? --source bpf needs no module)",
			 device_path(opts));
	return ret;
}

/* The module describes its data sources itself: FXTPROF_IOC_GET_SOURCE. */
static int ring_source__data_sources(struct source *src,
				     struct fxtprof_source *tab,
				     unsigned int max)
{
	int n = fxtprof_dev__sources(ring_source(src)->dev, tab, max);

	if (n < 0)
		snprintf(src->msg, sizeof(src->msg),
			 "cannot read the module's data sources");
	return n;
}

static int ring_source__configure(struct source *src,
				  const struct fxtprof_config *cfg)
{
	int ret = fxtprof_dev__configure(ring_source(src)->dev, cfg);

	if (ret)
		snprintf(src->msg, sizeof(src->msg),
			 "cannot configure the session");
	return ret;
}

static void ring_source__close(struct source *src)
{
	fxtprof_dev__close(ring_source(src)->dev);
	ring_source(src)->dev = NULL;
}

static int ring_source__fd(const struct source *src)
{
	return fxtprof_dev__fd(ring_source(src)->dev);
}

static int ring_source__start(struct source *src)
{
	return fxtprof_dev__start(ring_source(src)->dev);
}

static int ring_source__stop(struct source *src)
{
	return fxtprof_dev__stop(ring_source(src)->dev);
}

static int ring_source__flush(struct source *src, __u64 *seq)
{
	return fxtprof_dev__flush(ring_source(src)->dev, seq);
}

static bool ring_source__flush_done(const struct source *src, __u64 seq)
{
	return fxtprof_dev__flush_done(ring_source(src)->dev, seq);
}

static int ring_source__drain(struct source *src, fxtprof_rec_cb cb,
			      void *ctx)
{
	struct fxtprof_dev *dev = ring_source(src)->dev;
	unsigned int cpu, n = fxtprof_dev__nr_rings(dev);
	int ret;

	for (cpu = 0; cpu < n; cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);

		if (!ring)
			continue;
		ret = fxtprof_ring__drain(ring, cb, ctx);
		if (ret < 0) {
			snprintf(src->msg, sizeof(src->msg),
				 "ring of CPU %u is corrupt", cpu);
			return ret;
		}
	}
	return 0;
}

static void ring_source__stats(struct source *src,
			       struct fxtprof_stats *total, FILE *report)
{
	struct fxtprof_dev *dev = ring_source(src)->dev;
	unsigned int cpu, n = fxtprof_dev__nr_rings(dev);
	struct fxtprof_stats st;

	memset(total, 0, sizeof(*total));
	for (cpu = 0; cpu < n; cpu++) {
		if (!fxtprof_dev__ring(dev, cpu) ||
		    fxtprof_dev__stats(dev, cpu, &st))
			continue;
		total->records += st.records;
		total->bytes += st.bytes;
		total->samples += st.samples;
		total->lost_records += st.lost_records;
		total->lost_bytes += st.lost_bytes;
		total->lost_unreported += st.lost_unreported;
		total->timer_overruns += st.timer_overruns;
		total->handler_ns += st.handler_ns;
		total->handler_calls += st.handler_calls;
		total->ustack_faults += st.ustack_faults;
		total->unwind_table_frames += st.unwind_table_frames;
		total->unwind_fp_frames += st.unwind_fp_frames;
		total->unwind_rule_frames += st.unwind_rule_frames;
		for (unsigned int i = 0; i < FXTPROF_USTACK_END_SLOTS; i++)
			total->ustack_ends[i] += st.ustack_ends[i];
		if (report && st.lost_records)
			fprintf(report, "fxtprof: CPU %u ring lost %llu"
				" records (%llu bytes)\n", cpu,
				(unsigned long long)st.lost_records,
				(unsigned long long)st.lost_bytes);
	}
}

static int ring_source__unwind_load(struct source *src,
				    struct fxtprof_unwind_table *t)
{
	return fxtprof_dev__unwind_load(ring_source(src)->dev, t);
}

static int ring_source__unwind_map(struct source *src,
				   const struct fxtprof_unwind_map *map)
{
	return fxtprof_dev__unwind_map(ring_source(src)->dev, map);
}

static int ring_source__unwind_unload(struct source *src, __u32 id)
{
	return fxtprof_dev__unwind_unload(ring_source(src)->dev, id);
}

static int ring_source__kernel_symbol(struct source *src, __u64 addr,
				      struct fxtprof_ksym_query *q)
{
	return fxtprof_dev__ksym(ring_source(src)->dev, addr, q);
}

const struct source_ops ring_source_ops = {
	.name		= "module",
	.desc		= "the module",
	.size		= sizeof(struct ring_source),
	.probe		= ring_source__probe,
	.open		= ring_source__open,
	.data_sources	= ring_source__data_sources,
	.configure	= ring_source__configure,
	.close		= ring_source__close,
	.fd		= ring_source__fd,
	.start		= ring_source__start,
	.stop		= ring_source__stop,
	.flush		= ring_source__flush,
	.flush_done	= ring_source__flush_done,
	.drain		= ring_source__drain,
	.stats		= ring_source__stats,
	.unwind_load	= ring_source__unwind_load,
	.unwind_map	= ring_source__unwind_map,
	.unwind_unload	= ring_source__unwind_unload,
	.kernel_symbol	= ring_source__kernel_symbol,
	.stack_copy	= true,
	.offcpu		= true,
};
