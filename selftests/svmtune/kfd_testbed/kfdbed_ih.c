// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: the interrupt handler's retry-fault path.
 *
 * DOC: fault delivery
 *
 * Two ways, as amdgpu 6.12 has them, chosen by the retry_cam parameter:
 *
 * With the retry CAM (retry_cam=1, the default): GFX 9.4.2 and 9.4.3
 * (MI200, MI300) behind IH 4.4. vega20_ih_irq_init() turns the IH's retry
 * CAM on and sets adev->irq.retry_cam_enabled. A retry fault whose address
 * (PASID, page) is not in the CAM takes a CAM entry and is written to IH
 * ring 0 with the entry's index; a repeat of an address in the CAM (the
 * same wave replaying, or any other wave touching the page) is held back:
 * no interrupt. gmc_v9_0_process_interrupt() delegates ring 0's entry to
 * the software ring (amdgpu_irq_delegate(): ih_soft, processed by
 * ih_soft_work on system_unbound_wq); there amdgpu_vm_handle_fault() calls
 * KFD's svm_range_restore_pages() and the handler acknowledges the CAM
 * entry through its doorbell, whatever KFD returned. If the page is still
 * unmapped, the waves' next replay raises it again: that re-raise is the
 * only retry there is. amdgpu_gmc_filter_faults() is never called and
 * amdgpu_gmc_filter_faults_remove() returns at once. KFD drains ring 0 and
 * the software ring (svm_range_drain_retry_fault()) and checkpoints the
 * software ring on unmap.
 *
 * Without the CAM (retry_cam=0): a GFX9 GPU whose IH has none (Vega10,
 * MI25, on vega10_ih): retry faults arrive on IH1, a fault filter drops a
 * repeat of an address seen within KFDBED_FILTER_NS, and the handler
 * calls KFD for the rest; KFD drains and checkpoints IH1.
 *
 * Where this departs from the hardware, and why no policy result depends
 * on it: the timestamp is boot time in nanoseconds, masked to 48 bits as
 * the IV's (the IH's clock runs at its own rate; KFD only orders
 * timestamps, amdgpu_ih_ts_after()); ring 0's handler is a high-priority
 * work item, not a hard interrupt (it only moves entries to the software
 * ring, as the hard handler does); a fault KFD fails ends the wave's access
 * with the error instead of amdgpu_vm_handle_fault() writing a no-retry PTE
 * that faults the wave (the queue is lost either way); the filter of
 * the no-CAM mode forgets an address when KFD asks
 * (amdgpu_gmc_filter_faults_remove()) instead of recording an expiry
 * timestamp (the next fault passes either way).
 *
 * Locking: gpu->ih_lock covers what the producer (a wave) and the
 * handlers share: the rings' write counts and entries being written, the
 * CAM and the filter. A ring's read count and its entries' results are
 * written by its one worker, published by smp_store_release() of rseq.
 */
#include <linux/hash.h>
#include <linux/timekeeping.h>

#include "kfdbed.h"

bool kfdbed_retry_cam = true;
module_param_named(retry_cam, kfdbed_retry_cam, bool, 0444);
MODULE_PARM_DESC(
	retry_cam,
	"Deliver retry faults through the IH retry CAM and the software ring, as MI200/MI300 (default 1); 0: IH1 and a fault filter, as GPUs without the CAM (Vega10)");

#define KFDBED_IH_TS_MASK GENMASK_ULL(47, 0)
/* Compute VMIDs on GFX9 are 8..15; the emulated process VMs use the first. */
#define KFDBED_COMPUTE_VMID 8

/* The emulated ring behind amdgpu's @ih, NULL for a ring not emulated. */
static struct kfdbed_ring *kfdbed_ring_of(struct amdgpu_ih_ring *ih)
{
	unsigned int i;

	for (i = 0; i < kfdbed_num_gpus; i++) {
		struct kfdbed_gpu *gpu = kfdbed_gpus[i];

		if (!gpu)
			continue;
		if (ih == gpu->ih0.ih)
			return &gpu->ih0;
		if (ih == gpu->ih1.ih)
			return &gpu->ih1;
		if (ih == gpu->ih_soft.ih)
			return &gpu->ih_soft;
	}
	return NULL;
}

