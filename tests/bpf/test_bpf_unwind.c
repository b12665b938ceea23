// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bpf_unwind.c - the bpf source's walk from unwind tables, natively
 * (root, kernel with BTF): unwind_workload (-O2 -fomit-frame-pointer, no
 * rbp chain) hot in a qsort callback through glibc, in a 41-deep
 * recursion and in a dlopen'ed library, and a run that exits within
 * 50 ms, each unwound to main in at least 95 % of the samples whose leaf
 * is in the program, with every frame in order; --call-graph fp on the
 * same program for the difference; a frame-pointer build without
 * .eh_frame (the fallback, counted); the depth and budget bounds; and
 * the unwind_load / unwind_map contract.
 *
 * The test stands in for the recorder: it builds each executable
 * mapping's table with user/unwind/ (unwind_cache), loads and maps it
 * through the bpf source's API, and names frames from the programs'
 * symbol tables.  Natively its programs are PIE and use the host's glibc;
 * in the VMs (tests/bpf/vm/, static) they are static, and what needs
 * objdump or a dynamic loader is skipped; where the bpf source cannot
 * run (the debug kernel, without BTF), all but the ops' refusal is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kselftest_harness.h"

/* Each test loads the programs: minutes under TCG in the VMs. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	600

#include "source/bpf_source.h"
#include "unwind/unwind_cache.h"
#include "fxtprof_bpf.h"
#include "bpf_unwind.h"

#define FREQ		997
#define MAX_MAPS	64
#define MAX_SYMS	64
#define RECURSE_DEPTH	41

/* The workload's functions, the test's frames; the rest are unnamed. */
static const char *const wanted[] = {
	"cmp", "sort_loop", "leaf", "recurse", "recurse_loop", "call_dl",
	"main", "dl_inner", "dl_spin",
	/* throw.cpp's */
	"catch_spin", "catch_site", "catch_mid", "throw_loop", "throw_deep",
	"dtor_spin", "dtor_mid", "dtor_catch",
};

/* Whether symbol @name is function @fn, or a part of it gcc moved out. */
static bool sym_is(const char *name, const char *fn)
{
	size_t n = strlen(fn);

	return !strncmp(name, fn, n) &&
	       (!name[n] || !strcmp(name + n, ".cold"));
}

struct sym {
	uint64_t lo, hi;
	const char *name;
};

/* An executable mapping of the child, and the symbols of its file. */
struct mapping {
	uint64_t start, end, bias;
	char path[256];
	struct sym syms[MAX_SYMS];
	unsigned int nr_syms;
};

struct child {
	pid_t pid;
	int gate;		/* write a byte: it starts working */
	struct mapping maps[MAX_MAPS];
	unsigned int nr_maps;
};

/* What the samples of the child gave. */
struct tally {
	unsigned int samples;	/* of the child, with a user stack */
	unsigned int in_prog;	/* whose leaf is a named function */
	unsigned int whole;	/* of those, reaching main through the end of @expect */
	unsigned int full;	/* of those, through all of @expect */
	unsigned int max_user;	/* the deepest user stack */
	unsigned int ends[FXTPROF_USTACK_END_SLOTS];
	unsigned int truncated;	/* USTACK_TRUNCATED */
	unsigned int elsewhere;	/* whose leaf is not named (the unwinder) */
	unsigned int elsewhere_main;	/* of those, reaching main */
};

static char dir[512];

static void sibling(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* The named functions of @path's symbol table, at file addresses. */
static void read_syms(struct mapping *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Sym s;
		unsigned int i, j;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(d, i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			for (j = 0; name && j < ARRAY_SIZE(wanted); j++) {
				if (!sym_is(name, wanted[j]) ||
				    m->nr_syms == MAX_SYMS)
					continue;
				m->syms[m->nr_syms].lo = s.st_value;
				m->syms[m->nr_syms].hi = s.st_value + s.st_size;
				m->syms[m->nr_syms++].name = wanted[j];
			}
		}
	}
	elf_end(elf);
	close(fd);
}

