// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: migration between system memory and the emulated VRAM
 * (migrate_vma_*), the engine's decision and accounting around it, and
 * the CPU faults (->migrate_to_ram()) that bring pages back, a peer
 * device's faults included.
 */
#include "svmtune_emu_internal.h"

/* The engine's decision for @fault, or the pass-through's fixed window. */
void svmtune_emu_decide(struct svmtune_emu_device *edev,
			struct mm_struct *mm,
			const struct svmtune_fault *fault,
			struct svmtune_decision *d)
{
	if (svmtune_emu_passthrough_window)
		svmtune_decide_fixed(&edev->core, fault,
				     svmtune_emu_passthrough_window, d);
	else
		svmtune_decide(&edev->core, mm, fault, d);
}

/* What a fault or migration did, and the pages that left untouched. */
void svmtune_emu_account(struct svmtune_emu_device *edev,
			 struct mm_struct *mm,
			 const struct svmtune_fault *fault,
			 const struct svmtune_decision *d,
			 const struct svmtune_result *result,
			 unsigned long waste_addr, unsigned long waste)
{
	if (svmtune_emu_passthrough_window)
		return;
	svmtune_account(&edev->core, mm, fault, d, result);
	if (waste)
		svmtune_account_waste(&edev->core, mm, waste_addr, waste);
}

#ifdef SVMTUNE_DEVICE_THP
/*
 * Whether @vma may hold a THP at the 2 MiB-aligned @addr: anonymous,
 * THPs not turned off for it (MADV_NOHUGEPAGE, PR_SET_THP_DISABLE), and
 * the PMD inside it (the global THP setting, transparent_hugepage_flags,
 * is not exported to modules).
 */
static bool svmtune_emu_vma_takes_thp(struct vm_area_struct *vma,
				      unsigned long addr)
{
	return vma_is_anonymous(vma) &&
	       !vma_thp_disabled(vma, vma->vm_flags, false) &&
	       thp_vma_suitable_order(vma, addr, HPAGE_PMD_ORDER);
}

/*
 * Copy the device folio of @args' compound entry @i (a PMD-mapped 2 MiB
 * device folio, collected whole) back to system memory: to a system THP
 * where the VMA takes one and one can be had, so that it maps as one PMD
 * again and can come back whole; else to pages, one per entry from @i
 * on, and migrate_vma_pages() splits the device folio first
 * (migrate_vma_split_unmapped_folio()). Returns how many pages are to
 * move, or -ENOMEM if the folio is the one a fault holds and no system
 * THP could be had for it.
 */
static long svmtune_emu_copy_thp_to_system(struct migrate_vma *args,
					   unsigned long i)
{
	struct folio *sfolio = page_folio(migrate_pfn_to_page(args->src[i]));
	struct svmtune_emu_device *edev =
		svmtune_emu_page_device(folio_page(sfolio, 0));
	unsigned long addr = args->start + (i << PAGE_SHIFT), j;
	unsigned long n = folio_nr_pages(sfolio);
	unsigned long write = args->src[i] & MIGRATE_PFN_WRITE;
	bool faulting = args->fault_page && page_folio(args->fault_page) == sfolio;
	struct folio *dfolio = NULL;
	long moved = 0;

	/*
	 * The folio a fault holds can only go whole (svmtune_emu_fault_span()):
	 * a THP, tried harder (direct compaction), whatever the VMA says
	 * now; without one the fault has no memory.
	 */
	if (faulting || svmtune_emu_vma_takes_thp(args->vma, addr))
		dfolio = vma_alloc_folio((faulting ? GFP_TRANSHUGE :
					  GFP_TRANSHUGE_LIGHT) | __GFP_NOWARN,
					 HPAGE_PMD_ORDER, args->vma, addr);
	if (!dfolio && faulting)
		return -ENOMEM;
	if (dfolio) {
		folio_lock(dfolio);
		for (j = 0; j < n; j++)
			copy_highpage(folio_page(dfolio, j),
				      svmtune_emu_backing(folio_page(sfolio, j)));
		args->dst[i] = migrate_pfn(folio_pfn(dfolio)) |
			       MIGRATE_PFN_COMPOUND | write;
		atomic_long_inc(&edev->thp.to_system);
		return n;
	}
	atomic_long_inc(&edev->thp.to_system_split);
	for (j = 0; j < n; j++) {
		struct page *spage = folio_page(sfolio, j);
		struct page *dpage;

		dpage = alloc_page_vma(GFP_HIGHUSER_MOVABLE, args->vma,
				       addr + (j << PAGE_SHIFT));
		/* Not the faulting folio's: what finds no page stays. */
		if (!dpage)
			continue;
		lock_page(dpage);
		copy_highpage(dpage, svmtune_emu_backing(spage));
		args->dst[i + j] = migrate_pfn(page_to_pfn(dpage)) | write;
		moved++;
	}
	return moved;
}
#endif

