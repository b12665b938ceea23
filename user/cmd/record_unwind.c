// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_unwind.c - see record_unwind.h.  A mapping's file is read where
 * its process sees it (mmap_rec__file_path: /proc/PID/map_files, then
 * under /proc/PID/root), so that containers' files are found; one that
 * cannot be read is counted and its frames are walked by frame pointers.
 * The loop opens it at once, while its process is alive (a process that
 * exits within 50 ms may be gone before its table is built), and the
 * worker builds from that descriptor.
 *
 * Only the worker touches the cache until it is joined; the loop knows
 * what was built by build id (ru->known), so that a file seen again is
 * mapped without a trip through the worker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "record_opts.h"
#include "record_unwind.h"
#include "source/mmap_rec.h"
#include "source/source.h"
#include "transport/clock.h"
#include "unwind/unwind_cache.h"

/* The ids map's value for a table the source refused: never retried. */
#define TABLE_REFUSED	UINT64_MAX

/* The known map's value for a build id whose first job is queued. */
#define TABLE_PENDING	UINT64_MAX

/*
 * A table idle this long (ru->evict_idle_ns) may give its memory to one
 * that runs now: long enough that two busy processes do not take turns.
 */
#define EVICT_IDLE_NS		1000000000ull
/* What found no room is tried again at its process's samples after this. */
#define RETRY_NS		1000000000ull

/*
 * A mapping whose table the worker builds; then the loop maps it.  Only
 * the first job of a build id holds its file: the later ones find the
 * table that one built in the cache (the queue is FIFO).
 */
struct unwind_job {
	struct unwind_job *next;
	bool evict;			/* free m's build id's table instead */
	struct fxtprof_mmap m;		/* without its file name */
	int fd;				/* its file, or -1 */
	Elf *elf;			/* the vDSO's image, or NULL */
	const struct unwind_table *t;	/* built: NULL if there is none */
	int err;			/* why there is none */
	size_t need;			/* with -ENOSPC: the bytes missing */
	bool retried;			/* room was made for it once */
	bool stale;			/* t was evicted since: not to use */
	uint64_t evictions;		/* ru->evictions when it was queued */
	bool vdso;			/* elf was the recorder's vDSO */
};

void record_unwind__config(const struct record_opts *o,
			   const struct source_ops *ops,
			   struct fxtprof_config *cfg)
{
	if (!(cfg->flags & FXTPROF_CFG_USTACK) ||
	    o->ustack_walk != RECORD_USTACK_TABLES)
		return;
	if (!ops->unwind_load || !ops->unwind_map) {
		if (!o->quiet)
			fprintf(stderr, "fxtprof: %s cannot walk unwind tables: user stacks by frame pointers\n",
				ops->desc);
		return;
	}
	cfg->flags |= FXTPROF_CFG_UNWIND;
	cfg->unwind_memory = o->unwind_memory;
	cfg->unwind_budget = FXTPROF_DEFAULT_UNWIND_BUDGET;
}

bool record_unwind__fallback(const struct record_opts *o, int err,
			     const char *why, struct fxtprof_config *cfg)
{
	if (!(cfg->flags & FXTPROF_CFG_UNWIND) ||
	    (err != -EINVAL && err != -EOPNOTSUPP && err != -E2BIG))
		return false;
	cfg->flags &= ~FXTPROF_CFG_UNWIND;
	cfg->unwind_memory = 0;
	cfg->unwind_budget = 0;
	if (!o->quiet)
		fprintf(stderr, "fxtprof: the source refused unwind tables (%s): user stacks by frame pointers\n",
			*why ? why : strerror(-err));
	return true;
}

static void job__free(struct unwind_job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->elf)
		elf_end(j->elf);
	free(j);
}

/* Append @j to the list whose tail pointer is @tail. */
static void job__append(struct unwind_job *j, struct unwind_job ***tail)
{
	j->next = NULL;
	**tail = j;
	*tail = &j->next;
}

static struct unwind_job *job__pop(struct unwind_job **head,
				   struct unwind_job ***tail)
{
	struct unwind_job *j = *head;

	if (j) {
		*head = j->next;
		if (!*head)
			*tail = head;
	}
	return j;
}

