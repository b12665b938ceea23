// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_source.c - see bpf_source.h.
 *
 * libbpf loads the skeleton; the ring buffers, one per possible CPU, are
 * created here and put in the object's array of maps before the load.
 * They are consumed by bpf_ring.c, not by libbpf's ring_buffer, which has
 * no validation hook: their pages are mapped here as the kernel lays them
 * out (kernel/bpf/ringbuf.c), the consumer page RW and the producer page
 * plus the data (twice) RO.  Records leave only after
 * fxtprof_rec__validate(), as on the module path.  One epoll fd holds
 * every ring's fd, so the reader's io_uring loop still polls one fd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_source.h"
#include "bpf_ring.h"
#include "bpf_unwind.h"
#include "fxtprof_bpf.h"
#include "fxtprof.skel.h"
#include "transport/clock.h"

#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define CPU_ONLINE	"/sys/devices/system/cpu/online"
#define MAX_RATE_FILE	"/proc/sys/kernel/perf_event_max_sample_rate"
#define PARANOID_FILE	"/proc/sys/kernel/perf_event_paranoid"

/* How long a drain after stop waits for a record still being written. */
#define BUSY_WAIT_NS	20000000ull
#define HOTPLUG_CHECK_NS 1000000000ull

#define CPU_WORDS	(FXTPROF_BPF_MAX_CPUS / 64)

struct cpu_event {
	int fd;			/* perf event, -1 if none */
	struct bpf_link *link;	/* owns fd once attached */
	bool online;
	uint64_t count;		/* cpu-clock ns at the last hotplug check */
};

struct cpu_ring {
	int fd;			/* the BPF_MAP_TYPE_RINGBUF, -1 if none */
	void *cons_map, *prod_map;	/* RW consumer page; RO rest */
	struct bpf_ring ring;
};

/* The tracepoint programs: the four task ones, then sched.switch's three. */
#define NR_TP_PROGS	8

struct bpf_source_impl {
	struct fxtprof_bpf *skel;
	struct fxtprof_config cfg;
	const char *btf_path;
	unsigned int nr_cpus;		/* possible CPUs */
	uint64_t sample_mask[CPU_WORDS];	/* -C, all if none given */

	/* the ring buffers, one per possible CPU, and the fd polling them */
	struct cpu_ring *rings;
	int epoll_fd;
	size_t page;
	uint64_t rb_size;		/* data bytes of each ring */
	bool mapped;

	/* LOST records already handed on, per CPU */
	uint64_t *rep_records, *rep_bytes, *rep_last_ns;

	struct cpu_event *ev;
	struct bpf_link *tp_links[NR_TP_PROGS];	/* by tp_progs() order */
	bool running, stopped;
	uint64_t last_hotplug_ns;

	/* the kernel's release, for what needs more than 5.8 */
	unsigned int kernel_major, kernel_minor;
	/* unwind tables (FXTPROF_CFG_UNWIND), once loaded */
	struct bpf_unwind_sizes unwind_sizes;
	struct bpf_unwind unwind;
	bool unwind_ready;
};

