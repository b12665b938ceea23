// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_chunk_codec.c - the archive's chunk codec 2
 * (user/archive/chunk_codec2.c with its range coder) on real pipeline
 * output: samples whose stacks repeat and
 * samples whose stacks do not, kernel-only, user-only, idle (no stack) and
 * truncated stacks, and every other record the encoder writes (names,
 * mappings, kernel symbols, forks, exits, loss counters), through the
 * stream state and the FXT encoder to a plain FXT file.  Coding and
 * decoding must give the bytes back exactly, in one chunk or in many cut
 * anywhere between records, and records the codec does not take apart
 * (odd shapes, too many templates) must still come back; damaged coded
 * input (flipped bytes, truncations, wrong sizes) must fail with
 * -EBADMSG, never crash.  Codec 1 (user/archive/chunk_codec.c), which
 * fxtprof only decodes now, is tested on the chunks of a committed archive
 * (tests/archive/fixtures/README): each decodes, and damage to them fails
 * the same way.  Stack copies (ABI 6) go through the encoder, the
 * checker and the codec unchanged.  Built plain and with ASan+UBSan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lz4.h>

#include "kselftest_harness.h"

#include "archive/archive.h"
#include "archive/chunk_codec.h"
#include "archive/chunk_codec2.h"
#include "archive_gen.h"
#include "fxt/fxt_profile.h"
#include "fxt/fxt_reader.h"

#define FRAMES_MAX	600	/* past FXT_MAX_FRAMES: the encoder cuts it */

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

/* One sample of @nk kernel and @nu user frames, ips from @seed. */
static void sample(struct gen *g, unsigned int cpu, uint32_t tid,
		   uint64_t ts, uint8_t mode, unsigned int nk,
		   unsigned int nu, uint64_t seed)
{
	static union {
		struct fxtprof_sample s;
		uint64_t w[4 + FRAMES_MAX];
	} u;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	u.s.hdr.size = (uint32_t)(32 + 8 * (nk + nu));
	u.s.hdr.type = FXTPROF_REC_SAMPLE;
	u.s.hdr.cpu = (uint16_t)cpu;
	u.s.hdr.time_ns = ts;
	u.s.pid = 100;
	u.s.tid = tid;
	u.s.mode = mode;
	u.s.nr_kernel = (uint16_t)nk;
	u.s.nr_user = (uint16_t)nu;
	for (i = 0; i < nk; i++)
		u.s.ips[i] = 0xffffffff81000000ull + 0x40 * (seed % 7) + 0x1000 * i;
	for (; i < nk + nu; i++)
		u.s.ips[i] = 0x555555554000ull + 0x10 * (seed % 5) + 0x100 * i;
	gen_feed(g, &u.s);
}

/*
 * The recording: archive_gen.h's (names, a mapping a second, a fork and
 * an exit, loss counters, samples of unique stacks), then 2 s of every
 * sample shape in turn, the repeated ones from 35 stacks.
 */
static void *recording(struct __test_metadata *_metadata, const char *path,
		       size_t *len)
{
	struct sink_opts so = { 0 };
	struct gen g;
	uint64_t ts;
	void *fxt;
	int n = 0;

	ASSERT_EQ(0, gen_open(&g, path, &so, 1000000ull));
	gen_run(&g, 3 * GEN_NS);
	for (ts = 3 * GEN_NS; ts < 5 * GEN_NS; ts += 100000, n++) {
		unsigned int cpu = (unsigned int)(ts / GEN_TURN_NS) % 2;
		uint32_t tid = 100 + (uint32_t)(n % 4);

		switch (n % 6) {
		case 0:		/* repeated: user and kernel */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_KERNEL, 3, 16, (uint64_t)n / 6);
			break;
		case 1:		/* kernel only */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_KERNEL, 5, 0, (uint64_t)n);
			break;
		case 2:		/* user only, unique */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_USER, 0, 12,
			       (uint64_t)n * 7919);
			break;
		case 3:		/* idle: no stack at all */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_IDLE, 0, 0, 0);
			break;
		case 4:		/* truncated to FXT_MAX_FRAMES */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_USER, 0, FRAMES_MAX,
			       (uint64_t)n % 2);
			break;
		default:	/* repeated, user only */
			sample(&g, cpu, tid, ts, FXTPROF_MODE_USER, 0, 8, 1);
			break;
		}
		if (n % 5000 == 0)
			gen_mmap(&g, ts, 10 + (unsigned int)n / 5000);
		if (n % 1000 == 999)
			sink__flush(g.sink);
	}
	ASSERT_EQ(0, gen_close(&g));
	fxt = slurp(path, len);
	ASSERT_NE(NULL, fxt);
	return fxt;
}

