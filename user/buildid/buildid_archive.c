// SPDX-License-Identifier: GPL-2.0-only
/*
 * buildid_archive.c - see buildid_archive.h.  The recording's mappings
 * are gathered by build id (a library mapped by many processes, in
 * several segments, is one file), sorted so the same recording gives the
 * same archive, then each file is opened once, its build id read again
 * from the open file, and its bytes copied from that same descriptor:
 * what is checked is what is archived.
 */
#define _GNU_SOURCE
#include "buildid/buildid_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid/ustar.h"
#include "profile/profile.h"
#include "source/elf_build_id.h"

#define DELETED_SUFFIX	" (deleted)"
#define DIR_NAME	".build-id"
#define FILE_MODE	0644
#define DIR_MODE	0755

struct wanted {
	const char *path;	/* the recorded path, owned by the profile */
	const uint8_t *id;
	unsigned int n;
};

static int cmp_wanted(const void *a, const void *b)
{
	const struct wanted *x = a, *y = b;
	unsigned int n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->id, y->id, n);

	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void hex(char *out, const uint8_t *id, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

void buildid_archive__entry_name(const uint8_t *id, unsigned int n,
				 char *buf, size_t size)
{
	char h[2 * BUILDID_ARCHIVE_ID_MAX + 1];

	hex(h, id, n < BUILDID_ARCHIVE_ID_MAX ? n : BUILDID_ARCHIVE_ID_MAX);
	snprintf(buf, size, DIR_NAME "/%.2s/%s", h, h + 2);
}

/* The mappings with a build id and a file path, one per build id. */
static int gather(const struct profile *p, struct wanted **out, size_t *nr,
		  struct buildid_archive_stats *st)
{
	size_t i, n = profile__nr_mappings(p), k = 0, j;
	struct wanted *w = calloc(n ? n : 1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct profile_mapping *m = profile__mapping(p, i);

		if (!m->path || m->path[0] != '/')
			continue;	/* [vdso], anonymous: no file */
		if (m->build_id_size < 2) {
			st->no_build_id++;
			continue;
		}
		w[k++] = (struct wanted){ m->path, m->build_id,
					  m->build_id_size };
	}
	qsort(w, k, sizeof(*w), cmp_wanted);
	/* One per build id: the first path in order. */
	for (i = 0, j = 0; i < k; i++) {
		if (j && w[j - 1].n == w[i].n &&
		    !memcmp(w[j - 1].id, w[i].id, w[i].n))
			continue;
		w[j++] = w[i];
	}
	*out = w;
	*nr = j;
	return 0;
}

/*
 * Archive one file: 0 (archived or skipped, with a note), or -errno of
 * the archive's write.
 */
static int add_one(struct ustar *t, const struct wanted *w, bool *have_dir,
		   buildid_archive_note_fn *note, void *ctx,
		   struct buildid_archive_stats *st)
{
	uint8_t now[BUILDID_ARCHIVE_ID_MAX];
	char name[2 * BUILDID_ARCHIVE_ID_MAX + 16];
	char want_hex[2 * BUILDID_ARCHIVE_ID_MAX + 1];
	char now_hex[2 * BUILDID_ARCHIVE_ID_MAX + 1];
	char why[sizeof(want_hex) + sizeof(now_hex) + 96];
	char *path;
	size_t len = strlen(w->path), dlen = strlen(DELETED_SUFFIX);
	struct stat sb;
	int fd, n, err, read_err;

	/* A file replaced while mapped: its new self may still be the one. */
	if (len > dlen && !strcmp(w->path + len - dlen, DELETED_SUFFIX))
		path = strndup(w->path, len - dlen);
	else
		path = strdup(w->path);
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	free(path);
	if (fd < 0) {
		err = -errno;
		st->unreadable++;
		note(ctx, w->path, err, "cannot be opened");
		return 0;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		err = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
		st->unreadable++;
		note(ctx, w->path, err, "is not a regular file");
		goto close_fd;
	}
	n = elf_build_id__from_fd(fd, now, sizeof(now));
	hex(want_hex, w->id, w->n);
	if (n < 0) {
		st->unreadable++;
		snprintf(why, sizeof(why), "has no readable build id now, "
			 "the recording has %s", want_hex);
		note(ctx, w->path, n, why);
		goto close_fd;
	}
	if ((unsigned int)n != w->n || memcmp(now, w->id, w->n)) {
		hex(now_hex, now, (unsigned int)n);
		st->changed++;
		snprintf(why, sizeof(why), "changed since the recording: build "
			 "id %s now, the recording has %s", now_hex, want_hex);
		note(ctx, w->path, 0, why);
		goto close_fd;
	}
	if (!have_dir[w->id[0]]) {
		snprintf(name, sizeof(name), DIR_NAME "/%02x/", w->id[0]);
		err = ustar__add_dir(t, name, DIR_MODE, sb.st_mtime);
		if (err)
			goto close_fd_err;
		have_dir[w->id[0]] = true;
	}
	buildid_archive__entry_name(w->id, w->n, name, sizeof(name));
	err = ustar__add_file(t, name, fd, (uint64_t)sb.st_size, FILE_MODE,
			      sb.st_mtime, &read_err);
	if (err)
		goto close_fd_err;
	if (read_err) {
		/* In the archive, but not as it was: say so. */
		st->unreadable++;
		note(ctx, w->path, read_err, "could not be read whole (it "
		     "changed while archived): its entry is damaged");
	} else {
		st->files++;
		st->bytes += (uint64_t)sb.st_size;
	}
close_fd:
	close(fd);
	return 0;
close_fd_err:
	close(fd);
	return err;
}

int buildid_archive__write(const struct profile *p, int fd,
			   buildid_archive_note_fn *note, void *ctx,
			   struct buildid_archive_stats *st)
{
	struct ustar t = { .fd = fd };
	bool have_dir[256] = { false };
	struct wanted *w;
	size_t nr, i;
	int err;

	*st = (struct buildid_archive_stats){ 0 };
	err = gather(p, &w, &nr, st);
	if (err)
		return err;
	err = ustar__add_dir(&t, DIR_NAME "/", DIR_MODE, 0);
	for (i = 0; i < nr && !err; i++)
		err = add_one(&t, &w[i], have_dir, note, ctx, st);
	if (!err)
		err = ustar__finish(&t);
	free(w);
	return err;
}
