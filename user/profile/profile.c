// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile.c - load an fxtprof FXT recording into the model of profile.h.
 *
 * One pass over the records with the FXT decoder, then sorting:
 *  - samples: a `cpu/sample` instant event, then (if it has frames) a
 *    large blob on the same thread with the same timestamp; the frames of
 *    all samples go to one array;
 *  - names: every process/thread kernel object becomes a (id, time,
 *    file position, name) entry.  Kernel objects carry no time, so the
 *    time of a name is decided from the records around it (see
 *    name_effective_time() and Documentation/reports.md);
 *  - mappings (0x80), kernel images (0x81), kernel symbols (0x82), and
 *    the fork and exec events that tell which process inherits whose
 *    mappings;
 *  - the wall-clock anchor (0x83), the first one read: every segment
 *    repeats the recorder's;
 *  - the application's annotations, kept by profile_annot.c;
 *  - stack copies (`fxtprof`/`ustack_copy` blobs after a sample's), kept
 *    whole until profile__unwind_copies() gives their samples frames,
 *    then freed.
 * Lookups are binary searches over arrays sorted once at the end.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fxtprof.h>

#include "util/array_grow.h"
#include "util/hmap.h"
#include "fxt/fxt_reader.h"
#include "fxt/fxt_profile.h"
#include "profile.h"
#include "profile_annot.h"
#include "profile_runs.h"

#define CHUNK		(1u << 20)
#define KERNEL_MIN	0xffff000000000000ull
/* Fork chains followed when a process has no mapping of its own. */
#define MAX_FORK_DEPTH	32

/* ---- small containers ---------------------------------------------- */

#define VEC_PUSH(arr, n, cap) \
	(array_grow((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))) ? NULL : \
	 &(arr)[(n)++])

/* u64 -> u64 open addressing map; key 0 is stored as a flag. */
struct u64map {
	uint64_t *keys, *vals;
	size_t cap, n;
	bool has_zero;
	uint64_t zero_val;
};

static size_t u64map_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

