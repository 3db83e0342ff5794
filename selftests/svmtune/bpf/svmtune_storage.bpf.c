// SPDX-License-Identifier: GPL-2.0
/*
 * The program's own storage in blocks and ranges (svmtune_bpf_test.c):
 * every device fault counts itself in its block's storage and its range's,
 * and writes what it found there, and whether a request for more than
 * SVMTUNE_BPF_DATA_SIZE bytes got NULL, to the array map "seen". It keeps
 * the built-in decision.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>
#include "svmtune_kfuncs.h"

char _license[] SEC("license") = "GPL";

#include "svmtune_storage.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct storage_seen);
} seen SEC(".maps");

SEC("struct_ops/device_fault")
int BPF_PROG(storage_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	__u64 *b = svmtune_bpf_block_data(f, f->addr, 8);
	__u64 *r = svmtune_bpf_range_data(f, 8);
	__u64 *big =
		svmtune_bpf_block_data(f, f->addr, SVMTUNE_BPF_DATA_SIZE + 1);
	__u32 key = 0;
	struct storage_seen *s = bpf_map_lookup_elem(&seen, &key);

	if (!s)
		return 0;
	s->faults++;
	s->block = b ? (*b)++ : STORAGE_NONE;
	s->range = r ? (*r)++ : STORAGE_NONE;
	if (big)
		s->big_not_null++;
	return 0;
}

SEC(".struct_ops.link")
struct svmtune_ops storage = {
	.device_fault = (void *)storage_device_fault,
	.name = "storage",
};
