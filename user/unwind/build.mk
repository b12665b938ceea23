# SPDX-License-Identifier: GPL-2.0-only
#
# user/unwind/build.mk - unwind tables: an ELF file's CFI, read with
# elfutils' libdw, compiled into the rows the module and the bpf source
# walk (Documentation/unwinding.md), and a cache of them by build id; and
# the host's unwind of samples' stack copies with libdwfl (stack_copy.h).
#   $(B)/lib/libunwindtab.a       include "unwind/unwind_table.h" with
#                                 -Iuser; link $(UNWIND_LDLIBS) after it
#   $(B)/asan/lib/libunwindtab.a  the same under ASan+UBSan, for tests
# Both targets: the board's static arm64 fxtprof builds tables too
# (scripts/setup.sh stages libdw for it).  Not "libunwind": that is
# another library's name.

UNWIND_SRCS := user/unwind/cfi_fde.c user/unwind/unwind_rule.c \
	       user/unwind/unwind_table.c user/unwind/unwind_build.c \
	       user/unwind/unwind_cache.c user/unwind/stack_copy.c
UNWIND_HDRS := $(wildcard user/unwind/*.h)
UNWIND_LIB := $(B)/lib/libunwindtab.a
UNWIND_LIB_ASAN := $(B)/asan/lib/libunwindtab.a
# A static link (arm64, the VM's programs) needs libdw's own libraries.
UNWIND_LDLIBS := -ldw -lelf -lz
UNWIND_STATIC_LDLIBS := -ldw -lelf -lz -llzma -lbz2

$(UNWIND_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(UNWIND_LIB): $(UNWIND_SRCS:%.c=$(B)/%.o)

$(B)/asan/user/unwind/%.o: user/unwind/%.c $(UNWIND_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser $(CFLAGS) $(FXT_SAN_FLAGS) -c -o $@ $<
$(UNWIND_LIB_ASAN): $(UNWIND_SRCS:%.c=$(B)/asan/%.o)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
