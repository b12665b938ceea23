// SPDX-License-Identifier: GPL-2.0-only
/*
 * own_vdso.c - see own_vdso.h.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "own_vdso.h"

#define VDSO_MAX_LEN	(1ul << 20)

static char own_path[32];
static int own_errno;

/*
 * The image's length by its own headers: the kernel maps the whole
 * linked file, section headers last.  Trusted, as the kernel made it,
 * within a bound no vDSO comes near.
 */
static long image_len(const unsigned char *img)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	unsigned long end;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)))
		return -ENOEXEC;
	end = eh->e_shoff + (unsigned long)eh->e_shnum * eh->e_shentsize;
	if (end < sizeof(*eh) || end > VDSO_MAX_LEN)
		return -ENOEXEC;
	return (long)end;
}

static int copy(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const char *p = (const char *)base;
	long len;
	int fd;

	if (!base)
		return -ENOENT;
	len = image_len((const unsigned char *)base);
	if (len < 0)
		return (int)len;
	fd = memfd_create("fxtprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, (size_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		p += n;
		len -= n;
	}
	snprintf(own_path, sizeof(own_path), "/proc/self/fd/%d", fd);
	return 0;
}

const char *own_vdso__path(void)
{
	static bool tried;

	if (!tried) {
		tried = true;
		own_errno = -copy();
	}
	if (own_errno) {
		errno = own_errno;
		return NULL;
	}
	return own_path;
}
