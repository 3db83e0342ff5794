// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: /dev/kfdbed, the GPU's side for tests. KFDBED_IOC_ACCESS
 * makes the GPU read or write the caller's memory through its page table,
 * page by page: a page the table does not map (or maps read-only, for a
 * write) raises a retry fault on IH1, which KFD's svm_range_restore_pages()
 * handles from the IH work item, and the access replays, as a wave would.
 * A fault KFD fails ends the access with the error, as a VM fault would
 * stop the wave. KFDBED_IOC_INFO reports the GPUs' gpu_ids and counters.
 * KFDBED_IOC_VRAM_HOLD takes free VRAM for as long as the file is open.
 */
#include <linux/dma-direct.h>
#include <linux/gpu_buddy.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kfdbed.h"

/**
 * kfdbed_gpu_by_id() - a GPU by KFD's gpu_id
 * @gpu_id: the id
 *
 * Return: the GPU, or NULL.
 */
struct kfdbed_gpu *kfdbed_gpu_by_id(u32 gpu_id)
{
	unsigned int i;

	for (i = 0; i < kfdbed_num_gpus; i++)
		if (kfdbed_gpus[i]->node->id == gpu_id)
			return kfdbed_gpus[i];
	return NULL;
}

/*
 * The GPU whose VRAM holds MC address @addr of a VRAM PTE written for
 * @gpu, and its offset there: its own VRAM, or a peer's in its xGMI hive
 * (hive members' VRAM addresses are hive-wide: each has its own
 * vram_base_offset). NULL when @gpu cannot reach such an address.
 */
static struct kfdbed_gpu *kfdbed_gpu_vram_owner(struct kfdbed_gpu *gpu,
						u64 addr, u64 *off)
{
	unsigned int i;

	for (i = 0; i < kfdbed_num_gpus; i++) {
		struct kfdbed_gpu *owner = kfdbed_gpus[i];
		u64 base = owner->adev->vm_manager.vram_base_offset;

		if (!kfdbed_gpu_reaches_vram(gpu, owner) || addr < base ||
		    addr - base + PAGE_SIZE > owner->vram_size)
			continue;
		*off = addr - base;
		return owner;
	}
	return NULL;
}

/**
 * kfdbed_gpu_copy_page() - move one page between a buffer and the memory
 *	a PTE points to
 * @gpu: the GPU
 * @pte: the PTE
 * @buf: a page
 * @write: from @buf to memory
 * @mem: out: where the page was
 *
 * The memory is VRAM (its backing store, this GPU's or an xGMI peer's) or
 * system memory (a DMA address; no IOMMU, so it is the physical address).
 * Call with the page table locked: KFD unmaps a page from the GPU before
 * the CPU may free or move it. As a GPU's DMA, nothing is dirtied.
 *
 * Return: 0, or -EFAULT for an address no memory has.
 */
int kfdbed_gpu_copy_page(struct kfdbed_gpu *gpu, u64 pte, void *buf, bool write,
			 enum kfdbed_gpu_mem *mem)
{
	u64 addr = pte & KFDBED_PTE_ADDR_MASK;
	struct kfdbed_gpu *owner;
	struct page *page;
	phys_addr_t phys;
	void *p;
	u64 off;

	if (!(pte & AMDGPU_PTE_SYSTEM)) {
		owner = kfdbed_gpu_vram_owner(gpu, addr, &off);
		if (!owner)
			return -EFAULT;
		*mem = owner == gpu ? KFDBED_MEM_VRAM : KFDBED_MEM_PEER_VRAM;
		p = (u8 *)owner->vram + off;
		if (write)
			memcpy(p, buf, PAGE_SIZE);
		else
			memcpy(buf, p, PAGE_SIZE);
		return 0;
	}
	*mem = KFDBED_MEM_SYSTEM;
	phys = dma_to_phys(gpu->adev->dev, addr);
	if (!pfn_valid(PHYS_PFN(phys)))
		return -EFAULT;
	page = pfn_to_page(PHYS_PFN(phys));
	p = kmap_local_page(page);
	if (write)
		memcpy(p, buf, PAGE_SIZE);
	else
		memcpy(buf, p, PAGE_SIZE);
	kunmap_local(p);
	return 0;
}

