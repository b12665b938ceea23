// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_summary.c - the `--summary` section of `fxtprof report`: a short
 * summary of an FXT trace, fed in chunks (the symbolized report is
 * report_tree.c's and report_print.c's).
 *
 * Built on the FXT decoder (fxt_reader.h), so it reads any FXT stream, not
 * only fxtprof's: records by type, events by category:name, provider
 * overflow events, fxtprof's own counters (kernel_lost, output_dropped,
 * stats), the wall-clock time of the first event (from fxtprof's clock
 * object), samples per CPU, and the top processes and threads by samples
 * with the names their kernel-object records gave them.
 *
 * A sample is an instant event cpu / sample (fxt/fxt_profile.h); its
 * thread is the sampled thread and its cpu argument the CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fxt/fxt_profile.h"
#include "fxt/fxt_reader.h"
#include "util/array_grow.h"
#include "util/hmap.h"
#include "report_summary.h"

#define NAME_MAX_LEN	48
#define MAX_CPUS	1024
/* Distinct category:name pairs kept; the rest count as "(other names)". */
#define MAX_EVNAMES	4096

struct ent {
	uint64_t id;		/* pid or tid */
	uint64_t pid;		/* threads: their process */
	uint64_t samples;
	char name[NAME_MAX_LEN];
};

/* Processes or threads: e[] in the order met, indexed by id. */
struct table {
	struct hmap idx;	/* id -> index in e[] */
	struct ent *e;
	size_t n, cap;
};

/*
 * One category:name pair.  The key is the raw bytes, lengths included:
 * a category may hold any byte, NUL and ':' too, so the pair is never
 * compared as a C string.
 */
struct evname {
	char *key;		/* category bytes, then name bytes */
	uint32_t cat_len, name_len;
	uint64_t count;
};

struct report {
	struct fxt_reader *rd;
	struct fxt_record *rec;	/* the record being decoded (large) */
	int err;		/* first error: reading stops there */
	struct table procs, threads;
	struct hmap ev_idx;	/* evname_hash() -> index in ev[] */
	struct evname *ev;	/* at most MAX_EVNAMES, in the order met */
	size_t nev;
	uint64_t ev_other;
	uint64_t by_type[16];
	uint64_t records, bytes, warnings;
	uint64_t samples, stack_blobs, overflow_events;
	uint64_t stack_refs, stack_defs;	/* shared stacks (fxt_profile.h) */
	uint64_t per_cpu[MAX_CPUS];
	uint64_t cpu_other;
	int64_t first_ns, last_ns;
	bool have_ts;
	/* The first clock object's pair (fxt_profile.h). */
	bool have_clock;
	uint64_t clock_boot_ns, clock_realtime_ns;
	/* Last values of fxtprof's counters. */
	bool have_klost, have_odrop, have_stats;
	uint64_t klost_records, klost_bytes;
	uint64_t odrop_records, odrop_bytes;
	uint64_t st_samples, st_records, st_lost, st_unreported;
};

static struct ent *table_get(struct table *t, uint64_t id)
{
	uint64_t *i;
	int ret = hmap__get_or_add(&t->idx, id, &i);

	if (ret < 0)
		return NULL;
	if (!ret)
		return &t->e[*i];
	if (array_grow((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e))) {
		hmap__del(&t->idx, id);
		return NULL;
	}
	*i = t->n;
	t->e[t->n] = (struct ent){ .id = id };
	return &t->e[t->n++];
}

static void table_free(struct table *t)
{
	hmap__free(&t->idx);
	free(t->e);
}

static void set_name(struct ent *e, const struct fxt_str *s)
{
	size_t n = s->len < NAME_MAX_LEN - 1 ? s->len : NAME_MAX_LEN - 1;

	memcpy(e->name, s->data, n);
	e->name[n] = 0;
}

/* FNV-1a over the category, its length, then the name. */
static uint64_t evname_hash(const struct fxt_str *c, const struct fxt_str *n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < c->len; i++)
		h = (h ^ (unsigned char)c->data[i]) * 0x100000001b3ull;
	h = (h ^ c->len) * 0x100000001b3ull;
	for (i = 0; i < n->len; i++)
		h = (h ^ (unsigned char)n->data[i]) * 0x100000001b3ull;
	return h;
}

