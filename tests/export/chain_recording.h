/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chain_recording.h - what the test generators share for writing a
 * recording of tests/export/chain in fxtprof's conventions
 * (Documentation/fxt-mapping.md, user/fxt/fxt_profile.h): the program's
 * functions and build id read from its ELF, a writer onto a file, and
 * the records every recording of it has (samples, kernel objects, the
 * mapping of its text).  Test code: every failure prints a sentence and
 * exits 1.
 */
#ifndef FXTPROF_TESTS_CHAIN_RECORDING_H
#define FXTPROF_TESTS_CHAIN_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "fxt.h"

/* Where the generators pretend the PIE and the kernel were loaded. */
#define CHAIN_BASE	0x555555554000ULL
#define CHAIN_KTEXT	0xffffffff81000000ULL
#define CHAIN_KEND	0xffffffff82000000ULL

enum { CHAIN_MAIN, CHAIN_A, CHAIN_B, CHAIN_C, CHAIN_NFN };

struct chain_elf {
	uint64_t fn[CHAIN_NFN];		/* main, a, b, c: their st_value */
	uint64_t text_off, text_vaddr, text_size;	/* executable PT_LOAD */
	char build_id[41];
};

/* The name the generator prints before its error messages. */
extern const char *chain_prog;

void chain_die(const char *what, int err);
void chain_elf__read(const char *path, struct chain_elf *in);

struct fxt_arg chain_u32(const char *name, uint32_t v);
struct fxt_arg chain_u64(const char *name, uint64_t v);
struct fxt_arg chain_str(const char *name, const char *v);

/* A writer onto PATH with the prologue written; close flushes and frees. */
struct fxt_writer *chain_writer__open(const char *path);
void chain_writer__close(struct fxt_writer *w);

/* A CPU sample of tid in pid on cpu (mode "user", "kernel" or "idle"),
 * kframes of its n ips in the kernel, leaf first. */
void chain_sample(struct fxt_writer *w, uint64_t ts, uint32_t pid,
		  uint32_t tid, uint32_t cpu, const char *mode,
		  uint32_t kframes, const uint64_t *ips, size_t n);
void chain_kobj(struct fxt_writer *w, unsigned int type, uint64_t koid,
		const char *name, struct fxt_arg *a, unsigned int n);
/* The kernel image at CHAIN_KTEXT, with BUILD_ID if not NULL. */
void chain_kernel(struct fxt_writer *w, const char *build_id);
/* The chain program's text mapped at CHAIN_BASE in pid, from path. */
void chain_mapping(struct fxt_writer *w, const struct chain_elf *in,
		   uint32_t pid, const char *path);
/* The return address into caller fn, a few bytes in (frames above the leaf). */
static inline uint64_t chain_ret(const struct chain_elf *in, int fn)
{
	return CHAIN_BASE + in->fn[fn] + 9;
}

#endif
