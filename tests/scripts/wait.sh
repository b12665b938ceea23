# SPDX-License-Identifier: GPL-2.0-only
# wait.sh: sourced by the host's shell tests that start a recorder or a
# receiver: a test waits for the condition it needs, not for a fixed
# time, and gives up early when the process that should bring it about
# has died.
#
# wait_for PID SECS CMD [ARG...]: run CMD every 50 ms until it succeeds,
# while PID lives, for at most SECS seconds.  Returns CMD's last status.
wait_for() {
	_pid=$1 _secs=$2
	shift 2
	_i=0
	until "$@"; do
		if ! kill -0 "$_pid" 2>/dev/null || [ $_i -ge $((_secs * 20)) ]; then
			"$@"
			return
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
}

# wait_file FILE PID [SECS]: until FILE is non-empty (30 s at most).
wait_file() {
	wait_for "$2" "${3:-30}" test -s "$1"
}

# wait_line FILE REGEX PID [SECS]: until a line of FILE matches REGEX
# (30 s at most): a server's "listening on" line, say.
wait_line() {
	wait_for "$3" "${4:-30}" grep -qs "$2" "$1"
}
