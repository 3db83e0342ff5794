// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
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
 */

/**
 * DOC: Locking
 *
 * ``svmtune_emu_ctx.lock`` (mutex)
 *     Protects a context's device page table, its TLB and its list of
 *     walks in flight. Taken by the invalidation callback
 *     (``mutex_trylock`` when the range is not blockable), so no
 *     allocation with reclaim and no call into the mm or the engine
 *     happens under it; page table nodes are allocated with
 *     ``GFP_NOWAIT``. GPU data copies happen under it, from and to a
 *     kernel bounce buffer, so no user copy can fault while it is held.
 *
 * ``svmtune_emu_device.ctx_lock`` (mutex)
 *     Protects the device's list of open contexts; taken outside a
 *     context's lock (the engine's ``unmap_remote`` walks the contexts).
 *
 * ``svmtune_emu_device.lock`` (spinlock)
 *     Protects the VRAM allocator's bitmaps (``used``, ``reserved``,
 *     ``taken``) and counts. A leaf lock, taken in process context only:
 *     in ``->page_free()`` too, which runs wherever the last reference to
 *     a device page goes (migration, unmap, exit).
 *
 * ``svmtune_emu_ctx.layout`` (xarray, its own lock)
 *     The fragment blocks' VRAM runs, a hint: written in the migration
 *     path (``mmap_lock`` held, may allocate, ``GFP_KERNEL_ACCOUNT``),
 *     erased by the invalidation callback on unmap (no allocation), read
 *     under RCU. A stale entry only costs contiguity: a page placed at its
 *     offset is taken only if that VRAM page is free. Its lock is taken
 *     inside ``svmtune_emu_ctx.lock`` and outside ``svmtune_emu_device.lock``
 *     (svmtune_emu_fragment_run()).
 *
 * Order: ``mmap_lock`` (read) -> ``svmtune_mm.lock`` (engine);
 * ``svmtune_emu_ctx.lock`` -> the layout's lock ->
 * ``svmtune_emu_device.lock``. ``svmtune_emu_ctx.lock`` is never held
 * while ``mmap_lock`` is taken, and no emulated-GPU lock is held when the
 * engine is called.
 */
#include "svmtune_emu_internal.h"

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
unsigned int svmtune_emu_passthrough_window;

static int passthrough_window_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (svmtune_parse_uint(val, 0, 21, &v) || (v && v < PAGE_SHIFT))
		return -EINVAL;
	svmtune_emu_passthrough_window = v;
	return 0;
}

static const struct kernel_param_ops passthrough_window_ops = {
	.set = passthrough_window_set,
	.get = param_get_uint,
};

module_param_cb(passthrough_window, &passthrough_window_ops, &svmtune_emu_passthrough_window, 0444);
MODULE_PARM_DESC(passthrough_window,
		 "Benchmark baseline: 0 (default) asks the policy engine; 12 to 21 never does, every fault taking the aligned window of 2^N bytes");

/*
 * The TLB model: entries per context, and the largest fragment an entry
 * covers (log2 bytes). An MI300X compute unit's L1 TLB (UTCL1) has a few
 * dozen entries; each caches one PTE fragment, up to 2 MiB here.
 */
unsigned int svmtune_emu_tlb_entries = 64;
unsigned int svmtune_emu_tlb_max_fragment = 21;

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

module_param_cb(tlb_entries, &tlb_entries_ops, &svmtune_emu_tlb_entries, 0444);
MODULE_PARM_DESC(tlb_entries, "TLB entries per GPU context, 1 to 4096 (default 64)");
module_param_cb(tlb_max_fragment, &tlb_max_fragment_ops, &svmtune_emu_tlb_max_fragment, 0444);
MODULE_PARM_DESC(tlb_max_fragment,
		 "Largest fragment one TLB entry covers, log2 bytes, 12 to 30 (default 21: 2 MiB)");

/*
 * Compound device migration: a GPU fault's whole 2 MiB window goes to
 * VRAM as one device-private folio where the kernel can (SVMTUNE_DEVICE_THP),
 * and a CPU fault's or an eviction's whole 2 MiB window brings one back
 * whole. On by default where the kernel can; 0 forces page by page (the
 * bench's baseline). Changeable at run time; 1 where the kernel cannot
 * is refused with EOPNOTSUPP.
 */
