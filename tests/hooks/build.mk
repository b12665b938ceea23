# SPDX-License-Identifier: GPL-2.0-only
#
# tests/hooks/build.mk - host tests of libfxtprof-hooks (user/hooks):
# loaded with dlopen() as applications and Kokkos load it, traces checked
# by `fxtprof check` and read back with libfxt's reader.
#   test_hooks           16 threads, every rule, bad destinations, a
#                        tcp:// peer that never reads
#   test_kokkos_loader   KOKKOS_TOOLS_LIBS, the kokkosp_* names
#   asan/.../test_hooks  test_hooks and the library, under ASan+UBSan
# The programs name the library and the fxtprof command by absolute path.

HOOKS_TEST_CPPFLAGS = -Iuser/fxt -DFXTPROF_BIN='"$(abspath $(B)/bin/fxtprof)"'
HOOKS_LIB_ASAN := $(B)/asan/lib/libfxtprof-hooks.so

$(B)/tests/hooks/%.o: CPPFLAGS += $(HOOKS_TEST_CPPFLAGS) \
	-DHOOKS_LIB='"$(abspath $(HOOKS_LIB))"'

HOOKS_TEST_RUNTIME := $(HOOKS_LIB) $(B)/bin/fxtprof

$(B)/tests/hooks/test_hooks: $(B)/tests/hooks/test_hooks.o \
		$(B)/tests/hooks/hooks_readback.o $(FXT_LIB) | $(HOOKS_TEST_RUNTIME)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

$(B)/tests/hooks/test_kokkos_loader: $(B)/tests/hooks/test_kokkos_loader.o \
		$(B)/tests/hooks/hooks_readback.o $(FXT_LIB) | $(HOOKS_TEST_RUNTIME)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The library under the sanitizers, from its sources and the pipeline's
# (the ASan runtime comes from the program that loads it).
HOOKS_ASAN_SRCS := $(HOOKS_SRCS) $(STATE_SRCS) $(ENCODE_SRCS) $(SINK_SRCS) \
	$(ARCHIVE_SRCS) $(TRANSPORT_SRCS) $(FXT_LIB_SRCS)
$(HOOKS_LIB_ASAN): $(HOOKS_ASAN_SRCS) $(HOOKS_MAP) $(wildcard user/hooks/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt $(CFLAGS) $(FXT_SAN_FLAGS) -fPIC \
		-shared -Wl,--version-script=$(HOOKS_MAP) -Wl,-Bsymbolic \
		-Wl,-z,nodelete -o $@ $(HOOKS_ASAN_SRCS) -luring $(ARCHIVE_LDLIBS) \
		-lpthread

HOOKS_ASAN_TEST_SRCS := tests/hooks/test_hooks.c tests/hooks/hooks_readback.c
$(B)/asan/tests/hooks/test_hooks: $(HOOKS_ASAN_TEST_SRCS) $(FXT_LIB_ASAN) \
		tests/hooks/hooks_api.h tests/hooks/hooks_readback.h \
		include/fxtprof_hooks.h | $(HOOKS_LIB_ASAN) $(B)/bin/fxtprof
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(HOOKS_TEST_CPPFLAGS) \
		-DHOOKS_LIB='"$(abspath $(HOOKS_LIB_ASAN))"' -isystem $(KSFT_INC) \
		$(CFLAGS) $(FXT_SAN_FLAGS) -o $@ $(HOOKS_ASAN_TEST_SRCS) \
		$(FXT_LIB_ASAN) -lpthread

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/hooks/test_hooks $(B)/tests/hooks/test_kokkos_loader \
	$(B)/asan/tests/hooks/test_hooks
endif

# fxt-bench-hooks (make bench-hooks, scripts/bench-hooks.sh): linked to the
# library on the host; for the VM, the same objects linked static (a
# static program cannot dlopen), passed to the VM by the script.
$(B)/tests/hooks/fxt-bench-hooks: $(B)/tests/hooks/bench_hooks.o $(HOOKS_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(B)/lib -l:libfxtprof-hooks.so \
		-Wl,-rpath,$(abspath $(B)/lib)

$(B)/tests/hooks/vm/fxt-bench-hooks: $(B)/tests/hooks/bench_hooks.o \
		$(HOOKS_SRCS:%.c=$(B)/pic/%.o) $(HOOKS_PIC_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $< \
		$(HOOKS_SRCS:%.c=$(B)/pic/%.o) $(HOOKS_PIC_LIBS) -luring \
		$(ARCHIVE_LDLIBS) -lpthread

# test_hooks_trigger (VM): fxtprof_trigger() under `fxtprof record
# --flight-recorder`; the library's PIC objects linked in statically.
$(B)/tests/hooks/test_hooks_trigger.o: CPPFLAGS += -Itests/pipeline -Itests/vm
$(B)/tests/hooks/test_hooks_trigger: $(B)/tests/hooks/test_hooks_trigger.o \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) \
		$(HOOKS_SRCS:%.c=$(B)/pic/%.o) $(HOOKS_PIC_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $< \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) \
		$(HOOKS_SRCS:%.c=$(B)/pic/%.o) $(HOOKS_PIC_LIBS) -luring \
		$(ARCHIVE_LDLIBS) -lpthread

VM_TEST_PROGS += $(B)/tests/hooks/test_hooks_trigger

# `make install` then `make uninstall` into a stage of the test's.
$(B)/tests/hooks/run_install_uninstall: tests/hooks/install_uninstall.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s %s\n' $(abspath $<) $(MAKE) \
		$(abspath .) $(ARCH) $(abspath $(B)/tests/hooks/uninstall-stage) > $@
	@chmod +x $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/hooks/run_install_uninstall
endif
