// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hooks.c - libfxtprof-hooks loaded with dlopen(), as an application
 * would: 16 threads with nested regions and overlapping sections written
 * standalone to a file (checked by `fxtprof check`, read back: every
 * region on its thread, nested, every async pair balanced on its key);
 * every rule of the contract broken once, with its counter; a thread
 * renamed after its first annotation; fxtprof: without the device; an
 * unknown scheme; a tcp:// peer that never reads.
 * Built plain and with ASan+UBSan (the library too).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "hooks_api.h"
#include "hooks_readback.h"

#define NTHREADS	16
#define ITERS		100

static char tmpdir[64];

/* A fresh file:// URI in a private directory; its path in @path. */
static void tmp_uri(char *uri, size_t cap, char *path, size_t pcap)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fxtprof-hooks-XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();
	snprintf(path, pcap, "%s/trace.fxt", tmpdir);
	snprintf(uri, cap, "file://%s", path);
}

static void tmp_remove(const char *path)
{
	unlink(path);
	rmdir(tmpdir);
}

/* ------------------------------------------------------------------ */
/* 16 threads, file://                                                 */
/* ------------------------------------------------------------------ */

struct worker {
	struct hooks_api *api;
	unsigned int idx;
	pid_t tid;
	uint64_t key_a, key_b;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct fxtprof_hooks *h = &w->api->h;
	char outer[32], mid[32], inner[32];

	w->tid = gettid();
	snprintf(outer, sizeof(outer), "t%02u.outer", w->idx);
	snprintf(mid, sizeof(mid), "t%02u.mid", w->idx);
	snprintf(inner, sizeof(inner), "t%02u.inner", w->idx);
	/* The same label on every thread: 32 distinct keys. */
	w->key_a = h->create_section("overlap");
	w->key_b = h->create_section("overlap");
	for (int i = 0; i < ITERS; i++) {
		h->begin_region(outer);
		h->begin_region(mid);
		h->begin_section(w->key_a);
		h->begin_region(inner);
		h->begin_section(w->key_b);
		h->end_region();		/* inner */
		h->end_section(w->key_a);	/* a ends inside b */
		h->end_region();		/* mid */
		h->end_section(w->key_b);
		h->end_region();		/* outer */
	}
	h->destroy_section(w->key_a);
	h->destroy_section(w->key_b);
	return NULL;
}

static int worker_of_tid(const struct worker *w, uint64_t tid)
{
	for (int i = 0; i < NTHREADS; i++)
		if ((uint64_t)w[i].tid == tid)
			return i;
	return -1;
}

static int worker_of_key(const struct worker *w, uint64_t key)
{
	for (int i = 0; i < NTHREADS; i++)
		if (w[i].key_a == key || w[i].key_b == key)
			return i;
	return -1;
}

