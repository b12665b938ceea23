# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bench/build.mk - the fixed CPU-bound workload of `make bench-kernel`
# (scripts/bench-kernel.sh).  Static, frame pointers everywhere, so both
# fxtprof and perf walk the same user stacks; it lands in /tests in the VM
# (not named test_*: the suite does not run it).

BENCH_WORKLOAD := $(B)/tests/bench/fxt-bench-workload

$(BENCH_WORKLOAD): $(B)/tests/bench/workload.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

VM_TEST_PROGS += $(BENCH_WORKLOAD)

# The flush-latency probe of `make bench-flush` (scripts/bench-flush.sh):
# libfxtprof's own flush completion, measured in the VM.
BENCH_FLUSH := $(B)/tests/bench/fxt-bench-flush

$(BENCH_FLUSH): $(B)/tests/bench/flush.o $(FXTPROF_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

VM_TEST_PROGS += $(BENCH_FLUSH)

# The interruption probe of `make bench-bpf` (scripts/bench-bpf.sh, and in
# the VM tests/bpf/bench-bpf.vm.sh): the length of every interruption a
# pinned spinning thread sees, per CPU.
BENCH_INTERRUPTIONS := $(B)/tests/bench/fxt-bench-interruptions

$(BENCH_INTERRUPTIONS): $(B)/tests/bench/interruptions.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

VM_TEST_PROGS += $(BENCH_INTERRUPTIONS)

# The FP-less workload of `make bench-unwind` (scripts/bench-unwind.sh):
# -fomit-frame-pointer, as Debian builds, and the shared glibc, so that its
# qsort frames are glibc's own; the script builds it (not in `make user`)
# and copies it, with its libraries, into the VM.
BENCH_UNWIND := $(B)/tests/bench/fxt-bench-unwind

$(BENCH_UNWIND): tests/bench/unwind.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -fomit-frame-pointer -o $@ $<
