// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: thrashing detection and mitigation, per 64 KiB chunk of a
 * block.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "svmtune_internal.h"
#include "svmtune_trace.h"

/*
 * Pin expiry. A chunk pinned by thrashing (svmtune_thrash_fault()) stays in
 * system memory, mapped remotely by the devices that fault on it, until
 * its own pin_until_ms; its block carries %SVMTUNE_BLOCK_PINNED in the
 * address space's xarray. One delayed work, due at the earliest expiry,
 * unpins what expired and asks the backends to tear the remote mappings
 * down (struct svmtune_device_ops.unmap_remote), so the device's next
 * access faults and the engine decides again: a pin ends when it says,
 * not at the next invalidation.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_unpin_lock`` (spinlock)
 *     Guards when the unpin work is due and whether it was stopped (module
 *     unload, svmtune_unpin_stop()). Taken inside ``svmtune_mm.lock`` (a
 *     fault that pins schedules the work); innermost. The work itself
 *     walks the address spaces under their ``svmtune_mm.lock`` and calls
 *     the backends without any engine lock but ``svmtune_devices_lock``.
 */
static void svmtune_unpin_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(svmtune_unpin_work, svmtune_unpin_fn);
static DEFINE_SPINLOCK(svmtune_unpin_lock);
static u64 svmtune_unpin_due_ns;	/* 0: not queued */
static bool svmtune_unpin_stopped;

/* Expired pins one pass of the work collects before it calls backends. */
#define SVMTUNE_UNPIN_BATCH	32

struct svmtune_unpin_pass {
	struct svmtune_mm_walk walk;
	u64 now;
	u32 now_ms;
	u64 next;
	unsigned int n;
	bool more;
	struct {
		struct mm_struct *mm;
		unsigned long start;
		unsigned long end;
		u32 dev;
		unsigned int chunks;
	} item[SVMTUNE_UNPIN_BATCH];
};

/*
 * A pin ends at @until_ns (ktime_get_ns() time): make sure the unpin work
 * runs then. Never sleeps; called under an address space's lock.
 */
static void svmtune_thrash_pin_schedule(u64 until_ns)
{
	u64 now = ktime_get_ns();

	spin_lock(&svmtune_unpin_lock);
	if (!svmtune_unpin_stopped &&
	    (!svmtune_unpin_due_ns || until_ns < svmtune_unpin_due_ns)) {
		svmtune_unpin_due_ns = until_ns;
		mod_delayed_work(system_wq, &svmtune_unpin_work,
				 nsecs_to_jiffies(until_ns > now ? until_ns - now : 0) + 1);
	}
	spin_unlock(&svmtune_unpin_lock);
}

/* Collect the expired pins of @smm (its lock held) into @walk's pass. */
static void svmtune_unpin_collect(struct svmtune_mm *smm,
				  struct svmtune_mm_walk *walk)
{
	struct svmtune_unpin_pass *pass =
		container_of(walk, struct svmtune_unpin_pass, walk);
	struct svmtune_block *blk;
	unsigned long index;

	lockdep_assert_held(&smm->lock);
	xa_for_each_marked(&smm->blocks, index, blk, SVMTUNE_BLOCK_PINNED) {
		struct svmtune_block_thrash *th = &blk->th;
		u32 live = svmtune_pins_live(th, pass->now_ms);
		u32 expired = th->pinned & ~live, runs, m, c;
		bool got_mm, ref_used = false;

		/* When the work is next due: the earliest live pin's end. */
		for (m = live; m; m &= m - 1) {
			c = __ffs(m);
			pass->next = min(pass->next, pass->now +
					 (u64)(s32)(th->pin_until_ms[c] - pass->now_ms) *
					 NSEC_PER_MSEC);
		}
		if (!expired)
			continue;
		/* Runs of expired chunks: each is one unmap call. */
		runs = hweight32(expired & ~(expired << 1));
		if (pass->n + runs > SVMTUNE_UNPIN_BATCH) {
			pass->more = true;
			return;
		}
		got_mm = mmget_not_zero(smm->mm);
		while (expired) {
			unsigned int first = __ffs(expired), last = first;
			unsigned long start, end;
			struct svmtune_range *range;

			while (last + 1 < SVMTUNE_THRASH_CHUNKS &&
			       (expired & BIT(last + 1)))
				last++;
			expired &= ~GENMASK(last, first);
			start = blk->base + ((unsigned long)first << SVMTUNE_THRASH_CHUNK_SHIFT);
			end = blk->base + ((unsigned long)(last + 1) << SVMTUNE_THRASH_CHUNK_SHIFT);
			trace_svmtune_thrashing(NULL, start, end, start,
						SVMTUNE_THRASH_TRACE_UNPINNED);
			/* No users left: no mapping to tear down, no count. */
			if (!got_mm)
				continue;
			smm->counters[SVMTUNE_CNT_UNPINS] += last + 1 - first;
			range = svmtune_range_find(smm, start);
			if (range)
				range->counters[SVMTUNE_CNT_UNPINS] += last + 1 - first;
			/* One reference on the users per item. */
			if (ref_used)
				mmget(smm->mm);
			ref_used = true;
			pass->item[pass->n].mm = smm->mm;
			pass->item[pass->n].start = start;
			pass->item[pass->n].end = end;
			pass->item[pass->n].dev = th->pin_dev;
			pass->item[pass->n].chunks = last + 1 - first;
			pass->n++;
		}
		th->pinned = live;
		if (!live)
			xa_clear_mark(&smm->blocks, index, SVMTUNE_BLOCK_PINNED);
	}
}

