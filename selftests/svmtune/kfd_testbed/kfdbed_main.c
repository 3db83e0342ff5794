// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: the kernel's real KFD SVM code on emulated GPUs.
 *
 * What it is
 * ----------
 * A module named amdgpu (it takes amdgpu's place, so svmtune_kfd attaches
 * to it) made of the test kernel's own drivers/gpu/drm/amd/amdkfd/kfd_svm.c
 * and kfd_migrate.c, compiled unmodified from the kernel tree (Kbuild), and
 * an emulated amdgpu layer, kfdbed_*.c, that provides every function and
 * variable those two files use from the rest of amdgpu and KFD, on real
 * kernel machinery wherever the kernel has it:
 *
 *  - devices (this file): 1-4 GPUs (num_gpus, vram_mb), each a struct
 *    amdgpu_device with its drm device inside (devm_drm_dev_alloc() on a
 *    PCI device that is on no bus), a KFD device and node, GFX 9.4.2
 *    (Aldebaran: dGPU, XNACK, retry faults on IH1). Its VRAM becomes
 *    MEMORY_DEVICE_PRIVATE memory through KFD's own
 *    kgd2kfd_init_zone_device() (svm_migrate_init), so KFD's own
 *    dev_pagemap_ops (svm_migrate_to_ram, svm_migrate_page_free) serve CPU
 *    faults; the bytes of VRAM live in a vmalloc'ed backing store.
 *  - BOs (kfdbed_bo.c): a real TTM device with a VRAM manager of ours on
 *    the kernel's buddy allocator (gpu_buddy) that follows 6.12's
 *    amdgpu_vram_mgr_new(): 2 MiB blocks when the size allows and no
 *    smaller ones after (-ENOSPC: TTM evicts), top-down placement, user
 *    BOs refused once VRAM in use passes VRAM - 8 MiB; KFD's VRAM limit
 *    is amdgpu's (VRAM - max(RAM / 16384, 8 MiB) - pinned);
 *    amdgpu_res_first() walks the blocks as on amdgpu.
 *  - SDMA and GART (kfdbed_sdma.c): jobs with IBs of our own packet format
 *    run in order on a workqueue and signal dma_fences; copies are memcpy
 *    between the VRAM backing store and system pages reached through GART
 *    entries, which KFD writes with amdgpu_gart_map() into an IB and SDMA
 *    copies into the GART table (a VRAM BO), exactly KFD's sequence.
 *  - GPU VM (kfdbed_vm.c): per process and GPU, a page table of GFX9 PTEs
 *    written by amdgpu_vm_update_range(); hmm_range_fault() for KFD's page
 *    snapshots, returning -EAGAIN when the range changed under the walk,
 *    as 6.12's amdgpu_hmm_range_get_pages() does (KFD then returns 0 and
 *    the GPU retries).
 *  - Retry faults (kfdbed_ih.c): as MI200/MI300 deliver them, through the
 *    IH's retry CAM, ring 0 and amdgpu's software ring, whose worker calls
 *    KFD's svm_range_restore_pages() and acknowledges the CAM entry
 *    (retry_cam=0: IH1 and a fault filter, as GPUs without the CAM); the
 *    checkpoint wait KFD uses when it drains faults.
 *  - KFD's rest (kfdbed_kfd.c): processes created on open of /dev/kfd,
 *    bound to the address space by an MMU notifier, with one VM per GPU
 *    and KFD's own svm_range_list_init(); /dev/kfd speaks KFD's uapi for
 *    GET_VERSION, SET_XNACK_MODE and SVM (KFD's own svm_ioctl()), so KFD
 *    programs' SVM calls run unchanged; eviction fences; SMI events
 *    (counted); memory limits.
 *  - /dev/kfdbed (kfdbed_gpu.c): what a GPU does on its own, for tests:
 *    accesses through the page table with retry faults, and counters;
 *    access programs run by many concurrent waves (kfdbed_wave.c).
 *
 * Why /dev/kfd and a second node: KFD's SVM uapi on its usual node lets
 * existing KFD tests and svmtune's KFD tests run against the real SVM code
 * unchanged; the GPU-side controls have no KFD equivalent (a real GPU runs
 * shaders) and are kept apart on /dev/kfdbed, so /dev/kfd stays KFD's.
 *
 * VRAM overcommit works as on amdgpu: TTM evicts KFD's SVM BOs, waiting
 * on KFD's eviction fence, which makes KFD migrate their pages out; SVM
 * BOs are evictable by their own process too (amdkfd_fence_check_mm()
 * exempts them from amdgpu's rule that keeps a process's KFD BOs). From
 * 7.x on KFD's BO is embedded in its svm_range_bo and has no fence: TTM's
 * eviction_valuable migrates its pages out synchronously through
 * svm_range_evict_svm_bo(), as 7.3's amdgpu_ttm_bo_eviction_valuable().
 *
 * Other kernels' KFD: what KFD and amdgpu changed after 6.12 (7.3's: a
 * PASID per VM, SMI events naming the task, SDMA through TTM buffer
 * entities with GART windows of their own, HMM ranges of
 * struct amdgpu_hmm_range, KFD's PTE flags from gmc_funcs->get_vm_pte(),
 * amdgpu_vm_ready(), the VM's BO status lists, APUs preferring GTT) is
 * found in the kernel tree's sources by Kbuild (KFDBED_HAVE_*), and the
 * emulation follows that kernel's amdgpu.
 *
 * xGMI hives (xgmi_hive): GPUs given the same hive number share a hive
 * as amdgpu leaves them: adev->hive (the owner of their device-private
 * pages, so hmm_range_fault() hands KFD a peer's VRAM pages instead of
 * migrating them), gmc.xgmi.hive_id (what KFD's same-hive tests compare)
 * and a vram_base_offset of physical_node_id * node_segment_size, so the
 * VRAM addresses in PTEs are hive-wide and a GPU reads a peer's VRAM
 * through them (kfdbed_gpu.c).
 *
 * Not emulated yet (each fails with an error and a one-time log): moving
 * BO contents (TTM moves other than gutting an SVM BO), BO-backed GPU
 * mappings (KFD's non-SVM allocations), jobs on engines other than SDMA,
 * partitions, links between hives.
 *
 * No code here is taken from amdgpu: the emulation follows the interfaces
 * and documented behaviour of the functions KFD calls.
 *
 * Build: make -C <kernel tree> M=$PWD modules (the tree must have KFD's
 * sources and CONFIG_HSA_AMD_SVM). Load: modprobe ttm drm_exec first (the
 * module needs TTM and drm_exec, as amdgpu does), then insmod amdgpu.ko
 * [num_gpus=1-4] [vram_mb=16-4096] [xgmi_hive=H0,H1,...] [xnack=0|1]
 * [svm_default_granularity=N] [apu=0|1], and for the test of svmtune_kfd's run-time
 * checks only [late_mm=1] [granularity_skew=1-27] (kfdbed_kfd.c).
 * kfdbed_test.c exercises it; its header says how to run it in the test VM.
 */
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/module.h>
#include <linux/pci_ids.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#ifdef KFDBED_HAVE_APU_PREFER_GTT
#include <drm/ttm/ttm_tt.h>
#endif

#include "kfdbed.h"
#include "amdgpu_xgmi.h"

static unsigned int num_gpus = 1;
module_param(num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Emulated GPUs (1-4, default 1)");

static unsigned int vram_mb = 256;
module_param(vram_mb, uint, 0444);
MODULE_PARM_DESC(vram_mb,
		 "VRAM per GPU in MiB (16-4096, a multiple of 2, default 256)");

static unsigned int xgmi_hive[KFDBED_MAX_GPUS];
static unsigned int xgmi_hive_count;
module_param_array(xgmi_hive, uint, &xgmi_hive_count, 0444);
MODULE_PARM_DESC(
	xgmi_hive,
	"xGMI hive of each GPU: 0 for none, 1-4 for a hive (default: none)");

/*
 * MI300A: the GPU is an APU (AMD_IS_APU, GFX 9.4.3) whose memory is the
 * system memory it shares with the CPUs. KFD then makes no device memory
 * (kgd2kfd_init_zone_device() returns at once) and restores every GPU
 * fault to system memory (svm_range_best_restore_location() gives 0), so
 * no page ever migrates. The emulated VRAM stays for amdgpu's own BOs
 * (page tables), as the APU's carve-out holds them; KFD reports the
 * node's local memory as that carve-out, amdgpu_amdkfd_get_local_mem_info()
 * of an APU without an app APU's GTT preference.
 */
static bool apu;
module_param(apu, bool, 0444);
MODULE_PARM_DESC(apu,
		 "Emulate MI300A APUs instead of MI250X dGPUs (default off)");

/* The hives, by number; GPUs of hive h point to kfdbed_hives[h]. */
static struct amdgpu_hive_info *kfdbed_hives[KFDBED_MAX_GPUS + 1];

struct kfdbed_gpu *kfdbed_gpus[KFDBED_MAX_GPUS];
unsigned int kfdbed_num_gpus;

/* gpu_id of GPU i: any non-zero value user space passes back (KFD hashes). */
#define KFDBED_GPU_ID(i) (0x7400 + (i) + 1)

static const struct drm_driver kfdbed_drm_driver = {
	.driver_features = DRIVER_GEM,
	.name = "amdgpu",
	.desc = "KFD test bed (emulated amdgpu)",
	.major = 3,
	.minor = 59,
};

/**
 * kfdbed_gpu_from_adev() - the emulated GPU of an amdgpu device
 * @adev: the device
 *
 * Return: the GPU (never NULL for a device of this module).
 */
struct kfdbed_gpu *kfdbed_gpu_from_adev(struct amdgpu_device *adev)
{
	unsigned int i;

	for (i = 0; i < KFDBED_MAX_GPUS; i++)
		if (kfdbed_gpus[i] && kfdbed_gpus[i]->adev == adev)
			return kfdbed_gpus[i];
	WARN_ONCE(1, "kfdbed: unknown amdgpu device %p\n", adev);
	return kfdbed_gpus[0];
}

/**
 * kfdbed_warn_unsupported() - log, once per message, what is not emulated
 * @what: a string literal naming it
 */
void kfdbed_warn_unsupported(const char *what)
{
	static const char *warned[16];
	static DEFINE_SPINLOCK(lock);
	unsigned int i;
	bool first = true;

	spin_lock(&lock);
	for (i = 0; i < ARRAY_SIZE(warned) && warned[i]; i++)
		if (warned[i] == what)
			first = false;
	if (first && i < ARRAY_SIZE(warned))
		warned[i] = what;
	spin_unlock(&lock);
	if (first)
		pr_warn("kfdbed: not emulated: %s\n", what);
}

/**
 * kfdbed_vram_evict_all() - bring every VRAM page back to system memory
 * @gpu: the GPU
 *
 * At unload, pages may still be in VRAM in address spaces that outlive
 * the module; the pagemap cannot go while they are. Each is copied from
 * the backing store into a new system page and migrated back; KFD's
 * page_free releases its SVM BO references.
 */
static void kfdbed_vram_evict_all(struct kfdbed_gpu *gpu)
{
	struct dev_pagemap *pgmap = &gpu->adev->kfd.pgmap;
	unsigned long start = PHYS_PFN(pgmap->range.start);
	unsigned long npages = range_len(&pgmap->range) >> PAGE_SHIFT;
	const unsigned long chunk = 512;
	unsigned long *src, *dst, base, i, n;

	if (pgmap->type != MEMORY_DEVICE_PRIVATE)
		return;
	src = kvcalloc(chunk, sizeof(*src), GFP_KERNEL | __GFP_NOFAIL);
	dst = kvcalloc(chunk, sizeof(*dst), GFP_KERNEL | __GFP_NOFAIL);
	for (base = 0; base < npages; base += chunk) {
		n = min(chunk, npages - base);
		memset(dst, 0, n * sizeof(*dst));
		migrate_device_range(src, start + base, n);
		for (i = 0; i < n; i++) {
			struct page *spage = migrate_pfn_to_page(src[i]);
			struct page *dpage;
			u64 off;

			if (!spage || !(src[i] & MIGRATE_PFN_MIGRATE))
				continue;
			off = ((u64)page_to_pfn(spage) << PAGE_SHIFT) -
			      pgmap->range.start;
			dpage = alloc_page(GFP_HIGHUSER | __GFP_NOFAIL);
			lock_page(dpage);
			memcpy_to_page(dpage, 0, (u8 *)gpu->vram + off,
				       PAGE_SIZE);
			dst[i] = migrate_pfn(page_to_pfn(dpage));
		}
		migrate_device_pages(src, dst, n);
		migrate_device_finalize(src, dst, n);
	}
	kvfree(src);
	kvfree(dst);
}

static void kfdbed_pdev_release(struct device *dev)
{
	kfree(to_pci_dev(dev));
}

static void kfdbed_gpu_destroy(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;

	if (adev) {
		kfdbed_ih_fini(gpu);
		if (gpu->sdma_wq)
			flush_workqueue(gpu->sdma_wq);
		if (adev->mman.initialized)
			kfdbed_bo_fini(gpu);
		if (gpu->sdma_wq)
			kfdbed_sdma_fini(gpu);
		kfree(adev->reset_domain);
	}
	kfree(gpu->node);
	kfree(gpu->kfd);
	/*
	 * The device is never bound to a driver, so its managed resources
	 * go with their group: the pagemap and its region (KFD's), then the
	 * drm device (adev), which drops its reference to the device.
	 */
	if (gpu->devres_group)
		devres_release_group(&gpu->pdev->dev, gpu->devres_group);
	put_device(&gpu->pdev->dev);
	vfree(gpu->vram);
	kvfree(gpu);
}

/*
 * Put @gpu in its hive, before KFD's pagemap is made (its owner is the
 * hive). Members are numbered in order of creation; each has a VRAM segment
 * of the hive's address space, as the PSP reports it on amdgpu.
 */
static void kfdbed_gpu_join_hive(struct kfdbed_gpu *gpu)
{
	unsigned int h = gpu->index < xgmi_hive_count ? xgmi_hive[gpu->index] :
							0;
	struct amdgpu_device *adev = gpu->adev;
	struct amdgpu_hive_info *hive;

	if (!h)
		return;
	hive = kfdbed_hives[h];
	gpu->xgmi_hive = h;
	adev->hive = hive;
	adev->gmc.xgmi.supported = true;
	adev->gmc.xgmi.hive_id = hive->hive_id;
	adev->gmc.xgmi.node_id = gpu->index + 1;
	adev->gmc.xgmi.physical_node_id =
		atomic_inc_return(&hive->number_devices) - 1;
	adev->gmc.xgmi.node_segment_size = gpu->vram_size;
	adev->vm_manager.vram_base_offset = adev->gmc.xgmi.physical_node_id *
					    adev->gmc.xgmi.node_segment_size;
}

#ifdef KFDBED_HAVE_XGMI_SAME_HIVE
/**
 * amdgpu_xgmi_same_hive() - may a GPU reach another's VRAM over xGMI?
 * @adev: the accessing GPU
 * @bo_adev: the GPU whose VRAM it is
 *
 * As amdgpu_xgmi_same_hive() of 7.3 (amdgpu_xgmi.c), which KFD's
 * svm_nodes_in_same_hive() calls (an inline of amdgpu_xgmi.h in 6.12).
 *
 * Return: true for two GPUs of one hive with xGMI peer access allowed.
 */
bool amdgpu_xgmi_same_hive(struct amdgpu_device *adev,
			   struct amdgpu_device *bo_adev)
{
	return amdgpu_use_xgmi_p2p && adev != bo_adev &&
	       adev->gmc.xgmi.hive_id &&
	       adev->gmc.xgmi.hive_id == bo_adev->gmc.xgmi.hive_id;
}
#endif

/**
 * kfdbed_gpu_reaches_vram() - whether a GPU can reach another's VRAM
 * @gpu: the accessing GPU
 * @owner: the GPU whose VRAM it is
 *
 * Return: true for its own VRAM and for a peer in the same xGMI hive.
 */
bool kfdbed_gpu_reaches_vram(struct kfdbed_gpu *gpu, struct kfdbed_gpu *owner)
{
	return gpu == owner ||
	       (gpu->adev->hive && gpu->adev->hive == owner->adev->hive);
}

static int kfdbed_gpu_create(unsigned int index)
{
	struct amdgpu_reset_domain *reset_domain;
	struct amdgpu_device *adev;
	struct kfdbed_gpu *gpu;
	struct pci_dev *pdev;
	int r;

	gpu = kvzalloc(sizeof(*gpu), GFP_KERNEL);
	pdev = kzalloc(sizeof(*pdev), GFP_KERNEL);
	if (!gpu || !pdev) {
		kvfree(gpu);
		kfree(pdev);
		return -ENOMEM;
	}
	gpu->index = index;
	gpu->pdev = pdev;
	gpu->vram_size = (u64)vram_mb << 20;

	device_initialize(&pdev->dev);
	pdev->dev.release = kfdbed_pdev_release;
	pdev->dev.coherent_dma_mask = DMA_BIT_MASK(64);
	pdev->dev.dma_mask = &pdev->dev.coherent_dma_mask;
	pdev->vendor = PCI_VENDOR_ID_ATI;
	pdev->device = apu ? 0x74a0 : 0x740c; /* MI300A, MI250X (Aldebaran) */
	r = dev_set_name(&pdev->dev, "kfdbed%u", index);
	if (r)
		goto out_destroy;
	kfdbed_gpus[index] = gpu;

	gpu->vram = vzalloc(gpu->vram_size);
	gpu->kfd = kzalloc(sizeof(*gpu->kfd), GFP_KERNEL);
	gpu->node = kzalloc(sizeof(*gpu->node), GFP_KERNEL);
	reset_domain = kzalloc(sizeof(*reset_domain), GFP_KERNEL);
	gpu->devres_group = devres_open_group(&pdev->dev, NULL, GFP_KERNEL);
	if (!gpu->devres_group) {
		kfree(reset_domain);
		r = -ENOMEM;
		goto out_destroy;
	}
	adev = devm_drm_dev_alloc(&pdev->dev, &kfdbed_drm_driver,
				  struct amdgpu_device, ddev);
	if (IS_ERR(adev)) {
		kfree(reset_domain);
		r = PTR_ERR(adev);
		goto out_destroy;
	}
	gpu->adev = adev;
	adev->reset_domain = reset_domain;
	if (!gpu->vram || !gpu->kfd || !gpu->node || !reset_domain) {
		r = -ENOMEM;
		goto out_destroy;
	}
	kref_init(&reset_domain->refcount);
	init_rwsem(&reset_domain->sem);

	adev->dev = &pdev->dev;
	adev->pdev = pdev;
	if (apu) {
		adev->asic_type = CHIP_IP_DISCOVERY;
		adev->flags = AMD_IS_APU;
		adev->ip_versions[GC_HWIP][0] = IP_VERSION(9, 4, 3);
		/*
		 * GFX 9.4.3 has AIDs; aqua_vanjaram_init_soc_config() sets
		 * AID 0's bit at least (one here). From 7.x on KFD's
		 * kfd_node_by_irq_ids() matches a fault's node by its IV
		 * when the mask is set (6.12: by the GC version).
		 */
		adev->aid_mask = BIT(0);
	} else {
		adev->asic_type = CHIP_ALDEBARAN;
		adev->flags = 0; /* a dGPU */
		adev->ip_versions[GC_HWIP][0] = IP_VERSION(9, 4, 2);
	}
	adev->gmc.real_vram_size = gpu->vram_size;
	adev->gmc.mc_vram_size = gpu->vram_size;
	adev->gmc.visible_vram_size = 0; /* no CPU access to VRAM */
	adev->gmc.vram_start = KFDBED_VRAM_START;
	adev->gmc.vram_end = KFDBED_VRAM_START + gpu->vram_size - 1;
	adev->gmc.gart_start = KFDBED_GART_START;
	adev->gmc.gart_size = KFDBED_GART_SIZE;
	adev->gmc.gart_end = KFDBED_GART_START + KFDBED_GART_SIZE - 1;
	adev->vm_manager.vram_base_offset = 0;
#ifdef KFDBED_HAVE_GMC_GET_VM_PTE
	adev->gmc.gmc_funcs = &kfdbed_gmc_funcs;
#endif
#ifdef KFDBED_HAVE_APU_PREFER_GTT
	/*
	 * As amdgpu_ttm_init() of 7.3: an APU whose carve-out is smaller
	 * than its GTT (by default the TTM page limit, half of system
	 * memory), as MI300A's is, prefers GTT; KFD then makes no device
	 * memory for it and keeps its pages in system memory, as 6.12's KFD
	 * did for every APU.
	 */
	if (apu)
		adev->apu_prefer_gtt =
			adev->gmc.real_vram_size <
			((u64)ttm_tt_pages_limit() << PAGE_SHIFT);
#endif
	kfdbed_gpu_join_hive(gpu);

	r = kfdbed_bo_init(gpu);
	if (r)
		goto out_destroy;
	r = kfdbed_sdma_init(gpu);
	if (r)
		goto out_destroy;
	r = kfdbed_ih_init(gpu);
	if (r)
		goto out_destroy;

	gpu->kfd->adev = adev;
	gpu->kfd->num_nodes = 1;
	gpu->kfd->nodes[0] = gpu->node;
	gpu->kfd->init_complete = true;
	gpu->node->adev = adev;
	gpu->node->kfd = gpu->kfd;
	gpu->node->id = KFDBED_GPU_ID(index);
	gpu->node->node_id = 0;
	gpu->node->xcc_mask = 1;
	gpu->node->interrupt_bitmap = 1;
	gpu->node->compute_vmid_bitmap = 0xff00;
	/* amdgpu_amdkfd_get_local_mem_info() of a dGPU: no CPU-visible VRAM. */
	gpu->node->local_mem_info.local_mem_size_private = gpu->vram_size;
	gpu->node->local_mem_info.local_mem_size_public = 0;
#ifdef KFDBED_HAVE_APU_PREFER_GTT
	/* And of an APU that prefers GTT: the GTT it may use (7.3). */
	if (adev->apu_prefer_gtt) {
		gpu->node->local_mem_info.local_mem_size_public =
			(u64)ttm_tt_pages_limit() << PAGE_SHIFT;
		gpu->node->local_mem_info.local_mem_size_private = 0;
	}
#endif
	adev->kfd.dev = gpu->kfd;

	/* KFD's own: VRAM as device-private memory, then its range limit. */
	r = kgd2kfd_init_zone_device(adev);
	if (r)
		goto out_destroy;
	svm_range_set_max_pages(adev);
	/* As kgd2kfd_device_init() does once the node is up. */
	kfd_topology_add_device(gpu->node);
	gpu->in_topology = true;
	devres_close_group(&pdev->dev, gpu->devres_group);

	dev_info(
		adev->dev,
		"emulated GPU %u: gpu_id 0x%x, %u MiB VRAM, %s, XNACK, xGMI hive %u\n",
		index, gpu->node->id, vram_mb,
		apu ? "GFX 9.4.3 APU" : "GFX 9.4.2",
		index < xgmi_hive_count ? xgmi_hive[index] : 0);
	return 0;

out_destroy:
	kfdbed_gpus[index] = NULL;
	kfdbed_gpu_destroy(gpu);
	return r;
}

static void kfdbed_hives_free(void)
{
	unsigned int h;

	for (h = 0; h < ARRAY_SIZE(kfdbed_hives); h++) {
		kfree(kfdbed_hives[h]);
		kfdbed_hives[h] = NULL;
	}
}

/* The hives xgmi_hive names; each has a distinct non-zero hive_id. */
static int kfdbed_hives_alloc(void)
{
	unsigned int i, h;

	if (xgmi_hive_count > num_gpus)
		return -EINVAL;
	for (i = 0; i < xgmi_hive_count; i++)
		if (xgmi_hive[i] > KFDBED_MAX_GPUS)
			return -EINVAL;
	for (i = 0; i < xgmi_hive_count; i++) {
		h = xgmi_hive[i];
		if (!h || kfdbed_hives[h])
			continue;
		kfdbed_hives[h] = kzalloc(sizeof(*kfdbed_hives[h]), GFP_KERNEL);
		if (!kfdbed_hives[h]) {
			kfdbed_hives_free();
			return -ENOMEM;
		}
		kfdbed_hives[h]->hive_id = 0x6b666462000000ULL + h;
		atomic_set(&kfdbed_hives[h]->number_devices, 0);
	}
	return 0;
}

static void kfdbed_cleanup(void)
{
	unsigned int i;

	/* As amdgpu's device exit does first (kfd_cleanup_nodes()). */
	for (i = 0; i < kfdbed_num_gpus; i++)
		if (kfdbed_gpus[i]->in_topology)
			kfd_topology_remove_device(kfdbed_gpus[i]->node);
	for (i = 0; i < kfdbed_num_gpus; i++)
		kfdbed_vram_evict_all(kfdbed_gpus[i]);
	kfdbed_kfd_fini();
	for (i = kfdbed_num_gpus; i-- > 0;) {
		kfdbed_gpu_destroy(kfdbed_gpus[i]);
		kfdbed_gpus[i] = NULL;
	}
	kfdbed_num_gpus = 0;
	kfdbed_hives_free();
}

static int __init kfdbed_init(void)
{
	unsigned int i;
	int r;

	if (!num_gpus || num_gpus > KFDBED_MAX_GPUS || vram_mb < 16 ||
	    vram_mb > 4096 || vram_mb % 2)
		return -EINVAL;
	r = kfdbed_hives_alloc();
	if (r)
		return r;
	for (i = 0; i < num_gpus; i++) {
		r = kfdbed_gpu_create(i);
		if (r)
			goto out_gpus;
		kfdbed_num_gpus++;
	}
	r = kfdbed_kfd_init();
	if (r)
		goto out_gpus;
	r = kfdbed_gpu_dev_init();
	if (r) {
		kfdbed_cleanup();
		return r;
	}
	return 0;

out_gpus:
	while (kfdbed_num_gpus) {
		kfdbed_num_gpus--;
		kfdbed_gpu_destroy(kfdbed_gpus[kfdbed_num_gpus]);
		kfdbed_gpus[kfdbed_num_gpus] = NULL;
	}
	kfdbed_hives_free();
	return r;
}

static void __exit kfdbed_exit(void)
{
	kfdbed_gpu_dev_fini();
	kfdbed_cleanup();
}

module_init(kfdbed_init);
module_exit(kfdbed_exit);
MODULE_DESCRIPTION(
	"KFD test bed: kernel KFD SVM code on emulated amdgpu devices");
/*
 * Out of tree, like amdgpu-dkms: with a version modpost records a
 * srcversion, which svmtune_kfd must be told (amdgpu_srcversion=) to
 * attach; run_kfdbed.sh does, the way an operator would.
 */
MODULE_VERSION("0");
MODULE_LICENSE("GPL");
