// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: the decisions.
 *
 * For every fault a backend reports, svmtune_decide() picks the window
 * (the granularity-aligned block around the fault, clipped to the limits the
 * backend gave and to the policy range) and the action (migrate, or map
 * remotely). svmtune_account() records what the backend then did.
 *
 * The policy in effect at an address is, field by field, the range's
 * setting, else the process default, else the global default.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>

#include "svmtune_internal.h"

#define CREATE_TRACE_POINTS
#include "svmtune_trace.h"

/* Global defaults, written through sysfs under svmtune_knob_lock. */
unsigned int svmtune_granularity = 21;
bool svmtune_adaptive;
unsigned int svmtune_adaptive_min = 12;
unsigned int svmtune_adaptive_max = 21;
DEFINE_MUTEX(svmtune_knob_lock);

/* Thrashing knobs, written through sysfs. */
unsigned int svmtune_thrashing = SVMTUNE_THRASHING_DETECT;
unsigned int svmtune_thrashing_threshold = 3;
unsigned int svmtune_thrashing_lapse_us = 2000;
unsigned int svmtune_thrashing_pin_ms = 300;
unsigned int svmtune_thrashing_throttle_us = 1000;
unsigned int svmtune_thrashing_pin_threshold = 3;

/* A block with no reversal for this long starts counting afresh (the epoch). */
#define SVMTUNE_THRASH_QUIET_NS	NSEC_PER_SEC

/* Density prefetch threshold, percent; 0 turns prefetch off. */
unsigned int svmtune_prefetch_threshold;

/* Whether a full device gives up its least recently used blocks. */
unsigned int svmtune_evict_when_full = 1;

/*
 * Whether a fragment block all on one device is mapped whole (one
 * fragment).
 */
unsigned int svmtune_fragment_auto;

/*
 * The fragment size where no range or process sets one, log2 bytes: the
 * block whose device memory backends lay out in address order. 2 MiB, as
 * a KFD range's BO is laid out and amdgpu's buddy allocator hands out
 * 2 MiB blocks.
 */
unsigned int svmtune_fragment_size = 21;

/*
 * The largest PTE fragment a device may map, log2 bytes; 30 caps nothing
 * a 2 MiB-block layout can form.
 */
unsigned int svmtune_fragment_cap = 30;

/*
 * Adaptive granularity, per 2 MiB block: a block starts at
 * SVMTUNE_ADAPTIVE_START (clamped to the bounds), or where the block below
 * left off when its first fault continues that block's last window (a
 * stream crossing blocks keeps its size). A fault at the end of the
 * block's previous window, which the device used (as it reports), makes
 * the window SVMTUNE_ADAPTIVE_JUMP steps larger (64 KiB to 512 KiB to
 * 2 MiB: a stream costs three faults in its first block, not eight); where
 * use is unknown (svmtune_kfd), two such faults in a row double it. Two
 * faults in a row elsewhere in the block (sparse access) halve it, or
 * bring it to the smallest window such faults brought a block of the
 * range to; a window of which at least half left the device untouched
 * (waste) halves it too. State per block, not per range, so that streams
 * in different blocks of one range do not break each other's streaks.
 *
 * A block of which the device used SVMTUNE_ADAPTIVE_DENSE_PAGES (1/8) is
 * dense, whatever the order of the faults (dense random access, which no
 * streak detector sees): its next fault migrates the rest of the block.
 * At most seven times the bytes the device used so far move, once, where
 * the pages left would otherwise cost a fault each. Sparse access (one
 * page in sixteen, random or strided) stays below it. On an MI300X the
 * rest of a block costs about 40 us over PCIe 5 x16, against tens of
 * microseconds per GPU fault plus KFD's 2 ms retry filter per range.
 * Only for devices that report use: KFD's cannot tell a used page from
 * one a large window brought.
 */
#define SVMTUNE_ADAPTIVE_START	16
#define SVMTUNE_ADAPTIVE_STREAK	2
#define SVMTUNE_ADAPTIVE_JUMP	3
#define SVMTUNE_ADAPTIVE_DENSE_PAGES	(SVMTUNE_BLOCK_PAGES / 8)

static unsigned int svmtune_adaptive_start(void)
{
	return clamp_t(unsigned int, SVMTUNE_ADAPTIVE_START,
		       READ_ONCE(svmtune_adaptive_min),
		       READ_ONCE(svmtune_adaptive_max));
}

/*
 * Whether new blocks are worth making: only the adaptive policy, density
 * prefetch, eviction (the LRU), fragment "auto" and thrashing read them. With all off
 * a fault makes none, and turning one on later starts from what arrives
 * after.
 */
static bool svmtune_blocks_wanted(void)
{
	return READ_ONCE(svmtune_adaptive) || READ_ONCE(svmtune_prefetch_threshold) ||
	       READ_ONCE(svmtune_evict_when_full) || READ_ONCE(svmtune_fragment_auto) ||
	       READ_ONCE(svmtune_thrashing) != SVMTUNE_THRASHING_OFF;
}

/* Blocks one residency report may make for whole blocks arriving. */
#define SVMTUNE_NOTE_NEW_WHOLE_BLOCKS	8

/**
 * svmtune_policy_apply() - copy chosen policy fields
 * @dst: the policy to change
 * @set: SVMTUNE_POLICY_* bits of the fields to copy
 * @src: the values
 */
void svmtune_policy_apply(struct svmtune_policy *dst, u32 set,
			  const struct svmtune_policy *src)
{
	if (set & SVMTUNE_POLICY_GRANULARITY)
		dst->granularity = src->granularity;
	if (set & SVMTUNE_POLICY_PREFERRED_LOC)
		dst->preferred_loc = src->preferred_loc;
	if (set & SVMTUNE_POLICY_ACCESS)
		dst->access = src->access;
	if (set & SVMTUNE_POLICY_THRASHING)
		dst->thrashing = src->thrashing;
	if (set & SVMTUNE_POLICY_FRAGMENT)
		dst->fragment = src->fragment;
}

/**
 * svmtune_policy_effective() - the policy in effect in a range
 * @smm: the address space (may be NULL: global defaults only)
 * @range: the range (may be NULL: process and global defaults)
 * @eff: filled with the effective policy. The granularity is the one set
 *	explicitly (range or process) or the global one; the adaptive choice
 *	is made by the caller.
 */
void svmtune_policy_effective(const struct svmtune_mm *smm,
			      const struct svmtune_range *range,
			      struct svmtune_policy *eff)
{
	eff->granularity = SVMTUNE_GRANULARITY_UNSET;
	eff->access = SVMTUNE_ACCESS_UNSET;
	eff->preferred_loc = SVMTUNE_LOC_UNSET;
	eff->thrashing = SVMTUNE_THRASH_UNSET;
	eff->fragment = SVMTUNE_FRAGMENT_UNSET;
	if (range)
		*eff = range->pol;
	if (smm) {
		if (eff->thrashing == SVMTUNE_THRASH_UNSET)
			eff->thrashing = smm->defaults.thrashing;
		if (eff->fragment == SVMTUNE_FRAGMENT_UNSET)
			eff->fragment = smm->defaults.fragment;
		if (eff->granularity == SVMTUNE_GRANULARITY_UNSET)
			eff->granularity = smm->defaults.granularity;
		if (eff->access == SVMTUNE_ACCESS_UNSET)
			eff->access = smm->defaults.access;
		if (eff->preferred_loc == SVMTUNE_LOC_UNSET)
			eff->preferred_loc = smm->defaults.preferred_loc;
	}
	if (eff->access == SVMTUNE_ACCESS_UNSET)
		eff->access = SVMTUNE_ACCESS_MIGRATE;
	if (eff->thrashing == SVMTUNE_THRASH_UNSET)
		eff->thrashing = SVMTUNE_THRASH_TRACK;
}

