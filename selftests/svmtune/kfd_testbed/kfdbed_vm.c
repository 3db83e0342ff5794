// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: GPU virtual memory. Each process's VM on a GPU has a page
 * table of GFX9-format PTEs (address | flags) in kernel memory, one leaf of
 * 512 PTEs per 2 MiB, written by amdgpu_vm_update_range() the way amdgpu's
 * CPU page-table update path would (updates are synchronous; the fences
 * handed back are already signalled). A new leaf becomes visible to the GPU
 * only at amdgpu_vm_update_pdes(), as a new page table does on amdgpu once
 * its PDE is written. The VM's root page directory is a real VRAM BO: KFD
 * reserves it to lock the VM.
 */
#include <linux/hmm.h>
#include <linux/sched/mm.h>

#include <drm/drm_exec.h>

#include "kfdbed.h"
#include "amdgpu_gem.h"
#include "amdgpu_hmm.h"
#ifdef KFDBED_HAVE_GMC_GET_VM_PTE
#include "vega10_enum.h"
#endif

#define CREATE_TRACE_POINTS
#include "kfdbed_trace.h"

#ifdef KFDBED_HAVE_VM_BO_STATUS
static void kfdbed_vm_bo_status_init(struct amdgpu_vm_bo_status *lists)
{
	INIT_LIST_HEAD(&lists->evicted);
	INIT_LIST_HEAD(&lists->needs_update);
	INIT_LIST_HEAD(&lists->idle);
}
#endif

/**
 * kfdbed_vm_create() - a compute VM for a process on a GPU
 * @gpu: the GPU
 * @pasid: the process's PASID
 *
 * Return: the VM, or an ERR_PTR.
 */
struct kfdbed_vm *kfdbed_vm_create(struct kfdbed_gpu *gpu, u32 pasid)
{
	struct kfdbed_vm *kvm;
	struct amdgpu_vm *vm;
	struct amdgpu_bo *root;
	int r;

	kvm = kzalloc(sizeof(*kvm), GFP_KERNEL);
	if (!kvm)
		return ERR_PTR(-ENOMEM);
	kvm->gpu = gpu;
	spin_lock_init(&kvm->pt_lock);
	xa_init(&kvm->pt);
	kvm->file.driver_priv = &kvm->fpriv;

	vm = &kvm->fpriv.vm;
	vm->va = RB_ROOT_CACHED;
#ifdef KFDBED_HAVE_VM_BO_STATUS
	/* As amdgpu_vm_init() of 7.3: its BO status lists and entities. */
	kfdbed_vm_bo_status_init(&vm->kernel);
	kfdbed_vm_bo_status_init(&vm->always_valid);
	kfdbed_vm_bo_status_init(&vm->individual);
	spin_lock_init(&vm->individual_lock);
	INIT_LIST_HEAD(&vm->freed);
	spin_lock_init(&vm->immediate.lock);
	spin_lock_init(&vm->delayed.lock);
	vm->mem_id = -1;
#else
	INIT_LIST_HEAD(&vm->evicted);
	INIT_LIST_HEAD(&vm->evicted_user);
	spin_lock_init(&vm->status_lock);
#endif
	mutex_init(&vm->eviction_lock);
	vm->last_update = dma_fence_get_stub();
	vm->last_unlocked = dma_fence_get_stub();
	vm->last_tlb_flush = dma_fence_get_stub();
	vm->pasid = pasid;
	vm->is_compute_context = true;
	vm->use_cpu_for_update = true;

	r = kfdbed_bo_create_pd(gpu, &root);
	if (r) {
		kfdbed_vm_destroy(kvm);
		return ERR_PTR(r);
	}
	vm->root.vm = vm;
	vm->root.bo = root;
	INIT_LIST_HEAD(&vm->root.vm_status);
	return kvm;
}

/**
 * kfdbed_vm_destroy() - free a VM and its page table
 * @kvm: the VM
 */
void kfdbed_vm_destroy(struct kfdbed_vm *kvm)
{
	struct amdgpu_vm *vm = &kvm->fpriv.vm;
	unsigned long idx;
	u64 *leaf;

	xa_for_each(&kvm->pt, idx, leaf)
		if (!xa_is_value(leaf))
			kfree(leaf);
	xa_destroy(&kvm->pt);
	amdgpu_bo_unref(&vm->root.bo);
	dma_fence_put(vm->last_update);
	dma_fence_put(vm->last_unlocked);
	dma_fence_put(vm->last_tlb_flush);
	mutex_destroy(&vm->eviction_lock);
	kfree(kvm);
}

/* The 2 MiB an index of the page table covers, in GPU pages. */
#define KFDBED_PT_2M KFDBED_PT_LEAF_ENTRIES

