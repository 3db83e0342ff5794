/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune_kfd: what the files of the hooks share: a fault followed from
 * its beginning to its end, a hook, and what each file offers the others.
 * The hooks' design is at the top of svmtune_kfd_hooks.c.
 */
#ifndef _SVMTUNE_KFD_HOOKS_H
#define _SVMTUNE_KFD_HOOKS_H

#include <linux/kprobes.h>
#include <linux/ftrace.h>

#include <svmtune/compat.h>
#include "svmtune_kfd_compat.h"
#include "svmtune_kfd.h"

static inline void svmtune_kfd_count(enum svmtune_kfd_stat stat, u64 n)
{
	atomic64_add(n, &svmtune_kfd.stats[stat]);
}

/* ---- Faults in flight ---- */

/*
 * Instances of each kretprobe: calls of a hooked function in flight at
 * once that svmtune_kfd follows. A fault beyond them is handled by KFD
 * alone and counted (untracked_faults, the fault hooks' kretprobe misses).
 * A CPU fault on VRAM holds its instance while it waits for the range's
 * locks, so many threads of one process faulting at once each take one.
 */
#define SVMTUNE_KFD_MAXACTIVE	256

/**
 * struct svmtune_kfd_fault - a GPU or CPU fault KFD is handling
 * @node: in its task's svmtune_kfd_fault_bucket, GPU or CPU list
 * @task: the task handling it
 * @dev: the engine's device of the fault's KFD node (the faulting GPU; for
 *	a CPU fault, the one whose memory holds the page), or NULL while
 *	svmtune_kfd does not know the node yet (svmtune_kfd_nodes.c)
 * @fault: the fault as the engine sees it
 * @decision: the engine's answer, valid if @decided
 * @result: what moved, so far
 * @decided: the engine was asked
 * @unknown_node: the engine could not be asked: no device for the node yet
 * @declined: the migration to VRAM was declined (mapped remotely)
 * @filtered: the retry filter looked at the fault's range
 * @begin_ns: a CPU fault's start (svm_migrate_to_ram()'s entry), until
 *	its migration began (then 0): its wait for KFD's locks
 * @adev: a GPU fault's amdgpu device
 * @ts: a GPU fault's interrupt timestamp (svm_range_restore_pages()'s ts)
 * @pasid: a GPU fault's PASID
 * @map_prange: the range a GPU fault's svm_range_validate_and_map() maps
 * @map_start: the first page it maps (after the engine's window)
 * @map_last: the last
 * @mig_prange: the range a decided GPU fault's svm_migrate_to_vram() was
 *	called for, or NULL
 * @mig_start: the first page of the window that call was given: the
 *	engine's, or KFD's own where the engine's decision could not apply
 * @mig_last: its last page
 * @mig_done: the call returned 0 (pages moved, or the migration was
 *	declined): only then is the map window replaced, by @mig_start and
 *	@mig_last
 * @seen: SVMTUNE_KFD_SEEN_* of this fault: which hooked functions it
 *	called and what KFD did in it, for the run-time checks
 *
 * It lives in the data of the kretprobe instance of the call that began
 * the fault, from its entry to its return. Only @task touches the fields
 * after @node.
 */
struct svmtune_kfd_fault {
	struct hlist_node node;
	struct task_struct *task;
	struct svmtune_device *dev;
	struct svmtune_fault fault;
	struct svmtune_decision decision;
	struct svmtune_result result;
	bool decided;
	bool unknown_node;
	bool declined;
	bool filtered;
	u64 begin_ns;
	struct amdgpu_device *adev;
	u64 ts;
	u32 pasid;
	struct svm_range *map_prange;
	unsigned long map_start;
	unsigned long map_last;
	struct svm_range *mig_prange;
	unsigned long mig_start;
	unsigned long mig_last;
	bool mig_done;
	u8 seen;
};

/*
 * What a fault's own task saw, while the fault was its innermost
 * (svmtune_kfd_fault_find()): the hooked functions called, and what KFD
 * did, seen where no copy of a KFD function can hide it (amdgpu's page
 * table update, the kernel's migrate_vma_pages()).
 */
#define SVMTUNE_KFD_SEEN_FROM_ADDR	BIT(0)	/* svm_range_from_addr() */
#define SVMTUNE_KFD_SEEN_NO_RANGE	BIT(1)	/* ... whose last call found none */
#define SVMTUNE_KFD_SEEN_NEW		BIT(2)	/* svm_range_new() */
#define SVMTUNE_KFD_SEEN_MIGRATE	BIT(3)	/* svm_migrate_to_vram(), ..._vram_to_ram() */
#define SVMTUNE_KFD_SEEN_MAP		BIT(4)	/* svm_range_validate_and_map() */
#define SVMTUNE_KFD_DID_MIGRATE		BIT(5)	/* migrate_vma_pages() */
#define SVMTUNE_KFD_DID_MAP		BIT(6)	/* amdgpu_vm_update_range(), a valid PTE */