static int fail(struct bpf_source *src, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int load_error(struct bpf_source *src, int err);

static int fail(struct bpf_source *src, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->msg, sizeof(src->msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *bpf_source__error(const struct bpf_source *src)
{
	return src->msg;
}

/*
 * libbpf's log (the verifier's too) only with FXTPROF_BPF_DEBUG=1: its
 * warnings repeat what our errors say, in terms the user cannot act on.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	static int verbose = -1;

	(void)level;
	if (verbose < 0) {
		const char *v = getenv("FXTPROF_BPF_DEBUG");

		verbose = v && *v && strcmp(v, "0");
	}
	return verbose ? vfprintf(stderr, fmt, ap) : 0;
}

static long read_long_file(const char *path, long dflt)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* Parse a sysfs CPU list ("0-3,5") into @mask; -errno. */
static int read_cpu_list(const char *path, uint64_t *mask)
{
	char buf[4096], *s, *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(mask, 0, CPU_WORDS * sizeof(*mask));
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	for (s = buf; *s && *s != '\n';) {
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (; a <= b && a < FXTPROF_BPF_MAX_CPUS; a++)
			mask[a / 64] |= 1ull << (a % 64);
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static bool cpu_in(const uint64_t *mask, unsigned int cpu)
{
	return mask[cpu / 64] & (1ull << (cpu % 64));
}

/* ------------------------------------------------------------------ */
/* Prerequisites                                                       */
/* ------------------------------------------------------------------ */

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

static int check_caps(struct bpf_source *src)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	bool admin, bpf, perfmon;
	long paranoid;

	if (syscall(SYS_capget, &h, d))
		return fail(src, -errno, "cannot read the process's capabilities");
	admin = has_cap(d, CAP_SYS_ADMIN);
	bpf = admin || has_cap(d, CAP_BPF);
	perfmon = admin || has_cap(d, CAP_PERFMON);
	if (!bpf)
		return fail(src, -EPERM, "the bpf source needs CAP_BPF and "
			    "CAP_PERFMON: run as root or grant them "
			    "(setcap cap_bpf,cap_perfmon+ep fxtprof)");
	if (perfmon)
		return 0;
	paranoid = read_long_file(PARANOID_FILE, 2);
	if (paranoid > -1)
		return fail(src, -EACCES, "kernel.perf_event_paranoid is %ld "
			    "and the process lacks CAP_PERFMON: grant "
			    "CAP_PERFMON (or run as root); lowering the "
			    "sysctl to -1 does not suffice, BPF tracing "
			    "programs need CAP_PERFMON too", paranoid);
	return fail(src, -EPERM, "the bpf source needs CAP_PERFMON to load "
		    "tracing programs: grant it or run as root");
}

/* 5.8: ring buffer, bpf_ktime_get_boot_ns, task iterators, CAP_BPF. */
static int check_kernel(struct bpf_source *src, const char *release,
			unsigned int *major, unsigned int *minor)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (!release) {
		if (uname(&u))
			return fail(src, -errno, "uname failed");
		release = u.release;
	}
	if (sscanf(release, "%u.%u", &maj, &min) != 2)
		return fail(src, -EINVAL, "cannot parse kernel release '%s'",
			    release);
	if (maj < 5 || (maj == 5 && min < 8))
		return fail(src, -EOPNOTSUPP, "kernel %s is too old for the "
			    "bpf source, which needs 5.8 (BPF ring buffer, "
			    "boot-time clock, task iterator): use the module "
			    "(--source module)", release);
	*major = maj;
	*minor = min;
	return 0;
}

int bpf_source__open(struct bpf_source *src, const struct bpf_source_opts *opts)
{
	const char *btf = opts && opts->btf_path ? opts->btf_path : BTF_VMLINUX;
	struct bpf_source_impl *s;
	unsigned int maj, min;
	int ret, n;

	memset(src, 0, sizeof(*src));
	libbpf_set_print(libbpf_print);
	if (access(btf, R_OK))
		return fail(src, -ENOENT, "no kernel BTF at %s (kernel built "
			    "without CONFIG_DEBUG_INFO_BTF): use the module "
			    "(--source module) or a kernel with BTF", btf);
	ret = check_kernel(src, opts ? opts->kernel_release : NULL, &maj, &min);
	if (ret)
		return ret;
	ret = check_caps(src);
	if (ret)
		return ret;
	n = libbpf_num_possible_cpus();
	if (n <= 0)
		return fail(src, n ? n : -EINVAL,
			    "cannot read the possible CPUs");
	if (n > FXTPROF_BPF_MAX_CPUS)
		return fail(src, -E2BIG, "%d possible CPUs, the bpf source "
			    "handles %d: use the module", n,
			    FXTPROF_BPF_MAX_CPUS);

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail(src, -ENOMEM, "out of memory");
	s->nr_cpus = (unsigned int)n;
	s->kernel_major = maj;
	s->kernel_minor = min;
	s->epoll_fd = -1;
	s->btf_path = opts && opts->btf_path ? opts->btf_path : NULL;
	s->ev = calloc(s->nr_cpus, sizeof(*s->ev));
	s->rings = calloc(s->nr_cpus, sizeof(*s->rings));
	s->rep_records = calloc(s->nr_cpus, sizeof(uint64_t));
	s->rep_bytes = calloc(s->nr_cpus, sizeof(uint64_t));
	s->rep_last_ns = calloc(s->nr_cpus, sizeof(uint64_t));
	if (!s->ev || !s->rings || !s->rep_records || !s->rep_bytes ||
	    !s->rep_last_ns) {
		src->impl = s;
		bpf_source__close(src);
		return fail(src, -ENOMEM, "out of memory");
	}
	for (n = 0; n < (int)s->nr_cpus; n++) {
		s->ev[n].fd = -1;
		s->rings[n].fd = -1;
	}
	src->impl = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/*
 * The unwind fields (ABI 5), as the module checks them.  The walk is a
 * bpf_loop() (5.17) over frames and reads the registers of
 * bpf_task_pt_regs() (5.15): older kernels get the frame-pointer walk.
 */
static int check_unwind(struct bpf_source *src, struct fxtprof_config *c)
{
	struct bpf_source_impl *s = src->impl;

	if (c->reserved2 || c->unwind_memory > FXTPROF_MAX_UNWIND_MEMORY ||
	    c->unwind_budget > FXTPROF_MAX_UNWIND_BUDGET ||
	    ((c->flags & FXTPROF_CFG_UNWIND) &&
	     !(c->flags & FXTPROF_CFG_USTACK)))
		return fail(src, -EINVAL, "bad unwind configuration");
	if (!c->unwind_memory)
		c->unwind_memory = FXTPROF_DEFAULT_UNWIND_MEMORY;
	if (!c->unwind_budget)
		c->unwind_budget = FXTPROF_DEFAULT_UNWIND_BUDGET;
	if ((c->flags & FXTPROF_CFG_UNWIND) &&
	    (s->kernel_major < 5 ||
	     (s->kernel_major == 5 && s->kernel_minor < 17)))
		return fail(src, -EOPNOTSUPP, "kernel %u.%u is too old for "
			    "unwinding with tables in the bpf source, which "
			    "needs 5.17 (bpf_loop): use --call-graph fp or "
			    "the module", s->kernel_major, s->kernel_minor);
	return 0;
}

static int check_config(struct bpf_source *src, struct fxtprof_config *c)
{
	struct bpf_source_impl *s = src->impl;
	long max_rate;
	unsigned int i;
	int ret;

	if (c->size < FXTPROF_CONFIG_SIZE_VER0 || c->reserved ||
	    (c->flags & ~FXTPROF_CFG_ALL))
		return fail(src, -EINVAL, "bad configuration");
	if ((c->flags & FXTPROF_CFG_SCHED) &&
	    (s->kernel_major < 5 ||
	     (s->kernel_major == 5 && s->kernel_minor < 18)))
		return fail(src, -EOPNOTSUPP, "kernel %u.%u is too old for "
			    "sched.switch in the bpf source, which needs 5.18 "
			    "(sched_switch's prev_state): use the module",
			    s->kernel_major, s->kernel_minor);
	if ((c->flags & FXTPROF_CFG_OFFCPU) && !(c->flags & FXTPROF_CFG_SCHED))
		return fail(src, -EINVAL, "off-CPU stacks need the "
			    "sched.switch source");
	if (c->flags & FXTPROF_CFG_ANNOTATE)
		return fail(src, -EOPNOTSUPP, "app.annotations is a "
			    "module-only data source");
	if (c->flags & FXTPROF_CFG_STACK_COPY)
		return fail(src, -EOPNOTSUPP, "stack copies (--call-graph "
			    "dwarf) are the module's alone");
	if (!c->freq_hz)
		c->freq_hz = FXTPROF_DEFAULT_FREQ;
	if (!c->kstack_depth)
		c->kstack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
	if (!c->ustack_depth)
		c->ustack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
	if (!c->ring_size)
		c->ring_size = FXTPROF_DEFAULT_RING_SIZE;
	if (c->freq_hz < FXTPROF_MIN_FREQ || c->freq_hz > FXTPROF_MAX_FREQ)
		return fail(src, -EINVAL, "frequency %u Hz outside %u..%u",
			    c->freq_hz, FXTPROF_MIN_FREQ, FXTPROF_MAX_FREQ);
	max_rate = read_long_file(MAX_RATE_FILE, 100000);
	if ((c->flags & FXTPROF_CFG_SAMPLE) && c->freq_hz > max_rate)
		return fail(src, -EINVAL, "frequency %u Hz is above "
			    "kernel.perf_event_max_sample_rate (%ld): lower -F "
			    "or raise the sysctl", c->freq_hz, max_rate);
	if (c->kstack_depth > FXTPROF_MAX_STACK_DEPTH ||
	    c->ustack_depth > FXTPROF_MAX_STACK_DEPTH)
		return fail(src, -EINVAL, "stack depth above %d",
			    FXTPROF_MAX_STACK_DEPTH);
	if (c->ring_size < FXTPROF_MIN_RING_SIZE ||
	    c->ring_size > FXTPROF_MAX_RING_SIZE ||
	    (c->ring_size & (c->ring_size - 1)) || c->ring_size < s->page)
		return fail(src, -EINVAL, "ring size %llu: a power of two "
			    "between %u and %u bytes",
			    (unsigned long long)c->ring_size,
			    FXTPROF_MIN_RING_SIZE, FXTPROF_MAX_RING_SIZE);

	ret = check_unwind(src, c);
	if (ret)
		return ret;

	memset(s->sample_mask, 0, sizeof(s->sample_mask));
	if (c->cpumask_len) {
		const uint64_t *m = (const void *)(uintptr_t)c->cpumask_ptr;

		if (c->cpumask_len % 8 || c->cpumask_len > FXTPROF_MAX_CPUMASK_LEN ||
		    !m)
			return fail(src, -EINVAL, "bad CPU mask");
		for (i = 0; i < c->cpumask_len / 8; i++) {
			uint64_t w = m[i];
			unsigned int b;

			for (b = 0; b < 64 && w; b++, w >>= 1) {
				if (!(w & 1))
					continue;
				if (i * 64 + b >= s->nr_cpus)
					return fail(src, -EINVAL, "CPU %u does "
						    "not exist", i * 64 + b);
				s->sample_mask[(i * 64 + b) / 64] |=
					1ull << ((i * 64 + b) % 64);
			}
		}
	} else {
		for (i = 0; i < s->nr_cpus; i++)
			s->sample_mask[i / 64] |= 1ull << (i % 64);
	}
	return 0;
}

/*
 * A ring per possible CPU, as the module has: the programs write to their
 * own CPU's ring only, so CPUs never contend on one, and each ring keeps
 * its CPU's records in order (the reader merges CPUs as it does the
 * module's rings).  Each is ring_size bytes (-m), as each of the module's
 * rings is; the kernel requires every inner map of the array to have the
 * size of the first.  Rings exist for offline CPUs too, so a CPU that
 * comes online later has one.
 */
static int create_rings(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	unsigned int cpu;
	int ret;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		s->rings[cpu].fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF,
						  "fxtprof_rb", 0, 0,
						  (__u32)s->rb_size, NULL);
		if (s->rings[cpu].fd < 0) {
			ret = s->rings[cpu].fd;
			s->rings[cpu].fd = -1;
			if (ret == -EPERM || ret == -EACCES)
				return load_error(src, ret);
			return fail(src, ret, "cannot create the ring buffer "
				    "of CPU %u (%s): lower -m or raise "
				    "RLIMIT_MEMLOCK", cpu, strerror(-ret));
		}
	}
	ret = bpf_map__set_max_entries(s->skel->maps.fxtprof_rings, s->nr_cpus);
	if (!ret)
		ret = bpf_map__set_inner_map_fd(s->skel->maps.fxtprof_rings,
						s->rings[0].fd);
	if (ret)
		return fail(src, ret, "cannot set up the ring buffer array");
	return 0;
}

/* After the load: each CPU's ring into the array, mapped, polled. */
static int map_rings(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	int outer = bpf_map__fd(s->skel->maps.fxtprof_rings);
	struct epoll_event ev;
	unsigned int cpu;

	s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epoll_fd < 0)
		return fail(src, -errno, "cannot create the epoll fd");
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct cpu_ring *r = &s->rings[cpu];
		__u32 key = cpu;

		if (bpf_map_update_elem(outer, &key, &r->fd, BPF_ANY))
			return fail(src, -errno, "cannot install the ring "
				    "buffer of CPU %u", cpu);
		r->cons_map = mmap(NULL, s->page, PROT_READ | PROT_WRITE,
				   MAP_SHARED, r->fd, 0);
		if (r->cons_map == MAP_FAILED) {
			r->cons_map = NULL;
			return fail(src, -errno, "cannot map the ring buffer");
		}
		r->prod_map = mmap(NULL, s->page + 2 * s->rb_size, PROT_READ,
				   MAP_SHARED, r->fd, (off_t)s->page);
		if (r->prod_map == MAP_FAILED) {
			r->prod_map = NULL;
			return fail(src, -errno, "cannot map the ring buffer");
		}
		if (bpf_ring__init(&r->ring, r->cons_map, r->prod_map,
				   (const unsigned char *)r->prod_map + s->page,
				   s->rb_size, s->nr_cpus))
			return fail(src, -EPROTO, "the new ring buffer is "
				    "inconsistent");
		/* Level-triggered: readable while a ring has data. */
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.u32 = cpu;
		if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, r->fd, &ev))
			return fail(src, -errno, "cannot poll the ring buffer");
	}
	s->mapped = true;
	return 0;
}

