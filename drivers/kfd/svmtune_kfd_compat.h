/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune_kfd: everything that differs between the KFD of Linux 6.1.y,
 * 6.12.y and 7.3.y, in one place. The rest of the module uses only these names.
 *
 * The hooks are probe handlers and read the hooked functions' arguments
 * from the registers (x86-64 SysV: rdi, rsi, rdx, rcx, r8, r9, then the
 * stack), so the argument positions below must match the prototypes in
 * amdkfd/kfd_svm.h and amdkfd/kfd_migrate.h of the supported versions.
 * They are checked against those prototypes at compile time.
 */
#ifndef _SVMTUNE_KFD_COMPAT_H
#define _SVMTUNE_KFD_COMPAT_H

#include <linux/ptrace.h>
#include <linux/swiotlb.h>
#include <linux/types.h>

#include "kfd_priv.h"
#include "kfd_svm.h"
#include "kfd_migrate.h"

/**
 * struct svmtune_kfd_node_info - what svmtune_kfd keeps of a KFD node
 * @gpu_id: KFD's gpu_id of the node (its topology's nodes/<n>/gpu_id)
 * @vram: the node's local memory in bytes, as KFD reports it to user space
 *	(local_mem_info: the partition's share on a partitioned GPU)
 * @apu: the node's GPU is an APU: its "local memory" is system memory
 * @adev: its amdgpu device
 *
 * A KFD node is a GPU or one compute partition of it: struct kfd_node on
 * 6.12, struct kfd_dev (one per GPU) on 6.1. Only this header names those
 * types; svmtune_kfd_nodes.c works from this copy.
 */
struct svmtune_kfd_node_info {
	u32 gpu_id;
	u64 vram;
	bool apu;
	struct amdgpu_device *adev;
};

/* Fill @info; true. The version blocks below call it from their node type. */
static inline bool svmtune_kfd_info_set(struct svmtune_kfd_node_info *info,
					u32 gpu_id,
					const struct kfd_local_mem_info *mem,
					struct amdgpu_device *adev)
{
	info->gpu_id = gpu_id;
	info->vram = mem->local_mem_size_private + mem->local_mem_size_public;
	info->adev = adev;
	info->apu = adev->flags & AMD_IS_APU;
	return true;
}

/* amdgpu.h sets its own message prefix; svmtune_kfd speaks for itself. */
#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifndef CONFIG_X86_64
#error "svmtune_kfd reads hooked arguments from x86-64 registers"
#endif

/*
 * The KFD layout, found in the KFD sources by the top-level Kbuild (the
 * prototypes of the hooked functions and the fields read), not from the
 * kernel's version: 612 for the KFD of 6.12.y (and 7.2.y's), 703 for 7.3.y's,
 * 601 for 6.1.y's.
 *
 * 703 reads what 612 reads: the hooked prototypes, the fields of
 * struct svm_range and struct kfd_node svmtune_kfd uses and the fault
 * path's calls are the same. What changed around them: a range's GPU
 * mappings are a per-GPU bitmap (bitmap_mapped, bitmap_needs_unmap,
 * mapping_done) instead of mapped_to_gpu, checkpoint_ts is atomic, a
 * migration failure other than a fallback ends the fault without mapping
 * (out_migrate_fail), and the range BO is embedded in svm_range_bo.
 */
#if SVMTUNE_KFD_LAYOUT == 612 || SVMTUNE_KFD_LAYOUT == 703
/*
 * 6.12: GPU and CPU faults migrate a granularity-aligned window
 * [start, last] of the range, passed to the migration functions; each
 * process has svms.default_granularity for the ranges KFD creates; a range
 * counts its pages in VRAM (vram_pages).
 */
#define SVMTUNE_KFD_HAS_WINDOW			1
#define SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY	1
#define SVMTUNE_KFD_HAS_VRAM_PAGES		1

/* svm_range_restore_pages(adev, pasid, vmid, node_id, addr, ts, write_fault) */
#define SVMTUNE_KFD_RESTORE_ARG_PASID		1
#define SVMTUNE_KFD_RESTORE_ARG_ADDR		4
#define SVMTUNE_KFD_RESTORE_ARG_TS		5
#define SVMTUNE_KFD_RESTORE_ARG_WRITE		6
/* svm_migrate_to_vram(prange, best_loc, start, last, mm, trigger) */
#define SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC	1
#define SVMTUNE_KFD_TO_VRAM_ARG_START		2
#define SVMTUNE_KFD_TO_VRAM_ARG_LAST		3
#define SVMTUNE_KFD_TO_VRAM_ARG_MM		4
#define SVMTUNE_KFD_TO_VRAM_ARG_TRIGGER		5
/*
 * Since 6.10 a user BO's AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS is a wish:
 * amdgpu_bo_placement_from_domain() makes TTM_PL_FLAG_CONTIGUOUS of it for
 * kernel BOs only, and amdgpu_vram_mgr_new() tries one contiguous run
 * and, on -ENOSPC, allocates as without the flag.
 */
