// SPDX-License-Identifier: MIT
/*
 * fxt_utf8.c - UTF-8 validation and sanitizing.
 *
 * Strict readers reject invalid UTF-8 in FXT strings, and Linux comm and
 * file names are arbitrary bytes, so everything we did not write ourselves
 * goes through fxt_utf8_sanitize().  Well-formedness follows Unicode
 * table 3-7 (no overlongs, no surrogates, nothing above U+10FFFF), and a
 * bad sequence is replaced per "maximal subpart" (Unicode 3.9 / WHATWG),
 * which is what most decoders do, so our output matches theirs.
 */
#include <string.h>

#include "fxt_internal.h"

/*
 * Length of the well-formed sequence at s[0..n), or 0 if ill-formed; on 0,
 * *bad is the length of the maximal subpart to replace (>= 1).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

bool fxt_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, bad;

	while (i < len) {
		size_t n;

		/* ASCII fast path, one word at a time */
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_seq(s + i, len - i, &bad);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

size_t fxt_utf8_sanitize(char *dst, size_t dst_cap, const char *src,
			 size_t len)
{
	static const char repl[3] = { (char)0xef, (char)0xbf, (char)0xbd };
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0, bad;

	while (i < len) {
		size_t n = utf8_seq(s + i, len - i, &bad);

		if (n) {
			if (o + n > dst_cap)
				break;
			memcpy(dst + o, s + i, n);
			o += n;
			i += n;
		} else {
			if (o + 3 > dst_cap)
				break;
			memcpy(dst + o, repl, 3);
			o += 3;
			i += bad;
		}
	}
	return o;
}