/* The fragment size of @eff, at most @cap (log2 bytes). */
static unsigned int svmtune_fragment_capped(const struct svmtune_policy *eff,
					    unsigned int cap)
{
	unsigned int frag = eff->fragment;

	if (frag == SVMTUNE_FRAGMENT_UNSET)
		frag = READ_ONCE(svmtune_fragment_size);
	return min(frag, cap);
}

/**
 * svmtune_policy_fragment() - the fragment size in effect
 * @eff: a policy from svmtune_policy_effective()
 *
 * Return: log2 bytes: the range's or process's fragment size, else the
 * global ``fragment_size``, at most ``fragment_cap``.
 */
unsigned int svmtune_policy_fragment(const struct svmtune_policy *eff)
{
	return svmtune_fragment_capped(eff, READ_ONCE(svmtune_fragment_cap));
}

/**
 * svmtune_fragment_size_at() - the fragment size in effect at an address
 * @mm: the address space; the caller keeps it alive
 * @addr: the address
 *
 * For backends laying out device memory outside a fault (an explicit
 * migration); a fault's decision carries it (&svmtune_decision.fragment).
 * Never sleeps.
 *
 * Return: log2 bytes, %SVMTUNE_FRAGMENT_MIN to %SVMTUNE_FRAGMENT_MAX.
 */
unsigned int svmtune_fragment_size_at(struct mm_struct *mm, unsigned long addr)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_policy eff;

	if (!smm) {
		svmtune_policy_effective(NULL, NULL, &eff);
		return svmtune_policy_fragment(&eff);
	}
	spin_lock(&smm->lock);
	svmtune_policy_effective(smm, svmtune_range_find(smm, addr), &eff);
	spin_unlock(&smm->lock);
	return svmtune_policy_fragment(&eff);
}
EXPORT_SYMBOL_GPL(svmtune_fragment_size_at);

/**
 * svmtune_policy_window() - the window a device fault at an address would
 *	use when no range, process or global fixed granularity applies
 * @smm: the address space, its lock held; or NULL
 * @addr: the address
 *
 * In adaptive mode, the current adaptive window of @addr's block (a block
 * with no fault yet starts where its range's blocks last were, or at
 * 64 KiB), clamped to the adaptive bounds as the block's next fault
 * clamps it: the window that fault takes unless the fault itself grows or
 * shrinks it. Otherwise the global ``granularity`` knob.
 *
 * Return: log2 bytes.
 */
unsigned int svmtune_policy_window(struct svmtune_mm *smm, unsigned long addr)
{
	struct svmtune_range *range;
	struct svmtune_block *blk;

	if (!READ_ONCE(svmtune_adaptive))
		return READ_ONCE(svmtune_granularity);
	blk = smm ? svmtune_block_find(smm, addr) : NULL;
	/* The bounds may have moved since the block's last fault. */
	if (blk && blk->ad.shift)
		return clamp_t(unsigned int, blk->ad.shift,
			       READ_ONCE(svmtune_adaptive_min),
			       READ_ONCE(svmtune_adaptive_max));
	range = smm ? svmtune_range_find(smm, addr) : NULL;
	if (range && range->ad_hint)
		return clamp_t(unsigned int, range->ad_hint,
			       READ_ONCE(svmtune_adaptive_min),
			       READ_ONCE(svmtune_adaptive_max));
	return svmtune_adaptive_start();
}

/*
 * Whether @pol, about to be applied with @set, names a device that is not
 * registered (any more). Called under the svmtune_mm.lock the policy is
 * stored under, which orders it against svmtune_mm_forget_device().
 */
bool svmtune_policy_names_dead_device(u32 set, const struct svmtune_policy *pol)
{
	u32 loc = pol->preferred_loc;

	return (set & SVMTUNE_POLICY_PREFERRED_LOC) && loc != SVMTUNE_LOC_UNSET &&
	       loc != SVMTUNE_LOC_SYSTEM && !svmtune_device_live_locked(loc);
}

/**
 * svmtune_default_granularity() - the block size new ranges of a process get
 * @mm: the address space; the caller keeps it alive
 *
 * For backends whose driver keeps a per-process default of its own (KFD's
 * svms.default_granularity): the process default set with
 * %SVMTUNE_IOC_SET_PROCESS_POLICY, else the global ``granularity`` knob,
 * or, when the global policy is adaptive, ``adaptive_max_granularity`` (the
 * widest window the adaptive policy may choose; each fault's window is
 * still decided by svmtune_decide()).
 *
 * Never sleeps.
 *
 * Return: log2 bytes, %SVMTUNE_GRANULARITY_MIN to %SVMTUNE_GRANULARITY_MAX.
 */
unsigned int svmtune_default_granularity(struct mm_struct *mm)
{
	unsigned int shift = SVMTUNE_GRANULARITY_UNSET;
	struct svmtune_mm *smm = svmtune_mm_find(mm);

	if (smm) {
		spin_lock(&smm->lock);
		shift = smm->defaults.granularity;
		spin_unlock(&smm->lock);
	}
	if (shift != SVMTUNE_GRANULARITY_UNSET)
		return shift;
	if (READ_ONCE(svmtune_adaptive))
		return READ_ONCE(svmtune_adaptive_max);
	return READ_ONCE(svmtune_granularity);
}
EXPORT_SYMBOL_GPL(svmtune_default_granularity);

/**
 * svmtune_explicit_policy() - what a process set for an address
 * @mm: the address space; the caller keeps it alive
 * @addr: the address
 * @pol: filled with the range's settings, else the process defaults, and
 *	UNSET where neither sets a field
 *
 * For backends whose driver keeps per-range attributes of its own (KFD's
 * preferred location, access, granularity), to give new driver ranges
 * what the process asked svmtune for. Never sleeps.
 */
void svmtune_explicit_policy(struct mm_struct *mm, unsigned long addr,
			     struct svmtune_explicit_policy *pol)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_policy eff;

	pol->granularity = SVMTUNE_GRANULARITY_UNSET;
	pol->preferred_loc = SVMTUNE_LOC_UNSET;
	pol->access = SVMTUNE_ACCESS_UNSET;
	if (!smm)
		return;
	spin_lock(&smm->lock);
	svmtune_policy_effective(smm, svmtune_range_find(smm, addr), &eff);
	spin_unlock(&smm->lock);
	pol->granularity = eff.granularity;
	pol->preferred_loc = eff.preferred_loc;
	/* svmtune_policy_effective() fills in the global access default. */
	pol->access = eff.access == SVMTUNE_ACCESS_MIGRATE ? SVMTUNE_ACCESS_UNSET :
							      eff.access;
}
EXPORT_SYMBOL_GPL(svmtune_explicit_policy);

/* Set bits of @map in [@first, @first + @n). */
static unsigned int svmtune_bits_in(const unsigned long *map, unsigned int first,
				    unsigned int n)
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

/* Pages of @blk in [@first, @first + @n) resident and used since. */
static unsigned int svmtune_used_in(const struct svmtune_block *blk,
				    unsigned int first, unsigned int n)
{
	DECLARE_BITMAP(used, SVMTUNE_BLOCK_PAGES);

	bitmap_and(used, blk->resident, blk->touched, SVMTUNE_BLOCK_PAGES);
	return svmtune_bits_in(used, first, n);
}

/* What the device did with a block's previous adaptive window. */
enum svmtune_window_use {
	SVMTUNE_WINDOW_USE_UNKNOWN,
	SVMTUNE_WINDOW_USED,
	SVMTUNE_WINDOW_UNUSED,
};

