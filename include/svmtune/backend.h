/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune: the interface between the policy engine (svmtune.ko) and the
 * backends that own the mechanism (svmtune_emu.ko, svmtune_kfd.ko). The
 * engine never calls into memory management on a backend's behalf.
 */

/**
 * DOC: Fault flow
 *
 * This header is the only door between policy and
 * mechanism. A backend:
 *
 * 1. registers each device with ``svmtune_device_register()`` (the engine
 *    gives it an id, 1 to 64, usable as a preferred location);
 * 2. calls ``svmtune_mm_attach(mm)`` when a context binds to an address
 *    space, so the engine keeps per-process state for it (the state lives
 *    until the address space is torn down; ``svmtune_mm_attached(mm)``, which
 *    never sleeps, says whether it exists);
 * 3. on every fault, fills a ``struct svmtune_fault`` (device or CPU fault,
 *    address, the limits the window must stay in: the VMA; ``fixed`` when
 *    the mechanism moves those limits whatever the window) and calls
 *    ``svmtune_decide()`` (``svmtune_decide_atomic()`` from a context that
 *    cannot sleep: it allocates with ``GFP_NOWAIT`` and decides without range
 *    state if that fails), which answers a ``struct svmtune_decision``: the
 *    window ``[start, end)``, the granularity it was cut from, the action
 *    (migrate to ``dest``, or map remotely); a backend's pass-through mode,
 *    the baseline the engine is measured against, asks
 *    ``svmtune_decide_fixed()`` instead: the window cut as the engine cuts
 *    its own, with no policy, state or knob read and nothing recorded;
 * 4. migrates and maps what the decision says, then reports what moved with
 *    one ``svmtune_account()`` (counts, and the run of pages that moved,
 *    ``moved_start`` to ``moved_end``; further runs with
 *    ``svmtune_note_resident()``); pages that leave a device without the
 *    device having touched them are reported with
 *    ``svmtune_account_waste()``;
 * 5. where it sees them, reports what the device's accesses showed (TLB
 *    lookups, the first use of pages that arrived) with
 *    ``svmtune_note_access()``, batched, and before the device's next fault.
 *
 * One state look-up and one lock round per call: a 4 KiB device fault on
 * the emulated GPU costs the engine three calls (decide, account, the
 * access report), each one look-up of the address space's state.
 *
 * So a fault flows one way: backend fault, engine decision, backend migrates
 * or maps, engine statistics.
 */
#ifndef _SVMTUNE_BACKEND_H
#define _SVMTUNE_BACKEND_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/svmtune.h>

struct mm_struct;
struct module;
struct svmtune_device;

/**
 * struct svmtune_device_ops - what the engine may ask of a backend
 * @mem_info: report device memory size and free bytes (may be NULL). Called
 *	in process context under the engine's device registry mutex (so the
 *	device is not unregistered meanwhile) and no other engine lock; it
 *	may take spinlocks of its own but must not call back into the
 *	registry (svmtune_device_register() and friends).
 * @unmap_remote: drop the device's remote mappings (of pages not in its
 *	memory) of [start, end) in @mm, so that its next access there faults
 *	and asks the engine again; faults in flight over the span must ask
 *	again too. The engine calls it when a thrashing pin ends. May be
 *	NULL (the pin then lapses at the next invalidation of the pages).
 *	Called from a workqueue, may sleep, no engine locks held; @mm has a
 *	reference on its users.
 */
struct svmtune_device_ops {
	void (*mem_info)(struct svmtune_device *dev, u64 *total, u64 *free);
	void (*unmap_remote)(struct svmtune_device *dev, struct mm_struct *mm,
			     unsigned long start, unsigned long end);
};

/*
 * Indexes of struct svmtune_device.counters, in struct svmtune_counters
 * order, then struct svmtune_mitigations order.
 */
