/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KFD test bed: the emulated amdgpu layer's internal interfaces. See the
 * comment at the top of kfdbed_main.c for the design.
 */
#ifndef KFDBED_H
#define KFDBED_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/mmu_notifier.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "amdgpu.h"
#include "amdgpu_amdkfd.h"
#include "amdgpu_ih.h"
#include "amdgpu_job.h"
#include "amdgpu_object.h"
#include "amdgpu_reset.h"
#include "amdgpu_ring.h"
#include "amdgpu_vm.h"
#include "amdgpu_vram_mgr.h"
#include "kfd_priv.h"
#include "kfd_svm.h"
#include "kfd_migrate.h"

#include "kfdbed_uapi.h"

#define KFDBED_MAX_GPUS 4

/*
 * The emulated GPU's address map (MC addresses, as the GPU's engines see
 * them): GART at 0, VRAM at 1 TiB, and an aperture at 2 TiB where the
 * indirect buffers (IBs) of jobs live. Real amdgpu places IBs in GTT
 * memory mapped through the GART; here the SDMA engine reads them from the
 * job that is executing.
 */
#define KFDBED_GART_START 0x0ULL
#define KFDBED_GART_SIZE (64ULL << 20)
#define KFDBED_VRAM_START (1ULL << 40)
#define KFDBED_IB_START (2ULL << 40)
#define KFDBED_IB_SIZE (1ULL << 40)

/* PTE and GART entry address bits, as GFX9's page table format has them. */
#define KFDBED_PTE_ADDR_MASK 0x0000FFFFFFFFF000ULL

/*
 * IH rings, in 32-byte IV entries as amdgpu's: ring 0 of vega20_ih
 * (IH_RING_SIZE, 256 KiB), IH1 (one page) and the software ring that
 * amdgpu_irq_delegate() writes (IH_SW_RING_SIZE, 16 KiB: "enough for 512
 * CAM entries", amdgpu_ih.h).
 */
#define KFDBED_IH_ENTRY_SHIFT 5
#define KFDBED_IH0_ENTRIES ((256 * 1024) >> KFDBED_IH_ENTRY_SHIFT)
#define KFDBED_IH1_ENTRIES (PAGE_SIZE >> KFDBED_IH_ENTRY_SHIFT)
#define KFDBED_IH_SOFT_ENTRIES ((16 * 1024) >> KFDBED_IH_ENTRY_SHIFT)

/*
 * The IH's retry CAM (IH 4.4, GFX 9.4.2 and 9.4.3): one entry per fault
 * address in flight. The IV carries the entry's index in src_data[2]
 * (10 bits, gmc_v9_0.c); amdgpu sizes its software ring for 512 entries.
 */
#define KFDBED_CAM_ENTRIES 512

/* SDMA packets of the emulated engine (our own format). */
#define KFDBED_SDMA_OP_NOP 0
#define KFDBED_SDMA_OP_COPY 1 /* op, bytes, src lo/hi, dst lo/hi, flags */
#define KFDBED_SDMA_OP_FILL 2 /* op, bytes, data, dst lo/hi */
#define KFDBED_SDMA_COPY_DW 7
#define KFDBED_SDMA_FILL_DW 5
#define KFDBED_SDMA_MAX_BYTES (4U << 20)

/**
 * struct kfdbed_ih_entry - one retry-fault IV in an emulated IH ring
 * @ts: 48-bit timestamp (nanoseconds), as the IV's timestamp field
 * @seq: sequence number of the entry in its ring (64-bit write count)
 * @page: faulting GPU page number
 * @pasid: PASID of the faulting VM
 * @vmid: VMID (compute VMIDs start at 8 on GFX9)
 * @node_id: node id of the IV (0: one partition)
 * @cam: retry CAM index (src_data[2]), -1 without the CAM
 * @write: the access was a write
 * @result: what svm_range_restore_pages() returned, once processed
 */
struct kfdbed_ih_entry {
	u64 ts;
	u64 seq;
	u64 page;
	u32 pasid;
	u16 vmid;
	u16 node_id;
	s16 cam;
	bool write;
	int result;
};

/**
 * struct kfdbed_ring - an emulated IH ring behind one of amdgpu's
 * @ih: amdgpu's ring (rptr, ptr_mask, processed_timestamp, wait_process)
 * @entries: @size entries
 * @size: entries, a power of two
 * @wseq: entries written (under the GPU's ih_lock; read without it)
 * @rseq: entries processed (written by the ring's worker only)
 */
