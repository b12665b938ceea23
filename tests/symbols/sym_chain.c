// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_chain - the known call chain main -> a -> b -> c, spinning in c for
 * argv[1] milliseconds (default 2000).  Built with frame pointers and no
 * inlining, cloning or tail calls (tests/symbols/build.mk), so every user
 * stack sampled in c unwinds to exactly c <- b <- a <- main.
 */
#include "sym_util.h"

__attribute__((noinline, noclone)) unsigned long c(unsigned long long until)
{
	volatile unsigned long n = 0;

	do {
		for (unsigned long i = 0; i < (1ul << 18); i++)
			n = n + 1;
	} while (sym_now_ms() < until);
	return n;
}

/* Each caller uses its callee's result: the calls are never tail calls. */
__attribute__((noinline, noclone)) unsigned long b(unsigned long long until)
{
	return c(until) + 2;
}

__attribute__((noinline, noclone)) unsigned long a(unsigned long long until)
{
	return b(until) + 1;
}

int main(int argc, char **argv)
{
	return a(sym_now_ms() + sym_arg_ms(argc, argv, 1, 2000)) == 0;
}
