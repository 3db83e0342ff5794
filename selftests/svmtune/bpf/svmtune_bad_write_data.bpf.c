// SPDX-License-Identifier: GPL-2.0
/*
 * Must not load: a program writes past the storage it asked for (8 bytes
 * asked, the ninth written).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>
#include "svmtune_kfuncs.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/device_fault")
int BPF_PROG(bad_data_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u64 *b = svmtune_bpf_block_data(f, f->addr, 8);

	if (b)
		b[1] = 1;
	return 0;
}

SEC(".struct_ops.link")
struct svmtune_ops bad_write_data = {
	.device_fault = (void *)bad_data_device_fault,
	.name = "bad_data",
};