struct svmtune_kfd_hook;

/**
 * struct svmtune_kfd_mig - a KFD migration a task is in: the range of its
 *	innermost svm_migrate_vram_to_ram() or svm_migrate_to_vram()
 *	(svmtune_kfd_count.c)
 * @node: in its task's svmtune_kfd_fault_bucket, migration list
 * @task: the task migrating
 * @prange: the range
 * @to_vram: svm_migrate_to_vram() (else svm_migrate_vram_to_ram())
 * @evicting: a migration to system memory for TTM's eviction of the
 *	range's BO (KFD_MIGRATE_TRIGGER_TTM_EVICTION)
 * @short_pages: pages KFD counted into the range's VRAM that stayed in
 *	system memory, taken off its count at svm_migrate_to_vram()'s return
 *
 * It lives in the data of the call's kretprobe instance, from its entry
 * to its return. Only @task touches the fields after @node.
 */
struct svmtune_kfd_mig {
	struct hlist_node node;
	struct task_struct *task;
	struct svm_range *prange;
	bool to_vram;
	bool evicting;
	u64 short_pages;
};

/* ---- The hooks ---- */

/**
 * struct svmtune_kfd_call - what a kretprobe keeps from entry to return
 * @obj: the range or process the call is about
 * @mm: the address space
 * @dev: the engine's device of the KFD node a migration goes to (to VRAM)
 *	or comes from (to system memory), or NULL if not known
 * @slot: the fault being handled, if any
 * @before: pages in VRAM before a migration (svm_range_list_init():
 *	the default granularity amdgpu's parameter gave at its entry)
 * @start: first page of the span a migration to system memory was given
 *	(after a CPU fault's window was set; svm_range_list_init(): whether
 *	@before was read)
 * @last: its last page
 * @bridged: a migration to VRAM from another GPU's VRAM, which KFD makes
 *	through system memory: it moves every page of the range back to system
 *	memory (svm_migrate_vram_to_ram(), counted by its own hook), then the
 *	window to the new GPU, so the range's VRAM count drops to 0 in between
 * @mig: the migration this call is (svm_migrate_vram_to_ram(),
 *	svm_migrate_to_vram()), while published (svmtune_kfd_count.c)
 * @own: the fault this call began (svm_range_restore_pages(),
 *	svm_migrate_to_ram()); other hooks' data ends before it
 */
struct svmtune_kfd_call {
	void *obj;
	struct mm_struct *mm;
	struct svmtune_device *dev;
	struct svmtune_kfd_fault *slot;
	u64 before;
	unsigned long start;
	unsigned long last;
	bool bridged;
	struct svmtune_kfd_mig mig;
	struct svmtune_kfd_fault own;	/* last: only fault hooks have it */
};

typedef void (svmtune_kfd_entry_t)(struct svmtune_kfd_hook *hook,
				   struct pt_regs *regs, unsigned long parent_ip);

/**
 * struct svmtune_kfd_hook - one hooked KFD function
 * @symbol: its name in amdgpu
 * @entry: ftrace entry callback, or NULL
 * @kret_entry: kretprobe entry handler, or NULL
 * @kret_exit: kretprobe return handler, or NULL for no kretprobe
 * @begins_fault: the kretprobe begins a fault (struct svmtune_kfd_fault)
 * @core: @symbol is a function of the kernel's that KFD calls, at
 *	@core_addr, not one of amdgpu's
 * @core_addr: its address
 * @caller: the KFD function whose call of this one the hook acts on during
 *	a fault (the direct call in KFD's sources), or NULL
 * @caller_start: @caller's code in the attached amdgpu, [start, end)
 * @caller_end: its end
 * @addr: the function's address in the attached amdgpu (or @core_addr)
 * @ops: @entry's ftrace registration
 * @krp: the kretprobe
 * @ops_on: @ops is registered
 * @krp_on: @krp is registered
 * @calls: calls seen since svmtune_kfd loaded
 */
struct svmtune_kfd_hook {
	const char *symbol;
	svmtune_kfd_entry_t *entry;
	kretprobe_handler_t kret_entry;
	kretprobe_handler_t kret_exit;
	bool begins_fault;
	bool core;
	unsigned long core_addr;
	const char *caller;
	unsigned long caller_start;
	unsigned long caller_end;
	unsigned long addr;
	struct ftrace_ops ops;
	struct kretprobe krp;
	bool ops_on;
	bool krp_on;
	atomic64_t calls;
};

