#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# plan.sh vm|host|sym [CFG] > PLAN
# Print the plan of one kind of suite: "PROGRAM TESTS" lines gathered from
# every tests/*/suite.plan, whose lines read "KIND PROGRAM TESTS".  KIND
# may name configurations, "vm@arm64,debug": for the VM suites of those
# configurations (CFG) that line replaces the program's plain "vm" line,
# for a test that checks something else where its subject cannot run
# (the bpf source on a kernel without BTF).  Each
# folder's plan lists the programs that folder builds, so the plan is
# changed in the same commit as the tests.  A kind with no line in any
# plan is an error: a suite without a plan cannot tell that it ran less.
set -euo pipefail
. "$(dirname "$0")/env.sh"

kind=${1:?usage: plan.sh vm|host|sym [CFG]}
cfg=${2:-}
shopt -s nullglob
plans=("$FXT_ROOT"/tests/*/suite.plan)
[ ${#plans[@]} -gt 0 ] || { echo "plan.sh: no tests/*/suite.plan" >&2; exit 1; }
out=$(awk -v kind="$kind" -v cfg="$cfg" '
	/^[ \t]*(#|$)/ { next }
	NF != 3 || $3 !~ /^[0-9]+$/ { printf "plan.sh: %s:%d: not \"KIND PROGRAM TESTS\"\n", FILENAME, FNR > "/dev/stderr"; bad = 1; next }
	{ k = $1; cfgs = ""; if ((i = index(k, "@"))) { cfgs = substr(k, i + 1); k = substr(k, 1, i - 1) } }
	k != kind { next }
	cfgs == "" {
		if (plain[$2]++) { printf "plan.sh: %s planned twice\n", $2 > "/dev/stderr"; bad = 1 }
		if (!($2 in n)) order[++nr] = $2
		if (!($2 in over)) n[$2] = $3
		next
	}
	{
		split(cfgs, c, ",")
		for (j in c) if (c[j] == cfg) {
			if (over[$2]++) { printf "plan.sh: %s planned twice for %s\n", $2, cfg > "/dev/stderr"; bad = 1 }
			if (!($2 in n)) order[++nr] = $2
			n[$2] = $3
		}
	}
	END { for (j = 1; j <= nr; j++) print order[j], n[order[j]]; exit bad }' "${plans[@]}")
[ -n "$out" ] || { echo "plan.sh: no $kind suite in any tests/*/suite.plan" >&2; exit 1; }
echo "$out"
