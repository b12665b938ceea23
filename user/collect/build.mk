# SPDX-License-Identifier: GPL-2.0-only
#
# user/collect/build.mk - a board's files, sent inside its stream by
# `record --collect stream`, put back together by `receive --collect DIR`
# into a .build-id tree (file_reasm.h).
#   $(B)/lib/libcollect.a   include "collect/file_reasm.h" with -Iuser;
#                           needs libsource.a (build ids from ELF notes)
#                           and libfxt.a

COLLECT_SRCS := user/collect/file_reasm.c
COLLECT_HDRS := user/collect/file_reasm.h user/fxt/fxt_profile.h \
		user/source/elf_build_id.h user/util/build_id_path.h
COLLECT_LIB := $(B)/lib/libcollect.a

$(COLLECT_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(COLLECT_SRCS:%.c=$(B)/%.o): $(COLLECT_HDRS)
$(COLLECT_LIB): $(COLLECT_SRCS:%.c=$(B)/%.o)
