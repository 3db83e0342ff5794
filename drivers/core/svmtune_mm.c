// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: per address space state and the policy range tree.
 *
 * Each address space svmtune has seen gets one struct svmtune_mm, found
 * by svmtune_mm_find() in a hash table read under RCU; svmtune_notifier.c
 * makes it, hashes and unhashes it, and frees it with the address space.
 *
 * Policy ranges are non-overlapping [start, end) intervals in an rbtree
 * under svmtune_mm.lock, a spinlock, because munmap() removes them (and the
 * per-block state of svmtune_block.c) from an mmu notifier that may not
 * sleep (svmtune_ranges_unmap()). Nothing allocates under that lock:
 * callers preallocate, and the one split an unmap may need uses a spare
 * range kept for the purpose.
 *
 * The policy fields of ranges and process defaults are written here
 * (svmtune_policy_apply()), and so is the set of device ids a policy may
 * name: that of the registered devices.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_mm_hash_lock`` (spinlock)
 *     Serialises the changes of the table of address spaces' states
 *     (svmtune_mm_publish(), svmtune_mm_unhash(), svmtune_mm_unhash_any());
 *     lookups (svmtune_mm_find(), svmtune_mm_visit_live()) walk it under
 *     RCU. Innermost; nothing is taken under it.
 *
 * ``svmtune_mm.lock`` (spinlock)
 *     Protects a ``struct svmtune_mm``: its range tree, defaults, counters,
 *     ``dead`` flag, and its blocks (lookup, contents, thrashing state,
 *     erase and free). Taken by the mmu notifier that removes unmapped
 *     ranges and blocks, so nothing sleeps or allocates with reclaim under
 *     it: svmtune_range_set() preallocates outside the lock and retries, a
 *     fault's new range is allocated with the lock dropped, and the one
 *     split an unmap may need uses a spare range (then ``GFP_NOWAIT``; if
 *     both fail the policy over the hole is kept, harmless since nothing
 *     is mapped there). May be taken with ``mmap_lock`` held (read);
 *     ``mmap_lock`` is never taken under it.
 *
 * ``svmtune_device_live`` (bitmap of registered ids)
 *     Set at register, cleared at unregister before the id leaves every
 *     policy (svmtune_mm_forget_device(): each address space's ranges,
 *     defaults and blocks, under its ``svmtune_mm.lock``, inside an RCU
 *     read section) and only then returns to the id allocator. Policy
 *     writers test it (svmtune_policy_names_dead_device()) under the same
 *     ``svmtune_mm.lock`` they store under, so a write racing an
 *     unregister is either purged or refused with ``ENODEV``; no policy
 *     keeps an id that another device may get.
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

/**
 * svmtune_range_free_list() - free ranges taken out of a range tree
 * @list: the first, the others chained through node.rb_right (as
 *	svmtune_ranges_unmap() leaves them), or NULL
 */
void svmtune_range_free_list(struct svmtune_range *list)
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
	new->bpf = range->bpf;
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
 * svmtune_device_id_live() - whether device @id is registered
 * @id: a device id
 *
 * Ordered against svmtune_mm_forget_device() where the caller holds the
 * svmtune_mm.lock of the address space it decides for (a fault's
 * decision, a policy write).
 *
 * Return: true while @id is registered.
 */
bool svmtune_device_id_live(u32 id)
{
	return id <= SVMTUNE_LOC_MAX_DEVICE && test_bit(id, svmtune_device_live);
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
	       loc != SVMTUNE_LOC_SYSTEM && !svmtune_device_id_live(loc);
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

/**
 * svmtune_ranges_unmap() - drop the policy of unmapped addresses
 * @smm: the address space, its lock held
 * @start: first byte unmapped (munmap() or mremap() moved it away)
 * @end: end of the unmapped span
 * @freelist: ranges taken out are chained here, for
 *	svmtune_range_free_list() once the lock is dropped
 *
 * Ranges the span cuts are trimmed; one it splits in two uses the
 * address space's spare range, else an atomic allocation, else keeps its
 * policy over the hole (nothing faults there). Never sleeps.
 */
void svmtune_ranges_unmap(struct svmtune_mm *smm, unsigned long start,
			  unsigned long end, struct svmtune_range **freelist)
{
	struct svmtune_range *range, *next, *new;

	lockdep_assert_held(&smm->lock);
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
			svmtune_range_defer_free(freelist, range);
		}
		range = next;
	}
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