/* The value slot of key, inserted as def if absent; NULL on ENOMEM. */
static uint64_t *u64map_get(struct u64map *m, uint64_t key, uint64_t def)
{
	size_t i;

	if (!key) {
		if (!m->has_zero) {
			m->has_zero = true;
			m->zero_val = def;
		}
		return &m->zero_val;
	}
	if (2 * (m->n + 1) > m->cap) {
		struct u64map nm = { .cap = m->cap ? 2 * m->cap : 256 };

		nm.keys = calloc(nm.cap, sizeof(*nm.keys));
		nm.vals = malloc(nm.cap * sizeof(*nm.vals));
		if (!nm.keys || !nm.vals) {
			free(nm.keys);
			free(nm.vals);
			return NULL;
		}
		for (i = 0; i < m->cap; i++) {
			size_t j;

			if (!m->keys[i])
				continue;
			for (j = u64map_slot(m->keys[i], nm.cap); nm.keys[j];
			     j = (j + 1) & (nm.cap - 1))
				;
			nm.keys[j] = m->keys[i];
			nm.vals[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nm.keys;
		m->vals = nm.vals;
		m->cap = nm.cap;
	}
	for (i = u64map_slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	m->keys[i] = key;
	m->vals[i] = def;
	m->n++;
	return &m->vals[i];
}

static const uint64_t *u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!key)
		return m->has_zero ? &m->zero_val : NULL;
	if (!m->cap)
		return NULL;
	for (i = u64map_slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}

static void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

/* Interned strings: equal names share one pointer, which reports compare. */
struct strpool {
	char **slots;
	size_t cap, n;
};

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static const char *strpool_add(struct strpool *sp, const char *s, size_t len)
{
	size_t i;
	char *c;

	if (2 * (sp->n + 1) > sp->cap) {
		size_t ncap = sp->cap ? 2 * sp->cap : 256;
		char **ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (i = 0; i < sp->cap; i++) {
			size_t j;

			if (!sp->slots[i])
				continue;
			j = str_hash(sp->slots[i], strlen(sp->slots[i])) & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = sp->slots[i];
		}
		free(sp->slots);
		sp->slots = ns;
		sp->cap = ncap;
	}
	for (i = str_hash(s, len) & (sp->cap - 1); sp->slots[i];
	     i = (i + 1) & (sp->cap - 1))
		if (!strncmp(sp->slots[i], s, len) && !sp->slots[i][len])
			return sp->slots[i];
	c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = 0;
	sp->slots[i] = c;
	sp->n++;
	return c;
}

static void strpool_free(struct strpool *sp)
{
	size_t i;

	for (i = 0; i < sp->cap; i++)
		free(sp->slots[i]);
	free(sp->slots);
}

/* ---- the model ------------------------------------------------------ */

/* The array of them is the largest of a profile: it stays this small. */
struct sample_ent {
	struct profile_sample s;
	uint64_t seq;			/* file position: ties keep file order */
};

/*
 * The distinct stacks, in chunks that never move, so that a sample
 * points at its stack from the time it is read.
 */
struct frame_chunk {
	struct frame_chunk *prev;
	size_t n, cap;			/* words */
	uint64_t w[];
};

#define FRAME_CHUNK_WORDS	(1u << 16)

/* A name a thread (or process) took, from (t, seq) on. */
struct name_ent {
	uint64_t id;			/* tid or pid */
	uint64_t t;			/* ns */
	uint64_t seq;
	const char *name;
};

/* Per thread or process: what decides the time of its next name. */
struct name_clock {
	uint64_t last_ts;
	bool seen;
	size_t pending_first;		/* names written since its last record */
	size_t pending_end;
};

struct fork_ent {
	uint32_t child, parent;
	uint64_t ts;
};

/* An exec of pid, or a change to the mappings pid sees (epochs[]). */
struct pid_event {
	uint32_t pid;
	uint64_t ts;
};

/* Per pid: its mappings sorted by start, with the running max of ends. */
struct pid_maps {
	uint32_t pid;
	size_t first, n;
};

/* A sample's stack copy, by the sample's file position. */
struct copy_ent {
	uint64_t seq;
	size_t len;
	void *data;			/* struct fxtprof_stack_copy */
};

struct profile {
	struct strpool strs;
	struct sample_ent *samples;
	size_t nr_samples, cap_samples;
	struct sample_ent *waits;	/* off-CPU, by when they began */
	size_t nr_waits, cap_waits;
	bool waits_unsorted;
	struct frame_chunk *frames;	/* each distinct stack once; newest */
	uint64_t frames_total;		/* of all samples */
	uint64_t unresolved_stacks;	/* naming a stack never defined */
	uint64_t partial_ustacks[FXTPROF_USTACK_END_SLOTS];

	struct name_ent *tnames, *pnames;
	size_t nr_tnames, cap_tnames, nr_pnames, cap_pnames;
	struct u64map tclock, pclock;	/* id -> index in clocks[] */
	struct name_clock *clocks;
	size_t nr_clocks, cap_clocks;
	struct u64map tname_idx, pname_idx;	/* id -> first<<32 | count */

	struct profile_mapping *maps;
	size_t nr_maps, cap_maps;
	uint64_t *map_max_end;		/* per maps[] index, within its pid */
	struct pid_maps *pids;
	size_t nr_pids;
	struct u64map map_serials;

	struct fork_ent *forks;
	size_t nr_forks, cap_forks;
	struct pid_event *execs;
	size_t nr_execs, cap_execs;
	struct pid_event *epochs;	/* sorted; see index_epochs() */
	size_t nr_epochs;

	struct profile_kmod *kmods;
	size_t nr_kmods, cap_kmods;
	struct profile_ksym *ksyms;
	size_t nr_ksyms, cap_ksyms;
	struct profile_process *procs;	/* containers, the latest per pid */
	size_t nr_procs, cap_procs;
	struct u64map proc_idx;		/* pid -> index + 1 in procs[] */
	struct jit_ent *jits;		/* by (pid, start, seq) once loaded */
	size_t nr_jits, cap_jits;

	uint64_t lost_records, output_dropped;
	uint64_t clock_boot_ns, clock_realtime_ns;
	bool has_clock;
	struct profile_machine machine;	/* from the clock object */
	const char *swapper[256];	/* swapper/N names, by cpu */
	struct profile_annots *annots;
	struct profile_runs *runs;	/* from the context switches */

	struct copy_ent *copies;
	size_t nr_copies, cap_copies;
	struct hmap stacks;		/* the loader's, kept for the copies */
	struct profile_copy_stats copy_stats;
	bool copies_unwound;		/* and freed */
	uint64_t copies_walked;		/* of samples with a walked stack */
};

/* A JIT function; seq orders those of one start, the last wins. */
struct jit_ent {
	struct profile_jit j;
	uint64_t seq;
};

/* Loader state that does not outlive the load. */
struct loader {
	struct profile *p;
	struct fxt_reader *rd;
	struct fxt_record *rec;
	struct profile_error *err;
	uint64_t seq;
	size_t last_sample;		/* index + 1 of the newest sample */
	size_t copy_sample;		/* the same, kept past its frames */
	uint16_t kframes;		/* its kframes argument, 0 if none */
	bool unsorted;			/* a sample before its predecessor */
	struct hmap stacks;		/* stack (a pointer) -> frames, by hash */
	/* The segment's shared stacks, by id (fxt_profile.h); NULL: none. */
	struct stack_def *stack_defs;
};

/* A shared stack: interned frames, or n == 0 while the id is undefined. */
struct stack_def {
	const uint64_t *ips;
	uint16_t n, nk;
};

static int fail(struct loader *ld, uint64_t off, int errnum,
		const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct loader *ld, uint64_t off, int errnum,
		const char *fmt, ...)
{
	va_list ap;

	if (ld->err) {
		ld->err->offset = off;
		va_start(ap, fmt);
		vsnprintf(ld->err->msg, sizeof(ld->err->msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

static uint64_t to_ns(struct loader *ld, uint64_t ticks)
{
	int64_t ns;

	/* fxtprof's streams tick in ns: no 128-bit division per record. */
	if (ticks <= INT64_MAX &&
	    fxt_reader__ticks_per_sec(ld->rd) == 1000000000ull)
		return ticks;
	if (fxt_reader__ticks_to_ns(ld->rd, ticks, &ns))
		return ticks;
	return (uint64_t)ns;
}

/* ---- names at sample time ------------------------------------------- */

/* The clock of id, created if new: an index, since clocks[] may move. */
static int clock_of(struct loader *ld, struct u64map *m, uint64_t id,
		    size_t *idx)
{
	struct profile *p = ld->p;
	uint64_t *slot = u64map_get(m, id, UINT64_MAX);
	struct name_clock *c;

	if (!slot)
		return -ENOMEM;
	if (*slot == UINT64_MAX) {
		c = VEC_PUSH(p->clocks, p->nr_clocks, p->cap_clocks);
		if (!c)
			return -ENOMEM;
		memset(c, 0, sizeof(*c));
		*slot = p->nr_clocks - 1;
	}
	*idx = (size_t)*slot;
	return 0;
}

/*
 * A timestamped record of thread (pid, tid): the clocks of both move on,
 * and names written before it are no longer pending.
 */
static int clock_tick(struct loader *ld, uint64_t pid, uint64_t tid,
		      uint64_t ts)
{
	struct profile *p = ld->p;
	size_t ti, pi;

	if (clock_of(ld, &p->tclock, tid, &ti) ||
	    clock_of(ld, &p->pclock, pid, &pi))
		return -ENOMEM;
	p->clocks[ti] = (struct name_clock){ .last_ts = ts, .seen = true };
	p->clocks[pi] = (struct name_clock){ .last_ts = ts, .seen = true };
	return 0;
}

/*
 * The names written just before an exec (or a fork, for the child) belong
 * to that event: they take its timestamp, which is exact, rather than the
 * time of the thread's previous record.  That time may be later than the
 * event's: the thread's last record in the file can be a sample from
 * another CPU's block, drained before the ring that holds the exec.
 */
static int names_take_time(struct loader *ld, struct u64map *m,
			   struct name_ent *names, uint64_t id, uint64_t ts)
{
	struct name_clock *c;
	size_t i, ci;

	if (clock_of(ld, m, id, &ci))
		return -ENOMEM;
	c = &ld->p->clocks[ci];
	for (i = c->pending_first; i < c->pending_end; i++)
		if (names[i].id == id)
			names[i].t = ts;
	/*
	 * A thread with no record of its own yet exists from here: a name
	 * written for it later (a rename right after a fork, its ring
	 * drained after the parent's) takes effect after this one, not
	 * from time 0 before it.
	 */
	if (!c->seen) {
		c->last_ts = ts;
		c->seen = true;
	}
	return 0;
}

/*
 * A name record: kernel objects carry no time.  Records of one CPU are in
 * order, and a thread's rename or exec is written to the ring of the CPU
 * it runs on, so the name takes effect right after the thread's previous
 * record in the file: at that record's time, ordered after it by file
 * position.  A thread never seen before has its name from time 0.
 */
static int name_add(struct loader *ld, bool thread, uint64_t id,
		    const struct fxt_str *s)
{
	struct profile *p = ld->p;
	struct u64map *m = thread ? &p->tclock : &p->pclock;
	struct name_clock *c;
	struct name_ent *e;
	size_t idx, ci;

	if (clock_of(ld, m, id, &ci))
		return -ENOMEM;
	c = &p->clocks[ci];
	if (thread)
		e = VEC_PUSH(p->tnames, p->nr_tnames, p->cap_tnames);
	else
		e = VEC_PUSH(p->pnames, p->nr_pnames, p->cap_pnames);
	if (!e)
		return -ENOMEM;
	idx = (size_t)(e - (thread ? p->tnames : p->pnames));
	e->id = id;
	e->t = c->seen ? c->last_ts : 0;
	e->seq = ld->seq;
	e->name = strpool_add(&p->strs, s->data, s->len);
	if (!e->name)
		return -ENOMEM;
	if (c->pending_end != idx || c->pending_first == c->pending_end)
		c->pending_first = idx;
	c->pending_end = idx + 1;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int index_names(struct name_ent *names, size_t n, struct u64map *idx)
{
	size_t i, first;

	array_sort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i = first) {
		uint64_t *slot;

		for (first = i; first < n && names[first].id == names[i].id;
		     first++)
			;
		slot = u64map_get(idx, names[i].id, 0);
		if (!slot)
			return -ENOMEM;
		*slot = (uint64_t)i << 32 | (first - i);
	}
	return 0;
}

/* The newest name of id that took effect before (ts, seq), or NULL. */
static const char *name_at(const struct name_ent *names,
			   const struct u64map *idx, uint64_t id, uint64_t ts,
			   uint64_t seq)
{
	const uint64_t *v = u64map_find(idx, id);
	size_t lo, hi, first;

	if (!v)
		return NULL;
	first = (size_t)(*v >> 32);
	lo = 0;
	hi = (size_t)(*v & 0xffffffffu);
	/* The first entry after (ts, seq); its predecessor is in effect. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct name_ent *e = &names[first + mid];

		if (e->t < ts || (e->t == ts && e->seq < seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Before its first name, a thread is best called by that name. */
	return names[first + (lo ? lo - 1 : 0)].name;
}

/* ---- records -------------------------------------------------------- */

/*
 * A sample that names a shared stack instead of carrying its frames: no
 * blob follows it.  One naming an id its segment did not define keeps no
 * frames, and is counted.
 */
static void on_stack_ref(struct loader *ld, struct sample_ent *e, uint64_t id)
{
	const struct stack_def *d;

	ld->last_sample = 0;
	d = ld->stack_defs && id < FXT_STACK_REFS_MAX ? &ld->stack_defs[id]
						       : NULL;
	if (!d || !d->n) {
		ld->p->unresolved_stacks++;
		return;
	}
	e->s.ips = d->ips;
	e->s.nr_kernel = d->nk;
	e->s.nr_user = (uint16_t)(d->n - d->nk);
	ld->p->frames_total += d->n;
}

static int on_sample(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct sample_ent *e;
	struct fxt_str mode;
	uint64_t v;

	e = VEC_PUSH(p->samples, p->nr_samples, p->cap_samples);
	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	e->s.ts = to_ns(ld, rec->ts);
	e->s.pid = (uint32_t)rec->thread.pid;
	e->s.tid = (uint32_t)rec->thread.tid;
	if (fxt_record__arg_uint(rec, FXT_PROFILE_ARG_CPU, &v))
		e->s.cpu = (uint16_t)v;
	ld->kframes = 0;
	if (fxt_record__arg_uint(rec, FXT_PROFILE_ARG_KFRAMES, &v))
		ld->kframes = v > 0xffff ? 0xffff : (uint16_t)v;
	/* A fourth argument only on a partial user stack (fxt_profile.h). */
	if (rec->nargs > 3 &&
	    fxt_record__arg_str(rec, FXT_PROFILE_ARG_USTACK_END, &mode)) {
		e->s.ustack_end = (uint8_t)fxt_profile__ustack_end(&mode);
		p->partial_ustacks[e->s.ustack_end]++;
	}
	if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_MODE, &mode)) {
		if (fxt_str__is(&mode, FXT_PROFILE_MODE_KERNEL))
			e->s.mode = FXTPROF_MODE_KERNEL;
		else if (fxt_str__is(&mode, FXT_PROFILE_MODE_USER))
			e->s.mode = FXTPROF_MODE_USER;
		else if (fxt_str__is(&mode, FXT_PROFILE_MODE_IDLE))
			e->s.mode = FXTPROF_MODE_IDLE;
	}
	e->seq = ld->seq;
	ld->last_sample = p->nr_samples;
	ld->copy_sample = p->nr_samples;
	if (rec->nargs > 3 &&
	    fxt_record__arg_uint(rec, FXT_PROFILE_ARG_STACK, &v))
		on_stack_ref(ld, e, v);
	if (p->nr_samples > 1 && e->s.ts < e[-1].s.ts)
		ld->unsorted = true;
	return 0;
}

/*
 * A wait (cpu / off-cpu): a complete event from when the thread left its
 * CPU to when it ran again, its stacks by reference.
 */
static int on_offcpu(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct sample_ent *e;
	struct fxt_str str;
	uint64_t v, end;

	if (!rec->event.has_payload)
		return 0;
	e = VEC_PUSH(p->waits, p->nr_waits, p->cap_waits);
	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	e->s.ts = to_ns(ld, rec->ts);
	end = to_ns(ld, rec->event.payload);
	e->s.wait_ns = end > e->s.ts ? end - e->s.ts : 0;
	e->s.pid = (uint32_t)rec->thread.pid;
	e->s.tid = (uint32_t)rec->thread.tid;
	e->s.mode = FXTPROF_MODE_KERNEL;
	if (fxt_record__arg_uint(rec, FXT_PROFILE_ARG_CPU, &v))
		e->s.cpu = (uint16_t)v;
	if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_STATE, &str))
		e->s.wait_state = (uint8_t)fxt_profile__wait_state(&str);
	if (fxt_record__arg_uint(rec, FXT_PROFILE_ARG_WAKER_TID, &v))
		e->s.waker_tid = (uint32_t)v;
	if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_USTACK_END, &str))
		e->s.ustack_end = (uint8_t)fxt_profile__ustack_end(&str);
	e->seq = ld->seq;
	if (fxt_record__arg_uint(rec, FXT_PROFILE_ARG_STACK, &v))
		on_stack_ref(ld, e, v);
	if (p->nr_waits > 1 && e->s.ts < e[-1].s.ts)
		p->waits_unsorted = true;
	return 0;
}

