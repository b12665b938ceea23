# SPDX-License-Identifier: GPL-2.0-only
# tap.sh: sourced by the tests of tests/scripts.  ok STATUS DESCRIPTION
# prints the next TAP result, "ok" when STATUS is 0; $failed is then 1
# if any result failed, for the test's exit status.
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
