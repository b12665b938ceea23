// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain.c - a known call chain main -> a -> b -> c, built with frame
 * pointers.  c() walks its own frame pointers and prints the stack a
 * sampler would have taken there (leaf first: an address in spin(),
 * inlined into c), and the process's
 * executable mappings: gen_profile turns them into a recording whose
 * frames are this binary's real addresses.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static NOINLINE void print_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, pgoff;
		char perm[8], path[4096];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perm, &pgoff, path) == 5 && perm[2] == 'x' &&
		    path[0] == '/')
			printf("map %#lx %#lx %#lx %s\n", start, end, pgoff, path);
	}
	fclose(f);
}

/* The address in its caller it returns to. */
NOINLINE uintptr_t return_pc(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

/*
 * Inlined into c: its leaf address is in c's code, in the range DWARF
 * gives to spin(), so --inline names it "spin (inlined)".
 */
static inline __attribute__((always_inline)) void spin(void)
{
	volatile uintptr_t leaf = return_pc();
	uintptr_t *fp = __builtin_frame_address(0);
	unsigned int n = 0;

	printf("frames %#lx", (unsigned long)leaf);
	/* Return addresses up to main's caller: c's caller b, a, main. */
	while (fp && n++ < 4) {
		printf(" %#lx", (unsigned long)fp[1]);
		fp = (uintptr_t *)fp[0];
	}
	printf("\n");
}

NOINLINE void c(void)
{
	spin();
	print_maps();
}

NOINLINE void b(void) { c(); __asm__ volatile(""); }
NOINLINE void a(void) { b(); __asm__ volatile(""); }

int main(void)
{
	a();
	__asm__ volatile("");
	return 0;
}
