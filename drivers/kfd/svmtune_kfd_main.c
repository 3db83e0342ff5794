// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune_kfd: the backend that applies svmtune's policy to amdgpu's KFD
 * SVM. It attaches to amdgpu when amdgpu is loaded (or already is), after
 * checking that amdgpu implements the KFD interface it was built against,
 * and detaches when either module goes.
 *
 * The module notifier runs for amdgpu's LIVE (attach) and GOING (detach)
 * transitions; amdgpu's exit has already run at GOING, but its text is
 * still there until the notifier chain returns, so detaching there leaves
 * no hook pointing at freed text. svmtune_kfd holds no reference on
 * amdgpu while attached: rmmod amdgpu works and detaches.
 */

/**
 * DOC: Locking
 *
 * ``svmtune_kfd.lock`` (mutex)
 *     Serialises attach, detach (the module notifier, load, unload, the
 *     work that detaches after a refusal) and the sysfs readers of the
 *     state. Never taken in a hook.
 *
 * ``svmtune_kfd.refuse_lock`` (spinlock, IRQ-safe)
 *     Protects the reason and generation of a run-time refusal, which a
 *     hook that finds amdgpu behaving otherwise than the KFD sources say
 *     records in atomic context, under KFD's locks
 *     (svmtune_kfd_refuse()). Taken inside nothing else, and inside
 *     ``svmtune_kfd.lock`` by the work that detaches.
 *
 * Counters are atomics. Under KFD's ``mmap_lock`` and
 * ``prange->migrate_mutex`` the hooks take ``svmtune_mm.lock`` (engine),
 * so the order is ``mmap_lock`` -> ``migrate_mutex`` ->
 * ``svmtune_mm.lock``; the locks of svmtune_kfd's own tables
 * (svmtune_kfd_fault.c, svmtune_kfd_filter.c, svmtune_kfd_nodes.c,
 * svmtune_kfd_process.c) are innermost.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <generated/utsrelease.h>

#include "svmtune_kfd_compat.h"
#include "svmtune_kfd.h"

static const char * const svmtune_kfd_state_names[] = {
	[SVMTUNE_KFD_WAITING] = "waiting",
	[SVMTUNE_KFD_ATTACHED] = "attached",
	[SVMTUNE_KFD_REFUSED] = "refused",
	[SVMTUNE_KFD_FAILED] = "failed",
};

/* Zeroed (so kept out of the module's data); the rest is set at load. */
struct svmtune_kfd svmtune_kfd;

/*
 * What svmtune_kfd's state holds besides zeroes. Runs first at load, after
 * the module parameters were set (svmtune_kfd.amdgpu_srcversion, left as
 * is) and before anything else uses the state.
 */
static void svmtune_kfd_state_init(void)
{
	mutex_init(&svmtune_kfd.lock);
	strscpy(svmtune_kfd.reason, "amdgpu is not loaded", sizeof(svmtune_kfd.reason));
	spin_lock_init(&svmtune_kfd.refuse_lock);
	INIT_WORK(&svmtune_kfd.refuse_work, svmtune_kfd_refuse_worker);
	svmtune_kfd.filter_per_window = SVMTUNE_KFD_HAS_WINDOW;
#if SVMTUNE_KFD_HAS_WINDOW
	hash_init(svmtune_kfd.window_hash);
	hash_init(svmtune_kfd.window_fault_hash);
	spin_lock_init(&svmtune_kfd.window_lock);
#endif
	spin_lock_init(&svmtune_kfd.nodes_lock);
	INIT_WORK(&svmtune_kfd.nodes_work, svmtune_kfd_nodes_worker);
	spin_lock_init(&svmtune_kfd.attach_lock);
	INIT_WORK(&svmtune_kfd.attach_work, svmtune_kfd_attach_worker);
}

