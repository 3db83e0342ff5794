#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/svmtune-policy as an operator runs it: an example policy attached
# globally and kept until the tool is told to stop; a second global one
# refused; a stop detaches it. In TAP; needs root. Skips, with the reason,
# where /sys/kernel/svmtune/bpf/state says unavailable.
dir=$(dirname "$0")
tool="$dir/svmtune-policy"
obj="$dir/bpf/stride.bpf.o"
n=0
failed=0

check() { # NAME COMMAND...
	name=$1
	shift
	n=$((n + 1))
	if "$@" >/tmp/svmtune_policy_tool_test.out 2>&1; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' /tmp/svmtune_policy_tool_test.out
		failed=1
	fi
}

# attach_bg: the tool attached in the background, its stdin held open by
# a sleep; waits for "attached" (or its exit). Sets $bgpid and $holder.
attach_bg() {
	rm -f /tmp/svmtune-policy.out
	sleep 600 | "$tool" attach "$obj" stride >/tmp/svmtune-policy.out 2>&1 &
	bgpid=$!
	i=0
	while ! grep -q '^attached' /tmp/svmtune-policy.out 2>/dev/null &&
	      kill -0 $bgpid 2>/dev/null && [ $i -lt 300 ]; do
		usleep 100000 2>/dev/null || sleep 1
		i=$((i + 1))
	done
	grep -q '^attached stride' /tmp/svmtune-policy.out
}

# The sleep holding the tool's stdin goes first: a shell's wait for the
# pipeline waits for it too.
stop_bg() {
	pkill -f "sleep 600" 2>/dev/null
	pkill -TERM -f "svmtune-policy attach" 2>/dev/null
	wait $bgpid 2>/dev/null
	return 0
}

echo "TAP version 13"
echo "1..5"
state=$(cat /sys/kernel/svmtune/bpf/state 2>/dev/null)
if [ "$state" != available ]; then
	for t in bad_usage_exits_2 attach_global_policy \
		 second_global_policy_is_refused stop_detaches \
		 attaches_again_after_stop; do
		n=$((n + 1))
		echo "ok $n $t # SKIP programmable policy unavailable: ${state#unavailable: }"
	done
	exit 0
fi

check bad_usage_exits_2 sh -c "'$tool' attach '$obj'; [ \$? = 2 ]"
check attach_global_policy attach_bg
check second_global_policy_is_refused sh -c "'$tool' attach '$obj' stride </dev/null; [ \$? = 1 ]"
check stop_detaches sh -c "pkill -TERM -f 'svmtune-policy attach' && i=0; while pgrep -f 'svmtune-policy attach' >/dev/null && [ \$i -lt 100 ]; do usleep 100000 2>/dev/null || sleep 1; i=\$((i + 1)); done; ! pgrep -f 'svmtune-policy attach'"
stop_bg
check attaches_again_after_stop attach_bg
stop_bg
exit $failed
