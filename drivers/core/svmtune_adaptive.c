// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: adaptive granularity, per 2 MiB block.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "svmtune_internal.h"

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

unsigned int svmtune_adaptive_start(const struct svmtune_params *prm)
{
	return clamp_t(unsigned int, SVMTUNE_ADAPTIVE_START,
		       prm->adaptive_min, prm->adaptive_max);
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
 * learnt its small window alone. A block a stream grew keeps its window for
 * one fault out of place (a stream starting again where the CPU took its
 * pages back, or faults out of order) and needs two in a row.
 */
void svmtune_adaptive_fault(const struct svmtune_device *dev,
			    struct svmtune_mm *smm,
			    struct svmtune_range *range,
			    struct svmtune_block *blk, unsigned long addr,
			    const struct svmtune_params *prm)
{
	unsigned int lo = prm->adaptive_min;
	unsigned int hi = prm->adaptive_max;
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
			ad->shift = svmtune_adaptive_start(prm);
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

/*
 * Adaptive mode: a device fault in a block the device has used densely
 * (SVMTUNE_ADAPTIVE_DENSE_PAGES, see SVMTUNE_ADAPTIVE_START's comment)
 * migrates the rest of the block, within [@lo, @hi). Address space's lock
 * held; for a fault migrating to @dev.
 */
void svmtune_adaptive_dense(const struct svmtune_block *blk,
			    const struct svmtune_device *dev,
			    unsigned long addr, unsigned long lo,
			    unsigned long hi, struct svmtune_decision *d)
{
	unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
	unsigned long end = base + SVMTUNE_BLOCK_SIZE;

	lockdep_assert_held(&blk->smm->lock);
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
	struct svmtune_params prm;

	if (smm)
		lockdep_assert_held(&smm->lock);
	svmtune_params_get(&prm);
	if (!prm.adaptive)
		return prm.granularity;
	blk = smm ? svmtune_block_find(smm, addr) : NULL;
	/* The bounds may have moved since the block's last fault. */
	if (blk && blk->ad.shift)
		return clamp_t(unsigned int, blk->ad.shift, prm.adaptive_min,
			       prm.adaptive_max);
	range = smm ? svmtune_range_find(smm, addr) : NULL;
	if (range && range->ad_hint)
		return clamp_t(unsigned int, range->ad_hint, prm.adaptive_min,
			       prm.adaptive_max);
	return svmtune_adaptive_start(&prm);
}