struct stack_key {
	const uint64_t *ips;
	uint32_t n;
};

static bool stack_eq(const void *ctx, const struct hmap_slot *s)
{
	const struct stack_key *k = ctx;

	return s->val == k->n &&
	       !memcmp((const uint64_t *)(uintptr_t)s->key, k->ips,
		       k->n * sizeof(*k->ips));
}

/*
 * Every sample's stack is hashed: two multiply chains over alternate
 * frames, so that one multiplication's latency overlaps the other's,
 * then hmap_hash_u64() to spread what the products leave in their high
 * bits.
 */
static uint64_t stack_hash(const uint64_t *ips, uint32_t n)
{
	uint64_t a = n, b = 0;
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2) {
		a = (a + ips[i]) * 0x9e3779b97f4a7c15ull;
		b = (b + ips[i + 1]) * 0xbf58476d1ce4e5b9ull;
	}
	if (i < n)
		a = (a + ips[i]) * 0x9e3779b97f4a7c15ull;
	return hmap_hash_u64(a ^ (b >> 32 | b << 32));
}

/* Room for n more frames in the newest chunk: where they go, or NULL. */
static uint64_t *frames_room(struct profile *p, size_t n)
{
	struct frame_chunk *c = p->frames;

	if (c && c->cap - c->n >= n)
		return c->w + c->n;
	c = malloc(sizeof(*c) + (n > FRAME_CHUNK_WORDS ? n : FRAME_CHUNK_WORDS) *
		   sizeof(c->w[0]));
	if (!c)
		return NULL;
	c->prev = p->frames;
	c->n = 0;
	c->cap = n > FRAME_CHUNK_WORDS ? n : FRAME_CHUNK_WORDS;
	p->frames = c;
	return c->w;
}

/*
 * The stack just written at frames_room(), n frames, becomes e's: kept
 * if new, else e shares the first copy.  Samples repeat few stacks (a
 * loop's), so this keeps the frames, and what later walks them, to the
 * distinct stacks.
 */
static int intern_frames(struct profile *p, struct hmap *stacks,
			 const uint64_t *ips, uint32_t n, const uint64_t **kept)
{
	struct stack_key k = { .ips = ips, .n = n };
	uint64_t hash = stack_hash(ips, n);
	struct hmap_slot *hit = hmap__find(stacks, hash, stack_eq, &k);

	if (hit) {
		*kept = (const uint64_t *)(uintptr_t)hit->key;
		return 0;
	}
	*kept = ips;
	p->frames->n += n;
	return hmap__add(stacks, hash, (uintptr_t)ips, n, NULL);
}

static int intern_stack(struct profile *p, struct hmap *stacks,
			struct sample_ent *e, const uint64_t *ips, uint32_t n)
{
	return intern_frames(p, stacks, ips, n, &e->s.ips);
}

/*
 * How many of the n frames at ips are the kernel's: the kframes
 * argument, or without it the addresses tell.
 */
static uint16_t kernel_frames(const uint64_t *ips, unsigned int n,
			      unsigned int kframes)
{
	unsigned int k = kframes;

	if (k > n || (!k && ips[0] >= KERNEL_MIN))
		for (k = 0; k < n && ips[k] >= KERNEL_MIN; k++)
			;
	return (uint16_t)k;
}

static int on_stack(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct sample_ent *e;
	uint64_t n = rec->large.len / 8, i;
	const unsigned char *d = rec->large.data;
	uint64_t *ips;

	if (!ld->last_sample)
		return 0;
	e = &p->samples[ld->last_sample - 1];
	/* A blob that does not follow its sample event stands alone: skip. */
	if (e->s.pid != rec->thread.pid || e->s.tid != rec->thread.tid ||
	    e->s.ts != to_ns(ld, rec->ts) || !n)
		return 0;
	if (n > UINT16_MAX)
		return fail(ld, rec->offset, EPROTO,
			    "stack of %" PRIu64 " frames, more than %u", n,
			    UINT16_MAX);
	ips = frames_room(p, n);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t w;

		memcpy(&w, d + 8 * i, 8);	/* the FXT stream is LE */
		ips[i] = le64toh(w);
	}
	e->s.nr_kernel = kernel_frames(ips, n, ld->kframes);
	e->s.nr_user = (uint16_t)(n - e->s.nr_kernel);
	p->frames_total += n;
	ld->last_sample = 0;
	return intern_stack(p, &ld->stacks, e, ips, n);
}

/*
 * A shared stack's definition (a blob record, fxt_profile.h): its frames
 * interned, under its id until the segment ends or the id is defined
 * again.  A malformed one is an error: the samples naming it would be
 * wrong.
 */
static int on_stack_def(struct loader *ld, const struct fxt_record *rec)
{
	const unsigned char *d = rec->blob.data;
	uint64_t head, w, i;
	unsigned int id, nk, n;
	struct stack_def *def;
	uint64_t *ips;

	if (rec->blob.len < 16 || rec->blob.len % 8)
		goto bad;
	memcpy(&head, d, 8);
	head = le64toh(head);
	id = (unsigned int)(head & 0xffffffffu);
	nk = (unsigned int)(head >> 32 & 0xffff);
	n = (unsigned int)(head >> 48);
	if (id >= FXT_STACK_REFS_MAX || !n || nk > n ||
	    rec->blob.len != 8 * (FXT_STACK_DEF_FRAMES + (uint64_t)n))
		goto bad;
	if (!ld->stack_defs) {
		ld->stack_defs = calloc(FXT_STACK_REFS_MAX,
					sizeof(*ld->stack_defs));
		if (!ld->stack_defs)
			return -ENOMEM;
	}
	ips = frames_room(ld->p, n);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(&w, d + 8 * (FXT_STACK_DEF_FRAMES + i), 8);
		ips[i] = le64toh(w);
	}
	def = &ld->stack_defs[id];
	def->n = (uint16_t)n;
	def->nk = (uint16_t)nk;
	return intern_frames(ld->p, &ld->stacks, ips, n, &def->ips);
