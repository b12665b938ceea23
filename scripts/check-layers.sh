#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-layers.sh [ROOT] - the dependencies between the parts of
# user/ point one way (Documentation/architecture.md draws them): every
# "folder/header.h" include in a folder under user/, subfolders included,
# must name a folder that folder may use.  The folders come from the tree
# (ROOT, default this repository), so a new one fails until the table
# below says what it may use.  Prints each include that points the wrong
# way and each unknown folder, and exits 1 if there is one.
set -eu
cd "${1:-$(dirname "$0")/..}"
# allowed FOLDER: the folders under user/ FOLDER may include from.
allowed() {
	case $1 in
	cmd)		echo "cmd source state encode fxt sink transport profile" \
			     "symbolize export archive report unwind push buildid collect" ;;
	source)		echo "source source/bpf transport" ;;
	source/bpf)	echo "source/bpf source" ;;
	state)		echo "state encode sink transport" ;;
	encode)		echo "encode fxt sink transport" ;;
	sink)		echo "sink transport archive" ;;
	transport)	echo "transport" ;;
	profile)	echo "profile fxt" ;;
	symbolize)	echo "symbolize profile" ;;
	buildid)	echo "buildid profile source" ;;
	collect)	echo "collect fxt source" ;;
	export)		echo "export profile symbolize" ;;
	report)		echo "report profile symbolize export fxt" ;;
	push)		echo "push profile symbolize export fxt" ;;
	archive)	echo "archive fxt" ;;
	fxt)		echo "fxt" ;;
	hooks)		echo "hooks encode sink state transport" ;;
	lib)		echo "lib" ;;
	unwind)		echo "unwind" ;;
	util)		echo "util" ;;
	*)		return 1 ;;
	esac
}
bad=0
for dir in $(find user -mindepth 1 -type d | sort); do
	part=${dir#user/}
	if ! ok=$(allowed "$part"); then
		echo "$dir: a folder scripts/check-layers.sh does not know"
		bad=1
		continue
	fi
	# Every part may use util, which uses nothing.
	[ "$part" = util ] || ok="$ok util"
	for f in "$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's|^#include "\([a-z_/]*\)/[^/"]*"|\1|p' "$f"); do
			case " $ok " in
			*" $inc "*) ;;
			*) echo "$f: includes $inc/, which $part may not use"; bad=1 ;;
			esac
		done
	done
done
[ "$bad" = 0 ] && echo "check-layers: every include points down the layers"
exit "$bad"
