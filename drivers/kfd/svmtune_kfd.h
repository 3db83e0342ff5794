/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune_kfd: declarations shared by the files of svmtune_kfd.ko.
 */
#ifndef _SVMTUNE_KFD_H
#define _SVMTUNE_KFD_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <svmtune/backend.h>

#include "svmtune_kfd_compat.h"

struct kobject;
struct module;
struct tracepoint;

/* What svmtune_kfd counts; shown in /sys/kernel/svmtune/kfd/stats. */
enum svmtune_kfd_stat {
	SVMTUNE_KFD_GPU_FAULTS,
	SVMTUNE_KFD_CPU_FAULTS,
	SVMTUNE_KFD_UNTRACKED_FAULTS,
	SVMTUNE_KFD_DECISIONS,
	SVMTUNE_KFD_WINDOWS_CHANGED,
	SVMTUNE_KFD_MIGRATIONS_DECLINED,
	SVMTUNE_KFD_DECLINES_SKIPPED_IN_VRAM,
	SVMTUNE_KFD_TO_VRAM_CALLS,
	SVMTUNE_KFD_TO_VRAM_PAGES,
	SVMTUNE_KFD_TO_RAM_CALLS,
	SVMTUNE_KFD_TO_RAM_PAGES,
	SVMTUNE_KFD_DEFAULT_GRANULARITY_SET,
	SVMTUNE_KFD_GRANULARITY_KEPT,
	SVMTUNE_KFD_RANGES_GIVEN_POLICY,
	SVMTUNE_KFD_RETRY_FILTER_PASSED,
	SVMTUNE_KFD_RETRY_FILTER_DUPLICATES,
	SVMTUNE_KFD_RETRY_FILTER_EARLY_DROPS,
	SVMTUNE_KFD_RETRY_FILTER_UNKNOWN,
	SVMTUNE_KFD_PROCESSES_ATTACHED,
	SVMTUNE_KFD_ATTACH_FAILED,
	SVMTUNE_KFD_ATTACH_DROPPED,
	SVMTUNE_KFD_CPU_FAULTS_NOT_MIGRATED,
	SVMTUNE_KFD_FAULTS_ON_UNKNOWN_NODES,
	SVMTUNE_KFD_CONTIGUOUS_REQUESTED,
	SVMTUNE_KFD_REMOTE_PAGES_DIRTIED,
	SVMTUNE_KFD_VRAM_PAGES_DIRTIED,
	SVMTUNE_KFD_VRAM_COUNT_FIXED,
	SVMTUNE_KFD_VRAM_COUNT_UNFIXED,
	SVMTUNE_KFD_VRAM_EVICT_STAYED,
	SVMTUNE_KFD_CPU_FAULTS_MIGRATED,
	SVMTUNE_KFD_CPU_FAULT_LOCK_WAIT_NS,
	SVMTUNE_KFD_NR_STATS,
};

/* Number of PTE fragment sizes amdgpu encodes (5 bits). */
#define SVMTUNE_KFD_NR_FRAGMENTS	32

/**
 * enum svmtune_kfd_state - where svmtune_kfd stands with amdgpu
 * @SVMTUNE_KFD_WAITING: amdgpu is not loaded; attach when it is
 * @SVMTUNE_KFD_ATTACHED: hooked into the loaded amdgpu
 * @SVMTUNE_KFD_REFUSED: the loaded amdgpu is not the one built against
 * @SVMTUNE_KFD_FAILED: it matched, but a hook could not be registered
 */
enum svmtune_kfd_state {
	SVMTUNE_KFD_WAITING,
	SVMTUNE_KFD_ATTACHED,
	SVMTUNE_KFD_REFUSED,
	SVMTUNE_KFD_FAILED,
};

#define SVMTUNE_KFD_FAULT_BITS		6

/**
 * struct svmtune_kfd_fault_bucket - the faults and KFD migrations of the
 *	tasks hashed here
 * @lock: covers the four lists
 * @cpu: CPU faults
 * @gpu: GPU faults
 * @mig_ram: KFD migrations to system memory in flight
 *	(svm_migrate_vram_to_ram(), svmtune_kfd_count.c)
 * @mig_vram: KFD migrations to VRAM in flight (svm_migrate_to_vram())
 */
