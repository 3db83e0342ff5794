// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: the emulated VRAM. Device-private pages are allocated one
 * at a time or as runs reserved for a fragment block, and a context's
 * layout hints remember where each block's run is. edev->lock covers the
 * allocation and reservation state.
 */
#include "svmtune_emu_internal.h"

struct svmtune_emu_device *svmtune_emu_page_device(struct page *page)
{
	return container_of(svmtune_page_pgmap(page), struct svmtune_emu_device, pagemap);
}

struct page *svmtune_emu_backing(struct page *page)
{
	struct svmtune_emu_device *edev = svmtune_emu_page_device(page);

	return edev->backing[svmtune_emu_page_index(edev, page)];
}

static struct page *svmtune_emu_vram_page(struct svmtune_emu_device *edev,
					  unsigned long idx)
{
	struct page *page = pfn_to_page(edev->pfn_first + idx);

	clear_bit(idx, edev->touched);
#ifdef SVMTUNE_DEVICE_THP
	/*
	 * A free page may still be a tail of a 2 MiB device folio freed
	 * whole (the kernel leaves its compound state until the page is
	 * handed out again): its dirty flag, a folio flag, would be read
	 * and cleared through that stale head, which may be a page in use
	 * by now. The page's own state is there once initialised.
	 */
	svmtune_zone_device_page_init(page, &edev->pagemap);
	ClearPageDirty(page);
#else
	/* A new page is clean: only what the GPU writes dirties it. */
	ClearPageDirty(page);
	svmtune_zone_device_page_init(page, &edev->pagemap);
#endif
	return page;
}

/* Mark VRAM page @idx allocated. edev->lock held. */
static void svmtune_emu_take(struct svmtune_emu_device *edev, unsigned long idx)
{
	lockdep_assert_held(&edev->lock);
	__set_bit(idx, edev->used);
	__set_bit(idx, edev->taken);
	edev->nfree--;
}

/*
 * Take a free VRAM page, outside the runs reserved for fragment blocks
 * while there is one; NULL when VRAM is full.
 */
struct page *svmtune_emu_alloc_vram(struct svmtune_emu_device *edev)
{
	unsigned long idx;

	spin_lock(&edev->lock);
	if (!edev->nfree) {
		spin_unlock(&edev->lock);
		return NULL;
	}
	idx = find_next_zero_bit(edev->taken, edev->npages, edev->hint);
	if (idx >= edev->npages)
		idx = find_first_zero_bit(edev->taken, edev->npages);
	if (idx >= edev->npages)
		idx = find_first_zero_bit(edev->used, edev->npages);
	svmtune_emu_take(edev, idx);
	edev->hint = idx + 1;
	spin_unlock(&edev->lock);
	return svmtune_emu_vram_page(edev, idx);
}

/* Take VRAM page @idx if it is free, else any free page; NULL when full. */
struct page *svmtune_emu_alloc_vram_at(struct svmtune_emu_device *edev,
				       unsigned long idx)
{
	spin_lock(&edev->lock);
	if (idx < edev->npages && !test_bit(idx, edev->used)) {
		svmtune_emu_take(edev, idx);
		spin_unlock(&edev->lock);
		return svmtune_emu_vram_page(edev, idx);
	}
	spin_unlock(&edev->lock);
	return svmtune_emu_alloc_vram(edev);
}

static void *svmtune_emu_hint_make(long run, u32 gen, unsigned int frag)
{
	return xa_mk_value((unsigned long)run << SVMTUNE_EMU_HINT_RUN_SHIFT |
			   (gen & SVMTUNE_EMU_HINT_GEN_MASK) << SVMTUNE_EMU_HINT_GEN_SHIFT |
			   frag);
}

static long svmtune_emu_hint_run(void *entry)
{
	return xa_to_value(entry) >> SVMTUNE_EMU_HINT_RUN_SHIFT;
}

static u32 svmtune_emu_hint_gen(void *entry)
{
	return (xa_to_value(entry) >> SVMTUNE_EMU_HINT_GEN_SHIFT) &
	       SVMTUNE_EMU_HINT_GEN_MASK;
}

static unsigned int svmtune_emu_hint_frag(void *entry)
{
	return xa_to_value(entry) & 0x1f;
}

/*
 * Reserve a run of @n VRAM pages aligned to @n (a power of two) for one
 * fragment block, as amdgpu's VRAM manager gives a BO aligned, contiguous
 * blocks: the block's pages go at their offsets in it as they migrate, so
 * they end contiguous in address order whatever order they came in, and
 * amdgpu can map them with one PTE fragment. A reservation allocates
 * nothing: single pages avoid reserved ones while others are free, and a
 * new run takes pages of older reservations when no unreserved run is
 * left. Returns the first index and sets *@gen to its region's generation,
 * or returns -1 if no free run is left.
 */
