// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: system pages the GPU may have written are dirtied.
 *
 * A GPU writes system memory by DMA, through the addresses KFD mapped into
 * its page table, and no CPU page-table dirty bit records it. The kernel
 * keeps or writes back a page by its dirty state, so a driver that lets a
 * device write a page must dirty it (as set_page_dirty_lock() after DMA in
 * pinned-page drivers, or RDMA's on-demand paging in its invalidation).
 * KFD 6.1 and 6.12 do not, and lose data two ways (shown on KFD's own code
 * by the test bed, kfdbed_test reclaim kfd-alone):
 *
 *  - Remote mappings. KFD's hmm_range_fault() asks for write access, but a
 *    CPU PTE that is writable already is not faulted, so a page the CPU
 *    read first in a shared mapping (shmem, memfd, tmpfs: a read fault
 *    installs a writable, clean PTE) or a private page MADV_FREE cleaned
 *    stays clean; after the GPU writes it, reclaim drops it as clean and
 *    the CPU and the GPU read zeros (or the old bytes) from then on.
 *  - VRAM. A device-private page takes the flags of the system page it
 *    replaced (folio_migrate_flags()) and hands them to the system page it
 *    goes back to; a MADV_FREE'd page comes back clean and not swap-backed,
 *    and reclaim drops whatever the GPU wrote in VRAM.
 *
 * So svmtune_kfd dirties:
 *
 *  - at amdgpu_vm_update_range(), every system page of a KFD SVM mapping
 *    made writable (valid, system, writeable; no BO resource, and the
 *    range's DMA addresses: what svm_range_map_to_gpu() passes). KFD calls
 *    it holding the range's lock after its notifier sequence check, so
 *    every page is still mapped by the CPU and no invalidation can run
 *    (it takes that lock first): as in the invalidation callback of
 *    on-demand paging, the page cannot be truncated or freed meanwhile,
 *    which is what folio_mark_dirty() without the folio lock needs. The
 *    GPU can write a page only after this, and every way the kernel
 *    cleans a page (writeback's write-protect, MADV_FREE, reclaim)
 *    invalidates, and so unmaps it from the GPU, first: the page is dirty
 *    for as long as the GPU may write it.
 *  - at migrate_vma_pages() of KFD's device-private pages to system
 *    memory, the new system pages (locked, not yet mapped). amdgpu keeps
 *    no dirty bit for VRAM either, so whatever comes back may have been
 *    written. A MADV_FREE'd page that went to VRAM comes back to stay.
 *
 * Cost (MI300-class server, IOMMU translating): per 4 KiB system page a
 * remote window maps writable, one iommu_iova_to_phys() (a page-table walk,
 * 0.1-0.2 us) and a flag test; a 2 MiB remote window takes some 50-100 us,
 * against the map itself (DMA mapping 512 pages, page-table update, TLB
 * flush) of several hundred. Pages coming back from VRAM cost a flag set
 * each. Windows migrated to VRAM, KFD's default, cost nothing here.
 */
#include <linux/dma-direct.h>
#include <linux/iommu.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/swiotlb.h>

#include <svmtune/compat.h>
#include "svmtune_kfd_compat.h"
#include "svmtune_kfd.h"

/*
 * The page behind DMA address @dma of @dev, or NULL if it is not a page
 * of memory the kernel may dirty (a bounce buffer, a hole).
 */
static struct page *svmtune_kfd_dma_page(struct device *dev,
					 struct iommu_domain *domain,
					 dma_addr_t dma)
{
	phys_addr_t phys;

	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY)
		phys = iommu_iova_to_phys(domain, dma);
	else
		phys = dma_to_phys(dev, dma);
	if (!phys || !pfn_valid(PHYS_PFN(phys)))
		return NULL;
	/* The GPU wrote a bounce buffer; the copy back is the CPU's. */
	if (svmtune_kfd_bounce_buffer(dev, phys))
		return NULL;
	return pfn_to_page(PHYS_PFN(phys));
}

/* Dirty @page's folio if it is anonymous or page-cache memory. */
static bool svmtune_kfd_dirty_page(struct page *page)
{
	struct folio *folio = page_folio(page);

	if (folio_test_dirty(folio) || PageReserved(page) ||
	    (!folio_test_anon(folio) && !folio->mapping))
		return false;
	return folio_mark_dirty(folio);
}

/**
 * svmtune_kfd_update_range_entry() - amdgpu_vm_update_range(), entry
 * @regs: its arguments
 *
 * A KFD SVM mapping of system pages, writable: dirty them (see the top of
 * this file). Runs in the ftrace callback, preemption off: no sleeping.
 */
void svmtune_kfd_update_range_entry(struct pt_regs *regs)
{
	struct amdgpu_device *adev = (void *)svmtune_kfd_arg(regs, 0);
	struct amdgpu_vm *vm = (void *)svmtune_kfd_arg(regs, 1);
	u64 start = svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_START);
	u64 last = svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_LAST);
	u64 flags = svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_FLAGS);
	u64 offset = svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_OFFSET);
	void *res = (void *)svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_RES);
	dma_addr_t *pages_addr = (void *)svmtune_kfd_arg(regs,
						SVMTUNE_KFD_UPDATE_ARG_PAGES_ADDR);
	const u64 want = AMDGPU_PTE_VALID | AMDGPU_PTE_SYSTEM | AMDGPU_PTE_WRITEABLE;
	struct iommu_domain *domain;
	u64 i, n, dirtied = 0;

	/*
	 * Only KFD's SVM maps: a compute VM, system pages by DMA address and
	 * no BO resource (BO mappings pass their resource; clears and PRT
	 * mappings are not valid system pages).
	 */
	if ((flags & want) != want || res || !pages_addr || !vm ||
	    !vm->is_compute_context || last < start)
		return;
	domain = iommu_get_domain_for_dev(adev->dev);
	n = last - start + 1;
	pages_addr += offset >> PAGE_SHIFT;
	for (i = 0; i < n; i++) {
		struct page *page;

		if (pages_addr[i] & SVM_RANGE_VRAM_DOMAIN)
			continue;
		page = svmtune_kfd_dma_page(adev->dev, domain, pages_addr[i]);
		if (page && svmtune_kfd_dirty_page(page))
			dirtied++;
	}
	if (dirtied)
		atomic64_add(dirtied, &svmtune_kfd.stats[SVMTUNE_KFD_REMOTE_PAGES_DIRTIED]);
}

