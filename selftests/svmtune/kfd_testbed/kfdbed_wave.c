// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: a GPU's waves (KFDBED_IOC_WAVES).
 *
 * DOC: waves
 *
 * A GPU runs thousands of waves at once, and with XNACK on each wave that
 * touches an unmapped page stalls on its own while the others go on: the
 * UTCL2 raises a retry fault, the wave replays the access until the page
 * is mapped. So faults on many addresses are in flight together, the IH
 * ring fills and its handler finds them in batches, and the retry CAM
 * (kfdbed_ih.c) holds back the repeats of each address. That is the load
 * KFD's fault path sees on MI200 and MI300, and the one a policy must be
 * judged under.
 *
 * Here a run is N waves (up to KFDBED_WAVES_MAX), each with its own stream
 * of page accesses (a pattern of the buffer), spread round robin over a
 * few compute units: kernel threads, one per online CPU by default. A CU
 * loops over its waves; a running wave does a burst of accesses through
 * the page table; at an unmapped page it raises a retry fault (or joins
 * the one in flight for the address, as the CAM holds its repeat back) and
 * stalls. A stalled wave replays its access whenever something it may be
 * waiting for happens (page-table entries written, a fault acknowledged:
 * kfdbed_gpu_event()) and at least every jiffy: it goes on as soon as the
 * page is mapped, by its own fault or another's; if its fault was
 * acknowledged with the page still unmapped (KFD dropped or deferred it),
 * the replay raises it again, as the hardware re-raises after the CAM
 * acknowledgement. A fault KFD fails stops the run (the queue would be
 * lost). A CU with nothing to run sleeps until the next event.
 *
 * Where this departs from the hardware: a CU runs its waves one after the
 * other, not in lockstep, and an access is a page copy, not a cache line;
 * a replay happens on an event, not on the UTCL2's retry timer (a replay
 * that finds the page unmapped raises nothing while the fault is in
 * flight, so replay timing changes no fault count, only when a wave sees
 * its page). The number of faults in flight, their order in the ring and
 * the batches the handler sees follow from the waves, as on a GPU. A
 * fault that finds the CAM full is dropped and raised again at the next
 * replay (what the IH does with a full CAM is not documented; a wave
 * cannot go on before its page is mapped either way); such stalls are
 * counted once each, since how often the wave retries is the replay
 * timing's.
 *
 * Locking: a wave belongs to one CU thread and is touched by no other;
 * the run's counters are atomics; @lock covers the first error and the
 * first mismatch.
 */
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "kfdbed.h"

enum kfdbed_wave_state {
	KFDBED_WAVE_RUN,
	KFDBED_WAVE_STALLED,
	KFDBED_WAVE_DONE,
};

/* Accesses a running wave does before its CU moves to the next wave. */
#define KFDBED_WAVE_BURST 8
/* A run that makes no progress for this long fails with -ETIMEDOUT. */
#define KFDBED_WAVES_STUCK (30 * HZ)

/**
 * struct kfdbed_wave - one wave's state, owned by its CU
 * @k: accesses done
 * @n: accesses to do
 * @first: PARTITION: its first page (buffer-relative)
 * @len: PARTITION: its pages
 * @rng: RANDOM: xorshift64 state
 * @page: RANDOM: the page of the current access
 * @t: the fault it waits on
 * @waiting: @t is worth waiting on (raised or held back by the CAM)
 * @overflowed: this stall met a full CAM or ring (counted once a stall)
 * @state: enum kfdbed_wave_state
 */
struct kfdbed_wave {
	u64 k;
	u64 n;
	u64 first;
	u64 len;
	u64 rng;
	u64 page;
	struct kfdbed_fault_ticket t;
	bool waiting;
	bool overflowed;
	u8 state;
};

struct kfdbed_cu;

