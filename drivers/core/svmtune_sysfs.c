// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the /sys/kernel/svmtune/ directory.
 *
 * Every file is documented in Documentation/ABI/testing/sysfs-kernel-svmtune.
 * Knobs are writable by root only (0644, and the store checks
 * CAP_SYS_ADMIN); no file is ever writable by group or others. A rejected
 * write changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/sysfs.h>

#include "svmtune_internal.h"

static struct kobject *svmtune_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", SVMTUNE_VERSION_STRING);
}
static struct kobj_attribute version_attr = __ATTR_RO(version);

/*
 * What every knob's store checks before parsing: the writer has
 * CAP_SYS_ADMIN (the file mode alone does not stop a root process without
 * it), and no NUL byte was written (sysfs hands over the bytes with a NUL
 * after them: one inside would silently cut the value short).
 */
static int svmtune_knob_write_ok(const char *buf, size_t count)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (memchr(buf, '\0', count))
		return -EINVAL;
	return 0;
}

static ssize_t svmtune_emit_shift(char *buf, unsigned int shift)
{
	static const char suffix[] = { 'K', 'M', 'G' };

	return sysfs_emit(buf, "%lu%c\n", 1UL << (shift % 10), suffix[shift / 10 - 1]);
}

static ssize_t adaptive_min_granularity_show(struct kobject *kobj,
					     struct kobj_attribute *attr,
					     char *buf)
{
	return svmtune_emit_shift(buf, READ_ONCE(svmtune_params.adaptive_min));
}

static ssize_t adaptive_max_granularity_show(struct kobject *kobj,
					     struct kobj_attribute *attr,
					     char *buf)
{
	return svmtune_emit_shift(buf, READ_ONCE(svmtune_params.adaptive_max));
}

/* The adaptive bounds must keep min <= max: both change under one lock. */
static ssize_t svmtune_store_adaptive_bound(const char *buf, size_t count,
					    bool is_min)
{
	unsigned int shift;
	int ret;

	ret = svmtune_knob_write_ok(buf, count);
	if (ret)
		return ret;
	ret = svmtune_parse_size_shift(buf, &shift);
	if (ret)
		return ret;
	mutex_lock(&svmtune_knob_lock);
	if (is_min ? shift > svmtune_params.adaptive_max :
		     shift < svmtune_params.adaptive_min)
		ret = -EINVAL;
	else if (is_min)
		svmtune_param_set(&svmtune_params.adaptive_min, shift);
	else
		svmtune_param_set(&svmtune_params.adaptive_max, shift);
	mutex_unlock(&svmtune_knob_lock);
	return ret ?: count;
}

static ssize_t adaptive_min_granularity_store(struct kobject *kobj,
					      struct kobj_attribute *attr,
					      const char *buf, size_t count)
{
	return svmtune_store_adaptive_bound(buf, count, true);
}

static ssize_t adaptive_max_granularity_store(struct kobject *kobj,
					      struct kobj_attribute *attr,
					      const char *buf, size_t count)
{
	return svmtune_store_adaptive_bound(buf, count, false);
}
static struct kobj_attribute adaptive_min_granularity_attr =
	__ATTR_RW_MODE(adaptive_min_granularity, 0644);
static struct kobj_attribute adaptive_max_granularity_attr =
	__ATTR_RW_MODE(adaptive_max_granularity, 0644);

static ssize_t policy_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(svmtune_params.adaptive) ? "adaptive" : "fixed");
}

static ssize_t policy_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	bool adaptive;
	int ret;

	ret = svmtune_knob_write_ok(buf, count);
	if (ret)
		return ret;
	if (sysfs_streq(buf, "fixed"))
		adaptive = false;
	else if (sysfs_streq(buf, "adaptive"))
		adaptive = true;
	else
		return -EINVAL;
	mutex_lock(&svmtune_knob_lock);
	svmtune_param_set_bool(&svmtune_params.adaptive, adaptive);
	mutex_unlock(&svmtune_knob_lock);
	return count;
}
static struct kobj_attribute policy_attr = __ATTR_RW_MODE(policy, 0644);

static const char * const svmtune_thrashing_names[] = {
	[SVMTUNE_THRASHING_OFF] = "off",
	[SVMTUNE_THRASHING_DETECT] = "detect",
	[SVMTUNE_THRASHING_REMOTE] = "remote",
	[SVMTUNE_THRASHING_THROTTLE] = "throttle",
};

static ssize_t thrashing_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%s\n", svmtune_thrashing_names[READ_ONCE(svmtune_params.thrashing)]);
}

static ssize_t thrashing_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	int mode, ret;

	ret = svmtune_knob_write_ok(buf, count);
	if (ret)
		return ret;
	mode = sysfs_match_string(svmtune_thrashing_names, buf);
	if (mode < 0)
		return -EINVAL;
	mutex_lock(&svmtune_knob_lock);
	svmtune_param_set(&svmtune_params.thrashing, mode);
	mutex_unlock(&svmtune_knob_lock);
	return count;
}
static struct kobj_attribute thrashing_attr = __ATTR_RW_MODE(thrashing, 0644);

