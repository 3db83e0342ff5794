// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the decision for a fault.
 *
 * For every fault a backend reports, svmtune_decide() picks the window
 * (the granularity-aligned block around the fault, clipped to the limits the
 * backend gave and to the policy range) and the action (migrate, or map
 * remotely), in named stages over one copy of the knobs
 * (svmtune_decide_in()). svmtune_account() records what the backend then
 * did.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "svmtune_internal.h"
#include "svmtune_trace.h"

/**
 * struct svmtune_decide_state - one decision in the making
 * @dev: the device that faulted
 * @smm: the address space's state, its lock held; or NULL
 * @range: the fault's policy range, or NULL
 * @blk: the fault's block, or NULL
 * @fault: the fault
 * @prm: the knobs, read once for the whole decision
 * @eff: the policy in effect at the fault
 * @addr: the faulting page
 * @lo: the lowest address the window may take (the backend's limit, the
 *	range's start)
 * @hi: the highest (exclusive)
 * @cpu: a CPU fault
 * @pinned: the fault's chunk is pinned by thrashing mitigation
 * @adaptive: the window size is the block's adaptive one
 * @throttle: how long the fault should wait, ns
 */
struct svmtune_decide_state {
	struct svmtune_device *dev;
	struct svmtune_mm *smm;
	struct svmtune_range *range;
	struct svmtune_block *blk;
	const struct svmtune_fault *fault;
	const struct svmtune_params *prm;
	struct svmtune_policy eff;
	unsigned long addr;
	unsigned long lo;
	unsigned long hi;
	bool cpu;
	bool pinned;
	bool adaptive;
	u64 throttle;
};

/*
 * Stage 1, thrashing: whether the fault's chunk is pinned, and how long it
 * waits. With thrashing off, the fault path reads no clock; nor for a
 * fixed window, which the engine's windows do not describe, nor where the
 * range or process opted out.
 */
static void svmtune_decide_thrashing(struct svmtune_decide_state *st)
{
	if (st->blk && st->prm->thrashing != SVMTUNE_THRASHING_OFF &&
	    !st->fault->fixed && st->eff.thrashing != SVMTUNE_THRASH_OPT_OUT)
		st->pinned = svmtune_thrash_fault(st->dev, st->smm, st->range,
						  st->blk, st->prm, st->fault,
						  st->addr, ktime_get_ns(),
						  &st->throttle);
}

/*
 * Stage 2, the window's size, log2 bytes: the range's or process's
 * granularity, else the block's adaptive window, else the global one. A
 * CPU fault on a page whose preferred home is the device holding it takes
 * only that page back: the rest stays where it is wanted.
 */
static unsigned int svmtune_decide_size(struct svmtune_decide_state *st)
{
	const struct svmtune_fault *fault = st->fault;
	struct svmtune_block *blk = st->blk;
	unsigned int shift = st->eff.granularity;

	if (shift == SVMTUNE_GRANULARITY_UNSET) {
		if (st->prm->adaptive && blk && !fault->fixed) {
			st->adaptive = true;
			/* A throttled fault asking again is not a new one. */
			if ((!st->cpu && !fault->retried) || !blk->ad.shift)
				svmtune_adaptive_fault(st->dev, st->smm, st->range,
						       blk, st->addr, st->prm);
			shift = blk->ad.shift;
		} else {
			shift = st->prm->granularity;
		}
	}
	if (st->cpu && st->eff.preferred_loc == st->dev->id)
		shift = PAGE_SHIFT;
	return shift;
}

/*
 * Stage 3, the cut: the block of 2^@shift bytes around the fault, within
 * the limits (or the backend's fixed window), and its PTE fragment.
 */
static void svmtune_decide_cut(struct svmtune_decide_state *st,
			       unsigned int shift, struct svmtune_decision *d)
{
	svmtune_window_cut(st->addr, st->lo, st->hi, shift, d);
	if (st->fault->fixed) {
		d->start = st->fault->lo;
		d->end = st->fault->hi;
	}
	d->fault_start = d->start;
	d->fault_end = d->end;
	d->throttle_ns = st->throttle;
	/* One read of the cap: the fragment never exceeds the cap it carries. */
	d->fragment_cap = st->prm->fragment_cap;
	d->fragment = svmtune_fragment_capped(&st->eff, st->prm);
}

/*
 * Stage 4, the action: a CPU fault migrates to system memory; a pinned
 * chunk, a remote or read-mostly range (for a read) or a range preferring
 * another place maps remotely (only the run of pinned 64 KiB chunks around
 * the fault, if pinned: the rest may migrate); anything else migrates to
 * the faulting device.
 */
static void svmtune_decide_action(struct svmtune_decide_state *st,
				  struct svmtune_decision *d)
{
	const struct svmtune_policy *eff = &st->eff;

	if (st->cpu) {
		d->action = SVMTUNE_MIGRATE;
		d->dest = SVMTUNE_LOC_SYSTEM;
		return;
	}
	if (st->pinned || eff->access == SVMTUNE_ACCESS_REMOTE ||
	    (eff->access == SVMTUNE_ACCESS_READ_MOSTLY && !st->fault->write) ||
	    (eff->preferred_loc != SVMTUNE_LOC_UNSET &&
	     eff->preferred_loc != st->dev->id)) {
		d->action = SVMTUNE_MAP_REMOTE;
		d->dest = eff->preferred_loc == SVMTUNE_LOC_UNSET || st->pinned ?
			  SVMTUNE_LOC_SYSTEM : eff->preferred_loc;
		if (st->pinned)
			svmtune_thrash_remote_window(st->blk, st->addr, d);
		return;
	}
	d->action = SVMTUNE_MIGRATE;
	d->dest = st->dev->id;
}

