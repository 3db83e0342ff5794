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

#include "svmtune_kfd_hooks.h"

static_assert(AMDGPU_PTE_FRAG(1) == 1ULL << 7,
	      "the PTE fragment field moved: fix svmtune_kfd_update_ptes()");

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
bool svmtune_kfd_from_caller(struct svmtune_kfd_hook *hook, unsigned long ret)
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

/*
 * amdgpu_bo_create_user(adev, bp, ubo_ptr) (7.3: amdgpu_bo_create(adev, bp,
 * bo_ptr), SVMTUNE_KFD_BO_CREATE), entry, called from
 * svm_range_vram_node_new(): KFD creates the VRAM BO of an SVM range (the
 * whole range, on its first migration to VRAM). With contiguous_vram on,
 * ask amdgpu for one contiguous run: amdgpu forms a PTE fragment from the
 * virtual alignment and the run of physically contiguous pages a map
 * covers (amdgpu_vm_pte_fragment()), and without the flag a range whose
 * size is not a power of two gets its VRAM from the largest free buddy
 * blocks, each the highest free one, in descending address order. Sound
 * from 6.10 on only: the flag is a wish there, and amdgpu_vram_mgr_new()
 * falls back to ordinary blocks when no contiguous run is free, so the
 * range never loses VRAM for it. Every call of the hooked function
 * passes through here (GEM and KFD allocations too); only calls from
 * svm_range_vram_node_new() are counted and changed.
 */
static void svmtune_kfd_bo_create_entry(struct svmtune_kfd_hook *hook,
					struct pt_regs *regs,
					unsigned long parent_ip)
{
	struct amdgpu_bo_param *bp;

	if (parent_ip < svmtune_kfd.vram_node_new_start ||
	    parent_ip >= svmtune_kfd.vram_node_new_end)
		return;
	atomic64_inc(&hook->calls);
	if (!READ_ONCE(svmtune_kfd.contiguous_vram) || svmtune_kfd_refusing())
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
		.symbol = SVMTUNE_KFD_BO_CREATE,
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
#if SVMTUNE_KFD_COUNTS_COPIED
	{
		.symbol = "migrate_vma_finalize",
		.core = true,
		.core_addr = (unsigned long)migrate_vma_finalize,
		.entry = svmtune_kfd_finalize_entry,
	},
#endif
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
	atomic64_add(end - start, &svmtune_kfd.fragment_ptes[(flags >> 7) & 0x1f]);
	dev = svmtune_kfd_node_device_by_adev(p->adev);
	if (dev)
		svmtune_account_fragments(dev, PAGE_SHIFT + ((flags >> 7) & 0x1f),
					  end - start);
}

/* Called for every module with tracepoints, loaded ones included. */
static int svmtune_kfd_tp_module(struct notifier_block *nb, unsigned long val,
				 void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int i;

	if (val != MODULE_STATE_COMING || mod != svmtune_kfd.tp_owner)
		return NOTIFY_OK;
	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, "amdgpu_vm_update_ptes"))
			svmtune_kfd.tp = tp;
	}
	return NOTIFY_OK;
}

static void svmtune_kfd_tp_attach(struct module *amdgpu)
{
	struct notifier_block nb = { .notifier_call = svmtune_kfd_tp_module };
	int ret;

	svmtune_kfd.tp = NULL;
	svmtune_kfd.tp_owner = amdgpu;
	if (register_tracepoint_module_notifier(&nb))
		return;
	unregister_tracepoint_module_notifier(&nb);
	if (!svmtune_kfd.tp) {
		pr_info("amdgpu has no amdgpu_vm_update_ptes tracepoint: no PTE fragment histogram\n");
		return;
	}
	ret = tracepoint_probe_register(svmtune_kfd.tp, svmtune_kfd_update_ptes, NULL);
	if (ret)
		pr_warn("cannot probe amdgpu_vm_update_ptes: %pe\n", ERR_PTR(ret));
	svmtune_kfd.tp_on = !ret;
}

static void svmtune_kfd_tp_detach(void)
{
	if (!svmtune_kfd.tp_on)
		return;
	tracepoint_probe_unregister(svmtune_kfd.tp, svmtune_kfd_update_ptes, NULL);
	tracepoint_synchronize_unregister();
	svmtune_kfd.tp_on = false;
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
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && !svmtune_is_endbr((void *)addr)) {
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

	lockdep_assert_held(&svmtune_kfd.lock);
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

	lockdep_assert_held(&svmtune_kfd.lock);

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
		svmtune_kfd.vram_node_new_start = start;
		svmtune_kfd.vram_node_new_end = start + size;
	}
#endif

#if SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY
	svmtune_kfd_find_granularity(amdgpu);
#endif
	svmtune_kfd_faults_reset();
	svmtune_kfd_attach_resume();
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
			   svmtune_kfd.tp_on ? "on" : "off");
	return n;
}
