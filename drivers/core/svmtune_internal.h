/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune core: declarations shared by the files of svmtune.ko.
 */
#ifndef _SVMTUNE_INTERNAL_H
#define _SVMTUNE_INTERNAL_H

#include <linux/bitmap.h>
#include <linux/hashtable.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mmu_notifier.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/svmtune.h>
#include <linux/svmtune_bpf.h>
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
 * @thrashing: SVMTUNE_THRASH_*
 * @fragment: log2 bytes, or %SVMTUNE_FRAGMENT_UNSET
 */
struct svmtune_policy {
	u8 granularity;
	u8 access;
	u8 thrashing;
	u8 fragment;
	u32 preferred_loc;
};

/**
 * struct svmtune_bpf_data - a program's own storage in a block or a range
 * @serial: the attachment that wrote it last (0: none); another
 *	attachment finds it zeroed
 * @word: the program's bytes, %SVMTUNE_BPF_DATA_SIZE
 *
 * Protected by the owning svmtune_mm's lock, which every callback that
 * reaches it holds.
 */
struct svmtune_bpf_data {
	u64 serial;
	u64 word[SVMTUNE_BPF_DATA_SIZE / sizeof(u64)];
};

/**
 * struct svmtune_adaptive - adaptive granularity state of one block
 * @shift: the window size now, log2 bytes; 0 until the block's first
 *	device fault (which starts it, or continues the block below)
 * @seq: consecutive faults that continued the previous window
 * @sparse: consecutive faults that did not
 * @grown: the window grew on faults that continued it (a stream was here)
 * @next: end of the previous window; a fault there is sequential
 * @last_window: size of the previous window in pages, to judge waste
 */
struct svmtune_adaptive {
	u8 shift;
	u8 seq;
	u8 sparse;
	bool grown;
	unsigned long next;
	unsigned long last_window;
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
 * @ad_sparse: adaptive mode: the smallest window two sparse faults in a
 *	row brought a block of the range to (log2 bytes; 0 none), where the
 *	next block to fault sparsely twice in a row goes at once
 * @bpf: the storage of the program that applies to it
 *	(svmtune_bpf_range_data()); copied when the range is split
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
	u8 ad_sparse;
	struct svmtune_bpf_data bpf;
	u64 counters[SVMTUNE_NR_COUNTERS];
};

/**
 * struct svmtune_owner - the process an address space belongs to, as the
 *	engine saw it when it started keeping state for it
 * @cgrp: its cgroup (v2), referenced; NULL if none could be taken
 * @cgroup_id: cgroup_id() of @cgrp; 0 if none
 * @tgid: the owning process's thread-group id, in the initial namespace
 */
struct svmtune_owner {
	struct cgroup *cgrp;
	u64 cgroup_id;
	pid_t tgid;
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
 * @owner: who the address space belonged to when the state was made
 *	(svmtune_owner_get()); constant, read without @lock
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
	struct svmtune_owner owner;
	struct rcu_head rcu;
};

/* The engine's unit of per-page state: an aligned 2 MiB block. */
#define SVMTUNE_BLOCK_SHIFT	21
#define SVMTUNE_BLOCK_SIZE	(1UL << SVMTUNE_BLOCK_SHIFT)
#define SVMTUNE_BLOCK_PAGES	(SVMTUNE_BLOCK_SIZE >> PAGE_SHIFT)
/* xarray mark of blocks with pinned chunks (svmtune_unpin_work). */
#define SVMTUNE_BLOCK_PINNED	XA_MARK_0

/* Thrashing is tracked per 64 KiB chunk of a block: 32 chunks. */
#define SVMTUNE_THRASH_CHUNK_SHIFT	16
#define SVMTUNE_THRASH_CHUNKS		(1U << (SVMTUNE_BLOCK_SHIFT - SVMTUNE_THRASH_CHUNK_SHIFT))

