# SPDX-License-Identifier: GPL-2.0-only
#
# fxtprof top-level Makefile.
#
#   make                 module (build/CFG/kmod/fxtprof.ko) + user programs
#   make ARCH=arm64      the same, cross-built for arm64 (static programs;
#                        ARM64_LIBS=system: dynamic, against Debian's
#                        arm64 libraries, as debian/rules builds them)
#   make CFG=x86_64-6.12 the module for another kernel configuration:
#                        x86_64, arm64, debug (KASAN/lockdep), x86_64-6.12,
#                        arm64-6.12 (scripts/env.sh); KDIR=... for any tree
#   make check           everything + host tests + the Debian packages +
#                        one VM suite per configuration (scripts/check.sh)
#   make check-fresh     the README's commands in a new Debian root
#   make vm-suite        boot the VM suite for CFG only (default: ARCH)
#   make user | module   only the programs and host tests, only the module
#   make demo | demo-host | bench-kernel | bench-reader | bench-socket
#        | bench-receive | bench-symbolize | bench-flush | bench-archive
#        | bench-sched | bench-offcpu | bench-bpf | bench-hooks | bench-unwind
#                        (see below)
#   make deps            install/stage dependencies (scripts/setup.sh)
#   make sign SIGN_KEY=KEY SIGN_CERT=CERT
#                        sign build/CFG/kmod/fxtprof.ko with the kernel
#                        tree's scripts/sign-file and the user's key
#   make check-packages  build the Debian packages of debian/ and lint
#                        them (scripts/check-packages.sh, TAP)
#   make check-packages-fresh  install, check and purge them in a new
#                        Debian root (scripts/check-packages-fresh.sh)
#   make check-packages-arm64  the arm64 packages, cross-built with
#                        dpkg-buildpackage -aarm64 in a new Debian root,
#                        linted and run under qemu-user
#                        (scripts/check-packages-arm64.sh)
#   make check-dkms-vm   the module fxtprof-dkms builds, signed, in the
#                        x86_64 VM under test_device (one VM)
#   make check-units-vm  the package's systemd units started by Debian 12's
#                        systemd as PID 1 in the x86_64 VM (one VM)
#   make install         what the Debian packages install: fxtprof, its man
#                        pages and bash completion, libfxtprof.a,
#                        libfxtprof-hooks.so, their headers and pkg-config
#                        files, the systemd units and /etc/default files
#                        (DESTDIR, PREFIX, BINDIR, LIBDIR...; see below)
#   make uninstall       removes exactly those
#   make clean           remove build/ except build/deps (the slow caches)
#
# Userspace is built from fragments owned by each directory, each building
# what lives in its directory.  They are included in this order: every
# user/*/build.mk by name, then every tests/*/build.mk by name, then
# $(EXTRA_MK).  A variable a fragment defines (FXT_LIB, FXTPROF_LIB,
# RING_SIM_LIB...) can be used in the prerequisites of any fragment read
# after it: every tests/ fragment can use the user/ libraries.
# Fragments are parsed from the repository root and get:
#   B               output dir, build/$(ARCH); put everything under $(B)/
#   CC HOSTCC AR    target and host compilers, target archiver (CC/AR are
#                   aarch64-linux-gnu-gcc/-ar for ARCH=arm64; NM likewise)
#   CFLAGS          -std=gnu11 -O2 -g -Wall -Wextra -fno-omit-frame-pointer
#   CPPFLAGS        -Iinclude -Iinclude/uapi (+ arm64 liburing/lz4 headers):
#                   <libfxtprof.h> and <linux/fxtprof.h> resolve as they do
#                   once installed
#   LDFLAGS         library search path (arm64: staged liburing/lz4), and
#                   -static for every program when ARCH=arm64
#   STATIC_LDFLAGS  -static: use it to link VM test programs
#   KSFT_INC        dir with kselftest_harness.h / kselftest.h, for tests
#                   only: on CPPFLAGS as -isystem for objects under
#                   $(B)/tests/ (#include "kselftest_harness.h"); test
#                   programs and those objects wait for its extraction
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
#   $(B)/tests/foo/test_foo: $(B)/tests/foo/test_foo.o $(FXTPROF_LIB)
#           $(CC) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread
#   VM_TEST_PROGS += $(B)/tests/foo/test_foo

