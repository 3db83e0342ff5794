// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: the engine's calls into an attached svmtune_ops program.
 */

/**
 * DOC: Program calls
 *
 * Each engine decision point asks the program that applies to the address
 * space (svmtune_bpf_ops_for(): the process's own, its cgroup's, or the
 * global one), under rcu_read_lock(), which keeps the program alive for
 * the call (svmtune_bpf_unreg() waits for a grace period). What the
 * program answers is validated here, before the engine uses it; what is
 * invalid is refused and counted, and the built-in answer stands:
 *
 * - svmtune_bpf_decide(), a device or CPU fault (svmtune_decide.c, stage
 *   6), under &svmtune_mm.lock: a window of 4 KiB to 1 GiB around the
 *   fault, cut by the engine within the fault's bounds; a migration only
 *   to the faulting device (a device fault) or system memory (a CPU fault);
 *   a remote mapping only to system memory or a registered device, and
 *   never for a CPU fault.
 * - svmtune_bpf_thrashing(), a chunk detected thrashing (svmtune_thrash.c),
 *   under &svmtune_mm.lock: no mitigation, a throttle (only on a device
 *   that can make a fault wait) or a pin, with lengths within the
 *   thrashing knobs' bounds.
 * - svmtune_bpf_evict(), each candidate block of a full device
 *   (svmtune_block.c), under the device's ``lru_lock``: take, spare or
 *   leave to the built-in order; anything else is refused and counted as
 *   "leave". A program that spares every block leaves the fault to map
 *   remotely what did not fit: slower, never wrong.
 * - svmtune_bpf_moved(), svmtune_bpf_waste(), svmtune_bpf_proc():
 *   notifications; nothing to validate.
 *
 * With nothing attached, the fault decision, the moves and the waste
 * reports do not call here at all: their wrappers in svmtune_internal.h
 * (svmtune_bpf_decide(), svmtune_bpf_moved(), svmtune_bpf_waste()) test
 * svmtune_bpf_on(), a static branch patched on by the first attachment
 * and off by the last detachment. The
 * other call sites (thrashing, eviction, process attach) cost one
 * RCU-protected pointer load (none of the tables is walked while it is
 * empty).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>

#include <linux/svmtune_bpf.h>
#include <svmtune/compat.h>

#include "svmtune_internal.h"

#ifdef SVMTUNE_BPF_STRUCT_OPS

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

/* What a block tells a fault callback. */
static void svmtune_bpf_block_ctx(const struct svmtune_block *blk,
				  struct svmtune_bpf_fault *ctx)
{
	ctx->block_loc = SVMTUNE_LOC_UNSET;
	if (!blk)
		return;
	ctx->block_resident = bitmap_weight(blk->resident, SVMTUNE_BLOCK_PAGES);
	ctx->block_touched = bitmap_weight(blk->touched, SVMTUNE_BLOCK_PAGES);
	ctx->block_loc = blk->loc;
	ctx->block_thrashing = svmtune_block_thrashing(blk);
	ctx->block_shift = blk->ad.shift;
}

