// SPDX-License-Identifier: GPL-2.0
/*
 * No byte the emulated GPU writes to system memory is lost to reclaim.
 *
 * Shared memory (MAP_SHARED|MAP_ANONYMOUS, a memfd, a tmpfs file) cannot
 * move to device-private memory: the GPU maps it where it is and writes it
 * there. So does a private anonymous page that the range's policy maps
 * remotely. A device write does not go through the CPU's page table, so
 * nothing sets the dirty bit the kernel's reclaim reads: the device driver
 * must mark what it writes dirty. If it does not, a page whose CPU PTE was
 * writable and clean before the GPU wrote it (the CPU read it first, or
 * MADV_FREE cleaned it) is dropped as clean by reclaim, and the CPU and
 * the GPU read zeros, or its old bytes, from then on.
 *
 * A private page the GPU writes in VRAM is no safer: the device-private
 * page takes the flags of the system page it replaces (a MADV_FREE'd
 * page's "clean, not swap-backed" among them) and hands them to the system
 * page it goes back to, which reclaim then drops unless the GPU's write
 * dirtied the device page.
 *
 * Each case puts a buffer in one state (untouched, read by the CPU,
 * written by the CPU; for private memory written and then MADV_FREE'd),
 * has the GPU write a pattern over all of it (in place, or in VRAM and
 * then migrated back to system memory), reclaims it (MADV_PAGEOUT,
 * or a memory cgroup whose memory.max is below what its task allocates),
 * repeated until reclaim really took half the pages, and reads the buffer
 * back through the GPU and the CPU. Swap is on zram
 * (svmtune_reclaim_util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"
#include "svmtune_reclaim_util.h"

#define EMU_DEV "/dev/svmtune_emu0"
#define PAGE 4096UL
#define BUF_SIZE (2UL << 20)
#define NPAGES (BUF_SIZE / PAGE)
/* The cgroup's limit, and the anonymous memory its task then writes. */
#define CG_MAX (4UL << 20)
#define CG_BALLOON (24UL << 20)
/* Rounds of pressure before a test calls reclaim ineffective. */
#define RECLAIM_ROUNDS 8

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

enum backing {
	SHARED_ANON,
	MEMFD,
	TMPFS_FILE,
	PRIVATE_ANON_LAZYFREE,
	PRIVATE_ANON_LAZYFREE_VRAM,
};
enum prior { UNTOUCHED, CPU_READ, CPU_WRITTEN };

static const char *const backing_name[] = {
	"MAP_SHARED|MAP_ANONYMOUS",
	"memfd",
	"tmpfs file",
	"private anonymous, MADV_FREE'd",
	"private anonymous, MADV_FREE'd, written in VRAM and migrated back",
};

FIXTURE(reclaim)
{
	int fd; /* /dev/svmtune_emu0 */
	int ctl; /* /dev/svmtune */
	int file; /* the memfd or tmpfs file, or -1 */
	char dir[64]; /* the tmpfs mount point, or "" */
	int swap; /* svmtune_swap_on()'s result */
	char cgroup[64]; /* the memory cgroup the test entered, or "" */
	char *buf;
	char *pat;
	char *out;
};

