/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the programmable-policy tests share (svmtune_bpf_test.c,
 * svmtune_bpf_hooks_test.c): finding the BPF objects beside the binary,
 * the engine's BPF counters and state, and GPU accesses on the emulated
 * GPU.
 */
#ifndef _SVMTUNE_BPF_UTIL_H
#define _SVMTUNE_BPF_UTIL_H

#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <linux/svmtune_emu.h>

#include "svmtune_emu_util.h"
#include "svmtune_test_util.h"

static char bpf_dir[PATH_MAX];

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level <= LIBBPF_INFO && getenv("SVMTUNE_BPF_VERBOSE") ?
		       vfprintf(stderr, fmt, ap) :
		       0;
}

static unsigned long long bpf_counter(const char *name)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "bpf/%s", name);
	if (svmtune_read_sysfs(path, buf, sizeof(buf)) < 0)
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

/* Why programmable policy is unavailable here, or NULL. */
static const char *bpf_unavailable(void)
{
	static char buf[256];

	if (svmtune_read_sysfs("bpf/state", buf, sizeof(buf)) < 0)
		return "no /sys/kernel/svmtune/bpf/state";
	buf[strcspn(buf, "\n")] = 0;
	return strcmp(buf, "available") ? buf : NULL;
}

static struct bpf_object *open_obj(const char *name)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", bpf_dir, name);
	return bpf_object__open_file(path, NULL);
}

static void fill(void *p, unsigned long size, unsigned int seed)
{
	uint64_t *w = p;
	unsigned long i;

	for (i = 0; i < size / 8; i++)
		w[i] = (i * 0x9e3779b97f4a7c15ULL) ^ seed;
}

static void __attribute__((constructor)) find_bpf_dir(void)
{
	char self_path[PATH_MAX];
	ssize_t n =
		readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

	if (n <= 0)
		n = 0;
	self_path[n] = 0;
	snprintf(bpf_dir, sizeof(bpf_dir), "%s/bpf", dirname(self_path));
	libbpf_set_print(libbpf_quiet);
}

#endif /* _SVMTUNE_BPF_UTIL_H */
