// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: what KFD's SVM code needs from the rest of KFD and from
 * amdgpu's KFD glue: processes (created on open of /dev/kfd, bound to the
 * address space and living as long as it does, as kfd_process.c does it),
 * their per-device data and VMs, process lookups, queue quiesce/resume
 * (no user queues exist: a count the GPU access path honours), SMI events
 * (counted), memory accounting limits, the eviction fences of 6.12's SVM
 * BOs, amdgpu's SVM module parameters, and /dev/kfd with KFD's ioctls for
 * SVM.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/linux/kfd_ioctl.h>

#include "kfdbed.h"
#include "kfd_smi_events.h"

/*
 * amdgpu's module parameters that KFD's SVM code reads. KFD reads
 * svm_default_granularity once per process, in svm_range_list_init(); the
 * test bed gives it the parameter's value just before (plus
 * granularity_skew, 0 but in the test of svmtune_kfd's run-time checks),
 * so KFD sees what it sees in amdgpu, which has one variable for both.
 */
uint amdgpu_svm_default_granularity = 9;
static uint kfdbed_svm_default_granularity = 9;
module_param_named(svm_default_granularity, kfdbed_svm_default_granularity,
		   uint, 0644);
MODULE_PARM_DESC(svm_default_granularity,
		 "SVM default granularity, log2 pages (default 9 = 2 MiB)");

/*
 * Two ways of being an amdgpu other than the one svmtune_kfd was built
 * for, as its run-time checks must find them (run_kfdbed.sh, "layout"):
 * a process whose mm is not where svmtune_kfd reads it when
 * svm_range_list_init() returns (set after it), and a KFD whose default
 * granularity is not amdgpu's svm_default_granularity parameter.
 */
static bool late_mm;
module_param(late_mm, bool, 0444);
MODULE_PARM_DESC(late_mm, "Test only: mm set after svm_range_list_init()");
static uint granularity_skew;
module_param(granularity_skew, uint, 0444);
MODULE_PARM_DESC(granularity_skew,
		 "Test only: KFD's granularity is parameter + this (0-27)");
int amdgpu_mtype_local;
module_param_named(mtype_local, amdgpu_mtype_local, int, 0444);
MODULE_PARM_DESC(mtype_local,
		 "MTYPE for local memory (0 = RW, 1 = NC, 2 = CC)");
int amdgpu_use_xgmi_p2p = 1;
module_param_named(use_xgmi_p2p, amdgpu_use_xgmi_p2p, int, 0444);
MODULE_PARM_DESC(use_xgmi_p2p, "XGMI P2P (no XGMI hives here)");

static bool xnack = true;
module_param(xnack, bool, 0444);
MODULE_PARM_DESC(
	xnack,
	"New processes start with XNACK (retry faults) on (default true)");

/* Processes: kfdbed_process_lock protects the list; creation is serialised. */
static LIST_HEAD(kfdbed_processes);
static DEFINE_SPINLOCK(kfdbed_process_lock);
static DEFINE_MUTEX(kfdbed_process_create_mutex);
static DEFINE_IDA(kfdbed_pasid_ida);
static struct workqueue_struct *kfdbed_process_wq;

static inline struct kfdbed_process *to_kfdbed_process(struct kfd_process *p)
{
	return container_of(p, struct kfdbed_process, p);
}

/*
 * The device data of @kp whose VM has @pasid: from 7.x on each VM has a
 * PASID of its own (amdgpu_driver_open_kms() allocates one per drm file,
 * kfd_process_device_init_vm() copies it to pdd->pasid); in 6.12 the
 * process has one for all its VMs (p->pasid).
 */
static struct kfd_process_device *kfdbed_pdd_by_pasid(struct kfdbed_process *kp,
						      u32 pasid)
{
	unsigned int i;

	for (i = 0; i < kp->p.n_pdds; i++) {
#ifdef KFDBED_HAVE_PDD_PASID
		if (kp->p.pdds[i]->pasid == pasid)
			return kp->p.pdds[i];
#else
		if (kp->p.pasid == pasid)
			return kp->p.pdds[i];
#endif
	}
	return NULL;
}

static struct kfd_process *kfdbed_lookup(const struct mm_struct *mm, u32 pasid,
					 struct kfd_process_device **pdd)
{
	struct kfd_process_device *found = NULL;
	struct kfdbed_process *kp;
	struct kfd_process *p = NULL;

	spin_lock(&kfdbed_process_lock);
	list_for_each_entry(kp, &kfdbed_processes, list) {
		if (!mm)
			found = kfdbed_pdd_by_pasid(kp, pasid);
		if (mm ? kp->p.mm == mm : !!found) {
			if (kref_get_unless_zero(&kp->p.ref))
				p = &kp->p;
			break;
		}
	}
	spin_unlock(&kfdbed_process_lock);
	if (pdd)
		*pdd = p ? found : NULL;
	return p;
}

