#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# archive_tools_test.sh FXTPROF GEN_ARCHIVE - the archive's tools on one
# synthetic recording that gen_archive writes twice, as a plain FXT file
# and as an archive of 100 ms chunks (each a segment, as the archive sink
# makes them): extract (whole, at exact boundaries, empty ranges), info
# (which must not decompress), dump/check/send, receive --archive, report,
# flamegraph and export with --time, a reader following a live archive,
# repair, and bad input.  Records are compared as `fxtprof dump` prints
# them, definitions left out: an archive repeats those in every chunk.
# TAP on stdout.
set -u
FXTPROF=$1 GEN=$2
T=$(mktemp -d)
# KEEP=1 leaves the files for a look.
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -f "$T/out" ] && sed 's/^/# /' "$T/out" | head -20
	[ -f "$T/err" ] && sed 's/^/# err: /' "$T/err" | head -10
}
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# The timed records and their blobs, as dump prints them.
events() { "$FXTPROF" dump "$1" | grep -v -e '^String' -e '^Metadata' \
	-e '^Magic' -e '^Provider' -e '^Initialization' -e '^KernelObject' \
	-e '^Thread'; }
# The plain recording's events with FROM <= ts <= TO (a blob has its
# sample's ts).
plain_range() {
	awk -v f="$1" -v t="$2" '{ s = $0; sub(/^[^(]*\(ts: /, "", s); sub(/,.*/, "", s)
		if (s + 0 >= f && s + 0 <= t) print }' "$T/plain.ev"
}
nevents() { grep -c '^Event' "$1"; }
ext() { "$FXTPROF" extract "$T/a.fxtz" "$@" > "$T/out" 2> "$T/err"; }

# 2 s at 1 kHz on 2 CPUs from t = 1 s: sample i of CPU c at 1e9 + i * 1e6
# + c; a chunk (segment) every 100 ms of trace time.
"$GEN" -d 2 -r 1000 -c 2 -p "$T/plain.fxt" -a "$T/a.fxtz" > "$T/gen.out" ||
	{ echo "Bail out! gen_archive failed"; exit 1; }
events "$T/plain.fxt" > "$T/plain.ev"
check "gen_archive: 4000 samples, the plain recording passes check" \
	'grep -q "samples 4000" "$T/gen.out" && "$FXTPROF" check -q "$T/plain.fxt"'

# ---- round trip ------------------------------------------------------
ext -o "$T/all.fxt"
events "$T/all.fxt" > "$T/all.ev"
check "extract everything: exit 0, the records identical to the plain FXT's" \
	'[ $? = 0 ] && [ -s "$T/all.ev" ] && cmp -s "$T/all.ev" "$T/plain.ev"'
check "extract everything: the output passes fxtprof check -W" \
	'"$FXTPROF" check -q -W "$T/all.fxt"'
check "extract everything: reports 4000 events from all 20 chunks" \
	'grep -q "4000 events.* from 20 of 20 chunks" "$T/err"'
check "dump on the archive: the same records as on the plain FXT" \
	'events "$T/a.fxtz" > "$T/dump.ev" && cmp -s "$T/dump.ev" "$T/plain.ev"'
check "check on the archive: ok, 4000 events" \
	'"$FXTPROF" check "$T/a.fxtz" > "$T/out" 2>&1 && grep -q "^  event  *4000$" "$T/out"'
check "report --summary on the archive: the plain FXT's counts" \
	'"$FXTPROF" report --summary "$T/a.fxtz" | grep "^  event" > "$T/s1" &&
	 "$FXTPROF" report --summary "$T/plain.fxt" | grep "^  event" > "$T/s2" &&
	 [ -s "$T/s1" ] && cmp -s "$T/s1" "$T/s2"'

# ---- boundaries ------------------------------------------------------
# From CPU 1's sample at 1.5 s + 1 ns to CPU 0's at 1.6 s, the first
# record of a chunk: both ends are included.
ext --from 1500000001 --to 1600000000 -o "$T/r.fxt"
events "$T/r.fxt" > "$T/r.ev"
plain_range 1500000001 1600000000 > "$T/r.want"
check "extract [1500000001, 1600000000]: exactly the plain events in range (both ends in)" \
	'[ -s "$T/r.want" ] && cmp -s "$T/r.ev" "$T/r.want"'
check "extract [1500000001, 1600000000]: 200 samples, first at FROM, last at TO" \
	'[ "$(nevents "$T/r.ev")" = 200 ] &&
	 head -1 "$T/r.ev" | grep -q "ts: 1500000001," &&
	 grep "^Event" "$T/r.ev" | tail -1 | grep -q "ts: 1600000000,"'
