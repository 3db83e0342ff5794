// SPDX-License-Identifier: GPL-2.0
/*
 * kfdbed_bench: svmtune_bench's workloads on KFD's own SVM code (the KFD
 * test bed), so that KFD's policy ("kfd-default": KFD alone, its 2 MiB
 * granularity) and svmtune's policies on KFD are measured on the same
 * emulated hardware. Written on kfdsvm, as a HIP program would be.
 *
 * Workloads, on a managed buffer the CPU initialised (default 8 MiB):
 *   stream   GPU 0 reads all of it, 4 KiB at a time, in order
 *   sparse   GPU 0 reads 128 random 4 KiB pages
 *   stride   GPU 0 reads the first 4 KiB of every 256 KiB
 *   pingpong GPU 0 reads a page, the CPU writes it; 8 rounds on each of
 *            4 pages 2 MiB apart
 *   reuse    GPU 0 reads all of it (its pages go to VRAM), not measured;
 *            then, measured, 8 CPU threads write it, each its own eighth,
 *            a page at a time, as an OpenMP loop over a buffer the
 *            program freed and malloc handed out again would (ROCm's
 *            rocm-libraries pull 12323: KFD serialises these CPU faults,
 *            Documentation/notes/kfd-reuse.md); every byte checked after
 *
 * Usage: kfdbed_bench CONFIG [MIB]. CONFIG names the policy in effect (the
 * caller sets it up: tools/bench/kfd-bench); one CSV row per workload:
 *   config,workload,ms,gpu_faults,dropped,pages_to_vram,pages_to_ram,
 *   mib_moved,remote_accesses
 * from the test bed's counters of GPU 0: faults KFD served, faults it
 * dropped (its 2 ms retry filter, or svmtune_kfd's per window), pages
 * copied each way by the SDMA; and the page reads the GPU's page table
 * served from system memory (or a peer's VRAM), over the link, each read
 * counted. Every page the GPU reads is checked.
 *
 * The buffer is aligned to its size rounded up to a power of two, so that
 * KFD does not split it in two ranges where it crosses a multiple of its
 * range limit (1/32 of VRAM, 2 MiB to 1 GiB: 8 MiB on the test bed's
 * 256 MiB, 1 GiB on an MI300X): at 2 MiB alignment, where the buffer fell
 * changed what the adaptive policy moved on sparse from run to run (222 to
 * 277 pages).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfdsvm.h"

#define PAGE 4096UL
#define MIB (1UL << 20)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Page reads served over the link (system memory, a peer's VRAM). */
static unsigned long long remote_accesses;

/* GPU 0 reads the page at @p, which must hold @want in every byte. */
static int read_page(struct kfdsvm_ctx *ctx, unsigned char *p,
		     unsigned char want)
{
	struct kfdbed_access_args a;
	unsigned char buf[PAGE];
	size_t i;

	if (kfdsvm_access(ctx->bed, ctx->gpu_id[0], p, buf, PAGE, 0, &a))
		return -errno;
	remote_accesses += a.sys_pages + a.peer_pages;
	for (i = 0; i < PAGE; i++)
		if (buf[i] != want)
			return -EIO;
	return 0;
}

/* reuse: the CPU threads, and one thread's slice. */
#define REUSE_THREADS 8

struct reuse_slice {
	pthread_t thread;
	unsigned char *start;
	size_t size;
};

static void *reuse_write(void *arg)
{
	struct reuse_slice *sl = arg;
	size_t i;

	for (i = 0; i < sl->size; i += PAGE)
		memset(sl->start + i, 0xa5, PAGE);
	return NULL;
}

/* What a workload does before it is measured: reuse's GPU phase. */
static int prepare(struct kfdsvm_ctx *ctx, const char *name, unsigned char *buf,
		   size_t size)
{
	size_t i;
	int r = 0;

	if (strcmp(name, "reuse"))
		return 0;
	for (i = 0; i < size && !r; i += PAGE)
		r = read_page(ctx, buf + i, 0x5a);
	return r;
}

/* reuse's measured part: the CPU threads write the buffer back. */
static int reuse(unsigned char *buf, size_t size)
{
	struct reuse_slice sl[REUSE_THREADS];
	size_t each = size / REUSE_THREADS / PAGE * PAGE, i;
	int t, started;

	for (started = 0; started < REUSE_THREADS; started++) {
		sl[started].start = buf + started * each;
		sl[started].size = started == REUSE_THREADS - 1 ?
					   size - started * each :
					   each;
		if (pthread_create(&sl[started].thread, NULL, reuse_write,
				   &sl[started]))
			break;
	}
	for (t = 0; t < started; t++)
		pthread_join(sl[t].thread, NULL);
	if (started < REUSE_THREADS)
		return -EAGAIN;
	for (i = 0; i < size; i++)
		if (buf[i] != 0xa5)
			return -EIO;
	return 0;
}