/*
 * Whether the device used most of @blk's previous adaptive window, for a
 * device that reports use; unknown when that cannot be told (no use
 * reports, the window lay in the block below, or most of it is not in this
 * device's memory: mapped remotely, or device memory was full). A fault
 * at the end of a window of which the device touched one page is a
 * stride, not a stream: one page per 64 KiB with 64 KiB windows faults at
 * each window's end, and growing the window there moves everything (make
 * bench's sparse64k). Use is only known of resident pages, so a stream
 * over remote mappings keeps growing its windows, at the slower pace.
 */
static enum svmtune_window_use
svmtune_adaptive_window_use(const struct svmtune_device *dev,
			    const struct svmtune_block *blk)
{
	const struct svmtune_adaptive *ad = &blk->ad;
	unsigned long n = ad->last_window, end = ad->next, first, here;

	if (!dev->reports_use || !n || end <= blk->base ||
	    end > blk->base + SVMTUNE_BLOCK_SIZE ||
	    n > (end - blk->base) >> PAGE_SHIFT || blk->loc != dev->id)
		return SVMTUNE_WINDOW_USE_UNKNOWN;
	first = ((end - blk->base) >> PAGE_SHIFT) - n;
	here = svmtune_bits_in(blk->resident, first, n);
	if (2 * here < n)
		return SVMTUNE_WINDOW_USE_UNKNOWN;
	return 2 * svmtune_used_in(blk, first, n) >= here ?
	       SVMTUNE_WINDOW_USED : SVMTUNE_WINDOW_UNUSED;
}

/*
 * A device fault at @addr in @blk of @range (may be NULL), adaptive mode.
 * A block's first fault takes over the state of the block below when it
 * continues that block's last window, else starts at the window the
 * range's blocks last had (a sparse or strided pattern touches each block
 * a few times only: learnt per block alone, every new block would start
 * at 64 KiB again; measured by make bench, stride moved 960 pages instead
 * of 180). A fault continuing the previous window is sequential only if
 * the device used at least half of that window, where it reports use;
 * then the window grows SVMTUNE_ADAPTIVE_JUMP steps at once. Where use is
 * unknown, two such faults in a row double it. Any other fault (not a
 * block's first) is sparse: two in a row halve the window, or bring it to
 * the smallest window such a pair brought any block of the range to
 * (range->ad_sparse), when that is smaller. A block whose window never
 * grew on sequential faults takes that window at its first sparse fault:
 * random pages over a range fault in every block before any block has
 * learnt its small window alone (make bench's sparse moved 1,132 pages
 * for 489 touched, now 789). A block a stream grew keeps its window for
 * one fault out of place (a stream starting again where the CPU took its
 * pages back, or faults out of order) and needs two in a row.
 */
static void svmtune_adaptive_fault(const struct svmtune_device *dev,
				   struct svmtune_mm *smm,
				   struct svmtune_range *range,
				   struct svmtune_block *blk, unsigned long addr)
{
	unsigned int lo = READ_ONCE(svmtune_adaptive_min);
	unsigned int hi = READ_ONCE(svmtune_adaptive_max);
	struct svmtune_adaptive *ad = &blk->ad;
	enum svmtune_window_use use;
	bool at_next;

	if (!ad->shift) {
		unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
		struct svmtune_block *below = base ?
			svmtune_block_find(smm, base - SVMTUNE_BLOCK_SIZE) : NULL;

		if (below && below->ad.shift && below->ad.next == base &&
		    addr >= base && addr < base + (1UL << below->ad.shift))
			*ad = below->ad;
		else if (range && range->ad_hint)
			ad->shift = range->ad_hint;
		else
			ad->shift = svmtune_adaptive_start();
	}
	/* A fault elsewhere than at the previous window's end continues none. */
	at_next = ad->next && addr >= ad->next &&
		  addr < ad->next + (1UL << ad->shift);
	use = at_next ? svmtune_adaptive_window_use(dev, blk) :
			SVMTUNE_WINDOW_UNUSED;
	if (use == SVMTUNE_WINDOW_USED) {
		/* A stream the device's use confirms: no streak to wait for. */
		ad->sparse = 0;
		ad->seq = 0;
		ad->shift = min_t(unsigned int, hi,
				  ad->shift + SVMTUNE_ADAPTIVE_JUMP);
		ad->grown = true;
	} else if (use == SVMTUNE_WINDOW_USE_UNKNOWN) {
		ad->sparse = 0;
		if (++ad->seq >= SVMTUNE_ADAPTIVE_STREAK) {
			ad->seq = 0;
			if (ad->shift < hi) {
				ad->shift++;
				ad->grown = true;
			}
		}
	} else if (ad->next) {
		ad->seq = 0;
		if (++ad->sparse >= SVMTUNE_ADAPTIVE_STREAK) {
			ad->sparse = 0;
			if (ad->shift > lo)
				ad->shift--;
			/* Sparse here too: what the range's blocks learnt. */
			if (range) {
				if (range->ad_sparse &&
				    range->ad_sparse < ad->shift)
					ad->shift = range->ad_sparse;
				range->ad_sparse = ad->shift;
			}
		} else if (!ad->grown && range && range->ad_sparse &&
			   range->ad_sparse < ad->shift) {
			/* No stream grew this window: no streak to wait for. */
			ad->sparse = 0;
			ad->shift = range->ad_sparse;
		}
	}
	/* The bounds may have moved since the last fault. */
	ad->shift = clamp_t(unsigned int, ad->shift, lo, hi);
	if (range)
		range->ad_hint = ad->shift;
}

static void svmtune_count(struct svmtune_device *dev, u64 *mm_counters,
			  u64 *range_counters, enum svmtune_counter c, u64 n)
{
	if (!n)
		return;
	if (dev)
		this_cpu_add(dev->stats->counters[c], n);
	if (mm_counters)
		mm_counters[c] += n;
	if (range_counters)
		range_counters[c] += n;
}

/*
 * Thrashing, per 64 KiB chunk of a 2 MiB block, after NVIDIA UVM's. A
 * fault that reverses a recent migration of its page (a CPU fault on a
 * page a device fault moved less than thrashing_lapse_us ago, or a device
 * fault on a page a CPU fault took back) is an event. thrashing_threshold
 * events in a chunk are a detection; then, as the ``thrashing`` knob says:
 *
 * - throttle (and remote, for its first thrashing_pin_threshold
 *   detections): for thrashing_throttle_us, faults on the chunk, from
 *   either side, wait before they are served, so each side gets its pages
 *   for a while instead of a fault per access;
 * - remote, past that: the chunk is pinned to system memory for
 *   thrashing_pin_ms; devices map it remotely (both sides reach it there).
 *   When the pin ends the remote mappings are torn down
 *   (svmtune_unpin_work), so the next device access faults and may
 *   migrate again.
 *
 * A quiet second (no event in the block) resets the events and throttle
 * counts: a chunk that thrashes again after that is throttled afresh
 * before it is pinned; one that thrashes on right after its pin ended is
 * pinned again at its next detection.
 *
 * On an MI300X a reversal costs a GPU fault (tens of microseconds of
 * service, plus KFD's 2 ms retry filter on the range) and a CPU fault,
 * and a copy each way (64 KiB: a few microseconds over PCIe 5; 2 MiB:
 * about 40). A throttle of 1 ms lets a side run about as long as one
 * filter period; a remote access over PCIe costs about a microsecond a
 * cache line, which a pin trades for the copies.
 *
 * Called with @smm's lock held, @mode not off and the range not opted out.
 * Sets *@throttle_ns when the fault is to wait, and returns whether device
 * faults on the chunk map remotely now.
 */
