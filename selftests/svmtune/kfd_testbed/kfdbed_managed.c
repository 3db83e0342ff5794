// SPDX-License-Identifier: GPL-2.0
/*
 * kfdbed_managed: a HIP managed-memory program, written on kfdsvm (the
 * HIP calls it stands for are in kfdsvm.h), run on KFD's own SVM code in
 * the KFD test bed. Every result is checked against the CPU's own
 * computation:
 *
 *  1. vector add: c = a + b, the CPU initialises a and b, each GPU computes
 *     its share in 64 KiB blocks (first touch: GPU retry faults, KFD
 *     migrates to that GPU's VRAM), the CPU reads c (CPU faults, KFD
 *     migrates back);
 *  2. hipMemPrefetchAsync(c, GPU 0): GPU 0 reads c with no fault, from
 *     its VRAM; prefetch to the CPU: the CPU reads it without KFD;
 *  3. ReadMostly on a: every GPU reads it; unset on its second half,
 *     KFD keeps the flag on the first half only (KFD cuts ranges at
 *     1/32 of the smallest VRAM, 2 MiB with the test bed's 64 MiB, so the
 *     half falls on a range boundary and no range is split: the splits
 *     are kfdbed_test splitcount's);
 *  4. PreferredLocation CPU and AccessedBy GPU 0 on b: GPU 0 reads b where
 *     it is, in system memory, without migrating it;
 *  5. a 3-point stencil, iterated on alternating GPUs (the data moves from
 *     one GPU's VRAM to the other's through KFD) and checked on the CPU;
 *  6. a partial munmap (on a range boundary, as in 3), the rest still
 *     read right;
 *     hipFree: the VRAM the program held is given back.
 *
 * Usage: kfdbed_managed [MIB] (default 8 MiB per array). Prints
 * "ok - ..." / "not ok - ..." lines; exit status 1 if any check failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfdbed_check.h"
#include "kfdsvm.h"

#define BLOCK (64UL << 10)
#define STENCIL_ROUNDS 4

static uint64_t vram_used(struct kfdsvm_ctx *ctx)
{
	struct kfdbed_info_args info = kfdsvm_info(ctx->bed);
	uint64_t used = 0;
	unsigned int i;

	for (i = 0; i < info.num_gpus; i++)
		used += info.gpus[i].vram_used;
	return used;
}

/* The GPUs' share of [0, n) words: GPU g computes [first, last). */
static void share(size_t n, unsigned int g, unsigned int gpus, size_t *first,
		  size_t *last)
{
	size_t words_per_block = BLOCK / sizeof(uint32_t);
	size_t blocks = n / words_per_block;

	*first = blocks * g / gpus * words_per_block;
	*last = blocks * (g + 1) / gpus * words_per_block;
}

/* c[i] = a[i] + b[i] on GPU @g over its share, one 64 KiB block at a time. */
static int vector_add(struct kfdsvm_ctx *ctx, unsigned int g, uint32_t *a,
		      uint32_t *b, uint32_t *c, size_t n)
{
	size_t w = BLOCK / sizeof(uint32_t), first, last, i, j;
	uint32_t *ra = malloc(BLOCK), *rb = malloc(BLOCK), *rc = malloc(BLOCK);
	int r = -1;

	if (!ra || !rb || !rc)
		goto out;
	share(n, g, ctx->num_gpus, &first, &last);
	for (i = first; i < last; i += w) {
		if (kfdsvm_gpu_read(ctx, g, a + i, ra, BLOCK) ||
		    kfdsvm_gpu_read(ctx, g, b + i, rb, BLOCK))
			goto out;
		for (j = 0; j < w; j++)
			rc[j] = ra[j] + rb[j];
		if (kfdsvm_gpu_write(ctx, g, c + i, rc, BLOCK))
			goto out;
	}
	r = 0;
out:
	free(ra);
	free(rb);
	free(rc);
	return r;
}

/* out[i] = in[i - 1] + 2 in[i] + in[i + 1] (zero outside), on GPU @g. */
static int stencil(struct kfdsvm_ctx *ctx, unsigned int g, uint32_t *in,
		   uint32_t *out, size_t n)
{
	size_t w = BLOCK / sizeof(uint32_t), i, j;
	uint32_t *win = malloc(BLOCK + 2 * 4096), *res = malloc(BLOCK);
	int r = -1;

	if (!win || !res)
		goto out;
	for (i = 0; i < n; i += w) {
		/* The block and a page either side, where there is one. */
		size_t lo = i ? i - 1024 : i;
		size_t hi = i + w < n ? i + w + 1024 : i + w;

		if (kfdsvm_gpu_read(ctx, g, in + lo, win, (hi - lo) * 4))
			goto out;
		for (j = 0; j < w; j++) {
			size_t k = i + j - lo;
			uint32_t left = i + j ? win[k - 1] : 0;
			uint32_t right = i + j + 1 < n ? win[k + 1] : 0;

			res[j] = left + 2 * win[k] + right;
		}
		if (kfdsvm_gpu_write(ctx, g, out + i, res, BLOCK))
			goto out;
	}
	r = 0;
out:
	free(win);
	free(res);
	return r;
}

