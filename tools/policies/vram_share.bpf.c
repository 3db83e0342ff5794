// SPDX-License-Identifier: GPL-2.0
/*
 * Example policy: device memory shared between tenants, each a cgroup (v2)
 * with a share in pages. The operator writes each tenant's share into the
 * hash map vram_share, keyed by cgroup id (the directory's inode number
 * in /sys/fs/cgroup, or name_to_handle_at()), and attaches the program
 * globally or to a cgroup above the tenants:
 *
 * - moved: the pages of each tenant on devices, as the engine sees them
 *   arrive and leave (the tally is of all devices together);
 * - device_fault: a tenant at its share maps its faults remotely from
 *   system memory instead of taking more device memory;
 * - evict: when a device is full and a tenant's fault needs room, a block
 *   of a tenant over its share goes first; a block of another tenant within
 *   its share is spared; its own blocks and those of cgroups without a
 *   share are left to the built-in LRU order;
 * - detach: a process's pages leave with its address space, which the
 *   engine does not report as moves: the program keeps each process's
 *   count too (vram_share_procs) and gives it back to its tenant.
 *
 * Processes outside every tenant keep the built-in policy. The tally is
 * kept without a lock across CPUs with atomic adds: a fault may see it a
 * window late, so a tenant may overshoot its share by one window per
 * concurrent fault, never more.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>

char _license[] SEC("license") = "GPL";

#define MAX_TENANTS 64

struct tenant {
	__u64 share; /* pages; written by the operator */
	__s64 resident; /* pages on devices now; kept by the program */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TENANTS);
	__type(key, __u64);
	__type(value, struct tenant);
} vram_share SEC(".maps");

struct proc {
	__u64 cgroup;
	__s64 resident;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct proc);
} vram_share_procs SEC(".maps");

static int over_share(const struct tenant *t)
{
	return t->resident >= 0 && (__u64)t->resident >= t->share;
}

SEC("struct_ops/device_fault")
int BPF_PROG(share_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u64 cgroup = f->cgroup;
	struct tenant *t = bpf_map_lookup_elem(&vram_share, &cgroup);

	if (!t || !over_share(t) || d->action != SVMTUNE_BPF_MIGRATE)
		return 0;
	d->action = SVMTUNE_BPF_MAP_REMOTE;
	d->dest = 0;
	return 1;
}

SEC("struct_ops/moved")
void BPF_PROG(share_moved, struct svmtune_bpf_moved *m)
{
	__s64 delta = m->loc ? (__s64)m->changed : -(__s64)m->changed;
	__u64 cgroup = m->cgroup;
	struct tenant *t = bpf_map_lookup_elem(&vram_share, &cgroup);
	struct proc fresh = { .cgroup = cgroup }, *p;
	__u32 pid = m->pid;

	if (!t || !delta)
		return;
	__sync_fetch_and_add(&t->resident, delta);
	p = bpf_map_lookup_elem(&vram_share_procs, &pid);
	if (!p) {
		bpf_map_update_elem(&vram_share_procs, &pid, &fresh,
				    BPF_NOEXIST);
		p = bpf_map_lookup_elem(&vram_share_procs, &pid);
	}
	if (p)
		__sync_fetch_and_add(&p->resident, delta);
}

SEC("struct_ops/detach")
void BPF_PROG(share_detach, struct svmtune_bpf_proc *pr)
{
	__u32 pid = pr->pid;
	struct proc *p = bpf_map_lookup_elem(&vram_share_procs, &pid);
	struct tenant *t;
	__u64 cgroup;

	if (!p)
		return;
	cgroup = p->cgroup;
	t = bpf_map_lookup_elem(&vram_share, &cgroup);
	if (t)
		__sync_fetch_and_add(&t->resident, -p->resident);
	bpf_map_delete_elem(&vram_share_procs, &pid);
}

SEC("struct_ops/evict")
int BPF_PROG(share_evict, struct svmtune_bpf_victim *v)
{
	__u64 cgroup = v->cgroup, for_cgroup = v->for_cgroup;
	struct tenant *owner, *asker;

	if (cgroup == for_cgroup)
		return SVMTUNE_BPF_EVICT_DEFAULT;
	owner = bpf_map_lookup_elem(&vram_share, &cgroup);
	if (!owner)
		return SVMTUNE_BPF_EVICT_DEFAULT;
	if (over_share(owner))
		return SVMTUNE_BPF_EVICT_TAKE;
	asker = bpf_map_lookup_elem(&vram_share, &for_cgroup);
	return asker ? SVMTUNE_BPF_EVICT_SPARE : SVMTUNE_BPF_EVICT_DEFAULT;
}

SEC(".struct_ops.link")
struct svmtune_ops vram_share_policy = {
	.device_fault = (void *)share_device_fault,
	.moved = (void *)share_moved,
	.evict = (void *)share_evict,
	.detach = (void *)share_detach,
	.name = "vram_share",
};
