#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_bpf_record - the driver's recording (the bpf source through the
# pipeline record.c uses) is valid FXT by `fxtprof check`, and its loss
# summary is consistent.  TAP.  Run from build/x86_64/tests/bpf/.
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
out=$(mktemp /tmp/fxtprof-bpf.XXXXXX)
trap 'rm -f "$out" "$out.log"' EXIT
echo "1..2"
if "$here/bpf_record" -F 200 -d 1 "$out" 2>"$out.log" &&
   "$bin" check "$out" >/dev/null; then
	echo "ok 1 bpf_record output passes fxtprof check"
else
	echo "not ok 1 bpf_record output passes fxtprof check"
	sed 's/^/# /' "$out.log"
fi
# "N samples, L lost, S in LOST records, 0 unreported": S = L, samples > 0
if grep -Eq '^bpf_record: [1-9][0-9]* samples, ([0-9]+) lost, \1 in LOST records, 0 unreported' \
	"$out.log"; then
	echo "ok 2 samples recorded, LOST records equal the drop counters"
else
	echo "not ok 2 samples recorded, LOST records equal the drop counters"
	sed 's/^/# /' "$out.log"
fi
