// SPDX-License-Identifier: GPL-2.0
/*
 * Example policy: a stride detector. Per device, it remembers the last
 * fault's page and the stride: the distance between two faults. A fault
 * whose distance from the last is a whole number of strides (the faults
 * in between were served by a window the detector made) continues the
 * run; when a run is seen and the stride is no more than 2 MiB (the GPU
 * walks the buffer with a fixed stride), the window grows to the power of
 * two that covers four strides, up to 2 MiB. Anything else starts a new
 * stride and keeps the built-in decision. CPU faults are left to the
 * built-in policy. Faults of one device on several CPUs update its state
 * without a lock: a lost update costs a fault, never a wrong window (the
 * engine cuts every window to the fault's bounds).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

#define MAX_DEVICES 65
#define MAX_SHIFT 21

struct stride_state {
	__u64 last;
	__u64 stride;
	__u32 run;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct stride_state);
} strides SEC(".maps");

SEC("struct_ops/device_fault")
int BPF_PROG(stride_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u32 key = f->dev;
	struct stride_state *s = bpf_map_lookup_elem(&strides, &key);
	__u64 delta, stride;
	__u32 shift;

	if (!s)
		return 0;
	delta = f->addr - s->last;
	stride = s->stride;
	s->last = f->addr;
	if ((__s64)delta > 0 && stride && delta % stride == 0) {
		s->run++;
	} else {
		s->stride = delta;
		s->run = 0;
		return 0;
	}
	if (stride > (1ULL << MAX_SHIFT))
		return 0;
	for (shift = 12; shift < MAX_SHIFT && (1ULL << shift) < 4 * stride;
	     shift++)
		;
	if (shift <= d->shift)
		return 0;
	d->shift = shift;
	return 1;
}

SEC(".struct_ops.link")
struct svmtune_ops stride = {
	.device_fault = (void *)stride_device_fault,
	.name = "stride",
};