TEST(threads_file)
{
	static struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	char uri[128], path[96];
	struct hooks_api api;
	struct fxtprof_hooks_stats st;
	struct rb_trace t;
	/* Per thread: the open regions; per key: open or not. */
	char stack[NTHREADS][3][32];
	int depth[NTHREADS] = { 0 };
	bool open_a[NTHREADS] = { 0 }, open_b[NTHREADS] = { 0 };
	uint64_t last_ts[NTHREADS] = { 0 };
	unsigned int region_pairs = 0, section_pairs = 0;

	ASSERT_EQ(0, hooks_api__load(&api));
	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	ASSERT_EQ(0, api.h.initialize(uri));
	for (int i = 0; i < NTHREADS; i++) {
		w[i].api = &api;
		w[i].idx = (unsigned int)i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_main, &w[i]));
	}
	for (int i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	ASSERT_EQ(0, api.h.finalize());

	st = hooks_api__stats(&api);
	EXPECT_EQ((uint64_t)NTHREADS * ITERS * 10, st.annotations);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.output_dropped);
	EXPECT_EQ(0, st.not_active + st.region_unbalanced + st.key_unknown +
		     st.section_begun_twice + st.section_not_begun);
	for (int i = 0; i < NTHREADS; i++) {
		ASSERT_NE(0, w[i].key_a);
		ASSERT_NE(w[i].key_a, w[i].key_b);
		for (int j = 0; j < i; j++) {
			ASSERT_NE(w[i].key_a, w[j].key_a);
			ASSERT_NE(w[i].key_a, w[j].key_b);
			ASSERT_NE(w[i].key_b, w[j].key_a);
			ASSERT_NE(w[i].key_b, w[j].key_b);
		}
	}

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	EXPECT_LE(NTHREADS, t.threads_named);
	for (unsigned int n = 0; n < t.n; n++) {
		const struct rb_event *e = &t.ev[n];
		int i = worker_of_tid(w, e->tid);

		ASSERT_LE(0, i) TH_LOG("event %u on unknown tid %llu", n,
				       (unsigned long long)e->tid);
		ASSERT_EQ((uint64_t)getpid(), e->pid);
		/* A thread's records reach the file in its own order. */
		ASSERT_LE(last_ts[i], e->ts);
		last_ts[i] = e->ts;
		if (!strcmp(e->category, "region")) {
			char prefix[8];

			snprintf(prefix, sizeof(prefix), "t%02d.", i);
			ASSERT_EQ(0, strncmp(e->name, prefix, 4))
				TH_LOG("region %s on thread %d", e->name, i);
			if (e->type == FXT_EVENT_DURATION_BEGIN) {
				ASSERT_GT(3, depth[i]);
				snprintf(stack[i][depth[i]++], 32, "%.31s", e->name);
			} else {
				ASSERT_EQ(FXT_EVENT_DURATION_END, e->type);
				ASSERT_LT(0, depth[i]);
				ASSERT_STREQ(stack[i][--depth[i]], e->name);
				region_pairs++;
			}
		} else {
			bool *open;

			ASSERT_STREQ("section", e->category);
			ASSERT_STREQ("overlap", e->name);
			/* Each thread used only its own keys. */
			ASSERT_EQ(i, worker_of_key(w, e->id));
			open = e->id == w[i].key_a ? &open_a[i] : &open_b[i];
			if (e->type == FXT_EVENT_ASYNC_BEGIN) {
				ASSERT_FALSE(*open);
				*open = true;
			} else {
				ASSERT_EQ(FXT_EVENT_ASYNC_END, e->type);
				ASSERT_TRUE(*open);
				*open = false;
				section_pairs++;
			}
		}
	}
	for (int i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, depth[i]);
		EXPECT_FALSE(open_a[i] || open_b[i]);
	}
	EXPECT_EQ(NTHREADS * ITERS * 3, region_pairs);
	EXPECT_EQ(NTHREADS * ITERS * 2, section_pairs);
	rb_free(&t);
	tmp_remove(path);
}

/* ------------------------------------------------------------------ */
/* Every rule, broken once                                             */
/* ------------------------------------------------------------------ */

static unsigned int count_named(const struct rb_trace *t, const char *cat,
				const char *name, uint8_t type)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->n; i++)
		n += !strcmp(t->ev[i].category, cat) &&
		     !strcmp(t->ev[i].name, name) && t->ev[i].type == type;
	return n;
}

/* ------------------------------------------------------------------ */
/* A thread renamed after its first annotation                         */
/* ------------------------------------------------------------------ */

struct renamer {
	struct hooks_api *api;
	pid_t tid;
};

/*
 * "rn-before" at its first annotation; renamed with prctl() and then
 * annotating again, later than the library's 100 ms between checks;
 * renamed with pthread_setname_np() and gone without another annotation.
 */
static void *renamer_main(void *arg)
{
	struct renamer *r = arg;

	r->tid = gettid();
	prctl(PR_SET_NAME, "rn-before");
	r->api->event("first");
	prctl(PR_SET_NAME, "rn-prctl");
	usleep(150 * 1000);	/* past the library's 100 ms between checks */
	r->api->event("second");
	pthread_setname_np(pthread_self(), "rn-exit");
	return NULL;
}

/* The index in t->ev of the event @name on @tid, or UINT_MAX. */
static unsigned int event_index(const struct rb_trace *t, uint64_t tid,
				const char *name)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->ev[i].tid == tid && !strcmp(t->ev[i].name, name))
			return i;
	return UINT_MAX;
}

/*
 * Every name a thread had while it annotated is in the trace, in order,
 * each before the events made under it: the name the thread had at its
 * first annotation, the one at a later annotation, and the ones it had
 * when it exited and when it called finalize.
 */
