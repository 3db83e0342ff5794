// SPDX-License-Identifier: GPL-2.0
/* KFD's SVM ranges, compiled unmodified from the kernel tree (see Kbuild). */
#include "kfd_svm.c"
