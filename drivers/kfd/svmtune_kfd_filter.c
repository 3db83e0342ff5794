// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: KFD's retry-fault filter, judged per window mapped by the
 * fault's interrupt time.
 */
#include <linux/jiffies.h>

#include "svmtune_kfd_hooks.h"

/* 6.1 maps whole ranges: its own filter, per range, is all there is. */
#if SVMTUNE_KFD_HAS_WINDOW
/* ---- KFD's retry-fault filter: duplicates by when they were raised ---- */

/*
 * KFD 6.12 drops a GPU retry fault on a range mapped less than 2 ms
 * before (AMDGPU_SVM_RANGE_RETRY_FAULT_PENDING against
 * prange->validate_timestamp, in svm_range_restore_pages()), so that the
 * faults still queued for pages it just mapped are not served twice; the
 * GPU raises a dropped fault again until it is served. The test is on the
 * time the fault is handled, per range. Both ends miss:
 *  - the next window of a range: its fault is dropped too, so a range is
 *    served about one window per 2 ms. Measured on the KFD test bed (8 MiB
 *    read in order, TCG): at 4 KiB windows, 3906 of 5954 faults dropped.
 *    A bound, not a measurement: if serving a fault takes much less than
 *    2 ms (the model's assumption for hardware; the test bed under TCG is
 *    slower), one window per 2 ms caps a stream through one range at
 *    window / 2 ms (4 KiB: 2 MB/s, 64 KiB: 33 MB/s); the storm table of
 *    make bench (benchmarks.rst) gives what the test bed measures;
 *  - a duplicate that waited in the ring more than 2 ms: served again in
 *    full (hmm_range_fault(), the map, a TLB flush; a migration's
 *    MMU_NOTIFY_MIGRATE unmaps the window from every GPU). Under a storm of
 *    waves the ring holds hundreds of faults: measured on the test bed
 *    (256 waves, grid-stride read of 32 MiB), KFD served 498 of 4,101
 *    duplicates again.
 *
 * With retry_filter "window" (the default) svmtune_kfd judges a fault by
 * when it was raised. At the return of every successful
 * svm_range_validate_and_map() it records the window mapped and, for each
 * GPU it was mapped for, that GPU's checkpoint: the interrupt timestamp of
 * the newest entry in its fault ring then (ring 0 with the retry CAM, IH1
 * without; the checkpoint KFD itself takes on unmap in
 * svm_range_unmap_from_cpu()). A fault on a page of a recorded window whose
 * timestamp (svm_range_restore_pages()'s ts) is not after the checkpoint was
 * raised before the map finished: a duplicate, which KFD drops (the range's
 * timestamp set to now, however long the fault waited). A later one is new
 * (the page was unmapped again since): KFD serves it (the timestamp
 * cleared), as it serves a fault on a page no recorded window of the range
 * holds (the next window of a stream, which KFD alone would drop for
 * 2 ms). A fault on a range with no window recorded (the pool reused, or
 * mapped before svmtune_kfd attached) is left to KFD's own test. The
 * decision is made at the return of svm_range_from_addr(), which
 * svm_range_restore_pages() calls just before its test, under svms->lock.
 * Both timestamps are the IH's, so no clock is converted.
 *
 * Most faults of a storm are duplicates, and the window a GPU fault maps
 * (KFD's granularity-aligned one, or the engine's, 2 MiB or less) lies in
 * one 2 MiB block: such a window is also hashed by GPU, PASID and block,
 * and a fault it holds, raised before its map finished, is dropped at the
 * entry of svm_range_restore_pages() (svmtune_kfd_restore_drop()), before
 * KFD takes a process reference, mmap_lock, svms->lock and the range's
 * migrate_mutex only to drop it. A window of a prefetch or a restore, or
 * one across blocks, is judged by its range, as above. Two differences
 * from a drop by KFD's own test: KFD's per-process fault counter
 * (counters_<gpu_id>/faults in its sysfs) does not count it, and on 6.12,
 * whose PASID is per process, compute partitions of one GPU share the key,
 * so a fault of one partition raised before another's map finished is
 * dropped once (the GPU raises it again, later than the map).
 *
 * A window is looked at for SVMTUNE_KFD_WINDOW_LIFE after its map: the IH
 * timestamps wrap at 48 bits, and a window never replaced (a quiet
 * process) would otherwise make every later fault on its page look older
 * than its map, and be dropped for good.
 *
 * Windows are kept in a pool of SVMTUNE_KFD_WINDOWS entries hashed by
 * range, the oldest reused first. Range and device pointers are compared,
 * never followed, so a freed range costs at worst one fault dropped (the
 * GPU raises it again) or served again (as KFD alone would). Cost per GPU
 * fault: one spinlock and a walk of one hash bucket at entry, and for a
 * fault not dropped there, the same again at svm_range_from_addr(); per
 * map: one spinlock.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_kfd.window_lock`` (spinlock, IRQ-safe)
 *     Protects the pool and hash of windows mapped (the retry filter) and
 *     the pool's next slot. Taken after the fault ring's checkpoint is
 *     read; innermost, nothing is called under it.
 */

