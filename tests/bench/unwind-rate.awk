# SPDX-License-Identifier: GPL-2.0-only
# unwind-rate.awk - the whole-stack rate of `make bench-unwind`, from
# folded stacks (comm;root;...;leaf COUNT) of the workload's samples:
# the share whose stack reaches main, over all of them and by leaf (the
# qsort callback unwind_cmp, the recursion's unwind_leaf).  Prints
#   wsamples=N whole=N cmp=N cmp_whole=N leaf=N leaf_whole=N depth_ok=N
# depth_ok: samples in unwind_leaf with all DEPTH = 40 frames of
# unwind_recurse above it (tests/bench/unwind.c; the 41st tail-calls the
# leaf, so its frame is gone).  -v comm=NAME: only that comm.
# Used by scripts/bench-unwind.sh and tests/bench/bench-unwind.vm.sh.

{
	c = $NF
	$NF = ""
	sub(/ $/, "")
	k = split($0, fr, ";")
	if (comm != "" && fr[1] != comm)
		next
	main = 0
	rec = 0
	for (i = 2; i <= k; i++) {
		if (fr[i] == "main")
			main = 1
		if (fr[i] == "unwind_recurse")
			rec++
	}
	all += c
	whole += main * c
	if (fr[k] == "unwind_cmp") {
		cmp += c
		cmp_whole += main * c
	} else if (fr[k] == "unwind_leaf") {
		leaf += c
		leaf_whole += main * c
		depth_ok += (main && rec == 40) * c
	}
}
END {
	printf "wsamples=%d whole=%d cmp=%d cmp_whole=%d leaf=%d leaf_whole=%d depth_ok=%d\n",
		all, whole, cmp, cmp_whole, leaf, leaf_whole, depth_ok
}
