// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: one engine device per KFD node.
 *
 * A KFD node is a GPU, or one compute partition of a partitioned GPU (an
 * MI300X in CPX mode is eight). KFD names each by its gpu_id (the
 * topology's nodes/<n>/gpu_id, what ROCm's tools show), gives each its own
 * local memory, and every fault and migration is on one of them. Each
 * node is a device of its own to the engine, "amdgpu-kfd-<gpu_id>", with
 * its own counters, eviction LRU, memory and device id for policies
 * (preferred location).
 *
 * Learning the nodes. amdgpu makes its nodes while it loads (its PCI
 * probes run in its module init), before the module notifier lets
 * svmtune_kfd attach, and KFD's topology list is private to amdgpu:
 * nothing svmtune_kfd may read or call lists it. Every KFD process carries
 * the nodes it may use, though (p->pdds[], complete before
 * svm_range_list_init() runs), and every fault and migration names one.
 * So svmtune_kfd learns a node from the processes that use it: at the open
 * of /dev/kfd, at KFD's SVM ioctls (6.12), and at faults and migrations (a
 * process older than svmtune_kfd). Learning happens in probe handlers,
 * which may not sleep: the node's gpu_id, memory size and amdgpu device are
 * copied into a slot of a fixed table (svmtune_kfd_compat.h makes the
 * copy), and a work item registers the engine device. Until it has, the
 * node's faults are KFD's alone, counted in faults_on_unknown_nodes: in
 * practice none, as a process opens /dev/kfd long before its first fault.
 * A node amdgpu adds while svmtune_kfd is attached (a partition mode
 * change, a GPU hot-added or rebound) is learned at the return of
 * kfd_topology_add_device().
 *
 * Forgetting. kfd_topology_remove_device() runs for each node before
 * amdgpu frees it (unload, PCI removal, a partition mode change; not a GPU
 * reset, which keeps its nodes). Its entry hook marks the slot absent and
 * clears its amdgpu device pointer, under the table lock that the engine's
 * memory query holds while it reads that device, so the query never
 * touches a freed one; a node removed before it was learned gets an absent
 * slot all the same. An absent slot is not brought back by processes
 * (KFD's teardown still names a node it removed, evicting its VRAM), only
 * by kfd_topology_add_device() of a node with its gpu_id: KFD's gpu_id is
 * a hash of the GPU's identity, so the same GPU or partition comes back
 * with its old slot, engine device and id, and the policies naming it
 * hold. The engine device of an absent node stays registered, without
 * memory, until svmtune_kfd detaches, so no probe handler in flight can
 * hold an unregistered device; detaching unregisters them all, after the
 * hooks are gone. So every gpu_id seen since the attach keeps an engine id:
 * partition modes switched back and forth across eight GPUs can use up the
 * engine's 64, and a node past them gets no device (its faults are KFD's).
 *
 * Locking: svmtune_kfd.nodes_lock (a spinlock, any context but hard IRQ)
 * serialises learning and forgetting and guards each slot's @adev, @vram
 * and @present, and svmtune_kfd.nodes_frozen. Lookups on the fault path take no lock: slots are only
 * appended (svmtune_kfd.nr_nodes is published with a release store after
 * the slot is filled), a slot's gpu_id never changes while attached, and
 * its device is used only once @registered is set (release, after
 * svmtune_device_register() returned). The worker registers with no lock
 * held (svmtune_device_register() sleeps); svmtune_kfd_nodes_reset()
 * runs once no hook can queue it any more.
 */
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <drm/ttm/ttm_resource.h>

#include "svmtune_kfd_compat.h"
#include "svmtune_kfd.h"

/**
 * DOC: Locking
 *
 * ``svmtune_kfd.nodes_lock`` (spinlock, IRQ-safe)
 *     Protects the table of KFD nodes learned (``svmtune_kfd.nodes``,
 *     ``svmtune_kfd.nodes_frozen``, the writes of
 *     ``svmtune_kfd.nr_nodes``, which lookups read without it, with
 *     acquire) and their engine devices' memory figures. Innermost.
 */

static const struct svmtune_device_ops svmtune_kfd_node_ops;

/* The slots learned, each filled: without the lock, any context. */
static unsigned int svmtune_kfd_nodes_published(void)
{
	/* Pairs with the release in svmtune_kfd_node_slot_new(). */
	return smp_load_acquire(&svmtune_kfd.nr_nodes);
}

