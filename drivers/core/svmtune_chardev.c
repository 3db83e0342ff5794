// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: /dev/svmtune and its ioctl dispatcher.
 *
 * The device node is world-readable and writable (0666) on purpose: any
 * process may query svmtune and set policy on its own address space, and
 * on another process's only where it could ptrace it (svmtune_may_act_on()).
 * No ioctl changes global state: the global knobs are in sysfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <svmtune/compat.h>
#include <svmtune/ioctl.h>

#include "svmtune_internal.h"

/* Feature bits reported by SVMTUNE_IOC_VERSION. */
#define SVMTUNE_FEATURES	(SVMTUNE_FEATURE_RANGE_POLICY | \
				 SVMTUNE_FEATURE_STATS | \
				 SVMTUNE_FEATURE_DEVICES | \
				 SVMTUNE_FEATURE_PREFETCH | \
				 SVMTUNE_FEATURE_TLB_COUNTERS | \
				 SVMTUNE_FEATURE_THRASHING | \
				 SVMTUNE_FEATURE_FRAGMENT)

/* Room for the argument of any ioctl, as the running kernel knows it. */
union svmtune_ioctl_arg {
	struct svmtune_version version;
	struct svmtune_range_policy range_policy;
	struct svmtune_process_policy process_policy;
	struct svmtune_stats stats;
	struct svmtune_device_info device;
};

static long svmtune_ioctl_version(struct file *file, void *data)
{
	struct svmtune_version *ver = data;

	if (ver->flags || ver->major || ver->minor || ver->patch ||
	    ver->features || memchr_inv(ver->reserved, 0, sizeof(ver->reserved)))
		return -EINVAL;

	ver->major = SVMTUNE_VERSION_MAJOR;
	ver->minor = SVMTUNE_VERSION_MINOR;
	ver->patch = SVMTUNE_VERSION_PATCH;
	ver->features = SVMTUNE_FEATURES |
			(svmtune_bpf_available() ? SVMTUNE_FEATURE_BPF : 0);
	return 0;
}

/* Validate policy fields from user space and gather them into @pol. */
static int svmtune_policy_from_user(u32 set, u32 granularity, u32 preferred_loc,
				    u32 access, u32 thrashing, u32 fragment,
				    struct svmtune_policy *pol)
{
	if (!set || (set & ~SVMTUNE_POLICY_ALL))
		return -EINVAL;
	if ((set & SVMTUNE_POLICY_GRANULARITY) &&
	    granularity != SVMTUNE_GRANULARITY_UNSET &&
	    (granularity < SVMTUNE_GRANULARITY_MIN ||
	     granularity > SVMTUNE_GRANULARITY_MAX))
		return -EINVAL;
	if ((set & SVMTUNE_POLICY_ACCESS) && access > SVMTUNE_ACCESS_READ_MOSTLY)
		return -EINVAL;
	if ((set & SVMTUNE_POLICY_THRASHING) && thrashing > SVMTUNE_THRASH_TRACK)
		return -EINVAL;
	if ((set & SVMTUNE_POLICY_FRAGMENT) &&
	    fragment != SVMTUNE_FRAGMENT_UNSET &&
	    (fragment < SVMTUNE_FRAGMENT_MIN || fragment > SVMTUNE_FRAGMENT_MAX))
		return -EINVAL;
	/* A field added since 0.3 not being set must be zero, as a reserved one. */
	if (!(set & SVMTUNE_POLICY_THRASHING) && thrashing)
		return -EINVAL;
	if (!(set & SVMTUNE_POLICY_FRAGMENT) && fragment)
		return -EINVAL;
	if ((set & SVMTUNE_POLICY_PREFERRED_LOC) &&
	    preferred_loc != SVMTUNE_LOC_UNSET &&
	    preferred_loc != SVMTUNE_LOC_SYSTEM) {
		if (preferred_loc > SVMTUNE_LOC_MAX_DEVICE)
			return -EINVAL;
		if (!svmtune_device_exists(preferred_loc))
			return -ENODEV;
	}
	pol->granularity = granularity;
	pol->preferred_loc = preferred_loc;
	pol->access = access;
	pol->thrashing = thrashing;
	pol->fragment = fragment;
	return 0;
}

/*
 * The engine's state of the address space @pid names, created if needed;
 * *@mm gets that address space with its users referenced (mmput() it).
 */
static struct svmtune_mm *svmtune_target_smm(u32 pid, struct mm_struct **mm)
{
	struct svmtune_mm *smm;

	*mm = svmtune_target_mm(pid);
	if (IS_ERR(*mm))
		return ERR_CAST(*mm);
	smm = svmtune_mm_get(*mm);
	if (IS_ERR(smm))
		mmput(*mm);
	return smm;
}

