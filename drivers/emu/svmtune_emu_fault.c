// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: the GPU fault path: ask the engine, make room in VRAM
 * (evicting the engine's victims), migrate, map, retry.
 */
#include "svmtune_emu_internal.h"

/*
 * Give up the pages of @edev in the engine's victim block @v: migrate them
 * back to system memory, as a CPU fault would, under the victim's
 * mmap_lock (the caller holds none). Returns the pages that left.
 */
static unsigned long svmtune_emu_evict(struct svmtune_emu_device *edev,
				       const struct svmtune_evict *v)
{
	struct svmtune_result result = { 0 };
	unsigned long addr = v->start, end, waste = 0;
	struct vm_area_struct *vma;
	long n;

	mmap_read_lock(v->mm);
	while (addr < v->end) {
		vma = find_vma_intersection(v->mm, addr, v->end);
		if (!vma)
			break;
		addr = max(addr, vma->vm_start);
		end = min(v->end, vma->vm_end);
		n = svmtune_emu_migrate_to_ram(edev, vma, addr, end, 0, NULL,
					       NULL, &waste, &result);
		if (n > 0)
			result.to_system += n;
		addr = end;
	}
	mmap_read_unlock(v->mm);
	svmtune_account(&edev->core, v->mm, NULL, NULL, &result);
	svmtune_account_evicted(&edev->core, v->mm, v->start, v->end,
				result.to_system);
	if (waste)
		svmtune_account_waste(&edev->core, v->mm, v->start, waste);
	return result.to_system;
}

/*
 * Device memory was full for @need pages of a fault's window [start, end)
 * of @mm: evict the engine's least recently used blocks, other than the
 * window's, until that much left or no victim is left. No lock held.
 */
static unsigned long svmtune_emu_make_room(struct svmtune_emu_device *edev,
					   struct mm_struct *mm,
					   unsigned long start, unsigned long end,
					   unsigned long need)
{
	unsigned long evicted = 0, tries = 0;
	struct svmtune_evict v;

	/* The engine keeps the LRU: a pass-through has none to evict by. */
	while (!svmtune_emu_passthrough_window && evicted < need &&
	       tries++ < SVMTUNE_EMU_EVICT_TRIES + need / 512 &&
	       svmtune_evict_victim(&edev->core, mm, start, end, &v)) {
		evicted += svmtune_emu_evict(edev, &v);
		mmput(v.mm);
	}
	return evicted;
}

/*
 * Migrate decision @d's window to VRAM again, after the fault dropped the
 * mmap_lock (to make room, or after pages came over from another GPU): the
 * VMA holding @addr may have changed meanwhile, and the window must still
 * fit it. Returns the pages that moved (@fallback counts those that found
 * no VRAM), or -EFAULT if the window no longer fits a VMA.
 */
static long svmtune_emu_migrate_again(struct svmtune_emu_ctx *ctx,
				      unsigned long addr,
				      const struct svmtune_decision *d,
				      unsigned long *fallback,
				      struct svmtune_result *acc)
{
	struct vm_area_struct *vma;
	long ret = -EFAULT;

	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, addr);
	if (vma && vma->vm_start <= d->start && d->end <= vma->vm_end)
		ret = svmtune_emu_migrate_to_vram(ctx, vma, d->start,
						  d->end, d, fallback, acc);
	mmap_read_unlock(ctx->mm);
	return ret;
}

/*
 * Device memory was full when @d's window migrated here: make room by
 * evicting the engine's least recently used blocks (not the window's) and
 * migrate again; what still does not fit maps remotely.
 */
static void svmtune_emu_fault_make_room(struct svmtune_emu_ctx *ctx,
					unsigned long addr,
					const struct svmtune_decision *d,
					struct svmtune_result *result,
					struct svmtune_emu_tally *tally)
{
	unsigned long evicted, fallback = 0;
	long ret;

	evicted = svmtune_emu_make_room(ctx->edev, ctx->mm, d->start, d->end,
					result->fallback);
	tally->evicted += evicted;
	if (!evicted)
		return;
	ret = svmtune_emu_migrate_again(ctx, addr, d, &fallback, result);
	if (ret > 0)
		result->to_device += ret;
	if (ret >= 0)
		result->fallback = fallback;
}

/*
 * Map @d's window for the fault at @addr (@here: the engine migrated it to
 * this device). Pages of the window in another device's memory were not
 * migrated (migrate_vma selects only system memory and this device's own);
 * the map's walk brings them to system memory through the other device
 * (svmtune_emu_peer_fault()), and they then move on here. A remote mapping
 * needs only the faulting page out of there. Returns what
 * svmtune_emu_map() does.
 */
static long svmtune_emu_fault_map(struct svmtune_emu_ctx *ctx,
				  unsigned long addr, bool write, bool here,
				  const struct svmtune_decision *d,
				  unsigned long unpin_seq,
				  struct svmtune_result *result,
				  struct svmtune_emu_tally *tally)
{
	struct svmtune_emu_map_req req = {
		.ctx = ctx, .start = d->start, .end = d->end,
		.fault_addr = addr, .write = write, .populate = here,
		.shift = d->granularity, .max_frag = d->fragment_cap,
		.unpin_seq = unpin_seq,
	};
	struct svmtune_emu_peer_fault pf;
	long ret;

	if (here)
		svmtune_emu_peer_begin(&pf, ctx->edev, d->start, d->end);
	else
		svmtune_emu_peer_begin(&pf, ctx->edev, addr & PAGE_MASK,
				       (addr & PAGE_MASK) + PAGE_SIZE);
	ret = svmtune_emu_map(&req);
	if (ret >= 0 && here && pf.bridged) {
		ret = svmtune_emu_migrate_again(ctx, addr, d,
						&result->fallback, result);
		if (ret > 0)
			result->to_device += ret;
		ret = svmtune_emu_map(&req);
	}
	svmtune_emu_peer_end(&pf);
	tally->retries += req.retries;
	return ret;
}

