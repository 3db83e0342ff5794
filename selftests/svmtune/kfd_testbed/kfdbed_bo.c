// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: buffer objects. A real TTM device per GPU (ttm_device_init()
 * on the emulated drm device) with a VRAM resource manager of our own on
 * the kernel's buddy allocator (gpu_buddy), so KFD's BOs are TTM BOs with
 * reservation objects, LRU and fences, and their VRAM resources are lists
 * of buddy blocks as amdgpu_res_first() walks them.
 */
#include <linux/dma-resv.h>
#include <linux/gpu_buddy.h>
#include <linux/sizes.h>

#include <drm/drm_gem.h>
#ifdef KFDBED_HAVE_TTM_ALLOC_FLAGS
#include <drm/ttm/ttm_allocation.h>
#endif
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

#include "kfdbed.h"

static inline struct amdgpu_vram_mgr *
to_kfdbed_vram_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct amdgpu_vram_mgr, manager);
}

static inline struct kfdbed_gpu *kfdbed_gpu_of_bdev(struct ttm_device *bdev)
{
	return kfdbed_gpu_from_adev(
		container_of(bdev, struct amdgpu_device, mman.bdev));
}

/*
 * The buddy allocation amdgpu_vram_mgr_new() makes for @size bytes of
 * [@start, @end): blocks of at least 2 MiB (pages_per_block) when the size
 * is a multiple of 2 MiB, else of the BO's alignment or a page; a BO that
 * asks for contiguous VRAM is tried as one run first and, unless its
 * placement demands one (kernel BOs), as 2 MiB blocks after. There is no
 * retry with smaller blocks: -ENOSPC goes back to TTM, which evicts
 * (amdgpu_vram_mgr.c:528-565).
 */
static int kfdbed_vram_alloc(struct amdgpu_vram_mgr *mgr,
			     struct ttm_buffer_object *tbo,
			     const struct ttm_place *place, u64 start, u64 end,
			     u64 size, unsigned long flags,
			     struct list_head *blocks)
{
	u64 per_block = flags & GPU_BUDDY_CONTIGUOUS_ALLOCATION ?
				U64_MAX :
				max_t(u64, SZ_2M,
				      (u64)tbo->page_alignment << PAGE_SHIFT);
	u64 min_block;
	int r;

	for (;;) {
		min_block = tbo->page_alignment ?
				    (u64)tbo->page_alignment << PAGE_SHIFT :
				    PAGE_SIZE;
		if (per_block != U64_MAX && size >= per_block &&
		    !(size & (per_block - 1)))
			min_block = per_block;
		r = gpu_buddy_alloc_blocks(&mgr->mm, start, end, size,
					   min_block, blocks, flags);
		if (r == -ENOSPC && per_block == U64_MAX &&
		    !(place->flags & TTM_PL_FLAG_CONTIGUOUS)) {
			flags &= ~GPU_BUDDY_CONTIGUOUS_ALLOCATION;
			per_block =
				max_t(u64, SZ_2M,
				      (u64)tbo->page_alignment << PAGE_SHIFT);
			continue;
		}
		return r;
	}
}

/**
 * kfdbed_vram_mgr_new() - allocate VRAM for a BO from the buddy allocator
 * @man: the VRAM manager
 * @tbo: the BO
 * @place: where (fpfn/lpfn limits, contiguous and top-down flags)
 * @res: out: the resource, a list of buddy blocks
 *
 * As amdgpu's VRAM manager of 6.12 (amdgpu_vram_mgr_new()): a BO that is
 * not the kernel's fails at once when VRAM in use, this BO included
 * (ttm_resource_init() counts it), is over all of VRAM but
 * AMDGPU_VM_RESERVED_VRAM (8 MiB kept for page tables); top-down
 * placements allocate from the end of VRAM; blocks as
 * kfdbed_vram_alloc() takes them.
 *
 * Return: 0, or -ENOSPC when VRAM is full (TTM may then evict).
 */
