/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_table.h - an ELF file's unwind table: its call frame information
 * (CFI), read with elfutils' libdw, compiled into the rows of
 * include/uapi/linux/fxtprof.h (struct fxtprof_unwind_row) that the module
 * and the bpf source walk.  Documentation/unwinding.md, "Building tables".
 *
 * How to call it:
 *
 *	struct unwind_table *t;
 *	char why[UNWIND_WHY_LEN];
 *	int err = unwind_table__build_path("/usr/lib/x86_64-linux-gnu/libc.so.6",
 *					   &t, why);
 *	if (err)
 *		fprintf(stderr, "%s\n", why);	// err is -errno
 *	...
 *	struct fxtprof_unwind_table arg;
 *	unwind_table__to_uapi(t, &arg);		// for FXTPROF_IOC_UNWIND_LOAD
 *	...
 *	unwind_table__free(t);
 *
 * A table is built for x86_64 and aarch64 files alike, whatever the host
 * (the file's e_machine chooses the registers).  It is read from
 * .eh_frame, or from .debug_frame when there is no .eh_frame; a file with
 * neither gives a table of no rows (cfi UNWIND_CFI_NONE), not an error.
 * Rows are sorted by pc, strictly increasing, each covering up to the next
 * row's pc and the last up to pc_end; a gap between two FDEs is a
 * CFA_NONE row, a rule a row cannot say is CFA_NONE with NO_RULE, and
 * every row passes the module's checks of FXTPROF_IOC_UNWIND_LOAD.
 * Building is synchronous: a few milliseconds per MB of .eh_frame.
 */
#ifndef FXTPROF_UNWIND_TABLE_H
#define FXTPROF_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include <linux/fxtprof.h>

/* Room for the sentence that says why a build failed. */
#define UNWIND_WHY_LEN	160

enum unwind_cfi {
	UNWIND_CFI_NONE,	/* the file has no CFI: no rows */
	UNWIND_CFI_EH_FRAME,
	UNWIND_CFI_DEBUG_FRAME,
};

/* Rows by kind; a row may count as several (sp and fp_saved). */
struct unwind_table_counts {
	uint32_t cfa_sp;	/* CFA from sp */
	uint32_t cfa_fp;	/* CFA from fp */
	uint32_t no_cfi;	/* CFA_NONE: a gap between FDEs */
	uint32_t no_rule;	/* CFA_NONE with NO_RULE */
	uint32_t outermost;
	uint32_t ra_in_lr;
	uint32_t fp_saved;
	uint32_t bad_fdes;	/* FDEs skipped: unreadable or unplaceable */
};

struct unwind_table {
	struct fxtprof_unwind_row *rows;
	uint32_t nr_rows;
	uint32_t pc_end;	/* the last row covers [its pc, pc_end) */
	uint8_t build_id_size;	/* 0: the file has none */
	uint8_t build_id[FXTPROF_BUILD_ID_MAX];
	uint16_t machine;	/* EM_X86_64 or EM_AARCH64 */
	enum unwind_cfi cfi;
	uint64_t cfi_bytes;	/* size of the CFI section read */
	struct unwind_table_counts counts;
};

/*
 * Build the table of the ELF file at @path, or open on @fd (read with
 * pread: the file offset does not matter and is not used), or of @elf.
 * 0 and *@out, or -errno with a sentence in @why (which may be NULL):
 * -ENOEXEC not ELF, -ENOTSUP not a 64-bit little-endian x86_64 or
 * aarch64 file, -ERANGE an address above 4 GiB, -E2BIG more than
 * FXTPROF_UNWIND_MAX_ROWS rows, -ENOMEM.  Corrupt CFI is not an error:
 * what cannot be read is left out and counted (counts.bad_fdes).
 */
int unwind_table__build_path(const char *path, struct unwind_table **out,
			     char *why);
int unwind_table__build_fd(int fd, struct unwind_table **out, char *why);
int unwind_table__build_elf(Elf *elf, struct unwind_table **out, char *why);

void unwind_table__free(struct unwind_table *t);

/* Bytes the table holds: what the module's unwind_memory is charged. */
size_t unwind_table__size(const struct unwind_table *t);

/* The row that covers @pc (a file vaddr), or NULL. */
const struct fxtprof_unwind_row *
unwind_table__lookup(const struct unwind_table *t, uint64_t pc);

/* The argument of FXTPROF_IOC_UNWIND_LOAD (source_ops.unwind_load). */
void unwind_table__to_uapi(const struct unwind_table *t,
			   struct fxtprof_unwind_table *arg);

/* The file's GNU build id, for a cache's key: its size, or -ENOENT. */
int unwind_table__build_id(Elf *elf, uint8_t id[FXTPROF_BUILD_ID_MAX]);

#endif /* FXTPROF_UNWIND_TABLE_H */
