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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_recording.h"
#include "fxt.h"
#include "fxt_profile.h"
#include "fxt_reader.h"

#define T0		1000000000ULL
#define PERIOD		1000000ULL

static void ksym(struct fxt_writer *w, uint64_t addr, const char *name,
		 uint32_t size)
{
	struct fxt_arg a = chain_u32(FXT_PROFILE_ARG_SIZE, size);

	chain_kobj(w, FXT_KOBJ_KSYM, addr, name, &a, 1);
}

static struct fxt_writer *open_writer(const char *path)
{
	struct fxt_writer *w = chain_writer__open(path);

	chain_kernel(w, "00112233445566778899aabbccddeeff00112233");
	return w;
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
		chain_u64(FXT_PROFILE_ARG_BOOT_NS, T0 - 1000000000ull),
		chain_u64(FXT_PROFILE_ARG_REALTIME_NS, clock_realtime_ns),
	};

	chain_kobj(w, FXT_KOBJ_CLOCK, 0, name, a, 2);
}

static int gen(const char *path, const char *binary, int repeat)
{
	struct chain_elf in = { 0 };
	struct fxt_writer *w;
	uint64_t ips[6], ts;
	int err;

	chain_elf__read(binary, &in);
	w = open_writer(path);
	if (clock_realtime_ns)
		wall_clock(w);
	ksym(w, CHAIN_KTEXT + 0x1000, "do_syscall_64", 0x100);
	ksym(w, CHAIN_KTEXT + 0x2000, "__x64_sys_getpid", 0x80);
	ksym(w, CHAIN_KTEXT + 0x3000, "default_idle", 0x40);
	err = fxt_writer__process_name(w, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 101, "worker", 6);
	if (err)
		chain_die("names", err);
	chain_mapping(w, &in, 100, binary);
	/* Leaf first; return addresses a few bytes into their callers. */
	for (int i = 0; i < 20 * repeat; i++) {
		ts = T0 + (uint64_t)i * PERIOD;
		ips[0] = CHAIN_BASE + in.fn[CHAIN_C] + 8 + (uint64_t)(i % 4);
		ips[1] = chain_ret(&in, CHAIN_B);
		ips[2] = chain_ret(&in, CHAIN_A);
		ips[3] = chain_ret(&in, CHAIN_MAIN);
		chain_sample(w, ts, 100, 100, 0, "user", 0, ips, 4);
	}
	for (int i = 0; i < 5; i++) {
		ts = T0 + (uint64_t)i * PERIOD;
		ips[0] = CHAIN_KTEXT + 0x2000 + 0x10;
		ips[1] = CHAIN_KTEXT + 0x1000 + 0x20;
		ips[2] = chain_ret(&in, CHAIN_B);
		ips[3] = chain_ret(&in, CHAIN_A);
		ips[4] = chain_ret(&in, CHAIN_MAIN);
		chain_sample(w, ts, 100, 101, 1, "kernel", 2, ips, 5);
	}
	for (int i = 5; i < 8; i++) {
		ips[0] = CHAIN_KTEXT + 0x3000 + 4;
		chain_sample(w, T0 + (uint64_t)i * PERIOD, 0, 0, 1, "idle", 1,
			     ips, 1);
	}
	ips[0] = 0x1234;
	chain_sample(w, T0 + 20 * (uint64_t)repeat * PERIOD, 100, 100, 0,
		     "user", 0, ips, 1);
	chain_writer__close(w);
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
		ksym(w, CHAIN_KTEXT + 0x10000 + (uint64_t)i * 0x100, name,
		     0x100);
		ips[i] = CHAIN_KTEXT + 0x10000 + (uint64_t)i * 0x100 + 8;
	}
	chain_sample(w, T0, 100, 100, 0, "kernel", 200, ips, 200);
	chain_writer__close(w);
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
		chain_die(in, -ENOENT);
	while ((len = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (fxt_reader__feed(r, buf, len))
			chain_die("feed", -ENOMEM);
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
			chain_die(fxt_reader__error(r)->msg, ret);
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
	chain_prog = "export_testgen";
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
