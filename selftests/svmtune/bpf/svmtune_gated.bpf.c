// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose fault decisions show that its other callbacks ran: it
 * answers 64 KiB windows for a process's device faults only once it has
 * been told of the process (attach) and of pages of it that moved (moved);
 * until then it keeps the built-in decision. run_kfdbed.sh attaches it
 * globally on KFD's own code: decisions replaced there mean attach and
 * moved were called from svmtune_kfd's paths.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

#define SEEN_ATTACH 1ull
#define SEEN_MOVED 2ull

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

static void mark(__u32 pid, __u64 bit)
{
	__u64 zero = 0, *v = bpf_map_lookup_elem(&seen, &pid);

	if (!v) {
		bpf_map_update_elem(&seen, &pid, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&seen, &pid);
	}
	if (v)
		__sync_fetch_and_or(v, bit);
}

SEC("struct_ops/attach")
void BPF_PROG(gated_attach, struct svmtune_bpf_proc *p)
{
	mark(p->pid, SEEN_ATTACH);
}

SEC("struct_ops/moved")
void BPF_PROG(gated_moved, struct svmtune_bpf_moved *m)
{
	if (m->changed)
		mark(m->pid, SEEN_MOVED);
}

SEC("struct_ops/device_fault")
int BPF_PROG(gated_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u32 pid = f->pid;
	__u64 *v = bpf_map_lookup_elem(&seen, &pid);

	if (!v || *v != (SEEN_ATTACH | SEEN_MOVED))
		return 0;
	d->shift = 16;
	d->action = SVMTUNE_BPF_MIGRATE;
	d->dest = f->dev;
	return 1;
}

SEC(".struct_ops.link")
struct svmtune_ops gated = {
	.device_fault = (void *)gated_device_fault,
	.moved = (void *)gated_moved,
	.attach = (void *)gated_attach,
	.name = "gated",
};
