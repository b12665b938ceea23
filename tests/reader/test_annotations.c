// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_annotations - application annotations end to end, in the VM, in
 * libfxtprof-hooks.so's "fxtprof:" mode: `fxtprof record` runs while
 * annot_workload, loading the library with dlopen(), annotates on a busy
 * thread (nested regions, a section inside them, an event):
 *  - the recording passes `fxtprof check`, with no pairing warning;
 *  - each annotation is there once, on the workload's thread (pid, tid),
 *    as the FXT mapping says (Documentation/fxt-mapping.md), in the
 *    order the thread made them;
 *  - the thread's samples, on the same clock, fall before, inside and
 *    after them: begin <= samples inside <= end, and samples outside;
 *  - fxtprof_trigger() from the library makes `fxtprof record
 *    --flight-recorder --trigger NAME` save its window, which holds the
 *    annotations and passes the checker.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <linux/fxtprof.h>
#include "fxt.h"
#include "fxt_reader.h"
#include "vm_util.h"

struct workload {
	int status;		/* exit status, -1 if it did not exit */
	unsigned long long pid, tid, key;
	int trigger_rc;
};

static void run_workload(const char *trigger, struct workload *w)
{
	char prog[4096], lib[4096], out[128];
	pid_t pid;
	FILE *f;
	int st;

	memset(w, 0, sizeof(*w));
	w->status = -1;
	snprintf(prog, sizeof(prog), "%s", vm_test_path("annot_workload"));
	snprintf(lib, sizeof(lib), "%s", vm_test_path("libfxtprof-hooks.so"));
	snprintf(out, sizeof(out), "/tmp/annot-workload-%d.out", getpid());
	pid = fork();
	if (pid == 0) {
		execl(prog, "annot_workload", lib, out, trigger, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return;
	w->status = WEXITSTATUS(st);
	f = fopen(out, "r");
	if (!f)
		return;
	if (fscanf(f, "%llu %llu %llu %d", &w->pid, &w->tid, &w->key,
		   &w->trigger_rc) != 4)
		w->status = -2;
	fclose(f);
	unlink(out);
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;

	*len = 0;
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf && read(fd, buf, (size_t)st.st_size) == st.st_size)
		*len = (size_t)st.st_size;
	close(fd);
	return buf;
}

enum { OUTER_B, OUTER_E, INNER_B, INNER_E, SEC_B, SEC_E, TICK, NR_ANNOT };

/* What the workload's thread left in a recording. */
struct seen {
	int check;			/* fxt_checker's verdict */
	char rule[64], msg[256];
	unsigned int warnings;
	unsigned int n[NR_ANNOT];	/* on the thread (sections: process) */
	unsigned long long ts[NR_ANNOT];
	unsigned int misplaced;		/* an annotation on another thread */
	unsigned long long sec_id;
	unsigned int kernel_id_args;
	/* the thread's samples: before outer, in inner before the section,
	 * in the section, in inner after it, after outer */
	unsigned int samples, before, in_inner, in_section, after;
	unsigned int triggers;		/* trigger events named @trigger */
};

static void count_warning(void *ctx, const struct fxt_error *w)
{
	struct seen *s = ctx;

	(void)w;
	s->warnings++;
}

static bool str_is(const struct fxt_str *s, const char *want)
{
	return s->len == strlen(want) && !memcmp(s->data, want, s->len);
}

static int annot_index(const struct fxt_record *r)
{
	const struct fxt_str *c = &r->event.category, *n = &r->event.name;
	uint8_t t = r->subtype;

	if (str_is(c, "region") && str_is(n, "outer"))
		return t == FXT_EVENT_DURATION_BEGIN ? OUTER_B :
		       t == FXT_EVENT_DURATION_END ? OUTER_E : -1;
	if (str_is(c, "region") && str_is(n, "inner"))
		return t == FXT_EVENT_DURATION_BEGIN ? INNER_B :
		       t == FXT_EVENT_DURATION_END ? INNER_E : -1;
	if (str_is(c, "section") && str_is(n, "phase"))
		return t == FXT_EVENT_ASYNC_BEGIN ? SEC_B :
		       t == FXT_EVENT_ASYNC_END ? SEC_E : -1;
	if (str_is(c, "event") && str_is(n, "tick"))
		return t == FXT_EVENT_INSTANT ? TICK : -1;
	return -2;	/* not an annotation of ours */
}

static void analyze(const char *buf, size_t len, const struct workload *w,
		    struct seen *s)
{
	struct fxt_record *r = malloc(sizeof(*r));
	unsigned long long *samples = NULL;
	size_t nsamples = 0, cap = 0;
	struct fxt_checker *c;
	struct fxt_reader *rd;

	memset(s, 0, sizeof(*s));
	s->check = -ENOMEM;
	if (!r || fxt_checker__new(count_warning, s, &c))
		goto out;
	s->check = fxt_checker__feed(c, buf, len);
	if (!s->check)
		s->check = fxt_checker__finish(c);
	if (s->check) {
		snprintf(s->rule, sizeof(s->rule), "%s",
			 fxt_checker__error(c)->rule);
		snprintf(s->msg, sizeof(s->msg), "%s",
			 fxt_checker__error(c)->msg);
	}
	fxt_checker__free(c);
	if (fxt_reader__new(0, &rd))
		goto out;
	fxt_reader__feed(rd, buf, len);
	while (fxt_reader__next(rd, r) > 0) {
		int i;

		if (r->type != FXT_REC_EVENT)
			continue;
		if (str_is(&r->event.category, "cpu") &&
		    str_is(&r->event.name, "sample")) {
			if (r->thread.tid != w->tid)
				continue;
			if (nsamples == cap) {
				cap = cap ? 2 * cap : 1024;
				samples = realloc(samples, cap * sizeof(*samples));
				if (!samples)
					break;
			}
			samples[nsamples++] = r->ts;
			continue;
		}
		if (str_is(&r->event.category, "fxtprof") &&
		    str_is(&r->event.name, "trigger")) {
			s->triggers++;
			continue;
		}
		i = annot_index(r);
		if (i == -2)
			continue;
		if (i < 0 || r->thread.pid != w->pid ||
		    r->thread.tid != w->tid) {
			s->misplaced++;
			continue;
		}
		s->n[i]++;
		s->ts[i] = r->ts;
		if (i == SEC_B || i == SEC_E)
			s->sec_id = r->event.payload;
	}
	fxt_reader__free(rd);
	s->samples = (unsigned int)nsamples;
	for (size_t k = 0; k < nsamples; k++) {
		unsigned long long t = samples[k];

		if (t < s->ts[OUTER_B])
			s->before++;
		else if (t > s->ts[OUTER_E])
			s->after++;
		else if (t > s->ts[SEC_B] && t < s->ts[SEC_E])
			s->in_section++;
		else if (t > s->ts[INNER_B] && t < s->ts[INNER_E])
			s->in_inner++;
	}
out:
	free(samples);
	free(r);
}

static void expect_annotations(struct __test_metadata *_metadata,
			       const struct seen *s,
			       const struct workload *w)
{
	ASSERT_EQ(0, s->check) TH_LOG("check: %s: %s", s->rule, s->msg);
	EXPECT_EQ(0, s->misplaced);
	for (int i = 0; i < NR_ANNOT; i++) {
		ASSERT_EQ(1, s->n[i]) TH_LOG("annotation %d", i);
	}
	EXPECT_EQ(w->key, s->sec_id);
	/* The thread's order, on the samples' clock. */
	EXPECT_LT(s->ts[OUTER_B], s->ts[TICK]);
	EXPECT_LT(s->ts[TICK], s->ts[INNER_B]);
	EXPECT_LT(s->ts[INNER_B], s->ts[SEC_B]);
	EXPECT_LT(s->ts[SEC_B], s->ts[SEC_E]);
	EXPECT_LT(s->ts[SEC_E], s->ts[INNER_E]);
	EXPECT_LT(s->ts[INNER_E], s->ts[OUTER_E]);
	/* Busy all along: its samples before, inside and after. */
	EXPECT_LT(0, s->before);
	EXPECT_LT(0, s->in_inner);
	EXPECT_LT(0, s->in_section);
	EXPECT_LT(0, s->after);
}

TEST(annotations_in_the_system_recording)
{
	const char *args[] = { "-F", "1000", "-d", "60", NULL };
	char path[128], errpath[160];
	struct workload w;
	struct seen s;
	size_t len;
	char *buf;
	pid_t rec;
	int rc;

	snprintf(path, sizeof(path), "/tmp/annot-%d.fxt", getpid());
	snprintf(errpath, sizeof(errpath), "%s.err", path);
	rec = vm_record_start(args, path, errpath);
	ASSERT_LT(0, rec);
	run_workload(NULL, &w);
	rc = vm_record_stop(rec);
	EXPECT_EQ(0, w.status);
	ASSERT_NE(0, w.tid);
	EXPECT_NE(w.pid, w.tid);	/* not the main thread */
	ASSERT_EQ(0, rc);
	buf = slurp(path, &len);
	ASSERT_NE(NULL, buf);
	analyze(buf, len, &w, &s);
	free(buf);
	expect_annotations(_metadata, &s, &w);
	EXPECT_EQ(0, s.warnings);
	TH_LOG("samples of the thread: %u (%u before, %u inner, %u section, %u after)",
	       s.samples, s.before, s.in_inner, s.in_section, s.after);
	unlink(path);
	unlink(errpath);
}

TEST(library_trigger_saves_the_flight_window)
{
	const char *args[] = { "-F", "1000", "--flight-recorder", "3",
			       "--trigger", "slow-frame", "-d", "60", NULL };
	char dir[128], path[512] = "", errpath[160];
	struct workload w;
	struct dirent *e;
	unsigned int n = 0;
	struct seen s;
	size_t len;
	char *buf;
	pid_t rec;
	DIR *d;
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/annot-flight-%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0700));
	snprintf(errpath, sizeof(errpath), "%s.err", dir);
	rec = vm_record_start(args, dir, errpath);
	ASSERT_LT(0, rec);
	run_workload("slow-frame", &w);
	/* the snapshot comes two drain turns after the trigger */
	EXPECT_EQ(1, vm_record_wait_snapshots(errpath, 1, 30000));
	rc = vm_record_stop(rec);
	EXPECT_EQ(0, w.status);
	EXPECT_EQ(0, w.trigger_rc);
	ASSERT_EQ(0, rc);
	d = opendir(dir);
	ASSERT_NE(NULL, d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		EXPECT_EQ(0, strncmp(e->d_name, "slow-frame-", 11))
			TH_LOG("%s", e->d_name);
	}
	closedir(d);
	ASSERT_EQ(1, n);
	buf = slurp(path, &len);
	ASSERT_NE(NULL, buf);
	analyze(buf, len, &w, &s);
	free(buf);
	/* The window (3 s) reaches back past the whole sequence (0.7 s). */
	expect_annotations(_metadata, &s, &w);
	EXPECT_LE(1, s.triggers);
	unlink(path);
	rmdir(dir);
	unlink(errpath);
}

TEST_HARNESS_MAIN