struct evname_probe {
	const struct evname *ev;
	const struct fxt_str *c, *n;
};

static bool evname_is(const void *ctx, const struct hmap_slot *slot)
{
	const struct evname_probe *p = ctx;
	const struct evname *e = &p->ev[slot->key];
	const struct fxt_str *c = p->c, *n = p->n;

	return e->cat_len == c->len &&
	       e->name_len == n->len &&
	       !memcmp(e->key, c->data, c->len) &&
	       !memcmp(e->key + c->len, n->data, n->len);
}

static void count_event_name(struct report *rp, const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category, *n = &rec->event.name;
	struct evname_probe probe = { .ev = rp->ev, .c = c, .n = n };
	uint64_t hash = evname_hash(c, n);
	struct hmap_slot *hit = hmap__find(&rp->ev_idx, hash, evname_is,
					   &probe);
	struct evname *e;

	if (hit) {
		rp->ev[hit->key].count++;
		return;
	}
	if (rp->nev == MAX_EVNAMES) {
		rp->ev_other++;
		return;
	}
	if (!rp->ev && !(rp->ev = calloc(MAX_EVNAMES, sizeof(*rp->ev)))) {
		rp->ev_other++;
		return;
	}
	e = &rp->ev[rp->nev];
	e->key = malloc((size_t)c->len + n->len + 1);
	if (!e->key || hmap__add(&rp->ev_idx, hash, rp->nev, 0, NULL)) {
		free(e->key);
		e->key = NULL;
		rp->ev_other++;
		return;
	}
	memcpy(e->key, c->data, c->len);
	memcpy(e->key + c->len, n->data, n->len);
	e->cat_len = c->len;
	e->name_len = n->len;
	e->count = 1;
	rp->nev++;
}

static void on_event(struct report *rp, const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category, *n = &rec->event.name;

	count_event_name(rp, rec);
	if (rec->subtype == FXT_EVENT_INSTANT &&
	    fxt_str__is(c, FXT_PROFILE_CAT_CPU) &&
	    fxt_str__is(n, FXT_PROFILE_EV_SAMPLE)) {
		struct ent *p = table_get(&rp->procs, rec->thread.pid);
		struct ent *t = table_get(&rp->threads, rec->thread.tid);
		const struct fxt_argv *a =
			fxt_record__arg(rec, FXT_PROFILE_ARG_CPU);

		rp->samples++;
		if (rec->nargs > 3 &&
		    fxt_record__arg(rec, FXT_PROFILE_ARG_STACK))
			rp->stack_refs++;
		if (p)
			p->samples++;
		if (t) {
			t->samples++;
			t->pid = rec->thread.pid;
		}
		if (a && a->type == FXT_ARG_UINT32 && a->v.u32 < MAX_CPUS)
			rp->per_cpu[a->v.u32]++;
		else
			rp->cpu_other++;
		return;
	}
	if (rec->subtype != FXT_EVENT_COUNTER ||
	    !fxt_str__is(c, FXT_PROFILE_CAT_META))
		return;
	if (fxt_str__is(n, FXT_PROFILE_EV_KERNEL_LOST)) {
		rp->have_klost = true;
		rp->klost_records =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_RECORDS);
		rp->klost_bytes =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_BYTES);
	} else if (fxt_str__is(n, FXT_PROFILE_EV_OUTPUT_DROPPED)) {
		/* Each notice carries the running totals. */
		rp->have_odrop = true;
		rp->odrop_records =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_RECORDS);
		rp->odrop_bytes =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_BYTES);
	} else if (fxt_str__is(n, FXT_PROFILE_EV_STATS)) {
		rp->have_stats = true;
		rp->st_samples =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_SAMPLES);
		rp->st_records =
			fxt_record__arg_uint_or0(rec, FXT_PROFILE_ARG_RECORDS);
		rp->st_lost = fxt_record__arg_uint_or0(rec,
					FXT_PROFILE_ARG_LOST_RECORDS);
		rp->st_unreported = fxt_record__arg_uint_or0(rec,
					FXT_PROFILE_ARG_LOST_UNREPORTED);
	}
}