/*
 * The interrupt timestamp of the newest entry in @adev's retry-fault ring:
 * ring 0 with the retry CAM (faults are delegated from it to the software
 * ring), IH1 without it, else the software ring. False when the IH cannot
 * say (no ring, or no decode_iv_ts).
 */
static bool svmtune_kfd_checkpoint(struct amdgpu_device *adev, u64 *ts)
{
	const struct amdgpu_ih_funcs *funcs = adev->irq.ih_funcs;
	struct amdgpu_ih_ring *ih;
	u32 wptr;

	if (!funcs || !funcs->get_wptr || !funcs->decode_iv_ts)
		return false;
	if (adev->irq.retry_cam_enabled)
		ih = &adev->irq.ih;
	else if (adev->irq.ih1.ring_size)
		ih = &adev->irq.ih1;
	else
		ih = &adev->irq.ih_soft;
	if (!ih->ring_size)
		return false;
	wptr = funcs->get_wptr(adev, ih);
	*ts = funcs->decode_iv_ts(ih, wptr, -1);
	return true;
}

/* Whether @w is still looked at (SVMTUNE_KFD_WINDOW_LIFE). */
static bool svmtune_kfd_window_live(const struct svmtune_kfd_window *w)
{
	return time_before(jiffies, w->mapped_at + SVMTUNE_KFD_WINDOW_LIFE);
}

/* The key of @adev's fault-hash bucket for @page of @pasid. */
static unsigned long svmtune_kfd_window_key(const struct amdgpu_device *adev,
					    u32 pasid, unsigned long page)
{
	return (unsigned long)adev ^ hash_32(pasid, 32) ^
	       (page >> SVMTUNE_KFD_WINDOW_BLOCK_SHIFT);
}

/*
 * Record [@start, @last] of @prange as mapped for @adev; by a GPU fault
 * of @pasid if @by_fault.
 */
static void svmtune_kfd_window_add(const struct svm_range *prange,
				   struct amdgpu_device *adev,
				   unsigned long start, unsigned long last,
				   bool by_fault, u32 pasid)
{
	struct svmtune_kfd_window *w;
	unsigned long flags;
	u64 checkpoint;

	if (!svmtune_kfd_checkpoint(adev, &checkpoint))
		return;
	spin_lock_irqsave(&svmtune_kfd.window_lock, flags);
	w = &svmtune_kfd.windows[svmtune_kfd.window_next];
	svmtune_kfd.window_next = (svmtune_kfd.window_next + 1) % SVMTUNE_KFD_WINDOWS;
	if (w->prange)
		hash_del(&w->node);
	if (w->fault_hashed)
		hash_del(&w->fault_node);
	w->prange = prange;
	w->adev = adev;
	w->start = start;
	w->last = last;
	w->checkpoint = checkpoint;
	w->mapped_at = jiffies;
	w->pasid = pasid;
	w->fault_hashed = by_fault &&
		start >> SVMTUNE_KFD_WINDOW_BLOCK_SHIFT ==
		last >> SVMTUNE_KFD_WINDOW_BLOCK_SHIFT;
	hash_add(svmtune_kfd.window_hash, &w->node, (unsigned long)prange);
	if (w->fault_hashed)
		hash_add(svmtune_kfd.window_fault_hash, &w->fault_node,
			 svmtune_kfd_window_key(adev, pasid, start));
	spin_unlock_irqrestore(&svmtune_kfd.window_lock, flags);
}

