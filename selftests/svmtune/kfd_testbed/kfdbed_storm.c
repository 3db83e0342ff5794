// SPDX-License-Identifier: GPL-2.0
/*
 * KFD test bed: a fault storm on KFD's own code, as MI200/MI300 make one.
 *
 * Two GPUs run hundreds of concurrent waves (KFDBED_IOC_WAVES) over one
 * buffer, so that many retry faults are in flight at once, the retry CAM
 * holds back their repeats, KFD's fault handler finds them in batches and
 * drops the duplicates it has already served:
 *
 *  1. The CPU writes the buffer (data A).
 *  2. GPU 0's waves read it in a grid-stride loop (access k of wave w is
 *     page k * N + w: the waves sweep the buffer side by side, many on one
 *     2 MiB window at a time) and check every page: KFD migrates it to
 *     GPU 0's VRAM.
 *  3. GPU 1's waves all read the same 256 KiB (a table every wave looks
 *     up): the retry CAM holds back the repeats of each address in flight.
 *  4. GPU 1's waves write all of it (data B), each wave its own part: KFD
 *     moves the pages from GPU 0's VRAM.
 *  5. GPU 0's waves (twice as many) read random pages of it, checking
 *     data B, while the pages move back.
 *  6. The CPU checks every byte is data B.
 *
 * Each step must reach every page it set out to, with no fault failed
 * and no byte wrong; the storm must have been one (more than one wave
 * stalled at once and the fault handler finding more than one fault
 * waiting). The CAM's held-back repeats, the faults raised again after
 * KFD dropped them, and KFD's drops and stale faults are printed per step.
 *
 * Usage: kfdbed_storm [WAVES [MIB [SEED]]] (default 256 waves over 64 MiB;
 * the test bed loaded with num_gpus=2 and room for the buffer in each
 * GPU's VRAM). Prints "ok - " and "not ok - " lines (kfdbed_check.h), and
 * per step a "storm-csv,step,rc,ms,accesses,faults,held,reraised,
 * overflows,max_stalled,handled,dropped,stale,batch,to_vram,to_ram,ptes,
 * tlb_flushes,stale_served" line for make bench; exits 1 on a failed
 * check.
 *
 * "kfdbed_storm filters [WAVES [MIB]]", with svmtune_kfd attached: the
 * grid-stride read of a fresh buffer under svmtune_kfd's retry filter per
 * range (KFD's own) and per window, each counting the faults on pages
 * already mapped that KFD served again in full (duplicates); the filter
 * per window must not serve many more than KFD's (at most twice as many,
 * and 64: the share older than 2 ms when handled varies with the
 * machine's speed). A filter that let every duplicate through would.
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

#define DELTA(f) ((unsigned long long)(s1.f - s0.f))

/*
 * Run one step and print what it did: the run's counters and the GPU's
 * (KFD's handler) over the step.
 */
static int step(int bed, unsigned int g, const char *what,
		struct kfdbed_waves_args *w)
{
	struct kfdbed_gpu_stats s0, s1;
	int r;

	s0 = kfdsvm_info(bed).gpus[g];
	r = ioctl(bed, KFDBED_IOC_WAVES, w);
	if (r)
		r = -errno;
	s1 = kfdsvm_info(bed).gpus[g];
	printf("# %s: %d, %llu accesses in %.1f ms, %llu faults raised, %llu held back, %llu re-raised, %llu overflows, %llu stalls (at most %llu at once), %llu mismatches, VRAM %llu sys %llu peer %llu pages\n",
	       what, r, (unsigned long long)w->done, w->ns / 1e6,
	       (unsigned long long)w->faults, (unsigned long long)w->held,
	       (unsigned long long)w->reraised,
	       (unsigned long long)w->overflows, (unsigned long long)w->stalls,
	       (unsigned long long)w->max_stalled,
	       (unsigned long long)w->mismatches,
	       (unsigned long long)w->vram_pages,
	       (unsigned long long)w->sys_pages,
	       (unsigned long long)w->peer_pages);
	printf("# %s: KFD handled %llu faults (%llu failed, %llu dropped with the page unmapped, %llu already mapped, %llu of those served again), largest batch %llu, %llu hmm -EAGAIN, %llu pages to VRAM, %llu to RAM\n",
	       what, DELTA(faults_handled), DELTA(faults_failed),
	       DELTA(faults_dropped), DELTA(faults_stale),
	       DELTA(faults_stale_served), (unsigned long long)s1.ih_batch_max,
	       DELTA(hmm_eagain), DELTA(pages_to_vram), DELTA(pages_to_ram));
	/* For make bench (tools/bench/kfd-storm): one CSV line per step. */
	printf("storm-csv,%s,%d,%.1f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
	       what, r, w->ns / 1e6, (unsigned long long)w->done,
	       (unsigned long long)w->faults, (unsigned long long)w->held,
	       (unsigned long long)w->reraised,
	       (unsigned long long)w->overflows,
	       (unsigned long long)w->max_stalled, DELTA(faults_handled),
	       DELTA(faults_dropped), DELTA(faults_stale),
	       (unsigned long long)s1.ih_batch_max, DELTA(pages_to_vram),
	       DELTA(pages_to_ram), DELTA(pte_updates), DELTA(tlb_flushes),
	       DELTA(faults_stale_served));
	if (r && w->fault_error)
		printf("# %s: fault at 0x%llx failed: %d\n", what,
		       (unsigned long long)w->fault_addr, w->fault_error);
	return r;
}

