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
 * Beyond the fault decision, a program is told of the engine's other
 * decision points (svmtune_bpf_call.c): pages that changed place
 * (@moved), a chunk detected thrashing, whose mitigation it may choose
 * (@thrashing), each candidate block a full device could evict for one of
 * its faults (@evict: take it, spare it, or leave it to the built-in LRU
 * order), and a process the engine starts or stops keeping state for
 * (@attach, @detach), and pages that left a device untouched (@waste). A
 * program may read a block of the faulting process with the kfuncs
 * svmtune_bpf_block_state() and svmtune_bpf_block_span(), and keep state
 * of its own in the blocks and ranges the engine keeps
 * (svmtune_bpf_block_data(), svmtune_bpf_range_data():
 * %SVMTUNE_BPF_DATA_SIZE bytes each, which live and go with the block or
 * range, so a program's state costs no memory the engine does not already
 * account and bound; each attachment finds them zeroed).
 *
 * Attachment: a struct_ops map whose @pid and @cgroup are 0 applies to
 * every address space that has no program of its own, and needs
 * CAP_SYS_ADMIN; one with a @cgroup (a cgroup v2 id, in the caller's
 * cgroup namespace) applies to the processes of that cgroup and its
 * descendants (svmtune_owner.c: the cgroup a process was in when the
 * engine first saw it), and needs CAP_SYS_ADMIN; one with a @pid applies
 * to that process's address space, and needs the right to ptrace it
 * (PTRACE_MODE_ATTACH_FSCREDS), as the policy ioctls on another process
 * would. A process's own program comes first, then that of its deepest
 * cgroup that has one, then the global one. An @evict callback sees other
 * processes' blocks, so a per-process program that has one needs
 * CAP_SYS_ADMIN too. One global program and at most
 * %SVMTUNE_BPF_MAX_ATTACHED per-process and per-cgroup ones at a time
 * (-EBUSY beyond, -EEXIST for a second one on the same process or
 * cgroup). /sys/kernel/svmtune/bpf/attached lists them. Without a program
 * the built-in policy runs, and the fault path pays a static branch
 * (svmtune_bpf_on(), on while any program is attached).
 *
 * Context and locks: the callbacks run in the backend's fault path
 * (amdgpu's fault worker, a CPU fault, svmtune_kfd's probe), under the
 * address space's &svmtune_mm.lock, a spinlock, and under rcu_read_lock():
 * programs are not sleepable (check_member refuses sleepable ones), and
 * the verifier gives them only the helpers that do not sleep. @moved runs
 * under the same lock, @thrashing and @waste under it too, @evict under the
 * device's ``lru_lock``, @attach and @detach under RCU alone. A program
 * reads its context through BTF, read-only, and may write only the fields
 * of its decision (&struct svmtune_bpf_decision, &struct
 * svmtune_bpf_thrash_decision) before their reserved field. Detach (the link's or map's
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
#include <linux/btf_ids.h>
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
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

/*
 * On while any program is attached (globally, to a process or a cgroup):
 * with none, the hot paths (svmtune_bpf_on()) skip their calls into
 * svmtune_bpf_call.c and its RCU look-up, a patched-out branch instead of
 * two calls and two RCU sections a 4 KiB fault.
 */
DEFINE_STATIC_KEY_FALSE(svmtune_bpf_active);

/* Why the type is not registered, or NULL when it is. */
static const char *svmtune_bpf_unavailable = "not initialised";

/**
 * svmtune_bpf_counted() - count a program's call and what came of it
 * @outcome: %SVMTUNE_BPF_KEPT, %SVMTUNE_BPF_REPLACED or %SVMTUNE_BPF_REFUSED
 */
void svmtune_bpf_counted(enum svmtune_bpf_outcome outcome)
{
	atomic64_inc(&svmtune_bpf_calls);
	if (outcome == SVMTUNE_BPF_REPLACED)
		atomic64_inc(&svmtune_bpf_replaced);
	else if (outcome == SVMTUNE_BPF_REFUSED)
		atomic64_inc(&svmtune_bpf_refused);
}

#ifdef SVMTUNE_BPF_STRUCT_OPS

/**
 * struct svmtune_bpf_attached - a program attached globally, to one
 *	process or to one cgroup
 * @node: in svmtune_bpf_procs by @mm, or on svmtune_bpf_cgroups; unused
 *	for the global one
 * @mm: the process's address space (mmgrab()ed: the pointer stays unique
 *	while attached, even after the process exits); NULL for a cgroup's
 *	or the global one
 * @cgrp: the cgroup, referenced; NULL for a process's or the global one
 * @ops: the program
 * @serial: this attachment's number, never reused: what the program's
 *	storage in blocks and ranges is tagged with (&struct svmtune_bpf_data)
 */
struct svmtune_bpf_attached {
	struct hlist_node node;
	struct mm_struct *mm;
	struct cgroup *cgrp;
	struct svmtune_ops *ops;
	u64 serial;
};

/*
 * svmtune_bpf_lock (a mutex) serialises attach and detach, and numbers
 * attachments (svmtune_bpf_serial); the engine's calls read
 * svmtune_bpf_global, svmtune_bpf_procs and svmtune_bpf_cgroups under RCU
 * only.
 */
static DEFINE_MUTEX(svmtune_bpf_lock);
static struct svmtune_bpf_attached __rcu *svmtune_bpf_global;
static DEFINE_HASHTABLE(svmtune_bpf_procs, 6);
static HLIST_HEAD(svmtune_bpf_cgroups);
static unsigned int svmtune_bpf_nr_procs;
static unsigned int svmtune_bpf_nr_cgroups;
static u64 svmtune_bpf_serial;

/* The attachment whose program applies to @smm (NULL: the global one). */
static struct svmtune_bpf_attached *
svmtune_bpf_attached_for(const struct svmtune_mm *smm)
{
	struct svmtune_bpf_attached *a, *best = NULL;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "program lookup outside RCU");
	if (smm && READ_ONCE(svmtune_bpf_nr_procs)) {
		hash_for_each_possible_rcu(svmtune_bpf_procs, a, node,
					   (unsigned long)smm->mm)
			if (a->mm == smm->mm)
				return a;
	}
	if (smm && smm->owner.cgrp && READ_ONCE(svmtune_bpf_nr_cgroups)) {
		hlist_for_each_entry_rcu(a, &svmtune_bpf_cgroups, node)
			if (cgroup_is_descendant(smm->owner.cgrp, a->cgrp) &&
			    (!best || a->cgrp->level > best->cgrp->level))
				best = a;
		if (best)
			return best;
	}
	return rcu_dereference(svmtune_bpf_global);
}

