// SPDX-License-Identifier: GPL-2.0-only
/*
 * export_stack.c - a sample's frames, named, for the exporters
 * (export_stack.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fxtprof.h>

#include "export_stack.h"

void export_stack__release(struct export_stack *st)
{
	free(st->res);
	st->res = NULL;
	st->n = st->cap = 0;
}

int export_stack__symbolize(struct export_stack *st, struct symbolizer *s,
			    const struct profile *p,
			    const struct profile_sample *smp,
			    struct export_stats *stats)
{
	size_t n = (size_t)smp->nr_kernel + smp->nr_user;

	st->n = 0;
	if (n > st->cap) {
		struct sym_result *r = realloc(st->res, n * sizeof(*r));

		if (!r)
			return -ENOMEM;
		st->res = r;
		st->cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct sym_result *r = &st->res[i];
		int err = symbolizer__frame(s, p, smp, (unsigned int)i, r);

		if (err)
			return err;
		if (!r->nr_frames) {
			/* Never by contract; one frame keeps the outputs whole. */
			r->nr_frames = 1;
			r->frames[0].function = NULL;
		}
		if (r->nr_frames > SYM_MAX_INLINE)
			r->nr_frames = SYM_MAX_INLINE;
		stats->frames++;
		if (r->status != SYM_OK || !r->frames[0].function) {
			stats->unresolved++;
			stats->by_status[r->status < SYM__NR ? r->status :
					 SYM_NO_SYMBOL]++;
		}
	}
	st->n = n;
	stats->samples++;
	return 0;
}

const char *export_frame_name(const struct sym_result *r, unsigned int j,
			      char *buf, size_t len)
{
	if (j < r->nr_frames && r->frames[j].function)
		return r->frames[j].function;
	/* Another build of the file: its offsets would mislead. */
	if (r->status == SYM_BUILD_ID_MISMATCH)
		return "[unknown]";
	snprintf(buf, len, "%s+0x%" PRIx64, r->dso ? r->dso : "[unknown]",
		 r->rel_pc);
	return buf;
}
