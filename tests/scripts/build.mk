# SPDX-License-Identifier: GPL-2.0-only
#
# tests/scripts/build.mk - host tests of the project's own scripts: setup
# on a machine that has nothing (test_setup.sh), the suites' plan check
# (test_plan.sh), the layering (test_layers.sh), the paths the docs name
# (test_doc_paths.sh) and the tree's rules (test_tree.sh).  Each becomes
# a small launcher under $(B) that runs the script from the source tree,
# so it tests the scripts in place.

SCRIPT_TESTS := $(patsubst tests/scripts/%.sh,$(B)/tests/scripts/%,$(wildcard tests/scripts/test_*.sh))

$(SCRIPT_TESTS): $(B)/tests/scripts/%: tests/scripts/%.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s "$$@"\n' $(abspath $<) > $@
	@chmod +x $@

ifeq ($(ARCH),x86_64)
HOST_TESTS += $(SCRIPT_TESTS)
endif