/* The amdgpu_srcversion parameter, stored in svmtune_kfd.amdgpu_srcversion. */
static int svmtune_kfd_srcversion_set(const char *val,
				      const struct kernel_param *kp)
{
	size_t len = strcspn(val, "\n");
	size_t i;

	/* Only a trailing newline may follow; the value is set at load only. */
	if (len > SVMTUNE_KFD_SRCVERSION_MAX || (val[len] && val[len + 1]))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isdigit(val[i]) && !(val[i] >= 'A' && val[i] <= 'F'))
			return -EINVAL;
	memcpy(svmtune_kfd.amdgpu_srcversion, val, len);
	svmtune_kfd.amdgpu_srcversion[len] = '\0';
	return 0;
}

static int svmtune_kfd_srcversion_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", svmtune_kfd.amdgpu_srcversion);
}

static const struct kernel_param_ops svmtune_kfd_srcversion_ops = {
	.set = svmtune_kfd_srcversion_set,
	.get = svmtune_kfd_srcversion_get,
};
module_param_cb(amdgpu_srcversion, &svmtune_kfd_srcversion_ops, NULL, 0444);
MODULE_PARM_DESC(
	amdgpu_srcversion,
	"srcversion (modinfo -F srcversion) of an out-of-tree amdgpu built from the KFD sources svmtune_kfd was built against; empty: the in-tree amdgpu only");

static void svmtune_kfd_set_state(enum svmtune_kfd_state state, const char *why)
{
	lockdep_assert_held(&svmtune_kfd.lock);
	svmtune_kfd.state = state;
	strscpy(svmtune_kfd.reason, why, sizeof(svmtune_kfd.reason));
}

/*
 * Refusal at run time. The build check (svmtune_kfd_same_build()) and the
 * symbol lookups cannot see everything: a KFD whose process structure is
 * laid out otherwise, or an amdgpu compiled so that a fault path calls an
 * inlined or cloned copy of a hooked function while the symbol still
 * exists, is found only by watching it run (the checks in
 * svmtune_kfd_hooks.c). The hook that finds it calls svmtune_kfd_refuse():
 * from then on no hook acts (svmtune_kfd_refusing()), and a work item
 * removes the hooks and says why in the state and reason files. The
 * refusal holds until amdgpu is loaded again or svmtune_kfd is reloaded.
 * A refusal belongs to the attach it was found in (svmtune_kfd.generation),
 * and a work item left from an earlier one (amdgpu unloaded and loaded
 * meanwhile) does nothing.
 */

/**
 * svmtune_kfd_refusing() - whether a run-time check failed
 *
 * Every hook that changes what KFD does asks first. Any context.
 *
 * Return: true once svmtune_kfd_refuse() was called in this attach.
 */
bool svmtune_kfd_refusing(void)
{
	return READ_ONCE(svmtune_kfd.refused);
}

/**
 * svmtune_kfd_refuse() - stop acting: amdgpu is not what it was built for
 * @fmt: why, printf-style
 *
 * Any context but NMI (hooks run with preemption disabled, under KFD's
 * locks). The first reason of an attach is kept.
 */
void svmtune_kfd_refuse(const char *fmt, ...)
{
	unsigned long flags;
	va_list args;

	spin_lock_irqsave(&svmtune_kfd.refuse_lock, flags);
	if (!svmtune_kfd.refused) {
		va_start(args, fmt);
		vsnprintf(svmtune_kfd.refuse_why, sizeof(svmtune_kfd.refuse_why),
			  fmt, args);
		va_end(args);
		svmtune_kfd.refuse_gen = READ_ONCE(svmtune_kfd.generation);
		WRITE_ONCE(svmtune_kfd.refused, true);
		schedule_work(&svmtune_kfd.refuse_work);
	}
	spin_unlock_irqrestore(&svmtune_kfd.refuse_lock, flags);
}