/* The worker: build each queued job's table, hand it back, say so. */
static void *worker_main(void *arg)
{
	struct record_unwind *ru = arg;
	struct unwind_queue *q = &ru->q;
	const uint64_t one = 1;
	struct unwind_cache_stats st;
	struct unwind_job *j;
	uint64_t t0;
	ssize_t n;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->urgent && !q->in && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (q->stop)
			break;
		j = job__pop(&q->urgent, &q->urgent_tail);
		if (!j)
			j = job__pop(&q->in, &q->in_tail);
		pthread_mutex_unlock(&q->lock);

		if (j->evict) {
			/* The loop forgot the table; nothing comes back. */
			unwind_cache__evict(ru->cache, j->m.build_id,
					    j->m.build_id_size);
			job__free(j);
			unwind_cache__stats(ru->cache, &st);
			pthread_mutex_lock(&q->lock);
			ru->cache_bytes = st.bytes;
			continue;
		}
		t0 = clock_ns(CLOCK_MONOTONIC);
		if (!j->elf && j->fd >= 0)
			j->elf = elf_begin(j->fd, ELF_C_READ, NULL);
		/* What it could not build, the cache counts, once per id. */
		if (j->elf)
			j->err = unwind_cache__get_elf(ru->cache, j->elf,
						       &j->t, NULL);
		else if (!unwind_cache__find(ru->cache, j->m.build_id,
					     j->m.build_id_size, &j->t,
					     &j->err))
			j->err = -ENOENT;
		if (j->err == -ENOSPC) {
			/* What is missing: the table less the room left. */
			unwind_cache__stats(ru->cache, &st);
			j->need = unwind_cache__need(ru->cache, j->m.build_id,
						     j->m.build_id_size);
			if (st.bytes < ru->cache_cap)
				j->need -= ru->cache_cap - st.bytes;
		}
		elf_end(j->elf);
		j->elf = NULL;
		unwind_cache__stats(ru->cache, &st);

		pthread_mutex_lock(&q->lock);
		ru->cache_bytes = st.bytes;
		ru->build_ns += clock_ns(CLOCK_MONOTONIC) - t0;
		job__append(j, &q->out_tail);
		/* Cannot fail: the loop reads the counter long before 2^64. */
		n = write(ru->efd, &one, sizeof(one));
		(void)n;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int record_unwind__init(struct record_unwind *ru, struct source *src,
			const struct fxtprof_config *cfg)
{
	sigset_t all, old;
	int err;

	memset(ru, 0, sizeof(*ru));
	ru->efd = -1;
	if (!(cfg->flags & FXTPROF_CFG_UNWIND))
		return 0;
	ru->cache = unwind_cache__new(cfg->unwind_memory);
	ru->cache_cap = cfg->unwind_memory;
	if (!ru->cache)
		return -ENOMEM;
	/* Blocking: io_uring would answer -EAGAIN on a non-blocking one. */
	ru->efd = eventfd(0, EFD_CLOEXEC);
	if (ru->efd < 0) {
		err = -errno;
		goto out_free_cache;
	}
	pthread_mutex_init(&ru->q.lock, NULL);
	pthread_cond_init(&ru->q.more, NULL);
	ru->q.in_tail = &ru->q.in;
	ru->q.urgent_tail = &ru->q.urgent;
	ru->q.out_tail = &ru->q.out;
	/*
	 * The worker takes no signal: record reads SIGINT and the others
	 * from a signalfd, which works only while every thread blocks them.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&ru->worker, NULL, worker_main, ru);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto out_close_efd;
	ru->running = true;
	ru->src = src;
	ru->evict_idle_ns = EVICT_IDLE_NS;
	return 0;

out_close_efd:
	close(ru->efd);
	ru->efd = -1;
out_free_cache:
	unwind_cache__free(ru->cache);
	ru->cache = NULL;
	return err;
}

static void arm_efd(struct record_unwind *ru)
{
	struct io_uring_sqe *sqe = evloop__sqe(ru->loop, &ru->efd_h);

	if (sqe)
		io_uring_prep_read(sqe, ru->efd, &ru->efd_count,
				   sizeof(ru->efd_count), 0);
}

static void on_built(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct record_unwind *ru = (void *)((char *)h -
					    offsetof(struct record_unwind,
						     efd_h));

	record_unwind__complete(ru);
	if (cqe->res >= 0)
		arm_efd(ru);
}

void record_unwind__start(struct record_unwind *ru, struct evloop *loop)
{
	if (!ru->src)
		return;
	ru->loop = loop;
	ru->efd_h.complete = on_built;
	arm_efd(ru);
}

int record_unwind__fd(const struct record_unwind *ru)
{
	return ru->efd;
}

/* Join the worker after its current build; count what it left queued. */
static void worker_stop(struct record_unwind *ru)
{
	struct unwind_job *j;

	if (!ru->running)
		return;
	pthread_mutex_lock(&ru->q.lock);
	ru->q.stop = true;
	pthread_cond_signal(&ru->q.more);
	pthread_mutex_unlock(&ru->q.lock);
	pthread_join(ru->worker, NULL);
	ru->running = false;
	while ((j = job__pop(&ru->q.urgent, &ru->q.urgent_tail)) ||
	       (j = job__pop(&ru->q.in, &ru->q.in_tail))) {
		ru->unbuilt++;
		job__free(j);
	}
	while ((j = job__pop(&ru->q.out, &ru->q.out_tail)))
		job__free(j);
}

/* The mapping's file, as its process sees it: an fd, or -errno. */
static int open_mapping(const struct fxtprof_mmap *m, const char *path)
{
	char buf[FXTPROF_MAX_PATH + 64];
	unsigned int i;
	int fd = -ENOENT;

	for (i = 0; mmap_rec__file_path("/proc", m->pid, m->start,
					m->start + m->len, path, i, buf,
					sizeof(buf)); i++) {
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		fd = -errno;
	}
	return fd;
}

/*
 * A "[vdso]" mapping has no file.  It has a build id only when it is an
 * image like the recorder's own (mmap_rec__vdso_build_id): the table is
 * built from that, in memory.
 */
static Elf *own_vdso(const struct fxtprof_mmap *m)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base || m->filename_len != 6 || memcmp(m->filename, "[vdso]", 6))
		return NULL;
	return elf_memory((char *)base, m->len);
}

