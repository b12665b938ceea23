// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_reader.c - see archive.h.  Everything is read with pread(): the
 * reader keeps no file position, so threads may share one, and a live
 * archive may grow under it.  Every size read from the file is checked
 * against the file's size and the format's limits before anything is
 * allocated for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive_io.h"
#include "archive_format.h"
#include "archive_writer_internal.h"
#include "chunk_codec.h"
#include "chunk_codec2.h"

struct section {
	uint32_t id;
	unsigned char *data;
	size_t len;
};

struct archive_reader {
	int fd;
	bool own_fd;
	enum archive_index index;
	struct arch_file_header hdr;
	uint64_t size;			/* file size at the last look */
	uint64_t scan_end;		/* after the last complete chunk */

	struct archive_chunk_info *chunks;
	size_t nchunks, chunks_cap;
	uint32_t max_chunk;

	struct section *secs;
	size_t nsecs;
	bool have_metrics;
	struct archive_metrics metrics;
	struct archive_thread_count *threads;
	size_t nthreads;
	struct archive_process_count *procs;
	size_t nprocs;
	bool have_windows;
	struct archive_windows windows;
	struct archive_name *names;
	size_t nnames;
	struct archive_mapping *maps;
	size_t nmaps;
	struct archive_kimage *kimages;
	size_t nkimages;
	struct archive_ksym *ksyms;
	size_t nksyms;
};