/*
 * Copy the collected VRAM pages of @args back to new system pages.
 * Returns how many pages are to move; @waste counts those the GPU never
 * touched. Fails only if @fault_page could not get a system page.
 */
static int svmtune_emu_copy_to_system(struct migrate_vma *args,
				      unsigned long *moved)
{
	unsigned long i, addr;

	*moved = 0;
	for (i = 0, addr = args->start; addr < args->end; i++, addr += PAGE_SIZE) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage;

		args->dst[i] = 0;
		if (!spage || !(args->src[i] & MIGRATE_PFN_MIGRATE))
			continue;
#ifdef SVMTUNE_DEVICE_THP
		if (args->src[i] & MIGRATE_PFN_COMPOUND) {
			long n = svmtune_emu_copy_thp_to_system(args, i);

			if (n < 0)
				return n;
			*moved += n;
			/* The entries after a compound one are empty. */
			i += HPAGE_PMD_NR - 1;
			addr += (HPAGE_PMD_NR - 1) << PAGE_SHIFT;
			continue;
		}
#endif
		dpage = alloc_page_vma(GFP_HIGHUSER_MOVABLE, args->vma, addr);
		if (!dpage) {
			if (spage == args->fault_page)
				return -ENOMEM;
			continue;
		}
		lock_page(dpage);
		copy_highpage(dpage, svmtune_emu_backing(spage));
		args->dst[i] = migrate_pfn(page_to_pfn(dpage));
		if (args->src[i] & MIGRATE_PFN_WRITE)
			args->dst[i] |= MIGRATE_PFN_WRITE;
		(*moved)++;
	}
	return 0;
}

/*
 * After migrate_vma_pages(): the VRAM pages that did leave and that the
 * GPU never touched were migrated for nothing (waste). Pages whose
 * migration failed stay in VRAM and are not counted.
 */
static unsigned long svmtune_emu_count_waste(struct migrate_vma *args)
{
	unsigned long i, j, nr, waste = 0;

	for (i = 0; i < args->npages; i += nr) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct svmtune_emu_device *edev;
		unsigned long idx;

		/* A 2 MiB folio that moved whole: one entry, all its pages. */
		nr = svmtune_migrate_pfn_pages(args->dst[i]);
		if (!spage || !(args->src[i] & MIGRATE_PFN_MIGRATE) || !args->dst[i])
			continue;
		edev = svmtune_emu_page_device(spage);
		idx = svmtune_emu_page_index(edev, spage);
		for (j = idx; j < idx + nr; j++)
			if (!test_and_set_bit(j, edev->touched))
				waste++;
	}
	return waste;
}

static unsigned long svmtune_emu_count_migrated(struct migrate_vma *args)
{
	unsigned long i, nr, n = 0;

	for (i = 0; i < args->npages; i += nr) {
		nr = svmtune_migrate_pfn_pages(args->dst[i]);
		if ((args->src[i] & MIGRATE_PFN_MIGRATE) && args->dst[i])
			n += nr;
	}
	return n;
}

/*
 * After migrate_vma_pages() of VRAM pages to system memory, the pages
 * still locked: mark each VRAM page that moved departed (struct
 * svmtune_emu_device).
 */
static void svmtune_emu_mark_departed(struct migrate_vma *args)
{
	unsigned long i, j, nr;

	for (i = 0; i < args->npages; i += nr) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct svmtune_emu_device *edev;
		unsigned long idx;

		nr = svmtune_migrate_pfn_pages(args->dst[i]);
		if (!spage || !(args->src[i] & MIGRATE_PFN_MIGRATE) ||
		    !args->dst[i])
			continue;
		edev = svmtune_emu_page_device(spage);
		idx = svmtune_emu_page_index(edev, spage);
		for (j = idx; j < idx + nr; j++)
			set_bit(j, edev->departed);
	}
}

/*
 * Send @acc's run to the engine now: before another run replaces it, or
 * for a migration whose result is not accounted (a fault that failed).
 */
static void svmtune_emu_flush_run(struct svmtune_emu_device *edev,
				  struct mm_struct *mm,
				  const struct svmtune_decision *d,
				  struct svmtune_result *acc)
{
	if (acc->moved_end > acc->moved_start)
		svmtune_note_resident(&edev->core, mm, d, acc->moved_start,
				      acc->moved_end, acc->moved_loc);
	acc->moved_start = 0;
	acc->moved_end = 0;
}

