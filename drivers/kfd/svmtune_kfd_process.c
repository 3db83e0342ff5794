// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: KFD processes get the engine's per-process state, and KFD
 * ranges the policy the process set with svmtune (as KFD's own
 * attributes); the process default granularity KFD gives new ranges.
 */
#include "svmtune_kfd_hooks.h"

/* ---- Engine state for KFD processes ---- */

/*
 * An application that never opens /dev/svmtune still gets the engine's
 * per-process state (ranges with adaptive and thrashing state, per-process
 * and per-range counters): svmtune_kfd asks the engine to attach its
 * address space when KFD creates the process's SVM state
 * (svm_range_list_init(), in the open of /dev/kfd) and, for processes KFD
 * knew before svmtune_kfd was loaded, at their first fault it sees.
 *
 * Attaching registers an mmu notifier, which takes mmap_lock for writing
 * and allocates: not from a probe handler, which runs with preemption
 * disabled, often under that very mmap_lock. The handler takes a reference
 * on the mm_struct (mmgrab(), an atomic increment), parks it in a small
 * table and queues a work item; the worker attaches every parked address
 * space whose users are still there (mmget_not_zero()) and drops the
 * references. The open of /dev/kfd returns before the worker runs, so the
 * first faults of a process can be decided without its state, exactly as
 * before; from then on they are not. A full table only delays: the next
 * fault parks the address space again.
 *
 * The state belongs to the engine and lives until the address space is
 * torn down (or svmtune.ko is unloaded), as it does for a process that
 * opened /dev/svmtune; unloading svmtune_kfd leaves it. Detaching, after
 * the hooks are gone, stops the worker and drops what is still parked
 * without attaching it: an rmmod takes no mmap_lock of a live process
 * (the process gets its state at its next fault once svmtune_kfd is back).
 *
 * Waste feedback (pages that went to VRAM and left untouched) is not
 * reported from KFD: amdgpu's page tables have no accessed bit KFD reads,
 * so on hardware nothing tells a page the GPU used from one it did not.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_kfd.attach_lock`` (spinlock, IRQ-safe)
 *     Protects the table of address spaces waiting for the attach worker
 *     and whether the worker is stopping. Innermost; the worker drops it
 *     before svmtune_mm_attach(), which takes ``mmap_lock`` for writing (it
 *     registers an mmu notifier). The hooks never attach an address space
 *     themselves: they park it (with mmgrab()) for the worker, which
 *     attaches it with no KFD lock held and only while its users are alive
 *     (mmget_not_zero()). Detach, after the hooks are gone, stops the
 *     worker and drops what is parked without attaching it (an unload
 *     takes no process's ``mmap_lock``), so no ``mm_struct`` reference
 *     outlives svmtune_kfd.
 */

void svmtune_kfd_attach_worker(struct work_struct *work)
{
	struct mm_struct *mm;
	int i;

	for (i = 0; i < SVMTUNE_KFD_ATTACH_SLOTS; i++) {
		spin_lock_irq(&svmtune_kfd.attach_lock);
		mm = svmtune_kfd.attach_mms[i];
		svmtune_kfd.attach_mms[i] = NULL;
		spin_unlock_irq(&svmtune_kfd.attach_lock);
		if (!mm)
			continue;
		if (READ_ONCE(svmtune_kfd.attach_stopping)) {
			svmtune_kfd_count(SVMTUNE_KFD_ATTACH_DROPPED, 1);
		} else if (mmget_not_zero(mm)) {
			if (!svmtune_mm_attach(mm))
				svmtune_kfd_count(SVMTUNE_KFD_PROCESSES_ATTACHED, 1);
			else
				svmtune_kfd_count(SVMTUNE_KFD_ATTACH_FAILED, 1);
			mmput(mm);
		}
		mmdrop(mm);
	}
}

/*
 * Have the engine attach @mm soon, unless it has state already. Any
 * context but hard IRQ; the caller keeps @mm's struct alive.
 */
void svmtune_kfd_attach_later(struct mm_struct *mm)
{
	unsigned long flags;
	int i, free = -1;

	if (!mm || svmtune_mm_attached(mm))
		return;
	spin_lock_irqsave(&svmtune_kfd.attach_lock, flags);
	for (i = 0; i < SVMTUNE_KFD_ATTACH_SLOTS; i++) {
		if (svmtune_kfd.attach_mms[i] == mm)
			break;
		if (!svmtune_kfd.attach_mms[i] && free < 0)
			free = i;
	}
	if (i == SVMTUNE_KFD_ATTACH_SLOTS && free >= 0) {
		mmgrab(mm);
		svmtune_kfd.attach_mms[free] = mm;
		queue_work(system_wq, &svmtune_kfd.attach_work);
	}
	spin_unlock_irqrestore(&svmtune_kfd.attach_lock, flags);
}

