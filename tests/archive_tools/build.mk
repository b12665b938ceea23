# SPDX-License-Identifier: GPL-2.0-only
#
# tests/archive_tools/build.mk - the archive's tools (`fxtprof info`,
# `extract`, `archive repair`, dump/check/send/report/flamegraph/export
# and `receive --archive` on archives) on archives written by
# gen_archive, which writes the same synthetic recording as a plain FXT
# file and as an archive (archive_tools_test.sh).  Host only: report
# needs libdw.

ARTOOLS_T := $(B)/tests/archive_tools

$(ARTOOLS_T)/gen_archive: tests/archive_tools/gen_archive.c $(B)/lib/libfxtarchive.a \
		$(FXT_LIB) $(FXT_HDRS) user/archive/archive.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) -Iuser $(CFLAGS) $(LDFLAGS) $< \
		$(B)/lib/libfxtarchive.a $(FXT_LIB) -llz4 -o $@

$(ARTOOLS_T)/run_archive_tools: tests/archive_tools/archive_tools_test.sh \
		$(B)/bin/fxtprof $(ARTOOLS_T)/gen_archive
	@printf '#!/bin/sh\nexec sh %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/bin/fxtprof) $(abspath $(ARTOOLS_T)/gen_archive) > $@
	@chmod +x $@

HOST_TESTS += $(ARTOOLS_T)/run_archive_tools
# Host programs (the tests' and the bench's): not cross-built.
ifeq ($(ARCH),x86_64)
USER_PROGS += $(ARTOOLS_T)/gen_archive
endif

# The writer's compression speed, for `make bench-archive`.
$(ARTOOLS_T)/bench_archive: tests/archive_tools/bench_archive.c \
		$(B)/lib/libfxtarchive.a $(FXT_LIB) user/archive/archive.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser $(CFLAGS) $(LDFLAGS) $< $(B)/lib/libfxtarchive.a \
		$(FXT_LIB) -llz4 -o $@

ifeq ($(ARCH),x86_64)
USER_PROGS += $(ARTOOLS_T)/bench_archive
endif

# Where codec 2's bytes go (Documentation/performance.md, the archive
# section): it builds the codec 2 sources itself, with RC_COST.
$(ARTOOLS_T)/codec_bytes: tests/archive_tools/codec_bytes.c \
		user/archive/chunk_codec2.c user/archive/range_coder.c \
		user/archive/range_coder.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/archive $(CFLAGS) $(LDFLAGS) $< \
		-llz4 -lm -o $@

ifeq ($(ARCH),x86_64)
USER_PROGS += $(ARTOOLS_T)/codec_bytes
endif

# The same script on the fxtprof that tests/report builds with
# ASan+UBSan (the commands, archive_input.c among them).
$(B)/asan/tests/archive_tools/run_archive_tools: \
		tests/archive_tools/archive_tools_test.sh \
		$(B)/asan/tests/report/fxtprof $(ARTOOLS_T)/gen_archive
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/asan/tests/report/fxtprof) \
		$(abspath $(ARTOOLS_T)/gen_archive) > $@
	@chmod +x $@

HOST_TESTS += $(B)/asan/tests/archive_tools/run_archive_tools
