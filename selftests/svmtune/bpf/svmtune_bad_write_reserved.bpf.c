// SPDX-License-Identifier: GPL-2.0
/* Must not load: a program writes its decision's reserved field. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/device_fault")
int BPF_PROG(bad_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	d->reserved = 1;
	return 1;
}

SEC(".struct_ops.link")
struct svmtune_ops bad_write_reserved = {
	.device_fault = (void *)bad_device_fault,
	.name = "bad_reserved",
};
