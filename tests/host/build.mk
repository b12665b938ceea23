# SPDX-License-Identifier: MIT
#
# tests/host/build.mk - the host tests (kselftest harness or TAP scripts,
# no kernel needed): the ring test against the module's own producer, the
# FXT tests in a normal and an ASan+UBSan flavour, the decoder fuzzer and
# the encoder benchmark, and the header tests.  Needs user/fxt/build.mk
# (FXT_LIB, FXT_CPPFLAGS), user/lib/build.mk (FXTPROF_LIB) and KSFT_INC.
#
#   HOST_TESTS += test_ring, normal + sanitizer FXT tests, the bounded fuzz
#                 run, the header tests
#   RING_SIM_LIB  = one ring in userspace, produced by kmod/kring.c
#                 (tests/host/ring_sim.h); for test_ring and bench_reader
#   FXT_BENCH   = the benchmark (not run by make check)
#   FXT_FUZZ_TIME = seconds the fuzz run lasts (default 30)

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

FXT_TESTS := test_fxt_encode test_fxt_roundtrip test_fxt_reader
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
# generated at build time by the encoder (gen_fxt_corpus), not committed.
FXT_CLANG ?= clang
FXT_FUZZ_TIME ?= 30
FXT_FUZZ := $(B)/fuzz/fuzz_fxt_reader
FXT_CORPUS := $(B)/fuzz/fxt_corpus

$(FXT_FUZZ): tests/host/fuzz_fxt_reader.c $(FXT_LIB_SRCS) $(FXT_HDRS)
	@mkdir -p $(@D)
	$(FXT_CLANG) -std=c11 -O1 -g -fno-omit-frame-pointer $(CPPFLAGS) \
		$(FXT_CPPFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $< $(FXT_LIB_SRCS) -o $@

$(B)/tests/host/gen_fxt_corpus: tests/host/gen_fxt_corpus.c $(FXT_LIB) $(FXT_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) -Itests/host $(CFLAGS) $(LDFLAGS) $< $(FXT_LIB) -o $@

# Probe once per make run whether clang can link a libFuzzer target.
FXT_HAVE_FUZZER := $(shell printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	$(FXT_CLANG) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null && echo y)

# A TAP wrapper so that `make check` runs the fuzzer like any host test
# (tests/host/fxt_fuzz_run.sh); without libFuzzer it fails, naming the
# packages that bring it.
$(B)/tests/host/run_fxt_fuzz: tests/host/fxt_fuzz_run.sh $(B)/tests/host/gen_fxt_corpus \
		$(if $(FXT_HAVE_FUZZER),$(FXT_FUZZ))
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s %s\n' $(abspath $<) \
		$(if $(FXT_HAVE_FUZZER),$(abspath $(FXT_FUZZ)),none) \
		$(abspath $(B)/tests/host/gen_fxt_corpus) $(abspath $(FXT_CORPUS)) \
		$(FXT_FUZZ_TIME) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/host/run_fxt_fuzz

# ---- headers --------------------------------------------------------
# The public headers and the library staged with the Makefile's own
# install commands ($(install_libfxtprof)); installed_headers.sh builds a
# program against that and nothing else.
INSTALLED_STAGE := $(B)/tests/host/installed
$(INSTALLED_STAGE)/stamp: include/libfxtprof.h include/uapi/linux/fxtprof.h \
		$(FXTPROF_LIB)
	rm -rf $(@D)
	$(call install_libfxtprof,$(@D)/include,$(@D)/lib)
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

HOST_TESTS += $(B)/tests/host/run_installed_headers $(B)/tests/host/run_header_names

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
# user/reader/report.c fed from memory, plain and under ASan+UBSan.
REPORT_TEST_SRCS := tests/host/test_report.c user/reader/report.c
REPORT_TEST_HDRS := user/reader/report.h user/reader/reader.h $(FXT_HDRS)

$(B)/tests/host/test_report: $(REPORT_TEST_SRCS) $(REPORT_TEST_HDRS) $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) -Iuser/reader $(FXT_TEST_CFLAGS) \
		$(REPORT_TEST_SRCS) $(FXT_LIB) -o $@

$(B)/asan/tests/host/test_report: $(REPORT_TEST_SRCS) $(REPORT_TEST_HDRS) $(FXT_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(FXT_TEST_CPPFLAGS) -Iuser/reader $(FXT_TEST_CFLAGS) $(FXT_SAN_FLAGS) \
		$(REPORT_TEST_SRCS) $(FXT_LIB_ASAN) -o $@

HOST_TESTS += $(B)/tests/host/test_report $(B)/asan/tests/host/test_report
