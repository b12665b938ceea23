# SPDX-License-Identifier: GPL-2.0-only
#
# tests/symbols/build.mk - the end-to-end symbol tests: workloads recorded
# in the VM (tests/symbols/test_symbols.sh, run by /init), symbolized on
# the host (tests/symbols/check_symbols.sh, run by scripts/vm-suite.sh).
#
#   VM (VM_TEST_PROGS, /tests), dynamic, with frame pointers:
#     test_symbols    the guest half: one recording of every workload
#     sym_chain       main -> a -> b -> c, spinning in c
#     sym_dlopen      a PIE that dlopen()s libsymtest.so, spins in libsym_spin
#     libsymtest.so
#     sym_short       lives under 50 ms, spinning the whole time (static)
#     sym_stripped    stripped; its unstripped copy stays here (.full)
#     sym_syscall     getpid()/read() loop
#     sym_wait        waits for record's first sample (static)
#   host only (not in the VM):
#     sym_stripped.full  the unstripped sym_stripped (debug dir by build id)
#     sym_rebuilt        sym_stripped built differently: another build id
#     fxt_blobs          (x86_64) prints the type-3 blob stream of an FXT file
#   VM_TEST_FILES   SRC:DEST pairs copied (dereferenced) into the VM
#                   initramfs, listed in $(B)/vm-test-files.list for
#                   scripts/mkinitramfs.sh: the dynamic loader and libc.
#
# The programs but sym_short are dynamic on purpose: PIE load addresses, a shared
# library, and the loader's own mappings are what the capture and the
# symbolizer must get right.  So they are linked without $(LDFLAGS)
# (which holds -static on arm64).

SYM := $(B)/tests/symbols
SYM_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -fno-omit-frame-pointer \
	-fno-inline -fno-optimize-sibling-calls -fno-ipa-icf
ifeq ($(ARCH),x86_64)
SYM_CFLAGS += -mno-omit-leaf-frame-pointer
SYM_INTERP := /lib64/ld-linux-x86-64.so.2
else
SYM_INTERP := /lib/ld-linux-aarch64.so.1
endif
SYM_STRIP ?= $(patsubst %gcc,%strip,$(CC))
# Quiet before setup has installed the compiler, as in tests/reader/build.mk.
SYM_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
SYM_LIBC := $(realpath $(shell $(CC) -print-file-name=libc.so.6 2>/dev/null))
SYM_LDSO := $(realpath $(shell $(CC) -print-file-name=$(notdir $(SYM_INTERP)) 2>/dev/null))
SYM_HDRS := tests/symbols/sym_util.h

# The interpreter a program asks for must be the one the initramfs has.
sym_check_interp = readelf -l $(1) | grep -q 'interpreter: $(SYM_INTERP)\]' || \
	{ echo "$(1): not interpreted by $(SYM_INTERP)" >&2; rm -f $(1); exit 1; }

$(SYM)/sym_chain $(SYM)/sym_syscall: $(SYM)/%: tests/symbols/%.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) -o $@ $<
	@$(call sym_check_interp,$@)

# Static: under TCG the dynamic loader alone takes 30 to 100 ms, and the
# point is a process that is gone in under 50 ms.
$(SYM)/sym_short: tests/symbols/sym_short.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

$(SYM)/sym_wait: tests/symbols/sym_wait.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $<

$(SYM)/sym_dlopen: tests/symbols/sym_dlopen.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) -fPIE -pie -o $@ $< -ldl
	@$(call sym_check_interp,$@)

$(SYM)/libsymtest.so: tests/symbols/libsymtest.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) -fPIC -shared -o $@ $<

$(SYM)/sym_stripped.full: tests/symbols/sym_stripped.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) -o $@ $<
	@$(call sym_check_interp,$@)

$(SYM)/sym_rebuilt: tests/symbols/sym_stripped.c $(SYM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) -DSYM_REBUILT -o $@ $<

$(SYM)/sym_stripped: $(SYM)/sym_stripped.full
	$(SYM_STRIP) -o $@ $<

$(SYM)/test_symbols: tests/symbols/test_symbols.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# An independent reader of the Perfetto stream that `fxtprof symbolize`
# embeds: nothing of user/fxt, so a bug there cannot hide itself.
$(B)/tests/symbols/fxt_blobs: tests/symbols/fxt_blobs.c
	@mkdir -p $(@D)
	$(HOSTCC) -std=gnu11 -O2 -Wall -Wextra -o $@ $<

VM_TEST_FILES += $(SYM_LDSO):$(SYM_INTERP) \
	$(SYM_LIBC):/lib/$(SYM_MULTIARCH)/libc.so.6

# Rewritten only when it changes, like vm-tests.list.
$(B)/vm-test-files.list: sym-force
	@mkdir -p $(@D)
	@printf '%s\n' $(VM_TEST_FILES) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp
.PHONY: sym-force
sym-force:

VM_TEST_PROGS += $(SYM)/test_symbols $(SYM)/sym_chain $(SYM)/sym_dlopen \
	$(SYM)/libsymtest.so $(SYM)/sym_short $(SYM)/sym_stripped \
	$(SYM)/sym_syscall $(SYM)/sym_wait
# Not programs, but what `make user` must leave for the suite's host half.
USER_PROGS += $(B)/vm-test-files.list $(SYM)/sym_stripped.full $(SYM)/sym_rebuilt
ifeq ($(ARCH),x86_64)
USER_PROGS += $(B)/tests/symbols/fxt_blobs
endif
