/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings of svmtune_test_policies.bpf.c, shared by the program and
 * svmtune_bpf_test.c, which writes them into its array map.
 */
#ifndef _SVMTUNE_TEST_POLICIES_H
#define _SVMTUNE_TEST_POLICIES_H

#include <linux/types.h>

/* dev_dest: the faulting device, whatever its id. */
#define SAME_AS_FAULT 0xfffffffeu

/* The value of the program's one-entry array map "settings". */
struct policy_data {
	__u32 dev_shift;
	__u32 dev_action;
	__u32 dev_dest;
	int dev_ret;
	__u32 cpu_shift;
	int cpu_ret;
	__u64 dev_calls;
	__u64 cpu_calls;
};

#endif /* _SVMTUNE_TEST_POLICIES_H */
