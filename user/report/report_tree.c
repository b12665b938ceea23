// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_tree.c - the filtered, symbolized profile that `report` and
 * `flamegraph` print, and the aggregations over it.
 *
 * Naming is done once per distinct stack, and within it once per distinct
 * frame.  A stack is the profile's (which stores each distinct one once,
 * so its ips pointer names it) in one process and epoch of its mappings:
 * its frames then name alike in every sample that has it.  A frame is
 * keyed by its address, what holds it (the mapping, or the kernel) and
 * whether it is the leaf (return addresses are looked up at addr - 1),
 * and the key maps to a symbol id.  A sample thus costs two hash probes
 * (its stack, then its rt_sample), whatever its depth, and the
 * symbolizer is called once per distinct address.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fxtprof.h>

#include "fxt/fxt_profile.h"
#include "util/array_grow.h"
#include "util/hmap.h"
#include "report_offcpu.h"
#include "report_tree.h"

/* "fxtprof: <what>: <strerror>", as the commands print errors. */
static int load_err(int err, const char *what)
{
	fprintf(stderr, "fxtprof: %s: %s\n", what, strerror(-err));
	return err;
}

#define KERNEL_MIN	0xffff000000000000ull

/* ---- options --------------------------------------------------------- */

static int parse_u32_list(const char *opt, const char *s, uint32_t *out,
			  unsigned int *n)
{
	char *end;

	while (*s) {
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v > UINT32_MAX ||
		    (*end && *end != ',') || *n == RT_MAX_LIST) {
			fprintf(stderr, "fxtprof: %s wants a comma list of at "
				"most %d numbers, not '%s'\n", opt, RT_MAX_LIST,
				s);
			return -EINVAL;
		}
		out[(*n)++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

int rt_opts__parse(struct rt_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	struct rt_filter *f = &o->filter;
	int ret = rt_annot__parse(&o->annot, argc, argv, i);

	if (ret)
		return ret;
	if (!strcmp(a, "--inline")) {
		o->sym.inlines = true;
		return 1;
	}
	if (!strcmp(a, "--off-cpu") || !strcmp(a, "--wall")) {
		if (o->weigh) {
			fprintf(stderr, "fxtprof: --off-cpu and --wall are one "
				"or the other\n");
			return -EINVAL;
		}
		o->weigh = a[2] == 'o' ? RT_WEIGH_OFF_CPU : RT_WEIGH_WALL;
		return 1;
	}
	if (strcmp(a, "--pid") && strcmp(a, "--tid") && strcmp(a, "--cpu") &&
	    strcmp(a, "--comm") && strcmp(a, "--time") &&
	    strcmp(a, "--cgroup") && strcmp(a, "--nspid") &&
	    strcmp(a, "--debug-dir") && strcmp(a, "--symfs") &&
	    strcmp(a, "--vmlinux") && strcmp(a, "--kallsyms") &&
	    strcmp(a, "--system-map"))
		return 0;
	if (!v) {
		fprintf(stderr, "fxtprof: %s needs a value\n", a);
		return -EINVAL;
	}
	(*i)++;
	if (!strcmp(a, "--pid")) {
		ret = parse_u32_list(a, v, f->pids, &f->nr_pids);
	} else if (!strcmp(a, "--tid")) {
		ret = parse_u32_list(a, v, f->tids, &f->nr_tids);
	} else if (!strcmp(a, "--cpu")) {
		ret = parse_u32_list(a, v, f->cpus, &f->nr_cpus);
	} else if (!strcmp(a, "--comm")) {
		/* A comma list; the strings stay argv's, cut in place. */
		char *s = argv[*i];

		while (s && *s) {
			char *c = strchr(s, ',');

			if (f->nr_comms == RT_MAX_LIST) {
				fprintf(stderr, "fxtprof: --comm takes at most "
					"%d names\n", RT_MAX_LIST);
				return -EINVAL;
			}
			if (c)
				*c = 0;
			f->comms[f->nr_comms++] = s;
			s = c ? c + 1 : NULL;
		}
	} else if (!strcmp(a, "--nspid")) {
		ret = parse_u32_list(a, v, f->nspids, &f->nr_nspids);
	} else if (!strcmp(a, "--cgroup")) {
		/* One glob a --cgroup: a pattern may hold a comma. */
		if (f->nr_cgroups == RT_MAX_LIST) {
			fprintf(stderr, "fxtprof: --cgroup is given at most %d "
				"times\n", RT_MAX_LIST);
			return -EINVAL;
		}
		f->cgroups[f->nr_cgroups++] = v;
	} else if (!strcmp(a, "--time")) {
		f->time = v;
	} else if (!strcmp(a, "--debug-dir")) {
		o->sym.debug_dir = v;
	} else if (!strcmp(a, "--symfs")) {
		o->sym.symfs = v;
	} else if (!strcmp(a, "--vmlinux")) {
		o->sym.vmlinux = v;
	} else {
		o->sym.system_map = v;
	}
	return ret ? ret : 1;
}

void rt_opts__usage(FILE *f)
{
	fprintf(f,
		"  --pid P,..  --tid T,..  --cpu C,..  --comm NAME,..\n"
		"              only these samples (comm: the thread's name at "
		"the sample)\n"
		"  --cgroup GLOB\n"
		"              only processes whose cgroup v2 path matches GLOB "
		"(fnmatch;\n"
		"              repeat it for more); a process whose cgroup the "
		"recording\n"
		"              does not say is dropped\n"
		"  --nspid P,..\n"
		"              only processes with these pids in their own pid "
		"namespace\n"
		"  --time FROM,TO\n"
		"              seconds from the first sample (0.5,2 or ,1.5); "
		"a value\n"
		"              ending in 'ns' is an absolute CLOCK_BOOTTIME "
		"timestamp\n"
		"  --inline    inlined functions as frames of their own, "
		"\"f (inlined)\"\n"
		"  --off-cpu   where threads waited (record --off-cpu), not "
		"where they ran:\n"
		"              each wait weighs its nanoseconds, under its "
		"state, below\n"
		"              the thread that woke it\n"
		"  --wall      where threads spent their elapsed time, in ns: "
		"their waits,\n"
		"              and their time on a CPU by the context "
		"switches, spread\n"
		"              over their samples (record --off-cpu "
		"--off-cpu-min 0\n"
		"              accounts for all of it)\n"
		"  --debug-dir DIR  --symfs DIR  --vmlinux FILE\n"
		"  --kallsyms FILE | --system-map FILE\n"
		"              where the symbolizer finds files and kernel "
		"symbols;\n"
		"              then the debuginfod servers of DEBUGINFOD_URLS "
		"(cache:\n"
		"              DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT "
		"default 10 s)\n");
	rt_annot__usage(f);
}

/* --time, through the front end's parser (rt_filter.parse_time). */
static int parse_time(struct rtree *t, const struct rt_filter *f)
{
	uint64_t first = t->p && profile__nr_samples(t->p) ?
			 profile__sample(t->p, 0)->ts : 0;

	t->t_from = 0;
	t->t_to = UINT64_MAX;
	if (!f->time)
		return 0;
	if (!f->parse_time)
		return -EINVAL;
	return f->parse_time(f->time, first, &t->t_from, &t->t_to);
}

static bool in_u32(const uint32_t *v, unsigned int n, uint32_t x)
{
	unsigned int i;

	if (!n)
		return true;
	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* --cgroup and --nspid: the sample's process's container. */
static bool container_selected(const struct rtree *t,
			       const struct rt_filter *f, uint32_t pid)
{
	const struct profile_process *pr = profile__process(t->p, pid);
	unsigned int i;

	if (!pr)
		return false;
	if (f->nr_nspids &&
	    (pr->nspid < 0 ||
	     !in_u32(f->nspids, f->nr_nspids, (uint32_t)pr->nspid)))
		return false;
	if (!f->nr_cgroups)
		return true;
	if (!pr->cgroup)
		return false;
	for (i = 0; i < f->nr_cgroups; i++)
		if (!fnmatch(f->cgroups[i], pr->cgroup, 0))
			return true;
	return false;
}

static bool selected(const struct rtree *t, const struct rt_filter *f,
		     const struct profile_sample *s)
{
	unsigned int i;

	if (s->ts < t->t_from || s->ts > t->t_to ||
	    !in_u32(f->pids, f->nr_pids, s->pid) ||
	    !in_u32(f->tids, f->nr_tids, s->tid) ||
	    !in_u32(f->cpus, f->nr_cpus, s->cpu))
		return false;
	if ((f->nr_cgroups || f->nr_nspids) &&
	    !container_selected(t, f, s->pid))
		return false;
	if (!f->nr_comms)
		return true;
	for (i = 0; i < f->nr_comms; i++)
		if (!strcmp(f->comms[i], s->comm))
			return true;
	return false;
}

/* ---- symbols ----------------------------------------------------------- */

/* Frame key -> symbol id; (name, dso) -> symbol id. */
struct frame_key {
	uint64_t addr;
	uint64_t where;		/* the mapping's address, 0 kernel, ~0 none */
	uint32_t pid_if_none;	/* only with where == ~0 */
	uint32_t leaf;
};

/* A frame's symbol ids: exp[first, first + n), innermost first. */
struct frame_ent {
	struct frame_key k;
	uint32_t first;
	uint32_t n;
};

/*
 * A stack of the profile, in one process and mapping epoch (both 0 for a
 * stack of kernel frames only, which no process changes).
 */
struct stack_key {
	const uint64_t *ips;
	uint16_t nr_kernel, nr_user;
	uint32_t pid;
	uint64_t epoch;
};

/* Its symbol ids, and what its frames count in the header, per sample. */
struct stack_ent {
	struct stack_key k;
	uint32_t named;			/* caches.nameds[] */
	uint64_t weight;		/* selected samples (or waits) with it */
	uint32_t resolved;		/* frames named */
	uint32_t by_status[SYM__NR];	/* frames by their function's status */
};

/* Distinct symbol id sequences: caches.ids[first, first + n), leaf first. */
struct named_ent {
	uint32_t first;
	uint32_t n;
};

struct caches {
	uint32_t *exp;
	size_t nr_exp, cap_exp;
	bool inlines;
	struct hmap stacks;	/* ses index, by stack_key_hash() */
	struct stack_ent *ses;
	size_t nr_ses, cap_ses;
	struct hmap named;	/* nameds index, by ids_hash() */
	struct named_ent *nameds;
	size_t nr_nameds, cap_nameds;
	uint32_t *ids;
	size_t nr_ids, cap_ids;
	struct hmap samples;	/* rtree.samples index, by sample_hash() */
	size_t cap_samples;
	struct hmap frames;	/* fes index, by frame_hash() */
	struct frame_ent *fes;
	size_t nr_fes, cap_fes;
	struct hmap syms;	/* rtree.syms id, by (name, dso, kernel) */
	char **dsos;
	size_t nr_dsos, cap_dsos;
	uint64_t by_status[SYM__NR];	/* distinct addresses */
	uint64_t frames_by_status[SYM__NR];
	uint64_t no_frames;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t frame_hash(const struct frame_key *k)
{
	uint64_t h = mix(mix(k->addr, k->where), k->pid_if_none);

	return mix(h, k->leaf);
}

static uint64_t str_hash(const char *s, uint64_t h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/*
 * One copy of each dso name, so that entries compare dsos by pointer.
 * There are few (the files and modules of a recording): a list does.
 */
static const char *dso_intern(struct caches *c, const char *dso)
{
	size_t i;

	for (i = 0; i < c->nr_dsos; i++)
		if (!strcmp(c->dsos[i], dso))
			return c->dsos[i];
	if (array_grow((void **)&c->dsos, &c->cap_dsos, c->nr_dsos + 1,
		 sizeof(*c->dsos)))
		return NULL;
	c->dsos[c->nr_dsos] = strdup(dso);
	return c->dsos[c->nr_dsos] ? c->dsos[c->nr_dsos++] : NULL;
}

struct sym_key {
	const struct rt_sym *syms;
	const char *name, *dso;
	bool kernel;
};

static bool sym_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct sym_key *k = ctx;
	const struct rt_sym *s = &k->syms[slot->key];

	return s->kernel == k->kernel && !strcmp(s->name, k->name) &&
	       !strcmp(s->dso, k->dso);
}

/* The id of (name, dso, kernel); name is copied if new. */
static int sym_intern(struct rtree *t, const char *name, const char *dso,
		      bool kernel, enum sym_status status, uint32_t *id)
{
	struct caches *c = t->priv;
	uint64_t h = mix(str_hash(dso, str_hash(name, 0xcbf29ce484222325ull)),
			 kernel);
	struct sym_key k = {
		.syms = t->syms, .name = name, .dso = dso, .kernel = kernel,
	};
	struct hmap_slot *hit = hmap__find(&c->syms, h, sym_eq, &k);
	struct rt_sym *s;

	if (hit) {
		*id = (uint32_t)hit->key;
		return 0;
	}
	if (array_grow((void **)&t->syms, &t->cap_syms, t->nr_syms + 1,
		 sizeof(*t->syms)))
		return -ENOMEM;
	s = &t->syms[t->nr_syms];
	s->name = strdup(name);
	s->dso = dso_intern(c, dso);
	if (!s->name || !s->dso) {
		free((char *)s->name);
		return -ENOMEM;
	}
	s->kernel = kernel;
	s->resolved = status == SYM_OK;
	s->status = (uint8_t)status;
	if (hmap__add(&c->syms, h, t->nr_syms, 0, NULL)) {
		free((char *)s->name);
		return -ENOMEM;
	}
	*id = (uint32_t)t->nr_syms++;
	return 0;
}

int rtree__intern(struct rtree *t, const char *name, const char *dso,
		  uint32_t *id)
{
	return sym_intern(t, name, dso, false, SYM_OK, id);
}

static int intern_annot(void *t, const char *name, const char *dso,
			uint32_t *id)
{
	return rtree__intern(t, name, dso, id);
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

static int exp_push(struct caches *c, uint32_t id)
{
	if (array_grow((void **)&c->exp, &c->cap_exp, c->nr_exp + 1, sizeof(*c->exp)))
		return -ENOMEM;
	c->exp[c->nr_exp++] = id;
	return 0;
}

struct frame_probe {
	const struct frame_ent *fes;
	const struct frame_key *k;
};

static bool frame_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct frame_probe *p = ctx;
	const struct frame_key *o = &p->fes[slot->key].k;

	return o->addr == p->k->addr && o->where == p->k->where &&
	       o->pid_if_none == p->k->pid_if_none && o->leaf == p->k->leaf;
}

/*
 * The symbol ids of frame i of s (one, or with --inline the inline
 * frames innermost first, then the function): c->exp[*first, + *n).
 */
static int name_frame(struct rtree *t, const struct profile_sample *s,
		      unsigned int i, uint32_t *first, uint32_t *n)
{
	struct caches *c = t->priv;
	struct frame_key k = { .addr = s->ips[i], .leaf = i == 0 };
	struct sym_result res;
	const char *dso;
	struct hmap_slot *hit;
	char buf[512];
	uint64_t hash;
	bool kernel = i < s->nr_kernel;
	uint32_t id, f;
	int ret;

	if (kernel) {
		k.where = 0;
	} else {
		const struct profile_mapping *m =
			profile__find_mapping(t->p, s->pid, k.addr, s->ts);

		if (m) {
			/* The mapping itself: serials may repeat across streams. */
			k.where = (uint64_t)(uintptr_t)m;
		} else {
			k.where = UINT64_MAX;
			k.pid_if_none = s->pid;
		}
	}
	hash = frame_hash(&k);
	hit = hmap__find(&c->frames, hash, frame_eq, &(struct frame_probe){
		.fes = c->fes, .k = &k });
	if (hit) {
		*first = c->fes[hit->key].first;
		*n = c->fes[hit->key].n;
		return 0;
	}
	ret = symbolizer__frame(t->sym, t->p, s, i, &res);
	if (ret) {
		memset(&res, 0, sizeof(res));
		res.status = SYM_BAD_FILE;
		res.rel_pc = k.addr;
	}
	if (res.status < SYM__NR)
		c->by_status[res.status]++;
	dso = res.dso ? res.dso : kernel ? "[kernel.kallsyms]" :
	      res.mapping ? base_name(res.mapping->path) : "[unknown]";
	*first = (uint32_t)c->nr_exp;
	if (!res.status && res.nr_frames && res.frames[0].function) {
		unsigned int nr = res.nr_frames <= SYM_MAX_INLINE ?
				  res.nr_frames : SYM_MAX_INLINE;

		/* Inline frames, innermost first, only when asked for. */
		for (f = c->inlines ? 0 : nr - 1; f + 1 < nr; f++) {
			if (!res.frames[f].function)
				continue;
			snprintf(buf, sizeof(buf), "%s (inlined)",
				 res.frames[f].function);
			ret = sym_intern(t, buf, dso, kernel, SYM_OK, &id);
			if (!ret)
				ret = exp_push(c, id);
			if (ret)
				return ret;
		}
		ret = sym_intern(t, res.frames[nr - 1].function, dso, kernel,
				 SYM_OK, &id);
	} else if (res.status == SYM_BUILD_ID_MISMATCH) {
		/*
		 * The file found is not the one that ran: its offsets mean
		 * nothing, so not even dso+offset is shown (the header
		 * counts these and names the files).
		 */
		ret = sym_intern(t, "[unknown]", dso, kernel, res.status, &id);
	} else {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, dso, res.rel_pc);
		ret = sym_intern(t, buf, dso, kernel,
				 res.status ? res.status : SYM_NO_SYMBOL, &id);
	}
	if (!ret)
		ret = exp_push(c, id);
	if (ret)
		return ret;
	*n = (uint32_t)c->nr_exp - *first;
	if (array_grow((void **)&c->fes, &c->cap_fes, c->nr_fes + 1,
		       sizeof(*c->fes)))
		return -ENOMEM;
	c->fes[c->nr_fes] = (struct frame_ent){
		.k = k, .first = *first, .n = *n,
	};
	return hmap__add(&c->frames, hash, c->nr_fes++, 0, NULL);
}

/* ---- stacks ----------------------------------------------------------- */

static uint64_t ids_hash(const uint32_t *ids, uint32_t n)
{
	uint64_t h = n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = mix(h, ids[i]);
	return h;
}

struct ids_probe {
	const struct caches *c;
	const uint32_t *ids;
	uint32_t n;
};

static bool ids_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct ids_probe *p = ctx;
	const struct named_ent *o = &p->c->nameds[slot->key];

	return o->n == p->n &&
	       !memcmp(&p->c->ids[o->first], p->ids, p->n * sizeof(*p->ids));
}

/*
 * The ids just appended at c->ids[first, c->nr_ids) become a named
 * stack: kept if new, else dropped for the first copy.  Its index to
 * *named.
 */
static int named_intern(struct caches *c, size_t first, uint32_t *named)
{
	struct ids_probe probe = {
		.c = c, .ids = &c->ids[first],
		.n = (uint32_t)(c->nr_ids - first),
	};
	uint64_t h = ids_hash(probe.ids, probe.n);
	struct hmap_slot *hit = hmap__find(&c->named, h, ids_eq, &probe);

	if (hit) {
		c->nr_ids = first;
		*named = (uint32_t)hit->key;
		return 0;
	}
	if (array_grow((void **)&c->nameds, &c->cap_nameds, c->nr_nameds + 1,
		       sizeof(*c->nameds)))
		return -ENOMEM;
	c->nameds[c->nr_nameds] = (struct named_ent){
		.first = (uint32_t)first, .n = probe.n,
	};
	*named = (uint32_t)c->nr_nameds;
	return hmap__add(&c->named, h, c->nr_nameds++, 0, NULL);
}

static int ids_push(struct caches *c, const uint32_t *ids, uint32_t n)
{
	if (array_grow((void **)&c->ids, &c->cap_ids, c->nr_ids + n,
		       sizeof(*c->ids)))
		return -ENOMEM;
	memcpy(&c->ids[c->nr_ids], ids, n * sizeof(*ids));
	c->nr_ids += n;
	return 0;
}

/* The frames of s, which se is the stack of, named into se. */
static int name_stack(struct rtree *t, const struct profile_sample *s,
		      struct stack_ent *se)
{
	struct caches *c = t->priv;
	size_t first = c->nr_ids;
	unsigned int j, nf = s->nr_kernel + s->nr_user;
	uint32_t id;
	int ret;

	if (!nf) {
		/* No frames at all: one unknown frame, as perf shows. */
		ret = sym_intern(t, "[unknown]", "[unknown]", false,
				 SYM_NO_MAPPING, &id);
		if (!ret)
			ret = ids_push(c, &id, 1);
		return ret ? ret : named_intern(c, first, &se->named);
	}
	for (j = 0; j < nf; j++) {
		uint32_t exp, nr;

		ret = name_frame(t, s, j, &exp, &nr);
		if (!ret)
			ret = ids_push(c, &c->exp[exp], nr);
		if (ret)
			return ret;
		/* Counted once per address, by its function. */
		id = c->exp[exp + nr - 1];
		if (t->syms[id].resolved)
			se->resolved++;
		se->by_status[t->syms[id].status]++;
	}
	return named_intern(c, first, &se->named);
}

static uint64_t stack_key_hash(const struct stack_key *k)
{
	uint64_t h = mix((uintptr_t)k->ips,
			 (uint32_t)k->nr_kernel << 16 | k->nr_user);

	return mix(mix(h, k->pid), k->epoch);
}

struct stack_probe {
	const struct stack_ent *ses;
	const struct stack_key *k;
};

static bool stack_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct stack_probe *p = ctx;
	const struct stack_key *o = &p->ses[slot->key].k;

	return o->ips == p->k->ips && o->nr_kernel == p->k->nr_kernel &&
	       o->nr_user == p->k->nr_user && o->pid == p->k->pid &&
	       o->epoch == p->k->epoch;
}

/* The stack of s, named if new: its index in c->ses to *idx. */
static int stack_of(struct rtree *t, const struct profile_sample *s,
		    size_t *idx)
{
	struct caches *c = t->priv;
	struct stack_key k = {
		.ips = s->ips, .nr_kernel = s->nr_kernel, .nr_user = s->nr_user,
	};
	struct stack_probe probe = { .ses = c->ses, .k = &k };
	struct hmap_slot *hit;
	struct stack_ent *se;
	uint64_t h;
	int ret;

	if (s->nr_user) {
		k.pid = s->pid;
		k.epoch = profile__mapping_epoch(t->p, s->pid, s->ts);
	}
	h = stack_key_hash(&k);
	hit = hmap__find(&c->stacks, h, stack_eq, &probe);
	if (hit) {
		*idx = hit->key;
		return 0;
	}
	if (array_grow((void **)&c->ses, &c->cap_ses, c->nr_ses + 1,
		       sizeof(*c->ses)))
		return -ENOMEM;
	se = &c->ses[c->nr_ses];
	memset(se, 0, sizeof(*se));
	se->k = k;
	ret = name_stack(t, s, se);
	if (ret)
		return ret;
	*idx = c->nr_ses;
	return hmap__add(&c->stacks, h, c->nr_ses++, 0, NULL);
}

/*
 * Samples with the same comm, pid, idleness, named stack and region
 * frames are one rt_sample with a weight: what the reports aggregate is
 * then the distinct stacks, not every sample.
 */
struct sample_probe {
	const struct rtree *t;
	const struct profile_sample *s;
	bool idle;
	uint32_t leaf;		/* a wait's waker frame + 1, else 0 */
	uint32_t named, nr_named;
	const uint32_t *annot;	/* root frames: regions, a wait's state */
	uint32_t nr_annot;
};

static uint64_t sample_hash(const struct sample_probe *p)
{
	uint64_t h = mix(mix((uintptr_t)p->s->comm, p->s->pid), p->idle);
	uint32_t i;

	h = mix(mix(h, p->named), p->leaf);
	for (i = 0; i < p->nr_annot; i++)
		h = mix(h, p->annot[i]);
	return h;
}

/* The slot's value is the rt_sample's named stack, its key the index. */
static bool sample_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct sample_probe *p = ctx;
	const struct rt_sample *o = &p->t->samples[slot->key];
	uint32_t lead = !!p->leaf;

	return slot->val == p->named && o->s->comm == p->s->comm &&
	       o->s->pid == p->s->pid && o->idle == p->idle &&
	       o->leaf == p->leaf &&
	       o->n == lead + p->nr_named + p->nr_annot &&
	       !memcmp(&p->t->stack[o->first + lead + p->nr_named], p->annot,
		       p->nr_annot * sizeof(*p->annot));
}

