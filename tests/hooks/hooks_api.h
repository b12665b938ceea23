/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_api.h - libfxtprof-hooks as the tests load it: dlopen() of the
 * library this build made (HOOKS_LIB, set by tests/hooks/build.mk), the
 * callback table from fxtprof_get_hooks(), and the names outside it.
 */
#ifndef FXTPROF_HOOKS_API_H
#define FXTPROF_HOOKS_API_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fxtprof_hooks.h"

struct hooks_api {
	void *dl;
	struct fxtprof_hooks h;
	void (*event)(const char *name);
	int (*trigger)(const char *name);
	size_t (*stats)(struct fxtprof_hooks_stats *st, size_t size);
};

/* 0, or -1 with the reason on stderr. */
static inline int hooks_api__load(struct hooks_api *a)
{
	size_t (*get)(struct fxtprof_hooks *, size_t);

	memset(a, 0, sizeof(*a));
	a->dl = dlopen(HOOKS_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!a->dl) {
		fprintf(stderr, "# dlopen: %s\n", dlerror());
		return -1;
	}
	get = (size_t (*)(struct fxtprof_hooks *, size_t))dlsym(a->dl, "fxtprof_get_hooks");
	a->event = (void (*)(const char *))dlsym(a->dl, "fxtprof_event");
	a->trigger = (int (*)(const char *))dlsym(a->dl, "fxtprof_trigger");
	a->stats = (size_t (*)(struct fxtprof_hooks_stats *, size_t))
		dlsym(a->dl, "fxtprof_get_stats");
	if (!get || !a->event || !a->trigger || !a->stats ||
	    get(&a->h, sizeof(a->h)) != sizeof(a->h)) {
		fprintf(stderr, "# a symbol is missing from %s\n", HOOKS_LIB);
		return -1;
	}
	return 0;
}

static inline struct fxtprof_hooks_stats hooks_api__stats(const struct hooks_api *a)
{
	struct fxtprof_hooks_stats st;

	a->stats(&st, sizeof(st));
	return st;
}

#endif /* FXTPROF_HOOKS_API_H */
