#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-layers.sh - the pipeline's dependencies point one way
# (Documentation/architecture.md): every "part/header.h" include in
# user/<part>/ must name a part that part may use.  Prints each include
# that points the wrong way and exits 1 if there is one.
set -eu
cd "$(dirname "$0")/.."
allowed() {
	case $1 in
	cmd)		echo "cmd source state encode fxt sink transport profile symbolize export archive" ;;
	source)		echo "source" ;;
	state)		echo "state encode sink transport" ;;
	encode)		echo "encode fxt sink transport" ;;
	sink)		echo "sink transport archive" ;;
	transport)	echo "transport" ;;
	profile)	echo "profile fxt" ;;
	symbolize)	echo "symbolize profile" ;;
	export)		echo "export profile symbolize" ;;
	archive)	echo "archive fxt" ;;
	*)		echo "$1" ;;
	esac
}
bad=0
for part in cmd source state encode sink transport profile symbolize export archive; do
	ok=$(allowed "$part")
	for f in user/"$part"/*.[ch]; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's|^#include "\([a-z_]*\)/[^"]*"|\1|p' "$f"); do
			# util (containers) may be used by every part.
			case " $ok util " in
			*" $inc "*) ;;
			*) echo "$f: includes $inc/, which $part may not use"; bad=1 ;;
			esac
		done
	done
done
[ "$bad" = 0 ] && echo "check-layers: every include points down the pipeline"
exit "$bad"
