// SPDX-License-Identifier: GPL-2.0
/*
 * kfdsvm: KFD's SVM ioctl and the KFD test bed's GPUs for user-space
 * programs (see kfdsvm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfdsvm.h"

#define KFDSVM_ALIGN (2UL << 20)

/**
 * kfdsvm_svm() - one AMDKFD_IOC_SVM call
 * @kfd: /dev/kfd
 * @op: KFD_IOCTL_SVM_OP_SET_ATTR or KFD_IOCTL_SVM_OP_GET_ATTR
 * @addr: start of the range
 * @size: its size
 * @attrs: @nattr attributes, given and (GET_ATTR) returned
 * @nattr: how many
 *
 * The ioctl's size is the argument's with its attributes, as libhsakmt
 * encodes it.
 *
 * Return: the ioctl's: 0, or -1 with errno set.
 */
int kfdsvm_svm(int kfd, uint32_t op, void *addr, size_t size,
	       struct kfd_ioctl_svm_attribute *attrs, uint32_t nattr)
{
	size_t len = sizeof(struct kfd_ioctl_svm_args) + nattr * sizeof(*attrs);
	struct kfd_ioctl_svm_args *args = calloc(1, len);
	int r, err;

	if (!args)
		return -1;
	args->start_addr = (uintptr_t)addr;
	args->size = size;
	args->op = op;
	args->nattr = nattr;
	memcpy(args->attrs, attrs, nattr * sizeof(*attrs));
	r = ioctl(kfd,
		  _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, 0x20, len),
		  args);
	err = errno;
	memcpy(attrs, args->attrs, nattr * sizeof(*attrs));
	free(args);
	errno = err;
	return r;
}

/**
 * kfdsvm_access() - one load or store of a test-bed GPU
 * @bed: /dev/kfdbed
 * @gpu_id: the GPU's KFD gpu_id
 * @va: GPU virtual address (the CPU's), page-aligned
 * @buf: where the data goes (load) or comes from (store)
 * @size: bytes, a multiple of the page size
 * @write: nonzero for a store
 * @a: the ioctl's argument, returned with its counters (faults, pages
 *	found in VRAM, in system memory, in a peer's VRAM)
 *
 * Return: the ioctl's: 0, or -1 with errno set.
 */
int kfdsvm_access(int bed, uint32_t gpu_id, void *va, void *buf, size_t size,
		  int write, struct kfdbed_access_args *a)
{
	memset(a, 0, sizeof(*a));
	a->va = (uintptr_t)va;
	a->ptr = (uintptr_t)buf;
	a->size = size;
	a->gpu_id = gpu_id;
	a->flags = write ? KFDBED_ACCESS_WRITE : 0;
	return ioctl(bed, KFDBED_IOC_ACCESS, a);
}

/* The test bed's GPUs and their counters; all zero if the ioctl failed. */
struct kfdbed_info_args kfdsvm_info(int bed)
{
	struct kfdbed_info_args info;

	memset(&info, 0, sizeof(info));
	if (ioctl(bed, KFDBED_IOC_INFO, &info))
		memset(&info, 0, sizeof(info));
	return info;
}

/**
 * kfdsvm_open() - open KFD and the test bed, as a HIP runtime's start does
 * @ctx: filled in
 *
 * Opening /dev/kfd creates the process's KFD state (its SVM range list
 * initialised by KFD's own svm_range_list_init()).
 *
 * Return: 0, or -1 with errno set (ENODEV: the test bed has no GPU).
 */
int kfdsvm_open(struct kfdsvm_ctx *ctx)
{
	struct kfdbed_info_args info;
	unsigned int i;

	memset(ctx, 0, sizeof(*ctx));
	ctx->bed = -1;
	ctx->kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (ctx->kfd < 0)
		return -1;
	ctx->bed = open("/dev/kfdbed", O_RDWR | O_CLOEXEC);
	if (ctx->bed < 0)
		goto fail;
	info = kfdsvm_info(ctx->bed);
	if (!info.num_gpus || info.num_gpus > KFDSVM_MAX_GPUS) {
		errno = ENODEV;
		goto fail;
	}
	ctx->num_gpus = info.num_gpus;
	for (i = 0; i < info.num_gpus; i++)
		ctx->gpu_id[i] = info.gpus[i].gpu_id;
	return 0;
fail:
	kfdsvm_close(ctx);
	return -1;
}