static int add_chunk(struct archive_reader *a,
		     const struct archive_chunk_info *c)
{
	if (a->nchunks == a->chunks_cap) {
		size_t cap = a->chunks_cap ? 2 * a->chunks_cap : 256;
		struct archive_chunk_info *p;

		p = realloc(a->chunks, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->chunks = p;
		a->chunks_cap = cap;
	}
	a->chunks[a->nchunks++] = *c;
	if (c->uncompressed > a->max_chunk)
		a->max_chunk = c->uncompressed;
	return 0;
}

/* Sizes no writer makes: the LZ4 bound and the format's chunk limit. */
static bool sizes_sane(uint32_t compressed, uint32_t uncompressed)
{
	return compressed && uncompressed &&
	       uncompressed <= ARCHIVE_MAX_CHUNK_BYTES &&
	       compressed <= (uint32_t)LZ4_compressBound((int)uncompressed);
}

/*
 * A codec the file's version knows, and its size: a coded chunk is
 * shorter than its FXT (the writer stores it uncoded otherwise), so the
 * LZ4 bound above holds.
 */
static bool codec_sane(const struct arch_chunk_header *h, uint16_t version)
{
	if (h->codec == ARCH_CODEC_NONE)
		return h->coded == 0;
	if (h->codec != ARCH_CODEC_COLUMNS &&
	    (h->codec != ARCH_CODEC_MODELLED || version < 3))
		return false;
	return h->coded && h->coded < h->uncompressed;
}

/*
 * The chunk header at @off, if it is one: magic, its own checksum, sane
 * sizes and the sequence number of the @seq'th chunk.
 */
static bool chunk_header_ok(const struct arch_chunk_header *h, uint64_t seq,
			    uint16_t version)
{
	return h->magic == ARCH_CHUNK_MAGIC &&
	       h->header_size == sizeof(*h) &&
	       h->header_crc == arch_crc32c(0, h, offsetof(struct arch_chunk_header,
							header_crc)) &&
	       sizes_sane(h->compressed, h->uncompressed) &&
	       h->seq == seq && h->t_first <= h->t_last &&
	       (version < 2 || codec_sane(h, version));
}

/*
 * Chunks from a->scan_end on, up to the first that is incomplete or whose
 * header is not sound: after it nothing can be trusted, not even where
 * the next chunk would start.  Returns how many were added.
 */
static int scan(struct archive_reader *a)
{
	struct arch_chunk_header h;
	struct stat st;
	int added = 0, ret;

	if (fstat(a->fd, &st))
		return -errno;
	a->size = (uint64_t)st.st_size;
	while (a->scan_end + sizeof(h) <= a->size) {
		struct archive_chunk_info c;

		ret = arch_pread_full(a->fd, &h, sizeof(h), a->scan_end);
		if (ret == -EIO)
			break;			/* shrank under us */
		if (ret)
			return ret;
		if (!chunk_header_ok(&h, a->nchunks, a->hdr.version) ||
		    a->scan_end + sizeof(h) + h.compressed > a->size)
			break;
		c = (struct archive_chunk_info){
			.offset = a->scan_end, .compressed = h.compressed,
			.uncompressed = h.uncompressed, .t_first = h.t_first,
			.t_last = h.t_last, .records = h.records,
			.stream = h.stream, .flags = h.flags, .crc = h.crc,
		};
		ret = add_chunk(a, &c);
		if (ret)
			return ret;
		a->scan_end += sizeof(h) + h.compressed;
		added++;
	}
	return added;
}

/* ------------------------------------------------------------------ */
/* The trailer                                                         */
/* ------------------------------------------------------------------ */

static struct section *find_sec(const struct archive_reader *a, uint32_t id)
{
	for (size_t i = 0; i < a->nsecs; i++)
		if (a->secs[i].id == id)
			return &a->secs[i];
	return NULL;
}

static int load_manifest(struct archive_reader *a, const struct section *s,
			 uint64_t nchunks, uint64_t chunks_end)
{
	const struct arch_manifest_entry *e = (const void *)s->data;
	uint64_t expect = sizeof(a->hdr);

	if (s->len % sizeof(*e) || s->len / sizeof(*e) != nchunks)
		return -EBADMSG;
	for (size_t i = 0; i < nchunks; i++, e++) {
		struct archive_chunk_info c = {
			.offset = e->offset, .compressed = e->compressed,
			.uncompressed = e->uncompressed, .t_first = e->t_first,
			.t_last = e->t_last, .records = e->records,
			.stream = e->stream, .flags = e->flags, .crc = e->crc,
		};

		/* Back to back from the header to the trailer. */
		if (e->offset != expect || !sizes_sane(e->compressed,
						       e->uncompressed) ||
		    e->t_first > e->t_last)
			return -EBADMSG;
		expect += sizeof(struct arch_chunk_header) + e->compressed;
		if (expect > chunks_end || add_chunk(a, &c))
			return expect > chunks_end ? -EBADMSG : -ENOMEM;
	}
	return expect == chunks_end ? 0 : -EBADMSG;
}

/* Variable entries: a fixed part with string lengths, strings, pad to 8. */
static const unsigned char *next_entry(const struct section *s, size_t *off,
				       size_t fixed, size_t strings)
{
	const unsigned char *p = s->data + *off;
	size_t len = fixed + strings;

	len += (8 - len % 8) % 8;
	if (len > s->len - *off)
		return NULL;
	*off += len;
	return p;
}

/* The string bytes after an entry's fixed part. */
typedef size_t (*entry_strings_fn)(const void *entry);

/* Entries in @s, each whole within it; -EBADMSG if one is not. */
static int count_entries(const struct section *s, size_t fixed,
			 entry_strings_fn strings, size_t *n)
{
	size_t off = 0;

	for (*n = 0; off < s->len; (*n)++)
		if (s->len - off < fixed ||
		    !next_entry(s, &off, fixed, strings(s->data + off)))
			return -EBADMSG;
	return 0;
}

static size_t name_strings(const void *p)
{
	return ((const struct arch_name_entry *)p)->name_len;
}

static size_t mapping_strings(const void *p)
{
	const struct arch_mapping_entry *e = p;

	return (size_t)e->path_len + e->build_id_len;
}

static size_t kimage_strings(const void *p)
{
	const struct arch_kimage_entry *e = p;

	return (size_t)e->name_len + e->build_id_len;
}

static size_t ksym_strings(const void *p)
{
	return ((const struct arch_ksym_entry *)p)->name_len;
}

static int load_names(struct archive_reader *a, const struct section *s)
{
	size_t n, off = 0;

	if (count_entries(s, sizeof(struct arch_name_entry), name_strings, &n))
		return -EBADMSG;
	a->names = calloc(n ? n : 1, sizeof(*a->names));
	if (!a->names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct arch_name_entry *e = (const void *)(s->data + off);

		next_entry(s, &off, sizeof(*e), e->name_len);
		a->names[i] = (struct archive_name){
			.kind = e->kind, .pid = e->pid, .tid = e->tid,
			.t_from = e->t_from, .t_to = e->t_to,
			.name = (const char *)(e + 1), .name_len = e->name_len,
		};
	}
	a->nnames = n;
	return 0;
}

static int load_mappings(struct archive_reader *a, const struct section *s)
{
	size_t n, off = 0;

	if (count_entries(s, sizeof(struct arch_mapping_entry), mapping_strings,
			  &n))
		return -EBADMSG;
	a->maps = calloc(n ? n : 1, sizeof(*a->maps));
	if (!a->maps)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct arch_mapping_entry *e = (const void *)(s->data + off);
		const char *str = (const char *)(e + 1);

		next_entry(s, &off, sizeof(*e),
			   (size_t)e->path_len + e->build_id_len);
		a->maps[i] = (struct archive_mapping){
			.pid = e->pid, .start = e->start, .end = e->end,
			.pgoff = e->pgoff, .time = e->time,
			.path = str, .path_len = e->path_len,
			.build_id = str + e->path_len,
			.build_id_len = e->build_id_len,
			.initial = e->flags & 1,
		};
	}
	a->nmaps = n;
	return 0;
}

