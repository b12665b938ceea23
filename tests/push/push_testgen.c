// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_testgen.c - the recordings of tests/push/test_push.sh.
 *
 *   push_testgen OUT.fxt BINARY SECONDS REALTIME_NS
 *
 * SECONDS of a 100 Hz recording of BINARY (tests/export/chain.c), written
 * with the FXT writer in fxtprof's conventions (fxt-mapping.md): the
 * clock object says that boot time T0, the first sample's, was wall time
 * REALTIME_NS, on machine "board1", kernel "6.1.0-push", arch "aarch64";
 * BINARY's executable mapping with its build id, the kernel image and a
 * kernel symbol; then every 10 ms:
 *   - a user sample of pid 100 "chain" on CPU 0 in c <- b <- a <- main;
 *   - a kernel sample of pid 200 "other" on CPU 1 in do_syscall_64;
 *   - an idle sample (pid 0) on CPU 2, which no series shows.
 * The CPUs' samples are written in blocks of 50, CPU after CPU, as the
 * recorder drains its rings: not sorted by time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_profile.h"

#define BASE		0x555555554000ULL
#define KTEXT		0xffffffff81000000ULL
#define KEND		0xffffffff82000000ULL
#define T0		5000000000ULL
#define PERIOD		10000000ULL
#define BLOCK		50

static FILE *out;

static int sink(void *ctx, const void *rec, size_t len)
{
	(void)ctx;
	return fwrite(rec, 1, len, out) == len ? 0 : -EIO;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "push_testgen: %s: %s\n", what, strerror(-err));
	exit(1);
}

struct elfinfo {
	uint64_t fn[4];			/* main, a, b, c */
	uint64_t text_off, text_vaddr, text_size;
	char build_id[41];
};

static void read_elf(const char *path, struct elfinfo *in)
{
	static const char *names[4] = { "main", "a", "b", "c" };
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t nph;
	Elf *e;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		die(path, -ENOENT);
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		gelf_getphdr(e, (int)i, &ph);
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			in->text_off = ph.p_offset;
			in->text_vaddr = ph.p_vaddr;
			in->text_size = ph.p_filesz;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		d = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *n;

				gelf_getsym(d, (int)i, &s);
				n = elf_strptr(e, sh.sh_link, s.st_name);
				for (int k = 0; k < 4; k++)
					if (n && !strcmp(n, names[k]) &&
					    GELF_ST_TYPE(s.st_info) == STT_FUNC)
						in->fn[k] = s.st_value;
			}
		} else if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t off = 0, no, dof;

			while ((off = gelf_getnote(d, off, &nh, &no, &dof))) {
				if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 20)
					continue;
				for (unsigned int k = 0; k < nh.n_descsz; k++)
					sprintf(in->build_id + 2 * k, "%02x",
						((uint8_t *)d->d_buf)[dof + k]);
			}
		}
	}
	for (int k = 0; k < 4; k++)
		if (!in->fn[k])
			die(names[k], -ENOENT);
	elf_end(e);
	close(fd);
}

static struct fxt_arg u32arg(const char *name, uint32_t v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_UINT32 };

	a.v.u32 = v;
	return a;
}

