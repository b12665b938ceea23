// SPDX-License-Identifier: GPL-2.0-only
// jit_workload.js - a hot JavaScript function of a distinctive name for
// tests/procs/run_record_jit.sh, run with node --perf-basic-prof: it
// spins for the seconds its argument gives (default 2).
'use strict';
function fxtprofJitHotFunction(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i) * (i & 7);
	return s;
}
const end = Date.now() + 1000 * Number(process.argv[2] || 2);
let total = 0;
while (Date.now() < end)
	total += fxtprofJitHotFunction(100000);
if (!(total > 0))
	process.exit(1);
