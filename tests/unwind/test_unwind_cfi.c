// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_cfi.c - every row of the unwind tables user/unwind/ builds
 * against what libdw says at that row's first pc and at the last pc
 * before the next row, for this machine's libc.so.6, ld.so and
 * libstdc++, programs built here without frame pointers (C, a C++ one
 * that throws), their aarch64 builds and the arm64 busybox; then files
 * with .debug_frame only and with no CFI at all.  Prints TAP.
 *
 * The check does not translate libdw's rules the way the builder does
 * (unwind_rule.c): it evaluates libdw's DWARF expressions for the CFA and
 * the saved registers with three register sets that differ in sp or in
 * fp, and says from the values which register a rule depends on and by
 * how much.  A row must give the same values; a NO_RULE row must stand
 * where no row could.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "unwind/unwind_table.h"

#ifndef UNWIND_FIXTURES
#define UNWIND_FIXTURES "build/x86_64/tests/unwind"
#endif
#ifndef UNWIND_ARM64_ROOT
#define UNWIND_ARM64_ROOT "build/deps/arm64/root"
#endif

/* ---- libdw's rule, by value ----------------------------------------- */

#define NO_REG	(-1)
#define SP1	0x7fff00000000ull	/* the three register sets */
#define FP1	0x7ffe00000000ull
#define DSP	0x1000ull
#define DFP	0x100000ull

struct regset {
	int sp, fp;		/* DWARF numbers */
	uint64_t sp_val, fp_val, cfa;
};

/*
 * Evaluate a DWARF expression of the shapes CFI uses; false if it reads
 * memory, a register other than sp and fp, or an op this does not know:
 * no row can say such a rule.  *@value_only: ends in DW_OP_stack_value.
 */
static bool eval(const Dwarf_Op *ops, size_t nops, const struct regset *r,
		 uint64_t *out, bool *value_only)
{
	uint64_t st[8];
	size_t n = 0, i;

	*value_only = false;
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		int reg = -1;
		int64_t off = 0;

		if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
			reg = op->atom - DW_OP_breg0;
			off = (int64_t)op->number;
		} else if (op->atom == DW_OP_bregx) {
			reg = (int)op->number;
			off = (int64_t)op->number2;
		}
		if (reg >= 0) {
			if (n == 8 || (reg != r->sp && reg != r->fp))
				return false;
			st[n++] = (reg == r->sp ? r->sp_val : r->fp_val) + off;
			continue;
		}
		switch (op->atom) {
		case DW_OP_call_frame_cfa:
			if (n == 8)
				return false;
			st[n++] = r->cfa;
			break;
		case DW_OP_plus_uconst:
			if (!n)
				return false;
			st[n - 1] += op->number;
			break;
		case DW_OP_stack_value:
			*value_only = true;
			break;
		default:
			return false;
		}
	}
	if (n != 1)
		return false;
	*out = st[0];
	return true;
}

enum base { BASE_NONE, BASE_SP, BASE_FP };

/* An expression as base + offset, from three evaluations. */
struct linear {
	enum base base;
	int64_t off;
	bool value_only;
};

static struct linear linear(const Dwarf_Op *ops, size_t nops,
			    const struct regset *set)
{
	struct linear l = { BASE_NONE, 0, false };
	uint64_t v[3];
	bool vo;
	int i;

	for (i = 0; i < 3; i++)
		if (!eval(ops, nops, &set[i], &v[i], &vo))
			return l;
	l.value_only = vo;
	if (v[1] - v[0] == DSP && v[2] == v[0]) {
		l.base = BASE_SP;
		l.off = (int64_t)(v[0] - set[0].sp_val);
	} else if (v[2] - v[0] == DFP && v[1] == v[0]) {
		l.base = BASE_FP;
		l.off = (int64_t)(v[0] - set[0].fp_val);
	}
	return l;
}

enum reg_kind { RK_UNDEFINED, RK_SAME, RK_AT_CFA, RK_OTHER };

struct reg_says {
	enum reg_kind kind;
	int64_t off;		/* RK_AT_CFA */
};

/* Where libdw says @regno is saved, relative to the CFA (set[].cfa). */
static struct reg_says reg_says(Dwarf_Frame *f, int regno,
				struct regset *set, const struct linear *cfa)
{
	struct reg_says s = { RK_OTHER, 0 };
	Dwarf_Op mem[3], *ops;
	uint64_t v[3];
	size_t nops;
	bool vo;
	int i;