void kfdsvm_close(struct kfdsvm_ctx *ctx)
{
	if (ctx->bed >= 0)
		close(ctx->bed);
	if (ctx->kfd >= 0)
		close(ctx->kfd);
	ctx->bed = -1;
	ctx->kfd = -1;
}

/* KFD's location for @dev: a GPU's gpu_id, or system memory; 0 and EINVAL. */
static int kfdsvm_location(struct kfdsvm_ctx *ctx, int dev, uint32_t *loc)
{
	if (dev == KFDSVM_CPU) {
		*loc = KFD_IOCTL_SVM_LOCATION_SYSMEM;
		return 0;
	}
	if (dev < 0 || (unsigned int)dev >= ctx->num_gpus) {
		errno = EINVAL;
		return -1;
	}
	*loc = ctx->gpu_id[dev];
	return 0;
}

/**
 * kfdsvm_malloc_managed_aligned() - kfdsvm_malloc_managed(), aligned more
 * @ctx: the process's context
 * @size: bytes
 * @align: the alignment of the start: a power of two, at least 2 MiB
 *
 * KFD splits a registered range at multiples of 1/32 of the smallest
 * GPU's VRAM, from 2 MiB to 1 GiB (svm_range_split_new(),
 * max_svm_range_pages: 1 GiB on an MI300X, 8 MiB on the test bed's
 * 256 MiB), so where an allocation starts decides whether KFD (and the
 * policy engine, which follows KFD's ranges) sees it as one range or two.
 * Aligned to its size (a power of two no larger than that limit), it is
 * one range, as on an MI300X.
 *
 * Return: the memory, or NULL with errno set (EINVAL for a bad @align).
 */
void *kfdsvm_malloc_managed_aligned(struct kfdsvm_ctx *ctx, size_t size,
				    size_t align)
{
	struct kfd_ioctl_svm_attribute attrs[KFDSVM_MAX_GPUS];
	size_t len = (size + KFDSVM_ALIGN - 1) & ~(KFDSVM_ALIGN - 1);
	uintptr_t start;
	unsigned int i;
	char *raw;
	int err;

	if (!size || len < size || align < KFDSVM_ALIGN ||
	    (align & (align - 1)) || len + align < len) {
		errno = EINVAL;
		return NULL;
	}
	raw = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	/* Keep the aligned part, give back the rest. */
	start = ((uintptr_t)raw + align - 1) & ~(align - 1);
	if (start != (uintptr_t)raw)
		munmap(raw, start - (uintptr_t)raw);
	munmap((char *)start + len, (uintptr_t)raw + align - start);

	for (i = 0; i < ctx->num_gpus; i++) {
		attrs[i].type = KFD_IOCTL_SVM_ATTR_ACCESS;
		attrs[i].value = ctx->gpu_id[i];
	}
	if (kfdsvm_svm(ctx->kfd, KFD_IOCTL_SVM_OP_SET_ATTR, (void *)start, len,
		       attrs, ctx->num_gpus)) {
		err = errno;
		munmap((void *)start, len);
		errno = err;
		return NULL;
	}
	return (void *)start;
}

/**
 * kfdsvm_malloc_managed() - memory every GPU and the CPU may use
 * @ctx: the process's context
 * @size: bytes
 *
 * Anonymous memory aligned to 2 MiB (as the HIP runtime aligns large
 * allocations, so that KFD's 2 MiB granularity blocks and VRAM's buddy
 * blocks line up), registered with KFD as accessible by every GPU. Pages
 * start in system memory and move on first touch.
 *
 * Return: the memory, or NULL with errno set.
 */
void *kfdsvm_malloc_managed(struct kfdsvm_ctx *ctx, size_t size)
{
	return kfdsvm_malloc_managed_aligned(ctx, size, KFDSVM_ALIGN);
}

/* Give back what kfdsvm_malloc_managed() gave; KFD drops its ranges. */
int kfdsvm_free(struct kfdsvm_ctx *ctx, void *p, size_t size)
{
	size_t len = (size + KFDSVM_ALIGN - 1) & ~(KFDSVM_ALIGN - 1);

	return munmap(p, len);
}