static u32 kfdbed_ih_get_wptr(struct amdgpu_device *adev,
			      struct amdgpu_ih_ring *ih)
{
	struct kfdbed_ring *ring = kfdbed_ring_of(ih);

	if (!ring)
		return ih->rptr;
	return (READ_ONCE(ring->wseq) << KFDBED_IH_ENTRY_SHIFT) & ih->ptr_mask;
}

static u64 kfdbed_ih_decode_iv_ts(struct amdgpu_ih_ring *ih, u32 rptr,
				  int offset)
{
	struct kfdbed_ring *ring = kfdbed_ring_of(ih);
	unsigned int i;

	if (!ring)
		return 0;
	i = ((rptr >> KFDBED_IH_ENTRY_SHIFT) + offset) & (ring->size - 1);
	return READ_ONCE(ring->entries[i].ts);
}

static const struct amdgpu_ih_funcs kfdbed_ih_funcs = {
	.get_wptr = kfdbed_ih_get_wptr,
	.decode_iv_ts = kfdbed_ih_decode_iv_ts,
};

static inline u64 kfdbed_fault_key(u32 pasid, u64 page)
{
	return ((u64)pasid << 48) | (page & KFDBED_IH_TS_MASK) | BIT_ULL(63);
}

/**
 * kfdbed_gpu_event() - tell stalled waves to look at their pages again
 * @gpu: the GPU
 */
void kfdbed_gpu_event(struct kfdbed_gpu *gpu)
{
	atomic_inc(&gpu->wave_event);
	wake_up_all(&gpu->wave_wq);
}

/*
 * The no-CAM fault filter: true when the same fault was delivered less
 * than KFDBED_FILTER_NS ago.
 */
static bool kfdbed_filter_fault(struct kfdbed_gpu *gpu, u64 key, u64 ts)
{
	struct kfdbed_fault_filter_slot *slot =
		&gpu->filter[hash_64(key, ilog2(KFDBED_FILTER_SLOTS))];

	lockdep_assert_held(&gpu->ih_lock);
	if (slot->key == key && ts - slot->ts < KFDBED_FILTER_NS)
		return true;
	slot->key = key;
	slot->ts = ts;
	return false;
}

/**
 * amdgpu_gmc_filter_faults_remove() - let the next fault at an address in
 * @adev: the device
 * @addr: GPU page number
 * @pasid: PASID
 *
 * KFD calls it for faults it did not handle (stale, or to retry later).
 * With the retry CAM it does nothing, as amdgpu's: the CAM entry is
 * acknowledged anyway.
 */
void amdgpu_gmc_filter_faults_remove(struct amdgpu_device *adev, uint64_t addr,
				     uint16_t pasid)
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	u64 key = kfdbed_fault_key(pasid, addr);
	struct kfdbed_fault_filter_slot *slot =
		&gpu->filter[hash_64(key, ilog2(KFDBED_FILTER_SLOTS))];

	if (adev->irq.retry_cam_enabled)
		return;
	spin_lock(&gpu->ih_lock);
	if (slot->key == key)
		slot->key = 0;
	spin_unlock(&gpu->ih_lock);
}

/* Write an entry to @ring; false when it is full. Call with ih_lock. */
static bool kfdbed_ring_write(struct kfdbed_gpu *gpu, struct kfdbed_ring *ring,
			      const struct kfdbed_ih_entry *src, u64 *seq)
{
	struct kfdbed_ih_entry *e;

	lockdep_assert_held(&gpu->ih_lock);
	if (ring->wseq - READ_ONCE(ring->rseq) >= ring->size)
		return false;
	e = &ring->entries[ring->wseq & (ring->size - 1)];
	*e = *src;
	e->seq = ring->wseq;
	e->result = 0;
	if (seq)
		*seq = e->seq;
	/* Publishes the entry; pairs with the worker's smp_load_acquire(). */
	smp_store_release(&ring->wseq, ring->wseq + 1);
	return true;
}

/* The CAM entry holding @key, or NULL. Call with ih_lock. */
static struct kfdbed_cam_entry *kfdbed_cam_find(struct kfdbed_gpu *gpu, u64 key)
{
	struct kfdbed_cam_entry *c;

