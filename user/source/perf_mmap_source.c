// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_mmap_source.c - see perf_mmap_source.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mmap_rec.h"
#include "perf_mmap_source.h"

struct perf_mmap_ring {
	int fd;
	unsigned int cpu;
	struct perf_event_mmap_page *page;
	unsigned char *data;
	size_t size;		/* data bytes, a power of two */
	size_t map_len;
};

/* PERF_RECORD_MMAP2 as the kernel writes it (perf_event.h's comment). */
struct perf_mmap2 {
	struct perf_event_header hdr;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

/* sample_id with PERF_SAMPLE_TID | PERF_SAMPLE_TIME, at a record's end. */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* The online CPUs as a list; the number of them or -errno. */
static int online_cpus(unsigned int **out)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	unsigned int *cpus = NULL, a, b, n = 0, cap = 0;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		sep = (char)fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%u", &b) != 1 || b < a || b > 65535)
				break;
			sep = (char)fgetc(f);
		}
		for (; a <= b; a++) {
			if (n == cap) {
				unsigned int *c;

				cap = cap ? cap * 2 : 64;
				c = realloc(cpus, cap * sizeof(*c));
				if (!c) {
					free(cpus);
					fclose(f);
					return -ENOMEM;
				}
				cpus = c;
			}
			cpus[n++] = a;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (!n) {
		free(cpus);
		return -ENOENT;
	}
	*out = cpus;
	return (int)n;
}

static void attr_init(struct perf_event_attr *a, bool build_id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->mmap = 1;
	a->mmap2 = 1;
	a->build_id = build_id;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_BOOTTIME;
	/*
	 * Wake the reader at each record (perf_mmap_source__fd): a mapping
	 * reaches the recorder, which maps its unwind table, while the
	 * process is starting, not at the next 100 ms tick.  Executable
	 * mappings are rare next to samples.
	 */
	a->watermark = 1;
	a->wakeup_watermark = 1;
}

static int open_ring(struct perf_mmap_ring *r, unsigned int cpu,
		     struct perf_event_attr *a, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	r->fd = perf_open(a, (int)cpu);
	if (r->fd < 0)
		return -errno;
	r->cpu = cpu;
	r->size = size;
	r->map_len = (size_t)page + size;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 0);
	if (p == MAP_FAILED) {
		int ret = -errno;

		close(r->fd);
		r->fd = -1;
		return ret;
	}
	r->page = p;
	r->data = (unsigned char *)p + page;
	return 0;
}

