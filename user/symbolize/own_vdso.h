/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * own_vdso.h - this process's vDSO as a file the symbolizer can open.
 *
 * A "[vdso]" mapping is no file, but the recorder gives it the build id
 * of its own vDSO (user/source/vdso_build_id.h).  A trace symbolized on
 * the kernel that recorded it names those frames from the symbolizer's
 * own vDSO, which then has the same build id: the image is copied once
 * into a memfd, opened through /proc/self/fd like any file.
 */
#ifndef FXTPROF_SYMBOLIZE_OWN_VDSO_H
#define FXTPROF_SYMBOLIZE_OWN_VDSO_H

/*
 * The path of the copy, made on the first call and kept open for the
 * life of the process; NULL if this process has no vDSO or the copy
 * failed (errno says why).
 */
const char *own_vdso__path(void);

#endif /* FXTPROF_SYMBOLIZE_OWN_VDSO_H */
