# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bpf/build.mk - the eBPF source on this host (kernel with BTF,
# root): a driver that records through the pipeline record.c uses, the
# TAP tests of the source, and their workloads.  Host-native only.
#   $(B)/tests/bpf/bpf_record     driver: the bpf source -> stream state ->
#                                 FXT encoder -> sink, in an io_uring loop
#   $(B)/tests/bpf/test_bpf_source  TAP: rate, stacks, tasks, loss, errors,
#                                 kill -9
#   $(B)/tests/bpf/fp_workload    non-PIE, frame pointers, known functions

# The source's fragment lives in user/source/bpf/, which the top-level
# wildcard (user/*/build.mk) does not reach; until user/source/build.mk
# includes it, this fragment does.
ifndef BPF_SOURCE_LIB
include user/source/bpf/build.mk
endif

BPF_TEST_LIBS := $(BPF_SOURCE_LIB) $(B)/lib/libstate.a $(B)/lib/libencode.a \
		 $(B)/lib/libsink.a $(B)/lib/libtransport.a \
		 $(B)/lib/libfxtprof.a $(B)/lib/libfxt.a

$(B)/tests/bpf/%.o: CPPFLAGS += -Iuser -Iuser/fxt

$(B)/tests/bpf/bpf_record: $(B)/tests/bpf/bpf_record.o $(BPF_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(BPF_SOURCE_LDLIBS)

$(B)/tests/bpf/test_bpf_source: $(B)/tests/bpf/test_bpf_source.o \
		$(BPF_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(BPF_SOURCE_LDLIBS)

# Its functions' addresses are its symbol table's: no PIE, no inlining.
$(B)/tests/bpf/fp_workload: tests/bpf/fp_workload.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -fno-inline -no-pie -o $@ $<

$(B)/tests/bpf/run_bpf_record: tests/bpf/run_bpf_record.sh
	@mkdir -p $(@D)
	cp $< $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/bpf/test_bpf_source $(B)/tests/bpf/run_bpf_record
USER_PROGS += $(B)/tests/bpf/bpf_record $(B)/tests/bpf/fp_workload
endif
