# SPDX-License-Identifier: GPL-2.0-only
#
# tests/collect/build.mk - the board's files collected through the stream
# (user/collect/, record --collect stream, receive --collect):
#   test_file_reasm     the reassembler on good and hostile chunks
#                       (kselftest harness), plain and under ASan+UBSan
#   run_record_collect  TAP: record --source bpf --collect stream into
#                       receive --collect on loopback; the program's file
#                       lands byte-identical and report --debug-dir names
#                       its functions once the original is gone (root,
#                       BTF)
#   collect_workload    spins in collect_leaf for N seconds

$(B)/tests/collect/%.o: CPPFLAGS += -Iuser
$(B)/tests/collect/test_file_reasm: $(B)/tests/collect/test_file_reasm.o \
		$(COLLECT_LIB) $(B)/lib/libsource.a $(FXT_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(B)/asan/tests/collect/test_file_reasm: tests/collect/test_file_reasm.c \
		$(COLLECT_SRCS) $(COLLECT_HDRS) user/source/elf_build_id.c \
		$(FXT_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -isystem $(KSFT_INC) $(CFLAGS) \
		-Wno-unused-parameter $(FXT_SAN_FLAGS) -o $@ $< \
		$(COLLECT_SRCS) user/source/elf_build_id.c $(FXT_LIB_ASAN)

# Dynamic, with frame pointers, no inlining: its functions keep frames.
$(B)/tests/collect/collect_workload: tests/collect/collect_workload.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -o $@ $<

$(B)/tests/collect/run_%: tests/collect/run_%.sh
	@mkdir -p $(@D)
	cp $< $@
$(B)/tests/collect/tap.sh $(B)/tests/collect/wait.sh: $(B)/tests/collect/%: \
		tests/scripts/%
	@mkdir -p $(@D)
	cp $< $@
$(B)/tests/collect/run_record_collect: $(B)/bin/fxtprof \
	$(B)/tests/collect/collect_workload \
	$(B)/tests/collect/tap.sh $(B)/tests/collect/wait.sh

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/collect/test_file_reasm \
	      $(B)/asan/tests/collect/test_file_reasm \
	      $(B)/tests/collect/run_record_collect
endif