#ifdef KFDBED_HAVE_PDD_PASID
/**
 * kfd_lookup_process_by_pasid() - find a process by the PASID of a VM
 * @pasid: the PASID
 * @pdd: out (if not NULL): the process's device data of that VM, or NULL
 *
 * Return: the process with a reference (kfd_unref_process()), or NULL.
 */
struct kfd_process *kfd_lookup_process_by_pasid(u32 pasid,
						struct kfd_process_device **pdd)
{
	return kfdbed_lookup(NULL, pasid, pdd);
}
#else
/**
 * kfd_lookup_process_by_pasid() - find a process by its PASID
 * @pasid: the PASID
 *
 * Return: the process with a reference (kfd_unref_process()), or NULL.
 */
struct kfd_process *kfd_lookup_process_by_pasid(u32 pasid)
{
	return kfdbed_lookup(NULL, pasid, NULL);
}
#endif

/**
 * kfd_lookup_process_by_mm() - find a process by its address space
 * @mm: the address space
 *
 * Return: the process with a reference (kfd_unref_process()), or NULL.
 */
struct kfd_process *kfd_lookup_process_by_mm(const struct mm_struct *mm)
{
	return kfdbed_lookup(mm, 0, NULL);
}

/**
 * kfdbed_process_get_current() - the calling process's KFD process
 *
 * Return: it with a reference, or NULL when it has not opened /dev/kfd.
 */
struct kfdbed_process *kfdbed_process_get_current(void)
{
	struct kfd_process *p = kfd_lookup_process_by_mm(current->mm);

	return p ? to_kfdbed_process(p) : NULL;
}

/* A process device's VM, and its PASID when it has one of its own. */
static void kfdbed_pdd_free(struct kfd_process_device *pdd)
{
	kfdbed_vm_destroy(container_of(pdd->drm_priv, struct kfdbed_vm, file));
#ifdef KFDBED_HAVE_PDD_PASID
	ida_free(&kfdbed_pasid_ida, pdd->pasid);
#endif
	kfree(pdd);
}

/*
 * The last reference is gone: tear down as kfd_process_wq_release() does,
 * SVM first (KFD's svm_range_list_fini()), then the per-device data.
 */
static void kfdbed_process_release_work(struct work_struct *work)
{
	struct kfd_process *p =
		container_of(work, struct kfd_process, release_work);
	struct kfdbed_process *kp = to_kfdbed_process(p);
	unsigned int i;

	svm_range_list_fini(p);
	for (i = 0; i < p->n_pdds; i++)
		kfdbed_pdd_free(p->pdds[i]);
	mutex_destroy(&kp->info.lock);
	mutex_destroy(&kp->info.notifier_lock);
	mutex_destroy(&p->mutex);
	put_task_struct(p->lead_thread);
#ifndef KFDBED_HAVE_PDD_PASID
	ida_free(&kfdbed_pasid_ida, p->pasid);
#endif
	kfree(kp);
}

static void kfdbed_process_ref_release(struct kref *ref)
{
	struct kfd_process *p = container_of(ref, struct kfd_process, ref);

	INIT_WORK(&p->release_work, kfdbed_process_release_work);
	queue_work(kfdbed_process_wq, &p->release_work);
}

/**
 * kfd_unref_process() - drop a reference to a process
 * @p: the process
 *
 * The last one frees it from a work item (callers hold locks).
 */
void kfd_unref_process(struct kfd_process *p)
{
	kref_put(&p->ref, kfdbed_process_ref_release);
}

static struct mmu_notifier *kfdbed_mn_alloc(struct mm_struct *mm)
{
	struct kfd_process *p = kfd_lookup_process_by_mm(mm);

	return p ? &p->mmu_notifier : ERR_PTR(-ESRCH);
}

static void kfdbed_mn_free(struct mmu_notifier *mn)
{
	kfd_unref_process(container_of(mn, struct kfd_process, mmu_notifier));
}

/* Unpublish a process; its notifier's reference goes after an SRCU period. */
static void kfdbed_process_unpublish(struct kfdbed_process *kp)
{
	bool listed;

	spin_lock(&kfdbed_process_lock);
	listed = !list_empty(&kp->list);
	list_del_init(&kp->list);
	spin_unlock(&kfdbed_process_lock);
	if (listed)
		mmu_notifier_put(&kp->p.mmu_notifier);
}

/*
 * The address space is going: the process goes with it, as in KFD
 * (kfd_process_notifier_release_internal()). KFD's SVM restore work is
 * not cancelled here but by svm_range_list_fini(), from the release work,
 * as KFD does: svm_range_restore_work() itself may drop the last
 * reference to the address space (its get_task_mm() one) and so run this
 * release; cancelling it here waited for itself, and the unload behind it
 * (seen as a stall of run_kfdbed.sh, hung tasks in __cancel_work_sync()).
 */
static void kfdbed_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct kfd_process *p =
		container_of(mn, struct kfd_process, mmu_notifier);

	kfdbed_process_unpublish(to_kfdbed_process(p));
}

