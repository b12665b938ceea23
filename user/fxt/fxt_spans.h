/* SPDX-License-Identifier: MIT */
/*
 * fxt_spans.h - the checker's pairing rules for duration begin/end and
 * async begin/end events (fxt_check.c uses them; not installed).
 *
 * A recording's file order is not time order (each CPU's records come in
 * blocks), so events are collected for a segment and judged at its end,
 * sorted by time within their thread (durations) or within their
 * (pid, category, name, id) (async).
 */
#ifndef FXT_SPANS_H
#define FXT_SPANS_H

#include <stdbool.h>
#include <stdint.h>

struct fxt_spans;

/* A broken rule: severity, rule name, record offset, message. */
struct fxt_span_issue {
	bool error;		/* false: a warning */
	const char *rule;
	uint64_t offset;
	char msg[200];
};

typedef void (*fxt_span_issue_fn)(void *ctx,
				  const struct fxt_span_issue *issue);

int fxt_spans__new(struct fxt_spans **out);
void fxt_spans__free(struct fxt_spans *s);

/*
 * Remember a duration (type 2, 3) or async (5, 7) begin or end event.
 * -ENOMEM, or -E2BIG past 2M events in a segment, loses only this
 * check: the event is not judged.
 */
int fxt_spans__add(struct fxt_spans *s, uint8_t event_type, uint64_t ts,
		   uint64_t pid, uint64_t tid, const char *category,
		   uint32_t category_len, const char *name, uint32_t name_len,
		   uint64_t id, uint64_t offset);
/* Records were lost in this segment: nesting errors become warnings. */
void fxt_spans__records_lost(struct fxt_spans *s);
/*
 * Judge the segment's events, report each broken rule in time order, and
 * start afresh.  Returns the number of errors reported.
 */
unsigned int fxt_spans__end_segment(struct fxt_spans *s,
				    fxt_span_issue_fn report, void *ctx);

#endif /* FXT_SPANS_H */
