/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * demangle.h - C++ and Rust symbol names as people read them, the way
 * perf shows them by default: "std::vector<int, std::allocator<int> >
 * ::push_back", no parameter list; Rust's legacy hash suffix dropped.
 * The work is libiberty's demangler (Debian's libiberty-dev, the one
 * c++filt uses), which knows the Itanium C++ ABI and both Rust manglings.
 */
#ifndef FXTPROF_SYMBOLIZE_DEMANGLE_H
#define FXTPROF_SYMBOLIZE_DEMANGLE_H

#include "util/hmap.h"

/* Demangled names by the address of their mangled one: zero it to start. */
struct demangler {
	struct hmap names;	/* (uintptr_t)mangled -> (uintptr_t)demangled */
};

/*
 * The readable name of @name: @name itself when it is not mangled or
 * cannot be demangled (or memory ran out), else a string the demangler
 * owns.  @name must stay at its address for the demangler's life: the
 * names of ELF string tables and DWARF do.
 */
const char *demangler__name(struct demangler *d, const char *name);
void demangler__release(struct demangler *d);

#endif /* FXTPROF_SYMBOLIZE_DEMANGLE_H */
