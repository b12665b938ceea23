/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_writer_internal.h - what repair needs of the writer: to take
 * over a file whose chunks are already written, account those chunks as
 * if it had written them, and then finish it.
 */
#ifndef FXTPROF_ARCHIVE_WRITER_INTERNAL_H
#define FXTPROF_ARCHIVE_WRITER_INTERNAL_H

#include "archive.h"
#include "archive_format.h"

/* A writer that appends to @fd at @end, after @nchunks chunks. */
int arch_writer__resume(struct archive_writer **wp, int fd,
			const struct arch_file_header *h, uint64_t end);
/*
 * Chunk @info, already in the file: into the manifest, and its records
 * (@data, @len bytes, NULL if it cannot be read) into the summaries.
 */
int arch_writer__adopt(struct archive_writer *w,
		       const struct archive_chunk_info *info,
		       const void *data, size_t len);

/* Split FXT bytes into records: the next record's length in bytes and
 * its type, 0 at the end or at a record that does not fit. */
size_t arch_fxt_record(const void *data, size_t len, unsigned int *kind);

#endif /* FXTPROF_ARCHIVE_WRITER_INTERNAL_H */
