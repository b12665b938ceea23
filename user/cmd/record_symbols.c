// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_symbols.c - see record_symbols.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "record_collect.h"
#include "record_opts.h"
#include "record_symbols.h"
#include "record_unwind.h"
#include "source/source.h"
#include "state/stream_state.h"
#include "transport/clock.h"

static int ksym_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	const struct kernel_info *ki = ctx;
	const struct ksym_entry *e = kernel_info__lookup(ki, ip);

	if (!e)
		return 0;
	out->addr = e->addr;
	out->size = e->size;
	out->name = kernel_info__name(ki, e);
	return 1;
}

/* The source names the symbol; the query keeps the name until the next. */
static int source_ksym_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	struct record_symbols *rs = ctx;
	struct fxtprof_ksym_query *q = &rs->ksym_query;

	if (rs->src->ops->kernel_symbol(rs->src, ip, q))
		return 0;
	out->addr = q->start;
	out->size = (uint32_t)(q->len < KSYM_MAX_SIZE ? q->len : KSYM_MAX_SIZE);
	out->name = q->name;
	return 1;
}

/*
 * Whether @src names kernel symbols itself (the module, since ABI 8): it
 * must name the first function of the kernel's text.
 */
static bool source_names_kernel(struct record_symbols *rs, struct source *src)
{
	return src && src->ops->kernel_symbol && rs->kinfo.stext &&
	       !src->ops->kernel_symbol(src, rs->kinfo.stext, &rs->ksym_query);
}

/*
 * A mapping record on its way to the stream: its unwind table first, at
 * once for a mapping made while recording, at its process's first sample
 * for one swept at the start (@wait).
 */
static int unwind_then_write(struct record_symbols *rs,
			     const struct fxtprof_rec_hdr *rec, bool wait)
{
	if (rs->unwind && rec->type == FXTPROF_REC_MMAP)
		record_unwind__mapping(rs->unwind,
				       (const struct fxtprof_mmap *)rec, wait);
	if (rs->collect && rec->type == FXTPROF_REC_MMAP)
		record_collect__mapping(rs->collect,
					(const struct fxtprof_mmap *)rec, !wait);
	return stream_state__record(rs->state, rec);
}

static int mapping_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	return unwind_then_write(ctx, rec, false);
}

static int swept_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	return unwind_then_write(ctx, rec, true);
}

/*
 * Before sampling starts: the kernel's images, the side-band events for
 * mappings to come, then the mappings that exist (in that order, so that
 * none falls between the sweep and the events).
 */
void record_symbols__capture(struct record_symbols *rs,
			     const struct record_opts *o,
			     struct stream_state *state, struct source *src)
{
	bool may_name;
	int ret, n;

	rs->state = state;
	/*
	 * Symbols are kept only if the source cannot name them: a copy of
	 * kallsyms is about 2 MiB, a quarter of a board recorder's budget.
	 * A source that may (the module) is asked to name _stext first;
	 * kallsyms is read again only if it cannot (an older module, no
	 * CAP_SYSLOG).  Under TCG a read of kallsyms takes seconds.
	 */
	may_name = !o->no_ksyms && src && src->ops->kernel_symbol;
	ret = kernel_info__load(&rs->kinfo, NULL,
				!o->no_ksyms && !may_name);
	if (!ret && !rs->kinfo.restricted && may_name) {
		if (source_names_kernel(rs, src)) {
			rs->src = src;
		} else {
			kernel_info__fini(&rs->kinfo);
			ret = kernel_info__load(&rs->kinfo, NULL, true);
		}
	}
	if (ret) {
		reader_err(ret, "cannot read /proc/kallsyms: no kernel images or symbols in the stream");
	} else if (rs->kinfo.restricted) {
		fprintf(stderr, "fxtprof: /proc/kallsyms shows no addresses (kptr_restrict, or no CAP_SYSLOG): no kernel images or symbols in the stream\n");
	} else {
		n = kernel_info__write_kmods(&rs->kinfo, NULL,
					     clock_ns(CLOCK_BOOTTIME),
					     stream_state__record, state);
		rs->kmods = n > 0 ? (uint64_t)n : 0;
		if (rs->src)
			stream_state__set_ksym_lookup(state, source_ksym_lookup,
						      rs);
		else if (!o->no_ksyms)
			stream_state__set_ksym_lookup(state, ksym_lookup,
						      &rs->kinfo);
	}
	if (o->no_mmap)
		return;
	ret = perf_mmap_source__open(&rs->perf, 0);
	if (ret)
		reader_err(ret, "cannot open perf side-band events (needs CAP_PERFMON or perf_event_paranoid <= 0): mappings made while recording will be missing");
	ret = proc_maps__sweep(NULL, clock_ns(CLOCK_BOOTTIME),
			       swept_record, rs, &rs->sweep);
	if (ret)
		reader_err(ret, "cannot read /proc: no mappings at start");
}

void record_symbols__summary(const struct record_symbols *rs,
			     const struct record_opts *o,
			     const struct stream_stats *ts)
{
	if (o->no_mmap)
		fprintf(stderr, "fxtprof: mappings: off (--no-mmap)\n");
	else
		fprintf(stderr, "fxtprof: mappings: %" PRIu64 " written (%"
			PRIu64 " at start, %" PRIu64 " while recording), "
			"lost mapping records: %" PRIu64 "%s\n",
			ts->records[FXTPROF_REC_MMAP], rs->sweep.mappings,
			rs->perf.mappings, rs->perf.lost,
			rs->perf.nr ? "" : " (no side-band: later mappings missing)");
	fprintf(stderr, "fxtprof: kernel: %" PRIu64 " images, %" PRIu64
		" symbols written%s", rs->kmods, ts->ksyms,
		o->no_ksyms ? " (--no-ksyms)" :
		rs->kinfo.restricted ? " (kallsyms restricted)" :
		rs->src ? " (named by the module)" : "");
	if (ts->ksym_misses)
		fprintf(stderr, ", %" PRIu64 " kernel frames in no text symbol",
			ts->ksym_misses);
	fputc('\n', stderr);
}

void record_symbols__drain(struct record_symbols *rs)
{
	int ret;

	if (!rs->perf.nr || rs->perf_broken)
		return;
	ret = perf_mmap_source__drain(&rs->perf, mapping_record, rs);
	if (ret) {
		/* Said once; the recording goes on without it. */
		reader_err(ret, "a perf side-band ring is corrupt: mappings made from now on will be missing");
		rs->perf_broken = true;
	}
}

int record_symbols__fd(const struct record_symbols *rs)
{
	return rs->perf_broken ? -1 : perf_mmap_source__fd(&rs->perf);
}

void record_symbols__fini(struct record_symbols *rs)
{
	perf_mmap_source__close(&rs->perf);
	kernel_info__fini(&rs->kinfo);
}
