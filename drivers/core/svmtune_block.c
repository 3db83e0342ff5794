// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: per-block state.
 *
 * The engine keeps what it knows page by page in aligned 2 MiB blocks of
 * an address space (struct svmtune_block): which pages the backends moved
 * to a device, which of those density prefetch brought and the device has
 * not used yet, and the adaptive window. A block is made on the first
 * device fault in it (or the first residency report), lazily, so memory is
 * spent only where devices work: 672 bytes a block on x86-64, 1.3 bytes
 * per 4 KiB page.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_mm.blocks`` (xarray, its own spinlock)
 *     The blocks of an address space. Lookups, changes and erases happen
 *     under ``svmtune_mm.lock``, which an unmap takes in an mmu notifier;
 *     inserts happen without it (svmtune_block_get() drops it), so that a
 *     new block and the xarray nodes it needs are allocated with the
 *     caller's gfp flags (``xa_insert()``; a lost race frees the new
 *     block). The xarray's own lock nests inside ``svmtune_mm.lock`` for
 *     erases and is taken alone for inserts. A block is freed only under
 *     ``svmtune_mm.lock``, after it was erased, and every user looks it up
 *     again under that lock after an insert, so a block an unmap freed
 *     meanwhile is never used.
 *
 * ``svmtune_device.lru_lock`` (spinlock)
 *     Protects a device's LRU of blocks (``svmtune_device.lru``). A block
 *     whose pages sit on one device is on that LRU, moved to the tail when
 *     pages arrive or the device uses one; it moves on or off under its
 *     address space's ``svmtune_mm.lock``, inside which this lock is
 *     taken. A full device's backend asks svmtune_evict_victim() for the
 *     head, which takes this lock alone and no other under it. A block
 *     leaves the LRU when its pages leave, before it is freed, and when
 *     its address space is put (svmtune_blocks_leave_lru()), so no LRU
 *     ever holds a block of a freed state, and a device that unregisters
 *     finds its LRU empty of live blocks (svmtune_blocks_forget_device()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "svmtune_internal.h"
#include "svmtune_trace.h"

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
 * svmtune_block_get() - find or make a block, its address space locked
 * @smm: the address space, its lock held
 * @addr: an address in the block
 * @gfp: how to allocate a missing block; the lock is dropped for the
 *	allocation and taken again, so what the caller found under it before
 *	must be looked up again when a block was missing
 *
 * Return: the block, or NULL if it did not exist and could not be made.
 */
struct svmtune_block *svmtune_block_get(struct svmtune_mm *smm,
					unsigned long addr, gfp_t gfp)
	__must_hold(&smm->lock)
{
	unsigned long index = addr >> SVMTUNE_BLOCK_SHIFT;
	struct svmtune_charge charge;
	struct svmtune_block *blk;

	lockdep_assert_held(&smm->lock);
	blk = xa_load(&smm->blocks, index);
	if (blk)
		return blk;
	spin_unlock(&smm->lock);

	/* The process's memcg pays, even from KFD's fault worker. */
	svmtune_charge_begin(&charge, smm->mm);
	blk = kmem_cache_zalloc(svmtune_block_cache, gfp);
	if (blk) {
		blk->loc = SVMTUNE_LOC_UNSET;
		INIT_LIST_HEAD(&blk->lru);
		blk->smm = smm;
		blk->base = index << SVMTUNE_BLOCK_SHIFT;
		/* -EBUSY: made meanwhile by another fault; use that one. */
		if (xa_insert(&smm->blocks, index, blk, gfp | __GFP_ACCOUNT))
			kmem_cache_free(svmtune_block_cache, blk);
		else
			atomic_long_inc(&svmtune_nr_blocks);
	}
	svmtune_charge_end(&charge);
	spin_lock(&smm->lock);
	return xa_load(&smm->blocks, index);
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
	lockdep_assert_not_held(&smm->lock);
	spin_lock(&smm->lock);
	return svmtune_block_get(smm, addr, gfp);
}

/*
 * Take @blk off the LRU it is on, if any: its pages left that device, and
 * those that come next start unused. Its address space's lock held.
 */
static void svmtune_block_lru_del(struct svmtune_block *blk)
{
	struct svmtune_device *dev = blk->lru_dev;

	lockdep_assert_held(&blk->smm->lock);
	if (!dev)
		return;
	spin_lock(&dev->lru_lock);
	list_del_init(&blk->lru);
	WRITE_ONCE(blk->used, false);
	spin_unlock(&dev->lru_lock);
	blk->lru_dev = NULL;
}

/**
 * svmtune_block_lru_update() - pages of a block arrived or were used
 * @blk: the block, its address space's lock held
 * @dev: the device they arrived on or that used them, or NULL (they left)
 *
 * A block with pages on one device goes to the tail of that device's LRU
 * (most recent); one with none, or with pages on two, leaves it.
 */
void svmtune_block_lru_update(struct svmtune_block *blk,
			      struct svmtune_device *dev)
{
	lockdep_assert_held(&blk->smm->lock);
	if (!dev || blk->loc != dev->id ||
	    bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES)) {
		if (blk->loc == SVMTUNE_LOC_UNSET ||
		    bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES))
			svmtune_block_lru_del(blk);
		return;
	}
	if (blk->lru_dev && blk->lru_dev != dev)
		svmtune_block_lru_del(blk);
	/*
	 * Already the most recent: a stream faults page after page in one
	 * block, and each would take the device's lock for nothing. Read
	 * without that lock, so another block can just have moved behind
	 * this one: it then stays second, which an LRU order can afford.
	 */
	if (blk->lru_dev == dev && data_race(READ_ONCE(blk->lru.next)) == &dev->lru)
		return;
	spin_lock(&dev->lru_lock);
	list_move_tail(&blk->lru, &dev->lru);
	spin_unlock(&dev->lru_lock);
	blk->lru_dev = dev;
}

