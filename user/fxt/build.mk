# SPDX-License-Identifier: MIT
#
# user/fxt/build.mk - the FXT library (encoder, reader, checker, dump) and
# the standalone fxt-dump / fxt-check tools.  Included by the top-level
# Makefile with B, CC, CFLAGS, CPPFLAGS set.  Two flavours are built:
#   $(B)/lib/libfxt.a        normal
#   $(B)/asan/lib/libfxt.a   ASan + UBSan, for the sanitizer test run
# Other code links $(FXT_LIB) and adds $(FXT_CPPFLAGS).

FXT_CPPFLAGS := -Iuser/fxt -Iuser
FXT_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all

FXT_LIB_SRCS := user/fxt/fxt_encode.c user/fxt/fxt_writer.c \
		user/fxt/fxt_strings.c user/fxt/fxt_utf8.c \
		user/fxt/fxt_reader.c user/fxt/fxt_check.c \
		user/fxt/fxt_dump.c user/fxt/fxt_tools.c \
		user/fxt/fxt_blob.c user/fxt/fxt_spans.c \
		user/fxt/fxt_profile.c
FXT_HDRS := user/fxt/fxt.h user/fxt/fxt_golden.h user/fxt/fxt_reader.h \
	    user/fxt/fxt_internal.h user/fxt/fxt_spans.h user/fxt/fxt_profile.h \
	    user/util/hmap.h

FXT_LIB := $(B)/lib/libfxt.a
FXT_LIB_ASAN := $(B)/asan/lib/libfxt.a

$(B)/user/fxt/%.o: user/fxt/%.c $(FXT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/asan/user/fxt/%.o: user/fxt/%.c $(FXT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) $(CFLAGS) $(FXT_SAN_FLAGS) -c $< -o $@

$(FXT_LIB): $(FXT_LIB_SRCS:%.c=$(B)/%.o)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(FXT_LIB_ASAN): $(FXT_LIB_SRCS:%.c=$(B)/asan/%.o)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(B)/bin/fxt-dump: $(B)/user/fxt/fxt_dump_tool.o $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

$(B)/bin/fxt-check: $(B)/user/fxt/fxt_check_tool.o $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

USER_PROGS += $(B)/bin/fxt-dump $(B)/bin/fxt-check
