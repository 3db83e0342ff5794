// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the policy of ranges and processes.
 *
 * The policy in effect at an address is, field by field, the range's
 * setting, else the process default, else the global default.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>

#include "svmtune_internal.h"

/**
 * svmtune_policy_effective() - the policy in effect in a range
 * @smm: the address space (may be NULL: global defaults only)
 * @range: the range (may be NULL: process and global defaults)
 * @eff: filled with the effective policy. The granularity is the one set
 *	explicitly (range or process) or the global one; the adaptive choice
 *	is made by the caller.
 */
void svmtune_policy_effective(const struct svmtune_mm *smm,
			      const struct svmtune_range *range,
			      struct svmtune_policy *eff)
{
	eff->granularity = SVMTUNE_GRANULARITY_UNSET;
	eff->access = SVMTUNE_ACCESS_UNSET;
	eff->preferred_loc = SVMTUNE_LOC_UNSET;
	eff->thrashing = SVMTUNE_THRASH_UNSET;
	eff->fragment = SVMTUNE_FRAGMENT_UNSET;
	if (range)
		*eff = range->pol;
	if (smm) {
		if (eff->thrashing == SVMTUNE_THRASH_UNSET)
			eff->thrashing = smm->defaults.thrashing;
		if (eff->fragment == SVMTUNE_FRAGMENT_UNSET)
			eff->fragment = smm->defaults.fragment;
		if (eff->granularity == SVMTUNE_GRANULARITY_UNSET)
			eff->granularity = smm->defaults.granularity;
		if (eff->access == SVMTUNE_ACCESS_UNSET)
			eff->access = smm->defaults.access;
		if (eff->preferred_loc == SVMTUNE_LOC_UNSET)
			eff->preferred_loc = smm->defaults.preferred_loc;
	}
	if (eff->access == SVMTUNE_ACCESS_UNSET)
		eff->access = SVMTUNE_ACCESS_MIGRATE;
	if (eff->thrashing == SVMTUNE_THRASH_UNSET)
		eff->thrashing = SVMTUNE_THRASH_TRACK;
}

/**
 * svmtune_policy_fragment() - the fragment size in effect
 * @eff: a policy from svmtune_policy_effective()
 *
 * Return: log2 bytes: the range's or process's fragment size, else the
 * global ``fragment_size``, at most ``fragment_cap``.
 */
unsigned int svmtune_policy_fragment(const struct svmtune_policy *eff)
{
	struct svmtune_params prm;

	svmtune_params_get(&prm);
	return svmtune_fragment_capped(eff, &prm);
}

/**
 * svmtune_fragment_size_at() - the fragment size in effect at an address
 * @mm: the address space; the caller keeps it alive
 * @addr: the address
 *
 * For backends laying out device memory outside a fault (an explicit
 * migration); a fault's decision carries it (&svmtune_decision.fragment).
 * Never sleeps.
 *
 * Return: log2 bytes, %SVMTUNE_FRAGMENT_MIN to %SVMTUNE_FRAGMENT_MAX.
 */
unsigned int svmtune_fragment_size_at(struct mm_struct *mm, unsigned long addr)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_policy eff;

	if (!smm) {
		svmtune_policy_effective(NULL, NULL, &eff);
		return svmtune_policy_fragment(&eff);
	}
	spin_lock(&smm->lock);
	svmtune_policy_effective(smm, svmtune_range_find(smm, addr), &eff);
	spin_unlock(&smm->lock);
	return svmtune_policy_fragment(&eff);
}
EXPORT_SYMBOL_GPL(svmtune_fragment_size_at);

/**
 * svmtune_default_granularity() - the block size new ranges of a process get
 * @mm: the address space; the caller keeps it alive
 *
 * For backends whose driver keeps a per-process default of its own (KFD's
 * svms.default_granularity): the process default set with
 * %SVMTUNE_IOC_SET_PROCESS_POLICY, else the global ``granularity`` knob,
 * or, when the global policy is adaptive, ``adaptive_max_granularity`` (the
 * widest window the adaptive policy may choose; each fault's window is
 * still decided by svmtune_decide()).
 *
 * Never sleeps.
 *
 * Return: log2 bytes, %SVMTUNE_GRANULARITY_MIN to %SVMTUNE_GRANULARITY_MAX.
 */
unsigned int svmtune_default_granularity(struct mm_struct *mm)
{
	unsigned int shift = SVMTUNE_GRANULARITY_UNSET;
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_params prm;

	if (smm) {
		spin_lock(&smm->lock);
		shift = smm->defaults.granularity;
		spin_unlock(&smm->lock);
	}
	if (shift != SVMTUNE_GRANULARITY_UNSET)
		return shift;
	svmtune_params_get(&prm);
	return prm.adaptive ? prm.adaptive_max : prm.granularity;
}
EXPORT_SYMBOL_GPL(svmtune_default_granularity);

/**
 * svmtune_explicit_policy() - what a process set for an address
 * @mm: the address space; the caller keeps it alive
 * @addr: the address
 * @pol: filled with the range's settings, else the process defaults, and
 *	UNSET where neither sets a field
 *
 * For backends whose driver keeps per-range attributes of its own (KFD's
 * preferred location, access, granularity), to give new driver ranges
 * what the process asked svmtune for. Never sleeps.
 */
void svmtune_explicit_policy(struct mm_struct *mm, unsigned long addr,
			     struct svmtune_explicit_policy *pol)
{
	struct svmtune_mm *smm = svmtune_mm_find(mm);
	struct svmtune_policy eff;

	pol->granularity = SVMTUNE_GRANULARITY_UNSET;
	pol->preferred_loc = SVMTUNE_LOC_UNSET;
	pol->access = SVMTUNE_ACCESS_UNSET;
	if (!smm)
		return;
	spin_lock(&smm->lock);
	svmtune_policy_effective(smm, svmtune_range_find(smm, addr), &eff);
	spin_unlock(&smm->lock);
	pol->granularity = eff.granularity;
	pol->preferred_loc = eff.preferred_loc;
	/* svmtune_policy_effective() fills in the global access default. */
	pol->access = eff.access == SVMTUNE_ACCESS_MIGRATE ? SVMTUNE_ACCESS_UNSET :
							      eff.access;
}
EXPORT_SYMBOL_GPL(svmtune_explicit_policy);
