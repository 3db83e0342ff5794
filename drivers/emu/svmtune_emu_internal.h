/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune_emu: what the files of svmtune_emu.ko share. The design and its
 * locking are at the top of svmtune_emu_main.c (DOC: Overview, Locking),
 * the peer faults' lock in svmtune_emu_migrate.c.
 */
#ifndef _SVMTUNE_EMU_INTERNAL_H
#define _SVMTUNE_EMU_INTERNAL_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <linux/svmtune_emu.h>
#include <svmtune/backend.h>
#include <svmtune/compat.h>
#include <svmtune/ioctl.h>

#define SVMTUNE_EMU_MAX_DEVICES	4

/**
 * struct svmtune_emu_thp_stats - what a device did with 2 MiB device
 *	folios (compound device migration, SVMTUNE_DEVICE_THP kernels);
 *	debugfs svmtune_emu/<device>/thp
 * @to_device: windows migrated to VRAM as one device folio
 * @to_system: device folios migrated back whole, to a system THP
 * @to_system_split: device folios migrated back as pages (no system THP
 *	could be had, or the VMA takes none): the kernel split them
 * @split: device folios the kernel split in place (a CPU fault on part of
 *	one that munmap, mprotect or MADV_DONTNEED of a part of it left
 *	mapped by PTEs)
 * @fallback: windows that qualified but went page by page (no free
 *	aligned run, or the kernel collected or placed no compound entry)
 * @freed: device folios freed whole
 */
struct svmtune_emu_thp_stats {
	atomic_long_t to_device;
	atomic_long_t to_system;
	atomic_long_t to_system_split;
	atomic_long_t split;
	atomic_long_t fallback;
	atomic_long_t freed;
};

/**
 * struct svmtune_emu_device - one emulated GPU
 * @core: the device as the policy engine knows it
 * @misc: /dev/svmtune_emuN
 * @name: "svmtune_emuN"
 * @pagemap: the device-private pages
 * @pfn_first: pfn of the first VRAM page
 * @npages: VRAM pages
 * @backing: system pages holding each VRAM page's bytes
 * @touched: per VRAM page: the GPU accessed it since it arrived (or its
 *	waste was already counted)
 * @departed: per VRAM page: migrated to system memory by
 *	svmtune_emu_migrate_chunk_to_ram() and not yet freed (set with the
 *	page locked, before migrate_vma_finalize() unlocks it; cleared by
 *	->page_free()). Such a page is mapped nowhere, and the unload's
 *	eviction must not migrate it again: migrate_device_range() takes any
 *	page it can reference and lock, and a second migration of a page
 *	whose first already moved its memory cgroup charge away finds none
 *	(mem_cgroup_migrate() warns).
 * @lock: protects @used, @reserved, @holds, @taken, @nfree, @hint and
 *	@region_gen; taken inside a context's layout lock
 * @used: per VRAM page: allocated
 * @reserved: per VRAM page: in a run reserved for a fragment block
 *	(svmtune_emu_reserve_run()), whether allocated or not
 * @holds: per VRAM page: how many reserved runs hold it (a new run takes
 *	pages of older ones when no free run is left, and each holder is a
 *	live layout hint, so a u32 cannot wrap); @reserved is set while it
 *	is nonzero
 * @taken: @used | @reserved: what single pages avoid while they can
 * @nfree: VRAM pages not allocated
 * @hint: where the next single-page search starts
 * @region_gen: per 2 MiB region of VRAM: moves each time the region's
 *	reservations are dropped (svmtune_emu_give_back()), so that a layout
 *	hint made before tells it is stale (svmtune_emu_run_valid())
 * @ctx_lock: protects @ctxs; taken outside a context's lock
 * @ctxs: the open contexts (struct svmtune_emu_ctx.node)
 * @thp: 2 MiB device folio counters
 * @debugfs: the device's debugfs directory
 */
struct svmtune_emu_device {
	struct svmtune_device core;
	struct miscdevice misc;
	char name[16];
	struct dev_pagemap pagemap;
	unsigned long pfn_first;
	unsigned long npages;
	struct page **backing;
	unsigned long *touched;
	unsigned long *departed;
	spinlock_t lock;
	unsigned long *used;
	unsigned long *reserved;
	u32 *holds;
	unsigned long *taken;
	unsigned long nfree;
	unsigned long hint;
	u32 *region_gen;
	struct mutex ctx_lock;
	struct list_head ctxs;
	struct svmtune_emu_thp_stats thp;
	struct dentry *debugfs;
};

