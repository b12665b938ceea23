# SPDX-License-Identifier: GPL-2.0-only
#
# user/buildid/build.mk - a recording's mapped files, collected by build id
# into a tar (`fxtprof buildid-archive`, the board's `perf archive`).
#   $(B)/lib/libbuildid.a   include "buildid/buildid_archive.h" with -Iuser;
#                           needs libprofile.a, libsource.a (build ids
#                           from ELF notes) and libfxt.a
# Built for both architectures: it runs on the board, in the static arm64
# fxtprof, so it reads build ids without libelf and writes tar itself
# (user/buildid/ustar.h says why).

BUILDID_SRCS := user/buildid/buildid_archive.c user/buildid/ustar.c
BUILDID_HDRS := user/buildid/buildid_archive.h user/buildid/ustar.h \
		user/profile/profile.h user/source/elf_build_id.h
BUILDID_LIB := $(B)/lib/libbuildid.a

$(BUILDID_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(BUILDID_SRCS:%.c=$(B)/%.o): $(BUILDID_HDRS)
$(BUILDID_LIB): $(BUILDID_SRCS:%.c=$(B)/%.o)
