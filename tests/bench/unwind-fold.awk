# SPDX-License-Identifier: GPL-2.0-only
# unwind-fold.awk - `perf script -F comm,ip,sym` output as folded stacks
# (comm;root;...;leaf 1), the form `fxtprof flamegraph --folded` prints,
# so that tests/bench/unwind-rate.awk reads both profilers' stacks alike.
# Used by scripts/bench-unwind.sh and tests/bench/bench-unwind.vm.sh.

function flush(   s, i) {
	if (comm == "")
		return
	s = comm
	for (i = n; i >= 1; i--)
		s = s ";" f[i]
	print s, 1
	comm = ""
	n = 0
}

/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]*$/ { flush(); next }
{
	# "\t    addr sym (dso)": the symbol, without "(inlined)" or "+off"
	sym = $2
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if ($3 != "(inlined)")
		f[++n] = sym
}
END { flush() }