struct kfdbed_ring {
	struct amdgpu_ih_ring *ih;
	struct kfdbed_ih_entry *entries;
	unsigned int size;
	u64 wseq;
	u64 rseq;
};

/**
 * struct kfdbed_cam_entry - one retry CAM entry
 * @key: PASID and page of the fault in flight (0: free)
 * @gen: acknowledgements so far (release-ordered after @result)
 * @result: what KFD returned for the fault last acknowledged
 * @node: in the GPU's CAM hash while @key is set
 */
struct kfdbed_cam_entry {
	u64 key;
	u32 gen;
	int result;
	struct hlist_node node;
};

/**
 * struct kfdbed_fault_ticket - a wave's hold on the fault it waits for
 * @cam: retry CAM index, or -1
 * @gen: the CAM entry's @gen when the wave joined it
 * @seq: the IH1 entry (no CAM), or U64_MAX
 */
struct kfdbed_fault_ticket {
	int cam;
	u32 gen;
	u64 seq;
};

/**
 * struct kfdbed_fault_filter_slot - one slot of the retry-fault filter of
 *	GPUs without a retry CAM
 * @key: PASID and page of the last fault hashed here (0: empty)
 * @ts: when it was delivered
 */
struct kfdbed_fault_filter_slot {
	u64 key;
	u64 ts;
};

#define KFDBED_FILTER_SLOTS 256
/*
 * Without the CAM, a fault seen again within this many ns is dropped, as
 * amdgpu_gmc_filter_faults() drops one within AMDGPU_GMC_FAULT_TIMEOUT
 * (5000 timestamp ticks) of the last.
 */
#define KFDBED_FILTER_NS (100 * NSEC_PER_USEC)

/* Counters, in the order of struct kfdbed_gpu_stats from @sdma_jobs on. */
enum kfdbed_stat {
	KFDBED_STAT_SDMA_JOBS,
	KFDBED_STAT_SDMA_BYTES,
	KFDBED_STAT_GART_MAPS,
	KFDBED_STAT_PTE_UPDATES,
	KFDBED_STAT_TLB_FLUSHES,
	KFDBED_STAT_RETRY_FAULTS,
	KFDBED_STAT_RETRY_FAULTS_FILTERED,
	KFDBED_STAT_RETRY_FAULTS_OVERFLOW,
	KFDBED_STAT_FAULTS_HANDLED,
	KFDBED_STAT_FAULTS_FAILED,
	KFDBED_STAT_FAULTS_UNSERVED,
	KFDBED_STAT_MIGRATIONS,
	KFDBED_STAT_PAGES_TO_VRAM,
	KFDBED_STAT_PAGES_TO_RAM,
	KFDBED_STAT_UNMAPS,
	KFDBED_STAT_ACCESSES,
	KFDBED_STAT_HMM_EAGAIN,
	KFDBED_STAT_FAULTS_DROPPED,
	KFDBED_STAT_FAULTS_STALE,
	KFDBED_STAT_IH_BATCH_MAX,
	KFDBED_STAT_PDB0_MAPS,
	KFDBED_STAT_PDB0_SPLITS,
	KFDBED_STAT_PDB0_CLEARS,
	KFDBED_STAT_PDB0_PAGES_LOST,
	KFDBED_STAT_VM_MAPS,
	KFDBED_STAT_FAULTS_STALE_SERVED,
	KFDBED_NR_STATS
};

