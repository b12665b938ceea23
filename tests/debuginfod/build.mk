# SPDX-License-Identifier: GPL-2.0-only
#
# tests/debuginfod/build.mk - host tests of symbols from debuginfod and of
# `fxtprof buildid-archive` (tests/debuginfod/test_debuginfod.sh), with
# Debian's debuginfod serving on loopback, on export_testgen's recordings
# of tests/export/chain.c.
#   test_debuginfod   launcher of test_debuginfod.sh (TAP)
#   asan/.../test_debuginfod  the same on tests/report's ASan+UBSan fxtprof
#   chain_other       chain.c built otherwise: another build id, the
#                     wrong server's answer and the rebuilt file
# x86_64 only: the symbolizer is (user/symbolize/build.mk).

ifeq ($(ARCH),x86_64)
DEBUGINFOD_T := $(B)/tests/debuginfod

$(DEBUGINFOD_T)/chain_other: tests/export/chain.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -o $@ $<

$(DEBUGINFOD_T)/test_debuginfod: tests/debuginfod/test_debuginfod.sh \
		tests/debuginfod/serve.sh tests/debuginfod/wrong_server.py \
		$(DEBUGINFOD_T)/chain_other $(B)/tests/export/export_testgen \
		$(B)/tests/export/chain $(B)/bin/fxtprof
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s %s "$$@"\n' $(abspath $<) \
		$(abspath $(B)) > $@
	@chmod +x $@

$(B)/asan/tests/debuginfod/test_debuginfod: tests/debuginfod/test_debuginfod.sh \
		tests/debuginfod/serve.sh tests/debuginfod/wrong_server.py \
		$(DEBUGINFOD_T)/chain_other $(B)/tests/export/export_testgen \
		$(B)/tests/export/chain $(B)/asan/tests/report/fxtprof
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s %s %s "$$@"\n' $(abspath $<) \
		$(abspath $(B)) $(abspath $(B)/asan/tests/report/fxtprof) > $@
	@chmod +x $@

HOST_TESTS += $(DEBUGINFOD_T)/test_debuginfod \
	$(B)/asan/tests/debuginfod/test_debuginfod
endif