static int sys_perf_event_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Open (disabled) the cpu-clock event of @cpu: 0, 1 if offline, -errno. */
static int open_event(struct bpf_source *src, unsigned int cpu)
{
	struct bpf_source_impl *s = src->impl;
	struct perf_event_attr a;
	long paranoid;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	/*
	 * A fixed period, as the module's hrtimer: cpu-clock counts
	 * nanoseconds.  freq=1 lets the kernel re-estimate the period from
	 * the ticks each CPU saw, and an idle CPU's estimate runs long, so
	 * it got about half the asked rate.
	 */
	a.sample_period = 1000000000ull / s->cfg.freq_hz;
	a.disabled = 1;
	/* The timer still fires on an idle CPU; the program is not run. */
	a.exclude_idle = !!(s->cfg.flags & FXTPROF_CFG_SKIP_IDLE);
	fd = sys_perf_event_open(&a, (int)cpu);
	if (fd >= 0) {
		s->ev[cpu].fd = fd;
		return 0;
	}
	switch (errno) {
	case ENODEV:
		return 1;
	case EACCES:
	case EPERM:
		paranoid = read_long_file(PARANOID_FILE, 2);
		return fail(src, -errno, "perf_event_open on CPU %u refused "
			    "(kernel.perf_event_paranoid is %ld): grant "
			    "CAP_PERFMON or run as root", cpu, paranoid);
	case EINVAL:
		return fail(src, -EINVAL, "perf_event_open refused %u Hz on "
			    "CPU %u: lower -F (see "
			    "kernel.perf_event_max_sample_rate)",
			    s->cfg.freq_hz, cpu);
	case ENOENT:
	case EOPNOTSUPP:
		return fail(src, -errno, "the kernel has no cpu-clock perf "
			    "event (CONFIG_PERF_EVENTS): use the module");
	default:
		return fail(src, -errno, "perf_event_open on CPU %u failed: %s",
			    cpu, strerror(errno));
	}
}