static int kfdbed_vram_mgr_new(struct ttm_resource_manager *man,
			       struct ttm_buffer_object *tbo,
			       const struct ttm_place *place,
			       struct ttm_resource **res)
{
	struct amdgpu_vram_mgr *mgr = to_kfdbed_vram_mgr(man);
	struct amdgpu_bo *abo = ttm_to_amdgpu_bo(tbo);
	struct amdgpu_device *adev = amdgpu_ttm_adev(tbo->bdev);
	struct amdgpu_vram_mgr_resource *vres;
	u64 size = tbo->base.size, start, end, max_bytes;
	unsigned long flags = 0;
	struct gpu_buddy_block *block;
	int r;

	max_bytes = adev->gmc.mc_vram_size;
	if (tbo->type != ttm_bo_type_kernel)
		max_bytes -= AMDGPU_VM_RESERVED_VRAM;

	vres = kzalloc(sizeof(*vres), GFP_KERNEL);
	if (!vres)
		return -ENOMEM;
	ttm_resource_init(tbo, place, &vres->base);
	if (ttm_resource_manager_usage(man) > max_bytes) {
		r = -ENOSPC;
		goto out_fini;
	}
	INIT_LIST_HEAD(&vres->blocks);

	start = (u64)place->fpfn << PAGE_SHIFT;
	end = place->lpfn ? (u64)place->lpfn << PAGE_SHIFT : man->size;
	if (place->flags & TTM_PL_FLAG_TOPDOWN)
		flags |= GPU_BUDDY_TOPDOWN_ALLOCATION;
	if (abo->flags & AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS)
		flags |= GPU_BUDDY_CONTIGUOUS_ALLOCATION;
	if (start || end != man->size)
		flags |= GPU_BUDDY_RANGE_ALLOCATION;

	mutex_lock(&mgr->lock);
	r = kfdbed_vram_alloc(mgr, tbo, place, start, end, size, flags,
			      &vres->blocks);
	mutex_unlock(&mgr->lock);
	if (r) {
		r = r == -ENOSPC || r == -ENOMEM ? -ENOSPC : r;
		goto out_fini;
	}

	/* The start of the first block: meaningful for contiguous BOs. */
	block = list_first_entry(&vres->blocks, struct gpu_buddy_block, link);
	vres->base.start = amdgpu_vram_mgr_block_start(block) >> PAGE_SHIFT;
	if (list_is_singular(&vres->blocks))
		vres->base.placement |= TTM_PL_FLAG_CONTIGUOUS;
	atomic64_add(size, &mgr->vis_usage);
	*res = &vres->base;
	return 0;

out_fini:
	ttm_resource_fini(man, &vres->base);
	kfree(vres);
	return r;
}

static void kfdbed_vram_mgr_del(struct ttm_resource_manager *man,
				struct ttm_resource *res)
{
	struct amdgpu_vram_mgr_resource *vres =
		to_amdgpu_vram_mgr_resource(res);
	struct amdgpu_vram_mgr *mgr = to_kfdbed_vram_mgr(man);

	mutex_lock(&mgr->lock);
	gpu_buddy_free_list(&mgr->mm, &vres->blocks, 0);
	mutex_unlock(&mgr->lock);
	atomic64_sub(res->size, &mgr->vis_usage);
	ttm_resource_fini(man, res);
	kfree(vres);
}

static const struct ttm_resource_manager_func kfdbed_vram_mgr_func = {
	.alloc = kfdbed_vram_mgr_new,
	.free = kfdbed_vram_mgr_del,
};

/* TTM device callbacks: VRAM only, no GTT, no CPU mapping of VRAM. */

