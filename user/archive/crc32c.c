// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), one
 * byte at a time through a 256-entry table built on first use.  The
 * archive checksums are small next to LZ4's work, so the simple table is
 * enough; the same function as the kernel's crc32c() and SSE4.2's crc32
 * instruction, with the usual inversion in and out.
 */
#include <pthread.h>

#include "archive_format.h"

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

/* Continue @crc (0 to start) over @len bytes. */
uint32_t arch_crc32c(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;

	pthread_once(&crc_once, crc_table_init);
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