static int open_events(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	uint64_t online[CPU_WORDS];
	unsigned int cpu;
	int ret;

	if (!(s->cfg.flags & FXTPROF_CFG_SAMPLE))
		return 0;
	if (read_cpu_list(CPU_ONLINE, online))
		return fail(src, -EIO, "cannot read %s", CPU_ONLINE);
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (!cpu_in(s->sample_mask, cpu) || !cpu_in(online, cpu))
			continue;
		ret = open_event(src, cpu);
		if (ret < 0)
			return ret;
		s->ev[cpu].online = ret == 0;
	}
	return 0;
}

static int load_error(struct bpf_source *src, int err)
{
	if (err == -EPERM || err == -EACCES)
		return fail(src, err, "the kernel refused to load the BPF "
			    "programs (%s): run as root or grant CAP_BPF and "
			    "CAP_PERFMON", strerror(-err));
	if (err == -ESRCH || err == -ENOENT)
		return fail(src, err, "the kernel's BTF lacks what the "
			    "programs need (%s): the kernel may be too old "
			    "(5.8+ with tp_btf and task iterators), use the "
			    "module", strerror(-err));
	return fail(src, err, "the kernel refused the BPF programs (%s): it "
		    "may be too old for the bpf source (5.8+), run with "
		    "FXTPROF_BPF_DEBUG=1 for the verifier log, or use the "
		    "module", strerror(-err));
}

