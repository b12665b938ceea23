// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_memory.c - see record_memory.h.
 *
 * What is resident comes from the kernel (status, smaps, mincore() of the
 * output queue); what each table holds, from the table (its capacity and
 * the records it keeps).  The heap's parts are bytes held, not pages: the
 * allocator's line says how much of the heap they leave to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_memory.h"
#include "record_symbols.h"
#include "record_unwind.h"
#include "sink/sink.h"
#include "state/stream_state.h"

/* "Key:   N kB" of /proc/self/status or smaps, in bytes, into *@v. */
static bool kb_field(const char *line, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ':')
		return false;
	*v = strtoull(line + n + 1, NULL, 10) * 1024;
	return true;
}

static int read_status(struct record_memory *m)
{
	FILE *f = fopen("/proc/self/status", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		kb_field(line, "VmRSS", &m->rss);
		kb_field(line, "VmHWM", &m->hwm);
	}
	free(line);
	fclose(f);
	return 0;
}

enum vma_kind { VMA_ANON, VMA_RINGS, VMA_FILE, VMA_STACK };

/* A mapping's kind from its smaps header line's path, if it has one. */
static enum vma_kind vma_kind(const char *line)
{
	const char *p;
	int field = 0;

	/* The path is the sixth field; a header has no ':' before it. */
	for (p = line; *p && field < 5; p++)
		if (*p == ' ' && p[1] != ' ')
			field++;
	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return VMA_ANON;
	if (!strncmp(p, "/dev/fxtprof", 12) || !strncmp(p, "anon_inode:bpf", 14) ||
	    !strncmp(p, "anon_inode:[bpf", 15))
		return VMA_RINGS;
	if (!strncmp(p, "[stack", 6))
		return VMA_STACK;
	return *p == '/' ? VMA_FILE : VMA_ANON;
}

/* A header line of smaps: "start-end perms ...", hex then '-'. */
static bool vma_header(const char *line)
{
	const char *p = line;

	while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
		p++;
	return p > line && *p == '-';
}

static int read_smaps(struct record_memory *m)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	enum vma_kind kind = VMA_ANON;
	char *line = NULL;
	size_t cap = 0;
	uint64_t v;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (vma_header(line)) {
			kind = vma_kind(line);
			continue;
		}
		if (kind == VMA_RINGS && kb_field(line, "Size", &v))
			m->rings_mapped += v;
		if (!kb_field(line, "Rss", &v))
			continue;
		if (kind == VMA_RINGS)
			m->rings_resident += v;
		else if (kind == VMA_FILE)
			m->file_resident += v;
		else if (kind == VMA_STACK)
			m->stack_resident += v;
	}
	free(line);
	fclose(f);
	return 0;
}

int record_memory__take(struct record_memory *m, const struct stream_state *st,
			const struct sink *out,
			const struct record_symbols *syms,
			struct record_unwind *ru)
{
	struct mallinfo2 mi = mallinfo2();
	int ret, ret2;

	memset(m, 0, sizeof(*m));
	ret = read_status(m);
	ret2 = read_smaps(m);
	if (out) {
		struct sink_memory sm;

		sink__memory(out, &sm);
		m->output_held = sm.held;
		m->output_resident = sm.resident;
	}
	if (st) {
		size_t maps, kernel;

		m->names = name_table__bytes(&st->names) +
			   recent_exits__bytes(&st->exits);
		symbol_tables__bytes(&st->syms, &maps, &kernel);
		m->mappings = maps;
		m->kernel = kernel;
	}
	if (syms) {
		m->kallsyms = kernel_info__bytes(&syms->kinfo);
		m->kallsyms_named = syms->src;
	}
	if (ru)
		m->unwind = record_unwind__memory(ru);
	m->malloc_used = mi.uordblks;
	m->malloc_free = mi.fordblks;
	m->malloc_mmapped = mi.hblkhd;
	return ret ? ret : ret2;
}

static double mib(uint64_t b)
{
	return b / 1048576.0;
}

