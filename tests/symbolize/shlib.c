// SPDX-License-Identifier: GPL-2.0-only
/* shlib.c - the shared library of the PIE + .so test. */
volatile int lib_sink;

__attribute__((noinline)) int lib_spin(int n)
{
	int i;

	for (i = 0; i < n; i++)
		lib_sink += i;
	return lib_sink;
}
