// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: a context's device page table (an xarray kept coherent by
 * an mmu_interval_notifier), the hmm_range_fault() walks that fill it,
 * the PTE fragments amdgpu would write, and the TLB that counts reach.
 */
#include "svmtune_emu_internal.h"

void svmtune_emu_walk_begin(struct svmtune_emu_ctx *ctx,
			    struct svmtune_emu_walk *walk,
			    unsigned long start, unsigned long end)
{
	walk->start = start;
	walk->end = end;
	walk->changed = false;
	walk->redecide = false;
	mutex_lock(&ctx->lock);
	list_add(&walk->node, &ctx->walks);
	mutex_unlock(&ctx->lock);
}

/* Called with ctx->lock held. */
static void svmtune_emu_walk_end_locked(struct svmtune_emu_ctx *ctx,
					struct svmtune_emu_walk *walk)
{
	lockdep_assert_held(&ctx->lock);
	list_del(&walk->node);
}

void svmtune_emu_walk_end(struct svmtune_emu_ctx *ctx,
			  struct svmtune_emu_walk *walk)
{
	mutex_lock(&ctx->lock);
	svmtune_emu_walk_end_locked(ctx, walk);
	mutex_unlock(&ctx->lock);
}

static unsigned long svmtune_emu_pte(unsigned long pfn, unsigned int shift,
				     unsigned int frag, unsigned long flags)
{
	return pfn << 16 | (unsigned long)shift << 8 |
	       (unsigned long)frag << PTE_FRAG_SHIFT | flags;
}

static bool svmtune_emu_invalidate(struct mmu_interval_notifier *mni,
				   const struct mmu_notifier_range *range,
				   unsigned long cur_seq)
{
	struct svmtune_emu_ctx *ctx = container_of(mni, struct svmtune_emu_ctx, notifier);
	struct svmtune_emu_walk *walk;
	unsigned long index;
	bool flush = false;
	void *entry;

	if (mmu_notifier_range_blockable(range))
		mutex_lock(&ctx->lock);
	else if (!mutex_trylock(&ctx->lock))
		return false;
	mmu_interval_set_seq(mni, cur_seq);
	list_for_each_entry(walk, &ctx->walks, node)
		if (walk->start < range->end && range->start < walk->end)
			walk->changed = true;
	xa_for_each_range(&ctx->pt, index, entry, range->start >> PAGE_SHIFT,
			  (range->end - 1) >> PAGE_SHIFT) {
		xa_erase(&ctx->pt, index);
		flush = true;
	}
	/*
	 * As amdgpu flushes the VMID's TLB after clearing PTEs, and only
	 * then: KFD ignores invalidations outside its ranges, so khugepaged
	 * or a munmap elsewhere in the process costs the GPU nothing.
	 */
	if (flush)
		memset(ctx->tlb, 0, ctx->tlb_entries * sizeof(*ctx->tlb));
	/* Unmapped blocks need no run: drop their layout hints and runs. */
	if (range->event == MMU_NOTIFY_UNMAP)
		xa_for_each_range(&ctx->layout, index, entry,
				  range->start >> PAGE_SHIFT,
				  (range->end - 1) >> PAGE_SHIFT)
			svmtune_emu_hint_drop(ctx->edev,
					      xa_erase(&ctx->layout, index));
	mutex_unlock(&ctx->lock);
	return true;
}

const struct mmu_interval_notifier_ops svmtune_emu_notifier_ops = {
	.invalidate = svmtune_emu_invalidate,
};

/* Whether @page is in the VRAM of @ctx's own device. */
static bool svmtune_emu_page_is_local(struct svmtune_emu_ctx *ctx,
				      struct page *page)
{
	return is_device_private_page(page) && svmtune_page_pgmap(page) == &ctx->edev->pagemap;
}

/*
 * A write to a read-only page of this device's VRAM (shared after fork(),
 * or migrated from a read-only CPU page): hmm_range_fault() reports such a
 * page as it is, without faulting it for write, because the device owns
 * it. Device-private memory cannot be copied on write in place, so the
 * page is faulted for write as the CPU would: migrate_to_ram() brings it
 * back to system memory (svmtune_emu_cpu_fault()) and the write fault then
 * breaks the sharing. The next device fault may migrate it again.
 */
