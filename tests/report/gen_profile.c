// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_profile.c - write an fxtprof-like FXT recording from a script on
 * stdin, with the FXT writer, for the report tests.  One command a line:
 *
 *   process PID NAME            thread PID TID NAME
 *   mapping SERIAL PID START END PGOFF TIME INITIAL(0|1) PATH [BUILDID]
 *   kmod START END KERNEL(0|1) NAME
 *   ksym ADDR SIZE NAME
 *   clock BOOT_NS REALTIME_NS   (the wall-clock anchor, kernel object 0x83)
 *   sample TS PID TID CPU MODE KFRAMES [IP...]   (leaf first)
 *   partial TS PID TID CPU MODE KFRAMES END [IP...]  (ustack_end END)
 *   exec TS PID TID FILENAME    fork TS PPID PTID CPID CTID
 *   raw_mapping_no_start SERIAL  (a malformed mapping object)
 *   dbegin|dend TS PID TID CAT NAME [KERNEL_ID]   duration begin/end
 *   abegin|aend TS PID TID CAT NAME ID            async begin/end
 *   instant TS PID TID CAT NAME
 *   lost TS RECORDS             the kernel's loss total (fxtprof:kernel_lost)
 * (the annotations of Documentation/fxt-mapping.md: CAT region, kernel,
 * section, event).  In these NAMEs a '+' stands for a space.
 *
 * Numbers take any base strtoull() reads.  Names have no spaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt.h"

static struct fxt_writer *w;

static int sink(void *ctx, const void *rec, size_t len)
{
	(void)ctx;
	return fwrite(rec, 1, len, stdout) == len ? 0 : -5;
}

static struct fxt_sref ref(const char *s)
{
	struct fxt_sref r;

	if (fxt_writer__string_ref(w, s, strlen(s), &r)) {
		fprintf(stderr, "gen_profile: string_ref failed\n");
		exit(1);
	}
	return r;
}

static struct fxt_arg u64(const char *name, unsigned long long v)
{
	struct fxt_arg a = { .name = ref(name), .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

static struct fxt_arg u32(const char *name, unsigned int v)
{
	struct fxt_arg a = { .name = ref(name), .type = FXT_ARG_UINT32 };

	a.v.u32 = v;
	return a;
}

static struct fxt_arg str(const char *name, const char *v)
{
	struct fxt_arg a = { .name = ref(name), .type = FXT_ARG_STRING };

	a.v.str = fxt_sref_inline(v, strlen(v));
	return a;
}

static struct fxt_arg boolean(const char *name, int v)
{
	struct fxt_arg a = { .name = ref(name), .type = FXT_ARG_BOOL };

	a.v.b = v;
	return a;
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "gen_profile: not a number: '%s'\n", s);
		exit(1);
	}
	return v;
}

/* Annotation names may hold spaces, the script's separator: '+' is one. */
static char *unplus(char *s)
{
	char *c;

	for (c = s; *c; c++)
		if (*c == '+')
			*c = ' ';
	return s;
}

static void check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "gen_profile: %s: %d\n", what, ret);
		exit(1);
	}
}

/*
 * A sample: tok[1..6] are TS PID TID CPU MODE KFRAMES, the frames begin
 * at tok[first]; @end, if any, is its ustack_end argument (a partial
 * user stack).
 */
static void sample(char **tok, unsigned int first, unsigned int n,
		   const char *end)
{
	struct fxt_tref th = fxt_tref_inline(num(tok[2]), num(tok[3]));
	struct fxt_arg a[4] = {
		u32("cpu", (unsigned int)num(tok[4])),
		str("mode", tok[5]),
		u32("kframes", (unsigned int)num(tok[6])),
	};
	unsigned long long ips[294];
	unsigned int i, nf = n - first;

	if (end)
		a[3] = str("ustack_end", end);
	check(fxt_writer__instant(w, num(tok[1]), &th, ref("cpu"),
				  ref("sample"), a, end ? 4 : 3), "sample");
	for (i = 0; i < nf; i++)
		ips[i] = num(tok[first + i]);
	if (nf)
		check(fxt_writer__stack_sample(w, num(tok[1]), num(tok[2]),
					       num(tok[3]),
					       (const uint64_t *)ips, nf),
		      "stack");
}

