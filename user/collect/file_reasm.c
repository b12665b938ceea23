// SPDX-License-Identifier: GPL-2.0-only
/*
 * file_reasm.c - see file_reasm.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/file_reasm.h"
#include "fxt/fxt.h"
#include "source/elf_build_id.h"
#include "util/build_id_path.h"

/* A file blob's record: header, its name inline (16 bytes), payload. */
#define NAME_LEN	(sizeof(FXT_PROFILE_FILE) - 1)
#define NAME_WORDS	((NAME_LEN + 7) / 8)
#define REC_MAX		(8 * FXT_MAX_RECORD_WORDS)

static const char *const why_names[FILE_REASM_NR_WHY] = {
	[FILE_REASM_MALFORMED] = "malformed",
	[FILE_REASM_BAD_ID] = "bad build id",
	[FILE_REASM_TOO_BIG] = "over --collect-max",
	[FILE_REASM_GAP] = "gap",
	[FILE_REASM_OVERLAP] = "overlap",
	[FILE_REASM_INCOMPLETE] = "incomplete",
	[FILE_REASM_MISMATCH] = "build id mismatch",
	[FILE_REASM_BUSY] = "too many open",
	[FILE_REASM_IO] = "write error",
};

const char *file_reasm__why_name(enum file_reasm_why why)
{
	return why < FILE_REASM_NR_WHY ? why_names[why] : "?";
}

int file_reasm__init(struct file_reasm *r, const char *dir, uint64_t max_file)
{
	memset(r, 0, sizeof(*r));
	for (unsigned int i = 0; i < FILE_REASM_OPEN; i++)
		r->files[i].fd = -1;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	r->dir = dir;
	r->max_file = max_file;
	return 0;
}

static void ignore(struct file_reasm *r, const uint8_t *id, size_t len)
{
	memcpy(r->ignore_id, id, len);
	r->ignore_len = (uint8_t)len;
}

static void drop(struct file_reasm *r, const uint8_t *id, size_t len,
		 enum file_reasm_why why)
{
	r->st.why[why]++;
	r->st.dropped++;
	if (id && len)
		ignore(r, id, len);
}

static void io_failed(struct file_reasm *r, const uint8_t *id, size_t len,
		      int err)
{
	if (!r->st.why[FILE_REASM_IO])
		r->st.io_err = err;
	drop(r, id, len, FILE_REASM_IO);
}

static void file_close(struct file_reasm_file *f, bool unlink_tmp)
{
	if (f->fd >= 0)
		close(f->fd);
	if (unlink_tmp && f->tmp[0])
		unlink(f->tmp);
	f->fd = -1;
	f->tmp[0] = '\0';
	f->used = false;
}

static void file_drop(struct file_reasm *r, struct file_reasm_file *f,
		      enum file_reasm_why why)
{
	drop(r, f->id, f->id_len, why);
	file_close(f, true);
}

static struct file_reasm_file *file_find(struct file_reasm *r,
					 const uint8_t *id, size_t len)
{
	for (unsigned int i = 0; i < FILE_REASM_OPEN; i++) {
		struct file_reasm_file *f = &r->files[i];

		if (f->used && f->id_len == len && !memcmp(f->id, id, len))
			return f;
	}
	return NULL;
}

/* A file's first chunk: its temporary file, or NULL (counted). */
static struct file_reasm_file *file_begin(struct file_reasm *r,
					  const uint8_t *id, size_t len,
					  uint64_t size)
{
	static unsigned int seq;
	struct file_reasm_file *f = NULL;
	char dst[4096];
	struct stat sb;
	int ret;

	ret = build_id_path(dst, sizeof(dst) - 32, r->dir, id, len, NULL);
	if (ret < 0) {
		drop(r, id, len, ret == -EINVAL ? FILE_REASM_BAD_ID :
						  FILE_REASM_IO);
		return NULL;
	}
	if (!lstat(dst, &sb)) {
		r->st.present++;
		ignore(r, id, len);
		return NULL;
	}
	for (unsigned int i = 0; i < FILE_REASM_OPEN && !f; i++)
		if (!r->files[i].used)
			f = &r->files[i];
	if (!f) {
		drop(r, id, len, FILE_REASM_BUSY);
		return NULL;
	}
	ret = build_id_path_make_dirs(dst);
	if (ret) {
		io_failed(r, id, len, ret);
		return NULL;
	}
	snprintf(f->tmp, sizeof(f->tmp), "%s.part%d.%u", dst, (int)getpid(),
		 seq++);
	f->fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
		     O_NOFOLLOW, 0600);
	if (f->fd < 0) {
		ret = -errno;
		f->tmp[0] = '\0';
		io_failed(r, id, len, ret);
		return NULL;
	}
	f->used = true;
	memcpy(f->id, id, len);
	f->id_len = (uint8_t)len;
	f->size = size;
	f->next = 0;
	return f;
}

