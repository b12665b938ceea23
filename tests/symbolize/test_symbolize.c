// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_symbolize.c - the symbolizer against programs built for it
 * (make_fixtures.sh): names of a known call chain, PIE and shared
 * library load math, a stripped program named from its debug file by
 * build id, a rebuilt copy refused for its build id, kernel names from
 * the stream, a System.map and a vmlinux, source lines, inline frames,
 * and files that are not ELF.  Prints TAP.
 *
 * The profile is a small fake defined here: the symbolizer only calls
 * the lookup functions below, and user/profile is built elsewhere.
 * Expected addresses come from the fixtures' own symbol tables and
 * program headers, read here with libelf.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elf_image.h"
#include "symbolize/symbolizer.h"

#ifndef SYM_FIXTURES
#define SYM_FIXTURES "build/x86_64/tests/symbolize/fixtures"
#endif
#ifndef SYM_SRCDIR
#define SYM_SRCDIR "tests/symbolize"
#endif

/* ---- a fake profile ------------------------------------------------ */

struct profile {
	const struct profile_mapping *maps;
	size_t nr_maps;
	const struct profile_kmod *kmods;
	size_t nr_kmods;
	const struct profile_ksym *ksyms;
	size_t nr_ksyms;
	const struct profile_jit *jits;
	size_t nr_jits;
};

const struct profile_jit *profile__find_jit(const struct profile *p,
					    uint32_t pid, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr_jits; i++)
		if (p->jits[i].pid == pid &&
		    addr - p->jits[i].start < p->jits[i].size)
			return &p->jits[i];
	return NULL;
}

const struct profile_mapping *profile__find_mapping(const struct profile *p,
						    uint32_t pid, uint64_t addr,
						    uint64_t ts)
{
	size_t i;

	(void)ts;
	for (i = 0; i < p->nr_maps; i++)
		if (p->maps[i].pid == pid && addr >= p->maps[i].start &&
		    addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

const struct profile_kmod *profile__find_kmod(const struct profile *p,
					      uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr_kmods; i++)
		if (addr >= p->kmods[i].start && addr < p->kmods[i].end)
			return &p->kmods[i];
	return NULL;
}

size_t profile__nr_kmods(const struct profile *p)
{
	return p->nr_kmods;
}

const struct profile_kmod *profile__kmod(const struct profile *p, size_t i)
{
	return i < p->nr_kmods ? &p->kmods[i] : NULL;
}

const struct profile_ksym *profile__find_ksym(const struct profile *p,
					      uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr_ksyms; i++)
		if (addr - p->ksyms[i].addr < p->ksyms[i].size)
			return &p->ksyms[i];
	return NULL;
}

size_t profile__nr_ksyms(const struct profile *p)
{
	return p->nr_ksyms;
}

/* ---- TAP and fixtures ---------------------------------------------- */

static int nr_tests, nr_failed;
static char fix[3072];

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	nr_tests++;
	if (!cond)
		nr_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static const char *fx(const char *name)
{
	static char bufs[8][4096];
	static int k;
	char *b = bufs[k++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", fix, name);
	return b;
}

static void die(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

/* The value of symbol name in file path. */
static uint64_t sym_value(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	if (fd < 0)
		die(path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !v && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			gelf_getsym(d, i, &s);
			if (!strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name))
				v = s.st_value;
		}
	}
	elf_end(elf);
	close(fd);
	if (!v)
		die(name);
	return v;
}

static uint64_t sym_size(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t size = 0;

	if (fd < 0)
		die(path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			gelf_getsym(d, i, &s);
			if (!strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name))
				size = s.st_size;
		}
	}
	elf_end(elf);
	close(fd);
	return size;
}

/* The address of section name in path. */
static uint64_t section_addr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t a = 0;

	if (fd < 0)
		die(path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		die("sections");
	while (!a && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) &&
		    !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name))
			a = sh.sh_addr;
	}
	elf_end(elf);
	close(fd);
	if (!a)
		die(name);
	return a;
}

/* The executable PT_LOAD of path. */
static void exec_load(const char *path, uint64_t *offset, uint64_t *vaddr)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t i, n;

	if (fd < 0)
		die(path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		die("phdrs");
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		gelf_getphdr(elf, i, &ph);
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*offset = ph.p_offset;
			*vaddr = ph.p_vaddr;
		}
	}
	elf_end(elf);
	close(fd);
}

/* An executable mapping of path's text at start, as the kernel makes it. */
static struct profile_mapping text_mapping(const char *file, const char *path,
					   uint32_t pid, uint64_t start,
					   const char *idfile)
{
	struct profile_mapping m = { .pid = pid, .path = path };
	uint64_t off, vaddr;

	exec_load(file, &off, &vaddr);
	m.start = start;
	m.pgoff = off & ~0xfffull;
	m.end = start + 0x10000;
	if (idfile) {
		FILE *f = fopen(idfile, "r");
		unsigned int b;

		if (!f)
			die(idfile);
		while (m.build_id_size < PROFILE_BUILD_ID_MAX &&
		       fscanf(f, "%2x", &b) == 1)
			m.build_id[m.build_id_size++] = b;
		fclose(f);
	}
	return m;
}

