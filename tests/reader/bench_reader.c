// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_reader.c - throughput of the reader's hot path on one thread.
 *
 * Rings of the real layout (ring_sim, one per simulated CPU) are filled
 * with sample records carrying 16-frame stacks (8 kernel + 8 user), then
 * drained by the very code `fxtprof record` runs: fxtprof_ring__drain()
 * -> stream_state__record() -> the FXT encoder, writing in place into a
 * sink.  Only the drain is timed (wall clock and thread CPU time); filling
 * is not.  Sinks:
 *   mem   room reserved in a buffer, wrapping: the pure cost of draining
 *         and encoding.  Twice: a 1 MiB buffer, which stays in the cache
 *         as the sinks' queue does (it starts over at offset 0 whenever
 *         it is written out), and a 64 MiB one, which does not
 *   file  the file sink (user/sink/sink_file.c) to a real file
 *   memcpy  the ceiling: memcpy of the same ring bytes into the same
 *         buffer, no translation
 *
 * usage: bench_reader [-n RECORDS] [-r RINGS] [-f FILE] [-o FXT-OUT]
 *                     [-m KIB]  (-m: one memory run, this buffer size)
 *   -o writes one pass of the memory sink's FXT to a file (for checking).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "encode/fxt_encoder.h"
#include <libfxtprof.h>
#include "ring_sim.h"
#include "sink/sink.h"
#include "state/stream_state.h"
#include "transport/evloop.h"

#define RING_SIZE	(4u << 20)
#define FRAMES		16
#define MEM_HOT		(1u << 20)
#define MEM_COLD	(64u << 20)

struct mem_sink {
	unsigned char *buf;
	size_t len, cap;
	uint64_t total;
	size_t reserved;
	FILE *save;		/* -o: keep the first pass */
};

static int mem_write(void *ctx, const void *rec, size_t len)
{
	struct mem_sink *m = ctx;
	const unsigned char *p = rec;

	m->total += len;
	/* A ring's whole span may be larger than the buffer: wrap in it. */
	while (len) {
		size_t n = len < m->cap ? len : m->cap;

		if (m->len + n > m->cap)
			m->len = 0;
		memcpy(m->buf + m->len, p, n);
		m->len += n;
		p += n;
		len -= n;
	}
	return 0;
}

/* The in-place memory sink: what an encoder costs with nothing behind. */
static void *mem_reserve(void *ctx, size_t len, unsigned int type)
{
	struct mem_sink *m = ctx;

	(void)type;
	if (m->len + len > m->cap)
		m->len = 0;
	m->reserved = len;
	return m->buf + m->len;
}

static void mem_commit(void *ctx)
{
	struct mem_sink *m = ctx;

	if (m->save)
		fwrite(m->buf + m->len, 1, m->reserved, m->save);
	m->len += m->reserved;
	m->total += m->reserved;
}

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench {
	unsigned int nr_rings;
	struct fxtprof_ring_sim **sims;
	struct fxtprof_ring *rings;
	uint64_t ts;
	uint64_t ring_bytes;	/* produced per fill */
	uint64_t ring_records;
};

/* Fill every ring up to (nearly) full; returns records produced. */
static uint64_t fill(struct bench *b, uint64_t max_records)
{
	uint32_t size = sizeof(struct fxtprof_sample) + FRAMES * 8;
	uint64_t n = 0;
	unsigned int cpu;

	b->ring_bytes = 0;
	for (cpu = 0; cpu < b->nr_rings; cpu++) {
		uint64_t per = max_records / b->nr_rings, cap = RING_SIZE / size - 64;
		uint64_t i;

		if (per > cap)
			per = cap;
		if (!per)
			per = 1;
		for (i = 0; i < per; i++) {
			struct fxtprof_sample *s = fxtprof_ring_sim__reserve(
				b->sims[cpu], FXTPROF_REC_SAMPLE, size, b->ts);
			unsigned int k;

			if (!s)
				break;
			b->ts += 1000;
			s->pid = 1000 + (uint32_t)(i % 37);
			s->tid = s->pid + (uint32_t)(i % 3);
			s->mode = FXTPROF_MODE_USER;
			s->flags = 0;
			s->nr_kernel = FRAMES / 2;
			s->nr_user = FRAMES / 2;
			s->reserved = 0;
			for (k = 0; k < FRAMES / 2; k++)
				s->ips[k] = 0xffffffff81000000ull + k * 0x1234 + (i & 0xff);
			for (; k < FRAMES; k++)
				s->ips[k] = 0x400000ull + k * 0x2345 + (i & 0xfff);
			fxtprof_ring_sim__commit(b->sims[cpu]);
			n++;
			b->ring_bytes += size;
		}
	}
	b->ring_records = n;
	return n;
}

struct result {
	uint64_t records, in_bytes, out_bytes;
	double wall, cpu;
};

