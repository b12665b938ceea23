// SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause)
/*
 * dev.c - the /dev/fxtprof handle: ioctls and the per-CPU ring mappings.
 *
 * Per CPU the module exposes, at offset cpu * mmap_stride:
 *   +0      consumer page            mapped RW on its own
 *   +page   control page + data x 2  mapped RO in one mapping
 * The split follows the permissions: the module refuses a writable
 * mapping of anything but the consumer page, and a single RO mapping of
 * control + doubled data keeps every pending span contiguous.  Once all
 * are mapped the library offers them to the module (FXTPROF_IOC_ATTACH),
 * which checks them against this process's VMAs; START needs that.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "libfxtprof_internal.h"

struct fxtprof_map {
	void *consumer;		/* page_size bytes, RW */
	void *ro;		/* ro_len bytes, RO */
	size_t ro_len;
	__u64 flush_pos;	/* producer_pos when the last flush returned */
};

struct fxtprof_dev {
	int fd;
	struct fxtprof_info info;
	__u64 flush_seq;		/* of the last flush made through us */
	unsigned int nr_rings;		/* 0 when nothing is mapped */
	struct fxtprof_ring *rings;	/* [nr_rings]; ->ctrl NULL: no ring */
	struct fxtprof_map *maps;	/* [nr_rings] */
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, req, arg);
	while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

int fxtprof_dev__refresh(struct fxtprof_dev *dev)
{
	struct fxtprof_info info = { .size = sizeof(info) };
	int err = xioctl(dev->fd, FXTPROF_IOC_GET_INFO, &info);

	if (err)
		return err;
	dev->info = info;
	return 0;
}

static void unmap_rings(struct fxtprof_dev *dev)
{
	for (unsigned int i = 0; i < dev->nr_rings; i++) {
		struct fxtprof_map *m = &dev->maps[i];

		if (m->ro)
			munmap(m->ro, m->ro_len);
		if (m->consumer)
			munmap(m->consumer, dev->info.page_size);
	}
	free(dev->rings);
	free(dev->maps);
	dev->rings = NULL;
	dev->maps = NULL;
	dev->nr_rings = 0;
}

/*
 * Map one CPU's ring.  Returns 1 if the CPU has no ring: the module
 * refuses the consumer page of such a CPU (-EINVAL today; -ENXIO or
 * -ENODEV would say it more precisely).
 */
static int map_ring(struct fxtprof_dev *dev, __u32 cpu)
{
	const struct fxtprof_info *info = &dev->info;
	struct fxtprof_map *m = &dev->maps[cpu];
	__u64 base = fxtprof_mmap_offset(cpu, info->mmap_stride);
	__u64 ro_len = info->page_size + 2 * info->ring_size;
	void *p;
	int err;

	if (ro_len > SIZE_MAX || base + info->mmap_stride > (__u64)INT64_MAX)
		return -EOVERFLOW;
	p = mmap(NULL, info->page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev->fd, (off_t)base);
	if (p == MAP_FAILED) {
		err = -errno;
		return err == -EINVAL || err == -ENXIO || err == -ENODEV ?
		       1 : err;
	}
	m->consumer = p;
	p = mmap(NULL, ro_len, PROT_READ, MAP_SHARED, dev->fd,
		 (off_t)(base + info->page_size));
	if (p == MAP_FAILED)
		return -errno;
	m->ro = p;
	m->ro_len = ro_len;

	err = fxtprof_ring__attach(&dev->rings[cpu], m->consumer, m->ro,
				   m->ro_len);
	if (err)
		return err;
	/* The module's geometry must be the one it announced. */
	if (dev->rings[cpu].cpu != cpu ||
	    dev->rings[cpu].size != info->ring_size)
		return -EPROTO;
	return 0;
}

/* Offer every mapping to the module (FXTPROF_IOC_ATTACH). */
static int attach_rings(struct fxtprof_dev *dev)
{
	struct fxtprof_attach_ring *rings;
	struct fxtprof_attach a = {
		.size = sizeof(a),
		.version = FXTPROF_ABI_VERSION,
		.ring_size = dev->info.ring_size,
		.mmap_stride = dev->info.mmap_stride,
		.page_size = dev->info.page_size,
		.nr_rings = dev->nr_rings,
	};
	int err;

	rings = calloc(dev->nr_rings, sizeof(*rings));
	if (!rings)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < dev->nr_rings; cpu++) {
		const struct fxtprof_map *m = &dev->maps[cpu];

		if (!m->consumer || !m->ro)
			continue;
		rings[cpu].consumer_addr = (uintptr_t)m->consumer;
		rings[cpu].ctrl_addr = (uintptr_t)m->ro;
		rings[cpu].ctrl_len = m->ro_len;
	}
	a.rings_ptr = (uintptr_t)rings;
	err = xioctl(dev->fd, FXTPROF_IOC_ATTACH, &a);
	free(rings);
	if (!err)
		err = fxtprof_dev__refresh(dev);
	return err;
}

