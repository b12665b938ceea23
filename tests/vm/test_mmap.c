// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_mmap - what `fxtprof record` writes for symbolization, in the VM.
 *
 * One recording (made by the first test, kept in /tmp for the others)
 * while a process that lives under 50 ms (fxt_mapper) starts, maps
 * another program's file executable, spins and exits, and while this
 * test spins in read(2) of /dev/zero.  The VM's programs are static and
 * it has no shared libraries, so a file mapped PROT_EXEC stands in for a
 * dlopen: the kernel reports both through the same perf MMAP2 path.
 * Then, read back with the FXT reader:
 *  - the short-lived process's executable mapping and its PROT_EXEC file
 *    mapping are there, each with the build id of its file;
 *  - a kernel image object for the kernel whose build id is that of
 *    /sys/kernel/notes, with a range holding _stext;
 *  - every kernel frame of the samples lies in a kernel symbol object
 *    written before that sample;
 *  - the output passes the checker, and `fxtprof dump` names the objects.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fxt_profile.h"
#include "fxt_reader.h"
#include "source/elf_build_id.h"

#define OUT	"/tmp/test_mmap.fxt"
#define INFO	"/tmp/test_mmap.info"

static const char *prog_path(const char *name)
{
	static char buf[2][8192];
	static int which;
	char self[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *out = buf[which++ & 1];

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(out, sizeof(buf[0]), "%s/%s", self, name);
			if (!access(out, X_OK))
				return out;
		}
	}
	snprintf(out, sizeof(buf[0]), "/tests/%s", name);
	return out;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size;
}

/* The recording and what was done during it. */
struct run {
	int mapper_pid;
	int rc;
	char *buf;
	size_t len;
};

static void spin_in_kernel(double secs)
{
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);
	double t0 = now();

	while (fd >= 0 && now() - t0 < secs)
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
	if (fd >= 0)
		close(fd);
}