/*
 * Free memory in glibc's arenas stays resident until something reuses
 * it: the start's peaks (kallsyms read at twice its final size, libdw's
 * state while unwind tables are built, a burst of processes) would hold
 * their pages for the whole recording, 3 MiB of a 14.6 MiB recorder in
 * the soak (scripts/soak.sh).  malloc_trim() gives the free pages back
 * (MADV_DONTNEED inside the arenas too, not only the top); it walks the
 * free chunks, so it runs at most every TRIM_PERIOD_NS, and only when
 * more than TRIM_FREE is free.  A page given back costs a fault when it
 * is used again.
 */
#define TRIM_PERIOD_NS	(10 * 1000000000ull)
#define TRIM_FREE	(512 * 1024)

static uint64_t resident_bytes(void)
{
	unsigned long long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * glibc raises its mmap threshold to the size of any mmap'd block freed
 * (up to 32 MiB), and its trim threshold to twice that: once a start's
 * temporary is freed (the bpf source's kallsyms copy, built at twice its
 * 1.8 MiB), blocks of that size come from the
 * heap, and up to twice that stays free at its top, resident.  In the
 * soak that was a 2.6 MiB swing of the recorder's RSS.  Setting either
 * threshold turns the adjustment off: blocks over 128 KiB are mmap'd and
 * unmapped when freed, and a free top of the heap over 128 KiB is
 * trimmed at once (the defaults before any adjustment).
 */
void record_memory__settle_allocator(void)
{
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

void record_memory__trim(struct record_memory_trim *t, uint64_t now_ns)
{
	uint64_t before, after;

	if (t->last_ns && now_ns - t->last_ns < TRIM_PERIOD_NS)
		return;
	t->last_ns = now_ns;
	if (mallinfo2().fordblks < TRIM_FREE)
		return;
	before = resident_bytes();
	malloc_trim(0);
	after = resident_bytes();
	t->trims++;
	if (before > after)
		t->given += before - after;
}

void record_memory__print(FILE *f, const struct record_memory *m,
			  const struct record_memory_trim *t)
{
	uint64_t parts = m->names + m->mappings + m->kernel + m->kallsyms +
			 m->unwind;
	uint64_t heap = m->malloc_used + m->malloc_mmapped;
	/* The heap's parts that a table holds. */
	const struct {
		const char *name;
		uint64_t bytes;
		const char *note;
	} held[] = {
		{ "names", m->names, "" },
		{ "mappings", m->mappings, "" },
		{ "kernel symbols", m->kernel, "" },
		{ "kallsyms", m->kallsyms, m->kallsyms_named ?
		  " (the kernel's images: the module names its functions)" :
		  " (the kernel's functions, to name kernel frames)" },
		{ "unwind tables", m->unwind, "" },
	};
	size_t i;

	fprintf(f, "fxtprof: memory: %.2f MiB resident (at most %.2f MiB so "
		"far), of it:\n", mib(m->rss), mib(m->hwm));
	fprintf(f, "fxtprof: memory:   rings           %8.2f MiB resident "
		"of %.2f MiB mapped\n", mib(m->rings_resident),
		mib(m->rings_mapped));
	fprintf(f, "fxtprof: memory:   output          %8.2f MiB resident "
		"of %.2f MiB held\n", mib(m->output_resident),
		mib(m->output_held));
	fprintf(f, "fxtprof: memory:   program files   %8.2f MiB resident "
		"(text and data of the binary and its libraries)\n",
		mib(m->file_resident));
	fprintf(f, "fxtprof: memory:   stacks          %8.2f MiB resident\n",
		mib(m->stack_resident));
	fprintf(f, "fxtprof: memory:   heap            %8.2f MiB in use, "
		"%.2f MiB of it mmap'd; %.2f MiB free in the allocator's "
		"arenas\n", mib(heap), mib(m->malloc_mmapped),
		mib(m->malloc_free));
	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		fprintf(f, "fxtprof: memory:     %-14s%8.3f MiB held%s\n",
			held[i].name, mib(held[i].bytes), held[i].note);
	fprintf(f, "fxtprof: memory:     the rest      %8.3f MiB\n",
		mib(heap > parts ? heap - parts : 0));
	if (t)
		fprintf(f, "fxtprof: memory:   given back      %8.2f MiB of "
			"the heap's free pages, in %lu trims\n", mib(t->given),
			t->trims);
}
