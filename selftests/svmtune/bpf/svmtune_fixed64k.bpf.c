// SPDX-License-Identifier: GPL-2.0
/*
 * 64 KiB windows for every device fault, migrating to the faulting
 * device: the program run_kfdbed.sh attaches globally with bpftool on
 * KFD's own code (the KFD test bed), the same the emulated GPU's tests
 * load, so that one program is shown on both backends.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/device_fault")
int BPF_PROG(fixed64k_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	d->shift = 16;
	d->action = SVMTUNE_BPF_MIGRATE;
	d->dest = f->dev;
	return 1;
}

SEC(".struct_ops.link")
struct svmtune_ops fixed64k = {
	.device_fault = (void *)fixed64k_device_fault,
	.name = "fixed64k",
};