/**
 * struct svmtune_emu_tlb_entry - one cached translation
 * @tag: virtual address >> @shift
 * @shift: log2 bytes of the fragment it covers; 0 if the entry is empty
 * @stamp: last use, for LRU replacement
 */
struct svmtune_emu_tlb_entry {
	unsigned long tag;
	unsigned int shift;
	u64 stamp;
};

/**
 * struct svmtune_emu_ctx - one GPU context (an open file)
 * @edev: its device
 * @mm: the bound address space (mmgrab()ed)
 * @notifier: keeps @pt coherent with the CPU page tables
 * @lock: protects @pt and @walks
 * @pt: device page table: virtual page number -> xa_mk_value(entry)
 * @walks: the hmm_range_fault() walks in flight (struct svmtune_emu_walk)
 * @tlb: the context's TLB (%tlb_entries entries), under @lock; flushed by
 *	every invalidation that clears a PTE, as amdgpu flushes a VMID's TLB
 * @tlb_entries: how many
 * @tlb_clock: LRU clock
 * @node: on @edev's context list
 * @unpin_seq: moves (under @lock) at each svmtune_emu_unmap_remote(): a
 *	fault that decided to map remotely before it moved decides again
 * @layout: where each fragment block's VRAM run is: the block's first
 *	virtual page number -> a hint (svmtune_emu_hint_make()) naming the
 *	run, the generation of its VRAM region when it was reserved, and the
 *	block's size; a stale hint (the region's reservations were dropped
 *	since) is replaced, and the run of a hint that is dropped (the block
 *	unmapped, its fragment size changed, the file closed) is released
 */
struct svmtune_emu_ctx {
	struct svmtune_emu_device *edev;
	struct mm_struct *mm;
	struct mmu_interval_notifier notifier;
	struct mutex lock;
	struct xarray pt;
	struct list_head walks;
	struct svmtune_emu_tlb_entry *tlb;
	unsigned int tlb_entries;
	u64 tlb_clock;
	struct list_head node;
	unsigned long unpin_seq;
	struct xarray layout;
};

/**
 * struct svmtune_emu_walk - a span whose CPU page table state is being read
 * @node: in ctx->walks
 * @start: first address
 * @end: end (exclusive)
 * @changed: an invalidation overlapping [@start, @end) began since the
 *	walk last read the CPU page tables (under ctx->lock)
 * @redecide: a thrashing pin over the span ended (svmtune_emu_unmap_remote()):
 *	the fault maps nothing and asks the engine again (under ctx->lock)
 *
 * Every invalidation moves the notifier sequence, and marks the walks it
 * overlaps: a walk whose sequence moved starts over only if it was marked.
 * The sequence must move for every invalidation, not only for those that
 * overlap a walk: mmu_interval_read_begin() waits for an invalidation in
 * progress only if it moved the sequence, and a walk that began between an
 * invalidation's callback and its page table change would otherwise read
 * the old page table and map a page the invalidation was taking away (a
 * page in VRAM being freed and reused for other data: the fuzzer saw the
 * GPU read another page's bytes).
 */
struct svmtune_emu_walk {
	struct list_head node;
	unsigned long start;
	unsigned long end;
	bool changed;
	bool redecide;
};

/*
 * Device page table entry: pfn << 16 | window shift << 8 | fragment << 2 |
 * flags. The window shift is the log2 size of the block the engine's window
 * was cut from; the fragment (log2 pages) is what amdgpu would write in the
 * PTE's fragment field (svmtune_emu_fragments()).
 */
#define PTE_LOCAL	(1UL << 0)
#define PTE_WRITE	(1UL << 1)
#define PTE_FRAG_SHIFT	2
#define PTE_FRAG(pte)	(((pte) >> PTE_FRAG_SHIFT) & 0x3f)

/* Reservations live in aligned 2 MiB regions of VRAM (the largest fragment). */
#define SVMTUNE_EMU_RUN_REGION	(SZ_2M >> PAGE_SHIFT)