/* Attaching: the worker attaches what is parked again. */
void svmtune_kfd_attach_resume(void)
{
	WRITE_ONCE(svmtune_kfd.attach_stopping, false);
}

/*
 * No hook runs any more: stop the worker (a pass already attaching one
 * address space finishes it) and drop what is parked.
 */
void svmtune_kfd_attach_flush(void)
{
	WRITE_ONCE(svmtune_kfd.attach_stopping, true);
	cancel_work_sync(&svmtune_kfd.attach_work);
	svmtune_kfd_attach_worker(NULL);
}

/*
 * Learn the KFD nodes @p may use (svmtune_kfd_nodes.c): its per-device data
 * is complete before its SVM state exists.
 */
static void svmtune_kfd_learn_nodes(struct kfd_process *p)
{
	struct svmtune_kfd_node_info info;
	u32 i;

	for (i = 0; i < p->n_pdds; i++)
		if (svmtune_kfd_process_node(p, i, &info))
			svmtune_kfd_node_device(&info);
}

/*
 * A granularity svmtune may give KFD, in KFD's units: svmtune's @shift,
 * never below KFD's own (@kfd: the process default KFD gave a range, amdgpu's
 * svm_default_granularity; 9 on 6.1). KFD's granularity is the size of the ranges
 * it creates on GPU faults, and each range costs an interval notifier, DMA
 * address arrays and a VRAM BO, none charged to the process's memcg: at
 * 4 KiB a 1 GiB buffer would become 262,144 ranges. svmtune's narrower
 * windows reach KFD through the migration and map hooks instead; a process
 * that wants KFD's ranges smaller asks KFD for it
 * (KFD_IOCTL_SVM_ATTR_GRANULARITY), which KFD applies after this.
 */
static u8 svmtune_kfd_granularity_floor(unsigned int shift, u8 kfd)
{
	u8 gran = min_t(unsigned int, shift - PAGE_SHIFT, 0x1b);

	if (gran >= kfd)
		return gran;
	svmtune_kfd_count(SVMTUNE_KFD_GRANULARITY_KEPT, 1);
	return kfd;
}

#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
/*
 * Find amdgpu's svm_default_granularity parameter (log2 pages, writable at
 * run time), which KFD copies into each new process's default granularity at
 * svm_range_list_init(), capped at 0x1b: the size of every range a GPU
 * fault creates in memory the process never registered (kfd_svm.c,
 * svm_range_create_unregistered_range()), by name in the attached
 * amdgpu's parameters: svmtune_kfd.amdgpu_granularity, NULL if it has none
 * (then nothing is written).
 */
void svmtune_kfd_find_granularity(struct module *amdgpu)
{
	unsigned int i;

	svmtune_kfd.amdgpu_granularity = NULL;
	for (i = 0; i < amdgpu->num_kp; i++)
		if (!strcmp(amdgpu->kp[i].name, "svm_default_granularity") &&
		    amdgpu->kp[i].ops == &param_ops_uint)
			svmtune_kfd.amdgpu_granularity = amdgpu->kp[i].arg;
}

/* KFD's own default granularity for a new process, in KFD's units. */
static bool svmtune_kfd_kfd_granularity(u8 *gran)
{
	if (!svmtune_kfd.amdgpu_granularity)
		return false;
	/* As svm_range_list_init() computes it, u8 cast included. */
	*gran = min_t(u8, READ_ONCE(*svmtune_kfd.amdgpu_granularity), 0x1b);
	return true;
}

/* svmtune's default granularity for @p's address space, in KFD's units. */
static void svmtune_kfd_sync_default(struct kfd_process *p)
{
	u8 kfd, gran;

	if (svmtune_kfd_refusing() || !svmtune_kfd_kfd_granularity(&kfd))
		return;
	gran = svmtune_kfd_granularity_floor(svmtune_default_granularity(p->mm),
					     kfd);
	if (svmtune_kfd_default_granularity(p) == gran)
		return;
	svmtune_kfd_set_default_granularity(p, gran);
	svmtune_kfd_count(SVMTUNE_KFD_DEFAULT_GRANULARITY_SET, 1);
}

/*
 * svm_range_get_attr(p, ...) and svm_range_set_attr(p, ...), entry: the
 * process's own ioctls bring an existing process up to date with svmtune's
 * current default before KFD reads it (GET_ATTR reports it, SET_ATTR gives
 * it to the ranges it creates). KFD reads the u8 with plain loads and
 * writes it only at init; the store is a single byte. A process KFD knew
 * before svmtune_kfd was loaded gets the engine's state here.
 */
void svmtune_kfd_attr_entry(struct svmtune_kfd_hook *hook,
			    struct pt_regs *regs,
			    unsigned long parent_ip)
{
	struct kfd_process *p = (struct kfd_process *)svmtune_kfd_arg(regs, 0);

	atomic64_inc(&hook->calls);
	svmtune_kfd_sync_default(p);
	svmtune_kfd_learn_nodes(p);
	svmtune_kfd_attach_later(p->mm);
}
#endif

