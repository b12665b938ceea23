# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the other scripts: paths and the kernel ABI shared by all of them.
# The ABI is derived from the installed meta package so a Debian point
# release that bumps 6.1.0-57 to -58 needs no edit here.

FXT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FXT_BUILD=$FXT_ROOT/build
FXT_DEPS=$FXT_BUILD/deps
FXT_RESULTS=$FXT_BUILD/results
ARM64_ROOT=$FXT_DEPS/arm64/root
# What is costly and the same for every checkout (the debug kernel's
# tree, which records absolute paths) is cached once per machine.
FXT_MACHINE_CACHE=${FXTPROF_CACHE:-/var/cache/fxtprof}
if ! mkdir -p "$FXT_MACHINE_CACHE" 2>/dev/null || [ ! -w "$FXT_MACHINE_CACHE" ]; then
	FXT_MACHINE_CACHE=$FXT_DEPS
fi

# kabi e.g. "6.1.0-57" from "linux-headers-6.1.0-57-amd64 (= 6.1.192-3)"
fxt_kabi() {
	dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/.*linux-headers-\([0-9][^ ,]*\)-amd64.*/\1/p'
}

# The host (amd64) kbuild tools, shared by the arm64 header tree.
fxt_kbuild_dir() {
	local d
	for d in /usr/lib/linux-kbuild-*; do [ -d "$d/scripts" ] && { echo "$d"; return; }; done
	return 1
}
