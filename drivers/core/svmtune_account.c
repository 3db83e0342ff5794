// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: what backends report: what moved for a fault, where pages
 * are, what the device used, waste, fragments mapped, evictions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "svmtune_internal.h"
#include "svmtune_trace.h"

/* Blocks one residency report may make for whole blocks arriving. */
#define SVMTUNE_NOTE_NEW_WHOLE_BLOCKS	8

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
	struct svmtune_params prm;
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
	svmtune_params_get(&prm);
	if (blk && prm.adaptive && blk->ad.last_window &&
	    2 * npages >= blk->ad.last_window && blk->ad.shift > prm.adaptive_min) {
		blk->ad.shift--;
		if (range)
			range->ad_hint = blk->ad.shift;
	}
	svmtune_bpf_waste(dev, smm, range, blk, addr, npages);
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_account_waste);

/*
 * Pages [@start, @end) left for system memory: the blocks there are no
 * longer resident there, and, at @now (0: not a fault's move), the move is
 * what a later fault may reverse. Returns how many were resident.
 */
static unsigned long svmtune_resident_gone(struct svmtune_mm *smm,
					   unsigned long start,
					   unsigned long end, u64 now,
					   const struct svmtune_params *prm)
{
	unsigned long index, gone = 0;
	struct svmtune_block *blk;

	lockdep_assert_held(&smm->lock);
	/* Only blocks that exist: a span may be a whole KFD range. */
	xa_for_each_range(&smm->blocks, index, blk,
			  start >> SVMTUNE_BLOCK_SHIFT,
			  (end - 1) >> SVMTUNE_BLOCK_SHIFT) {
		unsigned long base = index << SVMTUNE_BLOCK_SHIFT;
		unsigned int first = start > base ?
			(start - base) >> PAGE_SHIFT : 0;
		unsigned int last = end - base < SVMTUNE_BLOCK_SIZE ?
			(end - base) >> PAGE_SHIFT : SVMTUNE_BLOCK_PAGES;

		gone += svmtune_bits_in(blk->resident, first, last - first);
		bitmap_clear(blk->resident, first, last - first);
		bitmap_clear(blk->prefetched, first, last - first);
		bitmap_clear(blk->touched, first, last - first);
		if (now)
			svmtune_thrash_record(blk, true, first,
					      last - first, now, prm);
		if (bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES))
			blk->loc = SVMTUNE_LOC_UNSET;
		svmtune_block_lru_update(blk, NULL);
	}
	return gone;
}

/*
 * Pages [@start, @end) arrived on @dev (@loc) for @decision (NULL: not a
 * fault's): the blocks there, made if wanted, are resident there; pages
 * outside the fault's own window were prefetched. Returns how many were
 * not resident before, of the blocks the engine tracks, if @count (for a
 * program), else 0.
 */
static unsigned long svmtune_resident_arrived(struct svmtune_device *dev,
					      struct svmtune_mm *smm,
					      const struct svmtune_decision *decision,
					      unsigned long start,
					      unsigned long end, u32 loc,
					      u64 now,
					      const struct svmtune_params *prm,
					      bool count)
{
	DECLARE_BITMAP(arrived, SVMTUNE_BLOCK_PAGES);
	unsigned int new_whole = SVMTUNE_NOTE_NEW_WHOLE_BLOCKS;
	unsigned long addr, next, changed = 0;
	struct svmtune_block *blk;

	lockdep_assert_held(&smm->lock);
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
		if (svmtune_blocks_wanted(prm) && (!whole || new_whole)) {
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
		if (count)
			changed += bitmap_weight(arrived, SVMTUNE_BLOCK_PAGES);
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
			svmtune_thrash_record(blk, false, first, n, now, prm);
		svmtune_block_lru_update(blk, dev);
		range = pf ? svmtune_range_find(smm, addr) : NULL;
		svmtune_count(dev, smm->counters, range ? range->counters : NULL,
			      SVMTUNE_CNT_PREFETCH_PAGES, pf);
	}
	return changed;
}

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
	struct svmtune_params prm;
	unsigned long changed;
	u64 now = 0;

	lockdep_assert_held(&smm->lock);
	if (start >= end)
		return;
	svmtune_params_get(&prm);
	/* A fault's moves are what a later fault may reverse. */
	if (decision && prm.thrashing != SVMTUNE_THRASHING_OFF)
		now = ktime_get_ns();
	if (loc == SVMTUNE_LOC_SYSTEM)
		changed = svmtune_resident_gone(smm, start, end, now, &prm);
	else
		changed = svmtune_resident_arrived(dev, smm, decision, start,
						   end, loc, now, &prm,
						   svmtune_bpf_on());
	svmtune_bpf_moved(dev, smm, start, end, loc, decision, changed);
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
 * @start: first byte of the span evicted (page-aligned)
 * @end: its end; the pages that moved may be fewer than the span holds
 * @npages: pages moved to system memory
 *
 * With the ``thrashing`` knob at remote, the blocks of the span remember
 * the eviction, so that a fault of @dev that comes back for them within
 * thrashing_lapse_us maps them remotely instead (svmtune_thrash_fault()):
 * the device's memory is oversubscribed, and migrating them again would
 * only evict something else.
 *
 * Never sleeps.
 */
void svmtune_account_evicted(struct svmtune_device *dev, struct mm_struct *mm,
			     unsigned long start, unsigned long end,
			     unsigned long npages)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_range *range;
	struct svmtune_params prm;
	struct svmtune_block *blk;
	unsigned long index;
	u64 now;

	if (!smm) {
		svmtune_count(dev, NULL, NULL, SVMTUNE_CNT_EVICTED_PAGES, npages);
		return;
	}
	svmtune_params_get(&prm);
	spin_lock(&smm->lock);
	range = svmtune_range_find(smm, start);
	svmtune_count(dev, smm->counters, range ? range->counters : NULL,
		      SVMTUNE_CNT_EVICTED_PAGES, npages);
	if (prm.thrashing == SVMTUNE_THRASHING_REMOTE && end > start) {
		now = ktime_get_ns();
		xa_for_each_range(&smm->blocks, index, blk,
				  start >> SVMTUNE_BLOCK_SHIFT,
				  (end - 1) >> SVMTUNE_BLOCK_SHIFT) {
			blk->th.evict_ns = now;
			blk->th.evict_dev = dev->id;
		}
	}
	spin_unlock(&smm->lock);
}
EXPORT_SYMBOL_GPL(svmtune_account_evicted);