static bool svmtune_thrash_fault(struct svmtune_device *dev,
				 struct svmtune_mm *smm,
				 struct svmtune_range *range,
				 struct svmtune_block *blk, unsigned int mode,
				 const struct svmtune_fault *fault,
				 unsigned long addr, u64 now, u64 *throttle_ns)
{
	u64 lapse = (u64)READ_ONCE(svmtune_thrashing_lapse_us) * NSEC_PER_USEC;
	unsigned int page = (addr - blk->base) >> PAGE_SHIFT;
	unsigned int chunk = page >> (SVMTUNE_THRASH_CHUNK_SHIFT - PAGE_SHIFT);
	u64 *range_counters = range ? range->counters : NULL;
	struct svmtune_block_thrash *th = &blk->th;
	u32 bit = BIT(chunk), now_ms = svmtune_ms(now);
	unsigned long cstart;
	bool reversal, pin;
	unsigned int what;

	if (th->event_ns && now - th->event_ns > SVMTUNE_THRASH_QUIET_NS) {
		memset(th->events, 0, sizeof(th->events));
		memset(th->throttles, 0, sizeof(th->throttles));
		th->event_ns = 0;
	}
	if (th->throttled && now >= th->throttle_until_ns)
		th->throttled = 0;
	if (fault->retried)
		goto out;

	if (fault->type == SVMTUNE_FAULT_CPU)
		reversal = test_bit(page, th->to_dev) && now - th->dev_ns <= lapse;
	else
		reversal = test_bit(page, th->to_sys) && now - th->sys_ns <= lapse;
	if (!reversal)
		goto throttle;
	th->event_ns = now;
	svmtune_count(dev, smm->counters, range_counters,
		      SVMTUNE_CNT_THRASHING_EVENTS, 1);
	if (++th->events[chunk] < READ_ONCE(svmtune_thrashing_threshold))
		goto throttle;
	th->events[chunk] = 0;
	svmtune_count(dev, smm->counters, range_counters,
		      SVMTUNE_CNT_THRASHING_DETECTED, 1);
	/* A device that cannot make a fault wait skips the throttle stage. */
	pin = mode == SVMTUNE_THRASHING_REMOTE &&
	      (th->throttles[chunk] >= READ_ONCE(svmtune_thrashing_pin_threshold) ||
	       !dev->throttles);
	what = SVMTUNE_THRASH_TRACE_DETECTED;
	if (pin) {
		what = SVMTUNE_THRASH_TRACE_PINNED;
		if (!th->pinned)
			xa_set_mark(&smm->blocks, blk->base >> SVMTUNE_BLOCK_SHIFT,
				    SVMTUNE_BLOCK_PINNED);
		th->pinned |= bit;
		/* At least a full pin_ms: the deadline is in whole ms. */
		th->pin_until_ms[chunk] = now_ms + 1 + READ_ONCE(svmtune_thrashing_pin_ms);
		th->pin_dev = dev->id;
		svmtune_count(dev, smm->counters, range_counters,
			      SVMTUNE_CNT_PINS, 1);
		svmtune_block_pin_schedule(now + (u64)(th->pin_until_ms[chunk] - now_ms) *
					   NSEC_PER_MSEC);
	} else if (dev->throttles && (mode == SVMTUNE_THRASHING_REMOTE ||
				      mode == SVMTUNE_THRASHING_THROTTLE)) {
		what = SVMTUNE_THRASH_TRACE_THROTTLED;
		th->throttled |= bit;
		th->throttle_until_ns = now +
			(u64)READ_ONCE(svmtune_thrashing_throttle_us) * NSEC_PER_USEC;
		if (th->throttles[chunk] < U8_MAX)
			th->throttles[chunk]++;
		svmtune_count(dev, smm->counters, range_counters,
			      SVMTUNE_CNT_THROTTLES, 1);
	}
	cstart = blk->base + ((unsigned long)chunk << SVMTUNE_THRASH_CHUNK_SHIFT);
	trace_svmtune_thrashing(dev, cstart,
				cstart + (1UL << SVMTUNE_THRASH_CHUNK_SHIFT),
				addr, what);
throttle:
	if ((th->throttled & bit) && now < th->throttle_until_ns && dev->throttles)
		*throttle_ns = th->throttle_until_ns - now;
out:
	return svmtune_pins_live(th, now_ms) & bit;
}

/*
 * Remember the pages of a block a fault moved, to see a later fault
 * reverse them: moves less than a lapse apart add up; a later one starts
 * afresh. Called with @blk's address space's lock held.
 */
static void svmtune_thrash_record(struct svmtune_block *blk, bool to_system,
				  unsigned int first, unsigned int n, u64 now)
{
	u64 lapse = (u64)READ_ONCE(svmtune_thrashing_lapse_us) * NSEC_PER_USEC;
	struct svmtune_block_thrash *th = &blk->th;

	if (to_system) {
		if (now - th->sys_ns > lapse)
			bitmap_zero(th->to_sys, SVMTUNE_BLOCK_PAGES);
		bitmap_set(th->to_sys, first, n);
		bitmap_clear(th->to_dev, first, n);
		th->sys_ns = now;
	} else {
		if (now - th->dev_ns > lapse)
			bitmap_zero(th->to_dev, SVMTUNE_BLOCK_PAGES);
		bitmap_set(th->to_dev, first, n);
		bitmap_clear(th->to_sys, first, n);
		th->dev_ns = now;
	}
}

/*
 * A migration must not take pinned chunks along: clip @d's window, inside
 * @blk, to the chunks around @addr's that are not pinned. (A window wider
 * than the block can still reach pinned chunks of the blocks beside it.)
 */
static void svmtune_thrash_clip(const struct svmtune_block *blk,
				unsigned long addr, struct svmtune_decision *d)
{
	unsigned int chunk = (addr - blk->base) >> SVMTUNE_THRASH_CHUNK_SHIFT;
	u32 live = svmtune_pins_live(&blk->th, svmtune_ms(ktime_get_ns()));
	u32 below = live & (BIT(chunk) - 1);
	u32 above = chunk < SVMTUNE_THRASH_CHUNKS - 1 ?
		    live & GENMASK(SVMTUNE_THRASH_CHUNKS - 1, chunk + 1) : 0;

	if (below)
		d->start = max(d->start, blk->base +
			       ((unsigned long)(__fls(below) + 1) << SVMTUNE_THRASH_CHUNK_SHIFT));
	if (above)
		d->end = min(d->end, blk->base +
			     ((unsigned long)__ffs(above) << SVMTUNE_THRASH_CHUNK_SHIFT));
	d->fault_start = max(d->fault_start, d->start);
	d->fault_end = min(d->fault_end, d->end);
}

/*
 * Whether a block has a chunk thrashing now (a reversal in this epoch, a
 * throttle or a pin running): no prefetch into it. By the clock, since
 * the state is aged only by faults that track thrashing.
 */
static bool svmtune_block_thrashing(const struct svmtune_block *blk)
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


/*
 * Adaptive mode: a device fault in a block the device has used densely
 * (SVMTUNE_ADAPTIVE_DENSE_PAGES, see SVMTUNE_ADAPTIVE_START's comment)
 * migrates the rest of the block, within [@lo, @hi). Address space's lock
 * held; for a fault migrating to @dev.
 */
static void svmtune_adaptive_dense(const struct svmtune_block *blk,
				   const struct svmtune_device *dev,
				   unsigned long addr, unsigned long lo,
				   unsigned long hi, struct svmtune_decision *d)
{
	unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
	unsigned long end = base + SVMTUNE_BLOCK_SIZE;

	if (!dev->reports_use || blk->loc != dev->id ||
	    (d->start <= base && d->end >= end) ||
	    svmtune_used_in(blk, 0, SVMTUNE_BLOCK_PAGES) <
	    SVMTUNE_ADAPTIVE_DENSE_PAGES)
		return;
	d->start = min(d->start, max(lo, base));
	if (end > base)
		d->end = max(d->end, min(hi, end));
	else
		d->end = max(d->end, hi);
}