static const struct mmu_notifier_ops kfdbed_mn_ops = {
	.release = kfdbed_mn_release,
	.alloc_notifier = kfdbed_mn_alloc,
	.free_notifier = kfdbed_mn_free,
};

/*
 * Create the calling process's KFD process: per-device data with a compute
 * VM on every GPU, KFD's SVM range list (svm_range_list_init()), XNACK per
 * the module parameter, bound to the address space through an MMU notifier.
 */
static struct kfdbed_process *kfdbed_process_create(void)
{
	struct kfdbed_process *kp;
	struct kfd_process *p;
	struct mmu_notifier *mn;
	unsigned int i;
	int r;

	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return ERR_PTR(-ENOMEM);
	p = &kp->p;
	INIT_LIST_HEAD(&kp->list);
	atomic_set(&kp->queues_evicted, 0);
	init_waitqueue_head(&kp->queues_wait);
	mutex_init(&kp->info.lock);
	mutex_init(&kp->info.notifier_lock);
	INIT_LIST_HEAD(&kp->info.vm_list_head);
	INIT_LIST_HEAD(&kp->info.kfd_bo_list);
	INIT_LIST_HEAD(&kp->info.userptr_valid_list);
	INIT_LIST_HEAD(&kp->info.userptr_inval_list);

	kref_init(&p->ref);
	mutex_init(&p->mutex);
	p->mm = late_mm ? NULL : current->mm;
	p->lead_thread = get_task_struct(current->group_leader);
	INIT_LIST_HEAD(&p->pqm.queues);
	p->kgd_process_info = &kp->info;
	p->xnack_enabled = xnack;
#ifdef KFDBED_HAVE_KFD_CONTEXT_ID
	/* The process kfd_create_process() makes for an open of /dev/kfd. */
	p->context_id = KFD_CONTEXT_ID_PRIMARY;
#endif
#ifndef KFDBED_HAVE_PDD_PASID
	r = ida_alloc_range(&kfdbed_pasid_ida, 1, (1U << 16) - 1, GFP_KERNEL);
	if (r < 0)
		goto out_task;
	p->pasid = r;
#endif

	for (i = 0; i < kfdbed_num_gpus; i++) {
		struct kfdbed_gpu *gpu = kfdbed_gpus[i];
		struct kfd_process_device *pdd;
		struct kfdbed_vm *kvm;
		u32 pasid;

		pdd = kzalloc(sizeof(*pdd), GFP_KERNEL);
		if (!pdd) {
			r = -ENOMEM;
			goto out_pdds;
		}
#ifdef KFDBED_HAVE_PDD_PASID
		r = ida_alloc_range(&kfdbed_pasid_ida, 1, (1U << 16) - 1,
				    GFP_KERNEL);
		if (r < 0) {
			kfree(pdd);
			goto out_pdds;
		}
		pdd->pasid = r;
		pasid = r;
#else
		pasid = p->pasid;
#endif
		kvm = kfdbed_vm_create(gpu, pasid);
		if (IS_ERR(kvm)) {
#ifdef KFDBED_HAVE_PDD_PASID
			ida_free(&kfdbed_pasid_ida, pdd->pasid);
#endif
			kfree(pdd);
			r = PTR_ERR(kvm);
			goto out_pdds;
		}
		pdd->dev = gpu->node;
		pdd->process = p;
		pdd->drm_priv = &kvm->file;
		pdd->user_gpu_id = gpu->node->id;
		pdd->bound = PDD_UNBOUND;
		atomic64_set(&pdd->vram_usage, 0);
		p->pdds[p->n_pdds++] = pdd;
	}
	amdgpu_svm_default_granularity =
		READ_ONCE(kfdbed_svm_default_granularity) + granularity_skew;
	svm_range_list_init(p);
	p->mm = current->mm;

	spin_lock(&kfdbed_process_lock);
	list_add(&kp->list, &kfdbed_processes);
	spin_unlock(&kfdbed_process_lock);
	mn = mmu_notifier_get(&kfdbed_mn_ops, current->mm);
	if (IS_ERR(mn)) {
		spin_lock(&kfdbed_process_lock);
		list_del_init(&kp->list);
		spin_unlock(&kfdbed_process_lock);
		kfd_unref_process(p);
		return ERR_CAST(mn);
	}
	return kp;

out_pdds:
	while (p->n_pdds--)
		kfdbed_pdd_free(p->pdds[p->n_pdds]);
#ifndef KFDBED_HAVE_PDD_PASID
	ida_free(&kfdbed_pasid_ida, p->pasid);
out_task:
#endif
	put_task_struct(p->lead_thread);
	kfree(kp);
	return ERR_PTR(r);
}

/**
 * kfd_get_process_device_data() - a process's data for a device
 * @dev: the device
 * @p: the process
 *
 * Return: the pdd, or NULL.
 */
