// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_input.c - see archive_input.h.
 *
 * A child process, not a thread: the commands keep their own blocking
 * reads and their exit paths, and the child's end of the pipe closes
 * when it exits, whatever happened, so the reader always sees EOF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cmd.h"
#include "archive_input.h"
#include "archive/archive.h"
#include "archive/archive_extract.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "transport/fd_io.h"
#ifdef FXTPROF_HAVE_SYMBOLS
#include "profile/profile.h"
#endif

#define OUT_BUF		(1u << 20)

/* Child exit status: all written, chunks failed their checksum, error. */
#define CHILD_OK	0
#define CHILD_BAD_CHUNKS 3
#define CHILD_FAILED	1

int archive_input__probe(const char *path, struct archive_reader **a)
{
	uint64_t magic = 0;
	char err[256];
	int fd, ret;

	*a = NULL;
	if (!strcmp(path, "-"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* the command says why, as for any file */
	ret = pread(fd, &magic, sizeof(magic), 0) == sizeof(magic) &&
	      magic == FXT_MAGIC;
	close(fd);
	if (ret)
		return 0;
	ret = archive_reader__open(a, path, 0, err, sizeof(err));
	if (ret == -ENOTSUP)
		return 0;
	if (ret)
		return reader_err(ret, "%s", err);
	return 1;
}

/* A buffered writer of whole records to an fd. */
struct fd_out {
	int fd;
	unsigned char *buf;
	size_t len;
};

static int fd_out__flush(struct fd_out *o)
{
	int ret = fd__write_all(o->fd, o->buf, o->len);

	if (ret)
		return ret;
	o->len = 0;
	return 0;
}

static int fd_out__emit(void *ctx, const void *rec, size_t len,
			unsigned int kind)
{
	struct fd_out *o = ctx;
	int ret;

	(void)kind;
	if (o->len + len > OUT_BUF) {
		ret = fd_out__flush(o);
		if (ret)
			return ret;
	}
	if (len > OUT_BUF) {
		struct fd_out direct = { o->fd, (unsigned char *)rec, len };

		return fd_out__flush(&direct);
	}
	memcpy(o->buf + o->len, rec, len);
	o->len += len;
	return 0;
}

int archive_input__extract_fd(const struct archive_reader *a, int fd,
			      uint64_t from_ns, uint64_t to_ns,
			      struct archive_extract_stats *st, char *err,
			      size_t errlen)
{
	struct fd_out o = { .fd = fd };
	int ret, fl;

	o.buf = malloc(OUT_BUF);
	if (!o.buf)
		return -ENOMEM;
	ret = archive_extract(a, from_ns, to_ns, fd_out__emit, &o, st, err,
			      errlen);
	if (!ret || ret == -EBADMSG) {
		fl = fd_out__flush(&o);
		if (fl) {
			snprintf(err, errlen, "cannot write the stream: %s",
				 strerror(-fl));
			ret = fl;
		}
	}
	free(o.buf);
	return ret;
}

static int start_child(struct archive_input *in, struct archive_reader *a,
		       uint64_t from_ns, uint64_t to_ns)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return reader_err(-errno, "cannot make a pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(p[0]);
		close(p[1]);
		return reader_err(ret, "cannot fork the archive reader");
	}
	if (!pid) {
		struct archive_extract_stats st;
		char err[256];
		int ret;

		close(p[0]);
		ret = archive_input__extract_fd(a, p[1], from_ns, to_ns, &st,
						err, sizeof(err));
		/* The reader stopped reading: not the archive's fault. */
		if (ret == -EPIPE)
			_exit(CHILD_OK);
		if (ret)
			fprintf(stderr, "fxtprof: %s: %s\n", in->path, err);
		if (ret == -EBADMSG)
			fprintf(stderr, "fxtprof: %s: %" PRIu64 " chunks failed "
				"their checksum and were left out; the rest "
				"was read\n", in->path, st.chunks_bad);
		_exit(!ret ? CHILD_OK : ret == -EBADMSG ? CHILD_BAD_CHUNKS :
		      CHILD_FAILED);
	}
	close(p[1]);
	archive_reader__close(a);
	if (dup2(p[0], STDIN_FILENO) < 0) {
		int ret = -errno;

		close(p[0]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return reader_err(ret, "cannot read the archive's pipe");
	}
	close(p[0]);
	in->pid = pid;
	return 1;
}

/* Start @in afresh on @path and probe it (archive_input__probe()). */
static int archive_input__reset(struct archive_input *in, const char *path,
				struct archive_reader **a)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	return archive_input__probe(path, a);
}

int archive_input__open(struct archive_input *in, const char **path,
			uint64_t from_ns, uint64_t to_ns)
{
	struct archive_reader *a;
	int ret;

	ret = archive_input__reset(in, *path, &a);
	if (ret <= 0)
		return ret;
	ret = start_child(in, a, from_ns, to_ns);
	if (ret > 0)
		*path = "-";
	return ret;
}

int archive_input__close(struct archive_input *in)
{
	int status;

	if (!in->pid)
		return 0;
	/* EOF for a child still writing (the command stopped early). */
	close(STDIN_FILENO);
	while (waitpid(in->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	in->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_BAD_CHUNKS)
		return -EBADMSG;
	return -EIO;
}

/* One end of --time: 1 if empty, 0 if parsed, -EINVAL if bad. */
static int time_end(const char *s, size_t len, uint64_t first, uint64_t *out)
{
	char buf[64], *end;

	if (!len)
		return 1;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (len > 2 && !strcmp(buf + len - 2, "ns")) {
		unsigned long long v;

		buf[len - 2] = 0;
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (*end || end == buf || errno || buf[0] == '-')
			return -EINVAL;
		*out = v;
	} else {
		double d = strtod(buf, &end);

		if (*end || end == buf || !(d >= 0) || d > 1e9)
			return -EINVAL;
		*out = first + (uint64_t)(d * 1e9 + 0.5);
	}
	return 0;
}

int archive_time_spec__parse(const char *spec, uint64_t first_sample,
			     uint64_t *from_ns, uint64_t *to_ns)
{
	const char *comma = strchr(spec, ',');
	int r1, r2;

	*from_ns = 0;
	*to_ns = UINT64_MAX;
	if (!comma)
		goto bad;
	r1 = time_end(spec, (size_t)(comma - spec), first_sample, from_ns);
	r2 = time_end(comma + 1, strlen(comma + 1), first_sample, to_ns);
	if (r1 < 0 || r2 < 0 || *from_ns > *to_ns)
		goto bad;
	return 0;
bad:
	reader_err(-EINVAL, "--time wants FROM,TO in seconds from the first "
		   "sample or in absolute ns ('123ns'), FROM <= TO, not '%s'",
		   spec);
	return -EINVAL;
}

#ifdef FXTPROF_HAVE_SYMBOLS
/* A growing buffer of whole records, for a small extraction. */
struct mem_out {
	unsigned char *buf;
	size_t len, cap;
};

static int mem_out__emit(void *ctx, const void *rec, size_t len,
			 unsigned int kind)
{
	struct mem_out *m = ctx;

	(void)kind;
	if (m->len + len > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : (1u << 20);
		unsigned char *n;

		while (ncap < m->len + len)
			ncap *= 2;
		n = realloc(m->buf, ncap);
		if (!n)
			return -ENOMEM;
		m->buf = n;
		m->cap = ncap;
	}
	memcpy(m->buf + m->len, rec, len);
	m->len += len;
	return 0;
}

/*
 * The first sample's time in [from, to]: 1 and *ts, 0 if it holds none,
 * -errno.
 */
static int first_sample_in(const struct archive_reader *a, uint64_t from,
			   uint64_t to, uint64_t *ts)
{
	struct archive_extract_stats st;
	struct profile_error perr = { 0 };
	struct mem_out m = { 0 };
	struct profile *p = NULL;
	char err[256];
	int ret;

	ret = archive_extract(a, from, to, mem_out__emit, &m, &st, err,
			      sizeof(err));
	if (ret && ret != -EBADMSG) {
		free(m.buf);
		return reader_err(ret, "%s", err);
	}
	ret = profile__load_buffer(m.buf, m.len, &p, &perr);
	free(m.buf);
	if (ret)
		return reader_err(ret, "at byte %" PRIu64 " of the extracted "
				  "stream: %s", perr.offset, perr.msg);
	ret = profile__nr_samples(p) > 0;
	if (ret)
		*ts = profile__sample(p, 0)->ts;	/* samples are sorted */
	profile__free(p);
	return ret;
}

/*
 * The recording's first sample: in the first summary window that counts
 * one, so only the chunks of that window are decompressed; a scanned
 * archive has no summaries, and chunks are tried from the start, twice
 * as many each time.  0 when there is no sample (as report_tree.c).
 */
static int first_sample(const struct archive_reader *a, uint64_t *ts)
{
	size_t n = archive_reader__nchunks(a), j;
	struct archive_windows w;
	int ret;

	*ts = 0;
	if (!archive_reader__windows(a, &w) && w.window_ns) {
		for (uint64_t i = 0; i < (uint64_t)w.nwindows * w.ncpus; i++) {
			uint64_t t;

			if (!w.samples[i])
				continue;
			t = w.t0 + (i / w.ncpus) * w.window_ns;
			ret = first_sample_in(a, t, t + w.window_ns - 1, ts);
			if (ret)
				return ret < 0 ? ret : 0;
			break;	/* the summary disagrees: look everywhere */
		}
	}
	for (j = 0; j < n; j = 2 * j + 1) {
		ret = first_sample_in(a, 0, archive_reader__chunk(a, j)->t_last,
				      ts);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	ret = first_sample_in(a, 0, UINT64_MAX, ts);
	return ret < 0 ? ret : 0;
}

int archive_input__clip_buffer(const void *data, size_t len, uint64_t from_ns,
			       uint64_t to_ns, uint8_t **out, size_t *out_len)
{
	struct archive_extract_stats st = { 0 };
	struct mem_out m = { 0 };
	struct archive_clip c;
	size_t bad = 0;
	int ret;

	archive_clip__init(&c, from_ns, to_ns, mem_out__emit, &m, &st);
	ret = archive_clip__feed(&c, data, len, &bad);
	if (ret) {
		free(m.buf);
		return ret == -EPROTO ? reader_err(ret, "the record at byte %zu "
						   "is cut or has no size", bad) :
					reader_err(ret, "--time");
	}
	*out = m.buf;
	*out_len = m.len;
	return 0;
}

int archive_input__open_profile(struct archive_input *in, const char **path,
				const char **spec)
{
	uint64_t from = 0, to = UINT64_MAX, first;
	struct archive_reader *a;
	const char *comma;
	int ret;

	ret = archive_input__reset(in, *path, &a);
	if (ret <= 0)
		return ret;
	if (*spec) {
		ret = first_sample(a, &first);
		if (!ret)
			ret = archive_time_spec__parse(*spec, first, &from, &to);
		if (ret) {
			archive_reader__close(a);
			return ret;
		}
		/* An empty end stays empty: the same selection. */
		comma = strchr(*spec, ',');
		if (comma == *spec)
			in->spec[0] = 0;
		else
			snprintf(in->spec, sizeof(in->spec), "%" PRIu64 "ns",
				 from);
		if (comma[1])
			snprintf(in->spec + strlen(in->spec),
				 sizeof(in->spec) - strlen(in->spec),
				 ",%" PRIu64 "ns", to);
		else
			strcat(in->spec, ",");
		*spec = in->spec;
	}
	ret = start_child(in, a, from, to);
	if (ret > 0)
		*path = "-";
	return ret;
}
#endif

/*
 * dump and check take one FILE among flags that have no value: the first
 * argument that is not an option.  An archive there is read through the
 * pipe; the tool's own exit status stands, unless the archive could not
 * be read whole.
 */
static int run_on_input(int argc, char **argv, int (*fn)(int, char **))
{
	struct archive_input in;
	const char *path;
	char **nv;
	int i, ret, rc;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++)
		;
	if (i == argc)
		return fn(argc, argv);
	path = argv[i];
	ret = archive_input__open(&in, &path, 0, UINT64_MAX);
	if (ret < 0)
		return 2;
	if (!ret)
		return fn(argc, argv);
	nv = calloc((size_t)argc + 1, sizeof(*nv));
	if (!nv) {
		archive_input__close(&in);
		return reader_err(-ENOMEM, "%s", argv[0]), 2;
	}
	memcpy(nv, argv, (size_t)argc * sizeof(*nv));
	nv[i] = (char *)path;
	rc = fn(argc, nv);
	free(nv);
	ret = archive_input__close(&in);
	if (ret && !rc)
		rc = 1;
	return rc;
}

int cmd_dump(int argc, char **argv)
{
	return run_on_input(argc, argv, fxt_dump_main);
}

int cmd_check(int argc, char **argv)
{
	return run_on_input(argc, argv, fxt_check_main);
}