/*
 * Add the run [start, end) that moved to @loc to @acc, the result its
 * migration will be accounted with (svmtune_account() records the run):
 * a run that continues @acc's extends it; another sends @acc's run to the
 * engine first.
 */
static void svmtune_emu_note_run(struct svmtune_emu_device *edev,
				 struct mm_struct *mm,
				 const struct svmtune_decision *d,
				 struct svmtune_result *acc, unsigned long start,
				 unsigned long end, u32 loc)
{
	if (acc->moved_end > acc->moved_start && acc->moved_loc == loc &&
	    acc->moved_end == start) {
		acc->moved_end = end;
		return;
	}
	svmtune_emu_flush_run(edev, mm, d, acc);
	acc->moved_start = start;
	acc->moved_end = end;
	acc->moved_loc = loc;
}

/*
 * After migrate_vma_pages(): tell the engine which pages of @args moved
 * (to @loc), run by run, for its per-block state, through @acc (see
 * svmtune_emu_note_run()). @d is the decision the migration served, NULL
 * for any other.
 */
static void svmtune_emu_note_moved(struct svmtune_emu_device *edev,
				   struct migrate_vma *args,
				   const struct svmtune_decision *d, u32 loc,
				   struct svmtune_result *acc)
{
	unsigned long i, nr, first = 0;
	bool in_run = false;

	if (svmtune_emu_passthrough_window)
		return;
	for (i = 0; i <= args->npages; i += nr) {
		bool moved = i < args->npages &&
			     (args->src[i] & MIGRATE_PFN_MIGRATE) && args->dst[i];

		/* A 2 MiB folio that moved whole: one entry, all its pages. */
		nr = i < args->npages ? svmtune_migrate_pfn_pages(args->dst[i]) : 1;

		if (moved && !in_run) {
			first = i;
			in_run = true;
		} else if (!moved && in_run) {
			svmtune_emu_note_run(edev, args->vma->vm_mm, d, acc,
					     args->start + (first << PAGE_SHIFT),
					     args->start + (i << PAGE_SHIFT), loc);
			in_run = false;
		}
	}
}

/*
 * Collect [start, end) of @vma for migration (migrate_vma_setup()) with
 * src/dst arrays of its own; on success the caller finishes the migration
 * and kvfree()s args->src.
 */
static int svmtune_emu_migrate_setup(struct migrate_vma *args,
				     struct svmtune_emu_device *edev,
				     struct vm_area_struct *vma,
				     unsigned long start, unsigned long end,
				     unsigned long flags, struct page *fault_page)
{
	unsigned long npages = (end - start) >> PAGE_SHIFT;
	unsigned long *pfns;
	int ret;

	pfns = kvcalloc(2 * npages, sizeof(*pfns), GFP_KERNEL);
	if (!pfns)
		return -ENOMEM;
	memset(args, 0, sizeof(*args));
	args->vma = vma;
	args->start = start;
	args->end = end;
	args->src = pfns;
	args->dst = pfns + npages;
	args->pgmap_owner = edev;
	args->flags = flags;
	args->fault_page = fault_page;
	ret = migrate_vma_setup(args);
	if (ret)
		kvfree(pfns);
	return ret;
}

static unsigned long svmtune_emu_chunk_end(unsigned long addr, unsigned long end)
{
	return min(end, ALIGN_DOWN(addr, SVMTUNE_EMU_MIGRATE_CHUNK) +
			SVMTUNE_EMU_MIGRATE_CHUNK);
}

/*
 * The fragment size (log2 bytes) of the block at @start, whose VRAM is
 * laid out in address order: decision @d's, or for an explicit migration
 * (@d NULL) the pass-through's window or the engine's size there.
 */
static unsigned int svmtune_emu_chunk_fragment(struct svmtune_emu_ctx *ctx,
					       unsigned long start,
					       const struct svmtune_decision *d)
{
	if (d)
		return d->fragment;
	if (svmtune_emu_passthrough_window)
		return svmtune_emu_passthrough_window;
	return svmtune_fragment_size_at(ctx->mm, start);
}

#ifdef SVMTUNE_DEVICE_THP
/*
 * Whether the CPU page table of @mm holds nothing or one THP (the huge
 * zero page included) at the 2 MiB-aligned @addr: what
 * migrate_vma_setup() with MIGRATE_VMA_SELECT_COMPOUND collects as one
 * compound entry (migrate_vma_collect_hole(),
 * migrate_vma_collect_huge_pmd()). A page table of PTEs is collected page
 * by page, and a large folio mapped by PTEs is split there. A look
 * without the page table lock, under mmap_lock (the tables cannot go);
 * the collection decides.
 */
