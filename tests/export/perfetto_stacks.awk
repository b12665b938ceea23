# SPDX-License-Identifier: GPL-2.0-only
#
# perfetto_stacks.awk - protoc's text form of a decoded Perfetto Trace
# (tests/export/perfetto_profile.proto) to one line per fact, for the
# tests to grep:
#   stack IID NAME;NAME;...      a callstack's frames in their order,
#                                each by its interned function name
#                                ("?" when unnamed), kernel ones "NAME[k]"
#   frame IID NAME MAPPING_PATH  every frame and the path of its mapping
#   sample PID TID CPU MODE STACK   every PerfSample, STACK as above
#   timebase SEQ TRACEPOINT NAME     a sequence's PerfSampleDefaults
#   seqsample SEQ PID TID CPU MODE STACK   a PerfSample of a sequence
#                                other than 1 (the off-CPU waits')
#   process PID NAME / thread TID TGID NAME
#   mapping IID PATH START END EXACT_OFFSET LOAD_BIAS BUILD_ID_BYTES
# Interning is per sequence and field, in file order, as Perfetto reads
# it (IIDs in the output are the sequence's).  Frames and mappings are
# printed at the end: protoc prints a packet's fields by number, so a
# mapping comes after the frames that name it.
function unq(s) { sub(/^"/, "", s); sub(/"$/, "", s); return s }
# Bytes of protoc's C-escaped string: \NNN, \x, or one character each.
function nbytes(s) { s = unq(s); gsub(/\\[0-7][0-7][0-7]/, "x", s); gsub(/\\./, "x", s); return length(s) }
{
	line = $0
	sub(/^ */, "", line)
}
depth == 1 && line ~ /^trusted_packet_sequence_id: / { seq = line; sub(/.*: /, "", seq); next }
line ~ /{$/ {
	blk = line; sub(/ *{$/, "", blk)
	depth++; name[depth] = blk
	if (blk == "function_names" || blk == "mapping_paths" || blk == "build_ids" ||
	    blk == "frames" || blk == "callstacks" || blk == "mappings" ||
	    blk == "perf_sample" || blk == "processes" || blk == "threads" ||
	    blk == "timebase") {
		delete cur; nfr = 0
	}
	next
}
line == "}" {
	blk = name[depth]; depth--
	if (blk == "function_names") fn[seq, cur["iid"]] = unq(cur["str"])
	else if (blk == "mapping_paths") mp[seq, cur["iid"]] = unq(cur["str"])
	else if (blk == "build_ids") bid[seq, cur["iid"]] = nbytes(cur["str"])
	else if (blk == "mappings") {
		p = mp[seq, cur["path_string_ids"]]
		mpath[seq, cur["iid"]] = p
		maps[++nmaps] = cur["iid"] " " p " " cur["start"] " " \
			cur["end"] " " cur["exact_offset"] " " cur["load_bias"] " " \
			(cur["build_id"] ? bid[seq, cur["build_id"]] : "none")
	} else if (blk == "frames") {
		n = cur["function_name_id"] ? fn[seq, cur["function_name_id"]] : "?"
		if (cur["kind"] == "KIND_KERNEL") n = n "[k]"
		gsub(/ /, "_", n)
		frname[seq, cur["iid"]] = n
		frames[++nframes] = cur["iid"] " " n
		frmap[nframes] = cur["mapping_id"]
		frseq[nframes] = seq
	} else if (blk == "callstacks") {
		s = ""
		for (i = 1; i <= nfr; i++) s = s (i > 1 ? ";" : "") frname[seq, fr[i]]
		stack[seq, cur["iid"]] = s
		print "stack", cur["iid"], s
	} else if (blk == "perf_sample") {
		f = cur["pid"] " " cur["tid"] " " cur["cpu"] " " cur["cpu_mode"] " " \
			(cur["callstack_iid"] ? stack[seq, cur["callstack_iid"]] : "-")
		if (seq == 1) print "sample", f
		else print "seqsample", seq, f
	} else if (blk == "timebase")
		print "timebase", seq, tp, unq(cur["name"])
	else if (blk == "tracepoint") tp = unq(cur["name"])
	else if (blk == "processes") print "process", cur["pid"], unq(cur["cmdline"])
	else if (blk == "threads") print "thread", cur["tid"], cur["tgid"], unq(cur["name"])
	next
}
{
	k = line; sub(/:.*/, "", k)
	v = line; sub(/^[^:]*: /, "", v)
	if (k == "frame_ids") fr[++nfr] = v
	else cur[k] = v
}
END {
	for (i = 1; i <= nmaps; i++) print "mapping", maps[i]
	for (i = 1; i <= nframes; i++)
		print "frame", frames[i], (frmap[i] ? mpath[frseq[i], frmap[i]] : "-")
}
