# SPDX-License-Identifier: GPL-2.0-only
#
# user/source/build.mk - the record sources (source.h): the module's
# per-CPU rings (through libfxtprof, user/lib), and the side-band sources
# of what a symbolizer needs: executable mappings (perf MMAP2 records, a
# /proc sweep at start), the kernel's images and text symbols.
#   $(B)/lib/libsource.a   include "source/source.h" etc. with -Iuser;
#                          needs libfxtprof.a

SOURCE_SRCS := user/source/ring_source.c user/source/elf_build_id.c \
	       user/source/kernel_info.c user/source/mmap_rec.c \
	       user/source/proc_maps.c user/source/perf_mmap_source.c \
	       user/source/vdso_build_id.c user/source/proc_info.c \
	       user/source/perf_map.c

$(SOURCE_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser
$(B)/lib/libsource.a: $(SOURCE_SRCS:%.c=$(B)/%.o)

# The eBPF source (its BPF object, skeleton and loader) has its own
# fragment, which the top-level wildcard (user/*/build.mk) does not reach.
include user/source/bpf/build.mk
