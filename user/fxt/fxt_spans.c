// SPDX-License-Identifier: MIT
/*
 * fxt_spans.c - see fxt_spans.h.  The rules (Documentation/fxt-mapping.md,
 * "Application annotations"):
 *  - per thread, duration ends close the innermost open begin of the same
 *    category and name: "duration-nesting", an error (a warning once
 *    records were lost in the segment);
 *  - an end with nothing open is a warning, "duration-end-unmatched" or
 *    "async-end-unmatched": a system trace may start inside a region;
 *  - per process, an async begin of a (category, name, id) that is
 *    already open is "async-begin-duplicate", an error (a warning after
 *    lost records);
 *  - what is still open when the segment ends is not reported: a
 *    recording may stop inside a region.
 * Names are compared by a 64-bit FNV-1a hash of category and name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt.h"
#include "fxt_spans.h"

#define SPAN_NAME_KEEP	32	/* bytes of a name kept for messages */
/* Events kept per segment (about 100 bytes each): past it, not judged. */
#define SPAN_MAX_EVENTS	(2u << 20)

struct span_event {
	/* The group: (0, pid, tid, 0) for durations, (1, pid, hash, id). */
	uint8_t async;
	uint64_t pid, k2, k3;
	uint64_t ts, seq, offset;
	uint64_t hash;		/* category and name */
	uint8_t type;
	char name[SPAN_NAME_KEEP];
};

struct fxt_spans {
	struct span_event *ev;
	size_t n, cap;
	bool lost;
};

