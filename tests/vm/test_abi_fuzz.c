// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_abi_fuzz.c - a bounded random walk over everything userspace can do
 * to /dev/fxtprof: ioctls with well-formed and malformed arguments, mmap
 * and munmap of any offset, length and protection, read, write and poll,
 * close and reopen; in one process, and in two processes that race over
 * the same open file (one configures, starts and stops while the other
 * maps, polls and flushes).  The kernel must answer each with a result or
 * an errno, never a splat: the suite scans dmesg afterwards, on the
 * regular kernels and on the KASAN + lockdep one.  Then the device must
 * still work.  The seed is fixed, and printed, so a failure replays.
 *
 * Unwind tables (ABI 5) get their own walk: random and mutated rows fed
 * to FXTPROF_IOC_UNWIND_LOAD, and ranges of this process and of nobody
 * to FXTPROF_IOC_UNWIND_MAP, while the sampler walks this process's
 * threads, which spin, by whatever tables were taken, and copies their
 * stacks (FXTPROF_CFG_STACK_COPY, ABI 6); and tables dropped with
 * FXTPROF_IOC_UNWIND_UNLOAD (ABI 7), their ranges removed first or not.
 * The configure fuzz sets stack_copy_size and reserved3 too, and
 * FXTPROF_IOC_KSYM (ABI 8) is asked of addresses in and near the kernel's
 * text.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

#define FUZZ_SECONDS	8
#define FUZZ_MAX_OPS	200000
#define FUZZ_MAPS	16

struct fuzz {
	uint64_t rng;
	int fd;
	long page;
	void *map[FUZZ_MAPS];
	size_t maplen[FUZZ_MAPS];
	unsigned long ops, ok, failed;
	bool reopen;		/* may close and reopen the device */
	uint64_t ktext;		/* the kernel's _stext, for FXTPROF_IOC_KSYM */
};

/* xorshift64*: small, and the same sequence on every kernel. */
static uint64_t fuzz_rand(struct fuzz *f)
{
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545F4914F6CDD1Dull;
}

static uint64_t fuzz_below(struct fuzz *f, uint64_t n)
{
	return n ? fuzz_rand(f) % n : 0;
}

/* Mostly plausible values, sometimes anything. */
static uint64_t fuzz_u64(struct fuzz *f)
{
	static const uint64_t edge[] = {
		0, 1, 2, 7, 8, 4095, 4096, 4097, 16384, 65536, 1 << 20,
		2 << 20, 256 << 20, 1ull << 32, UINT64_MAX, INT64_MAX,
	};

	if (fuzz_below(f, 4))
		return edge[fuzz_below(f, sizeof(edge) / sizeof(edge[0]))];
	return fuzz_rand(f);
}

static void fuzz_count(struct fuzz *f, long ret)
{
	f->ops++;
	if (ret < 0)
		f->failed++;
	else
		f->ok++;
}

/* Offsets a row may have, and some it may not. */
static __s16 fuzz_offset(struct fuzz *f)
{
	static const __s16 edge[] = { 8, -8, 16, -16, 24, -24, 0, 4, -4,
				      32767, -32768 };

	if (fuzz_below(f, 4))
		return edge[fuzz_below(f, sizeof(edge) / sizeof(edge[0]))];
	return fuzz_rand(f);
}

static struct fxtprof_unwind_row fuzz_rows[256];
/* This program's text, from the linker. */
extern char __executable_start[], etext[];

/*
 * Rows that are mostly valid, with one field of one row now and then
 * made anything: the checker must refuse those with -EINVAL, never crash,
 * and the walk must survive every table it takes.  The pcs cover this
 * program's text, so that the walks of its spinning threads use them.
 */