static int svmtune_emu_break_cow(struct svmtune_emu_ctx *ctx, unsigned long addr)
{
	unsigned long pfn = 0;
	struct hmm_range range = {
		.notifier = &ctx->notifier,
		.start = addr,
		.end = addr + PAGE_SIZE,
		.hmm_pfns = &pfn,
		.default_flags = HMM_PFN_REQ_FAULT | HMM_PFN_REQ_WRITE,
		/* No owner: the device's own pages are faulted too. */
	};
	int ret;

	range.notifier_seq = mmu_interval_read_begin(&ctx->notifier);
	mmap_read_lock(ctx->mm);
	ret = hmm_range_fault(&range);
	mmap_read_unlock(ctx->mm);
	/* -EBUSY: something changed the page meanwhile; the caller walks again. */
	return ret == -EBUSY ? 0 : ret;
}

/*
 * The PTE fragment (log2 pages) amdgpu would write for each page of one
 * update of [start, start + npages pages): the update is cut into runs of
 * pages mapped alike and physically contiguous in this device's VRAM
 * (system pages never form fragments: amdgpu_vm_pte_fragment() gives them
 * 0); in each run, from its first page on, the largest power of two that
 * the page number's alignment and the rest of the run allow, at most 31
 * (amdgpu_vm_pte_fragment(), max_frag on gfx9 and later) and at most
 * @max_frag (the engine's fragment cap, log2 pages). Fragments are per
 * update: pages mapped in separate updates never share one, even where
 * they are contiguous.
 */
static void svmtune_emu_fragments(struct svmtune_emu_ctx *ctx,
				  unsigned long start, const unsigned long *hmm_pfns,
				  unsigned long npages, unsigned int max_frag,
				  u8 *frag)
{
	unsigned long i = 0, j, vpn0 = start >> PAGE_SHIFT;

	while (i < npages) {
		unsigned long h = hmm_pfns[i];

		frag[i] = 0;
		if (!(h & HMM_PFN_VALID) ||
		    !svmtune_emu_page_is_local(ctx, hmm_pfn_to_page(h))) {
			i++;
			continue;
		}
		for (j = i + 1; j < npages; j++) {
			unsigned long hj = hmm_pfns[j];

			if (!(hj & HMM_PFN_VALID) ||
			    !svmtune_emu_page_is_local(ctx, hmm_pfn_to_page(hj)) ||
			    (hj & HMM_PFN_WRITE) != (h & HMM_PFN_WRITE) ||
			    page_to_pfn(hmm_pfn_to_page(hj)) !=
				    page_to_pfn(hmm_pfn_to_page(h)) + (j - i))
				break;
		}
		while (i < j) {
			unsigned long vpn = vpn0 + i;
			unsigned int f = min_t(unsigned int,
					       vpn ? __ffs(vpn) : 31,
					       fls64(j - i) - 1);

			f = min3(f, 31U, max_frag);
			memset(frag + i, f, 1UL << f);
			i += 1UL << f;
		}
	}
}

/*
 * Walk @req's window (@range; @one, the faulting page, first unless
 * populating, when it is the window) until the CPU page tables it read
 * are still valid. Returns 0 with ctx->lock held, or an error without it:
 * -EBUSY when the pages kept changing for HMM_RANGE_DEFAULT_TIMEOUT or a
 * thrashing pin decided on ended since, -EINTR on a fatal signal.
 */
static int svmtune_emu_map_walk(struct svmtune_emu_map_req *req,
				struct hmm_range *one, struct hmm_range *range,
				struct svmtune_emu_walk *walk)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	unsigned long fault_idx = (req->fault_addr - req->start) >> PAGE_SHIFT;
	struct svmtune_emu_ctx *ctx = req->ctx;
	int ret;

	for (;;) {
		if (fatal_signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, timeout))
			return -EBUSY;
		mutex_lock(&ctx->lock);
		walk->changed = false;
		mutex_unlock(&ctx->lock);
		range->notifier_seq = mmu_interval_read_begin(&ctx->notifier);
		one->notifier_seq = range->notifier_seq;
		mmap_read_lock(ctx->mm);
		ret = hmm_range_fault(one);
		/* Populating walked the whole window already: its result is it. */
		if (!ret && !req->populate)
			ret = hmm_range_fault(range);
		mmap_read_unlock(ctx->mm);
		if (ret == -EBUSY) {
			/* Counted only if pages of this window changed. */
			mutex_lock(&ctx->lock);
			if (walk->changed)
				req->retries++;
			mutex_unlock(&ctx->lock);
			continue;
		}
		if (ret)
			return ret;
		/* Only the faulting page needs write; others map as they are. */
		if (req->write) {
			unsigned long hpfn = range->hmm_pfns[fault_idx];

			if ((hpfn & HMM_PFN_VALID) && !(hpfn & HMM_PFN_WRITE) &&
			    svmtune_emu_page_is_local(ctx, hmm_pfn_to_page(hpfn))) {
				ret = svmtune_emu_break_cow(ctx, req->fault_addr & PAGE_MASK);
				if (ret)
					return ret;
				continue;
			}
		}
		mutex_lock(&ctx->lock);
		/*
		 * A remote mapping decided while a thrashing pin held, which
		 * ended since (the unpin work tore the mapping down): the
		 * engine decides again.
		 */
		if (!req->populate &&
		    (walk->redecide || ctx->unpin_seq != req->unpin_seq)) {
			mutex_unlock(&ctx->lock);
			return -EBUSY;
		}
		/*
		 * Valid unless an invalidation of this window began since
		 * read_begin (which waited for any already in progress).
		 */
		if (!mmu_interval_read_retry(&ctx->notifier, range->notifier_seq) ||
		    !walk->changed)
			return 0;
		mutex_unlock(&ctx->lock);
		req->retries++;
	}
}

