// SPDX-License-Identifier: GPL-2.0-only
/* pie_main.c - a PIE program that calls into libshlib.so. */
int lib_spin(int n);

int main(int argc, char **argv)
{
	(void)argv;
	return lib_spin(argc * 1000) == -1;
}