/* A PDB0 entry used as a PTE, as the page table's xarray keeps it. */
static void *kfdbed_pt_huge(u64 pte)
{
	/* GFX9's PTE flags stay below bit 63, as an xarray value needs. */
	WARN_ON_ONCE(pte & BIT_ULL(63));
	return xa_mk_value(pte & ~BIT_ULL(63));
}

/*
 * Write the entries of GPU pages [@first, @last], one fragment @frag of
 * contiguous @addrs (or an unmap: @flags not valid), as
 * amdgpu_vm_ptes_update() leaves GFX9's page table:
 *  - a valid fragment of 2 MiB and up (9 and more) is one PDB0 entry per
 *    2 MiB used as a PTE, and the page table (PTB) below it is freed
 *    (amdgpu_vm_pt.c:841-855, 924-937);
 *  - a valid fragment under 2 MiB where a PDB0 entry maps the 2 MiB needs
 *    a PTB: a new, cleared one (amdgpu_vm_pt_alloc()), linked at the next
 *    amdgpu_vm_update_pdes(): the other pages of the 2 MiB are lost to the
 *    GPU, which faults on them again;
 *  - an unmap of any part of a 2 MiB a PDB0 entry maps clears the whole
 *    entry (unlocked updates from the MMU notifier clear one PDE,
 *    amdgpu_vm_pt.c:857-887): the rest of the 2 MiB is lost too.
 * Returns 0 or -ENOMEM.
 *
 * Departs from amdgpu where no count of faults can tell: a fragment of
 * 1 GiB and more is written as 2 MiB entries (a GFX9 PDB1 entry would be
 * lost whole by a partial unmap: KFD's ranges are far smaller than the
 * emulated VRAM would allow); a PDB0 entry replaced by a new PTB is gone
 * at once rather than at amdgpu_vm_update_pdes(), which KFD calls right
 * after (a wave in between faults instead of reading through the old
 * entry; the new PTB's pages are invisible until then either way).
 */
static int kfdbed_vm_set_ptes(struct kfdbed_vm *kvm, u64 first, u64 last,
			      const dma_addr_t *addrs, u64 flags,
			      unsigned int frag)
{
	bool valid = flags & AMDGPU_PTE_VALID;
	u64 page, idx;

	for (page = first; page <= last;
	     page = (idx + 1) << KFDBED_PT_LEAF_SHIFT) {
		u64 from = page, end, *leaf, *spare = NULL;
		void *entry, *old = NULL;
		enum kfdbed_stat lost = KFDBED_NR_STATS;
		int r = 0;

		idx = page >> KFDBED_PT_LEAF_SHIFT;
		end = min(last, ((idx + 1) << KFDBED_PT_LEAF_SHIFT) - 1);
		/*
		 * A PTB this may need, had first: the decision is made under
		 * pt_lock (locked maps and the notifier's unlocked unmaps
		 * race). Callers hold KFD's prange->lock, which its MMU
		 * notifier takes: no reclaim from here.
		 */
		if (valid && frag < KFDBED_PT_LEAF_SHIFT) {
			spare = kcalloc(KFDBED_PT_LEAF_ENTRIES, sizeof(u64),
					GFP_NOWAIT | __GFP_NOWARN);
			if (!spare)
				return -ENOMEM;
		}

		spin_lock(&kvm->pt_lock);
		entry = xa_load(&kvm->pt, idx);
		if (valid && frag >= KFDBED_PT_LEAF_SHIFT) {
			/* One PDB0 entry for the 2 MiB; its PTB goes. */
			u64 pte = (addrs[page - first] & KFDBED_PTE_ADDR_MASK) |
				  flags;

			old = xa_store(&kvm->pt, idx, kfdbed_pt_huge(pte),
				       GFP_NOWAIT | __GFP_NOWARN);
			r = xa_err(old);
			if (!r) {
				kfdbed_stat_inc(kvm->gpu,
						KFDBED_STAT_PDB0_MAPS);
				kfdbed_stat_inc(kvm->gpu,
						KFDBED_STAT_PTE_UPDATES);
			}
			page = end + 1;
		} else if (xa_is_value(entry) && !valid) {
			/* Unmapping part of a 2 MiB entry clears all of it. */
			xa_erase(&kvm->pt, idx);
			kfdbed_stat_inc(kvm->gpu, KFDBED_STAT_PTE_UPDATES);
			lost = KFDBED_STAT_PDB0_CLEARS;
		} else if (valid && (!entry || xa_is_value(entry))) {
			/* A new, cleared PTB, linked at amdgpu_vm_update_pdes(). */
			old = xa_store(&kvm->pt, idx, spare,
				       GFP_NOWAIT | __GFP_NOWARN);
			r = xa_err(old);
			if (!r) {
				xa_set_mark(&kvm->pt, idx, KFDBED_PT_PENDING);
				if (entry)
					lost = KFDBED_STAT_PDB0_SPLITS;
				entry = spare;
				spare = NULL;
			}
		}
		if (!r && entry && !xa_is_value(entry) && page <= end) {
			leaf = entry;
			kfdbed_stat_add(kvm->gpu, KFDBED_STAT_PTE_UPDATES,
					end - page + 1);
			for (; page <= end; page++)
				WRITE_ONCE(leaf[page &
						(KFDBED_PT_LEAF_ENTRIES - 1)],
					   valid ? (addrs[page - first] &
						    KFDBED_PTE_ADDR_MASK) |
							   flags :
						   0);
		}
		spin_unlock(&kvm->pt_lock);

		kfree(spare);
		/* A PTB a PDB0 entry replaced: no walker sees it since. */
		if (!r && old && !xa_is_value(old))
			kfree(old);
		if (r)
			return r;
		if (lost != KFDBED_NR_STATS) {
			kfdbed_stat_inc(kvm->gpu, lost);
			/* The pages asked for are written; the rest are lost. */
			kfdbed_stat_add(kvm->gpu, KFDBED_STAT_PDB0_PAGES_LOST,
					KFDBED_PT_2M - (end - from + 1));
		}
	}
	return 0;
}

