/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buildid_archive.h - the files a recording's mappings name, collected by
 * build id into a tar, as `perf archive` does: run where the recording
 * was made (the board), so that the host can name its frames.
 *
 * Each file goes in as .build-id/xx/yyyy (xx the build id's first byte in
 * hex, yyyy the rest), a plain file: extracted into DIR, `debuginfod -F
 * DIR` serves it by its build id, and `--debug-dir DIR/.build-id` finds it
 * (the symbolizer tries <debug-dir>/xx/yyyy.debug, then xx/yyyy).
 *
 * A file is archived only if its build id is, now, the one recorded: a
 * file rebuilt or upgraded since the recording would name frames wrongly,
 * so it is skipped and named.  Only build ids are read from the files
 * (their ELF notes, user/source/elf_build_id.h): no libelf or libdw, so
 * this builds into the board's static fxtprof.
 */
#ifndef FXTPROF_BUILDID_ARCHIVE_H
#define FXTPROF_BUILDID_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* The longest build id read from a file (SHA-1's is 20 bytes). */
#define BUILDID_ARCHIVE_ID_MAX	64

struct profile;

struct buildid_archive_stats {
	unsigned int files;		/* archived */
	uint64_t bytes;			/* their sizes */
	unsigned int changed;		/* skipped: another build id now */
	unsigned int unreadable;	/* skipped: missing, unreadable, not ELF */
	unsigned int no_build_id;	/* mappings recorded without one */
};

/*
 * Why a file was skipped: its recorded path, -errno (0 when no call
 * failed: its build id changed) and a sentence.
 */
typedef void buildid_archive_note_fn(void *ctx, const char *path, int err,
				     const char *why);

/*
 * Write the tar of p's mapped files to fd.  0, or -errno when the archive
 * could not be written (it is then incomplete); files skipped are not an
 * error of the call: they are counted in *st and given to note.  Mappings
 * without a build id and pseudo-files ("[vdso]") have nothing to file
 * them under and are counted only.
 */
int buildid_archive__write(const struct profile *p, int fd,
			   buildid_archive_note_fn *note, void *ctx,
			   struct buildid_archive_stats *st);

/* The entry name of a build id: ".build-id/xx/yyyy" into buf. */
void buildid_archive__entry_name(const uint8_t *id, unsigned int n,
				 char *buf, size_t size);

#endif /* FXTPROF_BUILDID_ARCHIVE_H */
