/* SPDX-License-Identifier: MIT */
/*
 * build_id_path.h - where a file of a given build id lives in a
 * ".build-id" tree, the layout that debuginfod -F, gdb and perf read:
 * DIR/.build-id/xx/rest, xx the build id's first byte in hex and rest the
 * others.  `record --collect` writes it, `report --debug-dir` reads it.
 */
#ifndef FXTPROF_BUILD_ID_PATH_H
#define FXTPROF_BUILD_ID_PATH_H

#include <stddef.h>
#include <stdint.h>

/* The longest build id a path is made for (SHA-1's 20 bytes, and more). */
#define BUILD_ID_PATH_MAX_ID	64

/*
 * "@dir/.build-id/xx/rest@suffix" into @buf (@n bytes; @dir NULL or ""
 * gives ".build-id/xx/rest", a relative path as in a tar): its length;
 * -EINVAL for a build id shorter than 2 bytes or longer than
 * BUILD_ID_PATH_MAX_ID, -ENAMETOOLONG when it does not fit.  The
 * directory is the path up to its last '/'.
 */
int build_id_path(char *buf, size_t n, const char *dir, const uint8_t *id,
		  size_t len, const char *suffix);

/*
 * mkdir -p of the directories of @path (not of its last name), each 0700,
 * as the tree's files are the traced machine's: 0 or -errno.  @path is
 * restored before it returns.
 */
int build_id_path_make_dirs(char *path);

#endif /* FXTPROF_BUILD_ID_PATH_H */
