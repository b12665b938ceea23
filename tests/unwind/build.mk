# SPDX-License-Identifier: GPL-2.0-only
#
# tests/unwind/build.mk - the unwind tables (user/unwind/) on the host:
# every row against libdw (test_unwind_cfi), bad input and the cache's cap
# (test_unwind_bad, plain and under ASan+UBSan), a real stack walked with
# a real table by the module's walk (test_unwind_walk), the recorder's
# side against a fake source
# (test_record_unwind), `fxtprof unwind` (run_unwind_cmd), and stack
# copies unwound on the host, then reported (test_stack_copy, on
# scopy_work, plain and under ASan+UBSan).
#
# The fixtures are built here without frame pointers: nofp.c for x86_64
# and, with the cross compiler, aarch64; throw.cpp; nofp with only
# .debug_frame (built without unwind tables, .eh_frame of the crt files
# removed), with no CFI (the same, without -g) and with no build id.

ifeq ($(ARCH),x86_64)
UW_T := $(B)/tests/unwind
UW_NOFP_FLAGS := -O2 -g -fomit-frame-pointer
UW_FIXTURES := $(UW_T)/nofp $(UW_T)/nofp-arm64 $(UW_T)/throw \
	$(UW_T)/scopy_work \
	$(UW_T)/nofp-debug-frame $(UW_T)/nofp-no-eh $(UW_T)/nofp-no-id
UW_TEST_FLAGS = $(CPPFLAGS) -Iuser -isystem $(KSFT_INC) \
	-DUNWIND_FIXTURES='"$(abspath $(UW_T))"' \
	-DUNWIND_ARM64_ROOT='"$(abspath $(DEPS)/arm64/root)"'

$(UW_T)/nofp: tests/unwind/nofp.c
	@mkdir -p $(@D)
	$(HOSTCC) $(UW_NOFP_FLAGS) -o $@ $<
$(UW_T)/scopy_work: tests/unwind/scopy_work.c
	@mkdir -p $(@D)
	$(HOSTCC) $(UW_NOFP_FLAGS) -o $@ $<
$(UW_T)/nofp-no-id: tests/unwind/nofp.c
	@mkdir -p $(@D)
	$(HOSTCC) $(UW_NOFP_FLAGS) -Wl,--build-id=none -o $@ $<
$(UW_T)/nofp-arm64: tests/unwind/nofp.c
	@mkdir -p $(@D)
	aarch64-linux-gnu-gcc $(UW_NOFP_FLAGS) -o $@ $<
$(UW_T)/throw: tests/unwind/throw.cpp
	@mkdir -p $(@D)
	g++ $(UW_NOFP_FLAGS) -o $@ $<
$(UW_T)/nofp-debug-frame: tests/unwind/nofp.c
	@mkdir -p $(@D)
	$(HOSTCC) $(UW_NOFP_FLAGS) -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -o $@.full $<
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr \
		$@.full $@
# Not a copy of nofp, whose build id it would keep (the cache would take
# it for nofp): no -g, no unwind tables, and a build id of its own.
$(UW_T)/nofp-no-eh: tests/unwind/nofp.c
	@mkdir -p $(@D)
	$(HOSTCC) -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -Wl,--build-id=0x6e6f2d6366692d31 -o $@.full $<
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr \
		$@.full $@

$(UW_T)/test_unwind_cfi: tests/unwind/test_unwind_cfi.c $(UNWIND_LIB) \
		$(UTIL_LIB) $(UNWIND_HDRS) $(UW_FIXTURES)
	$(CC) $(UW_TEST_FLAGS) $(CFLAGS) -o $@ $< $(UNWIND_LIB) $(UTIL_LIB) \
		$(UW_SCOPY_LDLIBS)

$(UW_T)/test_unwind_bad: tests/unwind/test_unwind_bad.c $(UNWIND_LIB) \
		$(UTIL_LIB) $(UNWIND_HDRS) $(UW_FIXTURES)
	$(CC) $(UW_TEST_FLAGS) $(CFLAGS) -o $@ $< $(UNWIND_LIB) $(UTIL_LIB) \
		$(UW_SCOPY_LDLIBS)
$(B)/asan/tests/unwind/test_unwind_bad: tests/unwind/test_unwind_bad.c \
		$(UNWIND_LIB_ASAN) $(UTIL_LIB_ASAN) $(UNWIND_HDRS) $(UW_FIXTURES)
	@mkdir -p $(@D)
	$(CC) $(UW_TEST_FLAGS) $(CFLAGS) $(FXT_SAN_FLAGS) -o $@ $< \
		$(UNWIND_LIB_ASAN) $(UTIL_LIB_ASAN) $(UNWIND_LDLIBS)

