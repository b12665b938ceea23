// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap_rec.c - see mmap_rec.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "elf_build_id.h"
#include "mmap_rec.h"
#include "vdso_build_id.h"

const struct fxtprof_rec_hdr *mmap_rec__fill(union mmap_rec_buf *b,
					     const struct mmap_rec_args *a)
{
	struct fxtprof_mmap *m = &b->m;
	size_t len = a->name_len;

	memset(m, 0, sizeof(*m));
	m->flags = a->flags;
	if (len > FXTPROF_MAX_PATH) {
		len = FXTPROF_MAX_PATH;
		m->flags |= FXTPROF_MMAP_TRUNCATED;
	}
	m->hdr.size = (uint32_t)(sizeof(*m) + ((len + 7) & ~(size_t)7));
	m->hdr.type = FXTPROF_REC_MMAP;
	m->hdr.time_ns = a->time_ns;
	m->pid = a->pid;
	m->tid = a->tid;
	m->start = a->start;
	m->len = a->len;
	m->pgoff = a->pgoff;
	if (a->build_id && a->build_id_size &&
	    a->build_id_size <= FXTPROF_BUILD_ID_MAX) {
		memcpy(m->build_id, a->build_id, a->build_id_size);
		m->build_id_size = (uint8_t)a->build_id_size;
		m->flags |= FXTPROF_MMAP_BUILD_ID;
	}
	m->filename_len = (uint16_t)len;
	memcpy(m->filename, a->name, len);
	/* The padding is zero: the ABI says so, and streams compare equal. */
	memset(m->filename + len, 0, ((len + 7) & ~(size_t)7) - len);
	return &m->hdr;
}

bool mmap_rec__file_path(const char *proc, uint32_t pid, uint64_t start,
			 uint64_t end, const char *path, unsigned int i,
			 char *buf, size_t len)
{
	switch (i) {
	case 0:
		snprintf(buf, len, "%s/%" PRIu32 "/map_files/%" PRIx64
			 "-%" PRIx64, proc, pid, start, end);
		return true;
	case 1:
	case 2:
		if (path[0] != '/')
			return false;
		if (i == 1)
			snprintf(buf, len, "%s/%" PRIu32 "/root%s", proc, pid,
				 path);
		else
			snprintf(buf, len, "%s", path);
		return true;
	default:
		return false;
	}
}

int mmap_rec__file_build_id(const char *proc, uint32_t pid, uint64_t start,
			    uint64_t end, const char *path, uint8_t *id,
			    size_t cap)
{
	char buf[FXTPROF_MAX_PATH + 64];
	unsigned int i;
	int ret = -ENOENT;

	for (i = 0; mmap_rec__file_path(proc, pid, start, end, path, i, buf,
					sizeof(buf)); i++) {
		ret = elf_build_id__from_path(buf, id, cap);
		/* A file we could read answers; any other failure goes on. */
		if (ret > 0 || ret == -ENOEXEC)
			return ret;
	}
	return path[0] == '/' ? ret : -ENOENT;
}

bool mmap_rec__is_vdso(const struct mmap_rec_args *a)
{
	return a->name_len == strlen("[vdso]") &&
	       !memcmp(a->name, "[vdso]", a->name_len);
}

void mmap_rec__vdso_build_id(struct mmap_rec_args *a, uint8_t *id)
{
	int n;

	if (!mmap_rec__is_vdso(a))
		return;
	n = vdso_build_id__get(a->len, id, FXTPROF_BUILD_ID_MAX);
	if (n > 0) {
		a->build_id = id;
		a->build_id_size = (size_t)n;
	}
}
