// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for amdgpu's KFD SVM fault path, so that svmtune_kfd's fault
 * and migration hooks run without a GPU. It is a module named "amdgpu"
 * implementing the test kernel's KFD interface version, with functions of
 * the same names and prototypes as the ones svmtune_kfd hooks, on KFD's
 * real structures (struct kfd_process, struct svm_range from the kernel
 * tree's amdkfd headers). They do what KFD's do in the order it does it,
 * minus the GPU:
 *
 *   svm_range_restore_pages() takes the faulting process's mmap_lock, makes
 *   a range around the address with svm_range_new() (granularity from
 *   svms.default_granularity), takes its migrate_mutex, computes KFD's
 *   window, calls svm_migrate_to_vram(), then svm_range_validate_and_map().
 *
 * The migration records the window it was given and counts the pages as
 * moved (vram_pages); the mapping records its window. A debugfs file
 * (svmtune_fake_kfd/fault) takes "<address> <write>" (a GPU fault) or
 * "cpu <address>" (a CPU fault on a page KFD holds in VRAM), runs it in the
 * writer's address space and reads back what happened:
 *   "migrated <start> <last>|declined map <start> <last> granularity <g>
 *    preferred <loc> aip <0|1> ram <start> <last>" (page numbers).
 * The functions are noinline and, where GCC would otherwise specialise
 * them, __noclone: svmtune_kfd finds them by their plain names.
 * Used by svmtune_kfd_test only.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kfd_priv.h"
#include "kfd_svm.h"
#include "kfd_migrate.h"

#undef pr_fmt
#define pr_fmt(fmt) "fake_amdgpu_kfd: " fmt

static struct kfd_process *fake_process;
static struct dentry *fake_dir;
static DEFINE_MUTEX(fake_lock);

/* What the last fault did, for the debugfs read. */
static bool fake_migrated;
static unsigned long fake_mig_start, fake_mig_last;
static unsigned long fake_map_start, fake_map_last;
static unsigned long fake_ram_start, fake_ram_last;
static struct svm_range fake_last_range;

static int kfd_ioctl_get_version(struct file *filep, struct kfd_process *p,
				 void *data)
{
	struct kfd_ioctl_get_version_args *args = data;

	args->major_version = KFD_IOCTL_MAJOR_VERSION;
	args->minor_version = KFD_IOCTL_MINOR_VERSION;
	return 0;
}

typedef int(fake_ioctl_t)(struct file *filep, struct kfd_process *p,
			  void *data);
static fake_ioctl_t *const fake_ioctls[] __used = { kfd_ioctl_get_version };

/* KFD's: a new range with the process's defaults. */
static noinline __noclone struct svm_range *
svm_range_new(struct svm_range_list *svms, uint64_t start, uint64_t last,
	      bool update_mem_usage)
{
	struct svm_range *prange = kzalloc(sizeof(*prange), GFP_KERNEL);

	if (!prange)
		return NULL;
	prange->svms = svms;
	prange->start = start;
	prange->last = last;
	prange->npages = last - start + 1;
	mutex_init(&prange->migrate_mutex);
	mutex_init(&prange->lock);
	bitmap_set(prange->bitmap_access, 0, 1);
	prange->preferred_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	prange->prefetch_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	prange->granularity = svms->default_granularity;
	return prange;
}

noinline int svm_migrate_to_vram(struct svm_range *prange, uint32_t best_loc,
				 unsigned long start, unsigned long last,
				 struct mm_struct *mm, uint32_t trigger)
{
	fake_migrated = true;
	fake_mig_start = start;
	fake_mig_last = last;
	prange->vram_pages += last - start + 1;
	return 0;
}

noinline int svm_migrate_vram_to_ram(struct svm_range *prange,
				     struct mm_struct *mm, unsigned long start,
				     unsigned long last, uint32_t trigger,
				     struct page *fault_page)
{
	fake_ram_start = start;
	fake_ram_last = last;
	prange->vram_pages -= min_t(u64, prange->vram_pages, last - start + 1);
	return 0;
}

/*
 * KFD's CPU-fault path (the pagemap's migrate_to_ram): the range around
 * the address, as if all of it were in VRAM, and KFD's window of it back
 * to system memory.
 */
static noinline vm_fault_t svm_migrate_to_ram(struct vm_fault *vmf)
{
	unsigned long addr = vmf->address >> PAGE_SHIFT;
	struct mm_struct *mm = vmf->vma->vm_mm;
	unsigned long size, start, last;
	struct svm_range *prange;
	int r;

	size = 1UL << fake_process->svms.default_granularity;
	prange = svm_range_new(&fake_process->svms,
			       max(ALIGN_DOWN(addr, size),
				   vmf->vma->vm_start >> PAGE_SHIFT),
			       min(ALIGN(addr + 1, size) - 1,
				   (vmf->vma->vm_end >> PAGE_SHIFT) - 1),
			       true);
	if (!prange)
		return VM_FAULT_OOM;
	prange->vram_pages = prange->npages;
	prange->actual_loc = 1;
	mutex_lock(&prange->migrate_mutex);
	size = 1UL << prange->granularity;
	start = max(ALIGN_DOWN(addr, size), prange->start);
	last = min(ALIGN(addr + 1, size) - 1, prange->last);
	r = svm_migrate_vram_to_ram(prange, mm, start, last,
				    KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU,
				    vmf->page);
	mutex_unlock(&prange->migrate_mutex);
	kfree(prange);
	return r ? VM_FAULT_SIGBUS : 0;
}

static const struct dev_pagemap_ops fake_pgmap_ops __used = {
	.migrate_to_ram = svm_migrate_to_ram,
};

static noinline __noclone int
svm_range_validate_and_map(struct mm_struct *mm, unsigned long map_start,
			   unsigned long map_last, struct svm_range *prange,
			   int32_t gpuidx, bool intr, bool wait, bool flush_tlb)
{
	fake_map_start = map_start;
	fake_map_last = map_last;
	return 0;
}

noinline int svm_range_list_init(struct kfd_process *p)
{
	p->svms.default_granularity = 9;
	return 0;
}

static noinline int svm_range_get_attr(struct kfd_process *p,
				       struct mm_struct *mm, uint64_t start,
				       uint64_t size, uint32_t nattr,
				       struct kfd_ioctl_svm_attribute *attrs)
{
	return -EINVAL;
}

static noinline int svm_range_set_attr(struct kfd_process *p,
				       struct mm_struct *mm, uint64_t start,
				       uint64_t size, uint32_t nattr,
				       struct kfd_ioctl_svm_attribute *attrs)
{
	return -EINVAL;
}

/* Referenced, as KFD's ioctl code references them, so they stay. */
typedef int(fake_attr_t)(struct kfd_process *p, struct mm_struct *mm,
			 uint64_t start, uint64_t size, uint32_t nattr,
			 struct kfd_ioctl_svm_attribute *attrs);
static fake_attr_t *const fake_attr_ops[] __used = { svm_range_get_attr,
						     svm_range_set_attr };

/* KFD's fault path, in the order svm_range_restore_pages() runs it. */
noinline int svm_range_restore_pages(struct amdgpu_device *adev,
				     unsigned int pasid, uint32_t vmid,
				     uint32_t node_id, uint64_t addr,
				     uint64_t ts, bool write_fault)
{
	struct kfd_process *p = fake_process;
	struct mm_struct *mm = p->mm;
	struct vm_area_struct *vma;
	unsigned long size, start, last, vstart, vlast;
	struct svm_range *prange;
	int r = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr << PAGE_SHIFT);
	if (!vma) {
		mmap_read_unlock(mm);
		return -EFAULT;
	}
	/* An unregistered range: the default-granularity block, in the VMA. */
	size = 1UL << p->svms.default_granularity;
	vstart = vma->vm_start >> PAGE_SHIFT;
	vlast = (vma->vm_end >> PAGE_SHIFT) - 1;
	prange = svm_range_new(&p->svms, max(ALIGN_DOWN(addr, size), vstart),
			       min(ALIGN(addr + 1, size) - 1, vlast), true);
	if (!prange) {
		mmap_read_unlock(mm);
		return -ENOMEM;
	}
	mutex_lock(&prange->migrate_mutex);
	size = 1UL << prange->granularity;
	start = max_t(unsigned long, ALIGN_DOWN(addr, size), prange->start);
	last = min_t(unsigned long, ALIGN(addr + 1, size) - 1, prange->last);
	if (!bitmap_empty(prange->bitmap_access, MAX_GPU_INSTANCE) &&
	    prange->preferred_loc != KFD_IOCTL_SVM_LOCATION_SYSMEM)
		r = svm_migrate_to_vram(prange, 1, start, last, mm,
					KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU);
	if (!r)
		r = svm_range_validate_and_map(mm, start, last, prange, 0,
					       false, true, true);
	mutex_unlock(&prange->migrate_mutex);
	mmap_read_unlock(mm);
	fake_last_range = *prange;
	kfree(prange);
	return r;
}

