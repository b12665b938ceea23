// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_frames.c - lines and inlines with libdwfl, one Dwfl per file.
 *
 * The file is reported at base 0 and queried at vaddr + the bias libdwfl
 * chose, so one Dwfl serves every process that maps the file.  Debug
 * files are never searched for here (the symbolizer already chose the
 * file with DWARF), which also keeps libdw from asking debuginfod.
 * Inline chains are the concrete DW_TAG_inlined_subroutine scopes that
 * hold the address, as eu-addr2line prints them (src/addr2line.c): each
 * one's DW_AT_call_file/line is where its caller is, and its name comes
 * through DW_AT_abstract_origin.
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

#define SCOPE_MAX_DEPTH	64

/*
 * The function scopes holding pc below parent, outermost first, appended
 * to chain from depth on; returns the new depth.  Only scopes that hold
 * pc are entered (and containers that have no address, where C++ keeps
 * definitions), so a lookup reads the CU's top level once and then one
 * path down: dwarf_getscopes + dwarf_getscopes_die would walk it twice.
 */
static unsigned int scope_walk(Dwarf_Die *parent, Dwarf_Addr pc,
			       Dwarf_Die *chain, unsigned int depth,
			       unsigned int level)
{
	Dwarf_Die child;
	unsigned int d;

	if (level >= SCOPE_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_entry_point:
			if (dwarf_haspc(&child, pc) <= 0)
				break;
			if (depth < SCOPE_MAX_DEPTH)
				chain[depth++] = child;
			return scope_walk(&chain[depth - 1], pc, chain, depth,
					  level + 1);
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) <= 0)
				break;
			return scope_walk(&child, pc, chain, depth, level + 1);
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			d = scope_walk(&child, pc, chain, depth, level + 1);
			if (d > depth)
				return d;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

/* The inline chain at addr; 0 if DWARF has no function scope for it. */
static unsigned int inline_chain(struct dwarf_frames *d, Dwarf_Addr addr,
				 bool lines, struct sym_frame *frames,
				 unsigned int max)
{
	Dwarf_Addr cu_bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(d->mod, addr, &cu_bias);
	Dwarf_Die chain[SCOPE_MAX_DEPTH], *fn[SCOPE_MAX_DEPTH];
	Dwarf_Files *files = NULL;
	unsigned int nfn, n = 0, i, k;

	if (!cudie)
		return 0;
	nfn = scope_walk(cudie, addr - cu_bias, chain, 0, 0);
	if (!nfn)
		return 0;
	for (i = 0; i < nfn; i++)	/* innermost first */
		fn[i] = &chain[nfn - 1 - i];
	if (lines && dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;
	/* Keep the innermost frames and the function that holds them all. */
	for (i = 0; i < nfn && n < max; i++) {
		struct sym_frame *f = &frames[n++];

		k = (n == max) ? nfn - 1 : i;
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
