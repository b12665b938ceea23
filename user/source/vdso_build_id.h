/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vdso_build_id.h - the build id of the recorder's own vDSO, for the
 * "[vdso]" mappings of the processes it records.
 *
 * A vDSO is no file: neither the kernel's MMAP2 records nor a /proc sweep
 * can give its build id.  Every process of one ABI on one kernel maps the
 * same image, so the recorder's own stands for theirs, as perf assumes; a
 * mapping of another length (a 32-bit process's vDSO) is not given it.
 * With the build id a symbolizer can find the image: in a debug
 * directory (Debian's linux-image-*-dbg ships the vDSO's), or its own
 * vDSO when it runs on the same kernel (user/symbolize/own_vdso.h).
 */
#ifndef FXTPROF_VDSO_BUILD_ID_H
#define FXTPROF_VDSO_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/*
 * The build id of this process's vDSO if a "[vdso]" mapping of @len
 * bytes is one like it: its size (1..@cap), -ENOENT if this process has
 * no vDSO or the vDSO no build id, -ERANGE if @len is another length.
 * The answer is worked out once and kept.
 */
int vdso_build_id__get(uint64_t len, uint8_t *id, size_t cap);

#endif /* FXTPROF_VDSO_BUILD_ID_H */
