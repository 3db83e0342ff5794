// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: /dev/svmtune and its ioctl dispatcher.
 *
 * The device node is world-readable and writable (0666) on purpose: any
 * process may query svmtune and, as the policy ioctls land, set policy on
 * its own address space. Ioctls that change global state check
 * CAP_SYS_ADMIN themselves.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "svmtune_internal.h"

/* Feature bits reported by SVMTUNE_IOC_VERSION: none defined yet. */
#define SVMTUNE_FEATURES	0ULL

/* Room for the argument of any ioctl, as the running kernel knows it. */
union svmtune_ioctl_arg {
	struct svmtune_version version;
};

typedef long (*svmtune_ioctl_fn)(struct file *file, void *arg);

/**
 * struct svmtune_ioctl_desc - one entry of the ioctl table
 * @cmd: the command as this kernel defines it (its size is the kernel's)
 * @min_size: the size of the first published version of the argument;
 *	shorter arguments are refused with -EINVAL
 * @fn: the handler, called with the argument copied into kernel memory
 */
struct svmtune_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	svmtune_ioctl_fn fn;
};

#define SVMTUNE_IOCTL(_cmd, _type, _last_v1_field, _fn)			\
	[_IOC_NR(_cmd)] = {						\
		.cmd = (_cmd),						\
		.min_size = offsetofend(_type, _last_v1_field),		\
		.fn = (_fn),						\
	}

static long svmtune_ioctl_version(struct file *file, void *data)
{
	struct svmtune_version *ver = data;

	if (ver->flags || memchr_inv(ver->reserved, 0, sizeof(ver->reserved)))
		return -EINVAL;

	ver->major = SVMTUNE_VERSION_MAJOR;
	ver->minor = SVMTUNE_VERSION_MINOR;
	ver->patch = SVMTUNE_VERSION_PATCH;
	ver->features = SVMTUNE_FEATURES;
	return 0;
}

static const struct svmtune_ioctl_desc svmtune_ioctls[] = {
	SVMTUNE_IOCTL(SVMTUNE_IOC_VERSION, struct svmtune_version, reserved,
		      svmtune_ioctl_version),
};

/*
 * Dispatch by command number. The size encoded in @cmd is the caller's
 * struct size: a shorter (older) struct is zero-extended, a longer (newer)
 * one must have an all-zero tail. The type, number and direction must match
 * a known command exactly, otherwise the command is unknown: -ENOTTY.
 */
static long svmtune_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct svmtune_ioctl_desc *desc;
	union svmtune_ioctl_arg karg;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd);
	unsigned int ksize;
	long ret;

	if (_IOC_TYPE(cmd) != SVMTUNE_IOC_MAGIC || nr >= ARRAY_SIZE(svmtune_ioctls))
		return -ENOTTY;
	desc = &svmtune_ioctls[nr];
	if (!desc->fn || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;

	ksize = _IOC_SIZE(desc->cmd);
	if (WARN_ON_ONCE(ksize > sizeof(karg)))
		return -EINVAL;

	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(&karg, ksize, uarg, usize);
		if (ret)
			return ret;
	} else {
		memset(&karg, 0, ksize);
	}

	ret = desc->fn(file, &karg);
	if (ret)
		return ret;

	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &karg, min(usize, ksize)))
		return -EFAULT;
	return 0;
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