/* The name of @ip (a return address unless @leaf), or NULL. */
static const char *name_of(const struct child *c, uint64_t ip, bool leaf)
{
	unsigned int i, j;

	if (!leaf)
		ip--;
	for (i = 0; i < c->nr_maps; i++) {
		const struct mapping *m = &c->maps[i];

		if (ip < m->start || ip >= m->end)
			continue;
		for (j = 0; j < m->nr_syms; j++) {
			if (ip - m->bias >= m->syms[j].lo &&
			    ip - m->bias < m->syms[j].hi)
				return m->syms[j].name;
		}
	}
	return NULL;
}

/* Where the segment that file offset @off is in lands: file vaddr + bias. */
static int bias_of(const char *path, uint64_t start, uint64_t off,
		   uint64_t *bias)
{
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int ret = -ENOENT, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || off < ph.p_offset ||
			    off >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = start - (ph.p_vaddr + off - ph.p_offset);
			ret = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/*
 * The recorder's part: every executable file mapping of the child gets
 * its table (built once per build id) and a range, unless @src is NULL;
 * and the symbols, for the frames' names.  The number of mappings with a
 * table.
 */
static int map_tables(struct __test_metadata *_metadata,
		      struct bpf_source *src, struct unwind_cache *cache,
		      struct child *c)
{
	char path[64], line[512], why[UNWIND_WHY_LEN];
	int with_table = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && c->nr_maps < MAX_MAPS) {
		struct mapping *m = &c->maps[c->nr_maps];
		const struct unwind_table *t;
		struct fxtprof_unwind_table arg;
		struct fxtprof_unwind_map map;
		unsigned long long start, end, off;
		char perms[8];
		int fd, ret, n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start,
			   &end, perms, &off, &n) < 4 || !n ||
		    perms[2] != 'x' || line[n] != '/')
			continue;
		memset(m, 0, sizeof(*m));
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		m->path[strcspn(m->path, "\n")] = 0;
		m->start = start;
		m->end = end;
		if (bias_of(m->path, start, off, &m->bias))
			continue;
		read_syms(m);
		c->nr_maps++;
		if (!src)
			continue;

		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ret = unwind_cache__get(cache, fd, &t, why);
		close(fd);
		if (ret) {
			TH_LOG("%s: no table (%s)", m->path, strerror(-ret));
			continue;
		}
		unwind_table__to_uapi(t, &arg);
		ret = bpf_source__unwind_load(src, &arg);
		if (ret && ret != -EEXIST) {
			TH_LOG("%s: unwind_load: %s", m->path, strerror(-ret));
			continue;
		}
		memset(&map, 0, sizeof(map));
		map.size = sizeof(map);
		map.pid = c->pid;
		map.id = arg.id;
		map.start = start;
		map.end = end;
		map.bias = m->bias;
		ret = bpf_source__unwind_map(src, &map);
		if (ret)
			TH_LOG("%s: unwind_map: %s", m->path, strerror(-ret));
		else
			with_table++;
	}
	fclose(f);
	return with_table;
}