static __u32 fuzz_unwind_rows(struct fuzz *f, __u32 nr)
{
	__u32 pc = (uintptr_t)__executable_start & 0xffffffff;
	__u32 span = (uintptr_t)(etext - __executable_start);

	for (__u32 i = 0; i < nr; i++) {
		struct fxtprof_unwind_row *r = &fuzz_rows[i];

		pc += 1 + fuzz_below(f, 2 * span / nr + 1);
		r->pc = pc;
		r->cfa_reg = fuzz_below(f, FXTPROF_UNWIND_CFA_MAX);
		r->flags = fuzz_below(f, 16);
		if (r->cfa_reg == FXTPROF_UNWIND_CFA_NONE)
			r->flags &= FXTPROF_UNWIND_ROW_NO_RULE;
		else
			r->flags &= ~FXTPROF_UNWIND_ROW_NO_RULE;
		r->cfa_offset = fuzz_offset(f);
		r->ra_offset = -8 * (1 + fuzz_below(f, 4));
		r->fp_offset = -8 * (1 + fuzz_below(f, 4));
	}
	/* A mutation: one field of one row, anything. */
	if (nr && fuzz_below(f, 2)) {
		struct fxtprof_unwind_row *r = &fuzz_rows[fuzz_below(f, nr)];

		switch (fuzz_below(f, 6)) {
		case 0: r->pc = fuzz_rand(f); break;
		case 1: r->cfa_reg = fuzz_rand(f); break;
		case 2: r->flags = fuzz_rand(f); break;
		case 3: r->cfa_offset = fuzz_offset(f); break;
		case 4: r->ra_offset = fuzz_offset(f); break;
		default: r->fp_offset = fuzz_offset(f); break;
		}
	}
	return pc;
}

static void fuzz_unwind_table(struct fuzz *f, struct fxtprof_unwind_table *t)
{
	__u32 nr = 1 + fuzz_below(f, sizeof(fuzz_rows) / sizeof(fuzz_rows[0]));
	__u32 last = fuzz_unwind_rows(f, nr);

	t->flags = fuzz_below(f, 16) ? 0 : fuzz_rand(f);
	t->rows_ptr = fuzz_below(f, 16) ? (uintptr_t)fuzz_rows : fuzz_u64(f);
	t->nr_rows = fuzz_below(f, 8) ? nr : fuzz_rand(f);
	t->pc_end = fuzz_below(f, 8) ? last + 1 + fuzz_below(f, 64) :
				       fuzz_rand(f);
	t->build_id_size = fuzz_below(f, 8) ? 20 : fuzz_rand(f);
	memset(t->reserved, 0, sizeof(t->reserved));
	if (!fuzz_below(f, 16))
		t->reserved[fuzz_below(f, 3)] = fuzz_rand(f);
	t->reserved2 = fuzz_below(f, 16) ? 0 : fuzz_rand(f);
	/* A few build ids, so that -EEXIST comes up. */
	memset(t->build_id, fuzz_below(f, 8), sizeof(t->build_id));
}

static void fuzz_unwind_map(struct fuzz *f, struct fxtprof_unwind_map *m)
{
	__u64 lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;

	m->pid = fuzz_below(f, 4) ? (__u32)getpid() : fuzz_rand(f);
	m->id = fuzz_below(f, 8) ? fuzz_below(f, 10) : fuzz_rand(f);
	m->reserved = fuzz_below(f, 16) ? 0 : fuzz_rand(f);
	m->start = fuzz_below(f, 4) ? lo + fuzz_below(f, hi - lo) : fuzz_u64(f);
	m->end = fuzz_below(f, 4) ? m->start + fuzz_below(f, hi - lo) :
				    fuzz_u64(f);
	/* Mostly so that pc - bias is the row's pc: a static program. */
	m->bias = fuzz_below(f, 4) ? 0 : fuzz_u64(f);
}

