// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_bad.c - the table builder (user/unwind/) on bad input, and
 * its cache's memory cap.  Every truncation of a small program's
 * .eh_frame (its section header says fewer bytes) and 2000 copies with
 * random bytes of .eh_frame flipped must each give a table that passes
 * the module's checks or a clean error (-errno and a sentence), never a
 * crash: built plain and under ASan+UBSan (asan/).  Files that are not
 * ELF, or not a machine tables are built for, are refused with a
 * sentence.  The cache keeps tables up to its cap, counts once what does
 * not fit, files without CFI and files without a build id.  Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "unwind/unwind_cache.h"
#include "unwind/unwind_table.h"

#ifndef UNWIND_FIXTURES
#define UNWIND_FIXTURES "build/x86_64/tests/unwind"
#endif
#define NOFP UNWIND_FIXTURES "/nofp"

#define FLIPS	2000

/* A file's bytes, and where its .eh_frame and that section's header are. */
struct image {
	unsigned char *buf;
	size_t len;
	size_t eh_off, eh_size;	/* the section's bytes */
	size_t shdr_size_off;	/* its sh_size field */
};

static int image_load(const char *path, struct image *im)
{
	size_t shstrndx, i = 0;
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	memset(im, 0, sizeof(*im));
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	im->len = (size_t)st.st_size;
	im->buf = malloc(im->len);
	if (!im->buf || pread(fd, im->buf, im->len, 0) != (ssize_t)im->len)
		return -1;
	close(fd);
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)im->buf, im->len);
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		i++;
		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, ".eh_frame")) {
			im->eh_off = sh.sh_offset;
			im->eh_size = sh.sh_size;
			im->shdr_size_off = eh.e_shoff + i * eh.e_shentsize +
					    offsetof(Elf64_Shdr, sh_size);
		}
	}
	elf_end(elf);
	return im->eh_size ? 0 : -1;
}

/* The module's checks, as tests/unwind/test_unwind_cfi.c has them. */
static int table_ok(const struct unwind_table *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_rows; i++) {
		const struct fxtprof_unwind_row *r = &t->rows[i];

		if ((i && r->pc <= t->rows[i - 1].pc) || r->pc >= t->pc_end ||
		    r->cfa_reg >= FXTPROF_UNWIND_CFA_MAX ||
		    (r->flags & ~FXTPROF_UNWIND_ROW_FLAGS) ||
		    ((r->flags & FXTPROF_UNWIND_ROW_FP_SAVED) &&
		     (!r->fp_offset || r->fp_offset % 8)))
			return -1;
	}
	return 0;
}

struct outcome {
	unsigned int tables, errors, bad;
	char last_why[UNWIND_WHY_LEN];
};

/* Build a table from @len bytes at @buf: a good table or a clean error. */
static void build_copy(const unsigned char *buf, size_t len,
		       struct outcome *o)
{
	/* A copy of its own, so that ASan sees reads past its end. */
	unsigned char *copy = malloc(len);
	char why[UNWIND_WHY_LEN] = "";
	struct unwind_table *t;
	Elf *elf;
	int err;

	memcpy(copy, buf, len);
	elf = elf_memory((char *)copy, len);
	err = unwind_table__build_elf(elf, &t, why);
	if (!err) {
		o->tables++;
		if (table_ok(t))
			o->bad++;
		unwind_table__free(t);
	} else {
		o->errors++;
		memcpy(o->last_why, why, sizeof(why));
		if (err >= 0 || !why[0])
			o->bad++;
	}
	elf_end(elf);
	free(copy);
}

TEST(every_truncation)
{
	struct outcome o = { 0 };
	struct image im;
	uint64_t n;

	ASSERT_EQ(0, image_load(NOFP, &im));
	for (n = 0; n < im.eh_size; n++) {
		memcpy(im.buf + im.shdr_size_off, &n, sizeof(n));
		build_copy(im.buf, im.len, &o);
	}
	fprintf(stderr, "# %zu truncations: %u tables, %u errors\n", im.eh_size,
		       o.tables, o.errors);
	EXPECT_EQ(0u, o.bad);
	EXPECT_EQ(im.eh_size, o.tables + o.errors);
	free(im.buf);
}

