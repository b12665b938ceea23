# SPDX-License-Identifier: MIT
#
# tests/host/build.mk - the host tests (kselftest harness or TAP scripts,
# no kernel needed): the ring test against the module's own producer, the
# FXT and report tests in a normal and an ASan+UBSan flavour, a fuzzer per
# parser and the encoder benchmark, and the header tests.  Needs user/fxt/build.mk
# (FXT_LIB, FXT_CPPFLAGS), user/lib/build.mk (FXTPROF_LIB) and KSFT_INC.
#
#   HOST_TESTS += test_ring, normal + sanitizer FXT tests, the bounded fuzz
#                 run, the header tests
#   RING_SIM_LIB  = one ring in userspace, produced by kmod/kring.c
#                 (tests/host/ring_sim.h); for test_ring and bench_reader
#   FXT_BENCH   = the benchmark (not run by make check)
#   FXT_FUZZ_TIME = seconds each of the five fuzz runs lasts (default 12)

# ---- the ring -------------------------------------------------------
# kmod/kring.c, the module's producer core, built for userspace: the kshim
# headers stand in for the kernel primitives it includes, and must come
# before the system's (kshim/linux/types.h extends the system one).
# Built for every ARCH: bench_reader links it too.
KSHIM_CPPFLAGS := -Itests/host/kshim -Ikmod
RING_SIM_LIB := $(B)/tests/host/libringsim.a

