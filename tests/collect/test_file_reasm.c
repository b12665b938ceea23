// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_file_reasm.c - the reassembler of `receive --collect`
 * (user/collect/file_reasm.h) on chunks of this very program: a file sent
 * whole lands byte-identical under its build id, 0600 in 0700
 * directories, also through the record walk cut at every byte; a gap, an
 * overlap, a stream that ends early, a wrong build id, a file over the
 * limit, malformed payloads and a file already there are refused with
 * their reason and leave no file behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "collect/file_reasm.h"
#include "fxt/fxt.h"
#include "source/elf_build_id.h"
#include "util/build_id_path.h"

static unsigned char *prog;
static size_t prog_len;
static uint8_t prog_id[FXT_FILE_ID_MAX];
static int prog_id_len;

static void load_prog(void)
{
	struct stat sb;
	int fd;

	if (prog)
		return;
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || fstat(fd, &sb))
		abort();
	prog_len = (size_t)sb.st_size;
	prog = malloc(prog_len);
	if (!prog || pread(fd, prog, prog_len, 0) != (ssize_t)prog_len)
		abort();
	prog_id_len = elf_build_id__from_fd(fd, prog_id, sizeof(prog_id));
	close(fd);
}

/* A chunk's payload of @n bytes at @off, announcing @id/@id_len, @size. */
static size_t payload(unsigned char *buf, const uint8_t *id, size_t id_len,
		      uint64_t size, uint64_t off, size_t n)
{
	size_t head = fxt_file_head_len((unsigned int)id_len);
	uint64_t w[FXT_FILE_ID] = { size, off, id_len };

	memset(buf, 0, head);
	memcpy(buf, w, sizeof(w));
	memcpy(buf + 8 * FXT_FILE_ID, id, id_len);
	memcpy(buf + head, prog + off, n);
	return head + n;
}

static void send_chunk(struct file_reasm *r, const uint8_t *id, size_t id_len,
		       uint64_t size, uint64_t off, size_t n)
{
	static unsigned char buf[FXT_MAX_BLOB_LEN];

	file_reasm__chunk(r, buf, payload(buf, id, id_len, size, off, n));
}

/* The whole program in chunks, but for chunk @skip (-1: none). */
static void send_prog(struct file_reasm *r, const uint8_t *id, size_t id_len,
		      long skip)
{
	long i = 0;

	for (size_t off = 0; off < prog_len; off += FXT_FILE_CHUNK, i++) {
		size_t n = prog_len - off < FXT_FILE_CHUNK ?
			   prog_len - off : FXT_FILE_CHUNK;

		if (i != skip)
			send_chunk(r, id, id_len, prog_len, off, n);
	}
}

/* How many files (any name) are under @dir, recursively. */
static int count_files(const char *dir)
{
	char path[4096];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' && (!d->d_name[1] ||
		    (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (d->d_type == DT_DIR)
			n += count_files(path);
		else
			n++;
	}
	closedir(dp);
	return n;
}

FIXTURE(reasm) {
	char dir[64];
	struct file_reasm r;
};