enum svmtune_counter {
	SVMTUNE_CNT_GPU_FAULTS,
	SVMTUNE_CNT_CPU_FAULTS,
	SVMTUNE_CNT_PAGES_TO_DEVICE,
	SVMTUNE_CNT_PAGES_TO_SYSTEM,
	SVMTUNE_CNT_REMOTE_PAGES,
	SVMTUNE_CNT_WASTE_PAGES,
	SVMTUNE_CNT_FALLBACK_PAGES,
	SVMTUNE_CNT_WINDOW_PAGES,
	SVMTUNE_CNT_THRASHING_EVENTS,
	SVMTUNE_CNT_THRASHING_DETECTED,
	SVMTUNE_CNT_PREFETCH_PAGES,
	SVMTUNE_CNT_PREFETCH_USED,
	SVMTUNE_CNT_TLB_HITS,
	SVMTUNE_CNT_TLB_MISSES,
	/* struct svmtune_mitigations */
	SVMTUNE_CNT_THROTTLES,
	SVMTUNE_CNT_PINS,
	SVMTUNE_CNT_UNPINS,
	SVMTUNE_CNT_EVICTED_PAGES,
	SVMTUNE_NR_COUNTERS,
};

/* PTE fragment sizes a histogram tells apart: 4 KiB << 0..31 (amdgpu's 5 bits). */
#define SVMTUNE_NR_FRAGMENT_SIZES	32

/**
 * struct svmtune_device_stats - what happened on a device, one CPU's share
 * @counters: SVMTUNE_CNT_* events and pages
 * @fragment_pages: 4 KiB pages the device mapped with a PTE fragment of
 *	4 KiB << i, as the backend reports (svmtune_account_fragments())
 */
struct svmtune_device_stats {
	u64 counters[SVMTUNE_NR_COUNTERS];
	u64 fragment_pages[SVMTUNE_NR_FRAGMENT_SIZES];
};

/**
 * struct svmtune_device - one device as the engine knows it
 * @name: set by the backend before registering; shown to user space
 * @owner: the backend module
 * @ops: backend callbacks
 * @reports_use: set by the backend if it reports, with
 *	svmtune_note_access(), the device's first access to each page it
 *	migrated (&svmtune_access.used_start). Without
 *	it, density prefetch cannot tell used prefetched pages from unused
 *	ones and counts them all as on the device.
 * @throttles: set by the backend if it honours &svmtune_decision.throttle_ns
 *	(it can make a fault wait where it decides). Without it the engine
 *	never throttles the device's faults: thrashing "remote" pins at the
 *	first detection, "throttle" only detects.
 * @caps_fragments: set by the backend if it limits the PTE fragments it
 *	maps to &svmtune_decision.fragment_cap itself. Without it the engine
 *	keeps each device fault's window within one aligned block of the cap
 *	(a page-table update never forms a fragment larger than itself).
 * @id: assigned by svmtune_device_register(), 1 to %SVMTUNE_LOC_MAX_DEVICE
 *
 * The members after @id are the engine's alone; a backend never reads or
 * writes them.
 */
struct svmtune_device {
	/* public: set by the backend before svmtune_device_register() */
	const char *name;
	struct module *owner;
	const struct svmtune_device_ops *ops;
	bool reports_use;
	bool throttles;
	bool caps_fragments;
	/* public: read-only for the backend, set by the engine */
	u32 id;
	/* private: the engine's alone */
	/*
	 * What happened on this device, per CPU (a fault adds to a few
	 * counters; a shared atomic each would cost the fault path more
	 * than the rest of the engine's bookkeeping).
	 */
	struct svmtune_device_stats __percpu *stats;
	/* On the engine's device list. */
	struct list_head node;
	/* Protects @lru. */
	spinlock_t lru_lock;
	/*
	 * 2 MiB blocks with pages in this device's memory, least recently
	 * migrated or used first (svmtune_evict_victim()).
	 */
	struct list_head lru;
};

int svmtune_device_register(struct svmtune_device *dev);
void svmtune_device_unregister(struct svmtune_device *dev);

/**
 * enum svmtune_fault_type - who faulted
 * @SVMTUNE_FAULT_DEVICE: a device touched memory it has not mapped
 * @SVMTUNE_FAULT_CPU: the CPU touched a page that lives in device memory
 */
