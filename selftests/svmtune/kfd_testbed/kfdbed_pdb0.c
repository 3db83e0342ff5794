// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: what GFX9's 2 MiB page-table entries cost, on KFD's own
 * code.
 *
 * amdgpu maps a fragment of 2 MiB and up as one PDB0 entry used as a PTE
 * and frees the page table below it; unmapping any part of that 2 MiB
 * (the MMU notifier's unlocked update) clears the whole entry, and the GPU
 * faults again on every other page of it. Here:
 *
 *  1. A 2 MiB-aligned block, written by the CPU, is prefetched to the
 *     GPU's VRAM with 4 KiB granularity (KFD migrates and maps the whole
 *     range at once: one 2 MiB fragment, one PDB0 entry).
 *  2. The GPU reads a page of it without a fault.
 *  3. The CPU reads one page in the middle: KFD migrates that 4 KiB
 *     window back (granularity 4 KiB), unmapping it from the GPU, which
 *     clears the PDB0 entry: 511 other pages lost.
 *  4. The GPU reads the block: it faults on every page again (at 4 KiB
 *     granularity, one fault per page at least), and reads the CPU's
 *     data.
 *
 * On a test bed with a flat page table of 4 KiB entries, step 4 would
 * fault once (on the page the CPU took). Prints "ok - " lines
 * (kfdbed_check.h); exits 1 on a failed check. Needs the test bed with
 * one GPU or more.
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

#include <linux/kfd_ioctl.h>

#include "kfdbed_uapi.h"
#include "kfdbed_check.h"
#include "kfdsvm.h"

#define SZ_2M (2UL << 20)
#define PAGES (SZ_2M / 4096)

static uint32_t word(size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ 0x9db0;
}

#define DELTA(f) ((unsigned long long)(s1.f - s0.f))

int main(void)
{
	int kfd = open("/dev/kfd", O_RDWR), bed = open("/dev/kfdbed", O_RDWR);
	struct kfd_ioctl_svm_attribute attr[3];
	struct kfdbed_gpu_stats s0, s1;
	struct kfdbed_access_args a;
	uint32_t gpu, *p, *buf;
	size_t i, bad = 0;
	char *raw;
	int r;

	CHECK(kfd >= 0 && bed >= 0, "pdb0: open /dev/kfd and /dev/kfdbed");
	if (kfd < 0 || bed < 0)
		return 1;
	s0 = kfdsvm_info(bed).gpus[0];
	gpu = s0.gpu_id;
	raw = mmap(NULL, 2 * SZ_2M, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = malloc(SZ_2M);
	if (raw == MAP_FAILED || !buf)
		return 1;
	p = (uint32_t *)(((uintptr_t)raw + SZ_2M - 1) & ~(SZ_2M - 1));
	madvise(p, SZ_2M, MADV_NOHUGEPAGE);
	for (i = 0; i < SZ_2M / 4; i++)
		p[i] = word(i);

	attr[0].type = KFD_IOCTL_SVM_ATTR_ACCESS;
	attr[0].value = gpu;
	attr[1].type = KFD_IOCTL_SVM_ATTR_GRANULARITY;
	attr[1].value = 0;
	attr[2].type = KFD_IOCTL_SVM_ATTR_PREFETCH_LOC;
	attr[2].value = gpu;
	r = kfdsvm_svm(kfd, KFD_IOCTL_SVM_OP_SET_ATTR, p, SZ_2M, attr, 3);
	s1 = kfdsvm_info(bed).gpus[0];
	CHECK(!r && DELTA(pdb0_maps) == 1 && DELTA(pages_to_vram) == PAGES,
	      "pdb0: a 2 MiB block prefetched to VRAM is mapped by one PDB0 entry (%llu PDB0 entries, %llu pages to VRAM)",
	      DELTA(pdb0_maps), DELTA(pages_to_vram));

	s0 = s1;
	r = kfdsvm_access(bed, gpu, p, buf, 4096, 0, &a);
	CHECK(!r && !a.faults && a.vram_pages == 1 && buf[0] == word(0),
	      "pdb0: the GPU reads through it without a fault (%u faults)",
	      a.faults);

	(void)__atomic_load_n(&p[(SZ_2M / 2) / 4], __ATOMIC_RELAXED);
	s1 = kfdsvm_info(bed).gpus[0];
	CHECK(DELTA(pages_to_ram) == 1 && DELTA(pdb0_clears) == 1 &&
		      DELTA(pdb0_pages_lost) == PAGES - 1,
	      "pdb0: a CPU read of one page moves 4 KiB back and clears the whole entry (%llu pages to RAM, %llu entries cleared, %llu other pages lost)",
	      DELTA(pages_to_ram), DELTA(pdb0_clears), DELTA(pdb0_pages_lost));

	s0 = s1;
	r = kfdsvm_access(bed, gpu, p, buf, SZ_2M, 0, &a);
	s1 = kfdsvm_info(bed).gpus[0];
	for (i = 0; i < SZ_2M / 4; i++)
		bad += buf[i] != word(i);
	CHECK(!r && !bad,
	      "pdb0: the GPU then reads the block right (%zu words wrong)",
	      bad);
	CHECK(a.faults >= PAGES,
	      "pdb0: and faults on every page of it again, as on amdgpu: %u faults for %lu pages (KFD handled %llu, dropped %llu)",
	      a.faults, PAGES, DELTA(faults_handled), DELTA(faults_dropped));

	munmap(raw, 2 * SZ_2M);
	free(buf);
	close(bed);
	close(kfd);
	return kfdbed_fails != 0;
}