static void on_record(struct report *rp, struct fxt_reader *r,
		      const struct fxt_record *rec)
{
	int64_t ns;

	rp->records++;
	rp->bytes += (uint64_t)rec->size * 8;
	rp->by_type[rec->type & 15]++;
	if (rec->warn_rule)
		rp->warnings++;
	if (rec->has_ts && !fxt_reader__ticks_to_ns(r, rec->ts, &ns)) {
		if (!rp->have_ts || ns < rp->first_ns)
			rp->first_ns = ns;
		if (!rp->have_ts || ns > rp->last_ns)
			rp->last_ns = ns;
		rp->have_ts = true;
	}
	switch (rec->type) {
	case FXT_REC_EVENT:
		on_event(rp, rec);
		break;
	case FXT_REC_METADATA:
		if (rec->subtype == FXT_META_PROVIDER_EVENT &&
		    rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_OVERFLOW)
			rp->overflow_events++;
		break;
	case FXT_REC_KERNEL_OBJ: {
		struct ent *e;

		if (rec->subtype == FXT_KOBJ_PROCESS) {
			e = table_get(&rp->procs, rec->kobj.koid);
			if (e)
				set_name(e, &rec->kobj.name);
		} else if (rec->subtype == FXT_KOBJ_THREAD) {
			e = table_get(&rp->threads, rec->kobj.koid);
			if (e) {
				set_name(e, &rec->kobj.name);
				if (fxt_record__arg(rec,
						    FXT_PROFILE_ARG_PROCESS))
					e->pid = fxt_record__arg_uint_or0(rec,
						FXT_PROFILE_ARG_PROCESS);
			}
		} else if (rec->subtype == FXT_KOBJ_CLOCK && !rp->have_clock &&
			   fxt_record__arg(rec, FXT_PROFILE_ARG_BOOT_NS) &&
			   fxt_record__arg(rec, FXT_PROFILE_ARG_REALTIME_NS)) {
			rp->clock_boot_ns = fxt_record__arg_uint_or0(rec,
						FXT_PROFILE_ARG_BOOT_NS);
			rp->clock_realtime_ns = fxt_record__arg_uint_or0(rec,
						FXT_PROFILE_ARG_REALTIME_NS);
			rp->have_clock = true;
		}
		break;
	}
	case FXT_REC_LARGE:
		if (rec->subtype == FXT_LARGE_BLOB && !rec->large.category.len &&
		    !rec->large.name.len)
			rp->stack_blobs++;
		break;
	case FXT_REC_BLOB:
		if (fxt_str__is(&rec->blob.name, FXT_PROFILE_STACK_DEF))
			rp->stack_defs++;
		break;
	}
}

static int by_samples(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_count(const void *a, const void *b)
{
	const struct evname *x = a, *y = b;
	uint32_t xl = x->cat_len + x->name_len, yl = y->cat_len + y->name_len;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->cat_len != y->cat_len)
		return x->cat_len < y->cat_len ? -1 : 1;
	c = memcmp(x->key, y->key, xl < yl ? xl : yl);
	return c ? c : (xl > yl) - (xl < yl);
}

/*
 * Bytes as text: NUL, control bytes and backslash escaped as \xNN.
 * Returns the characters printed.
 */
static int put_escaped(FILE *f, const char *p, uint32_t len)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch < 0x20 || ch == 0x7f || ch == '\\') {
			fprintf(f, "\\x%02x", ch);
			n += 4;
		} else {
			fputc(ch, f);
			n++;
		}
	}
	return n;
}

