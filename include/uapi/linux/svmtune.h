/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * svmtune: shared virtual memory policy engine, user-space interface.
 *
 * All ioctls go to /dev/svmtune. Each takes one struct whose size is encoded
 * in the command number; the kernel accepts structs that are older (shorter)
 * than its own by zero-filling the missing tail, and newer (longer) ones when
 * the unknown tail is all zero (otherwise -E2BIG). Every flags, reserved
 * and output-only field must be zero on input (otherwise -EINVAL). Unknown
 * commands return -ENOTTY. See Documentation/userspace-api/svmtune.rst.
 */
#ifndef _UAPI_LINUX_SVMTUNE_H
#define _UAPI_LINUX_SVMTUNE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SVMTUNE_VERSION_MAJOR	0
#define SVMTUNE_VERSION_MINOR	4
#define SVMTUNE_VERSION_PATCH	0

/* ioctl type, listed as free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define SVMTUNE_IOC_MAGIC	0xBA

/**
 * struct svmtune_version - argument of %SVMTUNE_IOC_VERSION
 * @major: out: major version; changes only on incompatible uapi changes
 * @minor: out: minor version; grows when ioctls or fields are added
 * @patch: out: patch level
 * @flags: in: must be zero
 * @features: out: the SVMTUNE_FEATURE_* bits this module implements
 * @reserved: in: must be zero; out: zero
 */
struct svmtune_version {
	__u32 major;
	__u32 minor;
	__u32 patch;
	__u32 flags;
	__u64 features;
	__u64 reserved[2];
};

/* Query the module version and feature bits. */
#define SVMTUNE_IOC_VERSION	_IOWR(SVMTUNE_IOC_MAGIC, 0x00, struct svmtune_version)

/* Feature bits of struct svmtune_version.features */
#define SVMTUNE_FEATURE_RANGE_POLICY	(1ULL << 0)	/* SET/GET_POLICY, process policy */
#define SVMTUNE_FEATURE_STATS		(1ULL << 1)	/* SVMTUNE_IOC_GET_STATS */
#define SVMTUNE_FEATURE_DEVICES		(1ULL << 2)	/* SVMTUNE_IOC_GET_DEVICE */
#define SVMTUNE_FEATURE_PREFETCH	(1ULL << 3)	/* density prefetch, its counters */
#define SVMTUNE_FEATURE_TLB_COUNTERS	(1ULL << 4)	/* tlb_hits, tlb_misses */
/* Per-chunk thrashing mitigation, policy field thrashing, svmtune_mitigations */
#define SVMTUNE_FEATURE_THRASHING	(1ULL << 5)
/* Fragment size policy field fragment, eff_fragment (since 0.4) */
#define SVMTUNE_FEATURE_FRAGMENT	(1ULL << 6)
/*
 * Programmable policy: the svmtune_ops BPF struct_ops type is registered
 * (<linux/svmtune_bpf.h>); clear where the kernel or module lacks BPF or
 * BTF, /sys/kernel/svmtune/bpf/state says why.
 */
#define SVMTUNE_FEATURE_BPF		(1ULL << 7)

/*
 * Memory locations, for preferred_loc. Devices are numbered from 1 in the
 * order their backends registered (SVMTUNE_IOC_GET_DEVICE lists them).
 */
#define SVMTUNE_LOC_SYSTEM	0u		/* system memory */
#define SVMTUNE_LOC_MAX_DEVICE	64u		/* the highest device id */
#define SVMTUNE_LOC_UNSET	0xffffffffu	/* no preference here: inherit */

/* Access modes, for access. */
#define SVMTUNE_ACCESS_UNSET		0	/* inherit */
#define SVMTUNE_ACCESS_MIGRATE		1	/* migrate to the faulting processor */
#define SVMTUNE_ACCESS_REMOTE		2	/* map where it is, never migrate */
#define SVMTUNE_ACCESS_READ_MOSTLY	3	/* reads map remotely, writes migrate */

/*
 * Granularity, the size of the block a fault migrates, as log2 of bytes:
 * 12 (4 KiB) to 30 (1 GiB). 0 means unset: inherit.
 */
