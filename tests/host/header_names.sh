#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# header_names.sh ROOT: TAP test that no two headers in the repository share
# a basename, so a quoted #include can never pick the wrong one and every
# header's name says which it is.  Files git does not track (build/) are
# not the repository's.
root=$1
echo "1..1"
dups=$(git -C "$root" ls-files -co --exclude-standard "*.h" | sed 's|.*/||' | sort | uniq -d)
if [ -z "$dups" ]; then
	echo "ok 1 unique_header_basenames"
	exit 0
fi
echo "not ok 1 unique_header_basenames"
for d in $dups; do
	git -C "$root" ls-files -co --exclude-standard "*/$d" "$d" | sed 's/^/# /'
done
exit 1