static void print_top(FILE *f, struct table *t, const char *what,
		      unsigned int top, uint64_t total, bool threads)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		if (t->e[i].samples)
			t->e[n++] = t->e[i];
	/* The table is consumed: compacted and sorted in place. */
	hmap__clear(&t->idx);
	t->n = 0;
	if (n)
		qsort(t->e, n, sizeof(*t->e), by_samples);
	fprintf(f, "\ntop %s by samples (%zu with samples):\n", what, n);
	if (threads)
		fprintf(f, "  %10s %6s %8s %8s  %s\n", "samples", "%", "pid",
			"tid", "name");
	else
		fprintf(f, "  %10s %6s %8s  %s\n", "samples", "%", "pid", "name");
	for (i = 0; i < n && i < top; i++) {
		struct ent *e = &t->e[i];
		double pct = total ? 100.0 * (double)e->samples / (double)total : 0;

		/* Linux's idle tasks are pid/tid 0 and have no record. */
		if (!e->name[0] && !e->id)
			strcpy(e->name, "[idle]");

		if (threads)
			fprintf(f, "  %10" PRIu64 " %6.2f %8" PRIu64 " %8" PRIu64
				"  %s\n", e->samples, pct, e->pid, e->id,
				e->name[0] ? e->name : "?");
		else
			fprintf(f, "  %10" PRIu64 " %6.2f %8" PRIu64 "  %s\n",
				e->samples, pct, e->id,
				e->name[0] ? e->name : "?");
	}
}

/*
 * "first event at 2026-12-03 20:31:05.123456789 UTC": the first event's
 * time on the wall clock of the recorder's clock object, when there is
 * one (perf report's "captured on").
 */
