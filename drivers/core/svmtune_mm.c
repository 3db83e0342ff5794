// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: per address space state and the policy range tree.
 *
 * Each address space svmtune has seen gets one struct svmtune_mm, created
 * through mmu_notifier_get() so that it lives exactly as long as the address
 * space: ->release drops it from the lookup table and puts the notifier,
 * and ->free_notifier frees it after an SRCU grace period.
 *
 * Policy ranges are non-overlapping [start, end) intervals in an rbtree
 * under svmtune_mm.lock, a spinlock, because munmap() removes them (and the
 * per-block state of svmtune_block.c) from an mmu notifier that may not
 * sleep. Nothing allocates under that lock:
 * callers preallocate, and the one split an unmap may need uses a spare
 * range kept for the purpose.
 *
 * The policy fields of ranges and process defaults are written here
 * (svmtune_policy_apply()), and so is the set of device ids a policy may
 * name: that of the registered devices.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>

#include "svmtune_internal.h"

static DEFINE_HASHTABLE(svmtune_mm_hash, 6);
/* Serialises changes of svmtune_mm_hash; lookups walk it under RCU. */
static DEFINE_SPINLOCK(svmtune_mm_hash_lock);
static struct kmem_cache *svmtune_range_cache;

struct svmtune_range *svmtune_range_alloc(gfp_t gfp)
{
	struct svmtune_range *range;

	range = kmem_cache_zalloc(svmtune_range_cache, gfp);
	if (range)
		RB_CLEAR_NODE(&range->node);
	return range;
}

void svmtune_range_free(struct svmtune_range *range)
{
	kmem_cache_free(svmtune_range_cache, range);
}

static void svmtune_range_free_list(struct svmtune_range *list)
{
	struct svmtune_range *next;

	/* Unlinked ranges are chained through node.rb_right. */
	for (; list; list = next) {
		next = (struct svmtune_range *)list->node.rb_right;
		kmem_cache_free(svmtune_range_cache, list);
	}
}

static void svmtune_range_defer_free(struct svmtune_range **list,
				     struct svmtune_range *range)
{
	range->node.rb_right = (struct rb_node *)*list;
	*list = range;
}

/* Take one range off a list chained by svmtune_range_defer_free(). */
static struct svmtune_range *svmtune_range_pool_take(struct svmtune_range **list)
{
	struct svmtune_range *range = *list;

	*list = (struct svmtune_range *)range->node.rb_right;
	RB_CLEAR_NODE(&range->node);
	return range;
}

/**
 * svmtune_range_find() - the range containing an address
 * @smm: the address space, its lock held
 * @addr: the address
 *
 * Return: the range, or NULL if @addr has no range.
 */
struct svmtune_range *svmtune_range_find(struct svmtune_mm *smm,
					 unsigned long addr)
{
	struct rb_node *node = smm->ranges.rb_node;

	lockdep_assert_held(&smm->lock);
	while (node) {
		struct svmtune_range *range = rb_entry(node, struct svmtune_range, node);

		if (addr < range->start)
			node = node->rb_left;
		else if (addr >= range->end)
			node = node->rb_right;
		else
			return range;
	}
	return NULL;
}

/**
 * svmtune_range_next() - the first range that ends after an address
 * @smm: the address space, its lock held
 * @addr: the address
 *
 * Return: the range containing @addr or, failing that, the first range
 * above it; NULL if there is none.
 */