/* Whether @kn's engine device is registered: without the lock. */
static bool svmtune_kfd_node_registered(const struct svmtune_kfd_node_slot *kn)
{
	/* Pairs with the release in svmtune_kfd_nodes_worker(). */
	return smp_load_acquire(&kn->registered);
}

/* The slot of @gpu_id, or NULL. Any context. */
static struct svmtune_kfd_node_slot *svmtune_kfd_node_find(u32 gpu_id)
{
	unsigned int i, n = svmtune_kfd_nodes_published();

	for (i = 0; i < n; i++)
		if (svmtune_kfd.nodes[i].info.gpu_id == gpu_id)
			return &svmtune_kfd.nodes[i];
	return NULL;
}

/*
 * A new slot for @info, present or not, or NULL if the table is full or
 * svmtune_kfd is detaching. svmtune_kfd.nodes_lock held.
 */
static struct svmtune_kfd_node_slot *
svmtune_kfd_node_slot_new(const struct svmtune_kfd_node_info *info, bool present)
{
	struct svmtune_kfd_node_slot *kn;

	lockdep_assert_held(&svmtune_kfd.nodes_lock);
	if (svmtune_kfd.nodes_frozen || svmtune_kfd.nr_nodes == SVMTUNE_KFD_MAX_NODES)
		return NULL;
	kn = &svmtune_kfd.nodes[svmtune_kfd.nr_nodes];
	kn->info = *info;
	if (!present)
		kn->info.adev = NULL;
	kn->present = present;
	snprintf(kn->name, sizeof(kn->name), "amdgpu-kfd-%u", info->gpu_id);
	/* Lookups without the lock see the slot filled. */
	smp_store_release(&svmtune_kfd.nr_nodes, svmtune_kfd.nr_nodes + 1);
	return kn;
}

/*
 * Learn the node of @info if it is new: KFD has it (the caller is in a
 * KFD path that uses it). An absent node is not brought back here.
 */
static void svmtune_kfd_node_learn(const struct svmtune_kfd_node_info *info)
{
	unsigned long flags;
	bool queue = false;

	spin_lock_irqsave(&svmtune_kfd.nodes_lock, flags);
	if (!svmtune_kfd_node_find(info->gpu_id))
		queue = svmtune_kfd_node_slot_new(info, true) != NULL;
	spin_unlock_irqrestore(&svmtune_kfd.nodes_lock, flags);
	if (queue)
		queue_work(system_wq, &svmtune_kfd.nodes_work);
}

/**
 * svmtune_kfd_node_device() - the engine's device for a KFD node
 * @info: a node the caller's KFD path is using
 *
 * Learns the node if it is new. Any context but hard IRQ.
 *
 * Return: the registered engine device, or NULL (a node absent, or one
 * whose device is not registered: the caller leaves the fault or
 * migration to KFD).
 */
struct svmtune_device *svmtune_kfd_node_device(const struct svmtune_kfd_node_info *info)
{
	struct svmtune_kfd_node_slot *kn = svmtune_kfd_node_find(info->gpu_id);

	if (!kn) {
		svmtune_kfd_node_learn(info);
		return NULL;
	}
	if (!READ_ONCE(kn->present))
		return NULL;
	return svmtune_kfd_node_registered(kn) ? &kn->dev : NULL;
}

/**
 * svmtune_kfd_node_device_by_adev() - an engine device of an amdgpu device
 * @adev: the amdgpu device
 *
 * Used where amdgpu names only the device (its page-table tracepoint).
 *
 * Return: the device of the first present, registered node learned on
 * @adev (the GPU itself unless it is partitioned), or NULL.
 */
struct svmtune_device *svmtune_kfd_node_device_by_adev(const struct amdgpu_device *adev)
{
	unsigned int i, n = svmtune_kfd_nodes_published();

	for (i = 0; i < n; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd.nodes[i];

		if (READ_ONCE(kn->info.adev) == adev && READ_ONCE(kn->present) &&
		    svmtune_kfd_node_registered(kn))
			return &kn->dev;
	}
	return NULL;
}

/**
 * svmtune_kfd_node_pgmap() - whether device-private memory is KFD's
 * @pgmap: the memory's dev_pagemap
 *
 * Return: true if @pgmap is the VRAM pagemap (svmtune_kfd_vram_pgmap()) of the
 * amdgpu device of a node learned. Never sleeps.
 */
