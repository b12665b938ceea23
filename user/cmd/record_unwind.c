// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_unwind.c - see record_unwind.h.  A mapping's file is read where
 * its process sees it (mmap_rec__file_path: /proc/PID/map_files, then
 * under /proc/PID/root), so that containers' files are found; one that
 * cannot be read is counted and its frames are walked by frame pointers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "record_opts.h"
#include "record_unwind.h"
#include "source/mmap_rec.h"
#include "source/source.h"
#include "transport/clock.h"
#include "unwind/unwind_cache.h"

/* The ids map's value for a table the source refused: never retried. */
#define TABLE_REFUSED	UINT64_MAX

void record_unwind__config(const struct record_opts *o,
			   const struct source_ops *ops,
			   struct fxtprof_config *cfg)
{
	if (!(cfg->flags & FXTPROF_CFG_USTACK) ||
	    o->ustack_walk != RECORD_USTACK_TABLES)
		return;
	if (!ops->unwind_load || !ops->unwind_map) {
		if (!o->quiet)
			fprintf(stderr, "fxtprof: %s cannot walk unwind tables: user stacks by frame pointers\n",
				ops->desc);
		return;
	}
	cfg->flags |= FXTPROF_CFG_UNWIND;
	cfg->unwind_memory = o->unwind_memory;
	cfg->unwind_budget = FXTPROF_DEFAULT_UNWIND_BUDGET;
}

bool record_unwind__fallback(const struct record_opts *o, int err,
			     const char *why, struct fxtprof_config *cfg)
{
	if (!(cfg->flags & FXTPROF_CFG_UNWIND) ||
	    (err != -EINVAL && err != -EOPNOTSUPP && err != -E2BIG))
		return false;
	cfg->flags &= ~FXTPROF_CFG_UNWIND;
	cfg->unwind_memory = 0;
	cfg->unwind_budget = 0;
	if (!o->quiet)
		fprintf(stderr, "fxtprof: the source refused unwind tables (%s): user stacks by frame pointers\n",
			*why ? why : strerror(-err));
	return true;
}

int record_unwind__init(struct record_unwind *ru, struct source *src,
			const struct fxtprof_config *cfg)
{
	memset(ru, 0, sizeof(*ru));
	if (!(cfg->flags & FXTPROF_CFG_UNWIND))
		return 0;
	ru->cache = unwind_cache__new(cfg->unwind_memory);
	if (!ru->cache)
		return -ENOMEM;
	ru->src = src;
	return 0;
}

/* The mapping's file, as its process sees it: an fd, or -errno. */
static int open_mapping(const struct fxtprof_mmap *m, const char *path)
{
	char buf[FXTPROF_MAX_PATH + 64];
	unsigned int i;
	int fd = -ENOENT;

	for (i = 0; mmap_rec__file_path("/proc", m->pid, m->start,
					m->start + m->len, path, i, buf,
					sizeof(buf)); i++) {
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		fd = -errno;
	}
	return fd;
}

/*
 * A "[vdso]" mapping has no file.  It has a build id only when it is an
 * image like the recorder's own (mmap_rec__vdso_build_id): the table is
 * built from that, in memory.
 */
static Elf *own_vdso(const struct fxtprof_mmap *m)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base || m->filename_len != 6 || memcmp(m->filename, "[vdso]", 6))
		return NULL;
	return elf_memory((char *)base, m->len);
}

