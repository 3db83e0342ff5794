/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check lines the KFD test bed's programs print, which run_kfdbed.sh
 * names by phase and position: "ok - WHAT" or "not ok - WHAT (where,
 * errno)". A program includes this once and exits non-zero if kfdbed_fails.
 */
#ifndef KFDBED_CHECK_H
#define KFDBED_CHECK_H

#include <errno.h>
#include <stdio.h>

static int kfdbed_fails;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond) {                                                \
			printf("ok - " __VA_ARGS__);                       \
			printf("\n");                                      \
		} else {                                                   \
			printf("not ok - " __VA_ARGS__);                   \
			printf(" (%s:%d, errno %d)\n", __FILE__, __LINE__, \
			       errno);                                     \
			kfdbed_fails++;                                    \
		}                                                          \
	} while (0)

#endif /* KFDBED_CHECK_H */
