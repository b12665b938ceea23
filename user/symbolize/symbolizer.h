/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbolizer.h - addresses to functions, on elfutils' libdwfl.
 *
 * User frames are named from the ELF file behind their mapping, found by
 * build id under the debug directory, under the board's root (symfs), or
 * at the recorded path, and else asked of the debuginfod servers of
 * DEBUGINFOD_URLS (debuginfod_files.h); a file whose build id differs
 * from the recorded one is never used.  Kernel frames are named from the symbols the stream
 * carries, or from a vmlinux or System.map given on the command line.
 *
 * Lookups are cached per (build id or path, ELF address): one ELF symbol
 * table is read and sorted once per file, and libdwfl is asked for source
 * lines and inline frames only for addresses not seen before.
 *
 * Not thread safe: one symbolizer per thread.  Functions return 0 or
 * -errno.  A frame that cannot be named is not an error: its result says
 * why (enum sym_status) and the symbolizer counts it.
 */
#ifndef FXTPROF_SYMBOLIZER_H
#define FXTPROF_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

#define SYM_MAX_INLINE	8	/* frames one address can expand to */

struct symbolizer;

struct symbolizer_opts {
	const char *debug_dir;	/* NULL: /usr/lib/debug/.build-id */
	const char *symfs;	/* root of the target's files, or NULL */
	const char *vmlinux;	/* kernel symbols from this ELF, or NULL */
	const char *system_map;	/* or from this System.map, or NULL */
	bool lines;		/* source file and line of each frame */
	bool inlines;		/* inline frames as frames of their own */
	bool raw_names;		/* C++ and Rust names as mangled, not demangled */
};

/* The dso of a frame named by a JIT compiler's perf map. */
#define SYM_JIT_DSO	"[jit]"

enum sym_status {
	SYM_OK = 0,		/* named */
	SYM_NO_MAPPING,		/* user address outside every recorded mapping */
	SYM_NO_FILE,		/* no file found for the mapping */
	SYM_BUILD_ID_MISMATCH,	/* a file was found, with another build id */
	SYM_NO_SYMBOL,		/* the file has no symbol at that address */
	SYM_NO_KERNEL,		/* kernel address, no kernel symbols known */
	SYM_BAD_FILE,		/* the file is not a usable ELF */
	SYM__NR,
};

enum sym_kind {
	SYM_KIND_USER = 1,
	SYM_KIND_KERNEL = 2,
};

/* One function frame; an inlined address gives several, innermost first. */
struct sym_frame {
	const char *function;	/* NULL when unknown: print dso+0xoffset */
	const char *file;	/* source file, or NULL */
	uint32_t line;		/* 0 if unknown */
	bool inlined;		/* inlined into the next frame */
};

struct sym_result {
	enum sym_status status;
	enum sym_kind kind;
	const char *dso;	/* file basename, module name, or "[unknown]" */
	const char *dso_path;	/* the recorded path or module name */
	uint64_t rel_pc;	/* the address as an ELF vaddr of dso */
	uint64_t sym_offset;	/* from the start of the function */
	const struct profile_mapping *mapping;	/* user frames, else NULL */
	unsigned int nr_frames;	/* >= 1 */
	struct sym_frame frames[SYM_MAX_INLINE];
};

int symbolizer__new(const struct symbolizer_opts *opts,
		    struct symbolizer **out);
void symbolizer__free(struct symbolizer *s);

/*
 * Name frame i (0 = leaf) of sample smp of profile p.  Frames past the
 * leaf are return addresses: lines are looked up at addr - 1, as perf and
 * addr2line do.  res and the strings in it stay valid until the
 * symbolizer is freed; those that come from p (dso, dso_path, mapping,
 * kernel names from the stream) as long as p too.  The symbolizer
 * remembers p's mappings by address: free it before p, or use a new one
 * for the next profile.
 */
int symbolizer__frame(struct symbolizer *s, const struct profile *p,
		      const struct profile_sample *smp, unsigned int i,
		      struct sym_result *res);

/*
 * Name an ELF address of one file directly: path, with its expected build
 * id (NULL/0: any).  For benchmarks and `fxtprof symbolize --addr`.
 */
int symbolizer__file_addr(struct symbolizer *s, const char *path,
			  const uint8_t *build_id, unsigned int build_id_size,
			  uint64_t vaddr, struct sym_result *res);

/*
 * The runtime ELF file found for mapping m of profile p (by build id, in
 * symfs, at its path: as frames are named), or NULL if none: for an
 * unwinder that reads the file's CFI.  Valid until the symbolizer is
 * freed.
 */
const char *symbolizer__mapping_file(struct symbolizer *s,
				     const struct profile_mapping *m);

/* The frames that could not be named, by reason, since the start. */
struct symbolizer_stats {
	uint64_t lookups;
	uint64_t cache_hits;
	uint64_t by_status[SYM__NR];
	uint64_t files_opened;
};
void symbolizer__stats(const struct symbolizer *s,
		       struct symbolizer_stats *st);
const char *sym_status__name(enum sym_status st);
/* Why a file was not used, with its path, for the report's notes. */
void symbolizer__print_problems(const struct symbolizer *s, void *stream);

#endif /* FXTPROF_SYMBOLIZER_H */