static void svmtune_unpin_fn(struct work_struct *work)
{
	struct svmtune_unpin_pass *pass;
	unsigned int i;

	spin_lock(&svmtune_unpin_lock);
	svmtune_unpin_due_ns = 0;
	spin_unlock(&svmtune_unpin_lock);

	pass = kmalloc(sizeof(*pass), GFP_KERNEL);
	if (!pass) {
		/* Pins last a little longer; try again soon. */
		svmtune_thrash_pin_schedule(ktime_get_ns() + 10 * NSEC_PER_MSEC);
		return;
	}
	pass->walk.visit = svmtune_unpin_collect;
	do {
		pass->now = ktime_get_ns();
		pass->now_ms = svmtune_ms(pass->now);
		pass->next = U64_MAX;
		pass->n = 0;
		pass->more = false;
		svmtune_mm_visit_live(&pass->walk);
		for (i = 0; i < pass->n; i++) {
			svmtune_devices_unmap_remote(pass->item[i].mm,
						     pass->item[i].start,
						     pass->item[i].end,
						     pass->item[i].dev,
						     pass->item[i].chunks);
			/* The last user gone: exit_mmap() not on this worker. */
			mmput_async(pass->item[i].mm);
		}
		cond_resched();
	} while (pass->more);
	if (pass->next != U64_MAX)
		svmtune_thrash_pin_schedule(pass->next);
	kfree(pass);
}

/**
 * svmtune_unpin_stop() - module unload: no more unpin work
 *
 * Pins left are dropped with their blocks; their remote mappings stay
 * until the pages are next invalidated.
 */
void svmtune_unpin_stop(void)
{
	spin_lock(&svmtune_unpin_lock);
	svmtune_unpin_stopped = true;
	spin_unlock(&svmtune_unpin_lock);
	cancel_delayed_work_sync(&svmtune_unpin_work);
}

/*
 * Pin @chunk of @blk on @dev's faults for at least @pin_ms from @now:
 * they map remotely until the pin lapses (svmtune_unpin_work unpins).
 */
static void svmtune_thrash_pin(struct svmtune_device *dev,
			       struct svmtune_mm *smm, u64 *range_counters,
			       struct svmtune_block *blk, unsigned int chunk,
			       u64 now, unsigned int pin_ms)
{
	struct svmtune_block_thrash *th = &blk->th;
	u32 now_ms = svmtune_ms(now);

	lockdep_assert_held(&smm->lock);
	if (!th->pinned)
		xa_set_mark(&smm->blocks, blk->base >> SVMTUNE_BLOCK_SHIFT,
			    SVMTUNE_BLOCK_PINNED);
	th->pinned |= BIT(chunk);
	/* At least a full pin_ms: the deadline is in whole ms. */
	th->pin_until_ms[chunk] = now_ms + 1 + pin_ms;
	th->pin_dev = dev->id;
	svmtune_count(dev, smm->counters, range_counters, SVMTUNE_CNT_PINS, 1);
	svmtune_thrash_pin_schedule(now + (u64)(th->pin_until_ms[chunk] - now_ms) *
				   NSEC_PER_MSEC);
}

