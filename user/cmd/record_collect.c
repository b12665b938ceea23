// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_collect.c - see record_collect.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "record_collect.h"
#include "source/mmap_rec.h"
#include "util/build_id_path.h"

struct collect_job {
	int fd;
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	uint8_t id_size;
	char path[256];			/* for messages: the recorded path */
	struct collect_job *next;
};

/* mkdir -p of the directories of @path, each 0700: 0 or -errno. */
static int make_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			int err = -errno;

			*slash = '/';
			return err;
		}
		*slash = '/';
	}
	return 0;
}

static int copy_fd(int in, int out, uint64_t *bytes)
{
	char buf[65536];
	ssize_t r;
	loff_t off = 0;

	/* In the kernel if it can; read and write if not (another fs). */
	for (;;) {
		r = copy_file_range(in, &off, out, NULL, 1 << 30, 0);
		if (r > 0) {
			*bytes += (uint64_t)r;
			continue;
		}
		if (!r)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP)
			return -errno;
		break;
	}
	for (;;) {
		r = pread(in, buf, sizeof(buf), off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return 0;
		off += r;
		for (char *p = buf; r > 0;) {
			ssize_t w = write(out, p, (size_t)r);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			p += w;
			r -= w;
			*bytes += (uint64_t)w;
		}
	}
}

/* One file into place: written beside, renamed if none is there. */
static int collect_one(struct record_collect *rc, const struct collect_job *j,
		       bool *present)
{
	char dst[PATH_MAX], tmp[PATH_MAX + 32];
	struct stat sb;
	uint64_t bytes = 0;
	int out, ret;

	*present = false;
	ret = build_id_path(dst, sizeof(dst), rc->dir, j->id, j->id_size, NULL);
	if (ret < 0)
		return ret;
	if (!stat(dst, &sb)) {
		*present = true;
		return 0;
	}
	ret = make_dirs(dst);
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", dst, (int)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		   0600);
	if (out < 0)
		return -errno;
	ret = copy_fd(j->fd, out, &bytes);
	if (close(out) && !ret)
		ret = -errno;
	if (!ret && renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE)) {
		ret = -errno;
		if (ret == -EEXIST) {
			*present = true;
			ret = 0;
		}
	}
	if (ret || *present)
		unlink(tmp);
	else
		rc->bytes += bytes;
	return ret;
}

static void *worker(void *arg)
{
	struct record_collect *rc = arg;
	struct collect_job *j;
	bool present;
	int ret;

	pthread_mutex_lock(&rc->lock);
	for (;;) {
		while (!rc->head && !rc->stop)
			pthread_cond_wait(&rc->more, &rc->lock);
		j = rc->head;
		if (!j)
			break;		/* stopped, and nothing left */
		rc->head = j->next;
		if (!rc->head)
			rc->tail = &rc->head;
		pthread_mutex_unlock(&rc->lock);
		ret = collect_one(rc, j, &present);
		if (ret) {
			if (!rc->failed++) {
				rc->first_err = ret;
				snprintf(rc->first_err_path,
					 sizeof(rc->first_err_path), "%s",
					 j->path);
			}
		} else if (present) {
			rc->present++;
		} else {
			rc->copied++;
		}
		close(j->fd);
		free(j);
		pthread_mutex_lock(&rc->lock);
	}
	pthread_mutex_unlock(&rc->lock);
	return NULL;
}

int record_collect__init(struct record_collect *rc, const char *dir)
{
	int ret;

	memset(rc, 0, sizeof(*rc));
	rc->tail = &rc->head;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	pthread_mutex_init(&rc->lock, NULL);
	pthread_cond_init(&rc->more, NULL);
	ret = -pthread_create(&rc->worker, NULL, worker, rc);
	if (ret) {
		pthread_cond_destroy(&rc->more);
		pthread_mutex_destroy(&rc->lock);
		return ret;
	}
	rc->running = true;
	rc->dir = dir;
	return 0;
}

/* The mapping's file as its process sees it: an fd, or -errno. */
static int open_mapped(const struct fxtprof_mmap *m, const char *path)
{
	char buf[FXTPROF_MAX_PATH + 64];
	struct stat sb;
	int fd = -ENOENT;

	for (unsigned int i = 0; mmap_rec__file_path("/proc", m->pid,
			m->start, m->start + m->len, path, i, buf,
			sizeof(buf)); i++) {
		fd = open(buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			fd = -errno;
			continue;
		}
		if (!fstat(fd, &sb) && S_ISREG(sb.st_mode))
			return fd;
		close(fd);
		fd = -EINVAL;
	}
	return fd;
}

void record_collect__mapping(struct record_collect *rc,
			     const struct fxtprof_mmap *m)
{
	char path[FXTPROF_MAX_PATH + 1];
	struct collect_job *j;
	uint64_t *slot;
	size_t len;
	int ret;

	if (!rc->dir || !m->build_id_size ||
	    m->build_id_size > FXTPROF_BUILD_ID_MAX)
		return;
	len = m->filename_len < FXTPROF_MAX_PATH ? m->filename_len :
	      FXTPROF_MAX_PATH;
	/* [vdso] and the like, and //anon, are no files. */
	if (!len || m->filename[0] != '/' || (len > 1 && m->filename[1] == '/'))
		return;
	ret = hmap__get_or_add(&rc->seen, hmap_hash_bytes(m->build_id,
			       m->build_id_size, 0), &slot);
	if (ret <= 0)
		return;		/* met before (or no memory: skipped) */
	memcpy(path, m->filename, len);
	path[len] = '\0';
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->fd = open_mapped(m, path);
	if (j->fd < 0) {
		/* A later mapping of the same file tries again. */
		hmap__del(&rc->seen, hmap_hash_bytes(m->build_id,
			  m->build_id_size, 0));
		rc->unreadable++;
		free(j);
		return;
	}
	memcpy(j->id, m->build_id, m->build_id_size);
	j->id_size = m->build_id_size;
	len = strnlen(path, sizeof(j->path) - 1);
	memcpy(j->path, path, len);	/* for messages: cut if long */
	j->path[len] = '\0';
	pthread_mutex_lock(&rc->lock);
	*rc->tail = j;
	rc->tail = &j->next;
	pthread_cond_signal(&rc->more);
	pthread_mutex_unlock(&rc->lock);
	rc->queued++;
}

void record_collect__fini(struct record_collect *rc)
{
	if (!rc->running)
		return;
	pthread_mutex_lock(&rc->lock);
	rc->stop = true;
	pthread_cond_signal(&rc->more);
	pthread_mutex_unlock(&rc->lock);
	pthread_join(rc->worker, NULL);
	rc->running = false;
	pthread_cond_destroy(&rc->more);
	pthread_mutex_destroy(&rc->lock);
	hmap__free(&rc->seen);
}

void record_collect__summary(const struct record_collect *rc)
{
	if (!rc->dir)
		return;
	fprintf(stderr, "fxtprof: collected into %s: %" PRIu64 " files (%"
		PRIu64 " bytes), %" PRIu64 " there already", rc->dir,
		rc->copied, rc->bytes, rc->present);
	if (rc->unreadable)
		fprintf(stderr, ", %" PRIu64 " unreadable", rc->unreadable);
	if (rc->failed)
		fprintf(stderr, ", %" PRIu64 " failed (the first %s: %s)",
			rc->failed, rc->first_err_path, strerror(-rc->first_err));
	fputc('\n', stderr);
}