/* The run-time address of ELF address v of file mapped as m. */
static uint64_t runtime(const char *file, const struct profile_mapping *m,
			uint64_t v)
{
	uint64_t off, vaddr;

	exec_load(file, &off, &vaddr);
	return m->start - m->pgoff + off + (v - vaddr);
}

static unsigned int read_id(const char *idfile, uint8_t *id)
{
	FILE *f = fopen(idfile, "r");
	unsigned int b, n = 0;

	if (!f)
		die(idfile);
	while (n < PROFILE_BUILD_ID_MAX && fscanf(f, "%2x", &b) == 1)
		id[n++] = b;
	fclose(f);
	return n;
}

/* The line of the marker in a source file. */
static unsigned int marker_line(const char *src, const char *marker)
{
	char path[4096], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SYM_SRCDIR, src);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	die(marker);
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

static int named(const struct sym_result *r, const char *name)
{
	return r->status == SYM_OK && r->frames[0].function &&
	       !strcmp(r->frames[0].function, name);
}

static struct symbolizer *new_sym(const char *debug_dir, const char *symfs,
				  bool lines, bool inlines)
{
	struct symbolizer_opts o = {
		.debug_dir = debug_dir, .symfs = symfs,
		.lines = lines, .inlines = inlines,
	};
	struct symbolizer *s;

	if (symbolizer__new(&o, &s))
		die("symbolizer__new");
	return s;
}

/* ---- tests --------------------------------------------------------- */

static void test_chain_names(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	const char *fns[] = { "a", "b", "c", "main" };
	struct sym_result r;
	unsigned int i;
	int good = 1;

	for (i = 0; i < 3; i++) {
		uint64_t v = sym_value(fx("chain"), fns[i]);

		symbolizer__file_addr(s, fx("chain"), NULL, 0, v, &r);
		ok(named(&r, fns[i]) && r.sym_offset == 0 &&
		   !strcmp(r.dso, "chain") && r.kind == SYM_KIND_USER,
		   "file_addr: %s at 0x%llx is %s", fns[i],
		   (unsigned long long)v, r.frames[0].function);
	}
	for (i = 0; i < 4; i++) {
		uint64_t v = sym_value(fx("chain"), fns[i]) + 3;

		symbolizer__file_addr(s, fx("chain"), NULL, 0, v, &r);
		good &= named(&r, fns[i]) && r.sym_offset == 3 && r.rel_pc == v;
	}
	ok(good, "file_addr: function+3 gives sym_offset 3 and rel_pc");
	symbolizer__free(s);
}

/* main -> a -> b -> c through a PIE mapping, as an unwinder returns it. */
static void test_chain_frames(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m = text_mapping(fx("chain"), fx("chain"), 42,
						0x555555555000ull,
						fx("chain.buildid"));
	struct profile p = { .maps = &m, .nr_maps = 1 };
	const char *want[] = { "c", "b", "a", "main" };
	uint64_t ips[4], v;
	struct profile_sample smp = { .pid = 42, .tid = 42, .nr_user = 4,
				      .ips = ips };
	struct sym_result r;
	unsigned int i;
	int good = 1;

	ips[0] = runtime(fx("chain"), &m, sym_value(fx("chain"), "c") + 5);
	/* Return addresses: past the call, into the caller. */
	ips[1] = runtime(fx("chain"), &m, sym_value(fx("chain"), "b") + 6);
	ips[2] = runtime(fx("chain"), &m, sym_value(fx("chain"), "a") + 6);
	ips[3] = runtime(fx("chain"), &m, sym_value(fx("chain"), "main") + 9);
	for (i = 0; i < 4; i++) {
		if (symbolizer__frame(s, &p, &smp, i, &r) || !named(&r, want[i]))
			good = 0;
		printf("# frame %u: %s %s+0x%llx\n", i, r.frames[0].function ?
		       r.frames[0].function : "?", r.dso,
		       (unsigned long long)r.rel_pc);
	}
	ok(good, "frames: c, b, a, main through a PIE mapping");

	/* A call that is the last instruction: the return address is the
	 * next function's first byte, and must still name the caller. */
	v = sym_value(fx("chain"), "a") + sym_size(fx("chain"), "a");
	ips[1] = runtime(fx("chain"), &m, v);
	symbolizer__frame(s, &p, &smp, 1, &r);
	ok(r.status == SYM_OK && !strcmp(r.frames[0].function, "a") &&
	   r.rel_pc == v && r.mapping == &m,
	   "frames: a return address just past a names a (%s), rel_pc 0x%llx",
	   r.frames[0].function, (unsigned long long)r.rel_pc);
	ips[0] = ips[1];	/* as a leaf, the same address is the next function */
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "main"), "frames: the same address as a leaf is %s (%s)",
	   r.frames[0].function, sym_status__name(r.status));

	symbolizer__free(s);
}

