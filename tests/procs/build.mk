# SPDX-License-Identifier: GPL-2.0-only
#
# tests/procs/build.mk - what the recorder adds to each process
# (user/cmd/record_procs.h, record_collect.h): its container and its JIT
# functions.  Host-native only.
#   $(B)/tests/procs/test_procs    TAP (kselftest): the cgroup, NSpid and
#                                  perf map parsers on good and bad input,
#                                  the .build-id paths; no privileges
#   $(B)/tests/procs/run_record_jit  TAP: node --perf-basic-prof recorded
#                                  with the bpf source; report names its
#                                  hot JavaScript function (root, BTF)
#   $(B)/tests/procs/run_record_container  TAP: a program only a private
#                                  tmpfs in its own pid and mount
#                                  namespaces holds, in a cgroup the test
#                                  makes: record --collect, report
#                                  --debug-dir names it, --cgroup and
#                                  --nspid select it (root, BTF, cgroup v2)
#   $(B)/tests/procs/ns_workload   spins in procs_ns_leaf for N seconds
#   $(B)/tests/procs/jit_workload.js  node's hot function

$(B)/tests/procs/%.o: CPPFLAGS += -Iuser
$(B)/tests/procs/test_procs: $(B)/tests/procs/test_procs.o \
		$(B)/lib/libsource.a $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# Dynamic, with frame pointers, no inlining: its two functions keep
# their frames, and the copy in the namespace needs the host's libc.
$(B)/tests/procs/ns_workload: tests/procs/ns_workload.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -o $@ $<

$(B)/tests/procs/jit_workload.js: tests/procs/jit_workload.js
	@mkdir -p $(@D)
	cp $< $@
$(B)/tests/procs/run_%: tests/procs/run_%.sh
	@mkdir -p $(@D)
	cp $< $@
$(B)/tests/procs/tap.sh $(B)/tests/procs/wait.sh: $(B)/tests/procs/%: \
		tests/scripts/%
	@mkdir -p $(@D)
	cp $< $@
$(B)/tests/procs/run_record_jit: $(B)/bin/fxtprof \
	$(B)/tests/procs/jit_workload.js
$(B)/tests/procs/run_record_container: $(B)/bin/fxtprof \
	$(B)/tests/procs/ns_workload
$(B)/tests/procs/run_record_jit $(B)/tests/procs/run_record_container: \
	$(B)/tests/procs/tap.sh $(B)/tests/procs/wait.sh

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(B)/tests/procs/test_procs $(B)/tests/procs/run_record_jit \
	      $(B)/tests/procs/run_record_container
endif