static bool svmtune_emu_pmd_is_whole(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp, pud;
	pmd_t pmd;

	svmtune_mmap_assert_locked(mm);
	pgdp = pgd_offset(mm, addr);
	if (pgd_none(pgdp_get(pgdp)))
		return true;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(p4dp_get(p4dp)))
		return true;
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud))
		return true;
	if (!pud_present(pud) || pud_leaf(pud))
		return false;
	pmd = pmdp_get_lockless(pmd_offset(pudp, addr));
	return pmd_none(pmd) || pmd_trans_huge(pmd);
}

/*
 * @folio, a device folio just allocated, moved nowhere: it is freed (now,
 * or by migrate_vma_finalize() if it was offered) as never used, not as
 * waste.
 */
static void svmtune_emu_thp_unused(struct svmtune_emu_device *edev,
				   struct folio *folio)
{
	unsigned long idx = svmtune_emu_page_index(edev, folio_page(folio, 0));
	unsigned long i;

	for (i = idx; i < idx + folio_nr_pages(folio); i++)
		set_bit(i, edev->touched);
}

/*
 * A fault's window that qualified for one folio found no free run: whether
 * to leave it whole to the fault path, which makes room (evicting) and
 * migrates it again, as one folio if a run is free by then. Only where
 * the device lacks room for the window anyway (page by page would move
 * part of it, splitting a THP source as the kernel collects it, and leave
 * the rest to the same eviction), and only for a fault served through the
 * engine: an explicit migration or the pass-through makes no room.
 */
static bool svmtune_emu_thp_no_room(struct svmtune_emu_device *edev,
				    const struct svmtune_decision *d)
{
	bool full;

	if (!d || svmtune_emu_passthrough_window)
		return false;
	spin_lock(&edev->lock);
	full = edev->nfree < HPAGE_PMD_NR;
	spin_unlock(&edev->lock);
	return full;
}

/**
 * svmtune_emu_migrate_thp_to_vram() - migrate a 2 MiB window as one folio
 * @ctx: the context migrating
 * @vma: the VMA holding [@start, @end)
 * @start: the window, 2 MiB aligned
 * @end: its end
 * @d: the decision served (NULL: an explicit migration)
 * @acc: the result the run that moved is noted in
 *
 * Where compound device migration is on (thp_migration), the window is a
 * whole 2 MiB block laid out as one run (fragment size 2 MiB), the VMA
 * takes THPs and the CPU page table holds nothing there or one THP, the
 * window moves to VRAM as one device-private folio of a PMD's order, in
 * one free aligned run (svmtune_emu_alloc_vram_thp()), mapped by one
 * device-private PMD. Anything else goes page by page: no free run, or
 * the kernel collected no compound entry (pages appeared meanwhile, a
 * pinned THP) or did not place it (migrate_vma_insert_huge_pmd_page()
 * backed off: a memory cgroup charge, userfaultfd, a race); the device
 * folio then goes back unused. mmap_lock held.
 *
 * Return: the pages that moved (%HPAGE_PMD_NR), -EAGAIN: migrate the
 * window page by page, or -ENOSPC: no room for it on the device, none of
 * it moved (svmtune_emu_thp_no_room()).
 */
static long svmtune_emu_migrate_thp_to_vram(struct svmtune_emu_ctx *ctx,
					    struct vm_area_struct *vma,
					    unsigned long start, unsigned long end,
					    const struct svmtune_decision *d,
					    struct svmtune_result *acc)
{
	const unsigned long whole = MIGRATE_PFN_MIGRATE | MIGRATE_PFN_COMPOUND;
	unsigned int frag = svmtune_emu_chunk_fragment(ctx, start, d);
	struct svmtune_emu_device *edev = ctx->edev;
	struct folio *dfolio, *sfolio = NULL;
	struct migrate_vma args;
	long moved = 0;
	unsigned long i;

