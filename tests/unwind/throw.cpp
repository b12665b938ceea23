// SPDX-License-Identifier: GPL-2.0-only
/*
 * throw.cpp - a C++ program that throws and catches, built -O2 without
 * frame pointers: landing pads and .gcc_except_table in its CFI, whose
 * table test_unwind_cfi checks.
 */
#include <cstdio>
#include <stdexcept>
#include <string>

__attribute__((noinline)) static int thrower(int depth)
{
	if (depth == 0)
		throw std::runtime_error("depth " + std::to_string(depth));
	return thrower(depth - 1) + 1;
}

int main(int argc, char **)
{
	int caught = 0;

	for (int i = 0; i < argc * 100; i++) {
		try {
			thrower(20);
		} catch (const std::exception &e) {
			caught += e.what()[0] == 'd';
		}
	}
	std::printf("%d\n", caught);
	return 0;
}
