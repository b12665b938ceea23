// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustar.c - see ustar.h.  Header layout (offsets in the 512-byte block):
 * name 0/100, mode 100/8, uid 108/8, gid 116/8, size 124/12, mtime
 * 136/12, chksum 148/8, typeflag 156, linkname 157/100, magic 257/6
 * "ustar\0", version 263/2 "00", uname 265/32, gname 297/32, devmajor
 * 329/8, devminor 337/8, prefix 345/155.  Numbers are octal, NUL
 * terminated; the checksum is the byte sum of the header with its own
 * field taken as spaces.
 */
#include "buildid/ustar.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define COPY_CHUNK	(64u << 10)

static int write_all(struct ustar *t, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(t->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		t->bytes += (uint64_t)n;
	}
	return 0;
}

/* An octal field of width w: w - 1 digits and a NUL. */
static int octal(char *field, size_t w, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%0*llo", (int)(w - 1),
			 (unsigned long long)v);

	if (n < 0 || (size_t)n > w - 1)
		return -EFBIG;
	memcpy(field, tmp, (size_t)n + 1);
	return 0;
}

/* Split name into prefix and name fields at a '/'. */
static int put_name(char *h, const char *name)
{
	size_t len = strlen(name), cut;

	if (len <= 100) {
		memcpy(h, name, len);
		return 0;
	}
	if (len > 255)
		return -ENAMETOOLONG;
	/* The last '/' that leaves at most 100 bytes after it, 155 before. */
	for (cut = len - 1; cut > 0; cut--) {
		if (name[cut] != '/')
			continue;
		if (len - cut - 1 > 100)
			return -ENAMETOOLONG;
		if (cut <= 155 && len - cut - 1 > 0) {
			memcpy(h + 345, name, cut);
			memcpy(h, name + cut + 1, len - cut - 1);
			return 0;
		}
	}
	return -ENAMETOOLONG;
}

static int header(struct ustar *t, const char *name, char type, mode_t mode,
		  uint64_t size, int64_t mtime)
{
	unsigned char h[USTAR_BLOCK];
	unsigned int sum = 0, i;
	int err;

	memset(h, 0, sizeof(h));
	err = put_name((char *)h, name);
	if (err)
		return err;
	if ((err = octal((char *)h + 100, 8, mode & 07777)) ||
	    (err = octal((char *)h + 108, 8, 0)) ||
	    (err = octal((char *)h + 116, 8, 0)) ||
	    (err = octal((char *)h + 124, 12, size)) ||
	    (err = octal((char *)h + 136, 12, mtime > 0 ? (uint64_t)mtime : 0)))
		return err;
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 5);
	memcpy(h + 297, "root", 5);
	memset(h + 148, ' ', 8);
	for (i = 0; i < USTAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	return write_all(t, h, sizeof(h));
}

int ustar__add_dir(struct ustar *t, const char *name, mode_t mode,
		   int64_t mtime)
{
	char buf[260];
	size_t len = strlen(name);

	if (len + 2 > sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, name, len + 1);
	if (!len || buf[len - 1] != '/')
		memcpy(buf + len, "/", 2);
	return header(t, buf, '5', mode, 0, mtime);
}

int ustar__add_file(struct ustar *t, const char *name, int src_fd,
		    uint64_t size, mode_t mode, int64_t mtime, int *read_err)
{
	static char buf[COPY_CHUNK];
	uint64_t off = 0;
	bool short_read = false;
	int err;

	*read_err = 0;
	err = header(t, name, '0', mode, size, mtime);
	if (err)
		return err;
	while (off < size) {
		size_t want = size - off < COPY_CHUNK ? (size_t)(size - off) :
			      COPY_CHUNK;
		ssize_t n = short_read ? 0 : pread(src_fd, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			*read_err = -errno;
		if (n <= 0) {
			/* Shrunk or unreadable: zeros keep the sizes true. */
			if (!*read_err)
				*read_err = -EIO;
			short_read = true;
			memset(buf, 0, want);
			n = (ssize_t)want;
		}
		err = write_all(t, buf, (size_t)n);
		if (err)
			return err;
		off += (uint64_t)n;
	}
	if (size % USTAR_BLOCK) {
		memset(buf, 0, USTAR_BLOCK);
		err = write_all(t, buf, USTAR_BLOCK - size % USTAR_BLOCK);
		if (err)
			return err;
	}
	return 0;
}

int ustar__finish(struct ustar *t)
{
	static const char zeros[2 * USTAR_BLOCK];

	return write_all(t, zeros, sizeof(zeros));
}