/**
 * struct kfdbed_waves_run - one KFDBED_IOC_WAVES call
 * @a: its arguments
 * @gpu: the GPU
 * @kp: the calling process
 * @kvm: its VM on @gpu
 * @first_page: the buffer's first GPU page
 * @npages: its pages
 * @need: PTE bits an access needs
 * @waves: @a->waves waves
 * @cus: the compute units
 * @ncus: how many
 * @stop: set to stop every CU
 * @err: the run's error (first wins), under @lock
 * @lock: covers @err and @a's fault and mismatch out fields
 * @last_progress: jiffies of the last access any wave did
 * @stalled: waves stalled now
 * @max_stalled: most at once
 * @done: out counter: accesses done
 * @faults: out counter: faults raised
 * @held: out counter: faults held back or filtered
 * @reraised: out counter: faults raised again after a clean acknowledgement
 * @overflows: out counter: faults dropped on a full CAM or ring
 * @stalls: out counter: stalls
 * @mismatches: out counter: pages read wrong
 * @vram: out counter: accesses to the GPU's VRAM
 * @sys: out counter: accesses to system memory
 * @peer: out counter: accesses to a peer's VRAM
 */
struct kfdbed_waves_run {
	struct kfdbed_waves_args *a;
	struct kfdbed_gpu *gpu;
	struct kfdbed_process *kp;
	struct kfdbed_vm *kvm;
	u64 first_page;
	u64 npages;
	u64 need;
	struct kfdbed_wave *waves;
	struct kfdbed_cu *cus;
	unsigned int ncus;
	atomic_t stop;
	int err;
	spinlock_t lock;
	unsigned long last_progress;
	atomic_t stalled;
	atomic64_t max_stalled;
	atomic64_t done;
	atomic64_t faults;
	atomic64_t held;
	atomic64_t reraised;
	atomic64_t overflows;
	atomic64_t stalls;
	atomic64_t mismatches;
	atomic64_t vram;
	atomic64_t sys;
	atomic64_t peer;
};

/**
 * struct kfdbed_cu - a compute unit: a thread running some of the waves
 * @run: the run
 * @index: waves @index, @index + ncus, ... are its
 * @buf: a page the accesses go through
 * @task: its thread (none for CU 0: the caller runs it)
 * @exited: completed when the thread is gone
 */
struct kfdbed_cu {
	struct kfdbed_waves_run *run;
	unsigned int index;
	u64 *buf;
	struct task_struct *task;
	struct completion exited;
};

static void kfdbed_waves_fail(struct kfdbed_waves_run *run, int err,
			      int fault_error, u64 addr)
{
	spin_lock(&run->lock);
	if (!run->err) {
		run->err = err;
		run->a->fault_error = fault_error;
		run->a->fault_addr = addr;
	}
	spin_unlock(&run->lock);
	atomic_set(&run->stop, 1);
	wake_up_all(&run->gpu->wave_wq);
}

