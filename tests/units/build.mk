# SPDX-License-Identifier: GPL-2.0-only
#
# tests/units/build.mk - the systemd units of contrib/systemd/, installed
# into a stage of the test's (make install PREFIX=STAGE/usr) and checked
# with systemd-analyze, without a running systemd
# (tests/units/test_units.sh).  A launcher under $(B) runs the script from
# the source tree.

ifeq ($(ARCH),x86_64)
$(B)/tests/units/test_units: tests/units/test_units.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s %s %s %s %s\n' $(abspath $<) $(MAKE) \
		$(abspath .) $(ARCH) $(abspath $(B)/tests/units/stage) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/units/test_units
endif