/**
 * kfdbed_gpu_access_page() - one GPU access to one page, faulting as needed
 * @gpu: the GPU
 * @kp: the process
 * @kvm: its VM on @gpu
 * @page: GPU page number
 * @buf: a page of data (in or out)
 * @write: a write
 * @a: the ioctl's arguments, for the out fields
 *
 * Return: 0, -EFAULT when KFD failed the fault (details in @a), -EINTR on
 * a fatal signal, -ETIMEDOUT when the page stays unmapped for 10 s.
 */
static int kfdbed_gpu_access_page(struct kfdbed_gpu *gpu,
				  struct kfdbed_process *kp,
				  struct kfdbed_vm *kvm, u64 page, void *buf,
				  bool write, struct kfdbed_access_args *a)
{
	unsigned long deadline = jiffies + 10 * HZ;
	u64 need = AMDGPU_PTE_VALID | AMDGPU_PTE_READABLE |
		   (write ? AMDGPU_PTE_WRITEABLE : 0);
	bool served = false;
	int r, result;

	for (;;) {
		struct kfdbed_fault_ticket t;
		enum kfdbed_gpu_mem mem;
		long left;
		u64 pte;

		/* Quiesced queues do not run. */
		if (wait_event_killable(kp->queues_wait,
					!atomic_read(&kp->queues_evicted)))
			return -EINTR;

		spin_lock(&kvm->pt_lock);
		pte = kfdbed_vm_lookup(kvm, page);
		if ((pte & need) == need) {
			r = kfdbed_gpu_copy_page(gpu, pte, buf, write, &mem);
			spin_unlock(&kvm->pt_lock);
			if (r) {
				a->fault_addr = page << PAGE_SHIFT;
				return r;
			}
			if (mem == KFDBED_MEM_VRAM)
				a->vram_pages++;
			else if (mem == KFDBED_MEM_PEER_VRAM)
				a->peer_pages++;
			else
				a->sys_pages++;
			kfdbed_stat_inc(gpu, KFDBED_STAT_ACCESSES);
			return 0;
		}
		spin_unlock(&kvm->pt_lock);
		/* KFD said it handled our last fault, yet nothing is mapped. */
		if (served)
			kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_UNSERVED);
		served = false;

		/* The IV carries the PASID of the VM the access is in. */
		r = kfdbed_ih_raise_retry_fault(gpu, kvm->fpriv.vm.pasid, page,
						write, &t);
		if (!r || r == -EALREADY) {
			/* Raised, or held back by the CAM behind another. */
			if (!r)
				a->faults++;
			left = wait_event_killable_timeout(
				gpu->wave_wq,
				kfdbed_ih_fault_done(gpu, &t, &result),
				10 * HZ);
			if (left < 0)
				return -EINTR;
			if (!left)
				return -ETIMEDOUT;
			if (result) {
				a->fault_error = result;
				a->fault_addr = page << PAGE_SHIFT;
				return -EFAULT;
			}
			served = true;
		} else {
			/* Filtered or full: the hardware retries later. */
			usleep_range(20, 50);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
	}
}

/*
 * The GPU @gpu_id and the caller's KFD process with its VM on it (the
 * process referenced: kfd_unref_process()). 0, -ENODEV for an unknown GPU
 * or one the process has no VM on, -ESRCH without a KFD process.
 */
static int kfdbed_gpu_current_vm(u32 gpu_id, struct kfdbed_gpu **gpu,
				 struct kfdbed_process **kp,
				 struct kfdbed_vm **kvm)
{
	struct kfd_process_device *pdd;

