/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * svmtune programmable policy: the types a BPF struct_ops program of type
 * svmtune_ops sees (Documentation/userspace-api.rst, "Programmable
 * policy"). svmtune.ko's BTF describes the same types; a program may
 * include this header or a dump of that BTF.
 */
#ifndef _UAPI_LINUX_SVMTUNE_BPF_H
#define _UAPI_LINUX_SVMTUNE_BPF_H

#include <linux/types.h>

/* What a program's svmtune_bpf_decision.action may be. */
#define SVMTUNE_BPF_MIGRATE	0u	/* migrate the window to dest, map it */
#define SVMTUNE_BPF_MAP_REMOTE	1u	/* map the window where it is */

/* What a program's svmtune_bpf_thrash_decision.mitigation may be. */
#define SVMTUNE_BPF_THRASH_NONE		0u	/* leave the chunk alone */
#define SVMTUNE_BPF_THRASH_THROTTLE	1u	/* its faults wait throttle_us */
#define SVMTUNE_BPF_THRASH_PIN		2u	/* system memory, pin_ms */

/* The bounds of a thrashing decision: the thrashing knobs' own. */
#define SVMTUNE_BPF_THROTTLE_US_MAX	100000u
#define SVMTUNE_BPF_PIN_MS_MAX		60000u

/* What an evict callback may return for a candidate. */
#define SVMTUNE_BPF_EVICT_DEFAULT	0	/* the built-in order decides */
#define SVMTUNE_BPF_EVICT_TAKE		1	/* evict this block now */
#define SVMTUNE_BPF_EVICT_SPARE		2	/* not this block, this time */

/* The name of a program, for the kernel log and sysfs. */
#define SVMTUNE_BPF_NAME_LEN	16

/*
 * The bytes of a program's own storage in each block and each range
 * (svmtune_bpf_block_data(), svmtune_bpf_range_data()).
 */
#define SVMTUNE_BPF_DATA_SIZE	16

/**
 * struct svmtune_bpf_fault - a fault, as a program sees it (read-only)
 * @addr: the faulting page
 * @lo: the lowest address a window may take (the VMA, the backend's range
 *	and the policy range, intersected)
 * @hi: the highest (exclusive)
 * @start: the built-in decision's window: first byte
 * @end: its end
 * @dev: the device that faulted (a CPU fault: the one holding the page)
 * @cpu: 1 for a CPU fault, 0 for a device fault
 * @write: the access was a write
 * @shift: the built-in decision's window size, log2 bytes
 * @action: the built-in action, SVMTUNE_BPF_MIGRATE or SVMTUNE_BPF_MAP_REMOTE
 * @dest: the built-in destination: 0 (system memory) or a device id
 * @block_resident: pages of the fault's 2 MiB block resident on a device
 * @block_touched: of those, pages the device has used since they arrived
 * @block_loc: the device holding them; 0xffffffff when none or several
 * @block_thrashing: 1 when the block is going back and forth
 * @block_shift: the block's adaptive window size, log2 bytes; 0 if none
 * @pid: the process whose address space faulted (its thread-group id when
 *	the engine first saw it); 0 if the engine keeps no state for it
 * @cgroup: the id of its cgroup (v2) then; 0 if unknown
 * @retried: 1 when the fault asks again after a thrashing throttle made it
 *	wait (not a new fault)
 * @reports_use: 1 when @dev tells the engine which pages it used (the
 *	emulated GPU; KFD's cannot), so @block_touched means something
 *
 * A device or CPU fault callback, and the waste callback, may pass this
 * context to the kfuncs: svmtune_bpf_block_state() and
 * svmtune_bpf_block_span() read a block of the same process,
 * svmtune_bpf_block_data() and svmtune_bpf_range_data() reach the
 * program's own storage in a block or a range.
 */
struct svmtune_bpf_fault {
	__u64 addr;
	__u64 lo;
	__u64 hi;
	__u64 start;
	__u64 end;
	__u32 dev;
	__u32 cpu;
	__u32 write;
	__u32 shift;
	__u32 action;
	__u32 dest;
	__u32 block_resident;
	__u32 block_touched;
	__u32 block_loc;
	__u32 block_thrashing;
	__u32 block_shift;
	__u32 pid;
	__u64 cgroup;
	__u32 retried;
	__u32 reports_use;
};

/**
 * struct svmtune_bpf_block - a block's state, as svmtune_bpf_block_state()
 *	returns it
 * @base: its first address (2 MiB aligned)
 * @resident: pages the engine knows to be in device memory
 * @touched: of those, pages the device used since they arrived
 * @prefetched: pages prefetch brought that the device has not used yet
 * @loc: the device holding them; 0xffffffff when none or several
 * @thrashing: 1 when the block is going back and forth
 * @shift: its adaptive window size, log2 bytes; 0 if none
 * @pinned: its 64 KiB chunks pinned to system memory now, a bit each
 * @reserved: 0
 */
struct svmtune_bpf_block {
	__u64 base;
	__u32 resident;
	__u32 touched;
	__u32 prefetched;
	__u32 loc;
	__u32 thrashing;
	__u32 shift;
	__u32 pinned;
	__u32 reserved;
};

/**
 * struct svmtune_bpf_moved - pages changed place (read-only)
 * @start: the run's first byte
 * @end: its end
 * @dev: the device that moved them
 * @loc: where they are now: 0 (system memory) or @dev
 * @npages: the run's pages (a backend may report a span some pages of
 *	which were already there)
 * @changed: pages whose place the engine saw change (of blocks it tracks)
 * @fault: 1 when the move served a fault, 0 for an explicit migration,
 *	a prefetch or an eviction
 * @pid: as in &struct svmtune_bpf_fault
 * @cgroup: likewise
 */
struct svmtune_bpf_moved {
	__u64 start;
	__u64 end;
	__u32 dev;
	__u32 loc;
	__u32 npages;
	__u32 changed;
	__u32 fault;
	__u32 pid;
	__u64 cgroup;
};

/**
 * struct svmtune_bpf_thrash - a chunk detected thrashing (read-only)
 * @start: the 64 KiB chunk's first byte
 * @end: its end
 * @addr: the faulting page
 * @dev: the faulting device (a CPU fault: the one holding the page)
 * @cpu: 1 for a CPU fault
 * @mitigation: the built-in answer, SVMTUNE_BPF_THRASH_*
 * @can_throttle: 1 when the device can make a fault wait
 * @detections: throttle periods the chunk had in this quiet-second epoch
 * @pid: as in &struct svmtune_bpf_fault
 * @cgroup: likewise
 */
struct svmtune_bpf_thrash {
	__u64 start;
	__u64 end;
	__u64 addr;
	__u32 dev;
	__u32 cpu;
	__u32 mitigation;
	__u32 can_throttle;
	__u32 detections;
	__u32 pid;
	__u64 cgroup;
};

/**
 * struct svmtune_bpf_thrash_decision - what a thrashing callback answers
 * @mitigation: SVMTUNE_BPF_THRASH_NONE, _THROTTLE (only where
 *	can_throttle) or _PIN
 * @throttle_us: a throttle's length, 1 to SVMTUNE_BPF_THROTTLE_US_MAX
 * @pin_ms: a pin's length, 1 to SVMTUNE_BPF_PIN_MS_MAX
 * @reserved: must stay 0; not writable
 *
 * Filled with the built-in answer and the thrashing knobs before the call.
 */
struct svmtune_bpf_thrash_decision {
	__u32 mitigation;
	__u32 throttle_us;
	__u32 pin_ms;
	__u32 reserved;
};

/**
 * struct svmtune_bpf_victim - a block a full device could give up
 *	(read-only)
 * @base: the block's first address (2 MiB aligned)
 * @dev: the device
 * @pos: its place on the device's LRU, 0 the least recent
 * @used: 1 when the device used it since its pages arrived (for devices
 *	that report use; else 0)
 * @pid: the process it belongs to, as in &struct svmtune_bpf_fault
 * @cgroup: that process's cgroup id
 * @for_pid: the process whose fault needs the room; 0 if none
 * @reserved: 0
 * @for_cgroup: its cgroup id
 */
struct svmtune_bpf_victim {
	__u64 base;
	__u32 dev;
	__u32 pos;
	__u32 used;
	__u32 pid;
	__u64 cgroup;
	__u32 for_pid;
	__u32 reserved;
	__u64 for_cgroup;
};

/**
 * struct svmtune_bpf_proc - a process the engine starts or stops keeping
 *	state for (read-only)
 * @pid: as in &struct svmtune_bpf_fault
 * @reserved: 0
 * @cgroup: likewise
 */
struct svmtune_bpf_proc {
	__u32 pid;
	__u32 reserved;
	__u64 cgroup;
};

/**
 * struct svmtune_bpf_decision - what a program answers (return 1 to use it)
 * @shift: the window size, log2 bytes, 12 to 30: the engine cuts the
 *	aligned block of that size around the fault within [lo, hi)
 * @action: SVMTUNE_BPF_MIGRATE or SVMTUNE_BPF_MAP_REMOTE (device faults)
 * @dest: a migration's: the faulting device (a device fault) or 0, system
 *	memory (a CPU fault); a remote mapping's: 0 or a registered device
 * @reserved: must stay 0; not writable
 *
 * Filled with the built-in decision before the call.
 */
struct svmtune_bpf_decision {
	__u32 shift;
	__u32 action;
	__u32 dest;
	__u32 reserved;
};

/**
 * struct svmtune_ops - the struct_ops type: a policy as a BPF program
 * @device_fault: a device fault; return 0 to keep the built-in decision,
 *	1 to use @d (validated by the engine; refused and counted if wrong)
 * @cpu_fault: a CPU fault on a page in device memory; the same
 * @moved: pages of the program's processes changed place
 * @thrashing: a chunk was detected thrashing; return 0 to keep the
 *	built-in mitigation, 1 to use @d (validated, as a fault decision)
 * @evict: a full device looks for a block to give up, for a fault of one
 *	of the program's processes; called for each candidate, least
 *	recent first, up to 64: return SVMTUNE_BPF_EVICT_*. Sees other
 *	processes' blocks: only programs attached with CAP_SYS_ADMIN have it
 * @attach: the engine starts keeping state for a process
 * @detach: that process's address space is going
 * @pid: 0 with @cgroup 0: the program applies to every process without
 *	one of its own (needs CAP_SYS_ADMIN); else to this process only
 *	(needs the right to act on it, as svmtune's ioctls on another
 *	process)
 * @reserved: 0
 * @cgroup: a cgroup (v2) id: the program applies to the processes in that
 *	cgroup and below that have none of their own (needs CAP_SYS_ADMIN;
 *	@pid must be 0)
 * @name: a name, for the kernel log and sysfs
 * @waste: pages left @w->dev untouched (it never used them), for a device
 *	that reports use: @w is a fault's context at the first of them (its
 *	block's state), with @w->start and @w->end the pages, so the kfuncs
 *	work as in a fault
 *
 * Every callback runs under a spinlock or RCU and may not sleep. Any may
 * be left out.
 */
struct svmtune_ops {
	int (*device_fault)(struct svmtune_bpf_fault *fault,
			    struct svmtune_bpf_decision *d);
	int (*cpu_fault)(struct svmtune_bpf_fault *fault,
			 struct svmtune_bpf_decision *d);
	void (*moved)(struct svmtune_bpf_moved *m);
	int (*thrashing)(struct svmtune_bpf_thrash *t,
			 struct svmtune_bpf_thrash_decision *d);
	int (*evict)(struct svmtune_bpf_victim *v);
	void (*attach)(struct svmtune_bpf_proc *p);
	void (*detach)(struct svmtune_bpf_proc *p);
	__u32 pid;
	__u32 reserved;
	__u64 cgroup;
	char name[SVMTUNE_BPF_NAME_LEN];
	void (*waste)(struct svmtune_bpf_fault *w);
};

#endif /* _UAPI_LINUX_SVMTUNE_BPF_H */
