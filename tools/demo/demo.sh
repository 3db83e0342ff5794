#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# svmtune's main job, as it runs inside the test VM (make run).
# Shows the modules, the emulated GPU registered with the policy engine, a
# workload under two policies, thrashing detected and mitigated, and the
# KFD backend attached to the real amdgpu.

echo "== kernel"
uname -r
echo
echo "== svmtune modules loaded"
lsmod | grep -E '^(Module|svmtune)'
echo
echo "== the emulated GPU"
ls -l /dev/svmtune_emu*
dmesg | grep -E 'svmtune(_emu)?: (device|svmtune_emu)'
echo
echo "== workload: two patterns under two policies, then thrashing"
/extra/svmtune_demo || exit 1
echo
echo "== /dev/svmtune"
ls -l /dev/svmtune
/extra/svmtunectl version
/extra/svmtunectl devices
echo
echo "== /sys/kernel/svmtune"
for f in /sys/kernel/svmtune/*; do
	[ -f "$f" ] && printf '%-40s %s\n' "$f" "$(head -n 1 "$f")"
done
echo
echo "== the KFD backend and amdgpu (no GPU in the VM)"
ls -l /dev/kfd 2>&1
for f in state build amdgpu hooks; do
	echo "-- /sys/kernel/svmtune/kfd/$f"
	cat /sys/kernel/svmtune/kfd/$f
done
echo
echo "== kernel log (svmtune)"
dmesg | grep -i svmtune
