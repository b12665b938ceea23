// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile_annot.c - annotations as intervals, and which intervals each
 * sample was taken in (profile_annot.h).
 *
 * The loader hands over begin and end marks in file order.  The stream
 * is merged from per-CPU rings, so a thread's marks are sorted here, not
 * trusted to be in order: by (thread, time, file position) to replay the
 * duration stacks, by (process, key, time, position) for the sections.
 * Then one sweep per thread over its intervals (by begin) and its samples
 * (by time) gives every sample its context: a node of a prefix tree whose
 * path from the root is the list of intervals, so that samples in the
 * same intervals share one node and a sample costs one 32-bit index.
 * The samples come as a strided view of the loader's records
 * (struct profile_annot_samples): nothing here calls back into
 * profile.c, whose header is read for struct profile_sample only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array_grow.h"
#include "fxt/fxt.h"
#include "fxt/fxt_profile.h"
#include "fxt/fxt_reader.h"
#include "profile.h"		/* struct profile_sample */
#include "profile_annot.h"

enum mark_phase { MARK_BEGIN, MARK_END };

struct mark {
	uint64_t ts, seq, id;
	uint32_t pid, tid;
	const char *name;
	uint8_t kind;		/* enum profile_annot_kind */
	uint8_t phase;
};

/* A context: annotation annot inside the context parent (0 = none). */
struct ctx_node {
	uint32_t annot;
	uint32_t parent;
	uint32_t depth;		/* intervals on the path, this one included */
};

struct ctx_slot {
	uint64_t key;		/* parent << 32 | annot */
	uint32_t node;		/* 0: empty */
};

struct profile_annots {
	struct mark *marks;
	size_t nr_marks, cap_marks;
	struct profile_annot *iv;
	size_t nr_iv, cap_iv;
	struct ctx_node *nodes;		/* [0]: the empty context */
	size_t nr_nodes, cap_nodes;
	struct ctx_slot *slots;
	size_t cap_slots;
	uint32_t *sample_ctx;		/* per sample; NULL: no intervals */
	size_t nr_samples;
	struct profile_annot_stats st;
};