#ifdef SVMTUNE_DEVICE_THP
#define SVMTUNE_EMU_THP_SUPPORTED	1
#else
#define SVMTUNE_EMU_THP_SUPPORTED	0
#endif
unsigned int svmtune_emu_thp_migration = SVMTUNE_EMU_THP_SUPPORTED;

static int thp_migration_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = svmtune_parse_uint(val, 0, 1, &v);
	if (ret)
		return ret;
	if (v && !SVMTUNE_EMU_THP_SUPPORTED)
		return -EOPNOTSUPP;
	WRITE_ONCE(svmtune_emu_thp_migration, v);
	return 0;
}

static const struct kernel_param_ops thp_migration_ops = {
	.set = thp_migration_set,
	.get = param_get_uint,
};

module_param_cb(thp_migration, &thp_migration_ops, &svmtune_emu_thp_migration, 0644);
MODULE_PARM_DESC(thp_migration,
		 "Migrate whole 2 MiB windows as one device-private THP where the kernel can (compound device migration): 1 (default there) or 0 (page by page); 1 is refused where the kernel cannot");

static struct svmtune_emu_device svmtune_emu_devices[SVMTUNE_EMU_MAX_DEVICES];
static struct dentry *svmtune_emu_debugfs;

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

#ifdef SVMTUNE_DEVICE_THP
/*
 * Collect the VRAM pages in use for one eviction pass: their pfns, in
 * order, handed to migrate_device_pfns(), which locks what it can.
 * migrate_device_range() over all of VRAM would not do: a free page may
 * still be the stale head of a 2 MiB folio freed whole (the kernel clears
 * that state when the page is handed out again), and it skips the 511
 * pages after such a head, in use or not, on every pass. Pages in use are
 * never stale, and the pages of a folio in use are all listed, in a row.
 * Returns how many were collected.
 */
static unsigned long svmtune_emu_evict_collect(struct svmtune_emu_device *edev,
					       unsigned long *src)
{
	unsigned long i, n = 0;

	spin_lock(&edev->lock);
	for_each_set_bit(i, edev->used, edev->npages)
		src[n++] = edev->pfn_first + i;
	spin_unlock(&edev->lock);
	migrate_device_pfns(src, n);
	return n;
}

/*
 * A 2 MiB device folio, collected whole at unload, goes back to a system
 * THP: without a VMA the kernel cannot split it (__migrate_device_pages()
 * clears a compound entry whose destination is not compound), so a
 * folio that finds no THP (@dst left 0) is left to the next pass.
 */
static void svmtune_emu_evict_thp(unsigned long src, unsigned long *dst)
{
	struct folio *sfolio = page_folio(migrate_pfn_to_page(src));
	struct svmtune_emu_device *edev =
		svmtune_emu_page_device(folio_page(sfolio, 0));
	struct folio *dfolio;
	unsigned long j;

	dfolio = folio_alloc(GFP_TRANSHUGE | __GFP_RETRY_MAYFAIL | __GFP_NOWARN,
			     folio_order(sfolio));
	if (!dfolio)
		return;
	folio_lock(dfolio);
	for (j = 0; j < folio_nr_pages(sfolio); j++)
		copy_highpage(folio_page(dfolio, j),
			      svmtune_emu_backing(folio_page(sfolio, j)));
	*dst = migrate_pfn(folio_pfn(dfolio)) | MIGRATE_PFN_COMPOUND |
	       (src & MIGRATE_PFN_WRITE);
	atomic_long_inc(&edev->thp.to_system);
}
#endif

