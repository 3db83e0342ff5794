// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: the hooks on amdgpu's KFD SVM paths.
 *
 * No amdgpu function is ever called from here, and no hooked function is
 * wrapped: with X86_KERNEL_IBT, objtool seals the ENDBR of every function
 * whose address amdgpu never takes (svm_migrate_to_vram,
 * svm_range_list_init, kfd_lookup_process_by_pasid, ... in 6.12), so an
 * indirect call into them is a control-protection fault on IBT hardware.
 * Instead every hook is a probe handler around KFD's own call:
 *
 *  - kretprobes see the entry and the return of a function (fault
 *    boundaries, pages that really moved);
 *  - ftrace entry callbacks (FTRACE_OPS_FL_SAVE_REGS) may rewrite the
 *    migration and mapping window arguments before KFD runs, and the one on
 *    svm_migrate_to_vram may decline a migration by giving it system
 *    memory (location 0), where the pages are, as its destination: KFD's
 *    own first check returns (svmtune_kfd_to_vram_decide()), after which
 *    KFD maps the pages where they are (a remote mapping). No hook changes
 *    where a function returns or which function runs (no
 *    FTRACE_OPS_FL_IPMODIFY), so a livepatch of any hooked function, which
 *    needs the one IPMODIFY place ftrace allows per function, loads beside
 *    svmtune_kfd.
 *
 * The one indirect call made (kfd_ioctl_get_version, to check the
 * interface version) goes to a function amdgpu puts in its ioctl table, and
 * its ENDBR is checked first.
 *
 * Handlers run with preemption disabled: they take only spinlocks (the
 * engine's per-mm lock) and allocate with GFP_NOWAIT
 * (svmtune_decide_atomic()). They run under the locks KFD's caller holds:
 * mmap_lock (read) and prange->migrate_mutex for the migration and mapping
 * hooks, so the VMA and the range they read are stable.
 *
 * A fault is followed from svm_range_restore_pages() (GPU) or
 * svm_migrate_to_ram() (CPU) into the migration functions it calls by its
 * state in the kretprobe instance's own data: entry publishes it in a
 * table keyed by task, the nested hooks find the innermost one of current,
 * return removes it.
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <asm/ibt.h>

#include "svmtune_kfd_compat.h"
#include "svmtune_kfd.h"

atomic64_t svmtune_kfd_stats[SVMTUNE_KFD_NR_STATS];
atomic64_t svmtune_kfd_fragment_ptes[SVMTUNE_KFD_NR_FRAGMENTS];
bool svmtune_kfd_filter_per_window = SVMTUNE_KFD_HAS_WINDOW;
bool svmtune_kfd_contiguous_vram;

static_assert(AMDGPU_PTE_FRAG(1) == 1ULL << 7,
	      "the PTE fragment field moved: fix svmtune_kfd_update_ptes()");

static void svmtune_kfd_count(enum svmtune_kfd_stat stat, u64 n)
{
	atomic64_add(n, &svmtune_kfd_stats[stat]);
}

/* ---- KFD nodes (svmtune_kfd_nodes.c) ---- */

/*
 * The engine's device of the node of @prange's process whose user gpu_id
 * is @gpu_id (actual_loc, best_loc), or NULL.
 */
static struct svmtune_device *svmtune_kfd_range_device(struct svm_range *prange,
							u32 gpu_id)
{
	struct svmtune_kfd_node_info info;

	if (!svmtune_kfd_range_node(prange, gpu_id, &info))
		return NULL;
	return svmtune_kfd_node_device(&info);
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
 * @entered: when a GPU fault entered svm_range_restore_pages()
 * @decided: the engine was asked
 * @unknown_node: the engine could not be asked: no device for the node yet
 * @declined: the migration to VRAM was declined (mapped remotely)
 * @filtered: the retry filter looked at the fault's range
 * @adev: a GPU fault's amdgpu device
 * @ts: a GPU fault's interrupt timestamp (svm_range_restore_pages()'s ts)
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
	ktime_t entered;
	bool decided;
	bool unknown_node;
	bool declined;
	bool filtered;
	struct amdgpu_device *adev;
	u64 ts;
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

/*
 * Faults in flight by task, GPU and CPU apart: a list's entries all belong
 * to one kretprobe, so when it is unregistered (its in-flight instances'
 * return handlers then never run), its stale entries sit only in its own
 * lists, which no handler reads any more (the nested hooks go first, see
 * svmtune_kfd_hooks_detach()). hlist_add_head() puts the newest entry
 * first, so a task's innermost fault is found first.
 *
 * Every hooked call looks its task up while any fault is in flight, and
 * amdgpu handles faults on several workers at once (one per IH ring and
 * GPU, CPU faults in every faulting thread): the tasks are spread over
 * SVMTUNE_KFD_FAULT_BUCKETS buckets with a lock each, on a cache line of
 * its own, so two tasks share a lock only when their hashes collide.
 * A task only ever adds, finds and removes its own faults, in its own
 * bucket; the count of faults in flight lets the hooks return at once
 * when there are none (a load, not a lock).
 */
#define SVMTUNE_KFD_FAULT_BITS		6

/**
 * struct svmtune_kfd_fault_bucket - the faults of the tasks hashed here
 * @lock: covers both lists
 * @cpu: CPU faults
 * @gpu: GPU faults
 */
struct svmtune_kfd_fault_bucket {
	spinlock_t lock;
	struct hlist_head cpu;
	struct hlist_head gpu;
} ____cacheline_aligned_in_smp;

static struct svmtune_kfd_fault_bucket svmtune_kfd_fault_buckets[1 << SVMTUNE_KFD_FAULT_BITS];
static atomic_t svmtune_kfd_nr_faults = ATOMIC_INIT(0);

static struct svmtune_kfd_fault_bucket *svmtune_kfd_bucket(const struct task_struct *task)
{
	return &svmtune_kfd_fault_buckets[hash_ptr(task, SVMTUNE_KFD_FAULT_BITS)];
}

/* Begin following a fault of @type in @f, a kretprobe instance's data. */
static struct svmtune_kfd_fault *svmtune_kfd_fault_begin(struct svmtune_kfd_fault *f,
							 enum svmtune_fault_type type)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(current);
	unsigned long flags;

	memset(f, 0, sizeof(*f));
	f->task = current;
	f->fault.type = type;
	spin_lock_irqsave(&b->lock, flags);
	hlist_add_head(&f->node, type == SVMTUNE_FAULT_CPU ? &b->cpu : &b->gpu);
	atomic_inc(&svmtune_kfd_nr_faults);
	spin_unlock_irqrestore(&b->lock, flags);
	return f;
}

/*
 * The innermost fault current is handling, or NULL: a CPU fault taken
 * inside a GPU fault's handling (KFD's own hmm_range_fault() touching a
 * page in VRAM) is newer than it. The fault stays valid until current
 * returns from the call that began it.
 */
static struct svmtune_kfd_fault *svmtune_kfd_fault_find(void)
{
	struct svmtune_kfd_fault *f, *found = NULL;
	struct svmtune_kfd_fault_bucket *b;
	unsigned long flags;

	if (!atomic_read(&svmtune_kfd_nr_faults))
		return NULL;
	b = svmtune_kfd_bucket(current);
	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(f, &b->cpu, node)
		if (f->task == current) {
			found = f;
			goto out;
		}
	hlist_for_each_entry(f, &b->gpu, node)
		if (f->task == current) {
			found = f;
			break;
		}
out:
	spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

/* Stop following @f (at the return of the call that began it). */
static void svmtune_kfd_fault_end(struct svmtune_kfd_fault *f)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(f->task);
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	hlist_del(&f->node);
	atomic_dec(&svmtune_kfd_nr_faults);
	spin_unlock_irqrestore(&b->lock, flags);
}

/* No handler runs any more: forget every fault, stale ones included. */
static void svmtune_kfd_faults_reset(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(svmtune_kfd_fault_buckets); i++) {
		spin_lock_init(&svmtune_kfd_fault_buckets[i].lock);
		INIT_HLIST_HEAD(&svmtune_kfd_fault_buckets[i].cpu);
		INIT_HLIST_HEAD(&svmtune_kfd_fault_buckets[i].gpu);
	}
	atomic_set(&svmtune_kfd_nr_faults, 0);
}

/* ---- Engine state for KFD processes ---- */

/*
 * An application that never opens /dev/svmtune still gets the engine's
 * per-process state (ranges with adaptive and thrashing state, per-process
 * and per-range counters): svmtune_kfd asks the engine to attach its
 * address space when KFD creates the process's SVM state
 * (svm_range_list_init(), in the open of /dev/kfd) and, for processes KFD
 * knew before svmtune_kfd was loaded, at their first fault it sees.
 *
 * Attaching registers an mmu notifier, which takes mmap_lock for writing
 * and allocates: not from a probe handler, which runs with preemption
 * disabled, often under that very mmap_lock. The handler takes a reference
 * on the mm_struct (mmgrab(), an atomic increment), parks it in a small
 * table and queues a work item; the worker attaches every parked address
 * space whose users are still there (mmget_not_zero()) and drops the
 * references. The open of /dev/kfd returns before the worker runs, so the
 * first faults of a process can be decided without its state, exactly as
 * before; from then on they are not. A full table only delays: the next
 * fault parks the address space again.
 *
 * The state belongs to the engine and lives until the address space is
 * torn down (or svmtune.ko is unloaded), as it does for a process that
 * opened /dev/svmtune; unloading svmtune_kfd leaves it. Detaching, after
 * the hooks are gone, stops the worker and drops what is still parked
 * without attaching it: an rmmod takes no mmap_lock of a live process
 * (the process gets its state at its next fault once svmtune_kfd is back).
 *
 * Waste feedback (pages that went to VRAM and left untouched) is not
 * reported from KFD: amdgpu's page tables have no accessed bit KFD reads,
 * so on hardware nothing tells a page the GPU used from one it did not.
 */
#define SVMTUNE_KFD_ATTACH_SLOTS	32

static struct mm_struct *svmtune_kfd_attach_mms[SVMTUNE_KFD_ATTACH_SLOTS];
static DEFINE_SPINLOCK(svmtune_kfd_attach_lock);
/* Detaching: the worker drops what it finds instead of attaching it. */
static bool svmtune_kfd_attach_stopping;