bool svmtune_kfd_node_pgmap(const struct dev_pagemap *pgmap)
{
	unsigned int i, n = svmtune_kfd_nodes_published();

	for (i = 0; i < n; i++) {
		struct amdgpu_device *adev = READ_ONCE(svmtune_kfd.nodes[i].info.adev);

		if (adev && svmtune_kfd_vram_pgmap(adev) == pgmap)
			return true;
	}
	return false;
}

/**
 * svmtune_kfd_node_added() - amdgpu added a KFD node
 * @info: the node, from the return of kfd_topology_add_device()
 *
 * A new gpu_id gets a slot; one seen before (the same GPU or partition
 * back) gets its slot, and its engine device, again.
 */
void svmtune_kfd_node_added(const struct svmtune_kfd_node_info *info)
{
	struct svmtune_kfd_node_slot *kn;
	unsigned long flags;
	bool queue = false;

	spin_lock_irqsave(&svmtune_kfd.nodes_lock, flags);
	kn = svmtune_kfd_node_find(info->gpu_id);
	if (!kn) {
		queue = svmtune_kfd_node_slot_new(info, true) != NULL;
	} else if (!svmtune_kfd.nodes_frozen) {
		WRITE_ONCE(kn->info.vram, info->vram);
		kn->info.apu = info->apu;
		WRITE_ONCE(kn->info.adev, info->adev);
		WRITE_ONCE(kn->present, true);
		queue = !kn->registered;	/* removed before it was learned */
	}
	spin_unlock_irqrestore(&svmtune_kfd.nodes_lock, flags);
	if (queue)
		queue_work(system_wq, &svmtune_kfd.nodes_work);
}

/**
 * svmtune_kfd_node_gone() - KFD is about to free a node
 * @info: the node, from the entry of kfd_topology_remove_device()
 *
 * Its engine device stays (see the file comment), without memory. A node
 * not learned yet gets an absent slot, so that nothing learns it again
 * from KFD's teardown.
 */
void svmtune_kfd_node_gone(const struct svmtune_kfd_node_info *info)
{
	struct svmtune_kfd_node_slot *kn;
	unsigned long flags;

	spin_lock_irqsave(&svmtune_kfd.nodes_lock, flags);
	kn = svmtune_kfd_node_find(info->gpu_id);
	if (kn) {
		WRITE_ONCE(kn->present, false);
		WRITE_ONCE(kn->info.adev, NULL);
	} else {
		svmtune_kfd_node_slot_new(info, false);
	}
	spin_unlock_irqrestore(&svmtune_kfd.nodes_lock, flags);
}

/*
 * The engine's memory query; called under the engine's device registry
 * mutex. Total is the node's local memory. Free is that less what
 * amdgpu's TTM VRAM manager has in use on the whole GPU, all users
 * (graphics, KFD's BOs, SVM ranges' VRAM, page tables), capped at the
 * node's size: exact for a GPU that is not partitioned; on a partitioned
 * one the manager cannot say which partition's memory is in use, so this
 * is an upper bound (the other partitions' free memory counts too). An
 * APU's local memory is system memory, which the VRAM manager does not
 * hold: its free memory is not known and reads 0.
 */
static void svmtune_kfd_node_mem_info(struct svmtune_device *dev, u64 *total,
				      u64 *free)
{
	struct svmtune_kfd_node_slot *kn = container_of(dev, struct svmtune_kfd_node_slot, dev);
	struct amdgpu_device *adev;
	unsigned long flags;
	u64 gpu_vram, used;

	*total = 0;
	*free = 0;
	spin_lock_irqsave(&svmtune_kfd.nodes_lock, flags);
	adev = kn->info.adev;
	if (kn->present && adev) {
		*total = kn->info.vram;
		if (!kn->info.apu) {
			gpu_vram = adev->gmc.real_vram_size;
			used = ttm_resource_manager_usage(&adev->mman.vram_mgr.manager);
			*free = min(kn->info.vram, gpu_vram > used ? gpu_vram - used : 0);
		}
	}
	spin_unlock_irqrestore(&svmtune_kfd.nodes_lock, flags);
}

static const struct svmtune_device_ops svmtune_kfd_node_ops = {
	.mem_info = svmtune_kfd_node_mem_info,
};

