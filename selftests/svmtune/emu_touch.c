// SPDX-License-Identifier: GPL-2.0
/*
 * emu_touch: a small workload on the emulated GPU for the scripted tests
 * (svmtunectl_test.sh's watch test): the GPU writes a fresh buffer of MIB
 * MiB (GPU faults migrate it to the device), then the CPU reads it back
 * (CPU faults migrate it home) and checks every byte. One process, one
 * pass, no test harness: the harness of 6.1 cannot run a single test.
 *
 * Usage: emu_touch [MIB]   (default 8). Exit status 0, or 1 with a message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/svmtune_emu.h>

#include "svmtune_emu_util.h"

int main(int argc, char **argv)
{
	unsigned long size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 8) << 20;
	char *buf, *src;
	int fd;

	if (!size || size > (1UL << 30)) {
		fprintf(stderr, "emu_touch: MIB must be 1 to 1024\n");
		return 1;
	}
	fd = open(EMU_DEV, O_RDWR);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		buf = NULL;
	src = malloc(size);
	if (fd < 0 || !buf || !src) {
		perror("emu_touch");
		return 1;
	}
	memset(src, 0x5a, size);
	if (gpu_access(fd, buf, size, src, SVMTUNE_EMU_WRITE, NULL)) {
		perror("emu_touch: GPU write");
		return 1;
	}
	if (memcmp(buf, src, size)) {
		fprintf(stderr, "emu_touch: the CPU read back other bytes\n");
		return 1;
	}
	munmap(buf, size);
	free(src);
	close(fd);
	return 0;
}