static struct fxt_arg u64arg(const char *name, uint64_t v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

static struct fxt_arg strarg(const char *name, const char *v)
{
	struct fxt_arg a = { .name = fxt_sref_inline(name, strlen(name)),
			     .type = FXT_ARG_STRING };

	a.v.str = fxt_sref_inline(v, strlen(v));
	return a;
}

static void sample(struct fxt_writer *w, uint64_t ts, uint32_t pid,
		   uint32_t cpu, const char *mode, uint32_t kframes,
		   const uint64_t *ips, size_t n)
{
	struct fxt_arg args[3] = { u32arg("cpu", cpu), strarg("mode", mode),
				   u32arg("kframes", kframes) };
	struct fxt_tref t = fxt_tref_inline(pid, pid);
	int err;

	err = fxt_writer__instant(w, ts, &t, fxt_sref_inline("cpu", 3),
				  fxt_sref_inline("sample", 6), args, 3);
	if (!err && n)
		err = fxt_writer__stack_sample(w, ts, pid, pid, ips, n);
	if (err)
		die("sample", err);
}

static void kobj(struct fxt_writer *w, unsigned int type, uint64_t koid,
		 const char *name, struct fxt_arg *a, unsigned int n)
{
	int err = fxt_writer__kobj(w, type, koid,
				   fxt_sref_inline(name, strlen(name)), a, n);

	if (err)
		die("kernel object", err);
}

int main(int argc, char **argv)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink };
	struct elfinfo in = { 0 };
	struct fxt_writer *w;
	struct fxt_arg a[7];
	uint64_t start, end, ips[4], n, i, b;
	unsigned int cpu;
	int err;

	if (argc != 5) {
		fprintf(stderr, "usage: push_testgen OUT.fxt BINARY SECONDS "
			"REALTIME_NS\n");
		return 2;
	}
	read_elf(argv[2], &in);
	n = strtoull(argv[3], NULL, 10) * (1000000000ull / PERIOD);
	out = fopen(argv[1], "w");
	if (!out)
		die(argv[1], -errno);
	err = fxt_writer__new(&o, &w);
	if (!err)
		err = fxt_writer__prologue(w, 1, "fxtprof", 1000000000ULL);
	if (err)
		die("prologue", err);
	a[0] = u64arg(FXT_PROFILE_ARG_BOOT_NS, T0);
	a[1] = u64arg(FXT_PROFILE_ARG_REALTIME_NS,
		      strtoull(argv[4], NULL, 10));
	a[2] = strarg(FXT_PROFILE_ARG_HOST, "board1");
	a[3] = strarg(FXT_PROFILE_ARG_KERNEL_RELEASE, "6.1.0-push");
	a[4] = strarg(FXT_PROFILE_ARG_ARCH, "aarch64");
	kobj(w, FXT_KOBJ_CLOCK, 0, FXT_PROFILE_CLOCK_NAME, a, 5);
	a[0] = u64arg(FXT_PROFILE_ARG_END, KEND);
	a[1] = (struct fxt_arg){ .name = fxt_sref_inline("kernel", 6),
				 .type = FXT_ARG_BOOL, .v.b = true };
	kobj(w, FXT_KOBJ_KMOD, KTEXT, FXT_PROFILE_KERNEL_NAME, a, 2);
	a[0] = u32arg(FXT_PROFILE_ARG_SIZE, 0x100);
	kobj(w, FXT_KOBJ_KSYM, KTEXT + 0x1000, "do_syscall_64", a, 1);
	err = fxt_writer__process_name(w, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 100, "chain", 5);
	if (!err)
		err = fxt_writer__process_name(w, 200, "other", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 200, 200, "other", 5);
	if (err)
		die("names", err);
	start = BASE + (in.text_vaddr & ~0xfffULL);
	end = (BASE + in.text_vaddr + in.text_size + 0xfff) & ~0xfffULL;
	a[0] = u32arg(FXT_PROFILE_ARG_PID, 100);
	a[1] = u32arg(FXT_PROFILE_ARG_TID, 100);
	a[2] = u64arg(FXT_PROFILE_ARG_START, start);
	a[3] = u64arg(FXT_PROFILE_ARG_END, end);
	a[4] = u64arg(FXT_PROFILE_ARG_PGOFF, in.text_off & ~0xfffULL);
	a[5] = u64arg(FXT_PROFILE_ARG_TIME, 0);
	a[6] = strarg(FXT_PROFILE_ARG_BUILD_ID, in.build_id);
	kobj(w, FXT_KOBJ_MAPPING, 1, argv[2], a, 7);
	for (b = 0; b < n; b += BLOCK) {
		for (cpu = 0; cpu < 3; cpu++) {
			for (i = b; i < n && i < b + BLOCK; i++) {
				uint64_t ts = T0 + i * PERIOD + cpu;

				if (cpu == 0) {
					ips[0] = BASE + in.fn[3] + 8;
					ips[1] = BASE + in.fn[2] + 9;
					ips[2] = BASE + in.fn[1] + 9;
					ips[3] = BASE + in.fn[0] + 9;
					sample(w, ts, 100, 0, "user", 0, ips, 4);
				} else if (cpu == 1) {
					ips[0] = KTEXT + 0x1000 + 0x20;
					sample(w, ts, 200, 1, "kernel", 1, ips, 1);
				} else {
					ips[0] = KTEXT + 0x1000 + 0x40;
					sample(w, ts, 0, 2, "idle", 1, ips, 1);
				}
			}
		}
	}
	fxt_writer__free(w);
	if (fclose(out))
		die("close", -errno);
	return 0;
}
