// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: the fault paths. A GPU fault's migration to VRAM takes the
 * engine's window or is declined, its map takes the window the migration
 * was given; a CPU fault's migration to system memory takes the engine's
 * window; what moved is accounted.
 */
#include "svmtune_kfd_hooks.h"

/* ---- KFD nodes (svmtune_kfd_nodes.c) ---- */

/*
 * The engine's device of the node of @prange's process whose user gpu_id
 * is @gpu_id (actual_loc, best_loc), or NULL.
 */
static struct svmtune_device *svmtune_kfd_range_device(struct svm_range *prange,
						       u32 gpu_id)
{
	struct svmtune_kfd_node_info info;

	if (!svmtune_kfd_range_node(prange, gpu_id, &info))
		return NULL;
	return svmtune_kfd_node_device(&info);
}

/*
 * Ask the engine about @slot's fault in @prange of @mm, whose mmap_lock the
 * caller holds. The window may not leave the VMA or the KFD range.
 */
static bool svmtune_kfd_decide(struct svmtune_kfd_fault *slot,
			       struct mm_struct *mm, struct svm_range *prange)
{
	struct vm_area_struct *vma;

	if (svmtune_kfd_refusing())
		return false;
	vma = vma_lookup(mm, slot->fault.addr);
	if (!vma)
		return false;
	svmtune_kfd_attach_later(mm);
	if (!slot->dev) {
		/* Learned just now (svmtune_kfd_nodes.c): KFD's alone. */
		if (!slot->unknown_node)
			svmtune_kfd_count(SVMTUNE_KFD_FAULTS_ON_UNKNOWN_NODES, 1);
		slot->unknown_node = true;
		return false;
	}
	slot->fault.lo = max(vma->vm_start, prange->start << PAGE_SHIFT);
	slot->fault.hi = min(vma->vm_end, (prange->last + 1) << PAGE_SHIFT);
	/* 6.1 migrates and maps the whole range: no window to give. */
	slot->fault.fixed = !SVMTUNE_KFD_HAS_WINDOW;
	svmtune_decide_atomic(slot->dev, mm, &slot->fault, &slot->decision);
	slot->decided = true;
	svmtune_kfd_count(SVMTUNE_KFD_DECISIONS, 1);
	return true;
}

/*
 * svm_migrate_vram_to_ram(prange, mm, ..., trigger, ...), entry, returning
 * to @ret: if this is the migration of a CPU fault, KFD has committed to
 * it (it holds the range's locks and found pages in VRAM): ask the engine,
 * once. Both the ftrace callback and the kretprobe at this entry call it,
 * in either order. Returns the fault, decided, or NULL.
 */
static struct svmtune_kfd_fault *svmtune_kfd_cpu_decide(struct svmtune_kfd_hook *hook,
							struct pt_regs *regs,
							unsigned long ret)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct mm_struct *mm = (struct mm_struct *)svmtune_kfd_arg(regs, 1);
	struct svmtune_kfd_fault *slot;

	slot = svmtune_kfd_fault_find();
	if (!slot)
		return NULL;
	slot->seen |= SVMTUNE_KFD_SEEN_MIGRATE;
	if ((u32)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_TRIGGER) !=
	    KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU || slot->fault.type != SVMTUNE_FAULT_CPU)
		return NULL;
	/*
	 * From svm_migrate_to_ram()'s entry to here KFD looked the process
	 * and range up and took svms->lock, then the range's migrate_mutex:
	 * under host threads faulting together, the wait for those locks
	 * (ROCm's rocm-libraries pull 12323: mutex_spin_on_owner).
	 */
	if (slot->begin_ns) {
		svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULT_LOCK_WAIT_NS,
				  ktime_get_ns() - slot->begin_ns);
		svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULTS_MIGRATED, 1);
		slot->begin_ns = 0;
	}
	if (slot->decided)
		return slot;
	if (!svmtune_kfd_from_caller(hook, ret))
		return NULL;
	/* The node whose VRAM holds the range; migrate_mutex is held. */
	slot->dev = svmtune_kfd_range_device(prange, READ_ONCE(prange->actual_loc));
	if (!svmtune_kfd_decide(slot, mm, prange))
		return NULL;
	return slot;
}