/**
 * svmtune_kfd_windows_mapped() - record a successful map
 * @prange: the range mapped
 * @start: its first page mapped
 * @last: its last page mapped
 * @gpuidx: the process's GPU it was mapped for; MAX_GPU_INSTANCE: every
 *	GPU it may be mapped for, as a prefetch or a restore after eviction
 *	maps
 * @slot: the GPU fault that mapped it for @gpuidx, or NULL
 *
 * Records the window per GPU; the GPU fault's own also by its PASID and
 * page, for svmtune_kfd_restore_duplicate().
 */
void svmtune_kfd_windows_mapped(const struct svm_range *prange,
				unsigned long start, unsigned long last,
				unsigned long gpuidx,
				const struct svmtune_kfd_fault *slot)
{
	struct kfd_process *p = container_of(prange->svms, struct kfd_process,
					     svms);
	unsigned int i;

	for (i = 0; i < p->n_pdds && i < MAX_GPU_INSTANCE; i++) {
		struct kfd_process_device *pdd = p->pdds[i];

		if (!pdd || (gpuidx < MAX_GPU_INSTANCE && i != gpuidx) ||
		    (gpuidx >= MAX_GPU_INSTANCE &&
		     !test_bit(i, prange->bitmap_access) &&
		     !test_bit(i, prange->bitmap_aip)))
			continue;
		svmtune_kfd_window_add(prange, pdd->dev->adev, start, last,
				       slot && slot->adev == pdd->dev->adev,
				       slot ? slot->pasid : 0);
	}
}

/**
 * svmtune_kfd_restore_duplicate() - a GPU fault already served, by its page
 * @adev: the GPU that raised it
 * @pasid: its PASID
 * @page: its page
 * @ts: its interrupt timestamp
 *
 * At the entry of svm_range_restore_pages(), before KFD takes any lock:
 * the fault is a duplicate if a window a GPU fault of the same GPU and
 * PASID mapped holds the page and the map finished after @ts (the
 * window's checkpoint is not before it). Only windows within one block
 * are looked up here; any other duplicate is found later, by its range
 * (svmtune_kfd_from_addr_exit()).
 *
 * Return: true if it is a duplicate.
 */
bool svmtune_kfd_restore_duplicate(const struct amdgpu_device *adev, u32 pasid,
				   unsigned long page, u64 ts)
{
	const struct svmtune_kfd_window *w;
	unsigned long flags;
	bool dup = false;

	spin_lock_irqsave(&svmtune_kfd.window_lock, flags);
	hash_for_each_possible(svmtune_kfd.window_fault_hash, w, fault_node,
			       svmtune_kfd_window_key(adev, pasid, page)) {
		if (w->adev == adev && w->pasid == pasid &&
		    page >= w->start && page <= w->last &&
		    svmtune_kfd_window_live(w) &&
		    amdgpu_ih_ts_after_or_equal(ts, w->checkpoint)) {
			dup = true;
			break;
		}
	}
	spin_unlock_irqrestore(&svmtune_kfd.window_lock, flags);
	return dup;
}

/* What the recorded windows say of a GPU fault's page. */
enum svmtune_kfd_window_says {
	SVMTUNE_KFD_WINDOW_UNKNOWN,	/* no window of the range recorded */
	SVMTUNE_KFD_WINDOW_OUTSIDE,	/* windows recorded, none holds it */
	SVMTUNE_KFD_WINDOW_MAPPED,	/* a window holds it: @checkpoint */
};

/*
 * The newest checkpoint of a window of @prange mapped for @adev that holds
 * @page, if one does.
 */