	if (dwarf_frame_register(f, regno, mem, &ops, &nops) < 0)
		return s;
	if (nops == 0) {
		s.kind = ops ? RK_UNDEFINED : RK_SAME;
		return s;
	}
	if (cfa->base == BASE_NONE)
		return s;
	for (i = 0; i < 3; i++) {
		set[i].cfa = (cfa->base == BASE_SP ? set[i].sp_val :
			      set[i].fp_val) + cfa->off;
		if (!eval(ops, nops, &set[i], &v[i], &vo) || vo)
			return s;
	}
	/* A location that moves with the CFA, and only with it. */
	if (v[1] - v[0] != set[1].cfa - set[0].cfa ||
	    v[2] - v[0] != set[2].cfa - set[0].cfa)
		return s;
	s.kind = RK_AT_CFA;
	s.off = (int64_t)(v[0] - set[0].cfa);
	return s;
}

/* What libdw says at one pc. */
struct says {
	bool covered;		/* an FDE covers the pc */
	bool signal;
	struct linear cfa;
	struct reg_says ra, fp;
};

struct arch_regs {
	int sp, fp, ra;
	bool lr;
};

static struct says says_at(Dwarf_CFI *cfi, const struct arch_regs *a,
			   uint64_t pc)
{
	struct regset set[3] = {
		{ a->sp, a->fp, SP1, FP1, 0 },
		{ a->sp, a->fp, SP1 + DSP, FP1, 0 },
		{ a->sp, a->fp, SP1, FP1 + DFP, 0 },
	};
	struct says s = { 0 };
	Dwarf_Frame *f;
	Dwarf_Op *ops;
	size_t nops;
	int ra;

	if (dwarf_cfi_addrframe(cfi, pc, &f) < 0)
		return s;
	s.covered = true;
	ra = dwarf_frame_info(f, NULL, NULL, &s.signal);
	if (dwarf_frame_cfa(f, &ops, &nops) == 0 && nops)
		s.cfa = linear(ops, nops, set);
	s.ra = reg_says(f, ra, set, &s.cfa);
	s.fp = reg_says(f, a->fp, set, &s.cfa);
	free(f);
	return s;
}

static bool saved_ok(int64_t off)
{
	return off >= INT16_MIN && off <= INT16_MAX && off && off % 8 == 0;
}

/* Whether a row could say what libdw says (else NO_RULE is right). */
static bool expressible(const struct says *s, const struct arch_regs *a)
{
	if (s->signal || s->cfa.base == BASE_NONE || s->cfa.value_only ||
	    s->cfa.off < INT16_MIN || s->cfa.off > INT16_MAX)
		return false;
	if (!(s->ra.kind == RK_AT_CFA ? saved_ok(s->ra.off) :
	      s->ra.kind == RK_SAME && a->lr))
		return false;
	return s->fp.kind == RK_AT_CFA ? saved_ok(s->fp.off) :
	       s->fp.kind != RK_OTHER;
}

/* Does @r say what @s says?  A sentence in @why if not. */
static bool row_matches(const struct fxtprof_unwind_row *r,
			const struct says *s, const struct arch_regs *a,
			char *why, size_t len)
{
	bool outermost = s->covered && s->ra.kind == RK_UNDEFINED;

	if (!!(r->flags & FXTPROF_UNWIND_ROW_OUTERMOST) != outermost) {
		snprintf(why, len, "OUTERMOST %d, libdw's ra undefined %d",
			 !!(r->flags & FXTPROF_UNWIND_ROW_OUTERMOST), outermost);
		return false;
	}
	if (r->cfa_reg == FXTPROF_UNWIND_CFA_NONE) {
		if (r->flags & FXTPROF_UNWIND_ROW_NO_RULE) {
			snprintf(why, len, "NO_RULE where a row could say it");
			return s->covered && !expressible(s, a);
		}
		snprintf(why, len, "no CFI, where libdw has some");
		return outermost || !s->covered;
	}
	if (!s->covered || s->signal) {
		snprintf(why, len, "a rule where libdw has none");
		return false;
	}
	if (s->cfa.base != (r->cfa_reg == FXTPROF_UNWIND_CFA_SP ? BASE_SP :
			    BASE_FP) || s->cfa.off != r->cfa_offset) {
		snprintf(why, len, "cfa %d%+d, libdw %d%+lld", r->cfa_reg,
			 r->cfa_offset, s->cfa.base, (long long)s->cfa.off);
		return false;
	}
	if (outermost)
		;
	else if (r->flags & FXTPROF_UNWIND_ROW_RA_IN_LR) {
		if (!a->lr || s->ra.kind != RK_SAME) {
			snprintf(why, len, "ra=lr, libdw's ra kind %d",
				 s->ra.kind);
			return false;
		}
	} else if (s->ra.kind != RK_AT_CFA || s->ra.off != r->ra_offset) {
		snprintf(why, len, "ra cfa%+d, libdw kind %d %+lld",
			 r->ra_offset, s->ra.kind, (long long)s->ra.off);
		return false;
	}
	if (r->flags & FXTPROF_UNWIND_ROW_FP_SAVED ?
	    s->fp.kind != RK_AT_CFA || s->fp.off != r->fp_offset :
	    s->fp.kind == RK_AT_CFA || s->fp.kind == RK_OTHER) {
		snprintf(why, len, "fp saved %d at %+d, libdw kind %d %+lld",
			 !!(r->flags & FXTPROF_UNWIND_ROW_FP_SAVED),
			 r->fp_offset, s->fp.kind, (long long)s->fp.off);
		return false;
	}
	return true;
}

