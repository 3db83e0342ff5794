#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each listed selftest on its own, ROUNDS times, inside the test VM: a
# test that passes in its program's order but fails alone (or on a second
# run) depends on another test's leftovers or is flaky. LIST has one
# "program:fixture.test" per line (tools/check-alone makes it from the
# expected-test inventory). Prints one line per run:
#   svmtune-test PASS|FAIL|SKIP <program>:<test>@<round> [reason]
# and the failing run's own output before its FAIL line.
#
# Usage: run_alone.sh LIST [ROUNDS]   (ROUNDS default 2)
# Exit status: 1 if any run failed, 2 on bad usage, else 0.

dir=$(dirname "$0")
list=$1
rounds=${2:-2}
if [ ! -r "$list" ]; then
	echo "run_alone.sh: cannot read list '$list'" >&2
	exit 2
fi
case "$rounds" in
'' | *[!0-9]* | 0) echo "run_alone.sh: ROUNDS must be a number from 1" >&2; exit 2 ;;
esac

status=0
out=/tmp/alone.tap
round=1
while [ "$round" -le "$rounds" ]; do
	while IFS=: read -r prog test; do
		[ -n "$prog" ] || continue
		"$dir/$prog" -r "$test" >"$out" 2>&1
		rc=$?
		name="$prog:$test@$round"
		if [ "$rc" = 4 ] || grep -q '^ok [0-9].*# SKIP' "$out"; then
			reason=$(sed -n 's/^ok [0-9].*# SKIP *//p' "$out" | head -n 1)
			echo "svmtune-test SKIP $name ${reason:-exit $rc}"
		elif [ "$rc" = 0 ] && grep -q '^ok 1 ' "$out" &&
		     ! grep -q '^not ok ' "$out"; then
			echo "svmtune-test PASS $name"
		else
			cat "$out"
			echo "svmtune-test FAIL $name exit $rc"
			status=1
		fi
	done <"$list"
	round=$((round + 1))
done
exit $status
