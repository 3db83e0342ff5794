// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: programmable policy, the BPF struct_ops type svmtune_ops.
 */

/**
 * DOC: Programmable policy
 *
 * svmtune.ko registers a BPF struct_ops type, &struct svmtune_ops, so that
 * an operator or an application can replace the engine's decision for a
 * fault with a program. A program is called by svmtune_decide() for every
 * fault of every backend (the emulated GPU, svmtune_kfd on KFD's own
 * code) once the built-in decision is made, and sees it: it keeps it
 * (returns 0) or replaces it (returns 1) with a window size, an action and
 * a destination in &struct svmtune_bpf_decision. The engine validates what
 * it gets before use: a size outside %SVMTUNE_GRANULARITY_MIN to
 * %SVMTUNE_GRANULARITY_MAX, an action it does not know, a migration to
 * anything but the faulting device (a device fault) or system memory (a
 * CPU fault), a remote mapping from a device that is not registered, or a
 * return value other than 0 and 1: refused and counted, and the built-in
 * decision stands. The window is always cut by the engine around the
 * fault, within the bounds the backend gave (the VMA, KFD's range) and
 * the policy range, so a program cannot name pages the fault does not
 * own.
 *
 * Attachment: a struct_ops map whose @pid is 0 applies to every address
 * space that has no program of its own, and needs CAP_SYS_ADMIN; one with
 * a @pid applies to that process's address space, and needs the right to
 * ptrace it (PTRACE_MODE_ATTACH_REALCREDS), as the policy ioctls on
 * another process would. One global program and at most
 * %SVMTUNE_BPF_MAX_ATTACHED per-process ones at a time (-EBUSY beyond,
 * -EEXIST for a second one on the same process). Without a program the
 * built-in policy runs, and the fault path pays one RCU-protected load.
 *
 * Context and locks: the callbacks run in the backend's fault path
 * (amdgpu's fault worker, a CPU fault, svmtune_kfd's probe), under the
 * address space's &svmtune_mm.lock, a spinlock, and under rcu_read_lock():
 * programs are not sleepable (check_member refuses sleepable ones), and
 * the verifier gives them only the helpers that do not sleep. A program
 * reads its context through BTF, read-only, and may write only the fields
 * of its &struct svmtune_bpf_decision. Detach (the link's or map's
 * release) unpublishes the program and waits for an RCU grace period, so
 * no fault still runs it when the BPF core frees it; the struct_ops map
 * holds a reference on svmtune.ko while it is registered.
 *
 * Availability: the type exists only where the kernel has BPF
 * (CONFIG_BPF_SYSCALL) and svmtune.ko carries BTF (the kernel's
 * CONFIG_DEBUG_INFO_BTF_MODULES, and a build tree with vmlinux for
 * pahole: Debian's headers packages have none). Where either is missing
 * the engine does not register it, says why in the kernel log at load and
 * in /sys/kernel/svmtune/bpf/state, and the built-in policy is all there
 * is; registering without BTF would fail silently in the BPF core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <linux/svmtune_bpf.h>
#include <svmtune/compat.h>

#include "svmtune_internal.h"

/* The counters /sys/kernel/svmtune/bpf shows. */
static atomic64_t svmtune_bpf_calls;
static atomic64_t svmtune_bpf_replaced;
static atomic64_t svmtune_bpf_refused;

/* Why the type is not registered, or NULL when it is. */
static const char *svmtune_bpf_unavailable = "not initialised";

#ifdef SVMTUNE_BPF_STRUCT_OPS

/**
 * struct svmtune_bpf_attached - a program attached to one process
 * @node: in svmtune_bpf_procs, by @mm
 * @mm: the process's address space (mmgrab()ed: the pointer stays unique
 *	while attached, even after the process exits)
 * @ops: the program
 */
struct svmtune_bpf_attached {
	struct hlist_node node;
	struct mm_struct *mm;
	struct svmtune_ops *ops;
};