static uint64_t build_id_key(const struct fxtprof_mmap *m)
{
	return hmap_hash_bytes(m->build_id, m->build_id_size, 0);
}

/* Give @j to the worker, ahead of the jobs not @urgent. */
static void queue_job(struct record_unwind *ru, struct unwind_job *j,
		      bool urgent)
{
	j->evictions = ru->evictions;
	pthread_mutex_lock(&ru->q.lock);
	job__append(j, urgent ? &ru->q.urgent_tail : &ru->q.in_tail);
	pthread_cond_signal(&ru->q.more);
	pthread_mutex_unlock(&ru->q.lock);
}

/*
 * Give @m to the worker; its file, opened now, if it is the first of its
 * build id (@known: TABLE_PENDING then, not yet set otherwise).  A later
 * mapping of the build id that goes to the other queue may come back
 * before the first: it then waits for its process's next sample.
 */
static void queue_build(struct record_unwind *ru, const struct fxtprof_mmap *m,
			const char *path, uint64_t *known, bool urgent)
{
	struct unwind_job *j = calloc(1, sizeof(*j));
	struct unwind_proc *p;

	if (!j)
		return;
	j->m = *m;
	/* Without its name, as a record of its own (a retry opens by range). */
	j->m.hdr.size = sizeof(j->m);
	j->m.filename_len = 0;
	j->fd = -1;
	if (*known != TABLE_PENDING) {
		j->elf = own_vdso(m);
		j->vdso = j->elf;
		j->fd = j->elf ? -1 : open_mapping(m, path);
		if (!j->elf && j->fd < 0) {
			/* A later mapping of the file tries again. */
			hmap__del(&ru->known, build_id_key(m));
			ru->unreadable++;
			free(j);
			return;
		}
		*known = TABLE_PENDING;
	}
	ru->queued++;
	ru->in_worker++;
	p = unwind_procs__get(&ru->procs, m->pid, true);
	if (p)
		p->in_flight++;
	queue_job(ru, j, urgent);
}

/*
 * A table the source holds, in ru->ids by its address.  It may be
 * evicted once neither its load nor a sample of a process that runs it
 * is newer than ru->evict_idle_ns.
 */
struct loaded_table {
	const struct unwind_table *t;
	uint32_t id;			/* the source's */
	uint64_t loaded_ns;		/* CLOCK_BOOTTIME */
};

static uint64_t table_key(const struct unwind_table *t)
{
	return (uint64_t)(uintptr_t)t;
}

static void remember_range(struct record_unwind *ru,
			   const struct fxtprof_unwind_map *map,
			   const struct fxtprof_mmap *m);
static bool make_room(struct record_unwind *ru, size_t need);

/*
 * The source's id of @t in *@id, loaded at its first use, making room
 * if the source is full.  -ENOSPC: no room now, try again later; another
 * -errno: refused for good.
 */
static int table_id(struct record_unwind *ru, const struct unwind_table *t,
		    uint32_t *id)
{
	struct fxtprof_unwind_table arg;
	struct loaded_table *lt;
	uint64_t *v = hmap__get(&ru->ids, table_key(t));
	int err;

	if (v && *v == TABLE_REFUSED)
		return -EPERM;
	if (v) {
		*id = ((const struct loaded_table *)(uintptr_t)*v)->id;
		return 0;
	}
	unwind_table__to_uapi(t, &arg);
	err = ru->src->ops->unwind_load(ru->src, &arg);
	if (err == -ENOSPC && make_room(ru, unwind_table__size(t))) {
		unwind_table__to_uapi(t, &arg);
		err = ru->src->ops->unwind_load(ru->src, &arg);
	}
	/* -EEXIST: the source has it from an earlier load; arg.id is it. */
	if (err && err != -EEXIST) {
		ru->load_failed++;
		if (err == -ENOSPC) {
			ru->source_full++;
			return err;
		}
		hmap__put(&ru->ids, table_key(t), TABLE_REFUSED);
		return err;
	}
	lt = malloc(sizeof(*lt));
	if (!lt || hmap__put(&ru->ids, table_key(t), (uintptr_t)lt)) {
		free(lt);
		return -ENOMEM;
	}
	lt->t = t;
	lt->id = arg.id;
	lt->loaded_ns = clock_ns(CLOCK_BOOTTIME);
	*id = arg.id;
	return 0;
}

