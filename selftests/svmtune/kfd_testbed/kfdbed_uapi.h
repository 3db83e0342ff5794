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

#define KFDBED_VERSION 3

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
 * @retry_faults: retry faults written to the IH1 ring
 * @retry_faults_filtered: retry faults the fault filter dropped
 * @retry_faults_overflow: retry faults dropped on a full ring
 * @faults_handled: retry faults handed to svm_range_restore_pages()
 * @faults_failed: of those, how many it returned an error for
 * @faults_unserved: of those, how many it returned 0 for with the page
 *	still unmapped when the GPU retried: dropped by KFD (its 2 ms
 *	duplicate-fault filter on the range, a draining or a skipped range)
 *	or, rarely, unmapped again before the retry
 * @migrations: KFD migration start events
 * @pages_to_vram: pages copied to VRAM by SDMA (from the copy sizes)
 * @pages_to_ram: pages copied from VRAM by SDMA
 * @unmaps: KFD unmap-from-GPU events
 * @accesses: pages accessed through KFDBED_IOC_ACCESS
 * @hmm_eagain: amdgpu_hmm_range_get_pages() calls that returned -EAGAIN
 *	because the range changed under hmm_range_fault() (-EBUSY), as
 *	6.12's amdgpu returns it: KFD then returns 0 and the GPU retries
 *	(since version 3)
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

#define KFDBED_IOC_INFO _IOR('k', 0x40, struct kfdbed_info_args)
#define KFDBED_IOC_ACCESS _IOWR('k', 0x41, struct kfdbed_access_args)
#define KFDBED_IOC_TOPOLOGY _IOW('k', 0x43, struct kfdbed_topology_args)
#define KFDBED_IOC_VRAM_HOLD _IOWR('k', 0x44, struct kfdbed_vram_hold_args)

#endif /* KFDBED_UAPI_H */
