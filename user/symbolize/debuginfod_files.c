// SPDX-License-Identifier: GPL-2.0-only
/*
 * debuginfod_files.c - see debuginfod_files.h.  libdebuginfod does the
 * HTTP, the server list, the cache and its own negative cache (an empty
 * file per miss, for cache_miss_s); this file adds the default timeout
 * and the per-run memory of failures, which also covers wrong answers
 * that the library's cache would hand out again.
 *
 * libdebuginfod is loaded with dlopen(DEBUGINFOD_SONAME), as elfutils'
 * own libdwfl does: Debian ships it shared only (it pulls in libcurl), so
 * the static fxtprof of the VM suite, which holds the symbolizer too,
 * links without it and simply has no server to ask; the host's dynamic
 * fxtprof finds it through libdebuginfod1, which libdw1 depends on.
 */
#include "symbolize/debuginfod_files.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_MAX	64

struct failed_id {
	enum sym_debuginfod_kind kind;
	uint8_t id[ID_MAX];
	unsigned int n;
	struct failed_id *next;
};

/* The entry points used, typed from the header's prototypes. */
struct debuginfod_lib {
	void *handle;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
};

static struct debuginfod_lib lib;

struct sym_debuginfod {
	debuginfod_client *client;
	struct failed_id *failed;
	struct sym_debuginfod_stats stats;
};

/*
 * Loaded once and never closed, as libdwfl does: the libraries it pulls
 * in (libcurl, its TLS) keep what their constructors allocate for the
 * life of the process, and an unload would leave that behind.
 */
static int lib_open(struct debuginfod_lib *l)
{
	if (l->handle)
		return 0;
	l->handle = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!l->handle)
		return -ENOTSUP;
	*(void **)&l->begin = dlsym(l->handle, "debuginfod_begin");
	*(void **)&l->end = dlsym(l->handle, "debuginfod_end");
	*(void **)&l->find_executable = dlsym(l->handle,
					      "debuginfod_find_executable");
	*(void **)&l->find_debuginfo = dlsym(l->handle,
					     "debuginfod_find_debuginfo");
	if (!l->begin || !l->end || !l->find_executable || !l->find_debuginfo) {
		dlclose(l->handle);
		l->handle = NULL;
		return -ENOTSUP;
	}
	return 0;
}

int sym_debuginfod__new(struct sym_debuginfod **out)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	struct sym_debuginfod *d;

	*out = NULL;
	if (!urls || !urls[strspn(urls, " \t")])
		return 0;
	/*
	 * libdebuginfod reads its timeout from the environment at each
	 * request; its default, 90 s per server without progress, would
	 * stall a report on an unreachable server.
	 */
	if (!getenv(DEBUGINFOD_TIMEOUT_ENV_VAR) &&
	    setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, SYM_DEBUGINFOD_TIMEOUT_S, 0))
		return -errno;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (lib_open(&lib) != 0) {
		free(d);
		return -ENOTSUP;
	}
	d->client = lib.begin();
	if (!d->client) {
		free(d);
		return -ENOTSUP;
	}
	*out = d;
	return 0;
}

void sym_debuginfod__free(struct sym_debuginfod *d)
{
	struct failed_id *f, *fn;

	if (!d)
		return;
	for (f = d->failed; f; f = fn) {
		fn = f->next;
		free(f);
	}
	lib.end(d->client);
	free(d);
}

static bool failed_before(const struct sym_debuginfod *d,
			  enum sym_debuginfod_kind kind, const uint8_t *id,
			  unsigned int n)
{
	const struct failed_id *f;

	for (f = d->failed; f; f = f->next)
		if (f->kind == kind && f->n == n && !memcmp(f->id, id, n))
			return true;
	return false;
}

void sym_debuginfod__reject(struct sym_debuginfod *d,
			    enum sym_debuginfod_kind kind, const uint8_t *id,
			    unsigned int n)
{
	struct failed_id *f;

	if (!d || !n || n > ID_MAX || failed_before(d, kind, id, n))
		return;
	f = calloc(1, sizeof(*f));
	if (!f)
		return;		/* asked again next time: slower, still right */
	f->kind = kind;
	memcpy(f->id, id, n);
	f->n = n;
	f->next = d->failed;
	d->failed = f;
}

int sym_debuginfod__find(struct sym_debuginfod *d,
			 enum sym_debuginfod_kind kind, const uint8_t *id,
			 unsigned int n, char **path)
{
	char *got = NULL;
	int fd;

	*path = NULL;
	if (!d || !n || n > ID_MAX)
		return -ENOENT;
	if (failed_before(d, kind, id, n)) {
		d->stats.remembered++;
		return -ENOENT;
	}
	d->stats.requests++;
	if (kind == SYM_DEBUGINFOD_EXECUTABLE)
		fd = lib.find_executable(d->client, id, (int)n, &got);
	else
		fd = lib.find_debuginfo(d->client, id, (int)n, &got);
	if (fd < 0) {
		sym_debuginfod__reject(d, kind, id, n);
		free(got);
		return fd;
	}
	/* The caller opens the cached file by path, like any candidate. */
	close(fd);
	if (!got) {
		sym_debuginfod__reject(d, kind, id, n);
		return -ENOENT;
	}
	d->stats.found++;
	*path = got;
	return 0;
}

void sym_debuginfod__stats(const struct sym_debuginfod *d,
			   struct sym_debuginfod_stats *st)
{
	if (d)
		*st = d->stats;
	else
		*st = (struct sym_debuginfod_stats){ 0 };
}
