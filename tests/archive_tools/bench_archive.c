// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_archive.c - the archive writer's compression speed, for `make
 * bench-archive` (scripts/bench-archive.sh): read an FXT file into memory,
 * then append its records to an archive writer (user/archive/archive.h)
 * that writes OUT.fxtz, REPS times, and print the best run:
 *   bench_archive: in=BYTES out=BYTES chunks=N best_s=S mb_s=M ratio=R
 * in MB/s of FXT (10^6 bytes) over wall time, as the lz4 and zstd
 * command lines are timed next to it on the same bytes: reading the
 * input is left out of all three (it is in the page cache for them).
 * The writer cuts chunks at its limits (default chunk sizes, as the
 * archive sink); with a single-segment input the chunks after the first
 * are continuations, which costs the same to compress.
 *
 * usage: bench_archive IN.fxt OUT.fxtz [REPS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "archive/archive.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int archive_once(const unsigned char *data, size_t len,
			const char *out, struct archive_writer_stats *st,
			double *secs)
{
	struct archive_writer_opts o = { .stream = ARCHIVE_STREAM_ALL };
	struct archive_writer *w;
	size_t off = 0;
	double t0;
	void *p;
	int fd, ret;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	t0 = now();
	ret = archive_writer__open(&w, fd, &o);
	while (!ret && off + 8 <= len) {
		uint64_t h, words;

		memcpy(&h, data + off, 8);
		words = (h & 0xf) == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		if (!words || words * 8 > len - off) {
			ret = -EPROTO;
			break;
		}
		p = archive_writer__reserve(w, words * 8);
		if (!p) {
			ret = -ENOBUFS;
			break;
		}
		memcpy(p, data + off, words * 8);
		archive_writer__commit(w, (unsigned int)(h & 0xf));
		off += words * 8;
	}
	if (!ret)
		ret = archive_writer__finish(w);
	if (!ret)
		archive_writer__stats(w, st);
	archive_writer__free(w);
	if (close(fd) && !ret)
		ret = -errno;
	*secs = now() - t0;
	return ret;
}

int main(int argc, char **argv)
{
	struct archive_writer_stats st = { 0 };
	double best = 0, secs = 0;
	unsigned char *data;
	struct stat sb;
	size_t len, got = 0;
	int fd, reps = argc > 3 ? atoi(argv[3]) : 3, ret;

	if (argc < 3 || reps < 1) {
		fprintf(stderr, "usage: bench_archive IN.fxt OUT.fxtz [REPS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		fprintf(stderr, "bench_archive: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	len = (size_t)sb.st_size;
	data = malloc(len ? len : 1);
	while (data && got < len) {
		ssize_t n = read(fd, data + got, len - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!data || got != len) {
		fprintf(stderr, "bench_archive: cannot read %s\n", argv[1]);
		return 1;
	}
	for (int i = 0; i < reps; i++) {
		ret = archive_once(data, len, argv[2], &st, &secs);
		if (ret) {
			fprintf(stderr, "bench_archive: %s: %s\n", argv[2],
				strerror(-ret));
			return 1;
		}
		if (!best || secs < best)
			best = secs;
	}
	printf("bench_archive: in=%zu out=%llu chunks=%llu best_s=%.4f "
	       "mb_s=%.1f ratio=%.3f\n", len,
	       (unsigned long long)st.bytes_out, (unsigned long long)st.chunks,
	       best, (double)len / 1e6 / best,
	       st.bytes_out ? (double)len / (double)st.bytes_out : 0);
	free(data);
	return 0;
}