static void svmtune_kfd_attach_worker(struct work_struct *work)
{
	struct mm_struct *mm;
	int i;

	for (i = 0; i < SVMTUNE_KFD_ATTACH_SLOTS; i++) {
		spin_lock_irq(&svmtune_kfd_attach_lock);
		mm = svmtune_kfd_attach_mms[i];
		svmtune_kfd_attach_mms[i] = NULL;
		spin_unlock_irq(&svmtune_kfd_attach_lock);
		if (!mm)
			continue;
		if (READ_ONCE(svmtune_kfd_attach_stopping)) {
			svmtune_kfd_count(SVMTUNE_KFD_ATTACH_DROPPED, 1);
		} else if (mmget_not_zero(mm)) {
			if (!svmtune_mm_attach(mm))
				svmtune_kfd_count(SVMTUNE_KFD_PROCESSES_ATTACHED, 1);
			else
				svmtune_kfd_count(SVMTUNE_KFD_ATTACH_FAILED, 1);
			mmput(mm);
		}
		mmdrop(mm);
	}
}

static DECLARE_WORK(svmtune_kfd_attach_work, svmtune_kfd_attach_worker);

/*
 * Have the engine attach @mm soon, unless it has state already. Any
 * context but hard IRQ; the caller keeps @mm's struct alive.
 */
static void svmtune_kfd_attach_later(struct mm_struct *mm)
{
	unsigned long flags;
	int i, free = -1;

	if (!mm || svmtune_mm_attached(mm))
		return;
	spin_lock_irqsave(&svmtune_kfd_attach_lock, flags);
	for (i = 0; i < SVMTUNE_KFD_ATTACH_SLOTS; i++) {
		if (svmtune_kfd_attach_mms[i] == mm)
			break;
		if (!svmtune_kfd_attach_mms[i] && free < 0)
			free = i;
	}
	if (i == SVMTUNE_KFD_ATTACH_SLOTS && free >= 0) {
		mmgrab(mm);
		svmtune_kfd_attach_mms[free] = mm;
		queue_work(system_wq, &svmtune_kfd_attach_work);
	}
	spin_unlock_irqrestore(&svmtune_kfd_attach_lock, flags);
}

/*
 * No hook runs any more: stop the worker (a pass already attaching one
 * address space finishes it) and drop what is parked.
 */
static void svmtune_kfd_attach_flush(void)
{
	WRITE_ONCE(svmtune_kfd_attach_stopping, true);
	cancel_work_sync(&svmtune_kfd_attach_work);
	svmtune_kfd_attach_worker(NULL);
}

struct svmtune_kfd_hook;
static bool svmtune_kfd_from_caller(struct svmtune_kfd_hook *hook,
				    unsigned long ret);

/*
 * Ask the engine about @slot's fault in @prange of @mm, whose mmap_lock the
 * caller holds. The window may not leave the VMA or the KFD range.
 */
static bool svmtune_kfd_decide(struct svmtune_kfd_fault *slot,
			       struct mm_struct *mm, struct svm_range *prange)
{
	struct vm_area_struct *vma;

	if (svmtune_kfd_refusing())
		return false;
	vma = vma_lookup(mm, slot->fault.addr);
	if (!vma)
		return false;
	svmtune_kfd_attach_later(mm);
	if (!slot->dev) {
		/* Learned just now (svmtune_kfd_nodes.c): KFD's alone. */
		if (!slot->unknown_node)
			svmtune_kfd_count(SVMTUNE_KFD_FAULTS_ON_UNKNOWN_NODES, 1);
		slot->unknown_node = true;
		return false;
	}
	slot->fault.lo = max(vma->vm_start, prange->start << PAGE_SHIFT);
	slot->fault.hi = min(vma->vm_end, (prange->last + 1) << PAGE_SHIFT);
	/* 6.1 migrates and maps the whole range: no window to give. */
	slot->fault.fixed = !SVMTUNE_KFD_HAS_WINDOW;
	svmtune_decide_atomic(slot->dev, mm, &slot->fault, &slot->decision);
	slot->decided = true;
	svmtune_kfd_count(SVMTUNE_KFD_DECISIONS, 1);
	return true;
}

/*
 * svm_migrate_vram_to_ram(prange, mm, ..., trigger, ...), entry, returning
 * to @ret: if this is the migration of a CPU fault, KFD has committed to
 * it (it holds the range's locks and found pages in VRAM): ask the engine,
 * once. Both the ftrace callback and the kretprobe at this entry call it,
 * in either order. Returns the fault, decided, or NULL.
 */
static struct svmtune_kfd_fault *svmtune_kfd_cpu_decide(struct svmtune_kfd_hook *hook,
						       struct pt_regs *regs,
						       unsigned long ret)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct mm_struct *mm = (struct mm_struct *)svmtune_kfd_arg(regs, 1);
	struct svmtune_kfd_fault *slot;

	slot = svmtune_kfd_fault_find();
	if (!slot)
		return NULL;
	slot->seen |= SVMTUNE_KFD_SEEN_MIGRATE;
	if ((u32)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_TRIGGER) !=
	    KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU || slot->fault.type != SVMTUNE_FAULT_CPU)
		return NULL;
	if (slot->decided)
		return slot;
	if (!svmtune_kfd_from_caller(hook, ret))
		return NULL;
	/* The node whose VRAM holds the range; migrate_mutex is held. */
	slot->dev = svmtune_kfd_range_device(prange, READ_ONCE(prange->actual_loc));
	if (!svmtune_kfd_decide(slot, mm, prange))
		return NULL;
	return slot;
}

#if SVMTUNE_KFD_HAS_WINDOW
/* Replace the [start, last] page window in arguments @a_start, @a_last. */
static void svmtune_kfd_set_window(struct pt_regs *regs,
				   const struct svmtune_decision *d,
				   unsigned int a_start, unsigned int a_last)
{
	unsigned long start = d->start >> PAGE_SHIFT;
	unsigned long last = (d->end >> PAGE_SHIFT) - 1;

	if (svmtune_kfd_arg(regs, a_start) == start &&
	    svmtune_kfd_arg(regs, a_last) == last)
		return;
	svmtune_kfd_set_arg(regs, a_start, start);
	svmtune_kfd_set_arg(regs, a_last, last);
	svmtune_kfd_count(SVMTUNE_KFD_WINDOWS_CHANGED, 1);
}
#endif

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

static struct svmtune_kfd_call *svmtune_kfd_call_data(struct kretprobe_instance *ri)
{
	return (struct svmtune_kfd_call *)ri->data;
}

static struct svmtune_kfd_hook *svmtune_kfd_kret_hook(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct svmtune_kfd_hook, krp);
}

/*
 * Whether a call of @hook's function, during a fault of the kind
 * @hook->caller handles, returns to @ret inside @hook->caller, as in KFD's
 * sources: the run-time half of the layout check. The symbol lookup proves
 * only that a function of that name exists; a compiler may also have
 * inlined it into the caller or called a clone of it (a ".constprop"
 * copy: svm_range_new() and svm_range_validate_and_map() get them when
 * kfd_svm.c is built with -O3), and a fault would then pass a hook that
 * never sees it (the checks at the end of a fault,
 * svmtune_kfd_fault_check()), or here, reach the function by a road the
 * sources do not have. A call from anywhere else is refused: no hook acts
 * from then on (svmtune_kfd_refuse()). Code GCC moved out of line as
 * "<caller>.cold" is the caller's; a return address another tracer took
 * over (a kretprobe or the function graph tracer on the same caller)
 * cannot be told and is only not acted on.
 *
 * Cost: two compares, and a symbol lookup on the rare call from elsewhere.
 */
static bool svmtune_kfd_from_caller(struct svmtune_kfd_hook *hook,
				    unsigned long ret)
{
	static const char * const trampolines[] = {
		"arch_rethook_trampoline", "__kretprobe_trampoline",
		"return_to_handler",
	};
	char sym[KSYM_SYMBOL_LEN];
	size_t len;
	int i;

	if (svmtune_kfd_refusing())
		return false;
	if (ret >= hook->caller_start && ret < hook->caller_end)
		return true;
	sprint_symbol_no_offset(sym, ret);
	len = strlen(hook->caller);
	if (!strncmp(sym, hook->caller, len) && !strncmp(sym + len, ".cold", 5))
		return true;
	for (i = 0; i < ARRAY_SIZE(trampolines); i++)
		if (!strncmp(sym, trampolines[i], strlen(trampolines[i])))
			return false;
	svmtune_kfd_refuse("%s() was called from %s during a fault, not from %s() as in the KFD sources svmtune_kfd was built against: this amdgpu is built otherwise",
			   hook->symbol, sym, hook->caller);
	return false;
}

/* svm_range_restore_pages(): a GPU fault begins and ends. */
static int svmtune_kfd_restore_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_node_info info;
	struct svmtune_kfd_fault *slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_count(SVMTUNE_KFD_GPU_FAULTS, 1);
	slot = svmtune_kfd_fault_begin(&call->own, SVMTUNE_FAULT_DEVICE);
	call->slot = slot;
	if (svmtune_kfd_restore_node(regs, &info))
		slot->dev = svmtune_kfd_node_device(&info);
	slot->fault.addr = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_ADDR)
			   << PAGE_SHIFT;
	slot->fault.write = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_WRITE) & 1;
	slot->entered = ktime_get_boottime();
#if SVMTUNE_KFD_HAS_WINDOW
	slot->adev = (struct amdgpu_device *)svmtune_kfd_arg(regs, 0);
	slot->ts = svmtune_kfd_arg(regs, SVMTUNE_KFD_RESTORE_ARG_TS);
#endif
	return 0;
}

/*
 * At the end of @slot's fault, which returned @ret: whatever KFD did in it
 * went through the functions svmtune_kfd hooks. KFD's page-table update
 * and the kernel's migrate_vma_pages() cannot be bypassed, and neither
 * can the creation of a range after a lookup found none (a GPU fault
 * returning 0 created it). A fault that mapped, migrated or created a
 * range without the hooked function being called ran an inlined or cloned
 * copy of it, which svmtune_kfd cannot see: refuse.
 */
