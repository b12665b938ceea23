# SPDX-License-Identifier: GPL-2.0-only
#
# user/source/bpf/build.mk - the eBPF source: its BPF object, generated
# at build time (never committed) under $(B)/user/source/bpf/:
#   vmlinux.h          bpftool btf dump of the target's kernel BTF
#   fxtprof.bpf.o      clang -target bpf, CO-RE: one object per ARCH
#   fxtprof.skel.h     bpftool gen skeleton (embeds the object)
# and the loader that drains it:
#   $(B)/lib/libsource_bpf.a   include "source/bpf_source.h" with -Iuser;
#                              needs libfxtprof.a and $(BPF_SOURCE_LDLIBS)
#                              (BPF_SOURCE=0: a stand-in, no libbpf)
#
# The BTF behind vmlinux.h: on x86_64 the running kernel's (any kernel's
# BTF serves: CO-RE relocates at load); for arm64, built on the x86_64
# host, the BTF of the staged Debian 6.1 arm64 kernel image, which
# extract-btf.sh and btf_carve copy out of it (Documentation/bpf-source.md).
# BPF_BTF=path (any BTF or ELF vmlinux) overrides both.

BPF_B := $(B)/user/source/bpf
BPF_CLANG ?= clang
BPF_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
BPF_SOURCE_LDLIBS := -lbpf -lelf -lz

# The host's helper that copies BTF out of a kernel image.
$(BPF_B)/host/btf_carve: user/source/bpf/btf_carve.c
	@mkdir -p $(@D)
	$(HOSTCC) -O2 -Wall -Wextra -o $@ $<

ifeq ($(ARCH),arm64)
BPF_TARGET := arm64
# The staged Debian 6.1 arm64 kernel (scripts/setup.sh), or its package.
BPF_KERNEL ?= $(firstword $(wildcard $(DEPS)/arm64/root/boot/vmlinuz-6.1.*) \
	$(wildcard $(DEPS)/arm64/debs/linux-image-6.1.*-arm64-unsigned_*.deb))
BPF_BTF ?= $(BPF_B)/vmlinux-arm64.btf
$(BPF_B)/vmlinux-arm64.btf: user/source/bpf/extract-btf.sh \
		$(BPF_B)/host/btf_carve $(BPF_KERNEL)
	@test -n "$(BPF_KERNEL)" || { echo "no arm64 kernel image staged:" \
		"run make deps, or pass BPF_KERNEL= or BPF_BTF=" >&2; exit 1; }
	user/source/bpf/extract-btf.sh $(BPF_B)/host/btf_carve \
		$(BPF_KERNEL) $@
else
BPF_TARGET := x86
BPF_BTF ?= /sys/kernel/btf/vmlinux
endif

$(BPF_B)/vmlinux.h: $(filter-out /sys/%,$(BPF_BTF))
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(BPF_BTF) format c > $@.tmp
	mv $@.tmp $@

$(BPF_B)/fxtprof.bpf.o: user/source/bpf/fxtprof.bpf.c \
		user/source/bpf/fxtprof_bpf.h user/source/bpf/unwind.bpf.h \
		include/uapi/linux/fxtprof.h \
		$(BPF_B)/vmlinux.h
	@mkdir -p $(@D)
	$(BPF_CLANG) -target bpf -mcpu=v3 -g -O2 -Wall \
		-D__TARGET_ARCH_$(BPF_TARGET) -I$(BPF_B) -Iinclude/uapi \
		-Iuser/source/bpf -c $< -o $@

# The skeleton embeds the object: without DWARF (-g kept .BTF and
# .BTF.ext, all CO-RE needs) it is 55 KB instead of 680.
$(BPF_B)/fxtprof.bpf.stripped.o: $(BPF_B)/fxtprof.bpf.o
	$(BPF_STRIP) -g -o $@ $<

$(BPF_B)/fxtprof.skel.h: $(BPF_B)/fxtprof.bpf.stripped.o
	$(BPFTOOL) gen skeleton $< name fxtprof_bpf > $@.tmp
	mv $@.tmp $@

# The object is built for every ARCH (make ARCH=arm64 shows it cross-builds).
USER_PROGS += $(BPF_B)/fxtprof.skel.h

# BPF_SOURCE=0 links a stand-in that refuses with EOPNOTSUPP instead of
# libbpf: a lean module-only build, without libbpf, libelf and zlib
# (Documentation/bpf-source.md gives the sizes).  arm64 links the static
# libraries that scripts/setup.sh stages, with their headers from the
# staged root (the Makefile's -isystem), not the host's.
BPF_SOURCE ?= 1
ifeq ($(BPF_SOURCE),0)
BPF_SOURCE_OBJ := $(B)/user/source/bpf/bpf_source_none.o
BPF_SOURCE_LDLIBS :=
else
BPF_SOURCE_OBJ := $(B)/user/source/bpf_source.o $(B)/user/source/bpf/bpf_ring.o \
		  $(B)/user/source/bpf/bpf_unwind.o \
		  $(B)/user/source/bpf/unwind_ranges.o \
		  $(B)/user/source/bpf/unwind_extents.o
$(B)/user/source/bpf_source.o: $(BPF_B)/fxtprof.skel.h
endif
# Either loader is a source.h back end through the same ops table.
BPF_SOURCE_OBJ += $(B)/user/source/bpf_source_ops.o
$(BPF_SOURCE_OBJ): CPPFLAGS += -Iuser -Iuser/source -Iuser/source/bpf -I$(BPF_B)
# The library follows BPF_SOURCE when it changes between two builds in
# one tree: the choice is a file, rewritten only when it differs, and
# its objects are rebuilt after it.
BPF_SOURCE_CHOICE := $(BPF_B)/bpf_source.choice
$(shell mkdir -p $(BPF_B) && { echo $(BPF_SOURCE) | cmp -s - \
	$(BPF_SOURCE_CHOICE) || echo $(BPF_SOURCE) > $(BPF_SOURCE_CHOICE); })
$(BPF_SOURCE_OBJ): $(BPF_SOURCE_CHOICE)
$(B)/lib/libsource_bpf.a: $(BPF_SOURCE_OBJ)
BPF_SOURCE_LIB := $(B)/lib/libsource_bpf.a