#define SVMTUNE_GRANULARITY_UNSET	0u
#define SVMTUNE_GRANULARITY_MIN		12u
#define SVMTUNE_GRANULARITY_MAX		30u

/*
 * Thrashing handling, for thrashing (since 0.3): whether the engine
 * watches a range for pages going back and forth, and mitigates as the
 * global ``thrashing`` knob says.
 */
#define SVMTUNE_THRASH_UNSET		0	/* inherit (the default: tracked) */
#define SVMTUNE_THRASH_OPT_OUT		1	/* never tracked, throttled or pinned */
#define SVMTUNE_THRASH_TRACK		2	/* tracked, as the global knob says */

/*
 * Fragment size (since 0.4), as log2 of bytes: 12 (4 KiB) to 21 (2 MiB).
 * The block whose device memory is laid out contiguously, in the order of
 * its addresses, so that the device can map it with one PTE fragment (one
 * TLB entry); 12 seeks no contiguity. 0 means unset: inherit.
 */
#define SVMTUNE_FRAGMENT_UNSET	0u
#define SVMTUNE_FRAGMENT_MIN	12u
#define SVMTUNE_FRAGMENT_MAX	21u

/* Bits of the set field: which policy fields a SET ioctl changes. */
#define SVMTUNE_POLICY_GRANULARITY	(1u << 0)
#define SVMTUNE_POLICY_PREFERRED_LOC	(1u << 1)
#define SVMTUNE_POLICY_ACCESS		(1u << 2)
#define SVMTUNE_POLICY_THRASHING	(1u << 3)	/* since 0.3 */
#define SVMTUNE_POLICY_FRAGMENT		(1u << 4)	/* since 0.4 */
#define SVMTUNE_POLICY_ALL		(SVMTUNE_POLICY_GRANULARITY | \
					 SVMTUNE_POLICY_PREFERRED_LOC | \
					 SVMTUNE_POLICY_ACCESS | \
					 SVMTUNE_POLICY_THRASHING | \
					 SVMTUNE_POLICY_FRAGMENT)

/**
 * struct svmtune_range_policy - argument of %SVMTUNE_IOC_SET_POLICY and
 *	%SVMTUNE_IOC_GET_POLICY
 * @start: in: first byte of the range, page-aligned
 * @size: in: bytes, page-aligned, nonzero, within the user address space
 * @pid: in: process whose address space is meant; 0 is the caller. Any
 *	other process only if the caller could ptrace it (same user and
 *	dumpable, or CAP_SYS_PTRACE), otherwise -EPERM.
 * @flags: in: must be zero
 * @set: in (SET): SVMTUNE_POLICY_* bits of the fields to change; the other
 *	fields keep what each part of the range had. Must be nonzero.
 *	in (GET): must be zero.
 * @granularity: in/out: log2 bytes or %SVMTUNE_GRANULARITY_UNSET
 * @preferred_loc: in/out: SVMTUNE_LOC_*, a device id, or %SVMTUNE_LOC_UNSET
 * @access: in/out: SVMTUNE_ACCESS_*
 * @extent_end: out (GET): end of the part of the range, from @start, over
 *	which the policy is the same as at @start
 * @eff_granularity: out (GET): the granularity in effect at @start once
 *	process and global defaults are applied: the window a device fault
 *	there takes now (under the adaptive policy, the block's current
 *	adaptive window within the current adaptive bounds: what the next
 *	fault there takes, unless that fault itself grows or shrinks it)
 * @eff_preferred_loc: out (GET): the preferred location in effect
 * @eff_access: out (GET): the access mode in effect
 * @thrashing: in/out: SVMTUNE_THRASH_* (since 0.3; was reserved, zero)
 * @eff_thrashing: out (GET): %SVMTUNE_THRASH_OPT_OUT or
 *	%SVMTUNE_THRASH_TRACK, in effect at @start
 * @fragment: in/out: log2 bytes (SVMTUNE_FRAGMENT_MIN to _MAX) or
 *	%SVMTUNE_FRAGMENT_UNSET (since 0.4; was @reserved0, zero); must be
 *	zero when SET does not set %SVMTUNE_POLICY_FRAGMENT
 * @eff_fragment: out (GET): the fragment size in effect at @start, at
 *	most the global ``fragment_cap`` (since 0.4; was part of @reserved)
 * @reserved: must be zero (until 0.3, @reserved was two words from
 *	@thrashing on, and @thrashing was @reserved0; until 0.4, @reserved
 *	was a __u32 @reserved0 and a __u64 @reserved)
 *
 * SET applies the chosen fields to every page of [@start, @start + @size);
 * GET reports what was set at @start (UNSET where nothing was) and what is
 * in effect there.
 */
