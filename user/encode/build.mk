# SPDX-License-Identifier: GPL-2.0-only
#
# user/encode/build.mk - the encoders: fxtprof records and the state's
# notices to an output format.  FXT today, through libfxt (user/fxt).
#   $(B)/lib/libencode.a   include "encode/encoder.h" (the interface) and
#                          "encode/fxt_encoder.h" with -Iuser; needs
#                          libsink.a and libfxt.a

ENCODE_SRCS := user/encode/fxt_encoder.c user/encode/stack_refs.c

$(ENCODE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser -Iuser/fxt
$(B)/lib/libencode.a: $(ENCODE_SRCS:%.c=$(B)/%.o)
