// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_maps.c - see proc_maps.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmap_rec.h"
#include "proc_maps.h"

static const char anon_name[] = "//anon";

int proc_maps__parse_line(const char *proc, uint32_t pid, const char *line,
			  uint64_t ts, union mmap_rec_buf *b)
{
	unsigned long long start, end, pgoff, ino;
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	struct mmap_rec_args a = { 0 };
	char perms[5];
	int pos = 0, n;
	const char *path;
	size_t plen;

	if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %llu %n", &start, &end,
		   perms, &pgoff, &ino, &pos) != 5 || !pos)
		return 0;
	if (perms[2] != 'x' || end <= start)
		return 0;
	path = line + pos;
	plen = strcspn(path, "\n");
	a.pid = a.tid = pid;
	a.start = start;
	a.len = end - start;
	a.pgoff = pgoff;
	a.time_ns = ts;
	a.flags = FXTPROF_MMAP_INITIAL;
	if (!plen) {
		a.name = anon_name;
		a.name_len = sizeof(anon_name) - 1;
	} else if (path[0] == '[') {
		a.name = path;
		a.name_len = plen;
		if (!mmap_rec__is_vdso(&a))
			return 0;	/* [vsyscall] and the like */
		mmap_rec__vdso_build_id(&a, id);
	} else {
		char p[FXTPROF_MAX_PATH + 1];

		a.name = path;
		a.name_len = plen;
		snprintf(p, sizeof(p), "%.*s", (int)plen, path);
		n = mmap_rec__file_build_id(proc, pid, start, end, p, id,
					    sizeof(id));
		if (n > 0) {
			a.build_id = id;
			a.build_id_size = (size_t)n;
		}
	}
	mmap_rec__fill(b, &a);
	return 1;
}

static void sweep_one(const char *proc, uint32_t pid, uint64_t ts,
		      fxtprof_rec_cb cb, void *ctx, struct proc_maps_stats *st,
		      union mmap_rec_buf *b)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return;		/* gone, or a kernel thread we cannot read */
	st->processes++;
	while (getline(&line, &cap, f) > 0) {
		if (!proc_maps__parse_line(proc, pid, line, ts, b))
			continue;
		st->mappings++;
		if (b->m.flags & FXTPROF_MMAP_BUILD_ID)
			st->build_ids++;
		cb(ctx, &b->m.hdr);
	}
	free(line);
	fclose(f);
}

int proc_maps__sweep(const char *proc, uint64_t ts, fxtprof_rec_cb cb,
		     void *ctx, struct proc_maps_stats *st)
{
	union mmap_rec_buf *b;
	struct dirent *de;
	DIR *d;

	if (!proc)
		proc = "/proc";
	d = opendir(proc);
	if (!d)
		return -errno;
	b = malloc(sizeof(*b));
	if (!b) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid || pid > UINT32_MAX)
			continue;
		sweep_one(proc, (uint32_t)pid, ts, cb, ctx, st, b);
	}
	free(b);
	closedir(d);
	return 0;
}
