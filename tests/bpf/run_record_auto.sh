#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_auto - the real `fxtprof record --source auto` on this host
# (no /dev/fxtprof: auto must take bpf), end to end through `fxtprof
# report`: the frame-pointer chain main -> a -> b -> c of sym_chain has c
# on top of its self time; a process that lived
# under 50 ms (sym_short) is symbolized after it exited, which only the
# MMAP2 side-band can do; kernel frames are named.  TAP.  Run from
# build/x86_64/tests/bpf/; the workloads are tests/symbols' (built by
# tests/symbols/build.mk, reused as they are).
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
sym=$here/../symbols
out=$(mktemp /tmp/fxtprof-auto.XXXXXX)
trap 'rm -f "$out" "$out.log" "$out.rep" "$out.pb"' EXIT
# ok STATUS DESCRIPTION: tests/scripts/tap.sh, copied beside this test.
. "$here/tap.sh"
# The symbol of the first entry of a report (the last column).
top_symbol() {
	grep -E '^ +[0-9.]+%' "$1" | head -1 | awk '{ print $NF }'
}
echo "1..11"

"$bin" record --source auto --symbolize -F 1000 -d 4 -o "$out" 2>"$out.log" &
rec=$!
wait_msg=$("$sym/sym_wait" "$out" 30 2>&1); wait_rc=$?
echo "# $wait_msg"
"$sym/sym_chain" 1500; chain_rc=$?
short_rc=0 short_fast=0
for i in 1 2 3 4 5; do
	life=$("$sym/sym_short" 20) || short_rc=$?
	echo "# $life"
	ms=${life##*lived }; ms=${ms% ms}
	[ "$ms" -lt 50 ] 2>/dev/null && short_fast=$((short_fast + 1))
	sleep 0.05
done
wait $rec; rec_rc=$?
sed 's/^/# record: /' "$out.log"

if [ -e /dev/fxtprof ]; then
	ok 0 "auto says which source # SKIP /dev/fxtprof exists here"
elif grep -q '^fxtprof: source bpf (/dev/fxtprof does not exist)' "$out.log"; then
	ok 0 "auto says it takes bpf"
else
	ok 1 "auto says it takes bpf"
fi
ok $((wait_rc + rec_rc)) "record sampled, ran 4 s and exited 0"
"$bin" check "$out" >/dev/null 2>&1
ok $? "the recording passes fxtprof check"
# The summary is truthful: the bpf source's counters, not the module's.
grep -Eq '^fxtprof: mappings: [0-9]+ written \([0-9]+ at start, [1-9][0-9]* while recording\)' "$out.log"
ok $? "mappings came from the side-band while recording"

ok $chain_rc "sym_chain ran"
"$bin" report --no-children --comm sym_chain "$out" > "$out.rep" 2>&1
top=$(top_symbol "$out.rep")
if [ "$top" = c ]; then
	ok 0 "sym_chain: c is on top of the self time"
else
	ok 1 "sym_chain: c is on top of the self time (got '$top')"
	sed 's/^/# /' "$out.rep" | head -20
fi

# Under 50 ms: no /proc sweep could have seen it; it exited before the
# report ran, so only the recorded mappings can name short_spin.
"$bin" report --no-children --comm sym_short "$out" > "$out.rep" 2>&1
top=$(top_symbol "$out.rep")
if [ $short_rc = 0 ] && [ $short_fast -gt 0 ] && [ "$top" = short_spin ]; then
	ok 0 "sym_short ($short_fast of 5 runs under 50 ms) resolves after exiting: short_spin on top"
else
	ok 1 "sym_short ($short_fast of 5 runs under 50 ms, rc $short_rc) resolves after exiting (got '$top')"
	sed 's/^/# /' "$out.rep" | head -20
fi

# Kernel frames named from the recorded kernel symbols.
"$bin" report "$out" > "$out.rep" 2>&1
if grep -Eq '\[k\] [A-Za-z_][A-Za-z0-9_.]*$' "$out.rep"; then
	ok 0 "kernel frames are named"
else
	ok 1 "kernel frames are named"
	sed 's/^/# /' "$out.rep" | head -20
fi

# --symbolize: the same file, now with the profile as Perfetto call
# stacks, named here where the binaries are.  A root-first main, a, b, c
# callstack decodes from its type-3 blobs with the project's schema.
grep -q "^fxtprof: --symbolize: $out now holds the recording and its call stacks" "$out.log"
ok $? "record --symbolize replaced the file with its symbolized copy"
if "$sym/fxt_blobs" "$out" > "$out.pb" 2>/dev/null && [ -s "$out.pb" ] &&
   protoc --decode=perfetto.protos.Trace --proto_path="$here/../../../../tests/export" \
	perfetto_profile.proto < "$out.pb" 2>&1 |
   grep -q 'str: "c"'; then
	ok 0 "its Perfetto blobs decode and name c"
else
	ok 1 "its Perfetto blobs decode and name c"
fi
"$bin" record --symbolize -d 1 tcp://127.0.0.1:9 2>"$out.rep"
rc=$?
if [ $rc = 2 ] && grep -q 'needs a file output' "$out.rep"; then
	ok 0 "record --symbolize to a socket is refused (exit 2, says why)"
else
	ok 1 "record --symbolize to a socket is refused (exit $rc)"
	sed 's/^/# /' "$out.rep"
fi
