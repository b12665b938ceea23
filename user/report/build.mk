# SPDX-License-Identifier: GPL-2.0-only
#
# user/report/build.mk - the report engine: a recording loaded, filtered
# and named (report_tree.c), the region filters (report_annot.c), the
# perf-like output (report_print.c), the --summary section
# (report_summary.c), two recordings compared (report_diff.c),
# off-CPU waits' frames (report_offcpu.c) and --wall's weights
# (report_wall.c).  The
# commands report, diff, flamegraph and export are its front ends
# (user/cmd).
#   $(B)/lib/libreport.a   include "report/report.h" with -Iuser; needs
#                          libsymbolize.a, libprofile.a and libfxt.a
# Where SYMBOLS is set (x86_64, the Debian arm64 package), as the
# symbolizer it names frames with.

ifneq ($(SYMBOLS),)
REPORT_SRCS := user/report/report_tree.c user/report/report_annot.c \
	       user/report/report_print.c user/report/report_summary.c \
	       user/report/report_diff.c user/report/report_offcpu.c \
	       user/report/report_wall.c
REPORT_LIB := $(B)/lib/libreport.a

$(REPORT_SRCS:%.c=$(B)/%.o): CPPFLAGS += -Iuser -Iuser/fxt
$(REPORT_LIB): $(REPORT_SRCS:%.c=$(B)/%.o)
endif