static void test_pie_and_library(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m[2];
	struct profile p = { .maps = m, .nr_maps = 2 };
	uint64_t ips[2];
	struct profile_sample smp = { .pid = 7, .nr_user = 2, .ips = ips };
	struct sym_result r0, r1;
	uint64_t v;

	m[0] = text_mapping(fx("libshlib.so"), fx("libshlib.so"), 7,
			    0x7f1234561000ull, fx("libshlib.so.buildid"));
	m[1] = text_mapping(fx("pie_main"), fx("pie_main"), 7,
			    0x5600000a1000ull, NULL);
	v = sym_value(fx("libshlib.so"), "lib_spin") + 2;
	ips[0] = runtime(fx("libshlib.so"), &m[0], v);
	ips[1] = runtime(fx("pie_main"), &m[1],
			 sym_value(fx("pie_main"), "main") + 8);
	symbolizer__frame(s, &p, &smp, 0, &r0);
	symbolizer__frame(s, &p, &smp, 1, &r1);
	ok(named(&r0, "lib_spin") && r0.rel_pc == v && r0.sym_offset == 2 &&
	   !strcmp(r0.dso, "libshlib.so") && named(&r1, "main") &&
	   !strcmp(r1.dso, "pie_main"),
	   "PIE + .so: %s+%llu in %s, %s in %s", r0.frames[0].function,
	   (unsigned long long)r0.sym_offset, r0.dso, r1.frames[0].function,
	   r1.dso);

	/* _init has no size: it must not reach over the PLT after it. */
	symbolizer__file_addr(s, fx("pie_main"), NULL, 0,
			      section_addr(fx("pie_main"), ".plt") + 4, &r0);
	ok(r0.status == SYM_NO_SYMBOL && !r0.frames[0].function,
	   "an address in the PLT: %s (%s)", sym_status__name(r0.status),
	   r0.frames[0].function);
	symbolizer__free(s);
}

static void test_exec_load_math(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m;
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t off, vaddr, ips[1];
	struct profile_sample smp = { .pid = 9, .nr_user = 1, .ips = ips };
	struct sym_result r;

	exec_load(fx("chain_nopie"), &off, &vaddr);
	m = text_mapping(fx("chain_nopie"), fx("chain_nopie"), 9,
			 vaddr & ~0xfffull, fx("chain_nopie.buildid"));
	ips[0] = sym_value(fx("chain_nopie"), "c") + 1;
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "c") && r.rel_pc == ips[0] && vaddr != off,
	   "ET_EXEC: c at 0x%llx (p_vaddr 0x%llx, p_offset 0x%llx)",
	   (unsigned long long)ips[0], (unsigned long long)vaddr,
	   (unsigned long long)off);
	symbolizer__free(s);
}

static void test_stripped(void)
{
	struct symbolizer *s;
	struct sym_result r;
	uint8_t id[PROFILE_BUILD_ID_MAX];
	unsigned int n = read_id(fx("chain.buildid"), id);
	uint64_t vc = sym_value(fx("chain"), "c");
	struct profile_mapping m;
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[1];
	struct profile_sample smp = { .pid = 3, .nr_user = 1, .ips = ips };

	s = new_sym(fx("nodebug"), NULL, false, false);
	symbolizer__file_addr(s, fx("stripped/chain"), id, n, vc, &r);
	ok(r.status == SYM_NO_SYMBOL && !r.frames[0].function,
	   "stripped, no debug dir: %s", sym_status__name(r.status));
	symbolizer__free(s);

	s = new_sym(fx("debug/.build-id"), NULL, false, false);
	symbolizer__file_addr(s, fx("stripped/chain"), id, n, vc + 4, &r);
	ok(named(&r, "c") && r.sym_offset == 4 && !strcmp(r.dso, "chain"),
	   "stripped: c from the debug dir by build id");

	/* Through a mapping: the debug file's symbols, the stripped file's
	 * segment offsets. */
	m = text_mapping(fx("stripped/chain"), fx("stripped/chain"), 3,
			 0x561000000000ull, fx("chain.buildid"));
	ips[0] = runtime(fx("chain"), &m, vc + 4);
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "c") && r.rel_pc == vc + 4,
	   "stripped mapping: c, rel_pc 0x%llx", (unsigned long long)r.rel_pc);
	symbolizer__free(s);

	/* Only the debug file exists: its address layout alone. */
	s = new_sym(fx("debug/.build-id"), NULL, false, false);
	m.path = "/nonexistent/board/chain";
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "c") && r.rel_pc == vc + 4 && !strcmp(r.dso, "chain"),
	   "debug file only: c, rel_pc 0x%llx", (unsigned long long)r.rel_pc);
	symbolizer__free(s);
}

static void test_debuglink(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, true, false);
	struct sym_result r;
	uint8_t id[PROFILE_BUILD_ID_MAX];
	unsigned int n = read_id(fx("chain.buildid"), id);

	symbolizer__file_addr(s, fx("linked/chain"), id, n,
			      sym_value(fx("chain"), "b") + 1, &r);
	ok(named(&r, "b") && ends_with(r.frames[0].file, "chain.c"),
	   "stripped with .gnu_debuglink: b at %s:%u from .debug/chain.debug",
	   r.frames[0].file, r.frames[0].line);
	symbolizer__free(s);
}

/*
 * The load math against the real thing: this process dlopens the
 * library, and its text mapping comes from /proc/self/maps.
 */