# Built as the programs it walks are: -O2, no frame pointers, its
# functions named for dladdr (-rdynamic); with the module's walk built
# for the host as tests/host/build.mk builds it (UNWIND_SIM_SRCS).
$(UW_T)/test_unwind_walk: tests/unwind/test_unwind_walk.c $(UNWIND_LIB) \
		$(UTIL_LIB) $(UNWIND_HDRS) $(UNWIND_SIM_SRCS) kmod/unwind.h
	@mkdir -p $(@D)
	$(CC) $(UW_TEST_FLAGS) $(KSHIM_CPPFLAGS) -std=gnu11 -Wall -Wextra \
		$(UW_NOFP_FLAGS) -rdynamic -o $@ $< $(UNWIND_SIM_SRCS) \
		$(UNWIND_LIB) $(UTIL_LIB) $(UNWIND_LDLIBS)

# Stack copies (user/unwind/stack_copy.c) of scopy_work, taken
# with perf_event_open, unwound; plain and under ASan+UBSan.
# The recording of them goes through the encoder and `fxtprof report`.
UW_SCOPY_LIBS := $(B)/lib/libencode.a $(B)/lib/libsink.a $(ARCHIVE_LIB) \
	$(B)/lib/libtransport.a $(B)/lib/libfxtprof.a $(FXT_LIB)
UW_SCOPY_LDLIBS := $(UNWIND_LDLIBS) $(ARCHIVE_LDLIBS) -luring
UW_SCOPY_FLAGS = $(UW_TEST_FLAGS) -Iuser/fxt -Iuser/lib -Itests/host
$(UW_T)/test_stack_copy: tests/unwind/test_stack_copy.c $(UNWIND_LIB) \
		$(UTIL_LIB) $(UNWIND_HDRS) $(UW_FIXTURES) $(UW_SCOPY_LIBS) \
		tests/host/fxt_test_util.h \
		$(B)/bin/fxtprof
	$(CC) $(UW_SCOPY_FLAGS) $(CFLAGS) \
		-DFXTPROF_BIN='"$(abspath $(B)/bin/fxtprof)"' -o $@ $< \
		$(UNWIND_LIB) $(UW_SCOPY_LIBS) $(UTIL_LIB) $(UW_SCOPY_LDLIBS)
# Under ASan+UBSan, the report is the sanitized fxtprof's (tests/report).
$(B)/asan/tests/unwind/test_stack_copy: tests/unwind/test_stack_copy.c \
		$(UNWIND_LIB_ASAN) $(UTIL_LIB_ASAN) $(UNWIND_HDRS) \
		$(UW_FIXTURES) $(UW_SCOPY_LIBS) tests/host/fxt_test_util.h \
		$(B)/asan/tests/report/fxtprof
	@mkdir -p $(@D)
	$(CC) $(UW_SCOPY_FLAGS) $(CFLAGS) $(FXT_SAN_FLAGS) \
		-DFXTPROF_BIN='"$(abspath $(B)/asan/tests/report/fxtprof)"' \
		-o $@ $< \
		$(UNWIND_LIB_ASAN) $(UW_SCOPY_LIBS) $(UTIL_LIB_ASAN) \
		$(UW_SCOPY_LDLIBS)

# The recorder's side, record_unwind.c, against a fake source.
$(UW_T)/test_record_unwind: tests/unwind/test_record_unwind.c \
		user/cmd/record_unwind.c user/cmd/record_unwind.h \
		user/cmd/record_unwind_procs.c user/cmd/record_unwind_procs.h \
		$(UW_T)/nofp $(UW_T)/throw \
		$(B)/lib/libsource.a $(B)/lib/libtransport.a $(UNWIND_LIB) \
		$(UTIL_LIB) $(UNWIND_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UW_TEST_FLAGS) -Iuser/cmd $(CFLAGS) -o $@ $< \
		user/cmd/record_unwind.c user/cmd/record_unwind_procs.c \
		$(B)/lib/libsource.a \
		$(B)/lib/libtransport.a $(UNWIND_LIB) $(UTIL_LIB) \
		$(UNWIND_LDLIBS) -luring -ldl -lpthread

$(UW_T)/run_unwind_cmd: tests/unwind/run_unwind_cmd.sh $(B)/bin/fxtprof \
		$(UW_FIXTURES)
	@printf '#!/bin/sh\nexec sh %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/bin/fxtprof) $(abspath $(UW_T)) > $@
	@chmod +x $@

HOST_TESTS += $(UW_T)/test_unwind_cfi $(UW_T)/test_unwind_bad \
	$(B)/asan/tests/unwind/test_unwind_bad $(UW_T)/test_unwind_walk \
	$(UW_T)/test_record_unwind $(UW_T)/run_unwind_cmd \
	$(UW_T)/test_stack_copy $(B)/asan/tests/unwind/test_stack_copy
endif