/* A new attach: nothing refused in it yet. */
static void svmtune_kfd_refuse_reset(void)
{
	lockdep_assert_held(&svmtune_kfd.lock);
	spin_lock_irq(&svmtune_kfd.refuse_lock);
	WRITE_ONCE(svmtune_kfd.generation, svmtune_kfd.generation + 1);
	WRITE_ONCE(svmtune_kfd.refused, false);
	spin_unlock_irq(&svmtune_kfd.refuse_lock);
}

void svmtune_kfd_refuse_worker(struct work_struct *work)
{
	char why[sizeof(svmtune_kfd.reason)];
	bool current_attach;

	mutex_lock(&svmtune_kfd.lock);
	spin_lock_irq(&svmtune_kfd.refuse_lock);
	current_attach = svmtune_kfd.refused &&
			 svmtune_kfd.refuse_gen == svmtune_kfd.generation;
	strscpy(why, svmtune_kfd.refuse_why, sizeof(why));
	spin_unlock_irq(&svmtune_kfd.refuse_lock);
	if (current_attach && svmtune_kfd.state == SVMTUNE_KFD_ATTACHED) {
		svmtune_kfd_hooks_detach();
		svmtune_kfd.amdgpu = NULL;
		svmtune_kfd_set_state(SVMTUNE_KFD_REFUSED, why);
		pr_warn("detached, amdgpu's KFD left to itself: %s\n", why);
	}
	mutex_unlock(&svmtune_kfd.lock);
}

static bool svmtune_kfd_is_amdgpu(struct module *mod)
{
	return !strcmp(mod->name, "amdgpu");
}

/*
 * Whether @amdgpu is built from the KFD sources svmtune_kfd was: the
 * hooks read struct svm_range, struct kfd_process and the hooked
 * functions' arguments with the layout of those sources, and a different
 * amdgpu of the same name (ROCm's amdgpu-dkms, most MI200/MI300 sites)
 * would have them read at the wrong offsets. amdgpu carries no layout
 * description svmtune_kfd can read (no BTF without
 * CONFIG_DEBUG_INFO_BTF_MODULES and a module BTF reader, which the kernel
 * does not export), so the build's identity stands for the layout:
 *  - an in-tree amdgpu (not tainted out-of-tree) is this kernel's own
 *    build (the kernel enforces svmtune_kfd's vermagic, and Kbuild checked
 *    that the KFD sources are this kernel version's tree);
 *  - an out-of-tree amdgpu must carry a srcversion, and it must be the one
 *    the amdgpu_srcversion parameter names.
 */
static bool svmtune_kfd_same_build(struct module *amdgpu, char *why, size_t len)
{
	bool out_of_tree = test_bit(TAINT_OOT_MODULE, &amdgpu->taints);

	if (!out_of_tree) {
		if (SVMTUNE_KFD_SRC_IN_TREE)
			return true;
		snprintf(
			why, len,
			"amdgpu is the kernel's own, but svmtune_kfd was built against out-of-tree KFD sources: rebuild it against this kernel's sources");
		return false;
	}
	if (!svmtune_kfd.amdgpu_srcversion[0]) {
		snprintf(
			why, len,
			"amdgpu is out of tree (amdgpu-dkms?): its KFD structures cannot be checked against the sources svmtune_kfd was built against; if it was built from them, load svmtune_kfd with amdgpu_srcversion=<modinfo -F srcversion amdgpu>");
		return false;
	}
	if (!amdgpu->srcversion) {
		snprintf(
			why, len,
			"the out-of-tree amdgpu has no srcversion to check (built without MODULE_VERSION or CONFIG_MODULE_SRCVERSION_ALL)");
		return false;
	}
	if (strcmp(amdgpu->srcversion, svmtune_kfd.amdgpu_srcversion)) {
		snprintf(
			why, len,
			"the out-of-tree amdgpu's srcversion %s is not %s, the one svmtune_kfd was told it was built for: another build of amdgpu, whose KFD structures may differ",
			amdgpu->srcversion, svmtune_kfd.amdgpu_srcversion);
		return false;
	}
	return true;
}