static void test_live_dlopen(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m = { .pid = 77 };
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[1];
	struct profile_sample smp = { .pid = 77, .nr_user = 1, .ips = ips };
	struct sym_result r;
	char line[8192], path[4096] = "", perms[8];
	unsigned long long start, end, pgoff;
	void *h = dlopen(fx("libshlib.so"), RTLD_NOW);
	void *fn = h ? dlsym(h, "lib_spin") : NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fn && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start,
			   &end, perms, &pgoff, path) != 5 || !strchr(perms, 'x'))
			continue;
		if ((uintptr_t)fn >= start && (uintptr_t)fn < end) {
			m.start = start;
			m.end = end;
			m.pgoff = pgoff;
			break;
		}
	}
	if (f)
		fclose(f);
	m.path = path;
	m.build_id_size = read_id(fx("libshlib.so.buildid"), m.build_id);
	ips[0] = (uintptr_t)fn;
	if (m.start)
		symbolizer__frame(s, &p, &smp, 0, &r);
	ok(m.start && named(&r, "lib_spin") && r.sym_offset == 0 &&
	   r.rel_pc == sym_value(fx("libshlib.so"), "lib_spin"),
	   "live dlopen: %p in %s at 0x%llx (pgoff 0x%llx) is lib_spin", fn,
	   path, m.start, (unsigned long long)m.pgoff);
	if (h)
		dlclose(h);
	symbolizer__free(s);
}

/*
 * The vDSO: recorded with the recorder's own vDSO's build id
 * (user/source/vdso_build_id.h), named from the symbolizer's own on the
 * same kernel; another kernel's build id gets no name and no problem.
 */
static void test_live_vdso(void)
{
#ifdef __aarch64__
	const char *fn = "__kernel_clock_gettime";
#else
	const char *fn = "__vdso_clock_gettime";
#endif
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m = { .pid = 78, .path = "[vdso]" }, other;
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[1], v = 0;
	struct profile_sample smp = { .pid = 78, .nr_user = 1, .ips = ips };
	struct sym_result r;
	struct elf_image *img = NULL;
	char line[512], copy[] = "/tmp/fxtprof-test-vdso.XXXXXX", *text = NULL;
	unsigned long long start, end;
	size_t len = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	int fd = mkstemp(copy), good;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &start, &end) == 2) {
			m.start = start;
			m.end = end;
		}
	if (f)
		fclose(f);
	if (fd < 0 || !m.start ||
	    write(fd, (void *)(uintptr_t)m.start, m.end - m.start) !=
	    (ssize_t)(m.end - m.start) || elf_image__open(copy, &img) ||
	    !elf_image__symbol_value(img, fn, &v))
		die("this process's vDSO");
	memcpy(m.build_id, img->build_id, img->build_id_size);
	m.build_id_size = img->build_id_size;
	ips[0] = m.start + v;
	good = !symbolizer__frame(s, &p, &smp, 0, &r);
	ok(good && named(&r, fn) && !strcmp(r.dso, "[vdso]"),
	   "[vdso] with this kernel's build id: %s from the symbolizer's own vDSO",
	   fn);

	/* A mapping of its own: the symbolizer keeps each one's object. */
	other = m;
	other.build_id[0] ^= 0xff;
	other.pid = smp.pid = 79;
	p.maps = &other;
	good = !symbolizer__frame(s, &p, &smp, 0, &r);
	f = open_memstream(&text, &len);
	symbolizer__print_problems(s, f);
	fclose(f);
	ok(good && r.status == SYM_NO_FILE && !r.frames[0].function &&
	   !strstr(text, "vdso") && !strstr(text, "/proc/self/fd"),
	   "[vdso] of another kernel: no file, no name, no problem listed (%s)",
	   sym_status__name(r.status));
	free(text);
	elf_image__free(img);
	close(fd);
	unlink(copy);
	symbolizer__free(s);
}

static void test_symfs(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), fx("symfs"), false, false);
	struct profile_mapping m = text_mapping(fx("chain"), "/usr/bin/fxt-chain",
						5, 0x560000000000ull,
						fx("chain.buildid"));
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[1];
	struct profile_sample smp = { .pid = 5, .nr_user = 1, .ips = ips };
	struct sym_result r;

	ips[0] = runtime(fx("chain"), &m, sym_value(fx("chain"), "b"));
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "b") && !strcmp(r.dso, "fxt-chain") &&
	   !strcmp(r.dso_path, "/usr/bin/fxt-chain"),
	   "symfs: b from <symfs>/usr/bin/fxt-chain");
	symbolizer__free(s);
}

static void test_deleted(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	char path[4096];
	struct profile_mapping m;
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[1];
	struct profile_sample smp = { .pid = 6, .nr_user = 1, .ips = ips };
	struct sym_result r;

	snprintf(path, sizeof(path), "%s (deleted)", fx("chain"));
	m = text_mapping(fx("chain"), path, 6, 0x560000000000ull,
			 fx("chain.buildid"));
	ips[0] = runtime(fx("chain"), &m, sym_value(fx("chain"), "a"));
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "a"), "\"PATH (deleted)\": the file at PATH, same build id");
	symbolizer__free(s);
}

