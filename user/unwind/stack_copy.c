// SPDX-License-Identifier: GPL-2.0-only
/*
 * stack_copy.c - see stack_copy.h.  One Dwfl per unwinder: the files are
 * reported once, then attached to a "process" of one thread whose
 * registers and memory are those of the copy being unwound, swapped in
 * before each dwfl_getthread_frames().
 */
#include "unwind/stack_copy.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one thread the copy stands for; libdwfl wants a positive id. */
#define COPY_TID	1
/*
 * arm64 user addresses fit 48 bits (52 with LVA, which Linux gives only
 * to processes asking for it by mmap hint); above is a PAC or a tag.
 */
#define ARM64_VA_MASK	((1ull << 48) - 1)

struct added_file {
	char *path;
	uint64_t bias;
};

struct stack_copy_unwinder {
	Dwfl *dwfl;
	unsigned int machine, sp_reg, pc_reg, nr_regs;
	/* An ELF header of the machine, for libdwfl to choose its backend. */
	Elf64_Ehdr ehdr;
	Elf *machine_elf;
	bool attached, attach_failed;
	struct added_file *files;
	size_t nr_files;

	/* The copy being unwound, and where its frames go. */
	const struct fxtprof_stack_copy *copy;
	const unsigned char *stack;
	uint64_t stack_lo, stack_hi;
	uint64_t *pcs;
	unsigned int max, nr;
};

static const char *const end_names[STACK_COPY__NR] = {
	[STACK_COPY_END_OK] = "ok",
	[STACK_COPY_END_SHORT] = "short",
	[STACK_COPY_BAD_COPY] = "bad copy",
	[STACK_COPY_WRONG_MACHINE] = "wrong machine",
	[STACK_COPY_NO_SP] = "no stack at sp",
	[STACK_COPY_NO_MODULE] = "pc in no file",
	[STACK_COPY_FAILED] = "no frame",
};

const char *stack_copy_end__name(enum stack_copy_end end)
{
	return end < STACK_COPY__NR ? end_names[end] : "?";
}

int stack_copy__sp_pc(unsigned int machine, unsigned int *sp,
		      unsigned int *pc, unsigned int *nr_regs)
{
	switch (machine) {
	case EM_X86_64:
		*sp = FXTPROF_STACK_COPY_SP_X86_64;
		*pc = FXTPROF_STACK_COPY_PC_X86_64;
		*nr_regs = FXTPROF_STACK_COPY_REGS_X86_64;
		return 0;
	case EM_AARCH64:
		*sp = FXTPROF_STACK_COPY_SP_ARM64;
		*pc = FXTPROF_STACK_COPY_PC_ARM64;
		*nr_regs = FXTPROF_STACK_COPY_REGS_ARM64;
		return 0;
	}
	return -EINVAL;
}

int stack_copy__check(const void *copy, size_t len,
		      const struct fxtprof_stack_copy **hdr)
{
	const struct fxtprof_stack_copy *c = copy;
	unsigned int sp, pc, nr_regs;
	uint64_t need, sp_val;

	if (!copy || len < sizeof(*c))
		return -EINVAL;
	if (stack_copy__sp_pc(c->machine, &sp, &pc, &nr_regs))
		return -EPROTONOSUPPORT;
	if (c->nr_regs != nr_regs)
		return -EINVAL;
	need = sizeof(*c) + 8ull * c->nr_regs + c->size;
	if (need > len)
		return -EINVAL;
	memcpy(&sp_val, (const char *)copy + sizeof(*c) + 8 * sp, 8);
	if (sp_val + c->size < sp_val)
		return -EINVAL;
	*hdr = c;
	return 0;
}

static uint64_t copy_reg(const struct fxtprof_stack_copy *c, unsigned int r)
{
	uint64_t v;

	memcpy(&v, (const char *)c + sizeof(*c) + 8 * r, 8);
	return v;
}

static uint64_t strip_pac(const struct stack_copy_unwinder *u, uint64_t v)
{
	return u->machine == EM_AARCH64 ? v & ARM64_VA_MASK : v;
}

