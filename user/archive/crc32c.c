// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the
 * kernel's crc32c() and iSCSI's, with the usual inversion in and out.
 *
 * The CPU's own instruction when it has one (SSE4.2's crc32 on x86_64,
 * the CRC extension on arm64), eight bytes at a time: the checksum then
 * costs a small fraction of LZ4's work.  Otherwise one byte at a time
 * through a 256-entry table built on first use.
 */
#include <pthread.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32	(1 << 7)
#endif
#endif

#include "archive_format.h"

static uint32_t crc_table[256];
static uint32_t (*crc_fn)(uint32_t crc, const unsigned char *p, size_t len);
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static uint32_t crc_bytes(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc, w;

	for (; len >= 8; p += 8, len -= 8) {
		__builtin_memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

static int crc_hw_ok(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__)
__attribute__((target("+crc")))
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		__builtin_memcpy(&w, p, 8);
		crc = __builtin_aarch64_crc32cx(crc, w);
	}
	while (len--)
		crc = __builtin_aarch64_crc32cb(crc, *p++);
	return crc;
}

static int crc_hw_ok(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}
#else
#define crc_hw		crc_bytes
static int crc_hw_ok(void)
{
	return 0;
}
#endif

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
	crc_fn = crc_hw_ok() ? crc_hw : crc_bytes;
}

/* Continue @crc (0 to start) over @len bytes. */
uint32_t arch_crc32c(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc_fn(~crc, data, len);
}
