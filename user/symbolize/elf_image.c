// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_image.c - open an ELF file, read its build id, its PT_LOAD segments
 * and its function symbols with libelf.  libelf checks every offset and
 * size against the file, so a damaged file fails a call here instead of
 * reading past the mapping.
 */
#include "symbolize/elf_image.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static bool note_build_id(Elf_Data *data, struct elf_image *img)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp(name, "GNU", 4) != 0)
			continue;
		if (nhdr.n_descsz == 0 || nhdr.n_descsz > ELF_IMAGE_BUILD_ID_MAX)
			continue;
		memcpy(img->build_id, (const char *)data->d_buf + desc_off,
		       nhdr.n_descsz);
		img->build_id_size = nhdr.n_descsz;
		return true;
	}
	return false;
}

/* Sections first: a debug-only file's PT_NOTE offsets are not its own. */
static void read_sections(struct elf_image *img)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(img->elf, shstrndx, shdr.sh_name);
		if (shdr.sh_type == SHT_SYMTAB)
			img->has_symtab = true;
		if (shdr.sh_type == SHT_NOTE && !img->build_id_size)
			note_build_id(elf_getdata(scn, NULL), img);
		if (!name)
			continue;
		if (!strcmp(name, ".debug_info") && shdr.sh_type != SHT_NOBITS &&
		    shdr.sh_size > 0)
			img->has_dwarf = true;
		if (!strcmp(name, ".gnu_debuglink") && !img->debuglink) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_size > 1 &&
			    memchr(d->d_buf, '\0', d->d_size))
				img->debuglink = strdup(d->d_buf);
		}
	}
}

static int read_phdrs(struct elf_image *img)
{
	size_t n, i;
	bool exec_without_bytes = false;

	if (elf_getphdrnum(img->elf, &n) != 0)
		return 0;	/* no program headers: no loads */
	img->loads = calloc(n ? n : 1, sizeof(*img->loads));
	if (!img->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(img->elf, i, &ph))
			continue;
		if (ph.p_type == PT_NOTE && !img->build_id_size)
			note_build_id(elf_getdata_rawchunk(img->elf, ph.p_offset,
							   ph.p_filesz,
							   ELF_T_NHDR), img);
		if (ph.p_type != PT_LOAD)
			continue;
		img->loads[img->nr_loads++] = (struct elf_load){
			.offset = ph.p_offset, .vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz, .memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
		if ((ph.p_flags & PF_X) && ph.p_filesz == 0 && ph.p_memsz > 0)
			exec_without_bytes = true;
	}
	img->debug_only = exec_without_bytes;
	return 0;
}

int elf_image__open(const char *path, struct elf_image **out)
{
	struct elf_image *img;
	struct stat st;
	GElf_Ehdr ehdr;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		goto close_fd;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -ENOEXEC;
		goto close_fd;
	}
	img = calloc(1, sizeof(*img));
	if (!img) {
		err = -ENOMEM;
		goto close_fd;
	}
	img->fd = fd;
	img->path = strdup(path);
	if (!img->path) {
		err = -ENOMEM;
		goto free_img;
	}
	elf_version(EV_CURRENT);
	img->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!img->elf || elf_kind(img->elf) != ELF_K_ELF ||
	    !gelf_getehdr(img->elf, &ehdr)) {
		err = -ENOEXEC;
		goto free_img;
	}
	/*
	 * A cut file still opens (libelf reads headers lazily): its header
	 * tables must be inside it, or the file is damaged, not symbol-less.
	 */
	if ((uint64_t)ehdr.e_phoff + (uint64_t)ehdr.e_phnum * ehdr.e_phentsize >
	    (uint64_t)st.st_size ||
	    (uint64_t)ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize >
	    (uint64_t)st.st_size) {
		err = -ENOEXEC;
		goto free_img;
	}
	img->type = ehdr.e_type;
	read_sections(img);
	err = read_phdrs(img);
	if (err)
		goto free_img;
	*out = img;
	return 0;

free_img:
	elf_image__free(img);
	return err;
close_fd:
	close(fd);
	return err;
}

void elf_image__free(struct elf_image *img)
{
	if (!img)
		return;
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->loads);
	free(img->debuglink);
	free(img->path);
	free(img);
}