TEST(renamed_thread_is_renamed_in_the_trace)
{
	char uri[128], path[96];
	struct hooks_api api;
	struct renamer r = { .api = &api };
	const struct rb_name *nm[8];
	struct rb_trace t;
	unsigned int n, first, second, main_ev;
	pthread_t th;

	ASSERT_EQ(0, hooks_api__load(&api));
	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	ASSERT_EQ(0, api.h.initialize(uri));
	ASSERT_EQ(0, pthread_create(&th, NULL, renamer_main, &r));
	ASSERT_EQ(0, pthread_join(th, NULL));
	prctl(PR_SET_NAME, "m-before");
	api.event("main");
	prctl(PR_SET_NAME, "m-final");
	ASSERT_EQ(0, api.h.finalize());

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	first = event_index(&t, (uint64_t)r.tid, "first");
	second = event_index(&t, (uint64_t)r.tid, "second");
	main_ev = event_index(&t, (uint64_t)getpid(), "main");
	ASSERT_NE(UINT_MAX, first);
	ASSERT_NE(UINT_MAX, second);
	ASSERT_NE(UINT_MAX, main_ev);

	n = rb_names_of(&t, (uint64_t)r.tid, nm, 8);
	ASSERT_EQ(3, n);
	EXPECT_STREQ("rn-before", nm[0]->name);
	EXPECT_LE(nm[0]->after, first);
	EXPECT_STREQ("rn-prctl", nm[1]->name);
	EXPECT_GT(nm[1]->after, first);
	EXPECT_LE(nm[1]->after, second);
	EXPECT_STREQ("rn-exit", nm[2]->name);
	EXPECT_GT(nm[2]->after, second);

	/* The process named at initialize first (/proc/self/comm). */
	n = rb_names_of(&t, (uint64_t)getpid(), nm, 8);
	ASSERT_EQ(3, n);
	EXPECT_STREQ("m-before", nm[1]->name);
	EXPECT_LE(nm[1]->after, main_ev);
	EXPECT_STREQ("m-final", nm[2]->name);
	EXPECT_GT(nm[2]->after, main_ev);
	rb_free(&t);
	tmp_remove(path);
}

/* ------------------------------------------------------------------ */
/* Threads that come and go: the library lets each one go              */
/* ------------------------------------------------------------------ */

/*
 * The first threads bring the tables to their working size: the stream
 * state remembers the last 2048 exits (user/state/recent_exits.c).
 */
#define CHURN_FIRST	2500
#define CHURN_MORE	5000
/* What may grow while 5000 threads come and go: far less than a name each. */
#define CHURN_HEAP_SLACK	(16u << 10)

static void *short_lived_main(void *arg)
{
	struct hooks_api *api = arg;
	char name[16];

	snprintf(name, sizeof(name), "churn-%d", gettid() % 10000);
	prctl(PR_SET_NAME, name);
	api->h.begin_region("short");
	api->h.end_region();
	return NULL;
}

/* @n threads, one after the other; 0 or -1. */
static int churn(struct hooks_api *api, unsigned int n)
{
	pthread_t th;

	for (unsigned int i = 0; i < n; i++)
		if (pthread_create(&th, NULL, short_lived_main, api) ||
		    pthread_join(th, NULL))
			return -1;
	return 0;
}

/* Until the writer has let go of @want threads; 0, or -1 after 2 min. */
static int wait_released(const struct hooks_api *api, uint64_t want)
{
	for (int ms = 0; ms < 120000; ms++) {
		if (hooks_api__stats(api).threads_released >= want)
			return 0;
		usleep(1000);
	}
	return -1;
}

/* What malloc holds for the program, over every arena. */
static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

TEST(threads_that_come_and_go_are_let_go)
{
	char uri[128], path[96];
	struct fxtprof_hooks_stats st;
	struct hooks_api api;
	struct rb_trace t;
	size_t before, after;

	ASSERT_EQ(0, hooks_api__load(&api));
	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	ASSERT_EQ(0, api.h.initialize(uri));
	/* The tables reach their working size with the first threads. */
	ASSERT_EQ(0, churn(&api, CHURN_FIRST));
	ASSERT_EQ(0, wait_released(&api, CHURN_FIRST));
	before = heap_in_use();
	ASSERT_EQ(0, churn(&api, CHURN_MORE));
	ASSERT_EQ(0, wait_released(&api, CHURN_FIRST + CHURN_MORE));
	after = heap_in_use();
	if (before) {
		EXPECT_LT(after, before + CHURN_HEAP_SLACK)
			TH_LOG("the heap grew from %zu to %zu bytes", before,
			       after);
	} else {
		TH_LOG("mallinfo2() says nothing here (a sanitizer's allocator): the counts only");
	}
	st = hooks_api__stats(&api);
	EXPECT_EQ(CHURN_FIRST + CHURN_MORE, st.threads);
	EXPECT_EQ(CHURN_FIRST + CHURN_MORE, st.threads_released);
	ASSERT_EQ(0, api.h.finalize());

	/* Every thread is named and its two annotations are in. */
	st = hooks_api__stats(&api);
	EXPECT_EQ(2 * (CHURN_FIRST + CHURN_MORE), st.annotations);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.output_dropped);
	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	EXPECT_EQ(2 * (CHURN_FIRST + CHURN_MORE), t.n);
	EXPECT_GE(t.threads_named, CHURN_FIRST + CHURN_MORE);
	rb_free(&t);
	tmp_remove(path);
}