/* Start @prog MODE MS [LIB], set up and waiting at its gate. */
static pid_t spawn(struct child *c, const char *prog, const char *mode,
		   const char *ms, const char *lib)
{
	int in[2], out[2];
	char r;

	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -1;
	c->pid = fork();
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(prog, prog, mode, ms, lib, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->gate = in[1];
	if (c->pid < 0 || read(out[0], &r, 1) != 1 || r != 'r') {
		close(out[0]);
		return -1;
	}
	close(out[0]);
	return c->pid;
}

struct run {
	struct fxtprof_config cfg;
	struct fxtprof_stats stats;
	struct tally t;
	bool mapped;		/* the child's ranges were in unwind_procs */
	bool left_after_exit;	/* and still were once it had exited */
};

static bool ranges_left(pid_t pid);

/* Count the child's samples against @expect (leaf first, NULL-ended). */
static void tally(const struct fxtprof_sample *s, const struct child *c,
		  const char *const *expect, struct tally *t)
{
	const __u64 *u = s->ips + s->nr_kernel;
	const char *got[RECURSE_DEPTH + 8], *name;
	unsigned int i, k, nr_got = 0;

	if (s->pid != (__u32)c->pid || !s->nr_user)
		return;
	t->samples++;
	if (s->nr_user > t->max_user)
		t->max_user = s->nr_user;
	t->ends[s->ustack_end & (FXTPROF_USTACK_END_SLOTS - 1)]++;
	t->truncated += !!(s->flags & FXTPROF_SAMPLE_USTACK_TRUNCATED);
	if (!name_of(c, u[0], true)) {
		t->elsewhere++;
		for (i = 1; i < s->nr_user; i++) {
			name = name_of(c, u[i], false);
			if (name && !strcmp(name, "main")) {
				t->elsewhere_main++;
				break;
			}
		}
		return;
	}
	t->in_prog++;
	/*
	 * The named frames, up to main, must be the end of @expect: all of
	 * it for a sample in the leaf, less of it for one taken while the
	 * recursion was still growing or in main itself, which a short-lived
	 * process has a larger share of.
	 */
	for (k = 0; expect[k] && strcmp(expect[k], "main"); k++)
		;
	for (i = 0; i < s->nr_user; i++) {
		if (!(name = name_of(c, u[i], i == 0)))
			continue;
		got[nr_got++] = name;
		if (!strcmp(name, "main") || nr_got == ARRAY_SIZE(got))
			break;
	}
	if (!nr_got || strcmp(got[nr_got - 1], "main") || nr_got > k + 1)
		return;
	for (i = 0; i < nr_got; i++)
		if (strcmp(got[i], expect[k + 1 - nr_got + i]))
			return;
	t->whole++;
	t->full += nr_got == k + 1;
}

struct ctx {
	const struct child *c;
	const char *const *expect;
	struct tally *t;
};

static int on_rec(void *arg, const struct fxtprof_rec_hdr *rec)
{
	struct ctx *x = arg;

	if (rec->type == FXTPROF_REC_SAMPLE)
		tally((const struct fxtprof_sample *)rec, x->c, x->expect,
		      x->t);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Record @prog MODE MS [LIB] with the bpf source configured as @r->cfg
 * (tables loaded and mapped unless the configuration has no UNWIND), to
 * the child's exit; tally its samples against @expect.
 */
static void record(struct __test_metadata *_metadata, struct run *r,
		   const char *prog, const char *mode, const char *ms,
		   const char *lib, const char *const *expect,
		   struct child *c)
{
	struct unwind_cache *cache;
	struct bpf_source src;
	struct ctx x = { c, expect, &r->t };
	unsigned int cpu;
	int ret, status = 0;
	long waited;

	cache = unwind_cache__new(FXTPROF_DEFAULT_UNWIND_MEMORY);
	ASSERT_NE(NULL, cache);
	r->cfg.size = sizeof(r->cfg);
	r->cfg.flags |= FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK;
	r->cfg.freq_hz = FREQ;
	ret = bpf_source__open(&src, NULL);
	if (!ret)
		ret = bpf_source__configure(&src, &r->cfg);
	if (!ret)
		ret = bpf_source__start(&src);
	if (ret)
		TH_LOG("bpf source: %s", bpf_source__error(&src));
	ASSERT_EQ(0, ret);
	ASSERT_LT(0, spawn(c, prog, mode, ms, lib));
	if (r->cfg.flags & FXTPROF_CFG_UNWIND) {
		/* none for a static program without .eh_frame */
		ASSERT_LE(0, map_tables(_metadata, &src, cache, c));
		r->mapped = ranges_left(c->pid);
	} else {
		/* the names only */
		ASSERT_EQ(0, map_tables(_metadata, NULL, NULL, c));
	}
	ASSERT_EQ(1, write(c->gate, "g", 1));
	close(c->gate);
	/* The child's own time bounds it; 60 s is a hang. */
	for (waited = 0; waited < 60000; waited += 50) {
		ASSERT_EQ(0, bpf_source__drain(&src, on_rec, &x, &cpu));
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			break;
		sleep_ms(50);
	}
	ASSERT_LT(waited, 60000);
	ASSERT_EQ(0, status);
	/* its exit ran the exit program, which dropped them */
	r->left_after_exit = ranges_left(c->pid);
	ASSERT_EQ(0, bpf_source__stop(&src));
	ASSERT_EQ(0, bpf_source__drain(&src, on_rec, &x, &cpu));
	bpf_source__stats(&src, &r->stats, NULL);
	bpf_source__close(&src);
	unwind_cache__free(cache);
	TH_LOG("%s %s: %u samples, %u with the leaf in the program, %u whole "
	       "(%.1f %%); %u elsewhere, %u of them reaching main; deepest %u; ends complete %u fp_chain %u depth %u "
	       "fault %u budget %u bad %u; frames table %llu fp %llu rule %llu",
	       mode, r->cfg.flags & FXTPROF_CFG_UNWIND ? "cfi" : "fp",
	       r->t.samples, r->t.in_prog, r->t.whole,
	       r->t.in_prog ? 100.0 * r->t.whole / r->t.in_prog : 0.0,
	       r->t.elsewhere, r->t.elsewhere_main, r->t.max_user, r->t.ends[FXTPROF_USTACK_END_COMPLETE],
	       r->t.ends[FXTPROF_USTACK_END_FP_CHAIN],
	       r->t.ends[FXTPROF_USTACK_END_DEPTH],
	       r->t.ends[FXTPROF_USTACK_END_FAULT],
	       r->t.ends[FXTPROF_USTACK_END_BUDGET],
	       r->t.ends[FXTPROF_USTACK_END_BAD_FRAME],
	       (unsigned long long)r->stats.unwind_table_frames,
	       (unsigned long long)r->stats.unwind_fp_frames,
	       (unsigned long long)r->stats.unwind_rule_frames);
}

static const char *const qsort_frames[] = { "cmp", "sort_loop", "main", NULL };
static const char *const dl_frames[] = {
	"dl_inner", "dl_spin", "call_dl", "main", NULL
};
static const char *recurse_frames[RECURSE_DEPTH + 5];

/*
 * leaf, then @n recurse frames: recurse(0) jumps to leaf (a tail call),
 * so a whole stack has RECURSE_DEPTH of them.
 */
static void setup_recurse_frames(unsigned int n)
{
	unsigned int i = 0, j;

	recurse_frames[i++] = "leaf";
	for (j = 0; j < n; j++)
		recurse_frames[i++] = "recurse";
	recurse_frames[i++] = "recurse_loop";
	recurse_frames[i++] = "main";
	recurse_frames[i] = NULL;
}

/* Record @name (a sibling program) in the recursion for @ms. */
static void record_recursion(struct __test_metadata *_metadata,
			     struct run *r, const char *name, const char *ms,
			     unsigned int nr_recurse)
{
	struct child c;
	char prog[600];

	setup_recurse_frames(nr_recurse);
	sibling(prog, sizeof(prog), name);
	record(_metadata, r, prog, "recurse", ms, NULL, recurse_frames, &c);
}

/* Whether the bpf source cannot run here (the debug VM has no BTF). */
static bool no_bpf_source(void)
{
	struct bpf_source src;
	int ret = bpf_source__open(&src, NULL);

	bpf_source__close(&src);
	return ret == -ENOENT || ret == -EOPNOTSUPP;
}

#define NEED_BPF_SOURCE() do {						\
	if (no_bpf_source())						\
		SKIP(return, "the bpf source cannot run here");		\
} while (0)

/* At least 95 % of the samples whose leaf is in the program are whole. */
static bool whole_enough(const struct tally *t)
{
	return t->in_prog >= 20 && t->whole * 100 >= t->in_prog * 95;
}

static void workload(char *buf, size_t len)
{
	sibling(buf, len, "unwind_workload");
}

/* The instruction that points the frame pointer at a new frame record. */
#ifdef __aarch64__
#define FRAME_SETUP	"mov\tx29, sp"
#else
#define FRAME_SETUP	"mov    %rsp,%rbp"
#endif

TEST(no_rbp_chain_in_the_workload)
{
	static const char *const fns[] = {
		"<cmp>:", "<sort_loop>:", "<leaf>:", "<recurse>:",
		"<recurse_loop>:", "<call_dl>:", "<main>:",
	};
	char prog[600], cmd[700], line[256];
	unsigned int seen = 0, chains = 0, i;
	bool in = false;
	FILE *p;

	workload(prog, sizeof(prog));
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s 2>/dev/null", prog);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, ">:")) {
			in = false;
			for (i = 0; i < sizeof(fns) / sizeof(*fns); i++)
				in |= !!strstr(line, fns[i]);
			seen += in;
		} else if (in && strstr(line, FRAME_SETUP)) {
			/* rbp pointed at the frame: a chain (a bare push of
			 * rbp saves a callee-saved register) */
			chains++;
		}
	}
	pclose(p);
	if (!seen)
		SKIP(return, "no objdump here");
	EXPECT_EQ(7, seen);
	EXPECT_EQ(0, chains);
}

