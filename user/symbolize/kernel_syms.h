/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel_syms.h - kernel text symbols from a file given on the command
 * line: a vmlinux (an ELF with .symtab, which also has the kernel's build
 * id) or a System.map (`addr type name` lines, as nm prints them).
 */
#ifndef FXTPROF_SYMBOLIZE_KERNEL_SYMS_H
#define FXTPROF_SYMBOLIZE_KERNEL_SYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolize/elf_image.h"

struct kernel_syms {
	char *path;
	struct sym_table table;
	struct elf_image *img;		/* vmlinux, or NULL */
	char *text;			/* System.map bytes, names inside */
	bool has_stext;
	uint64_t stext;			/* link-time _stext, for the slide */
};

/* 0, or -errno: -ENOENT, -ENOEXEC (not ELF, or no text symbols). */
int kernel_syms__load_vmlinux(const char *path, struct kernel_syms **out);
int kernel_syms__load_system_map(const char *path, struct kernel_syms **out);
void kernel_syms__free(struct kernel_syms *k);

#endif /* FXTPROF_SYMBOLIZE_KERNEL_SYMS_H */
