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
 * of /dev/kfd, at KFD's SVM ioctls, and at faults and migrations (a
 * process older than svmtune_kfd). Learning happens in probe handlers,
 * which may not sleep: the node's gpu_id, memory size and amdgpu device are
 * copied into a slot of a fixed table, and a work item registers the
 * engine device. Until it has, the node's faults are KFD's alone, counted
 * in faults_on_unknown_nodes: in practice none, as a process opens
 * /dev/kfd long before its first fault.
 *
 * Forgetting. kfd_topology_remove_device() runs for each node before
 * amdgpu frees it (unload, PCI removal, a partition mode change; not a GPU
 * reset, which keeps its nodes). Its entry hook marks the slot absent and
 * clears its amdgpu device pointer, under the table lock that the engine's
 * memory query holds while it reads that device, so the query never
 * touches a freed one. An absent slot is never learned again: KFD's
 * teardown still names the dying node afterwards (evicting its VRAM), and
 * nothing tells it from a new node with the same gpu_id; such a node (a
 * partition mode switched back while attached) has its faults left to KFD
 * and counted until svmtune_kfd attaches again. The engine device stays
 * registered, with no memory, until svmtune_kfd detaches, so no probe
 * handler in flight can hold an unregistered device. Detaching
 * unregisters them all, after the hooks are gone.
 *
 * Locking: svmtune_kfd_nodes_lock (a spinlock, any context but hard IRQ)
 * serialises learning and forgetting and guards each slot's @adev and
 * @present. Lookups on the fault path take no lock: slots are only
 * appended (svmtune_kfd_nr_nodes is published with a release store after
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

/*
 * The most nodes one attach learns: the engine's own device id limit
 * (eight MI300X in CPX mode are 64 nodes). Past it, or past free engine
 * ids, a node is listed without a device and its faults are KFD's alone.
 */
#define SVMTUNE_KFD_MAX_NODES	SVMTUNE_LOC_MAX_DEVICE

/**
 * struct svmtune_kfd_node_slot - a KFD node svmtune_kfd learned
 * @gpu_id: KFD's gpu_id of the node (node->id)
 * @vram: the node's local memory in bytes, as KFD reports it to user space
 * @adev: its amdgpu device while @present; guarded by svmtune_kfd_nodes_lock
 * @present: KFD has the node; cleared under svmtune_kfd_nodes_lock, once
 * @registered: @dev is registered with the engine
 * @failed: registering @dev failed (no engine id free); not tried again
 * @name: @dev's name
 * @dev: the engine's device for the node
 */
struct svmtune_kfd_node_slot {
	u32 gpu_id;
	u64 vram;
	struct amdgpu_device *adev;
	bool present;
	bool registered;
	bool failed;
	char name[32];
	struct svmtune_device dev;
};

static struct svmtune_kfd_node_slot svmtune_kfd_nodes[SVMTUNE_KFD_MAX_NODES];
static unsigned int svmtune_kfd_nr_nodes;
static DEFINE_SPINLOCK(svmtune_kfd_nodes_lock);

static void svmtune_kfd_nodes_worker(struct work_struct *work);
static DECLARE_WORK(svmtune_kfd_nodes_work, svmtune_kfd_nodes_worker);

static const struct svmtune_device_ops svmtune_kfd_node_ops;

/* The slots learned, each filled: without the lock, any context. */
static unsigned int svmtune_kfd_nodes_published(void)
{
	/* Pairs with the release in svmtune_kfd_node_learn(). */
	return smp_load_acquire(&svmtune_kfd_nr_nodes);
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
		if (svmtune_kfd_nodes[i].gpu_id == gpu_id)
			return &svmtune_kfd_nodes[i];
	return NULL;
}

/*
 * Learn @node if it is new: KFD has it (the caller is in a KFD path that
 * uses it). Copies what the engine needs, so nothing reads @node later.
 */
static void svmtune_kfd_node_learn(const struct svmtune_kfd_node *node)
{
	struct svmtune_kfd_node_slot *kn;
	unsigned long flags;
	bool queue = false;

	spin_lock_irqsave(&svmtune_kfd_nodes_lock, flags);
	if (!svmtune_kfd_node_find(node->id) &&
	    svmtune_kfd_nr_nodes < SVMTUNE_KFD_MAX_NODES) {
		kn = &svmtune_kfd_nodes[svmtune_kfd_nr_nodes];
		memset(kn, 0, sizeof(*kn));
		kn->gpu_id = node->id;
		snprintf(kn->name, sizeof(kn->name), "amdgpu-kfd-%u", node->id);
		kn->vram = node->local_mem_info.local_mem_size_private +
			   node->local_mem_info.local_mem_size_public;
		kn->adev = node->adev;
		kn->present = true;
		/* Lookups without the lock see the slot filled. */
		smp_store_release(&svmtune_kfd_nr_nodes, svmtune_kfd_nr_nodes + 1);
		queue = true;
	}
	spin_unlock_irqrestore(&svmtune_kfd_nodes_lock, flags);
	if (queue)
		queue_work(system_wq, &svmtune_kfd_nodes_work);
}

/**
 * svmtune_kfd_node_device() - the engine's device for a KFD node
 * @node: a node the caller's KFD path is using, or NULL
 *
 * Learns the node if it is new. Any context but hard IRQ.
 *
 * Return: the registered engine device, or NULL (no node, a node removed,
 * or one whose device is not registered yet: the caller leaves the fault
 * or migration to KFD).
 */
struct svmtune_device *svmtune_kfd_node_device(const struct svmtune_kfd_node *node)
{
	struct svmtune_kfd_node_slot *kn;

	if (!node)
		return NULL;
	kn = svmtune_kfd_node_find(node->id);
	if (!kn) {
		svmtune_kfd_node_learn(node);
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
 * Used where amdgpu names only the device (its page-table tracepoint): the
 * first node learned on it, the GPU itself unless it is partitioned.
 *
 * Return: the device, or NULL.
 */
struct svmtune_device *svmtune_kfd_node_device_by_adev(const struct amdgpu_device *adev)
{
	struct svmtune_device *dev = NULL;
	unsigned int i, n = svmtune_kfd_nodes_published();

	for (i = 0; i < n && !dev; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd_nodes[i];

		if (READ_ONCE(kn->adev) == adev && svmtune_kfd_node_registered(kn))
			dev = &kn->dev;
	}
	return dev;
}

/**
 * svmtune_kfd_node_gone() - KFD is about to free a node
 * @node: the node, still valid
 *
 * From the entry of kfd_topology_remove_device(). Its engine device stays
 * (see the file comment), without memory.
 */
void svmtune_kfd_node_gone(const struct svmtune_kfd_node *node)
{
	struct svmtune_kfd_node_slot *kn;
	unsigned long flags;

	spin_lock_irqsave(&svmtune_kfd_nodes_lock, flags);
	kn = svmtune_kfd_node_find(node->id);
	if (kn) {
		WRITE_ONCE(kn->present, false);
		WRITE_ONCE(kn->adev, NULL);
	}
	spin_unlock_irqrestore(&svmtune_kfd_nodes_lock, flags);
}

/*
 * The engine's memory query. Total is the node's local memory. Free is
 * that less what amdgpu's TTM VRAM manager has in use on the whole GPU,
 * all users (graphics, KFD's BOs, SVM ranges' VRAM, page tables): the
 * manager counts per GPU, not per partition, so on a partitioned GPU the
 * other partitions' use counts too, and free is a lower bound there.
 */
static void svmtune_kfd_node_mem_info(struct svmtune_device *dev, u64 *total,
				      u64 *free)
{
	struct svmtune_kfd_node_slot *kn = container_of(dev, struct svmtune_kfd_node_slot, dev);
	unsigned long flags;
	u64 gpu_vram, used;

	*total = 0;
	*free = 0;
	spin_lock_irqsave(&svmtune_kfd_nodes_lock, flags);
	if (kn->present && kn->adev) {
		gpu_vram = kn->adev->gmc.real_vram_size;
		used = ttm_resource_manager_usage(&kn->adev->mman.vram_mgr.manager);
		*total = kn->vram;
		*free = min(kn->vram, gpu_vram > used ? gpu_vram - used : 0);
	}
	spin_unlock_irqrestore(&svmtune_kfd_nodes_lock, flags);
}

static const struct svmtune_device_ops svmtune_kfd_node_ops = {
	.mem_info = svmtune_kfd_node_mem_info,
};

/* Register the engine devices of nodes learned since the last pass. */
static void svmtune_kfd_nodes_worker(struct work_struct *work)
{
	unsigned int i, n = svmtune_kfd_nodes_published();
	int ret;

	for (i = 0; i < n; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd_nodes[i];

		if (kn->registered || kn->failed)
			continue;
		kn->dev.name = kn->name;
		kn->dev.owner = THIS_MODULE;
		kn->dev.ops = &svmtune_kfd_node_ops;
		ret = svmtune_device_register(&kn->dev);
		if (ret) {
			kn->failed = true;
			pr_warn("KFD node gpu_id %u gets no engine device (error %d): its faults are KFD's alone\n",
				kn->gpu_id, ret);
			continue;
		}
		/* Lookups without the lock see the device registered. */
		smp_store_release(&kn->registered, true);
		pr_info("KFD node gpu_id %u is svmtune device %u, %llu MiB\n",
			kn->gpu_id, kn->dev.id, kn->vram >> 20);
	}
}

/**
 * svmtune_kfd_nodes_reset() - forget every node
 *
 * At detach, once no hook runs: unregisters every engine device.
 */
void svmtune_kfd_nodes_reset(void)
{
	unsigned int i;

	cancel_work_sync(&svmtune_kfd_nodes_work);
	for (i = 0; i < svmtune_kfd_nr_nodes; i++)
		if (svmtune_kfd_nodes[i].registered)
			svmtune_device_unregister(&svmtune_kfd_nodes[i].dev);
	memset(svmtune_kfd_nodes, 0, sizeof(svmtune_kfd_nodes));
	WRITE_ONCE(svmtune_kfd_nr_nodes, 0);
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
 * svmtune_kfd_nodes_show() - the nodes file: one line per node learned
 * @buf: the sysfs page
 *
 * "gpu_id <id> device <engine id>|none vram <bytes> present yes|no"
 *
 * Return: bytes written.
 */
ssize_t svmtune_kfd_nodes_show(char *buf)
{
	unsigned int i, n = svmtune_kfd_nodes_published();
	ssize_t len = 0;

	for (i = 0; i < n; i++) {
		struct svmtune_kfd_node_slot *kn = &svmtune_kfd_nodes[i];
		char id[16] = "none";

		if (svmtune_kfd_node_registered(kn))
			snprintf(id, sizeof(id), "%u", kn->dev.id);
		len += sysfs_emit_at(buf, len, "gpu_id %u device %s vram %llu present %s\n",
				     kn->gpu_id, id, (unsigned long long)kn->vram,
				     READ_ONCE(kn->present) ? "yes" : "no");
	}
	return len;
}
