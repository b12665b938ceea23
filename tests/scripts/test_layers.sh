#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_layers.sh: scripts/check-layers.sh on small trees made here.  It
# passes a tree whose includes point down the layers, fails an include
# that points up (at the top and in a subfolder), fails a folder its
# table does not know, and lets every part use util but util nothing.
# TAP on stdout.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/tap.sh"
check=$here/../../scripts/check-layers.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# tree NAME: a fresh tree with a few well-layered parts.
tree() {
	root=$tmp/$1
	mkdir -p "$root/user/cmd" "$root/user/sink" "$root/user/source/bpf" \
		 "$root/user/util"
	printf '#include "sink/sink.h"\n#include "util/list.h"\n' > "$root/user/cmd/main.c"
	printf '#include "util/list.h"\n' > "$root/user/sink/sink.h"
	printf '#include "source/source.h"\n' > "$root/user/source/bpf/ring.c"
	: > "$root/user/util/list.h"
}
fails() { ! sh "$check" "$1" >/dev/null 2>&1; }

echo "TAP version 13"
echo "1..6"
tree good
t "a tree whose includes point down passes" sh "$check" "$root"
tree up
printf '#include "cmd/cmd.h"\n' > "$root/user/sink/sink.c"
t "an include that points up fails" fails "$root"
tree sub
printf '#include "cmd/cmd.h"\n' >> "$root/user/source/bpf/ring.c"
t "an include up from a subfolder fails" fails "$root"
tree unknown
mkdir -p "$root/user/sink/extra"
t "a folder the table does not know fails" fails "$root"
tree utilup
printf '#include "sink/sink.h"\n' > "$root/user/util/list.c"
t "util uses nothing" fails "$root"
t "the repository's own tree passes" sh "$check"
exit "$failed"
