/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfdsvm: a small user-space library over KFD's SVM ioctl and the KFD test
 * bed's GPU, for programs written the way a HIP managed-memory program is:
 *
 *	HIP					kfdsvm
 *	hipMallocManaged(&p, size)		p = kfdsvm_malloc_managed(&ctx, size)
 *	hipMemAdvise(p, size, ...PreferredLocation, dev)
 *						kfdsvm_advise(&ctx, p, size, KFDSVM_ADVISE_PREFERRED_LOCATION, dev)
 *	hipMemAdvise(p, size, ...ReadMostly, dev)
 *						kfdsvm_advise(&ctx, p, size, KFDSVM_ADVISE_READ_MOSTLY, dev)
 *	hipMemAdvise(p, size, ...AccessedBy, dev)
 *						kfdsvm_advise(&ctx, p, size, KFDSVM_ADVISE_ACCESSED_BY, dev)
 *	hipMemPrefetchAsync(p, size, dev)	kfdsvm_prefetch(&ctx, p, size, dev)
 *	a kernel's loads and stores		kfdsvm_gpu_read(), kfdsvm_gpu_write()
 *	hipFree(p)				kfdsvm_free(&ctx, p, size)
 *
 * "dev" is a GPU index (0 .. num_gpus - 1) or KFDSVM_CPU. Everything goes
 * through KFD's own AMDKFD_IOC_SVM (svm_ioctl() in kfd_svm.c); the GPU's
 * loads and stores go through the test bed's page table, raising retry
 * faults that KFD's svm_range_restore_pages() serves. The emulated GPU has
 * no ALU: a "kernel" reads its inputs through the GPU, computes on the CPU
 * side of the ioctl, and writes its outputs through the GPU.
 *
 * The lower layer (kfdsvm_svm(), kfdsvm_access(), kfdsvm_info()) is what
 * kfdbed_test uses to reach every attribute and counter.
 *
 * Functions return 0 or -1 with errno set, unless said otherwise.
 */
#ifndef KFDSVM_H
#define KFDSVM_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kfd_ioctl.h>

#include "kfdbed_uapi.h"

#define KFDSVM_MAX_GPUS 4
/* The CPU (system memory) as a location, where a GPU index is expected. */
#define KFDSVM_CPU (-1)

/**
 * struct kfdsvm_ctx - a process's view of KFD and the test bed's GPUs
 * @kfd: /dev/kfd (opening it creates the process's KFD state)
 * @bed: /dev/kfdbed (the GPUs' loads and stores)
 * @num_gpus: GPUs the test bed has
 * @gpu_id: their KFD gpu_ids, by index
 */
struct kfdsvm_ctx {
	int kfd;
	int bed;
	unsigned int num_gpus;
	uint32_t gpu_id[KFDSVM_MAX_GPUS];
};

enum kfdsvm_advice {
	KFDSVM_ADVISE_PREFERRED_LOCATION,
	KFDSVM_ADVISE_UNSET_PREFERRED_LOCATION,
	KFDSVM_ADVISE_READ_MOSTLY,
	KFDSVM_ADVISE_UNSET_READ_MOSTLY,
	KFDSVM_ADVISE_ACCESSED_BY,
};

/* Lower layer: one call of each ioctl. */
int kfdsvm_svm(int kfd, uint32_t op, void *addr, size_t size,
	       struct kfd_ioctl_svm_attribute *attrs, uint32_t nattr);
int kfdsvm_access(int bed, uint32_t gpu_id, void *va, void *buf, size_t size,
		  int write, struct kfdbed_access_args *a);
struct kfdbed_info_args kfdsvm_info(int bed);

/* HIP-like layer. */
int kfdsvm_open(struct kfdsvm_ctx *ctx);
void kfdsvm_close(struct kfdsvm_ctx *ctx);
void *kfdsvm_malloc_managed(struct kfdsvm_ctx *ctx, size_t size);
void *kfdsvm_malloc_managed_aligned(struct kfdsvm_ctx *ctx, size_t size,
				    size_t align);
int kfdsvm_free(struct kfdsvm_ctx *ctx, void *p, size_t size);
int kfdsvm_advise(struct kfdsvm_ctx *ctx, void *p, size_t size,
		  enum kfdsvm_advice advice, int dev);
int kfdsvm_prefetch(struct kfdsvm_ctx *ctx, void *p, size_t size, int dev);
int kfdsvm_get_attr(struct kfdsvm_ctx *ctx, void *p, size_t size, uint32_t type,
		    uint32_t *value);
int kfdsvm_gpu_read(struct kfdsvm_ctx *ctx, int dev, const void *va, void *dst,
		    size_t size);
int kfdsvm_gpu_write(struct kfdsvm_ctx *ctx, int dev, void *va, const void *src,
		     size_t size);

#endif /* KFDSVM_H */
