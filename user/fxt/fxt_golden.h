/* SPDX-License-Identifier: MIT */
/*
 * fxt_golden.h - one-call encoders of the records the library writes only
 * through struct fxt_writer (fxt.h): only tests/host/test_fxt_encode.c
 * calls them, to hold each record's words against the FXT spec's golden
 * examples.  Not installed; the library's users include fxt.h.  They
 * return the words written (> 0) or -errno as fxt.h's fxt_enc_*() do.
 */
#ifndef FXT_GOLDEN_H
#define FXT_GOLDEN_H

#include "fxt.h"

int fxt_enc_magic(uint64_t *buf, size_t cap);
int fxt_enc_provider_info(uint64_t *buf, size_t cap, uint32_t provider_id,
			  const char *name, size_t len);
int fxt_enc_provider_section(uint64_t *buf, size_t cap, uint32_t provider_id);
int fxt_enc_provider_event(uint64_t *buf, size_t cap, uint32_t provider_id,
			   unsigned int event_id);
int fxt_enc_init(uint64_t *buf, size_t cap, uint64_t ticks_per_sec);
int fxt_enc_thread(uint64_t *buf, size_t cap, uint8_t index,
		   uint64_t pid, uint64_t tid);
int fxt_enc_kobj(uint64_t *buf, size_t cap, uint8_t obj_type, uint64_t koid,
		 struct fxt_sref name, const struct fxt_arg *args,
		 unsigned int nargs);
/* Large blob, format 0 (with metadata). */
int fxt_enc_large_blob(uint64_t *buf, size_t cap, uint64_t ts,
		       const struct fxt_tref *thread, struct fxt_sref category,
		       struct fxt_sref name, const struct fxt_arg *args,
		       unsigned int nargs, const void *data, size_t len);

#endif /* FXT_GOLDEN_H */