static int load_kimages(struct archive_reader *a, const struct section *s)
{
	size_t n, off = 0;

	if (count_entries(s, sizeof(struct arch_kimage_entry), kimage_strings,
			  &n))
		return -EBADMSG;
	a->kimages = calloc(n ? n : 1, sizeof(*a->kimages));
	if (!a->kimages)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct arch_kimage_entry *e = (const void *)(s->data + off);
		const char *str = (const char *)(e + 1);

		next_entry(s, &off, sizeof(*e),
			   (size_t)e->name_len + e->build_id_len);
		a->kimages[i] = (struct archive_kimage){
			.start = e->start, .end = e->end,
			.name = str, .name_len = e->name_len,
			.build_id = str + e->name_len,
			.build_id_len = e->build_id_len,
			.kernel = e->flags & 1,
		};
	}
	a->nkimages = n;
	return 0;
}

static int load_ksyms(struct archive_reader *a, const struct section *s)
{
	size_t n, off = 0;

	if (count_entries(s, sizeof(struct arch_ksym_entry), ksym_strings, &n))
		return -EBADMSG;
	a->ksyms = calloc(n ? n : 1, sizeof(*a->ksyms));
	if (!a->ksyms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct arch_ksym_entry *e = (const void *)(s->data + off);

		next_entry(s, &off, sizeof(*e), e->name_len);
		a->ksyms[i] = (struct archive_ksym){
			.addr = e->addr, .size = e->size,
			.name = (const char *)(e + 1), .name_len = e->name_len,
		};
	}
	a->nksyms = n;
	return 0;
}

static int load_windows(struct archive_reader *a, const struct section *s)
{
	struct arch_windows_header h;
	uint64_t cells;

	if (s->len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, s->data, sizeof(h));
	cells = (uint64_t)h.ncpus * h.nwindows;
	if (!h.window_ns || h.ncpus > ARCH_SUMMARY_MAX_CPUS ||
	    cells > (s->len - sizeof(h)) / 4 ||
	    (s->len - sizeof(h) - cells * 4) >= 8)
		return -EBADMSG;
	a->windows = (struct archive_windows){
		.window_ns = h.window_ns, .t0 = h.t0, .ncpus = h.ncpus,
		.nwindows = h.nwindows,
		.samples = (const uint32_t *)(s->data + sizeof(h)),
	};
	a->have_windows = true;
	return 0;
}

