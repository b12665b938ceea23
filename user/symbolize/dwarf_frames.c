// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_frames.c - lines and inlines with libdwfl, one Dwfl per file.
 *
 * The file is reported at base 0 and queried at vaddr + the bias libdwfl
 * chose, so one Dwfl serves every process that maps the file.  Debug
 * files are never searched for here (the symbolizer already chose the
 * file with DWARF), which also keeps libdw from asking debuginfod.
 * Inline chains are read the way eu-addr2line does (src/addr2line.c):
 * dwarf_getscopes at the address gives the innermost scope, whose
 * concrete parents dwarf_getscopes_die then lists; each inlined
 * subroutine's DW_AT_call_file/line is where its caller is.
 */
#include "symbolize/dwarf_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>

struct dwarf_frames {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
};

static int find_no_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base;
	(void)file_name; (void)debuglink_file; (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks dwarf_frames_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int dwarf_frames__open(const char *path, struct dwarf_frames **out)
{
	struct dwarf_frames *d;
	int err = -ENOEXEC;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->dwfl = dwfl_begin(&dwarf_frames_callbacks);
	if (!d->dwfl) {
		err = -ENOMEM;
		goto free_d;
	}
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, "obj", path, -1, 0, false);
	if (dwfl_report_end(d->dwfl, NULL, NULL) != 0 || !d->mod)
		goto end_dwfl;
	if (!dwfl_module_getelf(d->mod, &d->bias))
		goto end_dwfl;
	*out = d;
	return 0;

end_dwfl:
	dwfl_end(d->dwfl);
free_d:
	free(d);
	return err;
}

void dwarf_frames__free(struct dwarf_frames *d)
{
	if (!d)
		return;
	dwfl_end(d->dwfl);
	free(d);
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
	       tag == DW_TAG_entry_point;
}

static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die,
					DW_AT_MIPS_linkage_name, &attr));
	return name ? name : dwarf_diename(die);
}

static void leaf_line(struct dwarf_frames *d, Dwarf_Addr addr,
		      struct sym_frame *f)
{
	Dwfl_Line *line = dwfl_module_getsrc(d->mod, addr);
	int lineno = 0;

	if (!line)
		return;
	f->file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	f->line = lineno > 0 ? (uint32_t)lineno : 0;
}

/* The inline chain at addr; 0 if DWARF has no scope for it. */
static unsigned int inline_chain(struct dwarf_frames *d, Dwarf_Addr addr,
				 bool lines, struct sym_frame *frames,
				 unsigned int max)
{
	Dwarf_Addr cu_bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(d->mod, addr, &cu_bias);
	Dwarf_Die *scopes = NULL, innermost;
	Dwarf_Files *files = NULL;
	Dwarf_Die *fn[64];
	unsigned int nfn = 0, n = 0, i;
	int nscopes, j;

	if (!cudie)
		return 0;
	nscopes = dwarf_getscopes(cudie, addr - cu_bias, &scopes);
	if (nscopes <= 0) {
		free(scopes);
		return 0;
	}
	/* Re-read the innermost scope to get its concrete parents. */
	if (!dwarf_offdie(dwarf_cu_getdwarf(scopes[0].cu),
			  dwarf_dieoffset(&scopes[0]), &innermost)) {
		free(scopes);
		return 0;
	}
	free(scopes);
	scopes = NULL;
	nscopes = dwarf_getscopes_die(&innermost, &scopes);
	for (j = 0; j < nscopes && nfn < 64; j++)
		if (is_function_scope(&scopes[j]))
			fn[nfn++] = &scopes[j];
	if (!nfn)
		goto free_scopes;
	if (lines && dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;
	/* Keep the innermost frames and the function that holds them all. */
	for (i = 0; i < nfn && n < max; i++) {
		unsigned int k = (n == max - 1) ? nfn - 1 : i;
		struct sym_frame *f = &frames[n++];

		f->function = scope_name(fn[k]);
		f->inlined = dwarf_tag(fn[k]) == DW_TAG_inlined_subroutine;
		f->file = NULL;
		f->line = 0;
		if (!lines)
			;
		else if (k == 0)
			leaf_line(d, addr, f);
		else if (files) {
			/* Where the callee (fn[k - 1]) was inlined into us. */
			Dwarf_Attribute attr;
			Dwarf_Word val;

			if (dwarf_formudata(dwarf_attr(fn[k - 1], DW_AT_call_file,
						       &attr), &val) == 0)
				f->file = dwarf_filesrc(files, val, NULL, NULL);
			if (dwarf_formudata(dwarf_attr(fn[k - 1], DW_AT_call_line,
						       &attr), &val) == 0)
				f->line = (uint32_t)val;
		}
		if (k == nfn - 1)
			break;
	}
free_scopes:
	free(scopes);
	return n;
}

unsigned int dwarf_frames__lookup(struct dwarf_frames *d, uint64_t vaddr,
				  bool lines, bool inlines,
				  struct sym_frame *frames, unsigned int max)
{
	Dwarf_Addr addr = vaddr + d->bias;
	unsigned int n;

	if (!max)
		return 0;
	if (inlines) {
		n = inline_chain(d, addr, lines, frames, max);
		if (n)
			return n;
	}
	frames[0] = (struct sym_frame){ 0 };
	if (lines)
		leaf_line(d, addr, &frames[0]);
	return frames[0].file ? 1 : 0;
}