/*
 * The PTE fragment amdgpu writes entries from GPU page @page on with, in a
 * run of @count pages that are contiguous in the GPU's address space: the
 * largest power of two @page is aligned to that fits in the run (GFX9 and
 * later: up to 31). A TLB entry then covers 4 KiB << fragment. The same
 * rule as amdgpu_vm_pte_fragment(); here @page and @count are in 4 KiB GPU
 * pages, which are the CPU pages on x86.
 */
static unsigned int kfdbed_vm_fragment(u64 page, u64 count)
{
	unsigned int frag = ilog2(count);

	if (page)
		frag = min(frag, (unsigned int)__ffs64(page));
	return min(frag, 31U);
}

/*
 * The page-table level (its shift in GPU pages) GFX9 writes a fragment's
 * entries at: the 4 KiB PTB below 2 MiB, a PDB0 entry used as a PTE for 2
 * MiB up to 1 GiB, a PDB1 entry from 1 GiB.
 */
static unsigned int kfdbed_vm_level_shift(unsigned int frag)
{
	if (frag >= 18)
		return 18;
	if (frag >= 9)
		return 9;
	return 0;
}

/*
 * Report the entries written for fragment @frag at GPU pages [@first,
 * @end) as amdgpu's amdgpu_vm_update_ptes tracepoint does: one event per
 * table of 512 entries they fall in, at the fragment's level, at most 32
 * entries counted per event.
 */
static void kfdbed_vm_trace(struct amdgpu_vm_update_params *params, u64 first,
			    u64 end, u64 dst, u64 flags, unsigned int frag)
{
	unsigned int shift = kfdbed_vm_level_shift(frag);
	u64 table = (u64)KFDBED_PT_LEAF_ENTRIES << shift;
	u64 s, e;

	if (!trace_amdgpu_vm_update_ptes_enabled())
		return;
	for (s = first; s < end; s = e) {
		u64 n;

		e = min(end, round_down(s, table) + table);
		n = max_t(u64, (e - s) >> shift, 1);
		trace_amdgpu_vm_update_ptes(
			params, s, e, min_t(u64, n, 32),
			dst ? dst + ((s - first) << PAGE_SHIFT) : 0,
			PAGE_SIZE << shift, flags | AMDGPU_PTE_FRAG(frag), 0,
			0);
	}
}

/*
 * Write GPU pages [@first, @first + @count), contiguous in the GPU's
 * address space from @addrs[0] (or an unmap, @addrs NULL), fragment by
 * fragment.
 */
static int kfdbed_vm_write_run(struct kfdbed_vm *kvm,
			       struct amdgpu_vm_update_params *params,
			       u64 first, u64 count, const dma_addr_t *addrs,
			       u64 flags)
{
	u64 page = first, end = first + count;
	int r;

	while (page < end) {
		unsigned int frag = kfdbed_vm_fragment(page, end - page);
		u64 n = 1ULL << frag;

		r = kfdbed_vm_set_ptes(kvm, page, page + n - 1,
				       addrs ? addrs + (page - first) : NULL,
				       flags | AMDGPU_PTE_FRAG(frag), frag);
		if (r)
			return r;
		if (addrs)
			atomic64_add(n, &kvm->gpu->pte_updates_frag[frag]);
		kfdbed_vm_trace(params, page, page + n,
				addrs ? addrs[page - first] : 0, flags, frag);
		page += n;
	}
	return 0;
}

