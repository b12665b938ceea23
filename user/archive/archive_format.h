/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_format.h - the archive's bytes on disk (little-endian, packed by
 * construction: every field at its natural alignment), shared by the
 * writer, the reader and repair.  Documentation/archive-format.md is the
 * reference; a change here is a change there and a version bump.
 */
#ifndef FXTPROF_ARCHIVE_FORMAT_H
#define FXTPROF_ARCHIVE_FORMAT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the archive format is little-endian; this build needs byte swaps"
#endif

#define ARCH_VERSION		3
/*
 * The oldest version this reader reads: 1 has codec 0 chunks only, 2
 * codecs 0 and 1.
 */
#define ARCH_VERSION_MIN	1

/* File header: offset 0, written first. */
#define ARCH_FILE_MAGIC		"FXTPROFZ"
#define ARCH_FILE_LIVE		(1u << 0)	/* chunks only, no trailer */

struct arch_file_header {
	char magic[8];
	uint16_t version;
	uint16_t header_size;		/* 64 */
	uint32_t flags;			/* ARCH_FILE_* */
	uint64_t window_ns;		/* the writer's chunk limits */
	uint32_t max_bytes;
	uint32_t max_records;
	uint32_t stream;
	uint32_t reserved0;
	uint64_t created_ns;		/* CLOCK_REALTIME at open */
	uint64_t reserved1;
	uint32_t reserved2;
	uint32_t crc;			/* crc32c of bytes 0..59 */
};
static_assert(sizeof(struct arch_file_header) == 64, "file header");

/* Chunk header: in front of every chunk's LZ4 block. */
#define ARCH_CHUNK_MAGIC	0x435a5846u	/* "FXZC" */

struct arch_chunk_header {
	uint32_t magic;
	uint16_t header_size;		/* 64 */
	uint16_t flags;			/* ARCHIVE_CHUNK_* (disk bits) */
	uint32_t compressed;		/* LZ4 block bytes that follow */
	uint32_t uncompressed;		/* FXT bytes it holds */
	uint64_t t_first, t_last;	/* trace ns of its first/last event */
	uint32_t records;
	uint32_t stream;
	uint64_t seq;			/* chunk index in the file, from 0 */
	uint16_t codec;			/* ARCH_CODEC_* (version 1: 0) */
	uint16_t reserved;
	uint32_t coded;			/* the codec's bytes; 0 for none */
	uint32_t header_crc;		/* crc32c of bytes 0..55 */
	uint32_t crc;			/* crc32c of bytes 0..59, then payload */
};
static_assert(sizeof(struct arch_chunk_header) == 64, "chunk header");
#define ARCH_CHUNK_DISK_FLAGS	0x0003u

/* How a chunk's FXT is transformed before LZ4 (user/archive/chunk_codec.h). */
#define ARCH_CODEC_NONE		0u	/* the LZ4 block holds the FXT */
#define ARCH_CODEC_COLUMNS	1u	/* it holds @coded bytes of codec 1 */
#define ARCH_CODEC_MODELLED	2u	/* of codec 2 (version 3 on) */

/* Manifest section: one entry per chunk, in file order. */
struct arch_manifest_entry {
	uint64_t offset;
	uint32_t compressed, uncompressed;
	uint64_t t_first, t_last;
	uint32_t records, stream, flags, crc;
};
static_assert(sizeof(struct arch_manifest_entry) == 48, "manifest entry");

/* Section table: after the sections, before the footer. */
#define ARCH_SECTION_LZ4	(1u << 0)	/* stored as an LZ4 block */

struct arch_section_entry {
	uint16_t id;
	uint16_t flags;			/* ARCH_SECTION_* */
	uint32_t crc;			/* crc32c of the bytes stored */
	uint64_t offset, length;	/* of the bytes stored */
};

/* In front of an ARCH_SECTION_LZ4 section's block. */
struct arch_section_lz4 {
	uint32_t size;			/* the section's bytes, decoded */
	uint32_t reserved;
};
/* Sections at least this long are stored compressed, if that is shorter. */
#define ARCH_SECTION_LZ4_MIN	1024u
static_assert(sizeof(struct arch_section_entry) == 24, "section entry");

/* Footer: the file's last 48 bytes. */
#define ARCH_FOOTER_MAGIC	"FXTZFOOT"

struct arch_footer {
	char magic[8];
	uint16_t version;
	uint16_t footer_size;		/* 48 */
	uint32_t nsections;
	uint64_t table_offset;		/* the section table */
	uint64_t chunks_end;		/* where the chunks end, the trailer starts */
	uint64_t nchunks;
	uint32_t table_crc;		/* crc32c of the section table */
	uint32_t crc;			/* crc32c of bytes 0..43 */
};
static_assert(sizeof(struct arch_footer) == 48, "footer");

/* Section limits a reader enforces before allocating. */
#define ARCH_MAX_SECTIONS	256u
#define ARCH_MAX_SECTION_BYTES	(1ull << 30)

/* Summary sections' fixed parts (the variable ones: archive-format.md). */
struct arch_windows_header {
	uint64_t window_ns, t0;
	uint32_t ncpus, nwindows;
};
static_assert(sizeof(struct arch_windows_header) == 24, "windows header");

struct arch_name_entry {
	uint32_t kind, name_len;
	uint64_t pid, tid, t_from, t_to;
	/* name, zero-padded to 8 */
};

struct arch_mapping_entry {
	uint64_t pid, start, end, pgoff, time;
	uint32_t path_len;
	uint16_t build_id_len;
	uint16_t flags;			/* bit 0: initial */
	/* path, then build id, zero-padded to 8 together */
};

struct arch_kimage_entry {
	uint64_t start, end;
	uint32_t name_len;
	uint16_t build_id_len;
	uint16_t flags;			/* bit 0: the kernel image */
	/* name, then build id, zero-padded to 8 together */
};

struct arch_ksym_entry {
	uint64_t addr;
	uint32_t size, name_len;
	/* name, zero-padded to 8 */
};

/*
 * A chunk's limits count from its first event, and cut only once what
 * follows outweighs what precedes it (the prologue and the segment's
 * replay of names, mappings and symbols) this many times, in bytes and
 * in records.
 */
#define ARCH_REPLAY_RATIO	4u

/* Samples per CPU are summed in windows of this length. */
#define ARCH_SUMMARY_WINDOW_NS	100000000ull
/* CPUs beyond this are summed in no window (counted in the metrics). */
#define ARCH_SUMMARY_MAX_CPUS	4096u

/* crc32c.c: Castagnoli CRC, as iSCSI and ext4 use it. */
uint32_t arch_crc32c(uint32_t crc, const void *data, size_t len);

#endif /* FXTPROF_ARCHIVE_FORMAT_H */