static struct ttm_tt *kfdbed_ttm_tt_create(struct ttm_buffer_object *tbo,
					   u32 page_flags)
{
	struct ttm_tt *tt = kzalloc(sizeof(*tt), GFP_KERNEL);

	if (!tt)
		return NULL;
	if (ttm_tt_init(tt, tbo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}
	return tt;
}

static void kfdbed_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

#ifdef KFDBED_HAVE_SVM_BO_EMBEDDED
/*
 * What TTM may evict when VRAM is full: KFD's SVM BOs (created
 * DISCARDABLE, with KFD's svm_range_bo_destroy() as their destroy
 * callback). As amdgpu_ttm_bo_eviction_valuable() of 7.3 (amdgpu_ttm.c),
 * the SVM BO's pages are migrated to system memory synchronously, here,
 * with the BO reserved: svm_range_evict_svm_bo() only trylocks the mmap
 * lock and the ranges' migrate_mutex, and on contention (or any failure)
 * the BO is skipped. Then, as there, a KFD eviction fence of the
 * allocating task's address space would keep the BO (none exist here:
 * KFD's SVM code makes none since the BO is embedded, and KFD's non-SVM
 * BOs are not emulated), and TTM's own rule decides; the BO gets no
 * placement and TTM guts it. Other BOs (page directories, the GART table)
 * are not evicted: moving their contents is not emulated.
 */
static bool kfdbed_eviction_valuable(struct ttm_buffer_object *tbo,
				     const struct ttm_place *place)
{
	struct amdgpu_bo *abo = ttm_to_amdgpu_bo(tbo);

	if (!(abo->flags & AMDGPU_GEM_CREATE_DISCARDABLE))
		return false;
	if (tbo->destroy == &svm_range_bo_destroy &&
	    svm_range_evict_svm_bo(abo) < 0)
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}
#else
/*
 * What TTM may evict when VRAM is full: KFD's SVM BOs (created
 * DISCARDABLE). They get no placement (their contents are not kept), so
 * TTM waits for their fences first: waiting on KFD's eviction fence makes
 * KFD migrate the range's pages to system memory
 * (svm_range_evict_svm_bo_worker) and signal it; then TTM frees the VRAM.
 * As amdgpu_ttm_bo_eviction_valuable() (amdgpu_ttm.c:1450-1459), a BO
 * with a KFD eviction fence of the allocating task's address space is not
 * evicted unless the placement must be contiguous; but
 * amdkfd_fence_check_mm() (amdgpu_amdkfd_fence.c:169-180) says no for
 * every SVM BO's fence ("svm bo, which support vram overcommitment"): a
 * process's SVM ranges are evicted for its own, as for anyone's. Only
 * KFD's non-SVM BOs, not emulated, are kept. Other BOs (page directories,
 * the GART table) are not evicted: moving their contents is not emulated.
 */
static bool kfdbed_eviction_valuable(struct ttm_buffer_object *tbo,
				     const struct ttm_place *place)
{
	struct dma_resv_iter cursor;
	struct dma_fence *f;

	if (!(ttm_to_amdgpu_bo(tbo)->flags & AMDGPU_GEM_CREATE_DISCARDABLE))
		return false;
	dma_resv_for_each_fence(&cursor, tbo->base.resv,
				DMA_RESV_USAGE_BOOKKEEP, f) {
		struct amdgpu_amdkfd_fence *kf = to_amdgpu_amdkfd_fence(f);

		if (kf && kf->mm == current->mm && !kf->svm_bo &&
		    !(place->flags & TTM_PL_FLAG_CONTIGUOUS))
			return false;
	}
	return ttm_bo_eviction_valuable(tbo, place);
}
#endif

static void kfdbed_evict_flags(struct ttm_buffer_object *tbo,
			       struct ttm_placement *placement)
{
	placement->num_placement = 0;
}

/**
 * kfdbed_bo_move() - TTM's move callback
 * @tbo: the BO
 * @evict: an eviction
 * @ctx: TTM's context
 * @new_mem: where to
 * @hop: unused
 *
 * A new BO takes its first resource as is (VRAM contents are cleared,
 * when asked, by SDMA after creation). Moving existing contents between
 * domains is not emulated yet.
 *
 * Return: 0, or -EOPNOTSUPP for a move with contents.
 */
static int kfdbed_bo_move(struct ttm_buffer_object *tbo, bool evict,
			  struct ttm_operation_ctx *ctx,
			  struct ttm_resource *new_mem, struct ttm_place *hop)
{
	if (!tbo->resource || tbo->resource->mem_type == TTM_PL_SYSTEM) {
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}
	kfdbed_warn_unsupported("moving a BO with contents (TTM move)");
	return -EOPNOTSUPP;
}

static struct ttm_device_funcs kfdbed_ttm_funcs = {
	.ttm_tt_create = kfdbed_ttm_tt_create,
	.ttm_tt_destroy = kfdbed_ttm_tt_destroy,
	.eviction_valuable = kfdbed_eviction_valuable,
	.evict_flags = kfdbed_evict_flags,
	.move = kfdbed_bo_move,
};

/*
 * The last reference to a BO is gone: as amdgpu_gem_object_free(), drop
 * TTM's, which ends in the BO's destroy callback (ours, or KFD's
 * svm_range_bo_destroy() for an SVM BO of 7.x), at once or from TTM's
 * delayed delete once its fences signal. The BO no longer counts as
 * alive: kfdbed_bo_fini() waits for TTM's delayed deletes after.
 */
static void kfdbed_gem_free(struct drm_gem_object *gobj)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(gobj);
	struct kfdbed_gpu *gpu = kfdbed_gpu_of_bdev(bo->tbo.bdev);

#ifdef KFDBED_HAVE_TTM_BO_FINI
	ttm_bo_fini(&bo->tbo);
#else
	ttm_bo_put(&bo->tbo);
#endif
	atomic_dec(&gpu->bo_count);
	wake_up_all(&gpu->bo_wait);
}

