// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_child - a VM test helper with a distinctive name: test_tasks execs
 * it and checks the exec and exit records it leaves (exit code 7 unless
 * told otherwise).
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	return argc > 1 ? atoi(argv[1]) : 7;
}
