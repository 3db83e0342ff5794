// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: the SDMA engine and GART. Jobs carry one indirect buffer
 * (IB) of packets in the emulated engine's own format; submitted jobs run
 * in order on an ordered workqueue (the ring), and their fence signals when
 * the packets have executed. Copies and fills address memory as the GPU
 * does: VRAM through its aperture (the backing store), system memory
 * through the GART, whose table is a VRAM BO written by SDMA itself (KFD
 * copies its GART entries from the IB into the table, as on amdgpu).
 */
#include <linux/dma-direct.h>
#include <linux/dma-fence.h>
#include <linux/highmem.h>
#include <linux/slab.h>

#include "kfdbed.h"

/**
 * struct kfdbed_job - a job and what the engine needs to run it
 * @work: on the ring's workqueue
 * @gpu: the GPU
 * @fence: signalled when the job has run
 * @ib_size: bytes of the IB
 * @job: amdgpu's job, one IB (must be last: ibs[] follows)
 */
struct kfdbed_job {
	struct work_struct work;
	struct kfdbed_gpu *gpu;
	struct dma_fence *fence;
	size_t ib_size;
	struct amdgpu_job job;
};

static const char *kfdbed_fence_driver_name(struct dma_fence *f)
{
	return "amdgpu";
}

static const char *kfdbed_fence_timeline_name(struct dma_fence *f)
{
	return "kfdbed_sdma";
}

static const struct dma_fence_ops kfdbed_sdma_fence_ops = {
	.get_driver_name = kfdbed_fence_driver_name,
	.get_timeline_name = kfdbed_fence_timeline_name,
};

static void kfdbed_log_fault_once(struct kfdbed_gpu *gpu, const char *what,
				  u64 addr)
{
	dev_err_ratelimited(gpu->adev->dev, "SDMA: %s at 0x%llx\n", what, addr);
}

/**
 * kfdbed_sdma_map() - resolve an MC address for the engine
 * @kjob: the job executing (its IB is addressable)
 * @addr: MC address
 * @len: in: bytes wanted; out: bytes valid at the result
 * @write: for a write
 * @page: out: a page to kunmap_local() the result with, or NULL
 *
 * Return: a kernel pointer, or NULL on a GPU page fault (unmapped or
 * read-only GART entry, address outside every aperture).
 */
static void *kfdbed_sdma_map(struct kfdbed_job *kjob, u64 addr, u64 *len,
			     bool write, struct page **page)
{
	struct kfdbed_gpu *gpu = kjob->gpu;
	struct amdgpu_device *adev = gpu->adev;
	struct amdgpu_ib *ib = &kjob->job.ibs[0];
	u64 off;

	*page = NULL;
	if (addr >= ib->gpu_addr && addr < ib->gpu_addr + kjob->ib_size) {
		off = addr - ib->gpu_addr;
		*len = min(*len, kjob->ib_size - off);
		return (u8 *)ib->ptr + off;
	}
	if (addr >= adev->gmc.vram_start &&
	    addr < adev->gmc.vram_start + gpu->vram_size) {
		off = addr - adev->gmc.vram_start;
		*len = min(*len, gpu->vram_size - off);
		return (u8 *)gpu->vram + off;
	}
	if (addr >= adev->gmc.gart_start && addr <= adev->gmc.gart_end) {
		u64 idx = (addr - adev->gmc.gart_start) >>
			  AMDGPU_GPU_PAGE_SHIFT;
		u64 pte, dma;
		phys_addr_t phys;

		if (!adev->gart.ptr)
			return NULL;
		pte = READ_ONCE(((u64 *)adev->gart.ptr)[idx]);
		if (!(pte & AMDGPU_PTE_VALID) || !(pte & AMDGPU_PTE_SYSTEM) ||
		    (write && !(pte & AMDGPU_PTE_WRITEABLE)) ||
		    (!write && !(pte & AMDGPU_PTE_READABLE))) {
			kfdbed_log_fault_once(gpu,
					      write ? "GART write fault" :
						      "GART read fault",
					      addr);
			return NULL;
		}
		off = addr & (AMDGPU_GPU_PAGE_SIZE - 1);
		dma = (pte & KFDBED_PTE_ADDR_MASK) + off;
		phys = dma_to_phys(adev->dev, dma);
		if (!pfn_valid(PHYS_PFN(phys))) {
			kfdbed_log_fault_once(gpu, "GART entry to no page",
					      addr);
			return NULL;
		}
		*len = min_t(u64, *len, AMDGPU_GPU_PAGE_SIZE - off);
		*page = pfn_to_page(PHYS_PFN(phys));
		return (u8 *)kmap_local_page(*page) + offset_in_page(phys);
	}
	kfdbed_log_fault_once(gpu, "access outside the apertures", addr);
	return NULL;
}