#if SVMTUNE_KFD_HAS_WINDOW
/* Replace the [start, last] page window in arguments @a_start, @a_last. */
static void svmtune_kfd_set_window(struct pt_regs *regs,
				   const struct svmtune_decision *d,
				   unsigned int a_start, unsigned int a_last)
{
	unsigned long start = d->start >> PAGE_SHIFT;
	unsigned long last = (d->end >> PAGE_SHIFT) - 1;

	if (svmtune_kfd_arg(regs, a_start) == start &&
	    svmtune_kfd_arg(regs, a_last) == last)
		return;
	svmtune_kfd_set_arg(regs, a_start, start);
	svmtune_kfd_set_arg(regs, a_last, last);
	svmtune_kfd_count(SVMTUNE_KFD_WINDOWS_CHANGED, 1);
}
#endif

#if SVMTUNE_KFD_HAS_WINDOW
/*
 * A PASID amdgpu never gives: its PASIDs are below 1 << 31
 * (amdgpu_pasid_alloc()), and KFD's process lookup by PASID finds none.
 */
#define SVMTUNE_KFD_NO_PASID	U32_MAX

/*
 * svm_range_restore_pages(), entry: drop a GPU fault that a window a GPU
 * fault already mapped holds, raised before that map finished
 * (svmtune_kfd_restore_duplicate()), before KFD takes a lock. KFD alone
 * would find the range (a process reference, mmap_lock, svms->lock, the
 * interval tree, the range's migrate_mutex) only to drop it by its 2 ms
 * filter, or, if it waited longer, serve it again; in a storm most faults
 * are such duplicates (90% of the 1,024-wave grid read of make bench).
 * KFD is given a PASID no process has: its first check finds no process
 * and returns 0, as for any fault it drops, and amdgpu takes the fault as
 * handled. A duplicate dropped wrongly costs one retry: the GPU raises the
 * fault again, with a later timestamp, which no recorded map finished
 * after.
 */
static bool svmtune_kfd_restore_drop(struct pt_regs *regs)
{
	struct amdgpu_device *adev = (struct amdgpu_device *)svmtune_kfd_arg(regs, 0);
	u32 pasid = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_PASID);

	if (!READ_ONCE(svmtune_kfd.filter_per_window) || svmtune_kfd_refusing() ||
	    !svmtune_kfd_restore_duplicate(adev, pasid,
					   svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_ADDR),
					   svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_TS)))
		return false;
	svmtune_kfd_set_arg(regs, SVMTUNE_KFD_RESTORE_ARG_PASID, SVMTUNE_KFD_NO_PASID);
	svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_DUPLICATES, 1);
	svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_EARLY_DROPS, 1);
	return true;
}
#endif

/*
 * svm_range_restore_pages(): a GPU fault begins and ends. An entry that
 * drops the fault returns 1: no return handler then, and no fault to
 * follow.
 */
int svmtune_kfd_restore_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_node_info info;
	struct svmtune_kfd_fault *slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_count(SVMTUNE_KFD_GPU_FAULTS, 1);
#if SVMTUNE_KFD_HAS_WINDOW
	if (svmtune_kfd_restore_drop(regs))
		return 1;
#endif
	slot = svmtune_kfd_fault_begin(&call->own, SVMTUNE_FAULT_DEVICE);
	call->slot = slot;
	if (svmtune_kfd_restore_node(regs, &info))
		slot->dev = svmtune_kfd_node_device(&info);
	slot->fault.addr = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_ADDR)
			   << PAGE_SHIFT;
	slot->fault.write = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_WRITE) & 1;
