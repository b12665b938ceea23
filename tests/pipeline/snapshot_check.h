/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_check.h - what the flight recorder's tests check in a
 * snapshot, shared by the host test (tests/pipeline/test_flight_window.c)
 * and the VM test (tests/reader/test_flight.c): it passes the checker,
 * every thread an event names has a kernel object naming it before, and
 * the first and last sample time on each CPU; the triggers it holds;
 * where the kernel symbols are (snap_ksym_placement()).
 */
#ifndef FXTPROF_SNAPSHOT_CHECK_H
#define FXTPROF_SNAPSHOT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

#define SNAP_MAX_CPUS	64
#define SNAP_MAX_TIDS	8192

struct snap_info {
	int err;			/* checker or reader failure */
	char errmsg[256];
	uint64_t records, samples, events;
	uint64_t cpu_first[SNAP_MAX_CPUS], cpu_last[SNAP_MAX_CPUS];
	uint64_t cpus;			/* bit n: samples on CPU n */
	uint64_t unnamed;		/* events on a thread named nowhere before */
	uint64_t first_unnamed_tid, first_unnamed_pid;
	/*
	 * Set before snap_analyze(): threads of this process are not held to
	 * being named.  The recorder's own io_uring workers are made by
	 * create_io_thread(), which fires no sched_process_fork: no stream
	 * names them, a snapshot no more than a recording.
	 */
	uint64_t ignore_pid;
	uint64_t triggers;		/* fxtprof:trigger events */
	char trigger[64];		/* the first one's name */
	uint64_t trigger_ts;
	uint64_t mappings, ksyms, kmods;
	/*
	 * Kernel symbols against the kernel frames of the same segment's
	 * samples: a frame whose function the segment names only after it;
	 * a function named twice in a segment; one no sample of its segment
	 * hits (a flight window's evicted samples leave those behind).  A
	 * segment ends at the next magic record; a flight snapshot has one
	 * for all its segments, each naming its functions again.
	 */
	uint64_t ksym_late, ksym_twice, ksym_unused;
	uint64_t ntids;
	uint64_t tids[SNAP_MAX_TIDS];	/* named so far */
};

static inline bool snap_str_is(const struct fxt_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

static inline bool snap_named(const struct snap_info *si, uint64_t tid)
{
	for (uint64_t i = 0; i < si->ntids; i++)
		if (si->tids[i] == tid)
			return true;
	return false;
}

static inline void snap_thread(struct snap_info *si, const struct fxt_thr *t)
{
	if (snap_named(si, t->tid) || (si->ignore_pid && t->pid == si->ignore_pid))
		return;
	if (!si->unnamed) {
		si->first_unnamed_tid = t->tid;
		si->first_unnamed_pid = t->pid;
	}
	si->unnamed++;
}

/* The kernel symbols and kernel frames of one segment, in stream order. */
struct snap_ksyms {
	struct snap_ksym { uint64_t addr, end, at; bool used; } *syms;
	struct snap_frame { uint64_t ip, at; } *frames;
	size_t nsyms, nframes, syms_cap, frames_cap;
	uint64_t pending_kframes;	/* of the sample whose blob comes next */
};

static inline uint64_t snap_arg_uint(const struct fxt_argv *a)
{
	return a->type == FXT_ARG_UINT32 ? a->v.u32 :
	       a->type == FXT_ARG_UINT64 ? a->v.u64 : 0;
}

static inline void *snap_grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 256;
	v = realloc(v, *cap * size);
	if (!v)
		abort();
	return v;
}

