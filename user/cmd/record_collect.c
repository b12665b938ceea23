// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_collect.c - see record_collect.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "record_collect.h"
#include "fxt/fxt_profile.h"
#include "sink/sink.h"
#include "source/mmap_rec.h"
#include "state/stream_state.h"
#include "util/build_id_path.h"

struct collect_job {
	int fd;
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	uint8_t id_size;
	char path[256];			/* for messages: the recorded path */
	struct collect_job *next;
};

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
	ret = build_id_path_make_dirs(dst);
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

/* A chunk of a file, read, on its way to the stream. */
struct collect_chunk {
	struct collect_chunk *next;
	uint64_t file_seq;
	bool last;			/* the file's last chunk */
	size_t data_len;
	size_t len;			/* the payload's */
	uint64_t payload[];		/* fxt_profile.h's layout */
};

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ENODATA;	/* it shrank */
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/*
 * --collect stream: one file in chunks onto the ready queue, waiting for
 * room; called and returning with rc->lock not held.
 */
static void send_one(struct record_collect *rc, const struct collect_job *j)
{
	size_t head = fxt_file_head_len(j->id_size);
	struct collect_chunk *c;
	struct stat sb;
	uint64_t off, seq;
	size_t n;

	if (fstat(j->fd, &sb) || !sb.st_size) {
		rc->cut++;
		return;
	}
	pthread_mutex_lock(&rc->lock);
	if ((uint64_t)sb.st_size > rc->max_bytes - rc->budget) {
		rc->skipped++;
		pthread_mutex_unlock(&rc->lock);
		return;
	}
	rc->budget += (uint64_t)sb.st_size;
	seq = ++rc->file_seq;
	pthread_mutex_unlock(&rc->lock);
	for (off = 0; off < (uint64_t)sb.st_size; off += n) {
		n = (uint64_t)sb.st_size - off < FXT_FILE_CHUNK ?
		    (size_t)((uint64_t)sb.st_size - off) : FXT_FILE_CHUNK;
		c = calloc(1, sizeof(*c) + head + n);
		if (!c) {
			rc->cut++;
			return;
		}
		c->file_seq = seq;
		c->data_len = n;
		c->len = head + n;
		c->last = off + n == (uint64_t)sb.st_size;
		c->payload[FXT_FILE_SIZE] = (uint64_t)sb.st_size;
		c->payload[FXT_FILE_OFFSET] = off;
		c->payload[FXT_FILE_ID_LEN] = j->id_size;
		memcpy(&c->payload[FXT_FILE_ID], j->id, j->id_size);
		if (pread_all(j->fd, (char *)c->payload + head, n, off)) {
			/* What went out is dropped on the host. */
			free(c);
			rc->cut++;
			return;
		}
		pthread_mutex_lock(&rc->lock);
		while (rc->nready >= COLLECT_QUEUE && !rc->stop)
			pthread_cond_wait(&rc->room, &rc->lock);
		if (rc->stop) {
			rc->abandoned++;
			rc->abandon_seq = seq;
			pthread_mutex_unlock(&rc->lock);
			free(c);
			return;
		}
		*rc->ready_tail = c;
		rc->ready_tail = &c->next;
		rc->nready++;
		pthread_mutex_unlock(&rc->lock);
	}
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
		if (rc->urgent_tail == &j->next)
			rc->urgent_tail = &rc->head;
		if (!rc->head)
			rc->tail = &rc->head;
		if (rc->stream) {
			rc->in_file = true;
			pthread_mutex_unlock(&rc->lock);
			send_one(rc, j);
			close(j->fd);
			free(j);
			pthread_mutex_lock(&rc->lock);
			rc->in_file = false;
			if (rc->stop)
				break;	/* what is queued is abandoned */
			continue;
		}
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

static int start_worker(struct record_collect *rc)
{
	sigset_t all, old;
	int ret;

	pthread_mutex_init(&rc->lock, NULL);
	pthread_cond_init(&rc->more, NULL);
	pthread_cond_init(&rc->room, NULL);
	/*
	 * The worker takes no signal: record reads SIGINT and the others
	 * from a signalfd, which works only while every thread blocks them.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&rc->worker, NULL, worker, rc);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_cond_destroy(&rc->room);
		pthread_cond_destroy(&rc->more);
		pthread_mutex_destroy(&rc->lock);
		return ret;
	}
	rc->running = true;
	return 0;
}

int record_collect__init(struct record_collect *rc, const char *dir)
{
	int ret;

	memset(rc, 0, sizeof(*rc));
	rc->tail = rc->urgent_tail = &rc->head;
	rc->ready_tail = &rc->ready;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	ret = start_worker(rc);
	if (ret)
		return ret;
	rc->dir = dir;
	return 0;
}

int record_collect__init_stream(struct record_collect *rc,
				struct stream_state *state, struct sink *out,
				uint64_t max_bytes)
{
	int ret;

	memset(rc, 0, sizeof(*rc));
	rc->tail = rc->urgent_tail = &rc->head;
	rc->ready_tail = &rc->ready;
	rc->stream = true;
	rc->state = state;
	rc->out = out;
	rc->max_bytes = max_bytes ? max_bytes : COLLECT_DEFAULT_MAX;
	ret = start_worker(rc);
	if (ret)
		return ret;
	rc->dir = "stream";
	return 0;
}

void record_collect__send(struct record_collect *rc)
{
	struct collect_chunk *c;
	int ret;

	if (!rc->stream || !rc->running)
		return;
	while (sink__stats(rc->out)->buffered_bytes < COLLECT_BACKLOG) {
		pthread_mutex_lock(&rc->lock);
		c = rc->ready;
		if (c) {
			rc->ready = c->next;
			if (!rc->ready)
				rc->ready_tail = &rc->ready;
			rc->nready--;
			pthread_cond_signal(&rc->room);
		}
		pthread_mutex_unlock(&rc->lock);
		if (!c)
			break;
		ret = stream_state__file_chunk(rc->state, c->payload, c->len);
		rc->chunks++;
		if (ret) {
			/* The receiver sees the gap and drops the file. */
			rc->chunks_dropped++;
			if (rc->lost_seq != c->file_seq)
				rc->lost++;
			rc->lost_seq = c->file_seq;
		} else if (c->last && rc->lost_seq != c->file_seq) {
			rc->sent_files++;
		}
		if (!ret)
			rc->sent_bytes += c->data_len;
		free(c);
	}
}