/*
 * The unwind maps from unwind_memory (bpf_unwind.c shares it out); with
 * no FXTPROF_CFG_UNWIND they keep their one element, and the program's
 * walk, behind a constant, is not even verified.
 */
static int size_unwind(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	struct fxtprof_bpf *skel = s->skel;
	int ret;

	skel->rodata->unwind_budget = s->cfg.unwind_budget;
	if (!(s->cfg.flags & FXTPROF_CFG_UNWIND))
		return 0;
	bpf_unwind__size(s->cfg.unwind_memory, &s->unwind_sizes);
	ret = bpf_map__set_max_entries(skel->maps.unwind_rows,
				       s->unwind_sizes.row_elems);
	if (!ret)
		ret = bpf_map__set_max_entries(skel->maps.unwind_procs,
					       s->unwind_sizes.procs);
	if (ret)
		return fail(src, ret, "cannot size the unwind maps");
	return 0;
}

int bpf_source__configure(struct bpf_source *src,
			  const struct fxtprof_config *cfg)
{
	struct bpf_source_impl *s = src->impl;
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct fxtprof_bpf *skel;
	bool tasks, unwind, sched;
	int ret;

	if (!s)
		return fail(src, -EBADF, "the bpf source is not open");
	if (s->skel)
		return fail(src, -EBUSY, "the bpf source is already configured");
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	memset(&s->cfg, 0, sizeof(s->cfg));
	memcpy(&s->cfg, cfg, cfg->size < sizeof(s->cfg) ? cfg->size :
	       sizeof(s->cfg));
	s->cfg.size = sizeof(s->cfg);
	ret = check_config(src, &s->cfg);
	if (ret)
		return ret;
	s->rb_size = s->cfg.ring_size;
	if (s->cfg.watermark > s->rb_size)
		s->cfg.watermark = s->rb_size;

	oo.btf_custom_path = s->btf_path;
	skel = fxtprof_bpf__open_opts(&oo);
	if (!skel)
		return load_error(src, -errno);
	s->skel = skel;
	skel->rodata->cfg_flags = s->cfg.flags;
	skel->rodata->kstack_depth = s->cfg.kstack_depth;
	skel->rodata->ustack_depth = s->cfg.ustack_depth;
	skel->rodata->offcpu_min_ns = s->cfg.offcpu_min_ns;
	skel->rodata->watermark = s->cfg.watermark ? s->cfg.watermark :
				  s->rb_size / 4;
	ret = size_unwind(src);
	if (ret)
		return ret;
	ret = create_rings(src);
	if (ret)
		return ret;
	tasks = s->cfg.flags & FXTPROF_CFG_TASKS;
	unwind = s->cfg.flags & FXTPROF_CFG_UNWIND;
	bpf_program__set_autoload(skel->progs.fxtprof_sample,
				  s->cfg.flags & FXTPROF_CFG_SAMPLE);
	bpf_program__set_autoload(skel->progs.fxtprof_fork, tasks);
	/* exec and exit also drop a process's unwind ranges */
	bpf_program__set_autoload(skel->progs.fxtprof_exec, tasks || unwind);
	bpf_program__set_autoload(skel->progs.fxtprof_exit, tasks || unwind);
	bpf_program__set_autoload(skel->progs.fxtprof_rename, tasks);
	bpf_program__set_autoload(skel->progs.fxtprof_snapshot,
				  s->cfg.flags & FXTPROF_CFG_SNAPSHOT);
	sched = s->cfg.flags & FXTPROF_CFG_SCHED;
	bpf_program__set_autoload(skel->progs.fxtprof_switch, sched);
	bpf_program__set_autoload(skel->progs.fxtprof_waking, sched);
	bpf_program__set_autoload(skel->progs.fxtprof_wakeup, sched);
	bpf_program__set_autoload(skel->progs.fxtprof_wakeup_new, sched);

	/* Events first: their errors (paranoid, rate) say more than a
	 * refused load would. */
	ret = open_events(src);
	if (ret)
		return ret;
	ret = fxtprof_bpf__load(skel);
	if (ret)
		return load_error(src, ret);
	if (!skel->bss)
		return fail(src, -EOPNOTSUPP, "the kernel cannot map BPF "
			    "global data (5.5+): use the module");
	ret = map_rings(src);
	if (ret || !unwind)
		return ret;
	ret = bpf_unwind__init(&s->unwind,
			       bpf_map__fd(skel->maps.unwind_rows),
			       bpf_map__fd(skel->maps.unwind_tables),
			       bpf_map__fd(skel->maps.unwind_procs),
			       &s->unwind_sizes);
	if (ret)
		return fail(src, ret, "cannot map the unwind rows (%s)",
			    strerror(-ret));
	s->unwind_ready = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static int attach_event(struct bpf_source *src, unsigned int cpu)
{
	struct bpf_source_impl *s = src->impl;
	struct bpf_link *l;

	l = bpf_program__attach_perf_event(s->skel->progs.fxtprof_sample,
					   s->ev[cpu].fd);
	if (!l)
		return fail(src, -errno, "cannot attach the sampling program "
			    "on CPU %u (%s)", cpu, strerror(errno));
	s->ev[cpu].link = l;
	return 0;
}

/* The link closes the perf event's fd; otherwise it is ours. */
static void close_event(struct bpf_source_impl *s, unsigned int cpu)
{
	if (s->ev[cpu].link)
		bpf_link__destroy(s->ev[cpu].link);
	else if (s->ev[cpu].fd >= 0)
		close(s->ev[cpu].fd);
	s->ev[cpu].link = NULL;
	s->ev[cpu].fd = -1;
}

static int run_snapshot(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	struct bpf_link *l;
	char buf[256];
	ssize_t n;
	int fd, ret = 0;

	l = bpf_program__attach_iter(s->skel->progs.fxtprof_snapshot, NULL);
	if (!l)
		return fail(src, -errno, "cannot create the task iterator "
			    "(%s): the kernel may be too old (5.8+)",
			    strerror(errno));
	fd = bpf_iter_create(bpf_link__fd(l));
	if (fd < 0) {
		ret = fail(src, fd, "cannot run the task iterator");
		goto out_destroy_link;
	}
	/* Each read runs the program over more tasks; it prints nothing. */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		ret = fail(src, -errno, "the task iterator failed");
	close(fd);
out_destroy_link:
	bpf_link__destroy(l);
	return ret;
}

static void tp_progs(struct fxtprof_bpf *skel,
		     struct bpf_program *progs[NR_TP_PROGS])
{
	progs[0] = skel->progs.fxtprof_fork;
	progs[1] = skel->progs.fxtprof_exec;
	progs[2] = skel->progs.fxtprof_exit;
	progs[3] = skel->progs.fxtprof_rename;
	progs[4] = skel->progs.fxtprof_switch;
	/* waking before wakeup, which takes the waker it keeps */
	progs[5] = skel->progs.fxtprof_waking;
	progs[6] = skel->progs.fxtprof_wakeup;
	progs[7] = skel->progs.fxtprof_wakeup_new;
}

int bpf_source__start(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	struct bpf_program *progs[NR_TP_PROGS];
	unsigned int i, cpu;
	int ret;

	if (!s || !s->skel)
		return fail(src, -EINVAL, "the bpf source is not configured");
	if (s->running || s->stopped)
		return fail(src, -EBUSY, "the bpf source was already started");
	tp_progs(s->skel, progs);
	s->running = true;
	/* Those configure loaded: the four with tasks, exec and exit also
	 * for the unwind ranges, the four with sched.switch. */
	for (i = 0; i < NR_TP_PROGS; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		s->tp_links[i] = bpf_program__attach(progs[i]);
		if (!s->tp_links[i]) {
			ret = fail(src, -errno, "cannot attach %s (%s): the "
				   "kernel may be too old (5.5+ with BTF)",
				   bpf_program__name(progs[i]),
				   strerror(errno));
			goto out_stop;
		}
	}
	if (s->cfg.flags & FXTPROF_CFG_SNAPSHOT) {
		ret = run_snapshot(src);
		if (ret)
			goto out_stop;
	}
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (s->ev[cpu].fd < 0)
			continue;
		ret = attach_event(src, cpu);
		if (ret)
			goto out_stop;
	}
	s->last_hotplug_ns = clock_ns(CLOCK_BOOTTIME);
	return 0;

out_stop:
	bpf_source__stop(src);
	return ret;
}

