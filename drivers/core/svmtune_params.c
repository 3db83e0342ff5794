// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the global knobs, as one structure a fault reads whole.
 *
 * DAMON keeps its parameters in a context and commits module parameters
 * into it; svmtune's knobs are sysfs files, each written on its own, and a
 * fault must never see half of an update (an adaptive policy with the old
 * bounds, a thrashing mode with the old threshold).
 */

/**
 * DOC: Locking
 *
 * ``svmtune_knob_lock`` (mutex) and ``svmtune_params_seq`` (its seqcount)
 *     Serialise the sysfs stores of the global knobs (``struct
 *     svmtune_params``), and keep the adaptive bounds ordered while one of
 *     them is written. Stores take
 *     ``svmtune_knob_lock`` and write in a ``svmtune_params_seq`` write
 *     section; svmtune_params_get() copies the structure until no write
 *     overlapped the copy, once per decision and per accounting. The read
 *     side takes no lock and runs in any context (KFD's fault hooks run
 *     with preemption disabled).
 */
#include <linux/mutex.h>
#include <linux/seqlock.h>

#include "svmtune_internal.h"

DEFINE_MUTEX(svmtune_knob_lock);
static seqcount_mutex_t svmtune_params_seq =
	SEQCNT_MUTEX_ZERO(svmtune_params_seq, &svmtune_knob_lock);

struct svmtune_params svmtune_params = {
	.granularity = 21,
	.adaptive = false,
	.adaptive_min = 12,
	.adaptive_max = 21,
	.thrashing = SVMTUNE_THRASHING_DETECT,
	.thrashing_threshold = 3,
	.thrashing_lapse_us = 2000,
	.thrashing_pin_ms = 300,
	.thrashing_throttle_us = 1000,
	.thrashing_pin_threshold = 3,
	.prefetch_threshold = 0,
	.evict_when_full = 1,
	.fragment_auto = 0,
	/*
	 * The block whose device memory backends lay out in address order:
	 * 2 MiB, as a KFD range's BO is laid out and amdgpu's buddy
	 * allocator hands out 2 MiB blocks.
	 */
	.fragment_size = 21,
	/* 30 caps nothing a 2 MiB-block layout can form. */
	.fragment_cap = 30,
};

/**
 * svmtune_params_get() - the knobs, as one consistent copy
 * @prm: filled with them
 *
 * Any context; never sleeps.
 */
void svmtune_params_get(struct svmtune_params *prm)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&svmtune_params_seq);
		*prm = svmtune_params;
	} while (read_seqcount_retry(&svmtune_params_seq, seq));
}

/**
 * svmtune_param_set() - write one knob
 * @field: the field of svmtune_params
 * @val: its new value, already validated
 *
 * The caller holds svmtune_knob_lock (and checks, under it, whatever ties
 * this knob to another).
 */
void svmtune_param_set(unsigned int *field, unsigned int val)
{
	lockdep_assert_held(&svmtune_knob_lock);
	write_seqcount_begin(&svmtune_params_seq);
	WRITE_ONCE(*field, val);
	write_seqcount_end(&svmtune_params_seq);
}

/**
 * svmtune_param_set_bool() - write one boolean knob
 * @field: the field of svmtune_params
 * @val: its new value
 *
 * As svmtune_param_set().
 */
void svmtune_param_set_bool(bool *field, bool val)
{
	lockdep_assert_held(&svmtune_knob_lock);
	write_seqcount_begin(&svmtune_params_seq);
	WRITE_ONCE(*field, val);
	write_seqcount_end(&svmtune_params_seq);
}

/*
 * Whether new blocks are worth making: only the adaptive policy, density
 * prefetch, eviction (the LRU), fragment "auto" and thrashing read them. With all off
 * a fault makes none, and turning one on later starts from what arrives
 * after.
 */
bool svmtune_blocks_wanted(const struct svmtune_params *prm)
{
	return prm->adaptive || prm->prefetch_threshold ||
	       prm->evict_when_full || prm->fragment_auto ||
	       prm->thrashing != SVMTUNE_THRASHING_OFF;
}