static long svmtune_emu_reserve_run(struct svmtune_emu_device *edev,
				    unsigned long n, u32 *gen)
{
	unsigned long idx, i;

	lockdep_assert_held(&edev->lock);
	idx = bitmap_find_next_zero_area(edev->taken, edev->npages, 0, n, n - 1);
	if (idx >= edev->npages)
		idx = bitmap_find_next_zero_area(edev->used, edev->npages, 0, n,
						 n - 1);
	if (idx >= edev->npages)
		return -1;
	for (i = idx; i < idx + n; i++)
		edev->holds[i]++;
	bitmap_set(edev->reserved, idx, n);
	bitmap_set(edev->taken, idx, n);
	*gen = edev->region_gen[idx / SVMTUNE_EMU_RUN_REGION];
	return idx;
}

/* Whether the run at @run reserved in generation @gen still is. Lock held. */
static bool svmtune_emu_run_valid(struct svmtune_emu_device *edev, long run,
				  u32 gen)
{
	lockdep_assert_held(&edev->lock);
	return ((edev->region_gen[run / SVMTUNE_EMU_RUN_REGION] ^ gen) &
		SVMTUNE_EMU_HINT_GEN_MASK) == 0;
}

/*
 * Release the reservation of the @n pages at @run (generation @gen): its
 * block no longer wants it. Its allocated pages stay allocated; once freed
 * they are free pages like any other. Pages another run holds too stay
 * reserved for it. Nothing if the region's reservations were dropped since
 * (the run may be another block's now). Lock held.
 */
static void svmtune_emu_release_run(struct svmtune_emu_device *edev, long run,
				    unsigned long n, u32 gen)
{
	unsigned long i;

	lockdep_assert_held(&edev->lock);
	if (!svmtune_emu_run_valid(edev, run, gen))
		return;
	for (i = run; i < run + n; i++) {
		/* Never zero for a valid run: each holder counted itself. */
		if (!edev->holds[i] || --edev->holds[i])
			continue;
		__clear_bit(i, edev->reserved);
		if (!test_bit(i, edev->used))
			__clear_bit(i, edev->taken);
	}
}

/*
 * Free VRAM page @idx. A reserved page stays reserved for its block until
 * its 2 MiB region of VRAM holds no allocated page: then every
 * reservation in the region has nothing left in VRAM, and is dropped.
 * edev->lock held.
 */
static void svmtune_emu_give_back(struct svmtune_emu_device *edev,
				  unsigned long idx)
{
	unsigned long first = ALIGN_DOWN(idx, SVMTUNE_EMU_RUN_REGION);
	unsigned long n = min(SVMTUNE_EMU_RUN_REGION, edev->npages - first);

	lockdep_assert_held(&edev->lock);
	__clear_bit(idx, edev->used);
	edev->nfree++;
	if (!test_bit(idx, edev->reserved)) {
		__clear_bit(idx, edev->taken);
		return;
	}
	if (find_next_bit(edev->used, first + n, first) < first + n)
		return;
	bitmap_clear(edev->reserved, first, n);
	bitmap_clear(edev->taken, first, n);
	memset(&edev->holds[first], 0, n * sizeof(*edev->holds));
	edev->region_gen[first / SVMTUNE_EMU_RUN_REGION]++;
}

void svmtune_emu_page_free(struct page *page)
{
	struct svmtune_emu_device *edev = svmtune_emu_page_device(page);
	unsigned long idx = svmtune_emu_page_index(edev, page);

	/* Freed (unmapped, or the process exited) before the GPU touched it. */
	if (!test_and_set_bit(idx, edev->touched) && !svmtune_emu_passthrough_window)
		svmtune_account_waste(&edev->core, NULL, 0, 1);
	clear_bit(idx, edev->departed);

	spin_lock(&edev->lock);
	svmtune_emu_give_back(edev, idx);
	spin_unlock(&edev->lock);
}

/* Release the run the layout hint @entry names. edev->lock held. */
static void svmtune_emu_hint_release(struct svmtune_emu_device *edev,
				     void *entry)
{
	lockdep_assert_held(&edev->lock);
	svmtune_emu_release_run(edev, svmtune_emu_hint_run(entry),
				1UL << (svmtune_emu_hint_frag(entry) - PAGE_SHIFT),
				svmtune_emu_hint_gen(entry));
}

/* Release the run @entry (a layout hint, may be NULL) names. */
void svmtune_emu_hint_drop(struct svmtune_emu_device *edev, void *entry)
{
	if (!entry)
		return;
	spin_lock(&edev->lock);
	svmtune_emu_hint_release(edev, entry);
	spin_unlock(&edev->lock);
}