static void test_mismatch(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct symbolizer_stats st;
	struct sym_result r;
	uint8_t id[PROFILE_BUILD_ID_MAX];
	unsigned int n = read_id(fx("chain.buildid"), id);
	struct profile_mapping m = text_mapping(fx("chain_rebuilt"),
						fx("chain_rebuilt"), 11,
						0x560000000000ull,
						fx("chain.buildid"));
	struct profile p = { .maps = &m, .nr_maps = 1 };
	uint64_t ips[2];
	struct profile_sample smp = { .pid = 11, .nr_user = 2, .ips = ips };
	char *text = NULL, rebuilt_id[64], chain_id[64];
	size_t len = 0;
	FILE *f;
	const char *first;
	int good = 1;

	/* The rebuilt file's own c is where the recording's c was. */
	symbolizer__file_addr(s, fx("chain_rebuilt"), id, n,
			      sym_value(fx("chain_rebuilt"), "c"), &r);
	ok(r.status == SYM_BUILD_ID_MISMATCH && !r.frames[0].function &&
	   !strcmp(r.dso, "chain_rebuilt"),
	   "rebuilt: build id mismatch, no name (%s)", sym_status__name(r.status));

	ips[0] = runtime(fx("chain_rebuilt"), &m,
			 sym_value(fx("chain_rebuilt"), "c"));
	ips[1] = ips[0] + 0x20;
	good &= !symbolizer__frame(s, &p, &smp, 0, &r) &&
		r.status == SYM_BUILD_ID_MISMATCH && !r.frames[0].function &&
		r.rel_pc == ips[0] - m.start + m.pgoff &&
		!strcmp(r.dso, "chain_rebuilt");
	good &= !symbolizer__frame(s, &p, &smp, 1, &r) &&
		r.status == SYM_BUILD_ID_MISMATCH;
	ok(good, "rebuilt mapping: mismatch, dso chain_rebuilt+0x%llx",
	   (unsigned long long)r.rel_pc);

	symbolizer__stats(s, &st);
	ok(st.by_status[SYM_BUILD_ID_MISMATCH] == 3,
	   "mismatch counted: %llu",
	   (unsigned long long)st.by_status[SYM_BUILD_ID_MISMATCH]);

	f = open_memstream(&text, &len);
	symbolizer__print_problems(s, f);
	fclose(f);
	f = fopen(fx("chain_rebuilt.buildid"), "r");
	if (!f || fscanf(f, "%63s", rebuilt_id) != 1)
		die("rebuilt id");
	fclose(f);
	f = fopen(fx("chain.buildid"), "r");
	if (!f || fscanf(f, "%63s", chain_id) != 1)
		die("chain id");
	fclose(f);
	first = strstr(text, fx("chain_rebuilt"));
	ok(first && strstr(text, rebuilt_id) && strstr(text, chain_id) &&
	   !strstr(first + 1, fx("chain_rebuilt")),
	   "problems list the file once with both build ids");
	printf("# %s", text);
	free(text);
	symbolizer__free(s);
}

static void test_unresolved(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m[2];
	struct profile p = { .maps = m, .nr_maps = 2 };
	uint64_t ips[3];
	struct profile_sample smp = { .pid = 1, .nr_user = 3, .ips = ips };
	struct sym_result r;

	/* No build id recorded: the file at the path is taken as it is. */
	m[0] = text_mapping(fx("chain"), fx("chain"), 1, 0x560000000000ull, NULL);
	m[1] = text_mapping(fx("chain"), "/nonexistent/lib/libgone.so.1", 1,
			    0x7f0000000000ull, fx("chain.buildid"));
	ips[0] = runtime(fx("chain"), &m[0], sym_value(fx("chain"), "c"));
	ips[1] = 0x7f0000000000ull + 0x123;
	ips[2] = 0x1000;
	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(named(&r, "c"), "no recorded build id: the file by path is used");
	symbolizer__frame(s, &p, &smp, 1, &r);
	ok(r.status == SYM_NO_FILE && !strcmp(r.dso, "libgone.so.1") &&
	   r.rel_pc == m[1].pgoff + 0x123 && !r.frames[0].function,
	   "missing file: no file, libgone.so.1+0x%llx",
	   (unsigned long long)r.rel_pc);
	symbolizer__frame(s, &p, &smp, 2, &r);
	ok(r.status == SYM_NO_MAPPING && !strcmp(r.dso, "[unknown]") &&
	   r.rel_pc == 0x1000 && !r.mapping,
	   "no mapping: [unknown]+0x%llx", (unsigned long long)r.rel_pc);
	ok(symbolizer__frame(s, &p, &smp, 3, &r) == -EINVAL,
	   "frame index past the sample: -EINVAL");
	symbolizer__free(s);
}