int profile_annots__new(struct profile_annots **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void profile_annots__free(struct profile_annots *a)
{
	if (!a)
		return;
	free(a->marks);
	free(a->iv);
	free(a->nodes);
	free(a->slots);
	free(a->sample_ctx);
	free(a);
}

int profile_annots__is_annotation(const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category;

	switch (rec->subtype) {
	case FXT_EVENT_DURATION_BEGIN:
	case FXT_EVENT_DURATION_END:
		return fxt_str__is(c, FXT_PROFILE_CAT_REGION) ||
		       fxt_str__is(c, FXT_PROFILE_CAT_KERNEL);
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_END:
		return fxt_str__is(c, FXT_PROFILE_CAT_SECTION);
	case FXT_EVENT_INSTANT:
		return fxt_str__is(c, FXT_PROFILE_CAT_EVENT);
	}
	return 0;
}

int profile_annots__add(struct profile_annots *a, const struct fxt_record *rec,
			uint64_t ts, uint64_t seq, const char *name)
{
	struct mark m = {
		.ts = ts, .seq = seq, .name = name,
		.pid = (uint32_t)rec->thread.pid,
		.tid = (uint32_t)rec->thread.tid,
	};

	switch (rec->subtype) {
	case FXT_EVENT_INSTANT:
		a->st.events++;
		return 0;
	case FXT_EVENT_DURATION_BEGIN:
	case FXT_EVENT_DURATION_END:
		m.phase = rec->subtype == FXT_EVENT_DURATION_BEGIN ?
			  MARK_BEGIN : MARK_END;
		if (fxt_str__is(&rec->event.category, FXT_PROFILE_CAT_KERNEL)) {
			m.kind = PROFILE_ANNOT_KERNEL;
			m.id = fxt_record__arg_uint_or0(rec,
						 FXT_PROFILE_ARG_KERNEL_ID);
		} else {
			m.kind = PROFILE_ANNOT_REGION;
		}
		break;
	default:
		m.phase = rec->subtype == FXT_EVENT_ASYNC_BEGIN ?
			  MARK_BEGIN : MARK_END;
		m.kind = PROFILE_ANNOT_SECTION;
		m.id = rec->event.payload;
		break;
	}
	if (array_grow((void **)&a->marks, &a->cap_marks, a->nr_marks + 1,
		 sizeof(*a->marks)))
		return -ENOMEM;
	a->marks[a->nr_marks++] = m;
	return 0;
}

/* ---- intervals ------------------------------------------------------ */

static int cmp_u64(uint64_t x, uint64_t y)
{
	return (x > y) - (x < y);
}

static int cmp_mark(const void *pa, const void *pb)
{
	const struct mark *x = pa, *y = pb;
	int c;

	/* Sections sort after every duration mark: replayed apart. */
	if ((c = (x->kind == PROFILE_ANNOT_SECTION) -
		 (y->kind == PROFILE_ANNOT_SECTION)))
		return c;
	if (x->kind == PROFILE_ANNOT_SECTION) {
		if ((c = cmp_u64(x->pid, y->pid)) || (c = cmp_u64(x->id, y->id)))
			return c;
	} else if ((c = cmp_u64(x->pid, y->pid)) ||
		   (c = cmp_u64(x->tid, y->tid))) {
		return c;
	}
	if ((c = cmp_u64(x->ts, y->ts)))
		return c;
	return cmp_u64(x->seq, y->seq);
}

static struct profile_annot *iv_new(struct profile_annots *a,
				    const struct mark *m)
{
	struct profile_annot *v;

	if (array_grow((void **)&a->iv, &a->cap_iv, a->nr_iv + 1, sizeof(*a->iv)) ||
	    a->nr_iv >= UINT32_MAX - 1)
		return NULL;
	v = &a->iv[a->nr_iv++];
	memset(v, 0, sizeof(*v));
	v->name = m->name;
	v->begin = m->ts;
	v->end = UINT64_MAX;
	v->id = m->id;
	v->pid = m->pid;
	v->tid = m->tid;
	v->kind = m->kind;
	a->st.by_kind[m->kind]++;
	return v;
}

/*
 * Whether end mark m closes open interval v: same kind, and same name,
 * as every end carries its begin's (an end without a name closes the
 * innermost of its kind).  Names are interned: pointers compare.
 */
static bool closes(const struct mark *m, const struct profile_annot *v)
{
	return v->kind == m->kind && (!m->name[0] || v->name == m->name);
}

/*
 * Regions and kernels of one thread, marks[from, to): one stack.  An end
 * closes the innermost open interval it names; any opened inside it and
 * still open end with it (counted), as they cannot outlive it: their own
 * end was lost, or never written.
 */
static int replay_durations(struct profile_annots *a, size_t from, size_t to)
{
	uint32_t top = 0;	/* interval index + 1 */
	size_t i;

	for (i = from; i < to; i++) {
		const struct mark *m = &a->marks[i];
		struct profile_annot *v;
		uint32_t o;

		if (m->phase == MARK_BEGIN) {
			uint32_t depth = top ? a->iv[top - 1].depth + 1u : 0;

			v = iv_new(a, m);
			if (!v)
				return -ENOMEM;
			v->parent = top;
			v->depth = depth > UINT16_MAX ? UINT16_MAX : (uint16_t)depth;
			top = (uint32_t)a->nr_iv;
			continue;
		}
		for (o = top; o && !closes(m, &a->iv[o - 1]);
		     o = a->iv[o - 1].parent)
			;
		if (!o) {
			a->st.unmatched_ends++;
			continue;
		}
		for (; top != o; top = a->iv[top - 1].parent) {
			a->iv[top - 1].end = m->ts;
			a->st.closed_by_outer++;
		}
		a->iv[o - 1].end = m->ts;
		top = a->iv[o - 1].parent;
	}
	for (; top; top = a->iv[top - 1].parent)
		a->st.open_at_end++;
	return 0;
}

/* The marks of one section key of one process, marks[from, to). */
static int replay_section(struct profile_annots *a, size_t from, size_t to)
{
	uint32_t open = 0;	/* interval index + 1 */
	size_t i;

	for (i = from; i < to; i++) {
		const struct mark *m = &a->marks[i];
		struct profile_annot *v;

		if (m->phase == MARK_BEGIN) {
			if (open) {
				a->st.section_rebegun++;
				continue;
			}
			v = iv_new(a, m);
			if (!v)
				return -ENOMEM;
			open = (uint32_t)a->nr_iv;
		} else if (open) {
			a->iv[open - 1].end = m->ts;
			open = 0;
		} else {
			a->st.unmatched_ends++;
		}
	}
	if (open)
		a->st.open_at_end++;
	return 0;
}

static bool same_group(const struct mark *x, const struct mark *y)
{
	if (x->kind == PROFILE_ANNOT_SECTION || y->kind == PROFILE_ANNOT_SECTION)
		return x->kind == y->kind && x->pid == y->pid && x->id == y->id;
	return x->pid == y->pid && x->tid == y->tid;
}

static int build_intervals(struct profile_annots *a)
{
	size_t i, end;
	int ret;

	if (a->nr_marks > 1)
		qsort(a->marks, a->nr_marks, sizeof(*a->marks), cmp_mark);
	for (i = 0; i < a->nr_marks; i = end) {
		for (end = i + 1; end < a->nr_marks &&
		     same_group(&a->marks[i], &a->marks[end]); end++)
			;
		if (a->marks[i].kind == PROFILE_ANNOT_SECTION)
			ret = replay_section(a, i, end);
		else
			ret = replay_durations(a, i, end);
		if (ret)
			return ret;
	}
	free(a->marks);
	a->marks = NULL;
	a->nr_marks = a->cap_marks = 0;
	return 0;
}

/* ---- contexts ------------------------------------------------------- */

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int slots_grow(struct profile_annots *a)
{
	size_t ncap = a->cap_slots ? 2 * a->cap_slots : 1024, i;
	struct ctx_slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < a->cap_slots; i++) {
		size_t j;

		if (!a->slots[i].node)
			continue;
		for (j = slot_of(a->slots[i].key, ncap); n[j].node;
		     j = (j + 1) & (ncap - 1))
			;
		n[j] = a->slots[i];
	}
	free(a->slots);
	a->slots = n;
	a->cap_slots = ncap;
	return 0;
}