static void fuzz_ioctl(struct fuzz *f)
{
	static const unsigned long nr[] = {
		FXTPROF_IOC_GET_INFO, FXTPROF_IOC_CONFIGURE, FXTPROF_IOC_START,
		FXTPROF_IOC_STOP, FXTPROF_IOC_FLUSH, FXTPROF_IOC_GET_STATS,
		FXTPROF_IOC_ATTACH, FXTPROF_IOC_DETACH, FXTPROF_IOC_SYNC,
		FXTPROF_IOC_UNWIND_LOAD, FXTPROF_IOC_UNWIND_MAP,
		FXTPROF_IOC_UNWIND_UNLOAD, FXTPROF_IOC_KSYM,
	};
	union {
		struct fxtprof_info info;
		struct fxtprof_config cfg;
		struct fxtprof_flush flush;
		struct fxtprof_stats stats;
		struct fxtprof_attach attach;
		struct fxtprof_unwind_table table;
		struct fxtprof_unwind_map map;
		struct fxtprof_unwind_unload unload;
		struct fxtprof_ksym_query ksym;
		unsigned char raw[1024];
	} arg;
	static struct fxtprof_attach_ring rings[256];
	uint64_t mask = fuzz_u64(f);
	unsigned long req;
	void *p = &arg;
	size_t i;

	for (i = 0; i < sizeof(arg.raw); i++)
		arg.raw[i] = fuzz_below(f, 4) ? 0 : fuzz_rand(f);
	if (fuzz_below(f, 8))
		req = nr[fuzz_below(f, sizeof(nr) / sizeof(nr[0]))];
	else
		req = fuzz_rand(f);
	/* The size field: usually right, sometimes short, long or absurd. */
	switch (fuzz_below(f, 6)) {
	case 0: arg.cfg.size = fuzz_rand(f); break;
	case 1: arg.cfg.size = _IOC_SIZE(req) + 8 * fuzz_below(f, 8); break;
	default: arg.cfg.size = _IOC_SIZE(req); break;
	}
	if (req == FXTPROF_IOC_CONFIGURE && fuzz_below(f, 2)) {
		/* All the module takes, or anything. */
		arg.cfg.flags = fuzz_below(f, 2) ? FXTPROF_CFG_ALL : fuzz_rand(f);
		arg.cfg.freq_hz = fuzz_below(f, 2) ? 1000 : fuzz_rand(f);
		arg.cfg.ring_size = fuzz_below(f, 2) ? 1ull << (12 + fuzz_below(f, 10))
						     : fuzz_u64(f);
		arg.cfg.watermark = fuzz_below(f, 2) ? 0 : fuzz_u64(f);
		arg.cfg.cpumask_ptr = fuzz_below(f, 2) ? (uintptr_t)&mask : fuzz_u64(f);
		arg.cfg.cpumask_len = fuzz_below(f, 2) ? 8 * fuzz_below(f, 3)
						       : fuzz_rand(f);
		arg.cfg.reserved = fuzz_below(f, 8) ? 0 : fuzz_rand(f);
		/* Mostly the sizes a recorder asks for, with the flag on. */
		switch (fuzz_below(f, 4)) {
		case 0: arg.cfg.stack_copy_size = 0; break;
		case 1: arg.cfg.stack_copy_size = 8 * fuzz_below(f, 2049); break;
		case 2: arg.cfg.stack_copy_size = fuzz_rand(f); break;
		default: arg.cfg.stack_copy_size = 512; break;
		}
		arg.cfg.reserved3 = fuzz_below(f, 8) ? 0 : fuzz_rand(f);
	}
	if (req == FXTPROF_IOC_GET_STATS)
		arg.stats.cpu = fuzz_below(f, 4) ? fuzz_below(f, 4) : fuzz_rand(f);
	if (req == FXTPROF_IOC_UNWIND_LOAD && fuzz_below(f, 2))
		fuzz_unwind_table(f, &arg.table);
	if (req == FXTPROF_IOC_UNWIND_MAP && fuzz_below(f, 2))
		fuzz_unwind_map(f, &arg.map);
	if (req == FXTPROF_IOC_UNWIND_UNLOAD && fuzz_below(f, 2)) {
		arg.unload.id = fuzz_below(f, 8) ? fuzz_below(f, 10)
						 : fuzz_rand(f);
		arg.unload.reserved = fuzz_below(f, 16) ? 0 : fuzz_u64(f);
	}
	if (req == FXTPROF_IOC_KSYM && fuzz_below(f, 2)) {
		/* Mostly near a function, where the lookup has work to do. */
		arg.ksym.addr = fuzz_below(f, 4) ? f->ktext +
			fuzz_below(f, 1u << 24) : fuzz_u64(f);
		arg.ksym.flags = fuzz_below(f, 16) ? 0 : fuzz_rand(f);
	}
	/* Detach ends the session for good: now and then only. */
	if (req == FXTPROF_IOC_DETACH && fuzz_below(f, 16))
		req = FXTPROF_IOC_STOP;
	if (req == FXTPROF_IOC_ATTACH && fuzz_below(f, 2)) {
		struct fxtprof_info info = { .size = sizeof(info) };

		/* Mostly the session's own geometry and our own mappings. */
		ioctl(f->fd, FXTPROF_IOC_GET_INFO, &info);
		arg.attach.version = fuzz_below(f, 4) ? FXTPROF_ABI_VERSION
						      : fuzz_rand(f);
		arg.attach.ring_size = fuzz_below(f, 4) ? info.ring_size
							: fuzz_u64(f);
		arg.attach.mmap_stride = fuzz_below(f, 4) ? info.mmap_stride
							  : fuzz_u64(f);
		arg.attach.page_size = fuzz_below(f, 4) ? (uint32_t)f->page
							: (uint32_t)fuzz_rand(f);
		arg.attach.nr_rings = fuzz_below(f, 4) ? info.nr_cpus
						       : fuzz_rand(f);
		arg.attach.rings_ptr = fuzz_below(f, 8) ? (uintptr_t)rings
							: fuzz_u64(f);
		arg.attach.flags = fuzz_below(f, 8) ? 0 : fuzz_rand(f);
		arg.attach.reserved = fuzz_below(f, 8) ? 0 : fuzz_rand(f);
		for (i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
			unsigned int a = fuzz_below(f, FUZZ_MAPS);
			unsigned int b = fuzz_below(f, FUZZ_MAPS);

			rings[i].consumer_addr = (uintptr_t)f->map[a];
			rings[i].ctrl_addr = (uintptr_t)f->map[b];
			rings[i].ctrl_len = fuzz_below(f, 2) ? f->maplen[b]
							     : fuzz_u64(f);
		}
	}
	/* Now and then a pointer the kernel must not follow. */
	if (!fuzz_below(f, 16))
		p = (void *)(uintptr_t)fuzz_u64(f);
	fuzz_count(f, ioctl(f->fd, req, p));
}