/**
 * struct svmtune_block_thrash - thrashing state of one block
 * @to_dev: pages a device fault moved to a device, in a chain of such
 *	moves less than thrashing_lapse_us apart that ended at @dev_ns
 * @to_sys: pages a CPU fault took back, likewise, the last at @sys_ns
 * @dev_ns: time of the last device-fault move into the block
 * @sys_ns: time of the last CPU-fault move out of it
 * @event_ns: time of the last reversal; a quiet second resets @events
 *	and @throttles (the epoch)
 * @throttle_until_ns: end of the throttle period of the @throttled chunks
 * @throttled: chunks whose faults are delayed until @throttle_until_ns
 * @pinned: chunks that stay in system memory, mapped remotely by devices,
 *	each until its @pin_until_ms; the block is marked
 *	%SVMTUNE_BLOCK_PINNED in its address space's xarray while any is
 * @pin_dev: the device whose fault pinned them (for its unpin counter)
 * @events: reversals per chunk since the last detection or quiet epoch
 * @throttles: throttle periods per chunk in this epoch
 * @pin_until_ms: per chunk, when its pin ends: svmtune_now_ms() time
 *	(milliseconds, 32 bits: compared as a signed difference)
 * @evict_ns: when a full device last evicted pages of the block, with the
 *	``thrashing`` knob at remote (svmtune_note_evicted()); 0 once a
 *	device fault came back for them (svmtune_thrash_fault())
 * @evict_dev: the device that evicted them
 */
struct svmtune_block_thrash {
	DECLARE_BITMAP(to_dev, SVMTUNE_BLOCK_PAGES);
	DECLARE_BITMAP(to_sys, SVMTUNE_BLOCK_PAGES);
	u64 dev_ns;
	u64 sys_ns;
	u64 event_ns;
	u64 throttle_until_ns;
	u32 throttled;
	u32 pinned;
	u32 pin_dev;
	u8 events[SVMTUNE_THRASH_CHUNKS];
	u8 throttles[SVMTUNE_THRASH_CHUNKS];
	u32 pin_until_ms[SVMTUNE_THRASH_CHUNKS];
	u64 evict_ns;
	u32 evict_dev;
};

/* ktime_get_ns() in milliseconds, truncated: pin deadlines. */
static inline u32 svmtune_ms(u64 ns)
{
	return (u32)div_u64(ns, NSEC_PER_MSEC);
}

/* The chunks of @th pinned still at @now_ms. */
static inline u32 svmtune_pins_live(const struct svmtune_block_thrash *th,
				    u32 now_ms)
{
	u32 live = 0, m = th->pinned;

	while (m) {
		unsigned int c = __ffs(m);

		m &= m - 1;
		if ((s32)(th->pin_until_ms[c] - now_ms) > 0)
			live |= BIT(c);
	}
	return live;
}

/**
 * struct svmtune_block - what the engine knows of one aligned 2 MiB block
 *	of an address space, made at its first device fault or residency
 *	report
 * @resident: pages the backends reported moved to device memory and not
 *	back (a hint: an unmap clears it, nothing else the backends do not
 *	report does)
 * @prefetched: pages density prefetch moved to a device that the device
 *	has not used yet
 * @touched: resident pages the device holding them used since they
 *	arrived (backends that report use, svmtune_note_access()):
 *	what density prefetch and the adaptive policy count as dense
 * @ad: adaptive granularity state
 * @th: thrashing state
 * @bpf: the storage of the program that applies to the address space
 *	(svmtune_bpf_block_data())
 * @loc: the device holding the @resident pages; %SVMTUNE_LOC_UNSET when
 *	none is, or when pages are on two devices (then density counts
 *	nothing for either until they leave)
 * @used: the device used a page of the block since its pages arrived (for
 *	backends that report use); unused blocks are evicted first
 * @lru: on @lru_dev's LRU while pages are resident on that one device
 *	(under @lru_dev->lru_lock, taken inside the svmtune_mm.lock)
 * @lru_dev: the device whose LRU holds it, or NULL
 * @smm: the address space it belongs to
 * @base: its first address
 *
 * Protected by the owning svmtune_mm's lock. About 1.3 bytes per 4 KiB page
 * of the block (checked at build time to stay under 2).
 */
struct svmtune_block {
	DECLARE_BITMAP(resident, SVMTUNE_BLOCK_PAGES);
	DECLARE_BITMAP(prefetched, SVMTUNE_BLOCK_PAGES);
	DECLARE_BITMAP(touched, SVMTUNE_BLOCK_PAGES);
	struct svmtune_adaptive ad;
	struct svmtune_block_thrash th;
	struct svmtune_bpf_data bpf;
	u32 loc;
	bool used;
	struct list_head lru;
	struct svmtune_device *lru_dev;
	struct svmtune_mm *smm;
	unsigned long base;
};

