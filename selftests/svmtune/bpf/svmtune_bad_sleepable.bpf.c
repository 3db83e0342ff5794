// SPDX-License-Identifier: GPL-2.0
/*
 * Must not load: a sleepable program, where the callbacks run under a
 * spinlock.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops.s/device_fault")
int BPF_PROG(sleepy_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	return 0;
}

SEC(".struct_ops.link")
struct svmtune_ops bad_sleepable = {
	.device_fault = (void *)sleepy_device_fault,
	.name = "bad_sleepable",
};
