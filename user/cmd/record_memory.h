/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_memory.h - the recorder's memory, part by part, for `record -v`
 * (at the end, and at each SIGUSR1): what the process has resident, and
 * of it the rings, the output, the name, mapping and kernel symbol
 * tables, the unwind tables, the allocator's own share and the program.
 * Documentation/performance.md ("The recorder's memory") says what each
 * part is.
 */
#ifndef FXTPROF_RECORD_MEMORY_H
#define FXTPROF_RECORD_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct record_symbols;
struct record_unwind;
struct sink;
struct stream_state;

struct record_memory {
	/* The process, from /proc/self/status. */
	uint64_t rss, hwm;
	/* From /proc/self/smaps: the rings (the module's device, BPF maps). */
	uint64_t rings_mapped, rings_resident;
	/* The program's own files (text, data) and its stacks. */
	uint64_t file_resident, stack_resident;
	/* What the output holds (sink__memory()). */
	uint64_t output_held, output_resident;
	/* Heap parts, bytes held. */
	uint64_t names, mappings, kernel, kallsyms, unwind;
	bool kallsyms_named;	/* the module names kernel functions */
	/* The allocator (mallinfo2()): in use, free in its arenas, mmap'd. */
	uint64_t malloc_used, malloc_free, malloc_mmapped;
};

/*
 * Take the account now, of @st's tables, @out, @syms' copy of kallsyms
 * and @ru (each may be NULL).  0, or -errno when /proc/self cannot be
 * read (the parts it gives are 0).
 */
int record_memory__take(struct record_memory *m, const struct stream_state *st,
			const struct sink *out,
			const struct record_symbols *syms,
			struct record_unwind *ru);

/*
 * The heap's free pages given back (record_memory__trim()): how often,
 * and how much the resident set fell by.
 */
struct record_memory_trim {
	uint64_t last_ns;
	unsigned long trims;
	uint64_t given;
};

/*
 * At the start: fixed thresholds for glibc's allocator (M_MMAP_THRESHOLD,
 * M_TRIM_THRESHOLD), so that it does not raise them after freeing a large
 * block and then keep megabytes free but resident.
 */
void record_memory__settle_allocator(void);

/*
 * Called from the recorder's tick: at most every few seconds, when the
 * allocator keeps more than a little free in its arenas, give those
 * pages back to the kernel (malloc_trim()).
 */
void record_memory__trim(struct record_memory_trim *t, uint64_t now_ns);

/* The account as "fxtprof: memory: ..." lines; @t may be NULL. */
void record_memory__print(FILE *f, const struct record_memory *m,
			  const struct record_memory_trim *t);

#endif /* FXTPROF_RECORD_MEMORY_H */