/* The known sections, parsed once; an unsound one fails the open. */
static int load_summaries(struct archive_reader *a, const char **which)
{
	const struct section *s;
	int ret = 0;

	if ((s = find_sec(a, ARCHIVE_SEC_METRICS))) {
		/* Older, shorter layouts read as zeros for the new fields. */
		memcpy(&a->metrics, s->data, s->len < sizeof(a->metrics) ?
					     s->len : sizeof(a->metrics));
		a->have_metrics = true;
	}
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_THREADS))) {
		*which = "threads";
		if (s->len % sizeof(*a->threads))
			return -EBADMSG;
		a->threads = (void *)s->data;
		a->nthreads = s->len / sizeof(*a->threads);
	}
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_PROCESSES))) {
		*which = "processes";
		if (s->len % sizeof(*a->procs))
			return -EBADMSG;
		a->procs = (void *)s->data;
		a->nprocs = s->len / sizeof(*a->procs);
	}
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_WINDOWS)))
		*which = "windows", ret = load_windows(a, s);
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_NAMES)))
		*which = "names", ret = load_names(a, s);
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_MAPPINGS)))
		*which = "mappings", ret = load_mappings(a, s);
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_KIMAGES)))
		*which = "kernel images", ret = load_kimages(a, s);
	if (!ret && (s = find_sec(a, ARCHIVE_SEC_KSYMS)))
		*which = "kernel symbols", ret = load_ksyms(a, s);
	return ret;
}

/* An ARCH_SECTION_LZ4 section's bytes, decoded in place of the block. */
static int inflate(struct section *s)
{
	struct arch_section_lz4 z;
	unsigned char *out;
	int n;

	if (s->len < sizeof(z))
		return -EBADMSG;
	memcpy(&z, s->data, sizeof(z));
	if (!z.size || z.size > ARCH_MAX_SECTION_BYTES ||
	    s->len - sizeof(z) > (size_t)LZ4_compressBound((int)z.size))
		return -EBADMSG;
	out = malloc(z.size);
	if (!out)
		return -ENOMEM;
	n = LZ4_decompress_safe((const char *)s->data + sizeof(z), (char *)out,
				(int)(s->len - sizeof(z)), (int)z.size);
	if (n != (int)z.size) {
		free(out);
		return -EBADMSG;
	}
	free(s->data);
	s->data = out;
	s->len = z.size;
	return 0;
}

/*
 * The footer and what it points at.  1: loaded; 0: no sound footer (scan
 * instead); <0: a sound footer whose trailer is not (with @err).
 */
static int load_footer(struct archive_reader *a, char *err, size_t errlen)
{
	struct arch_section_entry *tab = NULL;
	const char *which = "manifest";
	struct arch_footer f;
	const struct section *man;
	uint64_t tab_len;
	int ret;

	if (a->size < sizeof(a->hdr) + sizeof(f))
		return 0;
	ret = arch_pread_full(a->fd, &f, sizeof(f), a->size - sizeof(f));
	if (ret)
		return ret;
	if (memcmp(f.magic, ARCH_FOOTER_MAGIC, sizeof(f.magic)) ||
	    f.crc != arch_crc32c(0, &f, offsetof(struct arch_footer, crc)))
		return 0;
	if (f.version != a->hdr.version || f.footer_size != sizeof(f))
		return arch_fail(err, errlen, -ENOTSUP,
				 "footer version %u, the header's is %u",
				 f.version, a->hdr.version);
	tab_len = (uint64_t)f.nsections * sizeof(*tab);
	if (f.nsections > ARCH_MAX_SECTIONS ||
	    f.table_offset + tab_len != a->size - sizeof(f) ||
	    f.chunks_end < sizeof(a->hdr) || f.chunks_end > f.table_offset)
		goto bad;
	tab = malloc(tab_len ? tab_len : 1);
	if (!tab)
		return -ENOMEM;
	ret = arch_pread_full(a->fd, tab, tab_len, f.table_offset);
	if (ret)
		goto out_free;
	if (f.table_crc != arch_crc32c(0, tab, tab_len))
		goto bad;
	a->secs = calloc(f.nsections ? f.nsections : 1, sizeof(*a->secs));
	if (!a->secs) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (uint32_t i = 0; i < f.nsections; i++) {
		struct section *s = &a->secs[a->nsecs];

		if (tab[i].offset < f.chunks_end ||
		    tab[i].length > ARCH_MAX_SECTION_BYTES ||
		    tab[i].offset + tab[i].length > f.table_offset)
			goto bad;
		s->id = tab[i].id;
		s->len = tab[i].length;
		s->data = malloc(s->len ? s->len : 1);
		if (!s->data) {
			ret = -ENOMEM;
			goto out_free;
		}
		a->nsecs++;
		ret = arch_pread_full(a->fd, s->data, s->len, tab[i].offset);
		if (ret)
			goto out_free;
		if (tab[i].crc != arch_crc32c(0, s->data, s->len)) {
			ret = arch_fail(err, errlen, -EBADMSG,
					"trailer section %u at offset %llu: checksum mismatch",
					s->id,
					(unsigned long long)tab[i].offset);
			goto out_free;
		}
		if ((tab[i].flags & ARCH_SECTION_LZ4) && (ret = inflate(s))) {
			arch_fail(err, errlen, ret,
				  "trailer section %u at offset %llu: LZ4 block does not decode",
				  s->id, (unsigned long long)tab[i].offset);
			goto out_free;
		}
	}
	man = find_sec(a, ARCHIVE_SEC_MANIFEST);
	ret = man ? load_manifest(a, man, f.nchunks, f.chunks_end) : -EBADMSG;
	if (!ret)
		ret = load_summaries(a, &which);
	if (ret) {
		arch_fail(err, errlen, ret,
			  "the trailer's %s section is unsound: %s",
			  which, strerror(-ret));
		goto out_free;
	}
	a->scan_end = f.chunks_end;
	free(tab);
	return 1;

bad:
	ret = arch_fail(err, errlen, -EBADMSG,
			"the footer points outside the file or at a damaged section table (scanning would still read the chunks)");
out_free:
	free(tab);
	return ret;
}

