// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: KFD 6.12's count of a range's pages in VRAM kept true.
 */
#include <linux/lockdep.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "svmtune_kfd_hooks.h"

/**
 * DOC: KFD's count of a range's pages in VRAM
 *
 * KFD keeps in each range the number of its pages in VRAM
 * (``svm_range.vram_pages``). A migration to system memory that takes it
 * to 0 marks the range as all in system memory (``actual_loc`` 0) and
 * drops its reference on the range's VRAM BO (svm_migrate_vram_to_ram());
 * a CPU fault on a range so marked returns at once (svm_migrate_to_ram()).
 *
 * The KFD of 6.12.y (6.12.118 here) counts the pages of a migration as it
 * copies them (svm_migrate_copy_to_ram(), svm_migrate_copy_to_vram()),
 * before migrate_vma_pages(), which leaves a page where it is when a
 * reference beyond its mappings holds it: a CPU fault in flight on it
 * (do_swap_page() holds the device page while it waits for the range's
 * locks in svm_migrate_to_ram(): many host threads writing a buffer the
 * GPU used, the ``reuse`` workload), khugepaged swapping it in, a
 * get_user_pages(). The copy is thrown away and the count says the page
 * left VRAM. Once the count reaches 0 with such a page still in VRAM:
 *
 *  - a CPU fault on that page finds ``actual_loc`` 0, returns without
 *    migrating, and the thread faults again, forever (the 8 threads of
 *    ``reuse`` under KFD alone: 1 run in 5 on the test bed, and KFD's
 *    warning "Recorded vram pages(0x1ff) should not be less than
 *    migration pages(0x200)" at kfd_migrate.c:866 when the range moves
 *    again);
 *  - the page keeps the range's BO alive after KFD dropped it, and a GPU
 *    fault that migrates into the range while TTM evicts that BO waits in
 *    svm_range_validate_svm_bo() for the BO to go, which it never does
 *    (``oversub-sparse`` under 4 KiB windows: the fault worker spinning
 *    with the process's mmap_lock held).
 *
 * Mainline counts the pages that did migrate, after migrate_vma_pages()
 * (commit a450d225 "drm/amdkfd: add function
 * svm_migrate_successful_pages", in 7.2 and 7.3); 6.12.y has the count at
 * copy time and not that fix.
 *
 * Where KFD's sources count at copy time (SVMTUNE_KFD_COUNTS_COPIED, read
 * from their kfd_migrate.c by Kbuild), svmtune_kfd corrects the count in
 * KFD's own critical section, by mainline's rule: at the entry of
 * migrate_vma_finalize(), after migrate_vma_pages() and before KFD's
 * svm_migrate_vma_to_*() returns its count, a page KFD gave a destination
 * (each one it counted) whose source lost MIGRATE_PFN_MIGRATE did not
 * move. To system memory, such pages are added to the range's count before
 * KFD subtracts its own; to VRAM, they are taken off after KFD added its
 * own, at svm_migrate_to_vram()'s return, so the count never wraps. The
 * range is that of the task's innermost svm_migrate_vram_to_ram() or
 * svm_migrate_to_vram(), whoever called it (a fault, TTM's eviction
 * worker, a prefetch), published by their kretprobes
 * (svmtune_kfd_mig_begin()); the direction the pages show must be that
 * call's and the migrated span inside its range, or nothing is written.
 * KFD's callers hold the range's migrate_mutex across both functions,
 * asserted here, so the count is written as KFD writes it. Counted in
 * ``stats`` as ``vram_count_fixed`` (pages); pages of a KFD migration that
 * could not be matched to a range (a kretprobe out of instances) as
 * ``vram_count_unfixed``.
 *
 * Not for TTM's eviction of a range's BO (svm_range_evict_svm_bo_worker()):
 * there KFD retries three times, then, if the range still has pages in
 * VRAM by its count, takes it off the BO's range list but keeps its BO
 * pointer; when the last page goes later, the BO is freed and the range
 * points to freed memory, which its unmap reads (a use-after-free KASAN
 * caught on the test bed, khugepaged holding a page through the eviction:
 * KFD 7.3 has the same path). The copy-time count KFD makes there takes the
 * range to 0 and its BO pointer off, as KFD alone does. Either way such a
 * page stays in VRAM that TTM then gives to another BO, and the eviction
 * goes on: a loss svmtune_kfd cannot prevent from a probe. It counts the
 * pages as ``vram_evict_stayed`` and says so in the kernel log
 * (rate-limited).
 *
 * Cost: one walk of the migration's pfn arrays (512 entries for a 2 MiB
 * window) per KFD migration, beside KFD's own walks of the same arrays and
 * its page copies; another driver's migration costs the walk to its first
 * device page.
 */

/**
 * svmtune_kfd_mig_begin() - publish a KFD migration of the current task
 * @mig: its record, in the kretprobe instance's data
 * @prange: the range migrated
 * @to_vram: svm_migrate_to_vram() (else svm_migrate_vram_to_ram())
 * @evicting: a migration to system memory for TTM's eviction
 */
void svmtune_kfd_mig_begin(struct svmtune_kfd_mig *mig,
			   struct svm_range *prange, bool to_vram,
			   bool evicting)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(current);
	unsigned long flags;

	mig->task = NULL;
	mig->prange = prange;
	mig->to_vram = to_vram;
	mig->evicting = evicting;
	mig->short_pages = 0;
	if (!SVMTUNE_KFD_COUNTS_COPIED)
		return;
	mig->task = current;
	spin_lock_irqsave(&b->lock, flags);
	/* One list per kretprobe, as for faults (svmtune_kfd_fault.c). */
	hlist_add_head(&mig->node, to_vram ? &b->mig_vram : &b->mig_ram);
	atomic_inc(&svmtune_kfd.nr_migs);
	spin_unlock_irqrestore(&b->lock, flags);
}