/**
 * svmtune_bpf_ops_for() - the program for an address space
 * @smm: the address space's state, or NULL (then the global program)
 * @serial: if not NULL, set to its attachment's number (for its storage)
 *
 * Its own program, else that of the deepest of its owner's cgroups with
 * one, else the global one. Called under rcu_read_lock(); the program
 * stays valid until rcu_read_unlock().
 *
 * Return: the program, or NULL.
 */
struct svmtune_ops *svmtune_bpf_ops_for(const struct svmtune_mm *smm,
				       u64 *serial)
{
	struct svmtune_bpf_attached *a = svmtune_bpf_attached_for(smm);

	if (!a)
		return NULL;
	if (serial)
		*serial = a->serial;
	return a->ops;
}

/*
 * __bpf_kfunc_start_defs() in 6.12 and 7.3 turns off -Wmissing-prototypes
 * for kfuncs, which have no declaration but the program's.
 */
__bpf_kfunc_start_defs();

/* The block of @fault's address space at @addr, or NULL. */
static struct svmtune_block *svmtune_bpf_block_at(struct svmtune_bpf_fault *fault,
						  u64 addr)
{
	const struct svmtune_bpf_fault_kern *k =
		container_of(fault, struct svmtune_bpf_fault_kern, pub);

	if (!k->smm || addr > ULONG_MAX)
		return NULL;
	lockdep_assert_held(&k->smm->lock);
	return xa_load(&k->smm->blocks, (unsigned long)addr >> SVMTUNE_BLOCK_SHIFT);
}