static void svmtune_kfd_fault_check(const struct svmtune_kfd_fault *slot,
				    long ret)
{
	const char *missed = NULL, *did = NULL;
	u8 seen = slot->seen;

	if ((seen & SVMTUNE_KFD_DID_MIGRATE) && !(seen & SVMTUNE_KFD_SEEN_MIGRATE)) {
		missed = slot->fault.type == SVMTUNE_FAULT_CPU ?
			 "svm_migrate_vram_to_ram()" :
			 "svm_migrate_to_vram() or svm_migrate_vram_to_ram()";
		did = "migrated pages";
	}
#if SVMTUNE_KFD_HAS_WINDOW
	if (slot->fault.type == SVMTUNE_FAULT_DEVICE) {
		if ((seen & SVMTUNE_KFD_DID_MAP) && !(seen & SVMTUNE_KFD_SEEN_MAP)) {
			missed = "svm_range_validate_and_map()";
			did = "mapped pages";
		} else if ((seen & (SVMTUNE_KFD_DID_MAP | SVMTUNE_KFD_DID_MIGRATE)) &&
			   !(seen & SVMTUNE_KFD_SEEN_FROM_ADDR)) {
			missed = "svm_range_from_addr()";
			did = "found its range";
		} else if (!ret && (seen & SVMTUNE_KFD_SEEN_NO_RANGE) &&
			   !(seen & SVMTUNE_KFD_SEEN_NEW)) {
			missed = "svm_range_new()";
			did = "created a range";
		}
	}
#endif
	if (missed)
		svmtune_kfd_refuse("a %s fault %s without calling %s, which svmtune_kfd hooks: this amdgpu runs an inlined or cloned copy (built otherwise than the KFD sources svmtune_kfd was built against)",
				   slot->fault.type == SVMTUNE_FAULT_CPU ? "CPU" : "GPU",
				   did, missed);
}

static int svmtune_kfd_restore_exit(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct svmtune_kfd_fault *slot = &svmtune_kfd_call_data(ri)->own;

	svmtune_kfd_fault_check(slot, regs_return_value(regs));
	svmtune_kfd_fault_end(slot);
	return 0;
}

#if SVMTUNE_KFD_HAS_WINDOW
/*
 * A decided GPU fault's svm_migrate_to_vram() of @prange is given
 * [@start, @last]: the one window the fault's map may be given too
 * (svmtune_kfd_map_window()) and its pages' new residency.
 */
static void svmtune_kfd_mig_window(struct svmtune_kfd_fault *slot,
				   struct svm_range *prange,
				   unsigned long start, unsigned long last)
{
	slot->mig_prange = prange;
	slot->mig_start = start;
	slot->mig_last = last;
	slot->mig_done = false;
}
#endif

/* svm_migrate_to_vram(), entry: the engine decides a GPU fault's window. */
static void svmtune_kfd_to_vram_decide(struct svmtune_kfd_hook *hook,
				       struct pt_regs *regs,
				       unsigned long parent_ip)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct mm_struct *mm;
	struct svmtune_kfd_fault *slot;

	slot = svmtune_kfd_fault_find();
	if (!slot)
		return;
	slot->seen |= SVMTUNE_KFD_SEEN_MIGRATE;
	if ((u32)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_TRIGGER) !=
	    KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU ||
	    slot->fault.type != SVMTUNE_FAULT_DEVICE || slot->decided ||
	    !svmtune_kfd_from_caller(hook, parent_ip))
		return;
	mm = (struct mm_struct *)svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_MM);
	if (!svmtune_kfd_decide(slot, mm, prange))
		return;

	if (slot->decision.action == SVMTUNE_MAP_REMOTE ||
	    slot->decision.dest == SVMTUNE_LOC_SYSTEM) {
		/*
		 * Decline only while the range's pages are in system memory
		 * (actual_loc 0). With them in another GPU's VRAM, KFD's map
		 * path (svm_range_validate_and_map -> hmm_range_fault) faults
		 * them for the faulting GPU; svm_migrate_to_ram() returns 0
		 * for KFD's own faulting task without moving them, and
		 * hmm_range_fault() retries forever, in the fault worker,
		 * under mmap_lock and the range's locks. Reproduced on the KFD
		 * test bed (2 GPUs, no hive): a soft lockup in
		 * svm_range_restore_pages. KFD migrates then, with its window;
		 * a GPU in the same xGMI hive could map the pages remotely, but
		 * telling needs KFD's node table, so it migrates there too.
		 * KFD holds prange->migrate_mutex here, which actual_loc
		 * changes under.
		 */
		if (prange->actual_loc) {
			svmtune_kfd_count(SVMTUNE_KFD_DECLINES_SKIPPED_IN_VRAM, 1);
#if SVMTUNE_KFD_HAS_WINDOW
			/* KFD's own window moves, and is what is mapped. */
			svmtune_kfd_mig_window(slot, prange,
					       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START),
					       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));
#endif
			return;
		}
		slot->declined = true;
#if SVMTUNE_KFD_HAS_WINDOW
		{
			/*
			 * Mapped where the pages are: the engine's window
			 * within KFD's (svmtune_kfd_map_window()), which the
			 * call was given.
			 */
			unsigned long start = max(slot->decision.start >> PAGE_SHIFT,
						  svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START));
			unsigned long last = min((slot->decision.end >> PAGE_SHIFT) - 1,
						 svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));

			slot->result.remote += last - start + 1;
			svmtune_kfd_mig_window(slot, prange, start, last);
		}
#else
		/* 6.1 validates and maps the whole range. */
		slot->result.remote += prange->last - prange->start + 1;
#endif
		svmtune_kfd_count(SVMTUNE_KFD_MIGRATIONS_DECLINED, 1);
		/*
		 * The destination becomes system memory, where the range is
		 * (actual_loc 0, under migrate_mutex): the first thing KFD's
		 * migration checks. 6.12: svm_migrate_to_vram() ->
		 * svm_migrate_ram_to_vram() checks the window against the
		 * range (KFD's or the engine's: inside it), then looks the
		 * destination node up by gpu_id, finds none for 0 and returns
		 * -ENODEV before reserving, allocating or touching a page;
		 * svm_range_restore_pages() then takes system memory (it
		 * falls back to system memory with actual_loc 0 as r = 0) and
		 * maps. 6.1: svm_migrate_ram_to_vram() returns 0 at once, the
		 * range being already "on best_loc". svm_range_restore_pages()
		 * keeps best_loc in its own variable: only this call sees 0.
		 */
		svmtune_kfd_set_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC, 0);
		return;
	}
#if SVMTUNE_KFD_HAS_WINDOW
	svmtune_kfd_set_window(regs, &slot->decision, SVMTUNE_KFD_TO_VRAM_ARG_START,
			       SVMTUNE_KFD_TO_VRAM_ARG_LAST);
	svmtune_kfd_mig_window(slot, prange,
			       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_START),
			       svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_LAST));
#endif
}

/* Pages of @prange in VRAM, where KFD keeps count; 6.1 does not. */
static u64 svmtune_kfd_pages_in_vram(struct svm_range *prange)
{
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	return svmtune_kfd_vram_pages(prange);
#else
	return 0;
#endif
}

/*
 * Pages a successful migration of @prange moved, from the VRAM page count
 * before and after it (6.12); 6.1 keeps no count and migrates whole
 * ranges, so the range's size is the best measure there. A @bridged
 * migration starts from an empty VRAM count: every page in VRAM after it
 * came from system memory.
 */
static u64 svmtune_kfd_moved(struct svm_range *prange, u64 before,
			     bool to_vram, bool bridged)
{
#if SVMTUNE_KFD_HAS_VRAM_PAGES
	u64 after = svmtune_kfd_vram_pages(prange);

	if (to_vram && bridged)
		return after;
	if (to_vram)
		return after > before ? after - before : 0;
	return before > after ? before - after : 0;
#else
	return prange->last - prange->start + 1;
#endif
}

static int svmtune_kfd_migrate_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs, unsigned int a_mm)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	call->obj = (void *)svmtune_kfd_arg(regs, 0);
	call->mm = (struct mm_struct *)svmtune_kfd_arg(regs, a_mm);
	call->before = svmtune_kfd_pages_in_vram(call->obj);
	call->slot = svmtune_kfd_fault_find();
	call->bridged = false;
	return 0;
}

/* svm_migrate_to_vram(prange, best_loc, ...), entry. */
static int svmtune_kfd_to_vram_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	u32 actual = READ_ONCE(prange->actual_loc);
	/* 0 if declined (svmtune_kfd_to_vram_decide() may run first). */
	u32 best = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_VRAM_ARG_BEST_LOC);

	svmtune_kfd_migrate_entry(ri, regs, SVMTUNE_KFD_TO_VRAM_ARG_MM);
	call->dev = svmtune_kfd_range_device(prange, best);
	/* The test svm_migrate_to_vram() makes, under prange->migrate_mutex. */
	call->bridged = actual && actual != best;
	return 0;
}

/* svm_migrate_to_vram(), return: count, and account a GPU fault's result. */
static int svmtune_kfd_to_vram_exit(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;
	bool declined = slot && slot->declined;
	u64 moved = 0;

	if (!regs_return_value(regs) && !declined)
		moved = svmtune_kfd_moved(call->obj, call->before, true,
					  call->bridged);
	svmtune_kfd_count(SVMTUNE_KFD_TO_VRAM_CALLS, 1);
	svmtune_kfd_count(SVMTUNE_KFD_TO_VRAM_PAGES, moved);
	if (slot && slot->decided && slot->fault.type == SVMTUNE_FAULT_DEVICE) {
		slot->result.to_device += moved;
#if SVMTUNE_KFD_HAS_WINDOW
		/*
		 * KFD moved the pages of the window it was given (the
		 * engine's, or its own where the engine's decision could not
		 * apply) that were in system memory (its VRAM count says how
		 * many, not which): the whole window is in VRAM now, for the engine's per-block state (density
		 * prefetch), on the node the pages went to (best_loc, which
		 * may be another GPU of the hive than the faulting one: the
		 * fault and its pages count on the faulting GPU's device).
		 * 6.1 moves whole ranges and gets no such state. On the
		 * faulting node, the account below records it.
		 */
		if (slot->mig_prange == call->obj)
			slot->mig_done = declined || !regs_return_value(regs);
		if (moved && call->dev && slot->mig_prange == call->obj &&
		    call->dev == slot->dev) {
			slot->result.moved_start = slot->mig_start << PAGE_SHIFT;
			slot->result.moved_end = (slot->mig_last + 1) << PAGE_SHIFT;
			slot->result.moved_loc = call->dev->id;
		} else if (moved && call->dev && slot->mig_prange == call->obj) {
			svmtune_note_resident(call->dev, call->mm, &slot->decision,
					      slot->mig_start << PAGE_SHIFT,
					      (slot->mig_last + 1) << PAGE_SHIFT,
					      call->dev->id);
		}
#endif
		svmtune_account(slot->dev, call->mm, &slot->fault,
				&slot->decision, &slot->result);
		memset(&slot->result, 0, sizeof(slot->result));
	}
	return 0;
}

#if SVMTUNE_KFD_HAS_WINDOW
/* svm_migrate_vram_to_ram(), entry: a CPU fault takes the engine's window. */
/*
 * The window a CPU fault's migration of @prange takes: the engine's,
 * clipped to the range, if it holds the faulting address.
 */
