/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests that drive the emulated GPU share (svmtune_emu_test.c,
 * svmtune_bpf_test.c, svmtune_bpf_hooks_test.c): its device, sizes, a GPU
 * access through SVMTUNE_EMU_IOC_ACCESS, and the CPU-GPU ping-pong that
 * thrashing tests start from.
 */
#ifndef _SVMTUNE_EMU_UTIL_H
#define _SVMTUNE_EMU_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/svmtune_emu.h>

#define EMU_DEV "/dev/svmtune_emu0"
#define PAGE 4096UL
#define KIB 1024UL
#define MIB (1024UL * 1024)

/*
 * The GPU accesses [@addr, @addr + @size) (@op: SVMTUNE_EMU_READ into, or
 * SVMTUNE_EMU_WRITE from, @buf); what it did in *@out if given, written
 * whatever the result (so that no caller reads it uninitialised). 0 or
 * -errno.
 */
static inline int gpu_access(int fd, void *addr, unsigned long size, void *buf,
			     uint32_t op, struct svmtune_emu_access *out)
{
	struct svmtune_emu_access a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.size = size;
	a.ptr = (uintptr_t)buf;
	a.op = op;
	ret = ioctl(fd, SVMTUNE_EMU_IOC_ACCESS, &a) ? -errno : 0;
	if (out)
		*out = a;
	return ret;
}

/*
 * Thrashing: the GPU reads the first page of a 2 MiB window (a device
 * fault migrates the window), then the CPU writes it (a CPU fault takes
 * the window back), @rounds times.
 */
static inline int ping_pong(int fd, char *buf, char *tmp, int rounds)
{
	int i, ret;

	for (i = 0; i < rounds; i++) {
		ret = gpu_access(fd, buf, PAGE, tmp, SVMTUNE_EMU_READ, NULL);
		if (ret)
			return ret;
		buf[0] = (char)i;
	}
	return 0;
}

#endif /* _SVMTUNE_EMU_UTIL_H */