static void print_wall_clock(FILE *f, const struct report *rp)
{
	int64_t off = rp->first_ns - (int64_t)rp->clock_boot_ns;
	uint64_t wall;
	char when[64];
	struct tm tm;
	time_t secs;

	if (!rp->have_ts || !rp->have_clock)
		return;
	if (off < 0 && (uint64_t)-off > rp->clock_realtime_ns)
		return;
	wall = rp->clock_realtime_ns + (uint64_t)off;
	secs = (time_t)(wall / 1000000000u);
	if (!gmtime_r(&secs, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		return;
	fprintf(f, "first event at %s.%09" PRIu64 " UTC (the recorder's wall clock)\n",
		when, wall % 1000000000u);
}

void report__print(struct report *rp, FILE *f, const char *path,
		   unsigned int top)
{
	size_t i, nev;
	unsigned int ncpu = 0;

	fprintf(f, "%s: %" PRIu64 " records, %" PRIu64 " bytes", path,
		rp->records, rp->bytes);
	if (rp->have_ts)
		fprintf(f, ", %.3f s of events",
			(double)(rp->last_ns - rp->first_ns) / 1e9);
	if (rp->warnings)
		fprintf(f, ", %" PRIu64 " records with warnings", rp->warnings);
	fputc('\n', f);
	print_wall_clock(f, rp);
	fprintf(f, "\nrecords by type:\n");
	for (i = 0; i < 16; i++)
		if (rp->by_type[i])
			fprintf(f, "  %-16s %10" PRIu64 "\n",
				fxt_record_type__name((unsigned int)i),
				rp->by_type[i]);

	/* The name table is consumed too: sorted in place. */
	nev = rp->nev;
	hmap__clear(&rp->ev_idx);
	if (nev)
		qsort(rp->ev, nev, sizeof(*rp->ev), by_count);
	fprintf(f, "\nevents by category:name:\n");
	for (i = 0; i < nev; i++) {
		const struct evname *e = &rp->ev[i];
		int w;

		fputs("  ", f);
		w = put_escaped(f, e->key, e->cat_len);
		fputc(':', f);
		w += 1 + put_escaped(f, e->key + e->cat_len, e->name_len);
		/* As "%-28s" would: padded to 28 columns. */
		fprintf(f, "%*s %10" PRIu64 "\n", w < 28 ? 28 - w : 0, "",
			e->count);
	}
	if (rp->ev_other)
		fprintf(f, "  %-28s %10" PRIu64 "\n", "(other names)",
			rp->ev_other);

	fprintf(f, "\nsamples: %" PRIu64 " (stack blobs %" PRIu64,
		rp->samples, rp->stack_blobs);
	if (rp->stack_refs || rp->stack_defs)
		fprintf(f, "; shared stacks %" PRIu64 ", named by %" PRIu64
			" samples", rp->stack_defs, rp->stack_refs);
	fputs(")\n", f);
	for (i = 0; i < MAX_CPUS; i++)
		if (rp->per_cpu[i])
			ncpu++;
	if (ncpu) {
		fprintf(f, "samples per CPU (%u CPUs):", ncpu);
		for (i = 0; i < MAX_CPUS; i++)
			if (rp->per_cpu[i])
				fprintf(f, " cpu%zu=%" PRIu64, i, rp->per_cpu[i]);
		if (rp->cpu_other)
			fprintf(f, " other=%" PRIu64, rp->cpu_other);
		fputc('\n', f);
	}
	fprintf(f, "overflow events: %" PRIu64 "\n", rp->overflow_events);
	if (rp->have_klost)
		fprintf(f, "kernel lost (fxtprof:kernel_lost): %" PRIu64
			" records, %" PRIu64 " bytes\n", rp->klost_records,
			rp->klost_bytes);
	else
		fprintf(f, "kernel lost (fxtprof:kernel_lost): none reported\n");
	if (rp->have_odrop)
		fprintf(f, "output dropped (fxtprof:output_dropped): %" PRIu64
			" records, %" PRIu64 " bytes\n", rp->odrop_records,
			rp->odrop_bytes);
	if (rp->have_stats)
		fprintf(f, "kernel statistics (fxtprof:stats): %" PRIu64
			" samples, %" PRIu64 " records, %" PRIu64 " lost, %"
			PRIu64 " lost unreported\n", rp->st_samples,
			rp->st_records, rp->st_lost, rp->st_unreported);
	else
		fprintf(f, "kernel statistics (fxtprof:stats): missing "
			"(recording cut short?)\n");

	print_top(f, &rp->procs, "processes", top, rp->samples, false);
	print_top(f, &rp->threads, "threads", top, rp->samples, true);
}

int report__new(struct report **out)
{
	struct report *rp = calloc(1, sizeof(*rp));
	int err;

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	rp->rec = malloc(sizeof(*rp->rec));
	if (!rp->rec) {
		err = -ENOMEM;
		goto err_free_report;
	}
	err = fxt_reader__new(FXT_READER_LENIENT, &rp->rd);
	if (err)
		goto err_free_rec;
	*out = rp;
	return 0;

err_free_rec:
	free(rp->rec);
err_free_report:
	free(rp);
	return err;
}

void report__free(struct report *rp)
{
	size_t i;

	if (!rp)
		return;
	for (i = 0; i < rp->nev; i++)
		free(rp->ev[i].key);
	free(rp->ev);
	hmap__free(&rp->ev_idx);
	table_free(&rp->procs);
	table_free(&rp->threads);
	fxt_reader__free(rp->rd);
	free(rp->rec);
	free(rp);
}

int report__feed(struct report *rp, const void *data, size_t len)
{
	int err;

	if (rp->err)
		return rp->err;
	/* Decode as we go: the reader holds at most one partial record. */
	err = len ? fxt_reader__feed(rp->rd, data, len) : 0;
	while (!err && (err = fxt_reader__next(rp->rd, rp->rec)) > 0) {
		on_record(rp, rp->rd, rp->rec);
		err = 0;
	}
	if (err < 0)
		rp->err = err;
	return err < 0 ? err : 0;
}

int report__finish(struct report *rp)
{
	if (!rp->err)
		rp->err = fxt_reader__finish(rp->rd);
	return rp->err;
}

const struct fxt_error *report__error(const struct report *rp)
{
	const struct fxt_error *e = fxt_reader__error(rp->rd);

	return e && e->rule ? e : NULL;
}

uint64_t report__event_count(const struct report *rp, const char *cat,
			     size_t cat_len, const char *name, size_t name_len)
{
	struct fxt_str c = { .data = cat, .len = (uint32_t)cat_len };
	struct fxt_str n = { .data = name, .len = (uint32_t)name_len };
	struct evname_probe probe = { .ev = rp->ev, .c = &c, .n = &n };
	struct hmap_slot *hit = hmap__find(&rp->ev_idx, evname_hash(&c, &n),
					   evname_is, &probe);

	return hit ? rp->ev[hit->key].count : 0;
}

uint64_t report__events_other(const struct report *rp)
{
	return rp->ev_other;
}

uint64_t report__records(const struct report *rp)
{
	return rp->records;
}
