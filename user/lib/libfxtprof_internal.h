/* SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause) */
/*
 * libfxtprof_internal.h - libfxtprof internals shared by its .c files.
 * Not installed, not included by users of the library.
 */
#ifndef LIBFXTPROF_INTERNAL_H
#define LIBFXTPROF_INTERNAL_H

#include <errno.h>
#include <libfxtprof.h>

/*
 * Barriers named like the kernel's so the userspace half of the protocol
 * reads like the kernel half it pairs with.  These are the C11 memory
 * model's acquire/release (GCC/Clang __atomic builtins, which work on the
 * plain __u64 fields of the uapi structs; <stdatomic.h> would need
 * _Atomic types there).  On x86 both are plain moves plus a compiler
 * barrier; on arm64 LDAR/STLR.
 */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#define fxt_likely(x)		__builtin_expect(!!(x), 1)
#define fxt_unlikely(x)		__builtin_expect(!!(x), 0)

static inline int fxt_is_pow2(__u64 x)
{
	return x && !(x & (x - 1));
}

/* Size of the smallest valid record of @type, 0 if the type is unknown. */
static inline __u32 fxt_rec_min_size(__u16 type)
{
	switch (type) {
	case FXTPROF_REC_SAMPLE:	return sizeof(struct fxtprof_sample);
	case FXTPROF_REC_FORK:		return sizeof(struct fxtprof_fork);
	case FXTPROF_REC_EXEC:		return sizeof(struct fxtprof_exec);
	case FXTPROF_REC_EXIT:		return sizeof(struct fxtprof_exit);
	case FXTPROF_REC_RENAME:	return sizeof(struct fxtprof_rename);
	case FXTPROF_REC_SNAPSHOT:	return sizeof(struct fxtprof_snapshot);
	case FXTPROF_REC_LOST:		return sizeof(struct fxtprof_lost);
	case FXTPROF_REC_FLUSH:		return sizeof(struct fxtprof_flush_rec);
	case FXTPROF_REC_SWITCH:	return sizeof(struct fxtprof_switch);
	case FXTPROF_REC_WAKEUP:	return sizeof(struct fxtprof_wakeup);
	case FXTPROF_REC_TRIGGER:	return sizeof(struct fxtprof_trigger_rec);
	case FXTPROF_REC_ANNOTATION:
		return sizeof(struct fxtprof_annotation_rec);
	case FXTPROF_REC_OFFCPU:
		return sizeof(struct fxtprof_sample) +
		       sizeof(struct fxtprof_offcpu);
	}
	return 0;
}

#endif /* LIBFXTPROF_INTERNAL_H */