bad:
	return fail(ld, rec->offset, EPROTO,
		    "malformed %s blob of %u bytes", FXT_PROFILE_STACK_DEF,
		    rec->blob.len);
}

/* A new segment (its magic record): the shared stacks start over. */
static void on_segment(struct loader *ld)
{
	profile_runs__segment(ld->p->runs);
	if (ld->stack_defs)
		memset(ld->stack_defs, 0,
		       FXT_STACK_REFS_MAX * sizeof(*ld->stack_defs));
}

/* Whether a sample's user stack wants its copy's: only the leaf, or partial. */
static bool wants_copy(const struct profile_sample *s)
{
	return s->nr_user <= 1 || s->ustack_end;
}

/*
 * A stack copy: kept with the file position of its sample, the newest,
 * which it follows on the same thread at the same time (after the
 * sample's frames, if any).  One that follows no sample is skipped.
 */
static int on_copy(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct sample_ent *e;
	struct copy_ent *c;

	if (!ld->copy_sample)
		return 0;
	e = &p->samples[ld->copy_sample - 1];
	ld->copy_sample = 0;
	if (e->s.pid != rec->thread.pid || e->s.tid != rec->thread.tid ||
	    e->s.ts != to_ns(ld, rec->ts))
		return 0;
	/* A walked stack is kept: its copy is counted, not stored. */
	if (!wants_copy(&e->s)) {
		p->copies_walked++;
		return 0;
	}
	c = VEC_PUSH(p->copies, p->nr_copies, p->cap_copies);
	if (!c)
		return -ENOMEM;
	c->seq = e->seq;
	c->len = rec->large.len;
	c->data = malloc(c->len ? c->len : 1);
	if (!c->data) {
		p->nr_copies--;
		return -ENOMEM;
	}
	memcpy(c->data, rec->large.data, c->len);
	return 0;
}

static int on_task(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	const struct fxt_str *n = &rec->event.name;
	uint64_t ts = to_ns(ld, rec->ts);
	uint64_t cpid, ctid;
	int ret;

	if (fxt_str__is(n, FXT_PROFILE_EV_EXEC)) {
		struct pid_event *x = VEC_PUSH(p->execs, p->nr_execs,
					      p->cap_execs);

		if (!x)
			return -ENOMEM;
		x->pid = (uint32_t)rec->thread.pid;
		x->ts = ts;
		ret = names_take_time(ld, &p->tclock, p->tnames,
				      rec->thread.tid, ts);
		return ret ? ret : names_take_time(ld, &p->pclock, p->pnames,
						   rec->thread.pid, ts);
	}
	if (!fxt_str__is(n, FXT_PROFILE_EV_FORK))
		return 0;
	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_CHILD_PID, &cpid) ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_CHILD_TID, &ctid))
		return fail(ld, rec->offset, EPROTO,
			    "task/fork event without child_pid and child_tid");
	ret = names_take_time(ld, &p->tclock, p->tnames, ctid, ts);
	if (!ret && cpid == ctid)
		ret = names_take_time(ld, &p->pclock, p->pnames, cpid, ts);
	if (ret || cpid != ctid)
		return ret;
	{
		struct fork_ent *f = VEC_PUSH(p->forks, p->nr_forks,
					      p->cap_forks);

		if (!f)
			return -ENOMEM;
		f->child = (uint32_t)cpid;
		f->parent = (uint32_t)rec->thread.pid;
		f->ts = ts;
	}
	return 0;
}

static int on_event(struct loader *ld, const struct fxt_record *rec)
{
	const struct fxt_str *c = &rec->event.category, *n = &rec->event.name;
	uint64_t v;
	int ret;

	if (rec->subtype == FXT_EVENT_INSTANT &&
	    fxt_str__is(c, FXT_PROFILE_CAT_TASK)) {
		ret = on_task(ld, rec);
		if (ret)
			return ret;
	}
	ret = clock_tick(ld, rec->thread.pid, rec->thread.tid,
			 to_ns(ld, rec->ts));
	if (ret)
		return ret;
	if (rec->subtype == FXT_EVENT_INSTANT &&
	    fxt_str__is(c, FXT_PROFILE_CAT_CPU) &&
	    fxt_str__is(n, FXT_PROFILE_EV_SAMPLE))
		return on_sample(ld, rec);
	if (rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
	    fxt_str__is(c, FXT_PROFILE_CAT_CPU) &&
	    fxt_str__is(n, FXT_PROFILE_EV_OFFCPU))
		return on_offcpu(ld, rec);
	if (profile_annots__is_annotation(rec)) {
		const char *name = strpool_add(&ld->p->strs, n->data, n->len);

		return name ? profile_annots__add(ld->p->annots, rec,
						  to_ns(ld, rec->ts), ld->seq,
						  name) : -ENOMEM;
	}
	if (rec->subtype == FXT_EVENT_COUNTER &&
	    fxt_str__is(c, FXT_PROFILE_CAT_META)) {
		if (fxt_str__is(n, FXT_PROFILE_EV_KERNEL_LOST) &&
		    fxt_record__arg_uint(rec, FXT_PROFILE_ARG_RECORDS, &v))
			ld->p->lost_records = v;
		else if (fxt_str__is(n, FXT_PROFILE_EV_OUTPUT_DROPPED) &&
			 fxt_record__arg_uint(rec, FXT_PROFILE_ARG_RECORDS,
					      &v))
			ld->p->output_dropped = v;
	}
	return 0;
}

static int build_id_from_hex(const struct fxt_str *s, uint8_t *out,
			     uint8_t *size)
{
	uint32_t i;

	if (s->len % 2 || s->len / 2 > PROFILE_BUILD_ID_MAX)
		return -EINVAL;
	for (i = 0; i < s->len; i++) {
		char ch = s->data[i];
		int v;

		if (ch >= '0' && ch <= '9')
			v = ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			v = ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			v = ch - 'A' + 10;
		else
			return -EINVAL;
		if (i % 2)
			out[i / 2] |= (uint8_t)v;
		else
			out[i / 2] = (uint8_t)(v << 4);
	}
	*size = (uint8_t)(s->len / 2);
	return 0;
}

/* Optional build_id argument; malformed is an error, absent is not. */
static int kobj_build_id(struct loader *ld, const struct fxt_record *rec,
			 const char *what, uint8_t *out, uint8_t *size)
{
	const struct fxt_argv *a =
		fxt_record__arg(rec, FXT_PROFILE_ARG_BUILD_ID);

	*size = 0;
	if (!a)
		return 0;
	if (a->type != FXT_ARG_STRING ||
	    build_id_from_hex(&a->v.str, out, size))
		return fail(ld, rec->offset, EPROTO,
			    "%s object %#" PRIx64 ": build_id is not a hex "
			    "string of at most %d bytes", what, rec->kobj.koid,
			    PROFILE_BUILD_ID_MAX);
	return 0;
}

static bool arg_bool(const struct fxt_record *rec, const char *name)
{
	const struct fxt_argv *a = fxt_record__arg(rec, name);

	return a && a->type == FXT_ARG_BOOL && a->v.b;
}