TEST(qsort_callback_through_libc_reaches_main)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };
	struct child c;
	char prog[600];

	NEED_BPF_SOURCE();

	workload(prog, sizeof(prog));
	record(_metadata, &r, prog, "qsort", "1500", NULL, qsort_frames, &c);
	EXPECT_TRUE(whole_enough(&r.t));
	EXPECT_LT(0, r.stats.unwind_table_frames);
	EXPECT_LT(0, r.stats.ustack_ends[FXTPROF_USTACK_END_COMPLETE]);
}

TEST(frame_pointers_give_short_stacks_on_the_same_program)
{
	struct run r = { 0 };
	struct child c;
	char prog[600];

	NEED_BPF_SOURCE();

	workload(prog, sizeof(prog));
	record(_metadata, &r, prog, "qsort", "1500", NULL, qsort_frames, &c);
	/* --call-graph fp: the chain is garbage without frame pointers */
	EXPECT_LE(20, r.t.in_prog);
	EXPECT_GT(r.t.in_prog / 2, r.t.whole);
	EXPECT_EQ(0, r.stats.unwind_table_frames);
}

TEST(deep_recursion_reaches_main)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };

	NEED_BPF_SOURCE();
	record_recursion(_metadata, &r, "unwind_workload", "1500",
			 RECURSE_DEPTH);
	EXPECT_TRUE(whole_enough(&r.t));
	EXPECT_LE(RECURSE_DEPTH + 3, r.t.max_user);
}