/*
 * Sample i, or wait @w, selected: @weight more in its rt_sample, made if
 * new (rtree.weigh: a sample weighs 1 or its period, a wait its ns).
 */
static int add_sample(struct rtree *t, const struct rt_annot_opts *o,
		      size_t i, const struct profile_sample *w, uint64_t weight)
{
	const struct profile_sample *s = w ? w : profile__sample(t->p, i);
	struct caches *c = t->priv;
	uint32_t annot[RT_ANNOT_MAX_DEPTH];
	struct sample_probe probe = { .t = t, .s = s, .annot = annot };
	const struct named_ent *ne;
	struct hmap_slot *hit;
	struct rt_sample *rs;
	uint32_t lead;
	size_t se;
	uint64_t h;
	int ret;

	ret = stack_of(t, s, &se);
	if (ret)
		return ret;
	c->ses[se].weight++;
	if (w)
		ret = rt_offcpu__frames(w, intern_annot, t, annot, &probe.leaf)
		      ?: 1;
	else if (t->weigh == RT_WEIGH_WALL)
		ret = intern_annot(t, RT_ON_CPU_FRAME, RT_OFFCPU_DSO, annot) ?: 1;
	else
		ret = rt_annot__frames(o, &t->annot_res, t->p, i,
				       intern_annot, t, annot);
	if (ret < 0)
		return ret;
	ne = &c->nameds[c->ses[se].named];
	probe.idle = s->mode == FXTPROF_MODE_IDLE || (!s->pid && !s->tid);
	probe.named = c->ses[se].named;
	probe.nr_named = ne->n;
	probe.nr_annot = (uint32_t)ret;
	h = sample_hash(&probe);
	hit = hmap__find(&c->samples, h, sample_eq, &probe);
	if (hit) {
		t->samples[hit->key].weight += weight;
		return 0;
	}
	lead = !!probe.leaf;
	if (array_grow((void **)&t->samples, &c->cap_samples,
		       t->nr_samples + 1, sizeof(*t->samples)) ||
	    array_grow((void **)&t->stack, &t->cap_stack,
		       t->nr_stack + lead + ne->n + probe.nr_annot,
		       sizeof(*t->stack)))
		return -ENOMEM;
	rs = &t->samples[t->nr_samples];
	*rs = (struct rt_sample){
		.s = s, .first = (uint32_t)t->nr_stack,
		.n = lead + ne->n + probe.nr_annot, .idle = probe.idle,
		.weight = weight, .leaf = probe.leaf,
	};
	if (lead)
		t->stack[t->nr_stack] = probe.leaf - 1;
	memcpy(&t->stack[t->nr_stack + lead], &c->ids[ne->first],
	       ne->n * sizeof(*t->stack));
	memcpy(&t->stack[t->nr_stack + lead + ne->n], annot,
	       probe.nr_annot * sizeof(*t->stack));
	t->nr_stack += rs->n;
	return hmap__add(&c->samples, h, t->nr_samples++, probe.named, NULL);
}