	lockdep_assert_held(&gpu->ih_lock);
	hash_for_each_possible(gpu->cam_hash, c, node, key)
		if (c->key == key)
			return c;
	return NULL;
}

/**
 * kfdbed_ih_raise_retry_fault() - the GPU's retry fault on a page
 * @gpu: the GPU
 * @pasid: the VM's PASID
 * @page: GPU page number
 * @write: a write access
 * @t: out: what the faulting wave waits on (kfdbed_ih_fault_done())
 *
 * Return: 0 when the fault was written to a ring; -EALREADY when the
 * retry CAM holds it back (the address is in flight: @t is that entry's);
 * -EAGAIN when the no-CAM filter dropped it; -ENOSPC when the CAM or the
 * ring is full (dropped; the hardware retries). @t says nothing to wait
 * for after -EAGAIN and -ENOSPC.
 */
int kfdbed_ih_raise_retry_fault(struct kfdbed_gpu *gpu, u32 pasid, u64 page,
				bool write, struct kfdbed_fault_ticket *t)
{
	struct kfdbed_ih_entry e = {
		.ts = ktime_get_boottime_ns() & KFDBED_IH_TS_MASK,
		.page = page,
		.pasid = pasid,
		.vmid = KFDBED_COMPUTE_VMID,
		.cam = -1,
		.write = write,
	};
	u64 key = kfdbed_fault_key(pasid, page);
	struct kfdbed_cam_entry *c;
	unsigned int idx;

	t->cam = -1;
	t->seq = U64_MAX;
	spin_lock(&gpu->ih_lock);
	if (!kfdbed_retry_cam) {
		if (kfdbed_filter_fault(gpu, key, e.ts)) {
			spin_unlock(&gpu->ih_lock);
			kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_FILTERED);
			return -EAGAIN;
		}
		if (!kfdbed_ring_write(gpu, &gpu->ih1, &e, &t->seq)) {
			spin_unlock(&gpu->ih_lock);
			kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_OVERFLOW);
			return -ENOSPC;
		}
		spin_unlock(&gpu->ih_lock);
		kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS);
		schedule_work(&gpu->adev->irq.ih1_work);
		return 0;
	}

	c = kfdbed_cam_find(gpu, key);
	if (c) {
		t->cam = c - gpu->cam;
		t->gen = c->gen;
		spin_unlock(&gpu->ih_lock);
		kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_FILTERED);
		return -EALREADY;
	}
	idx = find_first_zero_bit(gpu->cam_used, KFDBED_CAM_ENTRIES);
	e.cam = idx;
	if (idx >= KFDBED_CAM_ENTRIES ||
	    !kfdbed_ring_write(gpu, &gpu->ih0, &e, NULL)) {
		spin_unlock(&gpu->ih_lock);
		kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_OVERFLOW);
		return -ENOSPC;
	}
	c = &gpu->cam[idx];
	__set_bit(idx, gpu->cam_used);
	c->key = key;
	hash_add(gpu->cam_hash, &c->node, key);
	t->cam = idx;
	t->gen = c->gen;
	spin_unlock(&gpu->ih_lock);

	kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS);
	queue_work(system_highpri_wq, &gpu->ih0_work);
	return 0;
}

/**
 * kfdbed_ih_fault_done() - has the fault a wave waits on been handled?
 * @gpu: the GPU
 * @t: from kfdbed_ih_raise_retry_fault()
 * @result: out, when done: what svm_range_restore_pages() returned for it
 *	(0 when its entry was reused since)
 *
 * Return: true once KFD has returned for it (CAM: the entry was
 * acknowledged; no CAM: IH1 processed it) or there is nothing to wait for.
 */
bool kfdbed_ih_fault_done(struct kfdbed_gpu *gpu,
			  const struct kfdbed_fault_ticket *t, int *result)
{
	*result = 0;
	if (t->cam >= 0) {
		struct kfdbed_cam_entry *c = &gpu->cam[t->cam];
		/* Pairs with the acknowledgement's smp_store_release(). */
		u32 gen = smp_load_acquire(&c->gen);

		if (gen == t->gen)
			return false;
		if (gen == t->gen + 1)
			*result = READ_ONCE(c->result);
		return true;
	}
	if (t->seq != U64_MAX) {
		struct kfdbed_ih_entry *e =
			&gpu->ih1.entries[t->seq & (gpu->ih1.size - 1)];

		/* Pairs with the worker's smp_store_release() of rseq. */
		if (smp_load_acquire(&gpu->ih1.rseq) <= t->seq)
			return false;
		spin_lock(&gpu->ih_lock);
		if (e->seq == t->seq)
			*result = e->result;
		spin_unlock(&gpu->ih_lock);
	}
	return true;
}

