#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_memory - `fxtprof record -v`'s account of its memory on this
# host (the bpf source: root, a kernel with BTF).  A SIGUSR1 while it
# records prints an account, and so does the end; each has every part;
# its figures agree with the kernel's (the resident total lies between
# the process's VmRSS read just before and just after it, give or take
# 1 MiB; it holds the resident parts; the high-water mark is at least
# the total; the rings' resident part is at most what is mapped, and the
# rings are mapped at all).  TAP.
# Run from build/x86_64/tests/bpf/.
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
dir=$(mktemp -d /tmp/fxtprof-memory.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# ok STATUS DESCRIPTION: tests/scripts/tap.sh, copied beside this test.
. "$here/tap.sh"
# Run CMD... until it succeeds while PID lives, for at most 30 s.
wait_until() { # PID CMD...
	_pid=$1 _i=0
	shift
	until "$@"; do
		kill -0 $_pid 2>/dev/null && [ $_i -lt 600 ] || return 1
		sleep 0.05
		_i=$((_i + 1))
	done
}
accounts() { grep -c '^fxtprof: memory: [0-9.]* MiB resident' "$dir/log"; }
has_account() { [ "$(accounts)" -ge 1 ]; }
echo "1..6"

"$bin" record --source bpf -v --ready-file "$dir/ready" -d 60 \
	-o "$dir/out.fxt" 2>"$dir/log" &
rec=$!
rss() { awk '/^VmRSS:/ { print $2 * 1024 }' /proc/$rec/status 2>/dev/null; }
wait_until $rec test -e "$dir/ready"
# The kernel's figure just before and just after the account, which the
# account's must lie between (the recorder keeps building tables).
rss_before=$(rss)
kill -USR1 $rec
wait_until $rec has_account
ok $? "SIGUSR1 prints an account while record runs"
rss_after=$(rss)
kill -INT $rec
wait $rec
ok $? "record -v stopped on SIGINT and exited 0"
sed 's/^/# record: /' "$dir/log"

# Every part, in each of the two accounts.
missing=
for part in "rings " "output " "program files" "stacks " "heap " \
	    "names " "mappings " "kernel symbols" "kallsyms " "unwind tables" \
	    "the rest" "given back"; do
	n=$(grep -c "^fxtprof: memory:  *$part" "$dir/log")
	[ "$n" = 2 ] || missing="$missing '$part' ($n)"
done
[ -z "$missing" ]
ok $? "both accounts name every part${missing:+; not twice:$missing}"

# The first account against the kernel's VmRSS read around it, and
# against its own parts.
first=$(grep -m1 '^fxtprof: memory: [0-9.]* MiB resident' "$dir/log" |
	sed 's/^fxtprof: memory: \([0-9.]*\) MiB resident (at most \([0-9.]*\) MiB.*/\1 \2/')
parts=$(grep -E '^fxtprof: memory:  +(rings|output|program files|stacks) ' "$dir/log" |
	sed -n '1,4p' | awk '{ for (i = 3; i <= NF; i++) if ($(i + 1) == "MiB") { s += $i; break } } END { print s }')
set -- $first
awk -v t="$1" -v h="$2" -v b="$rss_before" -v a="$rss_after" -v p="$parts" 'BEGIN {
	t *= 1048576; h *= 1048576; p *= 1048576
	lo = b < a ? b : a; hi = b < a ? a : b
	exit !(t > 0 && h >= t && p <= t && lo > 0 &&
	       t >= lo - 1048576 && t <= hi + 1048576)
}'
ok $? "the resident total ($1 MiB) lies within VmRSS before and after it ($rss_before, $rss_after bytes), holds its resident parts ($parts MiB), and is at most the high-water mark ($2 MiB)"

rings=$(grep -m1 '^fxtprof: memory:  *rings' "$dir/log" |
	sed 's/.*rings *\([0-9.]*\) MiB resident of \([0-9.]*\) MiB mapped/\1 \2/')
set -- $rings
awk -v r="$1" -v m="$2" 'BEGIN { exit !(m > 0 && r <= m) }'
ok $? "the rings are mapped ($2 MiB), resident at most that ($1 MiB)"

# The heap's parts are held bytes: each below the heap in use.
heap=$(grep -m1 '^fxtprof: memory:  *heap' "$dir/log" |
	sed 's/.*heap *\([0-9.]*\) MiB in use.*/\1/')
over=$(grep -E '^fxtprof: memory:  +(names|mappings|kernel symbols|kallsyms|unwind tables) ' "$dir/log" |
	sed -n '1,5p' | awk -v h="$heap" '{ for (i = 3; i < NF; i++) if ($(i + 1) == "MiB") { v = $i; break } } v > h { print $0 }')
[ -n "$heap" ] && [ -z "$over" ]
ok $? "every table's share is below the heap in use ($heap MiB)${over:+: $over}"