/* ---- the tables ----------------------------------------------------- */

struct checked {
	unsigned int rows, points, bad;
	struct unwind_table *t;
};

/* The module's checks of FXTPROF_IOC_UNWIND_LOAD, on every row. */
static int table_invariants(const struct unwind_table *t, char *why,
			    size_t len)
{
	uint32_t i;

	for (i = 0; i < t->nr_rows; i++) {
		const struct fxtprof_unwind_row *r = &t->rows[i];
		bool sp_fp = r->cfa_reg == FXTPROF_UNWIND_CFA_SP ||
			     r->cfa_reg == FXTPROF_UNWIND_CFA_FP;

		if ((i && r->pc <= t->rows[i - 1].pc) || r->pc >= t->pc_end ||
		    r->cfa_reg >= FXTPROF_UNWIND_CFA_MAX ||
		    (r->flags & ~FXTPROF_UNWIND_ROW_FLAGS) ||
		    ((r->flags & FXTPROF_UNWIND_ROW_NO_RULE) && sp_fp) ||
		    (sp_fp && !(r->flags & (FXTPROF_UNWIND_ROW_RA_IN_LR |
					   FXTPROF_UNWIND_ROW_OUTERMOST)) &&
		     !saved_ok(r->ra_offset)) ||
		    ((r->flags & FXTPROF_UNWIND_ROW_FP_SAVED) &&
		     !saved_ok(r->fp_offset))) {
			snprintf(why, len, "row %u (pc %#x) breaks the ABI's "
				 "checks", i, r->pc);
			return -1;
		}
	}
	return 0;
}

/* Build @path's table and check each row at both its ends. */
static int check_file(const char *path, struct checked *c)
{
	struct arch_regs a;
	char why[UNWIND_WHY_LEN], what[160];
	Dwarf_CFI *cfi;
	Dwarf *dw = NULL;
	Elf *elf;
	uint32_t i;
	int fd;

	memset(c, 0, sizeof(*c));
	if (unwind_table__build_path(path, &c->t, why)) {
		fprintf(stderr, "# %s: %s\n", path, why);
		return -1;
	}
	if (table_invariants(c->t, why, sizeof(why))) {
		fprintf(stderr, "# %s: %s\n", path, why);
		return -1;
	}
	a = c->t->machine == EM_AARCH64 ?
		(struct arch_regs){ 31, 29, 30, true } :
		(struct arch_regs){ 7, 6, 16, false };
	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (c->t->cfi == UNWIND_CFI_DEBUG_FRAME) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		cfi = dwarf_getcfi(dw);
	} else {
		cfi = dwarf_getcfi_elf(elf);
	}
	for (i = 0; cfi && i < c->t->nr_rows; i++) {
		const struct fxtprof_unwind_row *r = &c->t->rows[i];
		uint64_t ends[2] = {
			r->pc,
			(i + 1 < c->t->nr_rows ? c->t->rows[i + 1].pc :
			 c->t->pc_end) - 1,
		};
		int e;

		c->rows++;
		for (e = 0; e < 2; e++) {
			struct says s = says_at(cfi, &a, ends[e]);

			c->points++;
			if (row_matches(r, &s, &a, what, sizeof(what)))
				continue;
			if (c->bad++ < 5)
				fprintf(stderr, "# %s: pc %#llx (row at %#x): %s\n",
					       path, (unsigned long long)ends[e],
					       r->pc, what);
		}
	}
	if (dw)
		dwarf_end(dw);
	else if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	fprintf(stderr, "# %s: %u rows, %u points checked, %u differ\n", path,
		       c->rows, c->points, c->bad);
	return 0;
}