static int on_mapping(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct profile_mapping m = { .serial = rec->kobj.koid };
	uint64_t pid, time = 0, *seen;
	int ret;

	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_PID, &pid) ||
	    pid > UINT32_MAX ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_START, &m.start) ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_END, &m.end) ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_PGOFF, &m.pgoff))
		return fail(ld, rec->offset, EPROTO,
			    "mapping object %" PRIu64 ": pid, start, end and "
			    "pgoff must all be integer arguments", m.serial);
	if (m.end <= m.start)
		return fail(ld, rec->offset, EPROTO,
			    "mapping object %" PRIu64 ": end %#" PRIx64
			    " is not above start %#" PRIx64, m.serial, m.end,
			    m.start);
	ret = kobj_build_id(ld, rec, "mapping", m.build_id, &m.build_id_size);
	if (ret)
		return ret;
	m.pid = (uint32_t)pid;
	m.path = strpool_add(&p->strs, rec->kobj.name.data, rec->kobj.name.len);
	if (!m.path)
		return -ENOMEM;
	/*
	 * A mapping seen again under its serial (a stream that replays with
	 * the serials it first gave) is not a new one; a serial reused for
	 * another mapping (two streams put together) is.
	 */
	seen = u64map_get(&p->map_serials, m.serial, 0);
	if (!seen)
		return -ENOMEM;
	if (*seen) {
		const struct profile_mapping *o = &p->maps[*seen - 1];

		if (o->pid == m.pid && o->start == m.start &&
		    o->end == m.end && o->pgoff == m.pgoff && o->path == m.path)
			return 0;
	}
	*seen = p->nr_maps + 1;
	if (!arg_bool(rec, FXT_PROFILE_ARG_INITIAL) &&
	    fxt_record__arg_uint(rec, FXT_PROFILE_ARG_TIME, &time))
		m.time = to_ns(ld, time);
	if (array_grow((void **)&p->maps, &p->cap_maps, p->nr_maps + 1,
		 sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->nr_maps++] = m;
	return 0;
}

static int on_kmod(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct profile_kmod k = { .start = rec->kobj.koid };
	int ret;

	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_END, &k.end) ||
	    k.end <= k.start)
		return fail(ld, rec->offset, EPROTO,
			    "kernel image object %#" PRIx64 ": no integer end "
			    "argument above its start", k.start);
	ret = kobj_build_id(ld, rec, "kernel image", k.build_id,
			    &k.build_id_size);
	if (ret)
		return ret;
	k.is_kernel = arg_bool(rec, FXT_PROFILE_ARG_KERNEL);
	k.name = strpool_add(&p->strs, rec->kobj.name.data, rec->kobj.name.len);
	if (!k.name)
		return -ENOMEM;
	if (array_grow((void **)&p->kmods, &p->cap_kmods, p->nr_kmods + 1,
		 sizeof(*p->kmods)))
		return -ENOMEM;
	p->kmods[p->nr_kmods++] = k;
	return 0;
}

static int on_ksym(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct profile_ksym k = { .addr = rec->kobj.koid };
	uint64_t size;

	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_SIZE, &size) ||
	    size > UINT32_MAX)
		return fail(ld, rec->offset, EPROTO,
			    "kernel symbol object %#" PRIx64 ": no 32-bit "
			    "integer size argument", k.addr);
	if (!rec->kobj.name.len)
		return fail(ld, rec->offset, EPROTO,
			    "kernel symbol object %#" PRIx64 ": no name", k.addr);
	k.size = (uint32_t)size;
	k.name = strpool_add(&p->strs, rec->kobj.name.data, rec->kobj.name.len);
	if (!k.name)
		return -ENOMEM;
	if (array_grow((void **)&p->ksyms, &p->cap_ksyms, p->nr_ksyms + 1,
		 sizeof(*p->ksyms)))
		return -ENOMEM;
	p->ksyms[p->nr_ksyms++] = k;
	return 0;
}

static int on_clock(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	uint64_t boot, real;

	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_BOOT_NS, &boot) ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_REALTIME_NS, &real))
		return fail(ld, rec->offset, EPROTO,
			    "clock object: no integer boot_ns and realtime_ns "
			    "arguments");
	if (!p->has_clock) {
		struct fxt_str v;

		p->clock_boot_ns = boot;
		p->clock_realtime_ns = real;
		p->has_clock = true;
		if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_HOST, &v))
			p->machine.host = strpool_add(&p->strs, v.data, v.len);
		if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_KERNEL_RELEASE, &v))
			p->machine.kernel_release = strpool_add(&p->strs,
								v.data, v.len);
		if (fxt_record__arg_str(rec, FXT_PROFILE_ARG_ARCH, &v))
			p->machine.arch = strpool_add(&p->strs, v.data, v.len);
	}
	return 0;
}

/*
 * A process object's container arguments (cgroup str, nspid int), kept
 * per pid, the latest; a process object without them changes nothing.
 */
static int on_process(struct loader *ld, const struct fxt_record *rec)
{
	const struct fxt_argv *cg = fxt_record__arg(rec, FXT_PROFILE_ARG_CGROUP);
	const struct fxt_argv *ns = fxt_record__arg(rec, FXT_PROFILE_ARG_NSPID);
	struct profile *p = ld->p;
	struct profile_process *pr;
	uint64_t *slot;
	int64_t nspid = -1;

	if (!cg && !ns)
		return 0;
	if (cg && cg->type != FXT_ARG_STRING)
		return fail(ld, rec->offset, EPROTO, "process object %" PRIu64
			    ": cgroup is not a string", rec->kobj.koid);
	if (ns) {
		if (ns->type == FXT_ARG_INT32)
			nspid = ns->v.i32;
		else if (ns->type == FXT_ARG_INT64)
			nspid = ns->v.i64;
		else if (ns->type == FXT_ARG_UINT32)
			nspid = ns->v.u32;
		else
			nspid = -2;
		if (nspid < 0 || nspid > INT32_MAX)
			return fail(ld, rec->offset, EPROTO, "process object %"
				    PRIu64 ": nspid is not a pid",
				    rec->kobj.koid);
	}
	if (rec->kobj.koid > UINT32_MAX)
		return 0;
	slot = u64map_get(&p->proc_idx, rec->kobj.koid, 0);
	if (!slot)
		return -ENOMEM;
	if (!*slot) {
		if (array_grow((void **)&p->procs, &p->cap_procs,
			       p->nr_procs + 1, sizeof(*p->procs)))
			return -ENOMEM;
		*slot = ++p->nr_procs;
	}
	pr = &p->procs[*slot - 1];
	pr->pid = (uint32_t)rec->kobj.koid;
	pr->nspid = (int32_t)nspid;
	pr->cgroup = NULL;
	if (cg) {
		pr->cgroup = strpool_add(&p->strs, cg->v.str.data,
					 cg->v.str.len);
		if (!pr->cgroup)
			return -ENOMEM;
	}
	return 0;
}

static int on_jit_symbol(struct loader *ld, const struct fxt_record *rec)
{
	struct profile *p = ld->p;
	struct jit_ent e = { .j.start = rec->kobj.koid, .seq = ld->seq };
	uint64_t pid;

	if (!fxt_record__arg_uint(rec, FXT_PROFILE_ARG_PID, &pid) ||
	    pid > UINT32_MAX ||
	    !fxt_record__arg_uint(rec, FXT_PROFILE_ARG_SIZE, &e.j.size) ||
	    !e.j.size || e.j.start + e.j.size < e.j.start)
		return fail(ld, rec->offset, EPROTO, "JIT function object %#"
			    PRIx64 ": no integer pid and size arguments that "
			    "make a range", e.j.start);
	e.j.pid = (uint32_t)pid;
	e.j.name = strpool_add(&p->strs, rec->kobj.name.data,
			       rec->kobj.name.len);
	if (!e.j.name)
		return -ENOMEM;
	if (array_grow((void **)&p->jits, &p->cap_jits, p->nr_jits + 1,
		       sizeof(*p->jits)))
		return -ENOMEM;
	p->jits[p->nr_jits++] = e;
	return 0;
}

static int on_kobj(struct loader *ld, const struct fxt_record *rec)
{
	int ret;

	switch (rec->subtype) {
	case FXT_KOBJ_PROCESS:
		ret = on_process(ld, rec);
		return ret ? ret : name_add(ld, false, rec->kobj.koid,
					    &rec->kobj.name);
	case FXT_KOBJ_JIT_SYMBOL:
		return on_jit_symbol(ld, rec);
	case FXT_KOBJ_THREAD:
		return name_add(ld, true, rec->kobj.koid, &rec->kobj.name);
	case FXT_KOBJ_MAPPING:
		return on_mapping(ld, rec);
	case FXT_KOBJ_KMOD:
		return on_kmod(ld, rec);
	case FXT_KOBJ_KSYM:
		return on_ksym(ld, rec);
	case FXT_KOBJ_CLOCK:
		return on_clock(ld, rec);
	}
	return 0;
}

