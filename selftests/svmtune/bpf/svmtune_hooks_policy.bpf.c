// SPDX-License-Identifier: GPL-2.0
/*
 * A program with every svmtune_ops callback, for svmtune_bpf_hooks_test.c:
 * it records what the engine tells it (moves, thrashing, eviction
 * candidates, processes attached and detached, and the kfunc's view of a
 * block) and answers thrashing and eviction as the test sets it, in the
 * one-entry array map "hooks" (struct hooks_data).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>
#include "svmtune_kfuncs.h"

char _license[] SEC("license") = "GPL";

#include "svmtune_hooks_policy.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hooks_data);
} hooks SEC(".maps");

static struct hooks_data *data(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&hooks, &key);
}

SEC("struct_ops/device_fault")
int BPF_PROG(hooks_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	struct hooks_data *h = data();
	struct svmtune_bpf_block b = {};

	if (!h)
		return 0;
	__sync_fetch_and_add(&h->dev_calls, 1);
	h->fault_pid = f->pid;
	h->fault_cgroup = f->cgroup;
	if (h->kfunc_probe && f->addr >= (2u << 20)) {
		h->kfunc_ret =
			svmtune_bpf_block_state(f, f->addr - (2u << 20), &b);
		h->kfunc_base = b.base;
		h->kfunc_resident = b.resident;
		h->kfunc_loc = b.loc;
	}
	return 0;
}

SEC("struct_ops/moved")
void BPF_PROG(hooks_moved, struct svmtune_bpf_moved *m)
{
	struct hooks_data *h = data();

	if (!h)
		return;
	__sync_fetch_and_add(&h->moved_calls, 1);
	if (m->loc)
		__sync_fetch_and_add(&h->moved_to_dev, m->changed);
	else
		__sync_fetch_and_add(&h->moved_to_sys, m->changed);
	if (m->fault)
		__sync_fetch_and_add(&h->moved_fault, 1);
	h->moved_pid = m->pid;
	h->moved_cgroup = m->cgroup;
}

SEC("struct_ops/thrashing")
int BPF_PROG(hooks_thrashing, struct svmtune_bpf_thrash *t,
	     struct svmtune_bpf_thrash_decision *d)
{
	struct hooks_data *h = data();

	if (!h)
		return 0;
	__sync_fetch_and_add(&h->thrash_calls, 1);
	h->thrash_builtin = t->mitigation;
	d->mitigation = h->thrash_mitigation;
	d->throttle_us = h->thrash_throttle_us;
	d->pin_ms = h->thrash_pin_ms;
	return h->thrash_ret;
}

SEC("struct_ops/evict")
int BPF_PROG(hooks_evict, struct svmtune_bpf_victim *v)
{
	struct hooks_data *h = data();

	if (!h)
		return SVMTUNE_BPF_EVICT_DEFAULT;
	__sync_fetch_and_add(&h->evict_calls, 1);
	h->evict_pid = v->pid;
	h->evict_for_pid = v->for_pid;
	h->evict_for_cgroup = v->for_cgroup;
	switch (h->evict_mode) {
	case EVICT_TAKE_RANGE:
		if (v->base >= h->take_lo && v->base < h->take_hi) {
			__sync_fetch_and_add(&h->evict_taken, 1);
			return SVMTUNE_BPF_EVICT_TAKE;
		}
		return SVMTUNE_BPF_EVICT_DEFAULT;
	case EVICT_SPARE_ALL:
		return SVMTUNE_BPF_EVICT_SPARE;
	case EVICT_INVALID:
		return 9;
	}
	return SVMTUNE_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/attach")
void BPF_PROG(hooks_attach, struct svmtune_bpf_proc *p)
{
	struct hooks_data *h = data();

	if (!h)
		return;
	__sync_fetch_and_add(&h->attach_calls, 1);
	h->attach_pid = p->pid;
	h->attach_cgroup = p->cgroup;
}

SEC("struct_ops/detach")
void BPF_PROG(hooks_detach, struct svmtune_bpf_proc *p)
{
	struct hooks_data *h = data();

	if (!h)
		return;
	__sync_fetch_and_add(&h->detach_calls, 1);
	h->detach_pid = p->pid;
}

SEC(".struct_ops.link")
struct svmtune_ops hooks_policy = {
	.device_fault = (void *)hooks_device_fault,
	.moved = (void *)hooks_moved,
	.thrashing = (void *)hooks_thrashing,
	.evict = (void *)hooks_evict,
	.attach = (void *)hooks_attach,
	.detach = (void *)hooks_detach,
	.name = "hooks",
};