/* ---- libdwfl's view of the copy ------------------------------------- */

static pid_t copy_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = dwfl_arg;
	return COPY_TID;
}

static bool copy_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			     void *dwfl_arg)
{
	struct stack_copy_unwinder *u = dwfl_arg;
	uint64_t v;

	(void)dwfl;
	/* Copies of less than a word never get here (STACK_COPY_NO_SP). */
	if (addr < u->stack_lo ||
	    addr - u->stack_lo > u->stack_hi - u->stack_lo - 8)
		return false;
	memcpy(&v, u->stack + (addr - u->stack_lo), 8);
	/* Return addresses saved on the stack carry their PAC. */
	*result = strip_pac(u, v);
	return true;
}

static bool copy_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct stack_copy_unwinder *u = thread_arg;
	Dwarf_Word regs[FXTPROF_STACK_COPY_REGS_ARM64], pc;
	unsigned int i, n = u->machine == EM_AARCH64 ? u->sp_reg + 1 :
			    u->nr_regs;

	for (i = 0; i < n; i++)
		regs[i] = copy_reg(u->copy, i);
	if (u->machine == EM_AARCH64)
		regs[30] = strip_pac(u, regs[30]);	/* the link register */
	if (!dwfl_thread_state_registers(thread, 0, n, regs))
		return false;
	pc = strip_pac(u, copy_reg(u->copy, u->pc_reg));
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks copy_thread_callbacks = {
	.next_thread = copy_next_thread,
	.memory_read = copy_memory_read,
	.set_initial_registers = copy_set_initial_registers,
};

static int find_no_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_path)
{
	(void)mod; (void)userdata; (void)modname; (void)base;
	(void)file_name; (void)debuglink_file; (void)debuglink_crc;
	*debuginfo_path = NULL;
	return -1;
}

/*
 * The files are given, found by the caller: no search here (and none of
 * libdwfl's own, which may go to a debuginfod server).
 */
static const Dwfl_Callbacks copy_dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* ---- the unwinder --------------------------------------------------- */

int stack_copy_unwinder__new(unsigned int machine,
			     struct stack_copy_unwinder **out)
{
	struct stack_copy_unwinder *u;
	int err;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	err = stack_copy__sp_pc(machine, &u->sp_reg, &u->pc_reg, &u->nr_regs);
	if (err)
		goto free_u;
	u->machine = machine;
	elf_version(EV_CURRENT);
	memcpy(u->ehdr.e_ident, ELFMAG, SELFMAG);
	u->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	u->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	u->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	u->ehdr.e_type = ET_CORE;
	u->ehdr.e_machine = machine;
	u->ehdr.e_version = EV_CURRENT;
	u->ehdr.e_ehsize = sizeof(u->ehdr);
	err = -ENOMEM;
	u->machine_elf = elf_memory((char *)&u->ehdr, sizeof(u->ehdr));
	if (!u->machine_elf)
		goto free_u;
	u->dwfl = dwfl_begin(&copy_dwfl_callbacks);
	if (!u->dwfl)
		goto end_elf;
	dwfl_report_begin(u->dwfl);
	*out = u;
	return 0;

end_elf:
	elf_end(u->machine_elf);
free_u:
	free(u);
	return err;
}

void stack_copy_unwinder__free(struct stack_copy_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	dwfl_end(u->dwfl);
	elf_end(u->machine_elf);
	for (i = 0; i < u->nr_files; i++)
		free(u->files[i].path);
	free(u->files);
	free(u);
}

/*
 * The load bias of the file at path mapped as m: the PT_LOAD holding
 * m->pgoff puts file offset pgoff at vaddr p_vaddr + pgoff - p_offset,
 * and the process has it at m->start.
 */