struct kfd_process_device *kfd_get_process_device_data(struct kfd_node *dev,
						       struct kfd_process *p)
{
	unsigned int i;

	for (i = 0; i < p->n_pdds; i++)
		if (p->pdds[i]->dev == dev)
			return p->pdds[i];
	return NULL;
}

/**
 * kfd_bind_process_to_device() - make a process's device data usable
 * @dev: the device
 * @p: the process
 *
 * The VM exists from the process's creation; binding marks it bound.
 *
 * Return: the pdd, or ERR_PTR(-ENOMEM) when the process has none there.
 */
struct kfd_process_device *kfd_bind_process_to_device(struct kfd_node *dev,
						      struct kfd_process *p)
{
	struct kfd_process_device *pdd = kfd_get_process_device_data(dev, p);

	if (!pdd)
		return ERR_PTR(-ENOMEM);
	pdd->bound = PDD_BOUND;
	return pdd;
}

/**
 * kfd_process_device_data_by_id() - a process's data for a gpu_id
 * @p: the process
 * @gpu_id: the gpu_id user space knows the device by
 *
 * Return: the pdd, or NULL.
 */
struct kfd_process_device *kfd_process_device_data_by_id(struct kfd_process *p,
							 uint32_t gpu_id)
{
	unsigned int i;

	if (!gpu_id)
		return NULL;
	for (i = 0; i < p->n_pdds; i++)
		if (p->pdds[i]->user_gpu_id == gpu_id)
			return p->pdds[i];
	return NULL;
}

/**
 * kfd_process_gpuidx_from_gpuid() - index of a device in a process
 * @p: the process
 * @gpu_id: the gpu_id
 *
 * Return: the index, or -EINVAL.
 */
int kfd_process_gpuidx_from_gpuid(struct kfd_process *p, uint32_t gpu_id)
{
	unsigned int i;

	for (i = 0; i < p->n_pdds; i++)
		if (p->pdds[i]->user_gpu_id == gpu_id)
			return i;
	return -EINVAL;
}

/**
 * kfd_process_gpuid_from_node() - gpu_id and index of a node in a process
 * @p: the process
 * @node: the node
 * @gpuid: out: its gpu_id
 * @gpuidx: out: its index
 *
 * Return: 0, or -EINVAL.
 */
