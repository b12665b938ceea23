# SPDX-License-Identifier: GPL-2.0-only
#
# user/cmd/build.mk - the fxtprof command (record, send, receive, dump,
# check, report): thin front ends that assemble the pipeline's parts.
#   $(B)/bin/fxtprof           the target's build (dynamic on x86_64)
#   $(B)/user/cmd/vm/fxtprof   the same objects linked static, for the VM
#                              suite's /tests (tests/reader, tests/socket)
# Fragments are parsed in name order and user/cmd comes first, so the
# libraries of the other parts are spelled out as paths.

CMD_SRCS := user/cmd/main.c user/cmd/record.c user/cmd/send.c \
	    user/cmd/receive.c user/cmd/framer.c user/cmd/report.c \
	    user/cmd/delivery.c
CMD_OBJS := $(CMD_SRCS:%.c=$(B)/%.o)
# In link order: a part before the parts it uses.
CMD_LIBS := $(B)/lib/libsource.a $(B)/lib/libstate.a $(B)/lib/libencode.a \
	    $(B)/lib/libsink.a $(B)/lib/libtransport.a $(B)/lib/libfxtprof.a \
	    $(B)/lib/libfxt.a

$(CMD_OBJS): CPPFLAGS += -Iuser -Iuser/fxt

$(B)/bin/fxtprof: $(CMD_OBJS) $(CMD_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring

$(B)/user/cmd/vm/fxtprof: $(CMD_OBJS) $(CMD_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -luring

USER_PROGS += $(B)/bin/fxtprof
VM_TEST_PROGS += $(B)/user/cmd/vm/fxtprof