/* The header's frame counts: each stack's, times its samples. */
static void count_frames(struct rtree *t)
{
	struct caches *c = t->priv;
	size_t i;
	unsigned int k;

	for (i = 0; i < c->nr_ses; i++) {
		const struct stack_ent *se = &c->ses[i];
		unsigned int nf = se->k.nr_kernel + se->k.nr_user;

		if (!nf)
			c->no_frames += se->weight;
		t->frames += se->weight * nf;
		t->resolved += se->weight * se->resolved;
		for (k = 0; k < SYM__NR; k++)
			c->frames_by_status[k] += se->weight * se->by_status[k];
	}
}

/* --wall's samples, each its share of its thread's runs (report_wall.h). */
static int load_wall_samples(struct rtree *t, const struct rt_opts *o)
{
	const struct rt_filter *f = &o->filter;
	size_t i, nr = 0, n = profile__nr_samples(t->p);
	struct wall_sample *ws;
	int ret = 0;

	t->period_ns = profile__sample_period_ns(t->p);
	ws = malloc((n ? n : 1) * sizeof(*ws));
	if (!ws)
		return load_err(-ENOMEM, "report");
	for (i = 0; i < n; i++) {
		const struct profile_sample *s = profile__sample(t->p, i);

		if (!selected(t, f, s) || s->mode == FXTPROF_MODE_IDLE ||
		    (!s->pid && !s->tid))
			continue;
		ws[nr++] = (struct wall_sample){ .idx = i, .tid = s->tid };
	}
	wall__weigh(profile__runs(t->p), ws, nr, t->t_from, t->t_to, f->cpus,
		    f->nr_cpus, t->period_ns, &t->wall);
	for (i = 0; i < nr; i++) {
		t->total += ws[i].weight;
		t->on_cpu++;
		ret = add_sample(t, &o->annot, ws[i].idx, NULL, ws[i].weight);
		if (ret) {
			ret = load_err(ret, "report");
			break;
		}
	}
	free(ws);
	return ret;
}