/* One pass of migrate_device_range() over all VRAM: what it can lock moves. */
static void svmtune_emu_evict_pass(struct svmtune_emu_device *edev,
				   unsigned long *src, unsigned long *dst)
{
	unsigned long npages = edev->npages, i;

	memset(src, 0, npages * sizeof(*src));
	memset(dst, 0, npages * sizeof(*dst));
#ifdef SVMTUNE_DEVICE_THP
	npages = svmtune_emu_evict_collect(edev, src);
#else
	migrate_device_range(src, edev->pfn_first, npages);
#endif
	for (i = 0; i < npages; i++) {
		struct page *spage = migrate_pfn_to_page(src[i]);
		struct page *dpage;

		if (!spage || !(src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		/* Moved already, by a CPU fault this pass raced: no dst, no move. */
		if (test_bit(svmtune_emu_page_index(edev, spage), edev->departed))
			continue;
#ifdef SVMTUNE_DEVICE_THP
		if (src[i] & MIGRATE_PFN_COMPOUND) {
			svmtune_emu_evict_thp(src[i], &dst[i]);
			continue;
		}
#endif
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

#ifdef SVMTUNE_DEVICE_THP
/* debugfs svmtune_emu/<device>/thp: struct svmtune_emu_thp_stats. */
static int svmtune_emu_thp_show(struct seq_file *m, void *unused)
{
	struct svmtune_emu_device *edev = m->private;
	struct svmtune_emu_thp_stats *t = &edev->thp;

	seq_printf(m, "enabled %u\n", READ_ONCE(svmtune_emu_thp_migration));
	seq_printf(m, "to_device %ld\nto_system %ld\nto_system_split %ld\n",
		   atomic_long_read(&t->to_device), atomic_long_read(&t->to_system),
		   atomic_long_read(&t->to_system_split));
	seq_printf(m, "split %ld\nfallback %ld\nfreed %ld\n",
		   atomic_long_read(&t->split), atomic_long_read(&t->fallback),
		   atomic_long_read(&t->freed));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svmtune_emu_thp);

/* The device's debugfs directory: telemetry only, it works without. */
static void svmtune_emu_debugfs_init(struct svmtune_emu_device *edev)
{
	edev->debugfs = debugfs_create_dir(edev->name, svmtune_emu_debugfs);
	debugfs_create_file("thp", 0444, edev->debugfs, edev,
			    &svmtune_emu_thp_fops);
}
#else
static void svmtune_emu_debugfs_init(struct svmtune_emu_device *edev)
{
}
#endif

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

/*
 * The VRAM's state (@edev->npages pages) and the system pages holding its
 * bytes; svmtune_emu_device_free_mem() undoes it, whole or in part.
 */
static int svmtune_emu_device_alloc_mem(struct svmtune_emu_device *edev)
{
	unsigned long i;

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
	    !edev->holds || !edev->taken || !edev->region_gen)
		return -ENOMEM;
	for (i = 0; i < edev->npages; i++) {
		edev->backing[i] = alloc_page(GFP_KERNEL);
		if (!edev->backing[i])
			return -ENOMEM;
	}
	edev->nfree = edev->npages;
	return 0;
}

static int svmtune_emu_device_init(struct svmtune_emu_device *edev, int id)
{
	unsigned long size = (unsigned long)vram_mb << 20;
	struct resource *res;
	void *addr;
	int ret;

	spin_lock_init(&edev->lock);
	mutex_init(&edev->ctx_lock);
	INIT_LIST_HEAD(&edev->ctxs);
	edev->npages = size >> PAGE_SHIFT;
	ret = svmtune_emu_device_alloc_mem(edev);
	if (ret)
		goto err_free_mem;

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
	svmtune_emu_debugfs_init(edev);
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
	debugfs_remove_recursive(edev->debugfs);
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

	if (SVMTUNE_EMU_THP_SUPPORTED)
		svmtune_emu_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
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
	debugfs_remove_recursive(svmtune_emu_debugfs);
	return ret;
}

static void __exit svmtune_emu_exit(void)
{
	unsigned int i;

	for (i = 0; i < ndevices; i++)
		svmtune_emu_device_exit(&svmtune_emu_devices[i]);
	debugfs_remove_recursive(svmtune_emu_debugfs);
}

module_init(svmtune_emu_init);
module_exit(svmtune_emu_exit);

MODULE_DESCRIPTION("Emulated GPU with device-private memory, driven by svmtune");
MODULE_AUTHOR("The svmtune developers");
MODULE_LICENSE("GPL");
