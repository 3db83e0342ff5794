// SPDX-License-Identifier: GPL-2.0
/*
 * Example policy: the application says which phase it is in, through a
 * BPF map, and the window follows. Phase 0 (the default) keeps svmtune's
 * built-in decision; phase 1 ("stream": the GPU sweeps whole buffers)
 * migrates 2 MiB windows; phase 2 ("sparse": scattered lookups) 64 KiB
 * ones; phase 3 ("shared": the CPU and the GPU take turns on the data)
 * maps device faults remotely from system memory and moves nothing.
 *
 * The application (or a launcher) writes the phase with bpf_map_update_elem()
 * on the pinned map svmtune_phase, key 0; attach per process (pid in the
 * struct_ops map, see Documentation/admin-guide.rst).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

enum { PHASE_BUILTIN, PHASE_STREAM, PHASE_SPARSE, PHASE_SHARED };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} svmtune_phase SEC(".maps");

SEC("struct_ops/device_fault")
int BPF_PROG(phase_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u32 key = 0, *phase = bpf_map_lookup_elem(&svmtune_phase, &key);

	if (!phase)
		return 0;
	switch (*phase) {
	case PHASE_STREAM:
		d->shift = 21;
		d->action = SVMTUNE_BPF_MIGRATE;
		d->dest = f->dev;
		return 1;
	case PHASE_SPARSE:
		d->shift = 16;
		d->action = SVMTUNE_BPF_MIGRATE;
		d->dest = f->dev;
		return 1;
	case PHASE_SHARED:
		d->shift = 21;
		d->action = SVMTUNE_BPF_MAP_REMOTE;
		d->dest = 0;
		return 1;
	}
	return 0;
}

SEC(".struct_ops.link")
struct svmtune_ops phase_hint = {
	.device_fault = (void *)phase_device_fault,
	.name = "phase_hint",
};