TEST(rules)
{
	char uri[128], path[96], longname[700], utf8name[600], clipped[600];
	struct hooks_api api;
	struct fxtprof_hooks_stats st;
	uint64_t k, k2, k3;
	struct rb_trace t;

	ASSERT_EQ(0, hooks_api__load(&api));
	ASSERT_NE(0, access(FXTPROF_ANNOTATE_DEVICE, F_OK));
	/* Always allowed, and not counted. */
	ASSERT_EQ(FXTPROF_HOOKS_INTERFACE_VERSION, api.h.interface_version());

	/* Before initialize. */
	api.h.begin_region("early");
	ASSERT_EQ(0, api.h.create_section("early"));
	api.h.end_section(1);
	ASSERT_EQ(EPERM, api.trigger("early"));
	ASSERT_EQ(EPERM, api.h.finalize());
	st = hooks_api__stats(&api);
	ASSERT_EQ(5, st.not_active);

	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	ASSERT_EQ(0, api.h.initialize(uri));
	ASSERT_EQ(EALREADY, api.h.initialize(uri));
	ASSERT_EQ(1, hooks_api__stats(&api).initialize_again);

	/* An end region with none open. */
	api.h.end_region();
	ASSERT_EQ(1, hooks_api__stats(&api).region_unbalanced);

	/* Keys never created. */
	api.h.begin_section(999999);
	api.h.end_section(0);
	ASSERT_EQ(2, hooks_api__stats(&api).key_unknown);

	k = api.h.create_section("s");
	ASSERT_NE(0, k);
	api.h.begin_section(k);
	api.h.begin_section(k);
	ASSERT_EQ(1, hooks_api__stats(&api).section_begun_twice);
	api.h.end_section(k);
	api.h.end_section(k);
	ASSERT_EQ(1, hooks_api__stats(&api).section_not_begun);
	api.h.destroy_section(k);
	api.h.destroy_section(k);
	api.h.begin_section(k);
	ASSERT_EQ(4, hooks_api__stats(&api).key_unknown);

	/* The same label twice: two sections; one destroyed while begun. */
	k2 = api.h.create_section("s");
	k3 = api.h.create_section("s");
	ASSERT_NE(0, k2);
	ASSERT_NE(0, k3);
	ASSERT_NE(k2, k3);
	ASSERT_NE(k, k2);
	api.h.begin_section(k2);
	api.h.destroy_section(k2);
	ASSERT_EQ(1, hooks_api__stats(&api).section_destroyed_begun);
	api.h.destroy_section(k3);

	/* Names: clipped at 512 bytes, on a UTF-8 boundary; NULL and "". */
	memset(longname, 'a', 600);
	longname[600] = '\0';
	api.h.begin_region(longname);
	api.h.end_region();
	memset(utf8name, 'b', 511);
	memcpy(utf8name + 511, "\xc3\xa9", 3);	/* 513 bytes: é split at 512 */
	api.h.begin_region(utf8name);
	api.h.end_region();
	api.h.begin_region(NULL);
	api.h.end_region();
	api.event("");
	st = hooks_api__stats(&api);
	ASSERT_EQ(2, st.names_clipped);
	ASSERT_EQ(2, st.names_missing);

	/* Triggers: a bad name; a good one, but no device on the host. */
	ASSERT_EQ(EINVAL, api.trigger("not a name"));
	ASSERT_EQ(EINVAL, api.trigger(""));
	ASSERT_EQ(ENOENT, api.trigger("slow-frame"));

	ASSERT_EQ(0, api.h.finalize());

	/* After finalize. */
	api.h.begin_region("late");
	api.h.end_region();
	ASSERT_EQ(EPERM, api.h.finalize());
	ASSERT_EQ(EALREADY, api.h.initialize(uri));
	st = hooks_api__stats(&api);
	ASSERT_EQ(5 + 3, st.not_active);
	ASSERT_EQ(2, st.initialize_again);
	ASSERT_EQ(1, st.region_unbalanced);
	ASSERT_EQ(4, st.key_unknown);
	ASSERT_EQ(1, st.section_begun_twice);
	ASSERT_EQ(1, st.section_not_begun);
	ASSERT_EQ(0, st.dropped);
	/* regions 3 pairs, sections 2 pairs (one ended by destroy), 1 event */
	ASSERT_EQ(3 * 2 + 2 * 2 + 1, st.annotations);

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	memset(clipped, 'a', 512);
	clipped[512] = '\0';
	EXPECT_EQ(1, count_named(&t, "region", clipped, FXT_EVENT_DURATION_BEGIN));
	EXPECT_EQ(1, count_named(&t, "region", clipped, FXT_EVENT_DURATION_END));
	utf8name[511] = '\0';
	EXPECT_EQ(1, count_named(&t, "region", utf8name, FXT_EVENT_DURATION_END));
	EXPECT_EQ(1, count_named(&t, "region", "?", FXT_EVENT_DURATION_END));
	EXPECT_EQ(1, count_named(&t, "event", "?", FXT_EVENT_INSTANT));
	EXPECT_EQ(2, count_named(&t, "section", "s", FXT_EVENT_ASYNC_BEGIN));
	EXPECT_EQ(2, count_named(&t, "section", "s", FXT_EVENT_ASYNC_END));
	EXPECT_EQ(0, count_named(&t, "region", "early", FXT_EVENT_DURATION_BEGIN));
	EXPECT_EQ(0, count_named(&t, "region", "late", FXT_EVENT_DURATION_BEGIN));
	EXPECT_EQ(11, t.n);
	rb_free(&t);
	tmp_remove(path);
}