/* Frames in anonymous code named from the process's JIT functions. */
static void test_jit_frames(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile_mapping m = {
		.serial = 1, .pid = 5, .start = 0x7f1000000000ull,
		.end = 0x7f1000100000ull, .path = "//anon",
	};
	struct profile_jit j[2] = {
		{ .pid = 5, .start = 0x7f1000000100ull, .size = 0x80,
		  .name = "JS:*hot /a.js:1:2" },
		{ .pid = 5, .start = 0x10000, .size = 0x100,
		  .name = "py::f:/x.py" },
	};
	struct profile p = { .maps = &m, .nr_maps = 1, .jits = j,
			     .nr_jits = 2 };
	uint64_t ips[3] = { 0x7f1000000110ull, 0x10001, 0x7f1000000200ull };
	struct profile_sample smp = { .pid = 5, .nr_user = 3, .ips = ips };
	struct sym_result r;

	symbolizer__frame(s, &p, &smp, 0, &r);
	ok(r.status == SYM_OK && named(&r, "JS:*hot /a.js:1:2") &&
	   !strcmp(r.dso, "[jit]") && r.sym_offset == 0x10 && r.mapping == &m,
	   "anonymous code: the JIT map's name, dso [jit], offset 0x%llx",
	   (unsigned long long)r.sym_offset);
	/* A return address just past the start: the call, at addr - 1. */
	symbolizer__frame(s, &p, &smp, 1, &r);
	ok(r.status == SYM_OK && named(&r, "py::f:/x.py") && !r.mapping,
	   "no mapping at all: the JIT map names it too");
	symbolizer__frame(s, &p, &smp, 2, &r);
	ok(r.status == SYM_NO_FILE && !r.frames[0].function,
	   "anonymous code no JIT function holds: no file, as before");
	symbolizer__free(s);
}

static void test_cache(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct symbolizer_stats st;
	struct sym_result r;
	uint64_t v = sym_value(fx("chain"), "b") + 1;
	int i, good = 1;

	for (i = 0; i < 5; i++) {
		symbolizer__file_addr(s, fx("chain"), NULL, 0, v, &r);
		good &= named(&r, "b");
	}
	symbolizer__stats(s, &st);
	ok(good && st.lookups == 5 && st.cache_hits == 4 && st.files_opened == 1,
	   "cache: 5 lookups, %llu hits, %llu file opened",
	   (unsigned long long)st.cache_hits,
	   (unsigned long long)st.files_opened);
	symbolizer__free(s);
}

static const struct profile_kmod kmods[] = {
	{ .start = 0xffffffff81000000ull, .end = 0xffffffff82000000ull,
	  .name = "[kernel.kallsyms]", .is_kernel = true },
	{ .start = 0xffffffffc0000000ull, .end = 0xffffffffc0010000ull,
	  .name = "e1000" },
};
static const struct profile_ksym ksyms[] = {
	{ 0xffffffff81100000ull, 0x100, "do_syscall_64" },
	{ 0xffffffff81200000ull, 0x40, "__x64_sys_getpid" },
	{ 0xffffffffc0001000ull, 0x200, "e1000_clean" },
};