int main(void)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink };
	char line[8192];
	unsigned int lineno = 0;

	check(fxt_writer__new(&o, &w), "writer");
	check(fxt_writer__prologue(w, 1, "fxtprof", 1000000000ull), "prologue");
	while (fgets(line, sizeof(line), stdin)) {
		char *tok[300];
		unsigned int n = 0;
		char *save, *t;

		lineno++;
		for (t = strtok_r(line, " \t\n", &save); t && n < 300;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if (!n || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "process") && n == 3) {
			check(fxt_writer__process_name(w, num(tok[1]), tok[2],
						       strlen(tok[2])), "process");
		} else if (!strcmp(tok[0], "thread") && n == 4) {
			check(fxt_writer__thread_name(w, num(tok[1]), num(tok[2]),
						      tok[3], strlen(tok[3])),
			      "thread");
		} else if (!strcmp(tok[0], "mapping") && (n == 9 || n == 10)) {
			struct fxt_arg a[9];
			unsigned int na = 0;

			a[na++] = u32("pid", (unsigned int)num(tok[2]));
			a[na++] = u32("tid", (unsigned int)num(tok[2]));
			a[na++] = u64("start", num(tok[3]));
			a[na++] = u64("end", num(tok[4]));
			a[na++] = u64("pgoff", num(tok[5]));
			a[na++] = u64("time", num(tok[6]));
			if (n == 10)
				a[na++] = str("build_id", tok[9]);
			if (num(tok[7]))
				a[na++] = boolean("initial", 1);
			check(fxt_writer__kobj(w, 0x80, num(tok[1]),
					       fxt_sref_inline(tok[8], strlen(tok[8])),
					       a, na), "mapping");
		} else if (!strcmp(tok[0], "raw_mapping_no_start") && n == 2) {
			struct fxt_arg a[2] = { u32("pid", 1), u64("end", 0x2000) };

			check(fxt_writer__kobj(w, 0x80, num(tok[1]),
					       fxt_sref_inline("/bad", 4), a, 2),
			      "mapping");
		} else if (!strcmp(tok[0], "kmod") && n == 5) {
			struct fxt_arg a[2];
			unsigned int na = 0;

			a[na++] = u64("end", num(tok[2]));
			if (num(tok[3]))
				a[na++] = boolean("kernel", 1);
			check(fxt_writer__kobj(w, 0x81, num(tok[1]),
					       fxt_sref_inline(tok[4], strlen(tok[4])),
					       a, na), "kmod");
		} else if (!strcmp(tok[0], "ksym") && n == 4) {
			struct fxt_arg a = u32("size", (unsigned int)num(tok[2]));

			check(fxt_writer__kobj(w, 0x82, num(tok[1]),
					       fxt_sref_inline(tok[3], strlen(tok[3])),
					       &a, 1), "ksym");
		} else if (!strcmp(tok[0], "clock") && n == 3) {
			struct fxt_arg a[2] = { u64("boot_ns", num(tok[1])),
						u64("realtime_ns", num(tok[2])) };

			check(fxt_writer__kobj(w, 0x83, 0,
					       fxt_sref_inline("CLOCK_REALTIME", 14),
					       a, 2), "clock");
		} else if (!strcmp(tok[0], "lost") && n == 3) {
			struct fxt_tref self = fxt_tref_inline(1, 1);
			struct fxt_arg a[2] = { u64("records", num(tok[2])),
						u64("bytes", 64 * num(tok[2])) };

			check(fxt_writer__counter(w, num(tok[1]), &self,
						  ref("fxtprof"),
						  ref("fxtprof:kernel_lost"),
						  a, 2, 0), "lost");
		} else if (!strcmp(tok[0], "sample") && n >= 7) {
			sample(tok, 7, n, NULL);
		} else if (!strcmp(tok[0], "partial") && n >= 8) {
			sample(tok, 8, n, tok[7]);
		} else if (!strcmp(tok[0], "exec") && n == 5) {
			struct fxt_tref th = fxt_tref_inline(num(tok[2]), num(tok[3]));
			struct fxt_arg a[2] = { str("filename", tok[4]),
						u32("old_tid", (unsigned int)num(tok[3])) };

			check(fxt_writer__instant(w, num(tok[1]), &th, ref("task"),
						  ref("exec"), a, 2), "exec");
		} else if (!strcmp(tok[0], "fork") && n == 6) {
			struct fxt_tref th = fxt_tref_inline(num(tok[2]), num(tok[3]));
			struct fxt_arg a[3] = { u32("child_pid", (unsigned int)num(tok[4])),
						u32("child_tid", (unsigned int)num(tok[5])),
						u64("clone_flags", 0x11) };

			check(fxt_writer__instant(w, num(tok[1]), &th, ref("task"),
						  ref("fork"), a, 3), "fork");
		} else if ((!strcmp(tok[0], "dbegin") || !strcmp(tok[0], "dend")) &&
			   (n == 6 || n == 7)) {
			struct fxt_arg a = u64("kernel_id", n == 7 ? num(tok[6]) : 0);
			struct fxt_event ev = {
				.type = tok[0][1] == 'b' ? FXT_EVENT_DURATION_BEGIN :
					FXT_EVENT_DURATION_END,
				.ts = num(tok[1]),
				.thread = fxt_tref_inline(num(tok[2]), num(tok[3])),
				.category = ref(tok[4]), .name = ref(unplus(tok[5])),
				.args = &a, .nargs = n == 7,
			};

			check(fxt_writer__event(w, &ev), "duration");
		} else if ((!strcmp(tok[0], "abegin") || !strcmp(tok[0], "aend")) &&
			   n == 7) {
			struct fxt_event ev = {
				.type = tok[0][1] == 'b' ? FXT_EVENT_ASYNC_BEGIN :
					FXT_EVENT_ASYNC_END,
				.ts = num(tok[1]),
				.thread = fxt_tref_inline(num(tok[2]), num(tok[3])),
				.category = ref(tok[4]), .name = ref(unplus(tok[5])),
				.payload = num(tok[6]),
			};

			check(fxt_writer__event(w, &ev), "async");
		} else if (!strcmp(tok[0], "instant") && n == 6) {
			struct fxt_tref th = fxt_tref_inline(num(tok[2]), num(tok[3]));

			check(fxt_writer__instant(w, num(tok[1]), &th, ref(tok[4]),
						  ref(unplus(tok[5])), NULL, 0),
			      "instant");
		} else {
			fprintf(stderr, "gen_profile: line %u: bad command\n",
				lineno);
			return 1;
		}
	}
	fxt_writer__free(w);
	return fflush(stdout) ? 1 : 0;
}
