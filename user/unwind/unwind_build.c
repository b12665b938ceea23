// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_build.c - an ELF file's table, built with libdw: the CFI section
 * (.eh_frame through dwarf_getcfi_elf, else .debug_frame through
 * dwarf_getcfi), each FDE's range (cfi_fde.c), and within it one
 * dwarf_cfi_addrframe per row, stepping from row to row by the
 * [start, end) that dwarf_frame_info gives; unwind_rule.c says each rule
 * as a row and unwind_table.c puts the rows in order.
 */
#include "unwind/unwind_internal.h"
#include "unwind/cfi_fde.h"
#include "unwind/unwind_rule.h"

#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TEXT_SEGMENTS	8

/* The CFI that libdw reads, and the Dwarf that owns a .debug_frame's. */
struct cfi_source {
	Dwarf_CFI *cfi;
	Dwarf *dwarf;
	struct cfi_section sec;
	/* The executable PT_LOADs: an FDE outside them is corrupt. */
	struct cfi_fde_range text[MAX_TEXT_SEGMENTS];
	size_t nr_text;		/* 0: no program headers, take every FDE */
};

int unwind_table__build_id(Elf *elf, uint8_t id[FXTPROF_BUILD_ID_MAX])
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0)
		return -ENOENT;
	if (n > FXTPROF_BUILD_ID_MAX)	/* not SHA-1: its first 20 bytes */
		n = FXTPROF_BUILD_ID_MAX;
	memcpy(id, p, (size_t)n);
	return (int)n;
}

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !sh.sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static void cfi_source__text(struct cfi_source *src, Elf *elf)
{
	size_t i, phnum;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) < 0)
		return;
	for (i = 0; i < phnum && src->nr_text < MAX_TEXT_SEGMENTS; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			src->text[src->nr_text++] = (struct cfi_fde_range){
				.lo = ph.p_vaddr, .hi = ph.p_vaddr + ph.p_memsz,
			};
}

static bool cfi_source__in_text(const struct cfi_source *src,
				const struct cfi_fde_range *fde)
{
	size_t i;

	for (i = 0; i < src->nr_text; i++)
		if (fde->lo >= src->text[i].lo && fde->hi <= src->text[i].hi)
			return true;
	return !src->nr_text;
}

/*
 * Open the file's CFI: .eh_frame if it has one (what a running program
 * unwinds with), else .debug_frame.  0 with src->cfi NULL if it has
 * neither, or if libdw refuses what it has.
 */
static int cfi_source__open(struct cfi_source *src, Elf *elf,
			    struct unwind_table *t)
{
	Elf_Scn *scn = find_section(elf, ".eh_frame");
	GElf_Shdr sh;

	src->sec.eh_frame = scn != NULL;
	if (scn) {
		t->cfi = UNWIND_CFI_EH_FRAME;
		src->cfi = dwarf_getcfi_elf(elf);
	} else if ((scn = find_section(elf, ".debug_frame"))) {
		t->cfi = UNWIND_CFI_DEBUG_FRAME;
		src->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		src->cfi = src->dwarf ? dwarf_getcfi(src->dwarf) : NULL;
		/* libdw reads it inflated; so must cfi_fde. */
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    elf_compress(scn, 0, 0) < 0)
			src->cfi = NULL;
	} else {
		return 0;
	}
	if (!src->cfi || !gelf_getshdr(scn, &sh) ||
	    !(src->sec.data = elf_getdata(scn, NULL)) ||
	    !src->sec.data->d_buf) {
		t->counts.bad_fdes++;
		src->cfi = NULL;
		return 0;
	}
	src->sec.addr = sh.sh_addr;
	cfi_source__text(src, elf);
	src->sec.e_ident = (const unsigned char *)elf_getident(elf, NULL);
	t->cfi_bytes = sh.sh_size;
	return 0;
}

static void cfi_source__close(struct cfi_source *src)
{
	if (src->dwarf)
		dwarf_end(src->dwarf);	/* and the CFI dwarf_getcfi gave */
	else if (src->cfi)
		dwarf_cfi_end(src->cfi);
}