/* start and size: page-aligned, nonzero, no wrap, inside user space. */
static int svmtune_check_span(u64 start, u64 size)
{
	if (!size || !PAGE_ALIGNED(start) || !PAGE_ALIGNED(size))
		return -EINVAL;
	if (start + size < start || start + size > TASK_SIZE_MAX)
		return -EINVAL;
	return 0;
}

/* Is [start, end) covered by VMAs, without holes? mmap_lock held. */
static bool svmtune_span_mapped(struct mm_struct *mm, unsigned long start,
				unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr = start;

	svmtune_mmap_assert_locked(mm);
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma)
			return false;
		addr = vma->vm_end;
	}
	return true;
}

static long svmtune_ioctl_set_policy(struct file *file, void *data)
{
	struct svmtune_range_policy *arg = data;
	struct svmtune_policy pol;
	struct svmtune_mm *smm;
	struct mm_struct *mm;
	long ret;

	if (arg->flags || arg->extent_end || arg->eff_granularity ||
	    arg->eff_preferred_loc || arg->eff_access || arg->eff_thrashing ||
	    arg->eff_fragment || arg->reserved)
		return -EINVAL;
	ret = svmtune_check_span(arg->start, arg->size);
	if (ret)
		return ret;
	ret = svmtune_policy_from_user(arg->set, arg->granularity,
				       arg->preferred_loc, arg->access,
				       arg->thrashing, arg->fragment, &pol);
	if (ret)
		return ret;

	smm = svmtune_target_smm(arg->pid, &mm);
	if (IS_ERR(smm))
		return PTR_ERR(smm);

	mmap_read_lock(mm);
	if (!svmtune_span_mapped(mm, arg->start, arg->start + arg->size))
		ret = -EFAULT;
	else
		ret = svmtune_range_set(smm, arg->start, arg->start + arg->size,
					arg->set, &pol);
	mmap_read_unlock(mm);
	svmtune_mm_refill_spare(smm);
	mmput(mm);
	return ret;
}

/* GET_POLICY's answer for @range (may be NULL) of @smm (may be NULL). */
static void svmtune_get_policy_fill(struct svmtune_range_policy *arg,
				    struct svmtune_mm *smm,
				    struct svmtune_range *range)
{
	struct svmtune_policy eff;

	svmtune_policy_effective(smm, range, &eff);
	arg->granularity = range ? range->pol.granularity : SVMTUNE_GRANULARITY_UNSET;
	arg->preferred_loc = range ? range->pol.preferred_loc : SVMTUNE_LOC_UNSET;
	arg->access = range ? range->pol.access : SVMTUNE_ACCESS_UNSET;
	arg->thrashing = range ? range->pol.thrashing : SVMTUNE_THRASH_UNSET;
	arg->fragment = range ? range->pol.fragment : SVMTUNE_FRAGMENT_UNSET;
	arg->eff_granularity = eff.granularity != SVMTUNE_GRANULARITY_UNSET ?
			       eff.granularity :
			       svmtune_policy_window(smm, arg->start);
	arg->eff_preferred_loc = eff.preferred_loc;
	arg->eff_access = eff.access;
	arg->eff_thrashing = eff.thrashing;
	arg->eff_fragment = svmtune_policy_fragment(&eff);
}

static long svmtune_ioctl_get_policy(struct file *file, void *data)
{
	struct svmtune_range_policy *arg = data;
	struct svmtune_range *range = NULL;
	struct svmtune_mm *smm;
	struct mm_struct *mm;
	u64 end;
	long ret;

	if (arg->flags || arg->set || arg->granularity || arg->preferred_loc ||
	    arg->access || arg->thrashing || arg->extent_end ||
	    arg->eff_granularity || arg->eff_preferred_loc || arg->eff_access ||
	    arg->eff_thrashing || arg->fragment || arg->eff_fragment ||
	    arg->reserved)
		return -EINVAL;
	ret = svmtune_check_span(arg->start, arg->size);
	if (ret)
		return ret;
	mm = svmtune_target_mm(arg->pid);
	if (IS_ERR(mm))
		return PTR_ERR(mm);

	end = arg->start + arg->size;
	smm = svmtune_mm_find(mm);
	if (smm) {
		spin_lock(&smm->lock);
		range = svmtune_range_find(smm, arg->start);
		if (range) {
			end = min_t(u64, end, range->end);
		} else {
			range = svmtune_range_next(smm, arg->start);
			if (range)
				end = min_t(u64, end, range->start);
			range = NULL;
		}
		svmtune_get_policy_fill(arg, smm, range);
		spin_unlock(&smm->lock);
	} else {
		svmtune_get_policy_fill(arg, NULL, NULL);
	}

	arg->extent_end = end;
	mmput(mm);
	return 0;
}

