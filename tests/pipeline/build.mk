# SPDX-License-Identifier: GPL-2.0-only
#
# tests/pipeline/build.mk - host tests of the pipeline's parts on their
# own: the record queue, the FXT encoder's sample path, the stream state
# with a stand-in encoder (segments, error counting) and the sink's
# direct first send.  kselftest harness, host-native.

PIPE_TEST_LIBS := $(B)/lib/libstate.a $(B)/lib/libencode.a \
		  $(B)/lib/libsink.a $(ARCHIVE_LIB) $(B)/lib/libtransport.a \
		  $(B)/lib/libfxt.a

$(B)/tests/pipeline/%.o: CPPFLAGS += -Iuser -Iuser/fxt

$(B)/tests/pipeline/test_pipeline: $(B)/tests/pipeline/test_pipeline.o \
		$(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/pipeline/test_pipeline
endif

# test_symbols: the symbol records through state, encoder and checker,
# and the sources that make them (/proc sweep, kallsyms, ELF notes).
$(B)/tests/pipeline/test_symbols: $(B)/tests/pipeline/test_symbols.o \
		$(B)/lib/libsource.a $(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/pipeline/test_symbols
endif

# test_sched: SWITCH/WAKEUP validation (libfxtprof), their FXT scheduling
# records through state and encoder, word for word, and check.
$(B)/tests/pipeline/test_sched: $(B)/tests/pipeline/test_sched.o \
		$(FXTPROF_LIB) $(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)


# test_flight_window: the flight recorder's window behind the state and
# the encoder, plain and, from the sources, under ASan+UBSan.
$(B)/tests/pipeline/test_flight_window: $(B)/tests/pipeline/test_flight_window.o \
		$(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

FW_TEST_SRCS := tests/pipeline/test_flight_window.c $(STATE_SRCS) \
	$(ENCODE_SRCS) $(SINK_SRCS) $(ARCHIVE_SRCS) $(TRANSPORT_SRCS)
$(B)/asan/tests/pipeline/test_flight_window: $(FW_TEST_SRCS) $(FXT_LIB_ASAN) \
		tests/pipeline/snapshot_check.h tests/pipeline/synthetic_recording.h \
		user/sink/flight_window.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -isystem $(KSFT_INC) $(CFLAGS) \
		-Wno-unused-parameter $(FXT_SAN_FLAGS) $(FW_TEST_SRCS) \
		$(FXT_LIB_ASAN) -o $@ -luring $(ARCHIVE_LDLIBS)

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/pipeline/test_sched \
	$(B)/tests/pipeline/test_flight_window \
	$(B)/asan/tests/pipeline/test_flight_window
endif

# test_annotate: ANNOTATION validation (libfxtprof), the encoder's events
# for each kind, word for word, and the checker's pairing rules.
$(B)/tests/pipeline/test_annotate: $(B)/tests/pipeline/test_annotate.o \
		$(FXTPROF_LIB) $(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/pipeline/test_annotate
endif

# test_shared_stacks: stack references from the encoder to the profile,
# with and without sharing, refused definitions, segments, hand-made
# streams, an archive extract, and off-CPU waits (validated by
# libfxtprof).
$(B)/tests/pipeline/test_shared_stacks: $(B)/tests/pipeline/test_shared_stacks.o \
		$(PROFILE_LIB) $(FXTPROF_LIB) $(PIPE_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS)

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/pipeline/test_shared_stacks
endif