static enum svmtune_kfd_window_says
svmtune_kfd_window_checkpoint(const struct svm_range *prange,
			      const struct amdgpu_device *adev,
			      unsigned long page, u64 *checkpoint)
{
	enum svmtune_kfd_window_says says = SVMTUNE_KFD_WINDOW_UNKNOWN;
	const struct svmtune_kfd_window *w;
	unsigned long flags;

	spin_lock_irqsave(&svmtune_kfd.window_lock, flags);
	hash_for_each_possible(svmtune_kfd.window_hash, w, node,
			       (unsigned long)prange) {
		if (w->prange != prange || w->adev != adev ||
		    !svmtune_kfd_window_live(w))
			continue;
		if (page < w->start || page > w->last) {
			if (says == SVMTUNE_KFD_WINDOW_UNKNOWN)
				says = SVMTUNE_KFD_WINDOW_OUTSIDE;
			continue;
		}
		if (says != SVMTUNE_KFD_WINDOW_MAPPED ||
		    amdgpu_ih_ts_after(*checkpoint, w->checkpoint))
			*checkpoint = w->checkpoint;
		says = SVMTUNE_KFD_WINDOW_MAPPED;
	}
	spin_unlock_irqrestore(&svmtune_kfd.window_lock, flags);
	return says;
}

/*
 * svm_range_from_addr(svms, addr, parent), return: in a GPU fault, the
 * range KFD is about to test the 2 ms filter of, svms->lock held. A fault
 * raised before a window holding its page was mapped is dropped; one
 * raised after, or on a page no recorded window of the range holds (the
 * next window of a stream), is served; on a range with no window recorded
 * (pool reused, or mapped before svmtune_kfd attached) KFD decides.
 *
 * The only hook on this function is this kretprobe, which also checks
 * the caller, from the return address. A second ftrace user on it (an
 * entry callback beside the kretprobe's kprobe on ftrace) would make
 * ftrace call it through ftrace_ops_list_func, which tests every
 * ftrace_ops of the system on each call, and this runs on every GPU
 * fault, duplicates included: thousands a second in a fault storm.
 */
int svmtune_kfd_from_addr_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct svm_range *prange = (struct svm_range *)regs_return_value(regs);
	struct svmtune_kfd_hook *hook = svmtune_kfd_kret_hook(ri);
	struct svmtune_kfd_fault *slot;
	u64 checkpoint = 0;

	atomic64_inc(&hook->calls);
	slot = svmtune_kfd_fault_find();
	if (!slot || slot->fault.type != SVMTUNE_FAULT_DEVICE)
		return 0;
	slot->seen |= SVMTUNE_KFD_SEEN_FROM_ADDR;
	if (!svmtune_kfd_from_caller(hook, get_kretprobe_retaddr(ri)))
		return 0;
	/* None: KFD creates the range, by svm_range_new(), if it returns 0. */
	if (prange)
		slot->seen &= ~SVMTUNE_KFD_SEEN_NO_RANGE;
	else
		slot->seen |= SVMTUNE_KFD_SEEN_NO_RANGE;
	if (!prange || !READ_ONCE(svmtune_kfd.filter_per_window) ||
	    slot->filtered || svmtune_kfd_refusing())
		return 0;
	slot->filtered = true;
	/* svm_range_restore_pages() looks its range up under svms->lock. */
	lockdep_assert_held(&prange->svms->lock);
	switch (svmtune_kfd_window_checkpoint(prange, slot->adev,
					      slot->fault.addr >> PAGE_SHIFT,
					      &checkpoint)) {
	case SVMTUNE_KFD_WINDOW_UNKNOWN:
		svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_UNKNOWN, 1);
		return 0;
	case SVMTUNE_KFD_WINDOW_MAPPED:
		/*
		 * KFD writes the stamp under prange->migrate_mutex, which
		 * this fault takes next; a map finishing meanwhile on another
		 * GPU's worker may stamp it again, and KFD then drops this
		 * fault once: the GPU raises it again, judged again.
		 */
		if (amdgpu_ih_ts_after_or_equal(slot->ts, checkpoint)) {
			WRITE_ONCE(prange->validate_timestamp,
				   ktime_get_boottime());
			svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_DUPLICATES, 1);
			return 0;
		}
		fallthrough;
	case SVMTUNE_KFD_WINDOW_OUTSIDE:
		WRITE_ONCE(prange->validate_timestamp, 0);
		svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_PASSED, 1);
		return 0;
	}
	return 0;
}
#endif
