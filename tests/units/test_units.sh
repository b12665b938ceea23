#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_units.sh MAKE ROOT ARCH STAGE: the systemd units of contrib/systemd/
# as `make install PREFIX=STAGE/usr` lays them down (no DESTDIR, so the
# paths they name exist), without booting a systemd (none runs here):
#  - `systemd-analyze verify` takes both, the receive service and the
#    record template, with nothing to say (a typo'd key is a warning it
#    prints, so the output must be empty too);
#  - `systemd-analyze security --offline=true` rates the receive service's
#    exposure at most 2.0 and record's at most 4.0 (record samples the
#    whole system as root, and keeps the capabilities that takes);
#  - record@'s command line records to the instance, and fxtprof-record@default
#    to FXTPROF_RECORD_URI, with FXTPROF_RECORD_OPTS and --reconnect (run
#    by sh as systemd would, %I and $$ replaced, against a stand-in fxtprof);
#  - the installed /etc/default/fxtprof-receive's settings start the real
#    receive, which prints its address and stops at SIGTERM.
# TAP on stdout.
set -uo pipefail
make=$1 root=$2 arch=$3 stage=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../scripts/tap.sh"
. "$here/../scripts/wait.sh"
units=$stage/usr/lib/systemd/system
# The units' Documentation= man: pages, found by man(1) in the stage.
export MANPATH=$stage/usr/share/man:

install_stage() {
	rm -rf "$stage" &&
	"$make" -s --no-print-directory -C "$root" ARCH="$arch" install PREFIX="$stage/usr"
}
verify() {
	local out
	out=$(cd "$units" && systemd-analyze verify "./$1" 2>&1) || { echo "$out"; return 1; }
	[ -z "$out" ] || { echo "$out"; return 1; }
}
# exposure UNIT MAX: the overall exposure level is at most MAX.
exposure() {
	local out level
	out=$(cd "$units" && systemd-analyze security --offline=true "./$1" 2>&1)
	level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
	echo "exposure of $1: ${level:-none}"
	[ -n "$level" ] && awk -v l="$level" -v m="$2" 'BEGIN { exit !(l <= m) }'
}
# record@'s ExecStart, as systemd runs it for instance $1, with env $2.
record_cmdline() {
	local line
	line=$(sed -n 's/^ExecStart=//p' "$units/fxtprof-record@.service")
	line=${line//%I/$1}
	line=${line//\$\$/\$}
	local uri=$2
	# systemd splits the line as a shell does single quotes
	eval "set -- $line" &&
	env FXTPROF_RECORD_URI="$uri" FXTPROF_RECORD_OPTS="-F 997 -q" "$@"
}
record_uri() {
	local fx=$stage/usr/bin/fxtprof got
	mv "$fx" "$fx.real" && printf '#!/bin/sh\necho "$*"\n' > "$fx" && chmod +x "$fx" || return 1
	got=$(record_cmdline tcp://board:7878 unix:///x; record_cmdline default tcp://host:1)
	mv "$fx.real" "$fx"
	[ "$got" = "record --reconnect -F 997 -q -o tcp://board:7878
record --reconnect -F 997 -q -o tcp://host:1" ] || { echo "$got"; return 1; }
}
receive_defaults() {
	local out=$stage/receive.out pid rc
	(	. "$stage/usr/etc/default/fxtprof-receive" &&
		exec "$stage/usr/bin/fxtprof" receive "unix://$stage/receive.sock" \
			-o "$stage/traces" $FXTPROF_RECEIVE_OPTS > "$out" 2>&1 ) &
	pid=$!
	wait_file "$out" "$pid" 30 || { cat "$out"; kill "$pid" 2>/dev/null; return 1; }
	kill -TERM "$pid"; wait "$pid"; rc=$?
	grep -q "receive.sock" "$out" && [ -d "$stage/traces" ] && [ "$rc" -eq 0 ] ||
		{ echo "status $rc"; cat "$out"; return 1; }
}

echo "TAP version 13"
echo "1..7"
t make_install_prefix install_stage
t receive_service_verifies verify fxtprof-receive.service
t record_template_verifies verify fxtprof-record@.service
t receive_exposure_at_most_2 exposure fxtprof-receive.service 2.0
t record_exposure_at_most_4 exposure fxtprof-record@.service 4.0
t record_to_the_instance_or_the_default_uri record_uri
t receive_starts_with_the_default_settings receive_defaults
rm -rf "$stage"
exit $failed