/**
 * svmtune_blocks_leave_lru() - take an address space's blocks off every LRU
 * @smm: the address space, its lock held, being put: its blocks are freed
 *	without its lock after a grace period that LRU walkers do not wait for
 */
void svmtune_blocks_leave_lru(struct svmtune_mm *smm)
{
	struct svmtune_block *blk;
	unsigned long index;

	lockdep_assert_held(&smm->lock);
	xa_for_each(&smm->blocks, index, blk)
		svmtune_block_lru_del(blk);
}

/* LRU entries a victim search looks at for a block the device never used. */
#define SVMTUNE_EVICT_SCAN	64

/*
 * Whether @blk, on @dev's LRU (its lru_lock held), may be given up for
 * the fault of @mm whose window is [@start, @end).
 */
static bool svmtune_evict_ok(struct svmtune_device *dev,
			     struct svmtune_block *blk, struct mm_struct *mm,
			     unsigned long start, unsigned long end)
{
	lockdep_assert_held(&dev->lru_lock);
	return !(blk->smm->mm == mm && blk->base < end &&
		 start < blk->base + SVMTUNE_BLOCK_SIZE);
}

/*
 * A program's choice (svmtune_bpf_evict()) among the first
 * %SVMTUNE_EVICT_SCAN candidates of @dev's LRU, its lru_lock held: the
 * first it takes; those it spares are marked in @spared, by LRU position.
 */
static struct svmtune_block *svmtune_evict_asked(struct svmtune_device *dev,
						 struct mm_struct *mm,
						 unsigned long start,
						 unsigned long end,
						 unsigned long *spared)
{
	/* The faulting address space's state, once for every candidate. */
	const struct svmtune_mm *fsmm = mm ? svmtune_mm_find(mm) : NULL;
	struct svmtune_block *blk;
	unsigned int pos = 0;

	lockdep_assert_held(&dev->lru_lock);
	if (!svmtune_bpf_evict_wanted(fsmm))
		return NULL;
	list_for_each_entry(blk, &dev->lru, lru) {
		if (pos >= SVMTUNE_EVICT_SCAN)
			break;
		if (svmtune_evict_ok(dev, blk, mm, start, end)) {
			switch (svmtune_bpf_evict(dev, fsmm, blk, pos)) {
			case SVMTUNE_BPF_EVICT_TAKE:
				if (mmget_not_zero(blk->smm->mm))
					return blk;
				break;
			case SVMTUNE_BPF_EVICT_SPARE:
				__set_bit(pos, spared);
				break;
			}
		}
		pos++;
	}
	return NULL;
}

/*
 * The built-in choice on @dev's LRU, its lru_lock held: the least recent
 * block that may go (only among the first %SVMTUNE_EVICT_SCAN, and only
 * one the device never used, when @unused), not spared by a program.
 */
