/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune: the table-driven ioctl dispatcher svmtune.ko exports to the
 * backends, so every svmtune device file validates arguments the same way.
 */
#ifndef _SVMTUNE_IOCTL_H
#define _SVMTUNE_IOCTL_H

#include <linux/ioctl.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct file;

/**
 * struct svmtune_ioctl_desc - one entry of an ioctl table
 * @cmd: the command as this kernel defines it (its size is the kernel's)
 * @min_size: the size of the first published version of the argument;
 *	shorter arguments are refused with -EINVAL
 * @fn: the handler, called with the argument copied into kernel memory
 */
struct svmtune_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	long (*fn)(struct file *file, void *arg);
};

#define SVMTUNE_IOCTL(_cmd, _type, _last_v1_field, _fn)			\
	[_IOC_NR(_cmd)] = {						\
		.cmd = (_cmd),						\
		.min_size = offsetofend(_type, _last_v1_field),		\
		.fn = (_fn),						\
	}

long svmtune_ioctl_dispatch(const struct svmtune_ioctl_desc *table, size_t n,
			    unsigned int magic, void *buf, size_t bufsize,
			    struct file *file, unsigned int cmd,
			    unsigned long arg);

#endif /* _SVMTUNE_IOCTL_H */