static void print_result(const char *name, const struct result *r,
			 const struct result *ceiling)
{
	double rps = (double)r->records / r->wall;

	/* On a shared machine wall time includes time the thread did not
	 * run; the per-CPU-second rate is what one core sustains. */
	printf("%-22s %6.2f M rec/s (%6.2f per cpu-s)  in %7.1f MB/s  out %7.1f"
	       " MB/s  cpu/wall %.2f", name, rps / 1e6,
	       (double)r->records / r->cpu / 1e6,
	       (double)r->in_bytes / r->wall / 1e6,
	       (double)r->out_bytes / r->wall / 1e6, r->cpu / r->wall);
	if (ceiling && ceiling != r)
		printf("  = %.1f%% of memcpy (cpu %.1f%%)", 100.0 *
		       ceiling->wall / (double)ceiling->records *
		       (double)r->records / r->wall, 100.0 * ceiling->cpu /
		       (double)ceiling->records * (double)r->records / r->cpu);
	putchar('\n');
}

static int run_translate(struct bench *b, uint64_t total,
			 struct stream_state *st, int (*flush)(void *),
			 void *fctx, struct result *res)
{
	uint64_t done = 0;

	memset(res, 0, sizeof(*res));
	while (done < total) {
		uint64_t n = fill(b, total - done < 4 * b->nr_rings ?
				  4 * b->nr_rings : total - done);
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		unsigned int cpu;

		if (!n)
			return -ENOSPC;
		for (cpu = 0; cpu < b->nr_rings; cpu++) {
			int ret = fxtprof_ring__drain(&b->rings[cpu],
						      stream_state__record, st);
			if (ret < 0)
				return ret;
		}
		if (flush)
			flush(fctx);
		res->wall += now(CLOCK_MONOTONIC) - w0;
		res->cpu += now(CLOCK_THREAD_CPUTIME_ID) - c0;
		res->records += n;
		res->in_bytes += b->ring_bytes;
		done += n;
	}
	return 0;
}

static int run_memcpy(struct bench *b, uint64_t total, struct mem_sink *m,
		      struct result *res)
{
	uint64_t done = 0;

	memset(res, 0, sizeof(*res));
	while (done < total) {
		uint64_t n = fill(b, total - done);
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		unsigned int cpu;

		for (cpu = 0; cpu < b->nr_rings; cpu++) {
			const void *p;
			size_t len;

			if (fxtprof_ring__peek(&b->rings[cpu], &p, &len))
				return -EPROTO;
			mem_write(m, p, len);
			fxtprof_ring__consume(&b->rings[cpu], len);
		}
		res->wall += now(CLOCK_MONOTONIC) - w0;
		res->cpu += now(CLOCK_THREAD_CPUTIME_ID) - c0;
		res->records += n;
		res->in_bytes += b->ring_bytes;
		res->out_bytes += b->ring_bytes;
		done += n;
	}
	return 0;
}

static int flush_out(void *ctx)
{
	return sink__flush(ctx);
}

/* One memory run: warm up, then @total records; 0 or -errno. */
static int run_mem(struct bench *b, uint64_t total, struct mem_sink *m,
		   const char *save, struct result *r)
{
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
		.ctx = m,
	};
	struct fxt_encoder *enc;
	struct stream_state st;
	int ret;

	m->len = 0;
	if (save) {
		m->save = fopen(save, "wb");
		if (!m->save)
			return -errno;
	}
	ret = fxt_encoder__new_opts(&enc, &wo);
	if (ret)
		return ret;
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	stream_state__sync(&st);
	if (save) {
		/* One small pass only, then stop saving. */
		struct fxtprof_stats fst = { .size = sizeof(fst) };
		struct result tmp;

		run_translate(b, 20000, &st, NULL, NULL, &tmp);
		stream_state__final_stats(&st, b->ts, &fst);
		fclose(m->save);
		m->save = NULL;
	}
	/* warm-up */
	run_translate(b, total / 10 + 1000, &st, NULL, NULL, r);
	m->total = 0;
	ret = run_translate(b, total, &st, NULL, NULL, r);
	r->out_bytes = m->total;
	if (!ret && st.st.encode_errors) {
		fprintf(stderr, "bench_reader: %" PRIu64 " records failed to encode\n",
			st.st.encode_errors);
		ret = -EIO;
	}
	stream_state__fini(&st);
	fxt_encoder__free(enc);
	return ret;
}