static int on_record(struct loader *ld, const struct fxt_record *rec)
{
	ld->seq++;
	switch (rec->type) {
	case FXT_REC_EVENT:
		return on_event(ld, rec);
	case FXT_REC_KERNEL_OBJ:
		return on_kobj(ld, rec);
	case FXT_REC_METADATA:
		if (rec->subtype == FXT_META_TRACE_INFO &&
		    !rec->meta.trace_info_type)
			on_segment(ld);
		return 0;
	case FXT_REC_SCHED:
		/* Context switches (type 1): the threads' runs. */
		if (rec->subtype != 1)
			return 0;
		return profile_runs__switch(ld->p->runs, rec->sched.cpu,
					    to_ns(ld, rec->ts),
					    (uint32_t)rec->sched.out_tid,
					    (uint32_t)rec->sched.in_tid);
	case FXT_REC_BLOB:
		if (rec->blob.blob_type == FXT_BLOB_DATA &&
		    fxt_str__is(&rec->blob.name, FXT_PROFILE_STACK_DEF))
			return on_stack_def(ld, rec);
		return 0;
	case FXT_REC_LARGE:
		if (rec->subtype != FXT_LARGE_BLOB)
			return 0;
		if (!rec->large.category.len && !rec->large.name.len)
			return on_stack(ld, rec);
		if (fxt_str__is(&rec->large.category, FXT_PROFILE_CAT_META) &&
		    fxt_str__is(&rec->large.name, FXT_PROFILE_EV_USTACK_COPY))
			return on_copy(ld, rec);
		return 0;
	}
	return 0;
}

/* ---- finishing ------------------------------------------------------ */

static int cmp_sample(const void *a, const void *b)
{
	const struct sample_ent *x = a, *y = b;

	if (x->s.ts != y->s.ts)
		return x->s.ts < y->s.ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_map(const void *a, const void *b)
{
	const struct profile_mapping *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->serial > y->serial) - (x->serial < y->serial);
}

static int cmp_kmod(const void *a, const void *b)
{
	const struct profile_kmod *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct profile_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->size < y->size) - (x->size > y->size);
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork_ent *x = a, *y = b;

	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_pid_event(const void *a, const void *b)
{
	const struct pid_event *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_jit(const void *a, const void *b)
{
	const struct jit_ent *x = a, *y = b;

	if (x->j.pid != y->j.pid)
		return x->j.pid < y->j.pid ? -1 : 1;
	if (x->j.start != y->j.start)
		return x->j.start < y->j.start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int index_mappings(struct profile *p)
{
	size_t i, first;

	array_sort(p->maps, p->nr_maps, sizeof(*p->maps), cmp_map);
	p->map_max_end = malloc((p->nr_maps + 1) * sizeof(*p->map_max_end));
	p->pids = malloc((p->nr_maps + 1) * sizeof(*p->pids));
	if (!p->map_max_end || !p->pids)
		return -ENOMEM;
	for (i = 0; i < p->nr_maps; i = first) {
		uint64_t max_end = 0;

		for (first = i; first < p->nr_maps &&
		     p->maps[first].pid == p->maps[i].pid; first++) {
			if (p->maps[first].end > max_end)
				max_end = p->maps[first].end;
			p->map_max_end[first] = max_end;
		}
		p->pids[p->nr_pids].pid = p->maps[i].pid;
		p->pids[p->nr_pids].first = i;
		p->pids[p->nr_pids].n = first - i;
		p->nr_pids++;
	}
	return 0;
}

/*
 * What profile__find_mapping() answers for (pid, ts) depends on the
 * mappings pid got at or before ts, the fork that made it and whether it
 * exec'd since: the times of those events, by pid, are where its epochs
 * begin.  Those at time 0 begin none: they hold for every sample.
 */
static int index_epochs(struct profile *p)
{
	size_t i, n = 0;

	p->epochs = malloc((p->nr_maps + p->nr_forks + p->nr_execs + 1) *
			   sizeof(*p->epochs));
	if (!p->epochs)
		return -ENOMEM;
	for (i = 0; i < p->nr_maps; i++)
		if (p->maps[i].time)
			p->epochs[n++] = (struct pid_event){
				.pid = p->maps[i].pid, .ts = p->maps[i].time,
			};
	for (i = 0; i < p->nr_forks; i++)
		if (p->forks[i].ts)
			p->epochs[n++] = (struct pid_event){
				.pid = p->forks[i].child, .ts = p->forks[i].ts,
			};
	for (i = 0; i < p->nr_execs; i++)
		if (p->execs[i].ts)
			p->epochs[n++] = p->execs[i];
	array_sort(p->epochs, n, sizeof(*p->epochs), cmp_pid_event);
	p->nr_epochs = n;
	return 0;
}

/* Kernel objects are replayed at each segment: keep one of each. */
static void dedup_kernel(struct profile *p)
{
	size_t i, n;

	array_sort(p->kmods, p->nr_kmods, sizeof(*p->kmods), cmp_kmod);
	for (i = n = 0; i < p->nr_kmods; i++)
		if (!n || p->kmods[n - 1].start != p->kmods[i].start ||
		    p->kmods[n - 1].end != p->kmods[i].end ||
		    p->kmods[n - 1].name != p->kmods[i].name)
			p->kmods[n++] = p->kmods[i];
	p->nr_kmods = n;
	array_sort(p->ksyms, p->nr_ksyms, sizeof(*p->ksyms), cmp_ksym);
	for (i = n = 0; i < p->nr_ksyms; i++)
		if (!n || p->ksyms[n - 1].addr != p->ksyms[i].addr)
			p->ksyms[n++] = p->ksyms[i];
	p->nr_ksyms = n;
}

/* The thread and process names of e at its time. */
static int name_sample(struct profile *p, struct sample_ent *e)
{
	struct profile_sample *s = &e->s;
	const char *t, *pr;

	if (!s->pid && !s->tid) {
		unsigned int cpu = s->cpu;
		char buf[32];

		if (cpu < 256 && p->swapper[cpu]) {
			s->comm = p->swapper[cpu];
		} else {
			snprintf(buf, sizeof(buf), "swapper/%u", cpu);
			s->comm = strpool_add(&p->strs, buf, strlen(buf));
			if (!s->comm)
				return -ENOMEM;
			if (cpu < 256)
				p->swapper[cpu] = s->comm;
		}
		s->process = s->comm;
		return 0;
	}
	t = name_at(p->tnames, &p->tname_idx, s->tid, s->ts, e->seq);
	pr = name_at(p->pnames, &p->pname_idx, s->pid, s->ts, e->seq);
	if (!pr)
		pr = name_at(p->tnames, &p->tname_idx, s->pid, s->ts, e->seq);
	if (!t)
		t = pr;
	if (!t) {
		char buf[32];

		/* As perf calls a thread it has no name for. */
		snprintf(buf, sizeof(buf), ":%u", s->tid);
		t = strpool_add(&p->strs, buf, strlen(buf));
		if (!t)
			return -ENOMEM;
	}
	s->comm = t;
	s->process = pr ? pr : t;
	return 0;
}

static int profile_finish(struct loader *ld)
{
	struct profile *p = ld->p;
	struct profile_annot_samples ss;
	size_t i;
	int ret;

	/* Often sorted already (one CPU, or a sorted source): then skip it. */
	if (ld->unsorted)
		array_sort(p->samples, p->nr_samples, sizeof(*p->samples),
			   cmp_sample);
	ret = index_names(p->tnames, p->nr_tnames, &p->tname_idx);
	if (!ret)
		ret = index_names(p->pnames, p->nr_pnames, &p->pname_idx);
	for (i = 0; !ret && i < p->nr_samples; i++)
		ret = name_sample(p, &p->samples[i]);
	if (p->waits_unsorted)
		array_sort(p->waits, p->nr_waits, sizeof(*p->waits),
			   cmp_sample);
	for (i = 0; !ret && i < p->nr_waits; i++) {
		struct sample_ent *w = &p->waits[i];

		ret = name_sample(p, w);
		if (w->s.waker_tid)
			w->s.waker = name_at(p->tnames, &p->tname_idx,
					     w->s.waker_tid,
					     w->s.ts + w->s.wait_ns, w->seq);
	}
	if (!ret)
		ret = index_mappings(p);
	if (ret)
		return ret;
	array_sort(p->forks, p->nr_forks, sizeof(*p->forks), cmp_fork);
	array_sort(p->execs, p->nr_execs, sizeof(*p->execs), cmp_pid_event);
	ret = index_epochs(p);
	if (ret)
		return ret;
	array_sort(p->jits, p->nr_jits, sizeof(*p->jits), cmp_jit);
	dedup_kernel(p);
	ss.first = p->nr_samples ? &p->samples[0].s : NULL;
	ss.stride = sizeof(*p->samples);
	ss.nr = p->nr_samples;
	ret = profile_runs__index(p->runs);
	if (ret)
		return ret;
	return profile_annots__index(p->annots, &ss);
}

static int load_feed(struct loader *ld, const void *data, size_t len)
{
	int ret = len ? fxt_reader__feed(ld->rd, data, len) : 0;

	if (ret)
		return fail(ld, 0, -ret, "cannot buffer the input");
	while ((ret = fxt_reader__next(ld->rd, ld->rec)) > 0) {
		ret = on_record(ld, ld->rec);
		if (ret == -ENOMEM)
			return fail(ld, ld->rec->offset, ENOMEM,
				    "out of memory");
		if (ret)
			return ret;
	}
	if (ret < 0) {
		const struct fxt_error *e = fxt_reader__error(ld->rd);

		return fail(ld, e ? e->offset : 0, -ret, "%s: %s",
			    e && e->rule ? e->rule : "malformed",
			    e ? e->msg : "malformed FXT");
	}
	return 0;
}

static int load_begin(struct loader *ld, struct profile_error *err)
{
	memset(ld, 0, sizeof(*ld));
	ld->err = err;
	if (err) {
		err->offset = 0;
		err->msg[0] = 0;
	}
	ld->p = calloc(1, sizeof(*ld->p));
	ld->rec = malloc(sizeof(*ld->rec));
	if (!ld->p || !ld->rec || profile_annots__new(&ld->p->annots) ||
	    profile_runs__new(&ld->p->runs) || fxt_reader__new(0, &ld->rd)) {
		if (ld->p) {
			profile_annots__free(ld->p->annots);
			profile_runs__free(ld->p->runs);
		}
		free(ld->rec);
		free(ld->p);
		return fail(ld, 0, ENOMEM, "out of memory");
	}
	return 0;
}

static int load_end(struct loader *ld, int ret, struct profile **out)
{
	if (!ret) {
		ret = fxt_reader__finish(ld->rd);
		if (ret) {
			const struct fxt_error *e = fxt_reader__error(ld->rd);

			ret = fail(ld, e ? e->offset : 0, -ret, "%s",
				   e ? e->msg : "truncated");
		}
	}
	if (!ret && (ret = profile_finish(ld)))
		ret = fail(ld, 0, -ret, "out of memory");
	fxt_reader__free(ld->rd);
	free(ld->rec);
	free(ld->stack_defs);
	/* The copies' frames will be interned with the others. */
	if (!ret && ld->p->nr_copies)
		ld->p->stacks = ld->stacks;
	else
		hmap__free(&ld->stacks);
	if (ret) {
		profile__free(ld->p);
		return ret;
	}
	*out = ld->p;
	return 0;
}

int profile__load_buffer(const void *data, size_t len, struct profile **out,
			 struct profile_error *err)
{
	struct loader ld;
	size_t off;
	int ret;

	*out = NULL;
	ret = load_begin(&ld, err);
	if (ret)
		return ret;
	/* In chunks: the reader copies what it is fed. */
	for (off = 0, ret = 0; !ret && off < len; off += CHUNK)
		ret = load_feed(&ld, (const char *)data + off,
				len - off < CHUNK ? len - off : CHUNK);
	return load_end(&ld, ret, out);
}

int profile__load(const char *path, struct profile **out,
		  struct profile_error *err)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct loader ld;
	char *chunk;
	int ret;

	*out = NULL;
	if (!in) {
		ret = -errno;
		if (err) {
			err->offset = 0;
			snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
				 strerror(-ret));
		}
		return ret;
	}
	chunk = malloc(CHUNK);
	ret = chunk ? load_begin(&ld, err) : -ENOMEM;
	if (ret) {
		free(chunk);
		if (in != stdin)
			fclose(in);
		return ret;
	}
	for (;;) {
		size_t got = fread(chunk, 1, CHUNK, in);

		ret = load_feed(&ld, chunk, got);
		if (ret || got < CHUNK)
			break;
	}
	if (!ret && ferror(in))
		ret = fail(&ld, 0, EIO, "%s: read error", path);
	free(chunk);
	if (in != stdin)
		fclose(in);
	return load_end(&ld, ret, out);
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	strpool_free(&p->strs);
	free(p->samples);
	free(p->waits);
	while (p->frames) {
		struct frame_chunk *c = p->frames;

		p->frames = c->prev;
		free(c);
	}
	free(p->tnames);
	free(p->pnames);
	u64map_free(&p->tclock);
	u64map_free(&p->pclock);
	free(p->clocks);
	u64map_free(&p->tname_idx);
	u64map_free(&p->pname_idx);
	free(p->maps);
	free(p->map_max_end);
	free(p->pids);
	u64map_free(&p->map_serials);
	free(p->forks);
	free(p->execs);
	free(p->epochs);
	free(p->kmods);
	free(p->ksyms);
	free(p->procs);
	u64map_free(&p->proc_idx);
	free(p->jits);
	profile_annots__free(p->annots);
	profile_runs__free(p->runs);
	for (i = 0; i < p->nr_copies; i++)
		free(p->copies[i].data);
	free(p->copies);
	hmap__free(&p->stacks);
	free(p);
}

