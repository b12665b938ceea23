# SPDX-License-Identifier: GPL-2.0-only
#
# user/source/build.mk - the record sources.  Today the module's per-CPU
# rings (through libfxtprof, user/lib); an eBPF source and an annotation
# writer will sit next to it with the same drain interface.
#   $(B)/lib/libsource.a   include "source/ring_source.h" with -Iuser;
#                          needs libfxtprof.a

SOURCE_SRCS := user/source/ring_source.c

$(SOURCE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libsource.a: $(SOURCE_SRCS:%.c=$(B)/%.o)
