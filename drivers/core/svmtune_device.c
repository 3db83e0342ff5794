// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the registry of devices that backends register.
 *
 * Device ids are small integers (1 to SVMTUNE_LOC_MAX_DEVICE) so they can
 * be used as memory locations in policies.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_devices_lock`` (mutex)
 *     Protects the device list: it changes only on register and
 *     unregister, and is read by ioctls, sysfs and the unpin work
 *     (svmtune_devices_unmap_remote()), never on a fault path. A backend's
 *     ``mem_info`` and ``unmap_remote`` are called under it. A device's
 *     live bit (svmtune_policy_device_live()) is set and cleared under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "svmtune_internal.h"

static LIST_HEAD(svmtune_devices);
static DEFINE_MUTEX(svmtune_devices_lock);
static DEFINE_IDA(svmtune_device_ida);

/**
 * svmtune_device_register() - make a backend's device known to the engine
 * @dev: the device; @dev->name, @dev->owner and @dev->ops set by the caller
 *
 * Return: 0 and @dev->id set, or -EINVAL, -ENOMEM, -ENOSPC (all ids in
 * use).
 */
int svmtune_device_register(struct svmtune_device *dev)
{
	int id;

	if (!dev->name || !dev->ops)
		return -EINVAL;
	dev->stats = alloc_percpu(struct svmtune_device_stats);
	if (!dev->stats)
		return -ENOMEM;
	id = ida_alloc_range(&svmtune_device_ida, 1, SVMTUNE_LOC_MAX_DEVICE, GFP_KERNEL);
	if (id < 0) {
		free_percpu(dev->stats);
		dev->stats = NULL;
		return id;
	}
	dev->id = id;
	spin_lock_init(&dev->lru_lock);
	INIT_LIST_HEAD(&dev->lru);
	mutex_lock(&svmtune_devices_lock);
	list_add_tail(&dev->node, &svmtune_devices);
	svmtune_policy_device_live(id, true);
	mutex_unlock(&svmtune_devices_lock);
	pr_info("device %u registered: %s\n", dev->id, dev->name);
	return 0;
}
EXPORT_SYMBOL_GPL(svmtune_device_register);

/**
 * svmtune_device_unregister() - forget a device
 * @dev: a registered device; the backend no longer calls the engine for it
 *
 * Every policy that names the device as preferred location goes back to
 * unset before the id can be given to another device: otherwise a range
 * tuned for a GPU that went away would follow whichever device registers
 * next with its id. The live bit is cleared first, so a policy write
 * racing with this either lands before the purge of its address space
 * (and is purged) or sees the bit clear and fails with -ENODEV.
 */
void svmtune_device_unregister(struct svmtune_device *dev)
{
	mutex_lock(&svmtune_devices_lock);
	list_del(&dev->node);
	svmtune_policy_device_live(dev->id, false);
	mutex_unlock(&svmtune_devices_lock);
	svmtune_mm_forget_device(dev->id);
	ida_free(&svmtune_device_ida, dev->id);
	pr_info("device %u unregistered: %s\n", dev->id, dev->name);
	free_percpu(dev->stats);
	dev->stats = NULL;
}
EXPORT_SYMBOL_GPL(svmtune_device_unregister);

/**
 * svmtune_devices_unmap_remote() - a thrashing pin ended: ask every device
 *	to drop its remote mappings of the pinned span
 * @mm: the address space, its users referenced
 * @start: first byte of the span
 * @end: its end
 * @counted_id: the device whose fault made the pin: its unpin counter
 *	grows by @chunks
 * @chunks: the 64 KiB chunks unpinned
 *
 * Sleeps (the backends' callbacks may); call without engine locks.
 */
void svmtune_devices_unmap_remote(struct mm_struct *mm, unsigned long start,
				  unsigned long end, u32 counted_id,
				  unsigned int chunks)
{
	struct svmtune_device *dev;

	mutex_lock(&svmtune_devices_lock);
	list_for_each_entry(dev, &svmtune_devices, node) {
		if (dev->ops->unmap_remote)
			dev->ops->unmap_remote(dev, mm, start, end);
		if (dev->id == counted_id)
			this_cpu_add(dev->stats->counters[SVMTUNE_CNT_UNPINS],
				     chunks);
	}
	mutex_unlock(&svmtune_devices_lock);
}