static bool svmtune_kfd_cpu_window(const struct svm_range *prange,
				   const struct svmtune_kfd_fault *slot,
				   struct svmtune_decision *d)
{
	*d = slot->decision;
	d->start = max(d->start, prange->start << PAGE_SHIFT);
	d->end = min(d->end, (prange->last + 1) << PAGE_SHIFT);
	return d->start <= slot->fault.addr && d->end > slot->fault.addr;
}

static void svmtune_kfd_to_ram_window(struct svmtune_kfd_hook *hook,
				      struct pt_regs *regs,
				      unsigned long parent_ip)
{
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	struct svmtune_kfd_fault *slot = svmtune_kfd_cpu_decide(hook, regs, parent_ip);
	struct svmtune_decision d;

	if (!slot || !svmtune_kfd_cpu_window(prange, slot, &d))
		return;
	svmtune_kfd_set_window(regs, &d, SVMTUNE_KFD_TO_RAM_ARG_START,
			       SVMTUNE_KFD_TO_RAM_ARG_LAST);
}

/* ---- KFD's retry-fault filter: duplicates by when they were raised ---- */

/*
 * KFD 6.12 drops a GPU retry fault on a range mapped less than 2 ms
 * before (AMDGPU_SVM_RANGE_RETRY_FAULT_PENDING against
 * prange->validate_timestamp, in svm_range_restore_pages()), so that the
 * faults still queued for pages it just mapped are not served twice; the
 * GPU raises a dropped fault again until it is served. The test is on the
 * time the fault is handled, per range. Both ends miss:
 *  - the next window of a range: its fault is dropped too, so a range is
 *    served about one window per 2 ms. Measured on the KFD test bed (8 MiB
 *    read in order, TCG): at 4 KiB windows, 3906 of 5954 faults dropped.
 *    A bound, not a measurement: if serving a fault takes much less than
 *    2 ms (the model's assumption for hardware; the test bed under TCG is
 *    slower), one window per 2 ms caps a stream through one range at
 *    window / 2 ms (4 KiB: 2 MB/s, 64 KiB: 33 MB/s); the storm table of
 *    make bench (benchmarks.rst) gives what the test bed measures;
 *  - a duplicate that waited in the ring more than 2 ms: served again in
 *    full (hmm_range_fault(), the map, a TLB flush; a migration's
 *    MMU_NOTIFY_MIGRATE unmaps the window from every GPU). Under a storm of
 *    waves the ring holds hundreds of faults: measured on the test bed
 *    (256 waves, grid-stride read of 32 MiB), KFD served 498 of 4,101
 *    duplicates again.
 *
 * With retry_filter "window" (the default) svmtune_kfd judges a fault by
 * when it was raised. At the return of every successful
 * svm_range_validate_and_map() it records the window mapped and, for each
 * GPU it was mapped for, that GPU's checkpoint: the interrupt timestamp of
 * the newest entry in its fault ring then (ring 0 with the retry CAM, IH1
 * without; the checkpoint KFD itself takes on unmap in
 * svm_range_unmap_from_cpu()). A fault on a page of a recorded window whose
 * timestamp (svm_range_restore_pages()'s ts) is not after the checkpoint was
 * raised before the map finished: a duplicate, which KFD drops (the range's
 * timestamp set to now, however long the fault waited). A later one is new
 * (the page was unmapped again since): KFD serves it (the timestamp
 * cleared), as it serves a fault on a page no recorded window of the range
 * holds (the next window of a stream, which KFD alone would drop for
 * 2 ms). A fault on a range with no window recorded (the pool reused, or
 * mapped before svmtune_kfd attached) is left to KFD's own test. The
 * decision is made at the return of svm_range_from_addr(), which
 * svm_range_restore_pages() calls just before its test, under svms->lock.
 * Both timestamps are the IH's, so no clock is converted.
 *
 * Windows are kept in a pool of SVMTUNE_KFD_WINDOWS entries hashed by
 * range, the oldest reused first. Range and device pointers are compared,
 * never followed, so a freed range costs at worst one fault dropped (the
 * GPU raises it again) or served again (as KFD alone would). Cost per GPU
 * fault and per map: one spinlock and a walk of one hash bucket.
 */
#define SVMTUNE_KFD_WINDOWS		1024

/**
 * struct svmtune_kfd_window - a window mapped for a GPU
 * @node: in svmtune_kfd_window_hash, by @prange, while @prange is set
 * @prange: the range (a key only)
 * @adev: the GPU it was mapped for (a key only)
 * @start: its first page
 * @last: its last page
 * @checkpoint: the GPU's newest fault-ring timestamp when the map was done
 */
struct svmtune_kfd_window {
	struct hlist_node node;
	const struct svm_range *prange;
	const struct amdgpu_device *adev;
	unsigned long start;
	unsigned long last;
	u64 checkpoint;
};

static struct svmtune_kfd_window svmtune_kfd_windows[SVMTUNE_KFD_WINDOWS];
static DEFINE_HASHTABLE(svmtune_kfd_window_hash, 8);
static unsigned int svmtune_kfd_window_next;
/* Covers the pool, the hash and svmtune_kfd_window_next. */
static DEFINE_SPINLOCK(svmtune_kfd_window_lock);

/*
 * The interrupt timestamp of the newest entry in @adev's retry-fault ring:
 * ring 0 with the retry CAM (faults are delegated from it to the software
 * ring), IH1 without it, else the software ring. False when the IH cannot
 * say (no ring, or no decode_iv_ts).
 */
static bool svmtune_kfd_checkpoint(struct amdgpu_device *adev, u64 *ts)
{
	const struct amdgpu_ih_funcs *funcs = adev->irq.ih_funcs;
	struct amdgpu_ih_ring *ih;
	u32 wptr;

	if (!funcs || !funcs->get_wptr || !funcs->decode_iv_ts)
		return false;
	if (adev->irq.retry_cam_enabled)
		ih = &adev->irq.ih;
	else if (adev->irq.ih1.ring_size)
		ih = &adev->irq.ih1;
	else
		ih = &adev->irq.ih_soft;
	if (!ih->ring_size)
		return false;
	wptr = funcs->get_wptr(adev, ih);
	*ts = funcs->decode_iv_ts(ih, wptr, -1);
	return true;
}

static void svmtune_kfd_window_add(const struct svm_range *prange,
				   struct amdgpu_device *adev,
				   unsigned long start, unsigned long last)
{
	struct svmtune_kfd_window *w;
	unsigned long flags;
	u64 checkpoint;

	if (!svmtune_kfd_checkpoint(adev, &checkpoint))
		return;
	spin_lock_irqsave(&svmtune_kfd_window_lock, flags);
	w = &svmtune_kfd_windows[svmtune_kfd_window_next];
	svmtune_kfd_window_next = (svmtune_kfd_window_next + 1) % SVMTUNE_KFD_WINDOWS;
	if (w->prange)
		hash_del(&w->node);
	w->prange = prange;
	w->adev = adev;
	w->start = start;
	w->last = last;
	w->checkpoint = checkpoint;
	hash_add(svmtune_kfd_window_hash, &w->node, (unsigned long)prange);
	spin_unlock_irqrestore(&svmtune_kfd_window_lock, flags);
}

/*
 * A successful map of [@start, @last] of @prange for GPU @gpuidx of its
 * process (MAX_GPU_INSTANCE: every GPU it may be mapped for, as a prefetch
 * or a restore after eviction maps): record it per GPU.
 */
static void svmtune_kfd_windows_mapped(const struct svm_range *prange,
				       unsigned long start, unsigned long last,
				       unsigned long gpuidx)
{
	struct kfd_process *p = container_of(prange->svms, struct kfd_process,
					     svms);
	unsigned int i;

	for (i = 0; i < p->n_pdds && i < MAX_GPU_INSTANCE; i++) {
		struct kfd_process_device *pdd = p->pdds[i];

		if (!pdd || (gpuidx < MAX_GPU_INSTANCE && i != gpuidx) ||
		    (gpuidx >= MAX_GPU_INSTANCE &&
		     !test_bit(i, prange->bitmap_access) &&
		     !test_bit(i, prange->bitmap_aip)))
			continue;
		svmtune_kfd_window_add(prange, pdd->dev->adev, start, last);
	}
}

/* What the recorded windows say of a GPU fault's page. */
enum svmtune_kfd_window_says {
	SVMTUNE_KFD_WINDOW_UNKNOWN,	/* no window of the range recorded */
	SVMTUNE_KFD_WINDOW_OUTSIDE,	/* windows recorded, none holds it */
	SVMTUNE_KFD_WINDOW_MAPPED,	/* a window holds it: @checkpoint */
};

/*
 * The newest checkpoint of a window of @prange mapped for @adev that holds
 * @page, if one does.
 */
static enum svmtune_kfd_window_says
svmtune_kfd_window_checkpoint(const struct svm_range *prange,
			      const struct amdgpu_device *adev,
			      unsigned long page, u64 *checkpoint)
{
	enum svmtune_kfd_window_says says = SVMTUNE_KFD_WINDOW_UNKNOWN;
	const struct svmtune_kfd_window *w;
	unsigned long flags;

	spin_lock_irqsave(&svmtune_kfd_window_lock, flags);
	hash_for_each_possible(svmtune_kfd_window_hash, w, node,
			       (unsigned long)prange) {
		if (w->prange != prange || w->adev != adev)
			continue;
		if (page < w->start || page > w->last) {
			if (says == SVMTUNE_KFD_WINDOW_UNKNOWN)
				says = SVMTUNE_KFD_WINDOW_OUTSIDE;
			continue;
		}
		if (says != SVMTUNE_KFD_WINDOW_MAPPED ||
		    amdgpu_ih_ts_after(*checkpoint, w->checkpoint))
			*checkpoint = w->checkpoint;
		says = SVMTUNE_KFD_WINDOW_MAPPED;
	}
	spin_unlock_irqrestore(&svmtune_kfd_window_lock, flags);
	return says;
}

/*
 * svm_range_from_addr(), entry: a GPU fault looks its range up, from
 * svm_range_restore_pages() (checked: the filter below acts on its call).
 */
static void svmtune_kfd_from_addr_entry(struct svmtune_kfd_hook *hook,
					struct pt_regs *regs,
					unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	atomic64_inc(&hook->calls);
	if (!slot || slot->fault.type != SVMTUNE_FAULT_DEVICE)
		return;
	slot->seen |= SVMTUNE_KFD_SEEN_FROM_ADDR;
	svmtune_kfd_from_caller(hook, parent_ip);
}