	*gpu = kfdbed_gpu_by_id(gpu_id);
	if (!*gpu)
		return -ENODEV;
	*kp = kfdbed_process_get_current();
	if (!*kp)
		return -ESRCH;
	pdd = kfd_get_process_device_data((*gpu)->node, &(*kp)->p);
	if (!pdd) {
		kfd_unref_process(&(*kp)->p);
		return -ENODEV;
	}
	*kvm = container_of(pdd->drm_priv, struct kfdbed_vm, file);
	return 0;
}

static long kfdbed_gpu_access(struct kfdbed_access_args *a)
{
	void __user *uptr = u64_to_user_ptr(a->ptr);
	struct kfdbed_process *kp;
	struct kfdbed_gpu *gpu;
	struct kfdbed_vm *kvm;
	bool write = a->flags & KFDBED_ACCESS_WRITE;
	u64 off;
	void *buf;
	long r = 0;

	/* Output fields must come in zero, as svmtune's own ioctls ask. */
	if ((a->flags & ~KFDBED_ACCESS_WRITE) || !a->size ||
	    (a->va & ~PAGE_MASK) || (a->size & ~PAGE_MASK) ||
	    a->va + a->size < a->va || a->va + a->size > TASK_SIZE_MAX ||
	    a->faults || a->fault_error || a->fault_addr || a->vram_pages ||
	    a->sys_pages || a->peer_pages)
		return -EINVAL;
	a->faults = 0;
	a->fault_error = 0;
	a->fault_addr = 0;
	a->vram_pages = 0;
	a->sys_pages = 0;
	a->peer_pages = 0;
	r = kfdbed_gpu_current_vm(a->gpu_id, &gpu, &kp, &kvm);
	if (r)
		return r;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		r = -ENOMEM;
		goto out_unref;
	}
	for (off = 0; off < a->size; off += PAGE_SIZE) {
		if (write && copy_from_user(buf, uptr + off, PAGE_SIZE)) {
			r = -EFAULT;
			break;
		}
		r = kfdbed_gpu_access_page(gpu, kp, kvm,
					   (a->va + off) >> PAGE_SHIFT, buf,
					   write, a);
		if (r)
			break;
		if (!write && copy_to_user(uptr + off, buf, PAGE_SIZE)) {
			r = -EFAULT;
			break;
		}
		cond_resched();
	}
	kfree(buf);
out_unref:
	kfd_unref_process(&kp->p);
	return r;
}

/* KFDBED_IOC_RANGES: KFD's own count of the caller's SVM ranges. */
static long kfdbed_gpu_ranges(struct kfdbed_ranges_args *a)
{
	struct kfdbed_process *kp;
	u64 priv_size;
	long r;

	if (a->flags || a->ranges)
		return -EINVAL;
	kp = kfdbed_process_get_current();
	if (!kp)
		return -ESRCH;
#ifdef KFDBED_HAVE_SVM_GET_INFO_VOID
	svm_range_get_info(&kp->p, &a->ranges, &priv_size);
	r = 0;
#else
	r = svm_range_get_info(&kp->p, &a->ranges, &priv_size);
#endif
	kfd_unref_process(&kp->p);
	return r;
}

static long kfdbed_gpu_info(struct kfdbed_info_args *info)
{
	unsigned int i, s;

	memset(info, 0, sizeof(*info));
	info->version = KFDBED_VERSION;
	info->num_gpus = kfdbed_num_gpus;
	for (i = 0; i < kfdbed_num_gpus; i++) {
		struct kfdbed_gpu *gpu = kfdbed_gpus[i];
		struct kfdbed_gpu_stats *st = &info->gpus[i];
		__u64 *counters = &st->sdma_jobs;

		st->gpu_id = gpu->node->id;
		st->xgmi_hive = gpu->xgmi_hive;
		st->vram_size = gpu->vram_size;
		st->vram_used = ttm_resource_manager_usage(
			&gpu->adev->mman.vram_mgr.manager);
		for (s = 0; s < KFDBED_NR_STATS; s++)
			counters[s] = atomic64_read(&gpu->stats[s]);
		for (s = 0; s < KFDBED_NR_FRAGS; s++)
			st->pte_updates_frag[s] =
				atomic64_read(&gpu->pte_updates_frag[s]);
	}
	return 0;
}