int bpf_source__stop(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	unsigned int i;

	if (!s)
		return 0;
	for (i = 0; i < s->nr_cpus; i++)
		close_event(s, i);
	for (i = 0; i < NR_TP_PROGS; i++) {
		if (s->tp_links[i])
			bpf_link__destroy(s->tp_links[i]);
		s->tp_links[i] = NULL;
	}
	if (s->running)
		s->stopped = true;
	s->running = false;
	return 0;
}

int bpf_source__flush(struct bpf_source *src)
{
	(void)src;
	return 0;
}

void bpf_source__close(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	unsigned int cpu;

	if (!s)
		return;
	bpf_source__stop(src);
	bpf_unwind__close(&s->unwind);
	/* The programs go first: they hold the array, which holds the rings. */
	fxtprof_bpf__destroy(s->skel);
	for (cpu = 0; s->rings && cpu < s->nr_cpus; cpu++) {
		struct cpu_ring *r = &s->rings[cpu];

		if (r->prod_map)
			munmap(r->prod_map, s->page + 2 * s->rb_size);
		if (r->cons_map)
			munmap(r->cons_map, s->page);
		if (r->fd >= 0)
			close(r->fd);
	}
	if (s->epoll_fd >= 0)
		close(s->epoll_fd);
	free(s->rings);
	free(s->ev);
	free(s->rep_records);
	free(s->rep_bytes);
	free(s->rep_last_ns);
	free(s);
	src->impl = NULL;
}