FIXTURE_VARIANT(reclaim)
{
	enum backing backing;
	enum prior prior;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(reclaim, shared_anon_untouched) { SHARED_ANON, UNTOUCHED };
FIXTURE_VARIANT_ADD(reclaim, shared_anon_cpu_read) { SHARED_ANON, CPU_READ };
FIXTURE_VARIANT_ADD(reclaim, shared_anon_cpu_written) { SHARED_ANON, CPU_WRITTEN };
FIXTURE_VARIANT_ADD(reclaim, memfd_untouched) { MEMFD, UNTOUCHED };
FIXTURE_VARIANT_ADD(reclaim, memfd_cpu_read) { MEMFD, CPU_READ };
FIXTURE_VARIANT_ADD(reclaim, memfd_cpu_written) { MEMFD, CPU_WRITTEN };
FIXTURE_VARIANT_ADD(reclaim, tmpfs_untouched) { TMPFS_FILE, UNTOUCHED };
FIXTURE_VARIANT_ADD(reclaim, tmpfs_cpu_read) { TMPFS_FILE, CPU_READ };
FIXTURE_VARIANT_ADD(reclaim, tmpfs_cpu_written) { TMPFS_FILE, CPU_WRITTEN };
FIXTURE_VARIANT_ADD(reclaim, private_lazyfree) { PRIVATE_ANON_LAZYFREE, CPU_WRITTEN };
FIXTURE_VARIANT_ADD(reclaim, private_lazyfree_via_vram) {
	PRIVATE_ANON_LAZYFREE_VRAM, CPU_WRITTEN
};
/* clang-format on */

static void fill(char *p, unsigned long size, uint32_t seed)
{
	unsigned long i;

	for (i = 0; i < size; i += sizeof(uint32_t))
		*(uint32_t *)(p + i) = (uint32_t)(i * 2654435761u) ^ seed;
}

/* Pages of @a that differ from @b. */
static unsigned long pages_differing(const char *a, const char *b)
{
	unsigned long i, n = 0;

	for (i = 0; i < NPAGES; i++)
		n += memcmp(a + i * PAGE, b + i * PAGE, PAGE) != 0;
	return n;
}

static int gpu_access(int fd, void *addr, void *buf, uint32_t op,
		      struct svmtune_emu_access *out)
{
	struct svmtune_emu_access a;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.size = BUF_SIZE;
	a.ptr = (uintptr_t)buf;
	a.op = op;
	if (ioctl(fd, SVMTUNE_EMU_IOC_ACCESS, &a))
		return -errno;
	if (out)
		*out = a;
	return 0;
}

FIXTURE_SETUP(reclaim)
{
	self->file = -1;
	self->dir[0] = '\0';
	self->swap = 0;
	self->cgroup[0] = '\0';
	self->buf = MAP_FAILED;
	if (geteuid() != 0) {
		SETUP_SKIP("turns swap on and mounts tmpfs: needs root");
		return;
	}
	self->fd = open(EMU_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", EMU_DEV, strerror(errno));
	self->ctl = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->ctl, 0);
	self->swap = svmtune_swap_on(128);
	ASSERT_LE(0, self->swap)
	TH_LOG("no swap and none on zram (%s): reclaim could only drop pages",
	       strerror(-self->swap));
	self->pat = malloc(BUF_SIZE);
	self->out = malloc(BUF_SIZE);
	ASSERT_NE(NULL, self->pat);
	ASSERT_NE(NULL, self->out);
	fill(self->pat, BUF_SIZE,
	     0x5eed0000 + variant->backing * 16 + variant->prior);
}

FIXTURE_TEARDOWN(reclaim)
{
	if (geteuid() != 0)
		return;
	if (self->buf != MAP_FAILED)
		munmap(self->buf, BUF_SIZE);
	if (self->file >= 0)
		close(self->file);
	/* The pages charged to the cgroup went with the buffer. */
	if (self->cgroup[0])
		svmtune_cgroup_leave(self->cgroup);
	if (self->dir[0]) {
		umount2(self->dir, MNT_DETACH);
		rmdir(self->dir);
	}
	if (self->swap == 1)
		svmtune_swap_off();
	free(self->pat);
	free(self->out);
	close(self->ctl);
	close(self->fd);
}

/* The buffer of @variant's backing, mapped in the calling task. */
static void map_buffer(struct __test_metadata *_metadata,
		       FIXTURE_DATA(reclaim) * self,
		       const FIXTURE_VARIANT(reclaim) * variant)
{
	char path[96];

	switch (variant->backing) {
	case SHARED_ANON:
		self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case MEMFD:
		self->file = memfd_create("svmtune-reclaim", MFD_CLOEXEC);
		ASSERT_LE(0, self->file);
		ASSERT_EQ(0, ftruncate(self->file, BUF_SIZE));
		self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				 MAP_SHARED, self->file, 0);
		break;
	case TMPFS_FILE:
		snprintf(self->dir, sizeof(self->dir),
			 "/tmp/svmtune-reclaim-XXXXXX");
		ASSERT_NE(NULL, mkdtemp(self->dir));
		ASSERT_EQ(0, mount("tmpfs", self->dir, "tmpfs", 0, "size=16m"))
		TH_LOG("mount tmpfs: %s", strerror(errno));
		snprintf(path, sizeof(path), "%s/buf", self->dir);
		self->file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		ASSERT_LE(0, self->file);
		ASSERT_EQ(0, ftruncate(self->file, BUF_SIZE));
		self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				 MAP_SHARED, self->file, 0);
		break;
	case PRIVATE_ANON_LAZYFREE:
	case PRIVATE_ANON_LAZYFREE_VRAM:
		self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->buf);
		madvise(self->buf, BUF_SIZE, MADV_NOHUGEPAGE);
		/* The GPU maps it in place, or migrates all of it. */
		ASSERT_EQ(0, svmtune_set_policy(
				     self->ctl, self->buf, BUF_SIZE,
				     SVMTUNE_POLICY_ACCESS |
					     SVMTUNE_POLICY_GRANULARITY,
				     21, 0,
				     variant->backing == PRIVATE_ANON_LAZYFREE ?
					     SVMTUNE_ACCESS_REMOTE :
					     SVMTUNE_ACCESS_MIGRATE));
		break;
	}
	ASSERT_NE(MAP_FAILED, self->buf);
}

/*
 * The whole case: map, put the pages in the variant's state, GPU write,
 * @reclaim, read back. @reclaim returns 0 or -errno.
 */