/*
 * svm_range_from_addr(svms, addr, parent), return: in a GPU fault, the
 * range KFD is about to test the 2 ms filter of, svms->lock held. A fault
 * raised before a window holding its page was mapped is dropped; one
 * raised after, or on a page no recorded window of the range holds (the
 * next window of a stream), is served; on a range with no window recorded
 * (pool reused, or mapped before svmtune_kfd attached) KFD decides.
 */
static int svmtune_kfd_from_addr_exit(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct svm_range *prange = (struct svm_range *)regs_return_value(regs);
	struct svmtune_kfd_fault *slot;
	u64 checkpoint = 0;

	slot = svmtune_kfd_fault_find();
	if (!slot || slot->fault.type != SVMTUNE_FAULT_DEVICE)
		return 0;
	/* None: KFD creates the range, by svm_range_new(), if it returns 0. */
	if (prange)
		slot->seen &= ~SVMTUNE_KFD_SEEN_NO_RANGE;
	else
		slot->seen |= SVMTUNE_KFD_SEEN_NO_RANGE;
	if (!prange || !READ_ONCE(svmtune_kfd_filter_per_window) ||
	    slot->filtered || svmtune_kfd_refusing())
		return 0;
	slot->filtered = true;
	switch (svmtune_kfd_window_checkpoint(prange, slot->adev,
					      slot->fault.addr >> PAGE_SHIFT,
					      &checkpoint)) {
	case SVMTUNE_KFD_WINDOW_UNKNOWN:
		svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_UNKNOWN, 1);
		return 0;
	case SVMTUNE_KFD_WINDOW_MAPPED:
		/*
		 * KFD writes the stamp under prange->migrate_mutex, which
		 * this fault takes next; a map finishing meanwhile on another
		 * GPU's worker may stamp it again, and KFD then drops this
		 * fault once: the GPU raises it again, judged again.
		 */
		if (amdgpu_ih_ts_after_or_equal(slot->ts, checkpoint)) {
			WRITE_ONCE(prange->validate_timestamp,
				   ktime_get_boottime());
			svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_DUPLICATES, 1);
			return 0;
		}
		fallthrough;
	case SVMTUNE_KFD_WINDOW_OUTSIDE:
		WRITE_ONCE(prange->validate_timestamp, 0);
		svmtune_kfd_count(SVMTUNE_KFD_RETRY_FILTER_PASSED, 1);
		return 0;
	}
	return 0;
}

/*
 * svm_range_validate_and_map(mm, map_start, map_last, prange, gpuidx,
 * ...), entry: a GPU fault the engine decided maps the window its
 * migration was given (the engine's, or KFD's where the engine's decision
 * could not apply), not KFD's. After a migration, pages left in system
 * memory are not mapped remotely by accident: they fault again and get
 * their own decision. After a declined one, exactly the window the engine
 * counted as remote is mapped. The window is what the return records for
 * the retry filter.
 */
static void svmtune_kfd_map_window(struct svmtune_kfd_hook *hook,
				   struct pt_regs *regs,
				   unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	atomic64_inc(&hook->calls);
	if (!slot || slot->fault.type != SVMTUNE_FAULT_DEVICE)
		return;
	slot->seen |= SVMTUNE_KFD_SEEN_MAP;
	if (!svmtune_kfd_from_caller(hook, parent_ip))
		return;
	/*
	 * The window the fault's migration was given, and only after it
	 * returned 0 (moved, or declined), within KFD's own map window. A map
	 * wider than KFD's may meet a page still in another GPU's VRAM, which
	 * hmm_range_fault() cannot move for KFD's own fault task
	 * (svm_migrate_to_ram() returns 0 for it) and retries without end,
	 * under the range's locks: after a move between GPUs that failed
	 * (-EDEADLK; KFD then falls back to system memory with its own
	 * window), or one that KFD counted as complete though a page it could
	 * not move stayed behind (6.12 subtracts every page it copied from
	 * vram_pages, migrated or not, so actual_loc goes to 0 with the page
	 * still there: reproduced on the test bed with a page held as a CPU
	 * fault in flight holds it). KFD alone would map only its window;
	 * pages svmtune moved beyond it are mapped at their own next fault.
	 */
	if (slot->decided && slot->mig_done &&
	    slot->mig_prange == (struct svm_range *)svmtune_kfd_arg(regs, 3)) {
		unsigned long start = max(slot->mig_start, svmtune_kfd_arg(regs, 1));
		unsigned long last = min(slot->mig_last, svmtune_kfd_arg(regs, 2));
		struct svmtune_decision d = {
			.start = start << PAGE_SHIFT,
			.end = (last + 1) << PAGE_SHIFT,
		};

		if (start <= last)
			svmtune_kfd_set_window(regs, &d, 1, 2);
	}
	slot->map_prange = (struct svm_range *)svmtune_kfd_arg(regs, 3);
	slot->map_start = svmtune_kfd_arg(regs, 1);
	slot->map_last = svmtune_kfd_arg(regs, 2);
}

/*
 * svm_range_validate_and_map(), kretprobe entry: the call's window, as
 * given; a GPU fault's may be changed by the ftrace hook above, which
 * runs before or after this one, so the return takes that from the fault.
 */
static int svmtune_kfd_map_entry(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	call->obj = (void *)svmtune_kfd_arg(regs, 3);
	call->start = svmtune_kfd_arg(regs, 1);
	call->last = svmtune_kfd_arg(regs, 2);
	call->before = svmtune_kfd_arg(regs, 4);
	call->slot = svmtune_kfd_fault_find();
	return 0;
}

/* svm_range_validate_and_map(), return: a mapped window is recorded. */
static int svmtune_kfd_map_exit(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	if (regs_return_value(regs) || !call->obj)
		return 0;
	if (slot && slot->fault.type == SVMTUNE_FAULT_DEVICE &&
	    slot->map_prange == call->obj) {
		call->start = slot->map_start;
		call->last = slot->map_last;
	}
	svmtune_kfd_windows_mapped(call->obj, call->start, call->last,
				   call->before);
	return 0;
}
#endif

static int svmtune_kfd_to_ram_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct svmtune_kfd_fault *slot =
		svmtune_kfd_cpu_decide(svmtune_kfd_kret_hook(ri), regs,
				       get_kretprobe_retaddr(ri));
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svm_range *prange = (struct svm_range *)svmtune_kfd_arg(regs, 0);
	int ret;
#if SVMTUNE_KFD_HAS_WINDOW
	struct svmtune_decision d;

	/* The span migrated, whichever of this and the ftrace hook ran first. */
	if (slot && svmtune_kfd_cpu_window(prange, slot, &d)) {
		call->start = d.start >> PAGE_SHIFT;
		call->last = (d.end >> PAGE_SHIFT) - 1;
	} else {
		call->start = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_START);
		call->last = svmtune_kfd_arg(regs, SVMTUNE_KFD_TO_RAM_ARG_LAST);
	}
#endif
	ret = svmtune_kfd_migrate_entry(ri, regs, 1);
	/*
	 * Where the pages come from (migrate_mutex is held): a CPU fault's
	 * decision looked that node up already.
	 */
	call->dev = slot ? slot->dev :
		svmtune_kfd_range_device(prange, READ_ONCE(prange->actual_loc));
	return ret;
}

static int svmtune_kfd_to_ram_exit(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = call->slot;
	struct svmtune_result result = { 0 };
	u64 moved = 0;

	if (!regs_return_value(regs))
		moved = svmtune_kfd_moved(call->obj, call->before, false, false);
	svmtune_kfd_count(SVMTUNE_KFD_TO_RAM_CALLS, 1);
	svmtune_kfd_count(SVMTUNE_KFD_TO_RAM_PAGES, moved);
#if SVMTUNE_KFD_HAS_WINDOW
	/*
	 * What left VRAM: the span KFD was asked to migrate, as it began; a
	 * CPU fault's move, which a GPU fault may reverse (thrashing).
	 */
	if (moved && call->dev)
		svmtune_note_resident(call->dev, call->mm,
				      slot && slot->fault.type == SVMTUNE_FAULT_CPU ?
				      &slot->decision : NULL,
				      call->start << PAGE_SHIFT,
				      (call->last + 1) << PAGE_SHIFT,
				      SVMTUNE_LOC_SYSTEM);
#endif
	if (slot && slot->fault.type == SVMTUNE_FAULT_CPU) {
		slot->result.to_system += moved;
	} else if (moved && call->dev) {
		/* Eviction, prefetch, or a GPU fault's fallback. */
		result.to_system = moved;
		svmtune_account(call->dev, call->mm, NULL, NULL, &result);
	}
	return 0;
}

/*
 * svm_migrate_to_ram(vmf): the CPU touched a page in VRAM. The engine is
 * asked only once KFD commits to a migration (svm_migrate_vram_to_ram()
 * for this fault, svmtune_kfd_cpu_decide()): KFD returns before that for
 * its own fault-handling task, a range already back in system memory, or a
 * process it no longer knows, and those faults are not the engine's.
 */
static int svmtune_kfd_cpu_fault_entry(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)svmtune_kfd_arg(regs, 0);
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot;

	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULTS, 1);
	slot = svmtune_kfd_fault_begin(&call->own, SVMTUNE_FAULT_CPU);
	call->slot = slot;
	call->mm = vmf->vma->vm_mm;
	slot->fault.addr = vmf->address & PAGE_MASK;
	slot->fault.write = !!(vmf->flags & FAULT_FLAG_WRITE);
	svmtune_kfd_attach_later(call->mm);
	return 0;
}

static int svmtune_kfd_cpu_fault_exit(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct svmtune_kfd_fault *slot = &call->own;

	if (slot->decided)
		svmtune_account(slot->dev, call->mm, &slot->fault,
				&slot->decision, &slot->result);
	else
		svmtune_kfd_count(SVMTUNE_KFD_CPU_FAULTS_NOT_MIGRATED, 1);
	svmtune_kfd_fault_check(slot, regs_return_value(regs));
	svmtune_kfd_fault_end(slot);
	return 0;
}

/*
 * Learn the KFD nodes @p may use (svmtune_kfd_nodes.c): its per-device data
 * is complete before its SVM state exists.
 */
static void svmtune_kfd_learn_nodes(struct kfd_process *p)
{
	struct svmtune_kfd_node_info info;
	u32 i;

	for (i = 0; i < p->n_pdds; i++)
		if (svmtune_kfd_process_node(p, i, &info))
			svmtune_kfd_node_device(&info);
}

