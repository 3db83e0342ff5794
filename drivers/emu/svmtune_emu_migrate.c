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
	unsigned long i, waste = 0;

	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct svmtune_emu_device *edev;

		if (!spage || !(args->src[i] & MIGRATE_PFN_MIGRATE) || !args->dst[i])
			continue;
		edev = svmtune_emu_page_device(spage);
		if (!test_and_set_bit(svmtune_emu_page_index(edev, spage), edev->touched))
			waste++;
	}
	return waste;
}

static unsigned long svmtune_emu_count_migrated(struct migrate_vma *args)
{
	unsigned long i, n = 0;

	for (i = 0; i < args->npages; i++)
		if ((args->src[i] & MIGRATE_PFN_MIGRATE) && args->dst[i])
			n++;
	return n;
}

/*
 * After migrate_vma_pages() of VRAM pages to system memory, the pages
 * still locked: mark each VRAM page that moved departed (struct
 * svmtune_emu_device).
 */
static void svmtune_emu_mark_departed(struct migrate_vma *args)
{
	unsigned long i;

	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct svmtune_emu_device *edev;

		if (!spage || !(args->src[i] & MIGRATE_PFN_MIGRATE) ||
		    !args->dst[i])
			continue;
		edev = svmtune_emu_page_device(spage);
		set_bit(svmtune_emu_page_index(edev, spage), edev->departed);
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
	unsigned long i, first = 0;
	bool in_run = false;

	if (svmtune_emu_passthrough_window)
		return;
	for (i = 0; i <= args->npages; i++) {
		bool moved = i < args->npages &&
			     (args->src[i] & MIGRATE_PFN_MIGRATE) && args->dst[i];

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

	mmap_assert_locked(ctx->mm);
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
	if (d)
		frag = d->fragment;
	else if (svmtune_emu_passthrough_window)
		frag = svmtune_emu_passthrough_window;
	else
		frag = svmtune_fragment_size_at(ctx->mm, start);
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

	mmap_assert_locked(ctx->mm);
	for (addr = start; addr < end; addr = next) {
		next = svmtune_emu_chunk_end(addr, end);
		ret = svmtune_emu_migrate_chunk_to_vram(ctx, vma, addr, next,
							d, fallback, acc);
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
	struct migrate_vma args;
	unsigned long moved;
	int ret;

	mmap_assert_locked(vma->vm_mm);
	ret = svmtune_emu_migrate_setup(&args, edev, vma, start, end,
					MIGRATE_VMA_SELECT_DEVICE_PRIVATE, fault_page);
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

	mmap_assert_locked(vma->vm_mm);
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

/* Device faults in progress; few at a time (one per faulting task). */
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
	struct svmtune_decision d;
	unsigned long waste = 0;
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
	moved = svmtune_emu_migrate_to_ram(edev, vma, d.start, d.end,
					   vmf->address, vmf->page, &d, &waste,
					   &result);
	if (moved < 0 && d.end - d.start > PAGE_SIZE) {
		/* No memory for the window's arrays: bring back the page alone. */
		d.start = vmf->address & PAGE_MASK;
		d.end = d.start + PAGE_SIZE;
		moved = svmtune_emu_migrate_to_ram(edev, vma, d.start, d.end,
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

SVMTUNE_DEFINE_PAGEMAP_FREE(svmtune_emu_page_free)

const struct dev_pagemap_ops svmtune_emu_pagemap_ops = {
	SVMTUNE_PAGEMAP_FREE(svmtune_emu_page_free),
	.migrate_to_ram = svmtune_emu_cpu_fault,
};
