# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bpf/build.mk - the eBPF source on this host (kernel with BTF,
# root): a driver that records through the pipeline record.c uses, the
# TAP tests of the source, and their workloads.  Host-native only.
#   $(B)/tests/bpf/bpf_record     driver: the bpf source -> stream state ->
#                                 FXT encoder -> sink, in an io_uring loop
#   $(B)/tests/bpf/test_bpf_source  TAP: rate, stacks, tasks, loss, errors,
#                                 kill -9
#   $(B)/tests/bpf/test_bpf_ring  TAP: the ring buffer consumer over a
#                                 simulated ring (no privileges)
#   $(B)/tests/bpf/fp_workload    non-PIE, frame pointers, known functions
#   $(B)/tests/bpf/run_bpf_record   TAP: the driver's FXT passes fxtprof check
#   $(B)/tests/bpf/run_record_auto  TAP: the real fxtprof record --source
#                                 auto, its report names sym_chain's and
#                                 sym_short's functions (tests/symbols)
#   $(B)/tests/bpf/run_record_ready  TAP: record --ready-file: the file
#                                 appears once it samples; what starts after
#                                 it is recorded
#   $(B)/tests/bpf/run_record_memory  TAP: record -v: its memory account,
#                                 at SIGUSR1 and at the end, against the
#                                 kernel's figures
#   $(B)/tests/bpf/run_record_unwind  TAP: record with idle processes that
#                                 would take --unwind-memory: the workload's
#                                 stacks, and a forked child's, reach main
#   $(B)/tests/bpf/run_record_diff  TAP: two recordings of diff_workload,
#                                 whose hot function changes: diff ranks
#                                 it first
#   $(B)/tests/bpf/run_record_offcpu  TAP: record --off-cpu of
#                                 offcpu_workload's known waits: each
#                                 attributed to its function within 10 %
#   $(B)/tests/bpf/vm/test_bpf_record  TAP, in the VM: record --source bpf,
#                                 check, every CPU, a child's tasks, no loss,
#                                 the same top functions as the module
#   $(B)/tests/bpf/vm/workload.syms  the bench workload's functions, for it
#   $(B)/tests/bpf/vm/test_bpf_hotplug  TAP, in the VM: record --source bpf
#                                 across an offline/online of CPU 1
#   $(B)/tests/bpf/run_core_check   TAP: CO-RE of the x86_64 and arm64
#                                 objects against Debian 6.1 and 6.12 BTF

BPF_TEST_LIBS := $(BPF_SOURCE_LIB) $(B)/lib/libstate.a $(B)/lib/libencode.a \
		 $(B)/lib/libsink.a $(ARCHIVE_LIB) $(B)/lib/libtransport.a \
		 $(B)/lib/libfxtprof.a $(B)/lib/libfxt.a

$(B)/tests/bpf/%.o: CPPFLAGS += -Iuser -Iuser/fxt -Iuser/source/bpf

$(B)/tests/bpf/bpf_record: $(B)/tests/bpf/bpf_record.o $(BPF_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) $(BPF_SOURCE_LDLIBS)

