// SPDX-License-Identifier: GPL-2.0
/* An "amdgpu" implementing a KFD interface version no kernel has. */
#define FAKE_KFD_MAJOR 1
#define FAKE_KFD_MINOR 99
#include "../fake_amdgpu.c"
