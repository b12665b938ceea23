/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * debuginfod_files.h - the files a symbol server has, by build id, through
 * elfutils' libdebuginfod: the servers of DEBUGINFOD_URLS, the downloads
 * kept in libdebuginfod's own cache (DEBUGINFOD_CACHE_PATH, by default
 * ~/.cache/debuginfod_client), so a second run asks no server.
 *
 * Bounded: each request gives up after DEBUGINFOD_TIMEOUT seconds without
 * progress (SYM_DEBUGINFOD_TIMEOUT_S when it is unset, rather than
 * libdebuginfod's 90), and a build id that failed once, or whose answer
 * was wrong, is not asked for again in this run: one missing file costs
 * one request per kind.
 *
 * The caller checks the build id of what it gets: a server may answer
 * with another file, which must never be used (sym_debuginfod__reject).
 */
#ifndef FXTPROF_SYMBOLIZE_DEBUGINFOD_FILES_H
#define FXTPROF_SYMBOLIZE_DEBUGINFOD_FILES_H

#include <stdint.h>

#define SYM_DEBUGINFOD_TIMEOUT_S	"10"

enum sym_debuginfod_kind {
	SYM_DEBUGINFOD_EXECUTABLE,	/* the runtime file (/executable) */
	SYM_DEBUGINFOD_DEBUGINFO,	/* its debug file (/debuginfo) */
};

struct sym_debuginfod;

/*
 * A client of DEBUGINFOD_URLS: 0 with *out NULL when it is unset or
 * empty (no server to ask), -ENOMEM, or -ENOTSUP if libdebuginfod could
 * not start.  No request is made before the first find.
 */
int sym_debuginfod__new(struct sym_debuginfod **out);
void sym_debuginfod__free(struct sym_debuginfod *d);

/*
 * The file of that kind for build id id (n bytes), downloaded or from the
 * cache: 0 and *path (malloc'd) or -errno (-ENOENT: no server has it, or
 * it failed before in this run; -ETIMEDOUT...).
 */
int sym_debuginfod__find(struct sym_debuginfod *d,
			 enum sym_debuginfod_kind kind, const uint8_t *id,
			 unsigned int n, char **path);

/* The answer for (kind, id) was wrong: never ask for it again. */
void sym_debuginfod__reject(struct sym_debuginfod *d,
			    enum sym_debuginfod_kind kind, const uint8_t *id,
			    unsigned int n);

struct sym_debuginfod_stats {
	uint64_t requests;	/* asked of libdebuginfod */
	uint64_t found;		/* answered with a file */
	uint64_t remembered;	/* failed before: not asked again */
};
void sym_debuginfod__stats(const struct sym_debuginfod *d,
			   struct sym_debuginfod_stats *st);

#endif /* FXTPROF_SYMBOLIZE_DEBUGINFOD_FILES_H */
