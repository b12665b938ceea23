#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_container - a process in a container of its own on this
# host (the bpf source: root, a kernel with BTF): a cgroup v2 group the
# test makes, a pid and a mount namespace (unshare -pmf --mount-proc),
# and a private tmpfs holding the only copy of its program.  `fxtprof
# record --collect DIR` copies the program while it runs; `report
# --debug-dir DIR` names its functions, shows its pid as it sees it (1)
# beside the host's, and --cgroup and --nspid keep it and drop a copy
# run outside.  Skipped with a reason where cgroup v2 cannot be written
# or unshare is missing.  TAP.  Run from build/x86_64/tests/procs/.
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
. "$here/tap.sh"
. "$here/wait.sh"
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg2" ]; then
	echo "1..0 # SKIP no cgroup v2 hierarchy mounted"
	exit 0
fi
if ! command -v unshare >/dev/null; then
	echo "1..0 # SKIP no unshare (util-linux)"
	exit 0
fi
grp=fxtprof-procs-$$
cg=$cg2/$grp
if ! mkdir "$cg" 2>/dev/null; then
	echo "1..0 # SKIP cannot make a cgroup under $cg2 (not root, or read-only)"
	exit 0
fi
dir=$(mktemp -d /tmp/fxtprof-ns.XXXXXX)
trap 'rm -rf "$dir"; rmdir "$cg" 2>/dev/null' EXIT
echo "1..12"
# The host's copy, under another name, outside the cgroup.
cp "$here/ns_workload" "$dir/host_workload"

"$bin" record --source bpf --ready-file "$dir/ready" -d 60 \
	--collect "$dir/col" -o "$dir/out.fxt" 2>"$dir/log" &
rec=$!
wait_file "$dir/ready" $rec
ok $? "record samples (its ready file)"

# In the namespaces: into the cgroup, a tmpfs only it sees, the program
# copied there, exec'd as pid 1.
unshare -pmf --mount-proc sh -c '
	echo $$ > "$1/cgroup.procs" &&
	mount -t tmpfs -o mode=0700 fxtprof-ns /mnt &&
	cp "$2" /mnt/ns_workload &&
	exec /mnt/ns_workload 2' sh "$cg" "$here/ns_workload" \
	>"$dir/ns.log" 2>&1 &
ns=$!
"$dir/host_workload" 2 &
host=$!
wait $ns
ok $? "the workload ran in its namespaces and cgroup"
wait $host
kill -INT $rec
wait $rec
rc=$?
sed 's/^/# record: /' "$dir/log"
sed 's/^/# ns: /' "$dir/ns.log"
ok $rc "record stopped on SIGINT and exited 0"
[ ! -e /mnt/ns_workload ]
ok $? "the program is not in the host's mount namespace"
find "$dir/col/.build-id" -type f -name '*' | grep -q .
mode=$(stat -c %a "$(find "$dir/col/.build-id" -type f | head -1)" 2>/dev/null)
dmode=$(stat -c %a "$dir/col/.build-id" 2>/dev/null)
if [ "$mode" = 600 ] && [ "$dmode" = 700 ]; then
	ok 0 "--collect wrote the mapped files, 0600 in 0700 directories"
else
	ok 1 "--collect wrote the mapped files, 0600 in 0700 directories (got $mode, $dmode)"
fi

"$bin" dump "$dir/out.fxt" 2>/dev/null |
	grep -E "name: \"ns_workload\", \{cgroup: string\(\"/$grp\"\), nspid: int32\(1\)\}" >/dev/null
ok $? "its process object carries cgroup /$grp and nspid 1"

report() {
	"$bin" report --no-children --sort comm,pid,sym --debug-dir "$dir/col" \
		"$@" "$dir/out.fxt" 2>&1
}
report --comm ns_workload >"$dir/named"
if grep -q 'procs_ns_leaf' "$dir/named"; then
	ok 0 "report --debug-dir names its functions (the collected copy)"
else
	ok 1 "report --debug-dir names its functions (the collected copy)"
	head -20 "$dir/named" | sed 's/^/# /'
fi
# Without the collected copy, its program is nowhere the host can see.
"$bin" report --no-children --comm ns_workload "$dir/out.fxt" \
	>"$dir/unnamed" 2>&1
! grep -q 'procs_ns_leaf' "$dir/unnamed" &&
	grep -q '/mnt/ns_workload: no file found' "$dir/unnamed"
ok $? "without it, the program's file is not found (it was only inside)"
grep -Eq 'ns_workload +[0-9]+/1 ' "$dir/named"
ok $? "the pid column shows its pid in its namespace: HOST/1"

report --cgroup "/fxtprof-procs-*" >"$dir/cg"
if grep -q 'ns_workload' "$dir/cg" && ! grep -q 'host_workload' "$dir/cg"; then
	ok 0 "--cgroup keeps it and drops the copy run outside"
else
	ok 1 "--cgroup keeps it and drops the copy run outside"
	head -20 "$dir/cg" | sed 's/^/# /'
fi
report --nspid 1 --comm ns_workload,host_workload >"$dir/nspid"
if grep -q 'ns_workload' "$dir/nspid" && ! grep -q 'host_workload' "$dir/nspid"; then
	ok 0 "--nspid 1 keeps it, not the host's copy"
else
	ok 1 "--nspid 1 keeps it, not the host's copy"
	head -20 "$dir/nspid" | sed 's/^/# /'
fi
# pprof: the container's samples carry its cgroup and nspid as labels.
"$bin" export --format pprof --debug-dir "$dir/col" -o "$dir/p.pb.gz" "$dir/out.fxt" \
	>/dev/null 2>&1 &&
	go tool pprof -tags "$dir/p.pb.gz" >"$dir/tags" 2>&1
if grep -q "/$grp" "$dir/tags" && grep -Eq '^ *nspid:' "$dir/tags"; then
	ok 0 "export: pprof labels cgroup /$grp and nspid"
else
	ok 1 "export: pprof labels cgroup /$grp and nspid"
	head -30 "$dir/tags" | sed 's/^/# /'
fi
exit $failed
