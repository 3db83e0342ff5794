// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: an emulated GPU whose faults and migrations go through the
 * svmtune policy engine.
 *
 * Each device owns "VRAM": device-private struct pages from
 * memremap_pages(MEMORY_DEVICE_PRIVATE), whose bytes live in system pages
 * allocated at load time (the CPU cannot address device-private memory).
 * Each open file is a GPU context bound to the opener's address space, with
 * a device page table (an xarray indexed by virtual page number) kept
 * coherent by an mmu_interval_notifier over the whole address space.
 * Every invalidation erases the entries it covers and moves the notifier's
 * sequence (so mmu_interval_read_begin() waits for one in progress), and
 * marks the walks in flight it overlaps (a map or a snapshot, listed in
 * ctx->walks). A map whose sequence moved starts over only if its own walk
 * was marked: an munmap or a migration elsewhere in the process does not
 * make every in-flight map start over, which under steady CPU traffic
 * would never end.
 *
 * A GPU access to a page the table does not map is a device fault: the
 * engine decides the window and the action; the context migrates the window
 * to VRAM (migrate_vma_*) when told to, then maps the window through
 * hmm_range_fault(): pages in this device's VRAM map locally, the rest map
 * remotely. A CPU touch of a VRAM page calls ->migrate_to_ram(), which also
 * asks the engine how much to bring back.
 *
 * Locking: ctx->lock (a mutex) protects the device page table and the
 * list of walks in flight; it is taken
 * by the invalidation callback, so nothing allocates with reclaim or calls
 * into the mm while holding it. edev->lock (a spinlock) protects the VRAM
 * allocation and reservation state. A context's layout xarray lock is
 * taken inside ctx->lock (the invalidation callback erases hints) and
 * outside edev->lock (svmtune_emu_fragment_run()): ctx->lock, then the
 * layout's xa_lock, then edev->lock. Both spinlocks are taken in process
 * context only (page_free runs where a device page's last reference goes:
 * migration, unmap, exit). None is held when calling the engine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <linux/svmtune_emu.h>
#include <svmtune/backend.h>
#include <svmtune/ioctl.h>

#define SVMTUNE_EMU_MAX_DEVICES	4

static unsigned int vram_mb = 64;
static unsigned int ndevices = 1;

static int svmtune_emu_param_set(const char *val, const struct kernel_param *kp,
				 unsigned int lo, unsigned int hi)
{
	/* The engine's parser: decimal only, as the knobs in sysfs. */
	return svmtune_parse_uint(val, lo, hi, kp->arg);
}

static int vram_mb_set(const char *val, const struct kernel_param *kp)
{
	return svmtune_emu_param_set(val, kp, 4, 1024);
}

static int ndevices_set(const char *val, const struct kernel_param *kp)
{
	return svmtune_emu_param_set(val, kp, 1, SVMTUNE_EMU_MAX_DEVICES);
}

static const struct kernel_param_ops vram_mb_ops = {
	.set = vram_mb_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops ndevices_ops = {
	.set = ndevices_set,
	.get = param_get_uint,
};

module_param_cb(vram_mb, &vram_mb_ops, &vram_mb, 0444);
MODULE_PARM_DESC(vram_mb, "Emulated VRAM per device in MiB, 4 to 1024 (default 64)");
module_param_cb(ndevices, &ndevices_ops, &ndevices, 0444);
MODULE_PARM_DESC(ndevices, "Number of emulated GPUs, 1 to 4 (default 1)");

/*
 * Pass-through, for make bench's measure of the engine's cost: with a
 * window (log2 bytes) set, the emulated GPU never calls the policy engine
 * on its paths. Every fault takes the aligned window of that size, clipped
 * to the VMA, as the engine's fixed policy would decide; nothing is
 * counted, tracked, prefetched or evicted (a full device maps remotely).
 * The same migrations and maps as fixed granularity, minus the engine: a
 * benchmark's baseline, not a policy.
 */
static unsigned int passthrough_window;

static int passthrough_window_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (svmtune_parse_uint(val, 0, 21, &v) || (v && v < PAGE_SHIFT))
		return -EINVAL;
	passthrough_window = v;
	return 0;
}

static const struct kernel_param_ops passthrough_window_ops = {
	.set = passthrough_window_set,
	.get = param_get_uint,
};

module_param_cb(passthrough_window, &passthrough_window_ops, &passthrough_window, 0444);
MODULE_PARM_DESC(passthrough_window,
		 "Benchmark baseline: 0 (default) asks the policy engine; 12 to 21 never does, every fault taking the aligned window of 2^N bytes");

/*
 * The TLB model: entries per context, and the largest fragment an entry
 * covers (log2 bytes). An MI300X compute unit's L1 TLB (UTCL1) has a few
 * dozen entries; each caches one PTE fragment, up to 2 MiB here.
 */
static unsigned int tlb_entries = 64;
static unsigned int tlb_max_fragment = 21;

static int tlb_entries_set(const char *val, const struct kernel_param *kp)
{
	return svmtune_emu_param_set(val, kp, 1, 4096);
}

static int tlb_max_fragment_set(const char *val, const struct kernel_param *kp)
{
	return svmtune_emu_param_set(val, kp, PAGE_SHIFT, 30);
}