static void waves(struct kfdbed_waves_args *w, void *p, size_t size,
		  uint32_t gpu, unsigned int n, uint32_t pattern,
		  uint32_t flags, uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->va = (uintptr_t)p;
	w->size = size;
	w->gpu_id = gpu;
	w->waves = n;
	w->pattern = pattern;
	w->flags = flags;
	w->seed = seed;
}

static void fill(uint64_t *p, size_t size, uint64_t seed)
{
	size_t i;

	for (i = 0; i < size / 8; i++)
		p[i] = kfdbed_pattern_word((uintptr_t)&p[i], seed);
}

static size_t wrong_pages(const uint64_t *p, size_t size, uint64_t seed)
{
	size_t i, bad = 0;

	for (i = 0; i < size / 8; i += 512) {
		size_t j;

		for (j = 0; j < 512; j++)
			if (p[i + j] !=
			    kfdbed_pattern_word((uintptr_t)&p[i + j], seed))
				break;
		bad += j < 512;
	}
	return bad;
}

static int write_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* The grid-stride read of a fresh buffer under each retry filter. */
static int filter_compare(int bed, uint32_t g0, unsigned int n, size_t mib)
{
	static const char *const mode[] = { "range", "window" };
	unsigned long long served[2] = { 0 }, stale[2] = { 0 };
	size_t size = mib << 20, pages = size / 4096;
	struct kfdbed_gpu_stats s0, s1;
	struct kfdbed_waves_args w;
	int m, r;

	for (m = 0; m < 2; m++) {
		uint64_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char what[64];

		if (p == MAP_FAILED)
			return 1;
		fill(p, size, 0xf117 + m);
		r = write_knob("/sys/kernel/svmtune/kfd/retry_filter", mode[m]);
		CHECK(!r, "filters: retry_filter %s", mode[m]);
		waves(&w, p, size, g0, n, KFDBED_WAVES_GRID,
		      KFDBED_WAVES_VERIFY, 0xf117 + m);
		snprintf(what, sizeof(what), "grid read, filter per %s",
			 mode[m]);
		s0 = kfdsvm_info(bed).gpus[0];
		r = step(bed, 0, what, &w);
		s1 = kfdsvm_info(bed).gpus[0];
		served[m] = DELTA(faults_stale_served);
		stale[m] = DELTA(faults_stale);
		CHECK(!r && w.done == pages && !w.mismatches,
		      "filters: %u waves read %zu MiB with the filter per %s, every page right (%llu wrong)",
		      n, mib, mode[m], (unsigned long long)w.mismatches);
		munmap(p, size);
	}
	CHECK(served[1] <= 2 * served[0] + 64,
	      "filters: per window, KFD served %llu of %llu duplicates again; per range (KFD's own) %llu of %llu",
	      served[1], stale[1], served[0], stale[0]);
	write_knob("/sys/kernel/svmtune/kfd/retry_filter", "window");
	return kfdbed_fails != 0;
}

