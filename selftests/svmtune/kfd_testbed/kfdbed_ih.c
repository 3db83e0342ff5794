// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: the interrupt handler's retry-fault path. As on a GFX9 dGPU
 * with an IH1 ring (Vega20, Arcturus, Aldebaran), the hardware writes retry
 * faults to IH1, a work item (amdgpu's ih1_work) drains it and hands each
 * fault, unless the GMC fault filter drops it as a repeat, to KFD's
 * svm_range_restore_pages() as amdgpu_vm_handle_fault() does for compute
 * VMs. The ring keeps the fields KFD reads: rptr, ring_size, the write
 * pointer through ih_funcs->get_wptr, an entry's timestamp through
 * ih_funcs->decode_iv_ts, and processed_timestamp with wait_process for
 * amdgpu_ih_wait_on_checkpoint_process_ts().
 */
#include <linux/hash.h>
#include <linux/timekeeping.h>

#include "kfdbed.h"

#define KFDBED_IH_TS_MASK GENMASK_ULL(47, 0)
/* Compute VMIDs on GFX9 are 8..15; the emulated process VMs use the first. */
#define KFDBED_COMPUTE_VMID 8

static u32 kfdbed_ih_get_wptr(struct amdgpu_device *adev,
			      struct amdgpu_ih_ring *ih)
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);

	if (ih != &adev->irq.ih1)
		return ih->rptr; /* the other rings stay empty */
	return (READ_ONCE(gpu->ih_wseq) << KFDBED_IH_ENTRY_SHIFT) &
	       ih->ptr_mask;
}

static struct kfdbed_ih_entry *kfdbed_ih_entry_at(struct kfdbed_gpu *gpu,
						  u32 rptr, int offset)
{
	unsigned int i = ((rptr >> KFDBED_IH_ENTRY_SHIFT) + offset) &
			 (KFDBED_IH_ENTRIES - 1);

	return &gpu->ih_ring[i];
}

static u64 kfdbed_ih_decode_iv_ts(struct amdgpu_ih_ring *ih, u32 rptr,
				  int offset)
{
	struct amdgpu_device *adev =
		container_of(ih, struct amdgpu_device, irq.ih1);
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);

	return READ_ONCE(kfdbed_ih_entry_at(gpu, rptr, offset)->ts);
}

static const struct amdgpu_ih_funcs kfdbed_ih_funcs = {
	.get_wptr = kfdbed_ih_get_wptr,
	.decode_iv_ts = kfdbed_ih_decode_iv_ts,
};

static inline u64 kfdbed_fault_key(u32 pasid, u64 page)
{
	return ((u64)pasid << 48) | (page & KFDBED_IH_TS_MASK) | BIT_ULL(63);
}

/*
 * The GMC fault filter: true when the same fault was delivered less than
 * KFDBED_FILTER_NS ago (the hardware retries while the first is handled).
 * Call with ih_lock held.
 */
static bool kfdbed_filter_fault(struct kfdbed_gpu *gpu, u64 key, u64 ts)
{
	struct kfdbed_fault_filter_slot *slot =
		&gpu->filter[hash_64(key, ilog2(KFDBED_FILTER_SLOTS))];

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
 */
void amdgpu_gmc_filter_faults_remove(struct amdgpu_device *adev, uint64_t addr,
				     uint16_t pasid)
{
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	u64 key = kfdbed_fault_key(pasid, addr);
	struct kfdbed_fault_filter_slot *slot =
		&gpu->filter[hash_64(key, ilog2(KFDBED_FILTER_SLOTS))];

	spin_lock(&gpu->ih_lock);
	if (slot->key == key)
		slot->key = 0;
	spin_unlock(&gpu->ih_lock);
}

/**
 * kfdbed_ih_raise_retry_fault() - the GPU's retry fault on a page
 * @gpu: the GPU
 * @pasid: the VM's PASID
 * @page: GPU page number
 * @write: a write access
 * @seq: out: the ring entry's sequence number (for kfdbed_ih_wait_fault())
 *
 * Return: 0 when written to IH1, -EAGAIN when the filter dropped it,
 * -ENOSPC when the ring is full (also dropped, as an overflow).
 */
int kfdbed_ih_raise_retry_fault(struct kfdbed_gpu *gpu, u32 pasid, u64 page,
				bool write, u64 *seq)
{
	u64 ts = ktime_get_boottime_ns() & KFDBED_IH_TS_MASK;
	struct kfdbed_ih_entry *e;

	spin_lock(&gpu->ih_lock);
	if (kfdbed_filter_fault(gpu, kfdbed_fault_key(pasid, page), ts)) {
		spin_unlock(&gpu->ih_lock);
		kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_FILTERED);
		return -EAGAIN;
	}
	if (gpu->ih_wseq - READ_ONCE(gpu->ih_rseq) >= KFDBED_IH_ENTRIES) {
		spin_unlock(&gpu->ih_lock);
		kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS_OVERFLOW);
		return -ENOSPC;
	}
	e = &gpu->ih_ring[gpu->ih_wseq & (KFDBED_IH_ENTRIES - 1)];
	e->seq = gpu->ih_wseq;
	e->page = page;
	e->pasid = pasid;
	e->vmid = KFDBED_COMPUTE_VMID;
	e->node_id = 0;
	e->write = write;
	e->result = 0;
	WRITE_ONCE(e->ts, ts);
	*seq = e->seq;
	/* Publishes the entry; pairs with the smp_load_acquire() in the worker. */
	smp_store_release(&gpu->ih_wseq, gpu->ih_wseq + 1);
	spin_unlock(&gpu->ih_lock);

	kfdbed_stat_inc(gpu, KFDBED_STAT_RETRY_FAULTS);
	schedule_work(&gpu->adev->irq.ih1_work);
	return 0;
}

