// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_symbolize.c - frames named per second by the symbolizer, cold and
 * warm, next to eu-addr2line on the same addresses.
 *
 *   bench_symbolize [-n N] [-r ROUNDS] [-d DEBUG_DIR] [--no-addr2line] FILE...
 *
 * For each FILE, N distinct addresses spread over its executable segment
 * (ELF addresses, fixed seed) are named:
 *   cold        first lookup of each, a new symbolizer (file open, table
 *               sort included), names only;
 *   cold+lines  the same with source lines and inline frames (libdwfl);
 *   warm        ROUNDS more passes over the same addresses (cache hits);
 *   frame warm  the same through symbolizer__frame and a one-mapping
 *               profile, as reports call it;
 *   eu-addr2line -f -e FILE ADDR...  one process given all N addresses.
 * No assertions: this prints figures; scripts/bench-symbolize.sh runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/symbolizer.h"

extern char **environ;

/* ---- a one-mapping profile, for the symbolizer__frame figure -------- */

struct profile {
	struct profile_mapping m;
};

const struct profile_mapping *profile__find_mapping(const struct profile *p,
						    uint32_t pid, uint64_t addr,
						    uint64_t ts)
{
	(void)pid; (void)ts;
	return addr >= p->m.start && addr < p->m.end ? &p->m : NULL;
}

const struct profile_kmod *profile__find_kmod(const struct profile *p,
					      uint64_t addr)
{
	(void)p; (void)addr;
	return NULL;
}

size_t profile__nr_kmods(const struct profile *p)
{
	(void)p;
	return 0;
}

const struct profile_kmod *profile__kmod(const struct profile *p, size_t i)
{
	(void)p; (void)i;
	return NULL;
}

const struct profile_ksym *profile__find_ksym(const struct profile *p,
					      uint64_t addr)
{
	(void)p; (void)addr;
	return NULL;
}

size_t profile__nr_ksyms(const struct profile *p)
{
	(void)p;
	return 0;
}

/* ---- helpers --------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct text {
	uint64_t offset, vaddr, size;
};

static int exec_segment(const char *path, struct text *t)
{
	int fd = open(path, O_RDONLY), found = -ENOEXEC;
	size_t i, n;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && ph.p_filesz) {
				t->offset = ph.p_offset;
				t->vaddr = ph.p_vaddr;
				t->size = ph.p_filesz;
				found = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* n distinct addresses in [t->vaddr, t->vaddr + t->size). */
static size_t pick_addrs(const struct text *t, uint64_t *addrs, size_t n)
{
	size_t i, out = 0;

	if (n > t->size)
		n = t->size;
	for (i = 0; i < n; i++)
		addrs[i] = t->vaddr + next_rand() % t->size;
	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	for (i = 0; i < n; i++)
		if (!out || addrs[out - 1] != addrs[i])
			addrs[out++] = addrs[i];
	/* Shuffle: a sorted walk would flatter the caches. */
	for (i = out; i > 1; i--) {
		size_t j = next_rand() % i;
		uint64_t tmp = addrs[i - 1];

		addrs[i - 1] = addrs[j];
		addrs[j] = tmp;
	}
	return out;
}

