// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_annot.c - the region filters of `report`, `flamegraph` and
 * `export`, and --by-region (report_annot.h).
 *
 * Patterns are globs as Perfetto's `name GLOB '...'`, not comma lists:
 * Kokkos kernel names hold commas ("Kokkos::View<double*, Host>").  A
 * pattern naming nothing in the recording is most likely a typo, so it
 * fails (exit 1) and lists the names there are, rather than printing an
 * empty profile.  A pattern that matches intervals no sample fell in is
 * a true answer: 0 samples, exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/profile_annot.h"
#include "report_annot.h"

/* Names listed when a pattern matches nothing. */
#define LIST_NAMES	12

static const char *const kind_name[PROFILE_ANNOT__NR] = {
	[PROFILE_ANNOT_REGION] = "region",
	[PROFILE_ANNOT_KERNEL] = "kernel",
	[PROFILE_ANNOT_SECTION] = "section",
};

static int kind_of(const char *name)
{
	unsigned int k;

	for (k = 0; k < PROFILE_ANNOT__NR; k++)
		if (!strcmp(name, kind_name[k]))
			return (int)k;
	return -1;
}

int rt_annot__add(struct rt_annot_opts *o, const char *kind,
		  const char *glob)
{
	int k = kind_of(kind);

	if (k < 0)
		return -EINVAL;
	if (!glob || !glob[0]) {
		fprintf(stderr, "fxtprof: --%s needs a name or a glob "
			"pattern\n", kind);
		return -EINVAL;
	}
	if (o->nr_pats == RT_ANNOT_MAX_PATTERNS) {
		fprintf(stderr, "fxtprof: at most %d --region, --kernel and "
			"--section patterns\n", RT_ANNOT_MAX_PATTERNS);
		return -EINVAL;
	}
	o->pats[o->nr_pats].glob = glob;
	o->pats[o->nr_pats++].kind = (uint8_t)k;
	return 0;
}

int rt_annot__parse(struct rt_annot_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	int ret;

	if (!strcmp(a, "--by-region")) {
		o->by_region = true;
		return 1;
	}
	if (strncmp(a, "--", 2) || kind_of(a + 2) < 0)
		return 0;
	ret = rt_annot__add(o, a + 2, *i + 1 < argc ? argv[*i + 1] : NULL);
	if (ret)
		return ret;
	++*i;
	return 1;
}

void rt_annot__usage(FILE *f)
{
	fprintf(f,
		"  --region GLOB  --kernel GLOB  --section GLOB\n"
		"              only samples taken inside a region, Kokkos "
		"kernel or\n"
		"              section so named, on their thread, at any depth "
		"(repeatable)\n"
		"  --by-region the thread's regions and kernels become the "
		"root frames\n");
}

static bool matches(const struct rt_annot_opts *o,
		    const struct profile_annot *v)
{
	unsigned int k;

	for (k = 0; k < o->nr_pats; k++)
		/* A name is itself too: "view[0]" has a '[' for fnmatch. */
		if (o->pats[k].kind == v->kind &&
		    (!strcmp(o->pats[k].glob, v->name) ||
		     !fnmatch(o->pats[k].glob, v->name, 0)))
			return true;
	return false;
}

/* The names of kind in the recording, at most LIST_NAMES, on stderr. */
static void list_names(const struct profile_annots *a, uint8_t kind)
{
	const char *seen[LIST_NAMES];
	unsigned int n = 0, j;
	uint64_t more = 0;
	size_t i;

	for (i = 0; i < profile_annots__nr(a); i++) {
		const struct profile_annot *v = profile_annots__get(a, i);

		if (v->kind != kind)
			continue;
		/* Names are interned: equal names are one pointer. */
		for (j = 0; j < n && seen[j] != v->name; j++)
			;
		if (j < n)
			continue;
		if (n < LIST_NAMES)
			seen[n++] = v->name;
		else
			more++;
	}
	if (!n) {
		fprintf(stderr, "it has no %s at all\n", kind_name[kind]);
		return;
	}
	fprintf(stderr, "its %ss:", kind_name[kind]);
	for (j = 0; j < n; j++)
		fprintf(stderr, " '%s'", seen[j]);
	if (more)
		fprintf(stderr, " and %" PRIu64 " more intervals", more);
	fputc('\n', stderr);
}

