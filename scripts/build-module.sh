#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-module.sh CFG  (a kernel configuration of scripts/env.sh: x86_64,
# arm64, debug, x86_64-6.12, arm64-6.12)
# Build fxtprof.ko out of tree into build/CFG/kmod/fxtprof.ko; for debug,
# signed with the debug kernel's test key (below).
#
# Kbuild on 6.1 writes objects next to the sources of M=, so M= is a
# symlink farm under build/CFG/kmod: Kbuild and each kmod/ file are
# per-file links, include/ is a directory link (headers are only read).
# Env: KDIR (kernel build tree), KSRC (tree holding Kbuild, kmod/,
# include/; default: this repository), V=1 for verbose kbuild, C=2 to run
# sparse (make C=2) on every file.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: build-module.sh CFG (one of: $FXT_CFGS)}
ksrc=$(cd "${KSRC:-$FXT_ROOT}" && pwd)
fxt_cfg "$cfg" || exit 2
kdir=${KDIR:-$CFG_KDIR}
kargs=("${CFG_KBUILD[@]}")
[ -f "$kdir/Makefile" ] || { echo "build-module.sh: no kernel tree at $kdir (run make deps)" >&2; exit 1; }
[ -f "$ksrc/Kbuild" ] || { echo "build-module.sh: no $ksrc/Kbuild" >&2; exit 1; }

out=$FXT_BUILD/$cfg/kmod
mkdir -p "$out"
# Refresh the links every time so renamed/deleted sources disappear;
# make follows links, so recreating them does not force a rebuild.
find "$out" -type l -delete
ln -s "$ksrc/Kbuild" "$out/Kbuild"
ln -s "$ksrc/include" "$out/include"
if [ -d "$ksrc/kmod" ]; then
	(cd "$ksrc/kmod" && find . -type f \( -name '*.[chS]' -o -name 'Kbuild' -o -name '*.lds' \)) |
	while read -r f; do
		mkdir -p "$out/kmod/$(dirname "$f")"
		ln -s "$ksrc/kmod/$f" "$out/kmod/$f"
	done
fi

# Under `make -jN` the jobserver is inherited through MAKEFLAGS: share it
# rather than force a second -j on kbuild (make warns, and oversubscribes).
jobs=(-j"$(nproc)")
case " ${MAKEFLAGS:-} " in *jobserver*) jobs=() ;; esac
make -C "$kdir" M="$out" "${kargs[@]}" "${jobs[@]}" ${V:+V=$V} ${C:+C=$C} modules

# The debug kernel checks module signatures and trusts its machine's test
# key (scripts/build-debug-kernel.sh): sign the module with it, so that
# loading it taints nothing, as on a distribution whose modules are all
# signed.  Kbuild leaves a signed fxtprof.ko alone until a source changes;
# each freshly linked one is kept unsigned as fxtprof-unsigned.ko, which
# scripts/vm-sig-enforce.sh shows refused, and then signed.
if [ "$cfg" = debug ] && [ -z "${KDIR:-}" ] &&
	! tail -c 28 "$out/fxtprof.ko" | grep -q '~Module signature appended~'; then
	keys=$("$FXT_ROOT/scripts/build-debug-kernel.sh" --print-key-dir)
	cp "$out/fxtprof.ko" "$out/fxtprof-unsigned.ko"
	"$FXT_ROOT/scripts/sign-module.sh" "$keys/trusted.key" "$keys/trusted.crt" \
		"$out/fxtprof.ko" "$kdir"
fi
ls -l "$out"/*.ko
