// SPDX-License-Identifier: MIT
/*
 * gen_fxt_corpus DIR - write the decoder fuzzer's seed corpus: small FXT
 * streams produced by the encoder covering every record and argument type
 * we emit, plus a few hand-built records of types we only decode.
 * Generated at build time so no binary blobs live in the repository.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fxt_test_util.h"

static int save(const char *dir, const char *name, const void *data,
		size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* A prologue plus one of everything the writer can produce. */
static int gen_full(struct fxt_writer *w)
{
	static const uint64_t pcs[4] = { 0xffffffff81000010ULL, 0x401000,
					 0x401100, 0x401200 };
	struct fxt_sref cat, name, k1, k2, sv;
	struct fxt_tref t = fxt_tref_inline(100, 101);
	struct fxt_arg a[10];
	int err = 0;

	err |= fxt_writer__prologue(w, 1, "fxtprof", FXT_NS_PER_SEC);
	err |= fxt_writer__process_name(w, 100, "proc", 4);
	err |= fxt_writer__thread_name(w, 100, 101, "worker\xff", 7);
	err |= fxt_writer__string_ref(w, "cpu", 3, &cat);
	err |= fxt_writer__string_ref(w, "sample", 6, &name);
	err |= fxt_writer__string_ref(w, "pc", 2, &k1);
	err |= fxt_writer__string_ref(w, "v", 1, &k2);
	err |= fxt_writer__string_ref(w, "hello", 5, &sv);
	a[0] = (struct fxt_arg){ .name = k1, .type = FXT_ARG_POINTER, .v.ptr = 0x401000 };
	a[1] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_INT32, .v.i32 = -3 };
	a[2] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_UINT32, .v.u32 = 3 };
	a[3] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_INT64, .v.i64 = -4 };
	a[4] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_UINT64, .v.u64 = 4 };
	a[5] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_DOUBLE, .v.dbl = 0.5 };
	a[6] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_STRING, .v.str = sv };
	a[7] = (struct fxt_arg){ .name = fxt_sref_inline("in", 2),
				 .type = FXT_ARG_STRING,
				 .v.str = fxt_sref_inline("line", 4) };
	a[8] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_KOID, .v.koid = 9 };
	a[9] = (struct fxt_arg){ .name = k2, .type = FXT_ARG_BOOL, .v.b = true };
	err |= fxt_writer__instant(w, 1000, &t, cat, name, a, 10);
	err |= fxt_writer__counter(w, 1001, &t, cat, name, &a[4], 1, 7);
	err |= fxt_writer__stack_sample(w, 1002, 100, 101, pcs, 4);
	err |= fxt_writer__provider_event(w, 1, FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	err |= fxt_writer__thread(w, 1, 100, 101);
	t = (struct fxt_tref){ .index = 1 };
	err |= fxt_writer__instant(w, 1003, &t, cat, name, NULL, 0);
	return err;
}

int main(int argc, char **argv)
{
	struct memsink m = { 0 };
	struct fxt_writer *w;
	uint64_t rec[16];
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	w = memsink_writer(&m, 64);
	if (!w)
		return 1;
	if (gen_full(w))
		return 1;
	err |= save(argv[1], "full.fxt", m.buf, m.len);
	err |= save(argv[1], "prologue.fxt", m.buf, 6 * 8);

	/* Records we never write but must decode. */
	m.len = 0;
	fxt_writer__reset_state(w);
	fxt_writer__prologue(w, 2, "other", 1000);
	rec[0] = 8 | (4ULL << 4) | (3ULL << 20) | (1ULL << 60);
	rec[1] = 5; rec[2] = 10; rec[3] = 11;		/* context switch */
	memsink_write(&m, rec, 32);
	rec[0] = 8 | (3ULL << 4) | (2ULL << 60);	/* wakeup */
	memsink_write(&m, rec, 24);
	rec[0] = 9 | (5ULL << 4) | (3ULL << 16);	/* log "abc" inline tid */
	rec[1] = 6; rec[2] = 1; rec[3] = 2; rec[4] = 0x636261;
	memsink_write(&m, rec, 40);
	rec[0] = 5 | (3ULL << 4) | (0x8001ULL << 16) | (1ULL << 32) |
		 (1ULL << 48);				/* blob "n" */
	rec[1] = 0x6e; rec[2] = 0x7a;
	memsink_write(&m, rec, 24);
	rec[0] = 11 | (2ULL << 4);			/* reserved type */
	memsink_write(&m, rec, 16);
	rec[0] = 4 | (6ULL << 4) | (1ULL << 20);	/* unknown arg type 12 */
	rec[1] = 7; rec[2] = 1; rec[3] = 2;
	rec[4] = 12 | (2ULL << 4) | (0x8001ULL << 16); rec[5] = 0x61;
	memsink_write(&m, rec, 48);
	err |= save(argv[1], "misc.fxt", m.buf, m.len);

	fxt_writer__free(w);
	memsink_free(&m);
	return err ? 1 : 0;
}
