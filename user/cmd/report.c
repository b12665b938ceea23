// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - `fxtprof report FILE|-`: a short summary of an FXT trace.
 *
 * Built on the FXT decoder (fxt_reader.h), so it reads any FXT stream, not
 * only fxtprof's: records by type, events by category:name, provider
 * overflow events, fxtprof's own counters (kernel_lost, output_dropped,
 * stats), samples per CPU, and the top processes and threads by samples
 * with the names their kernel-object records gave them.
 *
 * A sample is an instant event "cpu"/"sample" (encode/fxt_encoder.h); its thread
 * is the sampled thread and its "cpu" argument the CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fxt/fxt_reader.h"

#define CHUNK		(256 * 1024)
#define NAME_MAX_LEN	48
#define MAX_CPUS	1024
#define MAX_EVNAMES	4096

struct ent {
	uint64_t key;		/* pid or tid; 0 = empty slot (key + 1 stored) */
	uint64_t pid;		/* threads: their process */
	uint64_t samples;
	char name[NAME_MAX_LEN];
};

struct table {
	struct ent *e;
	size_t cap, n;
};

struct evname {
	char *name;		/* "category:name" */
	uint64_t count;
};

struct report {
	struct table procs, threads;
	struct evname *ev;
	size_t nev;
	uint64_t ev_other;
	uint64_t by_type[16];
	uint64_t records, bytes, warnings;
	uint64_t samples, stack_blobs, overflow_events;
	uint64_t per_cpu[MAX_CPUS];
	uint64_t cpu_other;
	int64_t first_ns, last_ns;
	bool have_ts;
	/* Last values of fxtprof's counters. */
	bool have_klost, have_odrop, have_stats;
	uint64_t klost_records, klost_bytes;
	uint64_t odrop_records, odrop_bytes;
	uint64_t st_samples, st_records, st_lost, st_unreported;
};

static bool str_is(const struct fxt_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && !memcmp(s->data, lit, n);
}

static struct ent *table_get(struct table *t, uint64_t key)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct table nt = { .cap = t->cap ? 2 * t->cap : 1024 };

		nt.e = calloc(nt.cap, sizeof(*nt.e));
		if (!nt.e)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->e[i].key)
				continue;
			j = (t->e[i].key * 0x9e3779b97f4a7c15ull) >> 20;
			for (j &= nt.cap - 1; nt.e[j].key; j = (j + 1) & (nt.cap - 1))
				;
			nt.e[j] = t->e[i];
		}
		nt.n = t->n;
		free(t->e);
		*t = nt;
	}
	i = ((key + 1) * 0x9e3779b97f4a7c15ull) >> 20;
	for (i &= t->cap - 1; t->e[i].key; i = (i + 1) & (t->cap - 1))
		if (t->e[i].key == key + 1)
			return &t->e[i];
	t->e[i].key = key + 1;
	t->n++;
	return &t->e[i];
}

static void set_name(struct ent *e, const struct fxt_str *s)
{
	size_t n = s->len < NAME_MAX_LEN - 1 ? s->len : NAME_MAX_LEN - 1;

	memcpy(e->name, s->data, n);
	e->name[n] = 0;
}

static void count_event_name(struct report *rp, const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category, *n = &rec->event.name;
	size_t i;
	char *s;

	for (i = 0; i < rp->nev; i++) {
		s = rp->ev[i].name;
		if (!strncmp(s, c->data ? c->data : "", c->len) && s[c->len] == ':' &&
		    !strncmp(s + c->len + 1, n->data ? n->data : "", n->len) &&
		    !s[c->len + 1 + n->len]) {
			rp->ev[i].count++;
			/* Keep hot names at the front. */
			if (i) {
				struct evname tmp = rp->ev[i];

				rp->ev[i] = rp->ev[i - 1];
				rp->ev[i - 1] = tmp;
			}
			return;
		}
	}
	if (rp->nev == MAX_EVNAMES || (!(rp->nev & 63) &&
	    !(rp->ev = reallocarray(rp->ev, rp->nev + 64, sizeof(*rp->ev))))) {
		rp->ev_other++;
		if (!rp->ev)
			rp->nev = 0;
		return;
	}
	if (asprintf(&s, "%.*s:%.*s", (int)c->len, c->data ? c->data : "",
		     (int)n->len, n->data ? n->data : "") < 0) {
		rp->ev_other++;
		return;
	}
	rp->ev[rp->nev].name = s;
	rp->ev[rp->nev++].count = 1;
}