static int kfdbed_sdma_copy(struct kfdbed_job *kjob, u64 src, u64 dst,
			    u64 bytes)
{
	struct kfdbed_gpu *gpu = kjob->gpu;
	struct amdgpu_gmc *gmc = &gpu->adev->gmc;
	bool to_vram = dst >= gmc->vram_start &&
		       dst < gmc->vram_start + gpu->vram_size;
	bool from_vram = src >= gmc->vram_start &&
			 src < gmc->vram_start + gpu->vram_size;
	bool to_gart = dst >= gmc->gart_start && dst <= gmc->gart_end;
	bool from_gart = src >= gmc->gart_start && src <= gmc->gart_end;
	u64 total = bytes;

	while (bytes) {
		struct page *spage, *dpage;
		u64 slen = bytes, dlen;
		void *s, *d;

		s = kfdbed_sdma_map(kjob, src, &slen, false, &spage);
		if (!s)
			return -EFAULT;
		dlen = slen;
		d = kfdbed_sdma_map(kjob, dst, &dlen, true, &dpage);
		if (!d) {
			if (spage)
				kunmap_local(s);
			return -EFAULT;
		}
		memcpy(d, s, dlen);
		if (dpage)
			kunmap_local(d);
		if (spage)
			kunmap_local(s);
		src += dlen;
		dst += dlen;
		bytes -= dlen;
	}
	kfdbed_stat_add(gpu, KFDBED_STAT_SDMA_BYTES, total);
	/* Migrations: system memory (through the GART) to VRAM, and back. */
	if (to_vram && from_gart)
		kfdbed_stat_add(gpu, KFDBED_STAT_PAGES_TO_VRAM,
				total >> PAGE_SHIFT);
	else if (from_vram && to_gart)
		kfdbed_stat_add(gpu, KFDBED_STAT_PAGES_TO_RAM,
				total >> PAGE_SHIFT);
	return 0;
}

static int kfdbed_sdma_do_fill(struct kfdbed_job *kjob, u32 data, u64 dst,
			       u64 bytes)
{
	u64 total = bytes;

	while (bytes) {
		struct page *dpage;
		u64 dlen = bytes;
		void *d;

		d = kfdbed_sdma_map(kjob, dst, &dlen, true, &dpage);
		if (!d)
			return -EFAULT;
		memset32(d, data, dlen / 4);
		if (dpage)
			kunmap_local(d);
		dst += dlen;
		bytes -= dlen;
	}
	kfdbed_stat_add(kjob->gpu, KFDBED_STAT_SDMA_BYTES, total);
	return 0;
}