/*
 * --off-cpu and --wall: the waits the filter keeps, each weighing its
 * nanoseconds, and for --wall the samples too, each its share of its
 * thread's time on a CPU, but the idle task's (it is no thread's time).
 * t->total is the ns.
 * Regions are intervals of samples: neither takes them (rtree__load).
 */
static int load_waits(struct rtree *t, const struct rt_opts *o)
{
	size_t i, n = profile__nr_waits(t->p);
	int ret;

	if (!n) {
		fprintf(stderr, "fxtprof: the recording holds no off-CPU "
			"waits: record them with fxtprof record --off-cpu\n");
		return -ENODATA;
	}
	for (i = 0; i < n; i++) {
		const struct profile_sample *w = profile__wait(t->p, i);

		if (!selected(t, &o->filter, w))
			continue;
		t->total += w->wait_ns;
		t->waits++;
		ret = add_sample(t, &o->annot, i, w, w->wait_ns);
		if (ret)
			return load_err(ret, "report");
	}
	if (t->weigh == RT_WEIGH_WALL) {
		ret = load_wall_samples(t, o);
		if (ret)
			return ret;
	}
	count_frames(t);
	return 0;
}

int rtree__load(struct rtree *t, const char *path, const struct rt_opts *o)
{
	struct profile_error err;
	struct caches *c;
	size_t i, n;
	int ret;

	memset(t, 0, sizeof(*t));
	c = calloc(1, sizeof(*c));
	if (!c)
		return load_err(-ENOMEM, "report");
	t->priv = c;
	ret = profile__load(path, &t->p, &err);
	if (ret) {
		fprintf(stderr, "fxtprof: %s: at byte offset %" PRIu64 ": %s\n",
			path, err.offset, err.msg[0] ? err.msg : strerror(-ret));
		return ret;
	}
	if (o->unwind_copies) {
		ret = o->unwind_copies(t->p, &o->sym);
		if (ret)
			return ret;
	}
	ret = parse_time(t, &o->filter);
	if (ret)
		return ret;
	if (o->weigh && (o->annot.nr_pats || o->annot.by_region)) {
		fprintf(stderr, "fxtprof: %s takes no --region or "
			"--by-region: regions select samples, not waits\n",
			o->weigh == RT_WEIGH_WALL ? "--wall" : "--off-cpu");
		return -EINVAL;
	}
	t->annot = &o->annot;
	ret = rt_annot__check(&o->annot, t->p, path, &t->annot_res);
	if (ret)
		return ret;
	c->inlines = o->sym.inlines;
	ret = symbolizer__new(&o->sym, &t->sym);
	if (ret)
		return load_err(ret, "cannot start the symbolizer");
	t->weigh = o->weigh;
	if (o->weigh)
		return load_waits(t, o);
	n = profile__nr_samples(t->p);
	for (i = 0; i < n; i++) {
		if (!selected(t, &o->filter, profile__sample(t->p, i)))
			continue;
		if (!rt_annot__keeps(&o->annot, &t->annot_res, t->p, i)) {
			t->annot_res.dropped++;
			continue;
		}
		t->total++;
		ret = add_sample(t, &o->annot, i, NULL, 1);
		if (ret)
			return load_err(ret, "report");
	}
	count_frames(t);
	return 0;
}

