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

# svmtunectl --json's output, parsed: json_get PATH < OUTPUT prints the
# scalar at PATH (keys and array indexes joined by dots) of each line, and
# fails unless every line is one JSON document that has it; json_get ''
# only checks that they parse.
json_awk=$(cat <<'EOF_AWK'
# Each input line one JSON document: fail (exit 1) unless it parses;
# with want=PATH (keys and array indexes joined by dots), print the
# scalar at PATH (a string without its quotes), fail if there is none.
function fail(m) { printf "json: %s at %d of: %s\n", m, p, s > "/dev/stderr"; bad = 1; exit 1 }
function ws() { while (substr(s, p, 1) ~ /[ \t\r\n]/) p++ }
function str(  o, c) {
	o = ""
	p++
	for (;;) {
		c = substr(s, p, 1)
		if (c == "") fail("unterminated string")
		if (c == "\"") { p++; return o }
		if (c ~ /[\001-\037]/) fail("control byte in string")
		if (c == "\\") {
			c = substr(s, p + 1, 1)
			if (c == "u") {
				if (substr(s, p + 2, 4) !~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/) fail("bad \\u escape")
				o = o "?"; p += 6; continue
			}
			if (c !~ /^["\\\/bfnrt]$/) fail("bad escape")
			o = o c; p += 2; continue
		}
		o = o c; p++
	}
}
function emit(path, v) { if (path == want) { found = 1; result = v } }
function val(path,  c, t) {
	ws()
	c = substr(s, p, 1)
	if (c == "{") { obj(path); return }
	if (c == "[") { arr(path); return }
	if (c == "\"") { emit(path, str()); return }
	t = substr(s, p)
	if (match(t, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
		emit(path, substr(t, 1, RLENGTH)); p += RLENGTH; return
	}
	if (t ~ /^true/) { emit(path, "true"); p += 4; return }
	if (t ~ /^false/) { emit(path, "false"); p += 5; return }
	if (t ~ /^null/) { emit(path, "null"); p += 4; return }
	fail("no value")
}
function obj(path,  k, c, n) {
	p++; ws()
	if (substr(s, p, 1) == "}") { p++; return }
	for (n = 0;; n++) {
		ws()
		if (substr(s, p, 1) != "\"") fail("no key")
		k = str(); ws()
		if (substr(s, p, 1) != ":") fail("no colon")
		p++
		val(path == "" ? k : path "." k); ws()
		c = substr(s, p, 1); p++
		if (c == "}") return
		if (c != ",") fail("no comma or }")
	}
}
function arr(path,  i, c) {
	p++; ws()
	if (substr(s, p, 1) == "]") { p++; return }
	for (i = 0;; i++) {
		val(path == "" ? i : path "." i); ws()
		c = substr(s, p, 1); p++
		if (c == "]") return
		if (c != ",") fail("no comma or ]")
	}
}
{
	s = $0; p = 1; found = 0
	val(""); ws()
	if (p <= length(s)) fail("trailing bytes")
	if (want != "") {
		if (!found) { printf "json: no %s in: %s\n", want, s > "/dev/stderr"; exit 1 }
		print result
	}
}
END { if (bad) exit 1 }
EOF_AWK
)
json_get() { # PATH
	awk -v want="$1" "$json_awk"
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
echo "1..16"
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
check help_lists_every_command sh -c "'$ctl' help | grep -c '^  \(version\|devices\|stats\|get\|set\|defaults\|watch\|help\) ' | grep -qx 10"

# --json: every read command's output parses, with the fields named as in
# the text output.
json_reads() {
	[ "$("$ctl" --json version | json_get version)" = 0.4.0 ] &&
		"$ctl" --json version | json_get features | grep -qx '0x[0-9a-f]\{16\}' &&
		[ "$("$ctl" --json devices | json_get devices.0.name)" = svmtune_emu0 ] &&
		"$ctl" --json devices | json_get devices.0.free_bytes | grep -qx '[0-9]*' &&
		"$ctl" --json stats device 1 | json_get gpu_faults | grep -qx '[0-9]*' &&
		"$ctl" --json stats process $pid | json_get evicted_pages | grep -qx '[0-9]*' &&
		"$ctl" --json stats range $pid $stack | json_get range_start | grep -qx '[0-9]*' &&
		"$ctl" --json defaults $pid | json_get granularity | grep -qx '[0-9]*[KMG]\|unset' &&
		"$ctl" --json get $pid $stack 4K | json_get effective_location | grep -qx 'unset\|system\|[0-9]*'
}
check json_read_commands_parse json_reads

# A policy field's JSON value is the word set takes for it: read back and
# given back, it sets the same policy.
json_round_trip() {
	"$ctl" set $pid $stack 4K granularity=256K access=read-mostly location=system &&
		"$ctl" --json get $pid $stack 4K >/tmp/svmtunectl.json &&
		g=$(json_get granularity </tmp/svmtunectl.json) &&
		a=$(json_get access </tmp/svmtunectl.json) &&
		l=$(json_get location </tmp/svmtunectl.json) &&
		[ "$g $a $l" = "256K read-mostly system" ] &&
		"$ctl" set $pid $stack 4K granularity=unset access=unset location=unset &&
		"$ctl" set $pid $stack 4K granularity=$g access=$a location=$l &&
		"$ctl" --json get $pid $stack 4K | cmp -s - /tmp/svmtunectl.json
}
check json_policy_values_are_what_set_takes json_round_trip

# watch's rates add up to what the counters moved: while the emulated GPU
# writes a buffer and the CPU reads it back (emu_touch, thrice), the sum
# over the intervals of each device's gpu_faults/s x interval_s is the
# change of its gpu_faults counter. Rates are printed to 0.1/s.
dev_faults() { # the gpu_faults counters of the devices $ids, summed
	t=0
	for id in $ids; do
		v=$("$ctl" --json stats device "$id" | json_get gpu_faults) || return 1
		case $v in '' | *[!0-9]*) return 1 ;; esac
		t=$((t + v))
	done
	echo $t
}
watch_adds_up() {
	ids=$("$ctl" --json devices | awk '{ while (match($0, /"id":[0-9]+/)) { print substr($0, RSTART + 5, RLENGTH - 5); $0 = substr($0, RSTART + RLENGTH) } }')
	[ -n "$ids" ] || return 1
	before=$(dev_faults) || return 1
	# 12 s: the workload runs well inside it even on an emulated CPU.
	"$ctl" --json watch -i 0.5 -n 24 -p $pid >/tmp/svmtunectl.watch &
	w=$!
	sleep 1
	for r in 1 2 3; do
		"$dir/emu_touch" 8 || return 1
	done
	wait $w || return 1
	after=$(dev_faults) || return 1
	json_get '' </tmp/svmtunectl.watch || return 1
	[ "$(wc -l </tmp/svmtunectl.watch)" = 24 ] || return 1
	[ "$(json_get processes.0.pid </tmp/svmtunectl.watch | sort -u)" = $pid ] || return 1
	# Not n or i: check's own counter is n.
	ndev=0
	for id in $ids; do ndev=$((ndev + 1)); done
	total=0
	d=0
	while [ $d -lt $ndev ]; do
		s=$(json_get devices.$d.gpu_faults </tmp/svmtunectl.watch | tr '\n' ' ') &&
			t=$(json_get interval_s </tmp/svmtunectl.watch | tr '\n' ' ') || return 1
		sum=$(echo "$s|$t" | awk -F'|' '{ split($1, r, " "); split($2, d, " "); for (k in r) x += r[k] * d[k]; printf "%d", x + 0.5 }') || return 1
		total=$((total + sum))
		d=$((d + 1))
	done
	echo "counters moved $((after - before)), watch summed $total"
	[ $((after - before)) -gt 0 ] && [ "$total" -ge $((after - before - 1)) ] &&
		[ "$total" -le $((after - before + 1)) ]
}
check watch_rates_add_up_to_the_counters watch_adds_up

check watch_text_has_a_header_and_a_row_per_device sh -c "'$ctl' watch -i 0.2 -n 2 >/tmp/svmtunectl.txt &&
	[ \$(grep -c 'gpu_flt/s' /tmp/svmtunectl.txt) = 1 ] &&
	[ \$(grep -c '^device 1 svmtune_emu0 ' /tmp/svmtunectl.txt) = 2 ]"

watch_refuses() {
	for args in "-i 0" "-i 0.05" "-i 4000" "-i abc" "-i" "-n 0" "-n x" "-p 0" "-p" "-x 1" "extra"; do
		# shellcheck disable=SC2086 # the arguments are words
		"$ctl" watch $args >/dev/null 2>&1
		[ $? = 2 ] || { echo "watch $args: not 2"; return 1; }
	done
	many=""
	i=0
	while [ $i -le 64 ]; do many="$many -p $pid"; i=$((i + 1)); done
	# shellcheck disable=SC2086
	"$ctl" watch -n 1 $many >/dev/null 2>&1
	[ $? = 2 ] || { echo "65 processes: not 2"; return 1; }
	"$ctl" --json bogus >/dev/null 2>&1
	[ $? = 2 ]
}
check watch_bad_arguments_exit_2 watch_refuses
kill $pid
exit $failed