/*
 * The first VRAM index of the run of the fragment block at @base (log2
 * bytes @frag) in @ctx, reserving one if the block has none yet, or none
 * still valid, or one of another size (whose run is released first, so
 * the new one may reuse its pages); -1 if no run could be had (the pages
 * then go where they fit). Migrations of one context run in parallel
 * (mmap_lock read-held): the layout's lock makes the look-up and the
 * reservation one step, so two first faults of a block get one run. A
 * block that grew (fragment_size raised) drops the hints, and runs, of
 * the smaller blocks inside it; a block that shrank leaves the bigger
 * block's hint to its first block, or to unmap and close.
 */
long svmtune_emu_fragment_run(struct svmtune_emu_ctx *ctx,
			      unsigned long base, unsigned int frag)
{
	struct svmtune_emu_device *edev = ctx->edev;
	unsigned long index = base >> PAGE_SHIFT, i;
	unsigned long n = 1UL << (frag - PAGE_SHIFT);
	void *entry, *old;
	long run = -1;
	u32 gen;

	svmtune_mmap_assert_locked(ctx->mm);
	xa_lock(&ctx->layout);
	entry = xa_load(&ctx->layout, index);
	spin_lock(&edev->lock);
	if (entry && svmtune_emu_hint_frag(entry) == frag &&
	    svmtune_emu_run_valid(edev, svmtune_emu_hint_run(entry),
				  svmtune_emu_hint_gen(entry))) {
		run = svmtune_emu_hint_run(entry);
		spin_unlock(&edev->lock);
		xa_unlock(&ctx->layout);
		return run;
	}
	if (entry)
		svmtune_emu_hint_release(edev, entry);
	run = svmtune_emu_reserve_run(edev, n, &gen);
	spin_unlock(&edev->lock);
	/*
	 * GFP_NOWAIT: the pages being migrated are locked, the layout's lock
	 * is held, and the hint is only worth what it saves. Without it the
	 * run is released: a reservation nobody names would stay until its
	 * region empties.
	 */
	if (run >= 0) {
		old = __xa_store(&ctx->layout, index,
				 svmtune_emu_hint_make(run, gen, frag),
				 GFP_NOWAIT | __GFP_NOWARN);
		if (xa_is_err(old)) {
			spin_lock(&edev->lock);
			svmtune_emu_release_run(edev, run, n, gen);
			spin_unlock(&edev->lock);
			run = -1;
		}
	}
	if (run < 0 && entry)
		__xa_erase(&ctx->layout, index);
	if (run >= 0 && n > 1)
		xa_for_each_range(&ctx->layout, i, entry, index + 1, index + n - 1) {
			__xa_erase(&ctx->layout, i);
			svmtune_emu_hint_drop(edev, entry);
		}
	xa_unlock(&ctx->layout);
	return run;
}

#ifdef SVMTUNE_DEVICE_THP
/**
 * svmtune_emu_folio_free() - give the VRAM of a freed device folio back
 * @folio: the folio, of any order, whose last reference went
 *
 * dev_pagemap_ops.folio_free: the whole folio goes back in one step, a
 * 2 MiB one its whole run, its pages the GPU never touched counted as
 * waste in one call to the engine. Process context (a migration, an
 * unmap, an exit).
 */
void svmtune_emu_folio_free(struct folio *folio)
{
	struct page *head = folio_page(folio, 0);
	struct svmtune_emu_device *edev = svmtune_emu_page_device(head);
	unsigned long idx = svmtune_emu_page_index(edev, head);
	unsigned long n = folio_nr_pages(folio), i, waste = 0;

	/* Freed (unmapped, or the process exited) before the GPU touched it. */
	for (i = idx; i < idx + n; i++) {
		if (!test_and_set_bit(i, edev->touched))
			waste++;
		clear_bit(i, edev->departed);
	}
	if (waste && !svmtune_emu_passthrough_window)
		svmtune_account_waste(&edev->core, NULL, 0, waste);
	if (n > 1)
		atomic_long_inc(&edev->thp.freed);

	spin_lock(&edev->lock);
	for (i = idx; i < idx + n; i++)
		svmtune_emu_give_back(edev, i);
	spin_unlock(&edev->lock);
}

/**
 * svmtune_emu_folio_split() - a device folio of ours is being split
 * @head: the folio being split (its first part once split)
 * @tail: one of the new folios after @head, or NULL once all are made
 *
 * dev_pagemap_ops.folio_split, called by the kernel's folio split
 * (zone_device_private_split_cb()) for each new folio, then once with
 * @tail NULL. Given this method the kernel leaves it to the driver to
 * give each new folio its pagemap and mapping, as it does without one.
 * The VRAM needs nothing: its state is per page (the backing page, the
 * touched and departed bits), and each new folio is freed on its own.
 * Counts the split.
 */