FIXTURE_SETUP(reasm)
{
	load_prog();
	ASSERT_GE(prog_id_len, 2);
	ASSERT_GT(prog_len, 2 * FXT_FILE_CHUNK);
	strcpy(self->dir, "/tmp/test_file_reasm.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	strcat(self->dir, "/col");
	ASSERT_EQ(0, file_reasm__init(&self->r, self->dir, 1ull << 30));
}

FIXTURE_TEARDOWN(reasm)
{
	char cmd[128];

	file_reasm__end(&self->r);
	*strrchr(self->dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

TEST_F(reasm, whole_file_lands_identical)
{
	char path[4096];
	struct stat sb;
	unsigned char *got;
	int fd;

	send_prog(&self->r, prog_id, (size_t)prog_id_len, -1);
	ASSERT_EQ(1, self->r.st.collected);
	ASSERT_EQ(prog_len, self->r.st.bytes);
	ASSERT_EQ(0, self->r.st.dropped);
	ASSERT_LT(0, build_id_path(path, sizeof(path), self->dir, prog_id,
				   (size_t)prog_id_len, NULL));
	ASSERT_EQ(0, stat(path, &sb));
	ASSERT_EQ(0600, sb.st_mode & 0777);
	ASSERT_EQ(prog_len, (size_t)sb.st_size);
	got = malloc(prog_len);
	ASSERT_NE(NULL, got);
	fd = open(path, O_RDONLY);
	ASSERT_EQ((ssize_t)prog_len, pread(fd, got, prog_len, 0));
	close(fd);
	ASSERT_EQ(0, memcmp(got, prog, prog_len));
	free(got);
	*strrchr(path, '/') = '\0';
	ASSERT_EQ(0, stat(path, &sb));
	ASSERT_EQ(0700, sb.st_mode & 0777);
	ASSERT_EQ(1, count_files(self->dir));
	/* Sent again: kept, counted as there already. */
	send_prog(&self->r, prog_id, (size_t)prog_id_len, -1);
	ASSERT_EQ(1, self->r.st.collected);
	ASSERT_EQ(1, self->r.st.present);
	ASSERT_EQ(1, count_files(self->dir));
}

TEST_F(reasm, records_cut_at_every_byte)
{
	static unsigned char buf[FXT_MAX_BLOB_LEN], rec[8 * FXT_MAX_RECORD_WORDS];
	uint64_t other[3] = { 0, 0, 0 };
	size_t len, words;
	int n;

	/* A non-file record (an instant event of 3 words) between chunks. */
	other[0] = 4 | 3 << 4;
	for (size_t off = 0; off < prog_len; off += FXT_FILE_CHUNK) {
		size_t c = prog_len - off < FXT_FILE_CHUNK ?
			   prog_len - off : FXT_FILE_CHUNK;

		len = payload(buf, prog_id, (size_t)prog_id_len, prog_len,
			      off, c);
		words = 1 + 2 + (len + 7) / 8;
		n = fxt_enc_blob((uint64_t *)rec, words,
				 fxt_sref_inline(FXT_PROFILE_FILE,
						 strlen(FXT_PROFILE_FILE)),
				 FXT_BLOB_DATA, buf, len);
		ASSERT_EQ((int)words, n);
		for (size_t i = 0; i < 8 * words; i += 7)
			file_reasm__feed(&self->r, rec + i,
					 8 * words - i < 7 ? 8 * words - i : 7);
		file_reasm__feed(&self->r, other, sizeof(other));
	}
	ASSERT_EQ(1, self->r.st.collected);
	ASSERT_EQ(0, self->r.st.dropped);
	ASSERT_EQ(1, count_files(self->dir));
}

TEST_F(reasm, gap_drops_the_file)
{
	send_prog(&self->r, prog_id, (size_t)prog_id_len, 1);
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(1, self->r.st.dropped);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_GAP]);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, missing_beginning_is_a_gap)
{
	send_prog(&self->r, prog_id, (size_t)prog_id_len, 0);
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_GAP]);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, overlap_drops_the_file)
{
	send_chunk(&self->r, prog_id, (size_t)prog_id_len, prog_len, 0,
		   FXT_FILE_CHUNK);
	send_chunk(&self->r, prog_id, (size_t)prog_id_len, prog_len, 100,
		   FXT_FILE_CHUNK);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_OVERLAP]);
	/* Its later chunks are ignored, not counted again. */
	send_prog(&self->r, prog_id, (size_t)prog_id_len, 0);
	ASSERT_EQ(1, self->r.st.dropped);
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, truncated_stream_drops_at_end)
{
	send_chunk(&self->r, prog_id, (size_t)prog_id_len, prog_len, 0,
		   FXT_FILE_CHUNK);
	ASSERT_EQ(1, count_files(self->dir));	/* the temporary file */
	file_reasm__end(&self->r);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_INCOMPLETE]);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, wrong_build_id_is_refused)
{
	uint8_t id[FXT_FILE_ID_MAX];

	memcpy(id, prog_id, (size_t)prog_id_len);
	id[0] ^= 0xff;
	send_prog(&self->r, id, (size_t)prog_id_len, -1);
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_MISMATCH]);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, over_the_limit_is_refused)
{
	file_reasm__end(&self->r);
	ASSERT_EQ(0, file_reasm__init(&self->r, self->dir, prog_len - 1));
	send_prog(&self->r, prog_id, (size_t)prog_id_len, -1);
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_TOO_BIG]);
	ASSERT_EQ(1, self->r.st.dropped);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_F(reasm, malformed_payloads_are_refused)
{
	unsigned char buf[256] = { 0 };
	uint64_t w[FXT_FILE_ID + 1] = { 100, 0, 1, 0 };

	/* Shorter than the head. */
	file_reasm__chunk(&self->r, buf, 16);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_MALFORMED]);
	/* A build id of one byte: no path. */
	memcpy(buf, w, sizeof(w));
	file_reasm__chunk(&self->r, buf, sizeof(w) + 8);
	ASSERT_EQ(1, self->r.st.why[FILE_REASM_BAD_ID]);
	/* Bits over the id's length. */
	w[FXT_FILE_ID_LEN] = 20 | 1 << 8;
	memcpy(buf, w, sizeof(w));
	file_reasm__chunk(&self->r, buf, 200);
	ASSERT_EQ(2, self->r.st.why[FILE_REASM_MALFORMED]);
	/* A head longer than the payload. */
	w[FXT_FILE_ID_LEN] = 64;
	memcpy(buf, w, sizeof(w));
	file_reasm__chunk(&self->r, buf, 40);
	ASSERT_EQ(3, self->r.st.why[FILE_REASM_MALFORMED]);
	/* A chunk past the file's end. */
	send_chunk(&self->r, prog_id, (size_t)prog_id_len, 10, 0, 100);
	ASSERT_EQ(4, self->r.st.why[FILE_REASM_MALFORMED]);
	/* A record named so whose payload size exceeds the record. */
	{
		uint64_t rec[4] = { 0 };

		rec[0] = FXT_REC_BLOB | 4 << 4 |
			 (uint64_t)(0x8000u | 12) << 16 |
			 (uint64_t)1000 << 32 | (uint64_t)FXT_BLOB_DATA << 48;
		memcpy(&rec[1], FXT_PROFILE_FILE, 12);
		file_reasm__record(&self->r, rec, sizeof(rec));
		ASSERT_EQ(5, self->r.st.why[FILE_REASM_MALFORMED]);
	}
	ASSERT_EQ(0, self->r.st.collected);
	ASSERT_EQ(0, count_files(self->dir));
}

TEST_HARNESS_MAIN
