# SPDX-License-Identifier: GPL-2.0-only
#
# fxtprof top-level Makefile.
#
#   make                 module (build/CFG/kmod/fxtprof.ko) + user programs
#   make ARCH=arm64      the same, cross-built for arm64 (static programs)
#   make CFG=debug       module against the KASAN/lockdep debug kernel
#   make check           everything + host tests + 3 VM suites (scripts/check.sh)
#   make vm-suite        boot the VM suite for CFG only (default: ARCH)
#   make demo | bench-kernel | bench-reader | bench-socket   (see below)
#   make deps            install/stage dependencies (scripts/setup.sh)
#   make clean           remove build/ except build/deps (the slow caches)
#
# Userspace is built from fragments owned by each directory: every
# user/*/build.mk and tests/*/build.mk is included (plus $(EXTRA_MK)).
# Fragments are parsed from the repository root and get:
#   B               output dir, build/$(ARCH); put everything under $(B)/
#   CC HOSTCC AR    target and host compilers, target archiver (CC/AR are
#                   aarch64-linux-gnu-gcc/-ar for ARCH=arm64)
#   CFLAGS          -std=gnu11 -O2 -g -Wall -Wextra -fno-omit-frame-pointer
#   CPPFLAGS        -Iinclude -Iuser/lib (+ arm64 liburing/lz4 headers)
#   LDFLAGS         library search path (arm64: staged liburing/lz4), and
#                   -static for every program when ARCH=arm64
#   STATIC_LDFLAGS  -static: use it to link VM test programs
#   KSFT_INC        dir with kselftest_harness.h / kselftest.h (already on
#                   CPPFLAGS as -isystem: #include "kselftest_harness.h")
#   a pattern rule  $(B)/%.o: %.c  (with -MMD dependency files)
#   a pattern rule  $(B)/lib/lib%.a: archives its prerequisites, so a
#                   fragment only lists them: $(B)/lib/libfoo.a: $(OBJS)
# and append full paths ($(B)/...) of what they build to:
#   USER_PROGS      programs for the target (tools, helpers)
#   VM_TEST_PROGS   static programs copied to /tests in the VM initramfs;
#                   /init runs every one named test_* (each must print
#                   TAP, e.g. via the kselftest harness); others are helpers
#   HOST_TESTS      programs `make check` runs natively, each printing TAP
#                   to stdout; built only when ARCH=x86_64 (the host)
# Example fragment (tests/foo/build.mk):
#   $(B)/tests/foo/test_foo: $(B)/tests/foo/test_foo.o $(B)/user/lib/libfxt.a
#           $(CC) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -luring
#   VM_TEST_PROGS += $(B)/tests/foo/test_foo

ARCH ?= x86_64
CFG ?= $(ARCH)
B := build/$(ARCH)
DEPS := build/deps
KSFT_INC := $(DEPS)/kselftest
HOSTCC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -fno-omit-frame-pointer
# -isystem: the harness header is not -Wextra clean.
CPPFLAGS := -Iinclude -Iuser/lib -isystem $(KSFT_INC)
LDFLAGS :=
STATIC_LDFLAGS := -static

ifeq ($(ARCH),x86_64)
ifeq ($(origin CC),default)
CC := gcc
endif
else ifeq ($(ARCH),arm64)
ifneq ($(origin CC),command line)
CC := aarch64-linux-gnu-gcc
endif
ifneq ($(origin AR),command line)
AR := aarch64-linux-gnu-ar
endif
ARM64_ROOT := $(DEPS)/arm64/root
CPPFLAGS += -isystem $(ARM64_ROOT)/usr/include
LDFLAGS += -L$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu -static
else
$(error ARCH must be x86_64 or arm64, not '$(ARCH)')
endif

USER_PROGS :=
VM_TEST_PROGS :=
HOST_TESTS :=

.PHONY: all module user deps check vm-suite demo bench-kernel bench-reader \
	bench-socket clean
all: module user

# Libraries first: tests name them ($(FXT_LIB), $(FXTPROF_LIB), ...) as
# prerequisites, which make expands as it reads each fragment.
FRAGMENTS := $(sort $(wildcard user/*/build.mk)) \
	     $(sort $(wildcard tests/*/build.mk)) $(EXTRA_MK)
include $(FRAGMENTS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The archive of a part's objects; fragments give the prerequisites.
$(B)/lib/lib%.a:
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# The harness headers are extracted from Debian's linux-source tarball
# (never committed); every program may include them.
$(KSFT_INC)/kselftest_harness.h:
	scripts/get-kselftest.sh
KSFT_USERS := $(USER_PROGS) $(VM_TEST_PROGS) $(HOST_TESTS) \
	$(patsubst %.c,$(B)/%.o,$(wildcard user/*/*.c tests/*/*.c))
ifneq ($(strip $(KSFT_USERS)),)
$(KSFT_USERS): | $(KSFT_INC)/kselftest_harness.h
endif

# The list tells scripts/mkinitramfs.sh what goes to /tests; rewritten
# only when it changes so it never forces work.
# Host tests cannot run from a cross build, so they are not built there.
ifeq ($(ARCH),x86_64)
BUILD_HOST_TESTS := $(HOST_TESTS)
endif
user: $(USER_PROGS) $(VM_TEST_PROGS) $(BUILD_HOST_TESTS)
	@mkdir -p $(B)
	@printf '%s\n' $(abspath $(VM_TEST_PROGS)) > $(B)/vm-tests.list.tmp
	@cmp -s $(B)/vm-tests.list.tmp $(B)/vm-tests.list || \
		mv $(B)/vm-tests.list.tmp $(B)/vm-tests.list
	@rm -f $(B)/vm-tests.list.tmp
	@printf '%s\n' $(abspath $(HOST_TESTS)) > $(B)/host-tests.list

# kbuild decides what is stale; always ask it.
module:
	scripts/build-module.sh $(CFG)

deps:
	scripts/setup.sh

check:
	scripts/check.sh

vm-suite: all
	scripts/vm-suite.sh $(CFG)

# demo / bench-*: if scripts/<target>.sh exists it drives the run
# (called with CFG); otherwise tests/vm/<target>.sh runs in the VM's
# command mode (scripts/vm-cmd.sh, see tests/vm/init.sh).  Programs a
# VM script needs go in VM_TEST_PROGS (static, on the guest's PATH
# under /tests); VM_FILES adds SRC:DEST pairs to the initramfs.
VM_FILES ?=
# They set up and build first, so each works on a fresh machine.
demo bench-kernel bench-reader bench-socket:
	scripts/setup.sh
	$(MAKE) all
	@if [ -x scripts/$@.sh ]; then scripts/$@.sh $(CFG); \
	else scripts/vm-cmd.sh $(CFG) tests/vm/$@.sh $(VM_FILES); fi

clean:
	rm -rf build/x86_64 build/arm64 build/debug build/results