/* ------------------------------------------------------------------ */
/* Bad destinations                                                    */
/* ------------------------------------------------------------------ */

TEST(device_missing)
{
	struct hooks_api api;
	struct fxtprof_hooks_stats st;

	ASSERT_EQ(0, hooks_api__load(&api));
	ASSERT_NE(0, access(FXTPROF_ANNOTATE_DEVICE, F_OK));
	/* fxtprof: is the default. */
	ASSERT_EQ(ENOENT, api.h.initialize(NULL));
	api.h.begin_region("r");
	api.h.end_region();
	ASSERT_EQ(0, api.h.create_section("s"));
	ASSERT_EQ(EALREADY, api.h.initialize("fxtprof:"));
	ASSERT_EQ(EPERM, api.h.finalize());
	st = hooks_api__stats(&api);
	ASSERT_EQ(4, st.not_active);
	ASSERT_EQ(1, st.initialize_again);
	ASSERT_EQ(0, st.annotations);
}

TEST(uri_unknown)
{
	struct hooks_api api;

	ASSERT_EQ(0, hooks_api__load(&api));
	ASSERT_EQ(EINVAL, api.h.initialize("http://example.invalid/"));
	api.h.begin_region("r");
	ASSERT_EQ(1, hooks_api__stats(&api).not_active);
}

/* ------------------------------------------------------------------ */
/* A ring too small: drops, counted and said in the stream             */
/* ------------------------------------------------------------------ */

#define BURST_PAIRS	100000

TEST(ring_full_announced)
{
	char uri[128], path[96];
	struct hooks_api api;
	struct fxtprof_hooks_stats st;
	struct rb_trace t;
	int tries;

	setenv("FXTPROF_HOOKS_RING_SIZE", "4096", 1);
	ASSERT_EQ(0, hooks_api__load(&api));
	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	ASSERT_EQ(0, api.h.initialize(uri));
	/* Faster than the writer drains 4 KiB every few ms. */
	for (int i = 0; i < BURST_PAIRS; i++) {
		api.h.begin_region("burst");
		api.h.end_region();
	}
	/*
	 * Once the writer has emptied the ring, the next record fits, and
	 * the LOST record with every drop goes in ahead of it.  Each try that
	 * still finds the ring full is one more drop, in the same count.
	 */
	for (tries = 0; tries < 500;) {
		uint64_t before = hooks_api__stats(&api).dropped;

		usleep(10000);
		api.event("after");
		tries++;
		if (hooks_api__stats(&api).dropped == before)
			break;
	}
	ASSERT_EQ(EIO, api.h.finalize());
	st = hooks_api__stats(&api);
	ASSERT_LT(0, st.dropped);
	ASSERT_EQ(2ull * BURST_PAIRS + (uint64_t)tries,
		  st.annotations + st.dropped);
	ASSERT_EQ(0, st.output_dropped);

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	EXPECT_EQ(st.annotations, t.n);
	EXPECT_EQ(1, count_named(&t, "event", "after", FXT_EVENT_INSTANT));
	/* Every drop was said in the stream, before the last event. */
	ASSERT_LT(0, t.lost_notices);
	ASSERT_EQ(st.dropped, t.lost_records);
	rb_free(&t);
	tmp_remove(path);
}