/* Attach to @amdgpu, which is LIVE and referenced by the caller. */
static void svmtune_kfd_attach(struct module *amdgpu)
{
	char why[sizeof(svmtune_kfd.reason)] = "";
	u32 major, minor;
	int ret;

	lockdep_assert_held(&svmtune_kfd.lock);
	if (svmtune_kfd.state == SVMTUNE_KFD_ATTACHED)
		return;

	if (!svmtune_kfd_same_build(amdgpu, why, sizeof(why)))
		goto refused;
	ret = svmtune_kfd_kfd_version(amdgpu, &major, &minor, why, sizeof(why));
	if (ret)
		goto refused;
	if (major != KFD_IOCTL_MAJOR_VERSION || minor != KFD_IOCTL_MINOR_VERSION) {
		snprintf(why, sizeof(why),
			 "amdgpu implements KFD interface %u.%u, svmtune_kfd was built against %u.%u (%s sources): rebuild svmtune_kfd against this amdgpu's sources",
			 major, minor, KFD_IOCTL_MAJOR_VERSION,
			 KFD_IOCTL_MINOR_VERSION, SVMTUNE_KFD_SRC_RELEASE);
		goto refused;
	}

	if (!svmtune_kfd_ftrace_usable(why, sizeof(why)))
		goto refused;

	svmtune_kfd_refuse_reset();
	ret = svmtune_kfd_hooks_attach(amdgpu, why, sizeof(why));
	if (ret) {
		if (ret == -ENOENT)
			goto refused;
		goto failed;
	}

	svmtune_kfd.amdgpu = amdgpu;
	svmtune_kfd.major = major;
	svmtune_kfd.minor = minor;
	svmtune_kfd.attach_count++;
	svmtune_kfd_set_state(SVMTUNE_KFD_ATTACHED, "");
	pr_info("attached to %s amdgpu (KFD %u.%u)\n",
		test_bit(TAINT_OOT_MODULE, &amdgpu->taints) ? "the out-of-tree" : "the in-tree",
		major, minor);
	return;

refused:
	svmtune_kfd_set_state(SVMTUNE_KFD_REFUSED, why);
	pr_warn("not attaching: %s\n", why);
	return;
failed:
	svmtune_kfd_set_state(SVMTUNE_KFD_FAILED, why);
	pr_err("cannot attach: %s\n", why);
}

static void svmtune_kfd_detach(const char *why)
{
	lockdep_assert_held(&svmtune_kfd.lock);
	if (svmtune_kfd.state == SVMTUNE_KFD_ATTACHED) {
		svmtune_kfd_hooks_detach();
		svmtune_kfd.amdgpu = NULL;
		pr_info("detached: %s\n", why);
	}
	svmtune_kfd_set_state(SVMTUNE_KFD_WAITING, why);
}

static int svmtune_kfd_module_event(struct notifier_block *nb,
				    unsigned long event, void *data)
{
	struct module *mod = data;

	if (!svmtune_kfd_is_amdgpu(mod))
		return NOTIFY_DONE;
	mutex_lock(&svmtune_kfd.lock);
	if (event == MODULE_STATE_LIVE && !svmtune_kfd.exiting)
		svmtune_kfd_attach(mod);
	else if (event == MODULE_STATE_GOING)
		svmtune_kfd_detach("amdgpu was unloaded; svmtune_kfd attaches again when it is loaded");
	mutex_unlock(&svmtune_kfd.lock);
	return NOTIFY_OK;
}

/*
 * Ahead of the tracepoint and kprobe module notifiers (priority 0): at
 * GOING they check that no probe is left on amdgpu's tracepoints and
 * retire probes in its text, so the hooks must be gone by then.
 */
static struct notifier_block svmtune_kfd_module_nb = {
	.notifier_call = svmtune_kfd_module_event,
	.priority = 1,
};

