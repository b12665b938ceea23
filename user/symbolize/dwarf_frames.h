/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_frames.h - source lines and inline frames of one file's DWARF,
 * through libdwfl.  Asked only for addresses the symbolizer has not seen:
 * each call walks the CU's line table and scopes.
 */
#ifndef FXTPROF_SYMBOLIZE_DWARF_FRAMES_H
#define FXTPROF_SYMBOLIZE_DWARF_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolize/symbolizer.h"

struct dwarf_frames;

/* The DWARF of the ELF file at path, placed at its own ELF addresses. */
int dwarf_frames__open(const char *path, struct dwarf_frames **out);
void dwarf_frames__free(struct dwarf_frames *d);

/*
 * The frames of ELF address vaddr, innermost first, at most max: with
 * inlines, one per inlined call and last the function that holds them;
 * without, one.  Each has the source position when lines is set; names
 * come from DWARF (the caller may prefer the ELF symbol for the last).
 * Returns the number of frames, 0 when DWARF does not cover vaddr.
 */
unsigned int dwarf_frames__lookup(struct dwarf_frames *d, uint64_t vaddr,
				  bool lines, bool inlines,
				  struct sym_frame *frames, unsigned int max);

#endif /* FXTPROF_SYMBOLIZE_DWARF_FRAMES_H */