	svmtune_mmap_assert_locked(ctx->mm);
	if (!READ_ONCE(svmtune_emu_thp_migration) || frag != HPAGE_PMD_SHIFT ||
	    !IS_ALIGNED(start, HPAGE_PMD_SIZE) || end - start != HPAGE_PMD_SIZE ||
	    !svmtune_emu_vma_takes_thp(vma, start) ||
	    !svmtune_emu_pmd_is_whole(ctx->mm, start))
		return -EAGAIN;
	dfolio = svmtune_emu_alloc_vram_thp(ctx, start);
	if (!dfolio) {
		atomic_long_inc(&edev->thp.fallback);
		return svmtune_emu_thp_no_room(edev, d) ? -ENOSPC : -EAGAIN;
	}
	if (svmtune_emu_migrate_setup(&args, edev, vma, start, end,
				      MIGRATE_VMA_SELECT_SYSTEM |
				      MIGRATE_VMA_SELECT_COMPOUND, NULL)) {
		/* The page-by-page path meets the same failure and returns it. */
		svmtune_emu_thp_unused(edev, dfolio);
		folio_unlock(dfolio);
		folio_put(dfolio);
		return -EAGAIN;
	}
	if ((args.src[0] & whole) == whole) {
		/* No page: an empty PMD, or the huge zero page. */
		if (migrate_pfn_to_page(args.src[0]))
			sfolio = page_folio(migrate_pfn_to_page(args.src[0]));
		for (i = 0; i < HPAGE_PMD_NR; i++) {
			struct page *to = svmtune_emu_backing(folio_page(dfolio, i));

			if (sfolio)
				copy_highpage(to, folio_page(sfolio, i));
			else
				clear_highpage(to);
		}
		args.dst[0] = migrate_pfn(folio_pfn(dfolio)) | MIGRATE_PFN_COMPOUND;
		if ((args.src[0] & MIGRATE_PFN_WRITE) ||
		    (!sfolio && (vma->vm_flags & VM_WRITE)))
			args.dst[0] |= MIGRATE_PFN_WRITE;
	} else {
		/* Collected page by page: restored below, then migrated anew. */
		svmtune_emu_thp_unused(edev, dfolio);
		folio_unlock(dfolio);
		folio_put(dfolio);
		dfolio = NULL;
	}
	migrate_vma_pages(&args);
	if (dfolio && (args.src[0] & MIGRATE_PFN_MIGRATE)) {
		moved = HPAGE_PMD_NR;
		if (!svmtune_emu_passthrough_window)
			svmtune_emu_note_run(edev, ctx->mm, d, acc, start, end,
					     edev->core.id);
		atomic_long_inc(&edev->thp.to_device);
	} else if (dfolio) {
		svmtune_emu_thp_unused(edev, dfolio);
	}
	migrate_vma_finalize(&args);
	kvfree(args.src);
	if (!moved)
		atomic_long_inc(&edev->thp.fallback);
	return moved ? moved : -EAGAIN;
}
#endif

/*
 * Migrate the system pages of [start, end), one chunk, inside @vma to
 * @ctx's VRAM, for decision @d (NULL: an explicit migration). mmap_lock
 * held. @fallback counts pages that could not get VRAM.
 */
static long svmtune_emu_migrate_chunk_to_vram(struct svmtune_emu_ctx *ctx,
					      struct vm_area_struct *vma,
					      unsigned long start, unsigned long end,
					      const struct svmtune_decision *d,
					      unsigned long *fallback,
					      struct svmtune_result *acc)
{
	struct svmtune_emu_device *edev = ctx->edev;
	unsigned long i, moved, base = 1, fsize;
	struct migrate_vma args;
	unsigned int frag;
	long run = -1;
	int ret;

	svmtune_mmap_assert_locked(ctx->mm);
	ret = svmtune_emu_migrate_setup(&args, edev, vma, start, end,
					MIGRATE_VMA_SELECT_SYSTEM, NULL);
	if (ret)
		return ret;

	/*
	 * Pages of one fragment block get VRAM at their offsets in the
	 * block's run (svmtune_emu_reserve_run()), as a KFD range's BO gives
	 * its pages VRAM offsets that follow their addresses: the PTE
	 * fragments amdgpu computes can then span the block. At 4 KiB, pages
	 * go where they fit.
	 */
	frag = svmtune_emu_chunk_fragment(ctx, start, d);
	fsize = 1UL << frag;