static size_t record_len(const unsigned char *p, size_t left)
{
	uint64_t w, words;

	if (left < 8)
		return 0;
	memcpy(&w, p, 8);
	words = (w & 0xf) == 15 ? (w >> 4) & 0xffffffffu : (w >> 4) & 0xfff;
	return words && words <= left / 8 ? (size_t)words * 8 : 0;
}

/* Records in @len bytes, and the end of the first @max bytes' records. */
static uint32_t count_records(const unsigned char *p, size_t len,
			      size_t max, size_t *end)
{
	uint32_t n = 0;
	size_t off = 0, r;

	while ((r = record_len(p + off, len - off)) && off + r <= max) {
		off += r;
		n++;
	}
	*end = off;
	return n;
}

/* Either codec's decoder behind one interface: @id 1 or 2 (encodes). */
struct codec {
	int id;
	struct chunk_codec2 *c2;
};

static long encode(struct codec *c, const void *fxt, size_t len,
		   uint32_t records, void *out, size_t cap)
{
	return chunk_codec2__encode(c->c2, fxt, len, records, out, cap);
}

static int decode(const struct codec *c, const void *in, size_t len,
		  void *out, size_t out_len, uint32_t records)
{
	return c->id == 1 ? chunk_codec__decode(in, len, out, out_len, records)
			  : chunk_codec2__decode(in, len, out, out_len, records);
}

/* Code and decode @len bytes: the same bytes back; the coded length. */
static long round_trip(struct __test_metadata *_metadata,
		       struct codec *c, const unsigned char *fxt,
		       size_t len)
{
	unsigned char *coded = malloc(len), *back = malloc(len);
	size_t end;
	uint32_t n = count_records(fxt, len, len, &end);
	long k;

	ASSERT_NE(NULL, coded);
	ASSERT_NE(NULL, back);
	ASSERT_EQ(len, end);
	k = encode(c, fxt, len, n, coded, len);
	ASSERT_LE(0, k);
	if (k) {
		memset(back, 0xa5, len);
		EXPECT_EQ(0, decode(c, coded, (size_t)k, back, len, n));
		EXPECT_EQ(0, memcmp(back, fxt, len));
	}
	free(coded);
	free(back);
	return k;
}

FIXTURE(codec) {
	char dir[64];
	unsigned char *fxt;
	size_t len;
	struct codec c;
};

FIXTURE_SETUP(codec)
{
	char path[128];

	snprintf(self->dir, sizeof(self->dir), "/dev/shm/test_chunk_codec.XXXXXX");
	if (!mkdtemp(self->dir)) {
		snprintf(self->dir, sizeof(self->dir), "/tmp/test_chunk_codec.XXXXXX");
		ASSERT_NE(NULL, mkdtemp(self->dir));
	}
	snprintf(path, sizeof(path), "%s/plain.fxt", self->dir);
	self->fxt = recording(_metadata, path, &self->len);
	unlink(path);
	self->c.id = 2;
	ASSERT_EQ(0, chunk_codec2__new(&self->c.c2));
}

FIXTURE_TEARDOWN(codec)
{
	chunk_codec2__free(self->c.c2);
	free(self->fxt);
	rmdir(self->dir);
}