/* Every byte came: into place if it is the file it says it is. */
static void file_finish(struct file_reasm *r, struct file_reasm_file *f)
{
	uint8_t got[FXT_FILE_ID_MAX];
	char dst[4096];
	int n;

	n = elf_build_id__from_fd(f->fd, got, sizeof(got));
	if (n != f->id_len || memcmp(got, f->id, (size_t)n)) {
		file_drop(r, f, FILE_REASM_MISMATCH);
		return;
	}
	if (close(f->fd)) {
		f->fd = -1;
		io_failed(r, f->id, f->id_len, -errno);
		file_close(f, true);
		return;
	}
	f->fd = -1;
	build_id_path(dst, sizeof(dst), r->dir, f->id, f->id_len, NULL);
	if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, dst, RENAME_NOREPLACE)) {
		if (errno == EEXIST) {
			r->st.present++;
		} else {
			int err = -errno;

			drop(r, NULL, 0, FILE_REASM_IO);
			if (r->st.why[FILE_REASM_IO] == 1)
				r->st.io_err = err;
		}
		file_close(f, true);
		return;
	}
	r->st.collected++;
	r->st.bytes += f->size;
	f->tmp[0] = '\0';
	file_close(f, false);
}

void file_reasm__chunk(struct file_reasm *r, const void *payload, size_t len)
{
	const unsigned char *p = payload;
	struct file_reasm_file *f;
	uint64_t w[FXT_FILE_ID];
	const uint8_t *id;
	size_t id_len, head, n;
	ssize_t wr;

	r->st.chunks++;
	if (len < 8 * FXT_FILE_ID) {
		drop(r, NULL, 0, FILE_REASM_MALFORMED);
		return;
	}
	memcpy(w, p, sizeof(w));
	id_len = w[FXT_FILE_ID_LEN] & 0xff;
	head = fxt_file_head_len((unsigned int)id_len);
	if (w[FXT_FILE_ID_LEN] >> 8 || head > len) {
		drop(r, NULL, 0, FILE_REASM_MALFORMED);
		return;
	}
	id = p + 8 * FXT_FILE_ID;
	n = len - head;
	if (id_len == r->ignore_len && !memcmp(id, r->ignore_id, id_len))
		return;		/* a file dropped or present: said once */
	if (id_len < 2 || id_len > FXT_FILE_ID_MAX) {
		drop(r, NULL, 0, FILE_REASM_BAD_ID);
		return;
	}
	f = file_find(r, id, id_len);
	if (!f) {
		if (w[FXT_FILE_OFFSET]) {
			/* Its beginning was dropped on the way. */
			drop(r, id, id_len, FILE_REASM_GAP);
			return;
		}
		if (w[FXT_FILE_SIZE] > r->max_file) {
			drop(r, id, id_len, FILE_REASM_TOO_BIG);
			return;
		}
		if (!w[FXT_FILE_SIZE] || !n) {
			drop(r, id, id_len, FILE_REASM_MALFORMED);
			return;
		}
		f = file_begin(r, id, id_len, w[FXT_FILE_SIZE]);
		if (!f)
			return;
	}
	if (w[FXT_FILE_SIZE] != f->size || !n ||
	    n > f->size - (w[FXT_FILE_OFFSET] < f->size ?
			   w[FXT_FILE_OFFSET] : f->size)) {
		file_drop(r, f, FILE_REASM_MALFORMED);
		return;
	}
	if (w[FXT_FILE_OFFSET] < f->next) {
		file_drop(r, f, FILE_REASM_OVERLAP);
		return;
	}
	if (w[FXT_FILE_OFFSET] > f->next) {
		file_drop(r, f, FILE_REASM_GAP);
		return;
	}
	do
		wr = pwrite(f->fd, p + head, n, (off_t)f->next);
	while (wr < 0 && errno == EINTR);
	if (wr != (ssize_t)n) {
		int err = wr < 0 ? -errno : -EIO;

		drop(r, NULL, 0, FILE_REASM_IO);
		if (r->st.why[FILE_REASM_IO] == 1)
			r->st.io_err = err;
		ignore(r, f->id, f->id_len);
		file_close(f, true);
		return;
	}
	f->next += n;
	if (f->next == f->size)
		file_finish(r, f);
}