/*
 * Store what @req's walk found (@hmm_pfns, @npages of them, with PTE
 * fragments @frag) in the device page table, counting in @mapped the pages
 * newly mapped by fragment. Returns how many map remotely, or an error.
 */
static long svmtune_emu_map_store(struct svmtune_emu_map_req *req,
				  const unsigned long *hmm_pfns,
				  const u8 *frag, unsigned long npages,
				  unsigned int *mapped)
{
	struct svmtune_emu_ctx *ctx = req->ctx;
	unsigned long i, remote = 0;
	int ret;

	lockdep_assert_held(&ctx->lock);
	for (i = 0; i < npages; i++) {
		unsigned long hpfn = hmm_pfns[i], flags = 0, pte;
		unsigned long index = (req->start >> PAGE_SHIFT) + i;
		struct page *page = hmm_pfn_to_page(hpfn);
		void *old;

		if (!(hpfn & HMM_PFN_VALID))
			continue;
		if (svmtune_emu_page_is_local(ctx, page))
			flags |= PTE_LOCAL;
		if (hpfn & HMM_PFN_WRITE)
			flags |= PTE_WRITE;
		pte = svmtune_emu_pte(page_to_pfn(page), req->shift, frag[i], flags);
		/* An entry mapped already, the same way, is not mapped again. */
		old = xa_load(&ctx->pt, index);
		if (old && xa_to_value(old) == pte)
			continue;
		/* Replacing an entry allocates nothing; a new one may need a node. */
		ret = xa_err(xa_store(&ctx->pt, index, xa_mk_value(pte),
				      GFP_NOWAIT | __GFP_NOWARN));
		if (ret)
			return ret;
		mapped[frag[i]]++;
		if (!(flags & PTE_LOCAL))
			remote++;
	}
	return remote;
}

/**
 * svmtune_emu_map() - map a window in the device page table
 * @req: the window, the fault and the engine's decision; @req->retries
 *	counts the walks that started over because pages of the window
 *	changed
 *
 * Maps [start, end) as the CPU page tables have it. With @req->populate
 * (the engine chose to migrate the window here) every page of the window
 * is faulted in: those VRAM could not take stay in system memory and map
 * remotely, as the whole window was meant to move. Otherwise (a remote
 * mapping) only the page at @req->fault_addr is faulted in (for write if
 * @req->write) and the others map if present, so a remote 4 KiB read in a
 * 2 MiB window neither populates nor dirties 511 more pages of system
 * memory. Pages in this device's VRAM map locally, others remotely, with
 * PTE fragments of at most @req->max_frag (log2 bytes).
 *
 * Return: how many pages were mapped remotely, or an error: -EBUSY when
 * the pages kept changing for HMM_RANGE_DEFAULT_TIMEOUT (the access faults
 * again, with a new decision), -EINTR on a fatal signal.
 */
