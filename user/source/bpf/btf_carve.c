// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_carve.c - copy a kernel's BTF out of its uncompressed image.
 *
 * Build-time helper for cross-building the bpf source: vmlinux.h for a
 * target comes from that target's BTF, and a Debian kernel package ships
 * only the boot image (arm64: a raw Image; x86: a bzImage around an xz
 * payload, which extract-btf.sh decompresses first), not an ELF vmlinux
 * whose .BTF section bpftool could read.  The .BTF section sits in the
 * image as is: find the BTF header (magic 0xeB9F, version 1, 24-byte
 * header, types then strings) and write header + types + strings, which
 * bpftool reads as a raw BTF file.  The largest consistent candidate wins
 * (module BTF and stray magic bytes are smaller or inconsistent).
 *
 *   btf_carve IMAGE OUT.btf
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct btf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off, type_len, str_off, str_len;
};

int main(int argc, char **argv)
{
	size_t len = 0, cap = 1 << 24, i, best = 0, best_len = 0;
	unsigned char *buf;
	FILE *f;
	size_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: btf_carve IMAGE OUT.btf\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "btf_carve: out of memory\n");
		return 1;
	}
	for (i = 0; i + sizeof(struct btf_header) <= len; i += 4) {
		struct btf_header h;
		uint64_t total;

		if (buf[i] != 0x9f || buf[i + 1] != 0xeb)
			continue;
		memcpy(&h, buf + i, sizeof(h));
		if (h.version != 1 || h.hdr_len != sizeof(h) || h.type_off ||
		    h.str_off != h.type_len || !h.str_len)
			continue;
		total = (uint64_t)h.hdr_len + h.str_off + h.str_len;
		if (total > len - i || buf[i + total - 1] != 0)
			continue;	/* strings end with a NUL */
		if (total > best_len) {
			best = i;
			best_len = (size_t)total;
		}
	}
	if (!best_len) {
		fprintf(stderr, "btf_carve: no BTF in %s (kernel built without "
			"CONFIG_DEBUG_INFO_BTF?)\n", argv[1]);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf + best, 1, best_len, f) != best_len || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "btf_carve: %zu bytes of BTF at offset %zu\n", best_len,
		best);
	free(buf);
	return 0;
}