struct svmtune_kfd_fault_bucket {
	spinlock_t lock;
	struct hlist_head cpu;
	struct hlist_head gpu;
	struct hlist_head mig_ram;
	struct hlist_head mig_vram;
} ____cacheline_aligned_in_smp;

#define SVMTUNE_KFD_WINDOWS		1024

/*
 * The block a GPU fault's page is looked up by at the entry of
 * svm_range_restore_pages() (svmtune_kfd_filter.c): 2 MiB, KFD's default
 * granularity, so that every window of a GPU fault at it or below lies in
 * one block.
 */
#define SVMTUNE_KFD_WINDOW_BLOCK_SHIFT	(21 - PAGE_SHIFT)

/*
 * How long a window mapped is looked at by the retry filter: far longer
 * than a fault waits in the ring (microseconds; tens of milliseconds under
 * a storm of waves on the test bed), far shorter than the IH timestamps'
 * 48-bit wrap (amdgpu_ih_ts_after() compares modulo 2^48: 2^47 ticks of
 * the 100 MHz clock are 16 days, after which an old checkpoint would look
 * newer than every fault). Also bounds what a clock restarted by a GPU
 * reset can cost: faults dropped for at most this long.
 */
#define SVMTUNE_KFD_WINDOW_LIFE		HZ

/**
 * struct svmtune_kfd_window - a window mapped for a GPU
 * @node: in svmtune_kfd.window_hash, by @prange, while @prange is set
 * @fault_node: in svmtune_kfd.window_fault_hash, by @adev, @pasid and
 *	block, if @fault_hashed
 * @prange: the range (a key only)
 * @adev: the GPU it was mapped for (a key only)
 * @start: its first page
 * @last: its last page
 * @checkpoint: the GPU's newest fault-ring timestamp when the map was done
 * @mapped_at: jiffies then: a window older than SVMTUNE_KFD_WINDOW_LIFE
 *	is not looked at
 * @pasid: the PASID of the GPU fault that mapped it (a key only), if
 *	@fault_hashed
 * @fault_hashed: mapped by a GPU fault, within one block: in
 *	svmtune_kfd.window_fault_hash too
 */
struct svmtune_kfd_window {
	struct hlist_node node;
	struct hlist_node fault_node;
	const struct svm_range *prange;
	const struct amdgpu_device *adev;
	unsigned long start;
	unsigned long last;
	u64 checkpoint;
	unsigned long mapped_at;
	u32 pasid;
	bool fault_hashed;
};

/*
 * The most nodes one attach learns: the engine's own device id limit
 * (eight MI300X in CPX mode are 64 nodes). Past it, or past free engine
 * ids, a node is listed without a device and its faults are KFD's alone.
 */
#define SVMTUNE_KFD_MAX_NODES	SVMTUNE_LOC_MAX_DEVICE

/**
 * struct svmtune_kfd_node_slot - a KFD node svmtune_kfd learned
 * @info: what was copied of the node when it was learned or added
 * @present: KFD has the node; under svmtune_kfd.nodes_lock
 * @registered: @dev is registered with the engine
 * @failed: registering @dev failed (no engine id free); not tried again
 * @name: @dev's name
 * @dev: the engine's device for the node
 *
 * @info.gpu_id never changes while attached; @info.adev is NULL while the
 * node is absent.
 */
struct svmtune_kfd_node_slot {
	struct svmtune_kfd_node_info info;
	bool present;
	bool registered;
	bool failed;
	char name[32];
	struct svmtune_device dev;
};

#define SVMTUNE_KFD_ATTACH_SLOTS	32

/* The longest amdgpu_srcversion: modpost's digest, uppercase hex. */
#define SVMTUNE_KFD_SRCVERSION_MAX	32