static const struct drm_gem_object_funcs kfdbed_gem_funcs = {
	.free = kfdbed_gem_free,
};

/* TTM's destroy callback of the BOs made without one (amdgpu_bo_destroy). */
static void kfdbed_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct amdgpu_bo *bo = ttm_to_amdgpu_bo(tbo);

	drm_gem_object_release(&bo->tbo.base);
	kvfree(bo);
}

/**
 * amdgpu_bo_placement_from_domain() - TTM placements for amdgpu domains
 * @abo: the BO
 * @domain: AMDGPU_GEM_DOMAIN_* mask
 *
 * VRAM maps to TTM_PL_VRAM, GTT to TTM_PL_TT
 * (no manager here: such placements are skipped by TTM), CPU to
 * TTM_PL_SYSTEM, nothing to system memory. As in 6.12, only a kernel BO
 * with AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS must be contiguous (amdgpu makes
 * its kernel BOs so when it pins them); for a user BO the flag is a wish
 * the VRAM manager tries first (kfdbed_vram_mgr_new()).
 */
void amdgpu_bo_placement_from_domain(struct amdgpu_bo *abo, u32 domain)
{
	struct ttm_place *places = abo->placements;
	unsigned int c = 0;

	if (domain & AMDGPU_GEM_DOMAIN_VRAM) {
		places[c] = (struct ttm_place){ .mem_type = TTM_PL_VRAM };
		/* No CPU access wanted: from the top (amdgpu_object.c:133-136). */
		if (!(abo->flags & AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED))
			places[c].flags |= TTM_PL_FLAG_TOPDOWN;
		if (abo->tbo.type == ttm_bo_type_kernel &&
		    (abo->flags & AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS))
			places[c].flags |= TTM_PL_FLAG_CONTIGUOUS;
		c++;
	}
	if (domain & AMDGPU_GEM_DOMAIN_GTT)
		places[c++] = (struct ttm_place){ .mem_type = TTM_PL_TT };
	if ((domain & AMDGPU_GEM_DOMAIN_CPU) || !c)
		places[c++] = (struct ttm_place){ .mem_type = TTM_PL_SYSTEM };

	abo->placement.num_placement = c;
	abo->placement.placement = places;
}

/**
 * amdgpu_bo_create() - create a BO
 * @adev: the device
 * @bp: parameters; @bp->bo_ptr_size bytes are allocated (a structure that
 *	embeds the BO, as KFD's struct svm_range_bo of 7.x), and
 *	@bp->destroy, when set, is TTM's destroy callback (KFD's
 *	svm_range_bo_destroy() then frees that structure)
 * @bo_ptr: out: the BO (unreserved unless @bp->resv was given)
 *
 * As amdgpu_bo_create() (amdgpu_object.c): a GEM object on the emulated
 * drm device, whose reference is the BO's (amdgpu_bo_unref()), a TTM BO
 * validated into its domain, and for AMDGPU_GEM_CREATE_VRAM_CLEARED a fill
 * job on SDMA whose fence goes into the reservation object (KERNEL usage).
 *
 * Return: 0 or a negative errno.
 */