void svmtune_emu_folio_split(struct folio *head, struct folio *tail)
{
	if (!tail) {
		atomic_long_inc(&svmtune_emu_page_device(&head->page)->thp.split);
		return;
	}
	tail->pgmap = head->pgmap;
	tail->page.mapping = head->page.mapping;
}

/* Whether the @n VRAM pages at @run are all free. edev->lock held. */
static bool svmtune_emu_run_free(struct svmtune_emu_device *edev, long run,
				 unsigned long n)
{
	lockdep_assert_held(&edev->lock);
	return run + n <= edev->npages &&
	       find_next_bit(edev->used, run + n, run) >= run + n;
}

/**
 * svmtune_emu_alloc_vram_thp() - a 2 MiB device folio for a fragment block
 * @ctx: the migrating context
 * @base: the block's first address, 2 MiB aligned (its fragment size is
 *	2 MiB)
 *
 * Takes the block's run of VRAM whole, as one device-private folio of a
 * PMD's order: the run its layout hint names, if still valid and wholly
 * free, else a newly reserved one, wholly free, which a new hint names
 * as svmtune_emu_fragment_run() names runs (the block has no page in
 * VRAM: the caller migrates it whole). The folio's pages lie in address
 * order, as the page-by-page path lays a 2 MiB block out. mmap_lock held;
 * takes the layout's lock, then edev->lock.
 *
 * Return: the folio, locked, with one reference, or NULL if no aligned
 * 2 MiB run of VRAM is free.
 */
struct folio *svmtune_emu_alloc_vram_thp(struct svmtune_emu_ctx *ctx,
					 unsigned long base)
{
	struct svmtune_emu_device *edev = ctx->edev;
	unsigned long index = base >> PAGE_SHIFT, n = HPAGE_PMD_NR, i;
	bool fresh = false;
	struct folio *folio;
	void *entry, *old;
	long run = -1;
	u32 gen = 0;

	BUILD_BUG_ON(HPAGE_PMD_NR != SVMTUNE_EMU_RUN_REGION);
	svmtune_mmap_assert_locked(ctx->mm);
	xa_lock(&ctx->layout);
	entry = xa_load(&ctx->layout, index);
	spin_lock(&edev->lock);
	if (edev->nfree >= n) {
		if (entry && svmtune_emu_hint_frag(entry) == HPAGE_PMD_SHIFT &&
		    svmtune_emu_run_valid(edev, svmtune_emu_hint_run(entry),
					  svmtune_emu_hint_gen(entry)) &&
		    svmtune_emu_run_free(edev, svmtune_emu_hint_run(entry), n)) {
			run = svmtune_emu_hint_run(entry);
		} else {
			if (entry)
				svmtune_emu_hint_release(edev, entry);
			/* Free of allocated pages, whichever search found it. */
			run = svmtune_emu_reserve_run(edev, n, &gen);
			fresh = true;
		}
		for (i = run; run >= 0 && i < run + n; i++)
			svmtune_emu_take(edev, i);
	}
	spin_unlock(&edev->lock);
	/* As svmtune_emu_fragment_run() keeps the layout. */
	if (fresh && run >= 0) {
		old = __xa_store(&ctx->layout, index,
				 svmtune_emu_hint_make(run, gen, HPAGE_PMD_SHIFT),
				 GFP_NOWAIT | __GFP_NOWARN);
		if (xa_is_err(old)) {
			spin_lock(&edev->lock);
			svmtune_emu_release_run(edev, run, n, gen);
			spin_unlock(&edev->lock);
			if (entry)
				__xa_erase(&ctx->layout, index);
		} else {
			xa_for_each_range(&ctx->layout, i, entry, index + 1,
					  index + n - 1) {
				__xa_erase(&ctx->layout, i);
				svmtune_emu_hint_drop(edev, entry);
			}
		}
	} else if (fresh && entry) {
		__xa_erase(&ctx->layout, index);
	}
	xa_unlock(&ctx->layout);
	if (run < 0)
		return NULL;

	for (i = run; i < run + n; i++)
		clear_bit(i, edev->touched);
	/*
	 * The run's first page is never a stale tail (a freed 2 MiB folio
	 * started at an aligned run too); zone_device_folio_init() clears
	 * whatever compound state the run's pages kept and makes the folio.
	 */
	folio = pfn_folio(edev->pfn_first + run);
	zone_device_folio_init(folio, &edev->pagemap, HPAGE_PMD_ORDER);
	/* A new folio is clean: only what the GPU writes dirties it. */
	folio_clear_dirty(folio);
	return folio;
}
#endif