/**
 * struct svmtune_uint_knob - a sysfs knob holding an unsigned number
 * @attr: the sysfs attribute
 * @val: the field of svmtune_params it sets
 * @min: smallest value accepted
 * @max: largest value accepted
 */
struct svmtune_uint_knob {
	struct kobj_attribute attr;
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static ssize_t svmtune_uint_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct svmtune_uint_knob *knob = container_of(attr, struct svmtune_uint_knob, attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob->val));
}

/* A decimal number, optional newline, within the knob's bounds, or EINVAL. */
static ssize_t svmtune_uint_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct svmtune_uint_knob *knob = container_of(attr, struct svmtune_uint_knob, attr);
	unsigned int val;
	int ret;

	ret = svmtune_knob_write_ok(buf, count);
	if (ret)
		return ret;
	if (svmtune_parse_uint(buf, knob->min, knob->max, &val))
		return -EINVAL;
	mutex_lock(&svmtune_knob_lock);
	svmtune_param_set(knob->val, val);
	mutex_unlock(&svmtune_knob_lock);
	return count;
}

#define SVMTUNE_UINT_KNOB(_name, _var, _min, _max)				\
	static struct svmtune_uint_knob _name##_knob = {			\
		.attr = __ATTR(_name, 0644, svmtune_uint_show, svmtune_uint_store), \
		.val = &(_var),							\
		.min = (_min),							\
		.max = (_max),							\
	}

SVMTUNE_UINT_KNOB(thrashing_threshold, svmtune_params.thrashing_threshold, 1, 255);
SVMTUNE_UINT_KNOB(thrashing_lapse_us, svmtune_params.thrashing_lapse_us, 1, USEC_PER_SEC);
SVMTUNE_UINT_KNOB(thrashing_pin_ms, svmtune_params.thrashing_pin_ms, 1, 60 * MSEC_PER_SEC);
/* A throttled fault sleeps with mmap_lock held for reading: at most 100 ms. */
SVMTUNE_UINT_KNOB(thrashing_throttle_us, svmtune_params.thrashing_throttle_us, 1, 100 * USEC_PER_MSEC);
SVMTUNE_UINT_KNOB(thrashing_pin_threshold, svmtune_params.thrashing_pin_threshold, 0, 255);
SVMTUNE_UINT_KNOB(prefetch_threshold, svmtune_params.prefetch_threshold, 0, 100);
SVMTUNE_UINT_KNOB(evict_when_full, svmtune_params.evict_when_full, 0, 1);
SVMTUNE_UINT_KNOB(fragment_auto, svmtune_params.fragment_auto, 0, 1);

/*
 * A power-of-two size knob ("64K", "2M"), kept as log2 bytes within the
 * bounds: a struct svmtune_uint_knob with its own show and store.
 */
static ssize_t svmtune_size_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct svmtune_uint_knob *knob = container_of(attr, struct svmtune_uint_knob, attr);

	return svmtune_emit_shift(buf, READ_ONCE(*knob->val));
}

static ssize_t svmtune_size_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct svmtune_uint_knob *knob = container_of(attr, struct svmtune_uint_knob, attr);
	unsigned int shift;
	int ret;

	ret = svmtune_knob_write_ok(buf, count);
	if (ret)
		return ret;
	ret = svmtune_parse_size_shift(buf, &shift);
	if (ret)
		return ret;
	if (shift < knob->min || shift > knob->max)
		return -EINVAL;
	mutex_lock(&svmtune_knob_lock);
	svmtune_param_set(knob->val, shift);
	mutex_unlock(&svmtune_knob_lock);
	return count;
}

#define SVMTUNE_SIZE_KNOB(_name, _var, _min, _max)				\
	static struct svmtune_uint_knob _name##_knob = {			\
		.attr = __ATTR(_name, 0644, svmtune_size_show, svmtune_size_store), \
		.val = &(_var),							\
		.min = (_min),							\
		.max = (_max),							\
	}

SVMTUNE_SIZE_KNOB(granularity, svmtune_params.granularity, SVMTUNE_GRANULARITY_MIN,
		  SVMTUNE_GRANULARITY_MAX);
SVMTUNE_SIZE_KNOB(fragment_size, svmtune_params.fragment_size, SVMTUNE_FRAGMENT_MIN,
		  SVMTUNE_FRAGMENT_MAX);
SVMTUNE_SIZE_KNOB(fragment_cap, svmtune_params.fragment_cap, SVMTUNE_FRAGMENT_MIN,
		  SVMTUNE_GRANULARITY_MAX);