#if SVMTUNE_KFD_HAS_WINDOW
	slot->adev = (struct amdgpu_device *)svmtune_kfd_arg(regs, 0);
	slot->ts = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_TS);
	slot->pasid = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_PASID);
#endif
	return 0;
}

int svmtune_kfd_restore_exit(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct svmtune_kfd_fault *slot = &svmtune_kfd_call_data(ri)->own;

	svmtune_kfd_fault_check(slot, regs_return_value(regs));
	svmtune_kfd_fault_end(slot);
	return 0;
}

#if SVMTUNE_KFD_HAS_WINDOW
/*
 * A decided GPU fault's svm_migrate_to_vram() of @prange is given
 * [@start, @last]: the one window the fault's map may be given too
 * (svmtune_kfd_map_window()) and its pages' new residency.
 */
static void svmtune_kfd_mig_window(struct svmtune_kfd_fault *slot,
				   struct svm_range *prange,
				   unsigned long start, unsigned long last)
{
	slot->mig_prange = prange;
	slot->mig_start = start;
	slot->mig_last = last;
	slot->mig_done = false;
}
#endif

/*
 * @slot's GPU fault in @prange is mapped where its pages are (the engine
 * decided a remote mapping, or system memory): decline the migration
 * svm_migrate_to_vram() is entered for (@regs), if the pages are in
 * system memory.
 */
static void svmtune_kfd_decline(struct svmtune_kfd_fault *slot,
				struct svm_range *prange, struct pt_regs *regs)
{
	/*
	 * Decline only while the range's pages are in system memory
	 * (actual_loc 0). With them in another GPU's VRAM, KFD's map
	 * path (svm_range_validate_and_map -> hmm_range_fault) faults
	 * them for the faulting GPU; svm_migrate_to_ram() returns 0
	 * for KFD's own faulting task without moving them, and
	 * hmm_range_fault() retries forever, in the fault worker,
	 * under mmap_lock and the range's locks. Reproduced on the KFD
	 * test bed (2 GPUs, no hive): a soft lockup in
	 * svm_range_restore_pages. KFD migrates then, with its window;
	 * a GPU in the same xGMI hive could map the pages remotely, but
	 * telling needs KFD's node table, so it migrates there too.
	 * KFD holds prange->migrate_mutex here, which actual_loc
	 * changes under.
	 */
	if (prange->actual_loc) {
		svmtune_kfd_count(SVMTUNE_KFD_DECLINES_SKIPPED_IN_VRAM, 1);
#if SVMTUNE_KFD_HAS_WINDOW
		/* KFD's own window moves, and is what is mapped. */
		svmtune_kfd_mig_window(slot, prange,
				       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START),
				       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));
#endif
		return;
	}
	slot->declined = true;
#if SVMTUNE_KFD_HAS_WINDOW
	{
		/*
		 * Mapped where the pages are: the engine's window
		 * within KFD's (svmtune_kfd_map_window()), which the
		 * call was given.
		 */
		unsigned long start = max(slot->decision.start >> PAGE_SHIFT,
					  svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START));
		unsigned long last = min((slot->decision.end >> PAGE_SHIFT) - 1,
					 svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));

		slot->result.remote += last - start + 1;
		svmtune_kfd_mig_window(slot, prange, start, last);
	}
#else
	/* 6.1 validates and maps the whole range. */
	slot->result.remote += prange->last - prange->start + 1;
#endif
	svmtune_kfd_count(SVMTUNE_KFD_MIGRATIONS_DECLINED, 1);
	/*
	 * The destination becomes system memory, where the range is
	 * (actual_loc 0, under migrate_mutex): the first thing KFD's
	 * migration checks. 6.12: svm_migrate_to_vram() ->
	 * svm_migrate_ram_to_vram() checks the window against the
	 * range (KFD's or the engine's: inside it), then looks the
	 * destination node up by gpu_id, finds none for 0 and returns
	 * -ENODEV before reserving, allocating or touching a page;
	 * svm_range_restore_pages() then takes system memory (it
	 * falls back to system memory with actual_loc 0 as r = 0) and
	 * maps. 6.1: svm_migrate_ram_to_vram() returns 0 at once, the
	 * range being already "on best_loc". svm_range_restore_pages()
	 * keeps best_loc in its own variable: only this call sees 0.
	 */
	svmtune_kfd_set_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC, 0);
}