void rtree__free(struct rtree *t)
{
	struct caches *c = t->priv;
	size_t i;

	for (i = 0; i < t->nr_syms; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
	free(t->stack);
	free(t->samples);
	if (c) {
		free(c->exp);
		hmap__free(&c->named);
		free(c->nameds);
		free(c->ids);
		hmap__free(&c->samples);
		free(c->ses);
		for (i = 0; i < c->nr_dsos; i++)
			free(c->dsos[i]);
		free(c->dsos);
		hmap__free(&c->stacks);
		hmap__free(&c->frames);
		free(c->fes);
		hmap__free(&c->syms);
		free(c);
	}
	rt_annot__release(&t->annot_res);
	symbolizer__free(t->sym);
	profile__free(t->p);
	memset(t, 0, sizeof(*t));
}

/* The symbolizer's problems list, as header lines ("# ..."). */
static void print_problems(const struct rtree *t, FILE *f)
{
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		symbolizer__print_problems(t->sym, f);
		return;
	}
	symbolizer__print_problems(t->sym, m);
	if (fclose(m) || !text) {
		free(text);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(f, "# %s\n", line);
	free(text);
}

/* The samples whose user stack the unwinder cut short, and why. */
static void print_partial_ustacks(const struct profile_stats *st, FILE *f)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < FXTPROF_USTACK_END_SLOTS; i++)
		n += st->partial_ustacks[i];
	if (!n)
		return;
	fprintf(f, "# %" PRIu64 " samples with a partial user stack:", n);
	for (i = 0; i < FXTPROF_USTACK_END_SLOTS; i++)
		if (st->partial_ustacks[i])
			fprintf(f, " %s %" PRIu64 ";",
				fxt_profile__ustack_end_name(i) ?: "unknown",
				st->partial_ustacks[i]);
	fputc('\n', f);
}