/* ------------------------------------------------------------------ */
/* unix:// to a peer that reads                                        */
/* ------------------------------------------------------------------ */

struct reader {
	int lfd;
	char path[96];		/* where what it read is saved */
	long bytes;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[65536];
	int fd = accept(r->lfd, NULL, NULL);
	FILE *f = fopen(r->path, "wb");
	ssize_t n;

	r->bytes = -1;
	if (fd < 0 || !f)
		return NULL;
	r->bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, f);
		r->bytes += n;
	}
	fclose(f);
	close(fd);
	return NULL;
}

TEST(unix_to_reader)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char uri[160], path[96];
	struct hooks_api api;
	struct reader rd;
	struct rb_trace t;
	pthread_t th;
	uint64_t k;

	ASSERT_EQ(0, hooks_api__load(&api));
	tmp_uri(uri, sizeof(uri), path, sizeof(path));
	snprintf(rd.path, sizeof(rd.path), "%s", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", tmpdir);
	rd.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, rd.lfd);
	ASSERT_EQ(0, bind(rd.lfd, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(rd.lfd, 1));
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_main, &rd));
	snprintf(uri, sizeof(uri), "unix://%s", sun.sun_path);

	ASSERT_EQ(0, api.h.initialize(uri));
	k = api.h.create_section("sock");
	/* 3000 records, 144 KiB: they fit the ring even if nothing drains. */
	for (int i = 0; i < 500; i++) {
		api.h.begin_region("outer");
		api.h.begin_section(k);
		api.h.begin_region("inner");
		api.h.end_region();
		api.h.end_section(k);
		api.h.end_region();
	}
	api.h.destroy_section(k);
	ASSERT_EQ(0, api.h.finalize());
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, rd.bytes);
	ASSERT_EQ(3000, hooks_api__stats(&api).annotations);

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	ASSERT_EQ(3000, t.n);
	EXPECT_EQ(500, count_named(&t, "region", "inner", FXT_EVENT_DURATION_END));
	EXPECT_EQ(500, count_named(&t, "section", "sock", FXT_EVENT_ASYNC_END));
	rb_free(&t);
	close(rd.lfd);
	unlink(sun.sun_path);
	tmp_remove(path);
}

/* ------------------------------------------------------------------ */
/* A peer that never reads                                             */
/* ------------------------------------------------------------------ */

/* Pairs per round, and rounds at most (about 20 s of a slow host). */
#define TCP_PAIRS	100000
#define TCP_ROUNDS	200

TEST(tcp_never_read)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	struct hooks_api api;
	struct fxtprof_hooks_stats st;
	char uri[64];
	int lfd, rounds;

	/* Listens, never accepts: the kernel queues, then stops taking. */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, lfd);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&sin, &len));
	snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u", ntohs(sin.sin_port));
	setenv("FXTPROF_HOOKS_MAX_BUFFERED", "65536", 1);
	setenv("FXTPROF_HOOKS_LINGER_MS", "300", 1);

	ASSERT_EQ(0, hooks_api__load(&api));
	ASSERT_EQ(0, api.h.initialize(uri));
	/* Until the output has dropped: how soon depends on the host. */
	for (rounds = 0; rounds < TCP_ROUNDS;) {
		for (int i = 0; i < TCP_PAIRS; i++) {
			api.h.begin_region("frame");
			api.h.end_region();
		}
		rounds++;
		if (hooks_api__stats(&api).output_dropped)
			break;
		usleep(10000);
	}
	/* Lost on the way: finalize says so, and returned all the same. */
	ASSERT_EQ(EIO, api.h.finalize());
	st = hooks_api__stats(&api);
	EXPECT_EQ(2ull * TCP_PAIRS * (uint64_t)rounds,
		  st.annotations + st.dropped);
	EXPECT_LT(0, st.output_dropped);
	TH_LOG("%llu encoded, %llu dropped in the queue, %llu by the output",
	       (unsigned long long)st.annotations,
	       (unsigned long long)st.dropped,
	       (unsigned long long)st.output_dropped);
	close(lfd);
}

TEST_HARNESS_MAIN