int kfd_process_gpuid_from_node(struct kfd_process *p, struct kfd_node *node,
				uint32_t *gpuid, uint32_t *gpuidx)
{
	unsigned int i;

	for (i = 0; i < p->n_pdds; i++) {
		if (p->pdds[i]->dev == node) {
			*gpuid = p->pdds[i]->user_gpu_id;
			*gpuidx = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * kgd2kfd_quiesce_mm() - stop a process's user queues
 * @mm: its address space
 * @trigger: KFD_QUEUE_EVICTION_TRIGGER_*
 *
 * There are no user queues; the GPU access path waits while a process is
 * quiesced, as its queues would not run.
 *
 * Return: 0, or -ESRCH without a process.
 */
int kgd2kfd_quiesce_mm(struct mm_struct *mm, uint32_t trigger)
{
	struct kfd_process *p = kfd_lookup_process_by_mm(mm);

	if (!p)
		return -ESRCH;
	atomic_inc(&to_kfdbed_process(p)->queues_evicted);
	kfd_unref_process(p);
	return 0;
}

/**
 * kgd2kfd_resume_mm() - restart a process's user queues
 * @mm: its address space
 *
 * Return: 0, or -ESRCH without a process.
 */
int kgd2kfd_resume_mm(struct mm_struct *mm)
{
	struct kfd_process *p = kfd_lookup_process_by_mm(mm);
	struct kfdbed_process *kp;

	if (!p)
		return -ESRCH;
	kp = to_kfdbed_process(p);
	if (!WARN_ON_ONCE(atomic_read(&kp->queues_evicted) <= 0) &&
	    atomic_dec_and_test(&kp->queues_evicted))
		wake_up_all(&kp->queues_wait);
	kfd_unref_process(p);
	return 0;
}

/*
 * SMI events: KFD sends them to SMI clients; there is no SMI client
 * interface here, so they are counted per GPU and traced with pr_debug.
 * From 7.x on KFD names the task (its pid is what SMI reports,
 * kfd_smi_task_to_pid()) and a migration's end carries its error code;
 * 6.12 passes the pid.
 */
#ifdef KFDBED_HAVE_SMI_TASK
#define kfdbed_smi_task_t struct task_struct *
#define kfdbed_smi_pid(task) task_pid_nr(task)
#else
#define kfdbed_smi_task_t pid_t
#define kfdbed_smi_pid(pid) (pid)
#endif

void kfd_smi_event_page_fault_start(struct kfd_node *node,
				    kfdbed_smi_task_t task,
				    unsigned long address, bool write_fault,
				    ktime_t ts)
{
	pr_debug("kfdbed: fault start pid %d 0x%lx %c\n", kfdbed_smi_pid(task),
		 address, write_fault ? 'W' : 'R');
}

void kfd_smi_event_page_fault_end(struct kfd_node *node, kfdbed_smi_task_t task,
				  unsigned long address, bool migration)
{
	pr_debug("kfdbed: fault end pid %d 0x%lx %s\n", kfdbed_smi_pid(task),
		 address, migration ? "migrated" : "mapped");
}

void kfd_smi_event_migration_start(struct kfd_node *node,
				   kfdbed_smi_task_t task, unsigned long start,
				   unsigned long end, uint32_t from,
				   uint32_t to, uint32_t prefetch_loc,
				   uint32_t preferred_loc, uint32_t trigger)
{
	kfdbed_stat_inc(kfdbed_gpu_from_adev(node->adev),
			KFDBED_STAT_MIGRATIONS);
	pr_debug(
		"kfdbed: migrate start pid %d [0x%lx 0x%lx) 0x%x->0x%x trigger %u\n",
		kfdbed_smi_pid(task), start, end, from, to, trigger);
}

#ifdef KFDBED_HAVE_SMI_MIGRATION_ERROR
void kfd_smi_event_migration_end(struct kfd_node *node, kfdbed_smi_task_t task,
				 unsigned long start, unsigned long end,
				 uint32_t from, uint32_t to, uint32_t trigger,
				 int error_code)
{
	pr_debug(
		"kfdbed: migrate end pid %d [0x%lx 0x%lx) 0x%x->0x%x trigger %u: %d\n",
		kfdbed_smi_pid(task), start, end, from, to, trigger,
		error_code);
}
#else
void kfd_smi_event_migration_end(struct kfd_node *node, kfdbed_smi_task_t task,
				 unsigned long start, unsigned long end,
				 uint32_t from, uint32_t to, uint32_t trigger)
{
	pr_debug(
		"kfdbed: migrate end pid %d [0x%lx 0x%lx) 0x%x->0x%x trigger %u\n",
		kfdbed_smi_pid(task), start, end, from, to, trigger);
}
#endif

void kfd_smi_event_queue_restore_rescheduled(struct mm_struct *mm)
{
	pr_debug("kfdbed: queue restore rescheduled\n");
}

void kfd_smi_event_unmap_from_gpu(struct kfd_node *node, kfdbed_smi_task_t task,
				  unsigned long address, unsigned long last,
				  uint32_t trigger)
{
	kfdbed_stat_inc(kfdbed_gpu_from_adev(node->adev), KFDBED_STAT_UNMAPS);
	pr_debug("kfdbed: unmap pid %d [0x%lx 0x%lx] trigger %u\n",
		 kfdbed_smi_pid(task), address, last, trigger);
}

/*
 * Memory accounting, as amdgpu's KFD limits: system memory (15/16 of RAM)
 * for userptr ranges of XNACK-off processes and the struct pages of VRAM,
 * and VRAM per device as amdgpu_amdkfd_reserve_mem_limit() has it
 * (amdgpu_amdkfd_gpuvm.c:153, 172-227): VRAM less the page tables'
 * estimate, max(RAM / 16384, AMDGPU_VM_RESERVED_VRAM), less pinned VRAM
 * (adev->vram_pin_size) and what RAS retired (none here). 7.3's
 * __get_available_memory() gives the same figure for a dGPU without
 * partitions (its pins, all partition 0's, are all of vram_pin_size).
 */
static DEFINE_SPINLOCK(kfdbed_mem_limit_lock);
static u64 kfdbed_system_mem_used;

static u64 kfdbed_system_mem_limit(void)
{
	return (totalram_pages() << PAGE_SHIFT) / 16 * 15;
}

/**
 * amdgpu_amdkfd_reserve_mem_limit() - account memory KFD is about to use
 * @adev: the device (NULL for system memory)
 * @size: bytes
 * @alloc_flag: KFD_IOC_ALLOC_MEM_FLAGS_VRAM, _USERPTR or _GTT
 * @xcp_id: partition (0)
 *
 * Return: 0, or -ENOMEM over the limit.
 */
int amdgpu_amdkfd_reserve_mem_limit(struct amdgpu_device *adev, uint64_t size,
				    u32 alloc_flag, int8_t xcp_id)
{
	u64 system = 0, vram = 0;
	int r = 0;

	if (alloc_flag & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
		vram = size;
	else if (alloc_flag & (KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
			       KFD_IOC_ALLOC_MEM_FLAGS_GTT))
		system = size;
	if (vram && (!adev || xcp_id < 0))
		return -EINVAL;

	spin_lock(&kfdbed_mem_limit_lock);
	if (kfdbed_system_mem_used + system > kfdbed_system_mem_limit() ||
	    (vram &&
	     adev->kfd.vram_used[xcp_id] + vram >
		     adev->gmc.real_vram_size -
			     max_t(u64, (totalram_pages() << PAGE_SHIFT) >> 14,
				   AMDGPU_VM_RESERVED_VRAM) -
			     atomic64_read(&adev->vram_pin_size))) {
		r = -ENOMEM;
	} else {
		kfdbed_system_mem_used += system;
		if (vram)
			adev->kfd.vram_used[xcp_id] += vram;
	}
	spin_unlock(&kfdbed_mem_limit_lock);
	return r;
}

/**
 * amdgpu_amdkfd_unreserve_mem_limit() - undo amdgpu_amdkfd_reserve_mem_limit()
 * @adev: the device (NULL for system memory)
 * @size: bytes
 * @alloc_flag: as reserved
 * @xcp_id: partition (0)
 */
void amdgpu_amdkfd_unreserve_mem_limit(struct amdgpu_device *adev,
				       uint64_t size, u32 alloc_flag,
				       int8_t xcp_id)
{
	spin_lock(&kfdbed_mem_limit_lock);
	if (alloc_flag & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) {
		if (!WARN_ONCE(!adev || xcp_id < 0 ||
				       adev->kfd.vram_used[xcp_id] < size,
			       "kfdbed: VRAM accounting underflow\n"))
			adev->kfd.vram_used[xcp_id] -= size;
	} else if (alloc_flag & (KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
				 KFD_IOC_ALLOC_MEM_FLAGS_GTT)) {
		if (!WARN_ONCE(kfdbed_system_mem_used < size,
			       "kfdbed: system memory accounting underflow\n"))
			kfdbed_system_mem_used -= size;
	}
	spin_unlock(&kfdbed_mem_limit_lock);
}

/**
 * amdgpu_amdkfd_reserve_system_mem() - account system memory for good
 * @size: bytes (KFD: the struct pages of VRAM)
 */
void amdgpu_amdkfd_reserve_system_mem(uint64_t size)
{
	spin_lock(&kfdbed_mem_limit_lock);
	kfdbed_system_mem_used += size;
	spin_unlock(&kfdbed_mem_limit_lock);
}

/**
 * amdgpu_amdkfd_xcp_memory_size() - VRAM of a partition
 * @adev: the device
 * @xcp_id: partition (no partitions here)
 *
 * Return: the device's VRAM size.
 */
u64 amdgpu_amdkfd_xcp_memory_size(struct amdgpu_device *adev, int xcp_id)
{
	return adev->gmc.real_vram_size;
}

/**
 * kfd_topology_add_device() - a KFD node joins the topology
 * @gpu: the node, set up
 *
 * amdgpu calls it for each node it makes (kgd2kfd_device_init(): at probe,
 * which is inside its module init, or later on a partition mode change or
 * a hot-added GPU); svmtune_kfd hooks it to learn nodes added while it is
 * attached. The test bed keeps no topology; it is called at the same point.
 *
 * Return: 0.
 */
noinline int kfd_topology_add_device(struct kfd_node *gpu)
{
	dev_dbg(gpu->adev->dev, "KFD node gpu_id 0x%x added\n", gpu->id);
	return 0;
}

/**
 * kfd_topology_remove_device() - a KFD node leaves the topology
 * @gpu: the node, freed by the caller next
 *
 * amdgpu calls it for each node before freeing it (kfd_cleanup_nodes():
 * unload, PCI removal, a partition mode change); svmtune_kfd hooks it to
 * forget the node. The test bed keeps no topology (no sysfs nodes), so
 * there is nothing to remove; it is called at the same point of the
 * teardown as on amdgpu.
 *
 * Return: 0.
 */
noinline int kfd_topology_remove_device(struct kfd_node *gpu)
{
	dev_dbg(gpu->adev->dev, "KFD node gpu_id 0x%x removed\n", gpu->id);
	return 0;
}

/*
 * From 7.x on KFD's SVM code makes no eviction fence: a range's BO is
 * evicted through svm_range_evict_svm_bo() (kfdbed_bo.c), and the fences
 * of KFD's other BOs, not emulated, are not needed.
 */
#ifndef KFDBED_HAVE_SVM_BO_EMBEDDED
/*
 * KFD's eviction fence: signalled when KFD lets go of its BO. Asking it to
 * signal (someone wants the BO's memory) schedules KFD's eviction of the
 * SVM BO, which migrates the range to system memory and then signals it.
 */
static const char *kfdbed_kfd_fence_driver_name(struct dma_fence *f)
{
	return "amdgpu_amdkfd_fence";
}

static const char *kfdbed_kfd_fence_timeline_name(struct dma_fence *f)
{
	return container_of(f, struct amdgpu_amdkfd_fence, base)->timeline_name;
}

static bool kfdbed_kfd_fence_enable_signaling(struct dma_fence *f)
{
	struct amdgpu_amdkfd_fence *fence =
		container_of(f, struct amdgpu_amdkfd_fence, base);

	/* true: the fence will be signalled later; false: signal it now. */
	if (dma_fence_is_signaled(f))
		return true;
	if (!fence->svm_bo) {
		kfdbed_warn_unsupported("evicting a process's non-SVM BOs");
		return false;
	}
	/* Scheduled (0): KFD's eviction worker signals the fence when done. */
	return svm_range_schedule_evict_svm_bo(fence) == 0;
}

static void kfdbed_kfd_fence_release(struct dma_fence *f)
{
	struct amdgpu_amdkfd_fence *fence =
		container_of(f, struct amdgpu_amdkfd_fence, base);

	mmdrop(fence->mm);
	kfree_rcu(f, rcu);
}

static atomic_t kfdbed_kfd_fence_seq;

static const struct dma_fence_ops kfdbed_kfd_fence_ops = {
	.get_driver_name = kfdbed_kfd_fence_driver_name,
	.get_timeline_name = kfdbed_kfd_fence_timeline_name,
	.enable_signaling = kfdbed_kfd_fence_enable_signaling,
	.release = kfdbed_kfd_fence_release,
};

/**
 * amdgpu_amdkfd_fence_create() - an eviction fence
 * @context: fence context
 * @mm: the address space the fence belongs to (grabbed)
 * @svm_bo: the SVM BO it protects, or NULL
 *
 * Return: the fence, or NULL.
 */
struct amdgpu_amdkfd_fence *
amdgpu_amdkfd_fence_create(u64 context, struct mm_struct *mm,
			   struct svm_range_bo *svm_bo)
{
	struct amdgpu_amdkfd_fence *fence = kzalloc(sizeof(*fence), GFP_KERNEL);

	if (!fence)
		return NULL;
	mmgrab(mm);
	fence->mm = mm;
	fence->svm_bo = svm_bo;
	get_task_comm(fence->timeline_name, current);
	spin_lock_init(&fence->lock);
	dma_fence_init(&fence->base, &kfdbed_kfd_fence_ops, &fence->lock,
		       context, atomic_inc_return(&kfdbed_kfd_fence_seq));
	return fence;
}

/**
 * to_amdgpu_amdkfd_fence() - a fence as a KFD eviction fence
 * @f: any fence
 *
 * Return: the KFD fence, or NULL when @f is not one.
 */
struct amdgpu_amdkfd_fence *to_amdgpu_amdkfd_fence(struct dma_fence *f)
{
	if (!f || f->ops != &kfdbed_kfd_fence_ops)
		return NULL;
	return container_of(f, struct amdgpu_amdkfd_fence, base);
}
#endif

/* /dev/kfd: KFD's uapi, the part SVM needs. */

static int kfdbed_kfd_open(struct inode *inode, struct file *filep)
{
	struct kfdbed_process *kp;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&kfdbed_process_create_mutex);
	kp = kfdbed_process_get_current();
	if (!kp)
		kp = kfdbed_process_create();
	mutex_unlock(&kfdbed_process_create_mutex);
	if (IS_ERR(kp))
		return PTR_ERR(kp);
	filep->private_data = kp;
	return 0;
}

static int kfdbed_kfd_release(struct inode *inode, struct file *filep)
{
	struct kfdbed_process *kp = filep->private_data;

	kfd_unref_process(&kp->p);
	return 0;
}

/*
 * KFD's ioctl handlers, by KFD's names and prototypes (svmtune_kfd finds
 * kfd_ioctl_get_version by name to check the interface version).
 */
static int kfd_ioctl_get_version(struct file *filep, struct kfd_process *p,
				 void *data)
{
	struct kfd_ioctl_get_version_args *args = data;

	args->major_version = KFD_IOCTL_MAJOR_VERSION;
	args->minor_version = KFD_IOCTL_MINOR_VERSION;
	return 0;
}

static int kfd_ioctl_set_xnack_mode(struct file *filep, struct kfd_process *p,
				    void *data)
{
	struct kfd_ioctl_set_xnack_mode_args *args = data;
	int r = 0;

	/* No user queues exist here, so the mode may always change. */
	mutex_lock(&p->mutex);
	if (args->xnack_enabled < 0)
		args->xnack_enabled = p->xnack_enabled;
	else if (!!args->xnack_enabled != p->xnack_enabled)
		r = svm_range_switch_xnack_reserve_mem(p, args->xnack_enabled);
	mutex_unlock(&p->mutex);
	return r;
}

static int kfd_ioctl_svm(struct file *filep, struct kfd_process *p, void *data)
{
	struct kfd_ioctl_svm_args *args = data;

	if ((args->start_addr & ~PAGE_MASK) || (args->size & ~PAGE_MASK) ||
	    !args->start_addr || !args->size)
		return -EINVAL;
	return svm_ioctl(p, args->op, args->start_addr, args->size, args->nattr,
			 args->attrs);
}

/* SVM's arguments end with the attributes: the size must cover them. */
static int kfdbed_kfd_svm_validate(void *data, unsigned int usize)
{
	struct kfd_ioctl_svm_args *args = data;
	size_t expected = struct_size(args, attrs, args->nattr);

	return expected == SIZE_MAX || usize < expected ? -EINVAL : 0;
}

typedef int kfdbed_kfd_ioctl_t(struct file *filep, struct kfd_process *p,
			       void *data);

/**
 * struct kfdbed_kfd_ioctl_desc - one KFD ioctl
 * @cmd: the command as KFD's uapi defines it
 * @func: its handler
 * @validate: checks the size the caller passed against the contents, or NULL
 */
struct kfdbed_kfd_ioctl_desc {
	unsigned int cmd;
	kfdbed_kfd_ioctl_t *func;
	int (*validate)(void *data, unsigned int usize);
};

static const struct kfdbed_kfd_ioctl_desc kfdbed_kfd_ioctls[] = {
	{ AMDKFD_IOC_GET_VERSION, kfd_ioctl_get_version },
	{ AMDKFD_IOC_SET_XNACK_MODE, kfd_ioctl_set_xnack_mode },
	{ AMDKFD_IOC_SVM, kfd_ioctl_svm, kfdbed_kfd_svm_validate },
};

/*
 * As KFD's dispatcher: the command is known by number; the caller's size
 * may differ from the kernel's (the argument is zero-extended or cut), and
 * the data is copied in and out as the kernel's definition says.
 */
static long kfdbed_kfd_ioctl(struct file *filep, unsigned int cmd,
			     unsigned long arg)
{
	struct kfdbed_process *kp = filep->private_data;
	const struct kfdbed_kfd_ioctl_desc *desc = NULL;
	unsigned int usize = _IOC_SIZE(cmd), asize, i;
	void __user *uarg = (void __user *)arg;
	void *kdata;
	long r;

	for (i = 0; i < ARRAY_SIZE(kfdbed_kfd_ioctls); i++)
		if (_IOC_TYPE(cmd) == AMDKFD_IOCTL_BASE &&
		    _IOC_NR(cmd) == _IOC_NR(kfdbed_kfd_ioctls[i].cmd))
			desc = &kfdbed_kfd_ioctls[i];
	if (!desc)
		return -ENOTTY;
	if (kp->p.lead_thread != current->group_leader)
		return -EBADF;

	asize = max(usize, _IOC_SIZE(desc->cmd));
	kdata = kzalloc(asize, GFP_KERNEL);
	if (!kdata)
		return -ENOMEM;
	if ((desc->cmd & IOC_IN) && copy_from_user(kdata, uarg, usize)) {
		r = -EFAULT;
		goto out;
	}
	if (desc->validate) {
		r = desc->validate(kdata, usize);
		if (r)
			goto out;
	}
	r = desc->func(filep, &kp->p, kdata);
	if ((desc->cmd & IOC_OUT) && copy_to_user(uarg, kdata, usize))
		r = -EFAULT;
out:
	kfree(kdata);
	return r;
}

static const struct file_operations kfdbed_kfd_fops = {
	.owner = THIS_MODULE,
	.open = kfdbed_kfd_open,
	.release = kfdbed_kfd_release,
	.unlocked_ioctl = kfdbed_kfd_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice kfdbed_kfd_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kfd",
	.fops = &kfdbed_kfd_fops,
	.mode = 0600,
};

/**
 * kfdbed_kfd_init() - KFD's side: the process work queue and /dev/kfd
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_kfd_init(void)
{
	int r;

	/* KFD caps the granularity at 0x1b: a larger skew tests nothing more. */
	if (granularity_skew > 0x1b)
		return -EINVAL;
	kfdbed_process_wq = alloc_workqueue("kfdbed_process", WQ_UNBOUND, 0);
	if (!kfdbed_process_wq)
		return -ENOMEM;
	r = misc_register(&kfdbed_kfd_misc);
	if (r)
		destroy_workqueue(kfdbed_process_wq);
	return r;
}

/**
 * kfdbed_kfd_fini() - remove /dev/kfd and every process
 *
 * Processes whose address space outlives the module are unbound from it
 * as its exit would: unpublished, their notifier put, freed.
 */
void kfdbed_kfd_fini(void)
{
	struct kfdbed_process *kp;

	misc_deregister(&kfdbed_kfd_misc);
	for (;;) {
		spin_lock(&kfdbed_process_lock);
		kp = list_first_entry_or_null(&kfdbed_processes,
					      struct kfdbed_process, list);
		spin_unlock(&kfdbed_process_lock);
		if (!kp)
			break;
		cancel_delayed_work_sync(&kp->p.svms.restore_work);
		kfdbed_process_unpublish(kp);
	}
	mmu_notifier_synchronize();
	/* Release works may queue more (none after this: no process left). */
	flush_workqueue(kfdbed_process_wq);
	destroy_workqueue(kfdbed_process_wq);
	ida_destroy(&kfdbed_pasid_ida);
}
