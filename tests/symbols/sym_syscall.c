// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_syscall [MS] - a system-call-heavy loop for MS milliseconds
 * (default 1500): getpid() and a one-byte read() of /dev/zero, so most of
 * its samples are in the kernel, on the getpid and read paths.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sym_util.h"

int main(int argc, char **argv)
{
	unsigned long long until = sym_now_ms() + sym_arg_ms(argc, argv, 1, 1500);
	unsigned long calls = 0;
	char byte;
	int fd;

	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("sym_syscall: /dev/zero");
		return 2;
	}
	do {
		for (int i = 0; i < 256; i++) {
			/* syscall(): never a cached pid, always the kernel. */
			syscall(SYS_getpid);
			if (read(fd, &byte, 1) != 1) {
				perror("sym_syscall: read");
				return 2;
			}
			calls += 2;
		}
	} while (sym_now_ms() < until);
	close(fd);
	printf("sym_syscall: %lu system calls\n", calls);
	return 0;
}
