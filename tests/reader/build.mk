# SPDX-License-Identifier: GPL-2.0-only
#
# tests/reader/build.mk - the reader's VM test, its helpers, the demo's
# host listener and the reader benchmark.
#
#   VM (VM_TEST_PROGS, /tests):
#     test_record    kselftest: fxtprof record end to end (file/tcp/unix)
#     rec_workload   the multi-process workload the test and demo record
#     (the static fxtprof they run is user/cmd's: $(B)/user/cmd/vm/fxtprof)
#   target (USER_PROGS):
#     fxt_sink       one-connection TCP listener saving to a file (demo)
#     bench_reader   drain + translate throughput (make bench-reader)
#
# Fragments under tests/ are parsed after user/, but the libraries are
# spelled out as paths all the same: no fragment relies on the order.

RDR_LIBS := $(B)/lib/libstate.a $(B)/lib/libencode.a $(B)/lib/libsink.a \
	    $(ARCHIVE_LIB) \
	    $(B)/lib/libtransport.a $(B)/lib/libfxtprof.a $(B)/lib/libfxt.a

$(B)/tests/reader/test_record.o: CPPFLAGS += -Iuser/fxt -Itests/vm
$(B)/tests/reader/bench_reader.o: CPPFLAGS += -Iuser -Iuser/fxt -Itests/host

$(B)/tests/reader/test_record: $(B)/tests/reader/test_record.o \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

# test_flight: the flight recorder and fxtprof trigger, with the module.
$(B)/tests/reader/test_flight.o: CPPFLAGS += -Iuser/fxt -Itests/pipeline -Itests/vm
$(B)/tests/reader/test_flight: $(B)/tests/reader/test_flight.o \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^

$(B)/tests/reader/rec_workload: $(B)/tests/reader/rec_workload.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

$(B)/bin/fxt_sink: $(B)/tests/reader/fxt_sink.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The pipeline's own parts, the ones `fxtprof record` runs, on rings of
# the real layout: the module's producer code (RING_SIM_LIB,
# tests/host/build.mk).
$(B)/bin/bench_reader: $(B)/tests/reader/bench_reader.o $(RING_SIM_LIB) $(RDR_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

VM_TEST_PROGS += $(B)/tests/reader/test_record $(B)/tests/reader/rec_workload \
	$(B)/tests/reader/test_flight
USER_PROGS += $(B)/bin/bench_reader $(B)/bin/fxt_sink

# test_annotations: libfxtprof-hooks.so in "fxtprof:" mode under fxtprof
# record, end to end.  Its workload is dynamic, as the applications it
# stands for are: it dlopen()s the library, which needs its shared
# objects in the VM next to the loader and libc (tests/symbols/build.mk).
$(B)/tests/reader/test_annotations.o: CPPFLAGS += -Iuser/fxt -Itests/vm
$(B)/tests/reader/test_annotations: $(B)/tests/reader/test_annotations.o \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^

$(B)/tests/reader/annot_workload: tests/reader/annot_workload.c \
		include/fxtprof_hooks.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(filter-out -static,$(LDFLAGS)) -o $@ $< \
		-ldl -lpthread

# The shared objects the library needs besides libc: liburing, and liblz4
# for the archive part its sink brings.
# Quiet: before setup has installed the compiler (make demo or check on a
# new machine) there is none to ask, and the make run after setup asks.
ANNOT_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
ANNOT_SHLIBS := liburing.so.2 liblz4.so.1
ifeq ($(ARCH),x86_64)
ANNOT_LIBDIR := /usr/lib/$(ANNOT_MULTIARCH)
else
ANNOT_LIBDIR := $(ARM64_ROOT)/usr/lib/$(ANNOT_MULTIARCH)
endif

VM_TEST_PROGS += $(B)/tests/reader/test_annotations \
	$(B)/tests/reader/annot_workload $(HOOKS_LIB)
VM_TEST_FILES += $(foreach l,$(ANNOT_SHLIBS),$(ANNOT_LIBDIR)/$(l):/lib/$(ANNOT_MULTIARCH)/$(l))