/* Execute the job's IB; returns 0 or the first packet's error. */
static int kfdbed_sdma_execute(struct kfdbed_job *kjob)
{
	struct amdgpu_ib *ib = &kjob->job.ibs[0];
	u32 *p = ib->ptr, i = 0;
	int r = 0;

	while (!r && i < ib->length_dw) {
		switch (p[i]) {
		case KFDBED_SDMA_OP_NOP:
			i++;
			break;
		case KFDBED_SDMA_OP_COPY:
			if (i + KFDBED_SDMA_COPY_DW > ib->length_dw)
				return -EINVAL;
			r = kfdbed_sdma_copy(kjob,
					     p[i + 2] | (u64)p[i + 3] << 32,
					     p[i + 4] | (u64)p[i + 5] << 32,
					     p[i + 1]);
			i += KFDBED_SDMA_COPY_DW;
			break;
		case KFDBED_SDMA_OP_FILL:
			if (i + KFDBED_SDMA_FILL_DW > ib->length_dw)
				return -EINVAL;
			r = kfdbed_sdma_do_fill(kjob, p[i + 2],
						p[i + 3] | (u64)p[i + 4] << 32,
						p[i + 1]);
			i += KFDBED_SDMA_FILL_DW;
			break;
		default:
			dev_err_ratelimited(kjob->gpu->adev->dev,
					    "SDMA: bad packet 0x%x\n", p[i]);
			return -EINVAL;
		}
	}
	return r;
}

static void kfdbed_job_free(struct kfdbed_job *kjob)
{
	kvfree(kjob->job.ibs[0].ptr);
	dma_fence_put(kjob->fence);
	kfree(kjob);
}

static void kfdbed_sdma_work(struct work_struct *work)
{
	struct kfdbed_job *kjob = container_of(work, struct kfdbed_job, work);
	int r;

	r = kfdbed_sdma_execute(kjob);
	kfdbed_stat_inc(kjob->gpu, KFDBED_STAT_SDMA_JOBS);
	if (r)
		dma_fence_set_error(kjob->fence, r);
	dma_fence_signal(kjob->fence);
	kfdbed_job_free(kjob);
}

#ifdef KFDBED_HAVE_TTM_ENTITY
/*
 * The SDMA ring's scheduler entities: amdgpu_ttm_set_buffer_funcs_status()
 * of 7.3 makes a default entity, clear entities and move entities (one
 * each per ring, up to TTM_NUM_MOVE_FENCES; one ring here).
 */
static bool kfdbed_sdma_entity(struct amdgpu_device *adev,
			       struct drm_sched_entity *entity)
{
	struct amdgpu_mman *mman = &adev->mman;
	unsigned int i;

	if (entity == &mman->default_entity.base)
		return true;
	for (i = 0; i < mman->num_clear_entities; i++)
		if (entity == &mman->clear_entities[i].base)
			return true;
	for (i = 0; i < mman->num_move_entities; i++)
		if (entity == &mman->move_entities[i].base)
			return true;
	return false;
}
#else
/* The SDMA ring's scheduler entities: mman.high_pr and low_pr (6.12). */
static bool kfdbed_sdma_entity(struct amdgpu_device *adev,
			       struct drm_sched_entity *entity)
{
	return entity == &adev->mman.high_pr || entity == &adev->mman.low_pr;
}
#endif

/**
 * amdgpu_job_alloc_with_ib() - a job with one IB
 * @adev: the device
 * @entity: scheduler entity (one of the SDMA ring's: kfdbed_sdma_entity())
 * @owner: fence owner (unused)
 * @size: IB bytes
 * @pool_type: IB pool (unused: IBs are kernel memory)
 * @k_job_id: kernel job id (unused; before @job from 7.x on, after it in
 *	6.12)
 * @job: out: the job
 *
 * Return: 0, -EINVAL for another entity, -ENOMEM.
 */
#ifdef KFDBED_HAVE_JOB_ID_FIRST
int amdgpu_job_alloc_with_ib(struct amdgpu_device *adev,
			     struct drm_sched_entity *entity, void *owner,
			     size_t size, enum amdgpu_ib_pool_type pool_type,
			     u64 k_job_id, struct amdgpu_job **job)
#else
int amdgpu_job_alloc_with_ib(struct amdgpu_device *adev,
			     struct drm_sched_entity *entity, void *owner,
			     size_t size, enum amdgpu_ib_pool_type pool_type,
			     struct amdgpu_job **job, u64 k_job_id)
