# SPDX-License-Identifier: GPL-2.0-only
#
# user/lib/build.mk - libfxtprof: the device handle and the ring consumer.
#   FXTPROF_LIB   the archive; link it, #include <libfxtprof.h> (include/
#                 is on CPPFLAGS; `make install` installs both)
# Its host test, tests/host/test_ring, is built by tests/host/build.mk.

FXTPROF_LIB_SRCS := user/lib/dev.c user/lib/ring.c
FXTPROF_LIB := $(B)/lib/libfxtprof.a

# $(AR) is the target's archiver (the Makefile sets it for arm64).
$(FXTPROF_LIB): $(FXTPROF_LIB_SRCS:%.c=$(B)/%.o)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