/**
 * amdgpu_vm_update_range() - write the PTEs of a range of GPU pages
 * @adev: the device
 * @vm: the VM
 * @immediate: update on the immediate path (same here)
 * @unlocked: the caller does not hold the root PD reservation (the MMU
 *	notifier's unmap); the page-table lock covers both
 * @flush_tlb: flush the TLB after (no TLB is modelled: nothing to do)
 * @allow_override: allow MTYPE override (no NUMA MTYPE override here)
 * @sync: fences to wait for first (KFD passes none)
 * @start: first GPU page
 * @last: last GPU page
 * @flags: PTE flags; without AMDGPU_PTE_VALID the PTEs are cleared
 * @offset: byte offset of @start in @pages_addr (or @res)
 * @vram_base: MC base of VRAM for @res mappings
 * @res: a BO's resource to map (not used by KFD's SVM code)
 * @pages_addr: DMA addresses, per CPU page, system or VRAM (KFD puts the
 *	VRAM base in), one PTE each
 * @fence: out (if not NULL): a fence for the update, already signalled
 *
 * As amdgpu, the pages are written in runs whose addresses are contiguous,
 * each with the fragment amdgpu would give it (kfdbed_vm_fragment()); an
 * unmap is one run. Every batch fires the amdgpu_vm_update_ptes tracepoint.
 *
 * Return: 0, -ENOMEM when a page-table leaf cannot be had, -EOPNOTSUPP for
 * BO-backed mappings.
 */
int amdgpu_vm_update_range(struct amdgpu_device *adev, struct amdgpu_vm *vm,
			   bool immediate, bool unlocked, bool flush_tlb,
			   bool allow_override, struct amdgpu_sync *sync,
			   uint64_t start, uint64_t last, uint64_t flags,
			   uint64_t offset, uint64_t vram_base,
			   struct ttm_resource *res, dma_addr_t *pages_addr,
			   struct dma_fence **fence)
{
	struct amdgpu_vm_update_params params = {
		.adev = adev,
		.vm = vm,
		.immediate = immediate,
		.unlocked = unlocked,
	};
	struct kfdbed_vm *kvm = kfdbed_vm_of(vm);
	bool valid = flags & AMDGPU_PTE_VALID;
	const dma_addr_t *addrs = NULL;
	u64 page, n;
	int r = 0;

	if (valid && (res || !pages_addr)) {
		kfdbed_warn_unsupported("BO-backed GPU mappings");
		return -EOPNOTSUPP;
	}
	if (!unlocked && vm->root.bo)
		dma_resv_assert_held(vm->root.bo->tbo.base.resv);

	if (valid)
		addrs = pages_addr + (offset >> PAGE_SHIFT);
	for (page = start; page <= last && !r; page += n) {
		n = 1;
		while (addrs && page + n <= last &&
		       addrs[page - start + n] ==
			       addrs[page - start + n - 1] + PAGE_SIZE)
			n++;
		if (!addrs)
			n = last - page + 1;
		r = kfdbed_vm_write_run(kvm, &params, page, n,
					addrs ? addrs + (page - start) : NULL,
					flags);
	}

	if (fence && !r) {
		dma_fence_put(*fence);
		*fence = dma_fence_get_stub();
	}
	/* Waves stalled on these pages replay (XNACK) and may find them. */
	if (valid) {
		kfdbed_stat_inc(kvm->gpu, KFDBED_STAT_VM_MAPS);
		kfdbed_gpu_event(kvm->gpu);
	}
	return r;
}

/**
 * amdgpu_vm_update_pdes() - link the page tables made since the last call
 * @adev: the device
 * @vm: the VM, reserved
 * @immediate: unused
 *
 * Return: 0.
 */
int amdgpu_vm_update_pdes(struct amdgpu_device *adev, struct amdgpu_vm *vm,
			  bool immediate)
{
	struct kfdbed_vm *kvm = kfdbed_vm_of(vm);
	unsigned long idx;
	u64 *leaf;

	dma_resv_assert_held(vm->root.bo->tbo.base.resv);
	xa_for_each_marked(&kvm->pt, idx, leaf, KFDBED_PT_PENDING)
		xa_clear_mark(&kvm->pt, idx, KFDBED_PT_PENDING);
	kfdbed_gpu_event(kvm->gpu);
	return 0;
}

/**
 * kfdbed_vm_lookup() - what the GPU's page walker sees at a page
 * @kvm: the VM
 * @page: GPU page number
 *
 * Call with @kvm->pt_lock held; the PTE stays valid until it is dropped.
 *
 * Return: the PTE, 0 when unmapped or its page table is not linked.
 */