/* The context "annot inside parent", made if new; 0 on ENOMEM. */
static uint32_t ctx_child(struct profile_annots *a, uint32_t parent,
			  uint32_t annot)
{
	uint64_t key = (uint64_t)parent << 32 | annot;
	struct ctx_node *nd;
	size_t i;

	if (2 * (a->nr_nodes + 1) > a->cap_slots && slots_grow(a))
		return 0;
	for (i = slot_of(key, a->cap_slots); a->slots[i].node;
	     i = (i + 1) & (a->cap_slots - 1))
		if (a->slots[i].key == key)
			return a->slots[i].node;
	if (a->nr_nodes >= UINT32_MAX ||
	    array_grow((void **)&a->nodes, &a->cap_nodes, a->nr_nodes + 1,
		 sizeof(*a->nodes)))
		return 0;
	nd = &a->nodes[a->nr_nodes];
	nd->annot = annot;
	nd->parent = parent;
	nd->depth = a->nodes[parent].depth + 1;
	a->slots[i].key = key;
	a->slots[i].node = (uint32_t)a->nr_nodes;
	return (uint32_t)a->nr_nodes++;
}

static int cmp_iv(const void *pa, const void *pb, void *ctx)
{
	const struct profile_annots *a = ctx;
	const struct profile_annot *x = &a->iv[*(const uint32_t *)pa];
	const struct profile_annot *y = &a->iv[*(const uint32_t *)pb];
	int c;

	if ((c = cmp_u64(x->pid, y->pid)) || (c = cmp_u64(x->tid, y->tid)) ||
	    (c = cmp_u64(x->begin, y->begin)))
		return c;
	/* At one time: durations (outer first), then sections. */
	if ((c = (x->kind == PROFILE_ANNOT_SECTION) -
		 (y->kind == PROFILE_ANNOT_SECTION)))
		return c;
	if ((c = cmp_u64(x->depth, y->depth)))
		return c;
	return cmp_u64(*(const uint32_t *)pa, *(const uint32_t *)pb);
}

