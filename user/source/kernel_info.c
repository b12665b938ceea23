// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_info.c - see kernel_info.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_build_id.h"
#include "kernel_info.h"

static FILE *open_under(const char *root, const char *path)
{
	char buf[4096];

	if (!root)
		return fopen(path, "re");
	snprintf(buf, sizeof(buf), "%s%s", root, path);
	return fopen(buf, "re");
}

static int add_name(struct kernel_info *ki, const char *name, size_t len,
		    uint32_t *off)
{
	if (ki->names_len + len + 1 > ki->names_cap) {
		size_t ncap = ki->names_cap ? ki->names_cap * 2 : 1 << 20;
		char *n;

		while (ncap < ki->names_len + len + 1)
			ncap *= 2;
		if (ncap > UINT32_MAX)
			return -E2BIG;
		n = realloc(ki->names, ncap);
		if (!n)
			return -ENOMEM;
		ki->names = n;
		ki->names_cap = ncap;
	}
	memcpy(ki->names + ki->names_len, name, len);
	ki->names[ki->names_len + len] = '\0';
	*off = (uint32_t)ki->names_len;
	ki->names_len += len + 1;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Equal addresses: keep the first name kallsyms listed. */
	return x->name_off < y->name_off ? -1 : x->name_off > y->name_off;
}

static int load_modules(struct kernel_info *ki, const char *root)
{
	FILE *f = open_under(root, "/proc/modules");
	char *line = NULL;
	size_t cap = 0, mcap = 0;
	int ret = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;	/* no module support */
	while (getline(&line, &cap, f) > 0) {
		char name[64];
		unsigned long long size, addr;
		struct kmod_entry *m;

		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size,
			   &addr) != 3 || !addr)
			continue;
		if (ki->nmods == mcap) {
			mcap = mcap ? mcap * 2 : 64;
			m = realloc(ki->mods, mcap * sizeof(*m));
			if (!m) {
				ret = -ENOMEM;
				break;
			}
			ki->mods = m;
		}
		m = &ki->mods[ki->nmods++];
		memset(m, 0, sizeof(*m));
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->start = addr;
		m->end = addr + size;
	}
	free(line);
	fclose(f);
	return ret;
}

static const struct kmod_entry *find_mod(const struct kernel_info *ki,
					 const char *name, size_t len)
{
	for (size_t i = 0; i < ki->nmods; i++)
		if (strlen(ki->mods[i].name) == len &&
		    !memcmp(ki->mods[i].name, name, len))
			return &ki->mods[i];
	return NULL;
}