/**
 * __svmtune_bpf_decide() - let an attached program replace a decision
 * @dev: the device that faulted
 * @smm: the address space's state, its lock held; or NULL
 * @range: the fault's range, or NULL
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
bool __svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
			  struct svmtune_range *range,
			  const struct svmtune_block *blk,
			  const struct svmtune_fault *fault, unsigned long lo,
			  unsigned long hi, struct svmtune_decision *d)
{
	struct svmtune_bpf_fault_kern ctx;
	u64 serial = 0;
	struct svmtune_bpf_decision out;
	struct svmtune_ops *ops;
	int (*fn)(struct svmtune_bpf_fault *f, struct svmtune_bpf_decision *d);
	int ret;

	if (smm)
		lockdep_assert_held(&smm->lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, &serial);
	fn = ops ? (fault->type == SVMTUNE_FAULT_CPU ? ops->cpu_fault :
						       ops->device_fault) : NULL;
	if (!fn) {
		rcu_read_unlock();
		return false;
	}
	ctx = (struct svmtune_bpf_fault_kern){
		.pub = {
			.addr = fault->addr & PAGE_MASK,
			.lo = lo, .hi = hi,
			.dev = dev->id,
			.cpu = fault->type == SVMTUNE_FAULT_CPU,
			.write = fault->write,
			.start = d->start, .end = d->end,
			.shift = d->granularity,
			.action = d->action, .dest = d->dest,
			.pid = smm ? smm->owner.tgid : 0,
			.cgroup = smm ? smm->owner.cgroup_id : 0,
			.retried = fault->retried,
			.reports_use = dev->reports_use,
		},
		.smm = smm,
		.range = range,
		.serial = serial,
	};
	svmtune_bpf_block_ctx(blk, &ctx.pub);
	out = (struct svmtune_bpf_decision){
		.shift = d->granularity, .action = d->action, .dest = d->dest,
	};
	ret = fn(&ctx.pub, &out);
	rcu_read_unlock();

	if (ret == 0) {
		svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
		return false;
	}
	if (ret != 1 || !svmtune_bpf_valid(dev, fault, &out)) {
		svmtune_bpf_counted(SVMTUNE_BPF_REFUSED);
		return false;
	}
	svmtune_bpf_counted(SVMTUNE_BPF_REPLACED);
	svmtune_window_cut(ctx.pub.addr, lo, hi, out.shift, d);
	d->fault_start = d->start;
	d->fault_end = d->end;
	d->action = out.action;
	d->dest = out.dest;
	return true;
}

/**
 * __svmtune_bpf_moved() - tell a program that pages changed place
 * @dev: the device that moved them
 * @smm: their address space's state, its lock held
 * @start: the run's first byte
 * @end: its end
 * @loc: where they are now: @dev's id or %SVMTUNE_LOC_SYSTEM
 * @decision: the fault decision the move served, or NULL
 * @changed: pages whose place the engine saw change
 */
void __svmtune_bpf_moved(struct svmtune_device *dev, struct svmtune_mm *smm,
			 unsigned long start, unsigned long end, u32 loc,
			 const struct svmtune_decision *decision,
			 unsigned long changed)
{
	struct svmtune_bpf_moved m;
	struct svmtune_ops *ops;

	lockdep_assert_held(&smm->lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, NULL);
	if (ops && ops->moved) {
		m = (struct svmtune_bpf_moved){
			.start = start, .end = end,
			.dev = dev->id, .loc = loc,
			.npages = min_t(unsigned long, (end - start) >> PAGE_SHIFT,
					U32_MAX),
			.changed = min_t(unsigned long, changed, U32_MAX),
			.fault = !!decision,
			.pid = smm->owner.tgid,
			.cgroup = smm->owner.cgroup_id,
		};
		ops->moved(&m);
		svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
	}
	rcu_read_unlock();
}

/**
 * __svmtune_bpf_waste() - tell a program that pages left a device untouched
 * @dev: the device they left (one that reports use)
 * @smm: their address space's state, its lock held
 * @range: the range at @addr, or NULL
 * @blk: the block at @addr, or NULL
 * @addr: the first page
 * @npages: how many
 *
 * The program sees a fault's context at @addr (the block's state, the
 * range's bounds as @lo and @hi), with the pages as @start and @end, and
 * may reach its storage there through the kfuncs.
 */
void __svmtune_bpf_waste(struct svmtune_device *dev, struct svmtune_mm *smm,
			 struct svmtune_range *range,
			 const struct svmtune_block *blk, unsigned long addr,
			 unsigned long npages)
{
	unsigned long start = addr & PAGE_MASK;
	unsigned long end = start + (npages << PAGE_SHIFT);
	struct svmtune_bpf_fault_kern ctx;
	struct svmtune_ops *ops;
	u64 serial = 0;

	lockdep_assert_held(&smm->lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, &serial);
	if (!ops || !ops->waste) {
		rcu_read_unlock();
		return;
	}
	ctx = (struct svmtune_bpf_fault_kern){
		.pub = {
			.addr = start,
			.lo = range ? range->start : start,
			.hi = range ? range->end : end,
			.start = start, .end = end,
			.dev = dev->id,
			.dest = dev->id,
			.pid = smm->owner.tgid,
			.cgroup = smm->owner.cgroup_id,
			.reports_use = dev->reports_use,
		},
		.smm = smm,
		.range = range,
		.serial = serial,
	};
	svmtune_bpf_block_ctx(blk, &ctx.pub);
	ops->waste(&ctx.pub);
	svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
	rcu_read_unlock();
}