TEST_F(codec, every_record_shape_comes_back_byte_identical)
{
	size_t off, end, sizes[] = { 4096, 65536, 1u << 20 };
	uint64_t coded = 0;
	long k;

	/* The whole recording as one chunk: far shorter, exactly back. */
	k = round_trip(_metadata, &self->c, self->fxt, self->len);
	EXPECT_LT(0, k);
	EXPECT_GT(self->len / 4, (size_t)k) TH_LOG("%ld of %zu", k, self->len);
	/* Cut anywhere between records, each chunk alone, one codec reused. */
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (off = 0; off < self->len; off += end) {
			count_records(self->fxt + off, self->len - off, sizes[s],
				      &end);
			if (!end)	/* a record larger than the cut */
				end = record_len(self->fxt + off, self->len - off);
			ASSERT_NE(0, end);
			k = round_trip(_metadata, &self->c, self->fxt + off, end);
			coded += k ? (uint64_t)k : end;
		}
		/* 4 KiB holds no truncated stack (512 frames) and its sample. */
		if (sizes[s] > 4096)
			EXPECT_GT(self->len / 4, coded)
				TH_LOG("%zu-byte chunks: %llu", sizes[s],
				       (unsigned long long)coded);
		coded = 0;
	}
}

/*
 * A sample of fxtprof record --call-graph dwarf: @nu user frames (0 or
 * more) and a stack copy (ABI 6) of @size bytes whose words are frames,
 * stack addresses and noise, from @seed.  Returns the copy's bytes.
 */
static size_t copy_sample(struct gen *g, uint64_t ts, unsigned int nu,
			  uint32_t size, uint64_t seed)
{
	static union {
		struct fxtprof_sample s;
		uint64_t w[4 + 8 + 1 + FXTPROF_STACK_COPY_REGS_X86_64 +
			   FXTPROF_MAX_STACK_COPY / 8];
	} u;
	struct fxtprof_stack_copy *c;
	unsigned char *stack;
	size_t len;

	memset(&u, 0, sizeof(u));
	u.s.hdr.type = FXTPROF_REC_SAMPLE;
	u.s.hdr.time_ns = ts;
	u.s.pid = 100;
	u.s.tid = 101;
	u.s.mode = FXTPROF_MODE_USER;
	u.s.flags = FXTPROF_SAMPLE_STACK_COPY;
	u.s.nr_user = (uint16_t)nu;
	for (unsigned int i = 0; i < nu; i++)
		u.s.ips[i] = 0x401000 + 0x10 * (seed % 5) + 0x100 * i;
	c = (void *)&u.s.ips[nu];
	c->machine = 62;	/* EM_X86_64 */
	c->nr_regs = FXTPROF_STACK_COPY_REGS_X86_64;
	c->size = size;
	for (unsigned int i = 0; i < c->nr_regs; i++)
		c->regs[i] = 0x7ffd00000000ull + seed * 0x1000 + i;
	stack = (unsigned char *)&c->regs[c->nr_regs];
	for (uint32_t i = 0; i + 8 <= size; i += 8) {
		uint64_t w = i % 24 == 0 ? 0x401000 + seed % 64 :
			     i % 24 == 8 ? 0x7ffd00001000ull + i :
			     (seed + i) * 0x9e3779b97f4a7c15ull;

		memcpy(stack + i, &w, 8);
	}
	len = sizeof(*c) + c->nr_regs * 8 + size;
	u.s.hdr.size = (uint32_t)(32 + 8 * nu + ((len + 7) & ~7ul));
	gen_feed(g, &u.s);
	return len;
}

/*
 * Copies in FXT (fxt_profile.h, FXT_PROFILE_EV_USTACK_COPY): the
 * encoder writes each as the large blob right after its sample's, the
 * checker takes them, and the codec gives them back byte for byte, with
 * and without frames, of every size up to the largest, in one chunk and
 * in many.
 */