/* One kallsyms line; text symbols go into the table if @symbols. */
static int parse_sym(struct kernel_info *ki, char *line, size_t *scap,
		     bool symbols, bool *all_zero)
{
	unsigned long long addr;
	char type, *name, *mod, *end;
	struct ksym_entry *e;
	size_t len;
	int ret;

	addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return 0;
	type = end[1];
	name = end + 3;
	len = strcspn(name, "\n");
	name[len] = '\0';
	if (addr)
		*all_zero = false;
	mod = strchr(name, '\t');
	if (mod)
		*mod = ' ';	/* "name [mod]", as perf shows it */
	if (!strcmp(name, "_stext"))
		ki->stext = addr;
	else if (!strcmp(name, "_etext"))
		ki->etext = addr;
	if (!symbols ||
	    (type != 't' && type != 'T' && type != 'w' && type != 'W'))
		return 0;
	if (ki->nsyms == *scap) {
		size_t ncap = *scap ? *scap * 2 : 65536;

		e = realloc(ki->syms, ncap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		ki->syms = e;
		*scap = ncap;
	}
	e = &ki->syms[ki->nsyms];
	e->addr = addr;
	/*
	 * A weak core symbol may be data: marked here and kept only if it
	 * lies in _stext.._etext, which kallsyms lists after most symbols.
	 */
	e->size = (type == 'w' || type == 'W') && !mod;
	ret = add_name(ki, name, len, &e->name_off);
	if (ret)
		return ret;
	ki->nsyms++;
	return 0;
}

/*
 * Keep only the names of the symbols kept, in their order, and both
 * arrays at their size: the recorder holds the table for the whole
 * recording, and the doubling that built it, and the aliases' names, are
 * a third of it.  A failed shrink keeps the larger block.
 */
static void shrink_table(struct kernel_info *ki)
{
	size_t i, len = 0, n;
	char *names, *p;
	void *syms;

	for (i = 0; i < ki->nsyms; i++)
		len += strlen(ki->names + ki->syms[i].name_off) + 1;
	names = malloc(len ? len : 1);
	if (!names)
		return;
	for (i = 0, p = names; i < ki->nsyms; i++) {
		n = strlen(ki->names + ki->syms[i].name_off) + 1;
		memcpy(p, ki->names + ki->syms[i].name_off, n);
		ki->syms[i].name_off = (uint32_t)(p - names);
		p += n;
	}
	free(ki->names);
	ki->names = names;
	ki->names_len = ki->names_cap = len;
	syms = realloc(ki->syms, (ki->nsyms ? ki->nsyms : 1) * sizeof(*ki->syms));
	if (syms)
		ki->syms = syms;
	ki->syms_cap = ki->nsyms;
}

/* Sort, drop aliases, and give every symbol the size up to the next. */
static void finish_table(struct kernel_info *ki)
{
	size_t i, j = 0;

	for (i = 0; i < ki->nsyms; i++)
		if (!ki->syms[i].size || (ki->syms[i].addr >= ki->stext &&
					  ki->syms[i].addr < ki->etext))
			ki->syms[j++] = ki->syms[i];
	ki->nsyms = j;
	qsort(ki->syms, ki->nsyms, sizeof(*ki->syms), cmp_sym);
	j = 0;
	for (i = 0; i < ki->nsyms; i++)
		if (!j || ki->syms[j - 1].addr != ki->syms[i].addr)
			ki->syms[j++] = ki->syms[i];
	ki->nsyms = j;
	for (i = 0; i < ki->nsyms; i++) {
		struct ksym_entry *e = &ki->syms[i];
		const char *name = ki->names + e->name_off;
		const char *mod = strstr(name, " [");
		uint64_t end = i + 1 < ki->nsyms ? ki->syms[i + 1].addr
						 : e->addr + KSYM_MAX_SIZE;

		if (mod) {
			const struct kmod_entry *m =
				find_mod(ki, mod + 2, strcspn(mod + 2, "]"));

			if (m && m->end > e->addr && end > m->end)
				end = m->end;
		} else if (ki->etext > e->addr && end > ki->etext) {
			end = ki->etext;
		}
		if (end - e->addr > KSYM_MAX_SIZE)
			end = e->addr + KSYM_MAX_SIZE;
		e->size = (uint32_t)(end - e->addr);
	}
}

int kernel_info__load(struct kernel_info *ki, const char *root,
		      bool symbols)
{
	bool all_zero = true;
	char *line = NULL;
	size_t cap = 0, scap = 0;
	FILE *f;
	int ret;

	memset(ki, 0, sizeof(*ki));
	ret = load_modules(ki, root);
	if (ret)
		return ret;
	f = open_under(root, "/proc/kallsyms");
	if (!f) {
		ret = -errno;
		goto out_free_mods;
	}
	while (getline(&line, &cap, f) > 0) {
		ret = parse_sym(ki, line, &scap, symbols, &all_zero);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	ki->syms_cap = scap;
	if (ret)
		goto out_free_syms;
	if (all_zero) {
		/* kptr_restrict: no symbol is worth writing. */
		ki->restricted = true;
		ki->nsyms = 0;
		return 0;
	}
	finish_table(ki);
	shrink_table(ki);
	return 0;

out_free_syms:
	free(ki->syms);
	free(ki->names);
out_free_mods:
	free(ki->mods);
	memset(ki, 0, sizeof(*ki));
	return ret;
}

void kernel_info__fini(struct kernel_info *ki)
{
	free(ki->syms);
	free(ki->names);
	free(ki->mods);
	memset(ki, 0, sizeof(*ki));
}

const struct ksym_entry *kernel_info__lookup(const struct kernel_info *ki,
					     uint64_t ip)
{
	size_t lo = 0, hi = ki->nsyms;

	/* The last symbol starting at or below ip. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ki->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (ip - ki->syms[lo - 1].addr >= ki->syms[lo - 1].size)
		return NULL;
	return &ki->syms[lo - 1];
}

static int write_kmod(const char *root, const char *notes, uint64_t start,
		      uint64_t end, const char *name, uint16_t flags,
		      uint64_t ts, fxtprof_rec_cb cb, void *ctx)
{
	uint64_t buf[(sizeof(struct fxtprof_kmod) + 256) / 8];
	struct fxtprof_kmod *k = (void *)buf;
	size_t len = strnlen(name, 255);
	char path[4096];
	int n;

	memset(buf, 0, sizeof(buf));
	k->hdr.size = (uint32_t)(sizeof(*k) + ((len + 7) & ~(size_t)7));
	k->hdr.type = FXTPROF_REC_KMOD;
	k->hdr.time_ns = ts;
	k->start = start;
	k->end = end;
	k->flags = flags;
	snprintf(path, sizeof(path), "%s%s", root ? root : "", notes);
	n = elf_build_id__from_notes_file(path, k->build_id,
					  sizeof(k->build_id));
	if (n > 0) {
		k->flags |= FXTPROF_KMOD_BUILD_ID;
		k->build_id_size = (uint8_t)n;
	}
	k->name_len = (uint16_t)len;
	memcpy(k->name, name, len);
	return cb(ctx, &k->hdr);
}

int kernel_info__write_kmods(const struct kernel_info *ki, const char *root,
			     uint64_t ts, fxtprof_rec_cb cb, void *ctx)
{
	char notes[256];
	int n = 0;

	if (ki->stext && ki->etext > ki->stext) {
		write_kmod(root, "/sys/kernel/notes", ki->stext, ki->etext,
			   "[kernel.kallsyms]", FXTPROF_KMOD_KERNEL, ts, cb, ctx);
		n++;
	}
	for (size_t i = 0; i < ki->nmods; i++) {
		const struct kmod_entry *m = &ki->mods[i];

		snprintf(notes, sizeof(notes),
			 "/sys/module/%s/notes/.note.gnu.build-id", m->name);
		write_kmod(root, notes, m->start, m->end, m->name, 0, ts, cb,
			   ctx);
		n++;
	}
	return n;
}

size_t kernel_info__bytes(const struct kernel_info *ki)
{
	return ki->syms_cap * sizeof(*ki->syms) + ki->names_cap +
	       ki->nmods * sizeof(*ki->mods);
}