TEST(random_flips)
{
	struct outcome o = { 0 };
	unsigned char *orig;
	struct image im;
	unsigned int i, seed = 24;

	ASSERT_EQ(0, image_load(NOFP, &im));
	orig = malloc(im.eh_size);
	memcpy(orig, im.buf + im.eh_off, im.eh_size);
	for (i = 0; i < FLIPS; i++) {
		unsigned int k, nflips = 1 + rand_r(&seed) % 4;

		memcpy(im.buf + im.eh_off, orig, im.eh_size);
		for (k = 0; k < nflips; k++)
			im.buf[im.eh_off + rand_r(&seed) % im.eh_size] ^=
				(unsigned char)(1 + rand_r(&seed) % 255);
		build_copy(im.buf, im.len, &o);
	}
	fprintf(stderr, "# %u flipped copies: %u tables, %u errors (%s)\n",
		FLIPS, o.tables, o.errors, o.last_why);
	EXPECT_EQ(0u, o.bad);
	EXPECT_EQ(FLIPS, o.tables + o.errors);
	free(orig);
	free(im.buf);
}

TEST(not_elf)
{
	static const char text[] = "#!/bin/sh\necho not ELF\n";
	char why[UNWIND_WHY_LEN] = "";
	struct unwind_table *t;
	struct image im;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)text, sizeof(text));
	EXPECT_EQ(-ENOEXEC, unwind_table__build_elf(elf, &t, why));
	EXPECT_NE(0, why[0]);
	elf_end(elf);

	/* An ELF header cut short. */
	ASSERT_EQ(0, image_load(NOFP, &im));
	why[0] = 0;
	elf = elf_memory((char *)im.buf, 40);
	EXPECT_GT(0, unwind_table__build_elf(elf, &t, why));
	EXPECT_NE(0, why[0]);
	elf_end(elf);

	/* A machine tables are not built for. */
	im.buf[18] = EM_RISCV;
	why[0] = 0;
	elf = elf_memory((char *)im.buf, im.len);
	EXPECT_EQ(-ENOTSUP, unwind_table__build_elf(elf, &t, why));
	EXPECT_NE(NULL, strstr(why, "e_machine"));
	elf_end(elf);
	free(im.buf);

	EXPECT_EQ(-ENOENT, unwind_table__build_path("/nonexistent", &t, why));
	EXPECT_NE(NULL, strstr(why, "/nonexistent"));
}

static int cache_get(struct unwind_cache *c, const char *path,
		     const struct unwind_table **t)
{
	char why[UNWIND_WHY_LEN];
	int fd = open(path, O_RDONLY), err;

	if (fd < 0)
		return -errno;
	err = unwind_cache__get(c, fd, t, why);
	close(fd);
	return err;
}