/*
 * Chunk @chunk of @blk was detected thrashing by @fault at @addr, at @now:
 * mitigate as the ``thrashing`` knob says, or as an attached program
 * answers (svmtune_bpf_thrashing()). A device that cannot make a fault
 * wait skips the throttle stage.
 */
static void svmtune_thrash_detected(struct svmtune_device *dev,
				    struct svmtune_mm *smm, u64 *range_counters,
				    struct svmtune_block *blk,
				    const struct svmtune_fault *fault,
				    const struct svmtune_params *prm,
				    unsigned long addr, unsigned int chunk,
				    u64 now)
{
	unsigned long cstart = blk->base +
			       ((unsigned long)chunk << SVMTUNE_THRASH_CHUNK_SHIFT);
	struct svmtune_block_thrash *th = &blk->th;
	unsigned int mode = prm->thrashing;
	struct svmtune_bpf_thrash_decision td = {
		.mitigation = SVMTUNE_BPF_THRASH_NONE,
		.throttle_us = prm->thrashing_throttle_us,
		.pin_ms = prm->thrashing_pin_ms,
	};
	unsigned int what = SVMTUNE_THRASH_TRACE_DETECTED;

	lockdep_assert_held(&smm->lock);
	if (mode == SVMTUNE_THRASHING_REMOTE &&
	    (th->throttles[chunk] >= prm->thrashing_pin_threshold ||
	     !dev->throttles))
		td.mitigation = SVMTUNE_BPF_THRASH_PIN;
	else if (dev->throttles && (mode == SVMTUNE_THRASHING_REMOTE ||
				    mode == SVMTUNE_THRASHING_THROTTLE))
		td.mitigation = SVMTUNE_BPF_THRASH_THROTTLE;
	svmtune_bpf_thrashing(dev, smm, fault, cstart, addr, th->throttles[chunk],
			      &td);
	if (td.mitigation == SVMTUNE_BPF_THRASH_PIN) {
		what = SVMTUNE_THRASH_TRACE_PINNED;
		svmtune_thrash_pin(dev, smm, range_counters, blk, chunk, now,
				   td.pin_ms);
	} else if (td.mitigation == SVMTUNE_BPF_THRASH_THROTTLE) {
		what = SVMTUNE_THRASH_TRACE_THROTTLED;
		th->throttled |= BIT(chunk);
		th->throttle_until_ns = now + (u64)td.throttle_us * NSEC_PER_USEC;
		if (th->throttles[chunk] < U8_MAX)
			th->throttles[chunk]++;
		svmtune_count(dev, smm->counters, range_counters,
			      SVMTUNE_CNT_THROTTLES, 1);
	}
	trace_svmtune_thrashing(dev, cstart,
				cstart + (1UL << SVMTUNE_THRASH_CHUNK_SHIFT),
				addr, what);
}

/*
 * A device fault of @dev came back, within a lapse, to @blk, which @dev
 * evicted to make room for other data (svmtune_account_evicted()), with
 * the ``thrashing`` knob at remote: the device's memory is oversubscribed,
 * and migrating the block again would evict some other block, whose
 * faults would then evict this one. Pin the whole block for
 * thrashing_pin_ms, so that @dev's faults map it where it is, one fault
 * for the whole block (svmtune_decide_action()). This is the engine's
 * answer to oversubscription (UVM's is to keep evicting): on an MI300X a
 * 2 MiB block read sparsely costs a GPU fault and 40 microseconds of copy
 * each time it comes back, against about a microsecond per remote read.
 */
static void svmtune_thrash_evicted(struct svmtune_device *dev,
				   struct svmtune_mm *smm, u64 *range_counters,
				   struct svmtune_block *blk,
				   const struct svmtune_params *prm,
				   unsigned long addr, u64 now)
{
	u32 live = svmtune_pins_live(&blk->th, svmtune_ms(now));
	unsigned int chunk;

	lockdep_assert_held(&smm->lock);
	blk->th.evict_ns = 0;
	svmtune_count(dev, smm->counters, range_counters,
		      SVMTUNE_CNT_THRASHING_DETECTED, 1);
	for (chunk = 0; chunk < SVMTUNE_THRASH_CHUNKS; chunk++)
		if (!(live & BIT(chunk)))
			svmtune_thrash_pin(dev, smm, range_counters, blk, chunk,
					   now, prm->thrashing_pin_ms);
	trace_svmtune_thrashing(dev, blk->base, blk->base + SVMTUNE_BLOCK_SIZE,
				addr, SVMTUNE_THRASH_TRACE_PINNED);
}

