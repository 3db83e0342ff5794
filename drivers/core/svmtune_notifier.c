// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the life of an address space's state.
 *
 * The engine's state of an address space (struct svmtune_mm, its ranges
 * and its blocks) is made through mmu_notifier_get() so that it lives
 * exactly as long as the address space: ->release unhashes it (it cannot
 * be found any more) and puts the notifier, and ->free_notifier frees it,
 * ranges and blocks, after an SRCU grace period. Its ->invalidate_range_start
 * drops what the engine knew of unmapped addresses. This file calls the
 * range tree (svmtune_mm.c) and the blocks (svmtune_block.c), which never
 * call back: they know nothing of when a state comes and goes.
 */

/**
 * DOC: Lifetime
 *
 * svmtune_mm_get() creates the state with mmu_notifier_get() (which takes
 * ``mmap_lock`` for write, so callers hold no ``mmap_lock``);
 * svmtune_mm_find() never creates and is safe in fault paths. Callers keep
 * the address space's users referenced while they use a state they looked
 * up. ``->release`` unhashes the state and puts the notifier; it is freed
 * after an SRCU grace period. That grace period does not wait for the RCU
 * readers of the table (svmtune_mm_visit_live()), so a state is marked
 * dead, and its blocks leave every LRU, under its ``svmtune_mm.lock``
 * before its notifier is put, and such readers skip dead states. Module
 * unload puts the remaining states and waits with
 * mmu_notifier_synchronize().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "svmtune_internal.h"

static int svmtune_mn_invalidate_range_start(struct mmu_notifier *mn,
					     const struct mmu_notifier_range *range)
{
	struct svmtune_mm *smm = container_of(mn, struct svmtune_mm, mn);
	struct svmtune_range *freelist = NULL;

	if (range->event != MMU_NOTIFY_UNMAP)
		return 0;
	/* munmap() or mremap() moved [start, end) away: drop its state. */
	spin_lock(&smm->lock);
	svmtune_blocks_unmap(smm, range->start, range->end);
	svmtune_ranges_unmap(smm, range->start, range->end, &freelist);
	spin_unlock(&smm->lock);
	svmtune_range_free_list(freelist);
	return 0;
}

/*
 * Put an unhashed state. ->free_notifier frees its ranges and blocks after
 * an SRCU grace period, which does not wait for the RCU readers of the
 * hash (svmtune_mm_visit_live()): marked dead first, under its lock, so
 * such a reader that still holds the state touches nothing in it.
 */
static void svmtune_mm_put(struct svmtune_mm *smm)
{
	spin_lock(&smm->lock);
	smm->dead = true;
	svmtune_blocks_leave_lru(smm);
	spin_unlock(&smm->lock);
	mmu_notifier_put(&smm->mn);
}

static void svmtune_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct svmtune_mm *smm = container_of(mn, struct svmtune_mm, mn);

	/* The address space is going: forget it, once. */
	if (svmtune_mm_unhash(smm)) {
		svmtune_bpf_proc(smm, false);
		svmtune_mm_put(smm);
	}
}

static struct mmu_notifier *svmtune_mn_alloc(struct mm_struct *mm)
{
	struct svmtune_charge charge;
	struct svmtune_mm *smm;

	svmtune_charge_begin(&charge, mm);
	smm = kzalloc(sizeof(*smm), GFP_KERNEL_ACCOUNT);
	svmtune_charge_end(&charge);
	if (!smm)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&smm->lock);
	INIT_HLIST_NODE(&smm->hnode);
	smm->ranges = RB_ROOT;
	/* Its nodes too are charged to the process's memory cgroup. */
	xa_init_flags(&smm->blocks, XA_FLAGS_ACCOUNT);
	smm->mm = mm;
	smm->defaults.preferred_loc = SVMTUNE_LOC_UNSET;
	svmtune_owner_get(&smm->owner, mm);
	return &smm->mn;
}

static void svmtune_mn_free(struct mmu_notifier *mn)
{
	struct svmtune_mm *smm = container_of(mn, struct svmtune_mm, mn);

	svmtune_ranges_free(smm);
	svmtune_blocks_free(smm);
	svmtune_owner_put(&smm->owner);
	/* A lookup may still be walking past it in the hash bucket. */
	kfree_rcu(smm, rcu);
}