/**
 * struct kfdbed_gpu - one emulated GPU
 * @index: 0..KFDBED_MAX_GPUS-1
 * @xgmi_hive: its xGMI hive number, 0 for none
 * @pdev: the PCI device amdgpu's code expects at adev->pdev (never on a bus)
 * @devres_group: the managed resources of @pdev (drm device, KFD's pagemap)
 * @adev: the amdgpu device, drm-managed, with the drm device inside
 * @kfd: KFD's device
 * @node: KFD's node (one partition)
 * @in_topology: the node is in KFD's topology (KFDBED_IOC_TOPOLOGY)
 * @vram_size: VRAM size in bytes
 * @vram: backing store of VRAM: the byte at VRAM offset x is vram[x]
 * @sdma: the SDMA ring (buffer_funcs_ring; from 7.x on, the ring of
 *	buffer_funcs_scheds[0])
 * @clear_entity: the ring's one clear entity (mman.clear_entities, 7.x)
 * @sdma_wq: ordered workqueue executing SDMA jobs in submission order
 * @fence_context: dma_fence context of the SDMA ring
 * @fence_seqno: last fence sequence number
 * @fence_lock: lock of the SDMA fences
 * @ib_next: next free address in the IB aperture
 * @ih_lock: protects the rings' @wseq, @cam, @cam_hash, @cam_used and
 *	@filter
 * @ih0: IH ring 0, where the hardware writes retry faults with the CAM
 * @ih1: IH1, where it writes them without the CAM
 * @ih_soft: the software ring amdgpu_irq_delegate() fills from ring 0
 * @cam: the retry CAM
 * @cam_hash: @cam's entries in use, by key
 * @cam_used: which @cam entries are in use
 * @filter: retry-fault filter (no CAM)
 * @wave_event: bumped when something a stalled wave waits for happened: a
 *	fault acknowledged, page-table entries written, queues resumed
 * @wave_wq: woken with @wave_event
 * @ih0_work: ring 0's interrupt handler
 * @soft_work: the software ring's worker (amdgpu's ih_soft_work)
 * @bo_count: BOs alive (kernel and KFD's)
 * @bo_wait: woken when a BO is destroyed
 * @stats: counters, read by KFDBED_IOC_INFO
 * @pte_updates_frag: valid PTEs written, by fragment
 */
struct kfdbed_gpu {
	unsigned int index;
	unsigned int xgmi_hive;
	struct pci_dev *pdev;
	void *devres_group;
	struct amdgpu_device *adev;
	struct kfd_dev *kfd;
	struct kfd_node *node;
	bool in_topology;
	u64 vram_size;
	void *vram;

	struct amdgpu_ring sdma;
#ifdef KFDBED_HAVE_TTM_ENTITY
	struct amdgpu_ttm_buffer_entity clear_entity;
#endif
	struct workqueue_struct *sdma_wq;
	u64 fence_context;
	atomic64_t fence_seqno;
	spinlock_t fence_lock;
	atomic64_t ib_next;

	spinlock_t ih_lock;
	struct kfdbed_ring ih0;
	struct kfdbed_ring ih1;
	struct kfdbed_ring ih_soft;
	struct kfdbed_cam_entry cam[KFDBED_CAM_ENTRIES];
	DECLARE_HASHTABLE(cam_hash, 9);
	DECLARE_BITMAP(cam_used, KFDBED_CAM_ENTRIES);
	struct kfdbed_fault_filter_slot filter[KFDBED_FILTER_SLOTS];
	atomic_t wave_event;
	wait_queue_head_t wave_wq;
	struct work_struct ih0_work;
	struct work_struct soft_work;

	atomic_t bo_count;
	wait_queue_head_t bo_wait;

	atomic64_t stats[KFDBED_NR_STATS];
	atomic64_t pte_updates_frag[KFDBED_NR_FRAGS];
};

#define kfdbed_stat_add(gpu, stat, n) atomic64_add((n), &(gpu)->stats[stat])
#define kfdbed_stat_inc(gpu, stat) atomic64_inc(&(gpu)->stats[stat])

/* Raise @max to @n if @n is larger (a high-water mark). */
static inline void kfdbed_atomic64_max(atomic64_t *max, s64 n)
{
	s64 m = atomic64_read(max);

	while (n > m && !atomic64_try_cmpxchg(max, &m, n))
		;
}

/**
 * struct kfdbed_vm - a process's GPU virtual address space on one GPU
 * @fpriv: amdgpu's per-file state; KFD's drm_priv_to_vm() finds @fpriv.vm
 * @file: the drm_file KFD's pdd->drm_priv points to
 * @gpu: the GPU
 * @pt_lock: protects the PTEs in the leaves of @pt
 * @pt: page table: 2 MiB index -> a PTB (leaf of 512 PTEs), or a PDB0
 *	entry used as a PTE (an xarray value: the PTE of the 2 MiB's first
 *	page); a PTB marked XA_MARK_0 is not linked yet (the PDE update is
 *	pending until amdgpu_vm_update_pdes()), so the GPU does not see it
 */
struct kfdbed_vm {
	struct amdgpu_fpriv fpriv;
	struct drm_file file;
	struct kfdbed_gpu *gpu;
	spinlock_t pt_lock;
	struct xarray pt;
};

