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

unsigned long svmtune_emu_page_index(struct svmtune_emu_device *edev,
				     struct page *page)
{
	return page_to_pfn(page) - edev->pfn_first;
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
	/* A new page is clean: only what the GPU writes dirties it. */
	ClearPageDirty(page);
	svmtune_zone_device_page_init(page, &edev->pagemap);
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

	mmap_assert_locked(ctx->mm);
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
