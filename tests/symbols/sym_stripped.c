// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_stripped [MS] - spins in stripped_spin() for MS milliseconds
 * (default 1500).  The VM gets it stripped; the host keeps the unstripped
 * file, found by its build id in a debug directory.  Built a second time
 * with -DSYM_REBUILT (sym_rebuilt): the same layout, so the same addresses
 * name the same functions, but other code and so another build id.  A
 * symbolizer that ignored the build id would give stripped_spin from the
 * rebuilt file; the test demands [unknown] and the mismatch reported.
 */
#include "sym_util.h"

#ifdef SYM_REBUILT
#define SYM_STEP 3
#else
#define SYM_STEP 1
#endif

__attribute__((noinline, noclone)) unsigned long stripped_spin(unsigned long long until)
{
	volatile unsigned long n = 0;

	do {
		for (unsigned long i = 0; i < (1ul << 18); i++)
			n = n + SYM_STEP;
	} while (sym_now_ms() < until);
	return n;
}

int main(int argc, char **argv)
{
	return stripped_spin(sym_now_ms() + sym_arg_ms(argc, argv, 1, 1500)) == 0;
}
