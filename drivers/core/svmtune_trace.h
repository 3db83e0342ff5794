/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune core: tracepoints, in the "svmtune" trace system
 * (/sys/kernel/tracing/events/svmtune/). Documentation/admin-guide.rst
 * shows how to read them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM svmtune

#if !defined(_SVMTUNE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SVMTUNE_TRACE_H

#include <linux/tracepoint.h>
#include <svmtune/backend.h>

/* Every decision: the fault, the window and what to do with it. */
TRACE_EVENT(svmtune_decide,
	TP_PROTO(const struct svmtune_device *dev,
		 const struct svmtune_fault *fault,
		 const struct svmtune_decision *decision, bool thrashing),
	TP_ARGS(dev, fault, decision, thrashing),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(bool, cpu)
		__field(bool, write)
		__field(bool, thrashing)
		__field(u32, granularity)
		__field(u32, fragment)
		__field(u32, action)
		__field(u32, dest)
		__field(unsigned long, addr)
		__field(unsigned long, start)
		__field(unsigned long, end)
	),
	TP_fast_assign(
		__entry->dev = dev ? dev->id : 0;
		__entry->cpu = fault->type == SVMTUNE_FAULT_CPU;
		__entry->write = fault->write;
		__entry->thrashing = thrashing;
		__entry->granularity = decision->granularity;
		__entry->fragment = decision->fragment;
		__entry->action = decision->action;
		__entry->dest = decision->dest;
		__entry->addr = fault->addr;
		__entry->start = decision->start;
		__entry->end = decision->end;
	),
	TP_printk("dev=%u %s %s addr=0x%lx window=0x%lx-0x%lx granularity=%u fragment=%u %s dest=%u%s",
		  __entry->dev, __entry->cpu ? "cpu" : "gpu",
		  __entry->write ? "write" : "read", __entry->addr,
		  __entry->start, __entry->end, __entry->granularity,
		  __entry->fragment,
		  __entry->action == SVMTUNE_MIGRATE ? "migrate" : "map-remote",
		  __entry->dest, __entry->thrashing ? " thrashing" : "")
);

/* What a backend did with a decision, or an explicit migration. */
TRACE_EVENT(svmtune_account,
	TP_PROTO(const struct svmtune_device *dev,
		 const struct svmtune_result *result),
	TP_ARGS(dev, result),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(unsigned long, to_device)
		__field(unsigned long, to_system)
		__field(unsigned long, remote)
		__field(unsigned long, fallback)
	),
	TP_fast_assign(
		__entry->dev = dev ? dev->id : 0;
		__entry->to_device = result->to_device;
		__entry->to_system = result->to_system;
		__entry->remote = result->remote;
		__entry->fallback = result->fallback;
	),
	TP_printk("dev=%u pages: to_device=%lu to_system=%lu remote=%lu fallback=%lu",
		  __entry->dev, __entry->to_device, __entry->to_system,
		  __entry->remote, __entry->fallback)
);

/*
 * A 64 KiB chunk reached thrashing_threshold reversals, and what followed
 * (SVMTUNE_THRASH_TRACE_*), or its pin ended.
 */
TRACE_EVENT(svmtune_thrashing,
	TP_PROTO(const struct svmtune_device *dev, unsigned long start,
		 unsigned long end, unsigned long addr, unsigned int what),
	TP_ARGS(dev, start, end, addr, what),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, what)
		__field(unsigned long, start)
		__field(unsigned long, end)
		__field(unsigned long, addr)
	),
	TP_fast_assign(
		__entry->dev = dev ? dev->id : 0;
		__entry->what = what;
		__entry->start = start;
		__entry->end = end;
		__entry->addr = addr;
	),
	TP_printk("dev=%u chunk=0x%lx-0x%lx addr=0x%lx %s",
		  __entry->dev, __entry->start, __entry->end, __entry->addr,
		  __print_symbolic(__entry->what,
				   { SVMTUNE_THRASH_TRACE_DETECTED, "detected" },
				   { SVMTUNE_THRASH_TRACE_THROTTLED, "throttled" },
				   { SVMTUNE_THRASH_TRACE_PINNED, "pinned" },
				   { SVMTUNE_THRASH_TRACE_UNPINNED, "unpinned" }))
);

/* Device TLB lookups a backend reports (one per access it models). */
TRACE_EVENT(svmtune_tlb,
	TP_PROTO(const struct svmtune_device *dev, unsigned long addr, u64 hits,
		 u64 misses),
	TP_ARGS(dev, addr, hits, misses),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(unsigned long, addr)
		__field(u64, hits)
		__field(u64, misses)
	),
	TP_fast_assign(
		__entry->dev = dev ? dev->id : 0;
		__entry->addr = addr;
		__entry->hits = hits;
		__entry->misses = misses;
	),
	TP_printk("dev=%u addr=0x%lx tlb_hits=%llu tlb_misses=%llu",
		  __entry->dev, __entry->addr, __entry->hits, __entry->misses)
);

/* Pages a device mapped with one PTE fragment size (log2 bytes). */
TRACE_EVENT(svmtune_fragments,
	TP_PROTO(const struct svmtune_device *dev, unsigned int shift,
		 unsigned long npages),
	TP_ARGS(dev, shift, npages),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, shift)
		__field(unsigned long, npages)
	),
	TP_fast_assign(
		__entry->dev = dev ? dev->id : 0;
		__entry->shift = shift;
		__entry->npages = npages;
	),
	TP_printk("dev=%u fragment=%u pages=%lu",
		  __entry->dev, __entry->shift, __entry->npages)
);

#endif /* _SVMTUNE_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE svmtune_trace
#include <trace/define_trace.h>