/*
 * Attach to an amdgpu loaded before svmtune_kfd. find_module() is not
 * exported; the module's sysfs directory is, through the kset every module
 * (this one too) belongs to. The kobject reference keeps struct module
 * from being freed; try_module_get() fails once amdgpu is going.
 */
static void svmtune_kfd_attach_loaded(void)
{
	struct module_kobject *mk;
	struct kobject *kobj;

	kobj = kset_find_obj(THIS_MODULE->mkobj.kobj.kset, "amdgpu");
	if (!kobj)
		return;
	mk = container_of(kobj, struct module_kobject, kobj);
	mutex_lock(&svmtune_kfd.lock);
	if (!mk->mod) {
		svmtune_kfd_set_state(SVMTUNE_KFD_REFUSED,
				      "amdgpu is built into the kernel: svmtune_kfd hooks a loadable amdgpu only");
		pr_warn("not attaching: %s\n", svmtune_kfd.reason);
	} else if (try_module_get(mk->mod)) {
		/* A COMING amdgpu is attached by the LIVE notification. */
		if (mk->mod->state == MODULE_STATE_LIVE)
			svmtune_kfd_attach(mk->mod);
		module_put(mk->mod);
	}
	mutex_unlock(&svmtune_kfd.lock);
	kobject_put(kobj);
}

/* ---- /sys/kernel/svmtune/kfd/ ---- */

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	ssize_t n;

	mutex_lock(&svmtune_kfd.lock);
	n = sysfs_emit(buf, "%s\n", svmtune_kfd_state_names[svmtune_kfd.state]);
	mutex_unlock(&svmtune_kfd.lock);
	return n;
}
static struct kobj_attribute state_attr = __ATTR_RO(state);

static ssize_t reason_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	ssize_t n;

	mutex_lock(&svmtune_kfd.lock);
	n = sysfs_emit(buf, "%s\n", svmtune_kfd.reason);
	mutex_unlock(&svmtune_kfd.lock);
	return n;
}
static struct kobj_attribute reason_attr = __ATTR_RO(reason);

static ssize_t build_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "kernel %s sources %s kfd %u.%u window %s default_granularity %s\n",
			  SVMTUNE_KFD_SRC_RELEASE,
			  SVMTUNE_KFD_SRC_IN_TREE ? "in-tree" : "out-of-tree",
			  KFD_IOCTL_MAJOR_VERSION, KFD_IOCTL_MINOR_VERSION,
			  SVMTUNE_KFD_HAS_WINDOW ? "yes" : "no",
			  SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY ? "yes" : "no");
}
static struct kobj_attribute build_attr = __ATTR_RO(build);

/*
 * What of svmtune's policy this KFD lets svmtune_kfd apply, whatever the
 * knobs say: one line per part, "<part> yes|no", "no" with the reason.
 */
static ssize_t in_effect_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	static const char * const why_no_window = " (this KFD migrates and maps whole ranges)";
	const char *no_window = SVMTUNE_KFD_HAS_WINDOW ? "" : why_no_window;
	const char *win = SVMTUNE_KFD_HAS_WINDOW ? "yes" : "no";
	ssize_t n = 0;

	n += sysfs_emit_at(buf, n, "gpu_fault_window %s%s%s\n", win, no_window,
			   svmtune_kfd_nodes_apu() ?
			   " (not on APU nodes, where KFD keeps pages in system memory: see nodes)" :
			   "");
	n += sysfs_emit_at(buf, n, "cpu_fault_window %s%s\n", win,
			   SVMTUNE_KFD_HAS_WINDOW ? "" :
			   " (this KFD moves the range's granularity block)");
	n += sysfs_emit_at(buf, n, "adaptive %s%s\n", win, no_window);
	n += sysfs_emit_at(buf, n, "thrashing %s%s\n", win, no_window);
	n += sysfs_emit_at(buf, n, "retry_filter_per_window %s%s\n", win, no_window);
	n += sysfs_emit_at(buf, n, "default_granularity %s\n",
			   SVMTUNE_KFD_HAS_DEFAULT_GRANULARITY ?
			   "yes (raised only: never below amdgpu's svm_default_granularity)" :
			   "no (this KFD has no per-process default granularity)");
	n += sysfs_emit_at(buf, n, "contiguous_vram %s\n",
			   SVMTUNE_KFD_HAS_CONTIGUOUS_WISH ? "yes" :
			   "no (this amdgpu fails a BO it cannot make contiguous)");
	n += sysfs_emit_at(buf, n, "remote_mapping yes\n");
	n += sysfs_emit_at(buf, n, "range_attributes yes\n");
	n += sysfs_emit_at(buf, n, "per_process_state yes\n");
	return n;
}
static struct kobj_attribute in_effect_attr = __ATTR_RO(in_effect);