static void drop_trailer(struct archive_reader *a)
{
	for (size_t i = 0; i < a->nsecs; i++)
		free(a->secs[i].data);
	free(a->secs);
	free(a->names);
	free(a->maps);
	free(a->kimages);
	free(a->ksyms);
	a->secs = NULL;
	a->nsecs = 0;
	a->names = NULL;
	a->maps = NULL;
	a->kimages = NULL;
	a->ksyms = NULL;
	a->nchunks = 0;
	a->max_chunk = 0;
}

int archive_reader__open_fd(struct archive_reader **ap, int fd,
			    unsigned int flags, char *err, size_t errlen)
{
	struct archive_reader *a;
	struct stat st;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (fstat(fd, &st))
		return arch_fail(err, errlen, -errno,
				 "cannot stat the archive: %s",
				 strerror(errno));
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->fd = fd;
	a->size = (uint64_t)st.st_size;
	if (a->size < sizeof(a->hdr)) {
		ret = arch_fail(err, errlen, -ENOTSUP,
				"not an fxtprof archive: %llu bytes, shorter than its header",
				(unsigned long long)a->size);
		goto out_free;
	}
	ret = arch_pread_full(fd, &a->hdr, sizeof(a->hdr), 0);
	if (ret) {
		arch_fail(err, errlen, ret,
			  "cannot read the archive header: %s",
			  strerror(-ret));
		goto out_free;
	}
	if (memcmp(a->hdr.magic, ARCH_FILE_MAGIC, sizeof(a->hdr.magic))) {
		ret = arch_fail(err, errlen, -ENOTSUP,
				"not an fxtprof archive (no FXTPROFZ magic)");
		goto out_free;
	}
	if (a->hdr.version < ARCH_VERSION_MIN || a->hdr.version > ARCH_VERSION) {
		ret = arch_fail(err, errlen, -ENOTSUP,
				"archive format version %u, this reader reads versions %u to %u",
				a->hdr.version, ARCH_VERSION_MIN, ARCH_VERSION);
		goto out_free;
	}
	if (a->hdr.header_size != sizeof(a->hdr) ||
	    a->hdr.crc != arch_crc32c(0, &a->hdr,
				      offsetof(struct arch_file_header, crc))) {
		ret = arch_fail(err, errlen, -EBADMSG,
				"the archive header is damaged (checksum or size)");
		goto out_free;
	}
	a->index = ARCHIVE_INDEX_SCAN;
	a->scan_end = sizeof(a->hdr);
	ret = flags & ARCHIVE_OPEN_SCAN ? 0 : load_footer(a, err, errlen);
	/* A footer whose trailer is unsound: the chunks may still be good. */
	if (ret == -EBADMSG || ret == -ENOTSUP) {
		ret = 0;
		if (err && errlen)
			err[0] = '\0';
	}
	if (ret < 0)
		goto out_free;
	if (ret == 1) {
		a->index = ARCHIVE_INDEX_FOOTER;
	} else {
		drop_trailer(a);
		a->scan_end = sizeof(a->hdr);
		ret = scan(a);
		if (ret < 0) {
			arch_fail(err, errlen, ret,
				  "cannot scan the archive: %s",
				  strerror(-ret));
			goto out_free;
		}
	}
	*ap = a;
	return 0;

out_free:
	drop_trailer(a);
	free(a->chunks);
	free(a);
	return ret;
}