/* @m found no room: it waits, to be tried at a sample after @retry_ns. */
static void no_room(struct record_unwind *ru, const struct fxtprof_mmap *m,
		    uint64_t retry_ns)
{
	struct unwind_proc *p = unwind_procs__get(&ru->procs, m->pid, true);

	ru->no_room++;
	if (!p || unwind_proc__wait(&ru->procs, p, m))
		return;
	if (p->retry_ns < retry_ns)
		p->retry_ns = retry_ns;
}

/* Map @m's range to table @t (built from its file) in the source. */
static void map_table(struct record_unwind *ru, const struct fxtprof_mmap *m,
		      const struct unwind_table *t)
{
	struct fxtprof_unwind_map map = { .size = sizeof(map) };
	uint64_t bias;
	int err;

	if (unwind_table__bias(t, m->start, m->pgoff, &bias)) {
		ru->unplaced++;
		return;
	}
	err = table_id(ru, t, &map.id);
	if (err == -ENOSPC)
		no_room(ru, m, clock_ns(CLOCK_BOOTTIME) + RETRY_NS);
	if (err)
		return;
	map.pid = m->pid;
	map.start = m->start;
	map.end = m->start + m->len;
	map.bias = bias;
	if (ru->src->ops->unwind_map(ru->src, &map)) {
		ru->map_failed++;
		return;
	}
	ru->mapped++;
	remember_range(ru, &map, m);
}

static int give_range(struct record_unwind *ru, uint32_t pid,
		      const struct unwind_range *r,
		      struct fxtprof_unwind_map *map);

/*
 * The ranges @pid's children forked without exec are to be given too;
 * those forked while this mapping was with the worker get it now.
 */
static void remember_range(struct record_unwind *ru,
			   const struct fxtprof_unwind_map *map,
			   const struct fxtprof_mmap *m)
{
	struct unwind_proc *p = unwind_procs__get(&ru->procs, map->pid, true);
	struct unwind_range r = {
		.start = map->start, .end = map->end,
		.bias = map->bias, .id = map->id,
	};
	struct fxtprof_unwind_map heir_map;
	unsigned int i;

	if (!p)
		return;
	unwind_proc__add_range(p, &r, m);
	/* An heir's own heirs come through its remember_range(). */
	for (i = 0; i < p->nr_heirs; i++) {
		if (give_range(ru, p->heirs[i], &r, &heir_map))
			continue;
		ru->inherited++;
		remember_range(ru, &heir_map, m);
	}
}

/* ------------------------------------------------------------------ */
/* Making room: the tables idle longest give way                       */
/* ------------------------------------------------------------------ */

static void unmap_range(void *ctx, const struct unwind_proc *p,
			const struct unwind_range *r)
{
	struct record_unwind *ru = ctx;
	struct fxtprof_unwind_map map = {
		.size = sizeof(map), .pid = p->pid,
		.start = r->start, .end = r->end,	/* id 0: remove */
	};

	if (ru->src->ops->unwind_map(ru->src, &map))
		ru->map_failed++;
}

/*
 * Evict @lt: its ranges go, each process's mapping waiting again for its
 * next sample; the source drops it; the worker frees it with the next
 * job it takes (the evict job is urgent).  Jobs of its build id that the
 * worker finished before, and that record_unwind__complete() has not yet
 * taken, hold it freed then: evicted_at tells that batch so.  The batch
 * being completed is safe: make_room() spares the tables it hands out.
 */