/* A block with no reversal for this long starts counting afresh (the epoch). */
#define SVMTUNE_THRASH_QUIET_NS	NSEC_PER_SEC

/*
 * Whether a block has a chunk thrashing now (a reversal in this epoch, a
 * throttle or a pin running): no prefetch into it. By the clock, since
 * the state is aged only by faults that track thrashing.
 */
static inline bool svmtune_block_thrashing(const struct svmtune_block *blk)
{
	const struct svmtune_block_thrash *th = &blk->th;
	u64 now;

	if (!th->event_ns && !th->throttled && !th->pinned)
		return false;
	now = ktime_get_ns();
	return (th->event_ns && now - th->event_ns <= SVMTUNE_THRASH_QUIET_NS) ||
	       (th->throttled && now < th->throttle_until_ns) ||
	       svmtune_pins_live(th, svmtune_ms(now));
}

/* Set bits of @map in [@first, @first + @n). */
static inline unsigned int svmtune_bits_in(const unsigned long *map,
					   unsigned int first, unsigned int n)
{
	unsigned int i = first, end = first + n, w = 0;

	while (i < end) {
		if (!(i % BITS_PER_LONG) && end - i >= BITS_PER_LONG) {
			w += hweight_long(map[i / BITS_PER_LONG]);
			i += BITS_PER_LONG;
		} else {
			w += test_bit(i, map);
			i++;
		}
	}
	return w;
}

/* svmtune_target.c */
struct mm_struct *svmtune_target_mm(u32 pid);
void svmtune_owner_get(struct svmtune_owner *owner, struct mm_struct *mm);
void svmtune_owner_put(struct svmtune_owner *owner);

/* The block of 2^@shift bytes around @addr, within [@lo, @hi), in @d. */
static inline void svmtune_window_cut(unsigned long addr, unsigned long lo,
				      unsigned long hi, unsigned int shift,
				      struct svmtune_decision *d)
{
	unsigned long base = ALIGN_DOWN(addr, 1UL << shift);

	d->granularity = shift;
	d->start = max(lo, base);
	d->end = min(hi, base + (1UL << shift));
	if (d->end <= addr)	/* the block end overflowed */
		d->end = hi;
}

/* svmtune_bpf.c: the struct_ops type, attachment, kfuncs */
#define SVMTUNE_BPF_MAX_ATTACHED	64
int svmtune_bpf_init_type(void);
bool svmtune_bpf_available(void);
extern const struct attribute_group svmtune_bpf_sysfs_group;
struct svmtune_ops *svmtune_bpf_ops_for(const struct svmtune_mm *smm,
				       u64 *serial);

/* What came of a program's call, for /sys/kernel/svmtune/bpf. */
enum svmtune_bpf_outcome {
	SVMTUNE_BPF_KEPT,	/* no decision, or the built-in one kept */
	SVMTUNE_BPF_REPLACED,	/* the program's decision used */
	SVMTUNE_BPF_REFUSED,	/* the program's decision invalid: not used */
};

void svmtune_bpf_counted(enum svmtune_bpf_outcome outcome);

/**
 * struct svmtune_bpf_fault_kern - a fault callback's context, and what
 *	the kfuncs it may call reach through it
 * @pub: what the program sees (its first argument)
 * @smm: the faulting address space's state, its lock held; or NULL
 * @range: the fault's range, or NULL
 * @serial: the attachment of the program called, for its storage
 */
struct svmtune_bpf_fault_kern {
	struct svmtune_bpf_fault pub;
	struct svmtune_mm *smm;
	struct svmtune_range *range;
	u64 serial;
};

/* The kfuncs, declared for sparse; programs declare them __ksym. */
int svmtune_bpf_block_state(struct svmtune_bpf_fault *fault, u64 addr,
			    struct svmtune_bpf_block *out);
int svmtune_bpf_block_span(struct svmtune_bpf_fault *fault, u64 start,
			   u64 end, struct svmtune_bpf_block *out);