static long svmtune_ioctl_set_process_policy(struct file *file, void *data)
{
	struct svmtune_process_policy *arg = data;
	struct svmtune_policy pol;
	struct svmtune_mm *smm;
	struct mm_struct *mm;
	long ret;

	if (arg->flags || memchr_inv(arg->reserved, 0, sizeof(arg->reserved)))
		return -EINVAL;
	ret = svmtune_policy_from_user(arg->set, arg->granularity,
				       arg->preferred_loc, arg->access,
				       arg->thrashing, arg->fragment, &pol);
	if (ret)
		return ret;
	smm = svmtune_target_smm(arg->pid, &mm);
	if (IS_ERR(smm))
		return PTR_ERR(smm);
	spin_lock(&smm->lock);
	if (svmtune_policy_names_dead_device(arg->set, &pol))
		ret = -ENODEV;
	else
		svmtune_policy_apply(&smm->defaults, arg->set, &pol);
	spin_unlock(&smm->lock);
	mmput(mm);
	return ret;
}

static long svmtune_ioctl_get_process_policy(struct file *file, void *data)
{
	struct svmtune_process_policy *arg = data;
	struct svmtune_mm *smm;
	struct mm_struct *mm;

	if (arg->flags || arg->set || arg->granularity || arg->preferred_loc ||
	    arg->access || arg->thrashing || arg->fragment ||
	    memchr_inv(arg->reserved, 0, sizeof(arg->reserved)))
		return -EINVAL;
	mm = svmtune_target_mm(arg->pid);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	arg->granularity = SVMTUNE_GRANULARITY_UNSET;
	arg->preferred_loc = SVMTUNE_LOC_UNSET;
	arg->access = SVMTUNE_ACCESS_UNSET;
	arg->thrashing = SVMTUNE_THRASH_UNSET;
	arg->fragment = SVMTUNE_FRAGMENT_UNSET;
	smm = svmtune_mm_find(mm);
	if (smm) {
		spin_lock(&smm->lock);
		arg->granularity = smm->defaults.granularity;
		arg->preferred_loc = smm->defaults.preferred_loc;
		arg->access = smm->defaults.access;
		arg->thrashing = smm->defaults.thrashing;
		arg->fragment = smm->defaults.fragment;
		spin_unlock(&smm->lock);
	}
	mmput(mm);
	return 0;
}

/**
 * svmtune_counters_to_user() - convert engine counters to the uapi layout
 * @counters: SVMTUNE_NR_COUNTERS values in enum svmtune_counter order
 * @out: the uapi struct, reserved fields zeroed
 * @mit: the mitigation counters, reserved fields zeroed
 */
void svmtune_counters_to_user(const u64 *counters, struct svmtune_counters *out,
			      struct svmtune_mitigations *mit)
{
	memset(out, 0, sizeof(*out));
	out->gpu_faults = counters[SVMTUNE_CNT_GPU_FAULTS];
	out->cpu_faults = counters[SVMTUNE_CNT_CPU_FAULTS];
	out->pages_to_device = counters[SVMTUNE_CNT_PAGES_TO_DEVICE];
	out->pages_to_system = counters[SVMTUNE_CNT_PAGES_TO_SYSTEM];
	out->bytes_to_device = out->pages_to_device << PAGE_SHIFT;
	out->bytes_to_system = out->pages_to_system << PAGE_SHIFT;
	out->remote_pages = counters[SVMTUNE_CNT_REMOTE_PAGES];
	out->waste_pages = counters[SVMTUNE_CNT_WASTE_PAGES];
	out->fallback_pages = counters[SVMTUNE_CNT_FALLBACK_PAGES];
	out->window_pages = counters[SVMTUNE_CNT_WINDOW_PAGES];
	out->thrashing_events = counters[SVMTUNE_CNT_THRASHING_EVENTS];
	out->thrashing_detected = counters[SVMTUNE_CNT_THRASHING_DETECTED];
	out->prefetch_pages = counters[SVMTUNE_CNT_PREFETCH_PAGES];
	out->prefetch_used = counters[SVMTUNE_CNT_PREFETCH_USED];
	out->tlb_hits = counters[SVMTUNE_CNT_TLB_HITS];
	out->tlb_misses = counters[SVMTUNE_CNT_TLB_MISSES];
	memset(mit, 0, sizeof(*mit));
	mit->thrashing_throttles = counters[SVMTUNE_CNT_THROTTLES];
	mit->thrashing_pins = counters[SVMTUNE_CNT_PINS];
	mit->thrashing_unpins = counters[SVMTUNE_CNT_UNPINS];
	mit->evicted_pages = counters[SVMTUNE_CNT_EVICTED_PAGES];
}