int main(int argc, char **argv)
{
	int filter_mode = argc > 1 && !strcmp(argv[1], "filters");
	char **arg = argv + filter_mode;
	int nargs = argc - filter_mode;
	unsigned int n = nargs > 1 ? strtoul(arg[1], NULL, 0) : 256;
	size_t mib = nargs > 2 ? strtoul(arg[2], NULL, 0) : 64;
	uint64_t seed = nargs > 3 ? strtoull(arg[3], NULL, 0) : 0x5707;
	size_t size = mib << 20, pages = size / 4096;
	unsigned long long max_batch = 0, max_stalled = 0;
	int kfd = open("/dev/kfd", O_RDWR), bed = open("/dev/kfdbed", O_RDWR);
	struct kfdbed_info_args in;
	struct kfdbed_waves_args w;
	uint32_t g0, g1;
	uint64_t *p;
	size_t bad;
	int r;

	CHECK(kfd >= 0 && bed >= 0, "storm: open /dev/kfd and /dev/kfdbed");
	if (kfd < 0 || bed < 0)
		return 1;
	in = kfdsvm_info(bed);
	CHECK(in.version == KFDBED_VERSION && in.num_gpus >= 2,
	      "storm: test bed version %u with %u GPUs (2 needed)", in.version,
	      in.num_gpus);
	if (in.num_gpus < 2 || !n || !size)
		return 1;
	g0 = in.gpus[0].gpu_id;
	g1 = in.gpus[1].gpu_id;
	if (filter_mode)
		return filter_compare(bed, g0, n, mib);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	fill(p, size, seed);

	waves(&w, p, size, g0, n, KFDBED_WAVES_GRID, KFDBED_WAVES_VERIFY, seed);
	r = step(bed, 0, "grid read on GPU 0", &w);
	CHECK(!r && w.done == pages && !w.mismatches,
	      "storm: %u waves on GPU 0 read %zu MiB in a grid-stride loop, every page right (%llu of %zu pages, %llu wrong)",
	      n, mib, (unsigned long long)w.done, pages,
	      (unsigned long long)w.mismatches);
	max_stalled = w.max_stalled;
	max_batch = kfdsvm_info(bed).gpus[0].ih_batch_max;

	waves(&w, p, size, g1, n, KFDBED_WAVES_SHARED, KFDBED_WAVES_VERIFY,
	      seed);
	w.stride = 64;
	r = step(bed, 1, "shared table read on GPU 1", &w);
	CHECK(!r && w.done == (pages / n ?: 1) * n && !w.mismatches &&
		      w.faults > 0 && w.held > 0,
	      "storm: %u waves on GPU 1 read one 256 KiB table, every page right (%llu accesses, %llu wrong); %llu faults raised, the retry CAM held back %llu repeats",
	      n, (unsigned long long)w.done, (unsigned long long)w.mismatches,
	      (unsigned long long)w.faults, (unsigned long long)w.held);

	waves(&w, p, size, g1, n, KFDBED_WAVES_PARTITION, KFDBED_WAVES_WRITE,
	      seed + 1);
	r = step(bed, 1, "partition write on GPU 1", &w);
	CHECK(!r && w.done == pages,
	      "storm: %u waves on GPU 1 write all of it, each its own part (%llu of %zu pages)",
	      n, (unsigned long long)w.done, pages);
	if (w.max_stalled > max_stalled)
		max_stalled = w.max_stalled;
	if (kfdsvm_info(bed).gpus[1].ih_batch_max > max_batch)
		max_batch = kfdsvm_info(bed).gpus[1].ih_batch_max;

	waves(&w, p, size, g0, 2 * n, KFDBED_WAVES_RANDOM, KFDBED_WAVES_VERIFY,
	      seed + 1);
	w.accesses = pages / (8 * n) ?: 1;
	r = step(bed, 0, "random read on GPU 0", &w);
	CHECK(!r && w.done == w.accesses * 2 * n && !w.mismatches,
	      "storm: %u waves on GPU 0 read %llu random pages, GPU 1's data in every one (%llu wrong)",
	      2 * n, (unsigned long long)w.done,
	      (unsigned long long)w.mismatches);
	if (w.max_stalled > max_stalled)
		max_stalled = w.max_stalled;

	bad = wrong_pages(p, size, seed + 1);
	CHECK(!bad,
	      "storm: the CPU reads GPU 1's data in every byte (%zu pages wrong)",
	      bad);
	/* One wave per GPU (make bench's smallest point) makes no storm. */
	if (n > 1)
		CHECK(max_stalled > 1 && max_batch > 1,
		      "storm: a storm it was: up to %llu waves stalled at once, up to %llu faults waiting in the handler's ring",
		      max_stalled, max_batch);
	else
		printf("# one wave per GPU: no storm to check (up to %llu stalled, %llu waiting)\n",
		       max_stalled, max_batch);

	munmap(p, size);
	close(bed);
	close(kfd);
	return kfdbed_fails != 0;
}