#define SVMTUNE_KFD_HAS_CONTIGUOUS_WISH		1
/*
 * svm_range_vram_node_new() makes a range's VRAM BO with
 * amdgpu_bo_create_user(adev, bp, ubo_ptr) in 6.12 and, since the BO is
 * embedded in struct svm_range_bo (703), with amdgpu_bo_create(adev, bp,
 * bo_ptr): the same parameters, bp second.
 */
#if SVMTUNE_KFD_LAYOUT == 703
#define SVMTUNE_KFD_BO_CREATE			"amdgpu_bo_create"
#else
#define SVMTUNE_KFD_BO_CREATE			"amdgpu_bo_create_user"
#endif
#define SVMTUNE_KFD_BO_CREATE_ARG_BP		1
/* svm_migrate_vram_to_ram(prange, mm, start, last, trigger, fault_page) */
#define SVMTUNE_KFD_TO_RAM_ARG_START		2
#define SVMTUNE_KFD_TO_RAM_ARG_LAST		3
#define SVMTUNE_KFD_TO_RAM_ARG_TRIGGER		4

typedef int (svmtune_kfd_restore_pages_t)(struct amdgpu_device *adev,
					  unsigned int pasid, uint32_t vmid,
					  uint32_t node_id, uint64_t addr,
					  uint64_t ts, bool write_fault);
typedef int (svmtune_kfd_to_vram_t)(struct svm_range *prange,
				    uint32_t best_loc, unsigned long start,
				    unsigned long last, struct mm_struct *mm,
				    uint32_t trigger);
typedef int (svmtune_kfd_to_ram_t)(struct svm_range *prange,
				   struct mm_struct *mm, unsigned long start,
				   unsigned long last, uint32_t trigger,
				   struct page *fault_page);

typedef int (svmtune_kfd_topology_node_t)(struct kfd_node *gpu);

/* The VRAM pagemap of @adev's device-private pages: one per GPU. */
static inline const struct dev_pagemap *svmtune_kfd_vram_pgmap(struct amdgpu_device *adev)
{
	return &adev->kfd.pgmap;
}

/*
 * Whether @phys is in @dev's swiotlb bounce buffers (the default pool:
 * swiotlb_find_pool()'s search of dynamic pools is not exported).
 */
static inline bool svmtune_kfd_bounce_buffer(struct device *dev, phys_addr_t phys)
{
#ifdef CONFIG_SWIOTLB
	struct io_tlb_mem *mem = dev->dma_io_tlb_mem;

	return mem && phys >= mem->defpool.start && phys < mem->defpool.end;
#else
	return false;
#endif
}

/*
 * amdgpu_vm_update_range(adev, vm, immediate, unlocked, flush_tlb,
 *	allow_override, sync, start, last, flags, offset, vram_base, res,
 *	pages_addr, fence)
 */
#define SVMTUNE_KFD_UPDATE_ARG_START		7
#define SVMTUNE_KFD_UPDATE_ARG_LAST		8
#define SVMTUNE_KFD_UPDATE_ARG_FLAGS		9
#define SVMTUNE_KFD_UPDATE_ARG_OFFSET		10
#define SVMTUNE_KFD_UPDATE_ARG_RES		12
#define SVMTUNE_KFD_UPDATE_ARG_PAGES_ADDR	13
typedef int (svmtune_kfd_update_range_t)(struct amdgpu_device *adev,
					 struct amdgpu_vm *vm, bool immediate,
					 bool unlocked, bool flush_tlb,
					 bool allow_override,
					 struct amdgpu_sync *sync,
					 uint64_t start, uint64_t last,
					 uint64_t flags, uint64_t offset,
					 uint64_t vram_base,
					 struct ttm_resource *res,
					 dma_addr_t *pages_addr,
					 struct dma_fence **fence);

/* Copy what svmtune_kfd keeps of @node, a KFD node (or NULL: false). */
static inline bool svmtune_kfd_node_fill(const struct kfd_node *node,
					 struct svmtune_kfd_node_info *info)
{
	return node && svmtune_kfd_info_set(info, node->id, &node->local_mem_info,
					    node->adev);
}

/*
 * The node of @adev a GPU fault came from, at the entry of
 * svm_range_restore_pages(): the interrupt's node_id and vmid pick the
 * partition, as KFD itself does next (kfd_node_by_irq_ids(), inline).
 */
static inline const struct kfd_node *svmtune_kfd_fault_node(struct amdgpu_device *adev,
							    struct pt_regs *regs)
{
	return kfd_node_by_irq_ids(adev, (u32)regs_get_kernel_argument(regs, 3),
				   (u32)regs_get_kernel_argument(regs, 2));
}