static struct svmtune_device *svmtune_device_lookup(u32 id)
{
	struct svmtune_device *dev;

	lockdep_assert_held(&svmtune_devices_lock);
	list_for_each_entry(dev, &svmtune_devices, node)
		if (dev->id == id)
			return dev;
	return NULL;
}

bool svmtune_device_exists(u32 id)
{
	bool found;

	mutex_lock(&svmtune_devices_lock);
	found = svmtune_device_lookup(id);
	mutex_unlock(&svmtune_devices_lock);
	return found;
}

int svmtune_device_info(u32 id, struct svmtune_device_info *info)
{
	struct svmtune_device *dev;
	u64 total = 0, free = 0;

	mutex_lock(&svmtune_devices_lock);
	dev = svmtune_device_lookup(id);
	if (!dev) {
		mutex_unlock(&svmtune_devices_lock);
		return -ENODEV;
	}
	strscpy(info->name, dev->name, sizeof(info->name));
	if (dev->ops->mem_info)
		dev->ops->mem_info(dev, &total, &free);
	mutex_unlock(&svmtune_devices_lock);
	info->mem_bytes = total;
	info->mem_free_bytes = free;
	return 0;
}

/*
 * Add a device's per-CPU statistics to @counters (SVMTUNE_NR_COUNTERS)
 * and @pages (SVMTUNE_NR_FRAGMENT_SIZES), either may be NULL. A sum read
 * while faults count may miss their last increments, never tear one: each
 * CPU's counter is a u64 written by that CPU alone.
 */
static void svmtune_device_stats_add(const struct svmtune_device *dev,
				     u64 *counters, u64 *pages)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct svmtune_device_stats *st = per_cpu_ptr(dev->stats, cpu);

		for (i = 0; counters && i < SVMTUNE_NR_COUNTERS; i++)
			counters[i] += READ_ONCE(st->counters[i]);
		for (i = 0; pages && i < SVMTUNE_NR_FRAGMENT_SIZES; i++)
			pages[i] += READ_ONCE(st->fragment_pages[i]);
	}
}

int svmtune_device_counters(u32 id, u64 *counters)
{
	struct svmtune_device *dev;

	memset(counters, 0, SVMTUNE_NR_COUNTERS * sizeof(*counters));
	mutex_lock(&svmtune_devices_lock);
	dev = svmtune_device_lookup(id);
	if (dev)
		svmtune_device_stats_add(dev, counters, NULL);
	mutex_unlock(&svmtune_devices_lock);
	return dev ? 0 : -ENODEV;
}

/* Sum of the PTE fragment histograms of all registered devices. */
void svmtune_device_fragments_sum(u64 *pages)
{
	struct svmtune_device *dev;

	memset(pages, 0, SVMTUNE_NR_FRAGMENT_SIZES * sizeof(*pages));
	mutex_lock(&svmtune_devices_lock);
	list_for_each_entry(dev, &svmtune_devices, node)
		svmtune_device_stats_add(dev, NULL, pages);
	mutex_unlock(&svmtune_devices_lock);
}

/* Sum of the counters of all registered devices. */
void svmtune_device_counters_sum(u64 *counters)
{
	struct svmtune_device *dev;

	memset(counters, 0, SVMTUNE_NR_COUNTERS * sizeof(*counters));
	mutex_lock(&svmtune_devices_lock);
	list_for_each_entry(dev, &svmtune_devices, node)
		svmtune_device_stats_add(dev, counters, NULL);
	mutex_unlock(&svmtune_devices_lock);
}

void svmtune_count(struct svmtune_device *dev, u64 *mm_counters,
		   u64 *range_counters, enum svmtune_counter c, u64 n)
{
	if (!n)
		return;
	if (dev)
		this_cpu_add(dev->stats->counters[c], n);
	if (mm_counters)
		mm_counters[c] += n;
	if (range_counters)
		range_counters[c] += n;
}