/* KFD's CPU path for a write fault of the caller at @addr. */
static int fake_cpu_fault_vma(struct vm_area_struct *vma, unsigned long addr)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = addr & PAGE_MASK,
		.flags = FAULT_FLAG_WRITE,
	};

	return svm_migrate_to_ram(&vmf) ? -EIO : 0;
}

static int fake_cpu_fault(unsigned long addr)
{
	struct vm_area_struct *vma;
	int r = -EFAULT;

	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, addr);
	if (vma)
		r = fake_cpu_fault_vma(vma, addr);
	mmap_read_unlock(current->mm);
	return r;
}

static ssize_t fake_fault_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned long addr;
	unsigned int write;
	char buf[64];
	int r;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mutex_lock(&fake_lock);
	fake_process->mm = current->mm;
	fake_migrated = false;
	fake_mig_start = fake_mig_last = 0;
	fake_map_start = fake_map_last = 0;
	fake_ram_start = fake_ram_last = 0;
	if (sscanf(buf, "cpu %lx", &addr) == 1)
		r = fake_cpu_fault(addr);
	else if (sscanf(buf, "%lx %u", &addr, &write) == 2)
		r = svm_range_restore_pages(NULL, 1, 0, 0, addr >> PAGE_SHIFT,
					    0, write);
	else
		r = -EINVAL;
	fake_process->mm = NULL;
	mutex_unlock(&fake_lock);
	return r ? r : count;
}