#elif SVMTUNE_KFD_LAYOUT == 601
/*
 * 6.1: a GPU fault migrates the whole range; the CPU-fault path splits the
 * range by its granularity before migrating it; new ranges always get
 * granularity 9. There is no window argument to adjust.
 */
#define SVMTUNE_KFD_HAS_WINDOW			0
#define SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY	0
#define SVMTUNE_KFD_HAS_VRAM_PAGES		0
/*
 * amdgpu_bo_placement_from_domain() makes AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS
 * a hard TTM_PL_FLAG_CONTIGUOUS for every BO: with no contiguous run free
 * the BO fails and KFD leaves the range in system memory.
 */
#define SVMTUNE_KFD_HAS_CONTIGUOUS_WISH		0

/* svm_range_restore_pages(adev, pasid, addr, write_fault) */
#define SVMTUNE_KFD_RESTORE_ARG_ADDR		2
#define SVMTUNE_KFD_RESTORE_ARG_WRITE		3
/* svm_migrate_to_vram(prange, best_loc, mm, trigger) */
#define SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC	1
#define SVMTUNE_KFD_TO_VRAM_ARG_MM		2
#define SVMTUNE_KFD_TO_VRAM_ARG_TRIGGER		3
/* svm_migrate_vram_to_ram(prange, mm, trigger, fault_page) */
#define SVMTUNE_KFD_TO_RAM_ARG_TRIGGER		2

typedef int (svmtune_kfd_restore_pages_t)(struct amdgpu_device *adev,
					  unsigned int pasid, uint64_t addr,
					  bool write_fault);
typedef int (svmtune_kfd_to_vram_t)(struct svm_range *prange,
				    uint32_t best_loc, struct mm_struct *mm,
				    uint32_t trigger);
typedef int (svmtune_kfd_to_ram_t)(struct svm_range *prange,
				   struct mm_struct *mm, uint32_t trigger,
				   struct page *fault_page);

typedef int (svmtune_kfd_topology_node_t)(struct kfd_dev *gpu);

/* The VRAM pagemap of @adev's device-private pages: its KFD device's. */
static inline const struct dev_pagemap *svmtune_kfd_vram_pgmap(struct amdgpu_device *adev)
{
	struct kfd_dev *kfd = READ_ONCE(adev->kfd.dev);

	return kfd ? &kfd->pgmap : NULL;
}

/* Whether @phys is in @dev's swiotlb bounce buffers. */
static inline bool svmtune_kfd_bounce_buffer(struct device *dev, phys_addr_t phys)
{
	return is_swiotlb_buffer(dev, phys);
}

/*
 * amdgpu_vm_update_range(adev, vm, immediate, unlocked, flush_tlb, resv,
 *	start, last, flags, offset, vram_base, res, pages_addr, fence)
 */
#define SVMTUNE_KFD_UPDATE_ARG_START		6
#define SVMTUNE_KFD_UPDATE_ARG_LAST		7
#define SVMTUNE_KFD_UPDATE_ARG_FLAGS		8
#define SVMTUNE_KFD_UPDATE_ARG_OFFSET		9
#define SVMTUNE_KFD_UPDATE_ARG_RES		11
#define SVMTUNE_KFD_UPDATE_ARG_PAGES_ADDR	12
typedef int (svmtune_kfd_update_range_t)(struct amdgpu_device *adev,
					 struct amdgpu_vm *vm, bool immediate,
					 bool unlocked, bool flush_tlb,
					 struct dma_resv *resv,
					 uint64_t start, uint64_t last,
					 uint64_t flags, uint64_t offset,
					 uint64_t vram_base,
					 struct ttm_resource *res,
					 dma_addr_t *pages_addr,
					 struct dma_fence **fence);

/* Copy what svmtune_kfd keeps of @kfd, a KFD device (or NULL: false). */
static inline bool svmtune_kfd_node_fill(const struct kfd_dev *kfd,
					 struct svmtune_kfd_node_info *info)
{
	return kfd && svmtune_kfd_info_set(info, kfd->id, &kfd->local_mem_info,
					   kfd->adev);
}

/* The device of @adev a GPU fault came from: 6.1 has no partitions. */
static inline const struct kfd_dev *svmtune_kfd_fault_node(struct amdgpu_device *adev,
							   struct pt_regs *regs)
{
	return adev->kfd.dev;
}

#else
#error "svmtune_kfd knows the KFD layouts of Linux 6.1.y, 6.12.y and 7.3.y only"
#endif

/*
 * The prototypes above are the ones the argument positions were read
 * from; a KFD whose declarations differ fails to build here instead of
 * reading the wrong registers at run time.
 */