/*
 * svmtune_bpf_lock (a mutex) serialises attach and detach; the fault path
 * reads svmtune_bpf_global and svmtune_bpf_procs under RCU only.
 */
static DEFINE_MUTEX(svmtune_bpf_lock);
static struct svmtune_ops __rcu *svmtune_bpf_global;
static DEFINE_HASHTABLE(svmtune_bpf_procs, 6);
static unsigned int svmtune_bpf_nr_procs;

/* The program for @mm: its own, else the global one, else NULL. */
static struct svmtune_ops *svmtune_bpf_ops_for(struct mm_struct *mm)
{
	struct svmtune_bpf_attached *a;

	if (mm && svmtune_bpf_nr_procs) {
		hash_for_each_possible_rcu(svmtune_bpf_procs, a, node,
					   (unsigned long)mm)
			if (a->mm == mm)
				return a->ops;
	}
	return rcu_dereference(svmtune_bpf_global);
}

/* The program's actions are the engine's. */
static_assert(SVMTUNE_BPF_MIGRATE == SVMTUNE_MIGRATE);
static_assert(SVMTUNE_BPF_MAP_REMOTE == SVMTUNE_MAP_REMOTE);

/* Whether the program's @out may replace a decision for @fault on @dev. */
static bool svmtune_bpf_valid(const struct svmtune_device *dev,
			      const struct svmtune_fault *fault,
			      const struct svmtune_bpf_decision *out)
{
	bool cpu = fault->type == SVMTUNE_FAULT_CPU;

	if (out->shift < SVMTUNE_GRANULARITY_MIN ||
	    out->shift > SVMTUNE_GRANULARITY_MAX || out->reserved)
		return false;
	switch (out->action) {
	case SVMTUNE_BPF_MIGRATE:
		return out->dest == (cpu ? SVMTUNE_LOC_SYSTEM : dev->id);
	case SVMTUNE_BPF_MAP_REMOTE:
		/* A CPU fault always brings its pages home. */
		return !cpu && (out->dest == SVMTUNE_LOC_SYSTEM ||
				svmtune_device_id_live(out->dest));
	default:
		return false;
	}
}

/**
 * svmtune_bpf_decide() - let an attached program replace a decision
 * @dev: the device that faulted
 * @smm: the address space's state, its lock held; or NULL
 * @blk: the fault's block, or NULL
 * @fault: the fault
 * @lo: the lowest address the window may take
 * @hi: the highest (exclusive)
 * @d: the built-in decision; replaced by the program's when valid
 *
 * The window of a replaced decision is the aligned block of the program's
 * size around the fault within [@lo, @hi), with the built-in decision's
 * fragment and throttle.
 *
 * Return: whether the program's decision replaced the built-in one.
 */
bool svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
			const struct svmtune_block *blk,
			const struct svmtune_fault *fault, unsigned long lo,
			unsigned long hi, struct svmtune_decision *d)
{
	struct svmtune_bpf_fault ctx;
	struct svmtune_bpf_decision out;
	struct svmtune_ops *ops;
	int (*fn)(struct svmtune_bpf_fault *f, struct svmtune_bpf_decision *d);
	int ret;

	if (smm)
		lockdep_assert_held(&smm->lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm ? smm->mm : NULL);
	fn = ops ? (fault->type == SVMTUNE_FAULT_CPU ? ops->cpu_fault :
						       ops->device_fault) : NULL;
	if (!fn) {
		rcu_read_unlock();
		return false;
	}
	ctx = (struct svmtune_bpf_fault){
		.addr = fault->addr & PAGE_MASK,
		.lo = lo, .hi = hi,
		.dev = dev->id,
		.cpu = fault->type == SVMTUNE_FAULT_CPU,
		.write = fault->write,
		.start = d->start, .end = d->end,
		.shift = d->granularity,
		.action = d->action, .dest = d->dest,
		.block_loc = SVMTUNE_LOC_UNSET,
	};
	if (blk) {
		ctx.block_resident = bitmap_weight(blk->resident,
						   SVMTUNE_BLOCK_PAGES);
		ctx.block_touched = bitmap_weight(blk->touched,
						  SVMTUNE_BLOCK_PAGES);
		ctx.block_loc = blk->loc;
		ctx.block_thrashing = svmtune_block_thrashing(blk);
		ctx.block_shift = blk->ad.shift;
	}
	out = (struct svmtune_bpf_decision){
		.shift = d->granularity, .action = d->action, .dest = d->dest,
	};
	ret = fn(&ctx, &out);
	rcu_read_unlock();

	atomic64_inc(&svmtune_bpf_calls);
	if (ret == 0)
		return false;
	if (ret != 1 || !svmtune_bpf_valid(dev, fault, &out)) {
		atomic64_inc(&svmtune_bpf_refused);
		return false;
	}
	atomic64_inc(&svmtune_bpf_replaced);
	svmtune_window_cut(ctx.addr, lo, hi, out.shift, d);
	d->fault_start = d->start;
	d->fault_end = d->end;
	d->action = out.action;
	d->dest = out.dest;
	if (d->fragment > out.shift)
		d->fragment = out.shift;
	return true;
}