static inline int snap_ksym_cmp(const void *a, const void *b)
{
	const struct snap_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Judge one segment's symbols and frames, then forget them. */
static inline void snap_ksym_placement(struct snap_ksyms *k,
				       struct snap_info *si)
{
	size_t n = 0;

	/* By address, each kept at its first naming. */
	if (k->nsyms)	/* no array yet: qsort's pointer must not be NULL */
		qsort(k->syms, k->nsyms, sizeof(*k->syms), snap_ksym_cmp);
	for (size_t i = 0; i < k->nsyms; i++) {
		if (n && k->syms[i].addr == k->syms[n - 1].addr) {
			si->ksym_twice++;
			continue;
		}
		k->syms[n++] = k->syms[i];
	}
	k->nsyms = n;
	for (size_t i = 0; i < k->nframes; i++) {
		const struct snap_frame *f = &k->frames[i];
		size_t lo = 0, hi = k->nsyms;

		while (lo < hi) {		/* first symbol above the ip */
			size_t mid = lo + (hi - lo) / 2;

			if (k->syms[mid].addr <= f->ip)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || f->ip >= k->syms[lo - 1].end)
			continue;	/* a function nobody names: allowed */
		if (k->syms[lo - 1].at > f->at)
			si->ksym_late++;
		k->syms[lo - 1].used = true;
	}
	for (size_t i = 0; i < k->nsyms; i++)
		si->ksym_unused += !k->syms[i].used;
	k->nsyms = k->nframes = 0;
	k->pending_kframes = 0;
}

static inline void snap_ksym_record(struct snap_ksyms *k,
				    const struct fxt_record *rec,
				    struct snap_info *si)
{
	if (rec->type == FXT_REC_METADATA && rec->size == 1 &&
	    rec->words[0] == 0x0016547846040010ull) {
		snap_ksym_placement(k, si);	/* a new segment */
	} else if (rec->type == FXT_REC_KERNEL_OBJ && rec->subtype == 0x82) {
		uint64_t size = 0;

		for (unsigned int i = 0; i < rec->nargs; i++)
			if (snap_str_is(&rec->args[i].name, "size"))
				size = snap_arg_uint(&rec->args[i]);
		if (!size)
			size = 1;	/* a label still holds its address */
		k->syms = snap_grow(k->syms, &k->syms_cap, k->nsyms,
				    sizeof(*k->syms));
		k->syms[k->nsyms++] = (struct snap_ksym){
			.addr = rec->kobj.koid, .end = rec->kobj.koid + size,
			.at = si->records,
		};
	} else if (rec->type == FXT_REC_EVENT &&
		   snap_str_is(&rec->event.name, "sample")) {
		k->pending_kframes = 0;
		for (unsigned int i = 0; i < rec->nargs; i++)
			if (snap_str_is(&rec->args[i].name, "kframes"))
				k->pending_kframes =
					snap_arg_uint(&rec->args[i]);
	} else if (rec->type == FXT_REC_LARGE && k->pending_kframes) {
		const uint64_t *ip = rec->large.data;
		uint64_t n = rec->large.len / 8;

		if (n > k->pending_kframes)
			n = k->pending_kframes;
		for (uint64_t i = 0; i < n; i++) {
			k->frames = snap_grow(k->frames, &k->frames_cap,
					      k->nframes, sizeof(*k->frames));
			k->frames[k->nframes++] = (struct snap_frame){
				.ip = ip[i], .at = si->records,
			};
		}
		k->pending_kframes = 0;
	}
}

static inline void snap_analyze(const void *buf, size_t len,
				struct snap_info *si)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	struct snap_ksyms ks = { 0 };
	struct fxt_reader *r = NULL;
	struct fxt_error e;
	int ret;

	uint64_t ignore = si->ignore_pid;

	memset(si, 0, sizeof(*si));
	si->ignore_pid = ignore;
	if (fxt_check_buffer(buf, len, &e)) {
		si->err = -EPROTO;
		snprintf(si->errmsg, sizeof(si->errmsg), "check: offset %llu: %s: %s",
			 (unsigned long long)e.offset, e.rule, e.msg);
		free(rec);
		return;
	}
	if (!rec || fxt_reader__new(0, &r)) {
		si->err = -ENOMEM;
		free(rec);
		return;
	}
	ret = fxt_reader__feed(r, buf, len);
	while (!ret && (ret = fxt_reader__next(r, rec)) > 0) {
		ret = 0;
		si->records++;
		snap_ksym_record(&ks, rec, si);
		if (rec->type == FXT_REC_KERNEL_OBJ) {
			if (rec->subtype == FXT_KOBJ_THREAD &&
			    si->ntids < SNAP_MAX_TIDS && !snap_named(si, rec->kobj.koid))
				si->tids[si->ntids++] = rec->kobj.koid;
			si->mappings += rec->subtype == 0x80;
			si->kmods += rec->subtype == 0x81;
			si->ksyms += rec->subtype == 0x82;
			continue;
		}
		if (rec->type == FXT_REC_LARGE) {
			snap_thread(si, &rec->thread);
			continue;
		}
		if (rec->type != FXT_REC_EVENT)
			continue;
		si->events++;
		/* Counters are on the reader's own thread, named or not. */
		if (snap_str_is(&rec->event.category, "fxtprof") &&
		    !snap_str_is(&rec->event.name, "trigger"))
			continue;
		snap_thread(si, &rec->thread);
		if (snap_str_is(&rec->event.category, "cpu") &&
		    snap_str_is(&rec->event.name, "sample")) {
			uint64_t cpu = SNAP_MAX_CPUS;

			for (unsigned int i = 0; i < rec->nargs; i++)
				if (snap_str_is(&rec->args[i].name, "cpu"))
					cpu = rec->args[i].v.u32;
			si->samples++;
			if (cpu >= SNAP_MAX_CPUS)
				continue;
			if (!(si->cpus & (1ull << cpu)) || rec->ts < si->cpu_first[cpu])
				si->cpu_first[cpu] = rec->ts;
			if (rec->ts > si->cpu_last[cpu])
				si->cpu_last[cpu] = rec->ts;
			si->cpus |= 1ull << cpu;
		} else if (snap_str_is(&rec->event.category, "fxtprof") &&
			   snap_str_is(&rec->event.name, "trigger")) {
			/* The first one: later ones may follow it in. */
			if (si->triggers++)
				continue;
			si->trigger_ts = rec->ts;
			for (unsigned int i = 0; i < rec->nargs; i++) {
				const struct fxt_argv *a = &rec->args[i];
				size_t n = a->v.str.len < 63 ? a->v.str.len : 63;

				if (!snap_str_is(&a->name, "name") ||
				    a->type != FXT_ARG_STRING)
					continue;
				memcpy(si->trigger, a->v.str.data, n);
				si->trigger[n] = 0;
			}
		}
	}
	if (ret < 0) {
		si->err = ret;
		snprintf(si->errmsg, sizeof(si->errmsg), "reader: %s",
			 fxt_reader__error(r)->msg);
	}
	snap_ksym_placement(&ks, si);
	free(ks.syms);
	free(ks.frames);
	fxt_reader__free(r);
	free(rec);
}

#endif /* FXTPROF_SNAPSHOT_CHECK_H */
