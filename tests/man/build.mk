# SPDX-License-Identifier: GPL-2.0-only
#
# tests/man/build.mk - the man pages of Documentation/man/ against the
# program: a page per command, the same options as each --help, the
# module's parameters and ABI version, and no groff warning
# (tests/man/test_man.sh).  A launcher under $(B) runs the script from the
# source tree with the host's fxtprof.

ifeq ($(ARCH),x86_64)
$(B)/tests/man/test_man: tests/man/test_man.sh $(B)/bin/fxtprof
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s %s "$$@"\n' $(abspath $<) $(abspath $(B)/bin/fxtprof) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/man/test_man
endif