/* Record once; later tests read what the first one left. */
static int get_run(struct run *r)
{
	FILE *f = fopen(INFO, "r");
	int status, fd;
	pid_t rec, m;
	double t0;
	struct stat st;

	memset(r, 0, sizeof(*r));
	if (!f) {
		unlink(OUT);
		rec = fork();
		if (rec < 0)
			return -errno;
		if (!rec) {
			int efd = open("/tmp/test_mmap.err",
				       O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(efd, 2);
			/* Each sample's own blob: seen() reads its kernel
			 * frames from the record after its event. */
			execl(prog_path("fxtprof"), "fxtprof", "record", "-d",
			      "4", "--no-shared-stacks", OUT, (char *)NULL);
			_exit(127);
		}
		/* The first drain, after START, writes the first bytes. */
		t0 = now();
		while (!file_size(OUT) && now() - t0 < 30 &&
		       !waitpid(rec, &status, WNOHANG))
			usleep(20000);
		m = fork();
		if (m < 0)
			return -errno;
		if (!m) {
			execl(prog_path("fxt_mapper"), "fxt_mapper",
			      prog_path("fxt_child"), (char *)NULL);
			_exit(127);
		}
		t0 = now();
		if (waitpid(m, &status, 0) != m || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return -ECHILD;
		fprintf(stderr, "# fxt_mapper %d lived %.0f ms\n", (int)m,
			(now() - t0) * 1e3);
		spin_in_kernel(0.5);
		t0 = now();
		while (!waitpid(rec, &status, WNOHANG) && now() - t0 < 60)
			usleep(50000);
		if (now() - t0 >= 60) {
			kill(rec, SIGKILL);
			waitpid(rec, &status, 0);
		}
		f = fopen(INFO, "w");
		if (!f)
			return -errno;
		fprintf(f, "%d %d\n", (int)m,
			WIFEXITED(status) ? WEXITSTATUS(status) : 128);
		fclose(f);
		system("cat /tmp/test_mmap.err >&2");
		f = fopen(INFO, "r");
		if (!f)
			return -errno;
	}
	if (fscanf(f, "%d %d", &r->mapper_pid, &r->rc) != 2) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	fd = open(OUT, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -errno;
	r->len = (size_t)st.st_size;
	r->buf = malloc(r->len + 1);
	if (!r->buf || read(fd, r->buf, r->len) != (ssize_t)r->len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

static bool str_is(const struct fxt_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

static const struct fxt_argv *find_arg(const struct fxt_record *r,
				       const char *name)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (str_is(&r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

static void hex(const uint8_t *id, int n, char *out)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (n > 0 ? n : 0)] = 0;
}

/* What the recording holds. */
struct seen {
	int exe_maps, file_maps, exe_bid_ok, file_bid_ok;
	int kernel_kmods, kernel_bid_ok, modules;
	uint64_t kstart, kend;
	uint64_t samples_with_k, kframes, kframes_named, ksyms;
	int pending_k;			/* kframes of the last sample event */
	struct { uint64_t addr, end; } *syms;
	size_t nsyms, syms_cap;
};

static bool named(const struct seen *s, uint64_t ip)
{
	for (size_t i = 0; i < s->nsyms; i++)
		if (ip >= s->syms[i].addr && ip < s->syms[i].end)
			return true;
	return false;
}

static int decode(const struct run *r, struct seen *s)
{
	char exe_hex[41] = "", file_hex[41] = "", k_hex[41] = "";
	uint8_t id[20];
	struct fxt_reader *rd;
	struct fxt_record rec;
	int n, ret;

	memset(s, 0, sizeof(*s));
	n = elf_build_id__from_path(prog_path("fxt_mapper"), id, 20);
	hex(id, n, exe_hex);
	n = elf_build_id__from_path(prog_path("fxt_child"), id, 20);
	hex(id, n, file_hex);
	n = elf_build_id__from_notes_file("/sys/kernel/notes", id, 20);
	hex(id, n, k_hex);
	fprintf(stderr, "# build ids: mapper %s, child %s, kernel %s\n",
		exe_hex, file_hex, k_hex);
	if (fxt_reader__new(0, &rd))
		return -ENOMEM;
	ret = fxt_reader__feed(rd, r->buf, r->len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		const struct fxt_argv *a;

		ret = 0;
		if (rec.type == FXT_REC_KERNEL_OBJ &&
		    rec.subtype == FXT_KOBJ_MAPPING) {
			a = find_arg(&rec, "pid");
			if (!a || a->v.u32 != (uint32_t)r->mapper_pid)
				continue;
			a = find_arg(&rec, "build_id");
			if (str_is(&rec.kobj.name, prog_path("fxt_mapper"))) {
				s->exe_maps++;
				if (a && *exe_hex && str_is(&a->v.str, exe_hex))
					s->exe_bid_ok++;
			} else if (str_is(&rec.kobj.name,
					  prog_path("fxt_child"))) {
				s->file_maps++;
				if (a && *file_hex &&
				    str_is(&a->v.str, file_hex))
					s->file_bid_ok++;
			}
		} else if (rec.type == FXT_REC_KERNEL_OBJ &&
			   rec.subtype == FXT_KOBJ_KMOD) {
			a = find_arg(&rec, "build_id");
			if (!find_arg(&rec, "kernel")) {
				s->modules++;
				continue;
			}
			s->kernel_kmods++;
			s->kstart = rec.kobj.koid;
			s->kend = find_arg(&rec, "end")->v.u64;
			if (a && *k_hex && str_is(&a->v.str, k_hex))
				s->kernel_bid_ok++;
		} else if (rec.type == FXT_REC_KERNEL_OBJ &&
			   rec.subtype == FXT_KOBJ_KSYM) {
			if (s->nsyms == s->syms_cap) {
				s->syms_cap = s->syms_cap ? 2 * s->syms_cap : 1024;
				s->syms = realloc(s->syms, s->syms_cap *
						  sizeof(*s->syms));
				if (!s->syms)
					return -ENOMEM;
			}
			s->syms[s->nsyms].addr = rec.kobj.koid;
			s->syms[s->nsyms++].end = rec.kobj.koid +
				find_arg(&rec, "size")->v.u32;
			s->ksyms++;
		} else if (rec.type == FXT_REC_EVENT &&
			   str_is(&rec.event.name, "sample")) {
			a = find_arg(&rec, "kframes");
			s->pending_k = a ? (int)a->v.u32 : 0;
		} else if (rec.type == FXT_REC_LARGE && s->pending_k) {
			const uint64_t *ips = rec.large.data;
			size_t nf = rec.large.len / 8;

			s->samples_with_k++;
			for (int i = 0; i < s->pending_k && (size_t)i < nf; i++) {
				s->kframes++;
				if (named(s, ips[i]))
					s->kframes_named++;
			}
			s->pending_k = 0;
		}
	}
	fxt_reader__free(rd);
	return ret;
}

TEST(short_lived_process_mappings_with_build_ids)
{
	struct run r;
	struct seen s;

	ASSERT_EQ(0, get_run(&r));
	ASSERT_EQ(0, r.rc);
	ASSERT_EQ(0, decode(&r, &s));
	/* Its executable segment (one r-xp of a static program), at least. */
	ASSERT_GE(s.exe_maps, 1);
	ASSERT_EQ(s.exe_maps, s.exe_bid_ok);
	/* The file it mapped PROT_EXEC, as a dlopen'd library would be. */
	ASSERT_EQ(1, s.file_maps);
	ASSERT_EQ(1, s.file_bid_ok);
	free(s.syms);
	free(r.buf);
}

TEST(kernel_image_with_its_build_id)
{
	struct run r;
	struct seen s;

	ASSERT_EQ(0, get_run(&r));
	ASSERT_EQ(0, decode(&r, &s));
	ASSERT_EQ(1, s.kernel_kmods);
	ASSERT_EQ(1, s.kernel_bid_ok);
	ASSERT_LT(s.kstart, s.kend);
	TH_LOG("kernel 0x%" PRIx64 "-0x%" PRIx64 ", %d modules", s.kstart,
	       s.kend, s.modules);
	free(s.syms);
	free(r.buf);
}

TEST(kernel_frames_named_before_their_samples)
{
	struct run r;
	struct seen s;

	ASSERT_EQ(0, get_run(&r));
	ASSERT_EQ(0, decode(&r, &s));
	TH_LOG("%" PRIu64 " samples with kernel frames, %" PRIu64
	       " frames, %" PRIu64 " named by %" PRIu64 " symbols",
	       s.samples_with_k, s.kframes, s.kframes_named, s.ksyms);
	ASSERT_GT(s.samples_with_k, 10);
	ASSERT_GT(s.ksyms, 0);
	/*
	 * Every kernel frame lies in a symbol written before its sample,
	 * but for trampolines and BPF code that kallsyms lists without
	 * a text type: allow 1%.
	 */
	ASSERT_GE(s.kframes_named * 100, s.kframes * 99);
	free(s.syms);
	free(r.buf);
}

TEST(check_passes_and_dump_names_objects)
{
	struct fxt_error err = { 0 };
	struct run r;
	char cmd[512], line[512];
	int maps = 0, kmods = 0, ksyms = 0;
	FILE *p;

	ASSERT_EQ(0, get_run(&r));
	ASSERT_EQ(0, fxt_check_buffer(r.buf, r.len, &err)) {
		TH_LOG("%s at %" PRIu64 ": %s", err.rule, err.offset, err.msg);
	}
	snprintf(cmd, sizeof(cmd), "%s dump %s", prog_path("fxtprof"), OUT);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		maps += !!strstr(line, "type: mapping, name: ");
		kmods += !!strstr(line, "type: kmod, name: ");
		ksyms += !!strstr(line, "type: ksym, name: ");
	}
	ASSERT_EQ(0, pclose(p));
	ASSERT_GT(maps, 0);
	ASSERT_GT(kmods, 0);
	ASSERT_GT(ksyms, 0);
	free(r.buf);
}

TEST_HARNESS_MAIN