static ssize_t amdgpu_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	ssize_t n;

	mutex_lock(&svmtune_kfd.lock);
	if (svmtune_kfd.state == SVMTUNE_KFD_ATTACHED)
		n = sysfs_emit(buf, "kfd %u.%u nodes %u attaches %lu\n",
			       svmtune_kfd.major, svmtune_kfd.minor,
			       svmtune_kfd_nodes_count(), svmtune_kfd.attach_count);
	else
		n = sysfs_emit(buf, "none attaches %lu\n", svmtune_kfd.attach_count);
	mutex_unlock(&svmtune_kfd.lock);
	return n;
}
static struct kobj_attribute amdgpu_attr = __ATTR_RO(amdgpu);

/* @show's file, with attach and detach held off while it is written. */
static ssize_t svmtune_kfd_show_locked(ssize_t (*show)(char *buf), char *buf)
{
	ssize_t n;

	mutex_lock(&svmtune_kfd.lock);
	n = show(buf);
	mutex_unlock(&svmtune_kfd.lock);
	return n;
}

static ssize_t hooks_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return svmtune_kfd_show_locked(svmtune_kfd_hooks_show, buf);
}
static struct kobj_attribute hooks_attr = __ATTR_RO(hooks);

static ssize_t nodes_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return svmtune_kfd_show_locked(svmtune_kfd_nodes_show, buf);
}
static struct kobj_attribute nodes_attr = __ATTR_RO(nodes);

