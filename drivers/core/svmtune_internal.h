/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune core: declarations shared by the files of svmtune.ko.
 */
#ifndef _SVMTUNE_INTERNAL_H
#define _SVMTUNE_INTERNAL_H

#include <linux/bitmap.h>
#include <linux/hashtable.h>
#include <linux/mmu_notifier.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/svmtune.h>
#include <svmtune/backend.h>

#define SVMTUNE_VERSION_STRING __stringify(SVMTUNE_VERSION_MAJOR) "." \
			       __stringify(SVMTUNE_VERSION_MINOR) "." \
			       __stringify(SVMTUNE_VERSION_PATCH)

/* Most policy ranges one address space may hold. */
#define SVMTUNE_MAX_RANGES	65536

/**
 * struct svmtune_policy - the policy fields of a range or a process
 * @granularity: log2 bytes, or %SVMTUNE_GRANULARITY_UNSET
 * @access: SVMTUNE_ACCESS_*
 * @preferred_loc: SVMTUNE_LOC_*, a device id, or %SVMTUNE_LOC_UNSET
 */
struct svmtune_policy {
	u8 granularity;
	u8 access;
	u32 preferred_loc;
};

/**
 * struct svmtune_adaptive - adaptive granularity state of one block
 * @shift: the window size now, log2 bytes; 0 until the block's first
 *	device fault (which starts it, or continues the block below)
 * @seq: consecutive faults that continued the previous window
 * @sparse: consecutive faults that did not
 * @next: end of the previous window; a fault there is sequential
 * @last_window: size of the previous window in pages, to judge waste
 */
struct svmtune_adaptive {
	u8 shift;
	u8 seq;
	u8 sparse;
	unsigned long next;
	unsigned long last_window;
};

/**
 * struct svmtune_thrash - thrashing state of one range
 * @dev_start: start of the last window a device fault migrated to a device
 * @dev_end: its end
 * @dev_ns: when (ktime_get_ns())
 * @sys_start: start of the last window a CPU fault took back
 * @sys_end: its end
 * @sys_ns: when
 * @event_ns: time of the last reversal
 * @pinned_until_ns: the range maps remotely until then, if mitigating
 * @events: reversals since the range was last quiet
 */
struct svmtune_thrash {
	unsigned long dev_start;
	unsigned long dev_end;
	u64 dev_ns;
	unsigned long sys_start;
	unsigned long sys_end;
	u64 sys_ns;
	u64 event_ns;
	u64 pinned_until_ns;
	u8 events;
};

/**
 * struct svmtune_range - a part of an address space with one policy
 * @node: in svmtune_mm.ranges, ordered by address; ranges never overlap
 * @start: first byte, page-aligned
 * @end: end, page-aligned, > @start
 * @pol: the policy set on it (fields UNSET where nothing was set)
 * @ad_hint: adaptive mode: the window a block of the range last had (log2
 *	bytes; 0 none), where a new block of the range starts, so that a
 *	sparse pattern learnt in one block is not learnt again in each
 * @thrash: thrashing state
 * @counters: what happened in it, SVMTUNE_CNT_* order
 *
 * Protected by the owning svmtune_mm's lock.
 */
struct svmtune_range {
	struct rb_node node;
	unsigned long start;
	unsigned long end;
	struct svmtune_policy pol;
	u8 ad_hint;
	struct svmtune_thrash thrash;
	u64 counters[SVMTUNE_NR_COUNTERS];
};

/**
 * struct svmtune_mm - what the engine keeps about one address space
 * @mn: from mmu_notifier_get(); lives until the address space is torn down
 *	(->release) and an SRCU grace period passed
 * @hnode: in the mm hash table, removed at ->release
 * @mm: the address space (not referenced: valid while @mn is registered)
 * @lock: protects everything below
 * @ranges: the policy ranges, an rbtree ordered by address
 * @nr_ranges: how many
 * @defaults: the process-wide policy
 * @counters: what happened in the whole address space
 * @spare: a preallocated range for the split an unmap may need
 * @blocks: struct svmtune_block by address >> %SVMTUNE_BLOCK_SHIFT. Looked
 *	up, changed and erased under @lock; inserted without it (the
 *	xarray's own lock orders inserts), see svmtune_block.c
 * @dead: set under @lock when the state is unhashed (->release, module
 *	unload): its ranges and blocks may be freed as soon as the lock is
 *	dropped, so a walker that found it under RCU must leave them alone
 * @rcu: frees it once no hash lookup can see it
 */
struct svmtune_mm {
	struct mmu_notifier mn;
	struct hlist_node hnode;
	struct mm_struct *mm;
	spinlock_t lock;
	struct rb_root ranges;
	unsigned long nr_ranges;
	struct svmtune_policy defaults;
	u64 counters[SVMTUNE_NR_COUNTERS];
	struct svmtune_range *spare;
	struct xarray blocks;
	bool dead;
	struct rcu_head rcu;
};

/* The engine's unit of per-page state: an aligned 2 MiB block. */
#define SVMTUNE_BLOCK_SHIFT	21
#define SVMTUNE_BLOCK_SIZE	(1UL << SVMTUNE_BLOCK_SHIFT)
#define SVMTUNE_BLOCK_PAGES	(SVMTUNE_BLOCK_SIZE >> PAGE_SHIFT)