static void fuzz_mmap(struct fuzz *f)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC,
	};
	unsigned int slot = fuzz_below(f, FUZZ_MAPS);
	size_t len = f->page * (1 + fuzz_below(f, 8));
	off_t off = f->page * fuzz_below(f, 64);
	int flags = fuzz_below(f, 8) ? MAP_SHARED : MAP_PRIVATE;
	int prot = prots[fuzz_below(f, sizeof(prots) / sizeof(prots[0]))];
	void *p;

	if (f->map[slot]) {
		fuzz_count(f, munmap(f->map[slot], f->maplen[slot]));
		f->map[slot] = NULL;
		return;
	}
	if (!fuzz_below(f, 8))
		len = fuzz_u64(f) & ~(size_t)(f->page - 1);
	if (!fuzz_below(f, 8))
		off = fuzz_u64(f) & ~(uint64_t)(f->page - 1) & INT64_MAX;
	p = mmap(NULL, len, prot, flags, f->fd, off);
	fuzz_count(f, p == MAP_FAILED ? -1 : 0);
	if (p != MAP_FAILED) {
		f->map[slot] = p;
		f->maplen[slot] = len;
		/* Reading what we were given must never fault. */
		if (prot & PROT_READ)
			(void)((volatile unsigned char *)p)[len - 1];
	}
}

static void fuzz_unmap_all(struct fuzz *f)
{
	unsigned int i;

	for (i = 0; i < FUZZ_MAPS; i++) {
		if (f->map[i])
			munmap(f->map[i], f->maplen[i]);
		f->map[i] = NULL;
	}
}