/* Serialises KFDBED_IOC_TOPOLOGY calls. */
static DEFINE_MUTEX(kfdbed_topology_lock);

/*
 * A GPU's node leaves or joins KFD's topology again; the node itself stays
 * (the unload removes what is in, once: /dev/kfdbed is closed by then).
 */
static long kfdbed_gpu_topology(const struct kfdbed_topology_args *t)
{
	struct kfdbed_gpu *gpu;
	long r = 0;

	if (t->flags != KFDBED_TOPOLOGY_REMOVE &&
	    t->flags != KFDBED_TOPOLOGY_ADD)
		return -EINVAL;
	gpu = kfdbed_gpu_by_id(t->gpu_id);
	if (!gpu)
		return -ENODEV;
	mutex_lock(&kfdbed_topology_lock);
	if (gpu->in_topology != (t->flags == KFDBED_TOPOLOGY_REMOVE)) {
		r = -EINVAL;
	} else if (t->flags == KFDBED_TOPOLOGY_REMOVE) {
		kfd_topology_remove_device(gpu->node);
		gpu->in_topology = false;
	} else {
		kfd_topology_add_device(gpu->node);
		gpu->in_topology = true;
	}
	mutex_unlock(&kfdbed_topology_lock);
	return r;
}

/*
 * An open /dev/kfdbed: the VRAM it holds (KFDBED_IOC_VRAM_HOLD), one list
 * of buddy blocks per GPU, and the device pages it holds a reference on
 * (KFDBED_IOC_PAGE_HOLD), given back when the file is closed. @lock
 * covers all of it.
 */
struct kfdbed_gpu_file {
	struct mutex lock;
	struct list_head held[KFDBED_MAX_GPUS];
	struct page *pages[KFDBED_PAGE_HOLD_MAX];
	unsigned int nr_pages;
};

static void kfdbed_page_hold_release(struct kfdbed_gpu_file *kf)
{
	lockdep_assert_held(&kf->lock);
	while (kf->nr_pages)
		put_page(kf->pages[--kf->nr_pages]);
}

/*
 * KFDBED_IOC_PAGE_HOLD: a reference on the device-private page of the
 * VRAM @h->gpu_id maps at @h->va (KFD's pagemap: its VRAM offset plus the
 * pagemap's start, as svm_migrate_addr_to_pfn() has it). The GPU's PTE is
 * read under its page-table lock: KFD unmaps a page from the GPU before
 * the page can be freed or moved, so a valid PTE names a live page.
 */
static long kfdbed_gpu_page_hold(struct kfdbed_gpu_file *kf,
				 struct kfdbed_page_hold_args *h)
{
	struct kfdbed_process *kp;
	struct kfdbed_gpu *gpu, *owner;
	struct kfdbed_vm *kvm;
	struct page *page = NULL;
	u64 pte, off;
	long r = 0;

	if (h->flags & ~KFDBED_PAGE_HOLD_RELEASE || h->held || h->pad)
		return -EINVAL;
	if (h->flags & KFDBED_PAGE_HOLD_RELEASE) {
		if (h->gpu_id || h->va)
			return -EINVAL;
		mutex_lock(&kf->lock);
		kfdbed_page_hold_release(kf);
		mutex_unlock(&kf->lock);
		return 0;
	}
	if (!PAGE_ALIGNED(h->va) || !h->va || h->va >= TASK_SIZE_MAX)
		return -EINVAL;
	r = kfdbed_gpu_current_vm(h->gpu_id, &gpu, &kp, &kvm);
	if (r)
		return r;