static void stencil_cpu(const uint32_t *in, uint32_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = (i ? in[i - 1] : 0) + 2 * in[i] +
			 (i + 1 < n ? in[i + 1] : 0);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 8;
	size_t size = mib << 20, n = size / 4, i, bad;
	uint32_t *a, *b, *c, *s0, *s1, *ref, *tmp, *res, *host, loc, flags;
	struct kfdbed_access_args acc;
	struct kfdsvm_ctx ctx;
	uint64_t vram_before, vram;
	unsigned int g, round;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mib || mib > 256) {
		fprintf(stderr, "usage: %s [MIB], 1 to 256\n", argv[0]);
		return 2;
	}
	r = kfdsvm_open(&ctx);
	CHECK(!r, "opened KFD and the test bed: %u GPUs", ctx.num_gpus);
	if (r)
		return 1;
	vram_before = vram_used(&ctx);

	a = kfdsvm_malloc_managed(&ctx, size);
	b = kfdsvm_malloc_managed(&ctx, size);
	c = kfdsvm_malloc_managed(&ctx, size);
	host = malloc(size);
	CHECK(a && b && c && host, "hipMallocManaged x3: %zu MiB each", mib);
	if (!a || !b || !c || !host)
		return 1;

	/* 1. Vector add over every GPU. */
	for (i = 0; i < n; i++) {
		a[i] = (uint32_t)(i * 2654435761u);
		b[i] = (uint32_t)i ^ 0x5a5a5a5a;
	}
	for (g = 0; g < ctx.num_gpus; g++) {
		r = vector_add(&ctx, g, a, b, c, n);
		CHECK(!r, "vector add on GPU %u", g);
	}
	CHECK(vram_used(&ctx) > vram_before,
	      "the GPUs' first touches moved pages to VRAM (%llu KiB used)",
	      (unsigned long long)(vram_used(&ctx) - vram_before) >> 10);
	for (i = 0, bad = 0; i < n; i++)
		bad += c[i] != a[i] + b[i];
	CHECK(!bad, "the CPU reads c = a + b (%zu of %zu words wrong)", bad, n);

	/* 2. Prefetch c to GPU 0, then back to the CPU. */
	r = kfdsvm_prefetch(&ctx, c, size, 0);
	CHECK(!r, "hipMemPrefetchAsync(c, GPU 0)");
	r = kfdsvm_get_attr(&ctx, c, size, KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
			    &loc);
	CHECK(!r && loc == ctx.gpu_id[0], "KFD reports c prefetched to 0x%x",
	      loc);
	r = kfdsvm_access(ctx.bed, ctx.gpu_id[0], c, host, size, 0, &acc);
	CHECK(!r && acc.faults == 0 && acc.vram_pages == size / 4096,
	      "GPU 0 reads the prefetched c from its VRAM without a fault (%u faults, %llu VRAM pages)",
	      acc.faults, (unsigned long long)acc.vram_pages);
	for (i = 0, bad = 0; i < n; i++)
		bad += host[i] != a[i] + b[i];
	CHECK(!bad, "GPU 0 reads c intact (%zu words wrong)", bad);
	vram = vram_used(&ctx);
	r = kfdsvm_prefetch(&ctx, c, size, KFDSVM_CPU);
	CHECK(!r, "hipMemPrefetchAsync(c, CPU)");
	/* KFD frees a range's VRAM once none of its pages is left there. */
	CHECK(vram_used(&ctx) + size <= vram,
	      "c left VRAM: %llu KiB used, was %llu KiB",
	      (unsigned long long)vram_used(&ctx) >> 10,
	      (unsigned long long)vram >> 10);

	/* 3. ReadMostly: every GPU reads a. */
	r = kfdsvm_advise(&ctx, a, size, KFDSVM_ADVISE_READ_MOSTLY, 0);
	CHECK(!r, "hipMemAdvise(a, ReadMostly)");
	for (g = 0; g < ctx.num_gpus; g++) {
		memset(host, 0, size);
		r = kfdsvm_gpu_read(&ctx, g, a, host, size);
		CHECK(!r && !memcmp(host, a, size),
		      "GPU %u reads the read-mostly a", g);
	}
	/* Advice on half of it: on a KFD range boundary (see the top). */
	r = kfdsvm_advise(&ctx, (char *)a + size / 2, size / 2,
			  KFDSVM_ADVISE_UNSET_READ_MOSTLY, 0);
	CHECK(!r, "hipMemAdvise(second half of a, UnsetReadMostly)");
	r = kfdsvm_get_attr(&ctx, a, size / 2, KFD_IOCTL_SVM_ATTR_SET_FLAGS,
			    &loc);
	r = r	  ?:
		    kfdsvm_get_attr(&ctx, (char *)a + size / 2, size / 2,
				    KFD_IOCTL_SVM_ATTR_SET_FLAGS, &flags);
	CHECK(!r && (loc & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY) &&
		      !(flags & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY),
	      "KFD keeps read-mostly on the first half only (flags 0x%x, 0x%x)",
	      loc, flags);

	/* 4. b stays in system memory, mapped where it is for GPU 0. */
	r = kfdsvm_prefetch(&ctx, b, size, KFDSVM_CPU);
	CHECK(!r, "hipMemPrefetchAsync(b, CPU)");
	r = kfdsvm_advise(&ctx, b, size, KFDSVM_ADVISE_PREFERRED_LOCATION,
			  KFDSVM_CPU);
	r = r ?: kfdsvm_advise(&ctx, b, size, KFDSVM_ADVISE_ACCESSED_BY, 0);
	CHECK(!r, "hipMemAdvise(b, PreferredLocation CPU; AccessedBy GPU 0)");
	r = kfdsvm_access(ctx.bed, ctx.gpu_id[0], b, host, size, 0, &acc);
	CHECK(!r && acc.sys_pages == size / 4096 && acc.vram_pages == 0,
	      "GPU 0 reads b in system memory (%llu system pages, %llu VRAM pages)",
	      (unsigned long long)acc.sys_pages,
	      (unsigned long long)acc.vram_pages);
	for (i = 0, bad = 0; i < n; i++)
		bad += host[i] != ((uint32_t)i ^ 0x5a5a5a5a);
	CHECK(!bad, "GPU 0 reads b intact (%zu words wrong)", bad);

	/* 5. A stencil iterated on alternating GPUs, checked on the CPU. */
	s0 = kfdsvm_malloc_managed(&ctx, size);
	s1 = kfdsvm_malloc_managed(&ctx, size);
	ref = malloc(size);
	tmp = malloc(size);
	CHECK(s0 && s1 && ref && tmp, "stencil buffers");
	if (!s0 || !s1 || !ref || !tmp)
		return 1;
	for (i = 0; i < n; i++)
		ref[i] = s0[i] = (uint32_t)(i * 7 + 3);
	for (round = 0, r = 0; round < STENCIL_ROUNDS && !r; round++) {
		uint32_t *in = round % 2 ? s1 : s0, *out = round % 2 ? s0 : s1;

		r = stencil(&ctx, round % ctx.num_gpus, in, out, n);
		stencil_cpu(ref, tmp, n);
		memcpy(ref, tmp, size);
	}
	CHECK(!r, "%d stencil rounds on alternating GPUs", STENCIL_ROUNDS);
	res = STENCIL_ROUNDS % 2 ? s1 : s0;
	for (i = 0, bad = 0; i < n; i++)
		bad += res[i] != ref[i];
	CHECK(!bad, "the CPU reads the stencil's result (%zu words wrong)",
	      bad);

	/* A partial unmap, on a KFD range boundary. */
	memcpy(host, s1, size / 2);
	r = munmap((char *)s1 + size / 2, size / 2);
	CHECK(!r, "munmap of s1's second half");
	r = kfdsvm_gpu_read(&ctx, ctx.num_gpus - 1, s1, tmp, size / 2);
	CHECK(!r && !memcmp(tmp, host, size / 2),
	      "GPU %u reads s1's first half intact after the unmap",
	      ctx.num_gpus - 1);

	/* 6. hipFree gives the VRAM back. */
	r = kfdsvm_free(&ctx, a, size) | kfdsvm_free(&ctx, b, size) |
	    kfdsvm_free(&ctx, c, size) | kfdsvm_free(&ctx, s0, size) |
	    kfdsvm_free(&ctx, s1, size);
	CHECK(!r, "hipFree x5");
	/* KFD frees unmapped ranges and their BOs from work items. */
	for (i = 0; i < 300 && vram_used(&ctx) > vram_before; i++)
		usleep(100000);
	CHECK(vram_used(&ctx) <= vram_before,
	      "VRAM used back to %llu KiB (%llu KiB before) %.1f s after hipFree",
	      (unsigned long long)vram_used(&ctx) >> 10,
	      (unsigned long long)vram_before >> 10, i / 10.0);
	kfdsvm_close(&ctx);
	free(host);
	free(ref);
	free(tmp);
	return kfdbed_fails ? 1 : 0;
}