TEST(dlopened_library_reaches_main)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };
	struct child c;
	char prog[600], lib[600];

	NEED_BPF_SOURCE();

	workload(prog, sizeof(prog));
	sibling(lib, sizeof(lib), "libunwind_dl.so");
	if (access(lib, R_OK))
		SKIP(return, "no libunwind_dl.so: static programs only here");
	record(_metadata, &r, prog, "dlopen", "1500", lib, dl_frames, &c);
	EXPECT_TRUE(whole_enough(&r.t));
}

/*
 * throw.cpp, hot in a catch block after a throw through 4 frames, and in
 * a destructor that a cleanup landing pad runs during the unwinding
 * (~guard, C++-named, is no expected frame).  Samples in the unwinder
 * itself are counted, not required.
 */
static const char *const catch_frames[] = {
	"catch_spin", "catch_site", "catch_mid", "throw_loop", "main", NULL
};
static const char *const dtor_frames[] = {
	"catch_spin", "dtor_spin", "dtor_mid", "dtor_catch", "throw_loop",
	"main", NULL
};

static void record_throw(struct __test_metadata *_metadata, const char *mode,
			 const char *const *expect)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };
	struct child c;
	char prog[600];

	NEED_BPF_SOURCE();
	sibling(prog, sizeof(prog), "throw_workload");
	if (access(prog, X_OK))
		SKIP(return, "no throw_workload: C programs only here");
	record(_metadata, &r, prog, mode, "1500", NULL, expect, &c);
	EXPECT_TRUE(whole_enough(&r.t));
	EXPECT_LT(0, r.stats.unwind_table_frames);
}

TEST(cpp_catch_block_after_a_throw_reaches_main)
{
	record_throw(_metadata, "catch", catch_frames);
}

TEST(cpp_destructor_in_a_landing_pad_reaches_main)
{
	record_throw(_metadata, "dtor", dtor_frames);
}

/* Whether any unwind_procs map still holds @pid's ranges. */
static bool ranges_left(pid_t pid)
{
	struct bpf_map_info info;
	__u32 id = 0, len, key = (__u32)pid;
	struct fxtprof_bpf_unwind_proc v;
	bool left = false;
	int fd;

	while (!bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strcmp(info.name, "unwind_procs") &&
		    !bpf_map_lookup_elem(fd, &key, &v))
			left = true;
		close(fd);
	}
	return left;
}