u64 kfdbed_vm_lookup(struct kfdbed_vm *kvm, u64 page)
{
	unsigned long idx = page >> KFDBED_PT_LEAF_SHIFT;
	u64 *leaf;

	lockdep_assert_held(&kvm->pt_lock);
	leaf = xa_load(&kvm->pt, idx);
	/* A PDB0 entry used as a PTE maps the 2 MiB from its address. */
	if (xa_is_value(leaf))
		return xa_to_value(leaf) +
		       ((page & (KFDBED_PT_LEAF_ENTRIES - 1)) << PAGE_SHIFT);
	if (!leaf || xa_get_mark(&kvm->pt, idx, KFDBED_PT_PENDING))
		return 0;
	return READ_ONCE(leaf[page & (KFDBED_PT_LEAF_ENTRIES - 1)]);
}

/**
 * amdgpu_vm_flush_compute_tlb() - flush a VM's TLB entries
 * @adev: the device
 * @vm: the VM
 * @flush_type: TLB_FLUSH_*
 * @xcc_mask: XCCs
 *
 * The emulated GPU walks the page table on every access: there is no TLB
 * to go stale; flushes are counted.
 *
 * Return: 0.
 */
int amdgpu_vm_flush_compute_tlb(struct amdgpu_device *adev,
				struct amdgpu_vm *vm, uint32_t flush_type,
				uint32_t xcc_mask)
{
	atomic64_inc(&vm->tlb_seq);
	kfdbed_stat_inc(kfdbed_gpu_from_adev(adev), KFDBED_STAT_TLB_FLUSHES);
	return 0;
}

/**
 * amdgpu_vm_lock_pd() - lock a VM's root page directory in a drm_exec
 * @vm: the VM
 * @exec: the drm_exec transaction
 * @num_fences: fence slots to reserve
 *
 * Return: 0, or -EDEADLK (retry the transaction) and other errors.
 */
int amdgpu_vm_lock_pd(struct amdgpu_vm *vm, struct drm_exec *exec,
		      unsigned int num_fences)
{
	return drm_exec_prepare_obj(exec, &vm->root.bo->tbo.base, num_fences);
}

/**
 * amdgpu_vm_validate() - validate a VM's evicted page-table BOs
 * @adev: the device
 * @vm: the VM, reserved
 * @ticket: the ww ticket
 * @callback: validates one BO
 * @param: for @callback
 *
 * The page table is not in evictable BOs here, and the root PD is never
 * evicted (eviction is not emulated): the evicted list stays empty.
 *
 * Return: 0, or the first error of @callback.
 */
#ifdef KFDBED_HAVE_VM_BO_STATUS
int amdgpu_vm_validate(struct amdgpu_device *adev, struct amdgpu_vm *vm,
		       struct ww_acquire_ctx *ticket,
		       int (*callback)(void *p, struct amdgpu_bo *bo),
		       void *param)
{
	struct amdgpu_vm_bo_base *base, *tmp;
	int r;

	/*
	 * As amdgpu_vm_validate() of 7.3: the page tables first, then the VM
	 * may be updated again (no GPU reset here: the VM's generation never
	 * changes), then the BOs sharing its reservation; the BOs with their
	 * own reservation object only under a ticket.
	 */
	dma_resv_assert_held(vm->root.bo->tbo.base.resv);
	list_for_each_entry_safe(base, tmp, &vm->kernel.evicted, vm_status) {
		r = callback(param, base->bo);
		if (r)
			return r;
	}
	amdgpu_vm_eviction_lock(vm);
	vm->evicting = false;
	amdgpu_vm_eviction_unlock(vm);
	list_for_each_entry_safe(base, tmp, &vm->always_valid.evicted,
				 vm_status) {
		r = callback(param, base->bo);
		if (r)
			return r;
	}
	if (ticket && !list_empty(&vm->individual.evicted))
		kfdbed_warn_unsupported("evicted BOs of a VM's own");
	return 0;
}

/*
 * 7.3's amdgpu_vm_ready() asserts that its caller holds the VM's
 * reservation (amdgpu_vm_assert_locked(), a lockdep WARNING when not),
 * and 7.3's KFD calls it without from its MMU notifier
 * (svm_range_cpu_invalidate_pagetables() -> svm_range_unmap_from_gpus()
 * -> svm_range_unmap_from_gpu()): on a lockdep kernel every CPU
 * invalidation of a range mapped on a GPU warns. That would fail every
 * run of the test bed, so by default the call is logged once per load
 * instead (run_kfdbed.sh reports it); vm_ready_lockdep=1 asserts as
 * amdgpu does (KFDBED_REPRO=1 in run_kfdbed.sh shows it).
 */
static bool vm_ready_lockdep;
module_param(vm_ready_lockdep, bool, 0444);
MODULE_PARM_DESC(
	vm_ready_lockdep,
	"amdgpu_vm_ready() asserts the VM's reservation with lockdep, as 7.3's amdgpu (default 0: log an unlocked call once)");

