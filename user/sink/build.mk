# SPDX-License-Identifier: GPL-2.0-only
#
# user/sink/build.mk - the framed byte sinks: a queue of whole records
# with their boundaries, written to a file or a stream socket.
#   $(B)/lib/libsink.a   include "sink/sink.h" with -Iuser; needs
#                        libtransport.a and -luring
# sink.c is the core, sink_file.c, sink_socket.c, sink_archive.c and
# sink_window.c the back ends, sink_open.c the table that picks one.

SINK_SRCS := user/sink/record_queue.c user/sink/sink.c \
	     user/sink/sink_open.c user/sink/sink_fileio.c \
	     user/sink/flight_window.c user/sink/sink_archive.c \
	     user/sink/sink_file.c user/sink/sink_socket.c \
	     user/sink/sink_window.c

$(SINK_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libsink.a: $(SINK_SRCS:%.c=$(B)/%.o)
