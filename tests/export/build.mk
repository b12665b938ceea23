# SPDX-License-Identifier: GPL-2.0-only
#
# tests/export/build.mk - host tests of the exporters: `fxtprof export`
# (pprof, read back by `go tool pprof`) and `fxtprof symbolize` (Perfetto
# packets in FXT blobs, decoded by protoc against perfetto_profile.proto),
# on recordings written by export_testgen from the symbols of chain.c.
#   test_export         launcher of test_export.sh (TAP)
#   test_export_units   pb_writer, intern, blob records, the Perfetto
#                       emitter (kselftest harness), also under ASan+UBSan
#   export_tool         the two commands' own code, without main.c
#   export_testgen      writes the recordings, extracts the blobs
#   chain_recording.o   what export_testgen and push_testgen share for
#                       writing recordings of chain (also linked by
#                       tests/push)
#   chain               the known call chain, read, never run

EXPORT_TEST_DIR := $(B)/tests/export
EXPORT_TOOL_LIBS := $(B)/lib/libexport.a $(SYMBOLIZE_LIB) $(PROFILE_LIB) \
		    $(B)/lib/libfxt.a
# export.c's --region is the report engine's (user/report/report_annot.c).
EXPORT_TOOL_LIBS := $(B)/lib/libreport.a $(EXPORT_TOOL_LIBS)

# The symbolizer exists on x86_64 only (user/symbolize/build.mk): so do
# these, host tests all.
ifeq ($(ARCH),x86_64)
$(EXPORT_TEST_DIR)/%.o: CPPFLAGS += -Iuser -Iuser/cmd -Iuser/fxt
$(B)/user/cmd/export.o $(B)/user/cmd/symbolize.o \
$(B)/user/cmd/copy_unwind.o: CPPFLAGS += -Iuser -Iuser/fxt

# export.o reads archives through archive_input.o (user/cmd/archive_input.h).
$(EXPORT_TEST_DIR)/export_tool: $(EXPORT_TEST_DIR)/export_tool.o \
		$(B)/user/cmd/export.o $(B)/user/cmd/symbolize.o \
		$(B)/user/cmd/cmd_helpers.o $(B)/user/cmd/copy_unwind.o \
		$(B)/user/cmd/archive_input.o $(ARCHIVE_LIB) \
		$(EXPORT_TOOL_LIBS) $(UNWIND_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SYMBOLIZE_LDLIBS) $(ARCHIVE_LDLIBS)

$(EXPORT_TEST_DIR)/export_testgen: $(EXPORT_TEST_DIR)/export_testgen.o \
		$(EXPORT_TEST_DIR)/chain_recording.o $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lelf

# Frame pointers, no inlining, symbols: the chain stays main, a, b, c.
$(EXPORT_TEST_DIR)/chain: tests/export/chain.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -fno-inline -o $@ $<

$(EXPORT_TEST_DIR)/test_export: tests/export/test_export.sh \
		$(EXPORT_TEST_DIR)/export_tool $(EXPORT_TEST_DIR)/export_testgen \
		$(EXPORT_TEST_DIR)/chain $(B)/bin/fxtprof
	@printf '#!/bin/sh\nexec bash %s %s "$$@"\n' $(abspath $<) \
		$(abspath $(B)) > $@
	@chmod +x $@

# The units need no symbolizer: perfetto.c, pb_writer.c, intern.c and
# fxt_blob.c, compiled together (plain and sanitized).
EXPORT_UNIT_SRCS := tests/export/test_export_units.c \
	user/export/perfetto.c user/export/pb_writer.c user/export/intern.c
EXPORT_UNIT_HDRS := user/export/perfetto.h user/export/pb_writer.h \
	user/export/intern.h user/fxt/fxt.h
$(EXPORT_TEST_DIR)/test_export_units: $(EXPORT_UNIT_SRCS) $(FXT_LIB) \
		$(EXPORT_UNIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -isystem $(KSFT_INC) $(CFLAGS) \
		-Wno-unused-parameter $(EXPORT_UNIT_SRCS) $(FXT_LIB) -o $@
$(B)/asan/tests/export/test_export_units: $(EXPORT_UNIT_SRCS) \
		$(FXT_LIB_ASAN) $(EXPORT_UNIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -isystem $(KSFT_INC) $(CFLAGS) \
		-Wno-unused-parameter $(FXT_SAN_FLAGS) $(EXPORT_UNIT_SRCS) \
		$(FXT_LIB_ASAN) -o $@

HOST_TESTS += $(EXPORT_TEST_DIR)/test_export \
	$(EXPORT_TEST_DIR)/test_export_units \
	$(B)/asan/tests/export/test_export_units
endif