static void kfdbed_vm_assert_locked(struct amdgpu_vm *vm, unsigned long ip)
{
	struct dma_resv *resv = vm->root.bo->tbo.base.resv;

	if (vm_ready_lockdep) {
		dma_resv_assert_held(resv);
		return;
	}
#ifdef CONFIG_LOCKDEP
	if (debug_locks && !lockdep_is_held(&resv->lock.base))
		pr_warn_once(
			"kfdbed: amdgpu_vm_ready() from %pS without the VM's reservation, which 7.3's amdgpu asserts (lockdep)\n",
			(void *)ip);
#endif
}

/**
 * amdgpu_vm_ready() - may a VM's page tables be updated?
 * @vm: the VM, its root page directory reserved
 *
 * As amdgpu_vm_ready() of 7.3 (amdgpu_vm.c), which asserts that the
 * caller holds the VM's reservation (amdgpu_vm_assert_locked(); here see
 * kfdbed_vm_assert_locked()): not while its page tables are being
 * evicted, nor with a page table evicted, nor with its update entities
 * stopped (none of which happens here).
 *
 * Return: true when the VM may be updated.
 */
bool amdgpu_vm_ready(struct amdgpu_vm *vm)
{
	bool ret;

	kfdbed_vm_assert_locked(vm, _RET_IP_);
	amdgpu_vm_eviction_lock(vm);
	ret = !vm->evicting;
	amdgpu_vm_eviction_unlock(vm);
	ret &= list_empty(&vm->kernel.evicted);
	spin_lock(&vm->immediate.lock);
	ret &= !vm->immediate.stopped;
	spin_unlock(&vm->immediate.lock);
	spin_lock(&vm->delayed.lock);
	ret &= !vm->delayed.stopped;
	spin_unlock(&vm->delayed.lock);
	return ret;
}
#else
int amdgpu_vm_validate(struct amdgpu_device *adev, struct amdgpu_vm *vm,
		       struct ww_acquire_ctx *ticket,
		       int (*callback)(void *p, struct amdgpu_bo *bo),
		       void *param)
{
	struct amdgpu_vm_bo_base *base, *tmp;
	int r;

	list_for_each_entry_safe(base, tmp, &vm->evicted, vm_status) {
		r = callback(param, base->bo);
		if (r)
			return r;
	}
	return 0;
}
#endif

#ifdef KFDBED_HAVE_GMC_GET_VM_PTE
/*
 * gmc_funcs->get_vm_pte() of GFX9, which KFD's svm_range_get_pte_flags()
 * calls from 7.x on for an SVM mapping (no BO): as gmc_v9_0_get_vm_pte()
 * of 7.3, the executable bit as asked, the MTYPE in Vega10's encoding,
 * PRT entries made invalid; the coherence flags of a BO's mapping do not
 * apply to KFD's.
 */
static void kfdbed_gmc_get_vm_pte(struct amdgpu_device *adev,
				  struct amdgpu_vm *vm, struct amdgpu_bo *bo,
				  uint32_t vm_flags, uint64_t *flags)
{
	unsigned int mtype;

	if (vm_flags & AMDGPU_VM_PAGE_EXECUTABLE)
		*flags |= AMDGPU_PTE_EXECUTABLE;
	else
		*flags &= ~AMDGPU_PTE_EXECUTABLE;

	switch (vm_flags & AMDGPU_VM_MTYPE_MASK) {
	case AMDGPU_VM_MTYPE_WC:
		mtype = MTYPE_WC;
		break;
	case AMDGPU_VM_MTYPE_RW:
		mtype = MTYPE_RW;
		break;
	case AMDGPU_VM_MTYPE_CC:
		mtype = MTYPE_CC;
		break;
	case AMDGPU_VM_MTYPE_UC:
		mtype = MTYPE_UC;
		break;
	default: /* DEFAULT, NC */
		mtype = MTYPE_NC;
		break;
	}
	*flags = AMDGPU_PTE_MTYPE_VG10(*flags, mtype);

	if (vm_flags & AMDGPU_VM_PAGE_PRT) {
		*flags |= AMDGPU_PTE_PRT;
		*flags &= ~AMDGPU_PTE_VALID;
	}
	if ((*flags & AMDGPU_PTE_VALID) && bo)
		kfdbed_warn_unsupported("BO-backed GPU mappings");
}

/* The GMC's functions KFD's SVM code calls: GFX9's (gmc_v9_0.c). */
const struct amdgpu_gmc_funcs kfdbed_gmc_funcs = {
	.get_vm_pte = kfdbed_gmc_get_vm_pte,
};
#endif

#ifdef KFDBED_HAVE_GEM_VA_MAP_FLAGS
/**
 * amdgpu_gem_va_map_flags() - PTE flags from AMDGPU_VM_PAGE/MTYPE flags
 * @adev: the device (GFX9: Vega10 MTYPE encoding)
 * @flags: AMDGPU_VM_* flags
 *
 * Return: AMDGPU_PTE_* flags.
 */
