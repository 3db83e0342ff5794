// SPDX-License-Identifier: GPL-2.0
/*
 * A policy whose every answer the test sets (svmtune_bpf_test.c): the
 * window size, the action, the destination and the return value, for
 * device and CPU faults. Set to what the engine must refuse, it is each
 * misbehaving program the engine has to survive.
 *
 * Its settings and counters are in an array map, not in global variables:
 * libbpf probes for global data with a socket filter program, which the
 * test kernel (no CONFIG_NET) cannot load.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

#include "svmtune_test_policies.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct policy_data);
} settings SEC(".maps");

SEC("struct_ops/device_fault")
int BPF_PROG(test_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u32 key = 0;
	struct policy_data *p = bpf_map_lookup_elem(&settings, &key);

	if (!p)
		return 0;
	__sync_fetch_and_add(&p->dev_calls, 1);
	d->shift = p->dev_shift;
	d->action = p->dev_action;
	d->dest = p->dev_dest == SAME_AS_FAULT ? f->dev : p->dev_dest;
	return p->dev_ret;
}

SEC("struct_ops/cpu_fault")
int BPF_PROG(test_cpu_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u32 key = 0;
	struct policy_data *p = bpf_map_lookup_elem(&settings, &key);

	if (!p)
		return 0;
	__sync_fetch_and_add(&p->cpu_calls, 1);
	d->shift = p->cpu_shift;
	return p->cpu_ret;
}

SEC(".struct_ops.link")
struct svmtune_ops test_policy = {
	.device_fault = (void *)test_device_fault,
	.cpu_fault = (void *)test_cpu_fault,
	.name = "test",
};