int main(int argc, char **argv)
{
	struct mem_sink m = { .cap = MEM_COLD };
	uint64_t total = 4000000, file_total;
	const char *file = NULL, *save = NULL;
	struct result r_mem[2], r_file, r_cpy[2];
	size_t one_cap = 0;
	char name[64];
	struct fxt_encoder *enc;
	struct stream_state st;
	struct bench b = { .nr_rings = 4 };
	struct evloop loop;
	struct sink_opts so = { 0 };
	struct sink *o;
	char err[256], tmpl[] = "/tmp/bench_reader.XXXXXX";
	unsigned int i;
	int c, ret;

	while ((c = getopt(argc, argv, "n:r:f:o:m:")) != -1) {
		switch (c) {
		case 'n': total = strtoull(optarg, NULL, 0); break;
		case 'r': b.nr_rings = (unsigned int)atoi(optarg); break;
		case 'f': file = optarg; break;
		case 'o': save = optarg; break;
		case 'm': one_cap = strtoull(optarg, NULL, 0) << 10; break;
		default:
			fprintf(stderr, "usage: bench_reader [-n RECORDS] [-r RINGS]"
				" [-f FILE] [-o FXT-OUT]\n");
			return 2;
		}
	}
	if (!b.nr_rings || b.nr_rings > 64 || total < 1000 ||
	    (one_cap && (one_cap < (64u << 10) || one_cap > MEM_COLD)))
		return 2;
	b.sims = calloc(b.nr_rings, sizeof(*b.sims));
	b.rings = calloc(b.nr_rings, sizeof(*b.rings));
	m.buf = malloc(m.cap);
	if (!b.sims || !b.rings || !m.buf)
		return 1;
	memset(m.buf, 0, m.cap);	/* fault it in before timing */
	for (i = 0; i < b.nr_rings; i++) {
		ret = fxtprof_ring_sim__new(i, RING_SIZE, &b.sims[i]);
		if (!ret)
			ret = fxtprof_ring_sim__attach(b.sims[i], &b.rings[i]);
		if (ret) {
			fprintf(stderr, "ring_sim: %s\n", strerror(-ret));
			return 1;
		}
	}
	printf("bench_reader: %" PRIu64 " sample records, %d-frame stacks "
	       "(%zu B each), %u rings of %u KiB, one thread\n", total, FRAMES,
	       sizeof(struct fxtprof_sample) + FRAMES * 8, b.nr_rings,
	       RING_SIZE >> 10);

	/* (a) memory sinks, hot and cold, each next to its memcpy */
	for (i = 0; i < 2; i++) {
		if (one_cap && i)
			break;
		m.cap = one_cap ? one_cap : i ? MEM_COLD : MEM_HOT;
		ret = run_mem(&b, total, &m, i ? NULL : save, &r_mem[i]);
		if (!ret)
			ret = run_memcpy(&b, total, &m, &r_cpy[i]);
		if (ret) {
			fprintf(stderr, "memory run: %s\n", strerror(-ret));
			return 1;
		}
	}

	/* (b) the file sink */
	if (evloop__init(&loop, 8))
		return 1;
	if (!file) {
		int fd = mkstemp(tmpl);

		if (fd < 0)
			return 1;
		close(fd);
		file = tmpl;
	}
	ret = sink__open(&o, file, &loop, &so, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "sink: %s\n", err);
		return 1;
	}
	if (fxt_encoder__new(&enc, o))
		return 1;
	stream_state__init(&st, fxt_encoder__encoder(enc), o);
	stream_state__sync(&st);
	file_total = total / 2;		/* bounded disk use */
	ret = run_translate(&b, file_total, &st, flush_out, o, &r_file);
	r_file.out_bytes = sink__stats(o)->sent_bytes;
	if (ret || sink__stats(o)->dropped_records || sink__error(o) ||
	    st.st.encode_errors) {
		fprintf(stderr, "file: ret %d dropped %" PRIu64 " error %d\n", ret,
			sink__stats(o)->dropped_records, sink__error(o));
		return 1;
	}
	stream_state__fini(&st);
	fxt_encoder__free(enc);
	sink__close(o);
	evloop__fini(&loop);
	if (file == tmpl)
		unlink(tmpl);

	for (i = 0; i < 2 && !(one_cap && i); i++) {
		size_t cap = one_cap ? one_cap : i ? MEM_COLD : MEM_HOT;

		snprintf(name, sizeof(name), "memcpy, %zu KiB", cap >> 10);
		print_result(name, &r_cpy[i], NULL);
		snprintf(name, sizeof(name), "drain+encode, %zu KiB", cap >> 10);
		print_result(name, &r_mem[i], &r_cpy[i]);
	}
	/* The file sink writes from its queue's first MiB, hot. */
	print_result("drain+encode, file", &r_file, &r_cpy[0]);
	printf("FXT bytes per sample record: %.1f (ring %zu)\n",
	       (double)r_mem[0].out_bytes / (double)r_mem[0].records,
	       sizeof(struct fxtprof_sample) + FRAMES * 8);
	for (i = 0; i < b.nr_rings; i++)
		fxtprof_ring_sim__free(b.sims[i]);
	free(m.buf);
	return 0;
}
