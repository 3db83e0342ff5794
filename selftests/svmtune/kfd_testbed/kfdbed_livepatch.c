// SPDX-License-Identifier: GPL-2.0
/*
 * kfdbed_livepatch: a livepatch of the test bed's svm_migrate_to_vram(),
 * for the test that livepatches of the functions svmtune_kfd hooks load
 * beside it (run_kfdbed.sh, "livepatch").
 *
 * A livepatch takes the one place per function that ftrace gives a user
 * changing where the function goes (FTRACE_OPS_FL_IPMODIFY): while another
 * user holds it, the patch cannot be enabled, and while the patch is
 * enabled, no other user can register. The replacement stands for a fix
 * an operator might load: it turns every migration to VRAM away
 * (-ENODEV, as KFD's own does when it finds no node for the destination),
 * and KFD then keeps the pages in system memory and maps them there. It
 * counts its calls, so the test sees it run (parameter "calls").
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/livepatch.h>
#include <linux/module.h>

static atomic_t kfdbed_livepatch_calls = ATOMIC_INIT(0);

static int kfdbed_livepatch_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&kfdbed_livepatch_calls));
}

static const struct kernel_param_ops kfdbed_livepatch_calls_ops = {
	.get = kfdbed_livepatch_calls_get,
};
module_param_cb(calls, &kfdbed_livepatch_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "Calls of the replacement of svm_migrate_to_vram()");

/*
 * svm_migrate_to_vram(prange, best_loc, start, last, mm, trigger), KFD
 * 6.12's prototype: no argument is used.
 */
static int kfdbed_livepatch_migrate_to_vram(void *prange, u32 best_loc,
					    unsigned long start,
					    unsigned long last, void *mm,
					    u32 trigger)
{
	atomic_inc(&kfdbed_livepatch_calls);
	return -ENODEV;
}

static struct klp_func kfdbed_livepatch_funcs[] = {
	{
		.old_name = "svm_migrate_to_vram",
		.new_func = kfdbed_livepatch_migrate_to_vram,
	},
	{}
};

static struct klp_object kfdbed_livepatch_objs[] = {
	{
		.name = "amdgpu",
		.funcs = kfdbed_livepatch_funcs,
	},
	{}
};

static struct klp_patch kfdbed_livepatch = {
	.mod = THIS_MODULE,
	.objs = kfdbed_livepatch_objs,
};

static int __init kfdbed_livepatch_init(void)
{
	return klp_enable_patch(&kfdbed_livepatch);
}

static void __exit kfdbed_livepatch_exit(void)
{
}

module_init(kfdbed_livepatch_init);
module_exit(kfdbed_livepatch_exit);
MODULE_DESCRIPTION("KFD test bed: a livepatch of svm_migrate_to_vram()");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