#endif
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	struct kfdbed_job *kjob;
	struct amdgpu_ib *ib;

	if (!kfdbed_sdma_entity(adev, entity)) {
		kfdbed_warn_unsupported("jobs on engines other than SDMA");
		return -EINVAL;
	}
	kjob = kzalloc(struct_size(kjob, job.ibs, 1), GFP_KERNEL);
	if (!kjob)
		return -ENOMEM;
	kjob->gpu = gpu;
	kjob->ib_size = ALIGN(size, 4);
	ib = &kjob->job.ibs[0];
	ib->ptr = kvzalloc(kjob->ib_size, GFP_KERNEL);
	if (!ib->ptr) {
		kfree(kjob);
		return -ENOMEM;
	}
	ib->gpu_addr = KFDBED_IB_START +
		       (atomic64_fetch_add(ALIGN(kjob->ib_size, PAGE_SIZE),
					   &gpu->ib_next) %
			KFDBED_IB_SIZE);
	kjob->job.num_ibs = 1;
	INIT_WORK(&kjob->work, kfdbed_sdma_work);
	*job = &kjob->job;
	return 0;
}

/**
 * amdgpu_job_submit() - queue a job on its ring
 * @job: the job, from amdgpu_job_alloc_with_ib(); owned by the ring after
 *
 * Return: the job's fence (a reference for the caller).
 */
struct dma_fence *amdgpu_job_submit(struct amdgpu_job *job)
{
	struct kfdbed_job *kjob = container_of(job, struct kfdbed_job, job);
	struct kfdbed_gpu *gpu = kjob->gpu;
	struct dma_fence *fence;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL | __GFP_NOFAIL);
	dma_fence_init(fence, &kfdbed_sdma_fence_ops, &gpu->fence_lock,
		       gpu->fence_context,
		       atomic64_inc_return(&gpu->fence_seqno));
	kjob->fence = dma_fence_get(fence);
	queue_work(gpu->sdma_wq, &kjob->work);
	return fence;
}

static void kfdbed_emit_copy(struct amdgpu_ib *ib, u64 src, u64 dst, u32 bytes,
			     u32 copy_flags)
{
	u32 *p = &ib->ptr[ib->length_dw];

	p[0] = KFDBED_SDMA_OP_COPY;
	p[1] = bytes;
	p[2] = lower_32_bits(src);
	p[3] = upper_32_bits(src);
	p[4] = lower_32_bits(dst);
	p[5] = upper_32_bits(dst);
	p[6] = copy_flags;
	ib->length_dw += KFDBED_SDMA_COPY_DW;
}

static void kfdbed_emit_fill(struct amdgpu_ib *ib, u32 data, u64 dst, u32 bytes)
{
	u32 *p = &ib->ptr[ib->length_dw];

	p[0] = KFDBED_SDMA_OP_FILL;
	p[1] = bytes;
	p[2] = data;
	p[3] = lower_32_bits(dst);
	p[4] = upper_32_bits(dst);
	ib->length_dw += KFDBED_SDMA_FILL_DW;
}

static const struct amdgpu_buffer_funcs kfdbed_buffer_funcs = {
	.copy_max_bytes = KFDBED_SDMA_MAX_BYTES,
	.copy_num_dw = KFDBED_SDMA_COPY_DW,
	.emit_copy_buffer = kfdbed_emit_copy,
	.fill_max_bytes = KFDBED_SDMA_MAX_BYTES,
	.fill_num_dw = KFDBED_SDMA_FILL_DW,
	.emit_fill_buffer = kfdbed_emit_fill,
};

/* Pad an IB with NOPs to a multiple of 8 dwords, as SDMA wants. */
static void kfdbed_sdma_pad_ib(struct amdgpu_ring *ring, struct amdgpu_ib *ib)
{
	while (ib->length_dw & 7)
		ib->ptr[ib->length_dw++] = KFDBED_SDMA_OP_NOP;
}

static const struct amdgpu_ring_funcs kfdbed_sdma_ring_funcs = {
	.type = AMDGPU_RING_TYPE_SDMA,
	.align_mask = 0xf,
	.nop = KFDBED_SDMA_OP_NOP,
	.pad_ib = kfdbed_sdma_pad_ib,
};

/*
 * A job of @num_dw dwords on @entity, waiting for @resv's fences first (the
 * ring is the scheduler here: the wait is done before the job is made).
 */
