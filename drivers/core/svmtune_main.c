// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: module entry points.
 *
 * svmtune.ko is the shared virtual memory policy engine. This file only
 * brings its parts up and down in order; the character device lives in
 * svmtune_chardev.c and the sysfs tree in svmtune_sysfs.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "svmtune_internal.h"

static int __init svmtune_init(void)
{
	int ret;

	ret = svmtune_notifier_init();
	if (ret)
		return ret;

	ret = svmtune_sysfs_init();
	if (ret)
		goto err_mm_exit;

	ret = svmtune_chardev_init();
	if (ret)
		goto err_sysfs_exit;

	/* Last: a program may run on a fault as soon as the type exists. */
	ret = svmtune_bpf_init_type();
	if (ret)
		goto err_chardev_exit;

	pr_info("version " SVMTUNE_VERSION_STRING " loaded\n");
	return 0;

err_chardev_exit:
	svmtune_chardev_exit();
err_sysfs_exit:
	svmtune_sysfs_exit();
err_mm_exit:
	svmtune_unpin_stop();
	svmtune_notifier_exit();
	return ret;
}

static void __exit svmtune_exit(void)
{
	svmtune_chardev_exit();
	svmtune_sysfs_exit();
	svmtune_unpin_stop();
	svmtune_notifier_exit();
	pr_info("unloaded\n");
}

module_init(svmtune_init);
module_exit(svmtune_exit);

MODULE_DESCRIPTION("Shared virtual memory migration policy engine");
MODULE_AUTHOR("The svmtune developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SVMTUNE_VERSION_STRING);