bool record_collect__pending(struct record_collect *rc)
{
	bool busy;

	if (!rc->stream || !rc->running)
		return false;
	pthread_mutex_lock(&rc->lock);
	busy = rc->head || rc->ready || rc->in_file;
	pthread_mutex_unlock(&rc->lock);
	return busy;
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
			     const struct fxtprof_mmap *m, bool urgent)
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
	if (urgent) {
		/* After the urgent ones, before the rest. */
		j->next = *rc->urgent_tail;
		*rc->urgent_tail = j;
		if (rc->tail == rc->urgent_tail)
			rc->tail = &j->next;
		rc->urgent_tail = &j->next;
	} else {
		*rc->tail = j;
		rc->tail = &j->next;
	}
	pthread_cond_signal(&rc->more);
	pthread_mutex_unlock(&rc->lock);
	rc->queued++;
}

void record_collect__fini(struct record_collect *rc)
{
	struct collect_chunk *c;
	struct collect_job *j;
	uint64_t seq = 0;

	if (!rc->running)
		return;
	pthread_mutex_lock(&rc->lock);
	rc->stop = true;
	pthread_cond_signal(&rc->more);
	pthread_cond_signal(&rc->room);
	pthread_mutex_unlock(&rc->lock);
	pthread_join(rc->worker, NULL);
	rc->running = false;
	/* --collect stream: what was not sent. */
	while ((j = rc->head)) {
		rc->head = j->next;
		rc->abandoned++;
		close(j->fd);
		free(j);
	}
	while ((c = rc->ready)) {
		rc->ready = c->next;
		/* A file the worker gave up on is counted already. */
		if (c->file_seq != seq && c->file_seq != rc->abandon_seq)
			rc->abandoned++;
		seq = c->file_seq;
		free(c);
	}
	pthread_cond_destroy(&rc->room);
	pthread_cond_destroy(&rc->more);
	pthread_mutex_destroy(&rc->lock);
	hmap__free(&rc->seen);
}

void record_collect__summary(const struct record_collect *rc)
{
	if (!rc->dir)
		return;
	if (rc->stream) {
		fprintf(stderr, "fxtprof: collected into the stream: %" PRIu64
			" files (%" PRIu64 " bytes) sent", rc->sent_files,
			rc->sent_bytes);
		if (rc->skipped)
			fprintf(stderr, ", %" PRIu64 " skipped (over "
				"--collect-max)", rc->skipped);
		if (rc->lost)
			fprintf(stderr, ", %" PRIu64 " lost (the output "
				"dropped %" PRIu64 " of %" PRIu64 " chunks)",
				rc->lost, rc->chunks_dropped, rc->chunks);
		if (rc->abandoned)
			fprintf(stderr, ", %" PRIu64 " not sent before the "
				"end", rc->abandoned);
		if (rc->cut)
			fprintf(stderr, ", %" PRIu64 " unreadable or changed "
				"while read", rc->cut);
		if (rc->unreadable)
			fprintf(stderr, ", %" PRIu64 " unreadable",
				rc->unreadable);
		fputc('\n', stderr);
		return;
	}
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
