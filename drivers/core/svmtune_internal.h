/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune core: declarations shared by the files of svmtune.ko.
 */
#ifndef _SVMTUNE_INTERNAL_H
#define _SVMTUNE_INTERNAL_H

#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/svmtune.h>

#define SVMTUNE_VERSION_STRING __stringify(SVMTUNE_VERSION_MAJOR) "." \
			       __stringify(SVMTUNE_VERSION_MINOR) "." \
			       __stringify(SVMTUNE_VERSION_PATCH)

int svmtune_sysfs_init(void);
void svmtune_sysfs_exit(void);

int svmtune_chardev_init(void);
void svmtune_chardev_exit(void);

#endif /* _SVMTUNE_INTERNAL_H */
