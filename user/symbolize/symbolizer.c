// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbolizer.c - find the file behind a mapping, turn an address into an
 * ELF address of that file, and name it from a sorted symbol table, with
 * every answer cached per (object, address).
 *
 * An object is one file as the recording knows it: its build id, or its
 * path when the recording has no build id.  It is searched for once, on
 * first use, and keeps its result (the files used, or why none was).
 * Candidates, in order: <debug_dir>/xx/rest.debug and <debug_dir>/xx/rest
 * for build id xxrest, the same under <debug_dir>/.build-id/,
 * <symfs>/<path>, <path>, then debuginfod (the executable, else the
 * debug file).  A file with another build id is never used, wherever it
 * comes from; a debug-only file (objcopy --only-keep-debug) gives
 * symbols and DWARF but takes its segment offsets from the runtime file
 * when one is found too.  A file without .symtab is completed by its
 * debug file, found by build id, by .gnu_debuglink, or from debuginfod.
 * A user address in no file's mapping (anonymous memory, or none) is
 * named by the process's JIT functions (its /tmp/perf-PID.map) if the
 * recording lists one there.
 */
#include "symbolize/symbolizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debuginfod_files.h"
#include "symbolize/demangle.h"
#include "symbolize/dwarf_frames.h"
#include "symbolize/elf_image.h"
#include "symbolize/kernel_syms.h"
#include "symbolize/own_vdso.h"
#include "symbolize/sym_cache.h"
#include "util/build_id_path.h"
#include "util/hmap.h"

#define DEFAULT_DEBUG_DIR	"/usr/lib/debug/.build-id"
#define DEBUGLINK_GLOBAL_DIR	"/usr/lib/debug"
/* The page size the mappings were cut with: x86_64 and Debian arm64. */
#define MAP_PAGE_SIZE		4096ull

struct sym_object {
	char *key;			/* build id in hex, or the path */
	char *path;			/* the recorded path */
	uint8_t want_id[PROFILE_BUILD_ID_MAX];
	unsigned int want_id_size;
	enum sym_status status;		/* OK, NO_FILE, BUILD_ID_MISMATCH, BAD_FILE */
	struct elf_image *main;		/* symbols; maybe a debug-only file */
	struct elf_image *extra;	/* runtime file or debug companion */
	const struct elf_image *loads;	/* whose PT_LOADs map offsets */
	struct sym_table syms;
	const char *dwarf_path;		/* file with DWARF, or NULL */
	struct dwarf_frames *dwarf;
	bool dwarf_tried;
	/*
	 * The only debug file offered (by debuginfod) had another build id:
	 * the addresses that only it could name are mismatches, not
	 * merely symbols missing.
	 */
	bool companion_mismatch;
	struct sym_object *next;
};

struct sym_problem {
	enum sym_status status;
	char *path;
	int err;			/* BAD_FILE: why */
	uint8_t want_id[PROFILE_BUILD_ID_MAX];
	unsigned int want_id_size;
	uint8_t got_id[ELF_IMAGE_BUILD_ID_MAX];
	unsigned int got_id_size;
	struct sym_problem *next;
};

/* What the kernel symbols of one profile need: found once per profile. */
struct kernel_view {
	const struct profile *p;
	uint64_t slide;
	bool mismatch;
};

struct symbolizer {
	char *debug_dir, *symfs;
	bool lines, inlines, raw_names;
	struct demangler demangler;
	struct sym_object *objects;
	struct sym_object *last_obj;	/* symbolizer__file_addr's last */
	struct hmap maps;		/* mapping -> the object serving it */
	const struct profile_mapping *last_m;
	struct sym_object *last_m_obj;
	struct sym_cache cache;
	struct kernel_syms *ksyms;	/* vmlinux or System.map, or NULL */
	struct kernel_view kview;
	struct sym_problem *problems, **problems_tail;
	struct sym_debuginfod *debuginfod;	/* NULL: none, or not yet */
	bool debuginfod_tried;
	struct symbolizer_stats stats;
};

static const char *const status_names[SYM__NR] = {
	[SYM_OK] = "ok",
	[SYM_NO_MAPPING] = "no mapping",
	[SYM_NO_FILE] = "no file",
	[SYM_BUILD_ID_MISMATCH] = "build id mismatch",
	[SYM_NO_SYMBOL] = "no symbol",
	[SYM_NO_KERNEL] = "no kernel symbols",
	[SYM_BAD_FILE] = "bad file",
};