$(B)/tests/host/kring.o: kmod/kring.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(KSHIM_CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<
$(B)/tests/host/ring_sim.o: CPPFLAGS += $(KSHIM_CPPFLAGS)

$(RING_SIM_LIB): $(B)/tests/host/ring_sim.o $(B)/tests/host/kring.o
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/tests/host/test_ring: $(B)/tests/host/test_ring.o $(RING_SIM_LIB) \
		$(FXTPROF_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

HOST_TESTS += $(B)/tests/host/test_ring

# ---- FXT ------------------------------------------------------------

FXT_TESTS := test_fxt_encode test_fxt_roundtrip test_fxt_reader test_fxt_sched
FXT_TEST_HDRS := tests/host/fxt_test_util.h $(FXT_HDRS)
# -isystem and -Wno-unused-parameter: the harness's TEST() expansions
# trip -Wextra (gcc silences system-header macros, clang does not).
FXT_TEST_CPPFLAGS = $(CPPFLAGS) $(FXT_CPPFLAGS) -isystem $(KSFT_INC) -Itests/host
FXT_TEST_CFLAGS = $(CFLAGS) -Wno-unused-parameter

$(B)/tests/host/test_fxt_%: tests/host/test_fxt_%.c $(FXT_LIB) $(FXT_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) $(FXT_TEST_CFLAGS) $< $(FXT_LIB) -o $@

$(B)/asan/tests/host/test_fxt_%: tests/host/test_fxt_%.c $(FXT_LIB_ASAN) $(FXT_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) $(FXT_TEST_CFLAGS) $(FXT_SAN_FLAGS) $< $(FXT_LIB_ASAN) -o $@

HOST_TESTS += $(FXT_TESTS:%=$(B)/tests/host/%) $(FXT_TESTS:%=$(B)/asan/tests/host/%)

# ---- benchmark ------------------------------------------------------
FXT_BENCH := $(B)/tests/host/bench_fxt
$(FXT_BENCH): tests/host/bench_fxt.c $(FXT_LIB) $(FXT_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) -Itests/host $(CFLAGS) $(LDFLAGS) $< $(FXT_LIB) -o $@

# ---- fuzzing --------------------------------------------------------
# libFuzzer ships in Debian's libclang-rt-14-dev.  The seed corpus is
# generated at build time by the encoder (gen_fxt_corpus), not committed;
# each target grows its own copy.  One target per parser: the decoder
# (fuzz_fxt_reader), `check` (fuzz_fxt_check), `dump` (fuzz_fxt_dump),
# `report` (fuzz_report) and receive's framing (fuzz_receive_framer).
# Each runs FXT_FUZZ_TIME seconds in `make check`, all five within 60 s.
FXT_CLANG ?= clang
FXT_FUZZ_TIME ?= 12
FXT_FUZZ_FLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FXT_FUZZERS := fuzz_fxt_reader fuzz_fxt_check fuzz_fxt_dump fuzz_report \
	fuzz_receive_framer

# $(B)/fuzz/NAME: tests/host/NAME.c and the sources it exercises.
FUZZ_SRCS_fuzz_fxt_reader := $(FXT_LIB_SRCS)
FUZZ_SRCS_fuzz_fxt_check := $(FXT_LIB_SRCS)
FUZZ_SRCS_fuzz_fxt_dump := $(FXT_LIB_SRCS)
FUZZ_SRCS_fuzz_report := user/report/report_summary.c $(FXT_LIB_SRCS)
FUZZ_SRCS_fuzz_receive_framer := user/cmd/framer.c
FUZZ_HDRS := $(FXT_HDRS) user/report/report_summary.h user/cmd/framer.h

define fuzz_build_rule
$(B)/fuzz/$(1): tests/host/$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(FXT_CLANG) $(FXT_FUZZ_FLAGS) $(CPPFLAGS) $(FXT_CPPFLAGS) -Iuser/cmd -Iuser/report -Iuser \
		$$< $(FUZZ_SRCS_$(1)) -o $$@
endef
$(foreach f,$(FXT_FUZZERS),$(eval $(call fuzz_build_rule,$(f))))

$(B)/tests/host/gen_fxt_corpus: tests/host/gen_fxt_corpus.c $(FXT_LIB) $(FXT_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) -Itests/host $(CFLAGS) $(LDFLAGS) $< $(FXT_LIB) -o $@

# Probe once per make run whether clang can link a libFuzzer target.
FXT_HAVE_FUZZER := $(shell printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	$(FXT_CLANG) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null && echo y)

# A TAP wrapper per target so that `make check` runs each like any host
# test (tests/host/fxt_fuzz_run.sh); without libFuzzer they fail, naming
# the packages that bring it.  run_fxt_fuzz is the decoder's.
FUZZ_RUN_fuzz_fxt_reader := run_fxt_fuzz
FUZZ_RUN_fuzz_fxt_check := run_fuzz_fxt_check
FUZZ_RUN_fuzz_fxt_dump := run_fuzz_fxt_dump
FUZZ_RUN_fuzz_report := run_fuzz_report
FUZZ_RUN_fuzz_receive_framer := run_fuzz_receive_framer

define fuzz_run_rule
$(B)/tests/host/$(FUZZ_RUN_$(1)): tests/host/fxt_fuzz_run.sh $(B)/tests/host/gen_fxt_corpus \
		$(if $(FXT_HAVE_FUZZER),$(B)/fuzz/$(1))
	@mkdir -p $$(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s %s %s\n' $$(abspath $$<) $(1) \
		$(if $(FXT_HAVE_FUZZER),$(abspath $(B)/fuzz/$(1)),none) \
		$(abspath $(B)/tests/host/gen_fxt_corpus) \
		$(abspath $(B)/fuzz/$(1).corpus) $(FXT_FUZZ_TIME) > $$@
	@chmod +x $$@

HOST_TESTS += $(B)/tests/host/$(FUZZ_RUN_$(1))
endef
$(foreach f,$(FXT_FUZZERS),$(eval $(call fuzz_run_rule,$(f))))

# ---- headers --------------------------------------------------------
# The public headers and the libraries staged with the Makefile's own
# install commands ($(install_fxtprof)); installed_headers.sh builds a
# program against that and nothing else.
INSTALLED_STAGE := $(B)/tests/host/installed
$(INSTALLED_STAGE)/stamp: include/libfxtprof.h include/uapi/linux/fxtprof.h \
		include/fxtprof_hooks.h $(FXTPROF_LIB) $(HOOKS_LIB)
	rm -rf $(@D)
	$(call install_fxtprof,$(@D)/include,$(@D)/lib)
	@touch $@

$(B)/tests/host/run_installed_headers: tests/host/installed_headers.sh \
		tests/host/installed_headers.c $(INSTALLED_STAGE)/stamp
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s %s\n' $(abspath $<) $(CC) \
		$(abspath $(INSTALLED_STAGE)) $(abspath tests/host/installed_headers.c) \
		$(abspath $(B)/tests/host/installed_headers) > $@
	@chmod +x $@

$(B)/tests/host/run_header_names: tests/host/header_names.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s\n' $(abspath $<) $(abspath .) > $@
	@chmod +x $@

# `make install DESTDIR=... PREFIX=/usr` itself, into a stage of the test's.
$(B)/tests/host/run_install_layout: tests/host/install_layout.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s %s %s\n' $(abspath $<) $(MAKE) \
		$(abspath .) $(ARCH) $(CC) $(abspath $(B)/tests/host/install-stage) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/host/run_installed_headers $(B)/tests/host/run_header_names \
	$(B)/tests/host/run_install_layout

# ---- documentation ----------------------------------------------------
# The ioctl table of Documentation/abi.md against the uapi header.
$(B)/tests/host/test_abi_doc.bin: tests/host/test_abi_doc.c include/uapi/linux/fxtprof.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

$(B)/tests/host/run_abi_doc: $(B)/tests/host/test_abi_doc.bin
	@printf '#!/bin/sh\nexec %s %s\n' $(abspath $<) $(abspath Documentation/abi.md) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/host/run_abi_doc

# ---- report -----------------------------------------------------------
# user/report/report_summary.c fed from memory, plain and under ASan+UBSan.
REPORT_TEST_SRCS := tests/host/test_report.c user/report/report_summary.c
REPORT_TEST_HDRS := user/report/report_summary.h $(FXT_HDRS)

$(B)/tests/host/test_report: $(REPORT_TEST_SRCS) $(REPORT_TEST_HDRS) $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) -Iuser/report -Iuser $(FXT_TEST_CFLAGS) \
		$(REPORT_TEST_SRCS) $(FXT_LIB) -o $@

$(B)/asan/tests/host/test_report: $(REPORT_TEST_SRCS) $(REPORT_TEST_HDRS) $(FXT_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) -Iuser/report -Iuser $(FXT_TEST_CFLAGS) $(FXT_SAN_FLAGS) \
		$(REPORT_TEST_SRCS) $(FXT_LIB_ASAN) -o $@

HOST_TESTS += $(B)/tests/host/test_report $(B)/asan/tests/host/test_report

# ---- the user stack walk ------------------------------------------------
# kmod/unwind_walk.c and kmod/unwind_rows.c, the module's walk and its
# table checker, built for the host as kring.c is, plain and under
# ASan+UBSan (the checker is fuzzed there).
UNWIND_SIM_SRCS := kmod/unwind_walk.c kmod/unwind_rows.c
UNWIND_TEST_DEPS := tests/host/test_unwind.c $(UNWIND_SIM_SRCS) kmod/unwind.h \
	tests/host/kshim/linux/uaccess.h
UNWIND_TEST_CPPFLAGS = $(CPPFLAGS) $(KSHIM_CPPFLAGS) -isystem $(KSFT_INC)

$(B)/tests/host/test_unwind: $(UNWIND_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(UNWIND_TEST_CPPFLAGS) $(FXT_TEST_CFLAGS) $< $(UNWIND_SIM_SRCS) -o $@

$(B)/asan/tests/host/test_unwind: $(UNWIND_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(UNWIND_TEST_CPPFLAGS) $(FXT_TEST_CFLAGS) $(FXT_SAN_FLAGS) $< \
		$(UNWIND_SIM_SRCS) -o $@

HOST_TESTS += $(B)/tests/host/test_unwind $(B)/asan/tests/host/test_unwind
