// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: the /sys/kernel/svmtune/ directory.
 *
 * Every file is documented in Documentation/ABI/testing/sysfs-kernel-svmtune.
 * No file is ever writable by group or others.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "svmtune_internal.h"

static struct kobject *svmtune_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", SVMTUNE_VERSION_STRING);
}
static struct kobj_attribute version_attr = __ATTR_RO(version);

static struct attribute *svmtune_attrs[] = {
	&version_attr.attr,
	NULL,
};

static const struct attribute_group svmtune_attr_group = {
	.attrs = svmtune_attrs,
};

int svmtune_sysfs_init(void)
{
	int ret;

	svmtune_kobj = kobject_create_and_add("svmtune", kernel_kobj);
	if (!svmtune_kobj)
		return -ENOMEM;

	ret = sysfs_create_group(svmtune_kobj, &svmtune_attr_group);
	if (ret) {
		pr_err("cannot create /sys/kernel/svmtune: %pe\n", ERR_PTR(ret));
		kobject_put(svmtune_kobj);
		svmtune_kobj = NULL;
	}
	return ret;
}

void svmtune_sysfs_exit(void)
{
	sysfs_remove_group(svmtune_kobj, &svmtune_attr_group);
	kobject_put(svmtune_kobj);
	svmtune_kobj = NULL;
}