static int workload(struct kfdsvm_ctx *ctx, const char *name,
		    unsigned char *buf, size_t size)
{
	unsigned int seed = 7;
	size_t i;
	int r = 0, round;

	if (!strcmp(name, "stream")) {
		for (i = 0; i < size && !r; i += PAGE)
			r = read_page(ctx, buf + i, 0x5a);
	} else if (!strcmp(name, "sparse")) {
		for (i = 0; i < 128 && !r; i++)
			r = read_page(ctx,
				      buf + (rand_r(&seed) % (size / PAGE)) *
						      PAGE,
				      0x5a);
	} else if (!strcmp(name, "stride")) {
		for (i = 0; i < size && !r; i += 256 * 1024)
			r = read_page(ctx, buf + i, 0x5a);
	} else if (!strcmp(name, "reuse")) {
		r = reuse(buf, size);
	} else {
		/* Each page's bytes are the round's number after the CPU's write. */
		for (i = 0; i < 4 && i * 2 * MIB < size; i++)
			memset(buf + i * 2 * MIB, 0, PAGE);
		for (round = 0; round < 8 && !r; round++)
			for (i = 0; i < 4 && i * 2 * MIB < size && !r; i++) {
				r = read_page(ctx, buf + i * 2 * MIB, round);
				memset(buf + i * 2 * MIB, round + 1, PAGE);
			}
	}
	return r;
}

int main(int argc, char **argv)
{
	static const char *const workloads[] = { "stream", "sparse", "stride",
						 "pingpong", "reuse" };
	struct kfdbed_gpu_stats s0, s1;
	struct kfdsvm_ctx ctx;
	unsigned int w;
	size_t size, align = 2 * MIB;
	int r;

	if (argc < 2 || argc > 3 || !argv[1][0] || strchr(argv[1], ',')) {
		fprintf(stderr, "usage: kfdbed_bench CONFIG [MIB]\n");
		return 2;
	}
	size = (argc > 2 ? strtoul(argv[2], NULL, 0) : 8) * MIB;
	if (size < 2 * MIB || size > 256 * MIB) {
		fprintf(stderr, "kfdbed_bench: MIB is 2 to 256\n");
		return 2;
	}
	while (align < size)
		align *= 2;
	if (kfdsvm_open(&ctx)) {
		perror("kfdbed_bench: /dev/kfd, /dev/kfdbed");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (w = 0; w < ARRAY_SIZE(workloads); w++) {
		unsigned char *buf =
			kfdsvm_malloc_managed_aligned(&ctx, size, align);
		unsigned long long to_vram, to_ram;
		double t0, ms;

		if (!buf) {
			perror("kfdbed_bench: malloc_managed");
			return 1;
		}
		memset(buf, 0x5a, size);
		r = prepare(&ctx, workloads[w], buf, size);
		if (r) {
			fprintf(stderr, "kfdbed_bench: %s under %s: %s\n",
				workloads[w], argv[1], strerror(-r));
			return 1;
		}
		s0 = kfdsvm_info(ctx.bed).gpus[0];
		remote_accesses = 0;
		t0 = now_ms();
		r = workload(&ctx, workloads[w], buf, size);
		ms = now_ms() - t0;
		s1 = kfdsvm_info(ctx.bed).gpus[0];
		kfdsvm_free(&ctx, buf, size);
		if (r) {
			fprintf(stderr, "kfdbed_bench: %s under %s: %s\n",
				workloads[w], argv[1], strerror(-r));
			return 1;
		}
		to_vram = s1.pages_to_vram - s0.pages_to_vram;
		to_ram = s1.pages_to_ram - s0.pages_to_ram;
		printf("%s,%s,%.3f,%llu,%llu,%llu,%llu,%.3f,%llu\n", argv[1],
		       workloads[w], ms,
		       (unsigned long long)(s1.faults_handled -
					    s0.faults_handled),
		       (unsigned long long)(s1.faults_unserved -
					    s0.faults_unserved),
		       to_vram, to_ram, (double)(to_vram + to_ram) * PAGE / MIB,
		       remote_accesses);
	}
	kfdsvm_close(&ctx);
	return 0;
}