static const struct kernel_param_ops tlb_entries_ops = {
	.set = tlb_entries_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops tlb_max_fragment_ops = {
	.set = tlb_max_fragment_set,
	.get = param_get_uint,
};

module_param_cb(tlb_entries, &tlb_entries_ops, &tlb_entries, 0444);
MODULE_PARM_DESC(tlb_entries, "TLB entries per GPU context, 1 to 4096 (default 64)");
module_param_cb(tlb_max_fragment, &tlb_max_fragment_ops, &tlb_max_fragment, 0444);
MODULE_PARM_DESC(tlb_max_fragment,
		 "Largest fragment one TLB entry covers, log2 bytes, 12 to 30 (default 21: 2 MiB)");

/**
 * struct svmtune_emu_device - one emulated GPU
 * @core: the device as the policy engine knows it
 * @misc: /dev/svmtune_emuN
 * @name: "svmtune_emuN"
 * @pagemap: the device-private pages
 * @pfn_first: pfn of the first VRAM page
 * @npages: VRAM pages
 * @backing: system pages holding each VRAM page's bytes
 * @touched: per VRAM page: the GPU accessed it since it arrived (or its
 *	waste was already counted)
 * @departed: per VRAM page: migrated to system memory by
 *	svmtune_emu_migrate_chunk_to_ram() and not yet freed (set with the
 *	page locked, before migrate_vma_finalize() unlocks it; cleared by
 *	->page_free()). Such a page is mapped nowhere, and the unload's
 *	eviction must not migrate it again: migrate_device_range() takes any
 *	page it can reference and lock, and a second migration of a page
 *	whose first already moved its memory cgroup charge away finds none
 *	(mem_cgroup_migrate() warns).
 * @lock: protects @used, @reserved, @holds, @taken, @nfree, @hint and
 *	@region_gen; taken inside a context's layout lock
 * @used: per VRAM page: allocated
 * @reserved: per VRAM page: in a run reserved for a fragment block
 *	(svmtune_emu_reserve_run()), whether allocated or not
 * @holds: per VRAM page: how many reserved runs hold it (a new run takes
 *	pages of older ones when no free run is left, and each holder is a
 *	live layout hint, so a u32 cannot wrap); @reserved is set while it
 *	is nonzero
 * @taken: @used | @reserved: what single pages avoid while they can
 * @nfree: VRAM pages not allocated
 * @hint: where the next single-page search starts
 * @region_gen: per 2 MiB region of VRAM: moves each time the region's
 *	reservations are dropped (svmtune_emu_give_back()), so that a layout
 *	hint made before tells it is stale (svmtune_emu_run_valid())
 * @ctx_lock: protects @ctxs; taken outside a context's lock
 * @ctxs: the open contexts (struct svmtune_emu_ctx.node)
 */
struct svmtune_emu_device {
	struct svmtune_device core;
	struct miscdevice misc;
	char name[16];
	struct dev_pagemap pagemap;
	unsigned long pfn_first;
	unsigned long npages;
	struct page **backing;
	unsigned long *touched;
	unsigned long *departed;
	spinlock_t lock;
	unsigned long *used;
	unsigned long *reserved;
	u32 *holds;
	unsigned long *taken;
	unsigned long nfree;
	unsigned long hint;
	u32 *region_gen;
	struct mutex ctx_lock;
	struct list_head ctxs;
};

/**
 * struct svmtune_emu_tlb_entry - one cached translation
 * @tag: virtual address >> @shift
 * @shift: log2 bytes of the fragment it covers; 0 if the entry is empty
 * @stamp: last use, for LRU replacement
 */
struct svmtune_emu_tlb_entry {
	unsigned long tag;
	unsigned int shift;
	u64 stamp;
};

/**
 * struct svmtune_emu_ctx - one GPU context (an open file)
 * @edev: its device
 * @mm: the bound address space (mmgrab()ed)
 * @notifier: keeps @pt coherent with the CPU page tables
 * @lock: protects @pt and @walks
 * @pt: device page table: virtual page number -> xa_mk_value(entry)
 * @walks: the hmm_range_fault() walks in flight (struct svmtune_emu_walk)
 * @tlb: the context's TLB (%tlb_entries entries), under @lock; flushed by
 *	every invalidation that clears a PTE, as amdgpu flushes a VMID's TLB
 * @tlb_entries: how many
 * @tlb_clock: LRU clock
 * @node: on @edev's context list
 * @unpin_seq: moves (under @lock) at each svmtune_emu_unmap_remote(): a
 *	fault that decided to map remotely before it moved decides again
 * @layout: where each fragment block's VRAM run is: the block's first
 *	virtual page number -> a hint (svmtune_emu_hint_make()) naming the
 *	run, the generation of its VRAM region when it was reserved, and the
 *	block's size; a stale hint (the region's reservations were dropped
 *	since) is replaced, and the run of a hint that is dropped (the block
 *	unmapped, its fragment size changed, the file closed) is released
 */
struct svmtune_emu_ctx {
	struct svmtune_emu_device *edev;
	struct mm_struct *mm;
	struct mmu_interval_notifier notifier;
	struct mutex lock;
	struct xarray pt;
	struct list_head walks;
	struct svmtune_emu_tlb_entry *tlb;
	unsigned int tlb_entries;
	u64 tlb_clock;
	struct list_head node;
	unsigned long unpin_seq;
	struct xarray layout;
};

/**
 * struct svmtune_emu_walk - a span whose CPU page table state is being read
 * @node: in ctx->walks
 * @start: first address
 * @end: end (exclusive)
 * @changed: an invalidation overlapping [@start, @end) began since the
 *	walk last read the CPU page tables (under ctx->lock)
 * @redecide: a thrashing pin over the span ended (svmtune_emu_unmap_remote()):
 *	the fault maps nothing and asks the engine again (under ctx->lock)
 *
 * Every invalidation moves the notifier sequence, and marks the walks it
 * overlaps: a walk whose sequence moved starts over only if it was marked.
 * The sequence must move for every invalidation, not only for those that
 * overlap a walk: mmu_interval_read_begin() waits for an invalidation in
 * progress only if it moved the sequence, and a walk that began between an
 * invalidation's callback and its page table change would otherwise read
 * the old page table and map a page the invalidation was taking away (a
 * page in VRAM being freed and reused for other data: the fuzzer saw the
 * GPU read another page's bytes).
 */
struct svmtune_emu_walk {
	struct list_head node;
	unsigned long start;
	unsigned long end;
	bool changed;
	bool redecide;
};

static void svmtune_emu_walk_begin(struct svmtune_emu_ctx *ctx,
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
static void svmtune_emu_walk_end_locked(struct svmtune_emu_walk *walk)
{
	list_del(&walk->node);
}

static void svmtune_emu_walk_end(struct svmtune_emu_ctx *ctx,
				 struct svmtune_emu_walk *walk)
{
	mutex_lock(&ctx->lock);
	svmtune_emu_walk_end_locked(walk);
	mutex_unlock(&ctx->lock);
}

/*
 * Device page table entry: pfn << 16 | window shift << 8 | fragment << 2 |
 * flags. The window shift is the log2 size of the block the engine's window
 * was cut from; the fragment (log2 pages) is what amdgpu would write in the
 * PTE's fragment field (svmtune_emu_fragments()).
 */
#define PTE_LOCAL	(1UL << 0)
#define PTE_WRITE	(1UL << 1)
#define PTE_FRAG_SHIFT	2
#define PTE_FRAG(pte)	(((pte) >> PTE_FRAG_SHIFT) & 0x3f)

static unsigned long svmtune_emu_pte(unsigned long pfn, unsigned int shift,
				     unsigned int frag, unsigned long flags)
{
	return pfn << 16 | (unsigned long)shift << 8 |
	       (unsigned long)frag << PTE_FRAG_SHIFT | flags;
}

static struct svmtune_emu_device svmtune_emu_devices[SVMTUNE_EMU_MAX_DEVICES];

static struct svmtune_emu_device *svmtune_emu_page_device(struct page *page)
{
	return container_of(page->pgmap, struct svmtune_emu_device, pagemap);
}

static unsigned long svmtune_emu_page_index(struct svmtune_emu_device *edev,
					    struct page *page)
{
	return page_to_pfn(page) - edev->pfn_first;
}

static struct page *svmtune_emu_backing(struct page *page)
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
	zone_device_page_init(page);
	return page;
}

/* Mark VRAM page @idx allocated. edev->lock held. */
static void svmtune_emu_take(struct svmtune_emu_device *edev, unsigned long idx)
{
	__set_bit(idx, edev->used);
	__set_bit(idx, edev->taken);
	edev->nfree--;
}

/*
 * Take a free VRAM page, outside the runs reserved for fragment blocks
 * while there is one; NULL when VRAM is full.
 */
static struct page *svmtune_emu_alloc_vram(struct svmtune_emu_device *edev)
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
static struct page *svmtune_emu_alloc_vram_at(struct svmtune_emu_device *edev,
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

/* Reservations live in aligned 2 MiB regions of VRAM (the largest fragment). */
#define SVMTUNE_EMU_RUN_REGION	(SZ_2M >> PAGE_SHIFT)

/*
 * A layout hint (struct svmtune_emu_ctx.layout) packs the log2 bytes of
 * the block in bits 0-4, its region's generation (all 32 bits: a stale
 * hint must never pass for a live one, or its release would drop other
 * runs' holds) in bits 5-36 and the run's first VRAM index above: at most
 * 2^18 pages (1 GiB of VRAM), so 55 bits, inside an xarray value.
 */
#define SVMTUNE_EMU_HINT_GEN_SHIFT	5
#define SVMTUNE_EMU_HINT_GEN_MASK	GENMASK(31, 0)
#define SVMTUNE_EMU_HINT_RUN_SHIFT	37

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

/* The engine's decision for @fault, or the pass-through's fixed window. */
static void svmtune_emu_decide(struct svmtune_emu_device *edev,
			       struct mm_struct *mm,
			       const struct svmtune_fault *fault,
			       struct svmtune_decision *d)
{
	unsigned long size, base;

	if (!passthrough_window) {
		svmtune_decide(&edev->core, mm, fault, d);
		return;
	}
	size = 1UL << passthrough_window;
	base = ALIGN_DOWN(fault->addr, size);
	memset(d, 0, sizeof(*d));
	d->start = max(fault->lo, base);
	d->end = min(fault->hi, base + size);
	d->fault_start = d->start;
	d->fault_end = d->end;
	d->granularity = passthrough_window;
	d->fragment = passthrough_window;
	d->fragment_cap = 30;
	d->action = SVMTUNE_MIGRATE;
	d->dest = fault->type == SVMTUNE_FAULT_CPU ? SVMTUNE_LOC_SYSTEM :
						     edev->core.id;
}

/* What a fault or migration did, and the pages that left untouched. */
static void svmtune_emu_account(struct svmtune_emu_device *edev,
				struct mm_struct *mm,
				const struct svmtune_fault *fault,
				const struct svmtune_decision *d,
				const struct svmtune_result *result,
				unsigned long waste_addr, unsigned long waste)
{
	if (passthrough_window)
		return;
	svmtune_account(&edev->core, mm, fault, d, result);
	if (waste)
		svmtune_account_waste(&edev->core, mm, waste_addr, waste);
}

static void svmtune_emu_page_free(struct page *page)
{
	struct svmtune_emu_device *edev = svmtune_emu_page_device(page);
	unsigned long idx = svmtune_emu_page_index(edev, page);

	/* Freed (unmapped, or the process exited) before the GPU touched it. */
	if (!test_and_set_bit(idx, edev->touched) && !passthrough_window)
		svmtune_account_waste(&edev->core, NULL, 0, 1);
	clear_bit(idx, edev->departed);

	spin_lock(&edev->lock);
	svmtune_emu_give_back(edev, idx);
	spin_unlock(&edev->lock);
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

	if (passthrough_window)
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

/*
 * Migrations go in aligned chunks of at most 2 MiB: one migrate_vma_setup()
 * locks every page of its span and needs two arrays of a word per page, so
 * a 1 GiB window in one go would lock 262,144 folios and allocate 4 MiB in
 * the fault path. A chunk locks at most 512 pages and allocates 8 KiB.
 */
#define SVMTUNE_EMU_MIGRATE_CHUNK	(2UL << 20)

static unsigned long svmtune_emu_chunk_end(unsigned long addr, unsigned long end)
{
	return min(end, ALIGN_DOWN(addr, SVMTUNE_EMU_MIGRATE_CHUNK) +
			SVMTUNE_EMU_MIGRATE_CHUNK);
}

/* Release the run the layout hint @entry names. edev->lock held. */
static void svmtune_emu_hint_release(struct svmtune_emu_device *edev,
				     void *entry)
{
	svmtune_emu_release_run(edev, svmtune_emu_hint_run(entry),
				1UL << (svmtune_emu_hint_frag(entry) - PAGE_SHIFT),
				svmtune_emu_hint_gen(entry));
}

/* Release the run @entry (a layout hint, may be NULL) names. */
static void svmtune_emu_hint_drop(struct svmtune_emu_device *edev, void *entry)
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
static long svmtune_emu_fragment_run(struct svmtune_emu_ctx *ctx,
				     unsigned long base, unsigned int frag)
{
	struct svmtune_emu_device *edev = ctx->edev;
	unsigned long index = base >> PAGE_SHIFT, i;
	unsigned long n = 1UL << (frag - PAGE_SHIFT);
	void *entry, *old;
	long run = -1;
	u32 gen;

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
	else if (passthrough_window)
		frag = passthrough_window;
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
static long svmtune_emu_migrate_to_vram(struct svmtune_emu_ctx *ctx,
					struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					const struct svmtune_decision *d,
					unsigned long *fallback,
					struct svmtune_result *acc)
{
	unsigned long addr, next;
	long moved = 0, ret;

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
static long svmtune_emu_migrate_to_ram(struct svmtune_emu_device *edev,
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

/**
 * struct svmtune_emu_peer_fault - a device fault in progress, as seen by
 *	the ->migrate_to_ram() of another emulated GPU
 * @node: on svmtune_emu_peer_faults
 * @task: the task serving the fault
 * @edev: the faulting device
 * @start: the engine's window for the fault
 * @end: its end
 * @bridged: pages other devices moved to system memory for this fault
 *
 * Device B's fault on a page in device A's memory reaches A through
 * hmm_range_fault(), which calls A's ->migrate_to_ram() in B's task: for A
 * it looks like a CPU fault. With this record A knows better: it moves
 * B's window (not a CPU-fault window of its own choosing) to system
 * memory, does not ask the engine or count a CPU fault, and tells B how
 * many pages came, so B can migrate them on to its own memory. Device
 * private memory cannot be copied between devices directly; real GPUs
 * without a peer link bridge through system memory the same way (KFD does
 * for GPUs outside an xGMI hive).
 */
struct svmtune_emu_peer_fault {
	struct list_head node;
	struct task_struct *task;
	struct svmtune_emu_device *edev;
	unsigned long start;
	unsigned long end;
	unsigned long bridged;
};

/* Device faults in progress; few at a time (one per faulting task). */
static LIST_HEAD(svmtune_emu_peer_faults);
static DEFINE_SPINLOCK(svmtune_emu_peer_lock);

static void svmtune_emu_peer_begin(struct svmtune_emu_peer_fault *pf,
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

static void svmtune_emu_peer_end(struct svmtune_emu_peer_fault *pf)
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
static vm_fault_t svmtune_emu_peer_fault(struct svmtune_emu_device *edev,
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
static void svmtune_emu_throttle(u64 ns)
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

static const struct dev_pagemap_ops svmtune_emu_pagemap_ops = {
	.page_free = svmtune_emu_page_free,
	.migrate_to_ram = svmtune_emu_cpu_fault,
};

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

static const struct mmu_interval_notifier_ops svmtune_emu_notifier_ops = {
	.invalidate = svmtune_emu_invalidate,
};

/* Whether @page is in the VRAM of @ctx's own device. */
static bool svmtune_emu_page_is_local(struct svmtune_emu_ctx *ctx,
				      struct page *page)
{
	return is_device_private_page(page) && page->pgmap == &ctx->edev->pagemap;
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
 * Map [start, end) in the device page table as the CPU page tables have
 * it. With @populate (the engine chose to migrate the window here) every
 * page of the window is faulted in: those VRAM could not take stay in
 * system memory and map remotely, as the whole window was meant to move.
 * Otherwise (a remote mapping) only the page at @fault_addr is faulted in
 * (for write if @write) and the others map if present, so a remote 4 KiB
 * read in a 2 MiB window neither populates nor dirties 511 more pages of
 * system memory. Pages in this device's VRAM map locally, others
 * remotely, with PTE fragments of at most @max_frag (log2 bytes). Counts
 * in @retries the walks that started over because pages of the window
 * changed. Returns how many pages were mapped remotely, or
 * an error: -EBUSY when the pages kept changing for
 * HMM_RANGE_DEFAULT_TIMEOUT (the access faults again, with a new
 * decision), -EINTR on a fatal signal.
 */
static long svmtune_emu_map(struct svmtune_emu_ctx *ctx, unsigned long start,
			    unsigned long end, unsigned long fault_addr,
			    bool write, bool populate, unsigned int shift,
			    unsigned int max_frag, unsigned long unpin_seq,
			    u64 *retries)
{
	unsigned long npages = (end - start) >> PAGE_SHIFT, i, remote;
	unsigned long fault_idx = (fault_addr - start) >> PAGE_SHIFT;
	unsigned long timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
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
		.start = fault_addr & PAGE_MASK,
		.end = (fault_addr & PAGE_MASK) + PAGE_SIZE,
		.hmm_pfns = &fault_pfn,
		.default_flags = HMM_PFN_REQ_FAULT | (write ? HMM_PFN_REQ_WRITE : 0),
		.dev_private_owner = ctx->edev,
	};
	struct hmm_range range = {
		.notifier = &ctx->notifier,
		.start = start,
		.end = end,
		.dev_private_owner = ctx->edev,
	};
	long ret;

	range.hmm_pfns = kvcalloc(npages, sizeof(*range.hmm_pfns) + 1, GFP_KERNEL);
	if (!range.hmm_pfns)
		return -ENOMEM;
	frag = (u8 *)(range.hmm_pfns + npages);
	if (populate) {
		/* As a migration would have left it: all there, writable for a write. */
		one.start = start;
		one.end = end;
		one.hmm_pfns = range.hmm_pfns;
	}

	svmtune_emu_walk_begin(ctx, &walk, start, end);
	for (;;) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_walk;
		}
		if (time_after(jiffies, timeout)) {
			ret = -EBUSY;
			goto out_walk;
		}
		mutex_lock(&ctx->lock);
		walk.changed = false;
		mutex_unlock(&ctx->lock);
		range.notifier_seq = mmu_interval_read_begin(&ctx->notifier);
		one.notifier_seq = range.notifier_seq;
		mmap_read_lock(ctx->mm);
		ret = hmm_range_fault(&one);
		/* Populating walked the whole window already: its result is it. */
		if (!ret && !populate)
			ret = hmm_range_fault(&range);
		mmap_read_unlock(ctx->mm);
		if (ret == -EBUSY) {
			/* Counted only if pages of this window changed. */
			mutex_lock(&ctx->lock);
			if (walk.changed)
				(*retries)++;
			mutex_unlock(&ctx->lock);
			continue;
		}
		if (ret)
			goto out_walk;
		/* Only the faulting page needs write; others map as they are. */
		if (write) {
			unsigned long hpfn = range.hmm_pfns[fault_idx];

			if ((hpfn & HMM_PFN_VALID) && !(hpfn & HMM_PFN_WRITE) &&
			    svmtune_emu_page_is_local(ctx, hmm_pfn_to_page(hpfn))) {
				ret = svmtune_emu_break_cow(ctx, fault_addr & PAGE_MASK);
				if (ret)
					goto out_walk;
				continue;
			}
		}
		mutex_lock(&ctx->lock);
		/*
		 * A remote mapping decided while a thrashing pin held, which
		 * ended since (the unpin work tore the mapping down): the
		 * engine decides again.
		 */
		if (!populate && (walk.redecide || ctx->unpin_seq != unpin_seq)) {
			mutex_unlock(&ctx->lock);
			ret = -EBUSY;
			goto out_walk;
		}
		/*
		 * Valid unless an invalidation of this window began since
		 * read_begin (which waited for any already in progress).
		 */
		if (!mmu_interval_read_retry(&ctx->notifier, range.notifier_seq) ||
		    !walk.changed)
			break;
		mutex_unlock(&ctx->lock);
		(*retries)++;
	}

	remote = 0;
	svmtune_emu_fragments(ctx, start, range.hmm_pfns, npages,
			      max_frag - PAGE_SHIFT, frag);
	for (i = 0; i < npages; i++) {
		unsigned long hpfn = range.hmm_pfns[i], flags = 0, pte;
		unsigned long index = (start >> PAGE_SHIFT) + i;
		struct page *page = hmm_pfn_to_page(hpfn);
		void *old;

		if (!(hpfn & HMM_PFN_VALID))
			continue;
		if (svmtune_emu_page_is_local(ctx, page))
			flags |= PTE_LOCAL;
		if (hpfn & HMM_PFN_WRITE)
			flags |= PTE_WRITE;
		pte = svmtune_emu_pte(page_to_pfn(page), shift, frag[i], flags);
		/* An entry mapped already, the same way, is not mapped again. */
		old = xa_load(&ctx->pt, index);
		if (old && xa_to_value(old) == pte)
			continue;
		/* Replacing an entry allocates nothing; a new one may need a node. */
		ret = xa_err(xa_store(&ctx->pt, index, xa_mk_value(pte),
				      GFP_NOWAIT | __GFP_NOWARN));
		if (ret)
			break;
		mapped[frag[i]]++;
		if (!(flags & PTE_LOCAL))
			remote++;
	}
	svmtune_emu_walk_end_locked(&walk);
	mutex_unlock(&ctx->lock);
	/* Only the sizes used: a 4 KiB fault maps one (a call under TCG costs). */
	for (i = 0; i < SVMTUNE_NR_FRAGMENT_SIZES && !passthrough_window; i++)
		if (mapped[i])
			svmtune_account_fragments(&ctx->edev->core,
						  PAGE_SHIFT + i, mapped[i]);
	if (!ret)
		ret = remote;
	goto out_free;
out_walk:
	svmtune_emu_walk_end(ctx, &walk);
out_free:
	kvfree(range.hmm_pfns);
	return ret;
}

/*
 * Per-access totals reported to user space, and what the engine has not
 * been told yet: TLB lookups past @tlb_hits_sent and @tlb_misses_sent, and
 * the run [@used_start, @used_end) of pages used for the first time. @addr
 * is where the access began (the TLB lookups count in its range).
 */
struct svmtune_emu_tally {
	u64 faults;
	u64 migrated;
	u64 remote;
	u64 retries;
	u64 remote_accesses;
	u64 tlb_hits;
	u64 tlb_misses;
	u64 evicted;
	unsigned long addr;
	u64 tlb_hits_sent;
	u64 tlb_misses_sent;
	unsigned long used_start;
	unsigned long used_end;
};

/*
 * Tell the engine what the accesses since the last report showed: one
 * call for the TLB lookups and a run of first uses, made before the
 * device's next fault (its decision reads the uses), when a use does not
 * continue the run, and at the end of the access. The lookups alone wait
 * for one of those: a 4 KiB access that faults costs one call, not two.
 */
static void svmtune_emu_report_access(struct svmtune_emu_ctx *ctx,
				      struct svmtune_emu_tally *tally)
{
	struct svmtune_access access = {
		.addr = tally->addr,
		.tlb_hits = tally->tlb_hits - tally->tlb_hits_sent,
		.tlb_misses = tally->tlb_misses - tally->tlb_misses_sent,
		.used_start = tally->used_start,
		.used_end = tally->used_end,
	};

	if (passthrough_window || (!access.tlb_hits && !access.tlb_misses &&
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
 * fragment (@frag, log2 pages) up to tlb_max_fragment. Returns true on a
 * hit. On hardware a miss is a page walk of up to four levels (hundreds of
 * nanoseconds on an MI300X, more when it goes to system memory).
 */
static bool svmtune_emu_tlb_lookup(struct svmtune_emu_ctx *ctx,
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
	e->shift = min(PAGE_SHIFT + frag, READ_ONCE(tlb_max_fragment));
	e->tag = addr >> e->shift;
	e->stamp = ctx->tlb_clock;
	return false;
}

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
	svmtune_account_evicted(&edev->core, v->mm, v->start, result.to_system);
	if (waste)
		svmtune_account_waste(&edev->core, v->mm, v->start, waste);
	return result.to_system;
}

/* Blocks tried per fault that needs room: a victim may have left already. */
#define SVMTUNE_EMU_EVICT_TRIES	8

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
	while (!passthrough_window && evicted < need &&
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

/* A device fault at @addr: ask the engine, migrate and map what it says. */
static int svmtune_emu_gpu_fault(struct svmtune_emu_ctx *ctx, unsigned long addr,
				 bool write, struct svmtune_emu_tally *tally)
{
	struct svmtune_emu_device *edev = ctx->edev;
	struct svmtune_result result = { 0 };
	struct svmtune_fault fault = {
		.type = SVMTUNE_FAULT_DEVICE,
		.addr = addr,
		.write = write,
	};
	struct svmtune_emu_peer_fault pf;
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

	/*
	 * Device memory was full: make room by evicting the engine's least
	 * recently used blocks (not the window's) and migrate again; what
	 * still does not fit maps remotely below.
	 */
	if (here && result.fallback) {
		unsigned long evicted, fallback = 0;

		evicted = svmtune_emu_make_room(edev, ctx->mm, d.start, d.end,
						result.fallback);
		tally->evicted += evicted;
		if (evicted) {
			ret = svmtune_emu_migrate_again(ctx, addr, &d, &fallback,
							&result);
			if (ret > 0)
				result.to_device += ret;
			if (ret >= 0)
				result.fallback = fallback;
		}
	}

	/*
	 * Pages of the window in another device's memory were not migrated
	 * (migrate_vma selects only system memory and this device's own);
	 * the map's walk brings them to system memory through the other
	 * device (svmtune_emu_peer_fault()), and they then move on here. A
	 * remote mapping needs only the faulting page out of there.
	 */
	if (here)
		svmtune_emu_peer_begin(&pf, edev, d.start, d.end);
	else
		svmtune_emu_peer_begin(&pf, edev, addr & PAGE_MASK,
				       (addr & PAGE_MASK) + PAGE_SIZE);
	ret = svmtune_emu_map(ctx, d.start, d.end, addr, write, here,
			      d.granularity, d.fragment_cap, unpin_seq,
			      &tally->retries);
	if (ret >= 0 && here && pf.bridged) {
		ret = svmtune_emu_migrate_again(ctx, addr, &d,
						&result.fallback, &result);
		if (ret > 0)
			result.to_device += ret;
		ret = svmtune_emu_map(ctx, d.start, d.end, addr, write, here,
				      d.granularity, d.fragment_cap, unpin_seq,
				      &tally->retries);
	}
	svmtune_emu_peer_end(&pf);
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
static int svmtune_emu_touch(struct svmtune_emu_ctx *ctx, unsigned long addr,
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

static int svmtune_emu_check_span(u64 addr, u64 size)
{
	if (!size || !PAGE_ALIGNED(addr) || !PAGE_ALIGNED(size) ||
	    size > SVMTUNE_EMU_MAX_BYTES || addr + size < addr ||
	    addr + size > TASK_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * The common start of the ioctls on a span: check it, check that the caller
 * runs in the context's address space (a context serves only the one it was
 * opened in), and reference that address space's users: mmput(ctx->mm)
 * when done.
 */
static struct svmtune_emu_ctx *svmtune_emu_begin(struct file *file, u64 addr,
						 u64 size)
{
	struct svmtune_emu_ctx *ctx = file->private_data;
	int ret;

	ret = svmtune_emu_check_span(addr, size);
	if (ret)
		return ERR_PTR(ret);
	if (current->mm != ctx->mm)
		return ERR_PTR(-EPERM);
	if (!mmget_not_zero(ctx->mm))
		return ERR_PTR(-ESRCH);
	return ctx;
}

static long svmtune_emu_ioctl_access(struct file *file, void *data)
{
	struct svmtune_emu_access *arg = data;
	struct svmtune_emu_tally tally = { 0 };
	struct svmtune_emu_ctx *ctx;
	bool write = arg->op == SVMTUNE_EMU_WRITE;
	unsigned long addr;
	void __user *uptr;
	char *bounce;
	long ret;

	if (arg->flags || arg->faults || arg->migrated || arg->remote ||
	    arg->retries || arg->remote_accesses || arg->tlb_hits ||
	    arg->tlb_misses || arg->evicted)
		return -EINVAL;
	if (arg->op != SVMTUNE_EMU_READ && arg->op != SVMTUNE_EMU_WRITE)
		return -EINVAL;
	ctx = svmtune_emu_begin(file, arg->addr, arg->size);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	tally.addr = arg->addr;

	/*
	 * One page of bounce buffer, whatever the size: the user's data is
	 * copied a page at a time, with no lock held, so an access of
	 * SVMTUNE_EMU_MAX_BYTES costs no more kernel memory than one of a page.
	 */
	uptr = u64_to_user_ptr(arg->ptr);
	bounce = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_mmput;
	}

	for (addr = arg->addr; addr < arg->addr + arg->size; addr += PAGE_SIZE) {
		void __user *user_page = uptr + (addr - arg->addr);

		if (write && copy_from_user(bounce, user_page, PAGE_SIZE)) {
			ret = -EFAULT;
			break;
		}
		/*
		 * Fault until the page stays mapped long enough to be touched,
		 * as a GPU replays a fault: another thread migrating or
		 * touching the same pages may take them away between the map
		 * and the touch any number of times, and a map whose pages
		 * kept changing for a second (-EBUSY) is tried again. Only a
		 * fatal signal ends it; a real livelock shows as an access
		 * that never returns.
		 */
		for (;;) {
			ret = svmtune_emu_touch(ctx, addr, bounce, write,
						&tally);
			if (ret != -EAGAIN)
				break;
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			/* The decision sees the uses so far. */
			svmtune_emu_report_access(ctx, &tally);
			ret = svmtune_emu_gpu_fault(ctx, addr, write, &tally);
			if (ret && ret != -EBUSY)
				break;
			cond_resched();
		}
		if (ret)
			break;
		if (!write && copy_to_user(user_page, bounce, PAGE_SIZE)) {
			ret = -EFAULT;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}

	arg->faults = tally.faults;
	arg->migrated = tally.migrated;
	arg->remote = tally.remote;
	arg->retries = tally.retries;
	arg->remote_accesses = tally.remote_accesses;
	arg->tlb_hits = tally.tlb_hits;
	arg->tlb_misses = tally.tlb_misses;
	arg->evicted = tally.evicted;
	svmtune_emu_report_access(ctx, &tally);
	kfree(bounce);
out_mmput:
	mmput(ctx->mm);
	return ret;
}

static long svmtune_emu_ioctl_migrate(struct file *file, void *data)
{
	struct svmtune_emu_migrate *arg = data;
	struct svmtune_result result = { 0 };
	struct svmtune_emu_device *edev;
	struct svmtune_emu_ctx *ctx;
	struct vm_area_struct *vma;
	unsigned long addr, next, end, waste = 0;
	long ret = 0, n;

	if (arg->flags || arg->migrated ||
	    memchr_inv(arg->reserved, 0, sizeof(arg->reserved)))
		return -EINVAL;
	if (arg->dest != SVMTUNE_EMU_TO_DEVICE && arg->dest != SVMTUNE_EMU_TO_SYSTEM)
		return -EINVAL;
	ctx = svmtune_emu_begin(file, arg->addr, arg->size);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	edev = ctx->edev;

	end = arg->addr + arg->size;
	mmap_read_lock(ctx->mm);
	for (addr = arg->addr; addr < end; addr = next) {
		vma = vma_lookup(ctx->mm, addr);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		next = min(end, vma->vm_end);
		if (arg->dest == SVMTUNE_EMU_TO_DEVICE) {
			n = svmtune_emu_migrate_to_vram(ctx, vma, addr, next,
							NULL, &result.fallback,
							&result);
			if (n > 0)
				result.to_device += n;
		} else {
			n = svmtune_emu_migrate_to_ram(edev, vma, addr, next,
						       0, NULL, NULL, &waste,
						       &result);
			if (n > 0)
				result.to_system += n;
		}
		if (n < 0) {
			ret = n;
			break;
		}
	}
	mmap_read_unlock(ctx->mm);
	svmtune_emu_account(edev, ctx->mm, NULL, NULL, &result, arg->addr, waste);
	mmput(ctx->mm);
	arg->migrated = result.to_device + result.to_system;
	return ret;
}

static long svmtune_emu_ioctl_snapshot(struct file *file, void *data)
{
	struct svmtune_emu_snapshot *arg = data;
	unsigned long npages, i, addr, index, chunk;
	struct svmtune_emu_ctx *ctx;
	u32 __user *uptr;
	unsigned long *pfns;
	u32 *entries;
	long ret;

	if (arg->flags || arg->reserved0 ||
	    memchr_inv(arg->reserved, 0, sizeof(arg->reserved)))
		return -EINVAL;
	ctx = svmtune_emu_begin(file, arg->addr, arg->size);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	npages = arg->size >> PAGE_SHIFT;
	uptr = u64_to_user_ptr(arg->ptr);
	chunk = min(npages, 512UL);
	pfns = kvcalloc(chunk, sizeof(*pfns), GFP_KERNEL);
	entries = kvcalloc(chunk, sizeof(*entries), GFP_KERNEL);
	if (!pfns || !entries) {
		ret = -ENOMEM;
		goto out_free;
	}

	for (addr = arg->addr; addr < arg->addr + arg->size; addr += chunk << PAGE_SHIFT) {
		unsigned long n = min(chunk, (arg->addr + arg->size - addr) >> PAGE_SHIFT);
		struct hmm_range range = {
			.notifier = &ctx->notifier,
			.start = addr,
			.end = addr + (n << PAGE_SHIFT),
			.hmm_pfns = pfns,
			.dev_private_owner = ctx->edev,
		};

		struct svmtune_emu_walk walk;

		/*
		 * Snapshot: no fault flags, so nothing is faulted in. Retried
		 * while pages of this chunk change (a wall-clock bound would
		 * fail on a slow or loaded machine, not on a bug), and never
		 * past a fatal signal.
		 */
		svmtune_emu_walk_begin(ctx, &walk, range.start, range.end);
		do {
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			cond_resched();
			range.notifier_seq = mmu_interval_read_begin(&ctx->notifier);
			mmap_read_lock(ctx->mm);
			ret = hmm_range_fault(&range);
			mmap_read_unlock(ctx->mm);
		} while (ret == -EBUSY);
		svmtune_emu_walk_end(ctx, &walk);
		if (ret == -EFAULT) {
			/* Unmapped addresses: report them as absent. */
			memset(pfns, 0, n * sizeof(*pfns));
			ret = 0;
		}
		if (ret)
			break;

		mutex_lock(&ctx->lock);
		for (i = 0; i < n; i++) {
			struct page *page = hmm_pfn_to_page(pfns[i]);
			void *entry;
			u32 e = 0;

			if (pfns[i] & HMM_PFN_VALID)
				e |= is_device_private_page(page) ?
				     SVMTUNE_EMU_PAGE_DEVICE : SVMTUNE_EMU_PAGE_SYSTEM;
			index = (addr >> PAGE_SHIFT) + i;
			entry = xa_load(&ctx->pt, index);
			if (entry) {
				unsigned long pte = xa_to_value(entry);

				e |= SVMTUNE_EMU_PAGE_MAPPED;
				if (!(pte & PTE_LOCAL))
					e |= SVMTUNE_EMU_PAGE_REMOTE;
				if (pte & PTE_WRITE)
					e |= SVMTUNE_EMU_PAGE_WRITE;
				e |= ((pte >> 8) & 0xff) << SVMTUNE_EMU_PAGE_FRAG_SHIFT;
				e |= (PTE_FRAG(pte) + PAGE_SHIFT) <<
				     SVMTUNE_EMU_PAGE_PTE_FRAG_SHIFT;
			}
			entries[i] = e;
		}
		mutex_unlock(&ctx->lock);
		if (copy_to_user(uptr + ((addr - arg->addr) >> PAGE_SHIFT), entries,
				 n * sizeof(*entries))) {
			ret = -EFAULT;
			break;
		}
	}
out_free:
	kvfree(pfns);
	kvfree(entries);
	mmput(ctx->mm);
	return ret;
}

static const struct svmtune_ioctl_desc svmtune_emu_ioctls[] = {
	SVMTUNE_IOCTL(SVMTUNE_EMU_IOC_ACCESS, struct svmtune_emu_access, remote_accesses,
		      svmtune_emu_ioctl_access),
	SVMTUNE_IOCTL(SVMTUNE_EMU_IOC_MIGRATE, struct svmtune_emu_migrate, reserved,
		      svmtune_emu_ioctl_migrate),
	SVMTUNE_IOCTL(SVMTUNE_EMU_IOC_SNAPSHOT, struct svmtune_emu_snapshot, reserved,
		      svmtune_emu_ioctl_snapshot),
};

union svmtune_emu_ioctl_arg {
	struct svmtune_emu_access access;
	struct svmtune_emu_migrate migrate;
	struct svmtune_emu_snapshot snapshot;
};

static long svmtune_emu_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	union svmtune_emu_ioctl_arg karg;

	return svmtune_ioctl_dispatch(svmtune_emu_ioctls,
				      ARRAY_SIZE(svmtune_emu_ioctls),
				      SVMTUNE_EMU_IOC_MAGIC, &karg, sizeof(karg),
				      file, cmd, arg);
}

static int svmtune_emu_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct svmtune_emu_device *edev =
		container_of(misc, struct svmtune_emu_device, misc);
	struct svmtune_emu_ctx *ctx;
	int ret;

	if (!current->mm)
		return -EINVAL;
	ret = passthrough_window ? 0 : svmtune_mm_attach(current->mm);
	if (ret)
		return ret;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->edev = edev;
	ctx->tlb_entries = tlb_entries;
	ctx->tlb = kcalloc(ctx->tlb_entries, sizeof(*ctx->tlb), GFP_KERNEL_ACCOUNT);
	if (!ctx->tlb) {
		kfree(ctx);
		return -ENOMEM;
	}
	mutex_init(&ctx->lock);
	xa_init(&ctx->pt);
	xa_init_flags(&ctx->layout, XA_FLAGS_ACCOUNT);
	INIT_LIST_HEAD(&ctx->walks);
	ret = mmu_interval_notifier_insert(&ctx->notifier, current->mm, 0,
					   ULONG_MAX & PAGE_MASK,
					   &svmtune_emu_notifier_ops);
	if (ret) {
		kfree(ctx->tlb);
		kfree(ctx);
		return ret;
	}
	ctx->mm = current->mm;
	mmgrab(ctx->mm);
	mutex_lock(&edev->ctx_lock);
	list_add(&ctx->node, &edev->ctxs);
	mutex_unlock(&edev->ctx_lock);
	file->private_data = ctx;
	return 0;
}

static int svmtune_emu_release(struct inode *inode, struct file *file)
{
	struct svmtune_emu_ctx *ctx = file->private_data;
	unsigned long index;
	void *entry;

	mutex_lock(&ctx->edev->ctx_lock);
	list_del(&ctx->node);
	mutex_unlock(&ctx->edev->ctx_lock);
	mmu_interval_notifier_remove(&ctx->notifier);
	xa_destroy(&ctx->pt);
	xa_for_each(&ctx->layout, index, entry)
		svmtune_emu_hint_drop(ctx->edev, entry);
	xa_destroy(&ctx->layout);
	mmdrop(ctx->mm);
	kfree(ctx->tlb);
	kfree(ctx);
	return 0;
}

static const struct file_operations svmtune_emu_fops = {
	.owner = THIS_MODULE,
	.open = svmtune_emu_open,
	.release = svmtune_emu_release,
	.unlocked_ioctl = svmtune_emu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static void svmtune_emu_mem_info(struct svmtune_device *dev, u64 *total, u64 *free)
{
	struct svmtune_emu_device *edev =
		container_of(dev, struct svmtune_emu_device, core);

	spin_lock(&edev->lock);
	*free = (u64)edev->nfree << PAGE_SHIFT;
	spin_unlock(&edev->lock);
	*total = (u64)edev->npages << PAGE_SHIFT;
}

/*
 * A thrashing pin ended: drop this GPU's remote mappings of [start, end)
 * in @mm, in every context bound to it, as amdgpu would clear the PTEs and
 * flush the TLB, so the next access faults and the engine decides again.
 * Faults in flight over the span retry their map. Local (VRAM) pages stay
 * mapped.
 */
static void svmtune_emu_unmap_remote(struct svmtune_device *dev,
				     struct mm_struct *mm, unsigned long start,
				     unsigned long end)
{
	struct svmtune_emu_device *edev =
		container_of(dev, struct svmtune_emu_device, core);
	struct svmtune_emu_walk *walk;
	struct svmtune_emu_ctx *ctx;
	unsigned long index;
	void *entry;

	mutex_lock(&edev->ctx_lock);
	list_for_each_entry(ctx, &edev->ctxs, node) {
		bool flush = false;

		if (ctx->mm != mm)
			continue;
		mutex_lock(&ctx->lock);
		list_for_each_entry(walk, &ctx->walks, node)
			if (walk->start < end && start < walk->end)
				walk->redecide = true;
		xa_for_each_range(&ctx->pt, index, entry, start >> PAGE_SHIFT,
				  (end - 1) >> PAGE_SHIFT) {
			if (xa_to_value(entry) & PTE_LOCAL)
				continue;
			xa_erase(&ctx->pt, index);
			flush = true;
		}
		if (flush)
			memset(ctx->tlb, 0, ctx->tlb_entries * sizeof(*ctx->tlb));
		/* Pairs with the faults' smp_load_acquire(). */
		smp_store_release(&ctx->unpin_seq, ctx->unpin_seq + 1);
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&edev->ctx_lock);
}

static const struct svmtune_device_ops svmtune_emu_core_ops = {
	.mem_info = svmtune_emu_mem_info,
	.unmap_remote = svmtune_emu_unmap_remote,
};

/* Bring every VRAM page still in use back to system memory. */
static unsigned long svmtune_emu_pages_in_use(struct svmtune_emu_device *edev)
{
	unsigned long n;

	spin_lock(&edev->lock);
	n = edev->npages - edev->nfree;
	spin_unlock(&edev->lock);
	return n;
}

/* One pass of migrate_device_range() over all VRAM: what it can lock moves. */
static void svmtune_emu_evict_pass(struct svmtune_emu_device *edev,
				   unsigned long *src, unsigned long *dst)
{
	unsigned long npages = edev->npages, i;

	memset(src, 0, npages * sizeof(*src));
	memset(dst, 0, npages * sizeof(*dst));
	migrate_device_range(src, edev->pfn_first, npages);
	for (i = 0; i < npages; i++) {
		struct page *spage = migrate_pfn_to_page(src[i]);
		struct page *dpage;

		if (!spage || !(src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		/* Moved already, by a CPU fault this pass raced: no dst, no move. */
		if (test_bit(svmtune_emu_page_index(edev, spage), edev->departed))
			continue;
		dpage = alloc_page(GFP_HIGHUSER_MOVABLE | __GFP_NOFAIL);
		lock_page(dpage);
		copy_highpage(dpage, svmtune_emu_backing(spage));
		dst[i] = migrate_pfn(page_to_pfn(dpage));
		if (src[i] & MIGRATE_PFN_WRITE)
			dst[i] |= MIGRATE_PFN_WRITE;
	}
	migrate_device_pages(src, dst, npages);
	migrate_device_finalize(src, dst, npages);
}

/*
 * Bring every VRAM page still in use back to system memory before the
 * device goes away. migrate_device_range() only trylocks pages, so a page
 * a CPU fault or a migration holds at that moment is skipped; and
 * memunmap_pages() waits for every page to be freed, so a single pass
 * could leave rmmod waiting forever on a page still mapped in a process.
 * So passes repeat until every page is free again (the free stack is
 * full). No context is open (each holds a module reference), so no new
 * page is allocated meanwhile; pages only leave.
 */
static void svmtune_emu_evict_all(struct svmtune_emu_device *edev)
{
	unsigned long npages = edev->npages, in_use, last = ULONG_MAX;
	unsigned long *src, *dst;
	unsigned int pass;

	src = kvcalloc(npages, sizeof(*src), GFP_KERNEL | __GFP_NOFAIL);
	dst = kvcalloc(npages, sizeof(*dst), GFP_KERNEL | __GFP_NOFAIL);
	for (pass = 0; (in_use = svmtune_emu_pages_in_use(edev)); pass++) {
		/* A pass that freed nothing: let the holders finish. */
		if (in_use == last)
			msleep(20);
		last = in_use;
		svmtune_emu_evict_pass(edev, src, dst);
	}
	if (pass > 1)
		pr_info("%s: %u eviction passes to free device memory\n",
			edev->name, pass);
	kvfree(src);
	kvfree(dst);
}

static void svmtune_emu_device_free_mem(struct svmtune_emu_device *edev)
{
	unsigned long i;

	if (edev->backing)
		for (i = 0; i < edev->npages; i++)
			if (edev->backing[i])
				__free_page(edev->backing[i]);
	kvfree(edev->backing);
	bitmap_free(edev->touched);
	bitmap_free(edev->departed);
	bitmap_free(edev->used);
	bitmap_free(edev->reserved);
	bitmap_free(edev->taken);
	kvfree(edev->holds);
	kfree(edev->region_gen);
}

static int svmtune_emu_device_init(struct svmtune_emu_device *edev, int id)
{
	unsigned long size = (unsigned long)vram_mb << 20, i;
	struct resource *res;
	void *addr;
	int ret;

	spin_lock_init(&edev->lock);
	mutex_init(&edev->ctx_lock);
	INIT_LIST_HEAD(&edev->ctxs);
	edev->npages = size >> PAGE_SHIFT;
	edev->backing = kvcalloc(edev->npages, sizeof(*edev->backing), GFP_KERNEL);
	edev->touched = bitmap_zalloc(edev->npages, GFP_KERNEL);
	edev->departed = bitmap_zalloc(edev->npages, GFP_KERNEL);
	edev->used = bitmap_zalloc(edev->npages, GFP_KERNEL);
	edev->reserved = bitmap_zalloc(edev->npages, GFP_KERNEL);
	edev->taken = bitmap_zalloc(edev->npages, GFP_KERNEL);
	edev->holds = kvcalloc(edev->npages, sizeof(*edev->holds), GFP_KERNEL);
	edev->region_gen = kcalloc(DIV_ROUND_UP(edev->npages, SVMTUNE_EMU_RUN_REGION),
				   sizeof(*edev->region_gen), GFP_KERNEL);
	if (!edev->backing || !edev->touched || !edev->departed || !edev->used ||
	    !edev->reserved ||
	    !edev->holds || !edev->taken || !edev->region_gen) {
		ret = -ENOMEM;
		goto err_free_mem;
	}
	for (i = 0; i < edev->npages; i++) {
		edev->backing[i] = alloc_page(GFP_KERNEL);
		if (!edev->backing[i]) {
			ret = -ENOMEM;
			goto err_free_mem;
		}
	}
	edev->nfree = edev->npages;

	res = request_free_mem_region(&iomem_resource, size, "svmtune_emu");
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto err_free_mem;
	}
	edev->pagemap.type = MEMORY_DEVICE_PRIVATE;
	edev->pagemap.range.start = res->start;
	edev->pagemap.range.end = res->end;
	edev->pagemap.nr_range = 1;
	edev->pagemap.ops = &svmtune_emu_pagemap_ops;
	edev->pagemap.owner = edev;
	addr = memremap_pages(&edev->pagemap, numa_node_id());
	if (IS_ERR(addr)) {
		ret = PTR_ERR(addr);
		goto err_release_region;
	}
	edev->pfn_first = res->start >> PAGE_SHIFT;

	snprintf(edev->name, sizeof(edev->name), "svmtune_emu%d", id);
	edev->core.name = edev->name;
	edev->core.owner = THIS_MODULE;
	edev->core.ops = &svmtune_emu_core_ops;
	edev->core.reports_use = true;
	edev->core.throttles = true;
	edev->core.caps_fragments = true;
	ret = svmtune_device_register(&edev->core);
	if (ret)
		goto err_memunmap;

	edev->misc.minor = MISC_DYNAMIC_MINOR;
	edev->misc.name = edev->name;
	edev->misc.fops = &svmtune_emu_fops;
	edev->misc.mode = 0666;
	ret = misc_register(&edev->misc);
	if (ret)
		goto err_unregister;
	pr_info("%s: %u MiB of VRAM, svmtune device %u\n", edev->name, vram_mb,
		edev->core.id);
	return 0;

err_unregister:
	svmtune_device_unregister(&edev->core);
err_memunmap:
	memunmap_pages(&edev->pagemap);
err_release_region:
	release_mem_region(res->start, resource_size(res));
err_free_mem:
	svmtune_emu_device_free_mem(edev);
	return ret;
}

static void svmtune_emu_device_exit(struct svmtune_emu_device *edev)
{
	misc_deregister(&edev->misc);
	svmtune_emu_evict_all(edev);
	svmtune_device_unregister(&edev->core);
	memunmap_pages(&edev->pagemap);
	release_mem_region(edev->pagemap.range.start, range_len(&edev->pagemap.range));
	svmtune_emu_device_free_mem(edev);
}

static int __init svmtune_emu_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ndevices; i++) {
		ret = svmtune_emu_device_init(&svmtune_emu_devices[i], i);
		if (ret) {
			pr_err("cannot create device %u: %pe\n", i, ERR_PTR(ret));
			goto err_exit_devices;
		}
	}
	return 0;

err_exit_devices:
	while (i--)
		svmtune_emu_device_exit(&svmtune_emu_devices[i]);
	return ret;
}

static void __exit svmtune_emu_exit(void)
{
	unsigned int i;

	for (i = 0; i < ndevices; i++)
		svmtune_emu_device_exit(&svmtune_emu_devices[i]);
}

module_init(svmtune_emu_init);
module_exit(svmtune_emu_exit);

MODULE_DESCRIPTION("Emulated GPU with device-private memory, driven by svmtune");
MODULE_AUTHOR("The svmtune developers");
MODULE_LICENSE("GPL");
