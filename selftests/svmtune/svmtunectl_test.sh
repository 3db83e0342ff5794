#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of svmtunectl against the loaded modules (svmtune, svmtune_emu),
# in TAP. Needs root (it drops to uid 65534 for one test).
dir=$(dirname "$0")
ctl="$dir/svmtunectl"
n=0
failed=0

check() { # NAME COMMAND...
	name=$1
	shift
	n=$((n + 1))
	if "$@" >/tmp/svmtunectl_test.out 2>&1; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' /tmp/svmtunectl_test.out
		failed=1
	fi
}

# A process to set policy on, and a mapped address in it: its stack.
# Read its maps once it runs sleep: until its exec, the child is a copy of
# this shell, whose stack is gone after the exec (on a loaded machine the
# read came first and every later set hit an unmapped address: EFAULT).
sleep 600 &
pid=$!
i=0
while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ] && [ $i -lt 600 ]; do
	usleep 100000 2>/dev/null || sleep 1
	i=$((i + 1))
done
stack=$(awk '/\[stack\]/ { split($1, r, "-"); print "0x" r[1] }' /proc/$pid/maps)

echo "TAP version 13"
echo "1..11"
check version sh -c "'$ctl' version | grep -qx 'svmtune 0.4.0'"
check devices_lists_the_emulated_gpu sh -c "'$ctl' devices | grep -q ' svmtune_emu0 '"
check set_then_get_range_policy sh -c "'$ctl' set $pid $stack 4K granularity=64K access=remote &&
	'$ctl' get $pid $stack 4K | grep -qx 'granularity 64K' &&
	'$ctl' get $pid $stack 4K | grep -qx 'access remote' &&
	'$ctl' get $pid $stack 4K | grep -qx 'location unset'"
check thrashing_opt_out_per_range sh -c "'$ctl' set $pid $stack 4K thrashing=opt-out &&
	'$ctl' get $pid $stack 4K | grep -qx 'thrashing opt-out' &&
	'$ctl' get $pid $stack 4K | grep -qx 'effective_thrashing opt-out' &&
	'$ctl' stats process $pid | grep -q '^thrashing_unpins ' &&
	'$ctl' set $pid $stack 4K thrashing=maybe; [ \$? = 2 ]"
check process_defaults sh -c "'$ctl' defaults $pid granularity=128K location=system &&
	'$ctl' defaults $pid | grep -qx 'granularity 128K' &&
	'$ctl' defaults $pid | grep -qx 'location system' &&
	'$ctl' get $pid $stack 4K | grep -qx 'effective_location system'"
check fragment_per_range_and_default sh -c "'$ctl' set $pid $stack 4K fragment=64K &&
	'$ctl' get $pid $stack 4K | grep -qx 'fragment 64K' &&
	'$ctl' get $pid $stack 4K | grep -qx 'effective_fragment 64K' &&
	'$ctl' defaults $pid fragment=4K &&
	'$ctl' defaults $pid | grep -qx 'fragment 4K' &&
	'$ctl' set $pid $stack 4K fragment=unset &&
	'$ctl' get $pid $stack 4K | grep -qx 'effective_fragment 4K' &&
	'$ctl' set $pid $stack 4K fragment=4M; [ \$? = 1 ]"
check stats_of_device_and_process sh -c "'$ctl' stats device 1 | grep -q '^gpu_faults ' &&
	'$ctl' stats process $pid | grep -q '^waste_pages '"
check bad_usage_exits_2 sh -c "'$ctl' set $pid $stack; [ \$? = 2 ] &&
	'$ctl' set $pid $stack 4K granularity=3K; [ \$? = 2 ] &&
	'$ctl' set $pid $stack 4K granularity=1; [ \$? = 2 ] &&
	'$ctl' set $pid $stack 4K fragment=1; [ \$? = 2 ] &&
	'$ctl' defaults $pid granularity=1; [ \$? = 2 ] &&
	'$ctl' set $pid $stack 4K colour=red; [ \$? = 2 ] &&
	'$ctl' bogus; [ \$? = 2 ]"
check kernel_refusal_exits_1 sh -c "'$ctl' set $pid $stack 4K granularity=2K; [ \$? = 1 ] &&
	'$ctl' set $pid 0x1001 4K granularity=64K; [ \$? = 1 ]"
check other_users_process_refused sh -c "su -s /bin/sh -c \
	\"'$ctl' set $pid $stack 4K granularity=64K\" nobody 2>&1 |
	grep -q 'Operation not permitted'"
check help_lists_every_command sh -c "'$ctl' help | grep -c '^  \(version\|devices\|stats\|get\|set\|defaults\|help\) ' | grep -qx 9"
kill $pid
exit $failed
