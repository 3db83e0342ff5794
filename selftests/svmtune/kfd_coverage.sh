#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Which of KFD's own functions ran: ftrace's function tracer over the
# functions of kfd_svm.c and kfd_migrate.c in the module named amdgpu (in
# the test VM, the KFD test bed, whose kfd_svm.c and kfd_migrate.c are the
# kernel tree's own), compared with the list of functions the compiler
# emitted for those two files (nm, at build time).
#
# The function tracer, not the function profiler: the profiler counts
# through the function graph tracer, which puts return_to_handler on every
# traced frame, and the ORC unwinder then complains ("WARNING: stack going
# in the wrong direction? at return_to_handler") when KASAN, kmemleak or
# lockdep take a stack trace through such a frame (seen once in CI). The
# function tracer changes no return address. Only the two files' functions
# are traced, into a 16 MiB buffer per CPU; a buffer that overran is
# reported, since a function seen only in lost events would count as
# missed.
#
# Usage (in the VM, as root), once per load of the module:
#   kfd_coverage.sh start FUNCTION-LIST  (after the module is loaded)
#   ... run the tests ...
#   kfd_coverage.sh collect >>HITS       (before it is unloaded)
# and at the end:
#   kfd_coverage.sh report FUNCTION-LIST HITS
#   kfd_coverage.sh gcov                 (gcov's counters, for the host)
# FUNCTION-LIST: "file function" lines (build/kfd_functions.txt, from nm of
# the test bed's objects), counted where ftrace can trace them (the
# module's entries in available_filter_functions). report prints, per file,
# "kfd-coverage FILE: N of M functions ran" and the functions that did not.

tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || tr=/sys/kernel/debug/tracing

case "$1" in
start)
	list=$2
	[ -f "$list" ] || { echo "kfd_coverage.sh: no function list '$list'" >&2; exit 2; }
	echo 0 >$tr/tracing_on
	echo nop >$tr/current_tracer
	# What ftrace can see: out-of-line copies of the kernel's static
	# inline helpers are notrace, and are not counted.
	grep '\[amdgpu\]' $tr/available_filter_functions | cut -d' ' -f1 |
		sort -u >/tmp/kfd_traceable.now
	cat /tmp/kfd_traceable.now >>/tmp/kfd_traceable
	cut -d' ' -f2 "$list" | sort -u | grep -xFf /tmp/kfd_traceable.now \
		>/tmp/kfd_filter
	[ -s /tmp/kfd_filter ] || { echo "kfd_coverage.sh: no KFD function is traceable" >&2; exit 1; }
	# One write: a name the module lacks would fail the whole write.
	tr '\n' ' ' </tmp/kfd_filter >$tr/set_ftrace_filter || exit 1
	echo 16384 >$tr/buffer_size_kb
	echo >$tr/trace
	echo function >$tr/current_tracer || exit 1
	echo 1 >$tr/tracing_on
	;;
collect)
	echo 0 >$tr/tracing_on
	# "task-pid [cpu] flags ts: function <-caller"; names cut to 30
	# characters, as report matches them.
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^<-/) { print substr($(i - 1), 1, 30); break } }' \
		$tr/trace | sort -u
	lost=$(cat $tr/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	[ "$lost" = 0 ] || echo "kfd_coverage.sh: $lost trace events overran the buffer" >&2
	echo nop >$tr/current_tracer
	echo >$tr/set_ftrace_filter
	echo >$tr/trace
	echo 1 >$tr/tracing_on
	;;
report)
	list=$2
	hits=$3
	[ -f "$list" ] || { echo "kfd_coverage.sh: no function list '$list'" >&2; exit 2; }
	[ -f "$hits" ] || { echo "kfd_coverage.sh: no hit list '$hits'" >&2; exit 2; }
	sort -u "$hits" >/tmp/kfd_hit
	sort -u /tmp/kfd_traceable >/tmp/kfd_traceable.sorted
	for f in $(cut -d' ' -f1 "$list" | sort -u); do
		grep "^$f " "$list" | cut -d' ' -f2 | sort -u |
			grep -xFf /tmp/kfd_traceable.sorted >/tmp/kfd_all
		# trace_stat prints names cut to 30 characters: match on those.
		awk 'NR == FNR { hit[$1] = 1; next }
		     { print (substr($1, 1, 30) in hit) ? "ran" : "missed", $1 }' \
			/tmp/kfd_hit /tmp/kfd_all >/tmp/kfd_marked
		total=$(wc -l </tmp/kfd_marked)
		ran=$(grep -c '^ran ' /tmp/kfd_marked)
		echo "kfd-coverage $f: $ran of $total functions ran"
		sed -n "s/^missed /kfd-coverage-missed $f: /p" /tmp/kfd_marked
	done
	;;
gcov)
	# gcov's counters of KFD's two files (the test bed compiles them with
	# GCOV_PROFILE; debugfs keeps them across unloads), base64 on one line
	# each, for tools/kfd-gcov on the host to read against the .gcno files.
	# The test bed's own, in kfd_testbed/ (the build of it with other
	# flags, .kfdbed-clone/, has counters of its own).
	g=/sys/kernel/debug/gcov
	[ -d $g ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	for f in kfdbed_kfd_svm kfdbed_kfd_migrate; do
		gcda=$(find $g -path "*/kfd_testbed/$f.gcda" 2>/dev/null | head -n 1)
		if [ -n "$gcda" ]; then
			echo "kfd-gcda $f $(base64 -w 0 "$gcda")"
		else
			echo "kfd-gcda $f none"
		fi
	done
	;;
*)
	echo "usage: kfd_coverage.sh start FUNCTION-LIST | collect | report FUNCTION-LIST HITS | gcov" >&2
	exit 2
	;;
esac