/*
 * A granularity svmtune may give KFD, in KFD's units: svmtune's @shift,
 * never below KFD's own (@kfd: the process default KFD gave a range, amdgpu's
 * svm_default_granularity; 9 on 6.1). KFD's granularity is the size of the ranges
 * it creates on GPU faults, and each range costs an interval notifier, DMA
 * address arrays and a VRAM BO, none charged to the process's memcg: at
 * 4 KiB a 1 GiB buffer would become 262,144 ranges. svmtune's narrower
 * windows reach KFD through the migration and map hooks instead; a process
 * that wants KFD's ranges smaller asks KFD for it
 * (KFD_IOCTL_SVM_ATTR_GRANULARITY), which KFD applies after this.
 */
static u8 svmtune_kfd_granularity_floor(unsigned int shift, u8 kfd)
{
	u8 gran = min_t(unsigned int, shift - PAGE_SHIFT, 0x1b);

	if (gran >= kfd)
		return gran;
	svmtune_kfd_count(SVMTUNE_KFD_GRANULARITY_KEPT, 1);
	return kfd;
}

#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
/*
 * amdgpu's svm_default_granularity parameter (log2 pages, writable at run
 * time), which KFD copies into each new process's default granularity at
 * svm_range_list_init(), capped at 0x1b: the size of every range a GPU
 * fault creates in memory the process never registered (kfd_svm.c,
 * svm_range_create_unregistered_range()). Found by name in the attached
 * amdgpu's parameters, NULL if it has none (then nothing is written).
 */
static const unsigned int *svmtune_kfd_amdgpu_granularity;

static void svmtune_kfd_find_granularity(struct module *amdgpu)
{
	unsigned int i;

	svmtune_kfd_amdgpu_granularity = NULL;
	for (i = 0; i < amdgpu->num_kp; i++)
		if (!strcmp(amdgpu->kp[i].name, "svm_default_granularity") &&
		    amdgpu->kp[i].ops == &param_ops_uint)
			svmtune_kfd_amdgpu_granularity = amdgpu->kp[i].arg;
}

/* KFD's own default granularity for a new process, in KFD's units. */
static bool svmtune_kfd_kfd_granularity(u8 *gran)
{
	if (!svmtune_kfd_amdgpu_granularity)
		return false;
	/* As svm_range_list_init() computes it, u8 cast included. */
	*gran = min_t(u8, READ_ONCE(*svmtune_kfd_amdgpu_granularity), 0x1b);
	return true;
}

/* svmtune's default granularity for @p's address space, in KFD's units. */
static void svmtune_kfd_sync_default(struct kfd_process *p)
{
	u8 kfd, gran;

	if (svmtune_kfd_refusing() || !svmtune_kfd_kfd_granularity(&kfd))
		return;
	gran = svmtune_kfd_granularity_floor(svmtune_default_granularity(p->mm),
					     kfd);
	if (svmtune_kfd_default_granularity(p) == gran)
		return;
	svmtune_kfd_set_default_granularity(p, gran);
	svmtune_kfd_count(SVMTUNE_KFD_DEFAULT_GRANULARITY_SET, 1);
}

/*
 * svm_range_get_attr(p, ...) and svm_range_set_attr(p, ...), entry: the
 * process's own ioctls bring an existing process up to date with svmtune's
 * current default before KFD reads it (GET_ATTR reports it, SET_ATTR gives
 * it to the ranges it creates). KFD reads the u8 with plain loads and
 * writes it only at init; the store is a single byte. A process KFD knew
 * before svmtune_kfd was loaded gets the engine's state here.
 */
static void svmtune_kfd_attr_entry(struct svmtune_kfd_hook *hook,
				   struct pt_regs *regs,
				   unsigned long parent_ip)
{
	struct kfd_process *p = (struct kfd_process *)svmtune_kfd_arg(regs, 0);

	atomic64_inc(&hook->calls);
	svmtune_kfd_sync_default(p);
	svmtune_kfd_learn_nodes(p);
	svmtune_kfd_attach_later(p->mm);
}
#endif

/* svm_range_new(), entry: a fault that creates a range calls it. */
static void svmtune_kfd_range_new_entry(struct svmtune_kfd_hook *hook,
					struct pt_regs *regs,
					unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	atomic64_inc(&hook->calls);
	if (slot)
		slot->seen |= SVMTUNE_KFD_SEEN_NEW;
}

/*
 * svm_range_new(svms, start, last, update_mem_usage), return: a KFD range
 * was made (by SET_ATTR, a GPU fault, a split or a clone) and is not
 * published yet, so its attributes can be written without KFD's locks.
 * It gets, through KFD's own attributes, what the process set with
 * svmtune at its start: preferred location system memory, access in place
 * (remote) or GPU read-mostly, and a granularity larger than KFD's (never
 * a smaller one: svmtune_kfd_granularity_floor()). KFD's callers then
 * apply what they must on top (SET_ATTR's own attributes, a split's
 * parent's), so an application's explicit KFD attributes win.
 */
static int svmtune_kfd_range_new_exit(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct svm_range *prange = (struct svm_range *)regs_return_value(regs);
	struct svmtune_explicit_policy pol;
	struct kfd_process *p;
	bool given = false;

	if (!prange || svmtune_kfd_refusing())
		return 0;
	p = container_of(prange->svms, struct kfd_process, svms);
	svmtune_explicit_policy(p->mm, prange->start << PAGE_SHIFT, &pol);
	if (pol.preferred_loc == SVMTUNE_LOC_SYSTEM) {
		prange->preferred_loc = KFD_IOCTL_SVM_LOCATION_SYSMEM;
		given = true;
	}
	if (pol.access == SVMTUNE_ACCESS_REMOTE) {
		/* KFD's ACCESS_IN_PLACE for every GPU that may access it. */
		bitmap_or(prange->bitmap_aip, prange->bitmap_aip,
			  prange->bitmap_access, MAX_GPU_INSTANCE);
		bitmap_zero(prange->bitmap_access, MAX_GPU_INSTANCE);
		given = true;
	} else if (pol.access == SVMTUNE_ACCESS_READ_MOSTLY) {
		prange->flags |= KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY;
		given = true;
	}
	/* Only ever larger than what KFD gave it (the process's default). */
	if (pol.granularity != SVMTUNE_GRANULARITY_UNSET) {
		u8 gran = svmtune_kfd_granularity_floor(pol.granularity,
							prange->granularity);

		if (gran != prange->granularity) {
			prange->granularity = gran;
			given = true;
		}
	}
	if (given)
		svmtune_kfd_count(SVMTUNE_KFD_RANGES_GIVEN_POLICY, 1);
	return 0;
}

/* Entry of a function whose return needs its first argument (call->obj). */
static int svmtune_kfd_first_arg_entry(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	atomic64_inc(&svmtune_kfd_kret_hook(ri)->calls);
	svmtune_kfd_call_data(ri)->obj = (void *)svmtune_kfd_arg(regs, 0);
	return 0;
}

/* svm_range_list_init(p), entry: the process, and amdgpu's parameter now. */
static int svmtune_kfd_list_init_entry(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);

	svmtune_kfd_first_arg_entry(ri, regs);
	call->start = 0;
#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	{
		u8 kfd;

		call->start = svmtune_kfd_kfd_granularity(&kfd);
		call->before = kfd;
	}
#endif
	return 0;
}

/*
 * svm_range_list_init(p), return: a new KFD process, in the open of
 * /dev/kfd by the process itself. It is not published yet
 * (create_process() has not returned), so nothing reads the default
 * granularity concurrently with this write. Its address space gets the
 * engine's state.
 */
static int svmtune_kfd_list_init_exit(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct svmtune_kfd_call *call = svmtune_kfd_call_data(ri);
	struct kfd_process *p = call->obj;

	if (regs_return_value(regs) || svmtune_kfd_refusing())
		return 0;
	/*
	 * Checks of the process's layout: KFD creates it in the open of
	 * /dev/kfd by the process itself, and has just set its default
	 * granularity from amdgpu's parameter (read at the entry, call->before,
	 * and now: it may have been written in between).
	 */
	if (p->mm != current->mm) {
		svmtune_kfd_refuse("svm_range_list_init()'s process has mm %p, not its caller's: struct kfd_process is not laid out as in the KFD sources svmtune_kfd was built against",
				   p->mm);
		return 0;
	}
#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	{
		u8 kfd, now = svmtune_kfd_default_granularity(p);

		if (call->start && svmtune_kfd_kfd_granularity(&kfd) &&
		    now != kfd && now != (u8)call->before) {
			svmtune_kfd_refuse("svm_range_list_init() gave the process default granularity %u, not %u from amdgpu's svm_default_granularity: struct svm_range_list or the parameter is not as in the KFD sources svmtune_kfd was built against",
					   now, kfd);
			return 0;
		}
	}
	svmtune_kfd_sync_default(p);
#endif
	svmtune_kfd_learn_nodes(p);
	svmtune_kfd_attach_later(p->mm);
	return 0;
}

/*
 * kfd_topology_remove_device(node), entry: amdgpu is about to free a KFD
 * node (unload, PCI removal, a partition mode change).
 */
static void svmtune_kfd_remove_node_entry(struct svmtune_kfd_hook *hook,
					  struct pt_regs *regs,
					  unsigned long parent_ip)
{
	struct svmtune_kfd_node_info info;

	atomic64_inc(&hook->calls);
	if (svmtune_kfd_arg_node(regs, 0, &info))
		svmtune_kfd_node_gone(&info);
}

#if SVMTUNE_KFD_HAS_CONTIGUOUS_WISH
/* svm_range_vram_node_new()'s code, [start, end), in the attached amdgpu. */
static unsigned long svmtune_kfd_vram_node_new_start;
static unsigned long svmtune_kfd_vram_node_new_end;

/*
 * amdgpu_bo_create_user(adev, bp, ubo_ptr), entry, called from
 * svm_range_vram_node_new(): KFD creates the VRAM BO of an SVM range (the
 * whole range, on its first migration to VRAM). With contiguous_vram on,
 * ask amdgpu for one contiguous run: amdgpu forms a PTE fragment from the
 * virtual alignment and the run of physically contiguous pages a map
 * covers (amdgpu_vm_pte_fragment()), and without the flag a range whose
 * size is not a power of two gets its VRAM from the largest free buddy
 * blocks, each the highest free one, in descending address order. Sound
 * from 6.10 on only: the flag is a wish there, and amdgpu_vram_mgr_new()
 * falls back to ordinary blocks when no contiguous run is free, so the
 * range never loses VRAM for it. Every amdgpu_bo_create_user() call
 * passes through here (GEM and KFD allocations too); only calls from
 * svm_range_vram_node_new() are counted and changed.
 */