$(B)/tests/bpf/test_bpf_source: $(B)/tests/bpf/test_bpf_source.o \
		$(BPF_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -luring $(ARCHIVE_LDLIBS) $(BPF_SOURCE_LDLIBS)

# The walk from unwind tables: the test builds them with user/unwind/.
$(B)/tests/bpf/test_bpf_unwind: $(B)/tests/bpf/test_bpf_unwind.o \
		$(BPF_TEST_LIBS) $(UNWIND_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(UNWIND_LDLIBS) $(BPF_SOURCE_LDLIBS)
$(B)/tests/bpf/test_bpf_unwind: | $(B)/tests/bpf/unwind_workload \
	$(B)/tests/bpf/unwind_workload_noeh $(B)/tests/bpf/libunwind_dl.so \
	$(B)/tests/bpf/throw_workload

# A process's unwind ranges as the bpf source keeps them (no privileges).
$(B)/tests/bpf/test_unwind_ranges: $(B)/tests/bpf/test_unwind_ranges.o \
		$(B)/user/source/bpf/unwind_ranges.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# Where the bpf source puts each table's rows (no privileges).
$(B)/tests/bpf/test_unwind_extents: $(B)/tests/bpf/test_unwind_extents.o \
		$(B)/user/source/bpf/unwind_extents.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# test_bpf_unwind's programs: without frame pointers, as Debian builds
# (the test checks with objdump), and a frame-pointer build whose
# .eh_frame is removed, for the fallback.
UNWIND_WORKLOAD_CFLAGS := -O2 -g -Wall
$(B)/tests/bpf/unwind_workload: tests/bpf/unwind_workload.c
	@mkdir -p $(@D)
	$(CC) $(UNWIND_WORKLOAD_CFLAGS) -fomit-frame-pointer -o $@ $< -ldl
$(B)/tests/bpf/unwind_workload_noeh: tests/bpf/unwind_workload.c
	@mkdir -p $(@D)
	$(CC) $(UNWIND_WORKLOAD_CFLAGS) -fno-omit-frame-pointer -o $@.tmp $< -ldl
	objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr \
		--remove-section=.debug_frame $@.tmp $@
	rm -f $@.tmp
# The C++ program that throws (tests/unwind/throw.cpp), PIE, with the
# host's libstdc++ and libgcc_s: their unwinder has no frame pointers.
$(B)/tests/bpf/throw_workload: tests/unwind/throw.cpp
	@mkdir -p $(@D)
	g++ $(UNWIND_WORKLOAD_CFLAGS) -fomit-frame-pointer -o $@ $<
$(B)/tests/bpf/libunwind_dl.so: tests/bpf/unwind_dl.c
	@mkdir -p $(@D)
	$(CC) $(UNWIND_WORKLOAD_CFLAGS) -fomit-frame-pointer -fPIC -shared \
		-o $@ $<

# The same in every VM suite, static, with static programs (the guest
# has no dynamic loader, so no dlopen test there).
BPF_OBJCOPY := $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-objcopy,objcopy)
$(B)/tests/bpf/vm/test_bpf_unwind: $(B)/tests/bpf/test_bpf_unwind.o \
		$(BPF_TEST_LIBS) $(UNWIND_LIB) $(UTIL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ \
		$(UNWIND_STATIC_LDLIBS) $(BPF_SOURCE_LDLIBS) -lpthread
$(B)/tests/bpf/vm/unwind_workload: tests/bpf/unwind_workload.c
	@mkdir -p $(@D)
	$(CC) $(UNWIND_WORKLOAD_CFLAGS) -fomit-frame-pointer $(LDFLAGS) \
		$(STATIC_LDFLAGS) -o $@ $<
$(B)/tests/bpf/vm/unwind_workload_noeh: tests/bpf/unwind_workload.c
	@mkdir -p $(@D)
	$(CC) $(UNWIND_WORKLOAD_CFLAGS) -fno-omit-frame-pointer $(LDFLAGS) \
		$(STATIC_LDFLAGS) -o $@.tmp $<
	$(BPF_OBJCOPY) --remove-section=.eh_frame \
		--remove-section=.eh_frame_hdr --remove-section=.debug_frame \
		$@.tmp $@
	rm -f $@.tmp
VM_TEST_PROGS += $(B)/tests/bpf/vm/test_bpf_unwind \
		 $(B)/tests/bpf/vm/unwind_workload \
		 $(B)/tests/bpf/vm/unwind_workload_noeh

$(B)/tests/bpf/test_bpf_ring: $(B)/tests/bpf/test_bpf_ring.o \
		$(B)/user/source/bpf/bpf_ring.o $(B)/lib/libfxtprof.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# Its functions' addresses are its symbol table's: no PIE, no inlining.
$(B)/tests/bpf/fp_workload: tests/bpf/fp_workload.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -fno-inline -no-pie -o $@ $<

# Its three functions must keep their own samples: no inlining.
$(B)/tests/bpf/diff_workload: tests/bpf/diff_workload.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -fno-inline -o $@ $<

$(B)/tests/bpf/run_%: tests/bpf/run_%.sh
	@mkdir -p $(@D)
	cp $< $@

# run_record_auto runs tests/symbols' workloads, as they are built there.
$(B)/tests/bpf/run_record_auto: $(B)/bin/fxtprof $(B)/tests/symbols/sym_chain \
	$(B)/tests/symbols/sym_short $(B)/tests/symbols/sym_wait
$(B)/tests/bpf/run_record_ready: $(B)/bin/fxtprof
$(B)/tests/bpf/run_record_memory: $(B)/bin/fxtprof
$(B)/tests/bpf/run_record_unwind: $(B)/bin/fxtprof \
	$(B)/tests/bpf/unwind_workload
$(B)/tests/bpf/run_record_diff: $(B)/bin/fxtprof $(B)/tests/bpf/diff_workload
$(B)/tests/bpf/run_record_offcpu: $(B)/bin/fxtprof \
	$(B)/tests/offcpu/offcpu_workload
# The TAP and wait helpers the run_record_* scripts source, beside them.
$(B)/tests/bpf/run_record_auto $(B)/tests/bpf/run_record_ready \
	$(B)/tests/bpf/run_record_memory $(B)/tests/bpf/run_record_diff \
	$(B)/tests/bpf/run_record_offcpu \
	$(B)/tests/bpf/run_record_unwind: $(B)/tests/bpf/tap.sh \
	$(B)/tests/bpf/wait.sh
$(B)/tests/bpf/tap.sh $(B)/tests/bpf/wait.sh: $(B)/tests/bpf/%: tests/scripts/%
	@mkdir -p $(@D)
	cp $< $@

# The VM half (every VM suite, both arches): record --source bpf in the
# guest; checks the refusal where it cannot run (no BTF, BPF_SOURCE=0).
$(B)/tests/bpf/vm/test_bpf_record: tests/bpf/test_bpf_vm.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@
VM_TEST_PROGS += $(B)/tests/bpf/vm/test_bpf_record
# Its comparison of the sources names the bench workload's leaf frames
# with this table ("start size type name", functions only): the board
# build has no symbolizer, and the static workload is not PIE.
$(B)/tests/bpf/vm/workload.syms: $(BENCH_WORKLOAD)
	@mkdir -p $(@D)
	$(NM) -S -n --defined-only $< | awk 'NF == 4 && $$3 ~ /^[tTwW]$$/' > $@.tmp
	mv $@.tmp $@
VM_TEST_FILES += $(B)/tests/bpf/vm/workload.syms:/tests/fxt-bench-workload.syms
USER_PROGS += $(B)/tests/bpf/vm/workload.syms

$(B)/tests/bpf/vm/test_bpf_hotplug: tests/bpf/test_bpf_hotplug.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@
VM_TEST_PROGS += $(B)/tests/bpf/vm/test_bpf_hotplug

# run_core_check needs the host's BTF carver and the x86 object.
$(B)/tests/bpf/run_core_check: $(BPF_B)/host/btf_carve $(BPF_B)/fxtprof.bpf.o

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/bpf/test_bpf_source $(B)/tests/bpf/test_bpf_ring \
	      $(B)/tests/bpf/run_bpf_record $(B)/tests/bpf/run_record_auto \
	      $(B)/tests/bpf/run_record_ready $(B)/tests/bpf/run_record_unwind \
	      $(B)/tests/bpf/run_record_memory $(B)/tests/bpf/run_record_diff \
	      $(B)/tests/bpf/run_record_offcpu \
	      $(B)/tests/bpf/run_core_check $(B)/tests/bpf/test_bpf_unwind \
	      $(B)/tests/bpf/test_unwind_ranges $(B)/tests/bpf/test_unwind_extents
USER_PROGS += $(B)/tests/bpf/bpf_record $(B)/tests/bpf/fp_workload
endif
