// SPDX-License-Identifier: GPL-2.0
/*
 * Must not load: a thrashing program writes its decision's reserved
 * field (the writable fields are those before it).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/thrashing")
int BPF_PROG(bad_thrashing, struct svmtune_bpf_thrash *t,
	     struct svmtune_bpf_thrash_decision *d)
{
	d->reserved = 1;
	return 1;
}

SEC(".struct_ops.link")
struct svmtune_ops bad_write_thrash = {
	.thrashing = (void *)bad_thrashing,
	.name = "bad_thrash",
};
