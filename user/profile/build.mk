# SPDX-License-Identifier: GPL-2.0-only
#
# user/profile/build.mk - a recording, loaded: samples with their frames,
# names at sample time, mappings, kernel images and symbols.
#   $(B)/lib/libprofile.a   include "profile/profile.h" with -Iuser;
#                           needs libfxt.a (the decoder)

PROFILE_SRCS := user/profile/profile.c user/profile/profile_annot.c \
		user/profile/profile_period.c user/profile/profile_runs.c
PROFILE_LIB := $(B)/lib/libprofile.a

$(PROFILE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser -Iuser/fxt
$(PROFILE_LIB): $(PROFILE_SRCS:%.c=$(B)/%.o)
