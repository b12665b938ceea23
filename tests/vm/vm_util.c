// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_util.c - helpers shared by the VM tests, see vm_util.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vm_util.h"

void vm_recs_free(struct vm_recs *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static int recs_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct vm_recs *r = ctx;

	if (r->len + rec->size > r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1 << 20;
		unsigned char *p;

		while (cap < r->len + rec->size)
			cap *= 2;
		p = realloc(r->buf, cap);
		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, rec, rec->size);
	r->len += rec->size;
	r->nr++;
	r->nr_by_type[rec->type]++;
	if (rec->type == FXTPROF_REC_LOST) {
		const struct fxtprof_lost *l = (const void *)rec;

		r->lost_records += l->records;
		r->lost_bytes += l->bytes;
	}
	return 0;
}

int vm_recs_drain(struct fxtprof_dev *dev, struct vm_recs *r)
{
	int total = 0;

	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);
		int n;

		if (!ring)
			continue;
		n = fxtprof_ring__drain(ring, recs_cb, r);
		if (n < 0) {
			if (!r->err)
				r->err = n;
			return n;
		}
		total += n;
	}
	return total;
}

int vm_recs_drain_all(struct fxtprof_dev *dev, struct vm_recs *r)
{
	int n, total = 0;

	while ((n = vm_recs_drain(dev, r)) > 0)
		total += n;
	return n < 0 ? n : total;
}

int vm_recs_drain_until(struct fxtprof_dev *dev, struct vm_recs *r,
			bool (*done)(const struct vm_recs *r, const void *arg),
			const void *arg, unsigned int ms)
{
	unsigned long long end = vm_boottime_ns() + ms * 1000000ull;
	int n;

	while (!done(r, arg) && vm_boottime_ns() < end) {
		n = vm_recs_drain(dev, r);
		if (n < 0)
			return n;
		vm_sleep_ms(10);
	}
	return 0;
}

struct fxtprof_config vm_config(__u32 flags, __u32 freq, __u64 ring_size)
{
	struct fxtprof_config c = {
		.size = sizeof(c),
		.flags = flags,
		.freq_hz = freq,
		.ring_size = ring_size,
	};
	return c;
}

unsigned long long vm_boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void vm_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct vm_spinner {
	struct vm_spinners *s;
	int cpu;
};

struct vm_spinners {
	int n;
	volatile int stop;
	pthread_t thr[64];
	struct vm_spinner arg[64];
};

static void *spin_fn(void *p)
{
	struct vm_spinner *a = p;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!a->s->stop)
		__asm__ volatile("" ::: "memory");
	return NULL;
}

struct vm_spinners *vm_spinners_start(int n)
{
	struct vm_spinners *s = calloc(1, sizeof(*s));

	if (!s || n > 64) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		s->arg[i] = (struct vm_spinner){ s, i };
		if (pthread_create(&s->thr[i], NULL, spin_fn, &s->arg[i]))
			break;
		s->n = i + 1;
	}
	return s;
}

void vm_spinners_stop(struct vm_spinners *s)
{
	if (!s)
		return;
	s->stop = 1;
	for (int i = 0; i < s->n; i++)
		pthread_join(s->thr[i], NULL);
	free(s);
}

const char *vm_test_path(const char *name)
{
	static char buf[4096];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		snprintf(self, sizeof(self), "/tests/x");
	else
		self[n] = 0;
	snprintf(buf, sizeof(buf), "%s/%s", dirname(self), name);
	return buf;
}

int vm_elf_sym(const char *path, const char *sym, unsigned long long *addr,
	       unsigned long long *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -ENOENT;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct stat st;
	void *map;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	eh = map;
	if ((size_t)st.st_size < sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > (size_t)st.st_size) {
		ret = -ENOEXEC;
		goto out;
	}
	sh = (const void *)((const char *)map + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *syms;
		const char *strs;
		size_t n;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		syms = (const void *)((const char *)map + sh[i].sh_offset);
		strs = (const char *)map + sh[sh[i].sh_link].sh_offset;
		n = sh[i].sh_size / sizeof(*syms);
		for (size_t j = 0; j < n; j++) {
			if (ELF64_ST_TYPE(syms[j].st_info) != STT_FUNC ||
			    strcmp(strs + syms[j].st_name, sym))
				continue;
			*addr = syms[j].st_value;
			*size = syms[j].st_size;
			ret = 0;
			goto out;
		}
	}
out:
	munmap(map, st.st_size);
	return ret;
}

int vm_kernel_complaints(int print)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "KASAN", "UBSAN", "general protection",
		"Unable to handle", "list_add corruption", "list_del corruption",
		"INFO: task", "rcu: INFO", "stack-protector", "Call trace:",
		"Call Trace:", "invoked oom-killer",
	};
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	int count = 0;
	char *buf, *line, *save;

	if (len <= 0)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len < 0)
		len = 0;
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (strstr(line, bad[i])) {
				count++;
				if (print)
					fprintf(stderr, "# kernel: %s\n", line);
				break;
			}
		}
	}
	free(buf);
	return count;
}