uint64_t amdgpu_gem_va_map_flags(struct amdgpu_device *adev, uint32_t flags)
{
	u64 pte = 0;
	unsigned int mtype;

	if (flags & AMDGPU_VM_PAGE_EXECUTABLE)
		pte |= AMDGPU_PTE_EXECUTABLE;
	if (flags & AMDGPU_VM_PAGE_READABLE)
		pte |= AMDGPU_PTE_READABLE;
	if (flags & AMDGPU_VM_PAGE_WRITEABLE)
		pte |= AMDGPU_PTE_WRITEABLE;
	if (flags & AMDGPU_VM_PAGE_PRT)
		pte |= AMDGPU_PTE_PRT;
	if (flags & AMDGPU_VM_PAGE_NOALLOC)
		pte |= AMDGPU_PTE_NOALLOC;

	switch (flags & AMDGPU_VM_MTYPE_MASK) {
	case AMDGPU_VM_MTYPE_WC:
	case AMDGPU_VM_MTYPE_RW:
		mtype = 1;
		break;
	case AMDGPU_VM_MTYPE_CC:
		mtype = 2;
		break;
	case AMDGPU_VM_MTYPE_UC:
		mtype = 3;
		break;
	default: /* DEFAULT, NC */
		mtype = 0;
		break;
	}
	return AMDGPU_PTE_MTYPE_VG10(pte, mtype);
}
#endif

/*
 * The GPU whose device-private memory @owner names (KFD's
 * SVM_ADEV_PGMAP_OWNER: the device, or its xGMI hive), for counting; the
 * first GPU of a hive, or GPU 0.
 */
static struct kfdbed_gpu *kfdbed_gpu_of_owner(void *owner)
{
	unsigned int i;

	for (i = 0; i < kfdbed_num_gpus; i++)
		if ((void *)kfdbed_gpus[i]->adev == owner ||
		    (kfdbed_gpus[i]->adev->hive &&
		     (void *)kfdbed_gpus[i]->adev->hive == owner))
			return kfdbed_gpus[i];
	return kfdbed_gpus[0];
}

/*
 * Fill @range for @npages from @start and fault it in, as amdgpu does in
 * both 6.12 and 7.3: one mmu_interval_read_begin(), then hmm_range_fault()
 * in pieces of at most 2 GiB, no retry. A walk the CPU changed (-EBUSY)
 * becomes -EAGAIN, counted (hmm_eagain): KFD's fault handler then returns
 * without mapping and the GPU's retry fault comes back.
 */
static int kfdbed_hmm_fault(struct mmu_interval_notifier *notifier,
			    struct hmm_range *range, u64 start, u64 npages,
			    bool readonly, void *owner, unsigned long *pfns)
{
	const u64 max_bytes = SZ_2G;
	unsigned long end = start + npages * PAGE_SIZE;
	int r;

	range->notifier = notifier;
	range->default_flags = HMM_PFN_REQ_FAULT |
			       (readonly ? 0 : HMM_PFN_REQ_WRITE);
	range->hmm_pfns = pfns;
	range->start = start;
	range->dev_private_owner = owner;

	range->notifier_seq = mmu_interval_read_begin(notifier);
	for (;;) {
		range->end = min(range->start + max_bytes, end);
		r = hmm_range_fault(range);
		if (r == -EBUSY) {
			kfdbed_stat_inc(kfdbed_gpu_of_owner(owner),
					KFDBED_STAT_HMM_EAGAIN);
			return -EAGAIN;
		}
		if (r)
			return r;
		if (range->end == end)
			break;
		range->hmm_pfns += max_bytes >> PAGE_SHIFT;
		range->start = range->end;
	}
	range->start = start;
	range->hmm_pfns = pfns;
	return 0;
}

#ifdef KFDBED_HAVE_HMM_RANGE
/**
 * amdgpu_hmm_range_get_pages() - fault in and snapshot CPU pages for a GPU
 * @notifier: the range's interval notifier
 * @start: first address
 * @npages: pages
 * @readonly: no write access needed
 * @owner: device-private pages of this owner are returned as they are
 * @range: the range to fill (amdgpu_hmm_range_alloc()); its pfns are
 *	freed with it (amdgpu_hmm_range_free())
 *
 * As amdgpu_hmm_range_get_pages() of 7.3 (amdgpu_hmm.c): one
 * mmu_interval_read_begin(), then hmm_range_fault() over the range in
 * pieces of at most 2 GiB, and no retry: when the range changed under the
 * walk (-EBUSY) it returns -EAGAIN, KFD's fault handler returns 0 without
 * mapping, and the GPU's retry fault comes back (counted: hmm_eagain).
 * The caller holds mmap_lock for read.
 *
 * Return: 0, -EAGAIN, or another negative errno.
 */