/*
 * Density prefetch, after NVIDIA UVM's: a device fault's window grows to
 * the largest aligned power-of-two region of its 2 MiB block, around the
 * window, in which more than prefetch_threshold percent of the pages would
 * be on the device once the window is there (pages already resident on
 * it, except prefetched ones it has not used yet, which would otherwise
 * feed prefetch with its own guesses; a device whose backend cannot see
 * accesses, KFD's, counts them all). A stream fills a block in about
 * five faults instead of 2 MiB / window; a sparse pattern (one page in
 * sixteen) never reaches the threshold. The window stays within [@lo, @hi)
 * (VMA and range). Called with the address space's lock held, for a device
 * fault migrating to @devid whose window is smaller than a block.
 *
 * On hardware the trade is fault count against bytes: an MI300X GPU fault
 * costs tens of microseconds of service plus KFD's 2 ms retry filter per
 * range, while 2 MiB over PCIe 5 x16 takes about 40 us; a wrong prefetch
 * costs the copy and device memory, a missing one a fault round trip.
 */
static void svmtune_prefetch(struct svmtune_block *blk,
			     const struct svmtune_device *dev,
			     unsigned long addr, unsigned long lo,
			     unsigned long hi, struct svmtune_decision *d)
{
	unsigned int thr = READ_ONCE(svmtune_prefetch_threshold);
	unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
	unsigned int ws, we, order, first, n, best_first = 0, best_n = 0;
	DECLARE_BITMAP(dense, SVMTUNE_BLOCK_PAGES);

	if (!thr || d->start < base || d->end > base + SVMTUNE_BLOCK_SIZE ||
	    d->end - d->start == SVMTUNE_BLOCK_SIZE)
		return;
	ws = (d->start - base) >> PAGE_SHIFT;
	we = (d->end - base) >> PAGE_SHIFT;
	if (blk->loc != dev->id)
		bitmap_zero(dense, SVMTUNE_BLOCK_PAGES);
	else if (dev->reports_use)
		bitmap_and(dense, blk->resident, blk->touched,
			   SVMTUNE_BLOCK_PAGES);
	else
		bitmap_copy(dense, blk->resident, SVMTUNE_BLOCK_PAGES);
	bitmap_set(dense, ws, we - ws);

	for (order = 1; (1U << order) <= SVMTUNE_BLOCK_PAGES; order++) {
		n = 1U << order;
		first = ALIGN_DOWN(ws, n);
		/* Only regions that hold the whole window and more. */
		if (first + n < we || n <= we - ws)
			continue;
		if (100 * svmtune_bits_in(dense, first, n) > thr * n) {
			best_first = first;
			best_n = n;
		}
	}
	if (!best_n)
		return;
	d->start = max(lo, base + ((unsigned long)best_first << PAGE_SHIFT));
	d->end = min(hi, base + ((unsigned long)(best_first + best_n) << PAGE_SHIFT));
}

/*
 * Fragment "auto": once every page of the fault's fragment block (the
 * aligned block of the fragment size, at most 2 MiB, so inside the
 * engine's block) is on the faulting device (counting the window), the
 * window becomes the whole fragment block, so the backend maps it in one
 * update and amdgpu writes its PTEs as one fragment where the VRAM is
 * contiguous (a KFD range's BO is laid out as its addresses; the emulated
 * GPU lays each fragment block out so): one TLB entry where there were
 * one per window. The pages are there already; nothing more migrates. On
 * hardware it costs one rewrite of the block's PTEs (512 for 2 MiB) and a
 * TLB flush, once per block, against a TLB miss (a page walk of up to four
 * levels) per window-sized stride for as long as the block stays. Called
 * with the address space's lock held, for a device fault migrating to @dev.
 */
static void svmtune_fragment_widen(struct svmtune_block *blk,
				   const struct svmtune_device *dev,
				   unsigned long addr, unsigned long lo,
				   unsigned long hi, struct svmtune_decision *d)
{
	unsigned long size = 1UL << d->fragment;
	unsigned long base = ALIGN_DOWN(addr, size);
	unsigned long end = base + size;
	DECLARE_BITMAP(all, SVMTUNE_BLOCK_PAGES);
	unsigned long ws, we, bs, n;

	if (blk->loc != dev->id || end < base || base < lo || end > hi ||
	    (d->start <= base && d->end >= end))
		return;
	bs = (base & (SVMTUNE_BLOCK_SIZE - 1)) >> PAGE_SHIFT;
	n = size >> PAGE_SHIFT;
	ws = (max(d->start, base) - base) >> PAGE_SHIFT;
	we = (min(d->end, end) - base) >> PAGE_SHIFT;
	bitmap_zero(all, SVMTUNE_BLOCK_PAGES);
	bitmap_set(all, bs + ws, we - ws);
	bitmap_or(all, all, blk->resident, SVMTUNE_BLOCK_PAGES);
	if (svmtune_bits_in(all, bs, n) != n)
		return;
	d->start = min(d->start, base);
	d->end = max(d->end, end);
}

/*
 * Keep a device fault's window within one aligned block of the fragment
 * cap, for a backend that cannot cap the fragments it maps (svmtune_kfd:
 * amdgpu computes them per page-table update, and KFD maps the window in
 * one). Costs a fault per cap-sized block where the window was larger.
 * Remote windows are clipped too: amdgpu gives system pages whose DMA
 * addresses are contiguous (a THP, say) fragments of their run's size
 * (amdgpu_vm_update_range()).
 */
static void svmtune_fragment_clip(unsigned long addr, struct svmtune_decision *d)
{
	unsigned long cs = ALIGN_DOWN(addr, 1UL << d->fragment_cap);
	unsigned long ce = cs + (1UL << d->fragment_cap);

	d->start = max(d->start, cs);
	if (ce > cs)
		d->end = min(d->end, ce);
	d->fault_start = max(d->fault_start, d->start);
	d->fault_end = min(d->fault_end, d->end);
}

/*
 * The decision for @fault given its address space's state (@smm, may be
 * NULL), range and block (each may be NULL), with @smm's lock held when it
 * is given.
 */
static void svmtune_decide_in(struct svmtune_device *dev, struct svmtune_mm *smm,
			      struct svmtune_range *range,
			      struct svmtune_block *blk,
			      const struct svmtune_fault *fault,
			      struct svmtune_decision *decision)
{
	unsigned long addr = fault->addr & PAGE_MASK;
	unsigned long lo = fault->lo, hi = fault->hi;
	bool cpu = fault->type == SVMTUNE_FAULT_CPU;
	struct svmtune_policy eff;
	unsigned int thrashing = READ_ONCE(svmtune_thrashing);
	bool pinned = false, adaptive = false;
	unsigned int shift;
	u64 throttle = 0;

	svmtune_policy_effective(smm, range, &eff);
	/*
	 * With thrashing off, the fault path reads no clock; nor for a fixed
	 * window, which the engine's windows do not describe, nor where the
	 * range or process opted out.
	 */
	if (blk && thrashing != SVMTUNE_THRASHING_OFF && !fault->fixed &&
	    eff.thrashing != SVMTUNE_THRASH_OPT_OUT)
		pinned = svmtune_thrash_fault(dev, smm, range, blk, thrashing,
					      fault, addr, ktime_get_ns(),
					      &throttle);
	shift = eff.granularity;
	if (shift == SVMTUNE_GRANULARITY_UNSET) {
		if (READ_ONCE(svmtune_adaptive) && blk && !fault->fixed) {
			adaptive = true;
			/* A throttled fault asking again is not a new one. */
			if ((!cpu && !fault->retried) || !blk->ad.shift)
				svmtune_adaptive_fault(dev, smm, range, blk, addr);
			shift = blk->ad.shift;
		} else {
			shift = READ_ONCE(svmtune_granularity);
		}
	}