TEST(stack_copies_come_back_byte_identical)
{
	char dir[] = "/tmp/test_chunk_codec.XXXXXX", path[64];
	uint32_t sizes[] = { 0, 8, 4, 512, 8192, FXTPROF_MAX_STACK_COPY };
	struct fxt_checker *chk;
	struct fxt_reader *rd;
	struct fxt_record rec;
	struct sink_opts so = { 0 };
	struct codec c = { .id = 2 };
	uint64_t ts = 2 * GEN_NS, last_sample_ts = 0, blobs = 0, fed = 0;
	size_t len, off, end;
	unsigned char *fxt;
	struct gen g;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/copies.fxt", dir);
	ASSERT_EQ(0, gen_open(&g, path, &so, 1000000ull));
	gen_run(&g, 2 * GEN_NS);
	for (unsigned int n = 0; n < 600; n++, ts += 500000) {
		copy_sample(&g, ts, n % 3 ? 6 : 0,
			    sizes[n % (sizeof(sizes) / sizeof(sizes[0]))],
			    n % 7);
		fed++;
	}
	ASSERT_EQ(0, gen_close(&g));
	fxt = slurp(path, &len);
	unlink(path);
	rmdir(dir);
	ASSERT_NE(NULL, fxt);

	/* Each copy, as fed, with its sample's time and thread. */
	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ASSERT_EQ(0, fxt_reader__feed(rd, fxt, len));
	while (fxt_reader__next(rd, &rec) == 1) {
		const struct fxtprof_stack_copy *cp;

		if (rec.type == FXT_REC_EVENT &&
		    fxt_str__is(&rec.event.name, FXT_PROFILE_EV_SAMPLE))
			last_sample_ts = rec.ts;
		if (rec.type != FXT_REC_LARGE ||
		    !fxt_str__is(&rec.large.name, FXT_PROFILE_EV_USTACK_COPY))
			continue;
		EXPECT_TRUE(fxt_str__is(&rec.large.category,
					FXT_PROFILE_CAT_META));
		EXPECT_EQ(last_sample_ts, rec.ts);
		EXPECT_EQ(101, rec.thread.tid);
		cp = rec.large.data;
		ASSERT_LE(8, rec.large.len);
		EXPECT_EQ(62, cp->machine);
		EXPECT_EQ(rec.large.len, 8 + 8ull * cp->nr_regs + cp->size);
		blobs++;
	}
	fxt_reader__free(rd);
	EXPECT_EQ(fed, blobs);

	ASSERT_EQ(0, fxt_checker__new(NULL, NULL, &chk));
	EXPECT_EQ(0, fxt_checker__feed(chk, fxt, len));
	EXPECT_EQ(0, fxt_checker__finish(chk));
	fxt_checker__free(chk);

	ASSERT_EQ(0, chunk_codec2__new(&c.c2));
	round_trip(_metadata, &c, fxt, len);
	for (off = 0; off < len; off += end) {
		count_records(fxt + off, len - off, 65536, &end);
		if (!end)
			end = record_len(fxt + off, len - off);
		ASSERT_NE(0, end);
		round_trip(_metadata, &c, fxt + off, end);
	}
	chunk_codec2__free(c.c2);
	free(fxt);
}

/* A record of @words words: header @w0's type, the other words @fill. */
static size_t put_record(unsigned char *p, unsigned int type, uint64_t words,
			 uint64_t fill)
{
	uint64_t w0 = type | (type == 15 ? words << 4 : (words & 0xfff) << 4);

	memcpy(p, &w0, 8);
	for (uint64_t i = 1; i < words; i++) {
		uint64_t v = fill * 0x9e3779b97f4a7c15ull + i;

		memcpy(p + 8 * i, &v, 8);
	}
	return (size_t)words * 8;
}