static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
	return (uint64_t)pid << 32 | tid;
}

/*
 * The threads that have intervals, in ivs[] order: keys[t] and the
 * first of its intervals in ivs, first[t] (first[nt] = nr_iv).
 */
struct thread_index {
	uint64_t *keys;
	size_t *first;
	size_t nt;
};

static int thread_index__build(struct thread_index *ti,
			       const struct profile_annots *a,
			       const uint32_t *ivs)
{
	size_t i;

	ti->keys = malloc(a->nr_iv * sizeof(*ti->keys));
	ti->first = malloc((a->nr_iv + 1) * sizeof(*ti->first));
	ti->nt = 0;
	if (!ti->keys || !ti->first)
		return -ENOMEM;
	for (i = 0; i < a->nr_iv; i++) {
		const struct profile_annot *v = &a->iv[ivs[i]];
		uint64_t k = thread_key(v->pid, v->tid);

		if (ti->nt && ti->keys[ti->nt - 1] == k)
			continue;
		ti->keys[ti->nt] = k;
		ti->first[ti->nt++] = i;
	}
	ti->first[ti->nt] = a->nr_iv;
	return 0;
}

/* The index of thread k in ti, or ti->nt if it has no interval. */
static size_t thread_index__find(const struct thread_index *ti, uint64_t k)
{
	size_t lo = 0, hi = ti->nt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ti->keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ti->nt && ti->keys[lo] == k ? lo : ti->nt;
}

static void thread_index__free(struct thread_index *ti)
{
	free(ti->keys);
	free(ti->first);
}

/* The context of the active intervals: durations first, then sections. */
static uint32_t ctx_of(struct profile_annots *a, const uint32_t *active,
		       size_t n)
{
	uint32_t node = 0;
	unsigned int pass;
	size_t k;

	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < n; k++) {
			bool section = a->iv[active[k]].kind ==
				       PROFILE_ANNOT_SECTION;

			if (section != (pass == 1))
				continue;
			node = ctx_child(a, node, active[k]);
			if (!node)
				return 0;
		}
	return node;
}

/*
 * One thread: its intervals ivs[0, niv) by begin, its samples smp[0, ns)
 * in time order.  The active list holds the intervals begun at or before
 * the sample, less those ended at or before it.
 */
static const struct profile_sample *
sample_at(const struct profile_annot_samples *ss, size_t i)
{
	return (const void *)((const char *)ss->first + i * ss->stride);
}

static int sweep_thread(struct profile_annots *a,
			const struct profile_annot_samples *ss,
			const uint32_t *ivs, size_t niv, const size_t *smp,
			size_t ns, uint32_t **active, size_t *cap_active)
{
	size_t nr_active = 0, vi = 0, i;
	uint32_t cur = 0;
	bool dirty = false;

	for (i = 0; i < ns; i++) {
		uint64_t ts = sample_at(ss, smp[i])->ts;
		size_t k, kept;

		for (; vi < niv && a->iv[ivs[vi]].begin <= ts; vi++) {
			if (array_grow((void **)active, cap_active, nr_active + 1,
				 sizeof(**active)))
				return -ENOMEM;
			(*active)[nr_active++] = ivs[vi];
			dirty = true;
		}
		for (k = kept = 0; k < nr_active; k++)
			if (a->iv[(*active)[k]].end > ts)
				(*active)[kept++] = (*active)[k];
		if (kept != nr_active) {
			nr_active = kept;
			dirty = true;
		}
		if (dirty) {
			cur = nr_active ? ctx_of(a, *active, nr_active) : 0;
			if (nr_active && !cur)
				return -ENOMEM;
			dirty = false;
		}
		a->sample_ctx[smp[i]] = cur;
	}
	return 0;
}