struct svmtune_range_policy {
	__u64 start;
	__u64 size;
	__u32 pid;
	__u32 flags;
	__u32 set;
	__u32 granularity;
	__u32 preferred_loc;
	__u32 access;
	__u64 extent_end;
	__u32 eff_granularity;
	__u32 eff_preferred_loc;
	__u32 eff_access;
	__u32 thrashing;
	__u32 eff_thrashing;
	__u32 fragment;
	__u32 eff_fragment;
	__u32 reserved;
};

#define SVMTUNE_IOC_SET_POLICY	_IOW(SVMTUNE_IOC_MAGIC, 0x01, struct svmtune_range_policy)
#define SVMTUNE_IOC_GET_POLICY	_IOWR(SVMTUNE_IOC_MAGIC, 0x02, struct svmtune_range_policy)

/**
 * struct svmtune_process_policy - argument of
 *	%SVMTUNE_IOC_SET_PROCESS_POLICY and %SVMTUNE_IOC_GET_PROCESS_POLICY:
 *	the defaults of one process, used where no range policy is set
 * @pid: in: 0 is the caller; any other process as in
 *	struct svmtune_range_policy
 * @flags: in: must be zero
 * @set: in (SET): SVMTUNE_POLICY_* bits of the fields to change, nonzero;
 *	in (GET): must be zero
 * @granularity: in/out, as in struct svmtune_range_policy
 * @preferred_loc: in/out
 * @access: in/out
 * @thrashing: in/out: SVMTUNE_THRASH_* (since 0.3; was reserved, zero)
 * @fragment: in/out, as in struct svmtune_range_policy (since 0.4; was
 *	@reserved0, zero)
 * @reserved: must be zero
 */
struct svmtune_process_policy {
	__u32 pid;
	__u32 flags;
	__u32 set;
	__u32 granularity;
	__u32 preferred_loc;
	__u32 access;
	__u32 thrashing;
	__u32 fragment;
	__u64 reserved[2];
};

#define SVMTUNE_IOC_SET_PROCESS_POLICY \
	_IOW(SVMTUNE_IOC_MAGIC, 0x03, struct svmtune_process_policy)
#define SVMTUNE_IOC_GET_PROCESS_POLICY \
	_IOWR(SVMTUNE_IOC_MAGIC, 0x04, struct svmtune_process_policy)

/**
 * struct svmtune_counters - what the policy engine counted
 * @gpu_faults: device page faults the engine decided
 * @cpu_faults: CPU faults on device memory the engine decided
 * @pages_to_device: pages migrated from system memory to a device
 * @pages_to_system: pages migrated from a device to system memory
 * @bytes_to_device: bytes migrated to a device
 * @bytes_to_system: bytes migrated to system memory
 * @remote_pages: pages a device mapped where they were, without migrating
 * @waste_pages: pages migrated to a device that left it again without the
 *	device having touched them
 * @fallback_pages: pages that were to migrate to a device but could not
 *	(device memory full, page busy) and were mapped remotely instead
 * @window_pages: sum over decisions of the window size in pages
 * @thrashing_events: faults that reversed a recent migration of the same
 *	pages (a CPU fault on pages a device fault just migrated, or the
 *	other way round), within ``thrashing_lapse_us``
 * @thrashing_detected: times a 64 KiB chunk reached ``thrashing_threshold``
 *	such events; the ``thrashing`` knob says what follows (throttle,
 *	pin: struct svmtune_mitigations)
 * @prefetch_pages: pages that density prefetch added to a device fault's
 *	window and that moved to the device
 * @prefetch_used: of those, pages the device then used (the backend
 *	reports a device's first access to a page it migrated; a backend
 *	that cannot see accesses, like KFD, reports none)
 * @tlb_hits: device TLB lookups that hit, from backends that model or
 *	read their TLB (the emulated GPU); KFD reports none
 * @tlb_misses: device TLB lookups that needed a page walk
 */