u64 *svmtune_bpf_block_data(struct svmtune_bpf_fault *fault, u64 addr,
			    int rdwr_buf_size);
u64 *svmtune_bpf_range_data(struct svmtune_bpf_fault *fault,
			    int rdwr_buf_size);

/*
 * Whether any program is attached (svmtune_bpf.c): svmtune_bpf_decide(),
 * svmtune_bpf_waste() and svmtune_bpf_moved() below test it; off, and
 * never on, without programmable policy.
 */
DECLARE_STATIC_KEY_FALSE(svmtune_bpf_active);

static inline bool svmtune_bpf_on(void)
{
	return static_branch_unlikely(&svmtune_bpf_active);
}

/* svmtune_bpf_call.c: the engine's calls into an attached program */
bool __svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
			  struct svmtune_range *range,
			  const struct svmtune_block *blk,
			  const struct svmtune_fault *fault, unsigned long lo,
			  unsigned long hi, struct svmtune_decision *d);
void __svmtune_bpf_waste(struct svmtune_device *dev, struct svmtune_mm *smm,
			 struct svmtune_range *range,
			 const struct svmtune_block *blk, unsigned long addr,
			 unsigned long npages);
void __svmtune_bpf_moved(struct svmtune_device *dev, struct svmtune_mm *smm,
			 unsigned long start, unsigned long end, u32 loc,
			 const struct svmtune_decision *decision,
			 unsigned long changed);

/*
 * The fault path's calls: nothing, not even the call, while no program is
 * attached (svmtune_bpf_on()).
 */
static inline bool
svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
		   struct svmtune_range *range, const struct svmtune_block *blk,
		   const struct svmtune_fault *fault, unsigned long lo,
		   unsigned long hi, struct svmtune_decision *d)
{
	return svmtune_bpf_on() &&
	       __svmtune_bpf_decide(dev, smm, range, blk, fault, lo, hi, d);
}

static inline void
svmtune_bpf_waste(struct svmtune_device *dev, struct svmtune_mm *smm,
		  struct svmtune_range *range, const struct svmtune_block *blk,
		  unsigned long addr, unsigned long npages)
{
	if (svmtune_bpf_on())
		__svmtune_bpf_waste(dev, smm, range, blk, addr, npages);
}

static inline void
svmtune_bpf_moved(struct svmtune_device *dev, struct svmtune_mm *smm,
		  unsigned long start, unsigned long end, u32 loc,
		  const struct svmtune_decision *decision, unsigned long changed)
{
	if (svmtune_bpf_on())
		__svmtune_bpf_moved(dev, smm, start, end, loc, decision,
				    changed);
}

void svmtune_bpf_thrashing(struct svmtune_device *dev, struct svmtune_mm *smm,
			   const struct svmtune_fault *fault,
			   unsigned long cstart, unsigned long addr,
			   unsigned int detections,
			   struct svmtune_bpf_thrash_decision *td);
bool svmtune_bpf_evict_wanted(const struct svmtune_mm *smm);
int svmtune_bpf_evict(struct svmtune_device *dev, const struct svmtune_mm *smm,
		      const struct svmtune_block *blk, unsigned int pos);
void svmtune_bpf_proc(struct svmtune_mm *smm, bool attach);

/* svmtune_notifier.c */
int svmtune_notifier_init(void);
void svmtune_notifier_exit(void);
struct svmtune_mm *svmtune_mm_get(struct mm_struct *mm);
void svmtune_mm_forget_device(u32 id);

/* svmtune_mm.c */
int svmtune_mm_init(void);
void svmtune_mm_exit(void);
struct svmtune_mm *svmtune_mm_find(struct mm_struct *mm);
bool svmtune_mm_publish(struct svmtune_mm *smm);
bool svmtune_mm_unhash(struct svmtune_mm *smm);
struct svmtune_mm *svmtune_mm_unhash_any(void);
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
void svmtune_ranges_unmap(struct svmtune_mm *smm, unsigned long start,
			  unsigned long end, struct svmtune_range **freelist);
