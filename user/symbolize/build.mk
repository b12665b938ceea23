# SPDX-License-Identifier: GPL-2.0-only
#
# user/symbolize/build.mk - the symbolizer: addresses to function names,
# source lines and inline frames, on libelf and elfutils' libdwfl; C++
# and Rust names demangled by libiberty.
#   $(B)/lib/libsymbolize.a       include "symbolize/symbolizer.h" with
#                                 -Iuser; link $(SYMBOLIZE_LDLIBS) after it
#   $(B)/asan/lib/libsymbolize.a  the same under ASan+UBSan, for tests
# Where SYMBOLS is set (the Makefile: x86_64, and arm64 against Debian's
# libraries for the package): the arm64 board build leaves symbolization
# out (libdw, lzma and bz2 in a static board binary).

ifneq ($(SYMBOLS),)
SYMBOLIZE_SRCS := user/symbolize/elf_image.c user/symbolize/kernel_syms.c \
	user/symbolize/dwarf_frames.c user/symbolize/sym_cache.c \
	user/symbolize/own_vdso.c user/symbolize/debuginfod_files.c \
	user/symbolize/demangle.c user/symbolize/symbolizer.c
SYMBOLIZE_HDRS := user/symbolize/symbolizer.h user/symbolize/elf_image.h \
	user/symbolize/kernel_syms.h user/symbolize/dwarf_frames.h \
	user/symbolize/sym_cache.h user/symbolize/own_vdso.h \
	user/symbolize/debuginfod_files.h user/symbolize/demangle.h \
	user/profile/profile.h
SYMBOLIZE_LIB := $(B)/lib/libsymbolize.a
SYMBOLIZE_LIB_ASAN := $(B)/asan/lib/libsymbolize.a
SYMBOLIZE_LDLIBS := -ldw -lelf -lz -liberty
SYMBOLIZE_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all

$(SYMBOLIZE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(SYMBOLIZE_SRCS:%.c=$(B)/%.o): $(SYMBOLIZE_HDRS)
$(SYMBOLIZE_LIB): $(SYMBOLIZE_SRCS:%.c=$(B)/%.o)

$(B)/asan/user/symbolize/%.o: user/symbolize/%.c $(SYMBOLIZE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser $(CFLAGS) $(SYMBOLIZE_SAN_FLAGS) -c -o $@ $<
$(SYMBOLIZE_LIB_ASAN): $(SYMBOLIZE_SRCS:%.c=$(B)/asan/%.o)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
endif