struct svmtune_counters {
	__u64 gpu_faults;
	__u64 cpu_faults;
	__u64 pages_to_device;
	__u64 pages_to_system;
	__u64 bytes_to_device;
	__u64 bytes_to_system;
	__u64 remote_pages;
	__u64 waste_pages;
	__u64 fallback_pages;
	__u64 window_pages;
	__u64 thrashing_events;
	__u64 thrashing_detected;
	__u64 prefetch_pages;
	__u64 prefetch_used;
	__u64 tlb_hits;
	__u64 tlb_misses;
};

/**
 * struct svmtune_mitigations - what the engine did about thrashing and
 *	full devices (since 0.3)
 * @thrashing_throttles: throttle periods started: faults on a thrashing
 *	64 KiB chunk wait ``thrashing_throttle_us`` before they are served
 * @thrashing_pins: chunks pinned to system memory, devices mapping them
 *	remotely, for ``thrashing_pin_ms``
 * @thrashing_unpins: pinned chunks whose pin ended: their remote mappings
 *	were torn down, so the next device access faults and may migrate
 * @evicted_pages: pages a backend moved from a full device's memory to
 *	system memory to make room for a fault
 * @reserved: zero
 */
struct svmtune_mitigations {
	__u64 thrashing_throttles;
	__u64 thrashing_pins;
	__u64 thrashing_unpins;
	__u64 evicted_pages;
	__u64 reserved[4];
};

#define SVMTUNE_STATS_DEVICE	1	/* @id is a device id */
#define SVMTUNE_STATS_PROCESS	2	/* @id is a pid, 0 for the caller */
#define SVMTUNE_STATS_RANGE	3	/* @id is a pid, @addr inside the range */

/**
 * struct svmtune_stats - argument of %SVMTUNE_IOC_GET_STATS
 * @scope: in: SVMTUNE_STATS_*
 * @id: in: device id or pid, as @scope says
 * @addr: in (RANGE): an address inside the policy range; must be zero
 *	otherwise
 * @flags: in: must be zero
 * @reserved0: must be zero
 * @range_start: out (RANGE): start of the policy range
 * @range_end: out (RANGE): end of the policy range
 * @counters: out
 * @reserved: must be zero
 * @mitigations: out (since 0.3)
 */
struct svmtune_stats {
	__u32 scope;
	__u32 id;
	__u64 addr;
	__u32 flags;
	__u32 reserved0;
	__u64 range_start;
	__u64 range_end;
	struct svmtune_counters counters;
	__u64 reserved[2];
	struct svmtune_mitigations mitigations;
};

#define SVMTUNE_IOC_GET_STATS	_IOWR(SVMTUNE_IOC_MAGIC, 0x05, struct svmtune_stats)

/**
 * struct svmtune_device_info - argument of %SVMTUNE_IOC_GET_DEVICE
 * @id: in: device id, 1 to %SVMTUNE_LOC_MAX_DEVICE
 * @flags: in: must be zero
 * @name: out: the backend's name for the device, NUL-terminated
 * @mem_bytes: out: device memory size
 * @mem_free_bytes: out: device memory not in use
 * @reserved: must be zero
 */
struct svmtune_device_info {
	__u32 id;
	__u32 flags;
	char name[32];
	__u64 mem_bytes;
	__u64 mem_free_bytes;
	__u64 reserved[4];
};

#define SVMTUNE_IOC_GET_DEVICE	_IOWR(SVMTUNE_IOC_MAGIC, 0x06, struct svmtune_device_info)

#endif /* _UAPI_LINUX_SVMTUNE_H */