static void test_kernel_stream(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct profile p = { .kmods = kmods, .nr_kmods = 2, .ksyms = ksyms,
			     .nr_ksyms = 3 };
	struct profile none = { 0 };
	uint64_t ips[4] = { 0xffffffff81200010ull, 0xffffffff81100021ull,
			    0xffffffffc0001100ull, 0xffffffff81300000ull };
	struct profile_sample smp = { .pid = 1, .nr_kernel = 4, .ips = ips };
	struct sym_result r[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		symbolizer__frame(s, &p, &smp, i, &r[i]);
	ok(named(&r[0], "__x64_sys_getpid") && r[0].sym_offset == 0x10 &&
	   r[0].kind == SYM_KIND_KERNEL && !strcmp(r[0].dso, "[kernel.kallsyms]") &&
	   named(&r[1], "do_syscall_64") && r[1].sym_offset == 0x21,
	   "kernel: names and offsets from the stream's symbols");
	ok(named(&r[2], "e1000_clean") && !strcmp(r[2].dso, "e1000") &&
	   r[2].rel_pc == 0x1100 && r[2].sym_offset == 0x100,
	   "kernel: a module's symbol, dso e1000");
	ok(r[3].status == SYM_NO_SYMBOL && !r[3].frames[0].function,
	   "kernel: an address between symbols: no symbol");
	symbolizer__frame(s, &none, &smp, 0, &r[0]);
	ok(r[0].status == SYM_NO_KERNEL && r[0].kind == SYM_KIND_KERNEL,
	   "kernel: a stream without kernel symbols: %s",
	   sym_status__name(r[0].status));
	symbolizer__free(s);
}

static void test_kernel_files(void)
{
	char map[] = "/tmp/fxt-sysmap-XXXXXX";
	struct symbolizer_opts o = { .debug_dir = fx("nodebug") };
	struct symbolizer *s;
	/* The recording's kernel is 0x200000 above the file's (KASLR). */
	struct profile_kmod km[1] = { {
		.start = 0xffffffff81201000ull, .end = 0xffffffff82000000ull,
		.name = "[kernel.kallsyms]", .is_kernel = true } };
	struct profile p = { .kmods = km, .nr_kmods = 1 };
	uint64_t ips[2] = { 0xffffffff81201002ull + 8, 0xffffffff81201043ull + 1 };
	struct profile_sample smp = { .pid = 1, .nr_kernel = 2, .ips = ips };
	struct sym_result r0, r1;
	int fd = mkstemp(map), err;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		die("mkstemp");
	fprintf(f, "ffffffff81000000 T _text\n"
		   "ffffffff81001000 T _stext\n"
		   "ffffffff81001001 T do_syscall_64\n"
		   "ffffffff81001020 d some_data\n"
		   "ffffffff81001042 t __x64_sys_getpid\n"
		   "garbage line\n"
		   "ffffffff81001080 T _etext\n");
	fclose(f);
	o.system_map = map;
	if (symbolizer__new(&o, &s))
		die("system_map");
	symbolizer__frame(s, &p, &smp, 0, &r0);
	symbolizer__frame(s, &p, &smp, 1, &r1);
	ok(named(&r0, "do_syscall_64") && r0.sym_offset == 9 &&
	   named(&r1, "__x64_sys_getpid") && r1.sym_offset == 2,
	   "System.map: %s+%llu, %s+%llu (slid)", r0.frames[0].function,
	   (unsigned long long)r0.sym_offset, r1.frames[0].function,
	   (unsigned long long)r1.sym_offset);
	symbolizer__free(s);
	unlink(map);

	o.system_map = NULL;
	o.vmlinux = fx("fake_vmlinux");
	if (symbolizer__new(&o, &s))
		die("vmlinux");
	km[0].build_id_size = read_id(fx("fake_vmlinux.buildid"), km[0].build_id);
	symbolizer__frame(s, &p, &smp, 0, &r0);
	symbolizer__frame(s, &p, &smp, 1, &r1);
	ok(named(&r0, "do_syscall_64") && r0.sym_offset == 9 &&
	   named(&r1, "__x64_sys_getpid") && r1.sym_offset == 2,
	   "vmlinux: %s+%llu, %s+%llu (slid)", r0.frames[0].function,
	   (unsigned long long)r0.sym_offset, r1.frames[0].function,
	   (unsigned long long)r1.sym_offset);
	symbolizer__free(s);

	if (symbolizer__new(&o, &s))
		die("vmlinux");
	km[0].build_id[0] ^= 0xff;
	symbolizer__frame(s, &p, &smp, 0, &r0);
	ok(r0.status == SYM_BUILD_ID_MISMATCH && !r0.frames[0].function,
	   "vmlinux with another build id: %s", sym_status__name(r0.status));
	symbolizer__free(s);

	o.vmlinux = fx("bad/text");
	err = symbolizer__new(&o, &s);
	ok(err < 0 && !s, "a vmlinux that is not ELF: %s", strerror(-err));
}

static void test_lines_inlines(void)
{
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, true, true);
	struct sym_result r;
	uint64_t v = sym_value(fx("chain"), "c");
	uint64_t vi = sym_value(fx("chain"), "inl_caller");
	uint64_t size = sym_size(fx("chain"), "inl_caller"), k;
	unsigned int lc = marker_line("chain.c", "LINE_C */");
	unsigned int lcall = marker_line("inl.c", "LINE_CALL");
	int found = 0;

	symbolizer__file_addr(s, fx("chain"), NULL, 0, v, &r);
	ok(named(&r, "c") && r.nr_frames == 1 && ends_with(r.frames[0].file, "chain.c") &&
	   r.frames[0].line >= lc && r.frames[0].line <= lc + 7,
	   "lines: c at %s:%u (c starts at line %u)", r.frames[0].file,
	   r.frames[0].line, lc);
	for (k = 0; k < size && !found; k++) {
		symbolizer__file_addr(s, fx("chain"), NULL, 0, vi + k, &r);
		if (r.nr_frames == 2 && r.frames[0].inlined &&
		    !strcmp(r.frames[0].function, "inl") &&
		    ends_with(r.frames[0].file, "inl.c") &&
		    !r.frames[1].inlined &&
		    !strcmp(r.frames[1].function, "inl_caller") &&
		    r.frames[1].line == lcall && r.status == SYM_OK)
			found = 1;
	}
	ok(found, "inlines: inl inlined into inl_caller at inl.c:%u (+%llu)",
	   lcall, (unsigned long long)k - 1);
	symbolizer__free(s);

	s = new_sym(fx("debug/.build-id"), NULL, true, false);
	{
		uint8_t id[PROFILE_BUILD_ID_MAX];
		unsigned int n = read_id(fx("chain.buildid"), id);

		symbolizer__file_addr(s, fx("stripped/chain"), id, n, vi, &r);
	}
	ok(named(&r, "inl_caller") && r.nr_frames == 1 &&
	   ends_with(r.frames[0].file, "inl.c") && r.frames[0].line > 0,
	   "lines from the debug file, no inlines: inl_caller at %s:%u",
	   r.frames[0].file, r.frames[0].line);
	symbolizer__free(s);
}