int archive_reader__open(struct archive_reader **ap, const char *path,
			 unsigned int flags, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	char msg[256];

	if (fd < 0)
		return arch_fail(err, errlen, -errno,
				 "cannot open %s: %s", path,
				 strerror(errno));
	ret = archive_reader__open_fd(ap, fd, flags, msg, sizeof(msg));
	if (ret) {
		close(fd);
		return arch_fail(err, errlen, ret, "%s: %s", path, msg);
	}
	(*ap)->own_fd = true;
	return 0;
}

void archive_reader__close(struct archive_reader *a)
{
	if (!a)
		return;
	if (a->own_fd)
		close(a->fd);
	drop_trailer(a);
	free(a->chunks);
	free(a);
}

enum archive_index archive_reader__index(const struct archive_reader *a)
{
	return a->index;
}

uint64_t archive_reader__tail_bytes(const struct archive_reader *a)
{
	return a->index == ARCHIVE_INDEX_SCAN ? a->size - a->scan_end : 0;
}

size_t archive_reader__nchunks(const struct archive_reader *a)
{
	return a->nchunks;
}

const struct archive_chunk_info *
archive_reader__chunk(const struct archive_reader *a, size_t i)
{
	return i < a->nchunks ? &a->chunks[i] : NULL;
}

uint32_t archive_reader__max_chunk(const struct archive_reader *a)
{
	return a->max_chunk;
}

size_t archive_reader__find_time(const struct archive_reader *a,
				 uint64_t t_ns)
{
	/* Chunk times overlap (CPUs drain in turn): a linear pass. */
	for (size_t i = 0; i < a->nchunks; i++)
		if (a->chunks[i].t_last >= t_ns)
			return i;
	return a->nchunks;
}

