# SPDX-License-Identifier: GPL-2.0-only
#
# tests/offcpu/build.mk - off-CPU profiles against waits that a workload
# times itself.
#
#   $(B)/tests/offcpu/offcpu_workload  threads that wait in known
#                                 functions (nanosleep, a pipe, a mutex,
#                                 fsync) and print how long; the bpf
#                                 source's host test runs it
#                                 (tests/bpf/run_record_offcpu.sh), and
#                                 the VM half below
#   test_offcpu (VM, /tests)      the guest half of the module's test:
#                                 records the workload with --source
#                                 module --off-cpu and writes the
#                                 recording to the console
#   check_offcpu.sh (host)        the host half, run by scripts/vm-suite.sh
#                                 on the VM's log: names the frames and
#                                 holds each function's waits to the
#                                 workload's own clock
#
# The workload is dynamic, as the programs of tests/symbols are (so not
# $(LDFLAGS), which hold -static on arm64): its waits go through libc,
# built without frame pointers, which the unwind tables walk.  -O0
# -fno-inline: each waiting function keeps its own frame.

$(B)/tests/offcpu/offcpu_workload: tests/offcpu/offcpu_workload.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -fno-inline -pthread -o $@ $<

$(B)/tests/offcpu/test_offcpu: tests/offcpu/test_offcpu.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

VM_TEST_PROGS += $(B)/tests/offcpu/test_offcpu \
	$(B)/tests/offcpu/offcpu_workload
