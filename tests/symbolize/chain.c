// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain.c - a test program with a known call chain main -> a -> b -> c,
 * frame pointers and DWARF; the symbolizer tests name its addresses.
 * Built several ways by make_fixtures.sh (PIE, non-PIE, stripped, and
 * rebuilt with -DREBUILT for another build id).  The LINE_ markers are
 * how the test finds the line numbers it expects.
 */
#define noinline __attribute__((noinline))

volatile int sink;
int inl_caller(int x);

noinline int c(int x) { /* LINE_C */
	int i;

	for (i = 0; i < x; i++)
		sink += i;
#ifdef REBUILT
	sink ^= 0x5a;
#endif
	return sink;
}

noinline int b(int x)
{
	return c(x + 1) + 1;
}

noinline int a(int x)
{
	return b(x + 1) + 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	return a(argc) + inl_caller(argc) > 1000000 ? 1 : 0;
}
