// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_blobs FILE > STREAM - write the payloads of every blob record
 * (type 5) of blob type 3 (Perfetto protobuf) of an FXT file, in file
 * order, to stdout: the one Trace stream Perfetto's FXT importer gives
 * its protobuf parser, for `protoc --decode=perfetto.protos.Trace`.
 *
 * Written from the FXT spec alone (record header: type bits 0-3, size in
 * words bits 4-15; blob: name ref bits 16-31, payload bytes 32-46, blob
 * type 48-55; an inline name follows the header, padded to 8 bytes), so
 * that it checks `fxtprof symbolize` rather than sharing its code.
 * Exits 1 on a truncated or malformed file, with the offset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_TYPE_PERFETTO	3

int main(int argc, char **argv)
{
	unsigned long long blobs = 0, bytes = 0;
	uint64_t word, off = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: fxt_blobs FILE > STREAM\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while (fread(&word, sizeof(word), 1, f) == 1) {
		unsigned int type = word & 0xf, words = (word >> 4) & 0xfff;
		uint8_t rec[0xfff * 8];

		if (words == 0) {
			fprintf(stderr, "fxt_blobs: zero-size record at offset %llu\n",
				(unsigned long long)off);
			return 1;
		}
		memcpy(rec, &word, 8);
		if (words > 1 && fread(rec + 8, 8, words - 1, f) != words - 1) {
			fprintf(stderr, "fxt_blobs: record at offset %llu cut short\n",
				(unsigned long long)off);
			return 1;
		}
		if (type == 5 && ((word >> 48) & 0xff) == BLOB_TYPE_PERFETTO) {
			unsigned int name = (word >> 16) & 0xffff;
			unsigned int size = (word >> 32) & 0x7fff;
			size_t at = 8;

			if (name & 0x8000)
				at += ((name & 0x7fff) + 7) / 8 * 8;
			if (at + size > (size_t)words * 8) {
				fprintf(stderr, "fxt_blobs: blob at offset %llu larger than its record\n",
					(unsigned long long)off);
				return 1;
			}
			fwrite(rec + at, 1, size, stdout);
			blobs++;
			bytes += size;
		}
		off += (uint64_t)words * 8;
	}
	fclose(f);
	fprintf(stderr, "fxt_blobs: %llu perfetto blobs, %llu bytes\n", blobs, bytes);
	return 0;
}
