/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mem_readback.h - reading a memory sink's FXT back in the pipeline's
 * host tests: a string's index, and the raw words of the nth record of a
 * type, to compare word by word with ASSERT_WORDS().  Include it after
 * kselftest_harness.h, fxt_reader.h and mem_sink.h.
 */
#ifndef FXTPROF_TESTS_MEM_READBACK_H
#define FXTPROF_TESTS_MEM_READBACK_H

#include <stdint.h>
#include <string.h>

/* The string index of @name in the stream, 0 if it has none. */
static inline uint16_t mem_string_index(const struct mem *m, const char *name)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	uint16_t idx = 0;

	if (fxt_reader__new(0, &rd))
		return 0;
	fxt_reader__feed(rd, m->buf, m->len);
	while (fxt_reader__next(rd, &rec) > 0)
		if (rec.type == FXT_REC_STRING &&
		    rec.string.str.len == strlen(name) &&
		    !memcmp(rec.string.str.data, name, rec.string.str.len))
			idx = rec.string.index;
	fxt_reader__free(rd);
	return idx;
}

/* The raw words of the @nth record of FXT type @type, into @w; its size. */
static inline unsigned int mem_record_words(const struct mem *m,
					    unsigned int type,
					    unsigned int nth, uint64_t *w)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int n = 0, size = 0;

	if (fxt_reader__new(0, &rd))
		return 0;
	fxt_reader__feed(rd, m->buf, m->len);
	while (fxt_reader__next(rd, &rec) > 0) {
		if (rec.type != type || n++ != nth)
			continue;
		size = rec.size;
		memcpy(w, rec.words, 8 * size);
		break;
	}
	fxt_reader__free(rd);
	return size;
}

#define ASSERT_WORDS(got, n, ...) do {					\
	const uint64_t exp_[] = { __VA_ARGS__ };			\
	ASSERT_EQ(sizeof(exp_) / 8, (n));				\
	for (size_t i_ = 0; i_ < (n); i_++) {				\
		if ((got)[i_] != exp_[i_])				\
			TH_LOG("word %zu: got 0x%016llx want 0x%016llx", \
			       i_, (unsigned long long)(got)[i_],	\
			       (unsigned long long)exp_[i_]);		\
		ASSERT_EQ(exp_[i_], (got)[i_]);				\
	}								\
} while (0)

#endif /* FXTPROF_TESTS_MEM_READBACK_H */