static const struct fxt_argv *arg(const struct fxt_record *rec,
				  const char *name)
{
	unsigned int i;

	for (i = 0; i < rec->nargs; i++)
		if (str_is(&rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

static uint64_t arg_uint(const struct fxt_record *rec, const char *name)
{
	const struct fxt_argv *a = arg(rec, name);

	if (!a)
		return 0;
	switch (a->type) {
	case FXT_ARG_INT32: return (uint64_t)(int64_t)a->v.i32;
	case FXT_ARG_UINT32: return a->v.u32;
	case FXT_ARG_INT64: return (uint64_t)a->v.i64;
	case FXT_ARG_UINT64: return a->v.u64;
	case FXT_ARG_KOID: return a->v.koid;
	}
	return 0;
}

static void on_event(struct report *rp, const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category, *n = &rec->event.name;

	count_event_name(rp, rec);
	if (rec->subtype == FXT_EVENT_INSTANT && str_is(c, "cpu") &&
	    str_is(n, "sample")) {
		struct ent *p = table_get(&rp->procs, rec->thread.pid);
		struct ent *t = table_get(&rp->threads, rec->thread.tid);
		const struct fxt_argv *a = arg(rec, "cpu");

		rp->samples++;
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
	if (rec->subtype != FXT_EVENT_COUNTER || !str_is(c, "fxtprof"))
		return;
	if (str_is(n, "fxtprof:kernel_lost")) {
		rp->have_klost = true;
		rp->klost_records = arg_uint(rec, "records");
		rp->klost_bytes = arg_uint(rec, "bytes");
	} else if (str_is(n, "fxtprof:output_dropped")) {
		/* Each notice carries the running totals. */
		rp->have_odrop = true;
		rp->odrop_records = arg_uint(rec, "records");
		rp->odrop_bytes = arg_uint(rec, "bytes");
	} else if (str_is(n, "fxtprof:stats")) {
		rp->have_stats = true;
		rp->st_samples = arg_uint(rec, "samples");
		rp->st_records = arg_uint(rec, "records");
		rp->st_lost = arg_uint(rec, "lost_records");
		rp->st_unreported = arg_uint(rec, "lost_unreported");
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
				if (arg(rec, "process"))
					e->pid = arg_uint(rec, "process");
			}
		}
		break;
	}
	case FXT_REC_LARGE:
		if (rec->subtype == FXT_LARGE_BLOB && !rec->large.category.len &&
		    !rec->large.name.len)
			rp->stack_blobs++;
		break;
	}
}

static int by_samples(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int by_count(const void *a, const void *b)
{
	const struct evname *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_top(FILE *f, struct table *t, const char *what,
		      unsigned int top, uint64_t total, bool threads)
{
	size_t i, n = 0;

	for (i = 0; i < t->cap; i++)
		if (t->e[i].key && t->e[i].samples)
			t->e[n++] = t->e[i];
	/* The table is consumed: compacted and sorted in place. */
	t->n = 0;
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
		if (!e->name[0] && e->key == 1)
			strcpy(e->name, "[idle]");

		if (threads)
			fprintf(f, "  %10" PRIu64 " %6.2f %8" PRIu64 " %8" PRIu64
				"  %s\n", e->samples, pct, e->pid, e->key - 1,
				e->name[0] ? e->name : "?");
		else
			fprintf(f, "  %10" PRIu64 " %6.2f %8" PRIu64 "  %s\n",
				e->samples, pct, e->key - 1,
				e->name[0] ? e->name : "?");
	}
}

static void print_report(FILE *f, struct report *rp, const char *path,
			 unsigned int top)
{
	size_t i;
	unsigned int ncpu = 0;

	fprintf(f, "%s: %" PRIu64 " records, %" PRIu64 " bytes", path,
		rp->records, rp->bytes);
	if (rp->have_ts)
		fprintf(f, ", %.3f s of events",
			(double)(rp->last_ns - rp->first_ns) / 1e9);
	if (rp->warnings)
		fprintf(f, ", %" PRIu64 " records with warnings", rp->warnings);
	fprintf(f, "\n\nrecords by type:\n");
	for (i = 0; i < 16; i++)
		if (rp->by_type[i])
			fprintf(f, "  %-16s %10" PRIu64 "\n",
				fxt_record_type__name((unsigned int)i),
				rp->by_type[i]);

	qsort(rp->ev, rp->nev, sizeof(*rp->ev), by_count);
	fprintf(f, "\nevents by category:name:\n");
	for (i = 0; i < rp->nev; i++)
		fprintf(f, "  %-28s %10" PRIu64 "\n", rp->ev[i].name,
			rp->ev[i].count);
	if (rp->ev_other)
		fprintf(f, "  %-28s %10" PRIu64 "\n", "(other names)",
			rp->ev_other);

	fprintf(f, "\nsamples: %" PRIu64 " (stack blobs %" PRIu64 ")\n",
		rp->samples, rp->stack_blobs);
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

static int report_usage(FILE *f)
{
	fprintf(f, "usage: fxtprof report [-n N] FILE|-\n"
		   "  summarize an FXT trace: records by type, events by name,\n"
		   "  losses, and the top N (default 10) processes and threads\n"
		   "  by samples\n");
	return 2;
}

int cmd_report(int argc, char **argv)
{
	struct report rp = { 0 };
	struct fxt_record *rec = NULL;
	struct fxt_reader *r = NULL;
	const char *path = NULL;
	unsigned int top = 10;
	char *chunk = NULL;
	FILE *in = NULL;
	int i, err = 0, ret = 1;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			report_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			char *end;

			top = (unsigned int)strtoul(argv[++i], &end, 10);
			if (*end || !top)
				return report_usage(stderr);
		} else if (!path && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
			path = argv[i];
		} else {
			return report_usage(stderr);
		}
	}
	if (!path)
		return report_usage(stderr);
	in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in) {
		reader_err(errno, "%s", path);
		return 2;
	}
	rec = malloc(sizeof(*rec));
	chunk = malloc(CHUNK);
	if (!rec || !chunk || fxt_reader__new(FXT_READER_LENIENT, &r)) {
		reader_err(ENOMEM, "report");
		goto out;
	}
	for (;;) {
		size_t got = fread(chunk, 1, CHUNK, in);

		if (got && (err = fxt_reader__feed(r, chunk, got)))
			break;
		while ((err = fxt_reader__next(r, rec)) > 0)
			on_record(&rp, r, rec);
		if (err < 0 || got < CHUNK)
			break;
	}
	if (ferror(in)) {
		reader_err(EIO, "%s", path);
		goto out;
	}
	if (!err)
		err = fxt_reader__finish(r);
	print_report(stdout, &rp, path, top);
	if (err) {
		const struct fxt_error *e = fxt_reader__error(r);

		if (e && e->rule)
			fprintf(stderr, "fxtprof report: stopped at offset 0x%"
				PRIx64 ": %s: %s\n", e->offset, e->rule, e->msg);
		else
			reader_err(err, "report: %s", path);
		goto out;
	}
	ret = 0;
out:
	for (k = 0; k < rp.nev; k++)
		free(rp.ev[k].name);
	free(rp.ev);
	free(rp.procs.e);
	free(rp.threads.e);
	fxt_reader__free(r);
	free(chunk);
	free(rec);
	if (in && in != stdin)
		fclose(in);
	return ret;
}