static bool evict(struct record_unwind *ru, struct loaded_table *lt)
{
	const struct unwind_table *t = lt->t;
	struct unwind_job *j;
	uint64_t key;
	int err;

	/*
	 * Marked first: without the mark a job could use t once freed, and
	 * a mark whose unload fails costs only a build again.
	 */
	key = hmap_hash_bytes(t->build_id, t->build_id_size, 0);
	if (hmap__put(&ru->evicted_at, key, ru->evictions + 1))
		return false;
	ru->evictions++;
	unwind_procs__unmap_table(&ru->procs, lt->id, unmap_range, ru);
	err = ru->src->ops->unwind_unload(ru->src, lt->id);
	if (err) {
		/* Its ranges come back from the waiting mappings. */
		ru->unload_failed++;
		if (err == -EOPNOTSUPP || err == -ENOTTY)
			ru->cannot_unload = true;
		return false;
	}
	hmap__del(&ru->ids, table_key(t));
	hmap__del(&ru->known, key);
	ru->evicted++;
	ru->evicted_bytes += unwind_table__size(t);
	j = calloc(1, sizeof(*j));
	if (j) {
		j->evict = true;
		j->fd = -1;
		memcpy(j->m.build_id, t->build_id, t->build_id_size);
		j->m.build_id_size = t->build_id_size;
		queue_job(ru, j, true);
	}
	free(lt);
	return true;
}

struct victim {
	struct loaded_table *lt;
	uint64_t last_ns;	/* its load, or its processes' last sample */
};

static int victim_cmp(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	return (x->last_ns > y->last_ns) - (x->last_ns < y->last_ns);
}

/*
 * Room for @need more bytes of tables, in the source and in the cache:
 * evict the tables idle longest, none used within evict_idle_ns nor
 * handed out by the batch being completed (ru->pinned).  Whether enough
 * was freed.
 */
static bool make_room(struct record_unwind *ru, size_t need)
{
	uint64_t now = clock_ns(CLOCK_BOOTTIME), freed = 0, *last;
	const struct unwind_proc *p;
	struct hmap used = { 0 };
	struct loaded_table *lt;
	struct victim *v;
	struct hmap_slot *s;
	size_t nr = 0, i;
	unsigned int k;

	if (!ru->src->ops->unwind_unload || ru->cannot_unload || !ru->ids.len)
		return false;
	/* Each table's last use: the latest sample of a process it runs. */
	hmap__for_each(&ru->procs.by_pid, s) {
		p = (const struct unwind_proc *)(uintptr_t)s->val;
		for (k = 0; k < p->nr_ranges; k++) {
			if (hmap__get_or_add(&used, p->ranges[k].id, &last) < 0)
				goto out_free_used;
			if (*last < p->last_ns)
				*last = p->last_ns;
		}
	}
	v = calloc(ru->ids.len, sizeof(*v));
	if (!v)
		goto out_free_used;
	hmap__for_each(&ru->ids, s) {
		if (s->val == TABLE_REFUSED)
			continue;
		lt = (struct loaded_table *)(uintptr_t)s->val;
		last = hmap__get(&used, lt->id);
		v[nr].lt = lt;
		v[nr].last_ns = last && *last > lt->loaded_ns ? *last :
				lt->loaded_ns;
		if (v[nr].last_ns + ru->evict_idle_ns <= now &&
		    !hmap__get(&ru->pinned, table_key(lt->t)))
			nr++;
	}
	qsort(v, nr, sizeof(*v), victim_cmp);
	/* evict() changes ru->ids: the victims were copied out first. */
	for (i = 0; i < nr && freed < need; i++) {
		size_t bytes = unwind_table__size(v[i].lt->t);

		if (evict(ru, v[i].lt))
			freed += bytes;
	}
	free(v);
out_free_used:
	hmap__free(&used);
	return freed >= need;
}

/* Whether @m waits for its process's first sample, and now does. */
static bool wait_for_sample(struct record_unwind *ru,
			    const struct fxtprof_mmap *m)
{
	struct unwind_proc *p = unwind_procs__get(&ru->procs, m->pid, true);

	/* Without memory to wait in, it is built at once, as before. */
	if (!p || p->sampled || unwind_proc__wait(&ru->procs, p, m))
		return false;
	ru->waited++;
	return true;
}

/*
 * A mapping with a build id: mapped, or queued (@wait: waiting for its
 * process's first sample).  One made while recording is queued urgent: a
 * new process is what the user started, and a short one is soon gone.
 */
static void place(struct record_unwind *ru, const struct fxtprof_mmap *m,
		  bool wait, bool urgent)
{
	char path[FXTPROF_MAX_PATH + 1];
	const struct unwind_table *t;
	uint64_t *known;
	int err;

	known = hmap__get(&ru->known, build_id_key(m));
	if (known && *known != TABLE_PENDING) {
		/* Built (or found to have none): mapping it costs no table. */
		t = (const struct unwind_table *)(uintptr_t)*known;
		if (t)
			map_table(ru, m, t);
		return;
	}
	if (wait && wait_for_sample(ru, m))
		return;
	err = hmap__get_or_add(&ru->known, build_id_key(m), &known);
	if (err < 0)
		return;
	memcpy(path, m->filename, m->filename_len);
	path[m->filename_len] = '\0';
	queue_build(ru, m, path, known, urgent);
}

