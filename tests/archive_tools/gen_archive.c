// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_archive.c - one synthetic recording written twice, as the reader
 * would: a plain FXT stream (one segment) and an archive (.fxtz) whose
 * every chunk is a segment, prologue and definitions replayed as the
 * pipeline's state does when the archive sink asks for one.  The tests
 * of `fxtprof extract`, `info`, dump/check/send and `report --time` on
 * archives compare the two; `make bench-archive` uses it for its long
 * archive.
 *
 * usage: gen_archive [-d SECS] [-r HZ] [-c CPUS] [-f FRAMES] [-s SEG_MS]
 *                    [-t T0_NS] [-v N] [-p PLAIN.fxt] [-a X.fxtz]
 *                    [-l [-w MS] [-S]]
 *   -d  length of the recording (default 2 s), -r samples per second per
 *   CPU (1000), -c CPUs (2), -f user frames per sample (8), -s a segment
 *   (and chunk) every SEG_MS of trace time (100), -t the first sample's
 *   time (1000000000).  Sample i of CPU c is at T0 + i * (1e9 / HZ) + c;
 *   its thread is 1000 + (i + c) % 4 of process 1000, its frames are
 *   fixed per thread, or with -v N each drawn from N addresses by a
 *   fixed pseudo-random sequence (stacks as varied as a real
 *   recording's, for the bench's long archive).  -l: a live archive (no trailer), each segment
 *   written -w MS of wall time apart (default 0), or with -S each once a
 *   line comes on stdin (a reader paces it: EOF lets it finish), for
 *   readers that follow it.
 * Prints "samples N" on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fxt.h"
#include "archive/archive.h"

#define PID		1000u
#define NTHREADS	4u
#define KFRAMES		3u

static unsigned int variety;
static uint64_t lcg_state = 0x9e3779b97f4a7c15ull;

static unsigned int lcg(unsigned int n)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((lcg_state >> 33) % n);
}

struct out {
	struct fxt_writer *w;
	int fd;				/* plain */
	struct archive_writer *aw;	/* archive */
};

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_archive: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static int plain_sink(void *ctx, const void *rec, size_t len)
{
	struct out *o = ctx;

	return write(o->fd, rec, len) == (ssize_t)len ? 0 : -EIO;
}

static int archive_sink(void *ctx, const void *rec, size_t len)
{
	struct out *o = ctx;
	uint64_t h;
	void *p = archive_writer__reserve(o->aw, len);

	if (!p)
		return -ENOBUFS;
	memcpy(p, rec, len);
	memcpy(&h, rec, 8);
	archive_writer__commit(o->aw, (unsigned int)(h & 0xf));
	return 0;
}

static struct fxt_sref ref(struct fxt_writer *w, const char *s)
{
	struct fxt_sref r;

	if (fxt_writer__string_ref(w, s, strlen(s), &r))
		die("string_ref", EINVAL);
	return r;
}

static struct fxt_arg arg_u32(struct fxt_writer *w, const char *n, uint32_t v)
{
	struct fxt_arg a = { .name = ref(w, n), .type = FXT_ARG_UINT32 };

	a.v.u32 = v;
	return a;
}

static struct fxt_arg arg_u64(struct fxt_writer *w, const char *n, uint64_t v)
{
	struct fxt_arg a = { .name = ref(w, n), .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

static struct fxt_arg arg_str(struct fxt_writer *w, const char *n, const char *v)
{
	struct fxt_arg a = { .name = ref(w, n), .type = FXT_ARG_STRING };

