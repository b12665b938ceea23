// SPDX-License-Identifier: MIT
/*
 * fxt_blob.c - blob records (type 5): a named chunk of bytes of a blob
 * type, such as 3, a Perfetto TracePacket stream that Perfetto's FXT
 * importer hands to its protobuf reader (fxt-format §1.8).
 *
 *   word 0   [0..3] 5, [4..15] size in words, [16..31] name ref,
 *            [32..46] payload bytes (unpadded), [48..55] blob type
 *   then     the name if inline (padded to 8), the payload (padded to 8)
 */
#include <errno.h>

#include "fxt_internal.h"

static int fxt_size_blob(struct fxt_sref name, unsigned int blob_type,
			 const void *data, size_t len)
{
	size_t name_len = name.ref & 0x8000u ? name.len : 0;

	if (blob_type > 0xff || (len && !data) ||
	    (name_len && !name.str))
		return -EINVAL;
	if (len > FXT_MAX_BLOB_LEN || name_len > FXT_MAX_STRING_LEN ||
	    (name.ref & 0x8000u && (name.ref & 0x7fffu) != name_len))
		return -E2BIG;
	if (name_len && !fxt_utf8_valid(name.str, name_len))
		return -EILSEQ;
	return (int)(1 + FXT_WORDS(name_len) + FXT_WORDS(len));
}

static void fxt_put_blob(uint64_t *buf, size_t words, struct fxt_sref name,
			 unsigned int blob_type, const void *data, size_t len)
{
	uint64_t *p = buf + 1;

	buf[0] = fxt_field(FXT_REC_BLOB, 0, 3) | fxt_field(words, 4, 15) |
		 fxt_field(name.ref, 16, 31) | fxt_field(len, 32, 46) |
		 fxt_field(blob_type, 48, 55);
	if (name.ref & 0x8000u)
		p = fxt_put_stream(p, name.str, name.len);
	fxt_put_stream(p, data, len);
}

int fxt_enc_blob(uint64_t *buf, size_t cap, struct fxt_sref name,
		 unsigned int blob_type, const void *data, size_t len)
{
	int n = fxt_size_blob(name, blob_type, data, len);

	if (n < 0)
		return n;
	if ((size_t)n > cap)
		return -ENOSPC;
	fxt_put_blob(buf, (size_t)n, name, blob_type, data, len);
	return n;
}