	/*
	 * A CPU fault on a page whose preferred home is the device holding it
	 * takes only that page back: the rest stays where it is wanted.
	 */
	if (cpu && eff.preferred_loc == dev->id)
		shift = PAGE_SHIFT;

	if (range) {
		lo = max(lo, range->start);
		hi = min(hi, range->end);
	}
	decision->granularity = shift;
	decision->start = max(lo, ALIGN_DOWN(addr, 1UL << shift));
	decision->end = min(hi, ALIGN_DOWN(addr, 1UL << shift) + (1UL << shift));
	if (decision->end <= addr)	/* the block end overflowed */
		decision->end = hi;
	if (fault->fixed) {
		decision->start = fault->lo;
		decision->end = fault->hi;
	}
	decision->fault_start = decision->start;
	decision->fault_end = decision->end;
	decision->throttle_ns = throttle;
	/* One read of the cap: the fragment never exceeds the cap it carries. */
	decision->fragment_cap = READ_ONCE(svmtune_fragment_cap);
	decision->fragment = svmtune_fragment_capped(&eff, decision->fragment_cap);

	if (cpu) {
		decision->action = SVMTUNE_MIGRATE;
		decision->dest = SVMTUNE_LOC_SYSTEM;
	} else if (pinned || eff.access == SVMTUNE_ACCESS_REMOTE ||
		   (eff.access == SVMTUNE_ACCESS_READ_MOSTLY && !fault->write) ||
		   (eff.preferred_loc != SVMTUNE_LOC_UNSET &&
		    eff.preferred_loc != dev->id)) {
		decision->action = SVMTUNE_MAP_REMOTE;
		decision->dest = eff.preferred_loc == SVMTUNE_LOC_UNSET || pinned ?
				 SVMTUNE_LOC_SYSTEM : eff.preferred_loc;
		if (pinned) {
			/* Only the pinned 64 KiB chunk: the rest may migrate. */
			unsigned long cs = ALIGN_DOWN(addr, 1UL << SVMTUNE_THRASH_CHUNK_SHIFT);

			decision->start = max(decision->start, cs);
			decision->end = min(decision->end,
					    cs + (1UL << SVMTUNE_THRASH_CHUNK_SHIFT));
			decision->fault_start = decision->start;
			decision->fault_end = decision->end;
		}
	} else {
		decision->action = SVMTUNE_MIGRATE;
		decision->dest = dev->id;
		/* Never into pages that are going back and forth. */
		if (blk && !fault->fixed && !svmtune_block_thrashing(blk)) {
			if (adaptive)
				svmtune_adaptive_dense(blk, dev, addr, lo, hi,
						       decision);
			svmtune_prefetch(blk, dev, addr, lo, hi, decision);
		}
		if (blk && !fault->fixed && READ_ONCE(svmtune_fragment_auto))
			svmtune_fragment_widen(blk, dev, addr, lo, hi, decision);
		if (blk && !fault->fixed && blk->th.pinned)
			svmtune_thrash_clip(blk, addr, decision);
	}
	if (!cpu && !fault->fixed && !dev->caps_fragments)
		svmtune_fragment_clip(addr, decision);

	trace_svmtune_decide(dev, fault, decision, pinned);
	if (blk && blk->ad.shift && !cpu && !fault->fixed && !fault->retried) {
		blk->ad.next = decision->end;
		blk->ad.last_window = (decision->end - decision->start) >> PAGE_SHIFT;
	}
}

static void svmtune_decide_gfp(struct svmtune_device *dev, struct mm_struct *mm,
			       const struct svmtune_fault *fault,
			       struct svmtune_decision *decision, gfp_t gfp)
{
	struct svmtune_range *range, *prealloc = NULL;
	unsigned long addr = fault->addr & PAGE_MASK;
	struct svmtune_block *blk;
	struct svmtune_mm *smm;

	smm = svmtune_mm_find(mm);
	if (!smm) {
		svmtune_decide_in(dev, NULL, NULL, NULL, fault, decision);
		return;
	}

	/*
	 * Device faults make the block (locked on return) when adaptive or
	 * prefetch is on; without one, no adaptive state or prefetch. A CPU
	 * fault makes none.
	 */
	if (fault->type == SVMTUNE_FAULT_DEVICE && !fault->fixed &&
	    svmtune_blocks_wanted()) {
		blk = svmtune_block_lock(smm, addr, gfp);
	} else {
		spin_lock(&smm->lock);
		blk = svmtune_block_find(smm, addr);
	}
	range = svmtune_range_find(smm, addr);
	if (!range) {
		/* Give the address a range of its own: counters, thrashing state. */
		spin_unlock(&smm->lock);
		prealloc = svmtune_range_alloc(gfp);
		spin_lock(&smm->lock);
		range = svmtune_range_fill_gap(smm, addr, fault->lo, fault->hi,
					       &prealloc);
		/* An unmap may have freed it while the lock was dropped. */
		blk = svmtune_block_find(smm, addr);
	}
	svmtune_decide_in(dev, smm, range, blk, fault, decision);
	spin_unlock(&smm->lock);
	if (prealloc)
		svmtune_range_free(prealloc);
}

/**
 * svmtune_decide() - decide what a fault migrates or maps
 * @dev: the device that faulted (for a CPU fault: the one holding the page)
 * @mm: the faulting address space; the caller holds a reference on its
 *	users and may hold its mmap_lock
 * @fault: the fault
 * @decision: the answer
 *
 * May sleep (it can allocate a range for an address that has none), but
 * takes no lock the caller could hold.
 */