long svmtune_emu_map(struct svmtune_emu_map_req *req)
{
	struct svmtune_emu_ctx *ctx = req->ctx;
	unsigned long npages = (req->end - req->start) >> PAGE_SHIFT, i;
	/* Pages newly mapped, by PTE fragment (log2 pages), for the engine. */
	unsigned int mapped[SVMTUNE_NR_FRAGMENT_SIZES] = { 0 };
	struct svmtune_emu_walk walk;
	unsigned long fault_pfn = 0;
	u8 *frag;
	/*
	 * Two walks under one notifier sequence: the faulting page alone,
	 * faulted in; then the window, faulting nothing, for the result. When
	 * populating, one walk faults the whole window in and is the result.
	 * (One walk with per-page fault flags would not do: hmm_range_fault()
	 * faults a whole hole from the first page that needs it to the
	 * hole's end.)
	 */
	struct hmm_range one = {
		.notifier = &ctx->notifier,
		.start = req->fault_addr & PAGE_MASK,
		.end = (req->fault_addr & PAGE_MASK) + PAGE_SIZE,
		.hmm_pfns = &fault_pfn,
		.default_flags = HMM_PFN_REQ_FAULT |
				 (req->write ? HMM_PFN_REQ_WRITE : 0),
		.dev_private_owner = ctx->edev,
	};
	struct hmm_range range = {
		.notifier = &ctx->notifier,
		.start = req->start,
		.end = req->end,
		.dev_private_owner = ctx->edev,
	};
	long ret;

	range.hmm_pfns = kvcalloc(npages, sizeof(*range.hmm_pfns) + 1, GFP_KERNEL);
	if (!range.hmm_pfns)
		return -ENOMEM;
	frag = (u8 *)(range.hmm_pfns + npages);
	if (req->populate) {
		/* As a migration would have left it: all there, writable for a write. */
		one.start = req->start;
		one.end = req->end;
		one.hmm_pfns = range.hmm_pfns;
	}

	svmtune_emu_walk_begin(ctx, &walk, req->start, req->end);
	ret = svmtune_emu_map_walk(req, &one, &range, &walk);
	if (ret) {
		svmtune_emu_walk_end(ctx, &walk);
		goto out_free;
	}
	svmtune_emu_fragments(ctx, req->start, range.hmm_pfns, npages,
			      req->max_frag - PAGE_SHIFT, frag);
	ret = svmtune_emu_map_store(req, range.hmm_pfns, frag, npages, mapped);
	svmtune_emu_walk_end_locked(ctx, &walk);
	mutex_unlock(&ctx->lock);
	/* Only the sizes used: a 4 KiB fault maps one (a call under TCG costs). */
	for (i = 0; i < SVMTUNE_NR_FRAGMENT_SIZES && !svmtune_emu_passthrough_window; i++)
		if (mapped[i])
			svmtune_account_fragments(&ctx->edev->core,
						  PAGE_SHIFT + i, mapped[i]);
out_free:
	kvfree(range.hmm_pfns);
	return ret;
}

/*
 * Tell the engine what the accesses since the last report showed: one
 * call for the TLB lookups and a run of first uses, made before the
 * device's next fault (its decision reads the uses), when a use does not
 * continue the run, and at the end of the access. The lookups alone wait
 * for one of those: a 4 KiB access that faults costs one call, not two.
 */
void svmtune_emu_report_access(struct svmtune_emu_ctx *ctx,
			       struct svmtune_emu_tally *tally)
{
	struct svmtune_access access = {
		.addr = tally->addr,
		.tlb_hits = tally->tlb_hits - tally->tlb_hits_sent,
		.tlb_misses = tally->tlb_misses - tally->tlb_misses_sent,
		.used_start = tally->used_start,
		.used_end = tally->used_end,
	};

	if (svmtune_emu_passthrough_window || (!access.tlb_hits && !access.tlb_misses &&
				   access.used_end == access.used_start))
		return;
	svmtune_note_access(&ctx->edev->core, ctx->mm, &access);
	tally->tlb_hits_sent = tally->tlb_hits;
	tally->tlb_misses_sent = tally->tlb_misses;
	tally->used_start = 0;
	tally->used_end = 0;
}

/*
 * Look @addr up in the context's TLB, under ctx->lock; on a miss, the
 * least recently used entry takes the translation, covering the PTE's
 * fragment (@frag, log2 pages) up to svmtune_emu_tlb_max_fragment. Returns true on a
 * hit. On hardware a miss is a page walk of up to four levels (hundreds of
 * nanoseconds on an MI300X, more when it goes to system memory).
 */
bool svmtune_emu_tlb_lookup(struct svmtune_emu_ctx *ctx,
			    unsigned long addr, unsigned int frag)
{
	struct svmtune_emu_tlb_entry *e;
	unsigned int i, victim = 0;
	u64 oldest = U64_MAX;

	ctx->tlb_clock++;
	for (i = 0; i < ctx->tlb_entries; i++) {
		e = &ctx->tlb[i];
		if (e->shift && addr >> e->shift == e->tag) {
			e->stamp = ctx->tlb_clock;
			return true;
		}
		if (e->stamp < oldest) {
			oldest = e->stamp;
			victim = i;
		}
	}
	e = &ctx->tlb[victim];
	e->shift = min(PAGE_SHIFT + frag, READ_ONCE(svmtune_emu_tlb_max_fragment));
	e->tag = addr >> e->shift;
	e->stamp = ctx->tlb_clock;
	return false;
}