static const struct mmu_notifier_ops svmtune_mn_ops = {
	.release = svmtune_mn_release,
	.invalidate_range_start = svmtune_mn_invalidate_range_start,
	.alloc_notifier = svmtune_mn_alloc,
	.free_notifier = svmtune_mn_free,
};

/**
 * svmtune_mm_get() - find or create the engine's state of an address space
 * @mm: the address space; the caller holds a reference on its users and
 *	does not hold its mmap_lock (creation registers an mmu notifier)
 *
 * The state lives until the address space is torn down; the caller gets
 * no reference of its own and must keep @mm's users referenced while it
 * uses the result.
 *
 * Return: the state, or an ERR_PTR().
 */
struct svmtune_mm *svmtune_mm_get(struct mm_struct *mm)
{
	struct mmu_notifier *mn;
	struct svmtune_mm *smm;

	smm = svmtune_mm_find(mm);
	if (smm)
		return smm;

	mn = mmu_notifier_get(&svmtune_mn_ops, mm);
	if (IS_ERR(mn))
		return ERR_CAST(mn);
	smm = container_of(mn, struct svmtune_mm, mn);
	/* New: this reference is the one ->release will put. */
	if (!svmtune_mm_publish(smm))
		mmu_notifier_put(mn);
	else
		svmtune_bpf_proc(smm, true);
	svmtune_mm_refill_spare(smm);
	return smm;
}

/**
 * svmtune_mm_attach() - have the engine keep state for an address space
 * @mm: the address space; the caller holds a reference on its users and
 *	not its mmap_lock
 *
 * Backends call this when a context binds to @mm (open of a device file,
 * say), so that faults there get per-process and per-range policy, adaptive
 * state and counters. The state lives until @mm is torn down.
 *
 * Return: 0 or a negative errno.
 */
int svmtune_mm_attach(struct mm_struct *mm)
{
	return PTR_ERR_OR_ZERO(svmtune_mm_get(mm));
}
EXPORT_SYMBOL_GPL(svmtune_mm_attach);

/* A walk that drops a device from every address space. */
struct svmtune_mm_forget {
	struct svmtune_mm_walk walk;
	u32 id;
};

static void svmtune_mm_forget_visit(struct svmtune_mm *smm,
				    struct svmtune_mm_walk *walk)
{
	u32 id = container_of(walk, struct svmtune_mm_forget, walk)->id;

	svmtune_mm_forget_device_locked(smm, id);
	svmtune_blocks_forget_device(smm, id);
}

/**
 * svmtune_mm_forget_device() - drop a device from every address space
 * @id: the id of a device being unregistered (its live bit already clear)
 *
 * Range policies and process defaults that prefer the device go back to
 * unset, and no block believes pages are on it any more. Walks every
 * address space under its lock, inside an RCU read section (states are
 * freed after a grace period); only device unregistration calls it.
 */
void svmtune_mm_forget_device(u32 id)
{
	struct svmtune_mm_forget forget = {
		.walk.visit = svmtune_mm_forget_visit,
		.id = id,
	};

	svmtune_mm_visit_live(&forget.walk);
}

/**
 * svmtune_notifier_init() - module load: the caches of states' parts
 *
 * Return: 0 or -ENOMEM.
 */
int svmtune_notifier_init(void)
{
	int ret;

	ret = svmtune_block_init();
	if (ret)
		return ret;
	ret = svmtune_mm_init();
	if (ret)
		svmtune_block_exit();
	return ret;
}

/**
 * svmtune_notifier_exit() - module unload: free every state
 *
 * No backend and no open file is left, so nothing looks up or creates
 * states any more. Puts the remaining ones (processes still alive) and
 * waits until their notifiers are freed.
 */
void svmtune_notifier_exit(void)
{
	struct svmtune_mm *smm;

	while ((smm = svmtune_mm_unhash_any()))
		svmtune_mm_put(smm);
	mmu_notifier_synchronize();
	svmtune_mm_exit();
	svmtune_block_exit();
}