/**
 * struct svmtune_kfd - svmtune_kfd's state, all of it
 * @lock: serialises attach, detach and the sysfs readers of the state
 *	(see DOC: Locking in svmtune_kfd_main.c)
 * @state: where svmtune_kfd stands with amdgpu; under @lock
 * @exiting: set at unload: the module notifier attaches no more; under @lock
 * @reason: why @state is what it is, shown in sysfs; under @lock
 * @amdgpu: the amdgpu hooked into, NULL when not attached; under @lock
 * @major: the KFD interface version @amdgpu reported; under @lock
 * @minor: likewise
 * @attach_count: attaches since load; under @lock
 * @generation: counts attach attempts; written under @lock and
 *	@refuse_lock, read under either
 * @amdgpu_srcversion: the module parameter amdgpu_srcversion, the
 *	srcversion of an out-of-tree amdgpu svmtune_kfd may attach to (empty:
 *	the in-tree amdgpu only); written only at load (the parameter is
 *	read-only in sysfs), read under @lock
 * @kobj: /sys/kernel/svmtune/kfd/; set at load, put at unload
 * @refuse_lock: protects @refuse_gen and @refuse_why, and orders the
 *	writes of @refused (spinlock, IRQ-safe: hooks refuse in atomic
 *	context)
 * @refused: a run-time check failed: no hook acts; written under
 *	@refuse_lock, read without a lock (READ_ONCE()) by every hook
 * @refuse_gen: the @generation the refusal was found in; under @refuse_lock
 * @refuse_why: why; under @refuse_lock
 * @refuse_work: detaches after a refusal, under @lock
 * @stats: what svmtune_kfd counts (enum svmtune_kfd_stat); atomics
 * @fragment_ptes: PTEs amdgpu mapped, by fragment size; atomics
 * @filter_per_window: the retry filter judges per window mapped (true) or
 *	per range, as KFD does (false); a sysfs knob, written and read with
 *	WRITE_ONCE() and READ_ONCE(), no lock
 * @contiguous_vram: KFD's SVM BOs are created asking amdgpu for contiguous
 *	VRAM; a sysfs knob, like @filter_per_window
 * @vram_node_new_start: where svm_range_vram_node_new() starts in
 *	@amdgpu's text; set under @lock at attach before the hooks that read
 *	it are registered, unchanged while they are
 * @vram_node_new_end: where it ends; likewise
 * @tp: amdgpu's amdgpu_vm_update_ptes tracepoint, or NULL; set at attach
 *	under @lock (by the tracepoint module notifier it registers there)
 * @tp_owner: the module @tp is looked for in; set under @lock at attach
 * @tp_on: @tp is probed; under @lock
 * @amdgpu_granularity: @amdgpu's svm_default_granularity parameter, or
 *	NULL; set under @lock at attach before the hooks that read it are
 *	registered, unchanged while they are
 * @fault_buckets: the faults in flight, by task (svmtune_kfd_fault.c);
 *	each bucket under its own lock, made afresh at attach and detach
 *	while no hook is registered
 * @nr_faults: how many are in flight; atomic
 * @nr_migs: KFD migrations in flight in @fault_buckets; atomic
 * @windows: the pool of windows mapped (the retry filter,
 *	svmtune_kfd_filter.c); under @window_lock
 * @window_hash: @windows in use, by range; under @window_lock
 * @window_fault_hash: @windows a GPU fault mapped within one block, by
 *	GPU, PASID and block; under @window_lock
 * @window_next: the next slot of @windows to reuse; under @window_lock
 * @window_lock: see DOC: Locking in svmtune_kfd_filter.c
 * @nodes: the KFD nodes learned (svmtune_kfd_nodes.c); a slot's fields
 *	as struct svmtune_kfd_node_slot says, the first @nr_nodes filled
 * @nr_nodes: slots of @nodes filled; written under @nodes_lock with
 *	smp_store_release(), read without a lock with smp_load_acquire()
 * @nodes_frozen: detaching: nothing is learned or added any more; under
 *	@nodes_lock
 * @nodes_lock: see DOC: Locking in svmtune_kfd_nodes.c
 * @nodes_work: registers the engine devices of nodes learned in atomic
 *	context
 * @attach_mms: address spaces parked for @attach_work
 *	(svmtune_kfd_process.c); under @attach_lock
 * @attach_stopping: detaching: @attach_work drops what it finds instead of
 *	attaching it; under @attach_lock
 * @attach_lock: see DOC: Locking in svmtune_kfd_process.c
 * @attach_work: attaches the parked address spaces to the engine
 *
 * One object, svmtune_kfd, defined in svmtune_kfd_main.c and made ready at
 * load (svmtune_kfd_state_init()). What is not in it is constant once
 * registered: the table of hooks, the sysfs attributes, the module
 * notifier's block.
 */
