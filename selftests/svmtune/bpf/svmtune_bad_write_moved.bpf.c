// SPDX-License-Identifier: GPL-2.0
/*
 * Must not load: a moved program writes its context, which is read-only
 * (only a decision is writable, and moved has none).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/moved")
void BPF_PROG(bad_moved, struct svmtune_bpf_moved *m)
{
	m->changed = 0;
}

SEC(".struct_ops.link")
struct svmtune_ops bad_write_moved = {
	.moved = (void *)bad_moved,
	.name = "bad_moved",
};