/* Register the engine devices of present nodes that have none yet. */
void svmtune_kfd_nodes_worker(struct work_struct *work)
{
	unsigned int i, n = svmtune_kfd_nodes_published();
	int ret;

	for (i = 0; i < n; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd.nodes[i];

		if (kn->registered || kn->failed || !READ_ONCE(kn->present))
			continue;
		kn->dev.name = kn->name;
		kn->dev.owner = THIS_MODULE;
		kn->dev.ops = &svmtune_kfd_node_ops;
		ret = svmtune_device_register(&kn->dev);
		if (ret) {
			kn->failed = true;
			pr_warn("KFD node gpu_id %u gets no engine device (error %d): its faults are KFD's alone\n",
				kn->info.gpu_id, ret);
			continue;
		}
		/* Lookups without the lock see the device registered. */
		smp_store_release(&kn->registered, true);
		pr_info("KFD node gpu_id %u is svmtune device %u, %llu MiB\n",
			kn->info.gpu_id, kn->dev.id, kn->info.vram >> 20);
	}
}

/**
 * svmtune_kfd_nodes_freeze() - detaching: learn nothing more
 *
 * From the start of the detach, while hooks still run: nodes are learned,
 * added and removed no more, and every node reads absent, so no node
 * removed while the remove hook is gone can keep its amdgpu device.
 */
void svmtune_kfd_nodes_freeze(void)
{
	unsigned int i;

	spin_lock_irq(&svmtune_kfd.nodes_lock);
	svmtune_kfd.nodes_frozen = true;
	for (i = 0; i < svmtune_kfd.nr_nodes; i++) {
		WRITE_ONCE(svmtune_kfd.nodes[i].present, false);
		WRITE_ONCE(svmtune_kfd.nodes[i].info.adev, NULL);
	}
	spin_unlock_irq(&svmtune_kfd.nodes_lock);
}

/**
 * svmtune_kfd_nodes_reset() - forget every node
 *
 * At detach, once no hook runs: unregisters every engine device.
 */
void svmtune_kfd_nodes_reset(void)
{
	unsigned int i;

	cancel_work_sync(&svmtune_kfd.nodes_work);
	for (i = 0; i < svmtune_kfd.nr_nodes; i++)
		if (svmtune_kfd.nodes[i].registered)
			svmtune_device_unregister(&svmtune_kfd.nodes[i].dev);
	memset(svmtune_kfd.nodes, 0, sizeof(svmtune_kfd.nodes));
	WRITE_ONCE(svmtune_kfd.nr_nodes, 0);
	WRITE_ONCE(svmtune_kfd.nodes_frozen, false);
}

/**
 * svmtune_kfd_nodes_count() - nodes learned since attach
 *
 * Return: their number.
 */
unsigned int svmtune_kfd_nodes_count(void)
{
	return svmtune_kfd_nodes_published();
}

/**
 * svmtune_kfd_nodes_apu() - APU nodes learned since attach
 *
 * Return: their number.
 */
unsigned int svmtune_kfd_nodes_apu(void)
{
	unsigned int i, n = svmtune_kfd_nodes_published(), apu = 0;

	for (i = 0; i < n; i++)
		apu += READ_ONCE(svmtune_kfd.nodes[i].info.apu);
	return apu;
}

/**
 * svmtune_kfd_nodes_show() - the nodes file: one line per node learned
 * @buf: the sysfs page
 *
 * "gpu_id <id> device <engine id>|none vram <bytes> present yes|no
 * gpu_fault_decisions yes|no": an APU's (MI300A) are "no": KFD keeps SVM
 * pages in system memory for it (svm_range_best_restore_location() gives
 * 0), so its GPU faults never reach a migration the engine decides.
 *
 * Return: bytes written.
 */
ssize_t svmtune_kfd_nodes_show(char *buf)
{
	unsigned int i, n = svmtune_kfd_nodes_published();
	ssize_t len = 0;

	for (i = 0; i < n; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd.nodes[i];
		char id[16] = "none";

		if (svmtune_kfd_node_registered(kn))
			snprintf(id, sizeof(id), "%u", kn->dev.id);
		len += sysfs_emit_at(buf, len,
				     "gpu_id %u device %s vram %llu present %s gpu_fault_decisions %s\n",
				     kn->info.gpu_id, id,
				     (unsigned long long)READ_ONCE(kn->info.vram),
				     READ_ONCE(kn->present) ? "yes" : "no",
				     READ_ONCE(kn->info.apu) ? "no" : "yes");
	}
	return len;
}