TEST(cache_cap)
{
	const struct unwind_table *t, *again;
	struct unwind_cache_stats st;
	struct unwind_cache *c;
	struct unwind_table *nofp;
	char why[UNWIND_WHY_LEN];
	size_t one;

	ASSERT_EQ(0, unwind_table__build_path(NOFP, &nofp, why));
	one = unwind_table__size(nofp);
	unwind_table__free(nofp);

	/* Room for the small table and not for the throw program's. */
	c = unwind_cache__new(one + 100);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, cache_get(c, NOFP, &t));
	ASSERT_EQ(0, cache_get(c, NOFP, &again));
	EXPECT_EQ(t, again);
	EXPECT_EQ(-ENOSPC, cache_get(c, UNWIND_FIXTURES "/throw", &t));
	EXPECT_EQ(-ENOSPC, cache_get(c, UNWIND_FIXTURES "/throw", &t));
	EXPECT_EQ(NULL, t);
	EXPECT_EQ(-ENODATA, cache_get(c, UNWIND_FIXTURES "/nofp-no-eh", &t));
	EXPECT_EQ(-ENOENT, cache_get(c, UNWIND_FIXTURES "/nofp-no-id", &t));
	unwind_cache__stats(c, &st);
	EXPECT_EQ(1u, st.tables);
	EXPECT_EQ(one, st.bytes);
	EXPECT_GE(one + 100, st.bytes);
	EXPECT_EQ(1u, st.over_cap);	/* counted once per build id */
	EXPECT_LT(100u, st.over_cap_bytes);
	EXPECT_EQ(1u, st.no_cfi);
	EXPECT_EQ(1u, st.no_build_id);
	EXPECT_EQ(0u, st.failed);
	unwind_cache__free(c);

	/* A cap of 0 keeps nothing, and counts it. */
	c = unwind_cache__new(0);
	EXPECT_EQ(-ENOSPC, cache_get(c, NOFP, &t));
	unwind_cache__stats(c, &st);
	EXPECT_EQ(0u, st.bytes);
	EXPECT_EQ(1u, st.over_cap);
	unwind_cache__free(c);
}

/*
 * Eviction: a table that did not fit is built once room is made, and an
 * evicted one is built again at its next get; each is counted once.
 */
TEST(cache_evicts)
{
	const struct unwind_table *t;
	struct unwind_cache_stats st;
	struct unwind_table *a, *b;
	struct unwind_cache *c;
	char why[UNWIND_WHY_LEN];
	uint8_t id_a[FXTPROF_BUILD_ID_MAX], id_b[FXTPROF_BUILD_ID_MAX];
	size_t one, two;
	int na, nb, err;

	ASSERT_EQ(0, unwind_table__build_path(NOFP, &a, why));
	ASSERT_EQ(0, unwind_table__build_path(UNWIND_FIXTURES "/throw", &b,
					      why));
	one = unwind_table__size(a);
	two = unwind_table__size(b);
	na = a->build_id_size;
	nb = b->build_id_size;
	memcpy(id_a, a->build_id, na);
	memcpy(id_b, b->build_id, nb);
	unwind_table__free(a);
	unwind_table__free(b);

	/* Room for either table, not both. */
	c = unwind_cache__new((one > two ? one : two) + 100);
	ASSERT_NE(NULL, c);
	ASSERT_GT(one + two, (one > two ? one : two) + 100);
	ASSERT_EQ(0, cache_get(c, NOFP, &t));
	EXPECT_EQ(-ENOSPC, cache_get(c, UNWIND_FIXTURES "/throw", &t));
	EXPECT_EQ(two, unwind_cache__need(c, id_b, nb));
	EXPECT_EQ(0u, unwind_cache__need(c, id_a, na));
	EXPECT_EQ(one, unwind_cache__evict(c, id_a, na));
	EXPECT_EQ(0u, unwind_cache__evict(c, id_a, na));
	EXPECT_FALSE(unwind_cache__find(c, id_a, na, &t, &err));
	unwind_cache__stats(c, &st);
	EXPECT_EQ(0u, st.tables);
	EXPECT_EQ(0u, st.bytes);
	EXPECT_EQ(1u, st.evicted);
	/* Room now: the throw program's is built; then nofp's does not fit. */
	EXPECT_EQ(0, cache_get(c, UNWIND_FIXTURES "/throw", &t));
	EXPECT_NE(NULL, t);
	EXPECT_EQ(-ENOSPC, cache_get(c, NOFP, &t));
	unwind_cache__stats(c, &st);
	EXPECT_EQ(1u, st.tables);
	EXPECT_EQ(two, st.bytes);
	EXPECT_EQ(2u, st.over_cap);	/* each build id once */
	unwind_cache__free(c);
}

TEST_HARNESS_MAIN
