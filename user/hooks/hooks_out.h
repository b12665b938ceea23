/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_out.h - where an annotation goes once it passed the rules: the
 * module's device (out_device.c) or the standalone writer
 * (out_standalone.c), as hooks_mode says.
 */
#ifndef FXTPROF_HOOKS_OUT_H
#define FXTPROF_HOOKS_OUT_H

#include <stdint.h>

#include "hooks_state.h"
#include "hooks_thread.h"

/*
 * @name is 1..FXTPROF_ANNOTATION_NAME_MAX bytes with no NUL, @key
 * follows the kind's rule: the caller made sure.
 */
HIDDEN int out_device__open(void);
HIDDEN void out_device__close(void);
HIDDEN void out_device__emit(unsigned int kind, uint64_t key,
			     const char *name, uint16_t len);
/* FXTPROF_IOC_TRIGGER, opening the device for it if needed: 0/-errno. */
HIDDEN int out_device__trigger(const char *name);

/* Standalone: 0 or -errno, with a message on stderr. */
HIDDEN int out_standalone__open(const char *uri);
/* Flush within the linger time, stop the writer: 0, or -EIO if lost. */
HIDDEN int out_standalone__close(void);
HIDDEN void out_standalone__emit(struct hooks_thread *t, unsigned int kind,
				 uint64_t key, const char *name, uint16_t len);
/* Each thread's ring and name (hooks_thread__set_ops()). */
HIDDEN extern const struct hooks_thread_ops out_standalone_thread_ops;

/* The shared entry point of every annotation that passed the rules. */
static inline void hooks_emit(struct hooks_thread *t, unsigned int kind,
			      uint64_t key, const char *name, uint16_t len)
{
	if (hooks_mode == HOOKS_DEVICE)
		out_device__emit(kind, key, name, len);
	else
		out_standalone__emit(t, kind, key, name, len);
}

#endif /* FXTPROF_HOOKS_OUT_H */