/* The samples given their user frames from a stack copy, or not and why. */
static void print_copies(const struct profile *p, FILE *f)
{
	struct profile_copy_stats st;
	const char *sep = ":";
	unsigned int i;

	profile__copy_stats(p, &st);
	if (!st.copies)
		return;
	fprintf(f, "# stack copies: %" PRIu64 ", %" PRIu64 " samples unwound "
		"from them, %" PRIu64 " failed", st.copies, st.unwound,
		st.failed);
	for (i = 0; i < PROFILE_COPY_WHY_MAX; i++)
		if (st.failed_why[i]) {
			fprintf(f, "%s %s %" PRIu64, sep,
				st.why_name ? st.why_name(i) : "?",
				st.failed_why[i]);
			sep = ";";
		}
	fputc('\n', f);
}

void rtree__print_header(const struct rtree *t, FILE *f, const char *path)
{
	const struct caches *c = t->priv;
	struct profile_stats st;
	unsigned int i;

	profile__stats(t->p, &st);
	if (t->weigh == RT_WEIGH_OFF_CPU)
		fprintf(f, "# %s: %zu off-CPU waits, %" PRIu64 " selected, "
			"%.3f s waited (weights are ns)\n", path,
			profile__nr_waits(t->p), t->waits, (double)t->total / 1e9);
	else if (t->weigh == RT_WEIGH_WALL)
		fprintf(f, "# %s: wall clock: %" PRIu64 " off-CPU waits and %"
			PRIu64 " samples (of %" PRIu64 ") selected; the "
			"samples share their threads' time on a CPU by the "
			"context switches (%" PRIu64 " threads; %" PRIu64
			" without switches, %" PRIu64 " ns a sample); %.3f s "
			"in all (weights are ns)\n", path, t->waits,
			t->on_cpu, st.samples, t->wall.timed,
			t->wall.by_period, t->period_ns,
			(double)t->total / 1e9);
	else
		fprintf(f, "# %s: %" PRIu64 " samples, %" PRIu64
			" selected\n", path, st.samples, t->total);
	fprintf(f, "# frames: %" PRIu64 ", %" PRIu64 " named (%.1f%%), %zu "
		"distinct addresses\n", t->frames, t->resolved,
		t->frames ? 100.0 * (double)t->resolved / (double)t->frames : 0,
		c->nr_fes);
	fprintf(f, "# frames by result:");
	for (i = 0; i < SYM__NR; i++)
		if (c->frames_by_status[i])
			fprintf(f, " %s %" PRIu64 ";",
				sym_status__name((enum sym_status)i),
				c->frames_by_status[i]);
	fputc('\n', f);
	fprintf(f, "# distinct addresses by result:");
	for (i = 0; i < SYM__NR; i++)
		if (c->by_status[i])
			fprintf(f, " %s %" PRIu64 ";",
				sym_status__name((enum sym_status)i),
				c->by_status[i]);
	fputc('\n', f);
	if (c->no_frames)
		fprintf(f, "# %" PRIu64 " %s carry no frames: shown as "
			"[unknown]\n", c->no_frames,
			t->weigh ? "samples and waits" : "samples");
	print_partial_ustacks(&st, f);
	print_copies(t->p, f);
	fprintf(f, "# recording: %" PRIu64 " mappings, %" PRIu64 " kernel "
		"images, %" PRIu64 " kernel symbols\n", st.mappings, st.kmods,
		st.ksyms);
	if (!st.has_mappings)
		fprintf(f, "# no mapping records in this recording: user frames "
			"cannot be named\n");
	if (!st.has_kernel)
		fprintf(f, "# no kernel image or symbol records in this "
			"recording: kernel frames are named only with "
			"--vmlinux or --kallsyms\n");
	if (st.lost_records)
		fprintf(f, "# the kernel lost %" PRIu64 " records\n",
			st.lost_records);
	if (st.output_dropped)
		fprintf(f, "# the output dropped %" PRIu64 " records\n",
			st.output_dropped);
	rt_annot__print_header(t->p, t->total, t->annot, &t->annot_res, f);
	print_problems(t, f);
	fprintf(f, "#\n");
}

/* ---- entries ------------------------------------------------------------ */

int rt_sort__parse(struct rt_sort *s, const char *spec)
{
	const char *p = spec;

	memset(s, 0, sizeof(*s));
	while (*p) {
		size_t len = strcspn(p, ",");
		enum rt_key k;

		if (len == 4 && !strncmp(p, "comm", 4))
			k = RT_KEY_COMM;
		else if (len == 3 && !strncmp(p, "pid", 3))
			k = RT_KEY_PID;
		else if (len == 3 && !strncmp(p, "dso", 3))
			k = RT_KEY_DSO;
		else if (len == 3 && !strncmp(p, "sym", 3))
			k = RT_KEY_SYM;
		else
			goto bad;
		if (s->mask & k)
			goto bad;
		s->keys[s->n++] = k;
		s->mask |= k;
		p += len;
		if (*p)
			p++;
	}
	if (s->n)
		return 0;
bad:
	fprintf(stderr, "fxtprof: --sort wants a comma list of comm, pid, dso "
		"and sym, each once, not '%s'\n", spec);
	return -EINVAL;
}

/* The entries built so far: r->e indexes by ent_hash(). */
struct ent_table {
	struct hmap map;
	size_t cap_e;
};

static uint64_t ent_hash(const struct rt_entry *e)
{
	uint64_t h = mix((uintptr_t)e->comm, e->pid);

	return mix(mix(h, (uintptr_t)e->dso), e->sym);
}

