# SPDX-License-Identifier: GPL-2.0-only
#
# tests/report/build.mk - `fxtprof report` and `flamegraph` on recordings
# made by gen_profile from the real addresses of a frame-pointer program
# with a known chain main -> a -> b -> c (report_test.sh), and the profile
# loader on bad input (test_profile), each plain and under ASan+UBSan.
# Host only: the report commands need libdw.

REPORT_T := $(B)/tests/report

$(REPORT_T)/chain: tests/report/chain.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -o $@ $<

$(REPORT_T)/gen_profile: tests/report/gen_profile.c $(FXT_LIB) $(FXT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FXT_CPPFLAGS) $(CFLAGS) $< $(FXT_LIB) -o $@

$(REPORT_T)/run_report: tests/report/report_test.sh tests/report/svg_script.js \
		$(B)/bin/fxtprof \
		$(REPORT_T)/gen_profile $(REPORT_T)/chain
	@printf '#!/bin/sh\nexec sh %s %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/bin/fxtprof) $(abspath $(REPORT_T)/gen_profile) \
		$(abspath $(REPORT_T)/chain) > $@
	@chmod +x $@

# The same script on an fxtprof whose report path (the commands, the
# engine, the loader, the symbolizer, the FXT decoder) is built with
# ASan+UBSan.
REPORT_ASAN_LIBS := $(SYMBOLIZE_LIB_ASAN) $(B)/lib/libsource_bpf.a \
	$(B)/lib/libsource.a $(UNWIND_LIB_ASAN) \
	$(B)/lib/libstate.a $(B)/lib/libencode.a $(B)/lib/libsink.a $(ARCHIVE_LIB) \
	$(B)/lib/libtransport.a $(B)/lib/libfxtprof.a $(FXT_LIB_ASAN)
$(B)/asan/tests/report/fxtprof: $(CMD_SRCS) $(REPORT_SRCS) $(EXPORT_SRCS) \
		$(PROFILE_SRCS) $(PUSH_SRCS) $(BUILDID_SRCS) $(COLLECT_SRCS) \
		$(REPORT_ASAN_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -DFXTPROF_HAVE_SYMBOLS $(CFLAGS) \
		$(FXT_SAN_FLAGS) -o $@ $(CMD_SRCS) $(REPORT_SRCS) $(EXPORT_SRCS) \
		$(PROFILE_SRCS) $(PUSH_SRCS) $(BUILDID_SRCS) $(COLLECT_SRCS) \
		$(REPORT_ASAN_LIBS) $(CMD_LDLIBS) $(BPF_SOURCE_LDLIBS) \
		$(PUSH_LDLIBS)

$(B)/asan/tests/report/run_report: tests/report/report_test.sh \
		tests/report/svg_script.js $(B)/asan/tests/report/fxtprof \
		$(REPORT_T)/gen_profile $(REPORT_T)/chain
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/asan/tests/report/fxtprof) \
		$(abspath $(REPORT_T)/gen_profile) \
		$(abspath $(REPORT_T)/chain) > $@
	@chmod +x $@

PROFILE_TEST_CPPFLAGS = $(CPPFLAGS) $(FXT_CPPFLAGS) -Iuser -isystem $(KSFT_INC)
PROFILE_TEST_DEPS := tests/report/test_profile.c $(PROFILE_SRCS) \
	user/profile/profile.h user/profile/profile_annot.h $(FXT_HDRS)

$(REPORT_T)/test_profile: $(PROFILE_TEST_DEPS) $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(PROFILE_TEST_CPPFLAGS) $(CFLAGS) -Wno-unused-parameter \
		tests/report/test_profile.c $(PROFILE_SRCS) $(FXT_LIB) -o $@

$(B)/asan/tests/report/test_profile: $(PROFILE_TEST_DEPS) $(FXT_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(PROFILE_TEST_CPPFLAGS) $(CFLAGS) -Wno-unused-parameter \
		$(FXT_SAN_FLAGS) tests/report/test_profile.c \
		$(PROFILE_SRCS) $(FXT_LIB_ASAN) -o $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(REPORT_T)/run_report $(REPORT_T)/test_profile \
	      $(B)/asan/tests/report/run_report \
	      $(B)/asan/tests/report/test_profile
endif

# The scripts on gen_profile recordings alone, each run plain and on the
# ASan+UBSan fxtprof: run_NAME runs tests/report/NAME_test.sh.
#   $(REPORT_T)/run_region  --region, --kernel, --section and --by-region
#                on a recording with regions on two threads
#   $(REPORT_T)/run_diff    two recordings compared: diff, flamegraph
#                --diff, export --diff-base
# (run_report, above, has an explicit rule: it also needs chain.)
GEN_PROFILE_TESTS := region diff

$(REPORT_T)/run_%: tests/report/%_test.sh $(B)/bin/fxtprof \
		$(REPORT_T)/gen_profile
	@printf '#!/bin/sh\nexec sh %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/bin/fxtprof) $(abspath $(REPORT_T)/gen_profile) > $@
	@chmod +x $@

$(B)/asan/tests/report/run_%: tests/report/%_test.sh \
		$(B)/asan/tests/report/fxtprof $(REPORT_T)/gen_profile
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec sh %s %s %s\n' $(abspath $<) \
		$(abspath $(B)/asan/tests/report/fxtprof) \
		$(abspath $(REPORT_T)/gen_profile) > $@
	@chmod +x $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(GEN_PROFILE_TESTS:%=$(REPORT_T)/run_%) \
	      $(GEN_PROFILE_TESTS:%=$(B)/asan/tests/report/run_%)
endif

# The intervals each sample is in (user/profile/profile_annot.c).
ANNOT_TEST_DEPS := tests/report/test_annot.c $(PROFILE_SRCS) \
	user/profile/profile.h user/profile/profile_annot.h $(FXT_HDRS)

$(REPORT_T)/test_annot: $(ANNOT_TEST_DEPS) $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(PROFILE_TEST_CPPFLAGS) $(CFLAGS) -Wno-unused-parameter \
		tests/report/test_annot.c $(PROFILE_SRCS) $(FXT_LIB) -o $@

$(B)/asan/tests/report/test_annot: $(ANNOT_TEST_DEPS) $(FXT_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(PROFILE_TEST_CPPFLAGS) $(CFLAGS) -Wno-unused-parameter \
		$(FXT_SAN_FLAGS) tests/report/test_annot.c \
		$(PROFILE_SRCS) $(FXT_LIB_ASAN) -o $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(REPORT_T)/test_annot $(B)/asan/tests/report/test_annot
endif