static void svmtune_kfd_bo_create_entry(struct svmtune_kfd_hook *hook,
					struct pt_regs *regs,
					unsigned long parent_ip)
{
	struct amdgpu_bo_param *bp;

	if (parent_ip < svmtune_kfd_vram_node_new_start ||
	    parent_ip >= svmtune_kfd_vram_node_new_end)
		return;
	atomic64_inc(&hook->calls);
	if (!READ_ONCE(svmtune_kfd_contiguous_vram) || svmtune_kfd_refusing())
		return;
	bp = (struct amdgpu_bo_param *)svmtune_kfd_arg(regs, SVMTUNE_KFD_BO_CREATE_ARG_BP);
	if (bp->domain != AMDGPU_GEM_DOMAIN_VRAM || bp->type != ttm_bo_type_device)
		return;
	bp->flags |= AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS;
	svmtune_kfd_count(SVMTUNE_KFD_CONTIGUOUS_REQUESTED, 1);
}
#endif

/*
 * kfd_topology_add_device(node), return: amdgpu added a KFD node while
 * svmtune_kfd is attached (a partition mode change, a GPU hot-added or
 * rebound; those of amdgpu's load come before the attach).
 */
static int svmtune_kfd_add_node_exit(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct svmtune_kfd_node_info info;

	if (regs_return_value(regs) ||
	    !svmtune_kfd_node_fill(svmtune_kfd_call_data(ri)->obj, &info))
		return 0;
	svmtune_kfd_node_added(&info);
	return 0;
}

/* The dirtying hooks (svmtune_kfd_dirty.c): their arguments only. */
/* amdgpu_vm_update_range(), entry: a GPU fault maps (a valid PTE). */
static void svmtune_kfd_update_range_hook(struct svmtune_kfd_hook *hook,
					  struct pt_regs *regs,
					  unsigned long parent_ip)
{
	struct svmtune_kfd_fault *slot;

	if (svmtune_kfd_arg(regs, SVMTUNE_KFD_UPDATE_ARG_FLAGS) & AMDGPU_PTE_VALID) {
		slot = svmtune_kfd_fault_find();
		if (slot && slot->fault.type == SVMTUNE_FAULT_DEVICE)
			slot->seen |= SVMTUNE_KFD_DID_MAP;
	}
	svmtune_kfd_update_range_entry(regs);
}

/* Whether @args moves pages to or from device memory of KFD's nodes. */
static bool svmtune_kfd_migration_is_kfd(const struct migrate_vma *args)
{
	unsigned long i;

	for (i = 0; i < args->npages; i++) {
		struct page *spage = migrate_pfn_to_page(args->src[i]);
		struct page *dpage = migrate_pfn_to_page(args->dst[i]);

		if (spage && is_device_private_page(spage))
			return svmtune_kfd_node_pgmap(spage->pgmap);
		if (dpage && is_device_private_page(dpage))
			return svmtune_kfd_node_pgmap(dpage->pgmap);
	}
	return false;
}

/* migrate_vma_pages(), entry: a fault of KFD's migrates. */
static void svmtune_kfd_migrate_pages_hook(struct svmtune_kfd_hook *hook,
					   struct pt_regs *regs,
					   unsigned long parent_ip)
{
	struct migrate_vma *args = (void *)svmtune_kfd_arg(regs, 0);
	struct svmtune_kfd_fault *slot = svmtune_kfd_fault_find();

	if (slot && svmtune_kfd_migration_is_kfd(args))
		slot->seen |= SVMTUNE_KFD_DID_MIGRATE;
	svmtune_kfd_migrate_pages_entry(regs);
}

/*
 * Registered in this order and unregistered in the reverse (those that
 * begin faults last): the node hooks first, so no node is learned while a
 * removal goes unseen (and svmtune_kfd_nodes_freeze() covers the detach).
 */
static struct svmtune_kfd_hook svmtune_kfd_hooks[] = {
	{
		.symbol = "kfd_topology_remove_device",
		.entry = svmtune_kfd_remove_node_entry,
	}, {
		.symbol = "kfd_topology_add_device",
		.kret_entry = svmtune_kfd_first_arg_entry,
		.kret_exit = svmtune_kfd_add_node_exit,
	}, {
		.symbol = "svm_range_restore_pages",
		.kret_entry = svmtune_kfd_restore_entry,
		.kret_exit = svmtune_kfd_restore_exit,
		.begins_fault = true,
	}, {
		.symbol = "svm_migrate_to_vram",
		.caller = "svm_range_restore_pages",
		.entry = svmtune_kfd_to_vram_decide,
		.kret_entry = svmtune_kfd_to_vram_entry,
		.kret_exit = svmtune_kfd_to_vram_exit,
	}, {
		.symbol = "svm_migrate_vram_to_ram",
		.caller = "svm_migrate_to_ram",
#if SVMTUNE_KFD_HAS_WINDOW
		.entry = svmtune_kfd_to_ram_window,
#endif
		.kret_entry = svmtune_kfd_to_ram_entry,
		.kret_exit = svmtune_kfd_to_ram_exit,
	}, {
		.symbol = "svm_migrate_to_ram",
		.kret_entry = svmtune_kfd_cpu_fault_entry,
		.kret_exit = svmtune_kfd_cpu_fault_exit,
		.begins_fault = true,
	}, {
		.symbol = "svm_range_new",
		.entry = svmtune_kfd_range_new_entry,
		.kret_exit = svmtune_kfd_range_new_exit,
	},
#if SVMTUNE_KFD_HAS_WINDOW
	{
		.symbol = "svm_range_validate_and_map",
		.caller = "svm_range_restore_pages",
		.entry = svmtune_kfd_map_window,
		.kret_entry = svmtune_kfd_map_entry,
		.kret_exit = svmtune_kfd_map_exit,
	}, {
		.symbol = "svm_range_from_addr",
		.caller = "svm_range_restore_pages",
		.entry = svmtune_kfd_from_addr_entry,
		.kret_exit = svmtune_kfd_from_addr_exit,
	},
#endif
	{
		.symbol = "svm_range_list_init",
		.kret_entry = svmtune_kfd_list_init_entry,
		.kret_exit = svmtune_kfd_list_init_exit,
	},
#if SVMTUNE_KFD_HAS_CONTIGUOUS_WISH
	{
		.symbol = "amdgpu_bo_create_user",
		.entry = svmtune_kfd_bo_create_entry,
	},
#endif
	{
		.symbol = "amdgpu_vm_update_range",
		.entry = svmtune_kfd_update_range_hook,
	}, {
		.symbol = "migrate_vma_pages",
		.core = true,
		.core_addr = (unsigned long)migrate_vma_pages,
		.entry = svmtune_kfd_migrate_pages_hook,
	},
#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	{
		.symbol = "svm_range_get_attr",
		.entry = svmtune_kfd_attr_entry,
	}, {
		.symbol = "svm_range_set_attr",
		.entry = svmtune_kfd_attr_entry,
	},
#endif
};

/* ---- The PTE fragment histogram ---- */

/*
 * amdgpu_vm_update_ptes's prototype (amdgpu_trace.h, the same in 6.1 and
 * 6.12). amdgpu fires it once per page-table block it writes, for GPU pages
 * [start, end), with nptes capped at 32 and incr the bytes one entry maps
 * (4 KiB for a PTE, 2 MiB for a PDE used as a huge entry); the fragment is
 * bits 7..11 of the flags (AMDGPU_PTE_FRAG). The histogram counts the 4 KiB
 * pages mapped, end - start, so neither the cap nor huge entries distort
 * it; unmaps (no AMDGPU_PTE_VALID) and VMs other than KFD's compute VMs
 * (graphics) are left out. The engine's histogram is per device: the
 * tracepoint names the GPU, not the partition, so a partitioned GPU's
 * fragments all count on the first of its nodes svmtune_kfd learned.
 */
static void svmtune_kfd_update_ptes(void *data, struct amdgpu_vm_update_params *p,
				    u64 start, u64 end, unsigned int nptes,
				    u64 dst, u64 incr, u64 flags, pid_t pid,
				    u64 vm_ctx)
{
	struct svmtune_device *dev;

	if (!(flags & AMDGPU_PTE_VALID) || !p->vm || !p->vm->is_compute_context ||
	    end <= start)
		return;
	atomic64_add(end - start, &svmtune_kfd_fragment_ptes[(flags >> 7) & 0x1f]);
	dev = svmtune_kfd_node_device_by_adev(p->adev);
	if (dev)
		svmtune_account_fragments(dev, PAGE_SHIFT + ((flags >> 7) & 0x1f),
					  end - start);
}

static struct tracepoint *svmtune_kfd_tp;
static struct module *svmtune_kfd_tp_owner;
static bool svmtune_kfd_tp_on;

/* Called for every module with tracepoints, loaded ones included. */
static int svmtune_kfd_tp_module(struct notifier_block *nb, unsigned long val,
				 void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int i;

	if (val != MODULE_STATE_COMING || mod != svmtune_kfd_tp_owner)
		return NOTIFY_OK;
	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, "amdgpu_vm_update_ptes"))
			svmtune_kfd_tp = tp;
	}
	return NOTIFY_OK;
}

static void svmtune_kfd_tp_attach(struct module *amdgpu)
{
	struct notifier_block nb = { .notifier_call = svmtune_kfd_tp_module };
	int ret;

	svmtune_kfd_tp = NULL;
	svmtune_kfd_tp_owner = amdgpu;
	if (register_tracepoint_module_notifier(&nb))
		return;
	unregister_tracepoint_module_notifier(&nb);
	if (!svmtune_kfd_tp) {
		pr_info("amdgpu has no amdgpu_vm_update_ptes tracepoint: no PTE fragment histogram\n");
		return;
	}
	ret = tracepoint_probe_register(svmtune_kfd_tp, svmtune_kfd_update_ptes, NULL);
	if (ret)
		pr_warn("cannot probe amdgpu_vm_update_ptes: %pe\n", ERR_PTR(ret));
	svmtune_kfd_tp_on = !ret;
}

static void svmtune_kfd_tp_detach(void)
{
	if (!svmtune_kfd_tp_on)
		return;
	tracepoint_probe_unregister(svmtune_kfd_tp, svmtune_kfd_update_ptes, NULL);
	tracepoint_synchronize_unregister();
	svmtune_kfd_tp_on = false;
}

/* ---- Finding amdgpu's functions ---- */

/*
 * The address of @symbol in @amdgpu, or 0, and its size in bytes in
 * *@sizep (when not NULL). amdgpu exports none of them and
 * kallsyms_lookup_name() is not exported: a disabled kprobe (never armed)
 * resolves "amdgpu:<symbol>", and the offset sprint_symbol() reports takes
 * its address back to the function's start (with IBT the probe sits after
 * the ENDBR).
 */
