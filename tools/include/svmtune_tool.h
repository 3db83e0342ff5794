/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the user-space workloads (tools/demo, tools/bench) share: the
 * global knobs, the caller's counters, and one GPU read on the emulated
 * GPU. Header-only: each tool is one static binary.
 */
#ifndef _SVMTUNE_TOOL_H
#define _SVMTUNE_TOOL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define SVMTUNE_TOOL_PAGE 4096UL

/* Write @val to /sys/kernel/svmtune/@name; 0 or -1. */
static inline int svmtune_tool_write_knob(const char *name, const char *val)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/kernel/svmtune/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* Read the file @path into @buf; 0 or -1. */
static inline int svmtune_tool_read_file(const char *path, char *buf,
					 size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Read /sys/kernel/svmtune/@name into @buf; 0 or -1. */
static inline int svmtune_tool_read_knob(const char *name, char *buf,
					 size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/svmtune/%s", name);
	return svmtune_tool_read_file(path, buf, len);
}

/*
 * The engine's counters of the calling process, and its thrashing and
 * eviction counts in @m if not NULL; 0 or -1.
 */
static inline int svmtune_tool_stats(int ctl, struct svmtune_counters *c,
				     struct svmtune_mitigations *m)
{
	struct svmtune_stats st;

	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_PROCESS;
	if (ioctl(ctl, SVMTUNE_IOC_GET_STATS, &st))
		return -1;
	*c = st.counters;
	if (m)
		*m = st.mitigations;
	return 0;
}

/* The engine's counters of the calling process; 0 or -1. */
static inline int svmtune_tool_counters(int ctl, struct svmtune_counters *c)
{
	return svmtune_tool_stats(ctl, c, NULL);
}

/*
 * The emulated GPU reads (@op SVMTUNE_EMU_READ) [@addr, @addr + @size)
 * into @buf, or writes it from @buf (SVMTUNE_EMU_WRITE); 0 or -errno.
 * @out, if not NULL, gets the ioctl's counts (faults, pages migrated,
 * remote accesses...).
 */
static inline int
svmtune_tool_gpu_access_counted(int emu, const char *addr, unsigned long size,
				char *buf, unsigned int op,
				struct svmtune_emu_access *out)
{
	struct svmtune_emu_access a;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.size = size;
	a.ptr = (uintptr_t)buf;
	a.op = op;
	if (ioctl(emu, SVMTUNE_EMU_IOC_ACCESS, &a))
		return -errno;
	if (out)
		*out = a;
	return 0;
}

/* svmtune_tool_gpu_access_counted() without the counts. */
static inline int svmtune_tool_gpu_access(int emu, const char *addr,
					  unsigned long size, char *buf,
					  unsigned int op)
{
	return svmtune_tool_gpu_access_counted(emu, addr, size, buf, op, NULL);
}

/* The emulated GPU reads the page at @addr into @out; 0 or -errno. */
static inline int svmtune_tool_gpu_read(int emu, const char *addr, char *out)
{
	return svmtune_tool_gpu_access(emu, addr, SVMTUNE_TOOL_PAGE, out,
				       SVMTUNE_EMU_READ);
}

/* Device memory of the device named @name, in bytes; 0 if there is none. */
static inline unsigned long long svmtune_tool_device_mem(int ctl,
							 const char *name)
{
	struct svmtune_device_info di;
	unsigned int id;

	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		memset(&di, 0, sizeof(di));
		di.id = id;
		if (!ioctl(ctl, SVMTUNE_IOC_GET_DEVICE, &di) &&
		    !strncmp(di.name, name, sizeof(di.name)))
			return di.mem_bytes;
	}
	return 0;
}

#endif /* _SVMTUNE_TOOL_H */
