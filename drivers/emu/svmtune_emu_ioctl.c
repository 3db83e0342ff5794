// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_emu: GPU contexts (one per open file of /dev/svmtune_emuN) and
 * their ioctls: access, migrate, snapshot.
 */
#include "svmtune_emu_internal.h"

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

/*
 * Touch the page at @addr through the device page table, faulting until
 * it stays mapped long enough to be touched, as a GPU replays a fault:
 * another thread migrating or touching the same pages may take them away
 * between the map and the touch any number of times, and a map whose
 * pages kept changing for a second (-EBUSY) is tried again. Only a fatal
 * signal ends it; a real livelock shows as an access that never returns.
 */
static int svmtune_emu_access_page(struct svmtune_emu_ctx *ctx,
				   unsigned long addr, void *bounce, bool write,
				   struct svmtune_emu_tally *tally)
{
	int ret;

	for (;;) {
		ret = svmtune_emu_touch(ctx, addr, bounce, write, tally);
		if (ret != -EAGAIN)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		/* The decision sees the uses so far. */
		svmtune_emu_report_access(ctx, tally);
		ret = svmtune_emu_gpu_fault(ctx, addr, write, tally);
		if (ret && ret != -EBUSY)
			return ret;
		cond_resched();
	}
}

/* An access's counters, for user space. */
static void svmtune_emu_tally_out(struct svmtune_emu_access *arg,
				  const struct svmtune_emu_tally *tally)
{
	arg->faults = tally->faults;
	arg->migrated = tally->migrated;
	arg->remote = tally->remote;
	arg->retries = tally->retries;
	arg->remote_accesses = tally->remote_accesses;
	arg->tlb_hits = tally->tlb_hits;
	arg->tlb_misses = tally->tlb_misses;
	arg->evicted = tally->evicted;
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
		ret = svmtune_emu_access_page(ctx, addr, bounce, write, &tally);
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

	svmtune_emu_tally_out(arg, &tally);
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

/*
 * Read the CPU page tables over @range (a snapshot: no fault flags, so
 * nothing is faulted in), retried while pages of it change (a wall-clock
 * bound would fail on a slow or loaded machine, not on a bug), never past
 * a fatal signal. Unmapped addresses read as absent.
 */
static int svmtune_emu_snapshot_walk(struct svmtune_emu_ctx *ctx,
				     struct hmm_range *range, unsigned long n)
{
	struct svmtune_emu_walk walk;
	int ret;

	svmtune_emu_walk_begin(ctx, &walk, range->start, range->end);
	do {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
		range->notifier_seq = mmu_interval_read_begin(&ctx->notifier);
		mmap_read_lock(ctx->mm);
		ret = hmm_range_fault(range);
		mmap_read_unlock(ctx->mm);
	} while (ret == -EBUSY);
	svmtune_emu_walk_end(ctx, &walk);
	if (ret == -EFAULT) {
		memset(range->hmm_pfns, 0, n * sizeof(*range->hmm_pfns));
		ret = 0;
	}
	return ret;
}

/* What user space sees of the page @pfn at @index (SVMTUNE_EMU_PAGE_*). */
static u32 svmtune_emu_snapshot_entry(struct svmtune_emu_ctx *ctx,
				      unsigned long pfn, unsigned long index)
{
	void *entry;
	u32 e = 0;

	lockdep_assert_held(&ctx->lock);
	if (pfn & HMM_PFN_VALID)
		e |= is_device_private_page(hmm_pfn_to_page(pfn)) ?
		     SVMTUNE_EMU_PAGE_DEVICE : SVMTUNE_EMU_PAGE_SYSTEM;
	entry = xa_load(&ctx->pt, index);
	if (entry) {
		unsigned long pte = xa_to_value(entry);

		e |= SVMTUNE_EMU_PAGE_MAPPED;
		if (!(pte & PTE_LOCAL))
			e |= SVMTUNE_EMU_PAGE_REMOTE;
		if (pte & PTE_WRITE)
			e |= SVMTUNE_EMU_PAGE_WRITE;
		e |= ((pte >> 8) & 0xff) << SVMTUNE_EMU_PAGE_FRAG_SHIFT;
		e |= (PTE_FRAG(pte) + PAGE_SHIFT) << SVMTUNE_EMU_PAGE_PTE_FRAG_SHIFT;
	}
	return e;
}

static long svmtune_emu_ioctl_snapshot(struct file *file, void *data)
{
	struct svmtune_emu_snapshot *arg = data;
	unsigned long npages, i, addr, chunk;
	struct svmtune_emu_ctx *ctx;
	u32 __user *uptr;
	unsigned long *pfns;
	u32 *entries;
	long ret = 0;

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

		ret = svmtune_emu_snapshot_walk(ctx, &range, n);
		if (ret)
			break;
		mutex_lock(&ctx->lock);
		for (i = 0; i < n; i++)
			entries[i] = svmtune_emu_snapshot_entry(ctx, pfns[i],
								(addr >> PAGE_SHIFT) + i);
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
	ret = svmtune_emu_passthrough_window ? 0 : svmtune_mm_attach(current->mm);
	if (ret)
		return ret;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->edev = edev;
	ctx->tlb_entries = svmtune_emu_tlb_entries;
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

const struct file_operations svmtune_emu_fops = {
	.owner = THIS_MODULE,
	.open = svmtune_emu_open,
	.release = svmtune_emu_release,
	.unlocked_ioctl = svmtune_emu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