static unsigned long svmtune_kfd_lookup(struct module *amdgpu, const char *symbol,
					unsigned long *sizep)
{
	struct kprobe kp = { .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr, offset, size;
	char where[KSYM_SYMBOL_LEN];
	const char *plus;
	char name[96];

	if (snprintf(name, sizeof(name), "%s:%s", amdgpu->name, symbol) >= sizeof(name))
		return 0;
	kp.symbol_name = name;
	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	sprint_symbol(where, addr);
	plus = strchr(where, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &offset, &size) != 2 ||
	    offset > addr)
		return 0;
	addr -= offset;
	if (!within_module(addr, amdgpu))
		return 0;
	if (sizep)
		*sizep = size;
	return addr;
}

/**
 * svmtune_kfd_kfd_version() - the KFD interface version amdgpu implements
 * @amdgpu: the amdgpu module, referenced by the caller
 * @major: KFD_IOCTL_MAJOR_VERSION amdgpu was built with
 * @minor: KFD_IOCTL_MINOR_VERSION amdgpu was built with
 * @why: on failure, the reason in words
 * @len: size of @why
 *
 * Calls amdgpu's own AMDKFD_IOC_GET_VERSION handler, which only stores the
 * two constants; its address is taken by amdgpu's ioctl table, so it keeps
 * its ENDBR, and that is checked before calling it.
 *
 * Return: 0, or -ENOENT if amdgpu has no KFD, -EPERM if the handler cannot
 * be called safely.
 */
int svmtune_kfd_kfd_version(struct module *amdgpu, u32 *major, u32 *minor,
			    char *why, size_t len)
{
	int (*get_version)(struct file *filep, struct kfd_process *p, void *data);
	struct kfd_ioctl_get_version_args args = { 0 };
	unsigned long addr;

	addr = svmtune_kfd_lookup(amdgpu, "kfd_ioctl_get_version", NULL);
	if (!addr) {
		snprintf(why, len, "%s has no kfd_ioctl_get_version: built without CONFIG_HSA_AMD",
			 amdgpu->name);
		return -ENOENT;
	}
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && !is_endbr(*(u32 *)addr)) {
		snprintf(why, len, "%s's kfd_ioctl_get_version has no ENDBR: cannot call it under IBT",
			 amdgpu->name);
		return -EPERM;
	}
	get_version = (void *)addr;
	get_version(NULL, NULL, &args);
	*major = args.major_version;
	*minor = args.minor_version;
	return 0;
}

/* ---- Attach and detach ---- */

static void notrace svmtune_kfd_ftrace_entry(unsigned long ip,
					     unsigned long parent_ip,
					     struct ftrace_ops *ops,
					     struct ftrace_regs *fregs)
{
	struct svmtune_kfd_hook *hook = container_of(ops, struct svmtune_kfd_hook, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs)
		hook->entry(hook, regs, parent_ip);
}

static int svmtune_kfd_hook_register(struct svmtune_kfd_hook *hook,
				     char *why, size_t len)
{
	int ret;

	if (hook->entry) {
		/* ftrace_free_filter() leaves freed hashes behind: start afresh. */
		memset(&hook->ops, 0, sizeof(hook->ops));
		hook->ops.func = svmtune_kfd_ftrace_entry;
		hook->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION;
		ret = ftrace_set_filter_ip(&hook->ops, hook->addr, 0, 0);
		if (!ret) {
			ret = register_ftrace_function(&hook->ops);
			if (ret)
				ftrace_set_filter_ip(&hook->ops, hook->addr, 1, 0);
		}
		if (ret) {
			snprintf(why, len, "cannot hook %s with ftrace: error %d",
				 hook->symbol, ret);
			return ret;
		}
		hook->ops_on = true;
	}
	if (hook->kret_exit) {
		memset(&hook->krp, 0, sizeof(hook->krp));
		hook->krp.kp.addr = (kprobe_opcode_t *)hook->addr;
		hook->krp.entry_handler = hook->kret_entry;
		hook->krp.handler = hook->kret_exit;
		hook->krp.data_size = hook->begins_fault ?
			sizeof(struct svmtune_kfd_call) :
			offsetof(struct svmtune_kfd_call, own);
		hook->krp.maxactive = SVMTUNE_KFD_MAXACTIVE;
		ret = register_kretprobe(&hook->krp);
		if (ret) {
			snprintf(why, len, "cannot probe %s: error %d",
				 hook->symbol, ret);
			return ret;
		}
		hook->krp_on = true;
	}
	return 0;
}

static void svmtune_kfd_hook_unregister(struct svmtune_kfd_hook *hook)
{
	if (hook->krp_on) {
		unregister_kretprobe(&hook->krp);
		hook->krp_on = false;
	}
	if (hook->ops_on) {
		unregister_ftrace_function(&hook->ops);
		ftrace_free_filter(&hook->ops);
		hook->ops_on = false;
	}
}

/**
 * svmtune_kfd_hooks_detach() - remove every hook
 *
 * Called with the attach lock held. When it returns no handler runs
 * (ftrace and kprobes wait for the callers of a module's handlers).
 */
void svmtune_kfd_hooks_detach(void)
{
	int i;

	svmtune_kfd_nodes_freeze();
	/*
	 * The hooks that find faults go before the ones that begin them: a
	 * fault-beginning kretprobe unregistered while its function is in
	 * flight never runs that call's return handler, and the call's entry,
	 * left in the faults table, is freed when the function returns. No
	 * handler may walk the table by then.
	 */
	for (i = ARRAY_SIZE(svmtune_kfd_hooks) - 1; i >= 0; i--)
		if (!svmtune_kfd_hooks[i].begins_fault)
			svmtune_kfd_hook_unregister(&svmtune_kfd_hooks[i]);
	for (i = ARRAY_SIZE(svmtune_kfd_hooks) - 1; i >= 0; i--)
		svmtune_kfd_hook_unregister(&svmtune_kfd_hooks[i]);
	svmtune_kfd_tp_detach();
	svmtune_kfd_attach_flush();
	svmtune_kfd_faults_reset();
	svmtune_kfd_nodes_reset();
}

/**
 * svmtune_kfd_hooks_attach() - hook the attached amdgpu's KFD
 * @amdgpu: the amdgpu module, referenced by the caller, its interface
 *	version already checked
 * @why: on failure, the reason in words
 * @len: size of @why
 *
 * Every function must be found before anything is hooked: a partial set
 * would apply half a policy.
 *
 * Return: 0, -ENOENT if a function is missing (@amdgpu built without
 * HSA_AMD_SVM, or another layout), or the error of a hook registration.
 */
int svmtune_kfd_hooks_attach(struct module *amdgpu, char *why, size_t len)
{
	struct svmtune_kfd_hook *hook;
	int ret = 0;

	for (hook = svmtune_kfd_hooks; hook < svmtune_kfd_hooks + ARRAY_SIZE(svmtune_kfd_hooks); hook++) {
		hook->addr = hook->core ? hook->core_addr :
			     svmtune_kfd_lookup(amdgpu, hook->symbol, NULL);
		if (!hook->addr) {
			snprintf(why, len, "%s has no %s: built without CONFIG_HSA_AMD_SVM, or not the KFD svmtune_kfd was built for",
				 amdgpu->name, hook->symbol);
			return -ENOENT;
		}
		if (hook->caller) {
			unsigned long size = 0;

			hook->caller_start = svmtune_kfd_lookup(amdgpu, hook->caller, &size);
			hook->caller_end = hook->caller_start + size;
			if (!hook->caller_start || !size) {
				snprintf(why, len, "%s has no %s (the caller of %s): not the KFD svmtune_kfd was built for",
					 amdgpu->name, hook->caller, hook->symbol);
				return -ENOENT;
			}
		}
	}

#if SVMTUNE_KFD_HAS_CONTIGUOUS_WISH
	{
		unsigned long size = 0, start;

		start = svmtune_kfd_lookup(amdgpu, "svm_range_vram_node_new", &size);
		if (!start || !size) {
			snprintf(why, len, "%s has no svm_range_vram_node_new: not the KFD svmtune_kfd was built for",
				 amdgpu->name);
			return -ENOENT;
		}
		svmtune_kfd_vram_node_new_start = start;
		svmtune_kfd_vram_node_new_end = start + size;
	}
#endif

#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	svmtune_kfd_find_granularity(amdgpu);
#endif
	svmtune_kfd_faults_reset();
	WRITE_ONCE(svmtune_kfd_attach_stopping, false);
	for (hook = svmtune_kfd_hooks; hook < svmtune_kfd_hooks + ARRAY_SIZE(svmtune_kfd_hooks); hook++) {
		ret = svmtune_kfd_hook_register(hook, why, len);
		if (ret) {
			svmtune_kfd_hooks_detach();
			return ret;
		}
	}
	svmtune_kfd_tp_attach(amdgpu);
	return 0;
}

/**
 * svmtune_kfd_untracked_faults() - faults KFD handled without svmtune
 *
 * The fault-beginning kretprobes' misses since the last attach: calls made
 * while all %SVMTUNE_KFD_MAXACTIVE instances were in use.
 *
 * Return: their number.
 */
u64 svmtune_kfd_untracked_faults(void)
{
	struct svmtune_kfd_hook *hook;
	u64 n = 0;

	for (hook = svmtune_kfd_hooks; hook < svmtune_kfd_hooks + ARRAY_SIZE(svmtune_kfd_hooks); hook++)
		if (hook->begins_fault)
			n += READ_ONCE(hook->krp.nmissed);
	return n;
}

/**
 * svmtune_kfd_hooks_show() - the hooks file: one line per hooked function
 * @buf: the sysfs page
 *
 * Return: bytes written.
 */
ssize_t svmtune_kfd_hooks_show(char *buf)
{
	struct svmtune_kfd_hook *hook;
	ssize_t n = 0;

	for (hook = svmtune_kfd_hooks; hook < svmtune_kfd_hooks + ARRAY_SIZE(svmtune_kfd_hooks); hook++)
		n += sysfs_emit_at(buf, n, "%s %s%s%s calls %llu missed %lu%s%s\n",
				   hook->symbol,
				   hook->ops_on || hook->krp_on ? "on" : "off",
				   hook->entry ? " ftrace" : "",
				   hook->kret_exit ? " kretprobe" : "",
				   (unsigned long long)atomic64_read(&hook->calls),
				   hook->krp_on ? (unsigned long)hook->krp.nmissed : 0UL,
				   hook->caller ? " caller " : "",
				   hook->caller ? hook->caller : "");
	n += sysfs_emit_at(buf, n, "amdgpu_vm_update_ptes %s tracepoint\n",
			   svmtune_kfd_tp_on ? "on" : "off");
	return n;
}