/*
 * Stage 5, widen a migration to the device: the rest of a dense block
 * (adaptive), density prefetch, a whole fragment block (fragment "auto");
 * never into pages that are going back and forth, and never over a pinned
 * chunk.
 */
static void svmtune_decide_widen(struct svmtune_decide_state *st,
				 struct svmtune_decision *d)
{
	struct svmtune_block *blk = st->blk;

	if (!blk || st->fault->fixed || st->cpu || d->action != SVMTUNE_MIGRATE)
		return;
	if (!svmtune_block_thrashing(blk)) {
		if (st->adaptive)
			svmtune_adaptive_dense(blk, st->dev, st->addr, st->lo,
					       st->hi, d);
		if (st->prm->prefetch_threshold)
			svmtune_prefetch(blk, st->dev, st->addr, st->lo, st->hi,
					 d, st->prm->prefetch_threshold);
	}
	if (st->prm->fragment_auto)
		svmtune_fragment_widen(blk, st->dev, st->addr, st->lo, st->hi, d);
	if (blk->th.pinned)
		svmtune_thrash_clip(blk, st->addr, d);
}

/*
 * The decision for @fault given its address space's state (@smm, may be
 * NULL), range and block (each may be NULL), with @smm's lock held when it
 * is given, and the knobs @prm: the stages above in order, then the cap
 * of a device that maps no fragments of its own.
 */
static void svmtune_decide_in(struct svmtune_device *dev, struct svmtune_mm *smm,
			      struct svmtune_range *range,
			      struct svmtune_block *blk,
			      const struct svmtune_fault *fault,
			      const struct svmtune_params *prm,
			      struct svmtune_decision *decision)
{
	struct svmtune_decide_state st = {
		.dev = dev, .smm = smm, .range = range, .blk = blk,
		.fault = fault, .prm = prm,
		.addr = fault->addr & PAGE_MASK,
		.lo = fault->lo, .hi = fault->hi,
		.cpu = fault->type == SVMTUNE_FAULT_CPU,
	};

	if (smm)
		lockdep_assert_held(&smm->lock);
	svmtune_policy_effective(smm, range, &st.eff);
	svmtune_decide_thrashing(&st);
	if (range) {
		st.lo = max(st.lo, range->start);
		st.hi = min(st.hi, range->end);
	}
	svmtune_decide_cut(&st, svmtune_decide_size(&st), decision);
	svmtune_decide_action(&st, decision);
	svmtune_decide_widen(&st, decision);
	if (!st.cpu && !fault->fixed && !dev->caps_fragments)
		svmtune_fragment_clip(st.addr, decision);
	/* Stage 6, a program's decision (svmtune_bpf.c), if one is attached. */
	if (!fault->fixed &&
	    svmtune_bpf_decide(dev, smm, range, blk, fault, st.lo, st.hi,
			       decision) &&
	    !st.cpu && !dev->caps_fragments)
		svmtune_fragment_clip(st.addr, decision);

	trace_svmtune_decide(dev, fault, decision, st.pinned);
	if (blk && blk->ad.shift && !st.cpu && !fault->fixed && !fault->retried) {
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
	struct svmtune_params prm;
	struct svmtune_mm *smm;

	svmtune_params_get(&prm);
	smm = svmtune_mm_find(mm);
	if (!smm) {
		svmtune_decide_in(dev, NULL, NULL, NULL, fault, &prm, decision);
		return;
	}

	/*
	 * Device faults make the block (locked on return) when adaptive or
	 * prefetch is on; without one, no adaptive state or prefetch. A CPU
	 * fault makes none.
	 */
	if (fault->type == SVMTUNE_FAULT_DEVICE && !fault->fixed &&
	    svmtune_blocks_wanted(&prm)) {
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
	svmtune_decide_in(dev, smm, range, blk, fault, &prm, decision);
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

/**
 * svmtune_decide_fixed() - the fixed window around a fault, and no policy
 * @dev: the device that faulted (for a CPU fault: the one holding the page)
 * @fault: the fault; &svmtune_fault.lo and &svmtune_fault.hi bound the
 *	window
 * @shift: the window's size, log2 bytes
 * @decision: filled: the aligned block of 2^@shift bytes around the fault
 *	within the bounds, migrating to @dev (a device fault) or to system
 *	memory (a CPU fault), mapped with fragments up to the window's size
 *
 * For a backend's pass-through mode, the baseline the engine is measured
 * against: the window is cut as the engine cuts its own, but no policy,
 * state or knob is read and nothing is recorded (the backend accounts
 * nothing either). Any context; never sleeps.
 */
void svmtune_decide_fixed(const struct svmtune_device *dev,
			  const struct svmtune_fault *fault, unsigned int shift,
			  struct svmtune_decision *decision)
{
	memset(decision, 0, sizeof(*decision));
	svmtune_window_cut(fault->addr & PAGE_MASK, fault->lo, fault->hi, shift,
			   decision);
	decision->fault_start = decision->start;
	decision->fault_end = decision->end;
	decision->fragment = shift;
	decision->fragment_cap = SVMTUNE_GRANULARITY_MAX;
	decision->action = SVMTUNE_MIGRATE;
	decision->dest = fault->type == SVMTUNE_FAULT_CPU ? SVMTUNE_LOC_SYSTEM :
							    dev->id;
}
EXPORT_SYMBOL_GPL(svmtune_decide_fixed);