/* @blk's state in @out, its pages counted in [@first, @first + @n). */
static void svmtune_bpf_block_fill(const struct svmtune_block *blk,
				   unsigned int first, unsigned int n,
				   struct svmtune_bpf_block *out)
{
	DECLARE_BITMAP(used, SVMTUNE_BLOCK_PAGES);

	bitmap_and(used, blk->resident, blk->touched, SVMTUNE_BLOCK_PAGES);
	out->base = blk->base;
	out->resident = svmtune_bits_in(blk->resident, first, n);
	out->touched = svmtune_bits_in(used, first, n);
	out->prefetched = svmtune_bits_in(blk->prefetched, first, n);
	out->loc = blk->loc;
	out->thrashing = svmtune_block_thrashing(blk);
	out->shift = blk->ad.shift;
	out->pinned = svmtune_pins_live(&blk->th, svmtune_ms(ktime_get_ns()));
}

/**
 * svmtune_bpf_block_state() - a kfunc: the state of a block of the
 *	faulting process
 * @fault: the context of a device_fault or cpu_fault callback
 * @addr: an address in the block
 * @out: filled in (zeroed when there is no such block)
 *
 * Runs in the fault callback, under the address space's lock the engine
 * holds for it: the block cannot change or go while it is read.
 *
 * Return: 0, or -ENOENT when the engine keeps no state for the block.
 */
__bpf_kfunc int svmtune_bpf_block_state(struct svmtune_bpf_fault *fault,
					u64 addr, struct svmtune_bpf_block *out)
{
	const struct svmtune_block *blk = svmtune_bpf_block_at(fault, addr);

	memset(out, 0, sizeof(*out));
	if (!blk)
		return -ENOENT;
	svmtune_bpf_block_fill(blk, 0, SVMTUNE_BLOCK_PAGES, out);
	return 0;
}

/**
 * svmtune_bpf_block_span() - a kfunc: the state of a block of the faulting
 *	process, its pages counted in a span only
 * @fault: the context of a callback that takes one
 * @start: an address in the block
 * @end: the span's end; the block's pages in [@start, @end) are counted
 * @out: filled in as by svmtune_bpf_block_state(), but the page counts are
 *	of the span (zeroed when there is no such block)
 *
 * Runs in the callback, under the address space's lock the engine holds
 * for it: the block cannot change or go while it is read.
 *
 * Return: 0, or -ENOENT when the engine keeps no state for the block.
 */
__bpf_kfunc int svmtune_bpf_block_span(struct svmtune_bpf_fault *fault,
				       u64 start, u64 end,
				       struct svmtune_bpf_block *out)
{
	const struct svmtune_block *blk = svmtune_bpf_block_at(fault, start);
	unsigned int first, n = 0;

	memset(out, 0, sizeof(*out));
	if (!blk)
		return -ENOENT;
	first = (start - blk->base) >> PAGE_SHIFT;
	if (end > start)
		n = min_t(u64, (end - start + PAGE_SIZE - 1) >> PAGE_SHIFT,
			  SVMTUNE_BLOCK_PAGES - first);
	svmtune_bpf_block_fill(blk, first, n, out);
	return 0;
}

/*
 * @data for the program of @fault's context: zeroed first when another
 * attachment wrote it last.
 */
static u64 *svmtune_bpf_data(struct svmtune_bpf_fault *fault,
			     struct svmtune_bpf_data *data, int size)
{
	const struct svmtune_bpf_fault_kern *k =
		container_of(fault, struct svmtune_bpf_fault_kern, pub);

	if (size <= 0 || size > SVMTUNE_BPF_DATA_SIZE || !k->serial)
		return NULL;
	if (data->serial != k->serial) {
		memset(data->word, 0, sizeof(data->word));
		data->serial = k->serial;
	}
	return data->word;
}