const char *sym_status__name(enum sym_status st)
{
	return (unsigned int)st < SYM__NR ? status_names[st] : "?";
}

static void hex(char *out, const uint8_t *id, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* ---- creation ------------------------------------------------------ */

int symbolizer__new(const struct symbolizer_opts *opts,
		    struct symbolizer **out)
{
	static const struct symbolizer_opts none;
	struct symbolizer *s;
	int err = -ENOMEM;

	*out = NULL;
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->problems_tail = &s->problems;
	s->lines = opts->lines;
	s->inlines = opts->inlines;
	s->raw_names = opts->raw_names;
	s->debug_dir = strdup(opts->debug_dir ? opts->debug_dir :
			      DEFAULT_DEBUG_DIR);
	if (!s->debug_dir)
		goto free_s;
	if (opts->symfs && opts->symfs[0]) {
		s->symfs = strdup(opts->symfs);
		if (!s->symfs)
			goto free_s;
	}
	if (opts->vmlinux)
		err = kernel_syms__load_vmlinux(opts->vmlinux, &s->ksyms);
	else if (opts->system_map)
		err = kernel_syms__load_system_map(opts->system_map, &s->ksyms);
	else
		err = 0;
	if (err)
		goto free_s;
	*out = s;
	return 0;

free_s:
	symbolizer__free(s);
	return err;
}

static void object__free(struct sym_object *o)
{
	dwarf_frames__free(o->dwarf);
	sym_table__release(&o->syms);
	elf_image__free(o->main);
	elf_image__free(o->extra);
	free(o->key);
	free(o->path);
	free(o);
}

void symbolizer__free(struct symbolizer *s)
{
	struct sym_object *o, *on;
	struct sym_problem *pr, *pn;

	if (!s)
		return;
	demangler__release(&s->demangler);
	for (o = s->objects; o; o = on) {
		on = o->next;
		object__free(o);
	}
	for (pr = s->problems; pr; pr = pn) {
		pn = pr->next;
		free(pr->path);
		free(pr);
	}
	sym_cache__release(&s->cache);
	kernel_syms__free(s->ksyms);
	hmap__free(&s->maps);
	sym_debuginfod__free(s->debuginfod);
	free(s->debug_dir);
	free(s->symfs);
	free(s);
}

/* ---- finding files ------------------------------------------------- */

static void add_problem(struct symbolizer *s, enum sym_status st,
			const char *path, int err, const struct sym_object *o,
			const struct elf_image *img)
{
	struct sym_problem *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return;		/* the note is lost, the result stays right */
	pr->path = strdup(path);
	if (!pr->path) {
		free(pr);
		return;
	}
	pr->status = st;
	pr->err = err;
	if (o) {
		memcpy(pr->want_id, o->want_id, o->want_id_size);
		pr->want_id_size = o->want_id_size;
	}
	if (img) {
		memcpy(pr->got_id, img->build_id, img->build_id_size);
		pr->got_id_size = img->build_id_size;
	}
	*s->problems_tail = pr;
	s->problems_tail = &pr->next;
}

static bool same_id(const uint8_t *a, unsigned int an, const uint8_t *b,
		    unsigned int bn)
{
	return an == bn && (!an || !memcmp(a, b, an));
}

/*
 * Open one candidate.  NULL when it is absent, unusable (noted as
 * BAD_FILE) or has another build id than want (noted as a mismatch); a
 * file without a build id cannot prove it is the one and counts as a
 * mismatch when one is wanted.
 */
static struct elf_image *try_file(struct symbolizer *s, struct sym_object *o,
				  const char *path, const uint8_t *want,
				  unsigned int want_size, bool note,
				  enum sym_status *worst)
{
	struct elf_image *img;
	int err;

	err = elf_image__open(path, &img);
	if (err == -ENOENT || err == -ENOTDIR || err == -ENAMETOOLONG)
		return NULL;
	if (err == -ENOMEM)
		return NULL;
	s->stats.files_opened++;
	if (err) {
		if (note) {
			add_problem(s, SYM_BAD_FILE, path, err, o, NULL);
			if (*worst != SYM_BUILD_ID_MISMATCH)
				*worst = SYM_BAD_FILE;
		}
		return NULL;
	}
	if (want_size && !same_id(img->build_id, img->build_id_size, want,
				  want_size)) {
		if (note) {
			add_problem(s, SYM_BUILD_ID_MISMATCH, path, 0, o, img);
			*worst = SYM_BUILD_ID_MISMATCH;
		}
		elf_image__free(img);
		return NULL;
	}
	return img;
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%s%s", a, b, c);
	return p;
}

/*
 * <debug_dir>/xx/rest.debug, then <debug_dir>/xx/rest (debug_dir is a
 * .build-id directory, as /usr/lib/debug/.build-id), then the same under
 * <debug_dir>/.build-id/ (debug_dir holds one, as `record --collect`
 * and `debuginfod -F` trees do: util/build_id_path.h).
 */
static struct elf_image *try_build_id_dir(struct symbolizer *s,
					  struct sym_object *o,
					  const uint8_t *id, unsigned int n,
					  bool note, enum sym_status *worst)
{
	char hexid[2 * ELF_IMAGE_BUILD_ID_MAX + 1], *path;
	struct elf_image *img = NULL;
	int pass;

	if (n < 2)
		return NULL;
	hex(hexid, id, n);
	for (pass = 0; pass < 4 && !img; pass++) {
		size_t len = strlen(s->debug_dir) + 2 * n + 32;
		const char *suffix = pass % 2 == 0 ? ".debug" : "";

		path = malloc(len);
		if (!path)
			return NULL;
		if (pass < 2)
			snprintf(path, len, "%s/%.2s/%s%s", s->debug_dir,
				 hexid, hexid + 2, suffix);
		else if (build_id_path(path, len, s->debug_dir, id, n,
				       suffix) < 0)
			path[0] = '\0';
		if (path[0])
			img = try_file(s, o, path, id, n, note, worst);
		free(path);
	}
	return img;
}

/*
 * The debug file that .gnu_debuglink names, in elfutils' default places:
 * the file's directory, its .debug/, /usr/lib/debug/<directory>.  It
 * must carry the same build id as the file that names it.
 */
static struct elf_image *try_debuglink(struct symbolizer *s,
				       const struct elf_image *img,
				       const char *recorded)
{
	const char *slash = strrchr(img->path, '/');
	const char *rslash = strrchr(recorded, '/');
	struct elf_image *dbg = NULL;
	enum sym_status ignored = SYM_OK;
	char *dir, *rdir, *path;
	int i;

	if (!img->debuglink || strchr(img->debuglink, '/') || !slash)
		return NULL;
	dir = strndup(img->path, slash - img->path + 1);
	rdir = rslash ? strndup(recorded, rslash - recorded + 1) : strdup("/");
	for (i = 0; i < 3 && !dbg && dir && rdir; i++) {
		if (i == 0)
			path = join(dir, "", img->debuglink);
		else if (i == 1)
			path = join(dir, ".debug/", img->debuglink);
		else
			path = join(DEBUGLINK_GLOBAL_DIR, rdir, img->debuglink);
		if (!path)
			break;
		if (strcmp(path, img->path))
			dbg = try_file(s, NULL, path, img->build_id,
				       img->build_id_size, false, &ignored);
		free(path);
	}
	free(dir);
	free(rdir);
	return dbg;
}

/* The debuginfod client, started on the first file no local place has. */
static struct sym_debuginfod *debuginfod(struct symbolizer *s)
{
	if (!s->debuginfod_tried) {
		s->debuginfod_tried = true;
		if (sym_debuginfod__new(&s->debuginfod) != 0)
			s->debuginfod = NULL;	/* names from local files only */
	}
	return s->debuginfod;
}

/*
 * Ask debuginfod for the file of that kind with build id id.  Like any
 * candidate, an answer with another build id is never used: it is noted
 * as a mismatch (*worst), and not asked for again.
 */
static struct elf_image *try_debuginfod(struct symbolizer *s,
					enum sym_debuginfod_kind kind,
					const uint8_t *id, unsigned int n,
					enum sym_status *worst)
{
	struct sym_debuginfod *d = debuginfod(s);
	struct sym_object want = { 0 };
	struct elf_image *img;
	char *path;

	if (!d || !n)
		return NULL;
	if (sym_debuginfod__find(d, kind, id, n, &path) != 0)
		return NULL;
	want.want_id_size = n < PROFILE_BUILD_ID_MAX ? n : PROFILE_BUILD_ID_MAX;
	memcpy(want.want_id, id, want.want_id_size);
	img = try_file(s, &want, path, id, n, true, worst);
	if (!img)
		sym_debuginfod__reject(d, kind, id, n);
	free(path);
	return img;
}

#define DELETED_SUFFIX	" (deleted)"

static void object__search(struct symbolizer *s, struct sym_object *o)
{
	enum sym_status worst = SYM_NO_FILE;
	struct elf_image *first = NULL, *img;
	bool tried_id_dir = false;
	char *paths[2] = { NULL, NULL }, *path = o->path, *undeleted = NULL;
	size_t len = strlen(o->path), dlen = strlen(DELETED_SUFFIX);
	int i;

	/*
	 * A file replaced while mapped (an upgrade) is recorded as "path
	 * (deleted)"; its build id tells whether the new one will do.
	 */
	if (len > dlen && !strcmp(o->path + len - dlen, DELETED_SUFFIX)) {
		undeleted = strndup(o->path, len - dlen);
		if (undeleted)
			path = undeleted;
	}

	if (o->want_id_size) {
		first = try_build_id_dir(s, o, o->want_id, o->want_id_size, true,
					 &worst);
		tried_id_dir = true;
	}
	/*
	 * A vDSO is no file; recorded on this very kernel, it is ours
	 * (own_vdso.h).  Another kernel's is no fault of the trace: quietly
	 * not found.
	 */
	if (!first && o->want_id_size && !strcmp(path, "[vdso]")) {
		const char *own = own_vdso__path();
		enum sym_status ignored = SYM_OK;

		if (own)
			first = try_file(s, o, own, o->want_id, o->want_id_size,
					 false, &ignored);
	}
	/* symfs holds the board's absolute paths; [vdso] and such are no file. */
	if (path[0] == '/' && s->symfs)
		paths[0] = join(s->symfs, "", path);
	if (path[0] && path[0] != '[')
		paths[1] = strdup(path);
	free(undeleted);
	/* Take the first good file; a debug-only one wants a runtime file. */
	for (i = 0; i < 2 && (!first || first->debug_only); i++) {
		if (!paths[i])
			continue;
		img = try_file(s, o, paths[i], o->want_id, o->want_id_size, true,
			       &worst);
		if (!img)
			continue;
		if (!first) {
			first = img;
		} else if (!img->debug_only) {
			o->extra = img;
		} else {
			elf_image__free(img);
		}
	}
	free(paths[0]);
	free(paths[1]);
	/*
	 * No local place has it: debuginfod, the runtime file first (its
	 * segments map offsets exactly), else the debug file alone.
	 */
	if (!first && o->want_id_size) {
		first = try_debuginfod(s, SYM_DEBUGINFOD_EXECUTABLE, o->want_id,
				       o->want_id_size, &worst);
		if (!first)
			first = try_debuginfod(s, SYM_DEBUGINFOD_DEBUGINFO,
					       o->want_id, o->want_id_size,
					       &worst);
	}
	if (!first) {
		o->status = worst;
		return;
	}
	o->main = first;
	if (!first->debug_only && (!first->has_symtab ||
				   ((s->lines || s->inlines) && !first->has_dwarf))) {
		if (!tried_id_dir || !same_id(first->build_id,
					      first->build_id_size, o->want_id,
					      o->want_id_size)) {
			enum sym_status ignored = SYM_OK;

			o->extra = try_build_id_dir(s, NULL, first->build_id,
						    first->build_id_size, false,
						    &ignored);
		}
		if (!o->extra)
			o->extra = try_debuglink(s, first, o->path);
		if (!o->extra && first->build_id_size) {
			enum sym_status got = SYM_OK;

			o->extra = try_debuginfod(s, SYM_DEBUGINFOD_DEBUGINFO,
						  first->build_id,
						  first->build_id_size, &got);
			o->companion_mismatch = got == SYM_BUILD_ID_MISMATCH;
		}
	} else if (first->debug_only && !o->extra && first->build_id_size) {
		enum sym_status ignored = SYM_OK;

		/* The runtime file's segments, for exact offsets. */
		o->extra = try_debuginfod(s, SYM_DEBUGINFOD_EXECUTABLE,
					  first->build_id, first->build_id_size,
					  &ignored);
	}
	o->loads = !first->debug_only ? first :
		   o->extra ? o->extra : first;
	if (sym_table__add_image(&o->syms, first) != 0 ||
	    (o->extra && sym_table__add_image(&o->syms, o->extra) != 0)) {
		sym_table__release(&o->syms);
		o->status = SYM_BAD_FILE;
		return;
	}
	sym_table__finish(&o->syms);
	if (first->has_dwarf)
		o->dwarf_path = first->path;
	else if (o->extra && o->extra->has_dwarf)
		o->dwarf_path = o->extra->path;
	o->status = SYM_OK;
}

static struct sym_object *object__get(struct symbolizer *s, const char *path,
				      const uint8_t *id, unsigned int id_size)
{
	char key[2 * PROFILE_BUILD_ID_MAX + 2];
	const char *k = path;
	struct sym_object *o;

	if (id_size > PROFILE_BUILD_ID_MAX)
		id_size = PROFILE_BUILD_ID_MAX;
	if (id_size) {
		key[0] = '#';	/* no path starts so: keys cannot collide */
		hex(key + 1, id, id_size);
		k = key;
	}
	for (o = s->objects; o; o = o->next)
		if (!strcmp(o->key, k))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->key = strdup(k);
	o->path = strdup(path);
	if (!o->key || !o->path) {
		free(o->key);
		free(o->path);
		free(o);
		return NULL;
	}
	if (id_size)
		memcpy(o->want_id, id, id_size);
	o->want_id_size = id_size;
	object__search(s, o);
	o->next = s->objects;
	s->objects = o;
	return o;
}

/* ---- mapping to object --------------------------------------------- */

static struct sym_object *mapping_object(struct symbolizer *s,
					 const struct profile_mapping *m)
{
	struct sym_object *o;
	uint64_t *v;

	if (m == s->last_m)
		return s->last_m_obj;
	v = hmap__get(&s->maps, (uintptr_t)m);
	if (v) {
		o = (struct sym_object *)(uintptr_t)*v;
	} else {
		o = object__get(s, m->path ? m->path : "", m->build_id,
				m->build_id_size);
		if (!o)
			return NULL;
		if (hmap__put(&s->maps, (uintptr_t)m, (uintptr_t)o))
			return o;	/* uncached, still right */
	}
	s->last_m = m;
	s->last_m_obj = o;
	return o;
}

const char *symbolizer__mapping_file(struct symbolizer *s,
				     const struct profile_mapping *m)
{
	struct sym_object *o = mapping_object(s, m);

	if (!o || o->status != SYM_OK)
		return NULL;
	if (!o->main->debug_only)
		return o->main->path;
	return o->extra ? o->extra->path : NULL;
}

/*
 * File offset to ELF address.  A debug-only file without its runtime file
 * has no true offsets: the mapping is taken to be its executable segment,
 * which starts on the page of that segment's address.
 */
static bool object__vaddr(const struct sym_object *o,
			  const struct profile_mapping *m, uint64_t off,
			  uint64_t *v)
{
	const struct elf_image *img = o->loads;
	unsigned int i;

	if (!img->debug_only)
		return elf_image__offset_to_vaddr(img, off, v);
	for (i = 0; i < img->nr_loads; i++) {
		const struct elf_load *l = &img->loads[i];
		uint64_t guess = off - m->pgoff + (l->vaddr & ~(MAP_PAGE_SIZE - 1));

		if (l->exec && guess >= l->vaddr && guess - l->vaddr < l->memsz) {
			*v = guess;
			return true;
		}
	}
	return false;
}

/* ---- naming -------------------------------------------------------- */

static void result__frames(struct sym_result *res,
			   const struct sym_cache_entry *e)
{
	unsigned int i;

	res->status = e->status;
	res->nr_frames = e->nr_frames;
	res->frames[0] = e->frame0;
	for (i = 1; i < e->nr_frames; i++)
		res->frames[i] = e->more[i - 1];
	res->sym_offset = e->status == SYM_OK ? res->rel_pc - e->sym_start : 0;
}

/* A frame's name as people read it, unless raw names were asked for. */
static const char *readable(struct symbolizer *s, const char *name)
{
	return s->raw_names ? name : demangler__name(&s->demangler, name);
}

static void object__load_dwarf(struct sym_object *o)
{
	o->dwarf_tried = true;
	if (o->dwarf_path && dwarf_frames__open(o->dwarf_path, &o->dwarf) != 0)
		o->dwarf = NULL;
}

/* Fill e for address v of o: the symbol, then lines and inlines. */
static void object__name(struct symbolizer *s, struct sym_object *o,
			 uint64_t v, struct sym_cache_entry *e)
{
	const struct elf_sym *sym = sym_table__find(&o->syms, v);
	struct sym_frame frames[SYM_MAX_INLINE];
	unsigned int n = 0;

	e->nr_frames = 1;
	if (!sym) {
		e->status = o->companion_mismatch ? SYM_BUILD_ID_MISMATCH :
			    SYM_NO_SYMBOL;
		return;
	}
	e->status = SYM_OK;
	e->sym_start = sym->start;
	e->frame0.function = readable(s, sym->name);
	if (!s->lines && !s->inlines)
		return;
	if (!o->dwarf_tried)
		object__load_dwarf(o);
	if (o->dwarf)
		n = dwarf_frames__lookup(o->dwarf, v, s->lines, s->inlines,
					 frames, SYM_MAX_INLINE);
	if (!n)
		return;
	/* The outermost frame is the ELF symbol: one name per function. */
	if (!frames[n - 1].inlined || !frames[n - 1].function)
		frames[n - 1].function = sym->name;
	for (unsigned int i = 0; i < n; i++)
		frames[i].function = readable(s, frames[i].function);
	e->frame0 = frames[0];
	if (n > 1) {
		e->more = malloc((n - 1) * sizeof(*e->more));
		if (!e->more) {
			e->frame0 = frames[n - 1];
			return;
		}
		memcpy(e->more, frames + 1, (n - 1) * sizeof(*e->more));
	}
	e->nr_frames = n;
}

/* The result for lookup address v of o, cached. */
static void object__lookup(struct symbolizer *s, struct sym_object *o,
			   uint64_t v, struct sym_result *res)
{
	struct sym_cache_entry *e = sym_cache__find(&s->cache, o, v), tmp;

	if (e) {
		s->stats.cache_hits++;
		result__frames(res, e);
		return;
	}
	e = sym_cache__insert(&s->cache, o, v);
	if (!e) {
		memset(&tmp, 0, sizeof(tmp));
		e = &tmp;
	}
	object__name(s, o, v, e);
	result__frames(res, e);
	if (e == &tmp)
		free(tmp.more);
}

static void result__reset(struct sym_result *res, enum sym_kind kind)
{
	res->status = SYM_OK;
	res->kind = kind;
	res->dso = "[unknown]";
	res->dso_path = NULL;
	res->rel_pc = 0;
	res->sym_offset = 0;
	res->mapping = NULL;
	res->nr_frames = 1;
	res->frames[0] = (struct sym_frame){ 0 };
}

static int finish(struct symbolizer *s, struct sym_result *res,
		  enum sym_status st)
{
	if (st != SYM_OK) {
		res->status = st;
		res->nr_frames = 1;
		res->frames[0] = (struct sym_frame){ 0 };
		res->sym_offset = 0;
	}
	s->stats.by_status[res->status]++;
	return 0;
}

/* Memory no file backs: where a JIT compiler writes its code. */
static bool anonymous(const struct profile_mapping *m)
{
	return !m->path || !m->path[0] || !strcmp(m->path, "//anon") ||
	       !strncmp(m->path, "[anon", 5);
}

/*
 * A frame in code a JIT compiler listed in its /tmp/perf-PID.map (the
 * recording's JIT function objects): named by the map, dso "[jit]".
 */
static bool jit_frame(const struct profile *p, uint32_t pid, uint64_t addr,
		      struct sym_result *res)
{
	const struct profile_jit *j = profile__find_jit(p, pid, addr);

	if (!j)
		return false;
	res->dso = SYM_JIT_DSO;
	res->dso_path = SYM_JIT_DSO;
	res->rel_pc = addr;
	res->sym_offset = addr - j->start;
	res->nr_frames = 1;
	res->frames[0] = (struct sym_frame){ .function = j->name };
	return true;
}

int symbolizer__file_addr(struct symbolizer *s, const char *path,
			  const uint8_t *build_id, unsigned int build_id_size,
			  uint64_t vaddr, struct sym_result *res)
{
	struct sym_object *o = s->last_obj;

	if (!path || (build_id_size && !build_id))
		return -EINVAL;
	s->stats.lookups++;
	result__reset(res, SYM_KIND_USER);
	if (!o || strcmp(o->path, path) ||
	    !same_id(o->want_id, o->want_id_size, build_id,
		     build_id_size > PROFILE_BUILD_ID_MAX ? PROFILE_BUILD_ID_MAX :
		     build_id_size)) {
		o = object__get(s, path, build_id, build_id_size);
		if (!o)
			return -ENOMEM;
		s->last_obj = o;
	}
	res->dso = base_name(o->path);
	res->dso_path = o->path;
	res->rel_pc = vaddr;
	if (o->status != SYM_OK)
		return finish(s, res, o->status);
	object__lookup(s, o, vaddr, res);
	return finish(s, res, SYM_OK);
}

/* The slide and build-id verdict of p against the kernel file. */
static const struct kernel_view *kernel_view(struct symbolizer *s,
					     const struct profile *p)
{
	struct kernel_view *kv = &s->kview;
	size_t i, n;

	if (kv->p == p)
		return kv;
	*kv = (struct kernel_view){ .p = p };
	n = profile__nr_kmods(p);
	for (i = 0; i < n; i++) {
		const struct profile_kmod *km = profile__kmod(p, i);
		const struct elf_image *img = s->ksyms->img;

		if (!km->is_kernel)
			continue;
		if (s->ksyms->has_stext)
			kv->slide = km->start - s->ksyms->stext;
		if (img && km->build_id_size &&
		    !same_id(img->build_id, img->build_id_size, km->build_id,
			     km->build_id_size)) {
			struct sym_object fake = { 0 };

			kv->mismatch = true;
			memcpy(fake.want_id, km->build_id, km->build_id_size);
			fake.want_id_size = km->build_id_size;
			add_problem(s, SYM_BUILD_ID_MISMATCH, s->ksyms->path, 0,
				    &fake, img);
		}
		break;
	}
	return kv;
}

static int kernel_frame(struct symbolizer *s, const struct profile *p,
			uint64_t addr, uint64_t lookup, struct sym_result *res)
{
	const struct profile_kmod *km = profile__find_kmod(p, addr);
	struct sym_cache_entry *e;

	result__reset(res, SYM_KIND_KERNEL);
	res->dso = km ? km->name : "[kernel.kallsyms]";
	res->dso_path = res->dso;
	res->rel_pc = km && !km->is_kernel ? addr - km->start : addr;
	if (s->ksyms && (!km || km->is_kernel)) {
		const struct kernel_view *kv = kernel_view(s, p);
		uint64_t v = lookup - kv->slide;

		if (kv->mismatch)
			return finish(s, res, SYM_BUILD_ID_MISMATCH);
		e = sym_cache__find(&s->cache, s->ksyms, v);
		if (e) {
			s->stats.cache_hits++;
		} else {
			const struct elf_sym *sym = sym_table__find(&s->ksyms->table, v);

			e = sym_cache__insert(&s->cache, s->ksyms, v);
			if (!e)
				return -ENOMEM;
			e->nr_frames = 1;
			e->status = sym ? SYM_OK : SYM_NO_SYMBOL;
			if (sym) {
				e->sym_start = sym->start + kv->slide;
				e->frame0.function = readable(s, sym->name);
			}
		}
		res->status = e->status;
		res->frames[0] = e->frame0;
		res->sym_offset = e->status == SYM_OK ? addr - e->sym_start : 0;
		return finish(s, res, res->status);
	}
	e = sym_cache__find(&s->cache, p, lookup);
	if (e) {
		s->stats.cache_hits++;
	} else {
		const struct profile_ksym *ks = profile__find_ksym(p, lookup);

		if (!ks && !profile__nr_ksyms(p))
			return finish(s, res, SYM_NO_KERNEL);
		e = sym_cache__insert(&s->cache, p, lookup);
		if (!e)
			return -ENOMEM;
		e->nr_frames = 1;
		e->status = ks ? SYM_OK : SYM_NO_SYMBOL;
		if (ks) {
			e->sym_start = ks->addr;
			e->frame0.function = ks->name;
		}
	}
	res->status = e->status;
	res->frames[0] = e->frame0;
	res->sym_offset = e->status == SYM_OK ? addr - e->sym_start : 0;
	return finish(s, res, res->status);
}

int symbolizer__frame(struct symbolizer *s, const struct profile *p,
		      const struct profile_sample *smp, unsigned int i,
		      struct sym_result *res)
{
	const struct profile_mapping *m;
	struct sym_object *o;
	uint64_t addr, lookup, off, v;

	if (!s || !p || !smp || !res ||
	    i >= (unsigned int)smp->nr_kernel + smp->nr_user)
		return -EINVAL;
	s->stats.lookups++;
	addr = smp->ips[i];
	/* Return addresses point after the call: name the call itself. */
	lookup = i > 0 ? addr - 1 : addr;
	if (i < smp->nr_kernel)
		return kernel_frame(s, p, addr, lookup, res);

	result__reset(res, SYM_KIND_USER);
	res->rel_pc = addr;
	m = profile__find_mapping(p, smp->pid, addr, smp->ts);
	if ((!m || anonymous(m)) && jit_frame(p, smp->pid, lookup, res)) {
		res->mapping = m;
		return finish(s, res, SYM_OK);
	}
	if (!m)
		return finish(s, res, SYM_NO_MAPPING);
	res->mapping = m;
	res->dso_path = m->path ? m->path : "[unknown]";
	res->dso = base_name(res->dso_path);
	off = addr - m->start + m->pgoff;
	res->rel_pc = off;
	o = mapping_object(s, m);
	if (!o)
		return -ENOMEM;
	if (o->status != SYM_OK)
		return finish(s, res, o->status);
	if (!object__vaddr(o, m, off, &v))
		return finish(s, res, SYM_NO_SYMBOL);
	res->rel_pc = v;
	object__lookup(s, o, i > 0 ? v - 1 : v, res);
	return finish(s, res, SYM_OK);
}

void symbolizer__stats(const struct symbolizer *s,
		       struct symbolizer_stats *st)
{
	*st = s->stats;
}

void symbolizer__print_problems(const struct symbolizer *s, void *stream)
{
	FILE *f = stream;
	const struct sym_problem *pr;
	const struct sym_object *o;
	char want[2 * ELF_IMAGE_BUILD_ID_MAX + 1], got[2 * ELF_IMAGE_BUILD_ID_MAX + 1];

	for (pr = s->problems; pr; pr = pr->next) {
		hex(want, pr->want_id, pr->want_id_size);
		hex(got, pr->got_id, pr->got_id_size);
		if (pr->status == SYM_BUILD_ID_MISMATCH)
			fprintf(f, "%s: build id %s, the recording has %s: not used\n",
				pr->path, pr->got_id_size ? got : "(none)", want);
		else
			fprintf(f, "%s: not a usable ELF file: %s\n", pr->path,
				strerror(-pr->err));
	}
	if (s->debuginfod) {
		struct sym_debuginfod_stats ds;

		sym_debuginfod__stats(s->debuginfod, &ds);
		fprintf(f, "debuginfod: %llu requests, %llu files received, "
			"%llu repeated requests avoided\n",
			(unsigned long long)ds.requests,
			(unsigned long long)ds.found,
			(unsigned long long)ds.remembered);
	}
	for (o = s->objects; o; o = o->next) {
		/* [vdso] and the like have no file, by nature. */
		if (o->status != SYM_NO_FILE || o->path[0] == '[' || !o->path[0])
			continue;
		hex(want, o->want_id, o->want_id_size);
		fprintf(f, "%s: no file found%s%s\n", o->path,
			o->want_id_size ? " for build id " : "",
			o->want_id_size ? want : "");
	}
}
