/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * KFD test bed: the control device /dev/kfdbed, for tests. KFD's own API
 * (AMDKFD_IOC_GET_VERSION, AMDKFD_IOC_SET_XNACK_MODE, AMDKFD_IOC_SVM) is on
 * /dev/kfd; this device is what a GPU would do on its own: access memory
 * through its page table, and report what it saw.
 */
#ifndef KFDBED_UAPI_H
#define KFDBED_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KFDBED_VERSION 5

/* PTE fragment sizes: 4 KiB << f for f in 0..KFDBED_NR_FRAGS-1 (as GFX9). */
#define KFDBED_NR_FRAGS 32

/**
 * struct kfdbed_gpu_stats - one GPU's counters
 * @gpu_id: KFD's gpu_id, as AMDKFD_IOC_SVM attributes take it
 * @xgmi_hive: the GPU's xGMI hive number (module parameter), 0 for none
 * @vram_size: bytes of VRAM
 * @vram_used: bytes of VRAM allocated to BOs
 * @sdma_jobs: SDMA jobs executed
 * @sdma_bytes: bytes copied or filled by SDMA
 * @gart_maps: GART entries written by amdgpu_gart_map()
 * @pte_updates: PTEs written by amdgpu_vm_update_range()
 * @tlb_flushes: amdgpu_vm_flush_compute_tlb() calls
 * @retry_faults: retry faults written to an IH ring (ring 0 with the
 *	retry CAM, IH1 without)
 * @retry_faults_filtered: retry faults not written because the address
 *	was in flight: held back by the retry CAM, or dropped by the fault
 *	filter of GPUs without one
 * @retry_faults_overflow: retry faults dropped on a full CAM or ring
 * @faults_handled: retry faults handed to svm_range_restore_pages()
 * @faults_failed: of those, how many it returned an error for
 * @faults_unserved: KFDBED_IOC_ACCESS faults KFD returned 0 for with the
 *	page still unmapped when the GPU retried
 * @migrations: KFD migration start events
 * @pages_to_vram: pages copied to VRAM by SDMA (from the copy sizes)
 * @pages_to_ram: pages copied from VRAM by SDMA
 * @unmaps: KFD unmap-from-GPU events
 * @accesses: pages accessed through KFDBED_IOC_ACCESS
 * @hmm_eagain: amdgpu_hmm_range_get_pages() calls that returned -EAGAIN
 *	because the range changed under hmm_range_fault() (-EBUSY), as
 *	6.12's amdgpu returns it: KFD then returns 0 and the GPU retries
 *	(since version 3)
 * @faults_dropped: faults svm_range_restore_pages() returned 0 for with
 *	the page still not mapped as the access needs right after: dropped
 *	by KFD (its 2 ms duplicate check on the range, a draining, a skipped
 *	range, hmm's -EAGAIN); the GPU raises them again (since version 4)
 * @faults_stale: faults whose page was already mapped when KFD got them:
 *	another fault mapped it while this one waited in the ring
 *	(since version 4)
 * @ih_batch_max: the most faults a fault handler found waiting in its
 *	ring at once (since version 4)
 * @pdb0_maps: 2 MiB mapped by one PDB0 entry used as a PTE (fragments of
 *	2 MiB and up, as GFX9 writes them), their page table freed
 *	(since version 4)
 * @pdb0_splits: PDB0 entries replaced by a new, cleared page table when a
 *	smaller fragment was mapped into their 2 MiB (since version 4)
 * @pdb0_clears: PDB0 entries cleared whole when part of their 2 MiB was
 *	unmapped (since version 4)
 * @pdb0_pages_lost: pages the last two took from the GPU besides those
 *	the update asked for: each faults again on its next access
 *	(since version 4)
 * @vm_maps: amdgpu_vm_update_range() calls that mapped (valid PTEs)
 *	(since version 4)
 * @faults_stale_served: of @faults_stale, those KFD served again in full:
 *	it mapped on this GPU while handling them (a duplicate that got
 *	through a retry filter; since version 4)
 * @pte_updates_frag: @pte_updates by the PTE fragment they were written
 *	with (amdgpu's rule: the largest power of two the start is aligned
 *	to that fits in the physically contiguous run; 0 for scattered
 *	pages), valid PTEs only
 */