int amdgpu_hmm_range_get_pages(struct mmu_interval_notifier *notifier,
			       uint64_t start, uint64_t npages, bool readonly,
			       void *owner, struct amdgpu_hmm_range *range)
{
	struct hmm_range *hmm_range = &range->hmm_range;
	unsigned long *pfns;
	int r;

	pfns = kvmalloc_array(npages, sizeof(*pfns), GFP_KERNEL);
	if (!pfns)
		return -ENOMEM;
	r = kfdbed_hmm_fault(notifier, hmm_range, start, npages, readonly,
			     owner, pfns);
	if (r) {
		kvfree(pfns);
		hmm_range->hmm_pfns = NULL;
	}
	return r;
}

/**
 * amdgpu_hmm_range_valid() - is a snapshot still what the CPU maps?
 * @range: from amdgpu_hmm_range_get_pages(), or NULL
 *
 * Call with the notifier lock held (KFD's svm_range_lock()).
 *
 * Return: false when @range is NULL or was invalidated meanwhile.
 */
bool amdgpu_hmm_range_valid(struct amdgpu_hmm_range *range)
{
	if (!range)
		return false;
	return !mmu_interval_read_retry(range->hmm_range.notifier,
					range->hmm_range.notifier_seq);
}

/**
 * amdgpu_hmm_range_alloc() - a range for amdgpu_hmm_range_get_pages()
 * @bo: the BO it is for (referenced), or NULL (KFD's SVM ranges)
 *
 * Return: the range, or NULL.
 */
struct amdgpu_hmm_range *amdgpu_hmm_range_alloc(struct amdgpu_bo *bo)
{
	struct amdgpu_hmm_range *range = kzalloc(sizeof(*range), GFP_KERNEL);

	if (!range)
		return NULL;
	if (bo)
		drm_gem_object_get(&bo->tbo.base);
	range->bo = bo;
	return range;
}

/**
 * amdgpu_hmm_range_free() - free a range, its pfns and its BO reference
 * @range: the range, or NULL
 */
void amdgpu_hmm_range_free(struct amdgpu_hmm_range *range)
{
	if (!range)
		return;
	kvfree(range->hmm_range.hmm_pfns);
	amdgpu_bo_unref(&range->bo);
	kfree(range);
}
#else
/**
 * amdgpu_hmm_range_get_pages() - fault in and snapshot CPU pages for a GPU
 * @notifier: the range's interval notifier
 * @start: first address
 * @npages: pages
 * @readonly: no write access needed
 * @owner: device-private pages of this owner are returned as they are
 * @pages: out (optional): the pages
 * @phmm_range: out: the hmm_range, for amdgpu_hmm_range_get_pages_done()
 *
 * As 6.12.118's amdgpu: one mmu_interval_read_begin(), then
 * hmm_range_fault() over the range in pieces of at most 2 GiB, and no
 * retry: when the range changed under the walk (-EBUSY) it returns
 * -EAGAIN, KFD's fault handler returns 0 without mapping, and the GPU's
 * retry fault comes back (counted: hmm_eagain). The caller holds
 * mmap_lock for read.
 *
 * Return: 0, -EAGAIN, or another negative errno.
 */
int amdgpu_hmm_range_get_pages(struct mmu_interval_notifier *notifier,
			       uint64_t start, uint64_t npages, bool readonly,
			       void *owner, struct page **pages,
			       struct hmm_range **phmm_range)
{
	struct hmm_range *range;
	unsigned long *pfns;
	u64 i;
	int r;

	range = kzalloc(sizeof(*range), GFP_KERNEL);
	pfns = kvmalloc_array(npages, sizeof(*pfns), GFP_KERNEL);
	r = -ENOMEM;
	if (range && pfns)
		r = kfdbed_hmm_fault(notifier, range, start, npages, readonly,
				     owner, pfns);
	if (r) {
		kvfree(pfns);
		kfree(range);
		return r;
	}
	if (pages)
		for (i = 0; i < npages; i++)
			pages[i] = hmm_pfn_to_page(pfns[i]);
	*phmm_range = range;
	return 0;
}

/**
 * amdgpu_hmm_range_get_pages_done() - end of a snapshot's use
 * @hmm_range: from amdgpu_hmm_range_get_pages(); freed
 *
 * Call with the notifier lock held (KFD's svm_range_lock()).
 *
 * Return: true when the pages were invalidated meanwhile (start over).
 */
bool amdgpu_hmm_range_get_pages_done(struct hmm_range *hmm_range)
{
	bool r = mmu_interval_read_retry(hmm_range->notifier,
					 hmm_range->notifier_seq);

	kvfree(hmm_range->hmm_pfns);
	kfree(hmm_range);
	return r;
}
#endif