/*
 * Thrashing, per 64 KiB chunk of a 2 MiB block, after NVIDIA UVM's. A
 * fault that reverses a recent migration of its page (a CPU fault on a
 * page a device fault moved less than thrashing_lapse_us ago, or a device
 * fault on a page a CPU fault took back) is an event. thrashing_threshold
 * events in a chunk are a detection; then, as the ``thrashing`` knob says:
 *
 * - throttle (and remote, for its first thrashing_pin_threshold
 *   detections): for thrashing_throttle_us, faults on the chunk, from
 *   either side, wait before they are served, so each side gets its pages
 *   for a while instead of a fault per access;
 * - remote, past that: the chunk is pinned to system memory for
 *   thrashing_pin_ms; devices map it remotely (both sides reach it there).
 *   When the pin ends the remote mappings are torn down
 *   (svmtune_unpin_work), so the next device access faults and may
 *   migrate again.
 *
 * With remote, a device fault on a block the same device evicted less
 * than thrashing_lapse_us ago pins the whole block at once
 * (svmtune_thrash_evicted()): oversubscription, not a reversal.
 *
 * A quiet second (no event in the block) resets the events and throttle
 * counts: a chunk that thrashes again after that is throttled afresh
 * before it is pinned; one that thrashes on right after its pin ended is
 * pinned again at its next detection.
 *
 * On an MI300X a reversal costs a GPU fault (tens of microseconds of
 * service, plus KFD's 2 ms retry filter on the range) and a CPU fault,
 * and a copy each way (64 KiB: a few microseconds over PCIe 5; 2 MiB:
 * about 40). A throttle of 1 ms lets a side run about as long as one
 * filter period; a remote access over PCIe costs about a microsecond a
 * cache line, which a pin trades for the copies.
 *
 * Called with @smm's lock held, @mode not off and the range not opted out.
 * Sets *@throttle_ns when the fault is to wait, and returns whether device
 * faults on the chunk map remotely now.
 */
bool svmtune_thrash_fault(struct svmtune_device *dev,
			  struct svmtune_mm *smm,
			  struct svmtune_range *range,
			  struct svmtune_block *blk,
			  const struct svmtune_params *prm,
			  const struct svmtune_fault *fault,
			  unsigned long addr, u64 now, u64 *throttle_ns)
{
	u64 lapse = (u64)prm->thrashing_lapse_us * NSEC_PER_USEC;
	unsigned int page = (addr - blk->base) >> PAGE_SHIFT;
	unsigned int chunk = page >> (SVMTUNE_THRASH_CHUNK_SHIFT - PAGE_SHIFT);
	u64 *range_counters = range ? range->counters : NULL;
	struct svmtune_block_thrash *th = &blk->th;
	u32 bit = BIT(chunk), now_ms = svmtune_ms(now);
	bool reversal;

	lockdep_assert_held(&smm->lock);
	if (th->event_ns && now - th->event_ns > SVMTUNE_THRASH_QUIET_NS) {
		memset(th->events, 0, sizeof(th->events));
		memset(th->throttles, 0, sizeof(th->throttles));
		th->event_ns = 0;
	}
	if (th->throttled && now >= th->throttle_until_ns)
		th->throttled = 0;
	if (fault->retried)
		goto out;

	if (fault->type != SVMTUNE_FAULT_CPU && th->evict_ns &&
	    th->evict_dev == dev->id && prm->thrashing == SVMTUNE_THRASHING_REMOTE) {
		if (now - th->evict_ns <= lapse) {
			svmtune_thrash_evicted(dev, smm, range_counters, blk,
					       prm, addr, now);
			goto out;
		}
		th->evict_ns = 0;
	}
	if (fault->type == SVMTUNE_FAULT_CPU)
		reversal = test_bit(page, th->to_dev) && now - th->dev_ns <= lapse;
	else
		reversal = test_bit(page, th->to_sys) && now - th->sys_ns <= lapse;
	if (!reversal)
		goto throttle;
	th->event_ns = now;
	svmtune_count(dev, smm->counters, range_counters,
		      SVMTUNE_CNT_THRASHING_EVENTS, 1);
	if (++th->events[chunk] < prm->thrashing_threshold)
		goto throttle;
	th->events[chunk] = 0;
	svmtune_count(dev, smm->counters, range_counters,
		      SVMTUNE_CNT_THRASHING_DETECTED, 1);
	svmtune_thrash_detected(dev, smm, range_counters, blk, fault, prm,
				addr, chunk, now);
throttle:
	if ((th->throttled & bit) && now < th->throttle_until_ns && dev->throttles)
		*throttle_ns = th->throttle_until_ns - now;
out:
	return svmtune_pins_live(th, now_ms) & bit;
}