/*
 * The samples of each thread that has intervals, in time order: a
 * counting sort by thread of samples already sorted by time, so that no
 * comparison sort of all the samples is needed.  order[start[t],
 * start[t + 1]) are thread t's.
 */
static int group_samples(const struct profile_annot_samples *ss,
			 const struct thread_index *ti, size_t **order,
			 size_t **start)
{
	size_t ns = ss->nr, i, *fill;
	size_t *thr = malloc((ns ? ns : 1) * sizeof(*thr));

	*order = malloc((ns ? ns : 1) * sizeof(**order));
	*start = calloc(ti->nt + 2, sizeof(**start));
	fill = calloc(ti->nt + 1, sizeof(*fill));
	if (!thr || !*order || !*start || !fill) {
		free(thr);
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < ns; i++) {
		const struct profile_sample *s = sample_at(ss, i);

		thr[i] = thread_index__find(ti, thread_key(s->pid, s->tid));
		(*start)[thr[i] + 1]++;
	}
	for (i = 1; i <= ti->nt + 1; i++)
		(*start)[i] += (*start)[i - 1];
	for (i = 0; i < ns; i++)
		(*order)[(*start)[thr[i]] + fill[thr[i]]++] = i;
	free(thr);
	free(fill);
	return 0;
}

int profile_annots__index(struct profile_annots *a,
			  const struct profile_annot_samples *ss)
{
	size_t ns = ss->nr, i, t, cap_active = 0;
	struct thread_index ti = { 0 };
	size_t *order = NULL, *start = NULL;
	uint32_t *ivs = NULL, *active = NULL;
	int ret;

	ret = build_intervals(a);
	if (ret || !a->nr_iv || !ns)
		return ret;
	a->nodes = calloc(1, sizeof(*a->nodes));
	a->sample_ctx = calloc(ns, sizeof(*a->sample_ctx));
	ivs = malloc(a->nr_iv * sizeof(*ivs));
	if (!a->nodes || !a->sample_ctx || !ivs) {
		ret = -ENOMEM;
		goto out_free;
	}
	a->nr_nodes = a->cap_nodes = 1;
	a->nr_samples = ns;
	for (i = 0; i < a->nr_iv; i++)
		ivs[i] = (uint32_t)i;
	if (a->nr_iv > 1)
		qsort_r(ivs, a->nr_iv, sizeof(*ivs), cmp_iv, a);
	ret = thread_index__build(&ti, a, ivs);
	if (!ret)
		ret = group_samples(ss, &ti, &order, &start);
	/* Samples of threads without intervals (t == nt) stay at 0. */
	for (t = 0; !ret && t < ti.nt; t++)
		ret = sweep_thread(a, ss, ivs + ti.first[t],
				   ti.first[t + 1] - ti.first[t],
				   order + start[t], start[t + 1] - start[t],
				   &active, &cap_active);
out_free:
	free(active);
	free(order);
	free(start);
	thread_index__free(&ti);
	free(ivs);
	return ret;
}

/* ---- queries -------------------------------------------------------- */

size_t profile_annots__nr(const struct profile_annots *a)
{
	return a->nr_iv;
}

const struct profile_annot *profile_annots__get(const struct profile_annots *a,
						size_t i)
{
	return i < a->nr_iv ? &a->iv[i] : NULL;
}

void profile_annots__stats(const struct profile_annots *a,
			   struct profile_annot_stats *st)
{
	*st = a->st;
}

unsigned int profile_annots__of_sample(const struct profile_annots *a,
				       size_t i,
				       const struct profile_annot **out,
				       unsigned int max)
{
	uint32_t node, n, k;

	if (!a->sample_ctx || i >= a->nr_samples)
		return 0;
	node = a->sample_ctx[i];
	n = a->nodes[node].depth;
	for (k = n; node; node = a->nodes[node].parent)
		if (--k < max)
			out[k] = &a->iv[a->nodes[node].annot];
	return n;
}