static struct svmtune_block *svmtune_evict_scan(struct svmtune_device *dev,
						struct mm_struct *mm,
						unsigned long start,
						unsigned long end,
						const unsigned long *spared,
						bool unused)
{
	struct svmtune_block *blk;
	unsigned int pos = 0;

	lockdep_assert_held(&dev->lru_lock);
	list_for_each_entry(blk, &dev->lru, lru) {
		bool mine = pos < SVMTUNE_EVICT_SCAN;

		pos++;
		if (unused && !mine)
			break;
		if ((mine && test_bit(pos - 1, spared)) ||
		    (unused && READ_ONCE(blk->used)) ||
		    !svmtune_evict_ok(dev, blk, mm, start, end))
			continue;
		if (mmget_not_zero(blk->smm->mm))
			return blk;
	}
	return NULL;
}

/**
 * svmtune_evict_victim() - the block a full device should give up first
 * @dev: the device
 * @mm: the address space of the fault that needs room, or NULL
 * @start: that fault's window, which is not to be chosen
 * @end: its end
 * @victim: filled in when a block is found
 *
 * A block with pages on @dev whose address space still has users, other
 * than one overlapping [@start, @end) of @mm: for a device that reports
 * use, the least recent of those it never used since they arrived (an
 * explicit prefetch nobody read yet), among the first
 * %SVMTUNE_EVICT_SCAN of its LRU, as NVIDIA UVM evicts unused chunks
 * first; otherwise the least recently migrated-to or used. An attached
 * program (svmtune_bpf_evict()) is asked first about each of the first
 * %SVMTUNE_EVICT_SCAN candidates: the first it takes is the victim, and
 * those it spares are not chosen by the built-in order either. It goes to
 * the tail of the LRU, so that concurrent evictions pick different blocks;
 * its pages leave the LRU when the backend reports them gone. Never
 * sleeps.
 *
 * Return: true and @victim filled (the caller evicts the pages of @dev in
 * [@victim->start, @victim->end) and mmput()s @victim->mm), or false (none,
 * or the ``evict_when_full`` knob is 0: the backend maps remotely what did
 * not fit).
 */
bool svmtune_evict_victim(struct svmtune_device *dev, struct mm_struct *mm,
			  unsigned long start, unsigned long end,
			  struct svmtune_evict *victim)
{
	DECLARE_BITMAP(spared, SVMTUNE_EVICT_SCAN) = {};
	struct svmtune_block *found;

	if (!READ_ONCE(svmtune_params.evict_when_full))
		return false;
	spin_lock(&dev->lru_lock);
	/*
	 * The blocks, their address spaces' states and the mm_structs (which
	 * the states' notifiers hold) live while the blocks are on the LRU;
	 * the mms' users may be gone.
	 */
	found = svmtune_evict_asked(dev, mm, start, end, spared);
	if (!found && dev->reports_use)
		found = svmtune_evict_scan(dev, mm, start, end, spared, true);
	if (!found)
		found = svmtune_evict_scan(dev, mm, start, end, spared, false);
	if (found) {
		victim->mm = found->smm->mm;
		victim->start = found->base;
		victim->end = found->base + SVMTUNE_BLOCK_SIZE;
		list_move_tail(&found->lru, &dev->lru);
	}
	spin_unlock(&dev->lru_lock);
	return found;
}
EXPORT_SYMBOL_GPL(svmtune_evict_victim);

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
		/* end - base, not base + size: the top block's end wraps. */
		unsigned long hi = min(end - base, SVMTUNE_BLOCK_SIZE);

		if (!lo && hi == SVMTUNE_BLOCK_SIZE) {
			xa_erase(&smm->blocks, index);
			svmtune_block_lru_del(blk);
			svmtune_block_free(blk);
			continue;
		}
		bitmap_clear(blk->resident, lo >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
		bitmap_clear(blk->prefetched, lo >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
		bitmap_clear(blk->touched, lo >> PAGE_SHIFT, (hi - lo) >> PAGE_SHIFT);
		if (bitmap_empty(blk->resident, SVMTUNE_BLOCK_PAGES)) {
			blk->loc = SVMTUNE_LOC_UNSET;
			svmtune_block_lru_del(blk);
		}
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
		if (blk->lru_dev && blk->lru_dev->id == id)
			svmtune_block_lru_del(blk);
		if (blk->loc != id)
			continue;
		bitmap_zero(blk->resident, SVMTUNE_BLOCK_PAGES);
		bitmap_zero(blk->prefetched, SVMTUNE_BLOCK_PAGES);
		bitmap_zero(blk->touched, SVMTUNE_BLOCK_PAGES);
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
