// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_dlopen LIB [MS] - a PIE that loads LIB (libsymtest.so) with dlopen
 * once it runs, so the library is mapped during the recording, and spins
 * in its libsym_spin() for MS milliseconds (default 2000), called from
 * main.  Exits 2 if the library or the function cannot be found.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "sym_util.h"

int main(int argc, char **argv)
{
	unsigned long (*spin)(unsigned long long);
	void *lib;

	if (argc < 2) {
		fprintf(stderr, "usage: sym_dlopen LIB [MS]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "sym_dlopen: %s\n", dlerror());
		return 2;
	}
	*(void **)&spin = dlsym(lib, "libsym_spin");
	if (!spin) {
		fprintf(stderr, "sym_dlopen: %s\n", dlerror());
		return 2;
	}
	/* Use the result: main stays the caller, not a tail call. */
	return spin(sym_arg_ms(argc, argv, 2, 2000)) == 0;
}