static void fuzz_other(struct fuzz *f)
{
	unsigned char buf[64] = { 0 };
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	unsigned int slot;

	switch (fuzz_below(f, 6)) {
	case 0:
		fuzz_count(f, read(f->fd, buf, fuzz_below(f, sizeof(buf) + 1)));
		break;
	case 1:
		fuzz_count(f, write(f->fd, buf, fuzz_below(f, sizeof(buf) + 1)));
		break;
	case 2:
		fuzz_count(f, poll(&pfd, 1, 0));
		break;
	case 3:
		fuzz_count(f, lseek(f->fd, fuzz_rand(f), SEEK_SET));
		break;
	case 4:
		slot = fuzz_below(f, FUZZ_MAPS);
		if (f->map[slot])
			fuzz_count(f, mprotect(f->map[slot], f->maplen[slot],
					       PROT_READ | PROT_WRITE));
		break;
	default:
		/*
		 * Close and reopen.  A mapping keeps the session, so the
		 * reopen is EBUSY until every mapping is gone: drop them
		 * now and then first.
		 */
		if (!f->reopen)
			break;
		close(f->fd);
		if (fuzz_below(f, 2))
			fuzz_unmap_all(f);
		f->fd = open("/dev/fxtprof", O_RDWR | O_CLOEXEC);
		fuzz_count(f, f->fd);
		break;
	}
}

/* The kernel's _stext, from /proc/kallsyms; 0 if it shows none. */
static uint64_t kernel_stext(void)
{
	FILE *fp = fopen("/proc/kallsyms", "re");
	unsigned long long addr = 0;
	char line[512], name[256], type;

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_stext"))
			break;
	if (fp)
		fclose(fp);
	return addr;
}

static void fuzz_run(struct fuzz *f, unsigned int seconds, unsigned int mix)
{
	time_t end = time(NULL) + seconds;

	if (!f->ktext)
		f->ktext = kernel_stext();

	while (f->ops < FUZZ_MAX_OPS && time(NULL) < end) {
		unsigned int what = fuzz_below(f, 16);

		if (f->fd < 0) {
			/* Only our own mappings can keep the device busy. */
			fuzz_unmap_all(f);
			f->fd = open("/dev/fxtprof", O_RDWR | O_CLOEXEC);
			if (f->fd < 0) {
				usleep(1000);
				continue;
			}
		}
		if (what < mix)
			fuzz_ioctl(f);
		else if (what < 13)
			fuzz_mmap(f);
		else
			fuzz_other(f);
	}
	fuzz_unmap_all(f);
	if (f->fd >= 0) {
		ioctl(f->fd, FXTPROF_IOC_STOP);
		close(f->fd);
	}
}

/* The device still configures, maps, records and stops. */
static int device_works(void)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 1000, 0);
	struct fxtprof_dev *dev;
	int ret;

	ret = fxtprof_dev__open(NULL, &dev);
	if (ret)
		return ret;
	ret = fxtprof_dev__configure(dev, &c);
	if (!ret)
		ret = fxtprof_dev__start(dev);
	if (!ret) {
		vm_sleep_ms(50);
		ret = fxtprof_dev__stop(dev);
	}
	fxtprof_dev__close(dev);
	return ret;
}

TEST(random_operations_one_process)
{
	struct fuzz f = { .rng = 0x6678747066757a7aull, .fd = -1,
			  .page = sysconf(_SC_PAGESIZE), .reopen = true };

	TH_LOG("seed 0x%llx", (unsigned long long)f.rng);
	fuzz_run(&f, FUZZ_SECONDS, 8);
	TH_LOG("%lu operations: %lu succeeded, %lu refused", f.ops, f.ok, f.failed);
	/* Too few operations would prove nothing. */
	EXPECT_LE(1000, f.ops);
	EXPECT_LT(0, f.ok);
	EXPECT_LT(0, f.failed);
	EXPECT_EQ(0, device_works());
}