static ssize_t fake_fault_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[256];
	int n;

	mutex_lock(&fake_lock);
	if (fake_migrated)
		n = scnprintf(buf, sizeof(buf), "migrated %lx %lx",
			      fake_mig_start, fake_mig_last);
	else
		n = scnprintf(buf, sizeof(buf), "declined");
	n += scnprintf(
		buf + n, sizeof(buf) - n,
		" map %lx %lx granularity %u preferred %x aip %d ram %lx %lx\n",
		fake_map_start, fake_map_last, fake_last_range.granularity,
		fake_last_range.preferred_loc,
		!bitmap_empty(fake_last_range.bitmap_aip, MAX_GPU_INSTANCE),
		fake_ram_start, fake_ram_last);
	mutex_unlock(&fake_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations fake_fault_fops = {
	.owner = THIS_MODULE,
	.write = fake_fault_write,
	.read = fake_fault_read,
};

static int __init fake_amdgpu_init(void)
{
	fake_process = kzalloc(sizeof(*fake_process), GFP_KERNEL);
	if (!fake_process)
		return -ENOMEM;
	svm_range_list_init(fake_process);
	fake_dir = debugfs_create_dir("svmtune_fake_kfd", NULL);
	debugfs_create_file("fault", 0600, fake_dir, NULL, &fake_fault_fops);
	return 0;
}

static void __exit fake_amdgpu_exit(void)
{
	debugfs_remove_recursive(fake_dir);
	kfree(fake_process);
}

module_init(fake_amdgpu_init);
module_exit(fake_amdgpu_exit);

MODULE_DESCRIPTION("svmtune selftest: KFD's SVM fault path without a GPU");
MODULE_LICENSE("GPL");
