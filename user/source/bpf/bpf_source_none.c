// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_source_none.c - bpf_source.h for builds without libbpf (BPF_SOURCE=0,
 * the lean module-only build, which leaves libbpf, libelf and zlib out):
 * every entry point fails with EOPNOTSUPP and says so, so the record
 * command needs no #ifdef.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpf_source.h"

static int none(struct bpf_source *src)
{
	snprintf(src->msg, sizeof(src->msg), "this fxtprof was built without "
		 "the bpf source (BPF_SOURCE=0): use the module "
		 "(--source module) or a build with libbpf");
	return -EOPNOTSUPP;
}

int bpf_source__open(struct bpf_source *src, const struct bpf_source_opts *opts)
{
	(void)opts;
	memset(src, 0, sizeof(*src));
	return none(src);
}

int bpf_source__configure(struct bpf_source *src,
			  const struct fxtprof_config *cfg)
{
	(void)cfg;
	return none(src);
}

void bpf_source__close(struct bpf_source *src)
{
	(void)src;
}

int bpf_source__fd(const struct bpf_source *src)
{
	(void)src;
	return -1;
}

int bpf_source__start(struct bpf_source *src)
{
	return none(src);
}

int bpf_source__stop(struct bpf_source *src)
{
	(void)src;
	return 0;
}

int bpf_source__flush(struct bpf_source *src)
{
	(void)src;
	return 0;
}

int bpf_source__drain(struct bpf_source *src, fxtprof_rec_cb cb, void *ctx,
		      unsigned int *bad_cpu)
{
	(void)cb;
	(void)ctx;
	*bad_cpu = 0;
	return none(src);
}

void bpf_source__stats(struct bpf_source *src, struct fxtprof_stats *total,
		       FILE *report)
{
	(void)src;
	(void)report;
	memset(total, 0, sizeof(*total));
}

int bpf_source__unwind_load(struct bpf_source *src,
			    struct fxtprof_unwind_table *t)
{
	(void)t;
	return none(src);
}

int bpf_source__unwind_map(struct bpf_source *src,
			   const struct fxtprof_unwind_map *m)
{
	(void)m;
	return none(src);
}

int bpf_source__unwind_unload(struct bpf_source *src, __u32 id)
{
	(void)id;
	return none(src);
}

const char *bpf_source__error(const struct bpf_source *src)
{
	return src->msg;
}

unsigned int bpf_source__nr_sampling(const struct bpf_source *src)
{
	(void)src;
	return 0;
}