static const char * const svmtune_kfd_stat_names[SVMTUNE_KFD_NR_STATS] = {
	[SVMTUNE_KFD_GPU_FAULTS] = "gpu_faults",
	[SVMTUNE_KFD_CPU_FAULTS] = "cpu_faults",
	[SVMTUNE_KFD_UNTRACKED_FAULTS] = "untracked_faults",
	[SVMTUNE_KFD_DECISIONS] = "decisions",
	[SVMTUNE_KFD_WINDOWS_CHANGED] = "windows_changed",
	[SVMTUNE_KFD_MIGRATIONS_DECLINED] = "migrations_declined",
	[SVMTUNE_KFD_DECLINES_SKIPPED_IN_VRAM] = "declines_skipped_in_vram",
	[SVMTUNE_KFD_TO_VRAM_CALLS] = "to_vram_calls",
	[SVMTUNE_KFD_TO_VRAM_PAGES] = "to_vram_pages",
	[SVMTUNE_KFD_TO_RAM_CALLS] = "to_ram_calls",
	[SVMTUNE_KFD_TO_RAM_PAGES] = "to_ram_pages",
	[SVMTUNE_KFD_DEFAULT_GRANULARITY_SET] = "default_granularity_set",
	[SVMTUNE_KFD_GRANULARITY_KEPT] = "granularity_kept_kfd",
	[SVMTUNE_KFD_RANGES_GIVEN_POLICY] = "ranges_given_policy",
	[SVMTUNE_KFD_RETRY_FILTER_PASSED] = "retry_filter_passed",
	[SVMTUNE_KFD_RETRY_FILTER_DUPLICATES] = "retry_filter_duplicates",
	[SVMTUNE_KFD_RETRY_FILTER_EARLY_DROPS] = "retry_filter_early_drops",
	[SVMTUNE_KFD_RETRY_FILTER_UNKNOWN] = "retry_filter_unknown",
	[SVMTUNE_KFD_PROCESSES_ATTACHED] = "processes_attached",
	[SVMTUNE_KFD_ATTACH_FAILED] = "attach_failed",
	[SVMTUNE_KFD_ATTACH_DROPPED] = "attach_dropped",
	[SVMTUNE_KFD_CPU_FAULTS_NOT_MIGRATED] = "cpu_faults_not_migrated",
	[SVMTUNE_KFD_FAULTS_ON_UNKNOWN_NODES] = "faults_on_unknown_nodes",
	[SVMTUNE_KFD_CONTIGUOUS_REQUESTED] = "contiguous_requested",
	[SVMTUNE_KFD_REMOTE_PAGES_DIRTIED] = "remote_pages_dirtied",
	[SVMTUNE_KFD_VRAM_PAGES_DIRTIED] = "vram_pages_dirtied",
	[SVMTUNE_KFD_VRAM_COUNT_FIXED] = "vram_count_fixed",
	[SVMTUNE_KFD_VRAM_COUNT_UNFIXED] = "vram_count_unfixed",
	[SVMTUNE_KFD_VRAM_EVICT_STAYED] = "vram_evict_stayed",
	[SVMTUNE_KFD_CPU_FAULTS_MIGRATED] = "cpu_faults_migrated",
	[SVMTUNE_KFD_CPU_FAULT_LOCK_WAIT_NS] = "cpu_fault_lock_wait_ns",
};

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	ssize_t n = 0;
	int i;

	for (i = 0; i < SVMTUNE_KFD_NR_STATS; i++) {
		u64 v = atomic64_read(&svmtune_kfd.stats[i]);

		if (i == SVMTUNE_KFD_UNTRACKED_FAULTS)
			v += svmtune_kfd_untracked_faults();
		n += sysfs_emit_at(buf, n, "%s %llu\n", svmtune_kfd_stat_names[i],
				   (unsigned long long)v);
	}
	return n;
}
static struct kobj_attribute stats_attr = __ATTR_RO(stats);

static ssize_t pte_fragments_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	ssize_t n = 0;
	int i;

	/* Fragment f covers 2^f GPU pages of 4 KiB: print it as KiB. */
	for (i = 0; i < SVMTUNE_KFD_NR_FRAGMENTS; i++)
		n += sysfs_emit_at(buf, n, "%lluK %lld\n", 4ULL << i,
				   (long long)atomic64_read(&svmtune_kfd.fragment_ptes[i]));
	return n;
}
static struct kobj_attribute pte_fragments_attr = __ATTR_RO(pte_fragments);

static ssize_t retry_filter_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	if (!SVMTUNE_KFD_HAS_WINDOW)
		return sysfs_emit(buf, "range (this KFD maps whole ranges)\n");
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(svmtune_kfd.filter_per_window) ? "window" : "range");
}

/*
 * A write of one of @n @words to a knob of svmtune_kfd: its index, or
 * -EPERM without CAP_SYS_ADMIN, -EINVAL for anything else (a NUL inside
 * what was written would cut the word short, so it is refused too).
 */
static int svmtune_kfd_store_word(const char *buf, size_t count,
				  const char *const *words, int n)
{
	int i;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (memchr(buf, '\0', count))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (sysfs_streq(buf, words[i]))
			return i;
	return -EINVAL;
}