/**
 * struct svmtune_block - what the engine knows of one aligned 2 MiB block
 *	of an address space, made at its first device fault or residency
 *	report
 * @resident: pages the backends reported moved to device memory and not
 *	back (a hint: an unmap clears it, nothing else the backends do not
 *	report does)
 * @prefetched: pages density prefetch moved to a device that the device
 *	has not used yet
 * @ad: adaptive granularity state
 * @loc: the device holding the @resident pages; %SVMTUNE_LOC_UNSET when
 *	none is, or when pages are on two devices (then density counts
 *	nothing for either until they leave)
 * @lru: on @lru_dev's LRU while pages are resident on that one device
 *	(under @lru_dev->lru_lock, taken inside the svmtune_mm.lock)
 * @lru_dev: the device whose LRU holds it, or NULL
 * @smm: the address space it belongs to
 * @base: its first address
 *
 * Protected by the owning svmtune_mm's lock. About 0.4 byte per 4 KiB page
 * of the block (checked at build time to stay under 2).
 */
struct svmtune_block {
	DECLARE_BITMAP(resident, SVMTUNE_BLOCK_PAGES);
	DECLARE_BITMAP(prefetched, SVMTUNE_BLOCK_PAGES);
	struct svmtune_adaptive ad;
	u32 loc;
	struct list_head lru;
	struct svmtune_device *lru_dev;
	struct svmtune_mm *smm;
	unsigned long base;
};

/* svmtune_mm.c */
int svmtune_mm_init(void);
void svmtune_mm_exit(void);
struct svmtune_mm *svmtune_mm_find(struct mm_struct *mm);
struct svmtune_mm *svmtune_mm_get(struct mm_struct *mm);
struct svmtune_range *svmtune_range_find(struct svmtune_mm *smm,
					 unsigned long addr);
struct svmtune_range *svmtune_range_next(struct svmtune_mm *smm,
					 unsigned long addr);
int svmtune_range_set(struct svmtune_mm *smm, unsigned long start,
		      unsigned long end, u32 set,
		      const struct svmtune_policy *pol);
struct svmtune_range *svmtune_range_fill_gap(struct svmtune_mm *smm,
					     unsigned long addr,
					     unsigned long lo,
					     unsigned long hi,
					     struct svmtune_range **prealloc);
struct svmtune_range *svmtune_range_alloc(gfp_t gfp);
void svmtune_range_free(struct svmtune_range *range);
void svmtune_mm_refill_spare(struct svmtune_mm *smm);

/* svmtune_block.c */
int svmtune_block_init(void);
void svmtune_block_exit(void);
struct svmtune_block *svmtune_block_find(struct svmtune_mm *smm,
					 unsigned long addr);
struct svmtune_block *svmtune_block_lock(struct svmtune_mm *smm,
					 unsigned long addr, gfp_t gfp)
	__acquires(&smm->lock);
void svmtune_blocks_unmap(struct svmtune_mm *smm, unsigned long start,
			  unsigned long end);
void svmtune_blocks_free(struct svmtune_mm *smm);
void svmtune_blocks_forget_device(struct svmtune_mm *smm, u32 id);
void svmtune_blocks_leave_lru(struct svmtune_mm *smm);
void svmtune_block_lru_update(struct svmtune_block *blk,
			      struct svmtune_device *dev);
unsigned long svmtune_block_count(void);

/* svmtune_policy.c */
extern unsigned int svmtune_granularity;
extern bool svmtune_adaptive;
extern unsigned int svmtune_adaptive_min;
extern unsigned int svmtune_adaptive_max;
extern struct mutex svmtune_knob_lock;

/* The thrashing knob. */
enum svmtune_thrashing_mode {
	SVMTUNE_THRASHING_OFF,
	SVMTUNE_THRASHING_DETECT,
	SVMTUNE_THRASHING_REMOTE,
};

extern unsigned int svmtune_thrashing;
extern unsigned int svmtune_thrashing_threshold;
extern unsigned int svmtune_thrashing_lapse_us;
extern unsigned int svmtune_thrashing_pin_ms;
extern unsigned int svmtune_prefetch_threshold;
extern unsigned int svmtune_evict_when_full;
extern unsigned int svmtune_fragment_auto;
void svmtune_policy_apply(struct svmtune_policy *dst, u32 set,
			  const struct svmtune_policy *src);
unsigned int svmtune_policy_window(struct svmtune_mm *smm, unsigned long addr);
void svmtune_mm_forget_device(u32 id);
bool svmtune_policy_names_dead_device(u32 set, const struct svmtune_policy *pol);
void svmtune_policy_effective(const struct svmtune_mm *smm,
			      const struct svmtune_range *range,
			      struct svmtune_policy *eff);

/* svmtune_device.c */
bool svmtune_device_live_locked(u32 id);
int svmtune_device_info(u32 id, struct svmtune_device_info *info);
int svmtune_device_counters(u32 id, u64 *counters);
void svmtune_device_counters_sum(u64 *counters);
bool svmtune_device_exists(u32 id);

/* svmtune_sysfs.c */
int svmtune_sysfs_init(void);
void svmtune_sysfs_exit(void);

/* svmtune_chardev.c */
int svmtune_chardev_init(void);
void svmtune_chardev_exit(void);
void svmtune_counters_to_user(const u64 *counters, struct svmtune_counters *out);

#endif /* _SVMTUNE_INTERNAL_H */
