/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmap_rec.h - building FXTPROF_REC_MMAP records, shared by the sources
 * that see executable mappings (the /proc sweep, the perf side-band).
 */
#ifndef FXTPROF_MMAP_REC_H
#define FXTPROF_MMAP_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

/* Room for the largest record: header, FXTPROF_MAX_PATH bytes of name. */
union mmap_rec_buf {
	struct fxtprof_mmap m;
	uint64_t words[(sizeof(struct fxtprof_mmap) + FXTPROF_MAX_PATH) / 8];
};

struct mmap_rec_args {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint64_t time_ns;
	uint16_t flags;			/* FXTPROF_MMAP_INITIAL or 0 */
	const uint8_t *build_id;	/* NULL: none */
	size_t build_id_size;
	const char *name;
	size_t name_len;
};

/* Fill @b from @a (names are cut at FXTPROF_MAX_PATH): the record. */
const struct fxtprof_rec_hdr *mmap_rec__fill(union mmap_rec_buf *b,
					     const struct mmap_rec_args *a);

/*
 * The @i-th place (from 0) to read the file a live mapping of @pid maps
 * from, into @buf: /proc/PID/map_files/START-END (the very file, even
 * deleted or in another mount namespace), @path under /proc/PID/root,
 * @path itself (the last two for an absolute @path only).  False when
 * there is no @i-th.
 */
bool mmap_rec__file_path(const char *proc, uint32_t pid, uint64_t start,
			 uint64_t end, const char *path, unsigned int i,
			 char *buf, size_t len);

/*
 * The build id of the file a live mapping of @pid maps: through
 * /proc/PID/map_files/START-END when it is readable (the very file, even
 * deleted or in another mount namespace), else @path under
 * /proc/PID/root, else @path itself.  Size or -errno.
 */
int mmap_rec__file_build_id(const char *proc, uint32_t pid, uint64_t start,
			    uint64_t end, const char *path, uint8_t *id,
			    size_t cap);

/* Is @a the vDSO's mapping, "[vdso]"? */
bool mmap_rec__is_vdso(const struct mmap_rec_args *a);

/*
 * Give a "[vdso]" mapping the build id of the recorder's own vDSO
 * (vdso_build_id.h), kept in @id (FXTPROF_BUILD_ID_MAX bytes), when it
 * is one like it; any other @a is left as it is.
 */
void mmap_rec__vdso_build_id(struct mmap_rec_args *a, uint8_t *id);

#endif /* FXTPROF_MMAP_REC_H */
