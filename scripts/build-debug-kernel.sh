#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-debug-kernel.sh [--print-dir]
# Build the x86_64 KASAN/lockdep/kmemleak kernel for CFG=debug from
# Debian's linux-source-6.1: tinyconfig + scripts/debug-kernel.config.
# Cached in $FXTPROF_CACHE/debug-kernel/<fragment hash> (an O= tree that
# modules build against; default /var/cache/fxtprof, else build/deps),
# shared by every checkout on the machine: a kernel tree records absolute
# paths, so it cannot live in one checkout's build/ and serve another.
# Built once per machine, and again only when the fragment changes.
# --print-dir prints that tree.
set -euo pipefail
. "$(dirname "$0")/env.sh"

frag=$FXT_ROOT/scripts/debug-kernel.config
# Bump RECIPE when a change below alters the kernel that gets built.
RECIPE=1
hash=$( (cat "$frag"; echo "recipe $RECIPE") | sha256sum | cut -c1-12)
obj=$FXT_MACHINE_CACHE/debug-kernel/$hash
if [ "${1:-}" = --print-dir ]; then echo "$obj"; exit 0; fi
[ -f "$obj/.done" ] && exit 0

# Several make invocations may want the kernel at once (make check, a
# developer's make CFG=debug): build it once, the others wait.
mkdir -p "$FXT_MACHINE_CACHE"
exec 9>"$FXT_MACHINE_CACHE/debug-kernel.lock"
flock 9
[ -f "$obj/.done" ] && exit 0

src=$FXT_MACHINE_CACHE/linux-source-6.1
if [ ! -f "$src/.extracted" ]; then
	echo "debug-kernel: extracting linux-source-6.1"
	rm -rf "$src"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$FXT_MACHINE_CACHE"
	touch "$src/.extracted"
fi

# Older hashes are dead weight (a KASAN tree is ~1 GB).
rm -rf "$FXT_MACHINE_CACHE/debug-kernel"
mkdir -p "$obj"
kmake() { make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" "$@"; }
kmake -s tinyconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" >/dev/null
kmake -s olddefconfig

# Kconfig silently drops symbols whose dependencies are unmet; say so.
lost=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r line; do
	grep -qxF "$line" "$obj/.config" || echo "${line%%=*}"
done)
[ -z "$lost" ] || echo "debug-kernel: WARNING: not applied:" $lost >&2

start=$(date +%s)
kmake bzImage modules
echo "debug-kernel: built in $(( $(date +%s) - start ))s"
touch "$obj/.done"
