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

/* The name of a program, for the kernel log and sysfs. */
#define SVMTUNE_BPF_NAME_LEN	16

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
 * @reserved: 0
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
	__u32 reserved;
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
 * @pid: 0: the program applies to every process without one of its own
 *	(needs CAP_SYS_ADMIN); else to this process only (needs the right to
 *	act on it, as svmtune's ioctls on another process)
 * @name: a name, for the kernel log and sysfs
 *
 * Both callbacks run under a spinlock and may not sleep. Either may be
 * left out.
 */
struct svmtune_ops {
	int (*device_fault)(struct svmtune_bpf_fault *fault,
			    struct svmtune_bpf_decision *d);
	int (*cpu_fault)(struct svmtune_bpf_fault *fault,
			 struct svmtune_bpf_decision *d);
	__u32 pid;
	char name[SVMTUNE_BPF_NAME_LEN];
};

#endif /* _UAPI_LINUX_SVMTUNE_BPF_H */
