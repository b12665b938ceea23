# SPDX-License-Identifier: GPL-2.0-only
#
# tests/socket/build.mk - the socket sink and `fxtprof receive`, over real
# sockets (socketpair, loopback TCP, unix), host-native with the kselftest
# harness; and the bench-socket benchmark.  test_stall is a VM test (both
# arches, static, libc only): it runs /tests/fxtprof record against a TCP
# peer that stalls or vanishes and checks that the kernel rings lose
# nothing.  The pipeline's parts are linked from their archives.
# bench_receive drives bin/fxtprof receive with sender threads (make
# bench-receive).

SOCK_LIBS := $(B)/lib/libstate.a $(B)/lib/libencode.a $(B)/lib/libsink.a \
	     $(ARCHIVE_LIB) \
	     $(B)/lib/libtransport.a $(B)/lib/libfxtprof.a $(B)/lib/libfxt.a
SOCK_CPPFLAGS = -Iuser -Iuser/fxt -Itests/socket

$(B)/tests/socket/%.o: CPPFLAGS += $(SOCK_CPPFLAGS)

$(B)/tests/socket/test_writer: $(B)/tests/socket/test_writer.o \
		$(B)/tests/socket/sock_util.o $(SOCK_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) -lpthread

# Drives bin/fxtprof (receive + send) as child processes.
$(B)/tests/socket/test_receive: $(B)/tests/socket/test_receive.o \
		$(B)/tests/socket/sock_util.o $(SOCK_LIBS) | $(B)/bin/fxtprof
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -luring $(ARCHIVE_LDLIBS)

# Drives bin/fxtprof send (and receive) as child processes.
$(B)/tests/socket/test_delivery: $(B)/tests/socket/test_delivery.o \
		$(B)/tests/socket/sock_util.o $(SOCK_LIBS) | $(B)/bin/fxtprof
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -luring $(ARCHIVE_LDLIBS) -lpthread

BENCH_SOCKET := $(B)/tests/socket/bench_socket
$(BENCH_SOCKET): $(B)/tests/socket/bench_socket.o \
		$(B)/tests/socket/sock_util.o $(SOCK_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) -lpthread

# make bench-receive (scripts/bench-receive.sh): one receiver, many
# senders, next to cat.  Needs bin/fxtprof.
BENCH_RECEIVE := $(B)/tests/socket/bench_receive
$(BENCH_RECEIVE): $(B)/tests/socket/bench_receive.o \
		$(B)/tests/socket/sock_util.o $(SOCK_LIBS) | $(B)/bin/fxtprof
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -luring $(ARCHIVE_LDLIBS) -lpthread

# VM (static, every ARCH): /tests/fxtprof is user/cmd's static build.
$(B)/tests/socket/test_stall: $(B)/tests/socket/test_stall.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^
VM_TEST_PROGS += $(B)/tests/socket/test_stall

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/socket/test_writer $(B)/tests/socket/test_receive \
	      $(B)/tests/socket/test_delivery
USER_PROGS += $(BENCH_SOCKET) $(BENCH_RECEIVE)
endif