/**
 * svmtune_bpf_block_data() - a kfunc: the program's own storage in a block
 *	of the faulting process
 * @fault: the context of a callback that takes one
 * @addr: an address in the block
 * @rdwr_buf_size: the bytes the program reads and writes, a constant, 1 to
 *	%SVMTUNE_BPF_DATA_SIZE
 *
 * %SVMTUNE_BPF_DATA_SIZE bytes per block the engine keeps, zeroed when the
 * block is made and when another attachment than the caller's wrote them
 * last; they go with the block (the range unmapped, the process gone).
 * Costs no memory beyond the block's own. Valid until the callback
 * returns, under the address space's lock.
 *
 * Return: the storage, or NULL when the engine keeps no state for the
 * block (none of adaptive, density prefetch, eviction, fragment "auto"
 * and thrashing is on, or no fault reached it) or the size is wrong.
 */
__bpf_kfunc u64 *svmtune_bpf_block_data(struct svmtune_bpf_fault *fault,
					u64 addr, int rdwr_buf_size)
{
	struct svmtune_block *blk = svmtune_bpf_block_at(fault, addr);

	return blk ? svmtune_bpf_data(fault, &blk->bpf, rdwr_buf_size) : NULL;
}

/**
 * svmtune_bpf_range_data() - a kfunc: the program's own storage in the
 *	fault's range
 * @fault: the context of a callback that takes one
 * @rdwr_buf_size: as for svmtune_bpf_block_data()
 *
 * As svmtune_bpf_block_data(), for the range holding the fault (the policy
 * range set on it, or the one the engine made for it: the VMA's part the
 * fault's bounds gave); a range split in two copies it to both, two
 * merged keep the lower one's, as the engine's own adaptive state does.
 *
 * Return: the storage, or NULL when the fault has no range or the size is
 * wrong.
 */
__bpf_kfunc u64 *svmtune_bpf_range_data(struct svmtune_bpf_fault *fault,
					int rdwr_buf_size)
{
	const struct svmtune_bpf_fault_kern *k =
		container_of(fault, struct svmtune_bpf_fault_kern, pub);

	if (!k->range)
		return NULL;
	lockdep_assert_held(&k->smm->lock);
	return svmtune_bpf_data(fault, &k->range->bpf, rdwr_buf_size);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(svmtune_bpf_kfunc_ids)
BTF_ID_FLAGS(func, svmtune_bpf_block_state, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, svmtune_bpf_block_span, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, svmtune_bpf_block_data, KF_TRUSTED_ARGS | KF_RET_NULL)
BTF_ID_FLAGS(func, svmtune_bpf_range_data, KF_TRUSTED_ARGS | KF_RET_NULL)
BTF_KFUNCS_END(svmtune_bpf_kfunc_ids)

static const struct btf_kfunc_id_set svmtune_bpf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &svmtune_bpf_kfunc_ids,
};

/*
 * The members of struct svmtune_ops, by index: a struct_ops program's
 * expected_attach_type is the index of the member it implements.
 */
enum svmtune_bpf_member {
	SVMTUNE_BPF_M_DEVICE_FAULT,
	SVMTUNE_BPF_M_CPU_FAULT,
	SVMTUNE_BPF_M_MOVED,
	SVMTUNE_BPF_M_THRASHING,
	SVMTUNE_BPF_M_EVICT,
	SVMTUNE_BPF_M_ATTACH,
	SVMTUNE_BPF_M_DETACH,
};

static_assert(offsetof(struct svmtune_ops, device_fault) ==
	      SVMTUNE_BPF_M_DEVICE_FAULT * sizeof(void *));
static_assert(offsetof(struct svmtune_ops, cpu_fault) ==
	      SVMTUNE_BPF_M_CPU_FAULT * sizeof(void *));
static_assert(offsetof(struct svmtune_ops, thrashing) ==
	      SVMTUNE_BPF_M_THRASHING * sizeof(void *));
static_assert(offsetof(struct svmtune_ops, detach) ==
	      SVMTUNE_BPF_M_DETACH * sizeof(void *));