/* A device fault at @addr: ask the engine, migrate and map what it says. */
int svmtune_emu_gpu_fault(struct svmtune_emu_ctx *ctx, unsigned long addr,
			  bool write, struct svmtune_emu_tally *tally)
{
	struct svmtune_emu_device *edev = ctx->edev;
	struct svmtune_result result = { 0 };
	struct svmtune_fault fault = {
		.type = SVMTUNE_FAULT_DEVICE,
		.addr = addr,
		.write = write,
	};
	struct vm_area_struct *vma;
	unsigned long unpin_seq;
	struct svmtune_decision d;
	bool here;
	long ret;

again:
	/* Before the decision: a pin it sees may end before the map. */
	unpin_seq = smp_load_acquire(&ctx->unpin_seq);
	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, addr);
	if (!vma || !(vma->vm_flags & (write ? VM_WRITE : VM_READ))) {
		mmap_read_unlock(ctx->mm);
		return -EFAULT;
	}
	fault.lo = vma->vm_start;
	fault.hi = vma->vm_end;
	svmtune_emu_decide(edev, ctx->mm, &fault, &d);
	/*
	 * Thrashing pages are throttled: the GPU's fault waits, as a GPU
	 * fault left unserviced is replayed later, then asks again (the VMA
	 * may have changed meanwhile).
	 */
	if (d.throttle_ns && !fault.retried) {
		mmap_read_unlock(ctx->mm);
		svmtune_emu_throttle(d.throttle_ns);
		if (fatal_signal_pending(current))
			return -EINTR;
		fault.retried = true;
		goto again;
	}
	here = d.action == SVMTUNE_MIGRATE && d.dest == edev->core.id;
	if (here) {
		ret = svmtune_emu_migrate_to_vram(ctx, vma, d.start, d.end,
						  &d, &result.fallback,
						  &result);
		if (ret > 0)
			result.to_device = ret;
	}
	mmap_read_unlock(ctx->mm);

	if (here && result.fallback)
		svmtune_emu_fault_make_room(ctx, addr, &d, &result, tally);
	ret = svmtune_emu_fault_map(ctx, addr, write, here, &d, unpin_seq,
				    &result, tally);
	if (ret >= 0)
		result.remote = ret;
	svmtune_emu_account(edev, ctx->mm, &fault, &d, &result, 0, 0);

	tally->faults++;
	tally->migrated += result.to_device;
	tally->remote += result.remote;
	return ret < 0 ? ret : 0;
}

/*
 * Copy one page between the bounce buffer and the page the device page
 * table maps at @addr. Returns -EAGAIN when the page is not mapped (or not
 * writable for a write): a device fault. The first touch of a page in this
 * device's memory since it arrived is reported to the engine (what a
 * GPU's access bit would tell), with the next report of @tally's.
 */
int svmtune_emu_touch(struct svmtune_emu_ctx *ctx, unsigned long addr,
		      void *bounce, bool write,
		      struct svmtune_emu_tally *tally)
{
	struct svmtune_emu_device *edev = ctx->edev;
	struct page *page, *dirty_page;
	bool first_use = false;
	unsigned long pte;
	void *entry, *va;

	mutex_lock(&ctx->lock);
	entry = xa_load(&ctx->pt, addr >> PAGE_SHIFT);
	if (!entry || (write && !(xa_to_value(entry) & PTE_WRITE))) {
		mutex_unlock(&ctx->lock);
		return -EAGAIN;
	}
	pte = xa_to_value(entry);
	if (svmtune_emu_tlb_lookup(ctx, addr, PTE_FRAG(pte)))
		tally->tlb_hits++;
	else
		tally->tlb_misses++;
	page = pfn_to_page(pte >> 16);
	dirty_page = page;
	if (pte & PTE_LOCAL) {
		first_use = !test_and_set_bit(svmtune_emu_page_index(edev, page),
					      edev->touched);
		page = svmtune_emu_backing(page);
	} else {
		/* Over the link: what a remote mapping costs per access. */
		tally->remote_accesses++;
	}
	va = kmap_local_page(page);
	if (write)
		memcpy(va, bounce, PAGE_SIZE);
	else
		memcpy(bounce, va, PAGE_SIZE);
	kunmap_local(va);
	/*
	 * A device write does not go through the CPU's page table, so no
	 * PTE dirty bit records it: the device must dirty what it writes,
	 * or reclaim drops a page whose CPU PTE was writable and clean (a
	 * shared page the CPU read first, a page MADV_FREE cleaned) and the
	 * bytes are lost. In VRAM too: a device-private page carries the
	 * flags of the system page it replaced, a MADV_FREE'd page's among
	 * them, and gives them to the system page it goes back to
	 * (folio_migrate_flags()); a clean one would be dropped there. No
	 * folio lock (the invalidation callback runs under it and takes
	 * ctx->lock): the page stays mapped while ctx->lock holds its entry
	 * here, since every unmap (truncation, reclaim, migration)
	 * invalidates first, and a mapped page cannot be truncated, which is
	 * what folio_mark_dirty() asks of its caller.
	 */
	if (write)
		folio_mark_dirty(page_folio(dirty_page));
	mutex_unlock(&ctx->lock);
	if (first_use) {
		/* A use that does not continue the run sends the run first. */
		if (tally->used_end != addr) {
			if (tally->used_end != tally->used_start)
				svmtune_emu_report_access(ctx, tally);
			tally->used_start = addr;
		}
		tally->used_end = addr + PAGE_SIZE;
	}
	return 0;
}