static int kfdbed_sdma_prepare_job(struct amdgpu_device *adev,
				   struct drm_sched_entity *entity,
				   unsigned int num_dw, struct dma_resv *resv,
				   struct amdgpu_job **job)
{
	int r;

	if (resv) {
		long t = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_BOOKKEEP,
					       false, MAX_SCHEDULE_TIMEOUT);
		if (t < 0)
			return t;
	}
#ifdef KFDBED_HAVE_JOB_ID_FIRST
	r = amdgpu_job_alloc_with_ib(adev, entity, AMDGPU_FENCE_OWNER_UNDEFINED,
				     num_dw * 4, AMDGPU_IB_POOL_DELAYED, 0,
				     job);
#else
	r = amdgpu_job_alloc_with_ib(adev, entity, AMDGPU_FENCE_OWNER_UNDEFINED,
				     num_dw * 4, AMDGPU_IB_POOL_DELAYED, job,
				     0);
#endif
	return r;
}

#ifdef KFDBED_HAVE_TTM_ENTITY
/**
 * amdgpu_copy_buffer() - copy with SDMA
 * @adev: the device
 * @entity: the TTM buffer entity the copy runs on (KFD: move_entities[0],
 *	whose GART windows it mapped the system pages through)
 * @src_offset: source MC address
 * @dst_offset: destination MC address
 * @byte_count: bytes
 * @resv: reservation object whose fences the copy waits for, or NULL
 * @fence: out: the copy's fence
 * @vm_needs_flush: unused (no VM flush on the emulated SDMA)
 * @copy_flags: AMDGPU_COPY_FLAGS_* (no TMZ here)
 *
 * As amdgpu_copy_buffer() of 7.3 (amdgpu_ttm.c): on the ring of the first
 * buffer-functions scheduler, -EINVAL when that ring is not ready; packets
 * of copy_max_bytes (KFD copies whole pages: the dword-aligned case).
 *
 * Return: 0 or a negative errno.
 */