/* ---- queries -------------------------------------------------------- */

const struct profile_runs *profile__runs(const struct profile *p)
{
	return p->runs;
}

const struct profile_annots *profile__annots(const struct profile *p)
{
	return p->annots;
}

const char *profile__wait_state_name(unsigned int state)
{
	return fxt_profile__wait_state_name(state);
}

size_t profile__nr_waits(const struct profile *p)
{
	return p->nr_waits;
}

const struct profile_sample *profile__wait(const struct profile *p, size_t i)
{
	return i < p->nr_waits ? &p->waits[i].s : NULL;
}

size_t profile__nr_samples(const struct profile *p)
{
	return p->nr_samples;
}

const struct profile_sample *profile__sample(const struct profile *p,
					     size_t i)
{
	return i < p->nr_samples ? &p->samples[i].s : NULL;
}

static const struct pid_maps *pid_maps_of(const struct profile *p,
					  uint32_t pid)
{
	size_t lo = 0, hi = p->nr_pids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr_pids && p->pids[lo].pid == pid ? &p->pids[lo] : NULL;
}

/* Among pid's own mappings: the newest created at or before ts over addr. */
static const struct profile_mapping *own_mapping(const struct profile *p,
						 const struct pid_maps *pm,
						 uint64_t addr, uint64_t ts)
{
	const struct profile_mapping *best = NULL;
	size_t lo = 0, hi = pm->n;

	/* The first mapping starting above addr. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->maps[pm->first + mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back over those that may still cover addr: max_end bounds it. */
	while (lo > 0 && p->map_max_end[pm->first + lo - 1] > addr) {
		const struct profile_mapping *m = &p->maps[pm->first + --lo];

		if (m->end <= addr || m->time > ts)
			continue;
		if (!best || m->time > best->time ||
		    (m->time == best->time && m->serial > best->serial))
			best = m;
	}
	return best;
}

