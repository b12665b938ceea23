# SPDX-License-Identifier: MIT
#
# user/util/build.mk - containers every part of user/ may use, and that
# use nothing of fxtprof's: the hash map (hmap.h), growing arrays
# (array_grow.h, header only), the path of a file in a .build-id tree
# (build_id_path.h).
#   $(B)/lib/libutil.a        include "util/hmap.h" with -Iuser
#   $(B)/asan/lib/libutil.a   ASan + UBSan, for the sanitizer test builds

UTIL_SRCS := user/util/hmap.c user/util/build_id_path.c
UTIL_LIB := $(B)/lib/libutil.a
UTIL_LIB_ASAN := $(B)/asan/lib/libutil.a

$(UTIL_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(UTIL_LIB): $(UTIL_SRCS:%.c=$(B)/%.o)

$(B)/asan/user/util/%.o: user/util/%.c user/util/hmap.h user/util/build_id_path.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser $(CFLAGS) $(FXT_SAN_FLAGS) -c $< -o $@
$(UTIL_LIB_ASAN): $(UTIL_SRCS:%.c=$(B)/asan/%.o)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# libfxt (user/fxt/build.mk) carries these objects too: every program and
# test links it, last, and the builds from sources (the fuzz targets, the
# sanitized hooks library) take its FXT_LIB_SRCS.  So the parts that use
# util need no other link line; one that names $(UTIL_LIB) gets one copy.
# libsymbolize.a (x86_64 only) carries them as well: its tests link it
# alone.
FXT_LIB_SRCS += $(UTIL_SRCS)
$(FXT_LIB): $(UTIL_SRCS:%.c=$(B)/%.o)
$(FXT_LIB_ASAN): $(UTIL_SRCS:%.c=$(B)/asan/%.o)
ifneq ($(SYMBOLIZE_LIB),)
$(SYMBOLIZE_LIB): $(UTIL_SRCS:%.c=$(B)/%.o)
$(SYMBOLIZE_LIB_ASAN): $(UTIL_SRCS:%.c=$(B)/asan/%.o)
endif