int amdgpu_copy_buffer(struct amdgpu_device *adev,
		       struct amdgpu_ttm_buffer_entity *entity,
		       uint64_t src_offset, uint64_t dst_offset,
		       uint32_t byte_count, struct dma_resv *resv,
		       struct dma_fence **fence, bool vm_needs_flush,
		       uint32_t copy_flags)
{
	struct amdgpu_ring *ring =
		to_amdgpu_ring(adev->mman.buffer_funcs_scheds[0]);
	struct drm_sched_entity *sched_entity = &entity->base;
#else
/**
 * amdgpu_copy_buffer() - copy with SDMA
 * @ring: the SDMA ring
 * @src_offset: source MC address
 * @dst_offset: destination MC address
 * @byte_count: bytes
 * @resv: reservation object whose fences the copy waits for, or NULL
 * @fence: out: the copy's fence
 * @direct_submit: run at once (the ring is the scheduler here: same)
 * @vm_needs_flush: unused (no VM flush on the emulated SDMA)
 * @copy_flags: AMDGPU_COPY_FLAGS_* (no TMZ here)
 *
 * Return: 0 or a negative errno.
 */
int amdgpu_copy_buffer(struct amdgpu_ring *ring, uint64_t src_offset,
		       uint64_t dst_offset, uint32_t byte_count,
		       struct dma_resv *resv, struct dma_fence **fence,
		       bool direct_submit, bool vm_needs_flush,
		       uint32_t copy_flags)
{
	struct amdgpu_device *adev = ring->adev;
	struct drm_sched_entity *sched_entity = &adev->mman.high_pr;
#endif
	const struct amdgpu_buffer_funcs *funcs = adev->mman.buffer_funcs;
	unsigned int loops = DIV_ROUND_UP(byte_count, funcs->copy_max_bytes), i;
	struct amdgpu_job *job;
	int r;

#ifdef KFDBED_HAVE_TTM_ENTITY
	if (!ring->sched.ready) {
		dev_err(adev->dev,
			"Trying to move memory with ring turned off.\n");
		return -EINVAL;
	}
#endif
	r = kfdbed_sdma_prepare_job(adev, sched_entity,
				    ALIGN(loops * funcs->copy_num_dw, 8), resv,
				    &job);
	if (r)
		return r;
	for (i = 0; i < loops; i++) {
		u32 n = min(byte_count, funcs->copy_max_bytes);

		funcs->emit_copy_buffer(&job->ibs[0], src_offset, dst_offset, n,
					copy_flags);
		src_offset += n;
		dst_offset += n;
		byte_count -= n;
	}
	amdgpu_ring_pad_ib(ring, &job->ibs[0]);
	*fence = amdgpu_job_submit(job);
	return 0;
}

/*
 * The entity VRAM clears run on: amdgpu_ttm_next_clear_entity()'s (one
 * ring, so one clear entity) from 7.x on, low_pr in 6.12.
 */
static struct drm_sched_entity *
kfdbed_sdma_clear_entity(struct amdgpu_device *adev)
{
#ifdef KFDBED_HAVE_TTM_ENTITY
	return &adev->mman.clear_entities[0].base;
#else
	return &adev->mman.low_pr;
#endif
}

/**
 * kfdbed_sdma_fill() - fill memory with a 32-bit value using SDMA
 * @gpu: the GPU
 * @dst: MC address
 * @size: bytes, a multiple of 4
 * @data: the value
 * @fence: out: the fill's fence
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_sdma_fill(struct kfdbed_gpu *gpu, u64 dst, u64 size, u32 data,
		     struct dma_fence **fence)
{
	struct amdgpu_device *adev = gpu->adev;
	const struct amdgpu_buffer_funcs *funcs = adev->mman.buffer_funcs;
	unsigned int loops = DIV_ROUND_UP_ULL(size, funcs->fill_max_bytes), i;
	struct amdgpu_job *job;
	int r;

	r = kfdbed_sdma_prepare_job(adev, kfdbed_sdma_clear_entity(adev),
				    ALIGN(loops * funcs->fill_num_dw, 8), NULL,
				    &job);
	if (r)
		return r;
	for (i = 0; i < loops; i++) {
		u32 n = min_t(u64, size, funcs->fill_max_bytes);

		funcs->emit_fill_buffer(&job->ibs[0], data, dst, n);
		dst += n;
		size -= n;
	}
	amdgpu_ring_pad_ib(&gpu->sdma, &job->ibs[0]);
	*fence = amdgpu_job_submit(job);
	return 0;
}

/**
 * amdgpu_gart_map() - write GART entries for system pages
 * @adev: the device
 * @offset: byte offset in the GART of the first entry
 * @pages: CPU pages
 * @dma_addr: their DMA addresses
 * @flags: PTE flags
 * @dst: where to write the entries (a CPU view of a GART table, or of an
 *	 IB that SDMA then copies into the table, as KFD does)
 */
void amdgpu_gart_map(struct amdgpu_device *adev, uint64_t offset, int pages,
		     dma_addr_t *dma_addr, uint64_t flags, void *dst)
{
	u64 *entries = dst;
	unsigned int t = offset / AMDGPU_GPU_PAGE_SIZE;
	int i, j;

	for (i = 0; i < pages; i++) {
		u64 page_base = dma_addr[i];

		for (j = 0; j < AMDGPU_GPU_PAGES_IN_CPU_PAGE; j++, t++) {
			entries[t] = (page_base & KFDBED_PTE_ADDR_MASK) | flags;
			page_base += AMDGPU_GPU_PAGE_SIZE;
		}
	}
	kfdbed_stat_add(kfdbed_gpu_from_adev(adev), KFDBED_STAT_GART_MAPS,
			pages);
}

#ifdef KFDBED_HAVE_TTM_ENTITY
/* Each TTM buffer entity's GART windows, of AMDGPU_GTT_MAX_TRANSFER_SIZE. */
static void kfdbed_sdma_entity_init(struct amdgpu_ttm_buffer_entity *entity,
				    u64 *gart_offset, unsigned int windows)
{
	unsigned int i;

	mutex_init(&entity->lock);
	for (i = 0; i < windows; i++) {
		entity->gart_window_offs[i] = *gart_offset;
		*gart_offset += AMDGPU_GTT_MAX_TRANSFER_SIZE;
	}
}

/*
 * As amdgpu_ttm_set_buffer_funcs_status() of 7.3 with one SDMA ring: its
 * scheduler is the buffer functions' only one (KFD finds the ring from
 * it), and it makes a default entity without GART windows, a clear entity
 * with one and a move entity with two, each window taken from the GTT
 * manager (amdgpu_ttm_buffer_entity_init()). Here the windows are laid
 * out from the start of the GART, which holds nothing else: the move
 * entity's first window, where KFD maps the system pages it migrates, is
 * at GART offset 0, where 6.12's KFD put its window 0.
 */
static void kfdbed_sdma_entities_init(struct kfdbed_gpu *gpu)
{
	struct amdgpu_mman *mman = &gpu->adev->mman;
	u64 gart_offset = 0;

	gpu->sdma.sched.ready = true;
	mman->buffer_funcs_scheds[0] = &gpu->sdma.sched;
	mman->num_buffer_funcs_scheds = 1;
	kfdbed_sdma_entity_init(&mman->move_entities[0], &gart_offset, 2);
	mman->num_move_entities = 1;
	kfdbed_sdma_entity_init(&gpu->clear_entity, &gart_offset, 1);
	mman->clear_entities = &gpu->clear_entity;
	mman->num_clear_entities = 1;
	kfdbed_sdma_entity_init(&mman->default_entity, &gart_offset, 0);
}
#endif

/**
 * kfdbed_sdma_init() - the SDMA ring, its buffer functions, the GART table
 * @gpu: the GPU, with TTM up
 *
 * Return: 0 or a negative errno.
 */
int kfdbed_sdma_init(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;
	int r;

	spin_lock_init(&gpu->fence_lock);
	gpu->fence_context = dma_fence_context_alloc(1);
	gpu->sdma_wq = alloc_ordered_workqueue("kfdbed_sdma%u", WQ_MEM_RECLAIM,
					       gpu->index);
	if (!gpu->sdma_wq)
		return -ENOMEM;
	gpu->sdma.adev = adev;
	gpu->sdma.funcs = &kfdbed_sdma_ring_funcs;
	snprintf(gpu->sdma.name, sizeof(gpu->sdma.name), "sdma0");
	adev->mman.buffer_funcs = &kfdbed_buffer_funcs;
#ifdef KFDBED_HAVE_TTM_ENTITY
	kfdbed_sdma_entities_init(gpu);
#else
	adev->mman.buffer_funcs_ring = &gpu->sdma;
	mutex_init(&adev->mman.gtt_window_lock);
#endif
	adev->mman.buffer_funcs_enabled = true;

	r = kfdbed_bo_create_kernel(gpu, adev->gart.table_size, true,
				    &adev->gart.bo);
	if (r) {
		destroy_workqueue(gpu->sdma_wq);
		gpu->sdma_wq = NULL;
		return r;
	}
	adev->gart.ptr = (u8 *)gpu->vram + kfdbed_bo_vram_offset(adev->gart.bo);
	adev->gart.gart_pte_flags = 0;
	return 0;
}

/**
 * kfdbed_sdma_fini() - wait for the ring to drain, stop it
 * @gpu: the GPU
 */
void kfdbed_sdma_fini(struct kfdbed_gpu *gpu)
{
	destroy_workqueue(gpu->sdma_wq);
	gpu->sdma_wq = NULL;
	gpu->adev->mman.buffer_funcs_enabled = false;
#ifdef KFDBED_HAVE_TTM_ENTITY
	gpu->sdma.sched.ready = false;
	mutex_destroy(&gpu->adev->mman.move_entities[0].lock);
	mutex_destroy(&gpu->clear_entity.lock);
	mutex_destroy(&gpu->adev->mman.default_entity.lock);
#endif
}
