# SPDX-License-Identifier: GPL-2.0-only
#
# user/state/build.mk - the stream state: names, losses and error counts
# the records build up, replayed at the start of every segment.
#   $(B)/lib/libstate.a   include "state/stream_state.h" with -Iuser;
#                         needs libencode.a (the interface only) and
#                         libsink.a (segment requests)

STATE_SRCS := user/state/names.c user/state/symbol_tables.c \
	      user/state/recent_exits.c \
	      user/state/stream_state.c

$(STATE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libstate.a: $(STATE_SRCS:%.c=$(B)/%.o)