/*
 * Two processes, one open file: the parent reconfigures, starts and stops
 * while the child maps, polls and flushes on the inherited descriptor.
 */
TEST(random_operations_two_processes)
{
	struct fuzz f = { .rng = 0x7261636532707263ull,
			  .page = sysconf(_SC_PAGESIZE) };
	int status = 0;
	pid_t child;

	f.fd = open("/dev/fxtprof", O_RDWR);
	ASSERT_LE(0, f.fd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		f.rng ^= 0x5a5a5a5a5a5a5a5aull;
		fuzz_run(&f, FUZZ_SECONDS, 3);	/* mostly mmap, poll, read */
		printf("# child: %lu operations\n", f.ops);
		fflush(stdout);
		_exit(f.ops >= 100 ? 0 : 2);
	}
	fuzz_run(&f, FUZZ_SECONDS, 14);		/* mostly ioctls */
	TH_LOG("parent: %lu operations", f.ops);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child status 0x%x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_LE(100, f.ops);
	EXPECT_EQ(0, device_works());
}

/*
 * Tables and ranges while the session samples this process's spinning
 * threads: loads and maps only, mostly well formed, with reconfigures now
 * and then (which free every table the walks used).
 */
TEST(unwind_tables_while_sampling)
{
	struct fuzz f = { .rng = 0x756e77696e64667aull,
			  .page = sysconf(_SC_PAGESIZE) };
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE |
					    FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_UNWIND |
					    FXTPROF_CFG_STACK_COPY, 2000,
					    1 << 16);
	union {
		struct fxtprof_unwind_table table;
		struct fxtprof_unwind_map map;
	} arg;
	unsigned long loaded = 0, mapped = 0, unloaded = 0;
	__u32 id;
	struct vm_spinners *spin;
	struct fxtprof_dev *dev;
	time_t end;

	TH_LOG("seed 0x%llx", (unsigned long long)f.rng);
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	f.fd = fxtprof_dev__fd(dev);
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	spin = vm_spinners_start(fxtprof_dev__info(dev)->nr_online);
	end = time(NULL) + FUZZ_SECONDS;
	while (f.ops < FUZZ_MAX_OPS && time(NULL) < end) {
		if (!fuzz_below(&f, 500)) {
			fxtprof_dev__stop(dev);
			c.unwind_memory = fuzz_below(&f, 2) ? 0 : 1 << 14;
			ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
			ASSERT_EQ(0, fxtprof_dev__start(dev));
		}
		memset(&arg, 0, sizeof(arg));
		if (!fuzz_below(&f, 4)) {
			/* Mostly a small id, its ranges here removed first. */
			id = fuzz_below(&f, 8) ? fuzz_below(&f, 10) : fuzz_rand(&f);
			if (fuzz_below(&f, 2)) {
				arg.map.size = sizeof(arg.map);
				arg.map.pid = (__u32)getpid();
				arg.map.start = 0;
				arg.map.end = ~0ull;
				fxtprof_dev__unwind_map(dev, &arg.map);
			}
			if (!fxtprof_dev__unwind_unload(dev, id))
				unloaded++;
		} else if (fuzz_below(&f, 2)) {
			fuzz_unwind_table(&f, &arg.table);
			if (!fxtprof_dev__unwind_load(dev, &arg.table))
				loaded++;
		} else {
			fuzz_unwind_map(&f, &arg.map);
			if (!fxtprof_dev__unwind_map(dev, &arg.map))
				mapped++;
		}
		f.ops++;
	}
	fxtprof_dev__stop(dev);
	vm_spinners_stop(spin);
	TH_LOG("%lu operations: %lu tables loaded, %lu ranges mapped, %lu tables unloaded",
	       f.ops, loaded, mapped, unloaded);
	EXPECT_LT(0, loaded);
	EXPECT_LT(0, mapped);
	EXPECT_LT(0, unloaded);
	fxtprof_dev__close(dev);
	EXPECT_EQ(0, device_works());
}

TEST_HARNESS_MAIN