void file_reasm__record(struct file_reasm *r, const void *rec, size_t len)
{
	const unsigned char *p = rec;
	uint64_t h;
	size_t plen;

	if (len < 8 * (1 + NAME_WORDS))
		return;
	memcpy(&h, p, 8);
	if ((h & 0xf) != FXT_REC_BLOB ||
	    ((h >> 16) & 0xffff) != (0x8000u | NAME_LEN) ||
	    ((h >> 48) & 0xff) != FXT_BLOB_DATA ||
	    memcmp(p + 8, FXT_PROFILE_FILE, NAME_LEN))
		return;
	plen = (size_t)((h >> 32) & 0x7fff);
	if (plen > len - 8 * (1 + NAME_WORDS)) {
		drop(r, NULL, 0, FILE_REASM_MALFORMED);
		return;
	}
	file_reasm__chunk(r, p + 8 * (1 + NAME_WORDS), plen);
}

/* Whether a record with header @h may be a file blob, worth gathering. */
static bool wanted(uint64_t h, size_t bytes)
{
	return (h & 0xf) == FXT_REC_BLOB &&
	       ((h >> 16) & 0xffff) == (0x8000u | NAME_LEN) &&
	       bytes >= 8 * (1 + NAME_WORDS) && bytes <= REC_MAX;
}

void file_reasm__feed(struct file_reasm *r, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		uint64_t h, bytes;
		size_t n;

		if (r->skip) {
			n = r->skip < len ? (size_t)r->skip : len;
			r->skip -= n;
			p += n;
			len -= n;
			continue;
		}
		if (r->rec_need) {
			n = r->rec_need - r->rec_len;
			if (n > len)
				n = len;
			memcpy(r->rec + r->rec_len, p, n);
			r->rec_len += n;
			p += n;
			len -= n;
			if (r->rec_len == r->rec_need) {
				file_reasm__record(r, r->rec, r->rec_len);
				r->rec_len = r->rec_need = 0;
			}
			continue;
		}
		/* A header, maybe in pieces. */
		n = 8 - r->hdr_len;
		if (n > len)
			n = len;
		memcpy(r->hdr + r->hdr_len, p, n);
		r->hdr_len += (unsigned int)n;
		p += n;
		len -= n;
		if (r->hdr_len < 8)
			continue;
		r->hdr_len = 0;
		memcpy(&h, r->hdr, 8);
		bytes = 8 * ((h & 0xf) == 15 ? (h >> 4) & 0xffffffffu :
					       (h >> 4) & 0xfff);
		if (!bytes)
			continue;	/* the framer lets none through */
		if (!wanted(h, (size_t)bytes) ||
		    (!r->rec && !(r->rec = malloc(REC_MAX)))) {
			r->skip = bytes - 8;
			continue;
		}
		memcpy(r->rec, r->hdr, 8);
		r->rec_len = 8;
		r->rec_need = (size_t)bytes;
		if (r->rec_len == r->rec_need) {
			file_reasm__record(r, r->rec, r->rec_len);
			r->rec_len = r->rec_need = 0;
		}
	}
}

void file_reasm__end(struct file_reasm *r)
{
	for (unsigned int i = 0; i < FILE_REASM_OPEN; i++)
		if (r->files[i].used)
			file_drop(r, &r->files[i], FILE_REASM_INCOMPLETE);
	free(r->rec);
	r->rec = NULL;
	r->rec_len = r->rec_need = 0;
	r->skip = 0;
	r->hdr_len = 0;
}
