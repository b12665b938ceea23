# SPDX-License-Identifier: GPL-2.0-only
#
# user/transport/build.mk - the transport: the io_uring event loop every
# part waits on (evloop) and URI to socket address resolution (netaddr).
#   $(B)/lib/libtransport.a   include "transport/evloop.h" with -Iuser

TRANSPORT_SRCS := user/transport/evloop.c user/transport/netaddr.c

$(TRANSPORT_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libtransport.a: $(TRANSPORT_SRCS:%.c=$(B)/%.o)