/* svm_migrate_to_vram(), entry: the engine decides a GPU fault's window. */
void svmtune_kfd_to_vram_decide(struct svmtune_kfd_hook *hook,
				struct pt_regs *regs,
				unsigned long parent_ip)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct mm_struct *mm;
	struct svmtune_kfd_fault *slot;

	slot = svmtune_kfd_fault_find();
	if (!slot)
		return;
	slot->seen |= SVMTUNE_KFD_SEEN_MIGRATE;
	if ((u32)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_TRIGGER) !=
	    KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU ||
	    slot->fault.type != SVMTUNE_FAULT_DEVICE || slot->decided ||
	    !svmtune_kfd_from_caller(hook, parent_ip))
		return;
	mm = (struct mm_struct *)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_MM);
	if (!svmtune_kfd_decide(slot, mm, prange))
		return;

	if (slot->decision.action == SVMTUNE_MAP_REMOTE ||
	    slot->decision.dest == SVMTUNE_LOC_SYSTEM) {
		svmtune_kfd_decline(slot, prange, regs);
		return;
	}
#if SVMTUNE_KFD_HAS_WINDOW
	svmtune_kfd_set_window(regs, &slot->decision, SVMTUNE_KFD_TO_VRAM_ARG_START,
			       SVMTUNE_KFD_TO_VRAM_ARG_LAST);
	svmtune_kfd_mig_window(slot, prange,
			       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START),
			       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));
#endif
}

/* Pages of @prange in VRAM, where KFD keeps count; 6.1 does not. */
static u64 svmtune_kfd_pages_in_vram(struct svm_range *prange)
{
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	return svmtune_kfd_vram_pages(prange);
#else
	return 0;
#endif
}

/*
 * Pages a successful migration of @prange moved, from the VRAM page count
 * before and after it (6.12); 6.1 keeps no count and migrates whole
 * ranges, so the range's size is the best measure there. A @bridged
 * migration starts from an empty VRAM count: every page in VRAM after it
 * came from system memory.
 */
static u64 svmtune_kfd_moved(struct svm_range *prange, u64 before,
			     bool to_vram, bool bridged)
{
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	u64 after = svmtune_kfd_vram_pages(prange);

	if (to_vram && bridged)
		return after;
	if (to_vram)
		return after > before ? after - before : 0;
	return before > after ? before - after : 0;
#else
	return prange->last - prange->start + 1;
#endif
}

static int svmtune_kfd_migrate_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs, unsigned int a_mm,
				     bool to_vram, bool evicting)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	call->obj = (void *)svmtune_kfd_arg(regs, 0);
	call->mm = (struct mm_struct *)svmtune_kfd_arg(regs, a_mm);
	call->before = svmtune_kfd_pages_in_vram(call->obj);
	call->slot = svmtune_kfd_fault_find();
	call->bridged = false;
	svmtune_kfd_mig_begin(&call->mig, call->obj, to_vram, evicting);
	return 0;
}

/* svm_migrate_to_vram(prange, best_loc, ...), entry. */
int svmtune_kfd_to_vram_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	u32 actual = READ_ONCE(prange->actual_loc);
	/* 0 if declined (svmtune_kfd_to_vram_decide() may run first). */
	u32 best = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC);

	svmtune_kfd_migrate_entry(ri, regs, SVMTUNE_KFD_TO_VRAM_ARG_MM, true,
				  false);
	call->dev = svmtune_kfd_range_device(prange, best);
	/* The test svm_migrate_to_vram() makes, under prange->migrate_mutex. */
	call->bridged = actual && actual != best;
	return 0;
}