/*
 * Does the faulting VM map @page now as the access needs it? For the
 * counters only: KFD returning 0 with the page still unmapped dropped the
 * fault (the GPU raises it again).
 */
static bool kfdbed_fault_mapped(struct kfdbed_gpu *gpu,
				const struct kfdbed_ih_entry *e)
{
	u64 need = AMDGPU_PTE_VALID | AMDGPU_PTE_READABLE |
		   (e->write ? AMDGPU_PTE_WRITEABLE : 0);
	struct kfd_process_device *pdd;
	struct kfd_process *p;
	struct kfdbed_vm *kvm;
	bool mapped = false;

#ifdef KFDBED_HAVE_PDD_PASID
	p = kfd_lookup_process_by_pasid(e->pasid, &pdd);
	if (!p)
		return false;
#else
	p = kfd_lookup_process_by_pasid(e->pasid);
	if (!p)
		return false;
	pdd = kfd_get_process_device_data(gpu->node, p);
#endif
	if (pdd && pdd->drm_priv) {
		kvm = container_of(pdd->drm_priv, struct kfdbed_vm, file);
		spin_lock(&kvm->pt_lock);
		mapped = (kfdbed_vm_lookup(kvm, e->page) & need) == need;
		spin_unlock(&kvm->pt_lock);
	}
	kfd_unref_process(p);
	return mapped;
}

/*
 * amdgpu_vm_handle_fault() for a compute VM: KFD's
 * svm_range_restore_pages(), counted.
 */
static int kfdbed_ih_handle_fault(struct kfdbed_gpu *gpu,
				  const struct kfdbed_ih_entry *e)
{
	u64 maps = atomic64_read(&gpu->stats[KFDBED_STAT_VM_MAPS]);
	bool stale = kfdbed_fault_mapped(gpu, e);
	int r;

	r = svm_range_restore_pages(gpu->adev, e->pasid, e->vmid, e->node_id,
				    e->page, e->ts, e->write);
	kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_HANDLED);
	if (stale)
		kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_STALE);
	/*
	 * Served in full although already mapped: KFD mapped on this GPU
	 * meanwhile (only this worker handles the GPU's faults; a prefetch
	 * mapping at the same time would be counted too).
	 */
	if (stale && atomic64_read(&gpu->stats[KFDBED_STAT_VM_MAPS]) != maps)
		kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_STALE_SERVED);
	if (r) {
		kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_FAILED);
		dev_dbg(gpu->adev->dev,
			"retry fault pasid %u page 0x%llx: %d\n", e->pasid,
			e->page, r);
	} else if (!kfdbed_fault_mapped(gpu, e)) {
		kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_DROPPED);
	}
	return r;
}

/* Mark @ring's entry at @rseq processed; the worker's only writes. */
static void kfdbed_ring_consumed(struct kfdbed_gpu *gpu,
				 struct kfdbed_ring *ring, u64 rseq, u64 ts)
{
	struct amdgpu_ih_ring *ih = ring->ih;

	WRITE_ONCE(ih->rptr, (rseq << KFDBED_IH_ENTRY_SHIFT) & ih->ptr_mask);
	/* As amdgpu_irq_dispatch(): the newest timestamp processed. */
	if (amdgpu_ih_ts_after(ih->processed_timestamp, ts))
		WRITE_ONCE(ih->processed_timestamp, ts);
	/* Publishes the result; pairs with kfdbed_ih_fault_done(). */
	smp_store_release(&ring->rseq, rseq);
	wake_up_all(&ih->wait_process);
}

/*
 * IH1's handler (no CAM): every fault in the ring to KFD, in order, as
 * amdgpu's IH processing calls gmc's fault handler.
 */