/* Seconds for one eu-addr2line process naming every address. */
static double time_addr2line(const char *file, const uint64_t *addrs, size_t n)
{
	char **argv = calloc(n + 6, sizeof(*argv));
	char *buf = malloc(n * 20);
	posix_spawn_file_actions_t fa;
	double t0, t1;
	pid_t pid;
	size_t i;
	int st;

	if (!argv || !buf)
		return -1;
	argv[0] = "eu-addr2line";
	argv[1] = "-f";
	argv[2] = "-e";
	argv[3] = (char *)file;
	for (i = 0; i < n; i++) {
		argv[4 + i] = buf + i * 20;
		snprintf(argv[4 + i], 20, "0x%llx", (unsigned long long)addrs[i]);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now();
	if (posix_spawnp(&pid, "eu-addr2line", &fa, NULL, argv, environ) != 0) {
		t1 = -1;
		goto out;
	}
	waitpid(pid, &st, 0);
	t1 = (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? now() - t0 : -1;
out:
	posix_spawn_file_actions_destroy(&fa);
	free(buf);
	free(argv);
	return t1;
}

static void report(const char *what, size_t frames, double secs, size_t named)
{
	printf("  %-28s %9zu frames %8.3f s %12.0f frames/s  (%zu named)\n",
	       what, frames, secs, secs > 0 ? frames / secs : 0.0, named);
}

static size_t run_pass(struct symbolizer *s, const char *file,
		       const uint64_t *addrs, size_t n)
{
	struct sym_result r;
	size_t i, named = 0;

	for (i = 0; i < n; i++)
		if (symbolizer__file_addr(s, file, NULL, 0, addrs[i], &r) == 0 &&
		    r.status == SYM_OK)
			named++;
	return named;
}

static void bench_file(const char *file, size_t n, unsigned int rounds,
		       const char *debug_dir, int addr2line)
{
	struct symbolizer_opts o = { .debug_dir = debug_dir };
	struct text t = { 0 };
	struct symbolizer *s;
	uint64_t *addrs, *ips;
	size_t named, i;
	unsigned int k;
	double t0, cold, cold_lines, warm, frame_warm, a2l = -1;
	struct profile p;
	struct profile_sample smp = { .pid = 1, .nr_user = 1 };
	struct sym_result r;

	if (exec_segment(file, &t)) {
		printf("%s: no executable segment, skipped\n", file);
		return;
	}
	addrs = calloc(n, sizeof(*addrs));
	ips = calloc(n, sizeof(*ips));
	if (!addrs || !ips)
		exit(1);
	n = pick_addrs(&t, addrs, n);
	printf("%s: %zu distinct addresses in 0x%llx bytes of text\n", file, n,
	       (unsigned long long)t.size);

	if (symbolizer__new(&o, &s))
		exit(1);
	t0 = now();
	named = run_pass(s, file, addrs, n);
	cold = now() - t0;
	report("cold (names)", n, cold, named);
	t0 = now();
	for (k = 0; k < rounds; k++)
		named = run_pass(s, file, addrs, n);
	warm = now() - t0;
	report("warm (names)", n * rounds, warm, named);
	symbolizer__free(s);

	o.lines = o.inlines = true;
	if (symbolizer__new(&o, &s))
		exit(1);
	t0 = now();
	named = run_pass(s, file, addrs, n);
	cold_lines = now() - t0;
	report("cold (lines + inlines)", n, cold_lines, named);
	t0 = now();
	for (k = 0; k < rounds; k++)
		named = run_pass(s, file, addrs, n);
	report("warm (lines + inlines)", n * rounds, now() - t0, named);
	symbolizer__free(s);

	/* The same, as runtime addresses of a process, through a mapping. */
	o.lines = o.inlines = false;
	if (symbolizer__new(&o, &s))
		exit(1);
	memset(&p, 0, sizeof(p));
	p.m.path = file;
	p.m.start = 0x7f0000000000ull;
	p.m.pgoff = t.offset & ~0xfffull;
	p.m.end = p.m.start + (t.offset - p.m.pgoff) + t.size;
	for (i = 0; i < n; i++)
		ips[i] = p.m.start + (t.offset - p.m.pgoff) + (addrs[i] - t.vaddr);
	for (i = 0; i < n; i++) {	/* fill the cache */
		smp.ips = &ips[i];
		symbolizer__frame(s, &p, &smp, 0, &r);
	}
	named = 0;
	t0 = now();
	for (k = 0; k < rounds; k++)
		for (i = 0; i < n; i++) {
			smp.ips = &ips[i];
			if (symbolizer__frame(s, &p, &smp, 0, &r) == 0 &&
			    r.status == SYM_OK)
				named++;
		}
	frame_warm = now() - t0;
	report("warm symbolizer__frame", n * rounds, frame_warm,
	       named / rounds);
	symbolizer__free(s);

	if (addr2line) {
		a2l = time_addr2line(file, addrs, n);
		if (a2l < 0)
			printf("  eu-addr2line failed or missing\n");
		else
			report("eu-addr2line -f (1 process)", n, a2l, n);
	}
	if (a2l > 0)
		printf("  ratio vs eu-addr2line: cold %.1fx, cold+lines %.1fx, "
		       "warm %.1fx\n", a2l / cold, a2l / cold_lines,
		       a2l / (warm / rounds));
	printf("  goal >= 2000000 frames/s warm: %s\n",
	       n * rounds / warm >= 2e6 ? "met" : "NOT met");
	free(addrs);
	free(ips);
}

int main(int argc, char **argv)
{
	size_t n = 20000;
	unsigned int rounds = 50;
	const char *debug_dir = NULL;
	int addr2line = 1, i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			rounds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			debug_dir = argv[++i];
		else if (!strcmp(argv[i], "--no-addr2line"))
			addr2line = 0;
		else {
			fprintf(stderr, "usage: bench_symbolize [-n N] [-r ROUNDS] "
				"[-d DEBUG_DIR] [--no-addr2line] FILE...\n");
			return 2;
		}
	}
	if (i == argc || !n || !rounds) {
		fprintf(stderr, "bench_symbolize: give at least one ELF file\n");
		return 2;
	}
	for (; i < argc; i++)
		bench_file(argv[i], n, rounds, debug_dir, addr2line);
	return 0;
}
