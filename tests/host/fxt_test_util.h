/* SPDX-License-Identifier: MIT */
/*
 * fxt_test_util.h - helpers shared by the FXT host tests: a growable
 * memory sink for struct fxt_writer and a decode-everything helper.
 */
#ifndef FXT_TEST_UTIL_H
#define FXT_TEST_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt.h"
#include "fxt_reader.h"

struct memsink {
	uint8_t *buf;
	size_t len, cap;
	unsigned int calls;
	int fail_next;		/* return this (once) instead of taking */
};

static inline int memsink_write(void *ctx, const void *rec, size_t len)
{
	struct memsink *m = ctx;

	m->calls++;
	if (m->fail_next) {
		int e = m->fail_next;

		m->fail_next = 0;
		return e;
	}
	if (m->cap - m->len < len) {
		size_t ncap = m->cap ? m->cap * 2 : 4096;
		uint8_t *nb;

		while (ncap - m->len < len)
			ncap *= 2;
		nb = realloc(m->buf, ncap);
		if (!nb)
			return -ENOMEM;
		m->buf = nb;
		m->cap = ncap;
	}
	memcpy(m->buf + m->len, rec, len);
	m->len += len;
	return 0;
}

static inline void memsink_free(struct memsink *m)
{
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

static inline struct fxt_writer *memsink_writer(struct memsink *m,
						uint32_t strtab_size)
{
	struct fxt_writer_opts o = {
		.sz = sizeof(o), .write = memsink_write, .ctx = m,
		.strtab_size = strtab_size,
	};
	struct fxt_writer *w = NULL;

	if (fxt_writer__new(&o, &w))
		return NULL;
	return w;
}

static inline uint64_t word_at(const struct memsink *m, size_t i)
{
	uint64_t w;

	memcpy(&w, m->buf + i * 8, 8);
	return w;
}

#endif /* FXT_TEST_UTIL_H */
