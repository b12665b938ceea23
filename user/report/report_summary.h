/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_summary.h - the summary `fxtprof report --summary` prints, built
 * from bytes in memory: feed a trace in chunks of any size, then print.
 * The command (user/cmd/report.c) feeds it a file; the tests and the
 * fuzzer feed buffers.
 *
 * Memory is bounded whatever the input: MAX_EVNAMES distinct
 * category:name pairs are kept (the rest are counted as "other names"),
 * one hash lookup per event; processes and threads are kept per key.
 */
#ifndef FXTPROF_REPORT_SUMMARY_H
#define FXTPROF_REPORT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt_reader.h"

struct report;

int report__new(struct report **out);
void report__free(struct report *rp);
/* 0, or -errno once the trace is malformed (later calls return it too). */
int report__feed(struct report *rp, const void *data, size_t len);
/* End of input: 0, or -EPROTO if it stopped inside a record. */
int report__finish(struct report *rp);
/* Where and why decoding stopped, or NULL. */
const struct fxt_error *report__error(const struct report *rp);
/* Print the summary.  Consumes the tables: call once, last. */
void report__print(struct report *rp, FILE *f, const char *path,
		   unsigned int top);

/* For tests: the count of one category:name pair (raw bytes). */
uint64_t report__event_count(const struct report *rp, const char *cat,
			     size_t cat_len, const char *name, size_t name_len);
uint64_t report__events_other(const struct report *rp);
uint64_t report__records(const struct report *rp);

#endif /* FXTPROF_REPORT_SUMMARY_H */
