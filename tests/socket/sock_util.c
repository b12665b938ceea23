// SPDX-License-Identifier: GPL-2.0-only
/*
 * sock_util.c - see sock_util.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sock_util.h"

void buf__append(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		size_t ncap = b->cap ? b->cap : 65536;

		while (ncap < b->len + len)
			ncap *= 2;
		b->p = realloc(b->p, ncap);
		if (!b->p)
			abort();
		b->cap = ncap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

void buf__free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

uint64_t gen__rand(struct gen *g)
{
	/* xorshift64*: deterministic for a seed, good enough for sizes. */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

static int gen_sink(void *ctx, const void *rec, size_t len)
{
	struct gen *g = ctx;
	uint64_t h;
	int ret;

	/* The kind a sink counts drops by: the FXT record type. */
	memcpy(&h, rec, 8);
	ret = g->out ? sink__write(g->out, rec, len, h & 0xf) : 0;
	if (ret) {
		g->drop_records++;
		g->drop_bytes += len;
		return ret;
	}
	g->ok_records++;
	g->ok_bytes += len;
	if (g->keep)
		buf__append(&g->accepted, rec, len);
	return 0;
}

int gen__init(struct gen *g, struct sink *out, uint64_t seed,
	      unsigned int max_frames, bool keep)
{
	struct fxt_writer_opts wo = { .sz = sizeof(wo), .write = gen_sink };

	memset(g, 0, sizeof(*g));
	g->out = out;
	g->rng = seed ? seed : 1;
	g->max_frames = max_frames ? max_frames : 64;
	g->keep = keep;
	g->ts = 1000;
	wo.ctx = g;
	if (fxt_writer__new(&wo, &g->w))
		return -ENOMEM;
	return fxt_writer__prologue(g->w, 1, "socket-test", FXT_NS_PER_SEC);
}

void gen__fini(struct gen *g)
{
	fxt_writer__free(g->w);
	buf__free(&g->accepted);
}

int gen__sample(struct gen *g)
{
	uint64_t pcs[FXT_MAX_FRAMES];
	unsigned int n = 1 + gen__rand(g) % g->max_frames, i;

	for (i = 0; i < n; i++)
		pcs[i] = 0xffffffff81000000ull + gen__rand(g) % 0x100000;
	g->ts += 1000;
	return fxt_writer__stack_sample(g->w, g->ts, 100 + n % 7,
					200 + n % 13, pcs, n);
}

int gen__stream(uint64_t seed, size_t bytes, struct buf *out)
{
	struct gen g;
	int ret = gen__init(&g, NULL, seed, 128, true);

	while (!ret && g.accepted.len < bytes)
		ret = gen__sample(&g);
	*out = g.accepted;
	g.accepted.p = NULL;
	gen__fini(&g);
	return ret;
}

size_t fxt_record_len(const void *rec)
{
	uint64_t h;

	memcpy(&h, rec, 8);
	return 8 * (size_t)((h & 0xf) == 15 ? (h >> 4) & 0xffffffffu :
					     (h >> 4) & 0xfff);
}

uint64_t fxt_count_records(const void *data, size_t len, bool *whole)
{
	const unsigned char *p = data;
	uint64_t n = 0;
	size_t off = 0;

	while (off + 8 <= len) {
		uint64_t h, words;

		memcpy(&h, p + off, 8);
		words = (h & 0xf) == 15 ? (h >> 4) & 0xffffffffu :
					  (h >> 4) & 0xfff;
		if (!words || off + words * 8 > len)
			break;
		off += words * 8;
		n++;
	}
	*whole = off == len;
	return n;
}

size_t rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (size_t)sysconf(_SC_PAGESIZE);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

size_t read_avail(int fd, struct buf *b, size_t max)
{
	unsigned char tmp[65536];
	size_t total = 0;

	while (total < max) {
		size_t want = max - total < sizeof(tmp) ? max - total :
							   sizeof(tmp);
		ssize_t n = recv(fd, tmp, want, MSG_DONTWAIT);

		if (n <= 0)
			break;
		if (b)
			buf__append(b, tmp, (size_t)n);
		total += (size_t)n;
	}
	return total;
}

int set_bufs(int fd, int sndbuf, int rcvbuf)
{
	if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				 sizeof(sndbuf)))
		return -errno;
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				 sizeof(rcvbuf)))
		return -errno;
	return 0;
}

int peer_serve(int fd, struct buf *b)
{
	unsigned char tmp[65536];
	ssize_t n;

	while ((n = recv(fd, tmp, sizeof(tmp), MSG_DONTWAIT)) > 0)
		if (b)
			buf__append(b, tmp, (size_t)n);
	if (n == 0) {
		shutdown(fd, SHUT_WR);
		return 1;
	}
	return 0;
}

uint64_t proc_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	uint64_t kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %" SCNu64, &kb) == 1)
			break;
	fclose(f);
	return kb;
}