/* The table of @m's file, built at its build id's first mapping. */
static const struct unwind_table *table_of(struct record_unwind *ru,
					   const struct fxtprof_mmap *m,
					   const char *path)
{
	const struct unwind_table *t;
	uint64_t t0;
	int fd = -1, err;
	Elf *elf;

	if (unwind_cache__find(ru->cache, m->build_id, m->build_id_size, &t,
			       &err))
		return t;
	elf = own_vdso(m);
	if (!elf) {
		fd = open_mapping(m, path);
		if (fd < 0) {
			ru->unreadable++;
			return NULL;
		}
		elf = elf_begin(fd, ELF_C_READ, NULL);
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	/* What it could not build, the cache counts, once per build id. */
	unwind_cache__get_elf(ru->cache, elf, &t, NULL);
	ru->build_ns += clock_ns(CLOCK_MONOTONIC) - t0;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return t;
}

/* The source's id of @t, loaded at its first use; 0 if refused. */
static uint32_t table_id(struct record_unwind *ru,
			 const struct unwind_table *t)
{
	struct fxtprof_unwind_table arg;
	uint64_t *id;
	int err;

	err = hmap__get_or_add(&ru->ids, (uint64_t)(uintptr_t)t, &id);
	if (err < 0)
		return 0;
	if (!err)
		return *id == TABLE_REFUSED ? 0 : (uint32_t)*id;
	unwind_table__to_uapi(t, &arg);
	err = ru->src->ops->unwind_load(ru->src, &arg);
	/* -EEXIST: the source has it from an earlier load; arg.id is it. */
	if (err && err != -EEXIST) {
		ru->load_failed++;
		if (err == -ENOSPC)
			ru->source_full++;
		*id = TABLE_REFUSED;
		return 0;
	}
	*id = arg.id;
	return arg.id;
}

void record_unwind__mapping(struct record_unwind *ru,
			    const struct fxtprof_mmap *m)
{
	struct fxtprof_unwind_map map = { .size = sizeof(map) };
	char path[FXTPROF_MAX_PATH + 1];
	const struct unwind_table *t;
	uint64_t bias;

	if (!ru->src)
		return;
	ru->mappings++;
	if (!(m->flags & FXTPROF_MMAP_BUILD_ID) || !m->build_id_size) {
		ru->no_build_id++;
		return;
	}
	memcpy(path, m->filename, m->filename_len);
	path[m->filename_len] = '\0';
	t = table_of(ru, m, path);
	if (!t)
		return;
	map.id = table_id(ru, t);
	if (!map.id)
		return;
	if (unwind_table__bias(t, m->start, m->pgoff, &bias)) {
		ru->unplaced++;
		return;
	}
	map.pid = m->pid;
	map.start = m->start;
	map.end = m->start + m->len;
	map.bias = bias;
	if (ru->src->ops->unwind_map(ru->src, &map))
		ru->map_failed++;
	else
		ru->mapped++;
}

void record_unwind__summary(const struct record_unwind *ru,
			    const struct fxtprof_stats *total)
{
	struct unwind_cache_stats st;

	if (!ru->src)
		return;
	unwind_cache__stats(ru->cache, &st);
	fprintf(stderr, "fxtprof: unwind tables: %" PRIu64 " (%" PRIu64
		" rows, %" PRIu64 " bytes, built in %.1f ms), %" PRIu64
		" of %" PRIu64 " mappings mapped; files without CFI %" PRIu64
		", unreadable %" PRIu64 ", without build id %" PRIu64
		", over --unwind-memory %" PRIu64 " (%" PRIu64 " bytes)",
		st.tables, st.rows, st.bytes, (double)ru->build_ns / 1e6,
		ru->mapped, ru->mappings, st.no_cfi,
		ru->unreadable + st.failed, ru->no_build_id + st.no_build_id,
		st.over_cap + ru->source_full, st.over_cap_bytes);
	if (ru->load_failed - ru->source_full || ru->map_failed ||
	    ru->unplaced)
		fprintf(stderr, ", refused by the source %" PRIu64
			" tables and %" PRIu64 " mappings, unplaced %" PRIu64,
			ru->load_failed - ru->source_full, ru->map_failed,
			ru->unplaced);
	fputc('\n', stderr);
	fprintf(stderr, "fxtprof: user frames: %llu from tables, %llu by frame pointers where no table, %llu where a row has no rule\n",
		(unsigned long long)total->unwind_table_frames,
		(unsigned long long)total->unwind_fp_frames,
		(unsigned long long)total->unwind_rule_frames);
}

void record_unwind__fini(struct record_unwind *ru)
{
	unwind_cache__free(ru->cache);
	hmap__free(&ru->ids);
	memset(ru, 0, sizeof(*ru));
}
