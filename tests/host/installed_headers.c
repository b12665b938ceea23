// SPDX-License-Identifier: GPL-2.0-only
/*
 * installed_headers.c - a program outside the tree, built against what
 * `make install` lays down and nothing else (tests/host/installed_headers.sh
 * compiles it).  It touches both headers and links the library; exit 0
 * means every call answered as documented.
 */
#include <errno.h>
#include <string.h>
#include <libfxtprof.h>
#include <linux/fxtprof.h>

int main(void)
{
	struct fxtprof_flush_rec rec;
	struct fxtprof_dev *dev = NULL;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.size = sizeof(rec);
	rec.hdr.type = FXTPROF_REC_FLUSH;
	if (fxtprof_rec__validate(&rec.hdr, sizeof(rec)))
		return 1;
	if (fxtprof_rec__validate(&rec.hdr, sizeof(rec) - 8) != -EPROTO)
		return 2;
	if (fxtprof_dev__open("/nonexistent/fxtprof", &dev) != -ENOENT || dev)
		return 3;
	return 0;
}
