// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_summary.c - see archive_summary.h.  What the sections hold and
 * their bytes: Documentation/archive-format.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_format.h"
#include "archive_set.h"
#include "archive_summary.h"
#include "fxt/fxt_profile.h"
#include "fxt/fxt_reader.h"

/* A name as it held from t_from on (t_to set when replaced). */
struct name_span {
	uint32_t kind;
	uint64_t pid, tid, t_from, t_to;
	size_t name_off;
	uint32_t name_len;
};

/* The metrics section is this struct's words: archive-format.md. */
static_assert(sizeof(struct archive_metrics) == 47 * 8, "metrics layout");

struct cpu_windows {
	uint32_t *n;
	size_t len, cap;
};

struct arch_summary {
	struct archive_metrics m;
	struct fxt_reader *rd;
	bool rd_failed;
	struct fxt_record rec;
	/*
	 * fxtprof's sample events, learnt from the first one the reader
	 * decodes in a segment: their header word and cpu argument header,
	 * constant while the string table is.  Later samples are read
	 * straight from their words.
	 */
	bool fast;
	uint64_t fast_hdr, fast_cpu;

	struct arch_set threads;	/* key (pid, tid) */
	uint64_t *thread_samples;
	struct arch_set processes;	/* key pid */
	uint64_t *process_samples;
	size_t tcap, pcap;
	/* The sets' indexes of recent threads, by tid: samples repeat them. */
	struct {
		uint64_t pid, tid;
		uint32_t thread, process;
		bool valid;
	} recent[1024];

	bool have_t0;
	uint64_t t0;
	struct cpu_windows *cpu;
	size_t ncpus;

	struct arch_set name_keys;	/* key (kind, pid, tid) */
	size_t *name_cur;		/* by key: its current span */
	size_t name_cur_cap;
	struct name_span *spans;
	size_t nspans, spans_cap;
	struct arch_buf name_bytes;

	/* Each distinct entry once: the sets find them, the bytes hold them. */
	struct arch_set mappings, kimages, ksyms;
	struct arch_buf mapping_bytes, kimage_bytes, ksym_bytes;
};

int arch_summary__new(struct arch_summary **sp)
{
	struct arch_summary *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*sp = s;
	return 0;
}

void arch_summary__free(struct arch_summary *s)
{
	if (!s)
		return;
	fxt_reader__free(s->rd);
	arch_set__fini(&s->threads);
	arch_set__fini(&s->processes);
	free(s->thread_samples);
	free(s->process_samples);
	for (size_t i = 0; i < s->ncpus; i++)
		free(s->cpu[i].n);
	free(s->cpu);
	arch_set__fini(&s->name_keys);
	free(s->name_cur);
	free(s->spans);
	arch_buf__fini(&s->name_bytes);
	arch_set__fini(&s->mappings);
	arch_set__fini(&s->kimages);
	arch_set__fini(&s->ksyms);
	arch_buf__fini(&s->mapping_bytes);
	arch_buf__fini(&s->kimage_bytes);
	arch_buf__fini(&s->ksym_bytes);
	free(s);
}

struct archive_metrics *arch_summary__metrics(struct arch_summary *s)
{
	return &s->m;
}

int arch_summary__chunk_begin(struct arch_summary *s, bool continuation)
{
	if (continuation && s->rd)
		return 0;
	fxt_reader__free(s->rd);
	s->rd = NULL;
	s->rd_failed = false;
	s->fast = false;
	return fxt_reader__new(0, &s->rd);
}

/* A string argument, empty when absent. */
static struct fxt_str arg_str(const struct fxt_record *r, const char *name)
{
	struct fxt_str v = { "", 0, 0 };

	fxt_record__arg_str(r, name, &v);
	return v;
}

static int grow_u64(uint64_t **v, size_t *cap, size_t need)
{
	uint64_t *p;
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + *cap, 0, (c - *cap) * sizeof(*p));
	*v = p;
	*cap = c;
	return 0;
}

