// SPDX-License-Identifier: GPL-2.0-only
/*
 * framer.c - see framer.h.
 *
 * Bytes are looked at once: a record's header is gathered (it may come in
 * pieces), checked, and then its payload is skipped by count.  Nothing is
 * buffered, so a peer that claims a huge record costs nothing but the
 * error.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "framer.h"
#include "fxt/fxt.h"

void framer__init(struct framer *f, uint64_t max_record)
{
	memset(f, 0, sizeof(*f));
	f->max_record = max_record ? max_record : FRAMER_DEFAULT_MAX_RECORD;
}

__attribute__((format(printf, 3, 4)))
static void framer_fail(struct framer *f, const char *rule, const char *fmt,
			...)
{
	va_list ap;

	f->rule = rule;
	f->err_offset = f->offset;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
}

/* The header is whole: check it and learn how long the record is. */
static bool framer_header(struct framer *f)
{
	uint64_t h = f->hdr, words;

	if (f->offset == 0 && h != FXT_MAGIC) {
		framer_fail(f, "magic-missing",
			    "the stream opens with 0x%016" PRIx64
			    ", not the FXT magic record", h);
		return false;
	}
	words = (h & 0xf) == FXT_REC_LARGE ? (h >> 4) & 0xffffffffull
					   : (h >> 4) & 0xfffull;
	if (!words) {
		framer_fail(f, "record-size-zero",
			    "record header 0x%016" PRIx64 " has size 0", h);
		return false;
	}
	if (words > f->max_record / 8) {
		framer_fail(f, "record-too-large",
			    "a record of %" PRIu64 " bytes, the limit is %" PRIu64,
			    words * 8, f->max_record);
		return false;
	}
	f->left = words * 8 - 8;
	return true;
}

/* The record is whole: count it. */
static void framer_record(struct framer *f)
{
	uint64_t h = f->hdr;

	f->records++;
	if ((h & 0xf) == FXT_REC_METADATA &&
	    ((h >> 16) & 0xf) == FXT_META_PROVIDER_EVENT &&
	    ((h >> 52) & 0xf) == FXT_PROVIDER_EVENT_BUFFER_OVERFLOW)
		f->gaps++;
	f->hdr_len = 0;
}

size_t framer__feed(struct framer *f, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t pos = 0;

	if (framer__failed(f))
		return 0;
	while (pos < len) {
		if (f->hdr_len < 8) {
			size_t k = 8 - f->hdr_len;
			uint64_t start = f->offset - f->hdr_len;

			if (k > len - pos)
				k = len - pos;
			memcpy((unsigned char *)&f->hdr + f->hdr_len, p + pos, k);
			f->hdr_len += (unsigned int)k;
			if (f->hdr_len < 8) {
				f->offset += k;
				pos += k;
				break;
			}
			/* Judge the header as of its first byte. */
			f->offset = start;
			/* Nothing from the bad header on is taken (a part
			 * of it from an earlier feed, pos is 0, was). */
			if (!framer_header(f))
				return pos;
			f->offset = start + 8;
			pos += k;
		} else {
			size_t k = f->left < len - pos ? (size_t)f->left
						       : len - pos;

			f->left -= k;
			f->offset += k;
			pos += k;
		}
		if (f->hdr_len == 8 && !f->left) {
			framer_record(f);
			f->boundary = f->offset;
		}
	}
	return pos;
}
