# SPDX-License-Identifier: GPL-2.0-only
#
# user/cmd/build.mk - the fxtprof command (record, send, receive, dump,
# check, report, flamegraph): thin front ends that assemble the pipeline's
# parts.
#   $(B)/bin/fxtprof           the target's build (dynamic on x86_64)
#   $(B)/user/cmd/vm/fxtprof   the same objects linked static, for the VM
#                              suite's /tests (tests/reader, tests/socket)
# Fragments are parsed in name order and user/cmd comes first, so the
# libraries of the other parts are spelled out as paths.
#
# The commands that name frames (report, flamegraph) need libdwfl and the
# symbolizer, which the board's static arm64 build leaves out to stay
# small: SYMBOLS (the Makefile) is set on x86_64 and in the Debian arm64
# package's build only, and main.c lists those commands only with
# FXTPROF_HAVE_SYMBOLS.  Both builds link libdw for record's
# unwind tables (user/unwind/, `fxtprof unwind`); a static link needs its
# libraries too.

CMD_SRCS := user/cmd/main.c user/cmd/cmd_helpers.c \
	    user/cmd/record.c user/cmd/record_opts.c \
	    user/cmd/record_flight.c user/cmd/record_symbols.c \
	    user/cmd/record_procs.c user/cmd/record_collect.c \
	    user/cmd/record_unwind.c user/cmd/record_unwind_procs.c \
	    user/cmd/record_memory.c \
	    user/cmd/send.c user/cmd/opt_value.c \
	    user/cmd/receive.c user/cmd/framer.c user/cmd/delivery.c \
	    user/cmd/push_cli.c \
	    user/cmd/sources.c user/cmd/trigger.c \
	    user/cmd/archive_cmd.c user/cmd/archive_input.c \
	    user/cmd/unwind.c user/cmd/buildid_archive_cmd.c
CMD_LIBS_SYMBOLS :=
CMD_STATIC_LDLIBS := -ldw -lelf -lz -llzma -lbz2
# The symbolizer's demangler (user/symbolize/demangle.c), static in both.
CMD_SYMBOLS_LDLIBS := $(if $(SYMBOLS),-liberty)
CMD_LDLIBS := -luring $(ARCHIVE_LDLIBS) \
	      $(if $(SYMBOLS),-ldw -lelf -lz,$(CMD_STATIC_LDLIBS)) \
	      $(CMD_SYMBOLS_LDLIBS)
ifneq ($(SYMBOLS),)
CMD_SRCS += user/cmd/report.c user/cmd/diff.c \
	    user/cmd/flamegraph.c user/cmd/tree_cmd.c user/cmd/export.c \
	    user/cmd/symbolize.c user/cmd/copy_unwind.c
CMD_LIBS_SYMBOLS := $(B)/lib/libreport.a $(B)/lib/libexport.a \
		    $(B)/lib/libsymbolize.a $(B)/lib/libprofile.a
endif
CMD_OBJS := $(CMD_SRCS:%.c=$(B)/%.o)
# receive --push and record --push (user/push/): libcurl and the
# symbolizer in the host's dynamic build; the static ones (the board's,
# the VM's) link the stand-in that refuses --push.
CMD_PUSH_LIB := $(B)/lib/$(if $(SYMBOLS),libpush.a,libpush_none.a)
CMD_PUSH_LDLIBS := $(if $(SYMBOLS),-lcurl)
# In link order: a part before the parts it uses.
# libsource_bpf.a is the eBPF source, or its stand-in with BPF_SOURCE=0
# (user/source/bpf/build.mk); its libraries are $(BPF_SOURCE_LDLIBS).
# buildid-archive runs on the board: libbuildid.a and libprofile.a are in
# both builds (make's $^ keeps the first libprofile.a of x86_64's).
CMD_LIBS := $(B)/lib/libbuildid.a $(B)/lib/libcollect.a \
	    $(CMD_LIBS_SYMBOLS) $(B)/lib/libprofile.a \
	    $(B)/lib/libsource_bpf.a \
	    $(B)/lib/libsource.a $(B)/lib/libunwindtab.a $(B)/lib/libstate.a \
	    $(B)/lib/libencode.a $(B)/lib/libsink.a $(ARCHIVE_LIB) \
	    $(B)/lib/libtransport.a \
	    $(B)/lib/libfxtprof.a $(B)/lib/libfxt.a

$(CMD_OBJS): CPPFLAGS += -Iuser -Iuser/fxt $(if $(SYMBOLS),-DFXTPROF_HAVE_SYMBOLS)

$(B)/bin/fxtprof: $(CMD_OBJS) $(CMD_PUSH_LIB) $(CMD_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMD_LDLIBS) \
		$(BPF_SOURCE_LDLIBS) $(CMD_PUSH_LDLIBS)

$(B)/user/cmd/vm/fxtprof: $(CMD_OBJS) $(B)/lib/libpush_none.a $(CMD_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) \
		$(BPF_SOURCE_LDLIBS) $(CMD_STATIC_LDLIBS) $(CMD_SYMBOLS_LDLIBS)

USER_PROGS += $(B)/bin/fxtprof
VM_TEST_PROGS += $(B)/user/cmd/vm/fxtprof