static int module_bias(const struct stack_copy_unwinder *u,
		       const struct stack_copy_module *m, uint64_t *bias)
{
	GElf_Ehdr ehdr;
	uint64_t seg;
	size_t i, nr;
	int fd, err = -ENOEXEC;
	Elf *elf;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &nr))
		goto end_elf;
	if (ehdr.e_machine != u->machine) {
		err = -EXDEV;
		goto end_elf;
	}
	err = -ERANGE;
	for (i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* Mappings start on a page: the segment may start inside. */
		seg = ph.p_align > 1 ? ph.p_offset & ~(ph.p_align - 1) :
		      ph.p_offset;
		if (m->pgoff < seg || m->pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - (ph.p_vaddr + m->pgoff - ph.p_offset);
		err = 0;
		break;
	}
end_elf:
	elf_end(elf);
	close(fd);
	return err;
}

int stack_copy_unwinder__add(struct stack_copy_unwinder *u,
			     const struct stack_copy_module *m)
{
	struct added_file *f;
	const char *name;
	uint64_t bias = 0;
	size_t i;
	int err;

	if (u->attached || u->attach_failed)
		return -EBUSY;
	if (!m->path || m->end <= m->start)
		return -EINVAL;
	err = module_bias(u, m, &bias);
	if (err)
		return err;
	for (i = 0; i < u->nr_files; i++) {
		f = &u->files[i];
		if (f->bias == bias && !strcmp(f->path, m->path))
			return 0;
	}
	f = realloc(u->files, (u->nr_files + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	u->files = f;
	f = &u->files[u->nr_files];
	f->path = strdup(m->path);
	if (!f->path)
		return -ENOMEM;
	f->bias = bias;
	name = strrchr(m->path, '/');
	/*
	 * libdwfl places an ET_DYN file at bias + its first segment's
	 * address (add_p_vaddr) and an ET_EXEC one where it says.
	 */
	if (!dwfl_report_elf(u->dwfl, name ? name + 1 : m->path, m->path, -1,
			     bias, true)) {
		free(f->path);
		return -ENOEXEC;
	}
	u->nr_files++;
	return 0;
}

static int attach(struct stack_copy_unwinder *u)
{
	if (u->attached)
		return 0;
	if (u->attach_failed)
		return -EINVAL;
	if (dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(u->dwfl, u->machine_elf, COPY_TID,
			       &copy_thread_callbacks, u)) {
		u->attach_failed = true;
		return -EINVAL;
	}
	u->attached = true;
	return 0;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct stack_copy_unwinder *u = arg;
	Dwarf_Addr pc;

	/*
	 * As found: the leaf's pc, then return addresses, which whoever
	 * names them looks up a byte earlier (the call).
	 */
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (u->nr >= u->max)
		return DWARF_CB_ABORT;
	u->pcs[u->nr++] = strip_pac(u, pc);
	return DWARF_CB_OK;
}

enum stack_copy_end stack_copy_unwinder__unwind(struct stack_copy_unwinder *u,
						const void *copy, size_t len,
						uint64_t *pcs,
						unsigned int max,
						unsigned int *nr)
{
	const struct fxtprof_stack_copy *c;
	uint64_t pc;
	int ret;

	*nr = 0;
	ret = stack_copy__check(copy, len, &c);
	if (ret == -EPROTONOSUPPORT)
		return STACK_COPY_WRONG_MACHINE;
	if (ret || !max)
		return STACK_COPY_BAD_COPY;
	if (c->machine != u->machine)
		return STACK_COPY_WRONG_MACHINE;
	if (c->size < 8)
		return STACK_COPY_NO_SP;
	pc = strip_pac(u, copy_reg(c, u->pc_reg));
	if (attach(u))
		return STACK_COPY_FAILED;
	if (!dwfl_addrmodule(u->dwfl, pc))
		return STACK_COPY_NO_MODULE;
	u->copy = c;
	u->stack = (const unsigned char *)c->regs + 8ull * c->nr_regs;
	u->stack_lo = copy_reg(c, u->sp_reg);
	u->stack_hi = u->stack_lo + (c->size & ~7u);
	u->pcs = pcs;
	u->max = max;
	u->nr = 0;
	ret = dwfl_getthread_frames(u->dwfl, COPY_TID, on_frame, u);
	*nr = u->nr;
	u->copy = NULL;
	if (!u->nr)
		return STACK_COPY_FAILED;
	return ret == 0 ? STACK_COPY_END_OK : STACK_COPY_END_SHORT;
}