int rt_annot__check(const struct rt_annot_opts *o, const struct profile *p,
		    const char *path, struct rt_annot_result *res)
{
	const struct profile_annots *a = profile__annots(p);
	size_t i, n = profile_annots__nr(a);
	unsigned int k;

	memset(res, 0, sizeof(*res));
	if (!n && !o->nr_pats)
		return 0;
	/* Matched once per interval, not per sample: fnmatch is slow. */
	res->first = profile_annots__get(a, 0);
	res->match = calloc(n ? n : 1, sizeof(*res->match));
	res->frame = calloc(n ? n : 1, sizeof(*res->frame));
	if (!res->match || !res->frame) {
		fprintf(stderr, "fxtprof: report: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (matches(o, profile_annots__get(a, i))) {
			res->match[i] = 1;
			res->matched++;
		}
	if (!o->nr_pats || res->matched)
		return 0;
	for (k = 0; k < o->nr_pats; k++) {
		fprintf(stderr, "fxtprof: %s: no %s matches '%s'; ", path,
			kind_name[o->pats[k].kind], o->pats[k].glob);
		list_names(a, o->pats[k].kind);
	}
	return -ENOENT;
}

void rt_annot__release(struct rt_annot_result *res)
{
	free(res->match);
	free(res->frame);
	memset(res, 0, sizeof(*res));
}

bool rt_annot__keeps(const struct rt_annot_opts *o,
		     const struct rt_annot_result *res,
		     const struct profile *p, size_t i)
{
	const struct profile_annot *in[RT_ANNOT_MAX_DEPTH];
	unsigned int n, k;

	if (!o->nr_pats)
		return true;
	n = profile_annots__of_sample(profile__annots(p), i, in,
				      RT_ANNOT_MAX_DEPTH);
	if (n > RT_ANNOT_MAX_DEPTH)
		n = RT_ANNOT_MAX_DEPTH;
	for (k = 0; k < n; k++)
		if (res->match[in[k] - res->first])
			return true;
	return false;
}

int rt_annot__frames(const struct rt_annot_opts *o,
		     struct rt_annot_result *res, const struct profile *p,
		     size_t i, rt_annot_intern_fn intern, void *ctx,
		     uint32_t *ids)
{
	const struct profile_annot *in[RT_ANNOT_MAX_DEPTH];
	unsigned int n, k, nr = 0;
	char name[512];
	int ret;

	if (!o->by_region)
		return 0;
	n = profile_annots__of_sample(profile__annots(p), i, in,
				      RT_ANNOT_MAX_DEPTH);
	if (n > RT_ANNOT_MAX_DEPTH)
		n = RT_ANNOT_MAX_DEPTH;
	/* Leaf first: the innermost region comes first. */
	for (k = n; k--; ) {
		uint32_t *id = &res->frame[in[k] - res->first];

		if (in[k]->kind == PROFILE_ANNOT_SECTION)
			continue;
		if (!*id) {
			snprintf(name, sizeof(name), "[%s] %s",
				 kind_name[in[k]->kind], in[k]->name);
			ret = intern(ctx, name, RT_ANNOT_DSO, id);
			if (ret)
				return ret;
			++*id;
		}
		ids[nr++] = *id - 1;
	}
	return (int)nr;
}

void rt_annot__print_header(const struct profile *p, uint64_t kept,
			    const struct rt_annot_opts *o,
			    const struct rt_annot_result *res, FILE *f)
{
	const struct profile_annots *a = profile__annots(p);
	struct profile_annot_stats st;

	profile_annots__stats(a, &st);
	if (profile_annots__nr(a) || st.events || st.unmatched_ends) {
		fprintf(f, "# annotations: regions %" PRIu64 ", kernels %"
			PRIu64 ", sections %" PRIu64 ", events %" PRIu64,
			st.by_kind[PROFILE_ANNOT_REGION],
			st.by_kind[PROFILE_ANNOT_KERNEL],
			st.by_kind[PROFILE_ANNOT_SECTION], st.events);
		if (st.unmatched_ends)
			fprintf(f, "; ends without a begin (ignored) %" PRIu64,
				st.unmatched_ends);
		if (st.open_at_end)
			fprintf(f, "; open at the end (to the end) %" PRIu64,
				st.open_at_end);
		if (st.closed_by_outer)
			fprintf(f, "; ended by an outer end %" PRIu64,
				st.closed_by_outer);
		if (st.section_rebegun)
			fprintf(f, "; section begins while begun (ignored) %"
				PRIu64, st.section_rebegun);
		fputc('\n', f);
	}
	if (!o->nr_pats)
		return;
	fputc('#', f);
	rt_annot__print_kept(o, res, kept, kept + res->dropped, f);
}

void rt_annot__print_kept(const struct rt_annot_opts *o,
			  const struct rt_annot_result *res, uint64_t kept,
			  uint64_t of, FILE *f)
{
	unsigned int k;

	for (k = 0; k < o->nr_pats; k++)
		fprintf(f, " --%s '%s'",
			kind_name[o->pats[k].kind], o->pats[k].glob);
	fprintf(f, ": %" PRIu64 " of %" PRIu64 " samples kept, in %" PRIu64
		" matching intervals\n", kept, of, res->matched);
}
