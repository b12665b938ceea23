#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sparse-module.sh CFG - run sparse on every kmod/ file (kbuild's make
# C=2) for a kernel configuration of scripts/env.sh, and fail if it warns
# about any of them.  The kernel's own headers may warn too: those are not
# ours to fix, so only diagnostics in kmod/ or include/ count.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: sparse-module.sh CFG}
command -v sparse >/dev/null || { echo "sparse-module.sh: no sparse (run scripts/setup.sh)" >&2; exit 1; }
log=$(C=2 "$FXT_ROOT/scripts/build-module.sh" "$cfg" 2>&1) || { echo "$log"; exit 1; }
echo "$log"
ours=$(grep -E "/kmod/(kmod|include)/[^:]+:[0-9]+:[0-9]+: (warning|error):" <<<"$log" || true)
[ -z "$ours" ] || { echo "sparse-module.sh: sparse warns about our files:" >&2; echo "$ours" >&2; exit 1; }