static inline void svmtune_kfd_check_prototypes(void)
{
	svmtune_kfd_restore_pages_t *restore __maybe_unused = svm_range_restore_pages;
	svmtune_kfd_to_vram_t *to_vram __maybe_unused = svm_migrate_to_vram;
	svmtune_kfd_to_ram_t *to_ram __maybe_unused = svm_migrate_vram_to_ram;
	svmtune_kfd_topology_node_t *add __maybe_unused = kfd_topology_add_device;
	svmtune_kfd_topology_node_t *remove __maybe_unused = kfd_topology_remove_device;
	svmtune_kfd_update_range_t *update __maybe_unused = amdgpu_vm_update_range;
#if SVMTUNE_KFD_HAS_CONTIGUOUS_WISH && SVMTUNE_KFD_LAYOUT == 703
	int (*bo_create)(struct amdgpu_device *adev,
			 struct amdgpu_bo_param *bp,
			 struct amdgpu_bo **bo_ptr) __maybe_unused =
		amdgpu_bo_create;
#elif SVMTUNE_KFD_HAS_CONTIGUOUS_WISH
	int (*bo_create_user)(struct amdgpu_device *adev,
			      struct amdgpu_bo_param *bp,
			      struct amdgpu_bo_user **ubo_ptr) __maybe_unused =
		amdgpu_bo_create_user;
#endif
}

/* The @n-th (0-based) argument of the function whose entry @regs is at. */
static inline unsigned long svmtune_kfd_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/* Change the @n-th register argument before the hooked function runs. */
static inline void svmtune_kfd_set_arg(struct pt_regs *regs, unsigned int n,
				       unsigned long val)
{
	switch (n) {
	case 0:
		regs->di = val;
		break;
	case 1:
		regs->si = val;
		break;
	case 2:
		regs->dx = val;
		break;
	case 3:
		regs->cx = val;
		break;
	case 4:
		regs->r8 = val;
		break;
	case 5:
		regs->r9 = val;
		break;
	}
}

/*
 * The node a GPU fault came from, at the entry of svm_range_restore_pages(),
 * once amdgpu's KFD finished its init (kgd2kfd_device_init() sets
 * init_complete last): false before, or if there is none.
 */
static inline bool svmtune_kfd_restore_node(struct pt_regs *regs,
					    struct svmtune_kfd_node_info *info)
{
	struct amdgpu_device *adev = (struct amdgpu_device *)regs_get_kernel_argument(regs, 0);

	if (!adev || !adev->kfd.dev || !READ_ONCE(adev->kfd.dev->init_complete))
		return false;
	return svmtune_kfd_node_fill(svmtune_kfd_fault_node(adev, regs), info);
}

/*
 * The node of @prange's process whose user gpu_id is @gpu_id (KFD's
 * actual_loc, preferred_loc and best_loc are user gpu_ids): false if none.
 * p->pdds[] is complete before the process's SVM state exists and never
 * shrinks while it does; the caller is in a KFD path on @prange, which
 * walks the same table next (svm_range_get_node_by_id()).
 */
static inline bool svmtune_kfd_range_node(struct svm_range *prange, u32 gpu_id,
					  struct svmtune_kfd_node_info *info)
{
	struct kfd_process *p = container_of(prange->svms, struct kfd_process, svms);
	u32 i;

	if (!gpu_id)
		return false;
	for (i = 0; i < p->n_pdds; i++)
		if (p->pdds[i]->user_gpu_id == gpu_id)
			return svmtune_kfd_node_fill(p->pdds[i]->dev, info);
	return false;
}

/* The node of @p's @i-th per-device data, i < p->n_pdds. */
static inline bool svmtune_kfd_process_node(struct kfd_process *p, u32 i,
					    struct svmtune_kfd_node_info *info)
{
	return svmtune_kfd_node_fill(p->pdds[i]->dev, info);
}

/* The node passed as the @n-th argument of the function at @regs' entry. */
static inline bool svmtune_kfd_arg_node(struct pt_regs *regs, unsigned int n,
					struct svmtune_kfd_node_info *info)
{
	return svmtune_kfd_node_fill((void *)regs_get_kernel_argument(regs, n), info);
}

#if SVMTUNE_KFD_HAS_VRAM_PAGES
static inline u64 svmtune_kfd_vram_pages(struct svm_range *prange)
{
	return READ_ONCE(prange->vram_pages);
}
#endif

#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
static inline u8 svmtune_kfd_default_granularity(struct kfd_process *p)
{
	return READ_ONCE(p->svms.default_granularity);
}

static inline void svmtune_kfd_set_default_granularity(struct kfd_process *p,
						       u8 granularity)
{
	WRITE_ONCE(p->svms.default_granularity, granularity);
}
#endif

#endif /* _SVMTUNE_KFD_COMPAT_H */
