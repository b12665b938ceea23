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
#include <stdio.h>
#include <stdlib.h>

#include "chain_recording.h"
#include "fxt.h"
#include "fxt_profile.h"

#define T0		5000000000ULL
#define PERIOD		10000000ULL
#define BLOCK		50

int main(int argc, char **argv)
{
	struct chain_elf in = { 0 };
	struct fxt_writer *w;
	struct fxt_arg a[5];
	uint64_t ips[4], n, i, b;
	unsigned int cpu;
	int err;

	chain_prog = "push_testgen";
	if (argc != 5) {
		fprintf(stderr, "usage: push_testgen OUT.fxt BINARY SECONDS "
			"REALTIME_NS\n");
		return 2;
	}
	chain_elf__read(argv[2], &in);
	n = strtoull(argv[3], NULL, 10) * (1000000000ull / PERIOD);
	w = chain_writer__open(argv[1]);
	a[0] = chain_u64(FXT_PROFILE_ARG_BOOT_NS, T0);
	a[1] = chain_u64(FXT_PROFILE_ARG_REALTIME_NS,
			 strtoull(argv[4], NULL, 10));
	a[2] = chain_str(FXT_PROFILE_ARG_HOST, "board1");
	a[3] = chain_str(FXT_PROFILE_ARG_KERNEL_RELEASE, "6.1.0-push");
	a[4] = chain_str(FXT_PROFILE_ARG_ARCH, "aarch64");
	chain_kobj(w, FXT_KOBJ_CLOCK, 0, FXT_PROFILE_CLOCK_NAME, a, 5);
	chain_kernel(w, NULL);
	a[0] = chain_u32(FXT_PROFILE_ARG_SIZE, 0x100);
	chain_kobj(w, FXT_KOBJ_KSYM, CHAIN_KTEXT + 0x1000, "do_syscall_64",
		   a, 1);
	err = fxt_writer__process_name(w, 100, "chain", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 100, 100, "chain", 5);
	if (!err)
		err = fxt_writer__process_name(w, 200, "other", 5);
	if (!err)
		err = fxt_writer__thread_name(w, 200, 200, "other", 5);
	if (err)
		chain_die("names", err);
	chain_mapping(w, &in, 100, argv[2]);
	for (b = 0; b < n; b += BLOCK) {
		for (cpu = 0; cpu < 3; cpu++) {
			for (i = b; i < n && i < b + BLOCK; i++) {
				uint64_t ts = T0 + i * PERIOD + cpu;

				if (cpu == 0) {
					ips[0] = CHAIN_BASE + in.fn[CHAIN_C] + 8;
					ips[1] = chain_ret(&in, CHAIN_B);
					ips[2] = chain_ret(&in, CHAIN_A);
					ips[3] = chain_ret(&in, CHAIN_MAIN);
					chain_sample(w, ts, 100, 100, 0, "user",
						     0, ips, 4);
				} else if (cpu == 1) {
					ips[0] = CHAIN_KTEXT + 0x1000 + 0x20;
					chain_sample(w, ts, 200, 200, 1,
						     "kernel", 1, ips, 1);
				} else {
					ips[0] = CHAIN_KTEXT + 0x1000 + 0x40;
					chain_sample(w, ts, 0, 0, 2, "idle", 1,
						     ips, 1);
				}
			}
		}
	}
	chain_writer__close(w);
	return 0;
}