void record_unwind__mapping(struct record_unwind *ru,
			    const struct fxtprof_mmap *m, bool wait)
{
	if (!ru->src)
		return;
	ru->mappings++;
	if (!(m->flags & FXTPROF_MMAP_BUILD_ID) || !m->build_id_size) {
		ru->no_build_id++;
		return;
	}
	place(ru, m, wait, !wait);
}

/*
 * @pid ran at @time_ns: what of its mappings waited is placed now (unless
 * it found no room less than RETRY_NS ago), and its tables are in use.
 */
static void on_sample(struct record_unwind *ru, uint32_t pid,
		      uint64_t time_ns)
{
	struct unwind_proc *p;
	struct fxtprof_mmap **waiting;
	unsigned int i, n;

	p = unwind_procs__get(&ru->procs, pid, false);
	if (!p)
		return;
	p->last_ns = time_ns;
	if (!p->nr_waiting || time_ns < p->retry_ns)
		return;
	n = unwind_proc__take_waiting(&ru->procs, p, &waiting);
	for (i = 0; i < n; i++) {
		place(ru, waiting[i], false, false);
		free(waiting[i]);
	}
	free(waiting);
}

/*
 * A child forked without exec has its parent's mappings, but nothing
 * reports them: give it the parent's ranges, and a copy of what of the
 * parent's still waits.
 */
/* Give @pid the range @r remembered (for another process, or before). */
static int give_range(struct record_unwind *ru, uint32_t pid,
		      const struct unwind_range *r,
		      struct fxtprof_unwind_map *map)
{
	*map = (struct fxtprof_unwind_map){
		.size = sizeof(*map), .pid = pid, .id = r->id,
		.start = r->start, .end = r->end, .bias = r->bias,
	};
	if (ru->src->ops->unwind_map(ru->src, map)) {
		ru->map_failed++;
		return -1;
	}
	return 0;
}

static void on_fork(struct record_unwind *ru, const struct fxtprof_fork *f)
{
	struct fxtprof_unwind_map map;
	struct unwind_proc *parent, *child;
	unsigned int i;

	/* A thread shares the ranges; a vfork child (CLONE_VM) execs at once. */
	if ((f->clone_flags & (CLONE_THREAD | CLONE_VM)) ||
	    f->child_pid == f->parent_pid)
		return;
	parent = unwind_procs__get(&ru->procs, f->parent_pid, false);
	if (!parent || !(child = unwind_procs__get(&ru->procs, f->child_pid,
						   true)))
		return;
	/* Its inherited mappings are older than this: an exec drops them. */
	child->born_ns = f->hdr.time_ns;
	/* What of the parent's is with the worker comes to it too. */
	if (parent->in_flight)
		unwind_proc__add_heir(parent, f->child_pid);
	/* The parent's array may move as the child's grows: index it. */
	for (i = 0; i < parent->nr_ranges; i++) {
		const struct unwind_range *r = &parent->ranges[i];

		if (give_range(ru, f->child_pid, r, &map))
			continue;
		ru->inherited++;
		remember_range(ru, &map, r->m);
	}
	/* unwind_proc__wait() makes each copy the child's. */
	for (i = 0; i < parent->nr_waiting && !child->sampled; i++)
		if (!unwind_proc__wait(&ru->procs, child, parent->waiting[i]))
			ru->waited++;
}

/*
 * @p exec'd: what waited is the old image's (the sweep comes before any
 * record).  The source dropped its ranges at the exec's end, after the
 * new image's mappings were reported (the side-band wakes the recorder
 * at once, record_symbols__fd): give those again.
 */
static void on_exec(struct record_unwind *ru, struct unwind_proc *p,
		    uint64_t time_ns)
{
	struct fxtprof_unwind_map map;
	unsigned int i, n;

	unwind_proc__forget_waiting(&ru->procs, p);
	n = unwind_proc__exec(p, time_ns);
	for (i = 0; i < n; i++)
		if (!give_range(ru, p->pid, &p->ranges[i], &map))
			ru->remapped++;
}

void record_unwind__record(struct record_unwind *ru,
			   const struct fxtprof_rec_hdr *rec)
{
	const struct fxtprof_exit *e;
	struct unwind_proc *p;

	if (!ru->src)
		return;
	switch (rec->type) {
	/* A wait's stacks are a sample's: its process runs here too. */
	case FXTPROF_REC_SAMPLE:
	case FXTPROF_REC_OFFCPU:
		on_sample(ru, ((const struct fxtprof_sample *)rec)->pid,
			  rec->time_ns);
		break;
	case FXTPROF_REC_FORK:
		on_fork(ru, (const struct fxtprof_fork *)rec);
		break;
	case FXTPROF_REC_EXEC:
		p = unwind_procs__get(&ru->procs,
				      ((const struct fxtprof_exec *)rec)->pid,
				      false);
		if (p)
			on_exec(ru, p, rec->time_ns);
		break;
	case FXTPROF_REC_EXIT:
		e = (const struct fxtprof_exit *)rec;
		if (e->flags & FXTPROF_EXIT_GROUP_DEAD)
			unwind_procs__drop(&ru->procs, e->pid);
		break;
	}
}

