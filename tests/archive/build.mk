# SPDX-License-Identifier: GPL-2.0-only
#
# tests/archive/build.mk - host tests of the replayable archive
# (user/archive/) behind the real pipeline, with the archive sink
# (user/sink/sink_archive.c).  kselftest harness, host-native; built
# plain and with ASan+UBSan.

ARCH_TEST_LIBS := $(B)/lib/libstate.a $(B)/lib/libencode.a \
		  $(B)/lib/libsink.a $(ARCHIVE_LIB) $(B)/lib/libtransport.a \
		  $(B)/lib/libfxt.a

# Archives written by encoders fxtprof no longer has (fixtures/README).
ARCH_FIXTURES := -DARCH_FIXTURES='"$(abspath tests/archive/fixtures)"'
$(B)/tests/archive/%.o: CPPFLAGS += -Iuser -Iuser/fxt -Itests/pipeline -Itests/vm \
	$(ARCH_FIXTURES)

$(B)/tests/archive/test_archive: $(B)/tests/archive/test_archive.o \
		$(ARCH_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) -lpthread

ARCH_TEST_SRCS := tests/archive/test_archive.c $(STATE_SRCS) \
	$(ENCODE_SRCS) $(SINK_SRCS) $(ARCHIVE_SRCS) $(TRANSPORT_SRCS)
$(B)/asan/tests/archive/test_archive: $(ARCH_TEST_SRCS) $(FXT_LIB_ASAN) \
		tests/archive/archive_gen.h tests/pipeline/synthetic_recording.h \
		user/archive/archive.h \
		user/archive/archive_format.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -Itests/pipeline $(ARCH_FIXTURES) \
		-isystem $(KSFT_INC) $(CFLAGS) -Wno-unused-parameter \
		$(FXT_SAN_FLAGS) $(ARCH_TEST_SRCS) $(FXT_LIB_ASAN) -o $@ \
		-luring $(ARCHIVE_LDLIBS) -lpthread

# test_chunk_codec: the chunk codec alone, on the pipeline's FXT.
$(B)/tests/archive/test_chunk_codec: $(B)/tests/archive/test_chunk_codec.o \
		$(ARCH_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) -lpthread

CODEC_TEST_SRCS := tests/archive/test_chunk_codec.c $(STATE_SRCS) \
	$(ENCODE_SRCS) $(SINK_SRCS) $(ARCHIVE_SRCS) $(TRANSPORT_SRCS)
$(B)/asan/tests/archive/test_chunk_codec: $(CODEC_TEST_SRCS) $(FXT_LIB_ASAN) \
		tests/archive/archive_gen.h tests/pipeline/synthetic_recording.h \
		user/archive/chunk_codec.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt -Itests/pipeline $(ARCH_FIXTURES) \
		-isystem $(KSFT_INC) $(CFLAGS) -Wno-unused-parameter \
		$(FXT_SAN_FLAGS) $(CODEC_TEST_SRCS) $(FXT_LIB_ASAN) -o $@ \
		-luring $(ARCHIVE_LDLIBS) -lpthread

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/archive/test_archive \
	$(B)/asan/tests/archive/test_archive \
	$(B)/tests/archive/test_chunk_codec \
	$(B)/asan/tests/archive/test_chunk_codec
endif

# test_archive_vm: fxtprof record to an archive in the VM (static).
$(B)/tests/archive/test_archive_vm: $(B)/tests/archive/test_archive_vm.o \
		$(B)/tests/vm/vm_util.o $(FXTPROF_LIB) $(ARCHIVE_LIB) $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ \
		$(ARCHIVE_LDLIBS) -lpthread

VM_TEST_PROGS += $(B)/tests/archive/test_archive_vm