struct kfdbed_gpu_stats {
	__u32 gpu_id;
	__u32 xgmi_hive;
	__u64 vram_size;
	__u64 vram_used;
	__u64 sdma_jobs;
	__u64 sdma_bytes;
	__u64 gart_maps;
	__u64 pte_updates;
	__u64 tlb_flushes;
	__u64 retry_faults;
	__u64 retry_faults_filtered;
	__u64 retry_faults_overflow;
	__u64 faults_handled;
	__u64 faults_failed;
	__u64 faults_unserved;
	__u64 migrations;
	__u64 pages_to_vram;
	__u64 pages_to_ram;
	__u64 unmaps;
	__u64 accesses;
	__u64 hmm_eagain;
	__u64 faults_dropped;
	__u64 faults_stale;
	__u64 ih_batch_max;
	__u64 pdb0_maps;
	__u64 pdb0_splits;
	__u64 pdb0_clears;
	__u64 pdb0_pages_lost;
	__u64 vm_maps;
	__u64 faults_stale_served;
	__u64 pte_updates_frag[KFDBED_NR_FRAGS];
};

/**
 * struct kfdbed_info_args - KFDBED_IOC_INFO
 * @version: out: KFDBED_VERSION
 * @num_gpus: out: GPUs (at most 4)
 * @gpus: out: their counters
 */
struct kfdbed_info_args {
	__u32 version;
	__u32 num_gpus;
	struct kfdbed_gpu_stats gpus[4];
};

#define KFDBED_ACCESS_WRITE (1U << 0)

/**
 * struct kfdbed_access_args - KFDBED_IOC_ACCESS: the GPU reads or writes
 *	the caller's memory through its page table
 * @va: GPU virtual address (SVM: the CPU address), page-aligned
 * @ptr: user buffer the data is read into or written from
 * @size: bytes, a multiple of the page size
 * @gpu_id: which GPU
 * @flags: KFDBED_ACCESS_WRITE for a write
 * @faults: out: retry faults raised
 * @fault_error: out: when the access failed on a fault, what
 *	svm_range_restore_pages() returned (negative errno), else 0
 * @fault_addr: out: the failing address
 * @vram_pages: out: pages the GPU found in its own VRAM
 * @sys_pages: out: pages the GPU found in system memory
 * @peer_pages: out: pages the GPU found in another GPU's VRAM (xGMI)
 *
 * Errors: EINVAL for flags other than KFDBED_ACCESS_WRITE, a zero or
 * unaligned size or va, a span that wraps or leaves user space, or an
 * output field not zero on input; ENODEV for a gpu_id no GPU has (or one
 * the process has no KFD device data for); ESRCH for a process that has
 * not opened /dev/kfd; EFAULT for a bad ptr or argument. Unknown
 * commands: ENOTTY.
 */
struct kfdbed_access_args {
	__u64 va;
	__u64 ptr;
	__u64 size;
	__u32 gpu_id;
	__u32 flags;
	__u32 faults;
	__s32 fault_error;
	__u64 fault_addr;
	__u64 vram_pages;
	__u64 sys_pages;
	__u64 peer_pages;
};

/* KFDBED_IOC_WAVES access patterns. */
#define KFDBED_WAVES_PARTITION 0 /* wave w walks its own 1/N of the pages */
#define KFDBED_WAVES_GRID 1 /* access k of wave w: page k * N + w */
#define KFDBED_WAVES_STRIDE 2 /* page w + k * stride */
#define KFDBED_WAVES_RANDOM 3 /* seeded uniform random pages */
#define KFDBED_WAVES_SHARED 4 /* all waves over the first stride pages */
#define KFDBED_WAVES_NR_PATTERNS 5

#define KFDBED_WAVES_WRITE (1U << 0) /* each access writes the page */
#define KFDBED_WAVES_VERIFY (1U << 1) /* each read checks the page */

#define KFDBED_WAVES_MAX 4096
#define KFDBED_WAVES_MAX_CUS 16