int amdgpu_bo_create(struct amdgpu_device *adev, struct amdgpu_bo_param *bp,
		     struct amdgpu_bo **bo_ptr)
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	struct ttm_operation_ctx ctx = {
		.interruptible = false,
		.no_wait_gpu = bp->no_wait_gpu,
	};
	unsigned long size = ALIGN(bp->size, PAGE_SIZE);
	size_t struct_size =
		max_t(size_t, bp->bo_ptr_size, sizeof(struct amdgpu_bo));
	struct amdgpu_bo *bo;
	int r;

	if (!size)
		return -EINVAL;
	bo = kvzalloc(struct_size, GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	drm_gem_private_object_init(adev_to_drm(adev), &bo->tbo.base, size);
	bo->tbo.base.funcs = &kfdbed_gem_funcs;
	bo->preferred_domains = bp->preferred_domain ?: bp->domain;
	bo->allowed_domains = bo->preferred_domains;
	bo->flags = bp->flags;
	bo->xcp_id = bp->xcp_id_plus1 ? bp->xcp_id_plus1 - 1 : 0;
	bo->tbo.bdev = &adev->mman.bdev;
	bo->tbo.type = bp->type; /* ttm_bo_init_reserved() sets it too */
	amdgpu_bo_placement_from_domain(bo, bp->domain);

	atomic_inc(&gpu->bo_count);
	/*
	 * On failure TTM drops the BO, which ends in its destroy callback
	 * without the GEM object's free: it counts as gone here.
	 */
	r = ttm_bo_init_reserved(&adev->mman.bdev, &bo->tbo, bp->type,
				 &bo->placement,
				 ALIGN(bp->byte_align, PAGE_SIZE) >> PAGE_SHIFT,
				 &ctx, NULL, bp->resv,
				 bp->destroy ?: kfdbed_bo_destroy);
	if (r) {
		atomic_dec(&gpu->bo_count);
		wake_up_all(&gpu->bo_wait);
		return r;
	}

	if ((bp->flags & AMDGPU_GEM_CREATE_VRAM_CLEARED) &&
	    bo->tbo.resource->mem_type == TTM_PL_VRAM) {
		struct amdgpu_vram_mgr_resource *vres =
			to_amdgpu_vram_mgr_resource(bo->tbo.resource);
		struct gpu_buddy_block *block;
		struct dma_fence *fence = NULL;

		list_for_each_entry(block, &vres->blocks, link) {
			struct dma_fence *next;

			r = kfdbed_sdma_fill(
				gpu,
				adev->gmc.vram_start +
					amdgpu_vram_mgr_block_start(block),
				amdgpu_vram_mgr_block_size(block), 0, &next);
			if (r)
				break;
			dma_fence_put(fence);
			fence = next;
		}
		if (!r && fence)
			r = dma_resv_reserve_fences(bo->tbo.base.resv, 1);
		if (!r && fence)
			dma_resv_add_fence(bo->tbo.base.resv, fence,
					   DMA_RESV_USAGE_KERNEL);
		if (fence && r)
			dma_fence_wait(fence, false);
		dma_fence_put(fence);
		if (r) {
			if (!bp->resv)
				dma_resv_unlock(bo->tbo.base.resv);
			amdgpu_bo_unref(&bo);
			return r;
		}
	}

	if (!bp->resv)
		amdgpu_bo_unreserve(bo);
	*bo_ptr = bo;
	return 0;
}

/**
 * amdgpu_bo_create_user() - create a BO with user metadata space
 * @adev: the device
 * @bp: parameters (domain, flags, size, alignment, type, resv)
 * @ubo_ptr: out: the BO
 *
 * Return: 0 or a negative errno.
 */
int amdgpu_bo_create_user(struct amdgpu_device *adev,
			  struct amdgpu_bo_param *bp,
			  struct amdgpu_bo_user **ubo_ptr)
{
	struct amdgpu_bo *bo;
	int r;

