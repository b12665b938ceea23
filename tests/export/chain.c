// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain.c - the known call chain main -> a -> b -> c of the export tests.
 * Never run: tests/export/export_testgen reads its symbols and build id
 * and writes samples whose addresses fall inside these functions.
 */
#include <stdio.h>

volatile unsigned long sink;

__attribute__((noinline)) void c(void)
{
	for (unsigned long i = 0; i < 1000; i++)
		sink += i;
}

__attribute__((noinline)) void b(void)
{
	c();
	sink++;
}

__attribute__((noinline)) void a(void)
{
	b();
	sink++;
}

int main(void)
{
	a();
	printf("%lu\n", sink);
	return 0;
}
