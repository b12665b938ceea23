# SPDX-License-Identifier: GPL-2.0-only
#
# tests/vm/build.mk - the VM tests: every tests/vm/test_*.c is a static
# kselftest program that /init runs after insmod; fxt_* are helpers the
# tests spawn (found next to the test, in /tests).

VM_TESTS := $(filter-out $(B)/tests/vm/test_mmap $(B)/tests/vm/test_unwind_walk \
	    $(B)/tests/vm/test_stack_copy,\
	    $(patsubst tests/vm/%.c,$(B)/tests/vm/%,$(wildcard tests/vm/test_*.c)))
VM_HELPERS := $(B)/tests/vm/fxt_child $(B)/tests/vm/fxt_fpchain \
	      $(B)/tests/vm/fxt_mapper $(B)/tests/vm/fxt_pingpong \
	      $(B)/tests/vm/fxt_nofp
VM_UTIL_OBJ := $(B)/tests/vm/vm_util.o

$(VM_TESTS): $(B)/tests/vm/%: $(B)/tests/vm/%.o $(VM_UTIL_OBJ) $(FXTPROF_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

$(B)/tests/vm/fxt_child: $(B)/tests/vm/fxt_child.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^

$(B)/tests/vm/fxt_mapper: $(B)/tests/vm/fxt_mapper.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^

$(B)/tests/vm/fxt_pingpong: $(B)/tests/vm/fxt_pingpong.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

# test_mmap reads the recording back with the FXT reader and computes
# build ids with the capture's own ELF note reader (user/source).
$(B)/tests/vm/test_mmap.o: CPPFLAGS += -Iuser -Iuser/fxt
$(B)/tests/vm/test_mmap: $(B)/tests/vm/test_mmap.o $(B)/lib/libsource.a \
		$(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

# The user stack test resolves this program's functions from its own ELF
# symbols, so: non-PIE (addresses are final), frame pointers everywhere
# (leaf functions too), -O1 and no inlining so the call chain is real.
FXT_FPCHAIN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline \
	-mno-omit-leaf-frame-pointer -fno-pie -no-pie -fno-optimize-sibling-calls
$(B)/tests/vm/fxt_fpchain: tests/vm/fxt_fpchain.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_FPCHAIN_CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $<

# The unwind test builds fxt_nofp's table in the VM with user/unwind/
# (libdw, linked statically as the board's fxtprof is).  fxt_nofp: no
# frame pointers anywhere (glibc's static qsort has none either), no
# sibling calls so that every frame is on the stack, non-PIE.
$(B)/tests/vm/test_unwind_walk.o: CPPFLAGS += -Iuser
$(B)/tests/vm/test_unwind_walk: $(B)/tests/vm/test_unwind_walk.o $(VM_UTIL_OBJ) \
		$(FXTPROF_LIB) $(UNWIND_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ \
		$(UNWIND_STATIC_LDLIBS) -lpthread

# test_stack_copy unwinds fxt_nofp's stack copies with user/unwind/'s
# stack_copy (libdwfl, in the same static libdw).
$(B)/tests/vm/test_stack_copy.o: CPPFLAGS += -Iuser
$(B)/tests/vm/test_stack_copy: $(B)/tests/vm/test_stack_copy.o $(VM_UTIL_OBJ) \
		$(FXTPROF_LIB) $(UNWIND_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ \
		$(UNWIND_STATIC_LDLIBS) -lpthread

FXT_NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls \
	-fno-pie -no-pie
$(B)/tests/vm/fxt_nofp: tests/vm/fxt_nofp.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_NOFP_CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $<

# fxt_throw: tests/unwind/throw.cpp, static, without frame pointers;
# x86_64 only, as no aarch64 C++ compiler is installed (test_unwind_walk
# skips its two tests where it is missing).
ifeq ($(ARCH),x86_64)
$(B)/tests/vm/fxt_throw: tests/unwind/throw.cpp
	@mkdir -p $(@D)
	g++ -O2 -g -fomit-frame-pointer $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $<
VM_HELPERS += $(B)/tests/vm/fxt_throw
endif

VM_TEST_PROGS += $(VM_TESTS) $(B)/tests/vm/test_mmap \
	$(B)/tests/vm/test_unwind_walk $(B)/tests/vm/test_stack_copy \
	$(VM_HELPERS)