	bp->bo_ptr_size = sizeof(struct amdgpu_bo_user);
	r = amdgpu_bo_create(adev, bp, &bo);
	if (r)
		return r;
	*ubo_ptr = to_amdgpu_bo_user(bo);
	return 0;
}

/**
 * kfdbed_bo_create_kernel() - a pinned VRAM BO for the emulated hardware
 * @gpu: the GPU
 * @size: bytes
 * @contiguous: one VRAM run
 * @bo_ptr: out: the BO
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_bo_create_kernel(struct kfdbed_gpu *gpu, unsigned long size,
			    bool contiguous, struct amdgpu_bo **bo_ptr)
{
	struct amdgpu_bo_param bp = {
		.size = size,
		.byte_align = PAGE_SIZE,
		.domain = AMDGPU_GEM_DOMAIN_VRAM,
		.flags = AMDGPU_GEM_CREATE_NO_CPU_ACCESS |
			 (contiguous ? AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS : 0) |
			 AMDGPU_GEM_CREATE_VRAM_CLEARED,
		.type = ttm_bo_type_kernel,
		.bo_ptr_size = sizeof(struct amdgpu_bo),
	};
	struct amdgpu_bo *bo;
	long t;
	int r;

	r = amdgpu_bo_create(gpu->adev, &bp, &bo);
	if (r)
		return r;
	r = amdgpu_bo_reserve(bo, true);
	if (r) {
		amdgpu_bo_unref(&bo);
		return r;
	}
	/* Wait for the clear before the hardware uses it. */
	t = dma_resv_wait_timeout(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
				  false, MAX_SCHEDULE_TIMEOUT);
	if (t < 0) {
		amdgpu_bo_unreserve(bo);
		amdgpu_bo_unref(&bo);
		return t;
	}
	ttm_bo_pin(&bo->tbo);
	/* As amdgpu_bo_pin(): pinned VRAM is out of KFD's limit. */
	atomic64_add(amdgpu_bo_size(bo), &gpu->adev->vram_pin_size);
	amdgpu_bo_unreserve(bo);
	*bo_ptr = bo;
	return 0;
}

/**
 * kfdbed_bo_create_pd() - a VM's root page directory BO
 * @gpu: the GPU
 * @bo_ptr: out: the BO, one page of VRAM, not pinned
 *
 * The emulated page table lives in kernel memory (kfdbed_vm.c); the root
 * BO is what KFD reserves to lock the VM, as on amdgpu.
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_bo_create_pd(struct kfdbed_gpu *gpu, struct amdgpu_bo **bo_ptr)
{
	struct amdgpu_bo_param bp = {
		.size = PAGE_SIZE,
		.byte_align = PAGE_SIZE,
		.domain = AMDGPU_GEM_DOMAIN_VRAM,
		.flags = AMDGPU_GEM_CREATE_NO_CPU_ACCESS |
			 AMDGPU_GEM_CREATE_VRAM_CLEARED,
		.type = ttm_bo_type_kernel,
		.bo_ptr_size = sizeof(struct amdgpu_bo),
	};

	return amdgpu_bo_create(gpu->adev, &bp, bo_ptr);
}

/* Unpin and drop a BO made by kfdbed_bo_create_kernel(). */
static void kfdbed_bo_free_kernel(struct amdgpu_bo **bo)
{
	if (!*bo)
		return;
	if (!amdgpu_bo_reserve(*bo, true)) {
		ttm_bo_unpin(&(*bo)->tbo);
		atomic64_sub(amdgpu_bo_size(*bo),
			     &amdgpu_ttm_adev((*bo)->tbo.bdev)->vram_pin_size);
		amdgpu_bo_unreserve(*bo);
	}
	amdgpu_bo_unref(bo);
}

/**
 * kfdbed_bo_vram_offset() - VRAM byte offset of a contiguous VRAM BO
 * @bo: the BO
 *
 * Return: the offset of its first byte in VRAM.
 */
