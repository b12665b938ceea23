// SPDX-License-Identifier: MIT
/*
 * build_id_path.c - see build_id_path.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "build_id_path.h"

int build_id_path(char *buf, size_t n, const char *dir, const uint8_t *id,
		  size_t len, const char *suffix)
{
	char hex[2 * BUILD_ID_PATH_MAX_ID + 1];
	int w;

	if (len < 2 || len > BUILD_ID_PATH_MAX_ID)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	w = snprintf(buf, n, "%s%s.build-id/%.2s/%s%s", dir ? dir : "",
		     dir && *dir ? "/" : "", hex, hex + 2,
		     suffix ? suffix : "");
	if (w < 0 || (size_t)w >= n)
		return -ENAMETOOLONG;
	return w;
}

int build_id_path_make_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			int err = -errno;

			*slash = '/';
			return err;
		}
		*slash = '/';
	}
	return 0;
}