enum svmtune_fault_type {
	SVMTUNE_FAULT_DEVICE,
	SVMTUNE_FAULT_CPU,
};

/**
 * struct svmtune_fault - a fault, as the backend describes it
 * @type: device or CPU fault
 * @addr: the faulting address
 * @lo: lowest address the window may start at (the VMA start, or tighter)
 * @hi: end the window may not cross (the VMA end, or tighter)
 * @write: the access was a write
 * @fixed: the backend moves [@lo, @hi) whatever the window (KFD 6.1, which
 *	migrates whole ranges): the engine decides only the action and the
 *	destination, answers the window [@lo, @hi), and keeps no adaptive or
 *	thrashing state for the fault, since its windows do not apply
 * @retried: the backend asks again for a fault it was told to delay
 *	(&svmtune_decision.throttle_ns): not counted or throttled again
 */
struct svmtune_fault {
	enum svmtune_fault_type type;
	unsigned long addr;
	unsigned long lo;
	unsigned long hi;
	bool write;
	bool fixed;
	bool retried;
};

/**
 * enum svmtune_action - what to do with the window
 * @SVMTUNE_MIGRATE: migrate the window to @dest, then map it
 * @SVMTUNE_MAP_REMOTE: map the window where it is; migrate nothing
 */
enum svmtune_action {
	SVMTUNE_MIGRATE,
	SVMTUNE_MAP_REMOTE,
};

/**
 * struct svmtune_decision - the engine's answer to a fault
 * @action: migrate or map remotely
 * @dest: where the pages go: %SVMTUNE_LOC_SYSTEM or a device id
 * @start: first byte of the window, page-aligned, <= fault address
 * @end: end of the window, page-aligned, > fault address
 * @fault_start: start of the part of the window the fault itself needs;
 *	[@start, @end) is wider than [@fault_start, @fault_end) only when
 *	density prefetch added pages around it
 * @fault_end: its end
 * @granularity: log2 of the block size the window was cut from
 * @throttle_ns: nonzero when the pages are thrashing and the engine
 *	throttles them: the backend delays the fault this long before it
 *	serves it (a device fault: then asks again, with
 *	&svmtune_fault.retried set; a CPU fault: then serves this decision).
 *	A backend that cannot wait where it decides (svmtune_kfd's probe)
 *	serves the fault at once.
 * @fragment: the fragment size in effect at the fault, log2 bytes: the
 *	backend gives the pages of each aligned block of this size that
 *	migrate to a device contiguous device memory in address order,
 *	where it can (12: no such layout)
 * @fragment_cap: the largest PTE fragment the backend may map, log2 bytes
 *	(see &svmtune_device.caps_fragments)
 */
struct svmtune_decision {
	enum svmtune_action action;
	u32 dest;
	unsigned long start;
	unsigned long end;
	unsigned long fault_start;
	unsigned long fault_end;
	unsigned int granularity;
	u64 throttle_ns;
	unsigned int fragment;
	unsigned int fragment_cap;
};

/**
 * struct svmtune_result - what the backend did with a decision
 * @to_device: pages migrated to the device
 * @to_system: pages migrated to system memory
 * @remote: pages mapped remotely
 * @fallback: pages meant to migrate that were mapped remotely instead
 * @moved_start: first byte of a run of pages that moved to @moved_loc,
 *	page-aligned: svmtune_account() records it as svmtune_note_resident()
 *	would, under the same look-up (a fault's moves are one run, mostly,
 *	and this saves the engine a second visit per fault)
 * @moved_end: its end; equal to @moved_start when there is no such run
 *	(other runs go to svmtune_note_resident())
 * @moved_loc: where the run went: the accounting device's id, or
 *	%SVMTUNE_LOC_SYSTEM
 */
struct svmtune_result {
	unsigned long to_device;
	unsigned long to_system;
	unsigned long remote;
	unsigned long fallback;
	unsigned long moved_start;
	unsigned long moved_end;
	u32 moved_loc;
};

