// SPDX-License-Identifier: GPL-2.0-only
/*
 * export_testgen.c - helpers of tests/export/test_export.sh.
 *
 *   export_testgen gen OUT.fxt BINARY [N]  a recording of BINARY (chain.c),
 *       written with the FXT writer in fxtprof's conventions
 *       (Documentation/fxt-mapping.md, user/fxt/fxt_profile.h): its
 *       executable mapping with its build id, the kernel image and a few
 *       kernel symbols, and samples whose addresses are BINARY's own
 *       functions (read from its ELF symbol table):
 *         - 20 user samples of pid 100 tid 100 "chain" on CPU 0 in c,
 *           called from b, a, main;
 *         - 5 kernel samples of tid 101 "worker" on CPU 1, getpid's
 *           kernel path then b <- a <- main;
 *         - 3 idle samples (pid 0) on CPU 1 in default_idle;
 *         - 1 user sample of pid 100 at an address outside every mapping.
 *       Samples are 1 ms apart per CPU: a 1000 Hz recording.  With N,
 *       N times as many user samples in c (for timing the exporters).
 *   export_testgen gen-long OUT.fxt      one kernel sample of 200 frames,
 *       each a distinct kernel symbol with a 300-byte name: its interned
 *       names fill more than one Perfetto packet.
 *   export_testgen blobs IN.fxt OUT.pb   the payloads of IN's blob records
 *       of type 3, concatenated: a Perfetto Trace.  Prints the number of
 *       blobs and the largest payload.
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
#include "fxt_reader.h"

#define BASE		0x555555554000ULL
#define KTEXT		0xffffffff81000000ULL
#define KEND		0xffffffff82000000ULL
#define T0		1000000000ULL
#define PERIOD		1000000ULL

static FILE *out;

static int sink(void *ctx, const void *rec, size_t len)
{
	(void)ctx;
	return fwrite(rec, 1, len, out) == len ? 0 : -EIO;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "export_testgen: %s: %s\n", what, strerror(-err));
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
		   uint32_t tid, uint32_t cpu, const char *mode,
		   uint32_t kframes, const uint64_t *ips, size_t n)
{
	struct fxt_arg args[3] = { u32arg("cpu", cpu), strarg("mode", mode),
				   u32arg("kframes", kframes) };
	struct fxt_tref t = fxt_tref_inline(pid, tid);
	int err;

	err = fxt_writer__instant(w, ts, &t, fxt_sref_inline("cpu", 3),
				  fxt_sref_inline("sample", 6), args, 3);
	if (!err && n)
		err = fxt_writer__stack_sample(w, ts, pid, tid, ips, n);
	if (err)
		die("sample", err);
}

static void ksym(struct fxt_writer *w, uint64_t addr, const char *name,
		 uint32_t size)
{
	struct fxt_arg a = u32arg(FXT_PROFILE_ARG_SIZE, size);
	int err = fxt_writer__kobj(w, FXT_KOBJ_KSYM, addr,
				   fxt_sref_inline(name, strlen(name)), &a, 1);

	if (err)
		die("ksym", err);
}

static struct fxt_writer *open_writer(const char *path)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink };
	struct fxt_writer *w;
	struct fxt_arg k[3];
	int err;

	out = fopen(path, "w");
	if (!out)
		die(path, -errno);
	err = fxt_writer__new(&o, &w);
	if (!err)
		err = fxt_writer__prologue(w, 1, "fxtprof", 1000000000ULL);
	if (err)
		die("prologue", err);
	k[0] = u64arg(FXT_PROFILE_ARG_END, KEND);
	k[1] = strarg(FXT_PROFILE_ARG_BUILD_ID,
		      "00112233445566778899aabbccddeeff00112233");
	k[2] = (struct fxt_arg){ .name = fxt_sref_inline("kernel", 6),
				 .type = FXT_ARG_BOOL, .v.b = true };
	err = fxt_writer__kobj(w, FXT_KOBJ_KMOD, KTEXT,
			       fxt_sref_inline(FXT_PROFILE_KERNEL_NAME,
					       strlen(FXT_PROFILE_KERNEL_NAME)),
			       k, 3);
	if (err)
		die("kmod", err);
	return w;
}

static void close_writer(struct fxt_writer *w)
{
	fxt_writer__free(w);
	if (fclose(out))
		die("close", -errno);
}

/*
 * gen-clock: a clock object (fxt_profile.h) saying that the boot time one
 * second before the first sample was wall time clock_realtime_ns.
 */
static uint64_t clock_realtime_ns;

static void wall_clock(struct fxt_writer *w)
{
	static const char name[] = FXT_PROFILE_CLOCK_NAME;
	struct fxt_arg a[2] = {
		u64arg(FXT_PROFILE_ARG_BOOT_NS, T0 - 1000000000ull),
		u64arg(FXT_PROFILE_ARG_REALTIME_NS, clock_realtime_ns),
	};
	int err = fxt_writer__kobj(w, FXT_KOBJ_CLOCK, 0,
				   fxt_sref_inline(name, sizeof(name) - 1), a, 2);

	if (err)
		die("clock", err);
}