u64 kfdbed_bo_vram_offset(struct amdgpu_bo *bo)
{
	return (u64)bo->tbo.resource->start << PAGE_SHIFT;
}

/**
 * amdgpu_bo_unref() - drop a reference to a BO
 * @bo: the BO; set to NULL
 */
void amdgpu_bo_unref(struct amdgpu_bo **bo)
{
	if (!*bo)
		return;
	drm_gem_object_put(&(*bo)->tbo.base);
	*bo = NULL;
}

/**
 * amdgpu_bo_gpu_offset() - MC address of a BO
 * @bo: the BO, reserved or pinned, in VRAM
 *
 * Return: the address the GPU's engines reach it at.
 */
u64 amdgpu_bo_gpu_offset(struct amdgpu_bo *bo)
{
	struct amdgpu_device *adev = amdgpu_ttm_adev(bo->tbo.bdev);

	WARN_ON_ONCE(bo->tbo.resource->mem_type != TTM_PL_VRAM);
	WARN_ON_ONCE(!dma_resv_is_locked(bo->tbo.base.resv) &&
		     !bo->tbo.pin_count);
	return amdgpu_ttm_domain_start(adev, bo->tbo.resource->mem_type) +
	       ((u64)bo->tbo.resource->start << PAGE_SHIFT);
}

/**
 * amdgpu_ttm_domain_start() - MC address where a TTM domain starts
 * @adev: the device
 * @type: TTM_PL_*
 *
 * Return: the start of VRAM or GART, 0 for anything else.
 */
u64 amdgpu_ttm_domain_start(struct amdgpu_device *adev, uint32_t type)
{
	switch (type) {
	case TTM_PL_TT:
		return adev->gmc.gart_start;
	case TTM_PL_VRAM:
		return adev->gmc.vram_start;
	}
	return 0;
}

/**
 * amdgpu_bo_fence() - add a fence to a BO's reservation object
 * @bo: the BO, reserved, with a fence slot reserved
 * @fence: the fence
 * @shared: a read (shared) fence, else a write fence
 */
void amdgpu_bo_fence(struct amdgpu_bo *bo, struct dma_fence *fence, bool shared)
{
	dma_resv_add_fence(bo->tbo.base.resv, fence,
			   shared ? DMA_RESV_USAGE_READ : DMA_RESV_USAGE_WRITE);
}

/**
 * amdgpu_bo_sync_wait() - wait for a BO's fences other than KFD's own
 * @bo: the BO, reserved
 * @owner: the waiter (AMDGPU_FENCE_OWNER_KFD from KFD)
 * @intr: interruptible
 *
 * As amdgpu's sync to a reservation object for a KFD owner: KFD's
 * eviction fences are not waited for (waiting would trigger the eviction),
 * every other fence (SDMA clears and copies) is. KFD's SVM BOs of 7.x
 * carry no eviction fence (kfdbed_eviction_valuable()).
 *
 * Return: 0, or -ERESTARTSYS when interrupted.
 */
int amdgpu_bo_sync_wait(struct amdgpu_bo *bo, void *owner, bool intr)
{
	struct dma_resv_iter cursor;
	struct dma_fence *f;
	long r;

	dma_resv_assert_held(bo->tbo.base.resv);
	dma_resv_for_each_fence(&cursor, bo->tbo.base.resv,
				DMA_RESV_USAGE_BOOKKEEP, f) {
#ifndef KFDBED_HAVE_SVM_BO_EMBEDDED
		if (to_amdgpu_amdkfd_fence(f))
			continue;
#endif
		r = dma_fence_wait(f, intr);
		if (r)
			return r;
	}
	return 0;
}

/**
 * amdgpu_ttm_tt_affect_userptr() - does a userptr BO cover a range
 * @ttm: a BO's TTM
 * @start: first address
 * @end: last address
 * @userptr: out: the BO's user address
 *
 * The emulated layer creates no userptr BOs (KFD's ALLOC_MEMORY_OF_GPU is
 * not provided), and KFD asks only about BOs mapped in a VM's va tree,
 * which stays empty.
 *
 * Return: false.
 */
