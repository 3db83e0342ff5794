/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KFD test bed: the one amdgpu tracepoint the test bed fires, under
 * amdgpu's name and with amdgpu's prototype (amdgpu_trace.h), so that a
 * probe written for amdgpu (svmtune_kfd's PTE fragment histogram) attaches
 * to the test bed as it does to amdgpu. The recorded fields are our own.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM amdgpu

#if !defined(_KFDBED_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KFDBED_TRACE_H

#include <linux/tracepoint.h>

struct amdgpu_vm_update_params;

/*
 * One batch of page-table entries written at one level: GPU pages
 * [start, end), nptes entries (at most 32 reported, as amdgpu does), incr
 * bytes apart, with PTE flags (the fragment in AMDGPU_PTE_FRAG's bits).
 */
/* Laid out as the kernel's trace headers are, not as clang-format would. */
/* clang-format off */
TRACE_EVENT(amdgpu_vm_update_ptes,
	TP_PROTO(struct amdgpu_vm_update_params *p,
		 uint64_t start, uint64_t end,
		 unsigned int nptes, uint64_t dst,
		 uint64_t incr, uint64_t flags,
		 pid_t pid, uint64_t vm_ctx),
	TP_ARGS(p, start, end, nptes, dst, incr, flags, pid, vm_ctx),
	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u64, dst)
		__field(u64, incr)
		__field(u64, flags)
		__field(unsigned int, nptes)
	),
	TP_fast_assign(
		__entry->start = start;
		__entry->end = end;
		__entry->dst = dst;
		__entry->incr = incr;
		__entry->flags = flags;
		__entry->nptes = nptes;
	),
	TP_printk("start:0x%010llx end:0x%010llx nptes:%u dst:0x%llx incr:%llu flags:0x%llx",
		  __entry->start, __entry->end, __entry->nptes, __entry->dst,
		  __entry->incr, __entry->flags)
);
/* clang-format on */

#endif /* _KFDBED_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kfdbed_trace
#include <trace/define_trace.h>