/*
 * What a struct_ops program may write: its decision, nothing else. The
 * decision's BTF type is learnt from the verifier itself: both callbacks
 * take (fault, decision), and btf_ctx_access() resolves the second
 * argument's type from the callback's prototype in svmtune.ko's BTF, as
 * the running kernel relocated it (7.x distils a module's base BTF and
 * renumbers its types at load; the module cannot relocate a BTF_ID list
 * itself). A write through any other pointer, the fault's included, is
 * refused.
 */
static const struct btf *svmtune_bpf_decision_btf;
static u32 svmtune_bpf_decision_id;

static int svmtune_bpf_btf_struct_access(struct bpf_verifier_log *log,
					 const struct bpf_reg_state *reg,
					 int off, int size)
{
	if (!READ_ONCE(svmtune_bpf_decision_id) ||
	    reg->btf != READ_ONCE(svmtune_bpf_decision_btf) ||
	    reg->btf_id != READ_ONCE(svmtune_bpf_decision_id)) {
		bpf_log(log, "svmtune_ops: only the decision is writable\n");
		return -EACCES;
	}
	if (off < 0 || size <= 0 ||
	    off + size > offsetof(struct svmtune_bpf_decision, reserved)) {
		bpf_log(log, "svmtune_ops: no decision field at %d+%d\n", off,
			size);
		return -EACCES;
	}
	return 0;
}

static bool svmtune_bpf_is_valid_access(int off, int size,
					enum bpf_access_type type,
					const struct bpf_prog *prog,
					struct bpf_insn_access_aux *info)
{
	if (!bpf_tracing_btf_ctx_access(off, size, type, prog, info))
		return false;
	/* The second argument of every callback: the decision. */
	if (off == sizeof(u64) && info->btf && info->btf_id) {
		WRITE_ONCE(svmtune_bpf_decision_btf, info->btf);
		WRITE_ONCE(svmtune_bpf_decision_id, info->btf_id);
	}
	return true;
}

static const struct bpf_func_proto *
svmtune_bpf_get_func_proto(enum bpf_func_id func_id, const struct bpf_prog *prog)
{
	return bpf_base_func_proto(func_id, prog);
}

static const struct bpf_verifier_ops svmtune_bpf_verifier_ops = {
	.get_func_proto = svmtune_bpf_get_func_proto,
	.is_valid_access = svmtune_bpf_is_valid_access,
	.btf_struct_access = svmtune_bpf_btf_struct_access,
};

static int svmtune_bpf_init(struct btf *btf)
{
	return 0;
}

/* Callbacks run under a spinlock: no sleepable program. */
static int svmtune_bpf_check_member(const struct btf_type *t,
				    const struct btf_member *member,
				    const struct bpf_prog *prog)
{
	return prog->sleepable ? -EINVAL : 0;
}