/**
 * struct svmtune_access - what a device's accesses showed, since the last
 *	report, for svmtune_note_access()
 * @addr: an address of the accesses, for the range counters of the TLB
 *	lookups
 * @tlb_hits: device TLB lookups served from the TLB
 * @tlb_misses: lookups that needed a page walk
 * @used_start: first byte of a run of pages the device used for the first
 *	time since they arrived in its memory (what an access bit would say)
 * @used_end: its end; equal to @used_start when there is none
 */
struct svmtune_access {
	unsigned long addr;
	u64 tlb_hits;
	u64 tlb_misses;
	unsigned long used_start;
	unsigned long used_end;
};

int svmtune_mm_attach(struct mm_struct *mm);
bool svmtune_mm_attached(struct mm_struct *mm);
void svmtune_decide(struct svmtune_device *dev, struct mm_struct *mm,
		    const struct svmtune_fault *fault,
		    struct svmtune_decision *decision);
void svmtune_decide_atomic(struct svmtune_device *dev, struct mm_struct *mm,
			   const struct svmtune_fault *fault,
			   struct svmtune_decision *decision);
void svmtune_decide_fixed(const struct svmtune_device *dev,
			  const struct svmtune_fault *fault, unsigned int shift,
			  struct svmtune_decision *decision);
void svmtune_account(struct svmtune_device *dev, struct mm_struct *mm,
		     const struct svmtune_fault *fault,
		     const struct svmtune_decision *decision,
		     const struct svmtune_result *result);
void svmtune_account_waste(struct svmtune_device *dev, struct mm_struct *mm,
			   unsigned long addr, unsigned long npages);
void svmtune_note_resident(struct svmtune_device *dev, struct mm_struct *mm,
			   const struct svmtune_decision *decision,
			   unsigned long start, unsigned long end, u32 loc);
void svmtune_note_access(struct svmtune_device *dev, struct mm_struct *mm,
			 const struct svmtune_access *access);
void svmtune_account_fragments(struct svmtune_device *dev, unsigned int shift,
				unsigned long npages);
void svmtune_account_evicted(struct svmtune_device *dev, struct mm_struct *mm,
			     unsigned long start, unsigned long end,
			     unsigned long npages);

/**
 * struct svmtune_evict - a block of device memory to give up
 * @mm: its address space, with a reference on its users: mmput() it
 * @start: first byte
 * @end: end
 */
struct svmtune_evict {
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
};

bool svmtune_evict_victim(struct svmtune_device *dev, struct mm_struct *mm,
			  unsigned long start, unsigned long end,
			  struct svmtune_evict *victim);
unsigned int svmtune_default_granularity(struct mm_struct *mm);
unsigned int svmtune_fragment_size_at(struct mm_struct *mm, unsigned long addr);

/**
 * struct svmtune_explicit_policy - the policy a process set for an address
 * @granularity: log2 bytes, or %SVMTUNE_GRANULARITY_UNSET
 * @preferred_loc: %SVMTUNE_LOC_SYSTEM, a device id, or %SVMTUNE_LOC_UNSET
 * @access: %SVMTUNE_ACCESS_REMOTE or %SVMTUNE_ACCESS_READ_MOSTLY, else
 *	%SVMTUNE_ACCESS_UNSET (migrating is every driver's default)
 *
 * Field by field the range's setting, else the process default; global
 * defaults are not included.
 */
struct svmtune_explicit_policy {
	u32 granularity;
	u32 preferred_loc;
	u32 access;
};

void svmtune_explicit_policy(struct mm_struct *mm, unsigned long addr,
			     struct svmtune_explicit_policy *pol);

struct kobject;
struct kobject *svmtune_sysfs_dir(void);

int svmtune_parse_uint(const char *buf, unsigned int min, unsigned int max,
		       unsigned int *val);
int svmtune_parse_size_shift(const char *buf, unsigned int *shift);

#endif /* _SVMTUNE_BACKEND_H */