check "extract [1500000002, 1599999999]: both boundary samples out" \
	'ext --from 1500000002 --to 1599999999 -o "$T/r2.fxt" &&
	 [ "$(events "$T/r2.fxt" | grep -c "^Event")" = 198 ] &&
	 ! events "$T/r2.fxt" | grep -q -e "ts: 1500000001," -e "ts: 1600000000,"'
check "extract output at the boundaries passes fxtprof check -W" \
	'"$FXTPROF" check -q -W "$T/r.fxt" && "$FXTPROF" check -q -W "$T/r2.fxt"'
check "extract --from 0.5s --to 0.6s: seconds from the start, the same range" \
	'ext --from 0.5s --to 0.6s -o "$T/s.fxt" && events "$T/s.fxt" > "$T/s.ev" &&
	 cmp -s "$T/s.ev" "$(plain_range 1500000000 1600000000 > "$T/s.want"; echo "$T/s.want")"'
check "extract of 100 ms decompresses 2 of 20 chunks" \
	'ext --from 0.5s --to 0.6s -o "$T/s.fxt" && grep -q "from 2 of 20 chunks" "$T/err"'

# ---- empty ranges -----------------------------------------------------
check "a range after the end: a valid empty stream (check -W passes, no event)" \
	'ext --from 10s --to 11s -o "$T/e.fxt" && "$FXTPROF" check -q -W "$T/e.fxt" &&
	 [ "$(events "$T/e.fxt" | wc -l)" = 0 ] && [ -s "$T/e.fxt" ]'
check "a range between two samples: a valid empty stream" \
	'ext --from 1500000002 --to 1500999999 -o "$T/e2.fxt" &&
	 "$FXTPROF" check -q -W "$T/e2.fxt" && [ "$(events "$T/e2.fxt" | wc -l)" = 0 ]'
check "a range before the start: a valid empty stream" \
	'ext --from 0 --to 999999999 -o "$T/e3.fxt" &&
	 "$FXTPROF" check -q -W "$T/e3.fxt" && [ "$(events "$T/e3.fxt" | wc -l)" = 0 ]'

# ---- info reads no chunk --------------------------------------------
"$FXTPROF" info "$T/a.fxtz" > "$T/info1" 2>&1
check "info: the summary sections (samples, threads, windows, name tables)" \
	'grep -q "^samples: 4000" "$T/info1" && grep -q "1000/1001 *gen-t1" "$T/info1" &&
	 grep -q "samples per CPU: 0:2000 1:2000" "$T/info1" &&
	 grep -q "^name tables: 5 process and thread names, 1 mappings" "$T/info1"'
# Corrupt the middle of every chunk's payload: info prints the same, and
# extract sees every chunk fail its checksum.
cp "$T/a.fxtz" "$T/bad.fxtz"
"$FXTPROF" info --chunks "$T/a.fxtz" | awk '$1 ~ /^[0-9]+$/ && NF >= 7 { print $2, $3 }' > "$T/chunks"
while read -r off comp; do
	printf '\377\377\377\377' | dd of="$T/bad.fxtz" bs=1 seek=$((off + 64 + comp / 2)) \
		conv=notrunc 2>/dev/null
done < "$T/chunks"
"$FXTPROF" info "$T/bad.fxtz" 2>&1 | sed "s|$T/bad.fxtz|$T/a.fxtz|" > "$T/info2"
check "info on an archive whose every chunk payload is corrupt: the same output, exit 0" \
	'[ "$(wc -l < "$T/chunks")" = 20 ] && cmp -s "$T/info1" "$T/info2" &&
	 "$FXTPROF" info "$T/bad.fxtz" > /dev/null'
"$FXTPROF" extract "$T/bad.fxtz" -o "$T/bad.fxt" > /dev/null 2> "$T/err"
check "extract of that archive: exit 3, every chunk fails its checksum, still a valid stream" \
	'[ $? = 3 ] && grep -q "20 chunks failed their checksum" "$T/err" &&
	 "$FXTPROF" check -q "$T/bad.fxt"'
# One bad chunk (the 6th: 1.5 s .. 1.6 s): the others still extract.
cp "$T/a.fxtz" "$T/one.fxtz"
set -- $(sed -n 6p "$T/chunks")
printf '\377\377\377\377' | dd of="$T/one.fxtz" bs=1 seek=$(($1 + 64 + $2 / 2)) conv=notrunc 2>/dev/null
"$FXTPROF" extract "$T/one.fxtz" -o "$T/one.fxt" > /dev/null 2> "$T/err"
check "one corrupt chunk: exit 3, the error names chunk 5, the other 19 chunks' samples extract" \
	'[ $? = 3 ] && grep -q "chunk 5" "$T/err" &&
	 [ "$(events "$T/one.fxt" | grep -c "^Event")" = 3800 ] && "$FXTPROF" check -q "$T/one.fxt"'