# CFG names a kernel configuration (scripts/env.sh: x86_64, arm64, debug,
# x86_64-6.12, arm64-6.12); its user programs are those of its ARCH.
ifeq ($(origin ARCH),undefined)
ARCH := $(if $(filter arm64%,$(CFG)),arm64,x86_64)
endif
CFG ?= $(ARCH)
B := build/$(ARCH)
DEPS := build/deps
KSFT_INC := $(DEPS)/kselftest
HOSTCC := gcc
# EXTRA_CFLAGS, EXTRA_CPPFLAGS, EXTRA_LDFLAGS: a packager's flags
# (dpkg-buildflags' hardening, debian/rules), added after ours.
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -fno-omit-frame-pointer $(EXTRA_CFLAGS)
CPPFLAGS := -Iinclude -Iinclude/uapi $(EXTRA_CPPFLAGS)
LDFLAGS := $(EXTRA_LDFLAGS)
STATIC_LDFLAGS := -static
NM ?= nm

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
ifneq ($(origin NM),command line)
NM := aarch64-linux-gnu-nm
endif
# ARM64_LIBS=system (debian/rules, dpkg-buildpackage -aarm64): Debian's
# arm64 libraries installed multiarch (apt-get build-dep -aarm64), which
# the cross compiler finds itself, linked dynamically, and every command.
# Otherwise (staged) the board's static build from the staged libraries.
ARM64_LIBS ?= staged
ifneq ($(ARM64_LIBS),system)
ARM64_ROOT := $(DEPS)/arm64/root
CPPFLAGS += -isystem $(ARM64_ROOT)/usr/include
LDFLAGS += -L$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu -static
endif
else
$(error ARCH must be x86_64 or arm64, not '$(ARCH)')
endif
# The commands that name frames (report, flamegraph, export...), with the
# symbolizer on libdwfl, and --push with libcurl: in the builds against a
# system's libraries, not in the board's small static one.
SYMBOLS := $(if $(filter x86_64,$(ARCH))$(filter system,$(ARM64_LIBS)),1,)

# Debian's login shells set DEBUGINFOD_URLS (libdebuginfod-common): the
# symbolizer would then ask those servers for what a test leaves out on
# purpose.  The tests that use debuginfod set it themselves
# (tests/debuginfod, tests/symbols/check_symbols.sh).
unexport DEBUGINFOD_URLS

USER_PROGS :=
VM_TEST_PROGS :=
HOST_TESTS :=

.PHONY: all module user deps check check-fresh vm-suite demo demo-host \
	bench-kernel bench-reader bench-socket bench-receive bench-symbolize \
	bench-flush bench-archive bench-sched bench-offcpu bench-bpf bench-hooks bench-unwind \
	bench-memory soak programs install uninstall sign check-packages check-packages-fresh check-packages-arm64 \
	check-dkms-vm check-units-vm clean
all: module user

# Libraries first: tests name them ($(FXT_LIB), $(FXTPROF_LIB), ...) as
# prerequisites, which make expands as it reads each fragment; so user/
# comes before tests/, and within each, fragments go by name.
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

# A sanitizer build compiles its sources and links them in one command,
# so no dependency file says which headers it read.  It waits for all of
# ours instead: a change to a header alone rebuilds it too.
SAN_HDRS := $(wildcard include/*.h include/uapi/linux/*.h user/*/*.h \
		       user/*/*/*.h tests/*/*.h)
SAN_BINS := $(foreach t,$(filter $(B)/asan/%,$(HOST_TESTS)), \
		$(if $(filter run_%,$(notdir $(t))),,$(t))) \
	    $(B)/asan/tests/report/fxtprof $(HOOKS_LIB_ASAN)
$(SAN_BINS): $(SAN_HDRS)

# The harness headers are extracted from Debian's linux-source tarball
# (never committed).  Only tests include them: objects built from tests/
# get them on the include path (-isystem: the harness header is not
# -Wextra clean), and those objects and the test programs wait for the
# extraction.  Tools and libraries do not.
$(B)/tests/%.o: CPPFLAGS += -isystem $(KSFT_INC)
$(KSFT_INC)/kselftest_harness.h:
	scripts/get-kselftest.sh
# A tool or library that the VM also takes (libfxtprof-hooks.so) is
# not a test: `make programs` (debian/rules) builds it without them.
KSFT_USERS := $(filter-out $(USER_PROGS),$(VM_TEST_PROGS) $(HOST_TESTS)) \
	$(patsubst %.c,$(B)/%.o,$(wildcard tests/*/*.c))
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
	+scripts/build-module.sh $(CFG)

deps:
	scripts/setup.sh

check:
	scripts/check.sh

check-fresh:
	scripts/check-fresh.sh

# The user's key signs the module built for CFG (never a key of the tree:
# scripts/sign-module.sh refuses one).  Documentation/building.md has MOK.
sign:
	@[ -n "$(SIGN_KEY)" ] && [ -n "$(SIGN_CERT)" ] || { echo "make sign: name" \
		"your key and certificate: SIGN_KEY=key.pem SIGN_CERT=cert.der" >&2; exit 2; }
	CFG=$(CFG) scripts/sign-module.sh "$(SIGN_KEY)" "$(SIGN_CERT)" build/$(CFG)/kmod/fxtprof.ko