#define KFDBED_PT_PENDING XA_MARK_0
#define KFDBED_PT_LEAF_SHIFT 9
#define KFDBED_PT_LEAF_ENTRIES (1U << KFDBED_PT_LEAF_SHIFT)

/**
 * struct kfdbed_process - KFD's process with the test bed's additions
 * @p: KFD's process, as kfd_process.c leaves it for the SVM code
 * @info: amdgpu's per-process KFD info (p.kgd_process_info)
 * @list: in kfdbed_processes
 * @queues_evicted: kgd2kfd_quiesce_mm() nesting count: the process's
 *	queues are stopped while it is not zero
 * @queues_wait: woken when @queues_evicted drops to zero
 */
struct kfdbed_process {
	struct kfd_process p;
	struct amdkfd_process_info info;
	struct list_head list;
	atomic_t queues_evicted;
	wait_queue_head_t queues_wait;
};

extern struct kfdbed_gpu *kfdbed_gpus[KFDBED_MAX_GPUS];
extern unsigned int kfdbed_num_gpus;

/* kfdbed_main.c */
struct kfdbed_gpu *kfdbed_gpu_from_adev(struct amdgpu_device *adev);
void kfdbed_warn_unsupported(const char *what);
bool kfdbed_gpu_reaches_vram(struct kfdbed_gpu *gpu, struct kfdbed_gpu *owner);

/* kfdbed_bo.c */
int kfdbed_bo_init(struct kfdbed_gpu *gpu);
void kfdbed_bo_fini(struct kfdbed_gpu *gpu);
int kfdbed_bo_create_kernel(struct kfdbed_gpu *gpu, unsigned long size,
			    bool contiguous, struct amdgpu_bo **bo_ptr);
int kfdbed_bo_create_pd(struct kfdbed_gpu *gpu, struct amdgpu_bo **bo_ptr);
u64 kfdbed_bo_vram_offset(struct amdgpu_bo *bo);

/* kfdbed_sdma.c */
int kfdbed_sdma_init(struct kfdbed_gpu *gpu);
void kfdbed_sdma_fini(struct kfdbed_gpu *gpu);
int kfdbed_sdma_fill(struct kfdbed_gpu *gpu, u64 dst, u64 size, u32 data,
		     struct dma_fence **fence);

/* kfdbed_vm.c */
struct kfdbed_vm *kfdbed_vm_create(struct kfdbed_gpu *gpu, u32 pasid);
void kfdbed_vm_destroy(struct kfdbed_vm *kvm);
u64 kfdbed_vm_lookup(struct kfdbed_vm *kvm, u64 page);
#ifdef KFDBED_HAVE_GMC_GET_VM_PTE
extern const struct amdgpu_gmc_funcs kfdbed_gmc_funcs;
#endif
static inline struct kfdbed_vm *kfdbed_vm_of(struct amdgpu_vm *vm)
{
	return container_of(vm, struct kfdbed_vm, fpriv.vm);
}

/* kfdbed_ih.c */
extern bool kfdbed_retry_cam;
int kfdbed_ih_init(struct kfdbed_gpu *gpu);
void kfdbed_ih_fini(struct kfdbed_gpu *gpu);
int kfdbed_ih_raise_retry_fault(struct kfdbed_gpu *gpu, u32 pasid, u64 page,
				bool write, struct kfdbed_fault_ticket *t);
bool kfdbed_ih_fault_done(struct kfdbed_gpu *gpu,
			  const struct kfdbed_fault_ticket *t, int *result);
void kfdbed_gpu_event(struct kfdbed_gpu *gpu);

/* kfdbed_kfd.c */
int kfdbed_kfd_init(void);
void kfdbed_kfd_fini(void);
struct kfdbed_process *kfdbed_process_get_current(void);

/* kfdbed_gpu.c */
int kfdbed_gpu_dev_init(void);
void kfdbed_gpu_dev_fini(void);
struct kfdbed_gpu *kfdbed_gpu_by_id(u32 gpu_id);

/* Where a page a GPU accessed was. */
enum kfdbed_gpu_mem {
	KFDBED_MEM_SYSTEM,
	KFDBED_MEM_VRAM,
	KFDBED_MEM_PEER_VRAM,
};

int kfdbed_gpu_copy_page(struct kfdbed_gpu *gpu, u64 pte, void *buf, bool write,
			 enum kfdbed_gpu_mem *mem);

/* kfdbed_wave.c */
long kfdbed_waves(struct kfdbed_waves_args *a);

#endif /* KFDBED_H */
