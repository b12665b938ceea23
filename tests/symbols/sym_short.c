// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_short [MS] - a process that lives under 50 ms and spins the whole
 * time, in short_spin(), for MS milliseconds (default 15).  It prints its
 * own lifetime, from the start time the kernel gave it (in clock ticks of
 * /proc/self/stat, so at most one tick over) to its exit, as
 * "sym_short: lived N ms": the test is about a process that is gone
 * before anyone could read its /proc/PID/maps, and counts the runs that
 * lived under 50 ms (an emulator on a busy host can stretch one).
 * Exits 1 if it could not tell its lifetime.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sym_util.h"

__attribute__((noinline, noclone)) unsigned long short_spin(unsigned long long until)
{
	volatile unsigned long n = 0;

	do {
		for (unsigned long i = 0; i < (1ul << 14); i++)
			n = n + 1;
	} while (sym_now_ms() < until);
	return n;
}

/* Milliseconds since this process started, or -1. */
static long long lifetime_ms(void)
{
	unsigned long long start;
	struct timespec now;
	char buf[1024], *p;
	size_t len;
	FILE *f;
	int field;

	f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* comm may hold spaces: fields are counted after its ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return -1;
	clock_gettime(CLOCK_BOOTTIME, &now);
	return (now.tv_sec * 1000ll + now.tv_nsec / 1000000) -
	       (long long)(start * 1000 / sysconf(_SC_CLK_TCK));
}

int main(int argc, char **argv)
{
	unsigned long long ms = sym_arg_ms(argc, argv, 1, 15);
	unsigned long n = short_spin(sym_now_ms() + ms);
	long long life = lifetime_ms();

	printf("sym_short: lived %lld ms\n", life);
	return (n == 0 || life < 0) ? 1 : 0;
}