/* Pages mapped per PTE fragment size, all devices: "<KiB>K <pages>" lines. */
static ssize_t pte_fragments_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	u64 pages[SVMTUNE_NR_FRAGMENT_SIZES];
	int i, len = 0;

	svmtune_device_fragments_sum(pages);
	for (i = 0; i < SVMTUNE_NR_FRAGMENT_SIZES; i++)
		len += sysfs_emit_at(buf, len, "%lluK %llu\n",
				     4ULL << i, pages[i]);
	return len;
}
static struct kobj_attribute pte_fragments_attr = __ATTR_RO(pte_fragments);

static ssize_t blocks_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%lu\n", svmtune_block_count());
}
static struct kobj_attribute blocks_attr = __ATTR_RO(blocks);

static ssize_t block_bytes_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%zu\n", sizeof(struct svmtune_block));
}
static struct kobj_attribute block_bytes_attr = __ATTR_RO(block_bytes);

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	u64 counters[SVMTUNE_NR_COUNTERS];
	struct svmtune_mitigations m;
	struct svmtune_counters c;

	svmtune_device_counters_sum(counters);
	svmtune_counters_to_user(counters, &c, &m);
	return sysfs_emit(buf,
			  "gpu_faults %llu\ncpu_faults %llu\n"
			  "pages_to_device %llu\npages_to_system %llu\n"
			  "bytes_to_device %llu\nbytes_to_system %llu\n"
			  "remote_pages %llu\nwaste_pages %llu\n"
			  "fallback_pages %llu\nwindow_pages %llu\n"
			  "thrashing_events %llu\nthrashing_detected %llu\n"
			  "prefetch_pages %llu\nprefetch_used %llu\n"
			  "tlb_hits %llu\ntlb_misses %llu\n"
			  "thrashing_throttles %llu\nthrashing_pins %llu\n"
			  "thrashing_unpins %llu\nevicted_pages %llu\n",
			  c.gpu_faults, c.cpu_faults, c.pages_to_device,
			  c.pages_to_system, c.bytes_to_device, c.bytes_to_system,
			  c.remote_pages, c.waste_pages, c.fallback_pages,
			  c.window_pages, c.thrashing_events, c.thrashing_detected,
			  c.prefetch_pages, c.prefetch_used, c.tlb_hits,
			  c.tlb_misses, m.thrashing_throttles, m.thrashing_pins,
			  m.thrashing_unpins, m.evicted_pages);
}
static struct kobj_attribute stats_attr = __ATTR_RO(stats);

static struct attribute *svmtune_attrs[] = {
	&version_attr.attr,
	&granularity_knob.attr.attr,
	&policy_attr.attr,
	&adaptive_min_granularity_attr.attr,
	&adaptive_max_granularity_attr.attr,
	&thrashing_attr.attr,
	&thrashing_threshold_knob.attr.attr,
	&thrashing_lapse_us_knob.attr.attr,
	&thrashing_pin_ms_knob.attr.attr,
	&thrashing_throttle_us_knob.attr.attr,
	&thrashing_pin_threshold_knob.attr.attr,
	&prefetch_threshold_knob.attr.attr,
	&evict_when_full_knob.attr.attr,
	&fragment_auto_knob.attr.attr,
	&fragment_size_knob.attr.attr,
	&fragment_cap_knob.attr.attr,
	&blocks_attr.attr,
	&pte_fragments_attr.attr,
	&block_bytes_attr.attr,
	&stats_attr.attr,
	NULL,
};

static const struct attribute_group svmtune_attr_group = {
	.attrs = svmtune_attrs,
};

/**
 * svmtune_sysfs_dir() - the /sys/kernel/svmtune directory
 *
 * A backend may add a directory of its own under it (svmtune_kfd adds
 * kfd/) and must remove it before it unloads; svmtune.ko cannot unload
 * while a backend that uses its symbols is loaded.
 *
 * Return: the kobject, valid while svmtune.ko is loaded.
 */
struct kobject *svmtune_sysfs_dir(void)
{
	return svmtune_kobj;
}
EXPORT_SYMBOL_GPL(svmtune_sysfs_dir);

static const struct attribute_group *svmtune_attr_groups[] = {
	&svmtune_attr_group,
	&svmtune_bpf_sysfs_group,
	NULL,
};

int svmtune_sysfs_init(void)
{
	int ret;

	svmtune_kobj = kobject_create_and_add("svmtune", kernel_kobj);
	if (!svmtune_kobj)
		return -ENOMEM;

	ret = sysfs_create_groups(svmtune_kobj, svmtune_attr_groups);
	if (ret) {
		pr_err("cannot create /sys/kernel/svmtune: %pe\n", ERR_PTR(ret));
		kobject_put(svmtune_kobj);
		svmtune_kobj = NULL;
	}
	return ret;
}

void svmtune_sysfs_exit(void)
{
	sysfs_remove_groups(svmtune_kobj, svmtune_attr_groups);
	kobject_put(svmtune_kobj);
	svmtune_kobj = NULL;
}