void svmtune_range_free_list(struct svmtune_range *list);
void svmtune_ranges_free(struct svmtune_mm *smm);
void svmtune_mm_forget_device_locked(struct svmtune_mm *smm, u32 id);
void svmtune_policy_apply(struct svmtune_policy *dst, u32 set,
			  const struct svmtune_policy *src);
void svmtune_policy_device_live(u32 id, bool live);
bool svmtune_policy_names_dead_device(u32 set, const struct svmtune_policy *pol);
bool svmtune_device_id_live(u32 id);

/**
 * struct svmtune_charge - allocations charged to an address space's memcg
 * @memcg: the memory cgroup of the address space's owner (referenced)
 * @old: the active memcg before, restored by svmtune_charge_end()
 */
struct svmtune_charge {
	struct mem_cgroup *memcg;
	struct mem_cgroup *old;
};

void svmtune_charge_begin(struct svmtune_charge *c, struct mm_struct *mm);
void svmtune_charge_end(struct svmtune_charge *c);
/**
 * struct svmtune_mm_walk - a visit of every address space's state
 * @visit: called for each, see svmtune_mm_visit_live()
 */
struct svmtune_mm_walk {
	void (*visit)(struct svmtune_mm *smm, struct svmtune_mm_walk *walk);
};

void svmtune_mm_visit_live(struct svmtune_mm_walk *walk);

/* svmtune_block.c */
int svmtune_block_init(void);
void svmtune_block_exit(void);
struct svmtune_block *svmtune_block_find(struct svmtune_mm *smm,
					 unsigned long addr);
struct svmtune_block *svmtune_block_get(struct svmtune_mm *smm,
					unsigned long addr, gfp_t gfp)
	__must_hold(&smm->lock);
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

/* svmtune_params.c */

/**
 * struct svmtune_params - the global knobs (/sys/kernel/svmtune/)
 * @granularity: fixed window, log2 bytes
 * @adaptive: the adaptive policy instead of @granularity
 * @adaptive_min: smallest adaptive window, log2 bytes
 * @adaptive_max: largest adaptive window, log2 bytes
 * @thrashing: enum svmtune_thrashing_mode
 * @thrashing_threshold: reversals in a row that make a chunk thrash
 * @thrashing_lapse_us: a reversal counts if it follows the last within this
 * @thrashing_pin_ms: how long a chunk stays pinned
 * @thrashing_throttle_us: how long a thrashing fault waits
 * @thrashing_pin_threshold: throttles before a pin (0: pin at once)
 * @prefetch_threshold: density prefetch, percent used; 0 off
 * @evict_when_full: a full device gives up its least recently used blocks
 * @fragment_auto: a block all on one device maps as one fragment
 * @fragment_size: the fragment size where nothing sets one, log2 bytes
 * @fragment_cap: the largest PTE fragment a device may map, log2 bytes
 *
 * Written by sysfs stores under svmtune_knob_lock, in a write section of
 * svmtune_params_seq; read whole by every decision and every accounting
 * (svmtune_params_get()), so a fault sees one set of values, never half of
 * an update. A sysfs show reads one field.
 */
struct svmtune_params {
	unsigned int granularity;
	bool adaptive;
	unsigned int adaptive_min;
	unsigned int adaptive_max;
	unsigned int thrashing;
	unsigned int thrashing_threshold;
	unsigned int thrashing_lapse_us;
	unsigned int thrashing_pin_ms;
	unsigned int thrashing_throttle_us;
	unsigned int thrashing_pin_threshold;
	unsigned int prefetch_threshold;
	unsigned int evict_when_full;
	unsigned int fragment_auto;
	unsigned int fragment_size;
	unsigned int fragment_cap;
};

extern struct svmtune_params svmtune_params;
extern struct mutex svmtune_knob_lock;
void svmtune_params_get(struct svmtune_params *prm);
void svmtune_param_set(unsigned int *field, unsigned int val);
void svmtune_param_set_bool(bool *field, bool val);

/* svmtune_policy.c */

/* What the svmtune_thrashing tracepoint reports. */
#define SVMTUNE_THRASH_TRACE_DETECTED	0
#define SVMTUNE_THRASH_TRACE_THROTTLED	1
#define SVMTUNE_THRASH_TRACE_PINNED	2
#define SVMTUNE_THRASH_TRACE_UNPINNED	3