int fxt_spans__new(struct fxt_spans **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void fxt_spans__free(struct fxt_spans *s)
{
	if (!s)
		return;
	free(s->ev);
	free(s);
}

static uint64_t fnv1a(uint64_t h, const char *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int fxt_spans__add(struct fxt_spans *s, uint8_t event_type, uint64_t ts,
		   uint64_t pid, uint64_t tid, const char *category,
		   uint32_t category_len, const char *name, uint32_t name_len,
		   uint64_t id, uint64_t offset)
{
	struct span_event *e;
	uint64_t hash;

	if (s->n == SPAN_MAX_EVENTS)
		return -E2BIG;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 1024;
		struct span_event *nev = realloc(s->ev, ncap * sizeof(*nev));

		if (!nev)
			return -ENOMEM;
		s->ev = nev;
		s->cap = ncap;
	}
	hash = fnv1a(0xcbf29ce484222325ULL, category, category_len);
	hash = fnv1a(hash, "", 1);
	hash = fnv1a(hash, name, name_len);
	e = &s->ev[s->n];
	memset(e, 0, sizeof(*e));
	e->async = event_type == FXT_EVENT_ASYNC_BEGIN ||
		   event_type == FXT_EVENT_ASYNC_END;
	e->pid = pid;
	e->k2 = e->async ? hash : tid;
	e->k3 = e->async ? id : 0;
	e->ts = ts;
	e->seq = s->n;
	e->offset = offset;
	e->hash = hash;
	e->type = event_type;
	snprintf(e->name, sizeof(e->name), "%.*s",
		 (int)(name_len < SPAN_NAME_KEEP - 1 ? name_len :
						       SPAN_NAME_KEEP - 1),
		 name);
	s->n++;
	return 0;
}

void fxt_spans__records_lost(struct fxt_spans *s)
{
	s->lost = true;
}

#define CMP(a, b)	do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

/* Group, then time; file order breaks ties (one CPU's ring order). */
static int span_cmp(const void *pa, const void *pb)
{
	const struct span_event *a = pa, *b = pb;

	CMP(a->async, b->async);
	CMP(a->pid, b->pid);
	CMP(a->k2, b->k2);
	CMP(a->k3, b->k3);
	CMP(a->ts, b->ts);
	CMP(a->seq, b->seq);
	return 0;
}

static bool same_group(const struct span_event *a, const struct span_event *b)
{
	return a->async == b->async && a->pid == b->pid && a->k2 == b->k2 &&
	       a->k3 == b->k3;
}

__attribute__((format(printf, 6, 7)))
static void issue(fxt_span_issue_fn report, void *ctx, bool error,
		  const char *rule, const struct span_event *e,
		  const char *fmt, ...)
{
	struct fxt_span_issue is = {
		.error = error, .rule = rule, .offset = e->offset,
	};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(is.msg, sizeof(is.msg), fmt, ap);
	va_end(ap);
	report(ctx, &is);
}

/* One thread's durations, [lo, hi) in time order; errors reported. */
static unsigned int judge_durations(const struct fxt_spans *s, size_t lo,
				    size_t hi, size_t *stack,
				    fxt_span_issue_fn report, void *ctx)
{
	unsigned int errors = 0;
	size_t depth = 0;

	for (size_t i = lo; i < hi; i++) {
		const struct span_event *e = &s->ev[i], *top;
		size_t d;

		if (e->type == FXT_EVENT_DURATION_BEGIN) {
			stack[depth++] = i;
			continue;
		}
		if (!depth) {
			issue(report, ctx, false, "duration-end-unmatched", e,
			      "end of \"%s\" on thread %" PRIu64 "/%" PRIu64
			      " at %" PRIu64 " has no begin in this segment",
			      e->name, e->pid, e->k2, e->ts);
			continue;
		}
		top = &s->ev[stack[depth - 1]];
		if (top->hash == e->hash) {
			depth--;
			continue;
		}
		issue(report, ctx, !s->lost, "duration-nesting", e,
		      "end of \"%s\" on thread %" PRIu64 "/%" PRIu64
		      " at %" PRIu64 " while \"%s\" (begun at %" PRIu64 ") is the innermost open duration",
		      e->name, e->pid, e->k2, e->ts, top->name, top->ts);
		errors += !s->lost;
		/* Go on as a reader would: close the one it names, if open. */
		for (d = depth; d > 0; d--)
			if (s->ev[stack[d - 1]].hash == e->hash)
				break;
		if (d)
			depth = d - 1;
	}
	return errors;
}

/* One (pid, category, name, id)'s async events, [lo, hi) in time order. */
static unsigned int judge_async(const struct fxt_spans *s, size_t lo,
				size_t hi, fxt_span_issue_fn report, void *ctx)
{
	const struct span_event *open = NULL;
	unsigned int errors = 0;

	for (size_t i = lo; i < hi; i++) {
		const struct span_event *e = &s->ev[i];

		if (e->type == FXT_EVENT_ASYNC_BEGIN) {
			if (open) {
				issue(report, ctx, !s->lost, "async-begin-duplicate", e,
				      "async \"%s\" id %" PRIu64 " of pid %" PRIu64
				      " begun at %" PRIu64 " while the begin at %" PRIu64 " is not ended",
				      e->name, e->k3, e->pid, e->ts, open->ts);
				errors += !s->lost;
			}
			open = e;
			continue;
		}
		if (!open)
			issue(report, ctx, false, "async-end-unmatched", e,
			      "end of async \"%s\" id %" PRIu64 " of pid %" PRIu64
			      " at %" PRIu64 " has no begin in this segment",
			      e->name, e->k3, e->pid, e->ts);
		open = NULL;
	}
	return errors;
}

unsigned int fxt_spans__end_segment(struct fxt_spans *s,
				    fxt_span_issue_fn report, void *ctx)
{
	unsigned int errors = 0;
	size_t *stack = NULL, lo, hi;

	if (!s->n)
		goto reset;
	qsort(s->ev, s->n, sizeof(*s->ev), span_cmp);
	stack = malloc(s->n * sizeof(*stack));
	if (!stack)
		goto reset;	/* memory failure only loses the check */
	for (lo = 0; lo < s->n; lo = hi) {
		for (hi = lo + 1; hi < s->n && same_group(&s->ev[lo], &s->ev[hi]);)
			hi++;
		if (s->ev[lo].async)
			errors += judge_async(s, lo, hi, report, ctx);
		else
			errors += judge_durations(s, lo, hi, stack, report,
						  ctx);
	}
	free(stack);
reset:
	s->n = 0;
	s->lost = false;
	return errors;
}