static bool exec_between(const struct profile *p, uint32_t pid, uint64_t from,
			 uint64_t to)
{
	size_t lo = 0, hi = p->nr_execs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->execs[mid].pid < pid ||
		    (p->execs[mid].pid == pid && p->execs[mid].ts < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr_execs && p->execs[lo].pid == pid &&
	       p->execs[lo].ts <= to;
}

/* The fork that created pid most recently at or before ts, or NULL. */
static const struct fork_ent *fork_of(const struct profile *p, uint32_t pid,
				      uint64_t ts)
{
	size_t lo = 0, hi = p->nr_forks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->forks[mid].child < pid ||
		    (p->forks[mid].child == pid && p->forks[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && p->forks[lo - 1].child == pid ? &p->forks[lo - 1] : NULL;
}

const struct profile_mapping *profile__find_mapping(const struct profile *p,
						    uint32_t pid,
						    uint64_t addr,
						    uint64_t ts)
{
	unsigned int depth;

	for (depth = 0; depth < MAX_FORK_DEPTH; depth++) {
		const struct pid_maps *pm = pid_maps_of(p, pid);
		const struct profile_mapping *m;
		const struct fork_ent *f;

		m = pm ? own_mapping(p, pm, addr, ts) : NULL;
		if (m)
			return m;
		/*
		 * A child shares its parent's address space until it execs:
		 * after an exec, what the parent had is gone.
		 */
		f = fork_of(p, pid, ts);
		if (!f || f->parent == pid || exec_between(p, pid, f->ts, ts))
			return NULL;
		pid = f->parent;
		ts = f->ts;
	}
	return NULL;
}

uint64_t profile__mapping_epoch(const struct profile *p, uint32_t pid,
				uint64_t ts)
{
	size_t lo = 0, hi = p->nr_epochs;

	/*
	 * The events of every pid up to pid's at or before ts: the count
	 * differs between two times of pid exactly when one of its events
	 * lies between them.
	 */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->epochs[mid].pid < pid ||
		    (p->epochs[mid].pid == pid && p->epochs[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int profile__for_each_mapping(const struct profile *p, uint32_t pid,
			      uint64_t ts,
			      int (*fn)(void *ctx,
					const struct profile_mapping *m),
			      void *ctx)
{
	uint32_t who = pid;
	uint64_t when = ts;
	unsigned int depth;
	int ret;

	/* Up the fork chain as profile__find_mapping() goes. */
	for (depth = 0; depth < MAX_FORK_DEPTH; depth++) {
		const struct pid_maps *pm = pid_maps_of(p, who);
		const struct fork_ent *f;
		size_t i;

		for (i = 0; pm && i < pm->n; i++) {
			const struct profile_mapping *m;

			m = &p->maps[pm->first + i];
			if (m->time > when ||
			    profile__find_mapping(p, pid, m->start, ts) != m)
				continue;
			ret = fn(ctx, m);
			if (ret)
				return ret;
		}
		f = fork_of(p, who, when);
		if (!f || f->parent == who || exec_between(p, who, f->ts, when))
			break;
		who = f->parent;
		when = f->ts;
	}
	return 0;
}

size_t profile__nr_mappings(const struct profile *p)
{
	return p->nr_maps;
}

const struct profile_mapping *profile__mapping(const struct profile *p,
					       size_t i)
{
	return i < p->nr_maps ? &p->maps[i] : NULL;
}

const struct profile_kmod *profile__find_kmod(const struct profile *p,
					      uint64_t addr)
{
	size_t lo = 0, hi = p->nr_kmods;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->kmods[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges do not nest; the last one starting at or below addr. */
	return lo && addr < p->kmods[lo - 1].end ? &p->kmods[lo - 1] : NULL;
}

size_t profile__nr_kmods(const struct profile *p)
{
	return p->nr_kmods;
}

const struct profile_kmod *profile__kmod(const struct profile *p, size_t i)
{
	return i < p->nr_kmods ? &p->kmods[i] : NULL;
}

const struct profile_ksym *profile__find_ksym(const struct profile *p,
					      uint64_t addr)
{
	size_t lo = 0, hi = p->nr_ksyms;
	const struct profile_ksym *k;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	k = &p->ksyms[lo - 1];
	/* Size 0: kallsyms gave none, the symbol runs to the next one. */
	if (k->size ? addr - k->addr < k->size : lo < p->nr_ksyms)
		return k;
	return NULL;
}

const struct profile_jit *profile__find_jit(const struct profile *p,
					    uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_jits;
	const struct profile_jit *j;

	/* The last entry at or before (pid, addr). */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct profile_jit *m = &p->jits[mid].j;

		if (m->pid < pid || (m->pid == pid && m->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	j = &p->jits[lo - 1].j;
	return j->pid == pid && addr - j->start < j->size ? j : NULL;
}

size_t profile__nr_jits(const struct profile *p)
{
	return p->nr_jits;
}

const struct profile_process *profile__process(const struct profile *p,
					       uint32_t pid)
{
	const uint64_t *slot = u64map_find(&p->proc_idx, pid);

	return slot && *slot ? &p->procs[*slot - 1] : NULL;
}

size_t profile__nr_ksyms(const struct profile *p)
{
	return p->nr_ksyms;
}

const struct profile_machine *profile__machine(const struct profile *p)
{
	return &p->machine;
}

bool profile__wall_clock(const struct profile *p, uint64_t ts,
			 uint64_t *wall_ns)
{
	uint64_t off;

	if (!p->has_clock)
		return false;
	if (ts >= p->clock_boot_ns) {
		off = ts - p->clock_boot_ns;
		if (off > UINT64_MAX - p->clock_realtime_ns)
			return false;
		*wall_ns = p->clock_realtime_ns + off;
		return true;
	}
	off = p->clock_boot_ns - ts;
	if (off > p->clock_realtime_ns)
		return false;
	*wall_ns = p->clock_realtime_ns - off;
	return true;
}

void profile__stats(const struct profile *p, struct profile_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->samples = p->nr_samples;
	st->frames = p->frames_total;
	st->mappings = p->nr_maps;
	st->kmods = p->nr_kmods;
	st->ksyms = p->nr_ksyms;
	st->lost_records = p->lost_records;
	st->output_dropped = p->output_dropped;
	st->unresolved_stacks = p->unresolved_stacks;
	memcpy(st->partial_ustacks, p->partial_ustacks,
	       sizeof(st->partial_ustacks));
	st->has_mappings = p->nr_maps > 0;
	st->has_kernel = p->nr_kmods || p->nr_ksyms;
}

/* ---- stack copies --------------------------------------------------- */

/* The most user frames a copy's unwind gives a sample. */
#define COPY_MAX_FRAMES		512

/* e's frames: its kernel ones, then the n user pcs. */
static int copy_frames(struct profile *p, struct sample_ent *e,
		       const uint64_t *pcs, unsigned int n)
{
	unsigned int nk = e->s.nr_kernel;
	uint64_t *ips = frames_room(p, nk + n);

	if (!ips)
		return -ENOMEM;
	if (nk)
		memcpy(ips, e->s.ips, nk * sizeof(*ips));
	memcpy(ips + nk, pcs, n * sizeof(*ips));
	e->s.nr_user = (uint16_t)n;
	p->frames_total += n;
	return intern_stack(p, &p->stacks, e, ips, nk + n);
}

int profile__unwind_copies(struct profile *p,
			   const struct profile_unwinder *uw)
{
	struct profile_copy_stats *st = &p->copy_stats;
	struct u64map by_seq = { 0 };
	uint64_t *pcs;
	size_t i;
	int ret = 0;

	if (!p->nr_copies || p->copies_unwound)
		return 0;
	pcs = malloc(COPY_MAX_FRAMES * sizeof(*pcs));
	if (!pcs)
		return -ENOMEM;
	for (i = 0; i < p->nr_copies; i++) {
		uint64_t *v = u64map_get(&by_seq, p->copies[i].seq, i + 1);

		if (!v) {
			ret = -ENOMEM;
			goto free_map;
		}
	}
	st->why_name = uw->why_name;
	for (i = 0; !ret && i < p->nr_samples; i++) {
		struct sample_ent *e = &p->samples[i];
		const uint64_t *v = u64map_find(&by_seq, e->seq);
		const struct copy_ent *c;
		unsigned int why = 0;
		int n;

		if (!v)
			continue;
		c = &p->copies[*v - 1];
		n = uw->unwind(uw->ctx, p, &e->s, c->data, c->len, pcs,
			       COPY_MAX_FRAMES, &why);
		if (n < 0) {
			ret = n;
		} else if (!n) {
			st->failed++;
			st->failed_why[why < PROFILE_COPY_WHY_MAX ? why : 0]++;
		} else {
			st->unwound++;
			ret = copy_frames(p, e, pcs, (unsigned int)n);
		}
	}
free_map:
	u64map_free(&by_seq);
	free(pcs);
	/* Unwound once: the copies, often most of the file, go. */
	for (i = 0; i < p->nr_copies; i++) {
		free(p->copies[i].data);
		p->copies[i].data = NULL;
	}
	hmap__free(&p->stacks);
	p->copies_unwound = true;
	return ret;
}

void profile__copy_stats(const struct profile *p,
			 struct profile_copy_stats *st)
{
	*st = p->copy_stats;
	/* Copies not unwound (yet) are still counted. */
	st->copies = p->nr_copies + p->copies_walked;
}
