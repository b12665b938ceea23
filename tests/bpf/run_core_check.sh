#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_core_check - the bpf source's objects load, as far as types go, on
# the Debian kernels it targets: for x86_64 and arm64 each of 6.1 and
# 6.12, copy the kernel's BTF out of its image (extract-btf.sh), resolve
# every CO-RE relocation of that architecture's object against it
# (bpftool gen min_core_btf, no privileges needed) and check that the
# tracepoints and iterator the programs attach to exist.  The arm64
# object is built here from the arm64 6.1 BTF, as make ARCH=arm64 does.
# TAP; a kernel that is not staged is skipped.  Run from the repository
# root (make check does); DEPS overrides build/deps.
set -u
deps=${DEPS:-build/deps}
carver=build/x86_64/user/source/bpf/host/btf_carve
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
echo "1..4"

kernel_of() {	# ARCH SERIES -> image path or nothing
	case $1 in
	x86_64) ls /boot/vmlinuz-"$2".*-amd64 /boot/vmlinuz-"$2".*+deb*-amd64 ;;
	arm64) ls "$deps"/arm64/root/boot/vmlinuz-"$2".*-arm64 \
		  "$deps"/arm64/root/boot/vmlinuz-"$2".*+deb*-arm64 ;;
	esac 2>/dev/null | head -n 1
}

arm64_object() {	# build the arm64 object once, from arm64 6.1's BTF
	[ -s "$tmp/arm64.bpf.o" ] && return 0
	k=$(kernel_of arm64 6.1)
	[ -n "$k" ] || return 1
	user/source/bpf/extract-btf.sh "$carver" "$k" "$tmp/arm64-base.btf" 2>/dev/null &&
	mkdir -p "$tmp/inc" &&
	bpftool btf dump file "$tmp/arm64-base.btf" format c > "$tmp/inc/vmlinux.h" &&
	clang -target bpf -mcpu=v3 -g -O2 -D__TARGET_ARCH_arm64 -I"$tmp/inc" \
		-Iinclude/uapi -Iuser/source/bpf -c user/source/bpf/fxtprof.bpf.c \
		-o "$tmp/arm64.bpf.o"
}

for arch in x86_64 arm64; do
	for series in 6.1 6.12; do
		n=$((n + 1))
		name="CO-RE and attach targets of the $arch object on Debian $series"
		k=$(kernel_of $arch $series)
		if [ -z "$k" ]; then
			echo "ok $n $name # SKIP no $arch $series kernel image staged"
			continue
		fi
		obj=build/x86_64/user/source/bpf/fxtprof.bpf.o
		if [ $arch = arm64 ]; then
			arm64_object || { echo "not ok $n $name (arm64 object not built)"; continue; }
			obj=$tmp/arm64.bpf.o
		fi
		btf=$tmp/$arch-$series.btf
		if ! user/source/bpf/extract-btf.sh "$carver" "$k" "$btf" 2>"$tmp/err"; then
			echo "not ok $n $name (no BTF from $k)"
			sed 's/^/# /' "$tmp/err"
			continue
		fi
		if ! bpftool gen min_core_btf "$btf" "$tmp/min.btf" "$obj" 2>"$tmp/err"; then
			echo "not ok $n $name (CO-RE relocation failed)"
			sed 's/^/# /' "$tmp/err"
			continue
		fi
		have=$(bpftool btf dump file "$btf" format raw | grep -cE \
			"TYPEDEF 'btf_trace_(sched_process_fork|sched_process_exec|sched_process_exit|task_rename)'|STRUCT 'bpf_iter__task'|STRUCT 'bpf_perf_event_data'")
		if [ "$have" = 6 ]; then
			echo "ok $n $name ($(basename "$k"))"
		else
			echo "not ok $n $name ($have of 6 tracepoint/iterator types in $(basename "$k"))"
		fi
	done
done