int vm_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	size_t len = strlen(val);

	if (fd < 0)
		return -errno;
	if (write(fd, val, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

static int vm_get_info(int fd, struct fxtprof_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, FXTPROF_IOC_GET_INFO, info) ? -errno : 0;
}

void vm_raw_unmap(struct vm_raw_maps *m)
{
	for (unsigned int cpu = 0; m->rings && cpu < m->nr; cpu++) {
		struct fxtprof_attach_ring *r = &m->rings[cpu];

		if (r->consumer_addr)
			munmap((void *)(uintptr_t)r->consumer_addr, m->page);
		if (r->ctrl_addr)
			munmap((void *)(uintptr_t)r->ctrl_addr, m->ro_len);
	}
	free(m->rings);
	memset(m, 0, sizeof(*m));
}

int vm_raw_map(int fd, struct vm_raw_maps *m)
{
	struct fxtprof_info info;
	int err = vm_get_info(fd, &info);

	memset(m, 0, sizeof(*m));
	if (err)
		return err;
	m->nr = info.nr_cpus;
	m->page = info.page_size;
	m->ro_len = info.page_size + 2 * info.ring_size;
	m->rings = calloc(m->nr, sizeof(*m->rings));
	if (!m->rings)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < m->nr; cpu++) {
		off_t base = (off_t)fxtprof_mmap_offset(cpu, info.mmap_stride);
		void *p;

		p = mmap(NULL, m->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 base);
		if (p == MAP_FAILED)
			goto out_unmap;
		m->rings[cpu].consumer_addr = (uintptr_t)p;
		p = mmap(NULL, m->ro_len, PROT_READ, MAP_SHARED, fd,
			 base + m->page);
		if (p == MAP_FAILED)
			goto out_unmap;
		m->rings[cpu].ctrl_addr = (uintptr_t)p;
		m->rings[cpu].ctrl_len = m->ro_len;
	}
	return 0;

out_unmap:
	err = -errno;
	vm_raw_unmap(m);
	return err;
}

struct fxtprof_attach vm_raw_attach_req(int fd, const struct vm_raw_maps *m)
{
	struct fxtprof_info info;
	struct fxtprof_attach a = { .size = sizeof(a) };

	if (vm_get_info(fd, &info))
		return a;
	a.version = FXTPROF_ABI_VERSION;
	a.ring_size = info.ring_size;
	a.mmap_stride = info.mmap_stride;
	a.page_size = info.page_size;
	a.nr_rings = m->nr;
	a.rings_ptr = (uintptr_t)m->rings;
	return a;
}

int vm_raw_attach(int fd, const struct vm_raw_maps *m)
{
	struct fxtprof_attach a = vm_raw_attach_req(fd, m);

	return ioctl(fd, FXTPROF_IOC_ATTACH, &a) ? -errno : 0;
}

int vm_trigger(const char *name)
{
	struct fxtprof_trigger t = { .size = sizeof(t) };
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	memcpy(t.name, name, strnlen(name, sizeof(t.name)));
	ret = ioctl(fd, FXTPROF_IOC_TRIGGER, &t) ? -errno : 0;
	close(fd);
	return ret;
}

pid_t vm_record_spawn(const char *const *args, const char *out,
		      const char *errpath)
{
	const char *argv[32] = { "fxtprof", "record" };
	char path[4096];
	int i = 2;
	pid_t pid;

	for (; *args; args++) {
		if (i >= (int)(sizeof(argv) / sizeof(argv[0])) - 2)
			return -E2BIG;
		argv[i++] = *args;
	}
	if (out)
		argv[i++] = out;
	argv[i] = NULL;
	/* vm_test_path() returns a static buffer: copied before the fork. */
	snprintf(path, sizeof(path), "%s", vm_test_path("fxtprof"));
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (errpath) {
			int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC,
				      0644);

			if (fd < 0)
				_exit(126);
			dup2(fd, 2);
		}
		execv(path, (char **)argv);
		_exit(127);
	}
	return pid;
}

pid_t vm_record_start(const char *const *args, const char *out,
		      const char *errpath)
{
	pid_t pid = vm_record_spawn(args, out, errpath);
	int status;

	if (pid < 0)
		return pid;
	for (int k = 0; k < 300; k++) {
		if (vm_trigger("probe") != -ESRCH)
			return pid;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return -ECHILD;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -ETIMEDOUT;
}

int vm_record_stop(pid_t pid)
{
	int status;

	kill(pid, SIGINT);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int snapshots_written(const char *errpath)
{
	FILE *f = fopen(errpath, "r");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0)
		n += !strncmp(line, "fxtprof: snapshot ", 18) &&
		     strstr(line, ": trigger ");
	free(line);
	fclose(f);
	return n;
}

int vm_record_wait_snapshots(const char *errpath, int n, unsigned int ms)
{
	unsigned long long end = vm_boottime_ns() + ms * 1000000ull;
	int seen;

	while ((seen = snapshots_written(errpath)) < n &&
	       vm_boottime_ns() < end)
		vm_sleep_ms(50);
	return seen;
}