/*
 * Remember the pages of a block a fault moved, to see a later fault
 * reverse them: moves less than a lapse apart add up; a later one starts
 * afresh. Called with @blk's address space's lock held.
 */
void svmtune_thrash_record(struct svmtune_block *blk, bool to_system,
			   unsigned int first, unsigned int n, u64 now,
			   const struct svmtune_params *prm)
{
	u64 lapse = (u64)prm->thrashing_lapse_us * NSEC_PER_USEC;
	struct svmtune_block_thrash *th = &blk->th;

	lockdep_assert_held(&blk->smm->lock);
	if (to_system) {
		if (now - th->sys_ns > lapse)
			bitmap_zero(th->to_sys, SVMTUNE_BLOCK_PAGES);
		bitmap_set(th->to_sys, first, n);
		bitmap_clear(th->to_dev, first, n);
		th->sys_ns = now;
	} else {
		if (now - th->dev_ns > lapse)
			bitmap_zero(th->to_dev, SVMTUNE_BLOCK_PAGES);
		bitmap_set(th->to_dev, first, n);
		bitmap_clear(th->to_sys, first, n);
		th->dev_ns = now;
	}
}

/*
 * A migration must not take pinned chunks along: clip @d's window, inside
 * @blk, to the chunks around @addr's that are not pinned. (A window wider
 * than the block can still reach pinned chunks of the blocks beside it.)
 */
void svmtune_thrash_clip(const struct svmtune_block *blk,
			 unsigned long addr, struct svmtune_decision *d)
{
	unsigned int chunk = (addr - blk->base) >> SVMTUNE_THRASH_CHUNK_SHIFT;
	u32 live = svmtune_pins_live(&blk->th, svmtune_ms(ktime_get_ns()));
	u32 below = live & (BIT(chunk) - 1);
	u32 above = chunk < SVMTUNE_THRASH_CHUNKS - 1 ?
		    live & GENMASK(SVMTUNE_THRASH_CHUNKS - 1, chunk + 1) : 0;

	if (below)
		d->start = max(d->start, blk->base +
			       ((unsigned long)(__fls(below) + 1) << SVMTUNE_THRASH_CHUNK_SHIFT));
	if (above)
		d->end = min(d->end, blk->base +
			     ((unsigned long)__ffs(above) << SVMTUNE_THRASH_CHUNK_SHIFT));
	d->fault_start = max(d->fault_start, d->start);
	d->fault_end = min(d->fault_end, d->end);
}

/*
 * A remote mapping of a pinned chunk: clip @d's window, inside @blk, to
 * the run of live pinned chunks around @addr's (one chunk for a reversal's
 * pin, the whole block for an eviction's).
 */
void svmtune_thrash_remote_window(const struct svmtune_block *blk,
				  unsigned long addr, struct svmtune_decision *d)
{
	unsigned int chunk = (addr - blk->base) >> SVMTUNE_THRASH_CHUNK_SHIFT;
	u32 live = svmtune_pins_live(&blk->th, svmtune_ms(ktime_get_ns()));
	unsigned int first = chunk, last = chunk;

	while (first > 0 && (live & BIT(first - 1)))
		first--;
	while (last < SVMTUNE_THRASH_CHUNKS - 1 && (live & BIT(last + 1)))
		last++;
	d->start = max(d->start, blk->base +
		       ((unsigned long)first << SVMTUNE_THRASH_CHUNK_SHIFT));
	d->end = min(d->end, blk->base +
		     ((unsigned long)(last + 1) << SVMTUNE_THRASH_CHUNK_SHIFT));
	d->fault_start = d->start;
	d->fault_end = d->end;
}