struct ent_probe {
	const struct rt_entry *e;	/* rt_report.e */
	const struct rt_entry *key;
};

static bool ent_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct ent_probe *p = ctx;
	const struct rt_entry *a = &p->e[slot->key], *b = p->key;

	return a->comm == b->comm && a->pid == b->pid && a->dso == b->dso &&
	       a->sym == b->sym;
}

/*
 * The key of frame sym of sample rs under sort: fields not sorted on are
 * left empty.  Comms are the profile's interned strings and dsos ours
 * (sym_intern), so pointers compare.
 */
static void ent_key(const struct rtree *t, const struct rt_sort *sort,
		    const struct rt_sample *rs, uint32_t sym,
		    struct rt_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (sort->mask & RT_KEY_COMM)
		e->comm = rs->s->comm;
	if (sort->mask & RT_KEY_PID)
		e->pid = rs->s->pid;
	if (sort->mask & RT_KEY_DSO)
		e->dso = t->syms[sym].dso;
	if (sort->mask & RT_KEY_SYM)
		e->sym = sym;
	e->kernel = t->syms[sym].kernel;
}

static int ent_get(struct rt_report *r, struct ent_table *tb,
		   const struct rt_entry *key, uint32_t *idx)
{
	struct ent_probe probe = { .e = r->e, .key = key };
	uint64_t h = ent_hash(key);
	struct hmap_slot *hit = hmap__find(&tb->map, h, ent_eq, &probe);

	if (hit) {
		*idx = (uint32_t)hit->key;
		return 0;
	}
	if (array_grow((void **)&r->e, &tb->cap_e, r->n + 1, sizeof(*r->e)))
		return -ENOMEM;
	if (hmap__add(&tb->map, h, r->n, 0, NULL))
		return -ENOMEM;
	r->e[r->n] = *key;
	*idx = (uint32_t)r->n++;
	return 0;
}

static uint32_t node_new(struct rt_node **nodes, size_t *n, size_t *cap,
			 uint32_t sym)
{
	if (!*n)
		*n = 1;		/* node 0 means "none" */
	if (array_grow((void **)nodes, cap, *n + 1, sizeof(**nodes)))
		return 0;
	(*nodes)[*n] = (struct rt_node){ .sym = sym };
	return (uint32_t)(*n)++;
}

/* The child of parent named sym, created if absent; 0 on ENOMEM. */
static uint32_t node_child(struct rt_node **nodes, size_t *n, size_t *cap,
			   uint32_t parent, uint32_t sym)
{
	uint32_t c, nc;

	for (c = (*nodes)[parent].child; c; c = (*nodes)[c].next)
		if ((*nodes)[c].sym == sym)
			return c;
	nc = node_new(nodes, n, cap, sym);
	if (!nc)
		return 0;
	(*nodes)[nc].next = (*nodes)[parent].child;
	(*nodes)[parent].child = nc;
	return nc;
}

/*
 * Add to entry e's call graph the chain from frame `from` (the entry) to
 * the root: root first for caller order, the entry first for callee.
 */
static int graph_add(struct rt_report *r, uint32_t e, const uint32_t *st,
		     uint32_t from, uint32_t n, enum rt_graph order,
		     uint64_t weight)
{
	uint32_t node, j;

	if (!r->e[e].graph) {
		node = node_new(&r->nodes, &r->nr_nodes, &r->cap_nodes, 0);
		if (!node)
			return -ENOMEM;
		r->e[e].graph = node;
	}
	node = r->e[e].graph;
	r->nodes[node].count += weight;
	for (j = 0; j < n - from; j++) {
		uint32_t sym = order == RT_GRAPH_CALLER ? st[n - 1 - j] :
			       st[from + j];

		node = node_child(&r->nodes, &r->nr_nodes, &r->cap_nodes, node,
				  sym);
		if (!node)
			return -ENOMEM;
		r->nodes[node].count += weight;
	}
	return 0;
}

static const struct rt_report *sort_ctx;