	for (i = 0; i < args.npages; i++) {
		struct page *spage = migrate_pfn_to_page(args.src[i]);
		unsigned long addr = start + (i << PAGE_SHIFT);
		struct page *dpage;

		if (!(args.src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		if (frag > PAGE_SHIFT && ALIGN_DOWN(addr, fsize) != base) {
			base = ALIGN_DOWN(addr, fsize);
			run = svmtune_emu_fragment_run(ctx, base, frag);
		}
		dpage = run >= 0 ?
			svmtune_emu_alloc_vram_at(edev, run + ((addr - base) >> PAGE_SHIFT)) :
			svmtune_emu_alloc_vram(edev);
		if (!dpage) {
			(*fallback)++;
			continue;
		}
		if (spage)
			copy_highpage(svmtune_emu_backing(dpage), spage);
		else
			clear_highpage(svmtune_emu_backing(dpage));
		args.dst[i] = migrate_pfn(page_to_pfn(dpage));
		if ((args.src[i] & MIGRATE_PFN_WRITE) ||
		    (!spage && (vma->vm_flags & VM_WRITE)))
			args.dst[i] |= MIGRATE_PFN_WRITE;
	}
	migrate_vma_pages(&args);
	moved = svmtune_emu_count_migrated(&args);
	svmtune_emu_note_moved(edev, &args, d, edev->core.id, acc);
	/* VRAM pages whose migration failed are freed: not waste. */
	for (i = 0; i < args.npages; i++)
		if (args.dst[i] && !(args.src[i] & MIGRATE_PFN_MIGRATE))
			set_bit(svmtune_emu_page_index(edev, migrate_pfn_to_page(args.dst[i])),
				edev->touched);
	migrate_vma_finalize(&args);
	kvfree(args.src);
	return moved;
}

/* Migrate [start, end) to @ctx's VRAM in chunks, for @d. mmap_lock held. */
long svmtune_emu_migrate_to_vram(struct svmtune_emu_ctx *ctx,
				 struct vm_area_struct *vma,
				 unsigned long start, unsigned long end,
				 const struct svmtune_decision *d,
				 unsigned long *fallback,
				 struct svmtune_result *acc)
{
	unsigned long addr, next;
	long moved = 0, ret;

	svmtune_mmap_assert_locked(ctx->mm);
	for (addr = start; addr < end; addr = next) {
		next = svmtune_emu_chunk_end(addr, end);
		ret = -EAGAIN;
#ifdef SVMTUNE_DEVICE_THP
		/* A whole 2 MiB block may go as one folio, in its run. */
		ret = svmtune_emu_migrate_thp_to_vram(ctx, vma, addr, next, d,
						      acc);
		if (ret == -ENOSPC) {
			/* For the fault path to make room: see there. */
			*fallback += (next - addr) >> PAGE_SHIFT;
			ret = 0;
		}
#endif
		if (ret == -EAGAIN)
			ret = svmtune_emu_migrate_chunk_to_vram(ctx, vma, addr,
								next, d,
								fallback, acc);
		if (ret < 0)
			return moved ? moved : ret;
		moved += ret;
	}
	return moved;
}

/*
 * Migrate the VRAM pages of [start, end), one chunk, inside @vma back.
 * mmap_lock held. @fault_page, if any, is in the chunk.
 */
static long svmtune_emu_migrate_chunk_to_ram(struct svmtune_emu_device *edev,
					     struct vm_area_struct *vma,
					     unsigned long start, unsigned long end,
					     struct page *fault_page,
					     const struct svmtune_decision *d,
					     unsigned long *waste,
					     struct svmtune_result *acc)
{
	unsigned long flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE;
	struct migrate_vma args;
	unsigned long moved;
	int ret;

	svmtune_mmap_assert_locked(vma->vm_mm);
#ifdef SVMTUNE_DEVICE_THP
	/*
	 * A whole 2 MiB chunk collects a PMD-mapped device folio as one
	 * entry, to go back whole (svmtune_emu_copy_thp_to_system()),
	 * whatever thp_migration says now (a fault on one must take it
	 * whole: svmtune_emu_fault_span()); one mapped by PTEs the kernel
	 * splits as it collects (migrate_vma_split_folio()).
	 */
	if (IS_ALIGNED(start, HPAGE_PMD_SIZE) && end - start == HPAGE_PMD_SIZE)
		flags |= MIGRATE_VMA_SELECT_COMPOUND;
#endif
	ret = svmtune_emu_migrate_setup(&args, edev, vma, start, end, flags,
					fault_page);
	if (ret)
		return ret;
	ret = svmtune_emu_copy_to_system(&args, &moved);
	migrate_vma_pages(&args);
	moved = svmtune_emu_count_migrated(&args);
	svmtune_emu_mark_departed(&args);
	svmtune_emu_note_moved(edev, &args, d, SVMTUNE_LOC_SYSTEM, acc);
	*waste += svmtune_emu_count_waste(&args);
	migrate_vma_finalize(&args);
	kvfree(args.src);
	return ret ? ret : moved;
}

/*
 * Migrate the VRAM pages of [start, end) inside @vma back, in chunks;
 * @fault_page (at @fault_addr) goes with its chunk. A chunk without the
 * faulting page that fails is left where it is; the fault needs only its
 * own. mmap_lock held.
 */
long svmtune_emu_migrate_to_ram(struct svmtune_emu_device *edev,
				struct vm_area_struct *vma,
				unsigned long start, unsigned long end,
				unsigned long fault_addr,
				struct page *fault_page,
				const struct svmtune_decision *d,
				unsigned long *waste,
				struct svmtune_result *acc)
{
	unsigned long addr, next;
	long moved = 0, ret;

	svmtune_mmap_assert_locked(vma->vm_mm);
	for (addr = start; addr < end; addr = next) {
		bool here;

		next = svmtune_emu_chunk_end(addr, end);
		here = fault_page && fault_addr >= addr && fault_addr < next;
		ret = svmtune_emu_migrate_chunk_to_ram(edev, vma, addr, next,
						       here ? fault_page : NULL,
						       d, waste, acc);
		if (ret < 0 && here)
			return ret;
		if (ret > 0)
			moved += ret;
	}
	return moved;
}

#ifdef SVMTUNE_DEVICE_THP
/*
 * Grow [*@start, *@end), what a fault on a device page is to bring back,
 * to the whole device folio when a PMD maps it (do_huge_pmd_device_private()
 * leaves vmf->pte NULL). The kernel cannot split such a folio under the
 * fault: the fault holds a reference to it, which
 * migrate_vma_collect_huge_pmd()'s split_folio() and
 * migrate_vma_split_unmapped_folio()'s folio_split_unmapped() both take
 * for a pin; a part of it would be skipped, and the access would fault
 * forever. Migrated whole (MIGRATE_VMA_SELECT_COMPOUND), it needs no
 * split. A folio mapped by PTEs (after munmap, mprotect or MADV_DONTNEED
 * of a part of it) is split by the kernel under its fault
 * (migrate_vma_split_folio()): nothing to grow.
 */
static void svmtune_emu_fault_span(struct vm_fault *vmf, unsigned long *start,
				   unsigned long *end)
{
	struct folio *folio = page_folio(vmf->page);
	unsigned long base;

	if (vmf->pte || !folio_test_large(folio))
		return;
	base = ALIGN_DOWN(vmf->address, folio_size(folio));
	*start = min(*start, base);
	*end = max(*end, base + folio_size(folio));
}
#else
static void svmtune_emu_fault_span(struct vm_fault *vmf, unsigned long *start,
				   unsigned long *end)
{
}
#endif

/**
 * DOC: Locking
 *
 * ``svmtune_emu_peer_lock`` (spinlock)
 *     Protects the list of device faults in progress
 *     (``svmtune_emu_peer_faults``; few at a time, one per faulting
 *     task). Held only to add, remove or look up an entry (a leaf lock);
 *     an entry lives on its faulting task's stack and only that task
 *     removes it, after its hmm_range_fault() calls, so the other GPU's
 *     ``->migrate_to_ram()`` running inside them may use the entry after
 *     dropping the lock.
 */
static LIST_HEAD(svmtune_emu_peer_faults);
static DEFINE_SPINLOCK(svmtune_emu_peer_lock);

void svmtune_emu_peer_begin(struct svmtune_emu_peer_fault *pf,
			    struct svmtune_emu_device *edev,
			    unsigned long start, unsigned long end)
{
	pf->task = current;
	pf->edev = edev;
	pf->start = start;
	pf->end = end;
	pf->bridged = 0;
	spin_lock(&svmtune_emu_peer_lock);
	list_add(&pf->node, &svmtune_emu_peer_faults);
	spin_unlock(&svmtune_emu_peer_lock);
}

void svmtune_emu_peer_end(struct svmtune_emu_peer_fault *pf)
{
	spin_lock(&svmtune_emu_peer_lock);
	list_del(&pf->node);
	spin_unlock(&svmtune_emu_peer_lock);
}

/*
 * The fault another device's task is serving, if this ->migrate_to_ram()
 * runs inside one. Only that task touches the record (and removes it after
 * hmm_range_fault() returns), so it stays valid for the caller.
 */
static struct svmtune_emu_peer_fault *
svmtune_emu_peer_find(struct svmtune_emu_device *edev)
{
	struct svmtune_emu_peer_fault *pf, *found = NULL;

	spin_lock(&svmtune_emu_peer_lock);
	list_for_each_entry(pf, &svmtune_emu_peer_faults, node) {
		if (pf->task == current) {
			found = pf->edev != edev ? pf : NULL;
			break;
		}
	}
	spin_unlock(&svmtune_emu_peer_lock);
	return found;
}

/*
 * A device fault of another emulated GPU on a page in @edev's memory: move
 * the part of that fault's window inside @vma to system memory, counted as
 * pages this device gave back, not as a CPU fault.
 */
vm_fault_t svmtune_emu_peer_fault(struct svmtune_emu_device *edev,
				  struct vm_fault *vmf,
				  struct svmtune_emu_peer_fault *pf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long start = max(pf->start, vma->vm_start);
	unsigned long end = min(pf->end, vma->vm_end);
	struct svmtune_result result = { 0 };
	unsigned long waste = 0;
	long moved;

	if (vmf->address < start || vmf->address >= end) {
		start = vmf->address & PAGE_MASK;
		end = start + PAGE_SIZE;
	}
	svmtune_emu_fault_span(vmf, &start, &end);
	moved = svmtune_emu_migrate_to_ram(edev, vma, start, end, vmf->address,
					   vmf->page, NULL, &waste, &result);
	if (moved < 0) {
		svmtune_emu_flush_run(edev, vma->vm_mm, NULL, &result);
		return moved == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	}
	pf->bridged += moved;
	result.to_system = moved;
	svmtune_emu_account(edev, vma->vm_mm, NULL, NULL, &result, start, waste);
	return 0;
}

/* Wait @ns for a throttle; a fatal signal cuts it short. */
void svmtune_emu_throttle(u64 ns)
{
	unsigned long us = div_u64(ns, NSEC_PER_USEC) + 1;

	usleep_range_state(us, us + us / 8 + 1, TASK_KILLABLE);
}

static vm_fault_t svmtune_emu_cpu_fault(struct vm_fault *vmf)
{
	struct svmtune_emu_device *edev = svmtune_emu_page_device(vmf->page);
	struct svmtune_emu_peer_fault *pf = svmtune_emu_peer_find(edev);
	struct vm_area_struct *vma = vmf->vma;
	struct svmtune_fault fault = {
		.type = SVMTUNE_FAULT_CPU,
		.addr = vmf->address,
		.lo = vma->vm_start,
		.hi = vma->vm_end,
		.write = vmf->flags & FAULT_FLAG_WRITE,
		.retried = vmf->flags & FAULT_FLAG_TRIED,
	};
	struct svmtune_result result = { 0 };
	unsigned long waste = 0, start, end;
	struct svmtune_decision d;
	long moved;

	if (pf)
		return svmtune_emu_peer_fault(edev, vmf, pf);
	svmtune_emu_decide(edev, vma->vm_mm, &fault, &d);
	/*
	 * Thrashing pages are throttled: the CPU waits before it takes them
	 * back. Where the fault may be retried, without mmap_lock (another
	 * thread's mmap or munmap does not wait), killably, and the retry
	 * asks again (FAULT_FLAG_TRIED: neither counted nor throttled
	 * again); otherwise holding it, as a fault waiting on I/O does, for
	 * at most thrashing_throttle_us (capped at 100 ms), then serving
	 * this decision.
	 */
	if (d.throttle_ns) {
		if ((vmf->flags & FAULT_FLAG_ALLOW_RETRY) &&
		    !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
			mmap_read_unlock(vma->vm_mm);
			svmtune_emu_throttle(d.throttle_ns);
			return VM_FAULT_RETRY;
		}
		svmtune_emu_throttle(d.throttle_ns);
	}
	start = d.start;
	end = d.end;
	svmtune_emu_fault_span(vmf, &start, &end);
	moved = svmtune_emu_migrate_to_ram(edev, vma, start, end,
					   vmf->address, vmf->page, &d, &waste,
					   &result);
	if (moved < 0 && d.end - d.start > PAGE_SIZE) {
		/* No memory for the window's arrays: bring back the page alone. */
		d.start = vmf->address & PAGE_MASK;
		d.end = d.start + PAGE_SIZE;
		start = d.start;
		end = d.end;
		svmtune_emu_fault_span(vmf, &start, &end);
		moved = svmtune_emu_migrate_to_ram(edev, vma, start, end,
						   vmf->address, vmf->page, &d,
						   &waste, &result);
	}
	if (moved < 0) {
		svmtune_emu_flush_run(edev, vma->vm_mm, &d, &result);
		return moved == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	}
	result.to_system = moved;
	svmtune_emu_account(edev, vma->vm_mm, &fault, &d, &result, d.start, waste);
	return 0;
}

#ifdef SVMTUNE_DEVICE_THP
const struct dev_pagemap_ops svmtune_emu_pagemap_ops = {
	.folio_free = svmtune_emu_folio_free,
	.folio_split = svmtune_emu_folio_split,
	.migrate_to_ram = svmtune_emu_cpu_fault,
};
#elif defined(SVMTUNE_HAVE_FOLIO_FREE)
/*
 * dev_pagemap_ops.folio_free (6.15 on) without compound device migration:
 * every device folio is one page.
 */
static void svmtune_emu_folio_free_pages(struct folio *folio)
{
	long i;

	for (i = 0; i < folio_nr_pages(folio); i++)
		svmtune_emu_page_free(folio_page(folio, i));
}

const struct dev_pagemap_ops svmtune_emu_pagemap_ops = {
	.folio_free = svmtune_emu_folio_free_pages,
	.migrate_to_ram = svmtune_emu_cpu_fault,
};
#else
const struct dev_pagemap_ops svmtune_emu_pagemap_ops = {
	.page_free = svmtune_emu_page_free,
	.migrate_to_ram = svmtune_emu_cpu_fault,
};
#endif
