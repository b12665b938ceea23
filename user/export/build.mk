# SPDX-License-Identifier: GPL-2.0-only
#
# user/export/build.mk - the exporters: a loaded recording (user/profile)
# named by the symbolizer (user/symbolize) as a gzipped pprof profile, or
# as Perfetto TracePackets for `fxtprof symbolize`.
#   $(B)/lib/libexport.a   include "export/pprof.h", "export/perfetto.h",
#                          "export/perfetto_profile.h" with -Iuser; needs
#                          libsymbolize.a, libprofile.a and -lz

EXPORT_SRCS := user/export/pb_writer.c user/export/intern.c \
	       user/export/export_stack.c user/export/perfetto.c \
	       user/export/perfetto_profile.c user/export/pprof.c

$(EXPORT_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libexport.a: $(EXPORT_SRCS:%.c=$(B)/%.o)
