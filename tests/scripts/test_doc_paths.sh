#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_doc_paths.sh: README.md and Documentation/*.md name only repository
# paths (user/..., kmod/..., tests/..., scripts/..., include/...,
# Documentation/...) that exist.  A path names a file or folder, or a
# program built from a source of that name (tests/x/test_y from
# tests/x/test_y.c) or by its folder's build.mk (tests/x/run_y); paths
# with a wildcard or braces name a pattern and are skipped.  TAP on stdout.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/tap.sh"
cd "$here/../.." || exit 1

# dangling DOC...: each "DOC: PATH" whose PATH is not in the repository.
dangling() {
	local doc p
	for doc in "$@"; do
		grep -oE '(^|[^A-Za-z0-9_./-])(user|kmod|tests|scripts|include|Documentation)/[A-Za-z0-9_./*{}-]*[A-Za-z0-9_*}]' "$doc" |
		sed -E 's/^[^A-Za-z]//' | sort -u | while read -r p; do
			case $p in *'*'* | *'{'*) continue ;; esac
			[ -e "$p" ] && continue
			compgen -G "$p.*" > /dev/null && continue
			grep -qsE "/${p##*/}([^A-Za-z0-9_.]|$)" "${p%/*}/build.mk" && continue
			echo "$doc: $p"
		done
	done
}

echo "TAP version 13"
echo "1..2"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'See `user/no_such_part/gone.c` and `tests/scripts/test_tree`.\n' > "$tmp/doc.md"
found=$(dangling "$tmp/doc.md")
ok "$([ "$found" = "$tmp/doc.md: user/no_such_part/gone.c" ]; echo $?)" \
	"a missing path is found, a built program is not"
found=$(dangling README.md Documentation/*.md)
ok "$([ -z "$found" ]; echo $?)" "every repository path the docs name exists"
[ -z "$found" ] || sed 's/^/# /' <<<"$found"
exit "$failed"