static int svmtune_bpf_init_member(const struct btf_type *t,
				   const struct btf_member *member,
				   void *kdata, const void *udata)
{
	const struct svmtune_ops *uops = udata;
	struct svmtune_ops *ops = kdata;
	u32 moff = __btf_member_bit_offset(t, member) / 8;
	unsigned int i;

	switch (moff) {
	case offsetof(struct svmtune_ops, pid):
		ops->pid = uops->pid;
		return 1;
	case offsetof(struct svmtune_ops, name):
		/* Not empty, NUL-terminated within the field, printable. */
		if (strscpy(ops->name, uops->name, sizeof(ops->name)) <= 0)
			return -EINVAL;
		for (i = 0; ops->name[i]; i++)
			if (!isgraph(ops->name[i]))
				return -EINVAL;
		return 1;
	}
	return 0;
}

/*
 * The address space of process @pid, if the caller may act on it as on
 * the policy ioctls' target (svmtune_target_mm()): mmgrab()ed.
 */
static struct mm_struct *svmtune_bpf_target_mm(pid_t pid)
{
	struct mm_struct *mm = svmtune_target_mm(pid);

	if (IS_ERR(mm))
		return mm;
	mmgrab(mm);
	mmput(mm);
	return mm;
}

static int svmtune_bpf_reg(void *kdata, struct bpf_link *link)
{
	struct svmtune_ops *ops = kdata;
	struct svmtune_bpf_attached *a;
	struct mm_struct *mm;
	int ret = 0;

	if (!ops->pid) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		mutex_lock(&svmtune_bpf_lock);
		if (rcu_access_pointer(svmtune_bpf_global))
			ret = -EBUSY;
		else
			rcu_assign_pointer(svmtune_bpf_global, ops);
		mutex_unlock(&svmtune_bpf_lock);
		return ret;
	}

	mm = svmtune_bpf_target_mm(ops->pid);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a) {
		mmdrop(mm);
		return -ENOMEM;
	}
	a->mm = mm;
	a->ops = ops;
	mutex_lock(&svmtune_bpf_lock);
	if (svmtune_bpf_nr_procs >= SVMTUNE_BPF_MAX_ATTACHED) {
		ret = -EBUSY;
	} else {
		struct svmtune_bpf_attached *o;

		hash_for_each_possible(svmtune_bpf_procs, o, node,
				       (unsigned long)mm)
			if (o->mm == mm)
				ret = -EEXIST;
	}
	if (!ret) {
		hash_add_rcu(svmtune_bpf_procs, &a->node, (unsigned long)mm);
		svmtune_bpf_nr_procs++;
	}
	mutex_unlock(&svmtune_bpf_lock);
	if (ret) {
		mmdrop(mm);
		kfree(a);
	}
	return ret;
}

static void svmtune_bpf_unreg(void *kdata, struct bpf_link *link)
{
	struct svmtune_bpf_attached *a, *found = NULL;
	struct svmtune_ops *ops = kdata;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&svmtune_bpf_lock);
	if (rcu_access_pointer(svmtune_bpf_global) == ops)
		RCU_INIT_POINTER(svmtune_bpf_global, NULL);
	hash_for_each_safe(svmtune_bpf_procs, bkt, tmp, a, node) {
		if (a->ops == ops) {
			hash_del_rcu(&a->node);
			svmtune_bpf_nr_procs--;
			found = a;
			break;
		}
	}
	mutex_unlock(&svmtune_bpf_lock);
	/* No fault runs the program once this returns. */
	synchronize_rcu();
	if (found) {
		mmdrop(found->mm);
		kfree(found);
	}
}

/* The stubs the BPF core's CFI checks call through; never run. */
static int svmtune_ops_device_fault_stub(struct svmtune_bpf_fault *fault,
					 struct svmtune_bpf_decision *d)
{
	return 0;
}