/* svm_range_new(), entry: a fault that creates a range calls it. */
void svmtune_kfd_range_new_entry(struct svmtune_kfd_hook *hook,
				 struct pt_regs *regs,
				 unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	atomic64_inc(&hook->calls);
	if (slot)
		slot->seen |= SVMTUNE_KFD_SEEN_NEW;
}

/*
 * svm_range_new(svms, start, last, update_mem_usage), return: a KFD range
 * was made (by SET_ATTR, a GPU fault, a split or a clone) and is not
 * published yet, so its attributes can be written without KFD's locks.
 * It gets, through KFD's own attributes, what the process set with
 * svmtune at its start: preferred location system memory, access in place
 * (remote) or GPU read-mostly, and a granularity larger than KFD's (never
 * a smaller one: svmtune_kfd_granularity_floor()). KFD's callers then
 * apply what they must on top (SET_ATTR's own attributes, a split's
 * parent's), so an application's explicit KFD attributes win.
 */
int svmtune_kfd_range_new_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct svm_range *prange = (struct svm_range *)regs_return_value(regs);
	struct svmtune_explicit_policy pol;
	struct kfd_process *p;
	bool given = false;

	if (!prange || svmtune_kfd_refusing())
		return 0;
	p = container_of(prange->svms, struct kfd_process, svms);
	svmtune_explicit_policy(p->mm, prange->start << PAGE_SHIFT, &pol);
	if (pol.preferred_loc == SVMTUNE_LOC_SYSTEM) {
		prange->preferred_loc = KFD_IOCTL_SVM_LOCATION_SYSMEM;
		given = true;
	}
	if (pol.access == SVMTUNE_ACCESS_REMOTE) {
		/* KFD's ACCESS_IN_PLACE for every GPU that may access it. */
		bitmap_or(prange->bitmap_aip, prange->bitmap_aip,
			  prange->bitmap_access, MAX_GPU_INSTANCE);
		bitmap_zero(prange->bitmap_access, MAX_GPU_INSTANCE);
		given = true;
	} else if (pol.access == SVMTUNE_ACCESS_READ_MOSTLY) {
		prange->flags |= KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY;
		given = true;
	}
	/* Only ever larger than what KFD gave it (the process's default). */
	if (pol.granularity != SVMTUNE_GRANULARITY_UNSET) {
		u8 gran = svmtune_kfd_granularity_floor(pol.granularity,
							prange->granularity);

		if (gran != prange->granularity) {
			prange->granularity = gran;
			given = true;
		}
	}
	if (given)
		svmtune_kfd_count(SVMTUNE_KFD_RANGES_GIVEN_POLICY, 1);
	return 0;
}

/* Entry of a function whose return needs its first argument (call->obj). */
int svmtune_kfd_first_arg_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_call_data(ri)->obj = (void *)svmtune_kfd_arg(regs, 0);
	return 0;
}

/* svm_range_list_init(p), entry: the process, and amdgpu's parameter now. */
int svmtune_kfd_list_init_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	svmtune_kfd_first_arg_entry(ri, regs);
	call->start = 0;
#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	{
		u8 kfd;

		call->start = svmtune_kfd_kfd_granularity(&kfd);
		call->before = kfd;
	}
#endif
	return 0;
}

/*
 * svm_range_list_init(p), return: a new KFD process, in the open of
 * /dev/kfd by the process itself. It is not published yet
 * (create_process() has not returned), so nothing reads the default
 * granularity concurrently with this write. Its address space gets the
 * engine's state.
 */
int svmtune_kfd_list_init_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct kfd_process *p = call->obj;

	if (regs_return_value(regs) || svmtune_kfd_refusing())
		return 0;
	/*
	 * Checks of the process's layout: KFD creates it in the open of
	 * /dev/kfd by the process itself, and has just set its default
	 * granularity from amdgpu's parameter (read at the entry, call->before,
	 * and now: it may have been written in between).
	 */
	if (p->mm != current->mm) {
		svmtune_kfd_refuse("svm_range_list_init()'s process has mm %p, not its caller's: struct kfd_process is not laid out as in the KFD sources svmtune_kfd was built against",
				   p->mm);
		return 0;
	}
#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	{
		u8 kfd, now = svmtune_kfd_default_granularity(p);

		if (call->start && svmtune_kfd_kfd_granularity(&kfd) &&
		    now != kfd && now != (u8)call->before) {
			svmtune_kfd_refuse("svm_range_list_init() gave the process default granularity %u, not %u from amdgpu's svm_default_granularity: struct svm_range_list or the parameter is not as in the KFD sources svmtune_kfd was built against",
					   now, kfd);
			return 0;
		}
	}
	svmtune_kfd_sync_default(p);
#endif
	svmtune_kfd_learn_nodes(p);
	svmtune_kfd_attach_later(p->mm);
	return 0;
}
