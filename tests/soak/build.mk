# SPDX-License-Identifier: GPL-2.0-only
#
# tests/soak/build.mk - the workload of `make soak` and of the short soak
# in `make check` (scripts/soak.sh): a static program that forks forever
# (tests/soak/forker.c).  Not named test_*: the VM suite does not run it.

SOAK_FORKER := $(B)/tests/soak/fxt-soak-forker

$(SOAK_FORKER): $(B)/tests/soak/forker.o
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lpthread

VM_TEST_PROGS += $(SOAK_FORKER)