static void gpu_write_reclaim_read(struct __test_metadata *_metadata,
				   FIXTURE_DATA(reclaim) * self,
				   const FIXTURE_VARIANT(reclaim) * variant,
				   int (*reclaim)(char *buf))
{
	struct svmtune_emu_access acc = { 0 };
	char sum = 0;
	unsigned long i, bad;
	long resident = -1;
	int round, ret;

	map_buffer(_metadata, self, variant);
	switch (variant->prior) {
	case UNTOUCHED:
		break;
	case CPU_READ:
		/* Writable, clean PTEs (shared mappings need no write notify). */
		for (i = 0; i < BUF_SIZE; i += PAGE)
			sum += __atomic_load_n(&self->buf[i], __ATOMIC_RELAXED);
		break;
	case CPU_WRITTEN:
		fill(self->buf, BUF_SIZE, 0xc0ffee);
		break;
	}
	/* The loads must happen: the sum goes somewhere. */
	asm volatile("" : : "r"(sum));
	if (variant->backing == PRIVATE_ANON_LAZYFREE ||
	    variant->backing == PRIVATE_ANON_LAZYFREE_VRAM)
		/* Clean again, and free to drop until written. */
		ASSERT_EQ(0, madvise(self->buf, BUF_SIZE, MADV_FREE));

	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->pat,
				SVMTUNE_EMU_WRITE, &acc));
	if (variant->backing == PRIVATE_ANON_LAZYFREE_VRAM) {
		struct svmtune_emu_migrate m;

		/* Written in VRAM, then back in system memory. */
		ASSERT_EQ(NPAGES, acc.migrated);
		ASSERT_EQ(0, acc.remote_accesses);
		memset(&m, 0, sizeof(m));
		m.addr = (uintptr_t)self->buf;
		m.size = BUF_SIZE;
		m.dest = SVMTUNE_EMU_TO_SYSTEM;
		ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_EMU_IOC_MIGRATE, &m));
		ASSERT_EQ(NPAGES, m.migrated);
	} else {
		/* The GPU wrote system memory, in place. */
		ASSERT_EQ(0, acc.migrated);
		ASSERT_EQ(NPAGES, acc.remote_accesses);
	}

	/*
	 * Reclaim must have taken pages, or the test shows nothing. Which
	 * pages memcg reclaim takes depends on LRU aging (a lazily freed page
	 * found dirty is activated as it turns swap-backed), so pressure is
	 * repeated, a bounded number of rounds, until it took half of them.
	 */
	for (round = 0; round < RECLAIM_ROUNDS; round++) {
		ret = reclaim(self->buf);
		ASSERT_EQ(0, ret) TH_LOG("reclaim: %s", strerror(-ret));
		resident = svmtune_resident_pages(self->buf, BUF_SIZE);
		ASSERT_LE(0, resident);
		if (resident <= (long)(NPAGES / 2))
			break;
	}
	ASSERT_GE(NPAGES / 2, resident)
	TH_LOG("%s: %d rounds of reclaim left %ld of %lu pages resident",
	       backing_name[variant->backing], round, resident, NPAGES);

	memset(self->out, 0, BUF_SIZE);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->out,
				SVMTUNE_EMU_READ, NULL));
	bad = pages_differing(self->out, self->pat);
	EXPECT_EQ(0, bad)
	TH_LOG("%s: the GPU read back %lu of %lu pages wrong after reclaim took %lu",
	       backing_name[variant->backing], bad, NPAGES, NPAGES - resident);
	bad = pages_differing(self->buf, self->pat);
	EXPECT_EQ(0, bad)
	TH_LOG("%s: the CPU read back %lu of %lu pages wrong after reclaim took %lu",
	       backing_name[variant->backing], bad, NPAGES, NPAGES - resident);
}

/*
 * Twice: a lazily freed page found dirty is made swap-backed again by the
 * first pass (try_to_unmap_one()) and swapped out by the second.
 */
static int pageout(char *buf)
{
	if (madvise(buf, BUF_SIZE, MADV_PAGEOUT))
		return -errno;
	return madvise(buf, BUF_SIZE, MADV_PAGEOUT) ? -errno : 0;
}

TEST_F(reclaim, gpu_written_pages_survive_madv_pageout)
{
	gpu_write_reclaim_read(_metadata, self, variant, pageout);
}

static int balloon(char *buf)
{
	/* Twice, for the same reason as pageout(). */
	if (svmtune_balloon(CG_BALLOON))
		return -errno;
	return svmtune_balloon(CG_BALLOON);
}

/*
 * Real pressure: the test task in a memory cgroup of CG_MAX bytes, the
 * buffer's pages charged to it, then six times that much anonymous memory
 * written from the same task. Reclaim picks the pages itself.
 */
TEST_F(reclaim, gpu_written_pages_survive_memcg_pressure)
{
	int ret;

	snprintf(self->cgroup, sizeof(self->cgroup), "svmtune-reclaim-%d",
		 getpid());
	ret = svmtune_cgroup_enter(self->cgroup, CG_MAX);
	ASSERT_EQ(0, ret) TH_LOG("memory cgroup: %s", strerror(-ret));
	gpu_write_reclaim_read(_metadata, self, variant, balloon);
}

TEST_HARNESS_MAIN