	mutex_lock(&kf->lock);
	if (kf->nr_pages == KFDBED_PAGE_HOLD_MAX) {
		r = -ENOSPC;
		goto out_unlock;
	}
	spin_lock(&kvm->pt_lock);
	pte = kfdbed_vm_lookup(kvm, h->va >> PAGE_SHIFT);
	if ((pte & AMDGPU_PTE_VALID) && !(pte & AMDGPU_PTE_SYSTEM)) {
		owner = kfdbed_gpu_vram_owner(gpu, pte & KFDBED_PTE_ADDR_MASK,
					      &off);
		if (owner == gpu) {
			page = pfn_to_page(PHYS_PFN(
				gpu->adev->kfd.pgmap.range.start + off));
			if (!get_page_unless_zero(page))
				page = NULL;
		}
	}
	spin_unlock(&kvm->pt_lock);
	if (!page) {
		r = -ENOENT;
		goto out_unlock;
	}
	kf->pages[kf->nr_pages++] = page;
out_unlock:
	h->held = kf->nr_pages;
	mutex_unlock(&kf->lock);
	kfd_unref_process(&kp->p);
	return r;
}

/*
 * Take every free page of [@start, @end) from @mm onto @blocks, halving
 * the span until what is left of it is free: an exact-range allocation
 * takes a span only when all of it is free. Called with the manager's lock.
 */
static u64 kfdbed_vram_hold_span(struct gpu_buddy *mm, u64 start, u64 end,
				 struct list_head *blocks)
{
	u64 mid;

	if (start >= end)
		return 0;
	if (!gpu_buddy_alloc_blocks(mm, start, end, end - start, PAGE_SIZE,
				    blocks, GPU_BUDDY_RANGE_ALLOCATION))
		return end - start;
	if (end - start == PAGE_SIZE || fatal_signal_pending(current))
		return 0;
	/* At least two pages here: each half has one. */
	mid = start + round_down((end - start) / 2, PAGE_SIZE);
	return kfdbed_vram_hold_span(mm, start, mid, blocks) +
	       kfdbed_vram_hold_span(mm, mid, end, blocks);
}

static long kfdbed_gpu_vram_hold(struct kfdbed_gpu_file *kf,
				 struct kfdbed_vram_hold_args *h)
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_by_id(h->gpu_id);
	struct amdgpu_vram_mgr *mgr;
	u64 end;

	if (h->flags || h->held || !h->size || !PAGE_ALIGNED(h->offset) ||
	    !PAGE_ALIGNED(h->size))
		return -EINVAL;
	if (!gpu)
		return -ENODEV;
	if (check_add_overflow(h->offset, h->size, &end) ||
	    end > gpu->vram_size)
		return -EINVAL;

	mgr = &gpu->adev->mman.vram_mgr;
	mutex_lock(&kf->lock);
	mutex_lock(&mgr->lock);
	h->held = kfdbed_vram_hold_span(&mgr->mm, h->offset, end,
					&kf->held[gpu->index]);
	mutex_unlock(&mgr->lock);
	mutex_unlock(&kf->lock);
	return 0;
}

static int kfdbed_gpu_open(struct inode *inode, struct file *filep)
{
	struct kfdbed_gpu_file *kf = kzalloc(sizeof(*kf), GFP_KERNEL);
	unsigned int i;

	if (!kf)
		return -ENOMEM;
	mutex_init(&kf->lock);
	for (i = 0; i < KFDBED_MAX_GPUS; i++)
		INIT_LIST_HEAD(&kf->held[i]);
	filep->private_data = kf;
	return 0;
}

static int kfdbed_gpu_release(struct inode *inode, struct file *filep)
{
	struct kfdbed_gpu_file *kf = filep->private_data;
	unsigned int i;

	for (i = 0; i < kfdbed_num_gpus; i++) {
		struct amdgpu_vram_mgr *mgr =
			&kfdbed_gpus[i]->adev->mman.vram_mgr;

		mutex_lock(&mgr->lock);
		gpu_buddy_free_list(&mgr->mm, &kf->held[i], 0);
		mutex_unlock(&mgr->lock);
	}
	mutex_lock(&kf->lock);
	kfdbed_page_hold_release(kf);
	mutex_unlock(&kf->lock);
	mutex_destroy(&kf->lock);
	kfree(kf);
	return 0;
}