/**
 * struct kfdbed_waves_args - KFDBED_IOC_WAVES: a GPU runs an access
 *	program in many concurrent waves
 * @va: first byte of the buffer (GPU address = CPU address), page aligned
 * @size: bytes, a multiple of the page size
 * @gpu_id: which GPU
 * @waves: concurrent waves, 1 to KFDBED_WAVES_MAX
 * @pattern: KFDBED_WAVES_PARTITION, _GRID, _STRIDE, _RANDOM or _SHARED
 * @flags: KFDBED_WAVES_WRITE: every access writes the whole page with
 *	kfdbed_pattern_word(address of the word, @seed); KFDBED_WAVES_VERIFY
 *	(reads only): every access compares the page with it
 * @accesses: page accesses per wave; 0: one pass (PARTITION: the wave's
 *	share; GRID: every page once over all waves; the others: pages /
 *	waves, at least 1)
 * @stride: STRIDE: pages between a wave's accesses; SHARED: the pages all
 *	waves share; 0 for the other patterns
 * @seed: RANDOM's seed, and the data's
 * @cus: compute units (threads) the waves run on, round robin; 0: one per
 *	online CPU; at most KFDBED_WAVES_MAX_CUS
 * @done: out: page accesses done
 * @faults: out: retry faults the waves raised (written to a ring)
 * @held: out: faults not raised because the address was in flight (the
 *	retry CAM held them back) or the no-CAM filter dropped them
 * @reraised: out: of @faults, those raised again for a page after KFD
 *	had returned 0 for the last fault on it and it was still unmapped
 * @overflows: out: stalls that met a full CAM or ring (the fault is
 *	dropped and raised again at the next replay)
 * @stalls: out: times a wave stalled on an unmapped page
 * @max_stalled: out: most waves stalled at once
 * @mismatches: out: pages a KFDBED_WAVES_VERIFY read found wrong
 * @mismatch_va: out: the first of them
 * @fault_error: out: when a fault failed, what svm_range_restore_pages()
 *	returned, else 0
 * @fault_addr: out: the address it failed at
 * @ns: out: nanoseconds from the first wave's start to the last's end
 * @vram_pages: out: accesses that found the page in the GPU's VRAM
 * @sys_pages: out: in system memory
 * @peer_pages: out: in a peer's VRAM (xGMI)
 *
 * Each wave runs its accesses in order; at an unmapped page it raises a
 * retry fault and stalls (XNACK) until the page is mapped, replaying when
 * page tables change or its fault is acknowledged; a repeat of an address
 * in flight is held back by the retry CAM. Every other wave goes on
 * meanwhile, so many faults are in flight at once. The waves stop at the
 * first failed fault (as the queue would be lost) or on a fatal signal.
 *
 * Errors: EINVAL for an unknown pattern or flag, VERIFY with WRITE, 0 or
 * too many waves or CUs, a stride where none is taken or none where one
 * is, an unaligned or wrapping span, or an out field not zero on input;
 * ENODEV, ESRCH as KFDBED_IOC_ACCESS; EFAULT when a fault failed (see
 * @fault_error); ETIMEDOUT when no wave made progress for 30 s; EINTR on a
 * fatal signal; ENOMEM.
 */
struct kfdbed_waves_args {
	__u64 va;
	__u64 size;
	__u32 gpu_id;
	__u32 waves;
	__u32 pattern;
	__u32 flags;
	__u64 accesses;
	__u64 stride;
	__u64 seed;
	__u32 cus;
	__s32 fault_error;
	__u64 done;
	__u64 faults;
	__u64 held;
	__u64 reraised;
	__u64 overflows;
	__u64 stalls;
	__u64 max_stalled;
	__u64 mismatches;
	__u64 mismatch_va;
	__u64 fault_addr;
	__u64 ns;
	__u64 vram_pages;
	__u64 sys_pages;
	__u64 peer_pages;
};

/*
 * The data KFDBED_IOC_WAVES writes and checks: word i of a page at address
 * va is kfdbed_pattern_word(va + 8 * i, seed), a splitmix64 of both.
 */
