# SPDX-License-Identifier: GPL-2.0-only
#
# tests/socket/build.mk - the socket writer and receiver, over real
# sockets (socketpair, loopback TCP, unix), host-native with the kselftest
# harness; and the bench-socket benchmark.  test_stall is a VM test (both
# arches, static, libc only): it runs /tests/fxtprof record against a TCP
# peer that stalls or vanishes and checks that the kernel rings lose
# nothing.  bench_receive drives bin/fxtprof receive with sender
# threads (make bench-receive).  Links the reader's objects
# (out, evloop, translate, names, netaddr) directly.  The Makefile reads
# user/ fragments first, so $(FXT_LIB) and $(FXTPROF_LIB) would do; the
# paths below are the same files spelled out.

SOCK_TEST_OBJS := $(addprefix $(B)/user/reader/,out.o evloop.o translate.o \
		  names.o netaddr.o)
SOCK_CPPFLAGS = $(FXT_CPPFLAGS) -Iuser/reader -Itests/socket

$(B)/tests/socket/%.o: CPPFLAGS += $(SOCK_CPPFLAGS)

$(B)/tests/socket/test_writer: $(B)/tests/socket/test_writer.o \
		$(B)/tests/socket/sock_util.o $(SOCK_TEST_OBJS) \
		$(B)/lib/libfxtprof.a $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring -lpthread

# Drives bin/fxtprof (receive + send) as child processes.
$(B)/tests/socket/test_receive: $(B)/tests/socket/test_receive.o \
		$(B)/tests/socket/sock_util.o $(SOCK_TEST_OBJS) $(B)/lib/libfxt.a \
		| $(B)/bin/fxtprof
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -luring

BENCH_SOCKET := $(B)/tests/socket/bench_socket
$(BENCH_SOCKET): $(B)/tests/socket/bench_socket.o \
		$(B)/tests/socket/sock_util.o $(SOCK_TEST_OBJS) \
		$(B)/lib/libfxtprof.a $(B)/lib/libfxt.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring -lpthread

# make bench-receive (scripts/bench-receive.sh): one receiver, many
# senders, next to cat.  Needs bin/fxtprof.
BENCH_RECEIVE := $(B)/tests/socket/bench_receive
$(BENCH_RECEIVE): $(B)/tests/socket/bench_receive.o \
		$(B)/tests/socket/sock_util.o $(SOCK_TEST_OBJS) $(B)/lib/libfxt.a \
		| $(B)/bin/fxtprof
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -luring -lpthread

# VM (static, every ARCH): /tests/fxtprof comes from tests/reader/build.mk.
$(B)/tests/socket/test_stall: $(B)/tests/socket/test_stall.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^
VM_TEST_PROGS += $(B)/tests/socket/test_stall

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/socket/test_writer $(B)/tests/socket/test_receive
USER_PROGS += $(BENCH_SOCKET) $(BENCH_RECEIVE)
endif
