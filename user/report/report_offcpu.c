// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_offcpu.c - see report_offcpu.h.
 */
#include <errno.h>
#include <stdio.h>

#include "report_offcpu.h"

int rt_offcpu__frames(const struct profile_sample *w,
		      rt_annot_intern_fn intern, void *ctx, uint32_t *root,
		      uint32_t *leaf)
{
	const char *state = profile__wait_state_name(w->wait_state);
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "off-cpu: %s", state ? state : "unknown");
	ret = intern(ctx, name, RT_OFFCPU_DSO, root);
	*leaf = 0;
	if (ret || !w->waker_tid)
		return ret;
	if (w->waker)
		snprintf(name, sizeof(name), "woken by %s", w->waker);
	else
		snprintf(name, sizeof(name), "woken by :%u", w->waker_tid);
	ret = intern(ctx, name, RT_OFFCPU_DSO, leaf);
	if (!ret)
		(*leaf)++;
	return ret;
}
