# SPDX-License-Identifier: GPL-2.0-only
#
# tests/reader/build.mk - the reader's VM test, its helpers, the demo's
# host listener and the reader benchmark.
#
#   VM (VM_TEST_PROGS, /tests):
#     test_record    kselftest: fxtprof record end to end (file/tcp/unix)
#     rec_workload   the multi-process workload the test and demo record
#     fxtprof        the reader, linked static (the target's own build is
#                    dynamic on x86_64)
#   target (USER_PROGS):
#     fxt_sink       one-connection TCP listener saving to a file (demo)
#     bench_reader   drain + translate throughput (make bench-reader)
#
# The Makefile reads user/ fragments before tests/: the libraries and the
# reader's object list ($(READER_OBJS), user/reader/build.mk) are defined
# by now.  (The secondary expansion of $(READER_OBJS) below predates that
# order; it is harmless.)

RDR_FXT_LIB := $(FXT_LIB)
RDR_FXTPROF_LIB := $(FXTPROF_LIB)
RDR_FXT_CPPFLAGS := -Iuser/fxt -Iuser/reader

.SECONDEXPANSION:

$(B)/tests/reader/test_record.o $(B)/user/reader/bench_reader.o: \
	CPPFLAGS += $(RDR_FXT_CPPFLAGS)
# The bench's rings: tests/host/ring_sim.h, the module's producer code.
$(B)/user/reader/bench_reader.o: CPPFLAGS += -Itests/host

$(B)/tests/reader/fxtprof: $$(READER_OBJS) $(RDR_FXTPROF_LIB) $(RDR_FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -luring

$(B)/tests/reader/test_record: $(B)/tests/reader/test_record.o $(RDR_FXT_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

$(B)/tests/reader/rec_workload: $(B)/tests/reader/rec_workload.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

$(B)/bin/fxt_sink: $(B)/tests/reader/fxt_sink.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The same objects `fxtprof record` runs (an archive of the reader's
# objects but main.o, so only what the bench calls is linked), plus
# the ring simulator (RING_SIM_LIB, tests/host/build.mk).
RDR_AR := $(patsubst %gcc,%gcc-ar,$(filter %gcc,$(CC)))
RDR_AR := $(if $(RDR_AR),$(RDR_AR),$(AR))
$(B)/lib/libreader.a: $$(filter-out %/main.o,$$(READER_OBJS))
	@mkdir -p $(@D)
	rm -f $@ && $(RDR_AR) rcs $@ $^

$(B)/bin/bench_reader: $(B)/user/reader/bench_reader.o $(B)/lib/libreader.a \
		$(RING_SIM_LIB) $(RDR_FXTPROF_LIB) $(RDR_FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring

VM_TEST_PROGS += $(B)/tests/reader/test_record $(B)/tests/reader/rec_workload \
	$(B)/tests/reader/fxtprof
USER_PROGS += $(B)/bin/fxt_sink $(B)/bin/bench_reader