static long svmtune_ioctl_get_stats(struct file *file, void *data)
{
	struct svmtune_stats *arg = data;
	u64 counters[SVMTUNE_NR_COUNTERS] = { 0 };
	struct svmtune_range *range;
	struct svmtune_mm *smm;
	struct mm_struct *mm;
	long ret = 0;

	if (arg->flags || arg->reserved0 || arg->range_start || arg->range_end ||
	    memchr_inv(&arg->counters, 0, sizeof(arg->counters)) ||
	    memchr_inv(arg->reserved, 0, sizeof(arg->reserved)) ||
	    memchr_inv(&arg->mitigations, 0, sizeof(arg->mitigations)))
		return -EINVAL;

	switch (arg->scope) {
	case SVMTUNE_STATS_DEVICE:
		if (arg->addr || !arg->id || arg->id > SVMTUNE_LOC_MAX_DEVICE)
			return -EINVAL;
		ret = svmtune_device_counters(arg->id, counters);
		break;
	case SVMTUNE_STATS_PROCESS:
	case SVMTUNE_STATS_RANGE:
		if (arg->scope == SVMTUNE_STATS_PROCESS && arg->addr)
			return -EINVAL;
		mm = svmtune_target_mm(arg->id);
		if (IS_ERR(mm))
			return PTR_ERR(mm);
		smm = svmtune_mm_find(mm);
		if (smm) {
			spin_lock(&smm->lock);
			if (arg->scope == SVMTUNE_STATS_PROCESS) {
				memcpy(counters, smm->counters, sizeof(counters));
			} else {
				range = svmtune_range_find(smm, arg->addr);
				if (range) {
					memcpy(counters, range->counters, sizeof(counters));
					arg->range_start = range->start;
					arg->range_end = range->end;
				} else {
					ret = -ENOENT;
				}
			}
			spin_unlock(&smm->lock);
		} else if (arg->scope == SVMTUNE_STATS_RANGE) {
			ret = -ENOENT;
		}
		mmput(mm);
		break;
	default:
		return -EINVAL;
	}
	if (!ret)
		svmtune_counters_to_user(counters, &arg->counters,
					 &arg->mitigations);
	return ret;
}

static long svmtune_ioctl_get_device(struct file *file, void *data)
{
	struct svmtune_device_info *arg = data;

	if (arg->flags || memchr_inv(arg->name, 0, sizeof(arg->name)) ||
	    arg->mem_bytes || arg->mem_free_bytes ||
	    memchr_inv(arg->reserved, 0, sizeof(arg->reserved)))
		return -EINVAL;
	if (!arg->id || arg->id > SVMTUNE_LOC_MAX_DEVICE)
		return -EINVAL;
	return svmtune_device_info(arg->id, arg);
}

static const struct svmtune_ioctl_desc svmtune_ioctls[] = {
	SVMTUNE_IOCTL(SVMTUNE_IOC_VERSION, struct svmtune_version, reserved,
		      svmtune_ioctl_version),
	SVMTUNE_IOCTL(SVMTUNE_IOC_SET_POLICY, struct svmtune_range_policy,
		      reserved, svmtune_ioctl_set_policy),
	SVMTUNE_IOCTL(SVMTUNE_IOC_GET_POLICY, struct svmtune_range_policy,
		      reserved, svmtune_ioctl_get_policy),
	SVMTUNE_IOCTL(SVMTUNE_IOC_SET_PROCESS_POLICY, struct svmtune_process_policy,
		      reserved, svmtune_ioctl_set_process_policy),
	SVMTUNE_IOCTL(SVMTUNE_IOC_GET_PROCESS_POLICY, struct svmtune_process_policy,
		      reserved, svmtune_ioctl_get_process_policy),
	SVMTUNE_IOCTL(SVMTUNE_IOC_GET_STATS, struct svmtune_stats, reserved,
		      svmtune_ioctl_get_stats),
	SVMTUNE_IOCTL(SVMTUNE_IOC_GET_DEVICE, struct svmtune_device_info,
		      reserved, svmtune_ioctl_get_device),
};

static long svmtune_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	union svmtune_ioctl_arg karg;

	return svmtune_ioctl_dispatch(svmtune_ioctls, ARRAY_SIZE(svmtune_ioctls),
				      SVMTUNE_IOC_MAGIC, &karg, sizeof(karg),
				      file, cmd, arg);
}

static const struct file_operations svmtune_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = svmtune_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice svmtune_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "svmtune",
	.fops = &svmtune_fops,
	.mode = 0666,
};

int svmtune_chardev_init(void)
{
	int ret;

	ret = misc_register(&svmtune_miscdev);
	if (ret)
		pr_err("cannot register /dev/svmtune: %pe\n", ERR_PTR(ret));
	return ret;
}

void svmtune_chardev_exit(void)
{
	misc_deregister(&svmtune_miscdev);
}
