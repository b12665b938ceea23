#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Extract the kselftest harness headers from Debian's linux-source tarball
# into build/deps/kselftest (cached).  They are GPL kernel files we only
# compile against, so they are never committed.
set -euo pipefail
. "$(dirname "$0")/env.sh"

out=$FXT_DEPS/kselftest
[ -f "$out/kselftest_harness.h" ] && [ -f "$out/kselftest.h" ] && exit 0
mkdir -p "$out"
src=$FXT_DEPS/linux-source-6.1/tools/testing/selftests
if [ -f "$src/kselftest_harness.h" ]; then
	# The debug kernel build already unpacked the whole tree.
	cp "$src/kselftest_harness.h" "$src/kselftest.h" "$out/"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tmp" --occurrence=1 \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h
	cp "$tmp"/linux-source-6.1/tools/testing/selftests/kselftest*.h "$out/"
fi