/* Whether a thrashing answer @td is one the engine can follow on @dev. */
static bool svmtune_bpf_thrash_valid(const struct svmtune_device *dev,
				     const struct svmtune_bpf_thrash_decision *td)
{
	if (td->reserved)
		return false;
	switch (td->mitigation) {
	case SVMTUNE_BPF_THRASH_NONE:
		return true;
	case SVMTUNE_BPF_THRASH_THROTTLE:
		return dev->throttles && td->throttle_us &&
		       td->throttle_us <= SVMTUNE_BPF_THROTTLE_US_MAX;
	case SVMTUNE_BPF_THRASH_PIN:
		return td->pin_ms && td->pin_ms <= SVMTUNE_BPF_PIN_MS_MAX;
	default:
		return false;
	}
}

/**
 * svmtune_bpf_thrashing() - let a program choose a thrashing chunk's
 *	mitigation
 * @dev: the faulting device
 * @smm: the address space's state, its lock held
 * @fault: the fault that detected it
 * @cstart: the 64 KiB chunk's first byte
 * @addr: the faulting page
 * @detections: the chunk's throttle periods in this epoch
 * @td: the built-in answer, with the knobs' lengths; replaced by the
 *	program's when valid
 */
void svmtune_bpf_thrashing(struct svmtune_device *dev, struct svmtune_mm *smm,
			   const struct svmtune_fault *fault,
			   unsigned long cstart, unsigned long addr,
			   unsigned int detections,
			   struct svmtune_bpf_thrash_decision *td)
{
	struct svmtune_bpf_thrash_decision out = *td;
	struct svmtune_bpf_thrash t;
	struct svmtune_ops *ops;
	int ret;

	lockdep_assert_held(&smm->lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, NULL);
	if (!ops || !ops->thrashing) {
		rcu_read_unlock();
		return;
	}
	t = (struct svmtune_bpf_thrash){
		.start = cstart,
		.end = cstart + (1UL << SVMTUNE_THRASH_CHUNK_SHIFT),
		.addr = addr,
		.dev = dev->id,
		.cpu = fault->type == SVMTUNE_FAULT_CPU,
		.mitigation = td->mitigation,
		.can_throttle = dev->throttles,
		.detections = detections,
		.pid = smm->owner.tgid,
		.cgroup = smm->owner.cgroup_id,
	};
	ret = ops->thrashing(&t, &out);
	rcu_read_unlock();
	if (ret == 0) {
		svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
	} else if (ret != 1 || !svmtune_bpf_thrash_valid(dev, &out)) {
		svmtune_bpf_counted(SVMTUNE_BPF_REFUSED);
	} else {
		svmtune_bpf_counted(SVMTUNE_BPF_REPLACED);
		*td = out;
	}
}

/**
 * svmtune_bpf_evict_wanted() - whether a program would be asked about the
 *	eviction candidates for a fault of @smm
 * @smm: the state of the address space whose fault needs room, or NULL
 *
 * So that an eviction with no such program looks nothing up per
 * candidate. A program attached or detached meanwhile is seen at the next
 * eviction.
 *
 * Return: whether the program for @mm has an evict callback.
 */
bool svmtune_bpf_evict_wanted(const struct svmtune_mm *smm)
{
	struct svmtune_ops *ops;
	bool wanted;

	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, NULL);
	wanted = ops && ops->evict;
	rcu_read_unlock();
	return wanted;
}

/**
 * svmtune_bpf_evict() - ask a program about an eviction candidate
 * @dev: the full device; its lru_lock held
 * @smm: the state of the address space whose fault needs room, or NULL
 *	(looked up once per eviction by the caller)
 * @blk: the candidate, on @dev's LRU
 * @pos: its place on the LRU, 0 the least recent
 *
 * Return: %SVMTUNE_BPF_EVICT_TAKE, %SVMTUNE_BPF_EVICT_SPARE, or
 * %SVMTUNE_BPF_EVICT_DEFAULT (no program, or its answer, or an invalid
 * one, refused and counted).
 */