void svmtune_decide(struct svmtune_device *dev, struct mm_struct *mm,
		    const struct svmtune_fault *fault,
		    struct svmtune_decision *decision)
{
	might_sleep();
	svmtune_decide_gfp(dev, mm, fault, decision, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(svmtune_decide);

/**
 * svmtune_decide_atomic() - svmtune_decide() for callers that cannot sleep
 * @dev: the device that faulted (for a CPU fault: the one holding the page)
 * @mm: the address space, kept alive by the caller
 * @fault: the fault
 * @decision: the answer
 *
 * For backends that decide from a probe handler (svmtune_kfd): never
 * sleeps. If an address without a range needs one and the allocation
 * fails, the decision is made from the process and global policy alone
 * (no adaptive state for that fault). Not for hard-IRQ or NMI context.
 */
void svmtune_decide_atomic(struct svmtune_device *dev, struct mm_struct *mm,
			   const struct svmtune_fault *fault,
			   struct svmtune_decision *decision)
{
	svmtune_decide_gfp(dev, mm, fault, decision, GFP_NOWAIT | __GFP_NOWARN);
}
EXPORT_SYMBOL_GPL(svmtune_decide_atomic);


static void svmtune_account_in(struct svmtune_device *dev, u64 *mc, u64 *rc,
			       const struct svmtune_fault *fault,
			       const struct svmtune_decision *decision,
			       const struct svmtune_result *result)
{
	trace_svmtune_account(dev, result);
	if (fault) {
		svmtune_count(dev, mc, rc, fault->type == SVMTUNE_FAULT_CPU ?
			      SVMTUNE_CNT_CPU_FAULTS : SVMTUNE_CNT_GPU_FAULTS, 1);
		svmtune_count(dev, mc, rc, SVMTUNE_CNT_WINDOW_PAGES,
			      (decision->end - decision->start) >> PAGE_SHIFT);
	}
	svmtune_count(dev, mc, rc, SVMTUNE_CNT_PAGES_TO_DEVICE, result->to_device);
	svmtune_count(dev, mc, rc, SVMTUNE_CNT_PAGES_TO_SYSTEM, result->to_system);
	svmtune_count(dev, mc, rc, SVMTUNE_CNT_REMOTE_PAGES, result->remote);
	svmtune_count(dev, mc, rc, SVMTUNE_CNT_FALLBACK_PAGES, result->fallback);
}

static void svmtune_resident_locked(struct svmtune_device *dev,
				    struct svmtune_mm *smm,
				    const struct svmtune_decision *decision,
				    unsigned long start, unsigned long end,
				    u32 loc);

/**
 * svmtune_account() - record what a backend did
 * @dev: the device
 * @mm: the address space; its users referenced by the caller
 * @fault: the fault that was decided, or NULL for an explicit migration
 * @decision: the decision, or NULL for an explicit migration
 * @result: what moved, and the run of pages that moved, if any (recorded
 *	as by svmtune_note_resident() with @decision)
 *
 * Never sleeps; callable in atomic context.
 */
void svmtune_account(struct svmtune_device *dev, struct mm_struct *mm,
		     const struct svmtune_fault *fault,
		     const struct svmtune_decision *decision,
		     const struct svmtune_result *result)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_range *range;

	if (!smm) {
		svmtune_account_in(dev, NULL, NULL, fault, decision, result);
		return;
	}
	spin_lock(&smm->lock);
	range = fault ? svmtune_range_find(smm, fault->addr) : NULL;
	svmtune_account_in(dev, smm->counters, range ? range->counters : NULL,
			   fault, decision, result);
	if (result->moved_end > result->moved_start)
		svmtune_resident_locked(dev, smm, decision,
					result->moved_start & PAGE_MASK,
					PAGE_ALIGN(result->moved_end),
					result->moved_loc == SVMTUNE_LOC_SYSTEM ?
					SVMTUNE_LOC_SYSTEM : dev->id);
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_account);

/**
 * svmtune_account_waste() - record pages that left a device untouched
 * @dev: the device they left
 * @mm: their address space, or NULL if it is gone (then only the device
 *	counts them); its users referenced by the caller
 * @addr: the first page's address
 * @npages: how many
 *
 * In adaptive mode, a block whose last window was at least half waste gets
 * a smaller window.
 */
void svmtune_account_waste(struct svmtune_device *dev, struct mm_struct *mm,
			   unsigned long addr, unsigned long npages)
{
	struct svmtune_mm *smm = mm ? svmtune_mm_find(mm) : NULL;
	struct svmtune_range *range;
	struct svmtune_block *blk;

	this_cpu_add(dev->stats->counters[SVMTUNE_CNT_WASTE_PAGES], npages);
	if (!smm)
		return;
	spin_lock(&smm->lock);
	smm->counters[SVMTUNE_CNT_WASTE_PAGES] += npages;
	range = svmtune_range_find(smm, addr);
	if (range)
		range->counters[SVMTUNE_CNT_WASTE_PAGES] += npages;
	blk = svmtune_block_find(smm, addr);
	if (blk && READ_ONCE(svmtune_adaptive) && blk->ad.last_window &&
	    2 * npages >= blk->ad.last_window &&
	    blk->ad.shift > READ_ONCE(svmtune_adaptive_min)) {
		blk->ad.shift--;
		if (range)
			range->ad_hint = blk->ad.shift;
	}
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_account_waste);

/*
 * svmtune_note_resident() under the address space's lock, which it drops
 * and takes again to allocate a block without sleeping.
 */
static void svmtune_resident_locked(struct svmtune_device *dev,
				    struct svmtune_mm *smm,
				    const struct svmtune_decision *decision,
				    unsigned long start, unsigned long end,
				    u32 loc)
	__must_hold(&smm->lock)
{
	DECLARE_BITMAP(arrived, SVMTUNE_BLOCK_PAGES);
	unsigned int new_whole = SVMTUNE_NOTE_NEW_WHOLE_BLOCKS;
	unsigned long addr, next, index;
	struct svmtune_block *blk;
	u64 now = 0;

	lockdep_assert_held(&smm->lock);
	if (start >= end)
		return;
	/* A fault's moves are what a later fault may reverse. */
	if (decision && READ_ONCE(svmtune_thrashing) != SVMTUNE_THRASHING_OFF)
		now = ktime_get_ns();
	if (loc == SVMTUNE_LOC_SYSTEM) {
		/* Only blocks that exist: a span may be a whole KFD range. */
		xa_for_each_range(&smm->blocks, index, blk,
				  start >> SVMTUNE_BLOCK_SHIFT,
				  (end - 1) >> SVMTUNE_BLOCK_SHIFT) {
			unsigned long base = index << SVMTUNE_BLOCK_SHIFT;
			unsigned int first = start > base ?
				(start - base) >> PAGE_SHIFT : 0;
			unsigned int last = end - base < SVMTUNE_BLOCK_SIZE ?
				(end - base) >> PAGE_SHIFT : SVMTUNE_BLOCK_PAGES;

			bitmap_clear(blk->resident, first, last - first);
			bitmap_clear(blk->prefetched, first, last - first);
			bitmap_clear(blk->touched, first, last - first);
			if (now)
				svmtune_thrash_record(blk, true, first,
						      last - first, now);
			if (bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES))
				blk->loc = SVMTUNE_LOC_UNSET;
			svmtune_block_lru_update(blk, NULL);
		}
		return;
	}

	for (addr = start; addr < end; addr = next) {
		unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
		unsigned int first, n, pf = 0;
		struct svmtune_range *range;
		bool whole;

		next = base + SVMTUNE_BLOCK_SIZE;
		if (next < base || next > end)	/* the top block, or the last */
			next = end;
		first = (addr - base) >> PAGE_SHIFT;
		n = (next - addr) >> PAGE_SHIFT;
		/*
		 * Whole blocks arriving make at most a few new blocks per
		 * report (for the LRU): a 1 GiB window must not make 512 in a
		 * probe handler. Past that they update blocks there are.
		 */
		whole = n == SVMTUNE_BLOCK_PAGES;
		if (svmtune_blocks_wanted() && (!whole || new_whole)) {
			if (whole)
				new_whole--;
			blk = svmtune_block_get(smm, addr, GFP_NOWAIT | __GFP_NOWARN);
		} else {
			blk = svmtune_block_find(smm, addr);
		}
		if (!blk)
			continue;
		if (bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES))
			blk->loc = loc;
		else if (blk->loc != loc)
			blk->loc = SVMTUNE_LOC_UNSET;
		/* Pages not there before: not used there yet. */
		bitmap_zero(arrived, SVMTUNE_BLOCK_PAGES);
		bitmap_set(arrived, first, n);
		bitmap_andnot(arrived, arrived, blk->resident, SVMTUNE_BLOCK_PAGES);
		bitmap_andnot(blk->touched, blk->touched, arrived,
			      SVMTUNE_BLOCK_PAGES);
		if (decision) {
			/* Those outside the fault's own window were prefetched. */
			if (decision->fault_start < next && decision->fault_end > addr) {
				unsigned long fs = max(decision->fault_start, addr);
				unsigned long fe = min(decision->fault_end, next);

				bitmap_clear(arrived, (fs - base) >> PAGE_SHIFT,
					     (fe - fs) >> PAGE_SHIFT);
			}
			pf = bitmap_weight(arrived, SVMTUNE_BLOCK_PAGES);
			bitmap_or(blk->prefetched, blk->prefetched, arrived,
				  SVMTUNE_BLOCK_PAGES);
		}
		bitmap_set(blk->resident, first, n);
		if (now)
			svmtune_thrash_record(blk, false, first, n, now);
		svmtune_block_lru_update(blk, dev);
		range = pf ? svmtune_range_find(smm, addr) : NULL;
		svmtune_count(dev, smm->counters, range ? range->counters : NULL,
			      SVMTUNE_CNT_PREFETCH_PAGES, pf);
	}
}

