/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_build_id.h - the GNU build id of an ELF file or of a block of ELF
 * notes (/sys/kernel/notes, /sys/module/NAME/notes/.note.gnu.build-id).
 *
 * A build id is the descriptor of the note named "GNU" of type
 * NT_GNU_BUILD_ID (3); it is usually 20 bytes (SHA-1).  Files are read
 * with pread(), never mapped: a file that shrinks under us must not fault.
 */
#ifndef FXTPROF_ELF_BUILD_ID_H
#define FXTPROF_ELF_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/*
 * Find the build id in @len bytes of notes.  Its size (1..@cap), or
 * -ENOENT if there is none, -EINVAL if the notes are malformed.
 */
int elf_build_id__from_notes(const void *notes, size_t len, uint8_t *id,
			     size_t cap);

/*
 * The build id of the ELF file open on @fd, from its PT_NOTE segments or,
 * failing that, its SHT_NOTE sections.  Size or -errno (-ENOEXEC: not
 * ELF; -ENOENT: no build id).
 */
int elf_build_id__from_fd(int fd, uint8_t *id, size_t cap);

/* The same by path: -errno of open() too. */
int elf_build_id__from_path(const char *path, uint8_t *id, size_t cap);

/* The build id of a whole notes file (sysfs): size or -errno. */
int elf_build_id__from_notes_file(const char *path, uint8_t *id, size_t cap);

#endif /* FXTPROF_ELF_BUILD_ID_H */
