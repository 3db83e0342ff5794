// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: whose address space it is.
 */

/**
 * DOC: Owner
 *
 * A programmable policy (svmtune_bpf.c) may be attached to a cgroup, and
 * its callbacks see which process and cgroup a fault, a move or an
 * eviction candidate belongs to. The engine takes both once, when it
 * starts keeping state for an address space: the process is the address
 * space's owner (``mm->owner``, the task memory cgroups charge) or, in a
 * kernel without it, the task that made the state if the address space
 * is its own; the cgroup is that task's cgroup in the unified (v2)
 * hierarchy, referenced until the state is freed. A process that moves to
 * another cgroup later keeps the program of the cgroup it was in: what a
 * device fault runs must not depend on a lookup through task and css_set
 * pointers in amdgpu's fault worker, for every fault.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "svmtune_internal.h"

/**
 * svmtune_owner_get() - note whose address space @mm is
 * @owner: filled in; svmtune_owner_put() it
 * @mm: the address space, its users referenced by the caller
 */
void svmtune_owner_get(struct svmtune_owner *owner, struct mm_struct *mm)
{
	struct task_struct *task;

	*owner = (struct svmtune_owner){};
	rcu_read_lock();
#ifdef CONFIG_MEMCG
	task = rcu_dereference(mm->owner);
#else
	task = NULL;
#endif
	if (!task && current->mm == mm)
		task = current;
	if (task) {
		owner->tgid = task_tgid_nr(task);
#ifdef CONFIG_CGROUPS
		owner->cgrp = task_dfl_cgroup(task);
		if (cgroup_tryget(owner->cgrp))
			owner->cgroup_id = cgroup_id(owner->cgrp);
		else
			owner->cgrp = NULL;
#endif
	}
	rcu_read_unlock();
}

/**
 * svmtune_owner_put() - drop what svmtune_owner_get() took
 * @owner: the owner
 */
void svmtune_owner_put(struct svmtune_owner *owner)
{
#ifdef CONFIG_CGROUPS
	if (owner->cgrp)
		cgroup_put(owner->cgrp);
#endif
	owner->cgrp = NULL;
}
