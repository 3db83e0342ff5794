// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: the faults KFD is handling, followed from the hook that
 * begins one (svm_range_restore_pages(), svm_migrate_to_ram()) to its
 * return, and the checks at its end that the fault went through the
 * functions svmtune_kfd hooks.
 */
#include "svmtune_kfd_hooks.h"

/*
 * Faults in flight by task, GPU and CPU apart (and KFD's migrations, to
 * system memory and to VRAM apart, svmtune_kfd_count.c): a list's entries
 * all belong to one kretprobe, so when it is unregistered (its in-flight instances'
 * return handlers then never run), its stale entries sit only in its own
 * lists, which no handler reads any more (the nested hooks go first, see
 * svmtune_kfd_hooks_detach()). hlist_add_head() puts the newest entry
 * first, so a task's innermost fault is found first.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_kfd_fault_bucket.lock`` (spinlock, IRQ-safe)
 *     Every hooked call looks its task up while any fault is in flight,
 *     and amdgpu handles faults on several workers at once (one per IH
 *     ring and GPU, CPU faults in every faulting thread): the tasks are
 *     spread over the 64 buckets of ``svmtune_kfd.fault_buckets``
 *     (``1 << SVMTUNE_KFD_FAULT_BITS``), each with a lock on a cache line
 *     of its own that protects the lists of faults in flight of the tasks
 *     hashed to it, so two fault workers share a lock only when their
 *     hashes collide. A task only ever adds, finds and removes its own
 *     faults, in its own bucket; the count of faults in flight
 *     (``svmtune_kfd.nr_faults``, an atomic) lets every hook return at
 *     once when there are none (a load, not a lock). Innermost. The same
 *     lock covers the task's KFD migrations in flight (the two migration
 *     lists, svmtune_kfd_count.c), counted in ``svmtune_kfd.nr_migs``.
 */

struct svmtune_kfd_fault_bucket *svmtune_kfd_bucket(const struct task_struct *task)
{
	return &svmtune_kfd.fault_buckets[hash_ptr(task, SVMTUNE_KFD_FAULT_BITS)];
}

/* Begin following a fault of @type in @f, a kretprobe instance's data. */
struct svmtune_kfd_fault *svmtune_kfd_fault_begin(struct svmtune_kfd_fault *f,
						  enum svmtune_fault_type type)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(current);
	unsigned long flags;

	memset(f, 0, sizeof(*f));
	f->task = current;
	f->fault.type = type;
	spin_lock_irqsave(&b->lock, flags);
	hlist_add_head(&f->node, type == SVMTUNE_FAULT_CPU ? &b->cpu : &b->gpu);
	atomic_inc(&svmtune_kfd.nr_faults);
	spin_unlock_irqrestore(&b->lock, flags);
	return f;
}

/*
 * The innermost fault current is handling, or NULL: a CPU fault taken
 * inside a GPU fault's handling (KFD's own hmm_range_fault() touching a
 * page in VRAM) is newer than it. The fault stays valid until current
 * returns from the call that began it.
 */
struct svmtune_kfd_fault *svmtune_kfd_fault_find(void)
{
	struct svmtune_kfd_fault *f, *found = NULL;
	struct svmtune_kfd_fault_bucket *b;
	unsigned long flags;

	if (!atomic_read(&svmtune_kfd.nr_faults))
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
void svmtune_kfd_fault_end(struct svmtune_kfd_fault *f)
{
	struct svmtune_kfd_fault_bucket *b = svmtune_kfd_bucket(f->task);
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	hlist_del(&f->node);
	atomic_dec(&svmtune_kfd.nr_faults);
	spin_unlock_irqrestore(&b->lock, flags);
}

/* No handler runs any more: forget every fault, stale ones included. */
void svmtune_kfd_faults_reset(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(svmtune_kfd.fault_buckets); i++) {
		spin_lock_init(&svmtune_kfd.fault_buckets[i].lock);
		INIT_HLIST_HEAD(&svmtune_kfd.fault_buckets[i].cpu);
		INIT_HLIST_HEAD(&svmtune_kfd.fault_buckets[i].gpu);
		INIT_HLIST_HEAD(&svmtune_kfd.fault_buckets[i].mig_ram);
		INIT_HLIST_HEAD(&svmtune_kfd.fault_buckets[i].mig_vram);
	}
	atomic_set(&svmtune_kfd.nr_faults, 0);
	atomic_set(&svmtune_kfd.nr_migs, 0);
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
void svmtune_kfd_fault_check(const struct svmtune_kfd_fault *slot,
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
