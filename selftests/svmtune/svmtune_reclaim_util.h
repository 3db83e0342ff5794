/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reclaim for the selftests: swap on zram, memory cgroups with a small
 * memory.max, and the residency of a buffer's pages. Shared by the tests of
 * GPU-written system pages under reclaim (emulated GPU and KFD test bed) and
 * the fuzzer.
 *
 * Why swap: without it, reclaim can only drop clean pages. A GPU write that
 * the kernel was not told of leaves a page clean, so the bug these tests
 * look for shows without swap; but the fixed kernel keeps the dirty page
 * resident, and a test could not tell "kept because dirty" from "never
 * reclaimed". With swap, reclaim takes the page either way, and only its
 * bytes tell the two apart.
 */
#ifndef _SVMTUNE_RECLAIM_UTIL_H
#define _SVMTUNE_RECLAIM_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "svmtune_test_util.h"

#define SVMTUNE_ZRAM "/dev/zram0"
#define SVMTUNE_ZRAM_SYSFS "/sys/block/zram0"
#define SVMTUNE_CGROUP_ROOT "/sys/fs/cgroup"

/* Whether /proc/swaps lists a swap area (more than its header line). */
static inline int svmtune_swap_active(void)
{
	char line[256];
	int lines = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1;
}

/* Make zram0 @mib MiB of swap and turn it on; 0 or -errno. */
static inline int svmtune_swap_make(unsigned int mib)
{
	char size[32];
	int ret;

	if (access(SVMTUNE_ZRAM_SYSFS "/disksize", W_OK))
		return -ENODEV;
	svmtune_write_file(SVMTUNE_ZRAM_SYSFS "/reset", "1");
	snprintf(size, sizeof(size), "%uM", mib);
	ret = svmtune_write_file(SVMTUNE_ZRAM_SYSFS "/disksize", size);
	if (ret)
		return ret;
	/* busybox's mkswap writes the header; swapon(2) is the syscall. */
	if (system("mkswap " SVMTUNE_ZRAM " >/dev/null 2>&1"))
		return -EIO;
	return swapon(SVMTUNE_ZRAM, 0) ? -errno : 0;
}

/*
 * Swap of @mib MiB on zram0 unless some swap is on already. Returns 1 when
 * this call turned it on (svmtune_swap_off() undoes it), 0 when swap was on
 * already (or another process turned it on meanwhile: several fuzzers
 * start at once), -errno when there is none and none could be made (no
 * zram).
 */
static inline int svmtune_swap_on(unsigned int mib)
{
	int ret, i;

	if (svmtune_swap_active())
		return 0;
	ret = svmtune_swap_make(mib);
	if (!ret)
		return 1;
	/* Lost a race with another process setting it up: wait for it. */
	for (i = 0; i < 50 && ret != -ENODEV; i++) {
		if (svmtune_swap_active())
			return 0;
		usleep(100000);
	}
	return ret;
}

static inline void svmtune_swap_off(void)
{
	swapoff(SVMTUNE_ZRAM);
	svmtune_write_file(SVMTUNE_ZRAM_SYSFS "/reset", "1");
}

/*
 * A memory cgroup @name (under the cgroup2 root, mounted if it is not) with
 * memory.max @max_bytes, and the caller moved into it. Pages the caller
 * faults in from then on are charged to it, so allocating more than
 * @max_bytes reclaims them. 0 or -errno; svmtune_cgroup_leave() undoes it.
 */
static inline int svmtune_cgroup_enter(const char *name,
				       unsigned long max_bytes)
{
	char path[256], val[32];
	int ret;

	/*
	 * Processes that start together (make stress) may all find it
	 * unmounted: the second mount of cgroup2 on the same place fails with
	 * EBUSY, and the first one's mount is what it wanted.
	 */
	if (access(SVMTUNE_CGROUP_ROOT "/cgroup.procs", F_OK) &&
	    mount("none", SVMTUNE_CGROUP_ROOT, "cgroup2", 0, NULL) &&
	    (errno != EBUSY ||
	     access(SVMTUNE_CGROUP_ROOT "/cgroup.procs", F_OK)))
		return -errno;
	ret = svmtune_write_file(SVMTUNE_CGROUP_ROOT "/cgroup.subtree_control",
				 "+memory");
	if (ret)
		return ret;
	snprintf(path, sizeof(path), SVMTUNE_CGROUP_ROOT "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), SVMTUNE_CGROUP_ROOT "/%s/memory.max",
		 name);
	snprintf(val, sizeof(val), "%lu", max_bytes);
	ret = svmtune_write_file(path, val);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), SVMTUNE_CGROUP_ROOT "/%s/cgroup.procs",
		 name);
	snprintf(val, sizeof(val), "%d", getpid());
	return svmtune_write_file(path, val);
}

static inline void svmtune_cgroup_leave(const char *name)
{
	char path[256], val[32];

	snprintf(val, sizeof(val), "%d", getpid());
	svmtune_write_file(SVMTUNE_CGROUP_ROOT "/cgroup.procs", val);
	snprintf(path, sizeof(path), SVMTUNE_CGROUP_ROOT "/%s", name);
	rmdir(path);
}

/*
 * Memory pressure from inside a cgroup: @bytes of anonymous memory, every
 * page written (so it must go to swap to make room), then freed.
 */
static inline int svmtune_balloon(unsigned long bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		return -errno;
	for (i = 0; i < bytes; i += 4096)
		p[i] = (char)(i >> 12) | 1;
	munmap(p, bytes);
	return 0;
}

/* How many of the pages of [@addr, @addr + @size) mincore() calls resident. */
static inline long svmtune_resident_pages(void *addr, unsigned long size)
{
	unsigned long n = size / 4096, i;
	unsigned char *vec = malloc(n);
	long resident = 0;

	if (!vec)
		return -ENOMEM;
	if (mincore(addr, size, vec)) {
		free(vec);
		return -errno;
	}
	for (i = 0; i < n; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

#endif /* _SVMTUNE_RECLAIM_UTIL_H */
