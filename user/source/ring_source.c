// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_source.c - see ring_source.h.
 */
#include <string.h>

#include "ring_source.h"

int ring_source__open(struct ring_source *src, const char *device)
{
	src->dev = NULL;
	return fxtprof_dev__open(device, &src->dev);
}

int ring_source__configure(struct ring_source *src,
			   const struct fxtprof_config *cfg)
{
	return fxtprof_dev__configure(src->dev, cfg);
}

void ring_source__close(struct ring_source *src)
{
	fxtprof_dev__close(src->dev);
	src->dev = NULL;
}

int ring_source__fd(const struct ring_source *src)
{
	return fxtprof_dev__fd(src->dev);
}

int ring_source__start(struct ring_source *src)
{
	return fxtprof_dev__start(src->dev);
}

int ring_source__stop(struct ring_source *src)
{
	return fxtprof_dev__stop(src->dev);
}

int ring_source__flush(struct ring_source *src, __u64 *seq)
{
	return fxtprof_dev__flush(src->dev, seq);
}

int ring_source__flush_done(const struct ring_source *src, __u64 seq)
{
	return fxtprof_dev__flush_done(src->dev, seq);
}

int ring_source__drain(struct ring_source *src, fxtprof_rec_cb cb, void *ctx,
		       unsigned int *bad_cpu)
{
	unsigned int cpu, n = fxtprof_dev__nr_rings(src->dev);
	int ret;

	for (cpu = 0; cpu < n; cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(src->dev, cpu);

		if (!ring)
			continue;
		ret = fxtprof_ring__drain(ring, cb, ctx);
		if (ret < 0) {
			*bad_cpu = cpu;
			return ret;
		}
	}
	return 0;
}

void ring_source__stats(struct ring_source *src, struct fxtprof_stats *total,
			FILE *report)
{
	unsigned int cpu, n = fxtprof_dev__nr_rings(src->dev);
	struct fxtprof_stats st;

	memset(total, 0, sizeof(*total));
	for (cpu = 0; cpu < n; cpu++) {
		if (!fxtprof_dev__ring(src->dev, cpu) ||
		    fxtprof_dev__stats(src->dev, cpu, &st))
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
		if (report && st.lost_records)
			fprintf(report, "fxtprof: CPU %u ring lost %llu"
				" records (%llu bytes)\n", cpu,
				(unsigned long long)st.lost_records,
				(unsigned long long)st.lost_bytes);
	}
}