static int svmtune_ops_cpu_fault_stub(struct svmtune_bpf_fault *fault,
				      struct svmtune_bpf_decision *d)
{
	return 0;
}

static struct svmtune_ops svmtune_ops_stubs = {
	.device_fault = svmtune_ops_device_fault_stub,
	.cpu_fault = svmtune_ops_cpu_fault_stub,
};

static struct bpf_struct_ops svmtune_bpf_struct_ops = {
	.verifier_ops = &svmtune_bpf_verifier_ops,
	.init = svmtune_bpf_init,
	.check_member = svmtune_bpf_check_member,
	.init_member = svmtune_bpf_init_member,
	.reg = svmtune_bpf_reg,
	.unreg = svmtune_bpf_unreg,
	.cfi_stubs = &svmtune_ops_stubs,
	.name = "svmtune_ops",
	.owner = THIS_MODULE,
};

/**
 * svmtune_bpf_init_type() - register the struct_ops type, where it can be
 *
 * Return: 0 (whether or not the type could be registered: the engine runs
 * without it), or the BPF core's error.
 */
int svmtune_bpf_init_type(void)
{
	int ret;

	if (!THIS_MODULE->btf_data_size) {
		svmtune_bpf_unavailable =
			"svmtune.ko has no BTF (built without the kernel's vmlinux, or pahole)";
		pr_info("programmable policy unavailable: %s\n",
			svmtune_bpf_unavailable);
		return 0;
	}
	ret = register_bpf_struct_ops(&svmtune_bpf_struct_ops, svmtune_ops);
	if (ret) {
		pr_err("cannot register the svmtune_ops struct_ops type: %d\n",
		       ret);
		return ret;
	}
	svmtune_bpf_unavailable = NULL;
	return 0;
}

#else /* no BPF, no module BTF, or no struct_ops types from modules */

bool svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
			const struct svmtune_block *blk,
			const struct svmtune_fault *fault, unsigned long lo,
			unsigned long hi, struct svmtune_decision *d)
{
	return false;
}

int svmtune_bpf_init_type(void)
{
	if (!IS_ENABLED(CONFIG_BPF_SYSCALL))
		svmtune_bpf_unavailable = "the kernel has no CONFIG_BPF_SYSCALL";
	else if (!IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES))
		svmtune_bpf_unavailable =
			"the kernel has no CONFIG_DEBUG_INFO_BTF_MODULES (no BTF for modules)";
	else
		svmtune_bpf_unavailable =
			"the kernel cannot register a module's struct_ops type (register_bpf_struct_ops(), Linux 6.9 and later)";
	pr_info("programmable policy unavailable: %s\n",
		svmtune_bpf_unavailable);
	return 0;
}

#endif

/* Whether the svmtune_ops type is registered. */
bool svmtune_bpf_available(void)
{
	return !svmtune_bpf_unavailable;
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	if (svmtune_bpf_unavailable)
		return sysfs_emit(buf, "unavailable: %s\n",
				  svmtune_bpf_unavailable);
	return sysfs_emit(buf, "available\n");
}

#define SVMTUNE_BPF_COUNTER(name)					\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lld\n",				\
			  atomic64_read(&svmtune_bpf_##name));		\
}									\
static struct kobj_attribute name##_attr = __ATTR_RO(name)

static struct kobj_attribute state_attr = __ATTR_RO(state);
SVMTUNE_BPF_COUNTER(calls);
SVMTUNE_BPF_COUNTER(replaced);
SVMTUNE_BPF_COUNTER(refused);

static struct attribute *svmtune_bpf_attrs[] = {
	&state_attr.attr,
	&calls_attr.attr,
	&replaced_attr.attr,
	&refused_attr.attr,
	NULL,
};

/*
 * /sys/kernel/svmtune/bpf: whether programmable policy is available (and
 * why not), and what attached programs did.
 */
const struct attribute_group svmtune_bpf_sysfs_group = {
	.name = "bpf",
	.attrs = svmtune_bpf_attrs,
};