static ssize_t retry_filter_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	static const char * const words[] = { "range", "window" };
	int i = svmtune_kfd_store_word(buf, count, words, ARRAY_SIZE(words));

	if (i < 0)
		return i;
	if (i == 1 && !SVMTUNE_KFD_HAS_WINDOW)
		return -EINVAL;
	WRITE_ONCE(svmtune_kfd.filter_per_window, i == 1);
	return count;
}
static struct kobj_attribute retry_filter_attr = __ATTR_RW_MODE(retry_filter, 0644);

static ssize_t contiguous_vram_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	if (!SVMTUNE_KFD_HAS_CONTIGUOUS_WISH)
		return sysfs_emit(buf, "off (this amdgpu fails a BO it cannot make contiguous)\n");
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(svmtune_kfd.contiguous_vram) ? "on" : "off");
}

static ssize_t contiguous_vram_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	static const char * const words[] = { "off", "on" };
	int i = svmtune_kfd_store_word(buf, count, words, ARRAY_SIZE(words));

	if (i < 0)
		return i;
	if (i == 1 && !SVMTUNE_KFD_HAS_CONTIGUOUS_WISH)
		return -EOPNOTSUPP;
	WRITE_ONCE(svmtune_kfd.contiguous_vram, i == 1);
	return count;
}
static struct kobj_attribute contiguous_vram_attr = __ATTR_RW_MODE(contiguous_vram, 0644);

static struct attribute *svmtune_kfd_attrs[] = {
	&state_attr.attr,
	&reason_attr.attr,
	&build_attr.attr,
	&amdgpu_attr.attr,
	&hooks_attr.attr,
	&nodes_attr.attr,
	&stats_attr.attr,
	&pte_fragments_attr.attr,
	&retry_filter_attr.attr,
	&contiguous_vram_attr.attr,
	&in_effect_attr.attr,
	NULL,
};

static const struct attribute_group svmtune_kfd_attr_group = {
	.attrs = svmtune_kfd_attrs,
};

static int __init svmtune_kfd_init(void)
{
	int ret;

	svmtune_kfd_state_init();
	svmtune_kfd.kobj = kobject_create_and_add("kfd", svmtune_sysfs_dir());
	if (!svmtune_kfd.kobj)
		return -ENOMEM;
	ret = sysfs_create_group(svmtune_kfd.kobj, &svmtune_kfd_attr_group);
	if (ret)
		goto out_kobj;

	ret = register_module_notifier(&svmtune_kfd_module_nb);
	if (ret)
		goto out_group;
	svmtune_kfd_attach_loaded();
	return 0;

out_group:
	sysfs_remove_group(svmtune_kfd.kobj, &svmtune_kfd_attr_group);
out_kobj:
	kobject_put(svmtune_kfd.kobj);
	return ret;
}

/*
 * Detach first, then stop listening: with the notifier gone first, an
 * rmmod of amdgpu in between would free amdgpu's text and tracepoints with
 * svmtune_kfd's probes still on them, and the tracepoint core's GOING
 * check would find a probe left. The notifier stays until the hooks are
 * gone, and attaches nothing once svmtune_kfd.exiting is set.
 */
static void __exit svmtune_kfd_exit(void)
{
	mutex_lock(&svmtune_kfd.lock);
	svmtune_kfd.exiting = true;
	svmtune_kfd_detach("svmtune_kfd is unloading");
	mutex_unlock(&svmtune_kfd.lock);
	unregister_module_notifier(&svmtune_kfd_module_nb);
	/* No hook is left to refuse again; a pending refusal finds it detached. */
	cancel_work_sync(&svmtune_kfd.refuse_work);
	sysfs_remove_group(svmtune_kfd.kobj, &svmtune_kfd_attr_group);
	kobject_put(svmtune_kfd.kobj);
}

module_init(svmtune_kfd_init);
module_exit(svmtune_kfd_exit);

MODULE_DESCRIPTION("svmtune backend for amdgpu KFD shared virtual memory");
MODULE_LICENSE("GPL");
