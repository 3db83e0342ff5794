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

# attach_bg: the tool attached in the background, its stdin a FIFO this
# shell holds open on fd 3 (busybox has no pkill); waits for "attached"
# or its exit. Sets $bgpid.
attach_bg() {
	rm -f /tmp/svmtune-policy.out /tmp/svmtune-policy.in
	mkfifo /tmp/svmtune-policy.in
	"$tool" attach "$obj" stride </tmp/svmtune-policy.in >/tmp/svmtune-policy.out 2>&1 &
	bgpid=$!
	exec 3>/tmp/svmtune-policy.in
	i=0
	while ! grep -q '^attached' /tmp/svmtune-policy.out 2>/dev/null &&
	      kill -0 $bgpid 2>/dev/null && [ $i -lt 300 ]; do
		usleep 100000 2>/dev/null || sleep 1
		i=$((i + 1))
	done
	grep -q '^attached stride' /tmp/svmtune-policy.out
}

# stop_bg: SIGTERM to the tool; true once it has exited.
stop_bg() {
	kill -TERM $bgpid 2>/dev/null
	wait $bgpid 2>/dev/null
	exec 3>&-
	! kill -0 $bgpid 2>/dev/null
}

echo "TAP version 13"
echo "1..7"
state=$(cat /sys/kernel/svmtune/bpf/state 2>/dev/null)
if [ "$state" != available ]; then
	for t in bad_usage_exits_2 attach_global_policy \
		 second_global_policy_is_refused stop_detaches \
		 attaches_again_after_stop list_shows_the_policy \
		 list_is_empty_after_stop; do
		n=$((n + 1))
		echo "ok $n $t # SKIP programmable policy unavailable: ${state#unavailable: }"
	done
	exit 0
fi

check bad_usage_exits_2 sh -c "'$tool' attach '$obj'; [ \$? = 2 ]"
check attach_global_policy attach_bg
check second_global_policy_is_refused sh -c "'$tool' attach '$obj' stride </dev/null; [ \$? = 1 ]"
check stop_detaches stop_bg
check attaches_again_after_stop attach_bg
check list_shows_the_policy sh -c "'$tool' list | grep -qx 'global stride'"
stop_bg
check list_is_empty_after_stop sh -c "! '$tool' list | grep -q stride"
exit $failed