bool elf_image__offset_to_vaddr(const struct elf_image *img, uint64_t off,
				uint64_t *vaddr)
{
	unsigned int i;

	for (i = 0; i < img->nr_loads; i++) {
		const struct elf_load *l = &img->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

bool elf_image__symbol_value(const struct elf_image *img, const char *name,
			     uint64_t *value)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_entsize == 0 ||
		    (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		n = data ? data->d_size / shdr.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, i, &sym))
				break;
			s = elf_strptr(img->elf, shdr.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*value = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

/* ---- symbol tables ------------------------------------------------- */

int sym_table__add(struct sym_table *t, uint64_t start, uint64_t size,
		   uint64_t limit, const char *name, uint8_t rank)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct elf_sym *n = realloc(t->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->syms = n;
		t->cap = cap;
	}
	t->syms[t->nr++] = (struct elf_sym){ start, size, limit, name, rank };
	return 0;
}

/*
 * Which of several names for one address is shown: .symtab over .dynsym,
 * functions over labels, global over weak over local, sized over sizeless.
 */
static uint8_t sym_rank(const GElf_Sym *sym, bool symtab)
{
	uint8_t r = 0;

	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: r = 3; break;
	case STB_WEAK: r = 2; break;
	default: r = 1; break;
	}
	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE)
		r += 4;
	if (sym->st_size)
		r += 8;
	if (symtab)
		r += 16;
	return r;
}

static int add_symbols(struct sym_table *t, const struct elf_image *img,
		       Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	bool symtab = shdr->sh_type == SHT_SYMTAB;
	int err;

	if (!data || shdr->sh_entsize == 0)
		return 0;
	n = data->d_size / shdr->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t limit;
		uint8_t rank;
		int type;

		if (!gelf_getsym(data, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_value == 0)
			continue;
		if (type != STT_NOTYPE && type != STT_FUNC &&
		    type != STT_GNU_IFUNC)
			continue;
		limit = UINT64_MAX;
		if (type == STT_NOTYPE || sym.st_size == 0) {
			/*
			 * Labels count only where code is (asm entry points),
			 * and a sizeless symbol ends with its section: _init
			 * must not swallow the PLT after it.
			 */
			Elf_Scn *sec = elf_getscn(img->elf, sym.st_shndx);
			GElf_Shdr sh;

			if (!sec || !gelf_getshdr(sec, &sh) ||
			    (type == STT_NOTYPE && !(sh.sh_flags & SHF_EXECINSTR)))
				continue;
			limit = sh.sh_addr + sh.sh_size;
		}
		name = elf_strptr(img->elf, shdr->sh_link, sym.st_name);
		/* "$x"/"$d": arm mapping symbols, not functions. */
		if (!name || !name[0] || name[0] == '$')
			continue;
		rank = sym_rank(&sym, symtab);
		/* "f@VERSION" is a compat alias: any other name reads better. */
		if (strchr(name, '@'))
			rank &= ~3;
		err = sym_table__add(t, sym.st_value, sym.st_size, limit, name,
				     rank);
		if (err)
			return err;
	}
	return 0;
}

int sym_table__add_image(struct sym_table *t, const struct elf_image *img)
{
	Elf_Scn *scn = NULL;
	int err;

	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)
			continue;
		err = add_symbols(t, img, scn, &shdr);
		if (err)
			return err;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;	/* best first */
	if ((x->name[0] == '_') != (y->name[0] == '_'))
		return x->name[0] == '_' ? 1 : -1;
	return strcmp(x->name, y->name);
}

void sym_table__finish(struct sym_table *t)
{
	size_t i, out = 0;

	if (!t->nr)
		return;
	qsort(t->syms, t->nr, sizeof(*t->syms), sym_cmp);
	for (i = 0; i < t->nr; i++) {
		if (out && t->syms[out - 1].start == t->syms[i].start) {
			/* An alias: keep the best name, the widest size. */
			if (t->syms[i].size > t->syms[out - 1].size)
				t->syms[out - 1].size = t->syms[i].size;
			if (t->syms[i].limit < t->syms[out - 1].limit)
				t->syms[out - 1].limit = t->syms[i].limit;
			continue;
		}
		t->syms[out++] = t->syms[i];
	}
	t->nr = out;
	for (i = 0; i < t->nr; i++) {
		struct elf_sym *s = &t->syms[i];
		uint64_t end = s->limit;

		if (s->size)
			continue;
		if (i + 1 < t->nr && t->syms[i + 1].start < end)
			end = t->syms[i + 1].start;
		s->size = end > s->start && end != UINT64_MAX ? end - s->start : 1;
	}
}

/* Symbols may nest (a local inside a bigger one): look a few back. */
#define SYM_NEST_LOOKBACK	8

const struct elf_sym *sym_table__find(const struct sym_table *t,
				      uint64_t addr)
{
	size_t lo = 0, hi = t->nr, i, k;

	while (lo < hi) {	/* first symbol starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, k = 0; i > 0 && k < SYM_NEST_LOOKBACK; i--, k++) {
		const struct elf_sym *s = &t->syms[i - 1];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

void sym_table__release(struct sym_table *t)
{
	free(t->syms);
	memset(t, 0, sizeof(*t));
}
