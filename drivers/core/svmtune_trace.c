// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the tracepoints' definitions (svmtune_trace.h), in a file
 * of their own that calls nothing.
 */
#include <linux/mm.h>

#include "svmtune_internal.h"

#define CREATE_TRACE_POINTS
#include "svmtune_trace.h"