ssize_t archive_reader__read_chunk(const struct archive_reader *a, size_t i,
				   void *buf, size_t cap, char *err,
				   size_t errlen)
{
	const struct archive_chunk_info *c = archive_reader__chunk(a, i);
	struct arch_chunk_header *h;
	unsigned char *z, *coded = NULL;
	uint32_t crc, lz4_out;
	int n, ret;

	if (!c)
		return arch_fail(err, errlen, -ERANGE,
				 "no chunk %zu: the archive has %zu",
				 i, a->nchunks);
	if (cap < c->uncompressed)
		return arch_fail(err, errlen, -ENOSPC,
				 "chunk %zu needs %u bytes, the buffer has %zu", i,
				 c->uncompressed, cap);
	z = malloc(sizeof(*h) + c->compressed);
	if (!z)
		return -ENOMEM;
	ret = arch_pread_full(a->fd, z, sizeof(*h) + c->compressed, c->offset);
	if (ret) {
		arch_fail(err, errlen, ret, "chunk %zu at offset %llu: %s", i,
			  (unsigned long long)c->offset, strerror(-ret));
		goto out_free;
	}
	h = (void *)z;
	crc = arch_crc32c(arch_crc32c(0, h, offsetof(struct arch_chunk_header, crc)),
			  z + sizeof(*h), c->compressed);
	if (h->magic != ARCH_CHUNK_MAGIC || h->crc != c->crc || crc != c->crc ||
	    h->compressed != c->compressed ||
	    h->uncompressed != c->uncompressed) {
		ret = arch_fail(err, errlen, -EBADMSG,
				"chunk %zu at offset %llu: checksum mismatch (crc32c %08x, expected %08x)",
				i, (unsigned long long)c->offset, crc, c->crc);
		goto out_free;
	}
	/* Version 1 had the codec's bytes reserved, written as 0. */
	if (a->hdr.version < 2) {
		h->codec = ARCH_CODEC_NONE;
		h->coded = 0;
	}
	if (!codec_sane(h, a->hdr.version) || h->records != c->records) {
		ret = arch_fail(err, errlen, -EBADMSG,
				"chunk %zu at offset %llu: codec %u of %u bytes for %u records is not one this reader knows",
				i, (unsigned long long)c->offset, h->codec, h->coded,
				h->records);
		goto out_free;
	}
	lz4_out = h->codec == ARCH_CODEC_NONE ? c->uncompressed : h->coded;
	if (h->codec != ARCH_CODEC_NONE && !(coded = malloc(lz4_out))) {
		ret = -ENOMEM;
		goto out_free;
	}
	n = LZ4_decompress_safe((const char *)z + sizeof(*h),
				coded ? (char *)coded : buf,
				(int)c->compressed, (int)lz4_out);
	if (n != (int)lz4_out) {
		ret = arch_fail(err, errlen, -EBADMSG,
				"chunk %zu at offset %llu: LZ4 block does not decode to its %u bytes",
				i, (unsigned long long)c->offset, lz4_out);
		goto out_free;
	}
	if (coded) {
		ret = h->codec == ARCH_CODEC_COLUMNS ?
			chunk_codec__decode(coded, lz4_out, buf, c->uncompressed,
					    c->records) :
			chunk_codec2__decode(coded, lz4_out, buf, c->uncompressed,
					     c->records);
		if (ret) {
			arch_fail(err, errlen, ret,
				  "chunk %zu at offset %llu: its codec %u bytes do not decode to its %u bytes of FXT%s",
				  i, (unsigned long long)c->offset, h->codec,
				  c->uncompressed, ret == -ENOMEM ? " (out of memory)" : "");
			goto out_free;
		}
	}
	ret = (int)c->uncompressed;
out_free:
	free(coded);
	free(z);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Summaries                                                           */
/* ------------------------------------------------------------------ */

int archive_reader__metrics(const struct archive_reader *a,
			    struct archive_metrics *m)
{
	if (!a->have_metrics)
		return -ENOENT;
	*m = a->metrics;
	return 0;
}

#define GETTER(fn, type, field, nfield)					\
	int fn(const struct archive_reader *a, const type **v, size_t *n) \
	{								\
		if (a->index != ARCHIVE_INDEX_FOOTER)			\
			return -ENOENT;					\
		*v = a->field;						\
		*n = a->nfield;						\
		return 0;						\
	}

GETTER(archive_reader__threads, struct archive_thread_count, threads, nthreads)
GETTER(archive_reader__processes, struct archive_process_count, procs, nprocs)
GETTER(archive_reader__names, struct archive_name, names, nnames)
GETTER(archive_reader__mappings, struct archive_mapping, maps, nmaps)
GETTER(archive_reader__kimages, struct archive_kimage, kimages, nkimages)
GETTER(archive_reader__ksyms, struct archive_ksym, ksyms, nksyms)

int archive_reader__windows(const struct archive_reader *a,
			    struct archive_windows *w)
{
	if (!a->have_windows)
		return -ENOENT;
	*w = a->windows;
	return 0;
}

int archive_reader__section(const struct archive_reader *a, uint32_t id,
			    const void **data, size_t *len)
{
	const struct section *s = find_sec(a, id);

	if (!s)
		return -ENOENT;
	*data = s->data;
	*len = s->len;
	return 0;
}

size_t archive_reader__section_ids(const struct archive_reader *a,
				   uint32_t *ids, size_t cap)
{
	for (size_t i = 0; i < a->nsecs && i < cap; i++)
		ids[i] = a->secs[i].id;
	return a->nsecs;
}