static int gen(const char *path, const char *binary, int repeat)
{
	struct elfinfo in = { 0 };
	struct fxt_writer *w;
	struct fxt_arg m[7];
	uint64_t start, end, ips[6], ts;
	int err;

	read_elf(binary, &in);
	w = open_writer(path);
	if (clock_realtime_ns)
		wall_clock(w);
	ksym(w, KTEXT + 0x1000, "do_syscall_64", 0x100);
	ksym(w, KTEXT + 0x2000, "__x64_sys_getpid", 0x80);
	ksym(w, KTEXT + 0x3000, "default_idle", 0x40);
	err = fxt_writer__process_name(w, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 101, "worker", 6);
	if (err)
		die("names", err);
	/* A PIE loaded at BASE: its executable PT_LOAD, page aligned. */
	start = BASE + (in.text_vaddr & ~0xfffULL);
	end = (BASE + in.text_vaddr + in.text_size + 0xfff) & ~0xfffULL;
	m[0] = u32arg(FXT_PROFILE_ARG_PID, 100);
	m[1] = u32arg(FXT_PROFILE_ARG_TID, 100);
	m[2] = u64arg(FXT_PROFILE_ARG_START, start);
	m[3] = u64arg(FXT_PROFILE_ARG_END, end);
	m[4] = u64arg(FXT_PROFILE_ARG_PGOFF, in.text_off & ~0xfffULL);
	m[5] = u64arg(FXT_PROFILE_ARG_TIME, 0);
	m[6] = strarg(FXT_PROFILE_ARG_BUILD_ID, in.build_id);
	err = fxt_writer__kobj(w, FXT_KOBJ_MAPPING, 1,
			       fxt_sref_inline(binary, strlen(binary)), m, 7);
	if (err)
		die("mapping", err);
	/* Leaf first; return addresses a few bytes into their callers. */
	for (int i = 0; i < 20 * repeat; i++) {
		ts = T0 + (uint64_t)i * PERIOD;
		ips[0] = BASE + in.fn[3] + 8 + (uint64_t)(i % 4);
		ips[1] = BASE + in.fn[2] + 9;
		ips[2] = BASE + in.fn[1] + 9;
		ips[3] = BASE + in.fn[0] + 9;
		sample(w, ts, 100, 100, 0, "user", 0, ips, 4);
	}
	for (int i = 0; i < 5; i++) {
		ts = T0 + (uint64_t)i * PERIOD;
		ips[0] = KTEXT + 0x2000 + 0x10;
		ips[1] = KTEXT + 0x1000 + 0x20;
		ips[2] = BASE + in.fn[2] + 9;
		ips[3] = BASE + in.fn[1] + 9;
		ips[4] = BASE + in.fn[0] + 9;
		sample(w, ts, 100, 101, 1, "kernel", 2, ips, 5);
	}
	for (int i = 5; i < 8; i++) {
		ips[0] = KTEXT + 0x3000 + 4;
		sample(w, T0 + (uint64_t)i * PERIOD, 0, 0, 1, "idle", 1, ips, 1);
	}
	ips[0] = 0x1234;
	sample(w, T0 + 20 * (uint64_t)repeat * PERIOD, 100, 100, 0, "user", 0,
	       ips, 1);
	close_writer(w);
	return 0;
}

static int gen_long(const char *path)
{
	struct fxt_writer *w = open_writer(path);
	uint64_t ips[200];
	char name[301];

	for (int i = 0; i < 200; i++) {
		memset(name, 'f', 300);
		snprintf(name, sizeof(name), "long_function_%03d_", i);
		name[strlen(name)] = 'x';
		name[300] = 0;
		ksym(w, KTEXT + 0x10000 + (uint64_t)i * 0x100, name, 0x100);
		ips[i] = KTEXT + 0x10000 + (uint64_t)i * 0x100 + 8;
	}
	sample(w, T0, 100, 100, 0, "kernel", 200, ips, 200);
	close_writer(w);
	return 0;
}

static int blobs(const char *in, const char *outpath)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	struct fxt_reader *r;
	uint32_t n = 0, max = 0;
	char buf[65536];
	FILE *f = fopen(in, "r"), *o = fopen(outpath, "w");
	size_t len;
	int ret;

	if (!f || !o || !rec || fxt_reader__new(FXT_READER_LENIENT, &r))
		die(in, -ENOENT);
	while ((len = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (fxt_reader__feed(r, buf, len))
			die("feed", -ENOMEM);
		while ((ret = fxt_reader__next(r, rec)) == 1) {
			if (rec->type != FXT_REC_BLOB ||
			    rec->blob.blob_type != 3)
				continue;
			fwrite(rec->blob.data, 1, rec->blob.len, o);
			n++;
			if (rec->blob.len > max)
				max = rec->blob.len;
		}
		if (ret < 0)
			die(fxt_reader__error(r)->msg, ret);
	}
	printf("blobs %u max %u\n", n, max);
	fclose(f);
	fclose(o);
	fxt_reader__free(r);
	free(rec);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "gen"))
		return gen(argv[2], argv[3], argc == 5 ? atoi(argv[4]) : 1);
	if (argc == 5 && !strcmp(argv[1], "gen-clock")) {
		clock_realtime_ns = strtoull(argv[4], NULL, 10);
		return gen(argv[2], argv[3], 1);
	}
	if (argc == 3 && !strcmp(argv[1], "gen-long"))
		return gen_long(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "blobs"))
		return blobs(argv[2], argv[3]);
	fprintf(stderr, "usage: export_testgen gen OUT BINARY [N] | "
		"gen-clock OUT BINARY REALTIME_NS | gen-long OUT | "
		"blobs IN OUT\n");
	return 2;
}