/* Window counts are u32: 2^32 samples in 100 ms on one CPU cannot be. */
static int count_window(struct arch_summary *s, uint32_t cpu, uint64_t ts)
{
	const uint64_t W = ARCH_SUMMARY_WINDOW_NS;
	struct cpu_windows *c;
	uint64_t w;

	if (cpu >= ARCH_SUMMARY_MAX_CPUS)
		return 0;
	if (!s->have_t0) {
		s->t0 = ts - ts % W;
		s->have_t0 = true;
	}
	if (ts < s->t0) {
		/* CPUs are drained in turn: an earlier sample may come later. */
		uint64_t t0 = ts - ts % W, shift = (s->t0 - t0) / W;

		if (shift > (1u << 20))
			return 0;
		for (size_t i = 0; i < s->ncpus; i++) {
			c = &s->cpu[i];
			if (!c->len)
				continue;
			uint32_t *p = realloc(c->n, (c->len + shift) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			memmove(p + shift, p, c->len * sizeof(*p));
			memset(p, 0, shift * sizeof(*p));
			c->n = p;
			c->len += shift;
			c->cap = c->len;
		}
		s->t0 = t0;
	}
	w = (ts - s->t0) / W;
	if (w >= (1u << 24))		/* ~19 days: a bogus timestamp */
		return 0;
	if (cpu >= s->ncpus) {
		struct cpu_windows *p = realloc(s->cpu, (cpu + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + s->ncpus, 0, (cpu + 1 - s->ncpus) * sizeof(*p));
		s->cpu = p;
		s->ncpus = cpu + 1;
	}
	c = &s->cpu[cpu];
	if (w >= c->len) {
		if (w >= c->cap) {
			size_t cap = c->cap ? c->cap : 64;
			uint32_t *p;

			while (cap <= w)
				cap *= 2;
			p = realloc(c->n, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			c->n = p;
			c->cap = cap;
		}
		memset(c->n + c->len, 0, (w + 1 - c->len) * sizeof(*c->n));
		c->len = w + 1;
	}
	c->n[w]++;
	return 0;
}

static int count_sample(struct arch_summary *s, uint64_t pid, uint64_t tid,
			uint32_t cpu, uint64_t ts)
{
	uint64_t key[2] = { pid, tid };
	typeof(&s->recent[0]) c = &s->recent[key[1] % 1024];
	bool added;
	long i, j;

	s->m.samples++;
	if (!c->valid || c->pid != key[0] || c->tid != key[1]) {
		i = arch_set__add(&s->threads, key, sizeof(key), &added);
		if (i < 0 || grow_u64(&s->thread_samples, &s->tcap,
				      (size_t)i + 1))
			return -ENOMEM;
		j = arch_set__add(&s->processes, key, sizeof(key[0]), &added);
		if (j < 0 || grow_u64(&s->process_samples, &s->pcap,
				      (size_t)j + 1))
			return -ENOMEM;
		c->pid = key[0];
		c->tid = key[1];
		c->thread = (uint32_t)i;
		c->process = (uint32_t)j;
		c->valid = true;
	}
	s->thread_samples[c->thread]++;
	s->process_samples[c->process]++;
	return count_window(s, cpu, ts);
}

/* The encoder's layout: fxt_profile.h's enum fxt_sample_word. */
#define FAST_WORDS	FXT_SAMPLE_EVENT_WORDS

static void learn_sample(struct arch_summary *s, const struct fxt_record *r)
{
	const struct fxt_argv *a = r->nargs ? &r->args[0] : NULL;

	if (r->size != FAST_WORDS || r->thread.index || !a ||
	    a->type != FXT_ARG_UINT32 ||
	    !fxt_str__is(&a->name, FXT_PROFILE_ARG_CPU))
		return;
	s->fast_hdr = r->words[FXT_SAMPLE_HDR];
	s->fast_cpu = r->words[FXT_SAMPLE_CPU] & 0xffffffffu;
	s->fast = true;
}

static void count_loss(struct arch_summary *s, const struct fxt_record *r)
{
	uint64_t *rec, *bytes, v;

	if (fxt_str__is(&r->event.name, FXT_PROFILE_EV_KERNEL_LOST)) {
		rec = &s->m.kernel_lost_records;
		bytes = &s->m.kernel_lost_bytes;
	} else if (fxt_str__is(&r->event.name,
			       FXT_PROFILE_EV_OUTPUT_DROPPED)) {
		rec = &s->m.output_dropped_records;
		bytes = &s->m.output_dropped_bytes;
	} else {
		return;
	}
	/* Totals: the latest is the largest, whatever order CPUs came in. */
	v = fxt_record__arg_uint_or0(r, FXT_PROFILE_ARG_RECORDS);
	if (v > *rec)
		*rec = v;
	v = fxt_record__arg_uint_or0(r, FXT_PROFILE_ARG_BYTES);
	if (v > *bytes)
		*bytes = v;
}

static int name_span_new(struct arch_summary *s, size_t key, uint32_t kind,
			 uint64_t pid, uint64_t tid, const struct fxt_str *name,
			 uint64_t ts)
{
	struct name_span *sp;

	if (s->nspans == s->spans_cap) {
		size_t cap = s->spans_cap ? 2 * s->spans_cap : 64;

		sp = realloc(s->spans, cap * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		s->spans = sp;
		s->spans_cap = cap;
	}
	if (key >= s->name_cur_cap) {
		size_t cap = s->name_cur_cap ? 2 * s->name_cur_cap : 64;
		size_t *p;

		while (cap <= key)
			cap *= 2;
		p = realloc(s->name_cur, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->name_cur = p;
		s->name_cur_cap = cap;
	}
	sp = &s->spans[s->nspans];
	*sp = (struct name_span){ .kind = kind, .pid = pid, .tid = tid,
				  .t_from = ts, .name_off = s->name_bytes.len,
				  .name_len = name->len };
	if (arch_buf__put(&s->name_bytes, name->data, name->len))
		return -ENOMEM;
	s->name_cur[key] = s->nspans++;
	return 0;
}

/* A replay of the same name changes nothing; a new name ends the old. */
static int count_name(struct arch_summary *s, uint32_t kind, uint64_t pid,
		      uint64_t tid, const struct fxt_str *name, uint64_t ts)
{
	uint64_t key[3] = { kind, pid, tid };
	struct name_span *cur;
	bool added;
	long i = arch_set__add(&s->name_keys, key, sizeof(key), &added);

	if (i < 0)
		return -ENOMEM;
	if (added)
		return name_span_new(s, (size_t)i, kind, pid, tid, name, ts);
	cur = &s->spans[s->name_cur[i]];
	if (cur->name_len == name->len &&
	    !memcmp(s->name_bytes.p + cur->name_off, name->data, name->len))
		return 0;
	cur->t_to = ts;
	return name_span_new(s, (size_t)i, kind, pid, tid, name, ts);
}

/*
 * An entry with its strings, padded to 8, into @out, once per identity:
 * @id_len leading bytes of the fixed part and the strings (a replayed
 * mapping may differ in its time or thread, not in what it maps).
 */
static int add_entry(struct arch_set *set, struct arch_buf *out,
		     const void *fixed, size_t flen, size_t id_len,
		     const struct fxt_str *a, const struct fxt_str *b)
{
	unsigned char key[sizeof(struct arch_mapping_entry) + 2 * 32768];
	size_t klen = id_len;
	bool added;
	int ret;

	memcpy(key, fixed, id_len);
	memcpy(key + klen, a->data, a->len);
	klen += a->len;
	if (b) {
		memcpy(key + klen, b->data, b->len);
		klen += b->len;
	}
	if (arch_set__add(set, key, (uint32_t)klen, &added) < 0)
		return -ENOMEM;
	if (!added)
		return 0;
	ret = arch_buf__put(out, fixed, flen);
	if (!ret)
		ret = arch_buf__put(out, a->data, a->len);
	if (!ret && b)
		ret = arch_buf__put(out, b->data, b->len);
	if (!ret)
		ret = arch_buf__pad8(out);
	return ret;
}

static int count_kobj(struct arch_summary *s, const struct fxt_record *r,
		      uint64_t ts)
{
	struct fxt_str bid = arg_str(r, FXT_PROFILE_ARG_BUILD_ID);

	switch (r->subtype) {
	case FXT_KOBJ_PROCESS:
		return count_name(s, ARCHIVE_NAME_PROCESS, r->kobj.koid, 0,
				  &r->kobj.name, ts);
	case FXT_KOBJ_THREAD:
		return count_name(s, ARCHIVE_NAME_THREAD,
				  fxt_record__arg_uint_or0(r,
						FXT_PROFILE_ARG_PROCESS),
				  r->kobj.koid,
				  &r->kobj.name, ts);
	case FXT_KOBJ_MAPPING: {
		struct arch_mapping_entry e = {
			.pid = fxt_record__arg_uint_or0(r, FXT_PROFILE_ARG_PID),
			.start = fxt_record__arg_uint_or0(r,
						FXT_PROFILE_ARG_START),
			.end = fxt_record__arg_uint_or0(r, FXT_PROFILE_ARG_END),
			.pgoff = fxt_record__arg_uint_or0(r,
						FXT_PROFILE_ARG_PGOFF),
			.time = fxt_record__arg_uint_or0(r,
						FXT_PROFILE_ARG_TIME),
			.path_len = r->kobj.name.len,
			.build_id_len = (uint16_t)bid.len,
			.flags = fxt_record__arg_uint_or0(r,
					FXT_PROFILE_ARG_INITIAL) ? 1 : 0,
		};

		/* pid, start, end, pgoff: then the path and build id. */
		return add_entry(&s->mappings, &s->mapping_bytes, &e, sizeof(e),
				 offsetof(struct arch_mapping_entry, time),
				 &r->kobj.name, &bid);
	}
	case FXT_KOBJ_KMOD: {
		struct arch_kimage_entry e = {
			.start = r->kobj.koid,
			.end = fxt_record__arg_uint_or0(r, FXT_PROFILE_ARG_END),
			.name_len = r->kobj.name.len,
			.build_id_len = (uint16_t)bid.len,
			.flags = fxt_record__arg_uint_or0(r,
					FXT_PROFILE_ARG_KERNEL) ? 1 : 0,
		};

		return add_entry(&s->kimages, &s->kimage_bytes, &e, sizeof(e),
				 sizeof(e), &r->kobj.name, &bid);
	}
	case FXT_KOBJ_KSYM: {
		struct arch_ksym_entry e = {
			.addr = r->kobj.koid,
			.size = (uint32_t)fxt_record__arg_uint_or0(r,
						FXT_PROFILE_ARG_SIZE),
			.name_len = r->kobj.name.len,
		};

		return add_entry(&s->ksyms, &s->ksym_bytes, &e, sizeof(e),
				 sizeof(e), &r->kobj.name, NULL);
	}
	}
	return 0;
}

void arch_summary__record(struct arch_summary *s, const void *rec,
			  size_t len, unsigned int kind, uint64_t ts)
{
	struct fxt_record *r = &s->rec;
	int ret;

	/*
	 * Only what the summaries read, and what the reader needs to decode
	 * it (strings, threads): stacks and scheduling records are most of
	 * the bytes, and nothing here looks into them.
	 */
	switch (kind) {
	case FXT_REC_METADATA: case FXT_REC_INIT: case FXT_REC_STRING:
	case FXT_REC_THREAD: case FXT_REC_EVENT: case FXT_REC_KERNEL_OBJ:
		break;
	default:
		return;
	}
	if (!s->rd || s->rd_failed)
		return;
	if (kind == FXT_REC_EVENT && s->fast && len == FAST_WORDS * 8) {
		const uint64_t *w = rec;

		if (w[0] == s->fast_hdr && (w[4] & 0xffffffffu) == s->fast_cpu) {
			if (count_sample(s, w[2], w[3], (uint32_t)(w[4] >> 32),
					 w[1]))
				goto failed;
			return;
		}
	}
	/* A string record may give the sample's refs another meaning. */
	if (kind == FXT_REC_STRING)
		s->fast = false;
	if (fxt_reader__feed(s->rd, rec, len) ||
	    fxt_reader__next(s->rd, r) != 1)
		goto failed;
	switch (r->type) {
	case FXT_REC_METADATA:
		if (r->subtype == FXT_META_TRACE_INFO)
			s->m.segments++;
		return;
	case FXT_REC_EVENT:
		if (fxt_record__is_sample(r)) {
			ret = count_sample(s, r->thread.pid, r->thread.tid,
				(uint32_t)fxt_record__arg_uint_or0(r,
							FXT_PROFILE_ARG_CPU),
				r->ts);
			if (!s->fast)
				learn_sample(s, r);
		}
		else if (r->subtype == FXT_EVENT_COUNTER)
			count_loss(s, r), ret = 0;
		else
			ret = 0;
		break;
	case FXT_REC_KERNEL_OBJ:
		ret = count_kobj(s, r, ts);
		break;
	default:
		return;
	}
	if (!ret)
		return;
failed:
	s->rd_failed = true;
}

/* ------------------------------------------------------------------ */
/* The sections                                                        */
/* ------------------------------------------------------------------ */

static int emit_buf(arch_emit_fn emit, void *ctx, uint32_t id,
		    const struct arch_buf *b)
{
	return b->len ? emit(ctx, id, b->p, b->len) : 0;
}

static int emit_counts(arch_emit_fn emit, void *ctx, uint32_t id,
		       const struct arch_set *set, const uint64_t *counts,
		       size_t keylen)
{
	struct arch_buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < set->n && !ret; i++) {
		uint32_t len;
		const void *key = arch_set__key(set, i, &len);

		ret = arch_buf__put(&b, key, keylen);
		if (!ret)
			ret = arch_buf__put(&b, &counts[i], sizeof(counts[i]));
	}
	if (!ret && b.len)
		ret = emit(ctx, id, b.p, b.len);
	arch_buf__fini(&b);
	return ret;
}

static int emit_windows(struct arch_summary *s, arch_emit_fn emit, void *ctx)
{
	struct arch_windows_header h = { .window_ns = ARCH_SUMMARY_WINDOW_NS,
					 .t0 = s->t0,
					 .ncpus = (uint32_t)s->ncpus };
	struct arch_buf b = { 0 };
	int ret;

	if (!s->ncpus)
		return 0;
	for (size_t i = 0; i < s->ncpus; i++)
		if (s->cpu[i].len > h.nwindows)
			h.nwindows = (uint32_t)s->cpu[i].len;
	ret = arch_buf__put(&b, &h, sizeof(h));
	for (uint32_t w = 0; w < h.nwindows && !ret; w++)
		for (size_t c = 0; c < s->ncpus && !ret; c++) {
			uint32_t n = w < s->cpu[c].len ? s->cpu[c].n[w] : 0;

			ret = arch_buf__put(&b, &n, sizeof(n));
		}
	if (!ret)
		ret = arch_buf__pad8(&b);
	if (!ret)
		ret = emit(ctx, ARCHIVE_SEC_WINDOWS, b.p, b.len);
	arch_buf__fini(&b);
	return ret;
}

static int emit_names(struct arch_summary *s, arch_emit_fn emit, void *ctx)
{
	struct arch_buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < s->nspans && !ret; i++) {
		const struct name_span *sp = &s->spans[i];
		struct arch_name_entry e = {
			.kind = sp->kind, .name_len = sp->name_len,
			.pid = sp->pid, .tid = sp->tid, .t_from = sp->t_from,
			/* Still held at the end. */
			.t_to = sp->t_to ? sp->t_to : s->m.t_last,
		};

		ret = arch_buf__put(&b, &e, sizeof(e));
		if (!ret)
			ret = arch_buf__put(&b, s->name_bytes.p + sp->name_off,
					    sp->name_len);
		if (!ret)
			ret = arch_buf__pad8(&b);
	}
	if (!ret && b.len)
		ret = emit(ctx, ARCHIVE_SEC_NAMES, b.p, b.len);
	arch_buf__fini(&b);
	return ret;
}

int arch_summary__emit(struct arch_summary *s, arch_emit_fn emit, void *ctx)
{
	int ret = emit(ctx, ARCHIVE_SEC_METRICS, &s->m, sizeof(s->m));

	if (!ret)
		ret = emit_counts(emit, ctx, ARCHIVE_SEC_THREADS, &s->threads,
				  s->thread_samples, 2 * sizeof(uint64_t));
	if (!ret)
		ret = emit_counts(emit, ctx, ARCHIVE_SEC_PROCESSES,
				  &s->processes, s->process_samples,
				  sizeof(uint64_t));
	if (!ret)
		ret = emit_windows(s, emit, ctx);
	if (!ret)
		ret = emit_names(s, emit, ctx);
	if (!ret)
		ret = emit_buf(emit, ctx, ARCHIVE_SEC_MAPPINGS, &s->mapping_bytes);
	if (!ret)
		ret = emit_buf(emit, ctx, ARCHIVE_SEC_KIMAGES, &s->kimage_bytes);
	if (!ret)
		ret = emit_buf(emit, ctx, ARCHIVE_SEC_KSYMS, &s->ksym_bytes);
	return ret;
}