int bpf_source__fd(const struct bpf_source *src)
{
	return src->impl ? src->impl->epoll_fd : -1;
}

unsigned int bpf_source__nr_sampling(const struct bpf_source *src)
{
	const struct bpf_source_impl *s = src->impl;
	unsigned int cpu, n = 0;

	for (cpu = 0; s && cpu < s->nr_cpus; cpu++)
		n += s->ev[cpu].link != NULL;
	return n;
}

/*
 * Whether @e's event still counts.  Taking a CPU offline removes its
 * events from the CPU's context (perf_event_exit_cpu_context(), 6.1 and
 * later): the event is OFF for good, PERF_EVENT_IOC_ENABLE makes it
 * INACTIVE but nothing schedules it again, and its count stops.  A
 * cpu-clock event counts nanoseconds whether or not the CPU idles, so a
 * count unchanged for a second means the event died, even when the CPU
 * was offline only between two checks.
 */
static bool event_counts(struct cpu_event *e)
{
	uint64_t v;

	if (read(e->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return false;
	if (v == e->count)
		return false;
	e->count = v;
	return true;
}

/*
 * CPU hotplug, checked from the drain (the reader's tick) at most once a
 * second: a sampled CPU that is offline has its event closed; one that is
 * online with no event (offline at start or since), or whose event
 * stopped counting, gets a new event attached.  Its ring was there all
 * along (there is one per possible CPU).
 */
static void follow_cpus(struct bpf_source *src)
{
	struct bpf_source_impl *s = src->impl;
	uint64_t online[CPU_WORDS], now = clock_ns(CLOCK_BOOTTIME);
	unsigned int cpu;
	int ret;

	if (!s->running || !(s->cfg.flags & FXTPROF_CFG_SAMPLE) ||
	    now - s->last_hotplug_ns < HOTPLUG_CHECK_NS)
		return;
	s->last_hotplug_ns = now;
	if (read_cpu_list(CPU_ONLINE, online))
		return;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct cpu_event *e = &s->ev[cpu];

		if (!cpu_in(s->sample_mask, cpu))
			continue;
		if (!cpu_in(online, cpu)) {
			if (e->fd >= 0)
				close_event(s, cpu);
			e->online = false;
			continue;
		}
		if (e->link && event_counts(e))
			continue;
		close_event(s, cpu);
		/* Offline again meanwhile (1) is the next check's business. */
		ret = open_event(src, cpu);
		e->online = ret == 0;
		e->count = 0;
		if (!ret && attach_event(src, cpu)) {
			close_event(s, cpu);
			e->online = false;
		}
	}
	src->msg[0] = 0;	/* a CPU gone again meanwhile is no error */
}

/* ------------------------------------------------------------------ */
/* Draining                                                            */
/* ------------------------------------------------------------------ */

/*
 * Every ring, in CPU order, as ring_source drains the module's: each CPU's
 * records in their order, the CPUs one after the other.  A ring's first
 * load of its producer position costs little when it is empty, so all are
 * visited rather than asking epoll which are ready.
 */
static int drain_rings(struct bpf_source *src, fxtprof_rec_cb cb, void *ctx,
		       unsigned int *bad_cpu)
{
	struct bpf_source_impl *s = src->impl;
	unsigned int cpu;
	int ret;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct bpf_ring *r = &s->rings[cpu].ring;

		ret = bpf_ring__drain(r, cb, ctx,
				      s->stopped ? BUSY_WAIT_NS : 0, bad_cpu);
		if (ret && r->why)
			return fail(src, ret, "%s", r->why);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The programs count drops; what they counted since the last LOST record
 * becomes one now.  lost_bytes is added before lost_records, so bytes
 * seen without their count are carried into the next record, and after
 * stop everything is reported: the sums equal the counters exactly.
 */
static int report_lost(struct bpf_source *src, fxtprof_rec_cb cb, void *ctx)
{
	struct bpf_source_impl *s = src->impl;
	struct fxtprof_bpf_counters *counters = s->skel->bss->counters;
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct fxtprof_bpf_counters *c = &counters[cpu];
		struct fxtprof_lost l;
		uint64_t nr, bytes;

		nr = __atomic_load_n(&c->lost_records, __ATOMIC_ACQUIRE);
		bytes = __atomic_load_n(&c->lost_bytes, __ATOMIC_ACQUIRE);
		if (nr == s->rep_records[cpu] &&
		    (!s->stopped || bytes == s->rep_bytes[cpu]))
			continue;
		memset(&l, 0, sizeof(l));
		l.hdr.size = sizeof(l);
		l.hdr.type = FXTPROF_REC_LOST;
		l.hdr.cpu = (uint16_t)cpu;
		l.records = nr - s->rep_records[cpu];
		l.bytes = bytes - s->rep_bytes[cpu];
		l.last_ns = __atomic_load_n(&c->lost_last_ns, __ATOMIC_RELAXED);
		l.first_ns = __atomic_load_n(&c->lost_first_ns, __ATOMIC_RELAXED);
		/* A drop racing our last ack keeps an older first_ns. */
		if (l.first_ns <= s->rep_last_ns[cpu] || l.first_ns > l.last_ns)
			l.first_ns = l.last_ns;
		l.hdr.time_ns = l.last_ns;
		err = cb(ctx, &l.hdr);
		if (err)
			return err < 0 ? err : 0;
		s->rep_records[cpu] = nr;
		s->rep_bytes[cpu] = bytes;
		s->rep_last_ns[cpu] = l.last_ns;
		__atomic_store_n(&c->ack_lost, nr, __ATOMIC_RELEASE);
	}
	return 0;
}

int bpf_source__drain(struct bpf_source *src, fxtprof_rec_cb cb, void *ctx,
		      unsigned int *bad_cpu)
{
	struct bpf_source_impl *s = src->impl;
	int ret;

	*bad_cpu = 0;
	if (!s || !s->skel || !s->mapped)
		return fail(src, -EINVAL, "the bpf source is not configured");
	follow_cpus(src);
	ret = drain_rings(src, cb, ctx, bad_cpu);
	if (ret)
		return ret;
	return report_lost(src, cb, ctx);
}

void bpf_source__stats(struct bpf_source *src, struct fxtprof_stats *total,
		       FILE *report)
{
	struct bpf_source_impl *s = src->impl;
	unsigned int cpu;

	memset(total, 0, sizeof(*total));
	total->size = sizeof(*total);
	if (!s || !s->skel || !s->skel->bss)
		return;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		const struct fxtprof_bpf_counters *c = &s->skel->bss->counters[cpu];
		uint64_t lr = __atomic_load_n(&c->lost_records, __ATOMIC_ACQUIRE);
		uint64_t lb = __atomic_load_n(&c->lost_bytes, __ATOMIC_ACQUIRE);

		total->records += c->records;
		total->bytes += c->bytes;
		total->samples += c->samples;
		total->lost_records += lr;
		total->lost_bytes += lb;
		total->lost_unreported += lr - s->rep_records[cpu];
		total->lost_unreported_bytes += lb - s->rep_bytes[cpu];
		if (report && lr)
			fprintf(report, "fxtprof: CPU %u lost %llu records "
				"(%llu bytes) to a full BPF ring buffer\n", cpu,
				(unsigned long long)lr, (unsigned long long)lb);
	}
	if (s->unwind_ready)
		bpf_unwind__stats(bpf_map__fd(s->skel->maps.unwind_stats),
				  s->nr_cpus, total);
}

/* ------------------------------------------------------------------ */
/* Unwind tables                                                       */
/* ------------------------------------------------------------------ */

int bpf_source__unwind_load(struct bpf_source *src,
			    struct fxtprof_unwind_table *t)
{
	struct bpf_source_impl *s = src->impl;

	if (!s || !s->unwind_ready)
		return -EBUSY;
	return bpf_unwind__load(&s->unwind, t);
}

int bpf_source__unwind_map(struct bpf_source *src,
			   const struct fxtprof_unwind_map *m)
{
	struct bpf_source_impl *s = src->impl;

	if (!s || !s->unwind_ready)
		return -EBUSY;
	return bpf_unwind__map(&s->unwind, m);
}

int bpf_source__unwind_unload(struct bpf_source *src, __u32 id)
{
	struct bpf_source_impl *s = src->impl;

	if (!s || !s->unwind_ready)
		return -EBUSY;
	return bpf_unwind__unload(&s->unwind, id);
}