/**
 * svmtune_kfd_migrate_pages_entry() - migrate_vma_pages(), entry
 * @regs: its arguments
 *
 * A migration of KFD's device-private pages to system memory: dirty the
 * new system pages (see the top of this file). Other drivers' migrations
 * are left alone. Runs in the ftrace callback, preemption off.
 */
void svmtune_kfd_migrate_pages_entry(struct pt_regs *regs)
{
	struct migrate_vma *args = (void *)svmtune_kfd_arg(regs, 0);
	unsigned long i;
	u64 dirtied = 0;

	if (!(args->flags & MIGRATE_VMA_SELECT_DEVICE_PRIVATE))
		return;
	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage = migrate_pfn_to_page(args->dst[i]);

		if (!spage || !dpage || !(args->src[i] & MIGRATE_PFN_MIGRATE) ||
		    !is_device_private_page(spage) ||
		    !svmtune_kfd_node_pgmap(svmtune_page_pgmap(spage)))
			continue;
		/* Locked, unmapped, ours alone: nothing races the flag. */
		if (!folio_test_set_dirty(page_folio(dpage)))
			dirtied++;
	}
	if (dirtied)
		atomic64_add(dirtied, &svmtune_kfd.stats[SVMTUNE_KFD_VRAM_PAGES_DIRTIED]);
}