struct svmtune_kfd {
	struct mutex lock;
	enum svmtune_kfd_state state;
	bool exiting;
	char reason[256];
	struct module *amdgpu;
	u32 major;
	u32 minor;
	unsigned long attach_count;
	unsigned long generation;
	char amdgpu_srcversion[SVMTUNE_KFD_SRCVERSION_MAX + 1];
	struct kobject *kobj;

	spinlock_t refuse_lock;
	bool refused;
	unsigned long refuse_gen;
	char refuse_why[256];
	struct work_struct refuse_work;

	atomic64_t stats[SVMTUNE_KFD_NR_STATS];
	atomic64_t fragment_ptes[SVMTUNE_KFD_NR_FRAGMENTS];
	bool filter_per_window;
	bool contiguous_vram;

	unsigned long vram_node_new_start;
	unsigned long vram_node_new_end;
	struct tracepoint *tp;
	struct module *tp_owner;
	bool tp_on;
	const unsigned int *amdgpu_granularity;

	struct svmtune_kfd_fault_bucket fault_buckets[1 << SVMTUNE_KFD_FAULT_BITS];
	atomic_t nr_faults;
	atomic_t nr_migs;

#if SVMTUNE_KFD_HAS_WINDOW
	struct svmtune_kfd_window windows[SVMTUNE_KFD_WINDOWS];
	DECLARE_HASHTABLE(window_hash, 8);
	DECLARE_HASHTABLE(window_fault_hash, 8);
	unsigned int window_next;
	spinlock_t window_lock;
#endif

	struct svmtune_kfd_node_slot nodes[SVMTUNE_KFD_MAX_NODES];
	unsigned int nr_nodes;
	bool nodes_frozen;
	spinlock_t nodes_lock;
	struct work_struct nodes_work;

	struct mm_struct *attach_mms[SVMTUNE_KFD_ATTACH_SLOTS];
	bool attach_stopping;
	spinlock_t attach_lock;
	struct work_struct attach_work;
};

extern struct svmtune_kfd svmtune_kfd;

/* svmtune_kfd_main.c */
void svmtune_kfd_refuse_worker(struct work_struct *work);
bool svmtune_kfd_refusing(void);
__printf(1, 2) void svmtune_kfd_refuse(const char *fmt, ...);

/* svmtune_kfd_hooks.c */
int svmtune_kfd_hooks_attach(struct module *amdgpu, char *why, size_t len);
bool svmtune_kfd_ftrace_usable(char *why, size_t len);
void svmtune_kfd_hooks_detach(void);
ssize_t svmtune_kfd_hooks_show(char *buf);
u64 svmtune_kfd_untracked_faults(void);
int svmtune_kfd_kfd_version(struct module *amdgpu, u32 *major, u32 *minor,
			    char *why, size_t len);

/* svmtune_kfd_nodes.c */
struct amdgpu_device;
struct svmtune_device *svmtune_kfd_node_device(const struct svmtune_kfd_node_info *info);
void svmtune_kfd_node_added(const struct svmtune_kfd_node_info *info);
void svmtune_kfd_node_gone(const struct svmtune_kfd_node_info *info);
struct svmtune_device *svmtune_kfd_node_device_by_adev(const struct amdgpu_device *adev);
void svmtune_kfd_nodes_freeze(void);
void svmtune_kfd_nodes_reset(void);
void svmtune_kfd_nodes_worker(struct work_struct *work);
unsigned int svmtune_kfd_nodes_count(void);
unsigned int svmtune_kfd_nodes_apu(void);
struct dev_pagemap;
bool svmtune_kfd_node_pgmap(const struct dev_pagemap *pgmap);

/* svmtune_kfd_process.c */
void svmtune_kfd_attach_worker(struct work_struct *work);

/* svmtune_kfd_dirty.c */
struct pt_regs;
void svmtune_kfd_update_range_entry(struct pt_regs *regs);
void svmtune_kfd_migrate_pages_entry(struct pt_regs *regs);
ssize_t svmtune_kfd_nodes_show(char *buf);

#endif /* _SVMTUNE_KFD_H */