bool amdgpu_ttm_tt_affect_userptr(struct ttm_tt *ttm, unsigned long start,
				  unsigned long end, unsigned long *userptr)
{
	return false;
}

/**
 * kfdbed_bo_init() - TTM device and VRAM manager of a GPU, GART table
 * @gpu: the GPU, with adev's gmc fields set
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_bo_init(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;
	struct drm_device *ddev = adev_to_drm(adev);
	struct amdgpu_vram_mgr *mgr = &adev->mman.vram_mgr;
	int r;

	init_waitqueue_head(&gpu->bo_wait);
#ifdef KFDBED_HAVE_TTM_ALLOC_FLAGS
	/*
	 * As amdgpu_ttm_init() of 7.3 on a GPU that needs no bounce buffers
	 * and addresses all of memory: only the pool order amdgpu benefits
	 * from (2 MiB). -ENOSPC from the VRAM manager becomes -ENOMEM for
	 * the BO's creator, as there (no TTM_ALLOCATION_PROPAGATE_ENOSPC).
	 */
	r = ttm_device_init(
		&adev->mman.bdev, &kfdbed_ttm_funcs, adev->dev,
		ddev->anon_inode->i_mapping, ddev->vma_offset_manager,
		TTM_ALLOCATION_POOL_BENEFICIAL_ORDER(get_order(SZ_2M)));
#else
	r = ttm_device_init(&adev->mman.bdev, &kfdbed_ttm_funcs, adev->dev,
			    ddev->anon_inode->i_mapping,
			    ddev->vma_offset_manager, false, false);
#endif
	if (r)
		return r;

	mutex_init(&mgr->lock);
	INIT_LIST_HEAD(&mgr->reservations_pending);
	INIT_LIST_HEAD(&mgr->reserved_pages);
	mgr->default_page_size = PAGE_SIZE;
	ttm_resource_manager_init(&mgr->manager, &adev->mman.bdev,
				  gpu->vram_size);
	mgr->manager.func = &kfdbed_vram_mgr_func;
	r = gpu_buddy_init(&mgr->mm, gpu->vram_size, PAGE_SIZE);
	if (r)
		goto out_ttm;
	ttm_set_driver_manager(&adev->mman.bdev, TTM_PL_VRAM, &mgr->manager);
	ttm_resource_manager_set_used(&mgr->manager, true);
	adev->mman.initialized = true;

	/* The GART table: in VRAM, as on a dGPU, one 8-byte entry a page. */
	adev->gart.num_cpu_pages = adev->gmc.gart_size >> PAGE_SHIFT;
	adev->gart.num_gpu_pages = adev->gmc.gart_size >> AMDGPU_GPU_PAGE_SHIFT;
	adev->gart.table_size = adev->gart.num_gpu_pages * 8;
	return 0;

out_ttm:
	ttm_device_fini(&adev->mman.bdev);
	return r;
}

/**
 * kfdbed_bo_fini() - wait for the BOs to go, then tear down TTM
 * @gpu: the GPU
 */
void kfdbed_bo_fini(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;
	struct amdgpu_vram_mgr *mgr = &adev->mman.vram_mgr;

	kfdbed_bo_free_kernel(&adev->gart.bo);
	adev->gart.ptr = NULL;
	/* KFD drops its last BOs from work items (svm_range_bo_release). */
	if (!wait_event_timeout(gpu->bo_wait, !atomic_read(&gpu->bo_count),
				30 * HZ))
		pr_err("kfdbed: %d BOs still alive at unload\n",
		       atomic_read(&gpu->bo_count));
	/* And TTM's delayed deletes of the BOs that went with fences. */
	flush_workqueue(adev->mman.bdev.wq);
	ttm_resource_manager_set_used(&mgr->manager, false);
	ttm_resource_manager_evict_all(&adev->mman.bdev, &mgr->manager);
	ttm_resource_manager_cleanup(&mgr->manager);
	ttm_set_driver_manager(&adev->mman.bdev, TTM_PL_VRAM, NULL);
	gpu_buddy_fini(&mgr->mm);
	ttm_device_fini(&adev->mman.bdev);
	adev->mman.initialized = false;
}