static int map_rings(struct fxtprof_dev *dev)
{
	const struct fxtprof_info *info = &dev->info;
	unsigned int n = info->nr_cpus, mapped = 0;
	int err, first_err = 0;

	if (!(info->state & FXTPROF_STATE_CONFIGURED) || !n)
		return 0;
	if (!info->ring_size || !info->page_size ||
	    info->mmap_stride < 2ull * info->page_size + 2 * info->ring_size)
		return -EPROTO;
	dev->rings = calloc(n, sizeof(*dev->rings));
	dev->maps = calloc(n, sizeof(*dev->maps));
	if (!dev->rings || !dev->maps) {
		free(dev->rings);
		free(dev->maps);
		dev->rings = NULL;
		dev->maps = NULL;
		return -ENOMEM;
	}
	dev->nr_rings = n;
	for (unsigned int cpu = 0; cpu < n; cpu++) {
		err = map_ring(dev, cpu);
		if (err == 1) {
			/* A possible CPU without a ring: leave it NULL. */
			if (!first_err)
				first_err = -EINVAL;
			continue;
		}
		if (err) {
			unmap_rings(dev);
			return err;
		}
		mapped++;
	}
	/* No ring at all is not "every CPU lacks one", it is a failure. */
	if (!mapped) {
		unmap_rings(dev);
		return first_err;
	}
	/* Rings kept across a failed configure are still ours. */
	if (info->state & FXTPROF_STATE_ATTACHED)
		return 0;
	err = attach_rings(dev);
	if (err)
		unmap_rings(dev);
	return err;
}

