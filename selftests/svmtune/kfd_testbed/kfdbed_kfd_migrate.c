// SPDX-License-Identifier: GPL-2.0
/* KFD's SVM migration, compiled unmodified from the kernel tree (see Kbuild). */
#include "kfd_migrate.c"
