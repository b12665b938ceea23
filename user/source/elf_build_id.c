// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_build_id.c - see elf_build_id.h.  Only what a build id needs: the
 * ELF header, program headers and, as a fallback, section headers, of
 * either class, in the host's byte order (a target reads its own files).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_build_id.h"

#define NOTE_READ_MAX	(64u << 10)	/* note segments are small */
#define MAX_HEADERS	256u

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int elf_build_id__from_notes(const void *notes, size_t len, uint8_t *id,
			     size_t cap)
{
	const unsigned char *p = notes;
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		if (namesz > len || descsz > len)
			return -EINVAL;
		desc_off = name_off + align4(namesz);
		next = desc_off + align4(descsz);
		if (desc_off > len || desc_off + descsz > len)
			return -EINVAL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && descsz) {
			if (descsz > cap)
				return -EINVAL;
			memcpy(id, p + desc_off, descsz);
			return (int)descsz;
		}
		off = next;
	}
	return -ENOENT;
}

static int read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOEXEC;
}

/* The notes at [off, off + size) of the file. */
static int notes_at(int fd, uint64_t off, uint64_t size, uint8_t *id,
		    size_t cap)
{
	void *buf;
	int ret;

	if (!size || size > NOTE_READ_MAX)
		return -ENOENT;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	ret = read_exact(fd, buf, size, off);
	if (!ret)
		ret = elf_build_id__from_notes(buf, size, id, cap);
	free(buf);
	return ret;
}

/* The class-independent facts of a program or section header. */
struct hdr {
	uint32_t type;
	uint64_t off, size;
};

static void get_phdr(const void *p, bool is64, struct hdr *h)
{
	if (is64) {
		const Elf64_Phdr *ph = p;

		h->type = ph->p_type;
		h->off = ph->p_offset;
		h->size = ph->p_filesz;
	} else {
		const Elf32_Phdr *ph = p;

		h->type = ph->p_type;
		h->off = ph->p_offset;
		h->size = ph->p_filesz;
	}
}

static void get_shdr(const void *p, bool is64, struct hdr *h)
{
	if (is64) {
		const Elf64_Shdr *sh = p;

		h->type = sh->sh_type;
		h->off = sh->sh_offset;
		h->size = sh->sh_size;
	} else {
		const Elf32_Shdr *sh = p;

		h->type = sh->sh_type;
		h->off = sh->sh_offset;
		h->size = sh->sh_size;
	}
}

/* Walk @num headers of @entsize at @off; notes of type @want. */
static int scan_headers(int fd, uint64_t off, unsigned int num,
			size_t entsize, bool is64, bool program, uint32_t want,
			uint8_t *id, size_t cap)
{
	unsigned char *tab;
	unsigned int i;
	size_t min_ent;
	int ret = -ENOENT;

	if (!num || !off)
		return -ENOENT;
	if (program)
		min_ent = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	else
		min_ent = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (num > MAX_HEADERS || entsize < min_ent)
		return -ENOEXEC;
	tab = malloc((size_t)num * entsize);
	if (!tab)
		return -ENOMEM;
	if (read_exact(fd, tab, (size_t)num * entsize, off)) {
		free(tab);
		return -ENOEXEC;
	}
	for (i = 0; i < num; i++) {
		struct hdr h;

		if (program)
			get_phdr(tab + (size_t)i * entsize, is64, &h);
		else
			get_shdr(tab + (size_t)i * entsize, is64, &h);
		if (h.type != want)
			continue;
		ret = notes_at(fd, h.off, h.size, id, cap);
		if (ret > 0 || ret == -ENOMEM)
			break;
		ret = -ENOENT;
	}
	free(tab);
	return ret;
}

int elf_build_id__from_fd(int fd, uint8_t *id, size_t cap)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} eh;
	uint64_t phoff, shoff;
	unsigned int phnum, shnum;
	size_t phent, shent;
	bool is64;
	int ret;

	if (read_exact(fd, &eh, sizeof(eh.e32), 0))
		return -ENOEXEC;
	if (memcmp(eh.ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	is64 = eh.ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		if (read_exact(fd, &eh, sizeof(eh.e64), 0))
			return -ENOEXEC;
		phoff = eh.e64.e_phoff;
		phnum = eh.e64.e_phnum;
		phent = eh.e64.e_phentsize;
		shoff = eh.e64.e_shoff;
		shnum = eh.e64.e_shnum;
		shent = eh.e64.e_shentsize;
	} else if (eh.ident[EI_CLASS] == ELFCLASS32) {
		phoff = eh.e32.e_phoff;
		phnum = eh.e32.e_phnum;
		phent = eh.e32.e_phentsize;
		shoff = eh.e32.e_shoff;
		shnum = eh.e32.e_shnum;
		shent = eh.e32.e_shentsize;
	} else {
		return -ENOEXEC;
	}
	ret = scan_headers(fd, phoff, phnum, phent, is64, true, PT_NOTE, id,
			   cap);
	if (ret == -ENOENT)
		ret = scan_headers(fd, shoff, shnum, shent, is64, false,
				   SHT_NOTE, id, cap);
	return ret;
}

int elf_build_id__from_path(const char *path, uint8_t *id, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = elf_build_id__from_fd(fd, id, cap);
	close(fd);
	return ret;
}

int elf_build_id__from_notes_file(const char *path, uint8_t *id, size_t cap)
{
	unsigned char buf[4096];
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* sysfs binary attributes: read until EOF. */
	while (len < sizeof(buf) &&
	       (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	close(fd);
	return elf_build_id__from_notes(buf, len, id, cap);
}
