/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_summary.h - the trailer's summaries, computed from the FXT
 * records as they are appended (the writer) or decoded again (repair):
 * the global metrics, samples per thread, per process and per CPU per
 * window, and the name tables (process and thread names with the time
 * ranges in which they held, mappings, kernel images and symbols, each
 * once however often segments replay them).
 *
 * Records are decoded with user/fxt's reader, a fresh one per chunk (each
 * chunk is a segment, its own stream), so a chunk the reader cannot decode
 * spoils only its own summaries.
 */
#ifndef FXTPROF_ARCHIVE_SUMMARY_H
#define FXTPROF_ARCHIVE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"

struct arch_summary;

int arch_summary__new(struct arch_summary **sp);
void arch_summary__free(struct arch_summary *s);

/* The metrics the writer fills itself (counts, bytes, times, drops). */
struct archive_metrics *arch_summary__metrics(struct arch_summary *s);

/* A chunk begins: a new stream, unless it continues the one before. */
int arch_summary__chunk_begin(struct arch_summary *s, bool continuation);
/*
 * One whole FXT record of @len bytes and @kind (the FXT record type);
 * @ts is the time of the latest event (names take effect from then).
 */
void arch_summary__record(struct arch_summary *s, const void *rec,
			  size_t len, unsigned int kind, uint64_t ts);

typedef int (*arch_emit_fn)(void *ctx, uint32_t id, const void *data,
			    size_t len);
/* Each summary section, in id order, to @emit; 0 or the first -errno. */
int arch_summary__emit(struct arch_summary *s, arch_emit_fn emit, void *ctx);

#endif /* FXTPROF_ARCHIVE_SUMMARY_H */