/* The thrashing knob. */
enum svmtune_thrashing_mode {
	SVMTUNE_THRASHING_OFF,
	SVMTUNE_THRASHING_DETECT,
	SVMTUNE_THRASHING_REMOTE,
	SVMTUNE_THRASHING_THROTTLE,
};

unsigned int svmtune_policy_fragment(const struct svmtune_policy *eff);
unsigned int svmtune_policy_window(struct svmtune_mm *smm, unsigned long addr);
void svmtune_policy_effective(const struct svmtune_mm *smm,
			      const struct svmtune_range *range,
			      struct svmtune_policy *eff);

/* svmtune_device.c */
int svmtune_device_info(u32 id, struct svmtune_device_info *info);
int svmtune_device_counters(u32 id, u64 *counters);
void svmtune_device_counters_sum(u64 *counters);
void svmtune_device_fragments_sum(u64 *pages);
bool svmtune_device_exists(u32 id);
void svmtune_devices_unmap_remote(struct mm_struct *mm, unsigned long start,
				  unsigned long end, u32 counted_id,
				  unsigned int chunks);

/* svmtune_sysfs.c */
int svmtune_sysfs_init(void);
void svmtune_sysfs_exit(void);

/* svmtune_chardev.c */
int svmtune_chardev_init(void);
void svmtune_chardev_exit(void);
void svmtune_counters_to_user(const u64 *counters, struct svmtune_counters *out,
			      struct svmtune_mitigations *mit);

/* svmtune_policy.c */
/* The fragment size of @eff, at most the cap (log2 bytes). */
static inline unsigned int
svmtune_fragment_capped(const struct svmtune_policy *eff,
			const struct svmtune_params *prm)
{
	unsigned int frag = eff->fragment;

	if (frag == SVMTUNE_FRAGMENT_UNSET)
		frag = prm->fragment_size;
	return min(frag, prm->fragment_cap);
}

/* svmtune_params.c */
bool svmtune_blocks_wanted(const struct svmtune_params *prm);

/* svmtune_adaptive.c */
void svmtune_adaptive_dense(const struct svmtune_block *blk,
			    const struct svmtune_device *dev,
			    unsigned long addr, unsigned long lo,
			    unsigned long hi, struct svmtune_decision *d);
void svmtune_adaptive_fault(const struct svmtune_device *dev,
			    struct svmtune_mm *smm,
			    struct svmtune_range *range,
			    struct svmtune_block *blk, unsigned long addr,
			    const struct svmtune_params *prm);
unsigned int svmtune_adaptive_start(const struct svmtune_params *prm);

/* svmtune_thrash.c */
void svmtune_unpin_stop(void);
void svmtune_thrash_remote_window(const struct svmtune_block *blk,
				  unsigned long addr, struct svmtune_decision *d);
void svmtune_thrash_clip(const struct svmtune_block *blk,
			 unsigned long addr, struct svmtune_decision *d);
bool svmtune_thrash_fault(struct svmtune_device *dev,
			  struct svmtune_mm *smm,
			  struct svmtune_range *range,
			  struct svmtune_block *blk,
			  const struct svmtune_params *prm,
			  const struct svmtune_fault *fault,
			  unsigned long addr, u64 now, u64 *throttle_ns);
void svmtune_thrash_record(struct svmtune_block *blk, bool to_system,
			   unsigned int first, unsigned int n, u64 now,
			   const struct svmtune_params *prm);

/* svmtune_prefetch.c */
void svmtune_fragment_clip(unsigned long addr, struct svmtune_decision *d);
void svmtune_fragment_widen(struct svmtune_block *blk,
			    const struct svmtune_device *dev,
			    unsigned long addr, unsigned long lo,
			    unsigned long hi, struct svmtune_decision *d);
void svmtune_prefetch(struct svmtune_block *blk,
		      const struct svmtune_device *dev,
		      unsigned long addr, unsigned long lo,
		      unsigned long hi, struct svmtune_decision *d,
		      unsigned int thr);

/* svmtune_device.c */
void svmtune_count(struct svmtune_device *dev, u64 *mm_counters,
		   u64 *range_counters, enum svmtune_counter c, u64 n);

#endif /* _SVMTUNE_INTERNAL_H */
