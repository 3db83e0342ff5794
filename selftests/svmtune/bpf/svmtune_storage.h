/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What svmtune_storage.bpf.c writes to its array map "seen", read by
 * svmtune_bpf_test.c.
 */
#ifndef _SVMTUNE_STORAGE_H
#define _SVMTUNE_STORAGE_H

#include <linux/types.h>

/* No storage: the kfunc returned NULL. */
#define STORAGE_NONE (~0ULL)

struct storage_seen {
	__u64 faults; /* device faults the program saw */
	__u64 block; /* the last fault's block count, before it */
	__u64 range; /* its range's */
	__u64 big_not_null; /* oversized requests that got storage */
};

#endif /* _SVMTUNE_STORAGE_H */
