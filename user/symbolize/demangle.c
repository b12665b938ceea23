// SPDX-License-Identifier: GPL-2.0-only
/*
 * demangle.c - mangled names made readable once each, with libiberty
 * (see demangle.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <libiberty/demangle.h>

#include "symbolize/demangle.h"

/*
 * "_Z" starts every Itanium C++ name (and Rust's legacy ones), "_R"
 * Rust's v0 names: anything else is asked nothing, so C programs pay
 * two byte compares a name.
 */
static int mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

const char *demangler__name(struct demangler *d, const char *name)
{
	uint64_t *slot;
	char *readable;
	int added;

	if (!name || !mangled(name))
		return name;
	added = hmap__get_or_add(&d->names, (uintptr_t)name, &slot);
	if (added < 0)
		return name;
	if (!added)
		return *slot ? (const char *)(uintptr_t)*slot : name;
	/* DMGL_NO_OPTS: no parameters, as perf prints by default; 0 left
	 * in the slot says "not demangled", so it is not asked again. */
	readable = cplus_demangle(name, DMGL_NO_OPTS);
	*slot = (uintptr_t)readable;
	return readable ? readable : name;
}

void demangler__release(struct demangler *d)
{
	struct hmap_slot *s;

	hmap__for_each(&d->names, s)
		free((char *)(uintptr_t)s->val);
	hmap__free(&d->names);
}