static void kfdbed_ih1_work(struct work_struct *work)
{
	struct amdgpu_device *adev =
		container_of(work, struct amdgpu_device, irq.ih1_work);
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	struct kfdbed_ring *ring = &gpu->ih1;
	u64 rseq = ring->rseq, wseq;

	/* Pairs with the smp_store_release() that publishes an entry. */
	while (rseq != (wseq = smp_load_acquire(&ring->wseq))) {
		struct kfdbed_ih_entry e =
			ring->entries[rseq & (ring->size - 1)];
		int r;

		kfdbed_atomic64_max(&gpu->stats[KFDBED_STAT_IH_BATCH_MAX],
				    wseq - rseq);
		r = kfdbed_ih_handle_fault(gpu, &e);
		spin_lock(&gpu->ih_lock);
		ring->entries[rseq & (ring->size - 1)].result = r;
		spin_unlock(&gpu->ih_lock);
		kfdbed_ring_consumed(gpu, ring, ++rseq, e.ts);
		kfdbed_gpu_event(gpu);
	}
}

/*
 * Ring 0's interrupt handler (CAM): gmc_v9_0_process_interrupt() finds a
 * retry fault on ring 0 and delegates it to the software ring
 * (amdgpu_irq_delegate()), which ih_soft_work processes.
 */
static void kfdbed_ih0_work(struct work_struct *work)
{
	struct kfdbed_gpu *gpu =
		container_of(work, struct kfdbed_gpu, ih0_work);
	struct kfdbed_ring *ring = &gpu->ih0;
	u64 rseq = ring->rseq;
	bool moved = false;

	/* Pairs with the smp_store_release() that publishes an entry. */
	while (rseq != smp_load_acquire(&ring->wseq)) {
		struct kfdbed_ih_entry e =
			ring->entries[rseq & (ring->size - 1)];
		bool ok;

		spin_lock(&gpu->ih_lock);
		ok = kfdbed_ring_write(gpu, &gpu->ih_soft, &e, NULL);
		spin_unlock(&gpu->ih_lock);
		/*
		 * The software ring has a slot per CAM entry, and an entry
		 * leaves it before its CAM entry is acknowledged: never full.
		 */
		if (WARN_ON_ONCE(!ok))
			break;
		moved = true;
		kfdbed_ring_consumed(gpu, ring, ++rseq, e.ts);
	}
	if (moved)
		queue_work(system_unbound_wq, &gpu->soft_work);
}

/*
 * The software ring's worker (amdgpu's ih_soft_work): each fault to KFD,
 * then the CAM entry's acknowledgement (the doorbell write), whatever KFD
 * returned; waves stalled on the address look at their pages again.
 */
static void kfdbed_soft_work(struct work_struct *work)
{
	struct kfdbed_gpu *gpu =
		container_of(work, struct kfdbed_gpu, soft_work);
	struct kfdbed_ring *ring = &gpu->ih_soft;
	u64 rseq = ring->rseq, wseq;

	/* Pairs with the smp_store_release() that publishes an entry. */
	while (rseq != (wseq = smp_load_acquire(&ring->wseq))) {
		struct kfdbed_ih_entry e =
			ring->entries[rseq & (ring->size - 1)];
		struct kfdbed_cam_entry *c = &gpu->cam[e.cam];
		int r;

		kfdbed_atomic64_max(&gpu->stats[KFDBED_STAT_IH_BATCH_MAX],
				    wseq - rseq);
		r = kfdbed_ih_handle_fault(gpu, &e);
		kfdbed_ring_consumed(gpu, ring, ++rseq, e.ts);

		spin_lock(&gpu->ih_lock);
		c->result = r;
		c->key = 0;
		hash_del(&c->node);
		__clear_bit(e.cam, gpu->cam_used);
		/* Publishes @result; pairs with kfdbed_ih_fault_done(). */
		smp_store_release(&c->gen, c->gen + 1);
		spin_unlock(&gpu->ih_lock);
		kfdbed_gpu_event(gpu);
		cond_resched();
	}
}

/*
 * The window of faults KFD's checkpoint waits for: those written to @ih
 * before the call.
 */