/* svm_migrate_to_vram(), return: count, and account a GPU fault's result. */
int svmtune_kfd_to_vram_exit(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;
	bool declined = slot && slot->declined;
	u64 moved = 0;

	svmtune_kfd_mig_end(&call->mig);
	if (!regs_return_value(regs) && !declined)
		moved = svmtune_kfd_moved(call->obj, call->before, true,
					  call->bridged);
	svmtune_kfd_count(SVMTUNE_KFD_TO_VRAM_CALLS, 1);
	svmtune_kfd_count(SVMTUNE_KFD_TO_VRAM_PAGES, moved);
	if (slot && slot->decided && slot->fault.type == SVMTUNE_FAULT_DEVICE) {
		slot->result.to_device += moved;
#if SVMTUNE_KFD_HAS_WINDOW
		/*
		 * KFD moved the pages of the window it was given (the
		 * engine's, or its own where the engine's decision could not
		 * apply) that were in system memory (its VRAM count says how
		 * many, not which): the whole window is in VRAM now, for the engine's per-block state (density
		 * prefetch), on the node the pages went to (best_loc, which
		 * may be another GPU of the hive than the faulting one: the
		 * fault and its pages count on the faulting GPU's device).
		 * 6.1 moves whole ranges and gets no such state. On the
		 * faulting node, the account below records it.
		 */
		if (slot->mig_prange == call->obj)
			slot->mig_done = declined || !regs_return_value(regs);
		if (moved && call->dev && slot->mig_prange == call->obj &&
		    call->dev == slot->dev) {
			slot->result.moved_start = slot->mig_start << PAGE_SHIFT;
			slot->result.moved_end = (slot->mig_last + 1) << PAGE_SHIFT;
			slot->result.moved_loc = call->dev->id;
		} else if (moved && call->dev && slot->mig_prange == call->obj) {
			svmtune_note_resident(call->dev, call->mm, &slot->decision,
					      slot->mig_start << PAGE_SHIFT,
					      (slot->mig_last + 1) << PAGE_SHIFT,
					      call->dev->id);
		}
#endif
		svmtune_account(slot->dev, call->mm, &slot->fault,
				&slot->decision, &slot->result);
		memset(&slot->result, 0, sizeof(slot->result));
	}
	return 0;
}

#if SVMTUNE_KFD_HAS_WINDOW
/* svm_migrate_vram_to_ram(), entry: a CPU fault takes the engine's window. */
/*
 * The window a CPU fault's migration of @prange takes: the engine's,
 * clipped to the range, if it holds the faulting address.
 */
static bool svmtune_kfd_cpu_window(const struct svm_range *prange,
				   const struct svmtune_kfd_fault *slot,
				   struct svmtune_decision *d)
{
	*d = slot->decision;
	d->start = max(d->start, prange->start << PAGE_SHIFT);
	d->end = min(d->end, (prange->last + 1) << PAGE_SHIFT);
	return d->start <= slot->fault.addr && d->end > slot->fault.addr;
}

void svmtune_kfd_to_ram_window(struct svmtune_kfd_hook *hook,
			       struct pt_regs *regs,
			       unsigned long parent_ip)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct svmtune_kfd_fault *slot = svmtune_kfd_cpu_decide(hook, regs, parent_ip);
	struct svmtune_decision d;

	if (!slot || !svmtune_kfd_cpu_window(prange, slot, &d))
		return;
	svmtune_kfd_set_window(regs, &d, SVMTUNE_KFD_TO_RAM_ARG_START,
			       SVMTUNE_KFD_TO_RAM_ARG_LAST);
}

/*
 * svm_range_validate_and_map(mm, map_start, map_last, prange, gpuidx,
 * ...), entry: a GPU fault the engine decided maps the window its
 * migration was given (the engine's, or KFD's where the engine's decision
 * could not apply), not KFD's. After a migration, pages left in system
 * memory are not mapped remotely by accident: they fault again and get
 * their own decision. After a declined one, exactly the window the engine
 * counted as remote is mapped. The window is what the return records for
 * the retry filter.
 */
