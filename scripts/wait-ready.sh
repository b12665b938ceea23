#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wait-ready.sh FILE PID [SECONDS]
# Wait until `fxtprof record --ready-file FILE` (running as PID) says it
# records: FILE exists (record writes it as FILE.tmp and renames it).
# Fails, and says why, if PID exits first or SECONDS (default 60) pass.
# POSIX sh: the host's scripts run it from scripts/, the VM's
# (tests/reader/demo-vm.sh, tests/symbols/test_symbols.sh) as
# /bin/fxt-wait-ready (scripts/mkinitramfs.sh puts it there).
file=${1:?usage: wait-ready.sh FILE PID [SECONDS]}
pid=${2:?usage: wait-ready.sh FILE PID [SECONDS]}
secs=${3:-60}
i=0
while [ ! -e "$file" ]; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "wait-ready: fxtprof record (pid $pid) exited before it recorded" >&2
		exit 1
	fi
	if [ $i -ge $((secs * 10)) ]; then
		echo "wait-ready: fxtprof record (pid $pid) did not start recording in ${secs}s" >&2
		exit 1
	fi
	sleep 0.1	# the poll interval
	i=$((i + 1))
done