static void close_ring(struct perf_mmap_ring *r)
{
	if (r->page)
		munmap(r->page, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	r->page = NULL;
	r->fd = -1;
}

/* One epoll fd for every ring: -1 if there cannot be one (no wakeups). */
static int wake_fd_open(const struct perf_mmap_source *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = epoll_create1(EPOLL_CLOEXEC);

	for (unsigned int i = 0; fd >= 0 && i < s->nr; i++) {
		if (epoll_ctl(fd, EPOLL_CTL_ADD, s->rings[i].fd, &ev)) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

int perf_mmap_source__open(struct perf_mmap_source *s, size_t ring_size)
{
	struct perf_event_attr a;
	unsigned int *cpus = NULL, i;
	long page = sysconf(_SC_PAGESIZE);
	int n, ret = 0;

	memset(s, 0, sizeof(*s));
	if (!ring_size)
		ring_size = PERF_MMAP_RING_SIZE;
	if (ring_size & (ring_size - 1) || ring_size < (size_t)page)
		return -EINVAL;
	n = online_cpus(&cpus);
	if (n < 0)
		return n;
	s->rings = calloc((size_t)n, sizeof(*s->rings));
	s->buf = malloc(sizeof(*s->buf));
	s->copy = malloc(65536);	/* perf records are < 64 KiB */
	if (!s->rings || !s->buf || !s->copy) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < (unsigned int)n; i++)
		s->rings[i].fd = -1;
	s->kernel_build_ids = true;
	for (i = 0; i < (unsigned int)n; i++) {
		attr_init(&a, s->kernel_build_ids);
		ret = open_ring(&s->rings[i], cpus[i], &a, ring_size);
		if (ret == -EINVAL && s->kernel_build_ids && !i) {
			/* Before 5.12: no build_id bit; files answer. */
			s->kernel_build_ids = false;
			attr_init(&a, false);
			ret = open_ring(&s->rings[i], cpus[i], &a, ring_size);
		}
		if (ret)
			goto out_close;
		s->nr++;
	}
	free(cpus);
	s->wake_fd = wake_fd_open(s);
	return 0;

out_close:
	for (i = 0; i < s->nr; i++)
		close_ring(&s->rings[i]);
out_free:
	free(cpus);
	free(s->rings);
	free(s->buf);
	free(s->copy);
	memset(s, 0, sizeof(*s));
	return ret;
}

int perf_mmap_source__fd(const struct perf_mmap_source *s)
{
	return s->nr ? s->wake_fd : -1;
}

void perf_mmap_source__close(struct perf_mmap_source *s)
{
	if (s->nr && s->wake_fd >= 0)
		close(s->wake_fd);
	for (unsigned int i = 0; i < s->nr; i++)
		close_ring(&s->rings[i]);
	free(s->rings);
	free(s->buf);
	free(s->copy);
	memset(s, 0, sizeof(*s));
}

static int on_mmap2(struct perf_mmap_source *s, const struct perf_mmap_ring *r,
		    const struct perf_mmap2 *m, fxtprof_rec_cb cb, void *ctx)
{
	const struct perf_sample_id *sid;
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	struct mmap_rec_args a = { 0 };
	size_t max;

	if (m->hdr.size < sizeof(*m) + sizeof(*sid) || !(m->prot & PROT_EXEC))
		return 0;
	sid = (const void *)((const unsigned char *)m + m->hdr.size -
			     sizeof(*sid));
	max = m->hdr.size - sizeof(*m) - sizeof(*sid);
	a.pid = m->pid;
	a.tid = m->tid;
	a.start = m->addr;
	a.len = m->len;
	a.pgoff = m->pgoff;
	a.time_ns = sid->time;
	a.name = m->filename;
	a.name_len = strnlen(m->filename, max);
	if ((m->hdr.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    m->build_id_size && m->build_id_size <= FXTPROF_BUILD_ID_MAX) {
		a.build_id = m->build_id;
		a.build_id_size = m->build_id_size;
	} else if (a.name_len && m->filename[0] == '/') {
		/*
		 * No build id from the kernel (an old kernel, or the note
		 * was not in the file's first page): ask the file, while
		 * the mapping may still exist.
		 */
		char path[FXTPROF_MAX_PATH + 1];
		int n;

		snprintf(path, sizeof(path), "%.*s", (int)a.name_len,
			 m->filename);
		n = mmap_rec__file_build_id("/proc", m->pid, m->addr,
					    m->addr + m->len, path, id,
					    sizeof(id));
		if (n > 0) {
			a.build_id = id;
			a.build_id_size = (size_t)n;
			s->file_build_ids++;
		}
	} else {
		mmap_rec__vdso_build_id(&a, id);
	}
	mmap_rec__fill(s->buf, &a);
	s->buf->m.hdr.cpu = (uint16_t)r->cpu;
	s->mappings++;
	return cb(ctx, &s->buf->m.hdr);
}

static int drain_ring(struct perf_mmap_source *s, struct perf_mmap_ring *r,
		      fxtprof_rec_cb cb, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t mask = r->size - 1;
	int ret = 0;

	while (tail < head) {
		const struct perf_event_header *h =
			(const void *)(r->data + (tail & mask));
		size_t off = tail & mask, size = h->size;

		/* The header itself may not wrap: records are 8-aligned. */
		if (size < sizeof(*h) || size > head - tail) {
			ret = -EPROTO;
			break;
		}
		if (off + size > r->size) {
			size_t first = r->size - off;

			memcpy(s->copy, r->data + off, first);
			memcpy(s->copy + first, r->data, size - first);
			h = (const void *)s->copy;
		}
		if (h->type == PERF_RECORD_MMAP2) {
			on_mmap2(s, r, (const void *)h, cb, ctx);
		} else if (h->type == PERF_RECORD_LOST &&
			   size >= sizeof(*h) + 16) {
			uint64_t lost;

			memcpy(&lost, (const unsigned char *)h + sizeof(*h) + 8,
			       8);
			s->lost += lost;
		}
		tail += size;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

int perf_mmap_source__drain(struct perf_mmap_source *s, fxtprof_rec_cb cb,
			    void *ctx)
{
	int ret = 0, r;

	for (unsigned int i = 0; i < s->nr; i++) {
		r = drain_ring(s, &s->rings[i], cb, ctx);
		if (r && !ret)
			ret = r;
	}
	return ret;
}
