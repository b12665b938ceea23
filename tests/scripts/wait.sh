# SPDX-License-Identifier: GPL-2.0-only
# wait.sh: sourced by the host's shell tests that start a recorder
# (tests/bpf/run_record_*).  wait_file FILE PID [SECS] waits until FILE
# is non-empty while PID lives, for at most SECS (30) seconds, and
# returns 0 once it is: a test waits for the condition it needs, not for
# a fixed time.
wait_file() {
	_i=0
	while [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null &&
	      [ $_i -lt $((${3:-30} * 20)) ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -s "$1" ]
}