TEST(process_exiting_within_50ms)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };

	NEED_BPF_SOURCE();
	record_recursion(_metadata, &r, "unwind_workload", "30",
			 RECURSE_DEPTH);
	/* About 30 samples at 997 Hz; a starved vCPU gives fewer. */
	EXPECT_LE(3, r.t.in_prog);
	EXPECT_LE(r.t.in_prog * 90, r.t.whole * 100);
	EXPECT_TRUE(r.mapped);
	EXPECT_FALSE(r.left_after_exit);
}

TEST(no_eh_frame_falls_back_to_frame_pointers)
{
	struct run r = { .cfg.flags = FXTPROF_CFG_UNWIND };

	NEED_BPF_SOURCE();
	/*
	 * leaf has no frame record even with -fno-omit-frame-pointer (gcc
	 * leaves it out of functions that call nothing), so a frame-pointer
	 * step from it finds recurse(1)'s record and returns to recurse(2):
	 * one frame fewer, which is all frame pointers can give.
	 */
	record_recursion(_metadata, &r, "unwind_workload_noeh", "1000",
			 RECURSE_DEPTH - 1);
	EXPECT_TRUE(whole_enough(&r.t));
	EXPECT_LT(r.t.in_prog * RECURSE_DEPTH, r.stats.unwind_fp_frames);
}

TEST(depth_bound)
{
	struct run r = {
		.cfg.flags = FXTPROF_CFG_UNWIND,
		.cfg.ustack_depth = 16,
	};

	NEED_BPF_SOURCE();
	record_recursion(_metadata, &r, "unwind_workload", "500",
			 RECURSE_DEPTH);
	EXPECT_LE(20, r.t.samples);
	EXPECT_EQ(16, r.t.max_user);
	/* a leaf in the recursion is 44 deep: cut (a sample in main or
	 * recurse_loop is not) */
	EXPECT_LE(r.t.in_prog * 9, r.t.ends[FXTPROF_USTACK_END_DEPTH] * 10);
	EXPECT_EQ(r.t.ends[FXTPROF_USTACK_END_DEPTH], r.t.truncated);
	EXPECT_EQ(0, r.t.full);
}

TEST(budget_bound)
{
	struct run r = {
		.cfg.flags = FXTPROF_CFG_UNWIND,
		.cfg.unwind_budget = 4,
	};

	NEED_BPF_SOURCE();
	record_recursion(_metadata, &r, "unwind_workload", "500",
			 RECURSE_DEPTH);
	EXPECT_LE(20, r.t.samples);
	/*
	 * One read per frame in the recursion, none for a return address
	 * still in the link register (arm64's leaf): 4 reads, 6 frames at
	 * most.
	 */
	EXPECT_GE(6, r.t.max_user);
	EXPECT_LE(r.t.in_prog * 9, r.t.ends[FXTPROF_USTACK_END_BUDGET] * 10);
	EXPECT_EQ(0, r.t.full);
}

/* A configured source, for the contract of the two ops. */
static int configured(struct bpf_source *src, __u32 flags, __u64 memory)
{
	struct fxtprof_config cfg = {
		.size = sizeof(cfg),
		.flags = flags,
		.unwind_memory = memory,
	};
	int ret = bpf_source__open(src, NULL);

	return ret ? ret : bpf_source__configure(src, &cfg);
}

static struct fxtprof_unwind_row rows[3] = {
	{ .pc = 0x1000, .cfa_reg = FXTPROF_UNWIND_CFA_SP, .cfa_offset = 8,
	  .ra_offset = -8 },
	{ .pc = 0x1001, .cfa_reg = FXTPROF_UNWIND_CFA_SP, .cfa_offset = 16,
	  .ra_offset = -8, .fp_offset = -16,
	  .flags = FXTPROF_UNWIND_ROW_FP_SAVED },
	{ .pc = 0x1010, .flags = FXTPROF_UNWIND_ROW_NO_RULE },
};

static void table(struct fxtprof_unwind_table *t, __u8 id_byte)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->rows_ptr = (__u64)(uintptr_t)rows;
	t->nr_rows = 3;
	t->pc_end = 0x1020;
	t->build_id_size = 20;
	memset(t->build_id, id_byte, 20);
}

