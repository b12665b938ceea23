// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain_recording.c - writing recordings of tests/export/chain, for the
 * test generators (export_testgen, push_testgen): see chain_recording.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain_recording.h"
#include "fxt_profile.h"

const char *chain_prog = "testgen";
static FILE *out;

void chain_die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", chain_prog, what, strerror(-err));
	exit(1);
}

static void read_symbols(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			 struct chain_elf *in)
{
	static const char *names[CHAIN_NFN] = { "main", "a", "b", "c" };
	Elf_Data *d = elf_getdata(scn, NULL);

	for (size_t i = 0; d && i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Sym s;
		const char *n;

		if (!gelf_getsym(d, (int)i, &s))
			continue;
		n = elf_strptr(e, sh->sh_link, s.st_name);
		for (int k = 0; k < CHAIN_NFN; k++)
			if (n && !strcmp(n, names[k]) &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC)
				in->fn[k] = s.st_value;
	}
}

static void read_build_id(Elf_Scn *scn, struct chain_elf *in)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, no, dof;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &no, &dof))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 20)
			continue;
		for (unsigned int k = 0; k < nh.n_descsz; k++)
			sprintf(in->build_id + 2 * k, "%02x",
				((uint8_t *)d->d_buf)[dof + k]);
	}
}

void chain_elf__read(const char *path, struct chain_elf *in)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	Elf *e;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		chain_die(path, -ENOENT);
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			in->text_off = ph.p_offset;
			in->text_vaddr = ph.p_vaddr;
			in->text_size = ph.p_filesz;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			read_symbols(e, scn, &sh, in);
		else if (sh.sh_type == SHT_NOTE)
			read_build_id(scn, in);
	}
	for (int k = 0; k < CHAIN_NFN; k++)
		if (!in->fn[k])
			chain_die("a function of the chain", -ENOENT);
	elf_end(e);
	close(fd);
}

struct fxt_arg chain_u32(const char *name, uint32_t v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_UINT32 };

	a.v.u32 = v;
	return a;
}

struct fxt_arg chain_u64(const char *name, uint64_t v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

struct fxt_arg chain_str(const char *name, const char *v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_STRING };

	a.v.str = fxt_sref_inline(v, strlen(v));
	return a;
}

static int sink(void *ctx, const void *rec, size_t len)
{
	(void)ctx;
	return fwrite(rec, 1, len, out) == len ? 0 : -EIO;
}

struct fxt_writer *chain_writer__open(const char *path)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink };
	struct fxt_writer *w;
	int err;

	out = fopen(path, "w");
	if (!out)
		chain_die(path, -errno);
	err = fxt_writer__new(&o, &w);
	if (!err)
		err = fxt_writer__prologue(w, 1, "fxtprof", 1000000000ULL);
	if (err)
		chain_die("prologue", err);
	return w;
}

void chain_writer__close(struct fxt_writer *w)
{
	fxt_writer__free(w);
	if (fclose(out))
		chain_die("close", -errno);
}

void chain_sample(struct fxt_writer *w, uint64_t ts, uint32_t pid,
		  uint32_t tid, uint32_t cpu, const char *mode,
		  uint32_t kframes, const uint64_t *ips, size_t n)
{
	struct fxt_arg args[3] = { chain_u32("cpu", cpu),
				   chain_str("mode", mode),
				   chain_u32("kframes", kframes) };
	struct fxt_tref t = fxt_tref_inline(pid, tid);
	int err;

	err = fxt_writer__instant(w, ts, &t, fxt_sref_inline("cpu", 3),
				  fxt_sref_inline("sample", 6), args, 3);
	if (!err && n)
		err = fxt_writer__stack_sample(w, ts, pid, tid, ips, n);
	if (err)
		chain_die("sample", err);
}

void chain_kobj(struct fxt_writer *w, unsigned int type, uint64_t koid,
		const char *name, struct fxt_arg *a, unsigned int n)
{
	int err = fxt_writer__kobj(w, type, koid,
				   fxt_sref_inline(name, strlen(name)), a, n);

	if (err)
		chain_die("kernel object", err);
}

void chain_kernel(struct fxt_writer *w, const char *build_id)
{
	struct fxt_arg k[3];
	unsigned int n = 0;

	k[n++] = chain_u64(FXT_PROFILE_ARG_END, CHAIN_KEND);
	if (build_id)
		k[n++] = chain_str(FXT_PROFILE_ARG_BUILD_ID, build_id);
	k[n++] = (struct fxt_arg){ .name = fxt_sref_inline("kernel", 6),
				   .type = FXT_ARG_BOOL, .v.b = true };
	chain_kobj(w, FXT_KOBJ_KMOD, CHAIN_KTEXT, FXT_PROFILE_KERNEL_NAME, k, n);
}

void chain_mapping(struct fxt_writer *w, const struct chain_elf *in,
		   uint32_t pid, const char *path)
{
	/* A PIE loaded at CHAIN_BASE: its executable PT_LOAD, page aligned. */
	uint64_t start = CHAIN_BASE + (in->text_vaddr & ~0xfffULL);
	uint64_t end = (CHAIN_BASE + in->text_vaddr + in->text_size + 0xfff) &
		       ~0xfffULL;
	struct fxt_arg m[7] = {
		chain_u32(FXT_PROFILE_ARG_PID, pid),
		chain_u32(FXT_PROFILE_ARG_TID, pid),
		chain_u64(FXT_PROFILE_ARG_START, start),
		chain_u64(FXT_PROFILE_ARG_END, end),
		chain_u64(FXT_PROFILE_ARG_PGOFF, in->text_off & ~0xfffULL),
		chain_u64(FXT_PROFILE_ARG_TIME, 0),
		chain_str(FXT_PROFILE_ARG_BUILD_ID, in->build_id),
	};

	chain_kobj(w, FXT_KOBJ_MAPPING, 1, path, m, 7);
}
