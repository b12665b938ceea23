/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_image.h - one ELF file opened for symbols: its build id, its loadable
 * segments (to turn file offsets into ELF addresses) and its function
 * symbols, read with libelf.
 *
 * Opening never trusts the file: a directory, a non-ELF, a truncated or an
 * unreadable file gives -errno, never a crash.
 */
#ifndef FXTPROF_SYMBOLIZE_ELF_IMAGE_H
#define FXTPROF_SYMBOLIZE_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#define ELF_IMAGE_BUILD_ID_MAX	64

struct elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

struct elf_image {
	char *path;
	int fd;
	Elf *elf;
	unsigned int type;		/* ET_EXEC, ET_DYN, ... */
	uint8_t build_id[ELF_IMAGE_BUILD_ID_MAX];
	unsigned int build_id_size;	/* 0: the file has none */
	struct elf_load *loads;
	unsigned int nr_loads;
	/*
	 * A file made by `objcopy --only-keep-debug` keeps the program
	 * headers' addresses but not their file offsets: its loads cannot
	 * turn a file offset into an address.
	 */
	bool debug_only;
	bool has_symtab;		/* .symtab, not only .dynsym */
	bool has_dwarf;			/* a .debug_info section with data */
	char *debuglink;		/* .gnu_debuglink file name, or NULL */
};

/*
 * Open path: 0, -ENOENT/-ENOTDIR (no such file: look elsewhere), or
 * another -errno for a file that is there but unusable (-EISDIR, -EACCES,
 * -ENOEXEC for not ELF or damaged).
 */
int elf_image__open(const char *path, struct elf_image **out);
void elf_image__free(struct elf_image *img);

/* The ELF address of file offset off, via the PT_LOAD that holds it. */
bool elf_image__offset_to_vaddr(const struct elf_image *img, uint64_t off,
				uint64_t *vaddr);

/* The value of the symbol called name in .symtab or .dynsym. */
bool elf_image__symbol_value(const struct elf_image *img, const char *name,
			     uint64_t *value);

/* A function symbol: [start, start + size). */
struct elf_sym {
	uint64_t start, size;
	uint64_t limit;		/* sizeless: where its section ends */
	const char *name;	/* in the Elf's string table */
	uint8_t rank;		/* which of equal starts wins: higher */
};

/* Function symbols of one or more images, sorted for binary search. */
struct sym_table {
	struct elf_sym *syms;
	size_t nr, cap;
};

/* Add img's .symtab and .dynsym functions (names stay in img). */
int sym_table__add_image(struct sym_table *t, const struct elf_image *img);
/*
 * Add one symbol (kernel tables); name must outlive the table.  A
 * sizeless one (size 0) will reach the next symbol or limit.
 */
int sym_table__add(struct sym_table *t, uint64_t start, uint64_t size,
		   uint64_t limit, const char *name, uint8_t rank);
/* Sort, drop duplicates, give sizeless symbols the room to the next. */
void sym_table__finish(struct sym_table *t);
const struct elf_sym *sym_table__find(const struct sym_table *t,
				      uint64_t addr);
void sym_table__release(struct sym_table *t);

#endif /* FXTPROF_SYMBOLIZE_ELF_IMAGE_H */