TEST(load_and_map_contract)
{
	struct fxtprof_unwind_table t;
	struct fxtprof_unwind_map m = {
		.size = sizeof(m), .pid = 1, .start = 0x1000, .end = 0x2000,
	};
	struct fxtprof_unwind_row bad[3];
	struct bpf_source src;
	__u32 id;

	table(&t, 1);
	if (no_bpf_source()) {
		/* where it cannot run, the ops refuse an unopened source */
		EXPECT_NE(0, bpf_source__open(&src, NULL));
		EXPECT_EQ(-EBUSY, bpf_source__unwind_load(&src, &t));
		EXPECT_EQ(-EBUSY, bpf_source__unwind_map(&src, &m));
		bpf_source__close(&src);
		return;
	}

	/* without FXTPROF_CFG_UNWIND: busy */
	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE |
				FXTPROF_CFG_USTACK, 0));
	table(&t, 1);
	EXPECT_EQ(-EBUSY, bpf_source__unwind_load(&src, &t));
	EXPECT_EQ(-EBUSY, bpf_source__unwind_map(&src, &m));
	bpf_source__close(&src);

	/* UNWIND needs USTACK */
	EXPECT_EQ(-EINVAL, configured(&src, FXTPROF_CFG_SAMPLE |
				      FXTPROF_CFG_UNWIND, 0));
	bpf_source__close(&src);

	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
				FXTPROF_CFG_UNWIND, 0));
	table(&t, 1);
	ASSERT_EQ(0, bpf_source__unwind_load(&src, &t));
	id = t.id;
	EXPECT_LT(0, id);
	table(&t, 1);
	EXPECT_EQ(-EEXIST, bpf_source__unwind_load(&src, &t));
	EXPECT_EQ(id, t.id);

	/* bad rows: out of order, past pc_end, unknown register, odd
	 * offset, NO_RULE with a rule; and bad headers */
	memcpy(bad, rows, sizeof(bad));
	bad[1].pc = 0x1000;
	table(&t, 2);
	t.rows_ptr = (__u64)(uintptr_t)bad;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	memcpy(bad, rows, sizeof(bad));
	t.pc_end = 0x1010;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	t.pc_end = 0x1020;
	bad[0].cfa_reg = FXTPROF_UNWIND_CFA_MAX;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	memcpy(bad, rows, sizeof(bad));
	bad[1].fp_offset = -12;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	memcpy(bad, rows, sizeof(bad));
	bad[0].flags = FXTPROF_UNWIND_ROW_NO_RULE;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	memcpy(bad, rows, sizeof(bad));
	bad[0].flags = 1u << 7;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	table(&t, 2);
	t.nr_rows = 0;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	table(&t, 2);
	t.build_id_size = 0;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	table(&t, 2);
	t.reserved2 = 1;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_load(&src, &t));
	table(&t, 2);
	EXPECT_EQ(0, bpf_source__unwind_load(&src, &t));
	EXPECT_EQ(id + 1, t.id);

	/* maps: a range, an unknown id, an empty range, removal */
	m.id = id;
	EXPECT_EQ(0, bpf_source__unwind_map(&src, &m));
	m.id = id + 7;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_map(&src, &m));
	m.id = id;
	m.end = m.start;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_map(&src, &m));
	m.end = 0x2000;
	m.reserved = 1;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_map(&src, &m));
	m.reserved = 0;
	m.id = 0;
	EXPECT_EQ(0, bpf_source__unwind_map(&src, &m));
	bpf_source__close(&src);

	/* a table larger than unwind_memory */
	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
				FXTPROF_CFG_UNWIND, 4096));
	table(&t, 3);
	t.nr_rows = FXTPROF_UNWIND_MAX_ROWS;
	EXPECT_EQ(-ENOSPC, bpf_source__unwind_load(&src, &t));
	bpf_source__close(&src);
}

/* A table of @n rows, one a byte from 0x1000, with build id @id_byte. */
static void big_table(struct fxtprof_unwind_table *t,
		      struct fxtprof_unwind_row *r, __u32 n, __u8 id_byte)
{
	for (__u32 i = 0; i < n; i++)
		r[i] = (struct fxtprof_unwind_row){
			.pc = 0x1000 + i, .cfa_reg = FXTPROF_UNWIND_CFA_SP,
			.cfa_offset = 8, .ra_offset = -8,
		};
	table(t, id_byte);
	t->rows_ptr = (__u64)(uintptr_t)r;
	t->nr_rows = n;
	t->pc_end = 0x1000 + n;
}

