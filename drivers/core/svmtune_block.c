// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: per-block state.
 *
 * The engine keeps what it knows page by page in aligned 2 MiB blocks of
 * an address space (struct svmtune_block): which pages the backends moved
 * to a device, which of those density prefetch brought and the device has
 * not used yet, and the adaptive window. A block is made on the first
 * device fault in it (or the first residency report), lazily, so memory is
 * spent only where devices work: about 0.3 byte per 4 KiB page of a block.
 *
 * Blocks sit in an xarray per address space (svmtune_mm.blocks). Lookups,
 * changes and erases happen under svmtune_mm.lock, a spinlock that an
 * unmap takes in an mmu notifier; inserts happen without it, so that a
 * new block and the xarray nodes it needs are allocated with the caller's
 * gfp flags, and the xarray's own lock orders them (it nests inside
 * svmtune_mm.lock for erases, and is taken alone for inserts). A block is
 * freed only under svmtune_mm.lock, after it was erased: every user looks
 * it up again under that lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/slab.h>

#include "svmtune_internal.h"

static struct kmem_cache *svmtune_block_cache;
static atomic_long_t svmtune_nr_blocks = ATOMIC_LONG_INIT(0);

/* The goal the design sets: at most 2 bytes of state per managed page. */
static_assert(sizeof(struct svmtune_block) <= 2 * SVMTUNE_BLOCK_PAGES);

/**
 * svmtune_block_find() - the block containing an address
 * @smm: the address space, its lock held
 * @addr: the address
 *
 * Return: the block, or NULL if none was made for @addr.
 */
struct svmtune_block *svmtune_block_find(struct svmtune_mm *smm,
					 unsigned long addr)
{
	lockdep_assert_held(&smm->lock);
	return xa_load(&smm->blocks, addr >> SVMTUNE_BLOCK_SHIFT);
}

/**
 * svmtune_block_lock() - lock an address space and find or make a block
 * @smm: the address space; its lock not held
 * @addr: an address in the block
 * @gfp: how to allocate a missing block (it may sleep only if @gfp allows)
 *
 * Returns with @smm's lock held, whatever the result.
 *
 * Return: the block, or NULL if it did not exist and could not be made.
 */
struct svmtune_block *svmtune_block_lock(struct svmtune_mm *smm,
					 unsigned long addr, gfp_t gfp)
	__acquires(&smm->lock)
{
	unsigned long index = addr >> SVMTUNE_BLOCK_SHIFT;
	struct svmtune_block *blk;

	spin_lock(&smm->lock);
	blk = xa_load(&smm->blocks, index);
	if (blk)
		return blk;
	spin_unlock(&smm->lock);

	blk = kmem_cache_zalloc(svmtune_block_cache, gfp);
	if (blk) {
		blk->loc = SVMTUNE_LOC_UNSET;
		/* -EBUSY: made meanwhile by another fault; use that one. */
		if (xa_insert(&smm->blocks, index, blk, gfp | __GFP_ACCOUNT))
			kmem_cache_free(svmtune_block_cache, blk);
		else
			atomic_long_inc(&svmtune_nr_blocks);
	}
	spin_lock(&smm->lock);
	return xa_load(&smm->blocks, index);
}

static void svmtune_block_free(struct svmtune_block *blk)
{
	kmem_cache_free(svmtune_block_cache, blk);
	atomic_long_dec(&svmtune_nr_blocks);
}

/**
 * svmtune_blocks_unmap() - forget what the engine knew of unmapped pages
 * @smm: the address space, its lock held
 * @start: first byte unmapped
 * @end: end of the unmapped span
 *
 * Blocks wholly inside go; blocks the span cuts lose those pages' bits.
 * Allocates nothing (called from an mmu notifier).
 */
void svmtune_blocks_unmap(struct svmtune_mm *smm, unsigned long start,
			  unsigned long end)
{
	unsigned long index, first = start >> SVMTUNE_BLOCK_SHIFT;
	struct svmtune_block *blk;

	lockdep_assert_held(&smm->lock);
	xa_for_each_range(&smm->blocks, index, blk, first,
			  (end - 1) >> SVMTUNE_BLOCK_SHIFT) {
		unsigned long base = index << SVMTUNE_BLOCK_SHIFT;
		unsigned long lo = max(start, base) - base;
		unsigned long hi = min(end, base + SVMTUNE_BLOCK_SIZE) - base;

		if (!lo && hi == SVMTUNE_BLOCK_SIZE) {
			xa_erase(&smm->blocks, index);
			svmtune_block_free(blk);
			continue;
		}
		bitmap_clear(blk->resident, lo >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
		bitmap_clear(blk->prefetched, lo >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
		if (bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES))
			blk->loc = SVMTUNE_LOC_UNSET;
	}
}

/**
 * svmtune_blocks_free() - free every block of an address space being freed
 * @smm: the address space; nothing else can reach it any more
 */
void svmtune_blocks_free(struct svmtune_mm *smm)
{
	struct svmtune_block *blk;
	unsigned long index;

	xa_for_each(&smm->blocks, index, blk)
		svmtune_block_free(blk);
	xa_destroy(&smm->blocks);
}

/**
 * svmtune_blocks_forget_device() - a device is going: its pages are not
 *	resident anywhere the engine knows of any more
 * @smm: the address space, its lock held
 * @id: the device's id
 */
void svmtune_blocks_forget_device(struct svmtune_mm *smm, u32 id)
{
	struct svmtune_block *blk;
	unsigned long index;

	lockdep_assert_held(&smm->lock);
	xa_for_each(&smm->blocks, index, blk) {
		if (blk->loc != id)
			continue;
		bitmap_zero(blk->resident, SVMTUNE_BLOCK_PAGES);
		bitmap_zero(blk->prefetched, SVMTUNE_BLOCK_PAGES);
		blk->loc = SVMTUNE_LOC_UNSET;
	}
}

/**
 * svmtune_block_count() - how many blocks all address spaces hold now
 *
 * Return: the number, each sizeof(struct svmtune_block) bytes.
 */
unsigned long svmtune_block_count(void)
{
	return atomic_long_read(&svmtune_nr_blocks);
}

int svmtune_block_init(void)
{
	/* Blocks are made on behalf of a process: charged to its memory cgroup. */
	svmtune_block_cache = KMEM_CACHE(svmtune_block, SLAB_ACCOUNT);
	return svmtune_block_cache ? 0 : -ENOMEM;
}

void svmtune_block_exit(void)
{
	kmem_cache_destroy(svmtune_block_cache);
}
