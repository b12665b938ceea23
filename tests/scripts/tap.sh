# SPDX-License-Identifier: GPL-2.0-only
# tap.sh: sourced by the shell tests (tests/scripts, tests/export, tests/bpf,
# tests/host).  ok STATUS DESCRIPTION prints the next TAP result, "ok"
# when STATUS is 0; $failed is then 1 if any result failed, for the
# test's exit status.  t NAME CMD... runs CMD for the next result and
# prints its output as the result's diagnostics when it fails.
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
t() {
	_name=$1; shift
	if _log=$("$@" 2>&1); then
		ok 0 "$_name"
	else
		ok 1 "$_name"
		printf '%s\n' "$_log" | sed 's/^/# /'
	fi
}
