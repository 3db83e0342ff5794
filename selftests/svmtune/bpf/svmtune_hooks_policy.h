/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings and observations of svmtune_hooks_policy.bpf.c, shared by
 * the program and svmtune_bpf_hooks_test.c, through its array map.
 */
#ifndef _SVMTUNE_HOOKS_POLICY_H
#define _SVMTUNE_HOOKS_POLICY_H

#include <linux/types.h>

/* hooks_data.evict_mode */
enum {
	EVICT_BUILTIN, /* SVMTUNE_BPF_EVICT_DEFAULT for every candidate */
	EVICT_TAKE_RANGE, /* take blocks in [take_lo, take_hi), else default */
	EVICT_SPARE_ALL, /* spare every candidate */
	EVICT_INVALID, /* an answer the engine must refuse */
};

/* The value of the program's one-entry array map "hooks". */
struct hooks_data {
	/* What the test sets. */
	int thrash_ret;
	__u32 thrash_mitigation;
	__u32 thrash_throttle_us;
	__u32 thrash_pin_ms;
	__u32 evict_mode;
	__u32 kfunc_probe; /* device faults read the block 2 MiB below */
	__u64 take_lo;
	__u64 take_hi;
	/* What the program saw. */
	__u64 moved_calls;
	__u64 moved_to_dev; /* changed pages arriving on a device */
	__u64 moved_to_sys; /* changed pages leaving one */
	__u64 moved_fault; /* calls for a fault's move */
	__u64 moved_cgroup;
	__u32 moved_pid;
	__u32 thrash_builtin; /* the built-in mitigation it was shown */
	__u64 thrash_calls;
	__u64 evict_calls;
	__u64 evict_taken;
	__u64 evict_for_cgroup;
	__u32 evict_pid;
	__u32 evict_for_pid;
	__u64 attach_calls;
	__u64 detach_calls;
	__u64 attach_cgroup;
	__u32 attach_pid;
	__u32 detach_pid;
	__u64 dev_calls;
	__u64 fault_cgroup;
	__u32 fault_pid;
	int kfunc_ret;
	__u64 kfunc_base;
	__u32 kfunc_resident;
	__u32 kfunc_loc;
};

#endif /* _SVMTUNE_HOOKS_POLICY_H */