TEST_F(codec, shapes_it_does_not_take_apart_come_back_too)
{
	unsigned char *buf = calloc(1, 1 << 20), *coded = malloc(1 << 20);
	size_t len = 0;
	uint32_t n = 0;
	long k;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, coded);
	/* 100 distinct 7-word events: more templates than the table holds. */
	for (int i = 0; i < 100; i++, n++)
		len += put_record(buf + len, 4, 7, (uint64_t)i % 100);
	/* Blobs of every size from 6 words, twice each; short large records. */
	for (int i = 0; i < 40; i++, n++)
		len += put_record(buf + len, 15, 6 + (uint64_t)i / 2, 7);
	for (int i = 1; i < 6; i++, n++)
		len += put_record(buf + len, 15, (uint64_t)i, 9);
	/* Events of other sizes, and every other type. */
	for (unsigned int t = 0; t < 15; t++, n++)
		len += put_record(buf + len, t, 3 + t, t);
	/* Repeats, so that coding is shorter and is taken. */
	for (int i = 0; i < 2000; i++, n++)
		len += put_record(buf + len, 4, 7, 3);
	ASSERT_LT(0, round_trip(_metadata, &self->c, buf, len));
	/* Not whole records, or a count that is not theirs: not coded. */
	EXPECT_EQ(0, encode(&self->c, buf, len - 8, n, coded, len));
	EXPECT_EQ(0, encode(&self->c, buf, len, n - 1, coded, len));
	EXPECT_EQ(0, encode(&self->c, buf, len, n + 1, coded, len));
	/* No room, or nothing to gain: not coded. */
	k = encode(&self->c, buf, len, n, coded, len);
	ASSERT_LT(0, k);
	EXPECT_EQ(0, encode(&self->c, buf, len, n, coded,
					 (size_t)k - 1));
	/*
	 * Only records it keeps verbatim, of random words: nothing for any
	 * stage to gain, so the coded form would be longer.
	 */
	len = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t words = 30 + (uint64_t)i, w0 = 3 | words << 4;

		memcpy(buf + len, &w0, 8);
		for (uint64_t j = 1; j < words; j++) {
			uint64_t v = (uint64_t)(i * 100) + j;

			/* splitmix64's finaliser: every bit depends on v */
			v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
			v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
			v ^= v >> 31;
			memcpy(buf + len + 8 * j, &v, 8);
		}
		len += 8 * words;
	}
	EXPECT_EQ(0, encode(&self->c, buf, len, 3, coded, len));
	free(buf);
	free(coded);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * @len coded bytes of @c that decode to @end bytes of @n records: every
 * damage to them fails with -EBADMSG or decodes, never anything else.
 */
static void damage(struct __test_metadata *_metadata, const struct codec *c,
		   const unsigned char *coded, size_t len, size_t end,
		   uint32_t n)
{
	unsigned char *bad = malloc(len > 300 ? len : 300),
		      *back = malloc(end + 64);
	uint64_t seed = 0x1234567887654321ull, ok = 0, refused = 0;

	ASSERT_NE(NULL, bad);
	ASSERT_NE(NULL, back);
	ASSERT_EQ(0, decode(c, coded, len, back, end, n));

	/* Wrong sizes and counts around the true ones. */
	EXPECT_EQ(-EBADMSG, decode(c, coded, len, back, end - 8, n));
	EXPECT_EQ(-EBADMSG, decode(c, coded, len, back, end + 8, n));
	EXPECT_EQ(-EBADMSG, decode(c, coded, len, back, end, n - 1));
	EXPECT_EQ(-EBADMSG, decode(c, coded, len, back, end, n + 1));
	EXPECT_EQ(-EBADMSG, decode(c, coded, 0, back, end, n));
	EXPECT_EQ(-EBADMSG, decode(c, coded, 31, back, end, n));

	/* Every truncation of the first 4 KiB, and a stride past them. */
	for (size_t at = 0; at < len; at += at < 4096 ? 1 : 97) {
		ASSERT_EQ(-EBADMSG, decode(c, coded, at, back, end, n))
			TH_LOG("cut at %zu of %zu", at, len);
	}

	/*
	 * Random flips of 1 to 4 bytes: a flip may still decode (a frame's
	 * bytes are anything; the chunk's CRC is what catches those), else
	 * it is -EBADMSG; never anything else, never outside the buffers.
	 */
	for (int i = 0; i < 20000; i++) {
		int ret, flips = 1 + (int)(rnd(&seed) % 4);

		memcpy(bad, coded, len);
		for (int f = 0; f < flips; f++) {
			/* Half the flips in the header and the first streams. */
			size_t at = rnd(&seed) % (i % 2 ? len : (len < 256 ? len : 256));

			bad[at] ^= (unsigned char)(1 + rnd(&seed) % 255);
		}
		ret = decode(c, bad, len, back, end, n);
		ASSERT_TRUE(ret == 0 || ret == -EBADMSG) TH_LOG("ret %d", ret);
		if (ret)
			refused++;
		else
			ok++;
	}
	EXPECT_LT(10000, refused) TH_LOG("%llu refused, %llu decoded",
					 (unsigned long long)refused,
					 (unsigned long long)ok);
	/* Random bytes of every length up to 300. */
	for (size_t l = 0; l < 300; l++) {
		int ret;

		for (size_t j = 0; j < l; j++)
			bad[j] = (unsigned char)rnd(&seed);
		ret = decode(c, bad, l, back, end, n);
		ASSERT_EQ(-EBADMSG, ret) TH_LOG("length %zu", l);
	}
	free(bad);
	free(back);
}