/*
 * A layout hint (struct svmtune_emu_ctx.layout) packs the log2 bytes of
 * the block in bits 0-4, its region's generation (all 32 bits: a stale
 * hint must never pass for a live one, or its release would drop other
 * runs' holds) in bits 5-36 and the run's first VRAM index above: at most
 * 2^18 pages (1 GiB of VRAM), so 55 bits, inside an xarray value.
 */
#define SVMTUNE_EMU_HINT_GEN_SHIFT	5
#define SVMTUNE_EMU_HINT_GEN_MASK	GENMASK(31, 0)
#define SVMTUNE_EMU_HINT_RUN_SHIFT	37

/*
 * Migrations go in aligned chunks of at most 2 MiB: one migrate_vma_setup()
 * locks every page of its span and needs two arrays of a word per page, so
 * a 1 GiB window in one go would lock 262,144 folios and allocate 4 MiB in
 * the fault path. A chunk locks at most 512 pages and allocates 8 KiB.
 */
#define SVMTUNE_EMU_MIGRATE_CHUNK	(2UL << 20)

/*
 * Per-access totals reported to user space, and what the engine has not
 * been told yet: TLB lookups past @tlb_hits_sent and @tlb_misses_sent, and
 * the run [@used_start, @used_end) of pages used for the first time. @addr
 * is where the access began (the TLB lookups count in its range).
 */
struct svmtune_emu_tally {
	u64 faults;
	u64 migrated;
	u64 remote;
	u64 retries;
	u64 remote_accesses;
	u64 tlb_hits;
	u64 tlb_misses;
	u64 evicted;
	unsigned long addr;
	u64 tlb_hits_sent;
	u64 tlb_misses_sent;
	unsigned long used_start;
	unsigned long used_end;
};

/* Blocks tried per fault that needs room: a victim may have left already. */
#define SVMTUNE_EMU_EVICT_TRIES	8

/**
 * struct svmtune_emu_peer_fault - a device fault in progress, as seen by
 *	the ->migrate_to_ram() of another emulated GPU
 * @node: on svmtune_emu_peer_faults
 * @task: the task serving the fault
 * @edev: the faulting device
 * @start: the engine's window for the fault
 * @end: its end
 * @bridged: pages other devices moved to system memory for this fault
 *
 * Device B's fault on a page in device A's memory reaches A through
 * hmm_range_fault(), which calls A's ->migrate_to_ram() in B's task: for A
 * it looks like a CPU fault. With this record A knows better: it moves
 * B's window (not a CPU-fault window of its own choosing) to system
 * memory, does not ask the engine or count a CPU fault, and tells B how
 * many pages came, so B can migrate them on to its own memory. Device
 * private memory cannot be copied between devices directly; real GPUs
 * without a peer link bridge through system memory the same way (KFD does
 * for GPUs outside an xGMI hive).
 */
struct svmtune_emu_peer_fault {
	struct list_head node;
	struct task_struct *task;
	struct svmtune_emu_device *edev;
	unsigned long start;
	unsigned long end;
	unsigned long bridged;
};

/**
 * struct svmtune_emu_map_req - a window to map in a context's page table
 * @ctx: the context
 * @start: first address of the window
 * @end: its end (exclusive)
 * @fault_addr: the faulting address, in the window
 * @write: the fault is a write
 * @populate: fault every page of the window in (the engine chose to
 *	migrate it here), not only the faulting one
 * @shift: log2 size of the block the engine's window was cut from (kept in
 *	the PTEs)
 * @max_frag: largest PTE fragment, log2 bytes
 * @unpin_seq: ctx->unpin_seq when the engine decided
 * @retries: out: walks started over because pages of the window changed
 */
struct svmtune_emu_map_req {
	struct svmtune_emu_ctx *ctx;
	unsigned long start;
	unsigned long end;
	unsigned long fault_addr;
	bool write;
	bool populate;
	unsigned int shift;
	unsigned int max_frag;
	unsigned long unpin_seq;
	u64 retries;
};

/* Module parameters (svmtune_emu_main.c), fixed after load. */
extern unsigned int svmtune_emu_passthrough_window;
extern unsigned int svmtune_emu_tlb_entries;
extern unsigned int svmtune_emu_tlb_max_fragment;
/* Changeable at run time (the bench's page-by-page baseline). */
extern unsigned int svmtune_emu_thp_migration;