check-packages:
	scripts/check-packages.sh

check-packages-fresh:
	scripts/check-packages-fresh.sh

check-packages-arm64:
	scripts/check-packages-arm64.sh

check-dkms-vm:
	scripts/check-dkms-vm.sh

check-units-vm:
	scripts/check-units-vm.sh

vm-suite: all
	scripts/vm-suite.sh $(CFG)

# demo / bench-*: if scripts/<target>.sh exists it drives the run
# (called with CFG); otherwise tests/vm/<target>.sh runs in the VM's
# command mode (scripts/vm-cmd.sh, see tests/vm/init.sh).  Programs a
# VM script needs go in VM_TEST_PROGS (static, on the guest's PATH
# under /tests); VM_FILES adds SRC:DEST pairs to the initramfs.
VM_FILES ?=
# They set up and build first, so each works on a fresh machine;
# scripts/demo.sh does that itself, to time each phase.
demo:
	scripts/demo.sh $(CFG)

# This very machine, through the eBPF source: no module, no VM, no deps.
# Each builds only what it runs (for the host, x86_64).
demo-host:
	scripts/demo-host.sh

bench-bpf:
	scripts/bench-bpf.sh

# User stacks without frame pointers: fxtprof's unwind tables (the bpf
# source here, the module in the x86_64 VM) against perf --call-graph
# dwarf and fp; table build time and size.
bench-unwind:
	scripts/bench-unwind.sh

# The archive (.fxtz): compression against the lz4 and zstd command lines,
# the reader's CPU and bytes per sample against plain FXT and perf
# record -z in the x86_64 VM, the bytes a 1 s extract reads.
bench-archive:
	scripts/setup.sh
	$(MAKE) all
	scripts/bench-archive.sh $(CFG)

# sched.switch against perf sched record (also run by bench-flush).
bench-sched:
	scripts/bench-sched.sh $(CFG)

# Off-CPU stacks (the bpf source, on this host) against perf record -e
# sched:sched_switch -g and a bcc-style offcputime in bpftrace.
bench-offcpu:
	scripts/bench-offcpu.sh

# The recorder's steady-state memory and CPU at 1 and 10 kHz, next to
# perf record -a -g, in one VM (CFG x86_64, or arm64 without perf).
bench-memory:
	scripts/setup.sh
	scripts/bench-memory.sh $(CFG)

# The recorders left running under a workload that forks forever, in one
# VM (CFG x86_64 or arm64; SOAK_SECS, default 30 min): RSS, fds and CPU
# sampled and plotted, and the run fails if they grow.  make check runs a
# 2-minute one.
soak:
	scripts/setup.sh
	scripts/soak.sh $(CFG)

bench-kernel bench-reader bench-socket bench-receive bench-symbolize bench-flush:
	scripts/setup.sh
	$(MAKE) all
	@if [ -x scripts/$@.sh ]; then scripts/$@.sh $(CFG); \
	else scripts/vm-cmd.sh $(CFG) tests/vm/$@.sh $(VM_FILES); fi