/* C++ names, as perf shows them: demangled, no parameter list. */
static void test_demangle(void)
{
	static const char bump[] = "_ZN3fxt7counter4bumpEi";
	uint64_t vb = sym_value(fx("cxx"), bump);
	uint64_t vt = sym_value(fx("cxx"), "_ZN3fxt5twiceIiEET_S1_");
	uint64_t vr = sym_value(fx("cxx"), "_ZN3fxt3runERNS_7counterE");
	uint64_t size = sym_size(fx("cxx"), "_ZN3fxt3runERNS_7counterE"), k;
	struct symbolizer_opts raw = { .raw_names = true };
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, false, false);
	struct sym_result r;
	int found = 0;

	symbolizer__file_addr(s, fx("cxx"), NULL, 0, vb + 1, &r);
	ok(named(&r, "fxt::counter::bump") && r.sym_offset == 1,
	   "demangled: %s is fxt::counter::bump", r.frames[0].function);
	symbolizer__file_addr(s, fx("cxx"), NULL, 0, vt, &r);
	ok(named(&r, "fxt::twice<int>"), "demangled template: %s",
	   r.frames[0].function);
	symbolizer__free(s);

	if (symbolizer__new(&raw, &s))
		die("symbolizer__new");
	symbolizer__file_addr(s, fx("cxx"), NULL, 0, vb, &r);
	ok(named(&r, bump), "raw_names keeps %s", r.frames[0].function);
	symbolizer__free(s);

	/* DWARF's linkage names of inline frames are demangled too. */
	s = new_sym(fx("nodebug"), NULL, false, true);
	for (k = 0; k < size && !found; k++) {
		symbolizer__file_addr(s, fx("cxx"), NULL, 0, vr + k, &r);
		found = r.nr_frames == 2 && r.frames[0].inlined &&
			!strcmp(r.frames[0].function, "fxt::scaled") &&
			!strcmp(r.frames[1].function, "fxt::run");
	}
	ok(found, "an inline frame: fxt::scaled inlined into fxt::run (+%llu)",
	   (unsigned long long)k - 1);
	symbolizer__free(s);
}

static void test_bad_files(void)
{
	const char *bad[] = { "bad/dir", "bad/text", "bad/empty",
			      "bad/truncated", "bad/half" };
	struct symbolizer *s = new_sym(fx("nodebug"), NULL, true, true);
	struct sym_result r;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		int err = symbolizer__file_addr(s, fx(bad[i]), NULL, 0, 0x1139, &r);

		ok(!err && r.status == SYM_BAD_FILE && !r.frames[0].function,
		   "bad file %s: %s", bad[i], sym_status__name(r.status));
	}
	symbolizer__file_addr(s, "/dev/null", NULL, 0, 0x10, &r);
	ok(r.status == SYM_BAD_FILE, "/dev/null: %s", sym_status__name(r.status));
	symbolizer__free(s);
}

/*
 * Damaged copies of chain, bytes changed at random (fixed seed) in the
 * ELF header, anywhere, or in the section headers at the end: every
 * lookup returns 0 with a valid status, and ASan sees nothing.
 */
static void test_damaged_files(void)
{
	char dir[] = "/tmp/fxt-symdamage-XXXXXX", path[4200];
	static unsigned char orig[1 << 20], buf[1 << 20];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int it, named = 0, bad = 0, failed = 0;
	size_t n;
	FILE *f = fopen(fx("chain"), "rb");

	if (!f || !mkdtemp(dir))
		die("damaged: setup");
	n = fread(orig, 1, sizeof(orig), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/chain", dir);
	for (it = 0; it < 300; it++) {
		struct symbolizer *s = new_sym(fx("nodebug"), NULL, true, true);
		struct sym_result r;
		unsigned int k, flips;
		uint64_t a;

		memcpy(buf, orig, n);
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		flips = 1 + seed % 8;
		for (k = 0; k < flips; k++) {
			size_t pos;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			pos = (seed >> 8) % n;
			if (seed % 3 == 0)
				pos = (seed >> 8) % 64;
			else if (seed % 3 == 1)
				pos = n - 1 - (seed >> 8) % 2048;
			buf[pos] = (uint8_t)(seed >> 40);
		}
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != n)
			die("damaged: write");
		fclose(f);
		for (a = 0x1100; a < 0x11b0; a += 7) {
			if (symbolizer__file_addr(s, path, NULL, 0, a, &r) != 0 ||
			    (unsigned int)r.status >= SYM__NR || !r.nr_frames ||
			    r.nr_frames > SYM_MAX_INLINE)
				failed++;
			else if (r.status == SYM_OK && r.frames[0].function &&
				 strlen(r.frames[0].function) < 4096)
				named++;
			else if (r.status == SYM_BAD_FILE)
				bad++;
		}
		symbolizer__free(s);
	}
	unlink(path);
	rmdir(dir);
	ok(!failed, "300 damaged copies: no failure (%u named, %u bad file)",
	   named, bad);
}

int main(int argc, char **argv)
{
	snprintf(fix, sizeof(fix), "%s", argc > 1 ? argv[1] : SYM_FIXTURES);
	printf("TAP version 13\n1..54\n");
	test_chain_names();
	test_chain_frames();
	test_pie_and_library();
	test_exec_load_math();
	test_stripped();
	test_symfs();
	test_deleted();
	test_debuglink();
	test_live_dlopen();
	test_live_vdso();
	test_mismatch();
	test_unresolved();
	test_jit_frames();
	test_cache();
	test_kernel_stream();
	test_kernel_files();
	test_lines_inlines();
	test_demangle();
	test_bad_files();
	test_damaged_files();
	printf("# %d tests, %d failed\n", nr_tests, nr_failed);
	return nr_failed ? 1 : 0;
}
