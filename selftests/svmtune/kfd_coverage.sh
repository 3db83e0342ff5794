#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Which of KFD's own functions ran: ftrace's function profiler over the
# module named amdgpu (in the test VM, the KFD test bed, whose kfd_svm.c
# and kfd_migrate.c are the kernel tree's own), compared with the list of
# functions the compiler emitted for those two files (nm, at build time).
#
# Usage (in the VM, as root), once per load of the module:
#   kfd_coverage.sh start              (after the module is loaded)
#   ... run the tests ...
#   kfd_coverage.sh collect >>HITS     (before it is unloaded)
# and at the end:
#   kfd_coverage.sh report FUNCTION-LIST HITS
# FUNCTION-LIST: "file function" lines (build/kfd_functions.txt, from nm of
# the test bed's objects), counted where ftrace can trace them (the
# module's entries in available_filter_functions). report prints, per file,
# "kfd-coverage FILE: N of M functions ran" and the functions that did not.

tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || tr=/sys/kernel/debug/tracing

case "$1" in
start)
	echo 0 >$tr/function_profile_enabled
	echo ':mod:amdgpu' >$tr/set_ftrace_filter || exit 1
	# What ftrace can see: out-of-line copies of the kernel's static
	# inline helpers are notrace, and are not counted.
	grep '\[amdgpu\]' $tr/available_filter_functions | cut -d' ' -f1 |
		sort -u >>/tmp/kfd_traceable
	echo 1 >$tr/function_profile_enabled || exit 1
	;;
collect)
	# trace_stat/functionN: a header, then "name hits time ..." per CPU.
	echo 0 >$tr/function_profile_enabled
	cat $tr/trace_stat/function* 2>/dev/null |
		awk '$2 ~ /^[0-9]+$/ && $2 > 0 { print $1 }' | sort -u
	echo >$tr/set_ftrace_filter
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
*)
	echo "usage: kfd_coverage.sh start | collect | report FUNCTION-LIST HITS" >&2
	exit 2
	;;
esac
