/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel_info.h - the running kernel's images and text symbols, as a
 * symbolizer on another machine needs them: the kernel image's range
 * (_stext.._etext) and build id, every loaded module's range and build id,
 * and a sorted table of the text symbols of /proc/kallsyms.
 *
 * The table is loaded once, at the start of a recording, by a reader
 * whose source cannot name kernel addresses itself (FXTPROF_IOC_KSYM).  kallsyms gives
 * no sizes: a symbol runs to the next one, bounded by the end of its image
 * (the kernel's _etext, its module's core range) and by KSYM_MAX_SIZE.
 * When kptr_restrict hides the addresses (all zeros) the table stays
 * empty and kernel_info.restricted says so.
 */
#ifndef FXTPROF_KERNEL_INFO_H
#define FXTPROF_KERNEL_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

#define KSYM_MAX_SIZE	(1u << 20)

struct ksym_entry {
	uint64_t addr;
	uint32_t size;
	uint32_t name_off;	/* into kernel_info.names, NUL terminated */
};

struct kmod_entry {
	uint64_t start, end;
	char name[64];
};

struct kernel_info {
	struct ksym_entry *syms;	/* sorted by addr, distinct addrs */
	size_t nsyms, syms_cap;
	char *names;
	size_t names_len, names_cap;
	struct kmod_entry *mods;
	size_t nmods;
	uint64_t stext, etext;
	bool restricted;		/* kallsyms showed zeros */
};

/*
 * Load /proc/kallsyms and /proc/modules (or the files under @root, for
 * tests: ROOT/proc/kallsyms, ROOT/proc/modules; NULL = /): the images,
 * and with @symbols the symbol table (without, kallsyms is read for
 * _stext and _etext and nothing of it is kept).  0 or -errno; a
 * restricted kallsyms is not an error.
 */
int kernel_info__load(struct kernel_info *ki, const char *root,
		      bool symbols);
void kernel_info__fini(struct kernel_info *ki);
/* The bytes @ki holds. */
size_t kernel_info__bytes(const struct kernel_info *ki);

/* The symbol whose range holds @ip, or NULL. */
const struct ksym_entry *kernel_info__lookup(const struct kernel_info *ki,
					     uint64_t ip);

static inline const char *kernel_info__name(const struct kernel_info *ki,
					    const struct ksym_entry *e)
{
	return ki->names + e->name_off;
}

/*
 * Hand a KMOD record for the kernel image and one per module to @cb, time
 * stamped @ts.  Build ids come from /sys/kernel/notes and
 * /sys/module/NAME/notes/.note.gnu.build-id under @root.  Returns the
 * number of records written, or -errno.
 */
int kernel_info__write_kmods(const struct kernel_info *ki, const char *root,
			     uint64_t ts, fxtprof_rec_cb cb, void *ctx);

#endif /* FXTPROF_KERNEL_INFO_H */
