// SPDX-License-Identifier: GPL-2.0
/* An "amdgpu" with the right KFD version and no SVM functions. */
#include <uapi/linux/kfd_ioctl.h>
#define FAKE_KFD_MAJOR KFD_IOCTL_MAJOR_VERSION
#define FAKE_KFD_MINOR KFD_IOCTL_MINOR_VERSION
#include "../fake_amdgpu.c"