# The libraries and their public headers, laid out for programs built
# outside this tree: <libfxtprof.h> includes <linux/fxtprof.h>, so the ABI
# header goes to include/linux/ as the kernel's own uapi headers do.
# libfxtprof-hooks.so's soname is libfxtprof-hooks.so.0: the library is
# installed under that name, and libfxtprof-hooks.so, the name programs
# link with, is a symlink to it (Debian's libfxtprof-hooks0 holds the
# first, libfxtprof-dev the second); shared libraries are 0644, as Debian
# installs them.  The host test tests/host/installed_headers.sh compiles
# against the same layout, tests/host/install_layout.sh runs this rule.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# /usr's configuration is /etc's, and its state /var's, as the FHS has it
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
LOCALSTATEDIR ?= $(if $(filter /usr,$(PREFIX)),/var,$(PREFIX)/var)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# The version of the pkg-config files and of the Debian packages
# (debian/changelog says the same).
VERSION := 0.1
# What is installed, named once for install and uninstall.
INSTALL_HEADERS := include/libfxtprof.h include/fxtprof_hooks.h
INSTALL_ABI_HEADERS := include/uapi/linux/fxtprof.h
INSTALL_LIBS = $(FXTPROF_LIB) $(HOOKS_LIB)
INSTALL_MAN := $(wildcard Documentation/man/*.[1-8])
INSTALL_PC := contrib/pkgconfig/libfxtprof.pc.in contrib/pkgconfig/libfxtprof-hooks.pc.in
INSTALL_UNITS := contrib/systemd/fxtprof-receive.service.in \
		 contrib/systemd/fxtprof-record@.service.in
INSTALL_DEFAULTS := contrib/systemd/default/fxtprof-receive \
		    contrib/systemd/default/fxtprof-record
# $(call install_fxtprof,INCLUDEDIR,LIBDIR): the libraries and headers
install_fxtprof = install -d $(1)/linux $(2) && \
	install -m 0644 $(INSTALL_HEADERS) $(1)/ && \
	install -m 0644 $(INSTALL_ABI_HEADERS) $(1)/linux/ && \
	install -m 0644 $(FXTPROF_LIB) $(2)/ && \
	install -m 0644 $(HOOKS_LIB) $(2)/$(HOOKS_SONAME) && \
	ln -sf $(HOOKS_SONAME) $(2)/$(notdir $(HOOKS_LIB))
# $(call uninstall_fxtprof,INCLUDEDIR,LIBDIR): the files install put
# there, and include/linux/ if that leaves it empty (it may hold the
# kernel's own headers); the directories it shares with others stay.
uninstall_fxtprof = rm -f $(addprefix $(1)/,$(notdir $(INSTALL_HEADERS))) \
	$(addprefix $(1)/linux/,$(notdir $(INSTALL_ABI_HEADERS))) \
	$(addprefix $(2)/,$(notdir $(INSTALL_LIBS)) $(HOOKS_SONAME)) && \
	{ ! [ -d $(1)/linux ] || rmdir --ignore-fail-on-non-empty $(1)/linux; }
# The @NAME@ paths of a .in file, for the installed layout (not DESTDIR).
subst_paths = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@LOCALSTATEDIR@|$(LOCALSTATEDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g'
D := $(DESTDIR)

# What make install installs, built alone: no test, no module (the
# Debian package's build, debian/rules).
programs: $(INSTALL_LIBS) $(B)/bin/fxtprof

# Everything the Debian packages install, but the module's DKMS sources
# (debian/ lays those out): the command, its man pages and completion,
# the libraries, headers and pkg-config files, the systemd units and their
# /etc/default files.  The @NAME@ paths are filled in as the files are
# copied, so they name PREFIX, not DESTDIR.
install: $(INSTALL_LIBS) $(B)/bin/fxtprof
	$(call install_fxtprof,$(D)$(INCLUDEDIR),$(D)$(LIBDIR))
	install -d $(D)$(BINDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man3 \
		$(D)$(MANDIR)/man4 $(D)$(BASHCOMPDIR) $(D)$(PKGCONFIGDIR) \
		$(D)$(SYSTEMDUNITDIR) $(D)$(SYSCONFDIR)/default
	install -m 0755 $(B)/bin/fxtprof $(D)$(BINDIR)/
	for m in $(INSTALL_MAN); do \
		install -m 0644 $$m $(D)$(MANDIR)/man$${m##*.}/ || exit 1; done
	install -m 0644 contrib/bash-completion/fxtprof $(D)$(BASHCOMPDIR)/
	for f in $(INSTALL_PC); do n=$${f##*/}; \
		$(subst_paths) $$f > $(D)$(PKGCONFIGDIR)/$${n%.in} && \
		chmod 0644 $(D)$(PKGCONFIGDIR)/$${n%.in} || exit 1; done
	for f in $(INSTALL_UNITS); do n=$${f##*/}; \
		$(subst_paths) $$f > $(D)$(SYSTEMDUNITDIR)/$${n%.in} && \
		chmod 0644 $(D)$(SYSTEMDUNITDIR)/$${n%.in} || exit 1; done
	install -m 0644 $(INSTALL_DEFAULTS) $(D)$(SYSCONFDIR)/default/

# Exactly what install put there; the directories stay (they are shared).
uninstall:
	$(call uninstall_fxtprof,$(D)$(INCLUDEDIR),$(D)$(LIBDIR))
	rm -f $(D)$(BINDIR)/fxtprof $(D)$(BASHCOMPDIR)/fxtprof \
		$(foreach m,$(INSTALL_MAN),$(D)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
		$(foreach f,$(INSTALL_PC),$(D)$(PKGCONFIGDIR)/$(basename $(notdir $(f)))) \
		$(foreach f,$(INSTALL_UNITS),$(D)$(SYSTEMDUNITDIR)/$(basename $(notdir $(f)))) \
		$(addprefix $(D)$(SYSCONFDIR)/default/,$(notdir $(INSTALL_DEFAULTS)))

clean:
	rm -rf build/x86_64 build/arm64 build/debug build/results

# Application annotations (libfxtprof-hooks): one region pair in
# standalone mode on the host and in fxtprof: mode in the VM, next to a
# clock_gettime pair and a write() to /dev/null (scripts/bench-hooks.sh).
bench-hooks:
	scripts/bench-hooks.sh $(CFG)
