// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_demo: the workload make run shows. An emulated GPU reads a
 * CPU-initialised buffer in two patterns (dense sequential, sparse random)
 * under two granularity policies (fixed 2 MiB, adaptive), and a table shows
 * what the policy engine did: faults, pages migrated, bytes, waste. Then
 * the GPU and the CPU take turns on the same pages (thrashing), with
 * thrashing only detected and then mitigated.
 * Run as root (it sets the global policy through sysfs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "svmtune_tool.h"

#define PAGE 4096UL
#define SIZE (32UL << 20)

/* A buffer the CPU initialised: every byte 1. */
static char *cpu_buffer(void)
{
	char *buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return NULL;
	memset(buf, 1, SIZE);
	return buf;
}

static int run(int emu, int ctl, const char *policy, const char *pattern)
{
	struct svmtune_counters before, after;
	unsigned int seed = 42;
	unsigned long i, n;
	char page[PAGE];
	char *buf;

	buf = cpu_buffer();
	if (!buf)
		return -1;
	if (svmtune_tool_counters(ctl, &before))
		return -1;
	n = !strcmp(pattern, "sequential") ? SIZE / PAGE : 256;
	for (i = 0; i < n; i++) {
		unsigned long off =
			!strcmp(pattern, "sequential") ?
				i * PAGE :
				(rand_r(&seed) % (SIZE / PAGE)) * PAGE;

		if (svmtune_tool_gpu_read(emu, buf + off, page)) {
			perror("SVMTUNE_EMU_IOC_ACCESS");
			return -1;
		}
		if (page[0] != 1) {
			fprintf(stderr, "data mismatch at offset %lu\n", off);
			return -1;
		}
	}
	/* The CPU takes the buffer back: untouched migrated pages are waste. */
	for (i = 0; i < SIZE; i += PAGE)
		buf[i]++;
	if (svmtune_tool_counters(ctl, &after))
		return -1;
	printf("%-9s %-11s %8lu %7llu %11llu %9.1f %11llu\n", policy, pattern,
	       n, (unsigned long long)(after.gpu_faults - before.gpu_faults),
	       (unsigned long long)(after.pages_to_device -
				    before.pages_to_device),
	       (after.bytes_to_device - before.bytes_to_device) / 1048576.0,
	       (unsigned long long)(after.waste_pages - before.waste_pages));
	munmap(buf, SIZE);
	return 0;
}

/*
 * The GPU reads a page and the CPU writes it, 16 rounds on 4 pages 2 MiB
 * apart, with the thrashing knob at @mode.
 */
static int pingpong(int emu, int ctl, const char *mode)
{
	struct svmtune_counters before, after;
	char page[PAGE];
	int r, i;
	char *buf;

	if (svmtune_tool_write_knob("thrashing", mode))
		return -1;
	buf = cpu_buffer();
	if (!buf)
		return -1;
	if (svmtune_tool_counters(ctl, &before))
		return -1;
	for (r = 0; r < 16; r++) {
		for (i = 0; i < 4; i++) {
			if (svmtune_tool_gpu_read(emu, buf + i * (2UL << 20),
						  page)) {
				perror("SVMTUNE_EMU_IOC_ACCESS");
				return -1;
			}
			if (page[0] != (r ? (char)(r - 1) : 1)) {
				fprintf(stderr, "GPU read stale data\n");
				return -1;
			}
			buf[i * (2UL << 20)] = (char)r;
		}
	}
	if (svmtune_tool_counters(ctl, &after))
		return -1;
	printf("%-9s %7llu %7llu %11llu %9.1f %11llu %9llu\n", mode,
	       (unsigned long long)(after.gpu_faults - before.gpu_faults),
	       (unsigned long long)(after.cpu_faults - before.cpu_faults),
	       (unsigned long long)(after.pages_to_device -
				    before.pages_to_device),
	       (after.bytes_to_device - before.bytes_to_device +
		after.bytes_to_system - before.bytes_to_system) /
		       1048576.0,
	       (unsigned long long)(after.remote_pages - before.remote_pages),
	       (unsigned long long)(after.thrashing_detected -
				    before.thrashing_detected));
	munmap(buf, SIZE);
	return 0;
}

int main(void)
{
	static const char *const policies[] = { "fixed", "adaptive" };
	static const char *const patterns[] = { "sequential", "sparse" };
	char mode[32], lapse[32];
	int emu, ctl, i, j;

	emu = open("/dev/svmtune_emu0", O_RDWR);
	ctl = open("/dev/svmtune", O_RDWR);
	if (emu < 0 || ctl < 0) {
		perror("open /dev/svmtune_emu0 or /dev/svmtune");
		return 1;
	}
	if (svmtune_tool_write_knob("granularity", "2M") ||
	    svmtune_tool_write_knob("adaptive_min_granularity", "4K") ||
	    svmtune_tool_write_knob("adaptive_max_granularity", "2M")) {
		perror("sysfs");
		return 1;
	}
	printf("GPU reads of a 32 MiB CPU-initialised buffer, 4 KiB per access\n\n");
	printf("%-9s %-11s %8s %7s %11s %9s %11s\n", "policy", "pattern",
	       "accesses", "faults", "pages->gpu", "MiB->gpu", "waste pages");
	for (i = 0; i < 2; i++) {
		if (svmtune_tool_write_knob("policy", policies[i])) {
			perror("sysfs policy");
			return 1;
		}
		for (j = 0; j < 2; j++)
			if (run(emu, ctl, policies[i], patterns[j]))
				return 1;
	}
	svmtune_tool_write_knob("policy", "fixed");

	printf("\nGPU read, CPU write, same page: 16 rounds on 4 pages\n\n");
	printf("%-9s %7s %7s %11s %9s %11s %9s\n", "thrashing", "gpu-flt",
	       "cpu-flt", "pages->gpu", "MiB-moved", "remote-pg", "detected");
	/* Reversals in this emulated machine take milliseconds. */
	if (svmtune_tool_read_knob("thrashing", mode, sizeof(mode)) ||
	    svmtune_tool_read_knob("thrashing_lapse_us", lapse,
				   sizeof(lapse)) ||
	    svmtune_tool_write_knob("thrashing_lapse_us", "100000") ||
	    pingpong(emu, ctl, "detect") || pingpong(emu, ctl, "remote"))
		return 1;
	svmtune_tool_write_knob("thrashing", mode);
	svmtune_tool_write_knob("thrashing_lapse_us", lapse);
	return 0;
}