void svmtune_kfd_map_window(struct svmtune_kfd_hook *hook,
			    struct pt_regs *regs,
			    unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	atomic64_inc(&hook->calls);
	if (!slot || slot->fault.type != SVMTUNE_FAULT_DEVICE)
		return;
	slot->seen |= SVMTUNE_KFD_SEEN_MAP;
	if (!svmtune_kfd_from_caller(hook, parent_ip))
		return;
	/*
	 * The window the fault's migration was given, and only after it
	 * returned 0 (moved, or declined), within KFD's own map window. A map
	 * wider than KFD's may meet a page still in another GPU's VRAM, which
	 * hmm_range_fault() cannot move for KFD's own fault task
	 * (svm_migrate_to_ram() returns 0 for it) and retries without end,
	 * under the range's locks: after a move between GPUs that failed
	 * (-EDEADLK; KFD then falls back to system memory with its own
	 * window), or one that KFD counted as complete though a page it could
	 * not move stayed behind (6.12 subtracts every page it copied from
	 * vram_pages, migrated or not, so actual_loc goes to 0 with the page
	 * still there: reproduced on the test bed with a page held as a CPU
	 * fault in flight holds it). KFD alone would map only its window;
	 * pages svmtune moved beyond it are mapped at their own next fault.
	 */
	if (slot->decided && slot->mig_done &&
	    slot->mig_prange == (struct svm_range *)svmtune_kfd_arg(regs, 3)) {
		unsigned long start = max(slot->mig_start, svmtune_kfd_arg(regs, 1));
		unsigned long last = min(slot->mig_last, svmtune_kfd_arg(regs, 2));
		struct svmtune_decision d = {
			.start = start << PAGE_SHIFT,
			.end = (last + 1) << PAGE_SHIFT,
		};

		if (start <= last)
			svmtune_kfd_set_window(regs, &d, 1, 2);
	}
	slot->map_prange = (struct svm_range *)svmtune_kfd_arg(regs, 3);
	slot->map_start = svmtune_kfd_arg(regs, 1);
	slot->map_last = svmtune_kfd_arg(regs, 2);
}

/*
 * svm_range_validate_and_map(), kretprobe entry: the call's window, as
 * given; a GPU fault's may be changed by the ftrace hook above, which
 * runs before or after this one, so the return takes that from the fault.
 */
int svmtune_kfd_map_entry(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	call->obj = (void *)svmtune_kfd_arg(regs, 3);
	call->start = svmtune_kfd_arg(regs, 1);
	call->last = svmtune_kfd_arg(regs, 2);
	call->before = svmtune_kfd_arg(regs, 4);
	call->slot = svmtune_kfd_fault_find();
	return 0;
}

/* svm_range_validate_and_map(), return: a mapped window is recorded. */
int svmtune_kfd_map_exit(struct kretprobe_instance *ri,
			 struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	if (regs_return_value(regs) || !call->obj)
		return 0;
	if (slot && (slot->fault.type != SVMTUNE_FAULT_DEVICE ||
		     slot->map_prange != call->obj))
		slot = NULL;
	if (slot) {
		call->start = slot->map_start;
		call->last = slot->map_last;
	}
	svmtune_kfd_windows_mapped(call->obj, call->start, call->last,
				   call->before, slot);
	return 0;
}
#endif

int svmtune_kfd_to_ram_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct svmtune_kfd_fault *slot =
		svmtune_kfd_cpu_decide(svmtune_kfd_kret_hook(ri), regs,
				       get_kretprobe_retaddr(ri));
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	int ret;
#if SVMTUNE_KFD_HAS_WINDOW
	struct svmtune_decision d;

	/* The span migrated, whichever of this and the ftrace hook ran first. */
	if (slot && svmtune_kfd_cpu_window(prange, slot, &d)) {
		call->start = d.start >> PAGE_SHIFT;
		call->last = (d.end >> PAGE_SHIFT) - 1;
	} else {
		call->start = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_START);
		call->last = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_LAST);
	}