extern const struct dev_pagemap_ops svmtune_emu_pagemap_ops;
extern const struct mmu_interval_notifier_ops svmtune_emu_notifier_ops;
extern const struct file_operations svmtune_emu_fops;

/* svmtune_emu_vram.c: VRAM pages, runs and layout hints */
struct svmtune_emu_device *svmtune_emu_page_device(struct page *page);
/* @page's index in @edev's VRAM. */
static inline unsigned long
svmtune_emu_page_index(const struct svmtune_emu_device *edev,
		       struct page *page)
{
	return page_to_pfn(page) - edev->pfn_first;
}
struct page *svmtune_emu_backing(struct page *page);
struct page *svmtune_emu_alloc_vram(struct svmtune_emu_device *edev);
struct page *svmtune_emu_alloc_vram_at(struct svmtune_emu_device *edev,
				       unsigned long idx);
void svmtune_emu_page_free(struct page *page);
#ifdef SVMTUNE_DEVICE_THP
struct folio *svmtune_emu_alloc_vram_thp(struct svmtune_emu_ctx *ctx,
					 unsigned long base);
void svmtune_emu_folio_free(struct folio *folio);
void svmtune_emu_folio_split(struct folio *head, struct folio *tail);
#endif
void svmtune_emu_hint_drop(struct svmtune_emu_device *edev, void *entry);
long svmtune_emu_fragment_run(struct svmtune_emu_ctx *ctx,
			      unsigned long base, unsigned int frag);

/* svmtune_emu_migrate.c: migration both ways, CPU and peer faults */
void svmtune_emu_decide(struct svmtune_emu_device *edev,
			struct mm_struct *mm,
			const struct svmtune_fault *fault,
			struct svmtune_decision *d);
void svmtune_emu_account(struct svmtune_emu_device *edev,
			 struct mm_struct *mm,
			 const struct svmtune_fault *fault,
			 const struct svmtune_decision *d,
			 const struct svmtune_result *result,
			 unsigned long waste_addr, unsigned long waste);
long svmtune_emu_migrate_to_vram(struct svmtune_emu_ctx *ctx,
				 struct vm_area_struct *vma,
				 unsigned long start, unsigned long end,
				 const struct svmtune_decision *d,
				 unsigned long *fallback,
				 struct svmtune_result *acc);
long svmtune_emu_migrate_to_ram(struct svmtune_emu_device *edev,
				struct vm_area_struct *vma,
				unsigned long start, unsigned long end,
				unsigned long fault_addr,
				struct page *fault_page,
				const struct svmtune_decision *d,
				unsigned long *waste,
				struct svmtune_result *acc);
void svmtune_emu_peer_begin(struct svmtune_emu_peer_fault *pf,
			    struct svmtune_emu_device *edev,
			    unsigned long start, unsigned long end);
void svmtune_emu_peer_end(struct svmtune_emu_peer_fault *pf);
vm_fault_t svmtune_emu_peer_fault(struct svmtune_emu_device *edev,
				  struct vm_fault *vmf,
				  struct svmtune_emu_peer_fault *pf);
void svmtune_emu_throttle(u64 ns);

/* svmtune_emu_pt.c: the device page table, its walks and the TLB */
void svmtune_emu_walk_begin(struct svmtune_emu_ctx *ctx,
			    struct svmtune_emu_walk *walk,
			    unsigned long start, unsigned long end);
void svmtune_emu_walk_end(struct svmtune_emu_ctx *ctx,
			  struct svmtune_emu_walk *walk);
long svmtune_emu_map(struct svmtune_emu_map_req *req);
void svmtune_emu_report_access(struct svmtune_emu_ctx *ctx,
			       struct svmtune_emu_tally *tally);
bool svmtune_emu_tlb_lookup(struct svmtune_emu_ctx *ctx,
			    unsigned long addr, unsigned int frag);

/* svmtune_emu_fault.c: the GPU fault path and eviction */
int svmtune_emu_gpu_fault(struct svmtune_emu_ctx *ctx, unsigned long addr,
			  bool write, struct svmtune_emu_tally *tally);
int svmtune_emu_touch(struct svmtune_emu_ctx *ctx, unsigned long addr,
		      void *bounce, bool write,
		      struct svmtune_emu_tally *tally);

#endif /* _SVMTUNE_EMU_INTERNAL_H */
