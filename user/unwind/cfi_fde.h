/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cfi_fde.h - the address ranges of a CFI section's FDEs.
 *
 * libdw answers "what is the rule at this pc" (dwarf_cfi_addrframe) but
 * has no call that lists the pcs an FDE covers: dwarf_next_cfi splits
 * the section into CIEs and FDEs and leaves an FDE's initial_location and
 * address_range encoded as its CIE's augmentation says.  This decodes
 * those two fields, and nothing else of the CFI: the rules themselves are
 * libdw's to read.
 */
#ifndef FXTPROF_CFI_FDE_H
#define FXTPROF_CFI_FDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct cfi_fde_range {
	uint64_t lo, hi;	/* [lo, hi), file vaddrs */
};

struct cfi_section {
	Elf_Data *data;		/* the section's bytes */
	uint64_t addr;		/* its sh_addr, for pc-relative pointers */
	bool eh_frame;		/* .eh_frame, else .debug_frame */
	const unsigned char *e_ident;
};

/*
 * Every FDE's range, sorted by lo, in a malloc'd *@out (*@nr of them).
 * FDEs that cannot be read or placed are skipped and counted in *@bad.
 * 0 or -ENOMEM.
 */
int cfi_fde__ranges(const struct cfi_section *sec,
		    struct cfi_fde_range **out, size_t *nr, uint32_t *bad);

#endif /* FXTPROF_CFI_FDE_H */