int fxtprof_dev__open(const char *path, struct fxtprof_dev **devp)
{
	struct fxtprof_dev *dev;
	int err;

	*devp = NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(path ? path : FXTPROF_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = fxtprof_dev__refresh(dev);
	if (err)
		goto out_close;
	if (dev->info.abi_version != FXTPROF_ABI_VERSION) {
		err = -EPROTONOSUPPORT;
		goto out_close;
	}
	err = map_rings(dev);
	if (err)
		goto out_close;
	*devp = dev;
	return 0;

out_close:
	close(dev->fd);
out_free:
	free(dev);
	return err;
}

void fxtprof_dev__close(struct fxtprof_dev *dev)
{
	if (!dev)
		return;
	unmap_rings(dev);
	close(dev->fd);
	free(dev);
}

int fxtprof_dev__fd(const struct fxtprof_dev *dev)
{
	return dev->fd;
}

const struct fxtprof_info *fxtprof_dev__info(const struct fxtprof_dev *dev)
{
	return &dev->info;
}

int fxtprof_dev__configure(struct fxtprof_dev *dev,
			   const struct fxtprof_config *cfg)
{
	int err, err2;

	/*
	 * The module refuses to reconfigure while the old rings are
	 * mapped, so they go first; refuse here while running so that a
	 * doomed configure does not cost the caller its mappings.
	 */
	err = fxtprof_dev__refresh(dev);
	if (err)
		return err;
	if (dev->info.state & FXTPROF_STATE_RUNNING)
		return -EBUSY;
	unmap_rings(dev);

	err = xioctl(dev->fd, FXTPROF_IOC_CONFIGURE, (void *)cfg);
	/* Success or not, map whatever configuration is now in force. */
	err2 = fxtprof_dev__refresh(dev);
	if (!err2)
		err2 = map_rings(dev);
	return err ? err : err2;
}

int fxtprof_dev__start(struct fxtprof_dev *dev)
{
	int err = xioctl(dev->fd, FXTPROF_IOC_START, NULL);

	fxtprof_dev__refresh(dev);
	return err;
}

int fxtprof_dev__stop(struct fxtprof_dev *dev)
{
	int err = xioctl(dev->fd, FXTPROF_IOC_STOP, NULL);

	fxtprof_dev__refresh(dev);
	return err;
}

int fxtprof_dev__flush(struct fxtprof_dev *dev, __u64 *seq)
{
	struct fxtprof_flush f = { .size = sizeof(f) };
	int err = xioctl(dev->fd, FXTPROF_IOC_FLUSH, &f);

	if (err)
		return err;
	/*
	 * Every marker is committed by now: whatever the producer position
	 * is, it is at or past the marker.  (B) as in fxtprof_ring__peek().
	 */
	for (unsigned int cpu = 0; cpu < dev->nr_rings; cpu++)
		if (dev->rings[cpu].ctrl)
			dev->maps[cpu].flush_pos = smp_load_acquire(
				&dev->rings[cpu].ctrl->producer_pos);
	dev->flush_seq = f.seq;
	if (seq)
		*seq = f.seq;
	return 0;
}

int fxtprof_dev__flush_done(const struct fxtprof_dev *dev, __u64 seq)
{
	for (unsigned int cpu = 0; cpu < dev->nr_rings; cpu++) {
		const struct fxtprof_ring *r = &dev->rings[cpu];

		if (!r->ctrl || r->flush_seq >= seq)
			continue;
		if (seq == dev->flush_seq &&
		    (__s64)(r->cons - dev->maps[cpu].flush_pos) >= 0)
			continue;
		return 0;
	}
	return 1;
}

int fxtprof_dev__detach(struct fxtprof_dev *dev)
{
	int err = xioctl(dev->fd, FXTPROF_IOC_DETACH, NULL);

	fxtprof_dev__refresh(dev);
	return err;
}

int fxtprof_dev__sync(struct fxtprof_dev *dev, __u64 *requests)
{
	struct fxtprof_sync s = { .size = sizeof(s) };
	int err = xioctl(dev->fd, FXTPROF_IOC_SYNC, &s);

	if (!err && requests)
		*requests = s.requests;
	return err;
}

int fxtprof_dev__stats(struct fxtprof_dev *dev, __u32 cpu,
		       struct fxtprof_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->size = sizeof(*stats);
	stats->cpu = cpu;
	return xioctl(dev->fd, FXTPROF_IOC_GET_STATS, stats);
}

int fxtprof_dev__source(struct fxtprof_dev *dev, __u32 index,
			struct fxtprof_source *src)
{
	int ret;

	memset(src, 0, sizeof(*src));
	src->size = sizeof(*src);
	src->index = index;
	ret = xioctl(dev->fd, FXTPROF_IOC_GET_SOURCE, src);
	if (ret)
		return ret;
	/* Never trust the module to have terminated what it filled. */
	src->name[sizeof(src->name) - 1] = '\0';
	src->description[sizeof(src->description) - 1] = '\0';
	return 0;
}

int fxtprof_dev__sources(struct fxtprof_dev *dev, struct fxtprof_source *tab,
			 unsigned int max)
{
	unsigned int n = dev->info.nr_sources, i;
	int ret;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		ret = fxtprof_dev__source(dev, i, &tab[i]);
		if (ret)
			return ret;
	}
	return (int)n;
}

int fxtprof_dev__unwind_load(struct fxtprof_dev *dev,
			     struct fxtprof_unwind_table *t)
{
	t->size = sizeof(*t);
	return xioctl(dev->fd, FXTPROF_IOC_UNWIND_LOAD, t);
}

int fxtprof_dev__unwind_map(struct fxtprof_dev *dev,
			    const struct fxtprof_unwind_map *m)
{
	struct fxtprof_unwind_map copy = *m;

	copy.size = sizeof(copy);
	return xioctl(dev->fd, FXTPROF_IOC_UNWIND_MAP, &copy);
}

int fxtprof_dev__unwind_unload(struct fxtprof_dev *dev, __u32 id)
{
	struct fxtprof_unwind_unload u = { .size = sizeof(u), .id = id };

	return xioctl(dev->fd, FXTPROF_IOC_UNWIND_UNLOAD, &u);
}

int fxtprof_dev__ksym(struct fxtprof_dev *dev, __u64 addr,
		      struct fxtprof_ksym_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->addr = addr;
	return xioctl(dev->fd, FXTPROF_IOC_KSYM, q);
}

unsigned int fxtprof_dev__nr_rings(const struct fxtprof_dev *dev)
{
	return dev->nr_rings;
}

struct fxtprof_ring *fxtprof_dev__ring(struct fxtprof_dev *dev, __u32 cpu)
{
	if (cpu >= dev->nr_rings || !dev->rings[cpu].ctrl)
		return NULL;
	return &dev->rings[cpu];
}
