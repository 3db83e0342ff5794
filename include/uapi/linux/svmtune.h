/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * svmtune: shared virtual memory policy engine, user-space interface.
 *
 * All ioctls go to /dev/svmtune. Each takes one struct whose size is encoded
 * in the command number; the kernel accepts structs that are older (shorter)
 * than its own by zero-filling the missing tail, and newer (longer) ones when
 * the unknown tail is all zero (otherwise -E2BIG). Every flags and reserved
 * field must be zero on input (otherwise -EINVAL). Unknown commands return
 * -ENOTTY. See Documentation/userspace-api/svmtune.rst.
 */
#ifndef _UAPI_LINUX_SVMTUNE_H
#define _UAPI_LINUX_SVMTUNE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SVMTUNE_VERSION_MAJOR	0
#define SVMTUNE_VERSION_MINOR	1
#define SVMTUNE_VERSION_PATCH	0

/* ioctl type, listed as free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define SVMTUNE_IOC_MAGIC	0xBA

/**
 * struct svmtune_version - argument of %SVMTUNE_IOC_VERSION
 * @major: out: major version; changes only on incompatible uapi changes
 * @minor: out: minor version; grows when ioctls or fields are added
 * @patch: out: patch level
 * @flags: in: must be zero
 * @features: out: the SVMTUNE_FEATURE_* bits this module implements
 * @reserved: in: must be zero; out: zero
 */
struct svmtune_version {
	__u32 major;
	__u32 minor;
	__u32 patch;
	__u32 flags;
	__u64 features;
	__u64 reserved[2];
};

/* Query the module version and feature bits. */
#define SVMTUNE_IOC_VERSION	_IOWR(SVMTUNE_IOC_MAGIC, 0x00, struct svmtune_version)

#endif /* _UAPI_LINUX_SVMTUNE_H */
