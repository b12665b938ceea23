# SPDX-License-Identifier: GPL-2.0-only
#
# user/reader/build.mk - the fxtprof command (record, dump, check, report).
# Links libfxtprof (user/lib) for the rings, libfxt (user/fxt) for FXT and
# liburing for the event loop.

READER_SRCS := user/reader/main.c user/reader/record.c user/reader/evloop.c \
	       user/reader/out.c user/reader/translate.c \
	       user/reader/names.c user/reader/netaddr.c user/reader/send.c \
	       user/reader/receive.c user/reader/framer.c \
	       user/reader/report.c
READER_OBJS := $(READER_SRCS:%.c=$(B)/%.o)

$(READER_OBJS): CPPFLAGS += $(FXT_CPPFLAGS)

$(B)/bin/fxtprof: $(READER_OBJS) $(FXTPROF_LIB) $(FXT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring

USER_PROGS += $(B)/bin/fxtprof