static bool kfdbed_checkpoint_done(struct amdgpu_device *adev,
				   struct amdgpu_ih_ring *ih, u32 wptr, u64 ts)
{
	return amdgpu_ih_ts_after_or_equal(
		       ts, READ_ONCE(ih->processed_timestamp)) ||
	       READ_ONCE(ih->rptr) == amdgpu_ih_get_wptr(adev, ih);
}

/**
 * amdgpu_ih_wait_on_checkpoint_process_ts() - wait for the faults written
 *	so far to be processed
 * @adev: the device
 * @ih: the ring
 *
 * Return: 0, -ENODEV for a ring that is not in use, -ETIMEDOUT after 1 s,
 * -ERESTARTSYS on a signal.
 */
int amdgpu_ih_wait_on_checkpoint_process_ts(struct amdgpu_device *adev,
					    struct amdgpu_ih_ring *ih)
{
	u32 checkpoint_wptr;
	u64 checkpoint_ts;
	long t;

	if (!ih->enabled)
		return -ENODEV;
	checkpoint_wptr = amdgpu_ih_get_wptr(adev, ih);
	if (READ_ONCE(ih->rptr) == checkpoint_wptr)
		return 0;
	checkpoint_ts = amdgpu_ih_decode_iv_ts(adev, ih, checkpoint_wptr, -1);
	t = wait_event_interruptible_timeout(
		ih->wait_process,
		kfdbed_checkpoint_done(adev, ih, checkpoint_wptr,
				       checkpoint_ts),
		HZ);
	if (t < 0)
		return t;
	return t ? 0 : -ETIMEDOUT;
}

static int kfdbed_ring_init(struct kfdbed_ring *ring, struct amdgpu_ih_ring *ih,
			    unsigned int size)
{
	ring->entries = kvcalloc(size, sizeof(*ring->entries), GFP_KERNEL);
	if (!ring->entries)
		return -ENOMEM;
	ring->ih = ih;
	ring->size = size;
	ih->ring_size = size << KFDBED_IH_ENTRY_SHIFT;
	ih->ptr_mask = ih->ring_size - 1;
	ih->enabled = true;
	init_waitqueue_head(&ih->wait_process);
	return 0;
}

/**
 * kfdbed_ih_init() - the IH rings, the retry CAM and their handlers
 * @gpu: the GPU
 *
 * As vega20_ih: ring 0, IH1 and the software ring all exist; with the CAM,
 * retry faults use ring 0 and the software ring, without it IH1.
 *
 * Return: 0 or -ENOMEM.
 */
int kfdbed_ih_init(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;
	int r;

	spin_lock_init(&gpu->ih_lock);
	hash_init(gpu->cam_hash);
	init_waitqueue_head(&gpu->wave_wq);
	INIT_WORK(&adev->irq.ih1_work, kfdbed_ih1_work);
	INIT_WORK(&gpu->ih0_work, kfdbed_ih0_work);
	INIT_WORK(&gpu->soft_work, kfdbed_soft_work);
	r = kfdbed_ring_init(&gpu->ih0, &adev->irq.ih, KFDBED_IH0_ENTRIES);
	if (!r)
		r = kfdbed_ring_init(&gpu->ih1, &adev->irq.ih1,
				     KFDBED_IH1_ENTRIES);
	if (!r)
		r = kfdbed_ring_init(&gpu->ih_soft, &adev->irq.ih_soft,
				     KFDBED_IH_SOFT_ENTRIES);
	if (r)
		return r;
	adev->irq.retry_cam_enabled = kfdbed_retry_cam;
	adev->irq.ih_funcs = &kfdbed_ih_funcs;
	return 0;
}

/**
 * kfdbed_ih_fini() - stop delivering faults and free the rings
 * @gpu: the GPU
 */
void kfdbed_ih_fini(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;

	if (adev->irq.ih_funcs) {
		adev->irq.ih.enabled = false;
		adev->irq.ih1.enabled = false;
		adev->irq.ih_soft.enabled = false;
		cancel_work_sync(&gpu->ih0_work);
		cancel_work_sync(&gpu->soft_work);
		cancel_work_sync(&adev->irq.ih1_work);
	}
	kvfree(gpu->ih0.entries);
	kvfree(gpu->ih1.entries);
	kvfree(gpu->ih_soft.entries);
}