#define CHECK_FILE(path)						\
	do {								\
		struct checked c;					\
		ASSERT_EQ(0, check_file(path, &c));			\
		EXPECT_LT(10u, c.rows);				\
		EXPECT_EQ(0u, c.bad);					\
		EXPECT_EQ(0u, c.t->counts.bad_fdes);			\
		unwind_table__free(c.t);				\
	} while (0)

static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *want = arg;

	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, want)) {
		snprintf(want, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* The path of the loaded object whose name has @part. */
static const char *loaded(const char *part)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", part);
	return dl_iterate_phdr(find_loaded, path) ? path : NULL;
}

TEST(libc)
{
	const char *p = loaded("libc.so.6");

	ASSERT_NE(NULL, p);
	CHECK_FILE(p);
}

TEST(ld_so)
{
	const char *p = loaded("ld-linux");

	ASSERT_NE(NULL, p);
	CHECK_FILE(p);
}

TEST(libstdcxx)
{
	CHECK_FILE("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
}

TEST(nofp)
{
	CHECK_FILE(UNWIND_FIXTURES "/nofp");
}

TEST(throw_cpp)
{
	CHECK_FILE(UNWIND_FIXTURES "/throw");
}

TEST(arm64_busybox)
{
	struct checked c;

	ASSERT_EQ(0, check_file(UNWIND_ARM64_ROOT "/bin/busybox", &c));
	EXPECT_EQ(EM_AARCH64, c.t->machine);
	EXPECT_EQ(0u, c.bad);
	EXPECT_LT(100u, c.t->counts.ra_in_lr);
	unwind_table__free(c.t);
}

TEST(arm64_nofp)
{
	CHECK_FILE(UNWIND_FIXTURES "/nofp-arm64");
}

/* The address of the function @name in @path's symbol table. */
static uint64_t symbol(const char *path, const char *name)
{
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (!addr && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && n &&
			    !strcmp(n, name)) {
				addr = sym.st_value;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

/* At an aarch64 function's entry the return address is still in x30. */
TEST(arm64_entries_ra_in_lr)
{
	static const char *const names[] = { "main", "nofp_cmp", "recurse" };
	const char *path = UNWIND_FIXTURES "/nofp-arm64";
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];
	size_t i;

	ASSERT_EQ(0, unwind_table__build_path(path, &t, why)) TH_LOG("%s", why);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t pc = symbol(path, names[i]);
		const struct fxtprof_unwind_row *r;

		ASSERT_NE(0, pc) TH_LOG("no symbol %s", names[i]);
		r = unwind_table__lookup(t, pc);
		ASSERT_NE(NULL, r) TH_LOG("no row for %s", names[i]);
		EXPECT_EQ(FXTPROF_UNWIND_CFA_SP, r->cfa_reg) TH_LOG("%s", names[i]);
		EXPECT_EQ(0, r->cfa_offset) TH_LOG("%s", names[i]);
		EXPECT_EQ(FXTPROF_UNWIND_ROW_RA_IN_LR, r->flags)
			TH_LOG("%s", names[i]);
	}
	unwind_table__free(t);
}

/* Built with -fno-asynchronous-unwind-tables -g: .debug_frame only. */
TEST(debug_frame_only)
{
	const char *path = UNWIND_FIXTURES "/nofp-debug-frame";
	struct checked c;

	ASSERT_EQ(0, check_file(path, &c));
	EXPECT_EQ(UNWIND_CFI_DEBUG_FRAME, c.t->cfi);
	EXPECT_LT(0u, c.rows);
	EXPECT_EQ(0u, c.bad);
	unwind_table__free(c.t);
}

/* objcopy --remove-section .eh_frame: no rows, and no error. */
TEST(no_cfi)
{
	struct unwind_table *t;
	char why[UNWIND_WHY_LEN];

	ASSERT_EQ(0, unwind_table__build_path(UNWIND_FIXTURES "/nofp-no-eh",
					      &t, why)) TH_LOG("%s", why);
	EXPECT_EQ(UNWIND_CFI_NONE, t->cfi);
	EXPECT_EQ(0u, t->nr_rows);
	EXPECT_NE(0, t->build_id_size);
	unwind_table__free(t);
}

TEST_HARNESS_MAIN