/*
 * FXTPROF_IOC_UNWIND_UNLOAD's contract (ABI 7): not while a range runs
 * the table, then its id and its rows are free again.
 */
TEST(unload_contract)
{
	struct fxtprof_unwind_map m = {
		.size = sizeof(m), .pid = 1, .start = 0x1000, .end = 0x2000,
	};
	const __u64 memory = 512 << 10;
	struct fxtprof_unwind_table t, a, b;
	struct fxtprof_unwind_row *big;
	struct bpf_unwind_sizes sz;
	struct bpf_source src;
	__u32 id1, id2, n;

	if (no_bpf_source()) {
		EXPECT_NE(0, bpf_source__open(&src, NULL));
		EXPECT_EQ(-EBUSY, bpf_source__unwind_unload(&src, 1));
		bpf_source__close(&src);
		return;
	}
	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE |
				FXTPROF_CFG_USTACK, 0));
	EXPECT_EQ(-EBUSY, bpf_source__unwind_unload(&src, 1));
	bpf_source__close(&src);

	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
				FXTPROF_CFG_UNWIND, 0));
	table(&t, 1);
	ASSERT_EQ(0, bpf_source__unwind_load(&src, &t));
	id1 = t.id;
	table(&t, 2);
	ASSERT_EQ(0, bpf_source__unwind_load(&src, &t));
	id2 = t.id;
	m.id = id1;
	ASSERT_EQ(0, bpf_source__unwind_map(&src, &m));
	EXPECT_EQ(-ENOTEMPTY, bpf_source__unwind_unload(&src, id1));
	EXPECT_EQ(0, bpf_source__unwind_unload(&src, id2));
	EXPECT_EQ(-ENOENT, bpf_source__unwind_unload(&src, id2));
	EXPECT_EQ(-ENOENT, bpf_source__unwind_unload(&src, id2 + 7));
	EXPECT_EQ(-EINVAL, bpf_source__unwind_unload(&src, 0));
	/* the dropped id maps nothing */
	m.id = id2;
	EXPECT_EQ(-EINVAL, bpf_source__unwind_map(&src, &m));
	m.id = 0;
	ASSERT_EQ(0, bpf_source__unwind_map(&src, &m));
	EXPECT_EQ(0, bpf_source__unwind_unload(&src, id1));
	/* the build id is forgotten, and the lowest free id taken */
	table(&t, 1);
	EXPECT_EQ(0, bpf_source__unwind_load(&src, &t));
	EXPECT_EQ(id1, t.id);
	bpf_source__close(&src);

	/* the rows come back: room for a, not for a and b */
	bpf_unwind__size(memory, &sz);
	n = sz.row_elems * FXTPROF_BPF_UNWIND_ROWS_PER_ELEM / 2 + 1;
	big = calloc(n, sizeof(*big));
	ASSERT_NE(NULL, big);
	ASSERT_EQ(0, configured(&src, FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
				FXTPROF_CFG_UNWIND, memory));
	big_table(&a, big, n, 4);
	ASSERT_EQ(0, bpf_source__unwind_load(&src, &a));
	big_table(&b, big, n, 5);
	EXPECT_EQ(-ENOSPC, bpf_source__unwind_load(&src, &b));
	EXPECT_EQ(0, bpf_source__unwind_unload(&src, a.id));
	big_table(&b, big, n, 5);
	EXPECT_EQ(0, bpf_source__unwind_load(&src, &b));
	bpf_source__close(&src);
	free(big);
}

/* The bpf source's data sources say that cpu.sampling walks tables. */
TEST(sources_list_the_unwind_ability)
{
	for (unsigned int i = 0; i < bpf_source_nr_data_sources; i++) {
		const struct fxtprof_source *d = &bpf_source_data_sources[i];

		EXPECT_EQ(!strcmp(d->name, "cpu.sampling"),
			  !!(d->cfg_flags & FXTPROF_CFG_UNWIND))
			TH_LOG("%s", d->name);
	}
}

static void __attribute__((constructor)) find_dir(void)
{
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	dir[n > 0 ? n : 0] = 0;
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
}

TEST_HARNESS_MAIN
