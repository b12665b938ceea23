#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_tree.sh: rules every tracked file keeps.  It names its files by
# their paths in the repository, never by a path of one machine; it opens
# with an SPDX line (a binary file: in FILE.license); and the pipeline's
# includes point one way (scripts/check-layers.sh).  TAP on stdout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

echo "TAP version 13"
echo "1..3"
files=$(git ls-files)
# A path of a development machine, not of the repository.
paths=$(grep -lE '(^|[^A-Za-z0-9_.])/(work|home|Users)/' $files 2>/dev/null || true)
if [ -z "$paths" ]; then echo "ok 1 no machine paths"; else
	echo "not ok 1 no machine paths"; sed 's/^/# in /' <<<"$paths"; fi
# A binary file (a test fixture) carries its line in FILE.license (REUSE).
nospdx=$(for f in $files; do head -n 5 "$f" | grep -q 'SPDX-License-Identifier' ||
	grep -qs 'SPDX-License-Identifier' "$f.license" || echo "$f"; done)
if [ -z "$nospdx" ]; then echo "ok 2 an SPDX line in every file"; else
	echo "not ok 2 an SPDX line in every file"; sed 's/^/# missing in /' <<<"$nospdx"; fi
layers=$(sh scripts/check-layers.sh 2>&1); lrc=$?
if [ "$lrc" -eq 0 ]; then echo "ok 3 the pipeline's includes point one way"; else
	echo "not ok 3 the pipeline's includes point one way"; sed 's/^/# /' <<<"$layers"; fi
[ -z "$paths$nospdx" ] && [ "$lrc" -eq 0 ]
