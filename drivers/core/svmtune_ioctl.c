// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the ioctl dispatcher shared by /dev/svmtune and the
 * backends' device files.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <svmtune/ioctl.h>

/**
 * svmtune_ioctl_dispatch() - validate, copy in, call, copy out
 * @table: the ioctl table, indexed by command number
 * @n: its size
 * @magic: the ioctl type of the device
 * @buf: kernel buffer for the argument
 * @bufsize: its size, at least the largest argument in @table
 * @file: the file the ioctl came on
 * @cmd: the command
 * @arg: the user argument
 *
 * The size encoded in @cmd is the caller's struct size: a shorter (older)
 * struct is zero-extended, a longer (newer) one must have an all-zero tail
 * (else -E2BIG), one shorter than the first published version is -EINVAL.
 * The type, number and direction must match a known command exactly,
 * otherwise the command is unknown: -ENOTTY.
 *
 * Return: the handler's result, or the error.
 */
long svmtune_ioctl_dispatch(const struct svmtune_ioctl_desc *table, size_t n,
			    unsigned int magic, void *buf, size_t bufsize,
			    struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct svmtune_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd);
	unsigned int ksize;
	long ret;

	if (_IOC_TYPE(cmd) != magic || nr >= n)
		return -ENOTTY;
	desc = &table[nr];
	if (!desc->fn || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;

	ksize = _IOC_SIZE(desc->cmd);
	if (WARN_ON_ONCE(ksize > bufsize))
		return -EINVAL;

	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(buf, ksize, uarg, usize);
		if (ret)
			return ret;
	} else {
		memset(buf, 0, ksize);
	}

	ret = desc->fn(file, buf);
	if (ret)
		return ret;

	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, buf, min(usize, ksize)))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_GPL(svmtune_ioctl_dispatch);