static inline struct svmtune_kfd_call *svmtune_kfd_call_data(struct kretprobe_instance *ri)
{
	return (struct svmtune_kfd_call *)ri->data;
}

static inline struct svmtune_kfd_hook *svmtune_kfd_kret_hook(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct svmtune_kfd_hook, krp);
}

/* svmtune_kfd_fault.c: faults in flight, and the checks at their end */
struct svmtune_kfd_fault *svmtune_kfd_fault_begin(struct svmtune_kfd_fault *f,
						  enum svmtune_fault_type type);
void svmtune_kfd_fault_check(const struct svmtune_kfd_fault *slot,
			     long ret);
void svmtune_kfd_fault_end(struct svmtune_kfd_fault *f);
struct svmtune_kfd_fault *svmtune_kfd_fault_find(void);
void svmtune_kfd_faults_reset(void);
struct svmtune_kfd_fault_bucket *svmtune_kfd_bucket(const struct task_struct *task);

/* svmtune_kfd_count.c: KFD 6.12's VRAM page count kept true */
void svmtune_kfd_mig_begin(struct svmtune_kfd_mig *mig,
			   struct svm_range *prange, bool to_vram,
			   bool evicting);
void svmtune_kfd_mig_end(struct svmtune_kfd_mig *mig);
void svmtune_kfd_finalize_entry(struct svmtune_kfd_hook *hook,
				struct pt_regs *regs, unsigned long parent_ip);
bool svmtune_kfd_migration_is_kfd(const struct migrate_vma *args);

/* svmtune_kfd_process.c: KFD processes and ranges get the engine's state and policy */
void svmtune_kfd_attach_resume(void);
void svmtune_kfd_attach_flush(void);
void svmtune_kfd_attach_later(struct mm_struct *mm);
void svmtune_kfd_attr_entry(struct svmtune_kfd_hook *hook,
			    struct pt_regs *regs,
			    unsigned long parent_ip);
void svmtune_kfd_find_granularity(struct module *amdgpu);
int svmtune_kfd_first_arg_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs);
int svmtune_kfd_list_init_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs);
int svmtune_kfd_list_init_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs);
void svmtune_kfd_range_new_entry(struct svmtune_kfd_hook *hook,
				 struct pt_regs *regs,
				 unsigned long parent_ip);
int svmtune_kfd_range_new_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs);

/* svmtune_kfd_migrate.c: the fault paths, their migrations and maps */
int svmtune_kfd_cpu_fault_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs);
int svmtune_kfd_cpu_fault_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs);
int svmtune_kfd_map_entry(struct kretprobe_instance *ri,
			  struct pt_regs *regs);
int svmtune_kfd_map_exit(struct kretprobe_instance *ri,
			 struct pt_regs *regs);
void svmtune_kfd_map_window(struct svmtune_kfd_hook *hook,
			    struct pt_regs *regs,
			    unsigned long parent_ip);
int svmtune_kfd_restore_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs);
int svmtune_kfd_restore_exit(struct kretprobe_instance *ri,
			     struct pt_regs *regs);
int svmtune_kfd_to_ram_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs);
int svmtune_kfd_to_ram_exit(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void svmtune_kfd_to_ram_window(struct svmtune_kfd_hook *hook,
			       struct pt_regs *regs,
			       unsigned long parent_ip);
void svmtune_kfd_to_vram_decide(struct svmtune_kfd_hook *hook,
				struct pt_regs *regs,
				unsigned long parent_ip);
int svmtune_kfd_to_vram_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs);
int svmtune_kfd_to_vram_exit(struct kretprobe_instance *ri,
			     struct pt_regs *regs);

/* svmtune_kfd_filter.c: KFD's retry-fault filter, by interrupt time */
int svmtune_kfd_from_addr_exit(struct kretprobe_instance *ri,
			       struct pt_regs *regs);
void svmtune_kfd_windows_mapped(const struct svm_range *prange,
				unsigned long start, unsigned long last,
				unsigned long gpuidx,
				const struct svmtune_kfd_fault *slot);
bool svmtune_kfd_restore_duplicate(const struct amdgpu_device *adev, u32 pasid,
				   unsigned long page, u64 ts);

/* svmtune_kfd_hooks.c: the hook table, finding amdgpu's functions, attach and detach */
bool svmtune_kfd_from_caller(struct svmtune_kfd_hook *hook, unsigned long ret);

#endif /* _SVMTUNE_KFD_HOOKS_H */
