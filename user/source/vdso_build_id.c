// SPDX-License-Identifier: GPL-2.0-only
/*
 * vdso_build_id.c - see vdso_build_id.h.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include <libfxtprof.h>

#include "elf_build_id.h"
#include "vdso_build_id.h"

static struct {
	int state;			/* 0: not looked yet; else the answer */
	uint64_t len;
	uint8_t id[FXTPROF_BUILD_ID_MAX];
} own;

/* The length of the mapping that starts at @base, from /proc/self/maps. */
static int mapping_len(uintptr_t base, uint64_t *len)
{
	unsigned long long start, end;
	char line[256];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    start == base && end > start) {
			*len = end - start;
			ret = 0;
			break;
		}
		/* A line longer than the buffer: skip the rest of it. */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return ret;
}

/*
 * The notes of the image mapped at @base, which the kernel made: trusted
 * as far as to stay inside the mapping it sits in.
 */
static int lookup(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	const unsigned char *img = (const void *)base;
	const Elf64_Ehdr *eh = (const void *)base;
	uint64_t len;
	int ret, i;

	if (!base)
		return -ENOENT;
	ret = mapping_len(base, &len);
	if (ret)
		return ret;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > len ||
	    eh->e_phnum > (len - eh->e_phoff) / sizeof(Elf64_Phdr))
		return -ENOEXEC;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff +
						      i * sizeof(*ph));

		if (ph->p_type != PT_NOTE || ph->p_offset > len ||
		    ph->p_filesz > len - ph->p_offset)
			continue;
		ret = elf_build_id__from_notes(img + ph->p_offset,
					       ph->p_filesz, own.id,
					       sizeof(own.id));
		if (ret > 0) {
			own.len = len;
			return ret;
		}
	}
	return -ENOENT;
}

int vdso_build_id__get(uint64_t len, uint8_t *id, size_t cap)
{
	if (!own.state)
		own.state = lookup();
	if (own.state < 0)
		return own.state;
	if (len != own.len)
		return -ERANGE;
	if ((size_t)own.state > cap)
		return -ENOSPC;
	memcpy(id, own.id, own.state);
	return own.state;
}
