#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# svmtune's main job, as it runs inside the test VM (make run).
# What it shows grows with svmtune: today the core module and the amdgpu/KFD
# it will attach to.

echo "== kernel"
uname -r
echo
echo "== svmtune modules loaded"
lsmod | grep -E '^(Module|svmtune)'
echo
echo "== /dev/svmtune"
ls -l /dev/svmtune
/extra/svmtunectl version
echo
echo "== /sys/kernel/svmtune"
for f in /sys/kernel/svmtune/*; do
	[ -f "$f" ] && printf '%-40s %s\n' "$f" "$(cat "$f")"
done
echo
echo "== amdgpu / KFD in this kernel (no GPU in the VM)"
ls -l /dev/kfd 2>&1
printf 'svm_range_restore_pages in kallsyms: %s\n' \
	"$(grep -c ' svm_range_restore_pages' /proc/kallsyms)"
echo
echo "== kernel log (svmtune)"
dmesg | grep -i svmtune
