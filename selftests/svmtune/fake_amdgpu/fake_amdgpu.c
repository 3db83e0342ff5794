// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-ins for amdgpu that svmtune_kfd must refuse to attach to, loaded
 * by svmtune_kfd_test in place of the real amdgpu. Each is a module named
 * "amdgpu" with a KFD AMDKFD_IOC_GET_VERSION handler, which is what
 * svmtune_kfd inspects first:
 *
 *  mismatch/: reports KFD interface 1.99, as an amdgpu from another source
 *	drop (an amdgpu-dkms package, say) would;
 *  nosvm/: reports the test kernel's own interface version but has none of
 *	the SVM functions, like an amdgpu built without CONFIG_HSA_AMD_SVM
 *	(Debian's stock kernels).
 *
 * Both are out of tree; the tests tell svmtune_kfd their srcversion
 * (amdgpu_srcversion=) to get past its build check to the one under test.
 *
 * The including file defines FAKE_KFD_MAJOR and FAKE_KFD_MINOR.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <uapi/linux/kfd_ioctl.h>

struct kfd_process;

typedef int(fake_amdgpu_ioctl_t)(struct file *filep, struct kfd_process *p,
				 void *data);

/* Named and shaped like amdkfd/kfd_chardev.c's handler. */
static int kfd_ioctl_get_version(struct file *filep, struct kfd_process *p,
				 void *data)
{
	struct kfd_ioctl_get_version_args *args = data;

	args->major_version = FAKE_KFD_MAJOR;
	args->minor_version = FAKE_KFD_MINOR;
	return 0;
}

/* Like amdgpu's ioctl table: takes the handler's address, keeping its ENDBR. */
static fake_amdgpu_ioctl_t *const fake_amdgpu_ioctls[] __used = {
	kfd_ioctl_get_version,
};

/*
 * Every KFD has its topology, SVM or not (kfd_topology.c): svmtune_kfd
 * hooks these two as well, and finds them (by name, in kallsyms) before
 * it looks for the SVM functions. Never called here.
 */
struct kfd_node;

static noinline __used int kfd_topology_add_device(struct kfd_node *gpu)
{
	return 0;
}

static noinline __used int kfd_topology_remove_device(struct kfd_node *gpu)
{
	return 0;
}

static int __init fake_amdgpu_init(void)
{
	return 0;
}

static void __exit fake_amdgpu_exit(void)
{
}

module_init(fake_amdgpu_init);
module_exit(fake_amdgpu_exit);

MODULE_DESCRIPTION("svmtune selftest: an amdgpu svmtune_kfd must refuse");
/* With a version modpost records a srcversion, for svmtune_kfd's build check. */
MODULE_VERSION("0");
MODULE_LICENSE("GPL");
