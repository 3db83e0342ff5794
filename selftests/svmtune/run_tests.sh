#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run svmtune's selftests inside the test VM and print, after each
# program's own TAP output, one normalised line per test case:
#   svmtune-test PASS|FAIL|SKIP <program>:<test> [reason]
# tools/check counts those lines. A program that exits with an error and
# reports no failed test gets a FAIL line of its own, so a crash is never
# lost.
#
# Usage: run_tests.sh [PROGRAM...]   (default: all, in a fixed order)
# Exit status: 1 if any test failed, else 0.

dir=$(dirname "$0")
status=0
progs=${*:-"svmtune_core_test svmtune_policy_test svmtune_emu_test svmtune_reclaim_test svmtune_badinput_test svmtune_perm_test svmtune_fuzz_test svmtune_inject_test svmtunectl_test.sh svmtune_kfd_test svmtune_module_test svmtune_bpf_test svmtune_bpf_hooks_test svmtune_policy_tool_test.sh"}

for p in $progs; do
	echo "# ---- $p"
	out=/tmp/$p.tap
	"$dir/$p" >"$out" 2>&1
	rc=$?
	cat "$out"
	grep -q '^not ok [0-9]' "$out" && status=1
	[ "$rc" != 0 ] && [ "$rc" != 4 ] && status=1
	awk -v prog="$p" -v rc="$rc" '
		# Older harnesses (6.1) print "ok N # SKIP reason" without the
		# name: take it from the RUN line of the test.
		/^#  RUN / { run = $3; d1 = d2 = d3 = "" }
		# What the harness says of a failing test (its assertion and
		# TH_LOG lines): kept, the last three, as the FAIL reason.
		/^# / && !/^#  RUN / && !/^#  +(OK|FAIL|SKIP) / && !/^# (PASSED|FAILED|Totals|SKIP)/ {
			d3 = d2; d2 = d1; d1 = substr($0, 3)
		}
		/^ok [0-9]+ / {
			n++
			if ($0 ~ /# SKIP/) {
				reason = $0
				sub(/.*# SKIP */, "", reason)
				name = $3 == "#" ? run : $3
				print "svmtune-test SKIP " prog ":" name " " reason
			} else {
				print "svmtune-test PASS " prog ":" $3
			}
		}
		/^not ok [0-9]+ / {
			n++; failed++
			diag = (d3 != "" ? d3 " | " : "") (d2 != "" ? d2 " | " : "") d1
			print "svmtune-test FAIL " prog ":" $4 " " substr(diag, 1, 600)
			d1 = d2 = d3 = ""
		}
		END {
			if (rc != 0 && failed == 0 && !(rc == 4 && n > 0))
				print "svmtune-test FAIL " prog ":exit-status exited " rc " without reporting a failed test"
			if (n == 0 && rc == 0)
				print "svmtune-test FAIL " prog ":no-tests ran no test"
		}' "$out"
done
exit $status
