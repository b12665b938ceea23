# SPDX-License-Identifier: GPL-2.0-only
#
# tests/completion/build.mk - the bash completion of
# contrib/bash-completion/fxtprof, completing command lines against the
# host's fxtprof (tests/completion/test_completion.sh), through a launcher
# under $(B) that runs the script from the source tree.

ifeq ($(ARCH),x86_64)
$(B)/tests/completion/test_completion: tests/completion/test_completion.sh $(B)/bin/fxtprof
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec bash %s %s "$$@"\n' $(abspath $<) $(abspath $(B)/bin/fxtprof) > $@
	@chmod +x $@

HOST_TESTS += $(B)/tests/completion/test_completion
endif