struct svmtune_range *svmtune_range_next(struct svmtune_mm *smm,
					 unsigned long addr)
{
	struct rb_node *node = smm->ranges.rb_node;
	struct svmtune_range *best = NULL;

	lockdep_assert_held(&smm->lock);
	while (node) {
		struct svmtune_range *range = rb_entry(node, struct svmtune_range, node);

		if (addr < range->end) {
			best = range;
			if (addr >= range->start)
				break;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return best;
}

static struct svmtune_range *svmtune_range_after(struct svmtune_range *range)
{
	struct rb_node *node = rb_next(&range->node);

	return node ? rb_entry(node, struct svmtune_range, node) : NULL;
}

static struct svmtune_range *svmtune_range_before(struct svmtune_range *range)
{
	struct rb_node *node = rb_prev(&range->node);

	return node ? rb_entry(node, struct svmtune_range, node) : NULL;
}

static void svmtune_range_insert(struct svmtune_mm *smm,
				 struct svmtune_range *new)
{
	struct rb_node **link = &smm->ranges.rb_node, *parent = NULL;

	while (*link) {
		struct svmtune_range *range = rb_entry(*link, struct svmtune_range, node);

		parent = *link;
		link = new->start < range->start ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &smm->ranges);
	smm->nr_ranges++;
}

static void svmtune_range_erase(struct svmtune_mm *smm,
				struct svmtune_range *range)
{
	rb_erase(&range->node, &smm->ranges);
	RB_CLEAR_NODE(&range->node);
	smm->nr_ranges--;
}

/*
 * Split @range at @at into [start, at) and [at, end); @new becomes the upper
 * part with the same policy and adaptive state. The counters stay with the
 * lower part: they describe what happened before the split.
 */
static void svmtune_range_split(struct svmtune_mm *smm,
				struct svmtune_range *range,
				unsigned long at, struct svmtune_range *new)
{
	new->start = at;
	new->end = range->end;
	new->pol = range->pol;
	new->ad_hint = range->ad_hint;
	new->ad_sparse = range->ad_sparse;
	memset(new->counters, 0, sizeof(new->counters));
	range->end = at;
	svmtune_range_insert(smm, new);
}

static bool svmtune_policy_equal(const struct svmtune_policy *a,
				 const struct svmtune_policy *b)
{
	return a->granularity == b->granularity && a->access == b->access &&
	       a->preferred_loc == b->preferred_loc &&
	       a->thrashing == b->thrashing && a->fragment == b->fragment;
}

/* Merge @range into its lower neighbour when they touch and agree. */
static struct svmtune_range *svmtune_range_merge_down(struct svmtune_mm *smm,
						      struct svmtune_range *range,
						      struct svmtune_range **freelist)
{
	struct svmtune_range *prev = svmtune_range_before(range);
	int i;

	if (!prev || prev->end != range->start ||
	    !svmtune_policy_equal(&prev->pol, &range->pol))
		return range;
	prev->end = range->end;
	for (i = 0; i < SVMTUNE_NR_COUNTERS; i++)
		prev->counters[i] += range->counters[i];
	svmtune_range_erase(smm, range);
	svmtune_range_defer_free(freelist, range);
	return prev;
}

/**
 * svmtune_policy_apply() - copy chosen policy fields
 * @dst: the policy to change
 * @set: SVMTUNE_POLICY_* bits of the fields to copy
 * @src: the values
 */
void svmtune_policy_apply(struct svmtune_policy *dst, u32 set,
			  const struct svmtune_policy *src)
{
	if (set & SVMTUNE_POLICY_GRANULARITY)
		dst->granularity = src->granularity;
	if (set & SVMTUNE_POLICY_PREFERRED_LOC)
		dst->preferred_loc = src->preferred_loc;
	if (set & SVMTUNE_POLICY_ACCESS)
		dst->access = src->access;
	if (set & SVMTUNE_POLICY_THRASHING)
		dst->thrashing = src->thrashing;
	if (set & SVMTUNE_POLICY_FRAGMENT)
		dst->fragment = src->fragment;
}

/*
 * The ids of registered devices: a policy may name a device as preferred
 * location only while its bit is set. Read under an address space's
 * svmtune_mm.lock, where the device registry's mutex cannot be taken;
 * svmtune_device_unregister() clears the bit before it purges the id from
 * every policy (svmtune_mm_forget_device()), under those same locks, so a
 * policy write racing with it either lands before the purge of its address
 * space or sees the bit clear.
 */
static DECLARE_BITMAP(svmtune_device_live, SVMTUNE_LOC_MAX_DEVICE + 1);

/**
 * svmtune_policy_device_live() - let policies name a device, or stop them
 * @id: the device's id, 1 to %SVMTUNE_LOC_MAX_DEVICE
 * @live: whether it is registered
 */
void svmtune_policy_device_live(u32 id, bool live)
{
	if (live)
		set_bit(id, svmtune_device_live);
	else
		clear_bit(id, svmtune_device_live);
}

/**
 * svmtune_policy_names_dead_device() - whether a policy names a device
 *	that is not registered (any more)
 * @set: SVMTUNE_POLICY_* bits of the fields of @pol about to be applied
 * @pol: the values
 *
 * Called under the svmtune_mm.lock the policy is stored under, which
 * orders it against svmtune_mm_forget_device().
 *
 * Return: true if @pol may not be applied.
 */
bool svmtune_policy_names_dead_device(u32 set, const struct svmtune_policy *pol)
{
	u32 loc = pol->preferred_loc;

	return (set & SVMTUNE_POLICY_PREFERRED_LOC) && loc != SVMTUNE_LOC_UNSET &&
	       loc != SVMTUNE_LOC_SYSTEM &&
	       !(loc <= SVMTUNE_LOC_MAX_DEVICE && test_bit(loc, svmtune_device_live));
}

/* Ranges [start, end) needs that do not exist yet: the gaps, plus splits. */
static unsigned long svmtune_range_set_need(struct svmtune_mm *smm,
					    unsigned long start,
					    unsigned long end)
{
	struct svmtune_range *range = svmtune_range_next(smm, start);
	unsigned long addr = start, need = 2;

	for (; range && range->start < end; range = svmtune_range_after(range)) {
		if (range->start > addr)
			need++;
		addr = range->end;
	}
	if (addr < end)
		need++;
	return need;
}

/**
 * svmtune_range_set() - set policy fields over an address range
 * @smm: the address space; the caller holds its mmap lock (read) so the
 *	range cannot be unmapped meanwhile, and not @smm->lock
 * @start: page-aligned start
 * @end: page-aligned end, > @start
 * @set: SVMTUNE_POLICY_* bits of the fields of @pol to apply
 * @pol: the values
 *
 * Every page of [@start, @end) gets the chosen fields; the others keep what
 * each part had. Ranges are split at @start and @end as needed, gaps are
 * filled, and neighbours that end up with equal policies are merged.
 *
 * Return: 0, -ENOMEM, or -ENOSPC when the address space would hold more
 * than %SVMTUNE_MAX_RANGES ranges.
 */
int svmtune_range_set(struct svmtune_mm *smm, unsigned long start,
		      unsigned long end, u32 set,
		      const struct svmtune_policy *pol)
{
	struct svmtune_range *pool = NULL, *freelist = NULL, *range, *next;
	unsigned long pooled = 0, need, addr;
	int ret = 0;

	for (;;) {
		spin_lock(&smm->lock);
		if (svmtune_policy_names_dead_device(set, pol)) {
			spin_unlock(&smm->lock);
			ret = -ENODEV;
			goto out_free;
		}
		need = svmtune_range_set_need(smm, start, end);
		if (smm->nr_ranges + need > SVMTUNE_MAX_RANGES) {
			spin_unlock(&smm->lock);
			ret = -ENOSPC;
			goto out_free;
		}
		if (pooled >= need)
			break;
		spin_unlock(&smm->lock);
		while (pooled < need) {
			range = svmtune_range_alloc(GFP_KERNEL);
			if (!range) {
				ret = -ENOMEM;
				goto out_free;
			}
			svmtune_range_defer_free(&pool, range);
			pooled++;
		}
	}

	/* Cut the ranges that straddle the ends. */
	range = svmtune_range_find(smm, start);
	if (range && range->start < start)
		svmtune_range_split(smm, range, start, svmtune_range_pool_take(&pool));
	range = svmtune_range_find(smm, end - 1);
	if (range && range->end > end)
		svmtune_range_split(smm, range, end, svmtune_range_pool_take(&pool));

	/* Apply to the ranges inside, fill the gaps between them. */
	addr = start;
	range = svmtune_range_next(smm, start);
	while (addr < end) {
		if (!range || range->start > addr) {
			struct svmtune_range *gap = svmtune_range_pool_take(&pool);

			gap->start = addr;
			gap->end = range && range->start < end ? range->start : end;
			gap->pol.granularity = SVMTUNE_GRANULARITY_UNSET;
			gap->pol.access = SVMTUNE_ACCESS_UNSET;
			gap->pol.preferred_loc = SVMTUNE_LOC_UNSET;
			svmtune_policy_apply(&gap->pol, set, pol);
			svmtune_range_insert(smm, gap);
			addr = gap->end;
			continue;
		}
		svmtune_policy_apply(&range->pol, set, pol);
		addr = range->end;
		range = svmtune_range_after(range);
	}

	/* Merge neighbours that now agree, from just below start to just past end. */
	range = svmtune_range_next(smm, start ? start - 1 : 0);
	while (range && range->start <= end) {
		next = svmtune_range_after(range);
		range = svmtune_range_merge_down(smm, range, &freelist);
		range = next;
	}
	spin_unlock(&smm->lock);

out_free:
	svmtune_range_free_list(pool);
	svmtune_range_free_list(freelist);
	return ret;
}

/**
 * svmtune_range_fill_gap() - make a range for an address that has none
 * @smm: the address space, its lock held
 * @addr: the address
 * @lo: the new range starts no lower than this
 * @hi: and ends no higher than this
 * @prealloc: a preallocated range, consumed (set to NULL) on success
 *
 * The new range covers the gap between the neighbouring ranges around
 * @addr, clipped to [@lo, @hi), with no policy set: it gives faults there
 * their own adaptive state and counters.
 *
 * Return: the range holding @addr (an existing one if there is one), or
 * NULL when none could be made.
 */
struct svmtune_range *svmtune_range_fill_gap(struct svmtune_mm *smm,
					     unsigned long addr,
					     unsigned long lo,
					     unsigned long hi,
					     struct svmtune_range **prealloc)
{
	struct svmtune_range *range, *next, *new = *prealloc;

	lockdep_assert_held(&smm->lock);
	range = svmtune_range_find(smm, addr);
	if (range)
		return range;
	if (!new || smm->nr_ranges >= SVMTUNE_MAX_RANGES)
		return NULL;

	next = svmtune_range_next(smm, addr);
	if (next && next->start < hi)
		hi = next->start;
	range = next ? svmtune_range_before(next) : NULL;
	if (!next && smm->ranges.rb_node)
		range = rb_entry(rb_last(&smm->ranges), struct svmtune_range, node);
	if (range && range->end > lo)
		lo = range->end;

	new->start = lo;
	new->end = hi;
	new->pol.granularity = SVMTUNE_GRANULARITY_UNSET;
	new->pol.access = SVMTUNE_ACCESS_UNSET;
	new->pol.preferred_loc = SVMTUNE_LOC_UNSET;
	svmtune_range_insert(smm, new);
	*prealloc = NULL;
	return new;
}

/* Drop the policy of [start, end): munmap() or mremap() moved it away. */
static void svmtune_range_unmap(struct svmtune_mm *smm, unsigned long start,
				unsigned long end)
{
	struct svmtune_range *range, *next, *freelist = NULL, *new;

	spin_lock(&smm->lock);
	svmtune_blocks_unmap(smm, start, end);
	range = svmtune_range_next(smm, start);
	while (range && range->start < end) {
		next = svmtune_range_after(range);
		if (range->start < start && range->end > end) {
			/* The hole is inside one range: split it around the hole. */
			new = smm->spare;
			smm->spare = NULL;
			if (!new)
				new = svmtune_range_alloc(GFP_NOWAIT | __GFP_NOWARN);
			if (!new) {
				/* Keep the policy over the hole: nothing faults there. */
				break;
			}
			svmtune_range_split(smm, range, end, new);
			range->end = start;
			break;
		} else if (range->start < start) {
			range->end = start;
		} else if (range->end > end) {
			range->start = end;
		} else {
			svmtune_range_erase(smm, range);
			svmtune_range_defer_free(&freelist, range);
		}
		range = next;
	}
	spin_unlock(&smm->lock);
	svmtune_range_free_list(freelist);
}

/**
 * svmtune_mm_refill_spare() - make sure an unmap can split a range
 * @smm: the address space; its lock not held
 */
void svmtune_mm_refill_spare(struct svmtune_mm *smm)
{
	struct svmtune_range *range;

	lockdep_assert_not_held(&smm->lock);
	if (READ_ONCE(smm->spare))
		return;
	range = svmtune_range_alloc(GFP_KERNEL);
	if (!range)
		return;
	spin_lock(&smm->lock);
	if (!smm->spare) {
		smm->spare = range;
		range = NULL;
	}
	spin_unlock(&smm->lock);
	if (range)
		kmem_cache_free(svmtune_range_cache, range);
}

static int svmtune_mn_invalidate_range_start(struct mmu_notifier *mn,
					     const struct mmu_notifier_range *range)
{
	struct svmtune_mm *smm = container_of(mn, struct svmtune_mm, mn);

	if (range->event == MMU_NOTIFY_UNMAP)
		svmtune_range_unmap(smm, range->start, range->end);
	return 0;
}

/*
 * Put an unhashed state. ->free_notifier frees its ranges and blocks after
 * an SRCU grace period, which does not wait for the RCU readers of the
 * hash (svmtune_mm_forget_device()): marked dead first, under its lock, so
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
	bool hashed;

	/* The address space is going: forget it, once. */
	spin_lock(&svmtune_mm_hash_lock);
	hashed = !hlist_unhashed(&smm->hnode);
	if (hashed)
		hlist_del_init_rcu(&smm->hnode);
	spin_unlock(&svmtune_mm_hash_lock);
	if (hashed)
		svmtune_mm_put(smm);
}

/**
 * svmtune_charge_begin() - charge what follows to @mm's memory cgroup
 * @c: the charge, ended with svmtune_charge_end()
 * @mm: the address space the allocations are for
 *
 * The engine's state for an address space (its svmtune_mm, blocks,
 * ranges; all allocated with __GFP_ACCOUNT or from SLAB_ACCOUNT caches)
 * is charged to the memory cgroup of its owner, whichever task allocates
 * it: KFD's fault worker and svmtune_kfd's attach worker are kernel
 * threads, whose own charges would go to the root cgroup. Any context but
 * hard IRQ; does not sleep.
 */
void svmtune_charge_begin(struct svmtune_charge *c, struct mm_struct *mm)
{
	c->memcg = get_mem_cgroup_from_mm(mm);
	c->old = set_active_memcg(c->memcg);
}

/**
 * svmtune_charge_end() - end svmtune_charge_begin()
 * @c: the charge
 */
void svmtune_charge_end(struct svmtune_charge *c)
{
	set_active_memcg(c->old);
	mem_cgroup_put(c->memcg);
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
	return &smm->mn;
}

static void svmtune_mn_free(struct mmu_notifier *mn)
{
	struct svmtune_mm *smm = container_of(mn, struct svmtune_mm, mn);
	struct svmtune_range *range, *tmp;

	rbtree_postorder_for_each_entry_safe(range, tmp, &smm->ranges, node)
		kmem_cache_free(svmtune_range_cache, range);
	if (smm->spare)
		kmem_cache_free(svmtune_range_cache, smm->spare);
	svmtune_blocks_free(smm);
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
 * svmtune_mm_find() - the engine's state of an address space, if any
 * @mm: the address space; the caller holds a reference on its users
 *	(mmget() or runs in it), which keeps the result valid
 *
 * Never sleeps, takes no lock and never creates: usable in fault paths
 * under mmap_lock.
 *
 * Return: the state, or NULL if svmtune has none for @mm.
 */
struct svmtune_mm *svmtune_mm_find(struct mm_struct *mm)
{
	struct svmtune_mm *smm, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(svmtune_mm_hash, smm, hnode, (unsigned long)mm)
		if (smm->mm == mm) {
			found = smm;
			break;
		}
	rcu_read_unlock();
	return found;
}

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

	spin_lock(&svmtune_mm_hash_lock);
	if (hlist_unhashed(&smm->hnode)) {
		/* New: this reference is the one ->release will put. */
		hash_add_rcu(svmtune_mm_hash, &smm->hnode, (unsigned long)mm);
		mn = NULL;
	}
	spin_unlock(&svmtune_mm_hash_lock);
	if (mn)
		mmu_notifier_put(mn);
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

/**
 * svmtune_mm_attached() - whether the engine keeps state for an address space
 * @mm: the address space, kept alive by the caller
 *
 * Never sleeps and takes no lock: usable from probe handlers.
 *
 * Return: true if svmtune_mm_attach() (or an open of /dev/svmtune) gave
 * @mm the engine's state and it was not torn down since.
 */
bool svmtune_mm_attached(struct mm_struct *mm)
{
	return svmtune_mm_find(mm);
}
EXPORT_SYMBOL_GPL(svmtune_mm_attached);

/**
 * svmtune_mm_forget_device() - drop a device id from every policy
 * @id: the id of a device being unregistered (its live bit already clear)
 *
 * Range policies and process defaults that prefer the device go back to
 * unset. Walks every address space's ranges under its lock, inside an RCU
 * read section (states are freed after a grace period); only device
 * unregistration calls it.
 */
void svmtune_mm_forget_device(u32 id)
{
	struct svmtune_range *range;
	struct svmtune_mm *smm;
	struct rb_node *node;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(svmtune_mm_hash, bkt, smm, hnode) {
		spin_lock(&smm->lock);
		if (smm->dead) {
			spin_unlock(&smm->lock);
			continue;
		}
		if (smm->defaults.preferred_loc == id)
			smm->defaults.preferred_loc = SVMTUNE_LOC_UNSET;
		svmtune_blocks_forget_device(smm, id);
		for (node = rb_first(&smm->ranges); node; node = rb_next(node)) {
			range = rb_entry(node, struct svmtune_range, node);
			if (range->pol.preferred_loc == id)
				range->pol.preferred_loc = SVMTUNE_LOC_UNSET;
		}
		spin_unlock(&smm->lock);
	}
	rcu_read_unlock();
}

/**
 * svmtune_mm_visit_live() - visit every address space's state
 * @walk: its ->visit is called for each state with the state's lock held,
 *	inside an RCU read section (it must not sleep); states being put are
 *	skipped
 */
void svmtune_mm_visit_live(struct svmtune_mm_walk *walk)
{
	struct svmtune_mm *smm;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(svmtune_mm_hash, bkt, smm, hnode) {
		spin_lock(&smm->lock);
		if (!smm->dead)
			walk->visit(smm, walk);
		spin_unlock(&smm->lock);
	}
	rcu_read_unlock();
}

int svmtune_mm_init(void)
{
	int ret;

	ret = svmtune_block_init();
	if (ret)
		return ret;
	/* Ranges are made on behalf of a process: charged to its memory cgroup. */
	svmtune_range_cache = KMEM_CACHE(svmtune_range, SLAB_ACCOUNT);
	if (!svmtune_range_cache) {
		svmtune_block_exit();
		return -ENOMEM;
	}
	return 0;
}

/*
 * Module unload: no backend and no open file is left, so nothing looks up or
 * creates states any more. Put the remaining ones (processes still alive)
 * and wait until their notifiers are freed.
 */
void svmtune_mm_exit(void)
{
	struct svmtune_mm *smm;
	struct hlist_node *tmp;
	int bkt;

	for (;;) {
		bool found = false;

		spin_lock(&svmtune_mm_hash_lock);
		hash_for_each_safe(svmtune_mm_hash, bkt, tmp, smm, hnode) {
			hlist_del_init_rcu(&smm->hnode);
			found = true;
			break;
		}
		spin_unlock(&svmtune_mm_hash_lock);
		if (!found)
			break;
		svmtune_mm_put(smm);
	}
	mmu_notifier_synchronize();
	kmem_cache_destroy(svmtune_range_cache);
	svmtune_block_exit();
}