/*
 * What a struct_ops program may write: its decision, nothing else. The
 * decisions' BTF types are learnt from the verifier itself: the fault
 * callbacks take (fault, decision) and the thrashing one (chunk,
 * decision), and btf_ctx_access() resolves the second argument's type from
 * the callback's prototype in svmtune.ko's BTF, as the running kernel
 * relocated it (7.x distils a module's base BTF and renumbers its types at
 * load; the module cannot relocate a BTF_ID list itself). A write through
 * any other pointer, a context's included, is refused.
 */
struct svmtune_bpf_writable {
	const struct btf *btf;
	u32 id;
	int size;	/* writable bytes: the fields before reserved */
};

static struct svmtune_bpf_writable svmtune_bpf_writable[] = {
	{ .size = offsetof(struct svmtune_bpf_decision, reserved) },
	{ .size = offsetof(struct svmtune_bpf_thrash_decision, reserved) },
};

static int svmtune_bpf_btf_struct_access(struct bpf_verifier_log *log,
					 const struct bpf_reg_state *reg,
					 int off, int size)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(svmtune_bpf_writable); i++) {
		const struct svmtune_bpf_writable *w = &svmtune_bpf_writable[i];

		if (!READ_ONCE(w->id) || reg->btf != READ_ONCE(w->btf) ||
		    reg->btf_id != READ_ONCE(w->id))
			continue;
		if (off < 0 || size <= 0 || off + size > w->size) {
			bpf_log(log, "svmtune_ops: no decision field at %d+%d\n",
				off, size);
			return -EACCES;
		}
		return 0;
	}
	bpf_log(log, "svmtune_ops: only a decision is writable\n");
	return -EACCES;
}

static bool svmtune_bpf_is_valid_access(int off, int size,
					enum bpf_access_type type,
					const struct bpf_prog *prog,
					struct bpf_insn_access_aux *info)
{
	struct svmtune_bpf_writable *w = NULL;