/* Give @j back to the worker (after the evictions queued before it). */
static void requeue(struct record_unwind *ru, struct unwind_job *j)
{
	j->t = NULL;
	j->err = 0;
	queue_job(ru, j, true);
}

/*
 * Map what @j built, or say why there is nothing: a file without a table
 * is not tried again; one over the memory cap makes room and is built
 * again (true: @j is the worker's again), or waits for a later sample of
 * its process.
 */
static bool complete_job(struct record_unwind *ru, struct unwind_job *j)
{
	/* The first job of its build id: it holds the file (or the vDSO). */
	bool first = j->fd >= 0 || j->vdso;
	uint64_t now = clock_ns(CLOCK_BOOTTIME);

	if (j->t) {
		hmap__put(&ru->known, build_id_key(&j->m),
			  (uint64_t)(uintptr_t)j->t);
		map_table(ru, &j->m, j->t);
		return false;
	}
	/*
	 * No CFI, unreadable, no build id: for good.  A later job that found
	 * nothing (-ENOENT: the table was evicted, or its first job is in the
	 * other queue) tries again at its process's next sample.
	 */
	if (j->err != -ENOSPC && (first || j->err != -ENOENT)) {
		hmap__put(&ru->known, build_id_key(&j->m), 0);
		return false;
	}
	if (!first) {
		/* Its first job decides whether room is made. */
		no_room(ru, &j->m, 0);
		return false;
	}
	if (j->err == -ENOSPC && !j->retried && make_room(ru, j->need)) {
		j->retried = true;
		requeue(ru, j);
		return true;
	}
	hmap__del(&ru->known, build_id_key(&j->m));
	no_room(ru, &j->m, now + RETRY_NS);
	return false;
}

/*
 * Whether @j's build id was evicted after @j was queued.  The evict job
 * is urgent, so a job queued after it finds the table freed or builds it
 * again; one queued before may have been given the table before the
 * worker freed it.
 */
static bool evicted_since(const struct record_unwind *ru,
			  const struct unwind_job *j)
{
	const uint64_t *at = hmap__get(&ru->evicted_at, build_id_key(&j->m));

	return at && *at > j->evictions;
}