/**
 * svmtune_note_resident() - record where pages went
 * @dev: the device that moved them
 * @mm: their address space; its users referenced by the caller
 * @decision: the fault decision the move served (a device fault's, or a
 *	CPU fault's), or NULL (an explicit migration, an eviction)
 * @start: first byte of a run of pages that moved, page-aligned
 * @end: its end
 * @loc: where they are now: @dev's id, or %SVMTUNE_LOC_SYSTEM
 *
 * Backends report every run of pages that moved (or a span all of whose
 * pages are now at @loc, when the backend cannot tell which moved), so
 * that the engine's per-block state (density, prefetch accounting) follows
 * the pages; one run per fault can go with svmtune_account() instead
 * (&svmtune_result.moved_start). Pages arriving on the device outside
 * @decision's fault window (not already resident there) were prefetched:
 * counted in ``prefetch_pages``. A fault's moves are remembered for
 * thrashing detection (a later fault of the other side reversing them).
 * Never sleeps; a block that cannot be allocated without sleeping is not
 * tracked.
 */
void svmtune_note_resident(struct svmtune_device *dev, struct mm_struct *mm,
			   const struct svmtune_decision *decision,
			   unsigned long start, unsigned long end, u32 loc)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);

	if (!smm || start >= end)
		return;
	spin_lock(&smm->lock);
	svmtune_resident_locked(dev, smm, decision, start, end, loc);
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_note_resident);

/*
 * The device used [@start, @end) for the first time since the pages
 * arrived: a prefetched page used so counts in ``prefetch_used`` and
 * stops being a guess; the block is recently used on @dev's LRU.
 */
static void svmtune_used_locked(struct svmtune_device *dev,
				struct svmtune_mm *smm,
				unsigned long start, unsigned long end)
{
	DECLARE_BITMAP(run, SVMTUNE_BLOCK_PAGES);
	unsigned long addr, next;

	lockdep_assert_held(&smm->lock);
	for (addr = start; addr < end; addr = next) {
		unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
		struct svmtune_block *blk = svmtune_block_find(smm, addr);
		unsigned int first, n, used;
		struct svmtune_range *range;

		next = base + SVMTUNE_BLOCK_SIZE;
		if (next < base || next > end)
			next = end;
		if (!blk)
			continue;
		first = (addr - base) >> PAGE_SHIFT;
		n = (next - addr) >> PAGE_SHIFT;
		bitmap_zero(run, SVMTUNE_BLOCK_PAGES);
		bitmap_set(run, first, n);
		/* Prefetched pages used now: a guess that was right. */
		used = bitmap_weight_and(run, blk->prefetched, SVMTUNE_BLOCK_PAGES);
		bitmap_andnot(blk->prefetched, blk->prefetched, run,
			      SVMTUNE_BLOCK_PAGES);
		/* Use is of resident pages: arrival clears it. */
		bitmap_and(run, run, blk->resident, SVMTUNE_BLOCK_PAGES);
		bitmap_or(blk->touched, blk->touched, run, SVMTUNE_BLOCK_PAGES);
		if (blk->lru_dev == dev) {
			/* Read by LRU walkers under the device's lru_lock only. */
			WRITE_ONCE(blk->used, true);
			svmtune_block_lru_update(blk, dev);
		}
		if (used) {
			range = svmtune_range_find(smm, addr);
			svmtune_count(dev, smm->counters,
				      range ? range->counters : NULL,
				      SVMTUNE_CNT_PREFETCH_USED, used);
		}
	}
}

/**
 * svmtune_note_access() - record what a device's accesses showed
 * @dev: the device
 * @mm: the address space; its users referenced by the caller
 * @access: TLB lookups, and the run of pages used for the first time since
 *	they arrived in @dev's memory; report uses before the device's next
 *	fault, so that its decision sees them
 *
 * For backends that model or read their device's TLB, or see its first
 * access to a page (&svmtune_device.reports_use). Never sleeps.
 */
void svmtune_note_access(struct svmtune_device *dev, struct mm_struct *mm,
			 const struct svmtune_access *access)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	u64 hits = access->tlb_hits, misses = access->tlb_misses;
	struct svmtune_range *range = NULL;
	u64 *rc;

	if (hits || misses)
		trace_svmtune_tlb(dev, access->addr, hits, misses);
	if (!smm) {
		svmtune_count(dev, NULL, NULL, SVMTUNE_CNT_TLB_HITS, hits);
		svmtune_count(dev, NULL, NULL, SVMTUNE_CNT_TLB_MISSES, misses);
		return;
	}
	spin_lock(&smm->lock);
	if (hits || misses) {
		range = svmtune_range_find(smm, access->addr);
		rc = range ? range->counters : NULL;
		svmtune_count(dev, smm->counters, rc, SVMTUNE_CNT_TLB_HITS, hits);
		svmtune_count(dev, smm->counters, rc, SVMTUNE_CNT_TLB_MISSES,
			      misses);
	}
	if (access->used_end > access->used_start)
		svmtune_used_locked(dev, smm, access->used_start & PAGE_MASK,
				    PAGE_ALIGN(access->used_end));
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_note_access);

/**
 * svmtune_account_fragments() - record pages a device mapped, by fragment
 * @dev: the device
 * @shift: log2 bytes of the PTE fragment the pages were mapped with
 *	(%PAGE_SHIFT to %PAGE_SHIFT + 31; larger counts as the largest)
 * @npages: how many 4 KiB pages
 *
 * For backends that know the fragments they write (the emulated GPU's page
 * table, amdgpu's amdgpu_vm_update_ptes tracepoint). Never sleeps; callable
 * in atomic context.
 */
void svmtune_account_fragments(struct svmtune_device *dev, unsigned int shift,
			       unsigned long npages)
{
	unsigned int i = clamp_t(unsigned int, shift, PAGE_SHIFT,
				 PAGE_SHIFT + SVMTUNE_NR_FRAGMENT_SIZES - 1) - PAGE_SHIFT;

	if (!npages)
		return;
	trace_svmtune_fragments(dev, i + PAGE_SHIFT, npages);
	this_cpu_add(dev->stats->fragment_pages[i], npages);
}
EXPORT_SYMBOL_GPL(svmtune_account_fragments);

/**
 * svmtune_account_evicted() - record pages moved out of a full device
 * @dev: the device that made room
 * @mm: the address space the pages belong to; its users referenced
 * @addr: an address of the evicted span, for the range counters
 * @npages: pages moved to system memory
 *
 * Never sleeps.
 */
void svmtune_account_evicted(struct svmtune_device *dev, struct mm_struct *mm,
			     unsigned long addr, unsigned long npages)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_range *range;

	if (!smm) {
		svmtune_count(dev, NULL, NULL, SVMTUNE_CNT_EVICTED_PAGES, npages);
		return;
	}
	spin_lock(&smm->lock);
	range = svmtune_range_find(smm, addr);
	svmtune_count(dev, smm->counters, range ? range->counters : NULL,
		      SVMTUNE_CNT_EVICTED_PAGES, npages);
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_account_evicted);