static inline __u64 kfdbed_pattern_word(__u64 addr, __u64 seed)
{
	__u64 z = addr + seed * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define KFDBED_TOPOLOGY_REMOVE (1U << 0)
#define KFDBED_TOPOLOGY_ADD (1U << 1)

/**
 * struct kfdbed_topology_args - KFDBED_IOC_TOPOLOGY: a GPU's KFD node
 *	leaves, or joins again, KFD's topology, as in a partition mode
 *	change and back: amdgpu's kfd_topology_remove_device() and
 *	kfd_topology_add_device(), which svmtune_kfd hooks
 * @gpu_id: which GPU
 * @flags: KFDBED_TOPOLOGY_REMOVE or KFDBED_TOPOLOGY_ADD, exactly one
 *
 * The node is not freed: the test bed goes on serving its faults, so a
 * test sees what svmtune_kfd does with faults on a node it was told is
 * gone, and with the node when it comes back.
 *
 * Errors: EINVAL for flags other than exactly one of the two, removing a
 * node that is out of the topology or adding one that is in it; ENODEV for
 * a gpu_id no GPU has; EFAULT for a bad argument.
 */
struct kfdbed_topology_args {
	__u32 gpu_id;
	__u32 flags;
};

/**
 * struct kfdbed_vram_hold_args - KFDBED_IOC_VRAM_HOLD: take a GPU's free
 *	VRAM in a span, as other processes' and the driver's own BOs would
 *	hold it, so a test can lay out fragmented VRAM
 * @gpu_id: which GPU
 * @flags: 0
 * @offset: start of the span in VRAM, in bytes, page aligned
 * @size: its size in bytes, page aligned, not 0
 * @held: out: bytes taken
 *
 * Every free page of VRAM in [offset, offset + size) is taken from the
 * VRAM manager's buddy allocator, as amdgpu reserves VRAM for firmware
 * (amdgpu_vram_mgr_reserve_range()), until the file is closed. Pages BOs
 * hold are left to them.
 *
 * Errors: EINVAL for flags other than 0, an unaligned or zero span, one
 * that wraps or ends past the GPU's VRAM, or held not zero on input;
 * ENODEV for a gpu_id no GPU has; EFAULT for a bad argument.
 */
struct kfdbed_vram_hold_args {
	__u32 gpu_id;
	__u32 flags;
	__u64 offset;
	__u64 size;
	__u64 held;
};

/**
 * struct kfdbed_ranges_args - KFDBED_IOC_RANGES: how many SVM ranges KFD
 *	keeps for the caller's process, as KFD counts them for a checkpoint
 *	(svm_range_get_info(), which AMDKFD_IOC_CRIU_OP's PROCESS_INFO calls)
 *	(since version 5)
 * @flags: 0
 * @ranges: out: the number of ranges
 *
 * Each range costs KFD an MMU interval notifier, DMA address arrays per
 * GPU and, in VRAM, a BO: the count is what a policy that makes ranges
 * smaller costs the kernel.
 *
 * Errors: EINVAL for flags or ranges not 0 on input; ESRCH when the
 * caller has no KFD process (never opened /dev/kfd); EFAULT for a bad
 * argument.
 */
struct kfdbed_ranges_args {
	__u32 flags;
	__u32 ranges;
};

#define KFDBED_PAGE_HOLD_RELEASE (1U << 0)
#define KFDBED_PAGE_HOLD_MAX 16

/**
 * struct kfdbed_page_hold_args - KFDBED_IOC_PAGE_HOLD: hold a reference on
 *	the VRAM page a GPU maps at an address, as a CPU fault in flight on
 *	that page does (do_swap_page() holds the device page while it calls
 *	KFD's svm_migrate_to_ram()), so that a migration meets a page it
 *	cannot move: migrate_vma skips a page with a reference more than
 *	its mappings, and KFD's move between two GPUs then fails with
 *	-EDEADLK after its three tries (svm_migrate_vram_to_vram())
 *	(since version 5)
 * @gpu_id: the GPU whose page table maps @va to its own VRAM
 * @flags: 0, or KFDBED_PAGE_HOLD_RELEASE: drop every page this file holds
 *	(@gpu_id and @va then 0)
 * @va: the address, page-aligned
 * @held: out: pages this file holds after the call
 * @pad: 0
 *
 * A file holds at most KFDBED_PAGE_HOLD_MAX pages, dropped when it is
 * closed. The hold is only a reference: the page is not locked and KFD
 * may still unmap it; it is freed (KFD's page_free) when the last
 * reference goes.
 *
 * Errors: EINVAL for unknown flags, an unaligned or non-user @va, @held
 * not zero on input, or a release with @gpu_id or @va set; ENODEV for a
 * gpu_id no GPU has or one the caller's KFD process has no VM on; ESRCH
 * when the caller has no KFD process; ENOENT when the GPU does not map
 * @va to its own VRAM; ENOSPC when the file holds KFDBED_PAGE_HOLD_MAX
 * pages; EFAULT for a bad argument.
 */
struct kfdbed_page_hold_args {
	__u32 gpu_id;
	__u32 flags;
	__u64 va;
	__u32 held;
	__u32 pad;
};

#define KFDBED_IOC_INFO _IOR('k', 0x40, struct kfdbed_info_args)
#define KFDBED_IOC_ACCESS _IOWR('k', 0x41, struct kfdbed_access_args)
#define KFDBED_IOC_TOPOLOGY _IOW('k', 0x43, struct kfdbed_topology_args)
#define KFDBED_IOC_VRAM_HOLD _IOWR('k', 0x44, struct kfdbed_vram_hold_args)
#define KFDBED_IOC_WAVES _IOWR('k', 0x45, struct kfdbed_waves_args)
#define KFDBED_IOC_RANGES _IOWR('k', 0x46, struct kfdbed_ranges_args)
#define KFDBED_IOC_PAGE_HOLD _IOWR('k', 0x47, struct kfdbed_page_hold_args)

#endif /* KFDBED_UAPI_H */