static bool process_gone(uint32_t pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/*
 * A process gone without its exit seen after the ranges it was given:
 * its exit came before them (the rings are drained one CPU after another,
 * so a child's fork can be handled after its exit), or --no-tasks.  The
 * source's exit probe has passed, so the ranges would hold the source's
 * unwind memory until the end: take them back.
 */
static void give_back_ranges(void *ctx, const struct unwind_proc *p)
{
	struct record_unwind *ru = ctx;
	struct fxtprof_unwind_map all = {
		.size = sizeof(all), .pid = p->pid, .start = 0, .end = ~0ull,
	};

	if (!p->nr_ranges)
		return;
	if (ru->src->ops->unwind_map(ru->src, &all))
		ru->map_failed++;
	else
		ru->ranges_taken_back++;
}

void record_unwind__tick(struct record_unwind *ru, uint64_t now)
{
	if (!ru->src || now - ru->pruned_ns < 10000000000ull)
		return;
	ru->pruned_ns = now;
	ru->pruned += unwind_procs__prune(&ru->procs, process_gone,
					  give_back_ranges, ru);
}

bool record_unwind__complete(struct record_unwind *ru)
{
	struct pollfd pfd = { .fd = ru->efd, .events = POLLIN };
	struct unwind_job *done, *j, *next;
	struct unwind_proc *p;
	unsigned int taken = 0;
	uint64_t count;

	if (!ru->running)
		return true;
	/* Where no loop reads the counter, reset it here, if it is set. */
	if (!ru->loop && poll(&pfd, 1, 0) == 1 &&
	    read(ru->efd, &count, sizeof(count)) < 0)
		return false;
	pthread_mutex_lock(&ru->q.lock);
	done = ru->q.out;
	ru->q.out = NULL;
	ru->q.out_tail = &ru->q.out;
	pthread_mutex_unlock(&ru->q.lock);
	/*
	 * A job the worker finished before it freed an evicted table of the
	 * job's build id holds that table freed: it is built again.  Making
	 * room must not evict a table this batch hands out.
	 */
	for (j = done; j; j = j->next) {
		j->stale = j->t && evicted_since(ru, j);
		if (j->stale)
			j->t = NULL;
		else if (j->t)
			hmap__put(&ru->pinned, table_key(j->t), 1);
	}
	for (j = done; j; j = next) {
		next = j->next;
		if (j->stale) {
			ru->stale++;
			requeue(ru, j);
			continue;
		}
		if (!complete_job(ru, j)) {
			p = unwind_procs__get(&ru->procs, j->m.pid, false);
			if (p)
				unwind_proc__landed(p);
			job__free(j);
			taken++;
		}
	}
	hmap__clear(&ru->pinned);
	ru->in_worker -= taken;
	return !ru->in_worker;
}

void record_unwind__summary(struct record_unwind *ru,
			    const struct fxtprof_stats *total)
{
	struct unwind_cache_stats st;

	if (!ru->src)
		return;
	worker_stop(ru);
	unwind_cache__stats(ru->cache, &st);
	fprintf(stderr, "fxtprof: unwind tables: %" PRIu64 " (%" PRIu64
		" rows, %" PRIu64 " bytes, built in %.1f ms), %" PRIu64
		" of %" PRIu64 " mappings mapped; files without CFI %" PRIu64
		", unreadable %" PRIu64 ", without build id %" PRIu64,
		st.tables, st.rows, st.bytes, (double)ru->build_ns / 1e6,
		ru->mapped, ru->mappings, st.no_cfi,
		ru->unreadable + st.failed, ru->no_build_id + st.no_build_id);
	if (ru->unbuilt)
		fprintf(stderr, ", not built before the end %" PRIu64,
			ru->unbuilt);
	if (ru->inherited)
		fprintf(stderr, ", ranges given to forked children %" PRIu64,
			ru->inherited);
	if (ru->remapped)
		fprintf(stderr, ", ranges given again at an exec %" PRIu64,
			ru->remapped);
	if (ru->load_failed - ru->source_full || ru->map_failed ||
	    ru->unplaced)
		fprintf(stderr, ", refused by the source %" PRIu64
			" tables and %" PRIu64 " mappings, unplaced %" PRIu64,
			ru->load_failed - ru->source_full, ru->map_failed,
			ru->unplaced);
	fputc('\n', stderr);
	/* How --unwind-memory was shared (Documentation/unwinding.md). */
	fprintf(stderr, "fxtprof: unwind memory: over --unwind-memory %"
		PRIu64 " tables (%" PRIu64 " bytes), the source full %" PRIu64
		" times; %" PRIu64 " mappings waited for their process's first"
		" sample (%" PRIu64 " still wait), %" PRIu64 " found no room,"
		" %" PRIu64 " tables evicted (%" PRIu64 " bytes)",
		st.over_cap, st.over_cap_bytes, ru->source_full, ru->waited,
		ru->procs.waiting, ru->no_room, ru->evicted,
		ru->evicted_bytes);
	if (ru->unload_failed)
		fprintf(stderr, ", %" PRIu64 " evictions refused by the source",
			ru->unload_failed);
	if (ru->stale)
		fprintf(stderr, ", %" PRIu64 " built again (evicted while "
			"handed out)", ru->stale);
	if (ru->pruned)
		fprintf(stderr, "; %" PRIu64 " processes found gone without "
			"their exit, %" PRIu64 " of them with ranges taken back "
			"from the source", ru->pruned, ru->ranges_taken_back);
	fputc('\n', stderr);
	fprintf(stderr, "fxtprof: user frames: %llu from tables, %llu by frame pointers where no table, %llu where a row has no rule\n",
		(unsigned long long)total->unwind_table_frames,
		(unsigned long long)total->unwind_fp_frames,
		(unsigned long long)total->unwind_rule_frames);
}

void record_unwind__fini(struct record_unwind *ru)
{
	struct hmap_slot *s;

	worker_stop(ru);
	if (ru->efd >= 0) {
		close(ru->efd);
		pthread_mutex_destroy(&ru->q.lock);
		pthread_cond_destroy(&ru->q.more);
	}
	unwind_cache__free(ru->cache);
	hmap__for_each(&ru->ids, s)
		if (s->val != TABLE_REFUSED)
			free((void *)(uintptr_t)s->val);
	hmap__free(&ru->ids);
	hmap__free(&ru->pinned);
	hmap__free(&ru->known);
	hmap__free(&ru->evicted_at);
	unwind_procs__free(&ru->procs);
	memset(ru, 0, sizeof(*ru));
}

uint64_t record_unwind__memory(struct record_unwind *ru)
{
	uint64_t n;

	if (!record_unwind__active(ru))
		return 0;
	pthread_mutex_lock(&ru->q.lock);
	n = ru->cache_bytes;
	pthread_mutex_unlock(&ru->q.lock);
	return n;
}
