// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: widening a migration: density prefetch, whole fragment
 * blocks, and the cap for devices that map no fragments of their own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "svmtune_internal.h"

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
void svmtune_prefetch(struct svmtune_block *blk,
		      const struct svmtune_device *dev,
		      unsigned long addr, unsigned long lo,
		      unsigned long hi, struct svmtune_decision *d,
		      unsigned int thr)
{
	unsigned long base = ALIGN_DOWN(addr, SVMTUNE_BLOCK_SIZE);
	unsigned int ws, we, order, first, n, best_first = 0, best_n = 0;
	DECLARE_BITMAP(dense, SVMTUNE_BLOCK_PAGES);

	lockdep_assert_held(&blk->smm->lock);
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
void svmtune_fragment_widen(struct svmtune_block *blk,
			    const struct svmtune_device *dev,
			    unsigned long addr, unsigned long lo,
			    unsigned long hi, struct svmtune_decision *d)
{
	unsigned long size = 1UL << d->fragment;
	unsigned long base = ALIGN_DOWN(addr, size);
	unsigned long end = base + size;
	DECLARE_BITMAP(all, SVMTUNE_BLOCK_PAGES);
	unsigned long ws, we, bs, n;

	lockdep_assert_held(&blk->smm->lock);
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
void svmtune_fragment_clip(unsigned long addr, struct svmtune_decision *d)
{
	unsigned long cs = ALIGN_DOWN(addr, 1UL << d->fragment_cap);
	unsigned long ce = cs + (1UL << d->fragment_cap);

	d->start = max(d->start, cs);
	if (ce > cs)
		d->end = min(d->end, ce);
	d->fault_start = max(d->fault_start, d->start);
	d->fault_end = min(d->fault_end, d->end);
}