static u64 kfdbed_xorshift(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* The buffer-relative page of wave @w's current access. */
static u64 kfdbed_wave_page(const struct kfdbed_waves_run *run, unsigned int w,
			    const struct kfdbed_wave *wave)
{
	const struct kfdbed_waves_args *a = run->a;

	switch (a->pattern) {
	case KFDBED_WAVES_PARTITION:
		return wave->first + wave->k % wave->len;
	case KFDBED_WAVES_GRID:
		return (wave->k * a->waves + w) % run->npages;
	case KFDBED_WAVES_STRIDE:
		return (w + wave->k * a->stride) % run->npages;
	case KFDBED_WAVES_RANDOM:
		return wave->page;
	default: /* KFDBED_WAVES_SHARED */
		return (w + wave->k) % a->stride;
	}
}

static void kfdbed_wave_init(struct kfdbed_waves_run *run, unsigned int w)
{
	const struct kfdbed_waves_args *a = run->a;
	struct kfdbed_wave *wave = &run->waves[w];
	u64 share, n;

	switch (a->pattern) {
	case KFDBED_WAVES_PARTITION:
		share = DIV_ROUND_UP(run->npages, a->waves);
		wave->first = min(run->npages, w * share);
		wave->len = min(share, run->npages - wave->first);
		n = wave->len;
		break;
	case KFDBED_WAVES_GRID:
		n = run->npages > w ? DIV_ROUND_UP(run->npages - w, a->waves) :
				      0;
		break;
	default:
		n = max_t(u64, run->npages / a->waves, 1);
		break;
	}
	if (a->accesses)
		n = a->accesses;
	if (a->pattern == KFDBED_WAVES_PARTITION && !wave->len)
		n = 0;
	wave->n = n;
	wave->rng = (a->seed ^ ((w + 1) * 0x9e3779b97f4a7c15ULL)) | 1;
	wave->page = kfdbed_xorshift(&wave->rng) % run->npages;
	wave->t.cam = -1;
	wave->t.seq = U64_MAX;
	wave->state = n ? KFDBED_WAVE_RUN : KFDBED_WAVE_DONE;
}

/* Fill @buf with the data of GPU page @page. */
static void kfdbed_wave_fill(u64 *buf, u64 page, u64 seed)
{
	u64 va = page << PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		buf[i] = kfdbed_pattern_word(va + i * sizeof(u64), seed);
}

static bool kfdbed_wave_check(const u64 *buf, u64 page, u64 seed)
{
	u64 va = page << PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		if (buf[i] != kfdbed_pattern_word(va + i * sizeof(u64), seed))
			return false;
	return true;
}

/*
 * One access to GPU page @page through the page table. Return: 1 done,
 * 0 when the page is not mapped as the access needs, or a negative errno.
 */
static int kfdbed_wave_access(struct kfdbed_cu *cu, u64 page)
{
	struct kfdbed_waves_run *run = cu->run;
	struct kfdbed_vm *kvm = run->kvm;
	bool write = run->a->flags & KFDBED_WAVES_WRITE;
	enum kfdbed_gpu_mem mem;
	u64 pte;
	int r;

	if (write)
		kfdbed_wave_fill(cu->buf, page, run->a->seed);
	spin_lock(&kvm->pt_lock);
	pte = kfdbed_vm_lookup(kvm, page);
	if ((pte & run->need) != run->need) {
		spin_unlock(&kvm->pt_lock);
		return 0;
	}
	r = kfdbed_gpu_copy_page(run->gpu, pte, cu->buf, write, &mem);
	spin_unlock(&kvm->pt_lock);
	if (r)
		return r;
	atomic64_inc(mem == KFDBED_MEM_VRAM	 ? &run->vram :
		     mem == KFDBED_MEM_PEER_VRAM ? &run->peer :
						   &run->sys);
	if ((run->a->flags & KFDBED_WAVES_VERIFY) &&
	    !kfdbed_wave_check(cu->buf, page, run->a->seed) &&
	    atomic64_inc_return(&run->mismatches) == 1) {
		spin_lock(&run->lock);
		run->a->mismatch_va = page << PAGE_SHIFT;
		spin_unlock(&run->lock);
	}
	return 1;
}

/* The wave faults on @page: raise it, or join the one in flight. */
static void kfdbed_wave_raise(struct kfdbed_waves_run *run,
			      struct kfdbed_wave *wave, u64 page, bool again)
{
	/* The IV carries the PASID of the VM the wave runs in. */
	int r = kfdbed_ih_raise_retry_fault(run->gpu, run->kvm->fpriv.vm.pasid,
					    page,
					    run->a->flags & KFDBED_WAVES_WRITE,
					    &wave->t);

	wave->waiting = !r || r == -EALREADY;
	if (!r) {
		atomic64_inc(&run->faults);
		if (again)
			atomic64_inc(&run->reraised);
	} else if (r == -EALREADY || r == -EAGAIN) {
		atomic64_inc(&run->held);
	} else if (!wave->overflowed) {
		/*
		 * Once a stall: how often a wave retries on a full CAM is the
		 * replay timing's, not the program's.
		 */
		atomic64_inc(&run->overflows);
		wave->overflowed = true;
	}
}

/*
 * Run wave @w for a burst, or replay its stalled access. Return: accesses
 * done.
 */
static unsigned int kfdbed_wave_step(struct kfdbed_cu *cu, unsigned int w)
{
	struct kfdbed_waves_run *run = cu->run;
	struct kfdbed_wave *wave = &run->waves[w];
	unsigned int done = 0;

	while (wave->k < wave->n && done < KFDBED_WAVE_BURST) {
		u64 page = run->first_page + kfdbed_wave_page(run, w, wave);
		bool again = false;
		int r, result;

		r = kfdbed_wave_access(cu, page);
		if (r < 0) {
			kfdbed_waves_fail(run, r, 0, page << PAGE_SHIFT);
			return done;
		}
		if (r) {
			if (wave->state == KFDBED_WAVE_STALLED) {
				wave->state = KFDBED_WAVE_RUN;
				wave->overflowed = false;
				atomic_dec(&run->stalled);
			}
			wave->k++;
			if (run->a->pattern == KFDBED_WAVES_RANDOM)
				wave->page = kfdbed_xorshift(&wave->rng) %
					     run->npages;
			done++;
			continue;
		}
		if (wave->state == KFDBED_WAVE_STALLED) {
			/* A replay that still misses: is its fault done? */
			if (wave->waiting) {
				if (!kfdbed_ih_fault_done(run->gpu, &wave->t,
							  &result))
					return done;
				if (result) {
					kfdbed_waves_fail(run, -EFAULT, result,
							  page << PAGE_SHIFT);
					return done;
				}
				again = true;
			}
		} else {
			wave->state = KFDBED_WAVE_STALLED;
			atomic64_inc(&run->stalls);
			kfdbed_atomic64_max(&run->max_stalled,
					    atomic_inc_return(&run->stalled));
		}
		kfdbed_wave_raise(run, wave, page, again);
		return done;
	}
	if (wave->k >= wave->n)
		wave->state = KFDBED_WAVE_DONE;
	return done;
}

static void kfdbed_cu_run(struct kfdbed_cu *cu)
{
	struct kfdbed_waves_run *run = cu->run;
	struct kfdbed_gpu *gpu = run->gpu;
	struct kfdbed_process *kp = run->kp;

	while (!atomic_read(&run->stop)) {
		int seen = atomic_read(&gpu->wave_event);
		unsigned int w, done = 0;
		bool active = false;

		/* Quiesced queues do not run. */
		if (atomic_read(&kp->queues_evicted)) {
			wait_event_timeout(kp->queues_wait,
					   !atomic_read(&kp->queues_evicted) ||
						   atomic_read(&run->stop),
					   HZ);
			continue;
		}
		for (w = cu->index;
		     w < run->a->waves && !atomic_read(&run->stop);
		     w += run->ncus) {
			if (run->waves[w].state == KFDBED_WAVE_DONE)
				continue;
			done += kfdbed_wave_step(cu, w);
			active |= run->waves[w].state != KFDBED_WAVE_DONE;
		}
		if (done) {
			atomic64_add(done, &run->done);
			kfdbed_stat_add(gpu, KFDBED_STAT_ACCESSES, done);
			WRITE_ONCE(run->last_progress, jiffies);
			cond_resched();
			continue;
		}
		if (!active)
			break;
		if (time_after(jiffies, READ_ONCE(run->last_progress) +
						KFDBED_WAVES_STUCK)) {
			kfdbed_waves_fail(run, -ETIMEDOUT, 0, 0);
			break;
		}
		if (!cu->task && fatal_signal_pending(current)) {
			kfdbed_waves_fail(run, -EINTR, 0, 0);
			break;
		}
		wait_event_timeout(gpu->wave_wq,
				   atomic_read(&gpu->wave_event) != seen ||
					   atomic_read(&run->stop),
				   1);
	}
}

static int kfdbed_cu_thread(void *data)
{
	struct kfdbed_cu *cu = data;

	kfdbed_cu_run(cu);
	/* Never returns into this module: it may be gone by then. */
	kthread_complete_and_exit(&cu->exited, 0);
}

static int kfdbed_waves_check(const struct kfdbed_waves_args *a)
{
	bool strided = a->pattern == KFDBED_WAVES_STRIDE ||
		       a->pattern == KFDBED_WAVES_SHARED;

	if (a->pattern >= KFDBED_WAVES_NR_PATTERNS ||
	    (a->flags & ~(KFDBED_WAVES_WRITE | KFDBED_WAVES_VERIFY)) ||
	    ((a->flags & KFDBED_WAVES_WRITE) &&
	     (a->flags & KFDBED_WAVES_VERIFY)) ||
	    !a->waves || a->waves > KFDBED_WAVES_MAX ||
	    a->cus > KFDBED_WAVES_MAX_CUS || strided != !!a->stride ||
	    (a->pattern == KFDBED_WAVES_SHARED &&
	     a->stride > a->size >> PAGE_SHIFT))
		return -EINVAL;
	if (!a->size || (a->va & ~PAGE_MASK) || (a->size & ~PAGE_MASK) ||
	    a->va + a->size < a->va || a->va + a->size > TASK_SIZE_MAX)
		return -EINVAL;
	/* Output fields must come in zero, as svmtune's own ioctls ask. */
	if (a->fault_error || a->done || a->faults || a->held || a->reraised ||
	    a->overflows || a->stalls || a->max_stalled || a->mismatches ||
	    a->mismatch_va || a->fault_addr || a->ns || a->vram_pages ||
	    a->sys_pages || a->peer_pages)
		return -EINVAL;
	return 0;
}

/* Start CUs 1.. as threads, run CU 0 here, wait for them all. */
static void kfdbed_waves_go(struct kfdbed_waves_run *run)
{
	unsigned int i;

	for (i = 1; i < run->ncus; i++) {
		struct kfdbed_cu *cu = &run->cus[i];

		cu->task = kthread_run(kfdbed_cu_thread, cu, "kfdbed_cu%u", i);
		if (IS_ERR(cu->task)) {
			kfdbed_waves_fail(run, PTR_ERR(cu->task), 0, 0);
			cu->task = NULL;
		}
	}
	kfdbed_cu_run(&run->cus[0]);
	for (i = 1; i < run->ncus; i++) {
		struct kfdbed_cu *cu = &run->cus[i];

		if (!cu->task)
			continue;
		while (!wait_for_completion_timeout(&cu->exited, HZ / 10))
			if (fatal_signal_pending(current))
				kfdbed_waves_fail(run, -EINTR, 0, 0);
	}
}

/**
 * kfdbed_waves() - KFDBED_IOC_WAVES
 * @a: the arguments; the out fields are filled whether it fails or not
 *
 * Return: 0 or a negative errno (struct kfdbed_waves_args says which).
 */
long kfdbed_waves(struct kfdbed_waves_args *a)
{
	struct kfd_process_device *pdd;
	struct kfdbed_waves_run *run;
	unsigned int i;
	u64 start;
	long r;

	r = kfdbed_waves_check(a);
	if (r)
		return r;
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->a = a;
	spin_lock_init(&run->lock);
	run->first_page = a->va >> PAGE_SHIFT;
	run->npages = a->size >> PAGE_SHIFT;
	run->need = AMDGPU_PTE_VALID | AMDGPU_PTE_READABLE |
		    (a->flags & KFDBED_WAVES_WRITE ? AMDGPU_PTE_WRITEABLE : 0);
	run->ncus = a->cus ?:
			     min_t(unsigned int, num_online_cpus(),
				   KFDBED_WAVES_MAX_CUS);
	run->ncus = min(run->ncus, a->waves);

	r = -ENODEV;
	run->gpu = kfdbed_gpu_by_id(a->gpu_id);
	if (!run->gpu)
		goto out_free;
	r = -ESRCH;
	run->kp = kfdbed_process_get_current();
	if (!run->kp)
		goto out_free;
	r = -ENODEV;
	pdd = kfd_get_process_device_data(run->gpu->node, &run->kp->p);
	if (!pdd)
		goto out_unref;
	run->kvm = container_of(pdd->drm_priv, struct kfdbed_vm, file);

	r = -ENOMEM;
	run->waves = kvcalloc(a->waves, sizeof(*run->waves), GFP_KERNEL);
	run->cus = kcalloc(run->ncus, sizeof(*run->cus), GFP_KERNEL);
	if (!run->waves || !run->cus)
		goto out_unref;
	for (i = 0; i < run->ncus; i++) {
		run->cus[i].run = run;
		run->cus[i].index = i;
		init_completion(&run->cus[i].exited);
		run->cus[i].buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!run->cus[i].buf)
			goto out_unref;
	}
	for (i = 0; i < a->waves; i++)
		kfdbed_wave_init(run, i);

	run->last_progress = jiffies;
	start = ktime_get_ns();
	kfdbed_waves_go(run);
	a->ns = ktime_get_ns() - start;
	r = run->err;

	a->done = atomic64_read(&run->done);
	a->faults = atomic64_read(&run->faults);
	a->held = atomic64_read(&run->held);
	a->reraised = atomic64_read(&run->reraised);
	a->overflows = atomic64_read(&run->overflows);
	a->stalls = atomic64_read(&run->stalls);
	a->max_stalled = atomic64_read(&run->max_stalled);
	a->mismatches = atomic64_read(&run->mismatches);
	a->vram_pages = atomic64_read(&run->vram);
	a->sys_pages = atomic64_read(&run->sys);
	a->peer_pages = atomic64_read(&run->peer);
out_unref:
	kfd_unref_process(&run->kp->p);
out_free:
	if (run->cus)
		for (i = 0; i < run->ncus; i++)
			kfree(run->cus[i].buf);
	kfree(run->cus);
	kvfree(run->waves);
	kfree(run);
	return r;
}