int svmtune_bpf_evict(struct svmtune_device *dev, const struct svmtune_mm *smm,
		      const struct svmtune_block *blk, unsigned int pos)
{
	struct svmtune_bpf_victim v;
	struct svmtune_ops *ops;
	int ret;

	lockdep_assert_held(&dev->lru_lock);
	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, NULL);
	if (!ops || !ops->evict) {
		rcu_read_unlock();
		return SVMTUNE_BPF_EVICT_DEFAULT;
	}
	/* The owners are constant; @blk's are the LRU's to keep alive. */
	v = (struct svmtune_bpf_victim){
		.base = blk->base,
		.dev = dev->id,
		.pos = pos,
		.used = dev->reports_use && READ_ONCE(blk->used),
		.pid = blk->smm->owner.tgid,
		.cgroup = blk->smm->owner.cgroup_id,
		.for_pid = smm ? smm->owner.tgid : 0,
		.for_cgroup = smm ? smm->owner.cgroup_id : 0,
	};
	ret = ops->evict(&v);
	rcu_read_unlock();
	switch (ret) {
	case SVMTUNE_BPF_EVICT_DEFAULT:
		svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
		return ret;
	case SVMTUNE_BPF_EVICT_TAKE:
	case SVMTUNE_BPF_EVICT_SPARE:
		svmtune_bpf_counted(SVMTUNE_BPF_REPLACED);
		return ret;
	default:
		svmtune_bpf_counted(SVMTUNE_BPF_REFUSED);
		return SVMTUNE_BPF_EVICT_DEFAULT;
	}
}

/**
 * svmtune_bpf_proc() - tell a program the engine starts or stops keeping
 *	state for a process
 * @smm: the address space's state
 * @attach: true when it starts, false when the address space goes
 */
void svmtune_bpf_proc(struct svmtune_mm *smm, bool attach)
{
	struct svmtune_bpf_proc p = {
		.pid = smm->owner.tgid,
		.cgroup = smm->owner.cgroup_id,
	};
	void (*fn)(struct svmtune_bpf_proc *p);
	struct svmtune_ops *ops;

	rcu_read_lock();
	ops = svmtune_bpf_ops_for(smm, NULL);
	fn = ops ? (attach ? ops->attach : ops->detach) : NULL;
	if (fn) {
		fn(&p);
		svmtune_bpf_counted(SVMTUNE_BPF_KEPT);
	}
	rcu_read_unlock();
}

#else /* no programmable policy: the built-in one alone */

bool __svmtune_bpf_decide(struct svmtune_device *dev, struct svmtune_mm *smm,
			  struct svmtune_range *range,
			  const struct svmtune_block *blk,
			  const struct svmtune_fault *fault, unsigned long lo,
			  unsigned long hi, struct svmtune_decision *d)
{
	return false;
}

void __svmtune_bpf_waste(struct svmtune_device *dev, struct svmtune_mm *smm,
			 struct svmtune_range *range,
			 const struct svmtune_block *blk, unsigned long addr,
			 unsigned long npages)
{
}

void __svmtune_bpf_moved(struct svmtune_device *dev, struct svmtune_mm *smm,
			 unsigned long start, unsigned long end, u32 loc,
			 const struct svmtune_decision *decision,
			 unsigned long changed)
{
}

void svmtune_bpf_thrashing(struct svmtune_device *dev, struct svmtune_mm *smm,
			   const struct svmtune_fault *fault,
			   unsigned long cstart, unsigned long addr,
			   unsigned int detections,
			   struct svmtune_bpf_thrash_decision *td)
{
}

bool svmtune_bpf_evict_wanted(const struct svmtune_mm *smm)
{
	return false;
}

int svmtune_bpf_evict(struct svmtune_device *dev, const struct svmtune_mm *smm,
		      const struct svmtune_block *blk, unsigned int pos)
{
	return SVMTUNE_BPF_EVICT_DEFAULT;
}

void svmtune_bpf_proc(struct svmtune_mm *smm, bool attach)
{
}

#endif
