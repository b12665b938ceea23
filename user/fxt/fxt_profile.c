// SPDX-License-Identifier: MIT
/*
 * fxt_profile.c - the readers of fxtprof's vocabulary (fxt_profile.h):
 * its arguments and events found in a decoded record.
 */
#include <linux/fxtprof.h>

#include "fxt_profile.h"

_Static_assert(FXTPROF_USTACK_END_MAX == 9,
	       "a name for every enum fxtprof_ustack_end value");
_Static_assert(FXTPROF_MODE_KERNEL == 1 && FXTPROF_MODE_USER == 2 &&
	       FXTPROF_MODE_IDLE == 3 && FXT_PROFILE_NR_MODES == 4,
	       "the mode names go by FXTPROF_MODE_*");

uint64_t fxt_record__arg_uint_or0(const struct fxt_record *rec,
				  const char *name)
{
	uint64_t v = 0;

	fxt_record__arg_uint(rec, name, &v);
	return v;
}

bool fxt_record__is_event(const struct fxt_record *rec, const char *cat,
			  const char *name)
{
	return rec->type == FXT_REC_EVENT &&
	       fxt_str__is(&rec->event.category, cat) &&
	       fxt_str__is(&rec->event.name, name);
}

bool fxt_record__is_sample(const struct fxt_record *rec)
{
	return rec->subtype == FXT_EVENT_INSTANT &&
	       fxt_record__is_event(rec, FXT_PROFILE_CAT_CPU,
				    FXT_PROFILE_EV_SAMPLE);
}

unsigned int fxt_profile__mode(const struct fxt_str *s)
{
	static const char *const names[FXT_PROFILE_NR_MODES] = {
		FXT_PROFILE_MODE_UNKNOWN, FXT_PROFILE_MODE_KERNEL,
		FXT_PROFILE_MODE_USER, FXT_PROFILE_MODE_IDLE,
	};
	unsigned int i;

	for (i = 1; i < FXT_PROFILE_NR_MODES; i++)
		if (fxt_str__is(s, names[i]))
			return i;
	return 0;
}

static const char *const wait_state_names[FXTPROF_WAIT_MAX] = {
	[FXTPROF_WAIT_PREEMPTED] = FXT_PROFILE_WAIT_PREEMPTED,
	[FXTPROF_WAIT_SLEEPING] = FXT_PROFILE_WAIT_SLEEPING,
	[FXTPROF_WAIT_BLOCKED] = FXT_PROFILE_WAIT_BLOCKED,
	[FXTPROF_WAIT_STOPPED] = FXT_PROFILE_WAIT_STOPPED,
};

const char *fxt_profile__wait_state_name(unsigned int state)
{
	return state < FXTPROF_WAIT_MAX ? wait_state_names[state] : NULL;
}

unsigned int fxt_profile__wait_state(const struct fxt_str *s)
{
	unsigned int i;

	for (i = 1; i < FXTPROF_WAIT_MAX; i++)
		if (fxt_str__is(s, wait_state_names[i]))
			return i;
	return 0;
}

static const char *const ustack_end_names[FXTPROF_USTACK_END_MAX] = {
	[FXTPROF_USTACK_END_NONE] = "none",
	[FXTPROF_USTACK_END_COMPLETE] = "complete",
	[FXTPROF_USTACK_END_FP_CHAIN] = "fp_chain",
	[FXTPROF_USTACK_END_DEPTH] = "depth",
	[FXTPROF_USTACK_END_FAULT] = "fault",
	[FXTPROF_USTACK_END_BUDGET] = "budget",
	[FXTPROF_USTACK_END_BAD_FRAME] = "bad_frame",
	[FXTPROF_USTACK_END_RA_IN_LR] = "ra_in_lr",
	[FXTPROF_USTACK_END_COMPAT] = "compat",
};

const char *fxt_profile__ustack_end_name(unsigned int end)
{
	return end < FXTPROF_USTACK_END_MAX ? ustack_end_names[end] : NULL;
}

bool fxt_profile__ustack_end_is_partial(unsigned int end)
{
	return end > FXTPROF_USTACK_END_FP_CHAIN &&
	       end < FXTPROF_USTACK_END_MAX;
}

unsigned int fxt_profile__ustack_end(const struct fxt_str *s)
{
	unsigned int i;

	for (i = 0; i < FXTPROF_USTACK_END_MAX; i++)
		if (fxt_str__is(s, ustack_end_names[i]))
			return i;
	return FXTPROF_USTACK_END_NONE;
}
