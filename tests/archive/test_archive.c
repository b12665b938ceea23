// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_archive.c - the replayable archive (user/archive/) behind the real
 * pipeline: a made-up recording (archive_gen.h) through the stream state,
 * the FXT encoder and the archive sink (user/sink/sink_archive.c), read
 * back by the archive reader.  Every chunk must decode alone and pass the
 * FXT checker with every thread named; the samples must be those of a
 * plain FXT recording of the same input; a file cut at any byte must read
 * up to its last complete chunk and repair into a finished archive; a
 * flipped bit must be caught and named; an unknown section skipped; a
 * live archive read while it grows; bad input refused.  Built plain and
 * with ASan+UBSan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lz4.h>

#include "kselftest_harness.h"

#include "archive/archive.h"
#include "archive_gen.h"
#include "fxt_reader.h"
#include "snapshot_check.h"

#define PERIOD_NS	100000ull	/* 10 kHz */

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

/* Each test in its own directory, in memory if it can be (repair syncs). */
FIXTURE(arch) {
	int unused;
};

FIXTURE_SETUP(arch)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_archive.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	ASSERT_NE(NULL, mkdtemp(tmpdir));
}

FIXTURE_TEARDOWN(arch)
{
	static const char *const names[] = {
		"plain.fxt", "rt.fxtz", "small.fxtz", "cut.fxtz", "flip.fxtz",
		"future.fxtz", "live.fxtz", "bad.fxtz", "good.fxtz",
		"raw.fxtz", "v1.fxtz", "badcode.fxtz",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(tmp_path(names[i]));
	rmdir(tmpdir);
}

/* Record @secs (from 1 s) to @path with @so. */
static int record(const char *path, const struct sink_opts *so,
		  uint64_t period_ns, uint64_t until, uint64_t *samples)
{
	struct gen g;
	int ret = gen_open(&g, path, so, period_ns);

	if (ret)
		return ret;
	gen_run(&g, until);
	if (samples)
		*samples = g.samples;
	return gen_close(&g);
}

static void *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	p = malloc((size_t)st.st_size + 1);
	if (p && pread(fd, p, (size_t)st.st_size, 0) != st.st_size) {
		free(p);
		p = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static int spit(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (len && write(fd, p, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* The samples of an FXT stream: (time, tid, cpu, stack) hashed in order. */
struct sample_sum {
	uint64_t n, hash;
};

static void sum_samples(const void *buf, size_t len, struct sample_sum *s)
{
	struct fxt_reader *r;
	struct fxt_record *rec = calloc(1, sizeof(*rec));

	if (!rec || fxt_reader__new(0, &r))
		abort();
	fxt_reader__feed(r, buf, len);
	while (fxt_reader__next(r, rec) == 1) {
		const uint64_t *w = rec->words;
		bool sample = rec->type == FXT_REC_EVENT &&
			      rec->event.name.len == 6 &&
			      !memcmp(rec->event.name.data, "sample", 6);

		/* The sample's event and its stack's blob, word for word
		 * after the header (string refs differ between segments). */
		if (!sample && rec->type != FXT_REC_LARGE)
			continue;
		if (sample)
			s->n++;
		s->hash = s->hash * 1099511628211ull + rec->ts;
		s->hash = s->hash * 1099511628211ull + rec->thread.tid;
		if (rec->type == FXT_REC_LARGE)
			for (uint32_t i = 0; i < rec->large.len / 8; i++)
				s->hash = s->hash * 31 +
					  ((const uint64_t *)rec->large.data)[i];
		(void)w;
	}
	fxt_reader__free(r);
	free(rec);
}

static struct archive_reader *open_ok(struct __test_metadata *_metadata,
				      const char *path, unsigned int flags)
{
	struct archive_reader *a = NULL;
	char err[256] = "";

	EXPECT_EQ(0, archive_reader__open(&a, path, flags, err, sizeof(err)))
		TH_LOG("%s", err);
	return a;
}

/* A segment's FXT: a valid stream, naming its threads before their events. */
static void check_segment(struct __test_metadata *_metadata,
			  const unsigned char *seg, size_t len, uint64_t records,
			  size_t first, struct snap_info *si,
			  struct sample_sum *sum)
{
	uint64_t magic;

	/* It starts a stream: the magic record first. */
	memcpy(&magic, seg, 8);
	EXPECT_EQ(0x0016547846040010ull, magic);
	memset(si, 0, sizeof(*si));
	snap_analyze(seg, len, si);
	ASSERT_EQ(0, si->err) TH_LOG("chunk %zu: %s", first, si->errmsg);
	EXPECT_EQ(0, si->unnamed) TH_LOG("chunk %zu: tid %llu", first,
		(unsigned long long)si->first_unnamed_tid);
	EXPECT_EQ(records, si->records);
	/* Each kernel symbol once, before its first frame, and only if hit. */
	EXPECT_EQ(0, si->ksym_late) TH_LOG("chunk %zu", first);
	EXPECT_EQ(0, si->ksym_twice) TH_LOG("chunk %zu", first);
	EXPECT_EQ(0, si->ksym_unused) TH_LOG("chunk %zu", first);
	if (sum)
		sum_samples(seg, len, sum);
}

/*
 * Every chunk read and checked.  Without @continuations, each alone is a
 * valid stream; with, each segment (a chunk and the continuations after
 * it) is.
 */
static void check_chunks(struct __test_metadata *_metadata,
			 struct archive_reader *a, struct sample_sum *sum,
			 bool continuations)
{
	size_t total = 0, len = 0, first = 0, n = archive_reader__nchunks(a);
	struct snap_info *si = calloc(1, sizeof(*si));
	unsigned char *seg;
	uint64_t records = 0;
	char err[256];

	for (size_t i = 0; i < n; i++)
		total += archive_reader__chunk(a, i)->uncompressed;
	seg = malloc(total ? total : 1);
	ASSERT_NE(NULL, seg);
	ASSERT_NE(NULL, si);
	for (size_t i = 0; i < n; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);
		bool cont = c->flags & ARCHIVE_CHUNK_CONTINUATION;
		ssize_t got;

		if (!continuations)
			EXPECT_FALSE(cont);
		if (!cont && len) {
			check_segment(_metadata, seg, len, records, first, si, sum);
			len = 0;
			records = 0;
			first = i;
		}
		got = archive_reader__read_chunk(a, i, seg + len, total - len,
						 err, sizeof(err));
		ASSERT_EQ((ssize_t)c->uncompressed, got) TH_LOG("%s", err);
		len += (size_t)got;
		records += c->records;
	}
	if (len)
		check_segment(_metadata, seg, len, records, first, si, sum);
	free(si);
	free(seg);
}

/* The footer's layout, as archive-format.md gives it. */
struct footer {
	char magic[8];
	uint16_t version, footer_size;
	uint32_t nsections;
	uint64_t table_offset, chunks_end, nchunks;
	uint32_t table_crc, crc;
};

struct sec_entry {
	uint16_t id, flags;
	uint32_t crc;
	uint64_t offset, length;
};

/* crc32c, bit by bit: the format's checksum, computed apart. */
static uint32_t crc32c(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

TEST_F(arch, round_trip_matches_plain_fxt_and_every_chunk_decodes_alone)
{
	/* The limits before 1 s chunks: many chunks, a long manifest. */
	struct sink_opts so = { 0 }, so_arch = {
		.archive_opts = { .window_ns = 100000000ull,
				  .max_bytes = 1u << 20, .max_records = 50000 } };
	struct sample_sum plain = { 0 }, arch = { 0 };
	const struct archive_thread_count *th;
	const struct archive_process_count *pr;
	const struct archive_name *names;
	const struct archive_mapping *maps;
	const struct archive_ksym *ksyms;
	struct archive_windows win;
	struct archive_metrics m;
	struct archive_reader *a;
	uint64_t samples, sum;
	size_t n, len;
	void *fxt;
	bool saw_born = false;

	ASSERT_EQ(0, record(tmp_path("plain.fxt"), &so, PERIOD_NS,
			    4 * GEN_NS, &samples));
	ASSERT_EQ(0, record(tmp_path("rt.fxtz"), &so_arch, PERIOD_NS,
			    4 * GEN_NS, NULL));
	fxt = slurp(tmp_path("plain.fxt"), &len);
	ASSERT_NE(NULL, fxt);
	sum_samples(fxt, len, &plain);
	free(fxt);
	EXPECT_EQ(samples, plain.n);

	a = open_ok(_metadata, tmp_path("rt.fxtz"), 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(a));
	/* 3 s at 2 x 10 kHz: cut by 50 000 records or 1 MiB, before 100 ms. */
	EXPECT_LE(20, archive_reader__nchunks(a));
	check_chunks(_metadata, a, &arch, false);
	EXPECT_EQ(plain.n, arch.n);
	EXPECT_EQ(plain.hash, arch.hash);

	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_EQ(samples, m.samples);
	EXPECT_EQ(archive_reader__nchunks(a), m.chunks);
	EXPECT_EQ(m.chunks, m.segments);
	EXPECT_EQ(GEN_NS, m.t_first);
	EXPECT_EQ(4 * GEN_NS - PERIOD_NS + 1, m.t_last);
	EXPECT_EQ(0, m.sink_dropped_records);
	/* The rings' losses, from the last fxtprof:kernel_lost totals. */
	EXPECT_EQ(12, m.kernel_lost_records);
	EXPECT_EQ(1200, m.kernel_lost_bytes);
	EXPECT_EQ(0, m.output_dropped_records);
	sum = 0;
	for (size_t i = 0; i < archive_reader__nchunks(a); i++)
		sum += archive_reader__chunk(a, i)->records;
	EXPECT_EQ(m.records, sum);

	ASSERT_EQ(0, archive_reader__threads(a, &th, &n));
	EXPECT_EQ(5, n);
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += th[i].samples;
	EXPECT_EQ(samples, sum);
	ASSERT_EQ(0, archive_reader__processes(a, &pr, &n));
	EXPECT_EQ(2, n);

	ASSERT_EQ(0, archive_reader__windows(a, &win));
	EXPECT_EQ(100000000ull, win.window_ns);
	EXPECT_EQ(2, win.ncpus);
	EXPECT_EQ(30, win.nwindows);
	sum = 0;
	for (size_t i = 0; i < (size_t)win.ncpus * win.nwindows; i++) {
		EXPECT_EQ(1000, win.samples[i]);	/* 10 kHz x 100 ms */
		sum += win.samples[i];
	}
	EXPECT_EQ(samples, sum);

	/* The born thread's name holds from its fork on. */
	ASSERT_EQ(0, archive_reader__names(a, &names, &n));
	for (size_t i = 0; i < n; i++)
		if (names[i].kind == ARCHIVE_NAME_THREAD && names[i].tid == 200) {
			saw_born = true;
			EXPECT_EQ(4, names[i].name_len);
			EXPECT_EQ(0, memcmp(names[i].name, "born", 4));
			EXPECT_LE(GEN_NS + GEN_NS / 2 - GEN_TURN_NS,
				  names[i].t_from);
			EXPECT_GE(GEN_NS + GEN_NS / 2, names[i].t_from);
		}
	EXPECT_TRUE(saw_born);
	/* Replayed in every chunk, listed once: lib1..3 of pid 100, and
	 * lib1 of pid 200, which the fork gave it. */
	ASSERT_EQ(0, archive_reader__mappings(a, &maps, &n));
	EXPECT_EQ(4, n);
	for (size_t i = 0; i < n; i++)
		EXPECT_EQ(0x10000, maps[i].end - maps[i].start);
	ASSERT_EQ(0, archive_reader__ksyms(a, &ksyms, &n));
	EXPECT_EQ(16, n);
	archive_reader__close(a);

	/* The larger sections are stored as LZ4 blocks, and read back. */
	fxt = slurp(tmp_path("rt.fxtz"), &len);
	ASSERT_NE(NULL, fxt);
	{
		const unsigned char *b = fxt;
		struct sec_entry e;
		struct footer f;
		unsigned int lz4 = 0;

		memcpy(&f, b + len - sizeof(f), sizeof(f));
		for (uint32_t i = 0; i < f.nsections; i++) {
			memcpy(&e, b + f.table_offset + i * sizeof(e), sizeof(e));
			lz4 += e.flags & 1;
		}
		EXPECT_LE(1, lz4);
	}
	free(fxt);
}

/* A small archive: 1 kHz, 20 ms chunks, for @turns drain turns. */
static void small_archive(struct __test_metadata *_metadata, const char *path,
			  bool live, unsigned int turns, bool uncoded)
{
	struct sink_opts so = { .archive = true,
				.archive_opts = { .window_ns = 20000000ull,
						  .live = live,
						  .uncoded = uncoded } };

	ASSERT_EQ(0, record(path, &so, 1000000ull, GEN_NS + turns * GEN_TURN_NS,
			    NULL));
}

/* Version @v in the file header and the footer, checksums made good. */
static void relabel(unsigned char *bytes, size_t len, uint16_t v)
{
	uint32_t crc;

	memcpy(bytes + 8, &v, 2);
	crc = crc32c(0, bytes, 60);
	memcpy(bytes + 60, &crc, 4);
	memcpy(bytes + len - 48 + 8, &v, 2);
	crc = crc32c(0, bytes + len - 48, 44);
	memcpy(bytes + len - 4, &crc, 4);
}

/*
 * Some 5 800 cuts, each opened, repaired and opened again: 3 s in all
 * plain, but some 35 s under ASan, whose large allocations map and unmap
 * at every open.  With two CPU hogs and a VM beside it, it ran past 120 s
 * under ASan; the timeout only guards against a hang.
 */
TEST_F_TIMEOUT(arch, truncated_anywhere_reads_every_complete_chunk_and_repairs, 600)
{
	const char *full = tmp_path("small.fxtz"), *cut = tmp_path("cut.fxtz");
	struct archive_repair_stats rs;
	struct archive_reader *a;
	uint64_t ends[256];
	size_t nchunks, len;
	unsigned char *bytes;
	char err[256];

	small_archive(_metadata, full, false, 2, false);
	a = open_ok(_metadata, full, 0);
	ASSERT_NE(NULL, a);
	nchunks = archive_reader__nchunks(a);
	ASSERT_LE(4, nchunks);
	ASSERT_GE(256, nchunks);
	for (size_t i = 0; i < nchunks; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);

		ends[i] = c->offset + 64 + c->compressed;
	}
	archive_reader__close(a);
	bytes = slurp(full, &len);
	ASSERT_NE(NULL, bytes);

	for (size_t at = 0; at < len; at++) {
		struct archive_reader *b = NULL;
		size_t expect = 0;
		int ret;

		while (expect < nchunks && ends[expect] <= at)
			expect++;
		ASSERT_EQ(0, spit(cut, bytes, at));
		ret = archive_reader__open(&b, cut, 0, err, sizeof(err));
		if (at < 64) {
			ASSERT_EQ(-ENOTSUP, ret);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("cut at %zu: %s", at, err);
		EXPECT_EQ(ARCHIVE_INDEX_SCAN, archive_reader__index(b));
		ASSERT_EQ(expect, archive_reader__nchunks(b))
			TH_LOG("cut at %zu", at);
		archive_reader__close(b);
		/* And repair every cut: the archive is small for that. */
		ASSERT_EQ(0, archive__repair(cut, &rs, err, sizeof(err)))
			TH_LOG("cut at %zu: %s", at, err);
		EXPECT_FALSE(rs.was_finished);
		EXPECT_EQ(expect, rs.chunks);
		EXPECT_EQ(0, rs.bad_chunks);
		EXPECT_EQ(at - (expect ? ends[expect - 1] : 64), rs.cut_bytes);
		b = open_ok(_metadata, cut, 0);
		ASSERT_NE(NULL, b);
		EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(b));
		EXPECT_EQ(expect, archive_reader__nchunks(b));
		check_chunks(_metadata, b, NULL, false);
		archive_reader__close(b);
	}
	/* The whole file: finished, repair leaves it. */
	ASSERT_EQ(0, archive__repair(full, &rs, err, sizeof(err)));
	EXPECT_TRUE(rs.was_finished);
	free(bytes);
}

/* Chunk @i of @a, read whole into a new buffer. */
static unsigned char *read_whole(struct __test_metadata *_metadata,
				 struct archive_reader *a, size_t i)
{
	const struct archive_chunk_info *c = archive_reader__chunk(a, i);
	unsigned char *p = malloc(c->uncompressed);
	char err[256];

	ASSERT_NE(NULL, p);
	ASSERT_EQ((ssize_t)c->uncompressed,
		  archive_reader__read_chunk(a, i, p, c->uncompressed, err,
					     sizeof(err))) TH_LOG("%s", err);
	return p;
}

/*
 * @bytes relabelled format version @version and saved as @name read
 * through their footer, chunk for chunk the same FXT as @want's.
 */
static void relabelled_reads_alike(struct __test_metadata *_metadata,
				   unsigned char *bytes, size_t len,
				   uint16_t version, const char *name,
				   struct archive_reader *want)
{
	struct archive_reader *v;
	size_t n = archive_reader__nchunks(want);

	relabel(bytes, len, version);
	ASSERT_EQ(0, spit(tmp_path(name), bytes, len));
	v = open_ok(_metadata, tmp_path(name), 0);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(v));
	ASSERT_EQ(n, archive_reader__nchunks(v));
	for (size_t i = 0; i < n; i++) {
		unsigned char *pa = read_whole(_metadata, v, i);
		unsigned char *pb = read_whole(_metadata, want, i);

		EXPECT_EQ(0, memcmp(pa, pb, archive_reader__chunk(v, i)->uncompressed));
		free(pa);
		free(pb);
	}
	archive_reader__close(v);
}

/*
 * A coded chunk of @path whose codec bytes are unsound (@bad_at set to
 * @bad), checksums made good: named, and the chunks around it still read.
 */
static void unsound_codec_bytes(struct __test_metadata *_metadata,
				const char *path, size_t bad_at,
				unsigned char bad)
{
	struct archive_reader *a = open_ok(_metadata, path, 0), *v;
	const struct archive_chunk_info *c, *c2;
	unsigned char h[64], *bytes, *plain, *z;
	uint32_t clen, crc, zlen;
	size_t len, n;
	char err[256];
	int zn;

	ASSERT_NE(NULL, a);
	n = archive_reader__nchunks(a);
	c = archive_reader__chunk(a, 1);
	c2 = archive_reader__chunk(a, 2);
	bytes = slurp(path, &len);
	ASSERT_NE(NULL, bytes);
	memcpy(h, bytes + c->offset, 64);
	memcpy(&clen, h + 52, 4);
	plain = malloc(clen > c->uncompressed ? clen : c->uncompressed);
	z = malloc(64 + (size_t)LZ4_compressBound((int)clen));
	ASSERT_NE(NULL, plain);
	ASSERT_NE(NULL, z);
	ASSERT_EQ((int)clen, LZ4_decompress_safe((const char *)bytes + c->offset + 64,
						 (char *)plain, (int)c->compressed,
						 (int)clen));
	plain[bad_at] = bad;
	zn = LZ4_compress_default((const char *)plain, (char *)z + 64, (int)clen,
				  LZ4_compressBound((int)clen));
	ASSERT_LT(0, zn);
	zlen = (uint32_t)zn;
	memcpy(h + 8, &zlen, 4);
	crc = crc32c(0, h, 56);
	memcpy(h + 56, &crc, 4);
	crc = crc32c(crc32c(0, h, 60), z + 64, zlen);
	memcpy(h + 60, &crc, 4);
	memcpy(z, h, 64);
	{
		int fd = open(tmp_path("badcode.fxtz"),
			      O_WRONLY | O_CREAT | O_TRUNC, 0600);

		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)c->offset, write(fd, bytes, c->offset));
		ASSERT_EQ((ssize_t)(64 + zlen), write(fd, z, 64 + zlen));
		ASSERT_EQ((ssize_t)(len - c2->offset),
			  write(fd, bytes + c2->offset, len - c2->offset));
		close(fd);
	}
	v = open_ok(_metadata, tmp_path("badcode.fxtz"), ARCHIVE_OPEN_SCAN);
	ASSERT_NE(NULL, v);
	ASSERT_EQ(n, archive_reader__nchunks(v));
	EXPECT_EQ(-EBADMSG, archive_reader__read_chunk(v, 1, plain,
			clen > c->uncompressed ? clen : c->uncompressed,
			err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "chunk 1 at offset")) TH_LOG("%s", err);
	free(read_whole(_metadata, v, 0));
	free(read_whole(_metadata, v, 2));
	archive_reader__close(v);
	archive_reader__close(a);
	free(plain);
	free(z);
	free(bytes);
}

TEST_F(arch, coded_uncoded_and_version_1_chunks_read_alike)
{
	/* Copies: tmp_path() has four buffers, and more names follow. */
	char coded[128], raw[128];
	/* small_archive(..., 4, false) in codec 1: tests/archive/fixtures. */
	const char *col = ARCH_FIXTURES "/codec1.fxtz";
	uint64_t zcoded = 0, zraw = 0, zcol = 0;
	struct archive_reader *a, *b, *v, *c1;
	unsigned char *bytes, *cbytes;
	size_t len, clen, n;

	snprintf(coded, sizeof(coded), "%s", tmp_path("small.fxtz"));
	snprintf(raw, sizeof(raw), "%s", tmp_path("raw.fxtz"));
	small_archive(_metadata, coded, false, 4, false);
	small_archive(_metadata, raw, false, 4, true);
	a = open_ok(_metadata, coded, 0);
	b = open_ok(_metadata, raw, 0);
	c1 = open_ok(_metadata, col, 0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c1);
	n = archive_reader__nchunks(a);
	ASSERT_LE(5, n);
	ASSERT_EQ(n, archive_reader__nchunks(b));
	ASSERT_EQ(n, archive_reader__nchunks(c1));
	bytes = slurp(coded, &len);
	ASSERT_NE(NULL, bytes);
	cbytes = slurp(col, &clen);
	ASSERT_NE(NULL, cbytes);

	/* The same chunks, cut on the same FXT: the same bytes back. */
	for (size_t i = 0; i < n; i++) {
		const struct archive_chunk_info *ca = archive_reader__chunk(a, i);
		const struct archive_chunk_info *cb = archive_reader__chunk(b, i);
		const struct archive_chunk_info *cc = archive_reader__chunk(c1, i);
		unsigned char *pa, *pb, *pc;
		uint16_t codec;

		ASSERT_EQ(cb->uncompressed, ca->uncompressed);
		ASSERT_EQ(cb->records, ca->records);
		ASSERT_EQ(cb->uncompressed, cc->uncompressed);
		pa = read_whole(_metadata, a, i);
		pb = read_whole(_metadata, b, i);
		pc = read_whole(_metadata, c1, i);
		EXPECT_EQ(0, memcmp(pa, pb, ca->uncompressed)) TH_LOG("chunk %zu", i);
		EXPECT_EQ(0, memcmp(pc, pb, ca->uncompressed)) TH_LOG("chunk %zu", i);
		free(pa);
		free(pb);
		free(pc);
		memcpy(&codec, bytes + ca->offset + 48, 2);
		EXPECT_EQ(2, codec) TH_LOG("chunk %zu", i);
		memcpy(&codec, cbytes + cc->offset + 48, 2);
		EXPECT_EQ(1, codec) TH_LOG("chunk %zu", i);
		zcoded += ca->compressed;
		zraw += cb->compressed;
		zcol += cc->compressed;
	}
	EXPECT_GT(2 * zraw, 3 * zcol) TH_LOG("%llu codec 1, %llu uncoded",
		(unsigned long long)zcol, (unsigned long long)zraw);
	EXPECT_GT(zcol, zcoded) TH_LOG("%llu codec 2, %llu codec 1",
		(unsigned long long)zcoded, (unsigned long long)zcol);

	/* Codec 1: the first record's kind is no kind; codec 2: the
	 * verbatim bytes are longer than the chunk. */
	unsound_codec_bytes(_metadata, col, 32, 9);
	unsound_codec_bytes(_metadata, coded, 3, 0xff);

	/* Version 2 (codecs 0 and 1): the codec 1 file relabelled reads;
	 * the codec 2 file so relabelled has chunks no version 2 knows. */
	relabelled_reads_alike(_metadata, cbytes, clen, 2, "v2.fxtz", b);
	relabel(bytes, len, 2);
	ASSERT_EQ(0, spit(tmp_path("v2bad.fxtz"), bytes, len));
	v = open_ok(_metadata, tmp_path("v2bad.fxtz"), 0);
	ASSERT_NE(NULL, v);
	{
		size_t cap = archive_reader__chunk(v, 0)->uncompressed;
		unsigned char *p = malloc(cap);
		char err[256];

		ASSERT_NE(NULL, p);
		EXPECT_EQ(-EBADMSG, archive_reader__read_chunk(v, 0, p, cap, err,
							       sizeof(err)));
		EXPECT_NE(NULL, strstr(err, "codec 2")) TH_LOG("%s", err);
		free(p);
	}
	archive_reader__close(v);
	free(cbytes);
	archive_reader__close(c1);
	/* Version 1 (codec 0 only): the uncoded file relabelled reads. */
	free(bytes);
	bytes = slurp(raw, &len);
	ASSERT_NE(NULL, bytes);
	relabelled_reads_alike(_metadata, bytes, len, 1, "v1.fxtz", b);
	archive_reader__close(a);
	archive_reader__close(b);
	free(bytes);
}

TEST_F(arch, a_flipped_bit_is_caught_and_named_the_other_chunks_read)
{
	const char *path = tmp_path("flip.fxtz");
	const struct archive_chunk_info *c;
	struct archive_reader *a;
	unsigned char *bytes, *buf;
	size_t len, n, k;
	char err[256], want[64];
	unsigned int flags[2] = { 0, ARCHIVE_OPEN_SCAN };

	small_archive(_metadata, path, false, 4, false);
	bytes = slurp(path, &len);
	ASSERT_NE(NULL, bytes);
	a = open_ok(_metadata, path, 0);
	ASSERT_NE(NULL, a);
	n = archive_reader__nchunks(a);
	k = n / 2;
	c = archive_reader__chunk(a, k);
	/* A bit in the middle of chunk k's LZ4 block. */
	bytes[c->offset + 64 + c->compressed / 2] ^= 0x10;
	snprintf(want, sizeof(want), "chunk %zu at offset %llu", k,
		 (unsigned long long)c->offset);
	archive_reader__close(a);
	ASSERT_EQ(0, spit(path, bytes, len));

	for (int f = 0; f < 2; f++) {
		a = open_ok(_metadata, path, flags[f]);
		ASSERT_NE(NULL, a);
		ASSERT_EQ(n, archive_reader__nchunks(a));
		buf = malloc(archive_reader__max_chunk(a));
		ASSERT_NE(NULL, buf);
		for (size_t i = 0; i < n; i++) {
			ssize_t r = archive_reader__read_chunk(a, i, buf,
				archive_reader__max_chunk(a), err, sizeof(err));

			if (i == k) {
				EXPECT_EQ(-EBADMSG, r);
				EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
			} else {
				EXPECT_EQ((ssize_t)archive_reader__chunk(a, i)->uncompressed, r);
			}
		}
		free(buf);
		archive_reader__close(a);
	}
	/* In a chunk header: scanning stops there, the manifest does not. */
	a = open_ok(_metadata, path, 0);
	c = archive_reader__chunk(a, k);
	bytes[c->offset + 64 + c->compressed / 2] ^= 0x10;
	bytes[c->offset + 20] ^= 0x01;
	archive_reader__close(a);
	ASSERT_EQ(0, spit(path, bytes, len));
	a = open_ok(_metadata, path, ARCHIVE_OPEN_SCAN);
	EXPECT_EQ(k, archive_reader__nchunks(a));
	archive_reader__close(a);
	a = open_ok(_metadata, path, 0);
	EXPECT_EQ(n, archive_reader__nchunks(a));
	buf = malloc(archive_reader__max_chunk(a));
	EXPECT_EQ(-EBADMSG, archive_reader__read_chunk(a, k, buf,
		archive_reader__max_chunk(a), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
	free(buf);
	archive_reader__close(a);
	free(bytes);
}

TEST_F(arch, an_unknown_future_section_is_skipped)
{
	const char *path = tmp_path("future.fxtz");
	static const char future[] = "a section of a later version....";
	struct sec_entry tab[64];
	struct archive_metrics m;
	struct archive_reader *a;
	struct footer f;
	unsigned char *bytes, *out;
	const void *data;
	uint32_t ids[64];
	size_t len, olen, dlen, nids;

	small_archive(_metadata, path, false, 4, false);
	bytes = slurp(path, &len);
	ASSERT_NE(NULL, bytes);
	memcpy(&f, bytes + len - sizeof(f), sizeof(f));
	ASSERT_EQ(0, memcmp(f.magic, "FXTZFOOT", 8));
	ASSERT_EQ(f.crc, crc32c(0, &f, 44));
	ASSERT_GT(64, f.nsections);
	memcpy(tab, bytes + f.table_offset, f.nsections * sizeof(tab[0]));
	/* The new section where the table was, then table and footer. */
	out = malloc(len + 256);
	ASSERT_NE(NULL, out);
	memcpy(out, bytes, f.table_offset);
	olen = f.table_offset;
	memcpy(out + olen, future, sizeof(future) - 1);
	tab[f.nsections++] = (struct sec_entry){
		.id = 999, .crc = crc32c(0, future, sizeof(future) - 1),
		.offset = olen, .length = sizeof(future) - 1 };
	olen += sizeof(future) - 1;
	memcpy(out + olen, tab, f.nsections * sizeof(tab[0]));
	f.table_offset = olen;
	f.table_crc = crc32c(0, tab, f.nsections * sizeof(tab[0]));
	olen += f.nsections * sizeof(tab[0]);
	f.crc = crc32c(0, &f, 44);
	memcpy(out + olen, &f, sizeof(f));
	olen += sizeof(f);
	ASSERT_EQ(0, spit(path, out, olen));

	a = open_ok(_metadata, path, 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(a));
	nids = archive_reader__section_ids(a, ids, 64);
	EXPECT_EQ(f.nsections, nids);
	EXPECT_EQ(999, ids[nids - 1]);
	ASSERT_EQ(0, archive_reader__section(a, 999, &data, &dlen));
	EXPECT_EQ(sizeof(future) - 1, dlen);
	EXPECT_EQ(0, memcmp(data, future, dlen));
	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_EQ(archive_reader__nchunks(a), m.chunks);
	check_chunks(_metadata, a, NULL, false);
	archive_reader__close(a);
	free(out);
	free(bytes);
}

/* Live: a reader opening the archive again and again while it grows. */
struct live {
	const char *path;
	volatile bool done;
	uint64_t looks, chunks_seen, failures;
	char failure[320];
};

static void *live_reader(void *arg)
{
	struct live *l = arg;
	struct archive_reader *a = NULL;
	unsigned char *seg = NULL, *p;
	size_t len = 0, cap = 0, read = 0;
	char err[256];

	for (;;) {
		bool last = l->done;

		/* Each open scans the chunks complete so far. */
		archive_reader__close(a);
		if (archive_reader__open(&a, l->path, 0, err, sizeof(err)))
			a = NULL;	/* not created, or its header not yet */
		if (a) {
			for (; read < archive_reader__nchunks(a); read++) {
				const struct archive_chunk_info *c =
					archive_reader__chunk(a, read);
				struct fxt_error fe;
				ssize_t n;

				/* A segment: a chunk and its continuations. */
				if (!(c->flags & ARCHIVE_CHUNK_CONTINUATION))
					len = 0;
				if (len + c->uncompressed > cap) {
					cap = 2 * (len + c->uncompressed);
					p = realloc(seg, cap);
					if (!p)
						abort();
					seg = p;
				}
				n = archive_reader__read_chunk(a, read, seg + len,
							       cap - len, err,
							       sizeof(err));
				if (n >= 0)
					len += (size_t)n;
				if (n < 0 || fxt_check_buffer(seg, len, &fe)) {
					l->failures++;
					snprintf(l->failure, sizeof(l->failure),
						 "chunk %zu: %s", read,
						 n < 0 ? err : fe.msg);
				}
			}
			l->chunks_seen = read;
		}
		l->looks++;
		if (last)
			break;
	}
	archive_reader__close(a);
	free(seg);
	return NULL;
}

/* Record live at @period_ns with a 1 ms flush, a reader thread reading. */
static void live_run(struct __test_metadata *_metadata, struct live *l,
		     uint64_t period_ns, uint64_t *samples)
{
	struct sink_opts so = { .archive = true, .archive_flush_ms = 1,
				.archive_opts = { .live = true } };
	pthread_t t;
	struct gen g;

	unlink(l->path);
	ASSERT_EQ(0, pthread_create(&t, NULL, live_reader, l));
	ASSERT_EQ(0, gen_open(&g, l->path, &so, period_ns));
	for (uint64_t until = GEN_NS; until <= 3 * GEN_NS;
	     until += GEN_TURN_NS) {
		gen_run(&g, until);
		usleep(2000);	/* the turn's flush time passes */
	}
	*samples = g.samples;
	EXPECT_EQ(0, gen_close(&g));
	l->done = true;
	pthread_join(t, NULL);
	EXPECT_EQ(0, l->failures) TH_LOG("%s", l->failure);
	EXPECT_LT(1, l->looks);
}

TEST_F(arch, a_live_archive_reads_while_it_grows)
{
	struct live l = { .path = tmp_path("live.fxtz") };
	struct sample_sum sum = { 0 };
	struct archive_repair_stats rs;
	struct archive_reader *a;
	struct archive_metrics m;
	uint64_t samples;
	char err[256];

	live_run(_metadata, &l, PERIOD_NS, &samples);
	/* Chunks only: scanned, every one there, each a segment. */
	a = open_ok(_metadata, l.path, 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(ARCHIVE_INDEX_SCAN, archive_reader__index(a));
	EXPECT_EQ(0, archive_reader__tail_bytes(a));
	EXPECT_EQ(l.chunks_seen, archive_reader__nchunks(a));
	EXPECT_EQ(-ENOENT, archive_reader__metrics(a, &m));
	check_chunks(_metadata, a, &sum, false);
	EXPECT_EQ(samples, sum.n);
	archive_reader__close(a);
	ASSERT_EQ(0, archive__repair(l.path, &rs, err, sizeof(err))) TH_LOG("%s", err);
	a = open_ok(_metadata, l.path, 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(a));
	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_EQ(2 * 20000, samples);
	EXPECT_EQ(samples, m.samples);
	archive_reader__close(a);
}

/*
 * At 20 Hz a flush holds fewer events than the replay outweighs: the
 * next chunk continues it, and segments still decode whole.
 */
TEST_F(arch, a_trickle_flushes_as_continuations)
{
	struct live l = { .path = tmp_path("live.fxtz") };
	struct sample_sum sum = { 0 };
	struct archive_repair_stats rs;
	struct archive_reader *a;
	struct archive_metrics m;
	uint64_t samples;
	size_t cont = 0, n;
	char err[256];

	live_run(_metadata, &l, 50000000ull, &samples);
	a = open_ok(_metadata, l.path, 0);
	ASSERT_NE(NULL, a);
	n = archive_reader__nchunks(a);
	EXPECT_LE(10, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t f = archive_reader__chunk(a, i)->flags;

		EXPECT_TRUE(f & ARCHIVE_CHUNK_FLUSHED || i == n - 1);
		cont += !!(f & ARCHIVE_CHUNK_CONTINUATION);
	}
	EXPECT_LE(n / 2, cont);
	EXPECT_FALSE(archive_reader__chunk(a, 0)->flags &
		     ARCHIVE_CHUNK_CONTINUATION);
	check_chunks(_metadata, a, &sum, true);
	EXPECT_EQ(samples, sum.n);
	archive_reader__close(a);
	/* Repair decodes continuations after their chunk: nothing lost. */
	ASSERT_EQ(0, archive__repair(l.path, &rs, err, sizeof(err))) TH_LOG("%s", err);
	a = open_ok(_metadata, l.path, 0);
	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_EQ(samples, m.samples);
	archive_reader__close(a);
}

/* A file with a sound chunk header claiming absurd sizes. */
static void put_header(unsigned char *p, uint32_t comp, uint32_t uncomp)
{
	uint32_t v[16] = { 0 };

	v[0] = 0x435a5846u;
	v[1] = 64;
	v[2] = comp;
	v[3] = uncomp;
	v[14] = crc32c(0, v, 56);
	v[15] = crc32c(0, v, 60);
	memcpy(p, v, 64);
}

TEST_F(arch, bad_input_gives_an_errno_never_a_crash)
{
	const char *path = tmp_path("bad.fxtz");
	struct archive_reader *a;
	unsigned char *good, *bytes;
	unsigned char buf[64];
	size_t len;
	char err[256];

	small_archive(_metadata, tmp_path("good.fxtz"), false, 4, false);
	good = slurp(tmp_path("good.fxtz"), &len);
	ASSERT_NE(NULL, good);
	bytes = malloc(len);
	ASSERT_NE(NULL, bytes);

	/* Missing, empty, plain FXT, not an archive at all. */
	EXPECT_EQ(-ENOENT, archive_reader__open(&a, tmp_path("none"), 0, err,
						sizeof(err)));
	ASSERT_EQ(0, spit(path, "", 0));
	EXPECT_EQ(-ENOTSUP, archive_reader__open(&a, path, 0, err, sizeof(err)));
	memset(bytes, 0x5a, len);
	ASSERT_EQ(0, spit(path, bytes, len));
	EXPECT_EQ(-ENOTSUP, archive_reader__open(&a, path, 0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not an fxtprof archive")) TH_LOG("%s", err);

	/* Another version; a damaged header. */
	memcpy(bytes, good, len);
	bytes[8] = 4;
	ASSERT_EQ(0, spit(path, bytes, len));
	EXPECT_EQ(-ENOTSUP, archive_reader__open(&a, path, 0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "version 4")) TH_LOG("%s", err);
	memcpy(bytes, good, len);
	bytes[20] ^= 1;
	ASSERT_EQ(0, spit(path, bytes, len));
	EXPECT_EQ(-EBADMSG, archive_reader__open(&a, path, 0, err, sizeof(err)));

	/* A sound header with absurd sizes, alone after the file header. */
	memcpy(buf, good, 64);
	ASSERT_EQ(0, spit(path, buf, 64));
	a = open_ok(_metadata, path, 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(0, archive_reader__nchunks(a));
	archive_reader__close(a);
	memcpy(bytes, good, 128);
	put_header(bytes + 64, 0xffffffffu, 0xffffffffu);
	ASSERT_EQ(0, spit(path, bytes, 128));
	a = open_ok(_metadata, path, 0);
	EXPECT_EQ(0, archive_reader__nchunks(a));
	EXPECT_EQ(64, archive_reader__tail_bytes(a));
	archive_reader__close(a);
	put_header(bytes + 64, 100, 1);		/* beyond LZ4's bound */
	ASSERT_EQ(0, spit(path, bytes, 128));
	a = open_ok(_metadata, path, 0);
	EXPECT_EQ(0, archive_reader__nchunks(a));
	archive_reader__close(a);

	/* A footer whose checksums hold but whose table points anywhere. */
	memcpy(bytes, good, len);
	{
		struct footer f;

		memcpy(&f, bytes + len - sizeof(f), sizeof(f));
		f.nsections = 0xffff;
		f.crc = crc32c(0, &f, 44);
		memcpy(bytes + len - sizeof(f), &f, sizeof(f));
	}
	ASSERT_EQ(0, spit(path, bytes, len));
	a = open_ok(_metadata, path, 0);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(ARCHIVE_INDEX_SCAN, archive_reader__index(a));
	EXPECT_LE(5, archive_reader__nchunks(a));
	/* A buffer too small, a chunk that is not there. */
	EXPECT_EQ(-ENOSPC, archive_reader__read_chunk(a, 0, buf, 1, err,
						      sizeof(err)));
	EXPECT_EQ(-ERANGE, archive_reader__read_chunk(a, 1000, buf, 64, err,
						      sizeof(err)));
	archive_reader__close(a);

	/* Repair of what is not an archive changes nothing. */
	memset(bytes, 0x5a, len);
	ASSERT_EQ(0, spit(path, bytes, len));
	EXPECT_EQ(-ENOTSUP, archive__repair(path, NULL, err, sizeof(err)));
	free(good);
	free(bytes);
}

TEST_HARNESS_MAIN