/* The rows of one FDE, [lo, hi), one dwarf_cfi_addrframe per row. */
static int fde_rows(const struct unwind_arch *arch, Dwarf_CFI *cfi,
		    const struct cfi_fde_range *fde, struct unwind_spans *s,
		    struct unwind_table *t)
{
	static const struct fxtprof_unwind_row unreadable = {
		.cfa_reg = FXTPROF_UNWIND_CFA_NONE,
		.flags = FXTPROF_UNWIND_ROW_NO_RULE,
	};
	uint64_t pc = fde->lo;

	while (pc < fde->hi) {
		struct fxtprof_unwind_row row;
		Dwarf_Addr start, end;
		Dwarf_Frame *frame;
		int err;

		if (dwarf_cfi_addrframe(cfi, pc, &frame) < 0) {
			/* Its instructions are corrupt: the rest has no rule. */
			t->counts.bad_fdes++;
			return unwind_spans__push(s, pc, fde->hi, &unreadable);
		}
		unwind_rule__row(arch, frame, &row);
		if (dwarf_frame_info(frame, &start, &end, NULL) < 0 ||
		    end <= pc || end > fde->hi)
			end = fde->hi;
		free(frame);
		err = unwind_spans__push(s, pc, end, &row);
		if (err)
			return err;
		pc = end;
	}
	return 0;
}

static int cfi_rows(const struct unwind_arch *arch, struct cfi_source *src,
		    struct unwind_table *t, char *why)
{
	struct unwind_spans spans = { 0 };
	struct cfi_fde_range *fdes;
	size_t i, nr;
	int err;

	err = cfi_fde__ranges(&src->sec, &fdes, &nr, &t->counts.bad_fdes);
	if (err)
		return unwind__why(why, err, "no memory for the FDEs");
	for (i = 0; i < nr; i++) {
		if (!cfi_source__in_text(src, &fdes[i])) {
			t->counts.bad_fdes++;
			continue;
		}
		err = fde_rows(arch, src->cfi, &fdes[i], &spans, t);
		if (err) {
			unwind__why(why, err, "no memory for the rows");
			goto free_spans;
		}
	}
	err = unwind_table__assemble(t, &spans, why);
free_spans:
	free(spans.v);
	free(fdes);
	return err;
}

int unwind_table__build_elf(Elf *elf, struct unwind_table **out, char *why)
{
	const struct unwind_arch *arch;
	struct cfi_source src = { 0 };
	struct unwind_table *t;
	const char *ident;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    !(ident = elf_getident(elf, NULL)))
		return unwind__why(why, -ENOEXEC, "not an ELF file");
	arch = unwind_arch__find(eh.e_machine);
	if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB ||
	    !arch)
		return unwind__why(why, -ENOTSUP,
				   "not a 64-bit little-endian x86_64 or aarch64 file (e_machine %u)",
				   (unsigned int)eh.e_machine);
	t = calloc(1, sizeof(*t));
	if (!t)
		return unwind__why(why, -ENOMEM, "no memory for a table");
	t->machine = eh.e_machine;
	err = unwind_table__build_id(elf, t->build_id);
	t->build_id_size = err > 0 ? (uint8_t)err : 0;

	err = cfi_source__open(&src, elf, t);
	if (!err && src.cfi)
		err = cfi_rows(arch, &src, t, why);
	cfi_source__close(&src);
	if (err) {
		unwind_table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

int unwind_table__build_fd(int fd, struct unwind_table **out, char *why)
{
	Elf *elf;
	int err;

	*out = NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return unwind__why(why, -ENOEXEC, "not an ELF file: %s",
				   elf_errmsg(-1));
	err = unwind_table__build_elf(elf, out, why);
	elf_end(elf);
	return err;
}

int unwind_table__build_path(const char *path, struct unwind_table **out,
			     char *why)
{
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return unwind__why(why, err, "cannot open %s: %s", path,
				   strerror(-err));
	}
	err = unwind_table__build_fd(fd, out, why);
	close(fd);
	return err;
}
