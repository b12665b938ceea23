# SPDX-License-Identifier: GPL-2.0-only
#
# tests/push/build.mk - host tests of receive --push (user/push/): a
# capture server on loopback (capture_server.py, Python's standard
# library) stands in for Grafana Pyroscope and checks every request
# against the ingest API; `go tool pprof -raw` reads every body.
#   test_push       launcher of test_push.sh (TAP)
#   push_testgen    writes the recordings: tests/export/chain's functions,
#                   a clock object with the machine's names
# x86_64 only, as the symbolizer that --push needs.

PUSH_TEST_DIR := $(B)/tests/push

ifeq ($(ARCH),x86_64)
$(PUSH_TEST_DIR)/%.o: CPPFLAGS += -Iuser -Iuser/fxt -Itests/export

$(PUSH_TEST_DIR)/push_testgen: $(PUSH_TEST_DIR)/push_testgen.o \
		$(B)/tests/export/chain_recording.o $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lelf

$(PUSH_TEST_DIR)/test_push: tests/push/test_push.sh \
		tests/push/capture_server.py $(PUSH_TEST_DIR)/push_testgen \
		$(B)/tests/export/chain $(B)/bin/fxtprof
	@printf '#!/bin/sh\nexec bash %s %s "$$@"\n' $(abspath $<) \
		$(abspath $(B)) > $@
	@chmod +x $@

HOST_TESTS += $(PUSH_TEST_DIR)/test_push
endif
