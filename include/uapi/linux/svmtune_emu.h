/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * svmtune_emu: the emulated GPU's user-space interface, on
 * /dev/svmtune_emuN. Each open file is one GPU context bound to the
 * address space of the process that opened it; ioctls from another
 * address space get -EPERM. Conventions as in <linux/svmtune.h>: flags and
 * reserved fields must be zero, unknown commands return -ENOTTY.
 */
#ifndef _UAPI_LINUX_SVMTUNE_EMU_H
#define _UAPI_LINUX_SVMTUNE_EMU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SVMTUNE_EMU_IOC_MAGIC	0xBB

/* The most bytes one ACCESS or MIGRATE may cover. */
#define SVMTUNE_EMU_MAX_BYTES	(256ULL << 20)

#define SVMTUNE_EMU_READ	1	/* the GPU reads memory into @ptr */
#define SVMTUNE_EMU_WRITE	2	/* the GPU writes @ptr into memory */

/**
 * struct svmtune_emu_access - argument of %SVMTUNE_EMU_IOC_ACCESS: the GPU
 *	reads or writes [@addr, @addr + @size) as a kernel running on it would;
 *	every page it has not mapped raises a device fault that svmtune decides
 * @addr: in: page-aligned address in the context's address space
 * @size: in: page-aligned, nonzero, at most %SVMTUNE_EMU_MAX_BYTES
 * @ptr: in: user buffer of @size bytes: the data to write, or where the
 *	data read goes
 * @op: in: %SVMTUNE_EMU_READ or %SVMTUNE_EMU_WRITE
 * @flags: in: must be zero
 * @faults: out: device faults taken
 * @migrated: out: pages migrated to this device by those faults
 * @remote: out: pages those faults mapped remotely (in system memory)
 * @retries: out: times a fault's mapping walk started over because pages
 *	of its window changed under it (an invalidation elsewhere in the
 *	address space does not count); must be zero on input
 * @remote_accesses: out: page accesses (reads or writes) served through
 *	a remote mapping: by system memory or another device's memory, over
 *	the link, not by this device's own memory; must be zero on input.
 *	Formerly "reserved", which had to be zero: same offset and size.
 * @tlb_hits: out: page accesses the context's TLB model translated from a
 *	cached entry (each entry covers one PTE fragment); must be zero on
 *	input. Not in the first version of the struct: a shorter struct
 *	gets no TLB counts.
 * @tlb_misses: out: page accesses that needed a page walk; must be zero
 *	on input
 * @evicted: out: pages of other blocks this access's faults moved back to
 *	system memory to make room in a full device (the engine picks the
 *	least recently used blocks; knob ``evict_when_full``); must be zero
 *	on input
 */
struct svmtune_emu_access {
	__u64 addr;
	__u64 size;
	__u64 ptr;
	__u32 op;
	__u32 flags;
	__u64 faults;
	__u64 migrated;
	__u64 remote;
	__u64 retries;
	__u64 remote_accesses;
	__u64 tlb_hits;
	__u64 tlb_misses;
	__u64 evicted;
};

#define SVMTUNE_EMU_TO_DEVICE	1
#define SVMTUNE_EMU_TO_SYSTEM	2

/**
 * struct svmtune_emu_migrate - argument of %SVMTUNE_EMU_IOC_MIGRATE: an
 *	explicit migration (prefetch), no fault and no policy decision
 * @addr: in: page-aligned
 * @size: in: page-aligned, nonzero, at most %SVMTUNE_EMU_MAX_BYTES; every
 *	page must be mapped (otherwise -EFAULT)
 * @dest: in: %SVMTUNE_EMU_TO_DEVICE or %SVMTUNE_EMU_TO_SYSTEM
 * @flags: in: must be zero
 * @migrated: out: pages that moved
 * @reserved: must be zero
 */
struct svmtune_emu_migrate {
	__u64 addr;
	__u64 size;
	__u32 dest;
	__u32 flags;
	__u64 migrated;
	__u64 reserved[2];
};

/* Per-page snapshot entry bits. */
#define SVMTUNE_EMU_PAGE_SYSTEM		(1u << 0)	/* in system memory */
#define SVMTUNE_EMU_PAGE_DEVICE		(1u << 1)	/* in this device's memory */
#define SVMTUNE_EMU_PAGE_MAPPED		(1u << 2)	/* mapped in the device page table */
#define SVMTUNE_EMU_PAGE_REMOTE		(1u << 3)	/* ... to system memory */
#define SVMTUNE_EMU_PAGE_WRITE		(1u << 4)	/* ... writable */
/* Bits 8-15: log2 bytes of the block the device mapping was made for. */
#define SVMTUNE_EMU_PAGE_FRAG_SHIFT	8
#define SVMTUNE_EMU_PAGE_FRAG(e)	(((e) >> 8) & 0xff)
/*
 * Bits 16-23, for a mapped page: log2 bytes of its PTE fragment, as amdgpu
 * computes it (the aligned run of pages mapped in the same update,
 * physically contiguous in VRAM; 12 for a page in system memory).
 */
#define SVMTUNE_EMU_PAGE_PTE_FRAG_SHIFT	16
#define SVMTUNE_EMU_PAGE_PTE_FRAG(e)	(((e) >> 16) & 0xff)

/**
 * struct svmtune_emu_snapshot - argument of %SVMTUNE_EMU_IOC_SNAPSHOT: where
 *	each page of a range is, without faulting anything
 * @addr: in: page-aligned
 * @size: in: page-aligned, nonzero, at most %SVMTUNE_EMU_MAX_BYTES
 * @ptr: in: user array of @size / page size __u32 entries, SVMTUNE_EMU_PAGE_*
 * @flags: in: must be zero
 * @reserved0: must be zero
 * @reserved: must be zero
 */
struct svmtune_emu_snapshot {
	__u64 addr;
	__u64 size;
	__u64 ptr;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

#define SVMTUNE_EMU_IOC_ACCESS	 _IOWR(SVMTUNE_EMU_IOC_MAGIC, 0x00, struct svmtune_emu_access)
#define SVMTUNE_EMU_IOC_MIGRATE	 _IOWR(SVMTUNE_EMU_IOC_MAGIC, 0x01, struct svmtune_emu_migrate)
#define SVMTUNE_EMU_IOC_SNAPSHOT _IOW(SVMTUNE_EMU_IOC_MAGIC, 0x02, struct svmtune_emu_snapshot)

#endif /* _UAPI_LINUX_SVMTUNE_EMU_H */