static int by_children(const void *a, const void *b)
{
	const struct rt_entry *x = a, *y = b;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

static int by_self(const void *a, const void *b)
{
	const struct rt_entry *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

int rt_report__build(struct rt_report *r, const struct rtree *t,
		     const struct rt_sort *sort, bool children,
		     enum rt_graph graph)
{
	struct ent_table tb = { 0 };
	uint64_t *stamp = NULL;
	uint32_t *idx = NULL;
	size_t i, max_n = 1, cap_stamp = 0;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->total = t->total;
	for (i = 0; i < t->nr_samples; i++)
		if (t->samples[i].n > max_n)
			max_n = t->samples[i].n;
	idx = malloc(max_n * sizeof(*idx));
	if (!idx)
		goto out;
	for (i = 0; i < t->nr_samples; i++) {
		const struct rt_sample *rs = &t->samples[i];
		const uint32_t *st = &t->stack[rs->first];
		struct rt_entry key;
		uint32_t j, e;

		for (j = 0; j < rs->n; j++) {
			ent_key(t, sort, rs, st[j], &key);
			if (ent_get(r, &tb, &key, &idx[j]))
				goto out;
		}
		if (cap_stamp < r->n) {
			uint64_t *ns = realloc(stamp, tb.cap_e * sizeof(*stamp));

			if (!ns)
				goto out;
			memset(ns + cap_stamp, 0,
			       (tb.cap_e - cap_stamp) * sizeof(*stamp));
			stamp = ns;
			cap_stamp = tb.cap_e;
		}
		r->e[idx[0]].self += rs->weight;
		if (!children) {
			if (graph && graph_add(r, idx[0], st, 0, rs->n, graph,
					       rs->weight))
				goto out;
			continue;
		}
		/* Each entry once per sample, at its leafmost frame. */
		for (j = 0; j < rs->n; j++) {
			e = idx[j];
			if (stamp[e] == i + 1)
				continue;
			stamp[e] = i + 1;
			r->e[e].children += rs->weight;
			if (graph && graph_add(r, e, st, j, rs->n, graph,
					       rs->weight))
				goto out;
		}
	}
	array_sort(r->e, r->n, sizeof(*r->e), children ? by_children : by_self);
	ret = 0;
out:
	free(stamp);
	free(idx);
	hmap__free(&tb.map);
	if (ret)
		rt_report__free(r);
	return ret;
}

static int node_cmp(const void *a, const void *b)
{
	const struct rt_node *x = &sort_ctx->nodes[*(const uint32_t *)a];
	const struct rt_node *y = &sort_ctx->nodes[*(const uint32_t *)b];

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

void rt_report__sort_children(struct rt_report *r, uint32_t node)
{
	uint32_t kids[4096], n = 0, c, i;

	for (c = r->nodes[node].child; c && n < 4096; c = r->nodes[c].next)
		kids[n++] = c;
	if (n < 2)
		return;
	sort_ctx = r;
	array_sort(kids, n, sizeof(*kids), node_cmp);
	sort_ctx = NULL;
	r->nodes[node].child = kids[0];
	for (i = 0; i + 1 < n; i++)
		r->nodes[kids[i]].next = kids[i + 1];
	r->nodes[kids[n - 1]].next = 0;
}

void rt_report__free(struct rt_report *r)
{
	free(r->e);
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}

/* ---- folded stacks ------------------------------------------------------ */

static int folded_cmp(const void *a, const void *b)
{
	const struct rt_folded_line *x = a, *y = b;

	return strcmp(x->line, y->line);
}

/* A name as the folded format wants it: no ';', and comm without spaces. */
static void put_folded(char **p, char *end, const char *s, bool spaces)
{
	for (; *s && *p < end; s++)
		*(*p)++ = *s == ';' ? ':' : (spaces && *s == ' ') ? '_' : *s;
}

int rtree__folded(const struct rtree *t, struct rt_folded *folded)
{
	struct rt_flame fl;
	struct rt_folded_line *out = NULL;
	size_t n = 0, cap = 0, i;
	int ret;

	/* The flame tree merges equal stacks; its leaves' counts are lines. */
	ret = rt_flame__build(&fl, t);
	if (ret)
		return ret;
	{
		/* Depth-first, with the path kept as a stack of nodes. */
		uint32_t path[1024];
		unsigned int depth = 0;
		uint32_t node = fl.nodes[1].child;
		char *buf = malloc(1 << 16);

		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		while (node) {
			uint64_t below = 0;
			uint32_t c;

			path[depth] = node;
			for (c = fl.nodes[node].child; c; c = fl.nodes[c].next)
				below += fl.nodes[c].count;
			if (fl.nodes[node].count > below) {
				char *p = buf, *end = buf + (1 << 16) - 64;
				unsigned int d;

				for (d = 0; d <= depth; d++) {
					uint32_t nd = path[d];

					if (d)
						*p++ = ';';
					if (!d) {
						put_folded(&p, end, fl.comm[nd], true);
						continue;
					}
					put_folded(&p, end, t->syms[fl.nodes[nd].sym].name,
						   false);
					if (t->syms[fl.nodes[nd].sym].kernel &&
					    p + 4 < end) {
						memcpy(p, "_[k]", 4);
						p += 4;
					}
				}
				*p = 0;
				if (array_grow((void **)&out, &cap, n + 1, sizeof(*out)) ||
				    !(out[n].line = strdup(buf))) {
					free(buf);
					ret = -ENOMEM;
					goto out;
				}
				out[n++].count = fl.nodes[node].count - below;
			}
			/* Next: first child, else next sibling up the path. */
			if (fl.nodes[node].child && depth + 1 < 1024) {
				node = fl.nodes[node].child;
				depth++;
				continue;
			}
			while (!fl.nodes[path[depth]].next && depth)
				depth--;
			node = fl.nodes[path[depth]].next;
		}
		free(buf);
	}
	array_sort(out, n, sizeof(*out), folded_cmp);
	folded->l = out;
	folded->n = n;
	out = NULL;
	n = 0;
out:
	for (i = 0; i < n; i++)
		free(out[i].line);
	free(out);
	rt_flame__free(&fl);
	return ret;
}

void rt_folded__free(struct rt_folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->l[i].line);
	free(f->l);
	memset(f, 0, sizeof(*f));
}

int rtree__print_folded(const struct rtree *t, FILE *f)
{
	struct rt_folded fo = { 0 };
	int ret = rtree__folded(t, &fo);

	for (size_t i = 0; !ret && i < fo.n; i++)
		fprintf(f, "%s %" PRIu64 "\n", fo.l[i].line, fo.l[i].count);
	rt_folded__free(&fo);
	return ret;
}

/* ---- the flame graph tree ---------------------------------------------- */

/* comm[] and idle[] follow the node pool's capacity. */
static int flame_aux(struct rt_flame *fl, size_t *cap_aux)
{
	const char **nc;
	bool *ni;

	if (*cap_aux >= fl->cap_nodes)
		return 0;
	nc = realloc(fl->comm, fl->cap_nodes * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	fl->comm = nc;
	ni = realloc(fl->idle, fl->cap_nodes * sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	fl->idle = ni;
	/* New nodes are frames of a busy thread until set otherwise. */
	memset(fl->comm + *cap_aux, 0,
	       (fl->cap_nodes - *cap_aux) * sizeof(*fl->comm));
	memset(fl->idle + *cap_aux, 0,
	       (fl->cap_nodes - *cap_aux) * sizeof(*fl->idle));
	*cap_aux = fl->cap_nodes;
	return 0;
}

int rt_flame__build(struct rt_flame *fl, const struct rtree *t)
{
	size_t i, cap_aux = 0;
	uint32_t root;

	memset(fl, 0, sizeof(*fl));
	root = node_new(&fl->nodes, &fl->nr_nodes, &fl->cap_nodes, 0);
	if (!root)
		return -ENOMEM;
	for (i = 0; i < t->nr_samples; i++) {
		const struct rt_sample *rs = &t->samples[i];
		const uint32_t *st = &t->stack[rs->first];
		uint32_t c, node, j;

		fl->nodes[root].count += rs->weight;
		/* Comm nodes: sym holds nothing, comm[] the name. */
		for (c = fl->nodes[root].child; c; c = fl->nodes[c].next)
			if (fl->comm[c] == rs->s->comm)
				break;
		if (!c) {
			c = node_new(&fl->nodes, &fl->nr_nodes, &fl->cap_nodes,
				     UINT32_MAX);
			if (!c)
				return -ENOMEM;
			fl->nodes[c].next = fl->nodes[root].child;
			fl->nodes[root].child = c;
		}
		if (flame_aux(fl, &cap_aux))
			return -ENOMEM;
		fl->comm[c] = rs->s->comm;
		fl->idle[c] = rs->idle;
		fl->nodes[c].count += rs->weight;
		node = c;
		for (j = 0; j < rs->n; j++) {
			node = node_child(&fl->nodes, &fl->nr_nodes,
					  &fl->cap_nodes, node,
					  st[rs->n - 1 - j]);
			if (!node)
				return -ENOMEM;
			fl->nodes[node].count += rs->weight;
			if (flame_aux(fl, &cap_aux))
				return -ENOMEM;
			fl->comm[node] = NULL;
			fl->idle[node] = rs->idle;
		}
	}
	if (fl->comm)
		fl->comm[root] = "all";
	return 0;
}

void rt_flame__free(struct rt_flame *fl)
{
	free(fl->nodes);
	free(fl->comm);
	free(fl->idle);
	memset(fl, 0, sizeof(*fl));
}
