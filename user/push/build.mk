# SPDX-License-Identifier: GPL-2.0-only
#
# user/push/build.mk - profiles pushed to Grafana Pyroscope while streams
# arrive (receive --push, record --push): the cutter, the encoder of
# each interval's pprof, the queue and the libcurl sender.
#   $(B)/lib/libpush.a       include "push/push.h" with -Iuser; needs
#                            libexport.a, libsymbolize.a, libprofile.a,
#                            libfxt.a and $(PUSH_LDLIBS) (libcurl)
#   $(B)/lib/libpush_none.a  the same interface without libcurl: --push
#                            refused (the static builds: arm64, the VM's)

PUSH_SRCS := user/push/push.c user/push/push_cutter.c \
	     user/push/push_encode.c user/push/push_http.c \
	     user/push/push_stats.c
PUSH_NONE_SRCS := user/push/push_none.c user/push/push_stats.c
PUSH_LDLIBS := -lcurl

$(PUSH_SRCS:%.c=$(B)/%.o) $(PUSH_NONE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libpush.a: $(PUSH_SRCS:%.c=$(B)/%.o)
$(B)/lib/libpush_none.a: $(PUSH_NONE_SRCS:%.c=$(B)/%.o)