static bool kfdbed_ih_processed(struct kfdbed_gpu *gpu, u64 seq)
{
	/* Pairs with the worker's smp_store_release() of ih_rseq. */
	return smp_load_acquire(&gpu->ih_rseq) > seq;
}

/**
 * kfdbed_ih_wait_fault() - wait until a retry fault has been processed
 * @gpu: the GPU
 * @seq: from kfdbed_ih_raise_retry_fault()
 * @result: out: what svm_range_restore_pages() returned for it (0 if the
 *	entry was recycled meanwhile)
 *
 * Return: 0, -EINTR on a fatal signal, -ETIMEDOUT after 10 s.
 */
int kfdbed_ih_wait_fault(struct kfdbed_gpu *gpu, u64 seq, int *result)
{
	struct amdgpu_ih_ring *ih = &gpu->adev->irq.ih1;
	struct kfdbed_ih_entry *e =
		&gpu->ih_ring[seq & (KFDBED_IH_ENTRIES - 1)];
	long t;

	t = wait_event_killable_timeout(ih->wait_process,
					kfdbed_ih_processed(gpu, seq), 10 * HZ);
	if (t < 0)
		return -EINTR;
	if (!t)
		return -ETIMEDOUT;
	spin_lock(&gpu->ih_lock);
	*result = e->seq == seq ? e->result : 0;
	spin_unlock(&gpu->ih_lock);
	return 0;
}

/*
 * The IH1 work item: hand every fault in the ring to KFD, in order, as
 * amdgpu's IH processing calls gmc's fault handler, which for a compute
 * VM calls svm_range_restore_pages() with the page number.
 */
static void kfdbed_ih1_work(struct work_struct *work)
{
	struct amdgpu_device *adev =
		container_of(work, struct amdgpu_device, irq.ih1_work);
	struct kfdbed_gpu *gpu = kfdbed_gpu_from_adev(adev);
	struct amdgpu_ih_ring *ih = &adev->irq.ih1;
	u64 rseq = gpu->ih_rseq;

	/* Pairs with the smp_store_release() that publishes an entry. */
	while (rseq != smp_load_acquire(&gpu->ih_wseq)) {
		struct kfdbed_ih_entry e =
			gpu->ih_ring[rseq & (KFDBED_IH_ENTRIES - 1)];
		int r;

		r = svm_range_restore_pages(adev, e.pasid, e.vmid, e.node_id,
					    e.page, e.ts, e.write);
		kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_HANDLED);
		if (r) {
			kfdbed_stat_inc(gpu, KFDBED_STAT_FAULTS_FAILED);
			dev_dbg(adev->dev,
				"retry fault pasid %u page 0x%llx: %d\n",
				e.pasid, e.page, r);
		}

		spin_lock(&gpu->ih_lock);
		gpu->ih_ring[rseq & (KFDBED_IH_ENTRIES - 1)].result = r;
		rseq++;
		WRITE_ONCE(ih->rptr,
			   (rseq << KFDBED_IH_ENTRY_SHIFT) & ih->ptr_mask);
		WRITE_ONCE(ih->processed_timestamp, e.ts);
		/* Publishes the result; pairs with kfdbed_ih_wait_fault(). */
		smp_store_release(&gpu->ih_rseq, rseq);
		spin_unlock(&gpu->ih_lock);
		wake_up_all(&ih->wait_process);
	}
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
		amdgpu_ih_ts_after_or_equal(
			checkpoint_ts, READ_ONCE(ih->processed_timestamp)) ||
			READ_ONCE(ih->rptr) == amdgpu_ih_get_wptr(adev, ih),
		HZ);
	if (t < 0)
		return t;
	return t ? 0 : -ETIMEDOUT;
}

/**
 * kfdbed_ih_init() - the IH1 ring and its work item
 * @gpu: the GPU
 */
void kfdbed_ih_init(struct kfdbed_gpu *gpu)
{
	struct amdgpu_device *adev = gpu->adev;

	spin_lock_init(&gpu->ih_lock);
	adev->irq.ih_funcs = &kfdbed_ih_funcs;
	adev->irq.retry_cam_enabled = false;
	adev->irq.ih1.ring_size = KFDBED_IH_ENTRIES << KFDBED_IH_ENTRY_SHIFT;
	adev->irq.ih1.ptr_mask = adev->irq.ih1.ring_size - 1;
	adev->irq.ih1.enabled = true;
	init_waitqueue_head(&adev->irq.ih1.wait_process);
	init_waitqueue_head(&adev->irq.ih.wait_process);
	init_waitqueue_head(&adev->irq.ih_soft.wait_process);
	INIT_WORK(&adev->irq.ih1_work, kfdbed_ih1_work);
}

/**
 * kfdbed_ih_fini() - stop delivering faults
 * @gpu: the GPU
 */
void kfdbed_ih_fini(struct kfdbed_gpu *gpu)
{
	if (!gpu->adev->irq.ih_funcs)
		return;
	gpu->adev->irq.ih1.enabled = false;
	cancel_work_sync(&gpu->adev->irq.ih1_work);
}