static long kfdbed_gpu_ioctl(struct file *filep, unsigned int cmd,
			     unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	long r;

	switch (cmd) {
	case KFDBED_IOC_INFO: {
		struct kfdbed_info_args *info =
			kmalloc(sizeof(*info), GFP_KERNEL);

		if (!info)
			return -ENOMEM;
		r = kfdbed_gpu_info(info);
		if (!r && copy_to_user(uarg, info, sizeof(*info)))
			r = -EFAULT;
		kfree(info);
		return r;
	}
	case KFDBED_IOC_ACCESS: {
		struct kfdbed_access_args a;

		if (copy_from_user(&a, uarg, sizeof(a)))
			return -EFAULT;
		r = kfdbed_gpu_access(&a);
		/* The out fields say how far it got, error or not. */
		if (copy_to_user(uarg, &a, sizeof(a)))
			return -EFAULT;
		return r;
	}
	case KFDBED_IOC_WAVES: {
		struct kfdbed_waves_args w;

		if (copy_from_user(&w, uarg, sizeof(w)))
			return -EFAULT;
		r = kfdbed_waves(&w);
		/* The out fields say how far it got, error or not. */
		if (r != -EINVAL && copy_to_user(uarg, &w, sizeof(w)))
			return -EFAULT;
		return r;
	}
	case KFDBED_IOC_TOPOLOGY: {
		struct kfdbed_topology_args t;

		if (copy_from_user(&t, uarg, sizeof(t)))
			return -EFAULT;
		return kfdbed_gpu_topology(&t);
	}
	case KFDBED_IOC_RANGES: {
		struct kfdbed_ranges_args ra;

		if (copy_from_user(&ra, uarg, sizeof(ra)))
			return -EFAULT;
		r = kfdbed_gpu_ranges(&ra);
		if (!r && copy_to_user(uarg, &ra, sizeof(ra)))
			r = -EFAULT;
		return r;
	}
	case KFDBED_IOC_PAGE_HOLD: {
		struct kfdbed_page_hold_args ph;

		if (copy_from_user(&ph, uarg, sizeof(ph)))
			return -EFAULT;
		r = kfdbed_gpu_page_hold(filep->private_data, &ph);
		if ((!r || r == -ENOENT || r == -ENOSPC) &&
		    copy_to_user(uarg, &ph, sizeof(ph)))
			r = -EFAULT;
		return r;
	}
	case KFDBED_IOC_VRAM_HOLD: {
		struct kfdbed_vram_hold_args h;

		if (copy_from_user(&h, uarg, sizeof(h)))
			return -EFAULT;
		r = kfdbed_gpu_vram_hold(filep->private_data, &h);
		if (!r && copy_to_user(uarg, &h, sizeof(h)))
			r = -EFAULT;
		return r;
	}
	}
	return -ENOTTY;
}

static const struct file_operations kfdbed_gpu_fops = {
	.owner = THIS_MODULE,
	.open = kfdbed_gpu_open,
	.release = kfdbed_gpu_release,
	.unlocked_ioctl = kfdbed_gpu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice kfdbed_gpu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kfdbed",
	.fops = &kfdbed_gpu_fops,
	.mode = 0600,
};

/**
 * kfdbed_gpu_dev_init() - create /dev/kfdbed
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_gpu_dev_init(void)
{
	return misc_register(&kfdbed_gpu_misc);
}

/**
 * kfdbed_gpu_dev_fini() - remove /dev/kfdbed
 */
void kfdbed_gpu_dev_fini(void)
{
	misc_deregister(&kfdbed_gpu_misc);
}
