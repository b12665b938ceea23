// SPDX-License-Identifier: GPL-2.0-only
/*
 * cfi_fde.c - see cfi_fde.h.  An FDE's two address fields are encoded as
 * its CIE's 'R' augmentation byte says (DW_EH_PE_*, the LSB's .eh_frame
 * format), absolute and address-sized in .debug_frame.  Only the
 * encodings a linker leaves in an FDE are read: fixed-size data, absolute
 * or pc-relative.  An FDE in another one is skipped and counted.
 */
#include "unwind/cfi_fde.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cie_enc {
	Dwarf_Off off;
	int enc;		/* DW_EH_PE_*, or -1: unusable CIE */
};

struct fde_scan {
	const struct cfi_section *sec;
	size_t addr_size;
	struct cie_enc *cies;
	size_t nr_cies, cap_cies;
	struct cfi_fde_range *ranges;
	size_t nr, cap;
	uint32_t bad;
};

static size_t enc_size(int enc, size_t addr_size)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:	return addr_size;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:	return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:	return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:	return 8;
	default:		return 0;	/* LEB128, or unknown */
	}
}

/*
 * The pointer at *@p, encoded as @enc, and *@p moved past it.  @field is
 * the vaddr of *@p, for DW_EH_PE_pcrel; @apply false reads the value
 * alone (an address_range).  False if it does not fit before @end or is
 * encoded in a way an FDE's address never is.
 */
static bool read_encoded(const struct fde_scan *s, int enc,
			 const uint8_t **p, const uint8_t *end,
			 uint64_t field, bool apply, uint64_t *v)
{
	size_t n = enc_size(enc, s->addr_size), i;
	uint64_t x = 0;

	if (!n || (size_t)(end - *p) < n)
		return false;
	/* Both machines are little-endian (cfi_fde's callers check). */
	for (i = 0; i < n; i++)
		x |= (uint64_t)(*p)[i] << (8 * i);
	if ((enc & DW_EH_PE_signed) && n < 8 && (x >> (8 * n - 1)) & 1)
		x |= ~0ULL << (8 * n);
	*p += n;
	if (apply) {
		switch (enc & 0xf0) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			x += field;
			break;
		default:	/* textrel, datarel, indirect: not in FDEs */
			return false;
		}
	}
	*v = x;
	return true;
}

/* The 'R' byte of a CIE's augmentation, absptr if it has none. */
static int cie_fde_encoding(const struct fde_scan *s, const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	size_t n;

	if (!s->sec->eh_frame || !a || !*a)
		return DW_EH_PE_absptr;
	if (*a != 'z')	/* no 'z': the augmentation data's size is unknown */
		return -1;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return p < end ? *p : -1;
		case 'L':	/* the LSDA's encoding */
			p++;
			break;
		case 'P':	/* the personality's encoding, then pointer */
			n = p < end ? enc_size(*p, s->addr_size) : 0;
			if (!n || (size_t)(end - p) < 1 + n)
				return -1;
			p += 1 + n;
			break;
		case 'S':	/* a signal frame */
		case 'B':	/* arm64: return addresses signed with key B */
		case 'G':	/* arm64: MTE tagged frames */
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_add(struct fde_scan *s, Dwarf_Off off, int enc)
{
	if (s->nr_cies == s->cap_cies) {
		size_t cap = s->cap_cies ? 2 * s->cap_cies : 16;
		struct cie_enc *v = realloc(s->cies, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->cies = v;
		s->cap_cies = cap;
	}
	s->cies[s->nr_cies++] = (struct cie_enc){ .off = off, .enc = enc };
	return 0;
}

/* The encoding of the CIE at @off, read now if no earlier entry was it. */
static int cie_find(struct fde_scan *s, Dwarf_Off off, int *enc)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	size_t i;

	for (i = s->nr_cies; i-- > 0;)
		if (s->cies[i].off == off) {
			*enc = s->cies[i].enc;
			return 0;
		}
	if (dwarf_next_cfi(s->sec->e_ident, s->sec->data, s->sec->eh_frame,
			   off, &next, &e) != 0 || !dwarf_cfi_cie_p(&e))
		*enc = -1;
	else
		*enc = cie_fde_encoding(s, &e.cie);
	return cie_add(s, off, *enc);
}

static int fde_add(struct fde_scan *s, const Dwarf_FDE *fde)
{
	const uint8_t *base = s->sec->data->d_buf, *p = fde->start;
	uint64_t lo, len;
	int enc, err;

	err = cie_find(s, fde->CIE_pointer, &enc);
	if (err)
		return err;
	if (enc < 0 ||
	    !read_encoded(s, enc, &p, fde->end, s->sec->addr + (p - base),
			  true, &lo) ||
	    !read_encoded(s, enc & 0x0f, &p, fde->end, 0, false, &len) ||
	    len == 0 || lo + len < lo) {
		s->bad++;
		return 0;
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct cfi_fde_range *v = realloc(s->ranges, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->ranges = v;
		s->cap = cap;
	}
	s->ranges[s->nr++] = (struct cfi_fde_range){ .lo = lo, .hi = lo + len };
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cfi_fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int cfi_fde__ranges(const struct cfi_section *sec,
		    struct cfi_fde_range **out, size_t *nr, uint32_t *bad)
{
	struct fde_scan s = {
		.sec = sec,
		.addr_size = sec->e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4,
	};
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int err = 0, r;

	while (off < sec->data->d_size) {
		r = dwarf_next_cfi(sec->e_ident, sec->data, sec->eh_frame,
				   off, &next, &e);
		if (r > 0)
			break;
		if (r < 0) {
			/* libdw says where the next entry is, if it can. */
			s.bad++;
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
		} else if (dwarf_cfi_cie_p(&e)) {
			err = cie_add(&s, off, cie_fde_encoding(&s, &e.cie));
		} else {
			err = fde_add(&s, &e.fde);
		}
		if (err)
			goto free_ranges;
		if (next <= off)
			break;
		off = next;
	}
	free(s.cies);
	if (s.nr)
		qsort(s.ranges, s.nr, sizeof(*s.ranges), range_cmp);
	*out = s.ranges;
	*nr = s.nr;
	*bad = s.bad;
	return 0;

free_ranges:
	free(s.ranges);
	free(s.cies);
	return err;
}
