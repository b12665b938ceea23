# SPDX-License-Identifier: GPL-2.0-only
#
# tests/symbolize/build.mk - the symbolizer's host test, plain and under
# ASan+UBSan, its fixtures, and the benchmark.  x86_64 only, like the
# library (user/symbolize/build.mk).
#
#   HOST_TESTS += tests/symbolize/test_symbolize (+ asan/)
#   SYM_BENCH   = the benchmark, run by scripts/bench-symbolize.sh
#
# The fixtures are programs built at test build time with the host gcc
# (make_fixtures.sh): a known call chain, a PIE with a shared library, a
# stripped copy and its debug file, a rebuilt copy, a fake vmlinux.

ifeq ($(ARCH),x86_64)
SYM_FIX := $(B)/tests/symbolize/fixtures
SYM_FIX_SRCS := tests/symbolize/make_fixtures.sh tests/symbolize/chain.c \
	tests/symbolize/inl.c tests/symbolize/shlib.c \
	tests/symbolize/pie_main.c tests/symbolize/fake_vmlinux.S \
	tests/symbolize/cxx.cc
SYM_TEST_FLAGS = $(CPPFLAGS) -Iuser $(CFLAGS) \
	-DSYM_FIXTURES='"$(abspath $(SYM_FIX))"' \
	-DSYM_SRCDIR='"$(abspath tests/symbolize)"'

$(SYM_FIX)/stamp: $(SYM_FIX_SRCS)
	sh tests/symbolize/make_fixtures.sh $(HOSTCC) tests/symbolize $(SYM_FIX)

$(B)/tests/symbolize/test_symbolize: tests/symbolize/test_symbolize.c \
		$(SYMBOLIZE_LIB) $(SYMBOLIZE_HDRS) $(SYM_FIX)/stamp
	@mkdir -p $(@D)
	$(CC) $(SYM_TEST_FLAGS) $(LDFLAGS) -o $@ $< $(SYMBOLIZE_LIB) \
		$(SYMBOLIZE_LDLIBS)

$(B)/asan/tests/symbolize/test_symbolize: tests/symbolize/test_symbolize.c \
		$(SYMBOLIZE_LIB_ASAN) $(SYMBOLIZE_HDRS) $(SYM_FIX)/stamp
	@mkdir -p $(@D)
	$(CC) $(SYM_TEST_FLAGS) $(SYMBOLIZE_SAN_FLAGS) $(LDFLAGS) -o $@ $< \
		$(SYMBOLIZE_LIB_ASAN) $(SYMBOLIZE_LDLIBS)

HOST_TESTS += $(B)/tests/symbolize/test_symbolize \
	$(B)/asan/tests/symbolize/test_symbolize
endif

ifeq ($(ARCH),x86_64)
SYM_BENCH := $(B)/tests/symbolize/bench_symbolize
$(SYM_BENCH): tests/symbolize/bench_symbolize.c $(SYMBOLIZE_LIB) $(SYMBOLIZE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser $(CFLAGS) $(LDFLAGS) -o $@ $< $(SYMBOLIZE_LIB) \
		$(SYMBOLIZE_LDLIBS)
endif
