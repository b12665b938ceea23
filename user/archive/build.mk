# SPDX-License-Identifier: GPL-2.0-only
#
# user/archive/build.mk - the replayable archive (.fxtz): LZ4 chunks, each
# a segment of the pipeline, a manifest and summary sections
# (Documentation/archive-format.md).
#   $(B)/lib/libfxtarchive.a   include "archive/archive.h" with -Iuser;
#                              needs libfxt.a and -llz4.  Named so as
#                              not to be taken for the system libarchive.

ARCHIVE_SRCS := user/archive/crc32c.c user/archive/archive_set.c \
		user/archive/archive_summary.c user/archive/chunk_codec.c \
		user/archive/range_coder.c user/archive/chunk_codec2.c \
		user/archive/archive_writer.c \
		user/archive/archive_io.c user/archive/archive_reader.c \
		user/archive/archive_repair.c
ARCHIVE_LIB := $(B)/lib/libfxtarchive.a

$(ARCHIVE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(ARCHIVE_LIB): $(ARCHIVE_SRCS:%.c=$(B)/%.o)
ARCHIVE_LDLIBS := -llz4

# The range extractor (archive_extract.c, archive_extract.h), in the same
# library: `fxtprof extract` and the commands that read archives use it.
ARCHIVE_EXTRACT_SRCS := user/archive/archive_extract.c
$(ARCHIVE_EXTRACT_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(ARCHIVE_LIB): $(ARCHIVE_EXTRACT_SRCS:%.c=$(B)/%.o)
