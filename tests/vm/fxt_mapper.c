// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_mapper - a VM test helper for test_mmap: a process that lives well
 * under 50 ms.  It maps the file argv[1] executable (what a dlopen does;
 * the VM's programs are static, so a real dlopen is not possible there),
 * spins in system calls for about 20 ms and exits.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = now();
	void *p = MAP_FAILED;
	int fd;

	if (argc > 1) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0)
			return 2;
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			return 3;
	}
	while (now() - t0 < 0.02)
		getppid();
	return 0;
}
