// SPDX-License-Identifier: GPL-2.0
/*
 * A program that keeps every decision the engine makes (it returns 0 for
 * each device and CPU fault): what it costs is what calling a program on
 * every fault costs. make bench's overhead table attaches it globally
 * (tools/bench/overhead).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/device_fault")
int BPF_PROG(keep_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	return 0;
}

SEC("struct_ops/cpu_fault")
int BPF_PROG(keep_cpu_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	return 0;
}

SEC(".struct_ops.link")
struct svmtune_ops keep = {
	.device_fault = (void *)keep_device_fault,
	.cpu_fault = (void *)keep_cpu_fault,
	.name = "keep",
};