/**
 * svmtune_ranges_free() - free the ranges of an address space being freed
 * @smm: the address space; nothing else can reach it any more
 */
void svmtune_ranges_free(struct svmtune_mm *smm)
{
	struct svmtune_range *range, *tmp;

	rbtree_postorder_for_each_entry_safe(range, tmp, &smm->ranges, node)
		kmem_cache_free(svmtune_range_cache, range);
	if (smm->spare)
		kmem_cache_free(svmtune_range_cache, smm->spare);
}

/**
 * svmtune_mm_forget_device_locked() - drop a device id from an address
 *	space's policies
 * @smm: the address space, its lock held
 * @id: the id of a device being unregistered (its live bit already clear)
 *
 * The process default and the range policies that prefer the device go
 * back to unset.
 */
void svmtune_mm_forget_device_locked(struct svmtune_mm *smm, u32 id)
{
	struct svmtune_range *range;
	struct rb_node *node;

	lockdep_assert_held(&smm->lock);
	if (smm->defaults.preferred_loc == id)
		smm->defaults.preferred_loc = SVMTUNE_LOC_UNSET;
	for (node = rb_first(&smm->ranges); node; node = rb_next(node)) {
		range = rb_entry(node, struct svmtune_range, node);
		if (range->pol.preferred_loc == id)
			range->pol.preferred_loc = SVMTUNE_LOC_UNSET;
	}
}

/**
 * svmtune_mm_publish() - make an address space's state findable
 * @smm: a state made by svmtune_notifier.c
 *
 * Return: true if this call hashed it, false if it was already hashed.
 */
bool svmtune_mm_publish(struct svmtune_mm *smm)
{
	bool added = false;

	spin_lock(&svmtune_mm_hash_lock);
	if (hlist_unhashed(&smm->hnode)) {
		hash_add_rcu(svmtune_mm_hash, &smm->hnode, (unsigned long)smm->mm);
		added = true;
	}
	spin_unlock(&svmtune_mm_hash_lock);
	return added;
}

/**
 * svmtune_mm_unhash() - make an address space's state unfindable
 * @smm: the state; lookups already under way may still return it until
 *	an RCU grace period has passed
 *
 * Return: true if this call unhashed it, false if it was not hashed.
 */
bool svmtune_mm_unhash(struct svmtune_mm *smm)
{
	bool hashed;

	spin_lock(&svmtune_mm_hash_lock);
	hashed = !hlist_unhashed(&smm->hnode);
	if (hashed)
		hlist_del_init_rcu(&smm->hnode);
	spin_unlock(&svmtune_mm_hash_lock);
	return hashed;
}

/**
 * svmtune_mm_unhash_any() - unhash one address space's state, any
 *
 * Return: the state this call unhashed, or NULL if none is left.
 */
struct svmtune_mm *svmtune_mm_unhash_any(void)
{
	struct svmtune_mm *smm, *found = NULL;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&svmtune_mm_hash_lock);
	hash_for_each_safe(svmtune_mm_hash, bkt, tmp, smm, hnode) {
		hlist_del_init_rcu(&smm->hnode);
		found = smm;
		break;
	}
	spin_unlock(&svmtune_mm_hash_lock);
	return found;
}

int svmtune_mm_init(void)
{
	/* Ranges are made on behalf of a process: charged to its memory cgroup. */
	svmtune_range_cache = KMEM_CACHE(svmtune_range, SLAB_ACCOUNT);
	return svmtune_range_cache ? 0 : -ENOMEM;
}

/* Module unload, after every state was freed (svmtune_notifier_exit()). */
void svmtune_mm_exit(void)
{
	kmem_cache_destroy(svmtune_range_cache);
}
