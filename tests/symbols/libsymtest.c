// SPDX-License-Identifier: GPL-2.0-only
/*
 * libsymtest.so - the shared library sym_dlopen loads at run time: its
 * libsym_spin() spins for the milliseconds it is given.
 */
#include "sym_util.h"

__attribute__((noinline, noclone)) unsigned long libsym_spin(unsigned long long ms)
{
	unsigned long long until = sym_now_ms() + ms;
	volatile unsigned long n = 0;

	do {
		for (unsigned long i = 0; i < (1ul << 18); i++)
			n = n + 1;
	} while (sym_now_ms() < until);
	return n;
}
