# SPDX-License-Identifier: GPL-2.0-only
#
# user/lib/build.mk - libfxtprof: the device handle, the ring consumer and
# the userspace ring producer (ring_sim), plus the library's host test.
#   FXTPROF_LIB   the archive; link it, #include <libfxtprof.h> (include/
#                 is on CPPFLAGS; `make install` installs both)

FXTPROF_LIB_SRCS := user/lib/dev.c user/lib/ring.c user/lib/ring_sim.c
FXTPROF_LIB := $(B)/lib/libfxtprof.a
# The target's archiver: the host's ar cannot index arm64 objects.
FXTPROF_AR := $(patsubst %gcc,%gcc-ar,$(filter %gcc,$(CC)))
FXTPROF_AR := $(if $(FXTPROF_AR),$(FXTPROF_AR),$(AR))

$(FXTPROF_LIB): $(FXTPROF_LIB_SRCS:%.c=$(B)/%.o)
	@mkdir -p $(@D)
	$(FXTPROF_AR) rcs $@ $^

# Host test of the ring protocol against ring_sim (no kernel needed).
$(B)/tests/host/test_ring: $(B)/tests/host/test_ring.o $(FXTPROF_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

HOST_TESTS += $(B)/tests/host/test_ring