	a.v.str = fxt_sref_inline(v, strlen(v));
	return a;
}

/* The stream header and every definition: what a segment starts with. */
static void prologue(struct fxt_writer *w)
{
	struct fxt_arg a[6];
	char name[32];
	int ret;

	ret = fxt_writer__prologue(w, 1, "fxtprof", 1000000000ull);
	if (!ret)
		ret = fxt_writer__process_name(w, PID, "gen_work", 8);
	for (unsigned int t = 0; !ret && t < NTHREADS; t++) {
		snprintf(name, sizeof(name), "gen-t%u", t);
		ret = fxt_writer__thread_name(w, PID, PID + t, name, strlen(name));
	}
	if (ret)
		die("prologue", ret);
	a[0] = arg_u32(w, "pid", PID);
	a[1] = arg_u32(w, "tid", PID);
	a[2] = arg_u64(w, "start", 0x400000);
	a[3] = arg_u64(w, "end", 0x500000);
	a[4] = arg_u64(w, "pgoff", 0);
	a[5] = arg_u64(w, "time", 0);
	ret = fxt_writer__kobj(w, 0x80, 1, fxt_sref_inline("/usr/bin/gen_work", 17),
			       a, 6);
	if (!ret) {
		struct fxt_arg k[2] = { arg_u64(w, "end", 0xffffffff82000000ull) };
		struct fxt_arg b = { .name = ref(w, "kernel"), .type = FXT_ARG_BOOL };

		b.v.b = 1;
		k[1] = b;
		ret = fxt_writer__kobj(w, 0x81, 0xffffffff81000000ull,
				       fxt_sref_inline("[kernel.kallsyms]", 17), k, 2);
	}
	for (unsigned int s = 0; !ret && s < KFRAMES; s++) {
		struct fxt_arg sz = arg_u32(w, "size", 0x100);

		snprintf(name, sizeof(name), "kfunc_%u", s);
		ret = fxt_writer__kobj(w, 0x82, 0xffffffff81001000ull + s * 0x100,
				       fxt_sref_inline(name, strlen(name)), &sz, 1);
	}
	if (ret)
		die("definitions", ret);
}

/* Sample @tid's frames, leaf first: kernel, then user. */
static unsigned int stack(unsigned int tid, unsigned int frames, uint64_t *ips)
{
	unsigned int i, n = 0;

	for (i = 0; i < KFRAMES; i++)
		ips[n++] = 0xffffffff81001010ull + i * 0x100;
	for (i = 0; i < frames && i < 64; i++)
		ips[n++] = variety ? 0x401000 + lcg(variety) * 0x10 :
				     0x401000 + ((tid - PID) * 0x1000) + i * 0x40;
	return n;
}

static void sample(struct fxt_writer *w, uint64_t ts, unsigned int cpu,
		   unsigned int tid, const uint64_t *ips, unsigned int n)
{
	struct fxt_tref th = fxt_tref_inline(PID, tid);
	struct fxt_arg a[3] = {
		arg_u32(w, "cpu", cpu),
		arg_str(w, "mode", "user"),
		arg_u32(w, "kframes", KFRAMES),
	};
	int ret;

	ret = fxt_writer__instant(w, ts, &th, ref(w, "cpu"), ref(w, "sample"),
				  a, 3);
	if (!ret)
		ret = fxt_writer__stack_sample(w, ts, PID, tid, ips, n);
	if (ret)
		die("sample", ret);
}

int main(int argc, char **argv)
{
	double secs = 2;
	unsigned int hz = 1000, cpus = 2, frames = 8, seg_ms = 100, wait_ms = 0;
	uint64_t t0 = 1000000000ull, period, nsamples, seg_ns, next_seg, i;
	const char *plain = NULL, *arch = NULL;
	struct out po = { .fd = -1 }, ao = { .fd = -1 };
	struct archive_writer_opts wo = { 0 };
	bool step = false;
	int c, ret;

	while ((c = getopt(argc, argv, "d:r:c:f:s:t:v:p:a:lw:S")) != -1) {
		switch (c) {
		case 'd': secs = atof(optarg); break;
		case 'r': hz = (unsigned int)atoi(optarg); break;
		case 'c': cpus = (unsigned int)atoi(optarg); break;
		case 'f': frames = (unsigned int)atoi(optarg); break;
		case 's': seg_ms = (unsigned int)atoi(optarg); break;
		case 't': t0 = strtoull(optarg, NULL, 0); break;
		case 'v': variety = (unsigned int)atoi(optarg); break;
		case 'p': plain = optarg; break;
		case 'a': arch = optarg; break;
		case 'l': wo.live = true; break;
		case 'w': wait_ms = (unsigned int)atoi(optarg); break;
		case 'S': step = true; break;
		default:
			fprintf(stderr, "usage: see gen_archive.c\n");
			return 2;
		}
	}
	if (!hz || !cpus || !seg_ms || secs <= 0) {
		fprintf(stderr, "gen_archive: bad arguments\n");
		return 2;
	}
	period = 1000000000ull / hz;
	nsamples = (uint64_t)(secs * hz);
	seg_ns = (uint64_t)seg_ms * 1000000ull;
	if (plain) {
		struct fxt_writer_opts o = { .sz = sizeof(o), .write = plain_sink,
					     .ctx = &po };

		po.fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (po.fd < 0 || (ret = fxt_writer__new(&o, &po.w)))
			die(plain, po.fd < 0 ? errno : ret);
		prologue(po.w);
	}
	if (arch) {
		struct fxt_writer_opts o = { .sz = sizeof(o), .write = archive_sink,
					     .ctx = &ao };

		/* Chunks are cut here, at segments, never by the writer. */
		wo.window_ns = 4 * seg_ns;
		wo.max_bytes = 64u << 20;
		wo.max_records = 1u << 30;
		wo.stream = ARCHIVE_STREAM_ALL;
		ao.fd = open(arch, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (ao.fd < 0)
			die(arch, errno);
		ret = archive_writer__open(&ao.aw, ao.fd, &wo);
		if (!ret)
			ret = fxt_writer__new(&o, &ao.w);
		if (ret)
			die("archive writer", ret);
		prologue(ao.w);
	}
	next_seg = t0 + seg_ns;
	for (i = 0; i < nsamples; i++) {
		uint64_t ts = t0 + i * period;

		if (ao.w && ts >= next_seg) {
			/* A new segment: the state's replay, as on a cut. */
			ret = archive_writer__cut(ao.aw, 0);
			if (ret)
				die("cut", ret);
			if (wait_ms) {
				fsync(ao.fd);
				usleep(wait_ms * 1000);
			}
			/*
			 * -S: the next segment once a line comes on stdin, so
			 * that a reader paces the writer and sees it grow
			 * however slow it is (EOF: no more pacing).
			 */
			if (step) {
				char line[16];

				fsync(ao.fd);
				step = fgets(line, sizeof(line), stdin) != NULL;
			}
			fxt_writer__reset_state(ao.w);
			prologue(ao.w);
			next_seg += seg_ns;
		}
		for (unsigned int cpu = 0; cpu < cpus; cpu++) {
			unsigned int tid = PID + (unsigned int)((i + cpu) % NTHREADS);
			uint64_t ips[KFRAMES + 64];
			unsigned int n = stack(tid, frames, ips);

			if (po.w)
				sample(po.w, ts + cpu, cpu, tid, ips, n);
			if (ao.w)
				sample(ao.w, ts + cpu, cpu, tid, ips, n);
		}
	}
	if (po.w) {
		fxt_writer__free(po.w);
		if (close(po.fd))
			die(plain, errno);
	}
	if (ao.w) {
		fxt_writer__free(ao.w);
		ret = archive_writer__finish(ao.aw);
		if (ret)
			die("finish", ret);
		archive_writer__free(ao.aw);
		if (close(ao.fd))
			die(arch, errno);
	}
	printf("samples %llu\n", (unsigned long long)(nsamples * cpus));
	return 0;
}