	if (!bpf_tracing_btf_ctx_access(off, size, type, prog, info))
		return false;
	/* The second argument of the callbacks that decide. */
	if (off != sizeof(u64) || !info->btf || !info->btf_id)
		return true;
	/* A struct_ops program's attach type is its member's index. */
	switch ((u32)prog->expected_attach_type) {
	case SVMTUNE_BPF_M_DEVICE_FAULT:
	case SVMTUNE_BPF_M_CPU_FAULT:
		w = &svmtune_bpf_writable[0];
		break;
	case SVMTUNE_BPF_M_THRASHING:
		w = &svmtune_bpf_writable[1];
		break;
	}
	if (w) {
		WRITE_ONCE(w->btf, info->btf);
		WRITE_ONCE(w->id, info->btf_id);
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

/* Callbacks run under a spinlock or RCU: no sleepable program. */
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
	case offsetof(struct svmtune_ops, reserved):
		return uops->reserved ? -EINVAL : 1;
	case offsetof(struct svmtune_ops, cgroup):
		ops->cgroup = uops->cgroup;
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

static void svmtune_bpf_attached_free(struct svmtune_bpf_attached *a)
{
	if (a->mm)
		mmdrop(a->mm);
	if (a->cgrp)
		cgroup_put(a->cgrp);
	kfree(a);
}

/* A global program: CAP_SYS_ADMIN, one at a time. */
static int svmtune_bpf_reg_global(struct svmtune_ops *ops)
{
	struct svmtune_bpf_attached *a;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	a->ops = ops;
	mutex_lock(&svmtune_bpf_lock);
	if (rcu_access_pointer(svmtune_bpf_global)) {
		ret = -EBUSY;
	} else {
		a->serial = ++svmtune_bpf_serial;
		rcu_assign_pointer(svmtune_bpf_global, a);
	}
	mutex_unlock(&svmtune_bpf_lock);
	if (ret)
		kfree(a);
	else
		static_branch_inc(&svmtune_bpf_active);
	return ret;
}

/* The process or cgroup @ops names, referenced in a new attachment. */
static struct svmtune_bpf_attached *
svmtune_bpf_attached_new(struct svmtune_ops *ops)
{
	struct svmtune_bpf_attached *a;

	if (ops->pid && ops->cgroup)
		return ERR_PTR(-EINVAL);
	/* A cgroup's, or one that sees other processes' blocks. */
	if ((ops->cgroup || ops->evict) && !capable(CAP_SYS_ADMIN))
		return ERR_PTR(-EPERM);
	if (ops->pid > INT_MAX)
		return ERR_PTR(-EINVAL);
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->ops = ops;
	if (ops->cgroup) {
		a->cgrp = cgroup_get_from_id(ops->cgroup);
		if (IS_ERR(a->cgrp)) {
			int ret = PTR_ERR(a->cgrp);

			kfree(a);
			return ERR_PTR(ret);
		}
		return a;
	}
	a->mm = svmtune_bpf_target_mm(ops->pid);
	if (IS_ERR(a->mm)) {
		int ret = PTR_ERR(a->mm);

		kfree(a);
		return ERR_PTR(ret);
	}
	return a;
}

/* Whether a program is attached to @a's process or cgroup already. */
static bool svmtune_bpf_taken(const struct svmtune_bpf_attached *a)
{
	struct svmtune_bpf_attached *o;

	lockdep_assert_held(&svmtune_bpf_lock);
	if (a->cgrp) {
		hlist_for_each_entry(o, &svmtune_bpf_cgroups, node)
			if (o->cgrp == a->cgrp)
				return true;
		return false;
	}
	hash_for_each_possible(svmtune_bpf_procs, o, node, (unsigned long)a->mm)
		if (o->mm == a->mm)
			return true;
	return false;
}

static int svmtune_bpf_reg(void *kdata, struct bpf_link *link)
{
	struct svmtune_ops *ops = kdata;
	struct svmtune_bpf_attached *a;
	int ret = 0;

	if (!ops->pid && !ops->cgroup)
		return svmtune_bpf_reg_global(ops);
	a = svmtune_bpf_attached_new(ops);
	if (IS_ERR(a))
		return PTR_ERR(a);
	mutex_lock(&svmtune_bpf_lock);
	if (svmtune_bpf_nr_procs + svmtune_bpf_nr_cgroups >=
	    SVMTUNE_BPF_MAX_ATTACHED)
		ret = -EBUSY;
	else if (svmtune_bpf_taken(a))
		ret = -EEXIST;
	if (!ret)
		a->serial = ++svmtune_bpf_serial;
	if (!ret && a->cgrp) {
		hlist_add_head_rcu(&a->node, &svmtune_bpf_cgroups);
		WRITE_ONCE(svmtune_bpf_nr_cgroups, svmtune_bpf_nr_cgroups + 1);
	} else if (!ret) {
		hash_add_rcu(svmtune_bpf_procs, &a->node, (unsigned long)a->mm);
		WRITE_ONCE(svmtune_bpf_nr_procs, svmtune_bpf_nr_procs + 1);
	}
	mutex_unlock(&svmtune_bpf_lock);
	if (ret)
		svmtune_bpf_attached_free(a);
	else
		static_branch_inc(&svmtune_bpf_active);
	return ret;
}

/* @ops's attachment, unpublished; or NULL. */
static struct svmtune_bpf_attached *svmtune_bpf_unhash(const struct svmtune_ops *ops)
{
	struct svmtune_bpf_attached *a;
	struct hlist_node *tmp;
	int bkt;

	lockdep_assert_held(&svmtune_bpf_lock);
	a = rcu_dereference_protected(svmtune_bpf_global,
				      lockdep_is_held(&svmtune_bpf_lock));
	if (a && a->ops == ops) {
		RCU_INIT_POINTER(svmtune_bpf_global, NULL);
		return a;
	}
	hash_for_each_safe(svmtune_bpf_procs, bkt, tmp, a, node) {
		if (a->ops == ops) {
			hash_del_rcu(&a->node);
			WRITE_ONCE(svmtune_bpf_nr_procs, svmtune_bpf_nr_procs - 1);
			return a;
		}
	}
	hlist_for_each_entry(a, &svmtune_bpf_cgroups, node) {
		if (a->ops == ops) {
			hlist_del_rcu(&a->node);
			WRITE_ONCE(svmtune_bpf_nr_cgroups,
				   svmtune_bpf_nr_cgroups - 1);
			return a;
		}
	}
	return NULL;
}

static void svmtune_bpf_unreg(void *kdata, struct bpf_link *link)
{
	struct svmtune_ops *ops = kdata;
	struct svmtune_bpf_attached *found;

	mutex_lock(&svmtune_bpf_lock);
	found = svmtune_bpf_unhash(ops);
	mutex_unlock(&svmtune_bpf_lock);
	/* No fault runs the program once this returns. */
	synchronize_rcu();
	if (found) {
		svmtune_bpf_attached_free(found);
		static_branch_dec(&svmtune_bpf_active);
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

static void svmtune_ops_moved_stub(struct svmtune_bpf_moved *m)
{
}

static int svmtune_ops_thrashing_stub(struct svmtune_bpf_thrash *t,
				      struct svmtune_bpf_thrash_decision *d)
{
	return 0;
}

static int svmtune_ops_evict_stub(struct svmtune_bpf_victim *v)
{
	return 0;
}

static void svmtune_ops_proc_stub(struct svmtune_bpf_proc *p)
{
}

static void svmtune_ops_waste_stub(struct svmtune_bpf_fault *w)
{
}

static struct svmtune_ops svmtune_ops_stubs = {
	.device_fault = svmtune_ops_device_fault_stub,
	.cpu_fault = svmtune_ops_cpu_fault_stub,
	.moved = svmtune_ops_moved_stub,
	.thrashing = svmtune_ops_thrashing_stub,
	.evict = svmtune_ops_evict_stub,
	.attach = svmtune_ops_proc_stub,
	.detach = svmtune_ops_proc_stub,
	.waste = svmtune_ops_waste_stub,
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
 * svmtune_bpf_init_type() - register the struct_ops type and the kfuncs,
 *	where they can be
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
	/* Kfuncs first: a program that loads may call them at once. */
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&svmtune_bpf_kfunc_set);
	if (ret) {
		pr_err("cannot register svmtune's kfuncs: %d\n", ret);
		return ret;
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

/* One line per attached program: "global|pid N|cgroup ID NAME". */
static ssize_t attached_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct svmtune_bpf_attached *a, *g;
	ssize_t len = 0;
	int bkt;

	mutex_lock(&svmtune_bpf_lock);
	g = rcu_dereference_protected(svmtune_bpf_global,
				      lockdep_is_held(&svmtune_bpf_lock));
	if (g)
		len += sysfs_emit_at(buf, len, "global %s\n", g->ops->name);
	hlist_for_each_entry(a, &svmtune_bpf_cgroups, node)
		len += sysfs_emit_at(buf, len, "cgroup %llu %s\n",
				     a->ops->cgroup, a->ops->name);
	hash_for_each(svmtune_bpf_procs, bkt, a, node)
		len += sysfs_emit_at(buf, len, "pid %u %s\n", a->ops->pid,
				     a->ops->name);
	mutex_unlock(&svmtune_bpf_lock);
	return len;
}

#else /* no BPF, no module BTF, or no struct_ops types from modules */

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

static ssize_t attached_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
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
static struct kobj_attribute attached_attr = __ATTR_RO(attached);
SVMTUNE_BPF_COUNTER(calls);
SVMTUNE_BPF_COUNTER(replaced);
SVMTUNE_BPF_COUNTER(refused);

static struct attribute *svmtune_bpf_attrs[] = {
	&state_attr.attr,
	&attached_attr.attr,
	&calls_attr.attr,
	&replaced_attr.attr,
	&refused_attr.attr,
	NULL,
};

/*
 * /sys/kernel/svmtune/bpf: whether programmable policy is available (and
 * why not), what is attached, and what attached programs did.
 */
const struct attribute_group svmtune_bpf_sysfs_group = {
	.name = "bpf",
	.attrs = svmtune_bpf_attrs,
};