/**
 * kfdsvm_advise() - hipMemAdvise on KFD's attributes
 * @ctx: the process's context
 * @p: start of the range
 * @size: its size
 * @advice: what to set or clear
 * @dev: a GPU index or KFDSVM_CPU (PREFERRED_LOCATION), a GPU index
 *	(ACCESSED_BY), ignored otherwise
 *
 * PREFERRED_LOCATION sets KFD's preferred location (GPU faults migrate
 * there, CPU faults leave pages where they are allowed to stay);
 * READ_MOSTLY sets KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY; ACCESSED_BY maps the
 * range for the GPU where its pages are (ACCESS_IN_PLACE) instead of
 * migrating them to it.
 *
 * Return: 0, or -1 with errno set (EINVAL: an unknown advice or device).
 */
int kfdsvm_advise(struct kfdsvm_ctx *ctx, void *p, size_t size,
		  enum kfdsvm_advice advice, int dev)
{
	struct kfd_ioctl_svm_attribute attr;

	switch (advice) {
	case KFDSVM_ADVISE_PREFERRED_LOCATION:
		attr.type = KFD_IOCTL_SVM_ATTR_PREFERRED_LOC;
		if (kfdsvm_location(ctx, dev, &attr.value))
			return -1;
		break;
	case KFDSVM_ADVISE_UNSET_PREFERRED_LOCATION:
		attr.type = KFD_IOCTL_SVM_ATTR_PREFERRED_LOC;
		attr.value = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
		break;
	case KFDSVM_ADVISE_READ_MOSTLY:
		attr.type = KFD_IOCTL_SVM_ATTR_SET_FLAGS;
		attr.value = KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY;
		break;
	case KFDSVM_ADVISE_UNSET_READ_MOSTLY:
		attr.type = KFD_IOCTL_SVM_ATTR_CLR_FLAGS;
		attr.value = KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY;
		break;
	case KFDSVM_ADVISE_ACCESSED_BY:
		if (dev == KFDSVM_CPU) {
			errno = EINVAL;
			return -1;
		}
		attr.type = KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE;
		if (kfdsvm_location(ctx, dev, &attr.value))
			return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return kfdsvm_svm(ctx->kfd, KFD_IOCTL_SVM_OP_SET_ATTR, p, size, &attr,
			  1);
}

/**
 * kfdsvm_prefetch() - hipMemPrefetchAsync, done when it returns
 * @ctx: the process's context
 * @p: start of the range
 * @size: its size
 * @dev: a GPU index (KFD migrates the range to its VRAM with the SDMA) or
 *	KFDSVM_CPU (back to system memory)
 *
 * Return: 0, or -1 with errno set (KFD's, or EINVAL for an unknown device).
 */
int kfdsvm_prefetch(struct kfdsvm_ctx *ctx, void *p, size_t size, int dev)
{
	struct kfd_ioctl_svm_attribute attr = {
		.type = KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
	};

	if (kfdsvm_location(ctx, dev, &attr.value))
		return -1;
	return kfdsvm_svm(ctx->kfd, KFD_IOCTL_SVM_OP_SET_ATTR, p, size, &attr,
			  1);
}

/* One attribute of the range, as KFD's GET_ATTR reports it. */
int kfdsvm_get_attr(struct kfdsvm_ctx *ctx, void *p, size_t size, uint32_t type,
		    uint32_t *value)
{
	struct kfd_ioctl_svm_attribute attr = { .type = type };

	if (kfdsvm_svm(ctx->kfd, KFD_IOCTL_SVM_OP_GET_ATTR, p, size, &attr, 1))
		return -1;
	*value = attr.value;
	return 0;
}

static int kfdsvm_gpu_access(struct kfdsvm_ctx *ctx, int dev, void *va,
			     void *buf, size_t size, int write)
{
	struct kfdbed_access_args a;

	if (dev < 0 || (unsigned int)dev >= ctx->num_gpus) {
		errno = EINVAL;
		return -1;
	}
	return kfdsvm_access(ctx->bed, ctx->gpu_id[dev], va, buf, size, write,
			     &a);
}

/* GPU @dev loads @size bytes at @va into @dst (page-aligned va and size). */
int kfdsvm_gpu_read(struct kfdsvm_ctx *ctx, int dev, const void *va, void *dst,
		    size_t size)
{
	return kfdsvm_gpu_access(ctx, dev, (void *)va, dst, size, 0);
}

/* GPU @dev stores @size bytes from @src at @va (page-aligned va and size). */
int kfdsvm_gpu_write(struct kfdsvm_ctx *ctx, int dev, void *va, const void *src,
		     size_t size)
{
	return kfdsvm_gpu_access(ctx, dev, va, (void *)src, size, 1);
}