/*
 * CPU-bound (20 000 decodes of a 256 KiB chunk): under ASan with two CPU
 * hogs and a VM beside it, it ran past the harness's default 30 s.  The
 * timeout only guards against a hang.
 */
TEST_F_TIMEOUT(codec, damaged_coded_input_fails_with_ebadmsg_never_crashes,
	       600)
{
	size_t end;
	uint32_t n = count_records(self->fxt, self->len, 256 << 10, &end);
	unsigned char *coded = malloc(end);
	long k;

	ASSERT_NE(NULL, coded);
	k = encode(&self->c, self->fxt, end, n, coded, end);
	ASSERT_LT(0, k);
	damage(_metadata, &self->c, coded, (size_t)k, end, n);
	free(coded);
}

/*
 * Codec 1, decode only: every chunk of the fixture decodes whole, to what
 * the reader returns for it (test_archive compares those bytes with the
 * same recording written afresh), and the largest chunk's coded bytes,
 * damaged, fail as codec 2's do.
 */
TEST(codec1_chunks_of_an_old_archive_decode_and_refuse_damage)
{
	const char *path = ARCH_FIXTURES "/codec1.fxtz";
	const struct codec c1 = { .id = 1 };
	struct archive_reader *a;
	unsigned char *bytes, *coded = NULL, *plain = NULL, *back = NULL;
	size_t len, n, big = 0, big_len = 0, big_end = 0;
	uint32_t big_n = 0;
	char err[256];

	bytes = slurp(path, &len);
	ASSERT_NE(NULL, bytes);
	ASSERT_EQ(0, archive_reader__open(&a, path, 0, err, sizeof(err)))
		TH_LOG("%s", err);
	n = archive_reader__nchunks(a);
	ASSERT_LE(5, n);
	for (size_t i = 0; i < n; i++) {
		const struct archive_chunk_info *ci = archive_reader__chunk(a, i);
		const unsigned char *h = bytes + ci->offset;
		uint16_t codec;
		uint32_t clen;

		memcpy(&codec, h + 48, 2);
		memcpy(&clen, h + 52, 4);
		ASSERT_EQ(1, codec) TH_LOG("chunk %zu", i);
		coded = realloc(coded, clen);
		plain = realloc(plain, ci->uncompressed);
		back = realloc(back, ci->uncompressed);
		ASSERT_NE(NULL, coded);
		ASSERT_NE(NULL, plain);
		ASSERT_NE(NULL, back);
		ASSERT_EQ((int)clen,
			  LZ4_decompress_safe((const char *)h + 64, (char *)coded,
					      (int)ci->compressed, (int)clen));
		ASSERT_EQ(0, chunk_codec__decode(coded, clen, back,
						 ci->uncompressed, ci->records));
		ASSERT_EQ((ssize_t)ci->uncompressed,
			  archive_reader__read_chunk(a, i, plain,
						     ci->uncompressed, err,
						     sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(0, memcmp(back, plain, ci->uncompressed))
			TH_LOG("chunk %zu", i);
		if (clen > big_len) {
			big = i;
			big_len = clen;
			big_end = ci->uncompressed;
			big_n = ci->records;
		}
	}
	/* The largest chunk's coded bytes again, then damaged. */
	{
		const unsigned char *h = bytes + archive_reader__chunk(a, big)->offset;

		coded = realloc(coded, big_len);
		ASSERT_NE(NULL, coded);
		ASSERT_EQ((int)big_len,
			  LZ4_decompress_safe((const char *)h + 64, (char *)coded,
					      (int)archive_reader__chunk(a, big)->compressed,
					      (int)big_len));
		damage(_metadata, &c1, coded, big_len, big_end, big_n);
	}
	archive_reader__close(a);
	free(coded);
	free(plain);
	free(back);
	free(bytes);
}

TEST_HARNESS_MAIN