/**
 * svmtune_kfd_mig_end() - the migration @mig returns
 * @mig: as svmtune_kfd_mig_begin() filled it
 *
 * A migration to VRAM gives back the pages it counted that stayed in
 * system memory. Called at the return of the migrating function, still
 * under the range's migrate_mutex its caller holds.
 */
void svmtune_kfd_mig_end(struct svmtune_kfd_mig *mig)
{
	struct svmtune_kfd_fault_bucket *b;
	unsigned long flags;

	if (!mig->task)
		return;
	b = svmtune_kfd_bucket(mig->task);
	spin_lock_irqsave(&b->lock, flags);
	hlist_del(&mig->node);
	atomic_dec(&svmtune_kfd.nr_migs);
	spin_unlock_irqrestore(&b->lock, flags);
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	if (mig->short_pages) {
		struct svm_range *prange = mig->prange;
		u64 n = min(mig->short_pages, READ_ONCE(prange->vram_pages));

		lockdep_assert_held(&prange->migrate_mutex);
		WRITE_ONCE(prange->vram_pages, prange->vram_pages - n);
		svmtune_kfd_count(SVMTUNE_KFD_VRAM_COUNT_FIXED, n);
	}
#endif
	mig->task = NULL;
}

/*
 * The current task's innermost KFD migration, or NULL: a migration to
 * system memory is found first, as the one svm_migrate_to_vram() makes
 * from another GPU's VRAM runs inside it (the reverse never happens).
 */
static struct svmtune_kfd_mig *svmtune_kfd_mig_find(void)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(current);
	struct svmtune_kfd_mig *m, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(m, &b->mig_ram, node)
		if (m->task == current) {
			found = m;
			goto out;
		}
	hlist_for_each_entry(m, &b->mig_vram, node)
		if (m->task == current) {
			found = m;
			break;
		}
out:
	spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

/**
 * svmtune_kfd_migration_is_kfd() - whether a migration is KFD's
 * @args: the migrate_vma arguments
 *
 * Return: true if it moves pages to or from device memory of KFD's nodes.
 */
bool svmtune_kfd_migration_is_kfd(const struct migrate_vma *args)
{
	unsigned long i;

	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage = migrate_pfn_to_page(args->dst[i]);

		if (spage && is_device_private_page(spage))
			return svmtune_kfd_node_pgmap(
				svmtune_page_pgmap(spage));
		if (dpage && is_device_private_page(dpage))
			return svmtune_kfd_node_pgmap(
				svmtune_page_pgmap(dpage));
	}
	return false;
}

/**
 * svmtune_kfd_finalize_entry() - migrate_vma_finalize(), entry
 * @hook: its hook
 * @regs: the registers at the entry
 * @parent_ip: the caller
 *
 * The pages of a KFD migration that KFD counted and migrate_vma_pages()
 * left where they were, corrected in the range's count (see the DOC block
 * above).
 */
void svmtune_kfd_finalize_entry(struct svmtune_kfd_hook *hook,
				struct pt_regs *regs, unsigned long parent_ip)
{
	struct migrate_vma *args = (void *)svmtune_kfd_arg(regs, 0);
	unsigned long i, stayed = 0, to_device = 0, from_device = 0;
	struct svmtune_kfd_mig *mig;
	struct svm_range *prange;

	if (!svmtune_kfd_migration_is_kfd(args))
		return;
	atomic64_inc(&hook->calls);
	mig = atomic_read(&svmtune_kfd.nr_migs) ? svmtune_kfd_mig_find() : NULL;
	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage = migrate_pfn_to_page(args->dst[i]);

		if (!dpage)
			continue;
		if (is_zone_device_page(dpage))
			to_device++;
		else if (spage && is_zone_device_page(spage))
			from_device++;
		if ((args->dst[i] & MIGRATE_PFN_VALID) &&
		    !(args->src[i] & MIGRATE_PFN_MIGRATE))
			stayed++;
	}
	if (!stayed)
		return;
	if (!mig) {
		svmtune_kfd_count(SVMTUNE_KFD_VRAM_COUNT_UNFIXED, stayed);
		return;
	}
	prange = mig->prange;
	/* The pages must show the call's direction, in the call's range. */
	if ((mig->to_vram ? from_device : to_device) ||
	    args->start < (prange->start << PAGE_SHIFT) ||
	    args->end > ((prange->last + 1) << PAGE_SHIFT)) {
		svmtune_kfd_count(SVMTUNE_KFD_VRAM_COUNT_UNFIXED, stayed);
		return;
	}
	lockdep_assert_held(&prange->migrate_mutex);
	if (mig->evicting) {
		svmtune_kfd_count(SVMTUNE_KFD_VRAM_EVICT_STAYED, stayed);
		pr_warn_ratelimited(
			"KFD's eviction of the VRAM of range [0x%lx 0x%lx] left %lu of its pages in that VRAM, held by another task: KFD gives the VRAM up with them\n",
			prange->start, prange->last, stayed);
		return;
	}
	if (mig->to_vram) {
		mig->short_pages += stayed;
		return;
	}
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	WRITE_ONCE(prange->vram_pages, prange->vram_pages + stayed);
	svmtune_kfd_count(SVMTUNE_KFD_VRAM_COUNT_FIXED, stayed);
#endif
}