# ---- send, receive --archive ------------------------------------------
mkdir -p "$T/rx" "$T/rxa"
# A receiver for 2 streams, bounded in time so that a failure cannot hang
# the test; it has 60 s to start on a loaded host.
start_receiver() {	# -o DIR [--archive]
	# Emptied here, not by the child's redirection: the loop below must
	# not read the previous receiver's address.
	: > "$T/recv.out"
	timeout 120 "$FXTPROF" receive "$@" tcp://127.0.0.1:0 -n 2 \
		> "$T/recv.out" 2>&1 &
	rpid=$!
	i=0
	while [ $i -lt 600 ] && ! grep -q '^listening on' "$T/recv.out" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	port=$(sed -n 's/^listening on tcp:\/\/.*:\([0-9]*\)$/\1/p' "$T/recv.out")
	[ -n "$port" ] || { echo "# the receiver did not start:"; sed 's/^/# /' "$T/recv.out"; }
}
start_receiver -o "$T/rx"
"$FXTPROF" send -q "$T/a.fxtz" "tcp://127.0.0.1:$port"; s1=$?
"$FXTPROF" send -q "$T/plain.fxt" "tcp://127.0.0.1:$port"
wait $rpid
check "send of an archive: exit 0, the receiver's file has the plain FXT's records" \
	'[ $s1 = 0 ] && [ "$(ls "$T/rx" | wc -l)" = 2 ] &&
	 for f in "$T"/rx/*; do events "$f" | cmp -s - "$T/plain.ev" || exit 1; done'
start_receiver -o "$T/rxa" --archive
"$FXTPROF" send -q "$T/plain.fxt" "tcp://127.0.0.1:$port"
"$FXTPROF" send -q "$T/a.fxtz" "tcp://127.0.0.1:$port"
wait $rpid; r=$?
check "receive --archive: exit 0, one finished .fxtz per stream" \
	'[ $r = 0 ] && [ "$(ls "$T"/rxa/*.fxtz | wc -l)" = 2 ] &&
	 for f in "$T"/rxa/*.fxtz; do "$FXTPROF" info "$f" | grep -q "finished archive$" || exit 1; done'
check "receive --archive: each archive extracts to the plain FXT's records" \
	'for f in "$T"/rxa/*.fxtz; do
		"$FXTPROF" extract -q "$f" -o "$T/rx.fxt" && events "$T/rx.fxt" | cmp -s - "$T/plain.ev" || exit 1
	 done'

mkdir -p "$T/rxe"
start_receiver -o "$T/rxe"
"$FXTPROF" extract -q "$T/a.fxtz" -o "tcp://127.0.0.1:$port"; e1=$?
"$FXTPROF" extract -q "$T/a.fxtz" --from 0.5s --to 0.6s -o "tcp://127.0.0.1:$port"; e2=$?
wait $rpid
check "extract -o tcp://: exit 0, both streams received, each passes check" \
	'[ $e1 = 0 ] && [ $e2 = 0 ] && [ "$(ls "$T/rxe" | wc -l)" = 2 ] &&
	 for f in "$T"/rxe/*; do "$FXTPROF" check -q -W "$f" || exit 1; done'
check "extract -o tcp://: the streams hold all 4000 samples and the 201 of the range" \
	'[ "$(for f in "$T"/rxe/*; do events "$f" | grep -c "^Event"; done | sort -n | tr "\n" " ")" = "201 4000 " ]'

# ---- report, flamegraph, export --time --------------------------------
R() { "$FXTPROF" report --no-children --sort comm,sym "$@" > "$T/out" 2> "$T/err"; }
for spec in 0.5,0.6 1500000001ns,1600000000ns ,0.3 1.9,; do
	R --time "$spec" "$T/plain.fxt"; sed 1d "$T/out" > "$T/rp"
	grep -o '[0-9]* selected' "$T/out" > "$T/rp.sel"
	R --time "$spec" "$T/a.fxtz"; sed 1d "$T/out" > "$T/ra"
	grep -o '[0-9]* selected' "$T/out" > "$T/ra.sel"
	check "report --time $spec: the archive selects exactly the plain FXT's samples" \
		'[ -s "$T/rp.sel" ] && cmp -s "$T/rp.sel" "$T/ra.sel" && cmp -s "$T/rp" "$T/ra"'
done
check "report --time 0.5,0.6 selects the 201 samples with FROM <= ts <= TO" \
	'R --time 0.5,0.6 "$T/a.fxtz" && grep -q "201 selected" "$T/out"'
check "flamegraph --folded --time on the archive: the plain FXT's stacks" \
	'"$FXTPROF" flamegraph --folded --time 0.25,0.75 "$T/plain.fxt" > "$T/f1" &&
	 "$FXTPROF" flamegraph --folded --time 0.25,0.75 "$T/a.fxtz" > "$T/f2" &&
	 [ -s "$T/f1" ] && cmp -s "$T/f1" "$T/f2"'
check "export --time: the plain FXT and the archive give 201 samples each" \
	'"$FXTPROF" export --time 0.5,0.6 "$T/plain.fxt" -o "$T/p.pb.gz" > "$T/x1" 2>/dev/null &&
	 "$FXTPROF" export --time 0.5,0.6 "$T/a.fxtz" -o "$T/a.pb.gz" > "$T/x2" 2>/dev/null &&
	 grep -q " 201 samples" "$T/x1" && grep -q " 201 samples" "$T/x2"'
check "report --time 2,1: a usage error naming --time" \
	'! R --time 2,1 "$T/a.fxtz" && grep -q -- "--time wants" "$T/err"'
check "report --time -5ns,1ns on the plain FXT: refused as on an archive" \
	'! R --time -5ns,1ns "$T/plain.fxt" && grep -q -- "--time wants" "$T/err" &&
	 ! R --time -5ns,1ns "$T/a.fxtz" && grep -q -- "--time wants" "$T/err"'

# ---- a live archive, read while it is written ------------------------
# 20 segments, each written once the reader asks for it (a line on the
# generator's stdin), so that however slow the reader is it sees the
# archive grow; it extracts straight after asking, while the segment is
# being appended, never finished.
mkfifo "$T/step"
"$GEN" -d 2 -r 1000 -c 2 -l -S -a "$T/live.fxtz" < "$T/step" > /dev/null &
gpid=$!
exec 4> "$T/step"
reads=0 bad=0 grew=0 last=0
while kill -0 $gpid 2>/dev/null; do
	if [ -s "$T/live.fxtz" ] &&
	   "$FXTPROF" extract -q "$T/live.fxtz" -o "$T/lx.fxt" 2> "$T/err"; then
		reads=$((reads + 1))
		events "$T/lx.fxt" > "$T/lx.ev"
		k=$(wc -l < "$T/lx.ev")
		# A valid stream whose records are the plain FXT's first k.
		if ! "$FXTPROF" check -q "$T/lx.fxt" ||
		   ! head -n "$k" "$T/plain.ev" | cmp -s - "$T/lx.ev"; then
			bad=$((bad + 1)); cp "$T/lx.fxt" "$T/lx-bad.fxt"
		fi
		[ "$k" -gt "$last" ] && grew=$((grew + 1))
		last=$k
	fi
	# The next segment; a subshell, so that a generator gone since
	# (SIGPIPE) ends only it.
	(echo >&4) 2>/dev/null
done
exec 4>&-
wait $gpid
check "live: $reads extracts while the writer appended, each a valid prefix ($bad not), growing $grew times" \
	'[ $reads -ge 3 ] && [ $bad = 0 ] && [ $grew -ge 2 ]'
check "live: never finished (info says so), repair writes the trailer, exit 0" \
	'"$FXTPROF" info "$T/live.fxtz" | grep -q "never finished" &&
	 "$FXTPROF" archive repair "$T/live.fxtz" > "$T/out" &&
	 "$FXTPROF" info "$T/live.fxtz" | grep -q "finished archive$"'
check "live, repaired: extracts to the plain FXT's records" \
	'"$FXTPROF" extract -q "$T/live.fxtz" -o "$T/lx.fxt" && events "$T/lx.fxt" | cmp -s - "$T/plain.ev"'

# ---- bad input --------------------------------------------------------
ext --from 1x -o "$T/x.fxt"
check "extract --from 1x: exit 2, EINVAL and the accepted forms" \
	'[ $? = 2 ] && grep -q "ns of the trace clock\|nanoseconds of the trace clock" "$T/err" &&
	 grep -q "Invalid argument" "$T/err"'
ext --from 2s --to 1s -o "$T/x.fxt"
check "extract --from 2s --to 1s: exit 2, FROM after TO" \
	'[ $? = 2 ] && grep -q "is after --to" "$T/err" && [ ! -e "$T/x.fxt" ]'
"$FXTPROF" extract "$T/plain.fxt" -o "$T/x.fxt" > /dev/null 2> "$T/err"
check "extract of a plain FXT: exit 1, not an archive" \
	'[ $? = 1 ] && grep -q "not an archive" "$T/err" && grep -q "not supported" "$T/err"'
"$FXTPROF" info "$T/missing.fxtz" > /dev/null 2> "$T/err"
check "info of a missing file: exit 1, ENOENT" \
	'[ $? = 1 ] && grep -q "No such file" "$T/err" && [ "$(wc -l < "$T/err")" = 1 ]'
"$FXTPROF" archive repair "$T/plain.fxt" > /dev/null 2> "$T/err"
check "archive repair of a plain FXT: exit 1, not an archive" \
	'[ $? = 1 ] && [ -s "$T/err" ]'

echo "1..$n"
[ $failed = 0 ]