#endif
	ret = svmtune_kfd_migrate_entry(
		ri, regs, 1, false,
		(u32)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_TRIGGER) ==
			KFD_MIGRATE_TRIGGER_TTM_EVICTION);
	/*
	 * Where the pages come from (migrate_mutex is held): a CPU fault's
	 * decision looked that node up already.
	 */
	call->dev = slot ? slot->dev :
		svmtune_kfd_range_device(prange, READ_ONCE(prange->actual_loc));
	return ret;
}

int svmtune_kfd_to_ram_exit(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;
	struct svmtune_result result = { 0 };
	u64 moved = 0;

	svmtune_kfd_mig_end(&call->mig);
	if (!regs_return_value(regs))
		moved = svmtune_kfd_moved(call->obj, call->before, false, false);
	svmtune_kfd_count(SVMTUNE_KFD_TO_RAM_CALLS, 1);
	svmtune_kfd_count(SVMTUNE_KFD_TO_RAM_PAGES, moved);
#if SVMTUNE_KFD_HAS_WINDOW
	/*
	 * What left VRAM: the span KFD was asked to migrate, as it began; a
	 * CPU fault's move, which a GPU fault may reverse (thrashing).
	 */
	if (moved && call->dev)
		svmtune_note_resident(call->dev, call->mm,
				      slot && slot->fault.type == SVMTUNE_FAULT_CPU ?
				      &slot->decision : NULL,
				      call->start << PAGE_SHIFT,
				      (call->last + 1) << PAGE_SHIFT,
				      SVMTUNE_LOC_SYSTEM);
#endif
	if (slot && slot->fault.type == SVMTUNE_FAULT_CPU) {
		slot->result.to_system += moved;
	} else if (moved && call->dev) {
		/* Eviction, prefetch, or a GPU fault's fallback. */
		result.to_system = moved;
		svmtune_account(call->dev, call->mm, NULL, NULL, &result);
		/* TTM made room in the node's VRAM: evicted_pages. */
		if (call->mig.evicting) {
			struct svm_range *prange = call->obj;

			svmtune_account_evicted(call->dev, call->mm,
						prange->start << PAGE_SHIFT,
						(prange->last + 1) << PAGE_SHIFT,
						moved);
		}
	}
	return 0;
}

/*
 * svm_migrate_to_ram(vmf): the CPU touched a page in VRAM. The engine is
 * asked only once KFD commits to a migration (svm_migrate_vram_to_ram()
 * for this fault, svmtune_kfd_cpu_decide()): KFD returns before that for
 * its own fault-handling task, a range already back in system memory, or a
 * process it no longer knows, and those faults are not the engine's.
 */
int svmtune_kfd_cpu_fault_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)svmtune_kfd_arg(regs, 0);
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULTS, 1);
	slot = svmtune_kfd_fault_begin(&call->own, SVMTUNE_FAULT_CPU);
	call->slot = slot;
	call->mm = vmf->vma->vm_mm;
	slot->fault.addr = vmf->address & PAGE_MASK;
	slot->fault.write = !!(vmf->flags & FAULT_FLAG_WRITE);
	slot->begin_ns = ktime_get_ns();
	svmtune_kfd_attach_later(call->mm);
	return 0;
}

int svmtune_kfd_cpu_fault_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = &call->own;

	if (slot->decided)
		svmtune_account(slot->dev, call->mm, &slot->fault,
				&slot->decision, &slot->result);
	else
		svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULTS_NOT_MIGRATED, 1);
	svmtune_kfd_fault_check(slot, regs_return_value(regs));
	svmtune_kfd_fault_end(slot);
	return 0;
}
