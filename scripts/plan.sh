#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# plan.sh vm|host > PLAN
# Print the plan of one kind of suite: "PROGRAM TESTS" lines gathered from
# every tests/*/suite.plan, whose lines read "KIND PROGRAM TESTS".  Each
# folder's plan lists the programs that folder builds, so the plan is
# changed in the same commit as the tests.  A kind with no line in any
# plan is an error: a suite without a plan cannot tell that it ran less.
set -euo pipefail
. "$(dirname "$0")/env.sh"

kind=${1:?usage: plan.sh vm|host}
shopt -s nullglob
plans=("$FXT_ROOT"/tests/*/suite.plan)
[ ${#plans[@]} -gt 0 ] || { echo "plan.sh: no tests/*/suite.plan" >&2; exit 1; }
out=$(awk -v kind="$kind" '
	/^[ \t]*(#|$)/ { next }
	NF != 3 || $3 !~ /^[0-9]+$/ { printf "plan.sh: %s:%d: not \"KIND PROGRAM TESTS\"\n", FILENAME, FNR > "/dev/stderr"; bad = 1; next }
	$1 == kind { if (seen[$2]++) { printf "plan.sh: %s planned twice\n", $2 > "/dev/stderr"; bad = 1 } print $2, $3 }
	END { exit bad }' "${plans[@]}")
[ -n "$out" ] || { echo "plan.sh: no $kind suite in any tests/*/suite.plan" >&2; exit 1; }
echo "$out"
