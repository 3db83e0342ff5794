// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * svmtune core: the one parser of numeric knobs.
 *
 * Every numeric value an operator writes (the knobs in /sys/kernel/svmtune/,
 * the backends' module parameters) is read here, so all take the same
 * text and refuse the same: decimal digits (with a K, M or G suffix for
 * sizes) and at most one trailing newline, as
 * Documentation/ABI/testing/sysfs-kernel-svmtune says. No sign, no
 * leading or embedded blank, no 0x, no octal reading of a leading 0, no
 * overflow. kstrtouint() would take a leading '+' ("+5" reads 5), which
 * the documentation refuses.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/types.h>

#include "svmtune_internal.h"

/*
 * The digits at *@p, as a number no larger than @limit; *@p is left after
 * them. -EINVAL when there is no digit or the number exceeds @limit.
 */
static int svmtune_parse_digits(const char **p, u64 limit, u64 *val)
{
	const char *s = *p;
	u64 v = 0;

	if (!isdigit(*s))
		return -EINVAL;
	for (; isdigit(*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > limit)
			return -EINVAL;
	}
	*p = s;
	*val = v;
	return 0;
}

/* Nothing left but one optional newline. */
static bool svmtune_parse_end(const char *p)
{
	if (*p == '\n')
		p++;
	return !*p;
}

/**
 * svmtune_parse_uint() - parse a decimal knob within bounds
 * @buf: decimal digits with an optional trailing newline, NUL-terminated
 * @min: the smallest value accepted
 * @max: the largest value accepted
 * @val: the value, on success; untouched on failure
 *
 * Return: 0, or -EINVAL for anything else: a sign, blanks, another base,
 * a value outside @min..@max (overflow included).
 */
int svmtune_parse_uint(const char *buf, unsigned int min, unsigned int max,
		       unsigned int *val)
{
	const char *p = buf;
	u64 v;

	if (svmtune_parse_digits(&p, max, &v) || !svmtune_parse_end(p) ||
	    v < min)
		return -EINVAL;
	*val = v;
	return 0;
}
EXPORT_SYMBOL_GPL(svmtune_parse_uint);

/**
 * svmtune_parse_size_shift() - parse a power-of-two size knob
 * @buf: "<digits>[K|M|G]" (either case) with an optional trailing newline
 * @shift: the size as log2 bytes, on success; untouched on failure
 *
 * Return: 0, or -EINVAL if @buf is not such a size, is not a power of two,
 * or is outside %SVMTUNE_GRANULARITY_MIN..%SVMTUNE_GRANULARITY_MAX.
 */
int svmtune_parse_size_shift(const char *buf, unsigned int *shift)
{
	const char *p = buf;
	unsigned int mult = 0;
	u64 val;

	if (svmtune_parse_digits(&p, 1ULL << SVMTUNE_GRANULARITY_MAX, &val))
		return -EINVAL;
	switch (*p) {
	case 'K': case 'k':
		mult = 10;
		break;
	case 'M': case 'm':
		mult = 20;
		break;
	case 'G': case 'g':
		mult = 30;
		break;
	}
	if (mult)
		p++;
	if (!svmtune_parse_end(p) || !val || !is_power_of_2(val))
		return -EINVAL;
	val = ilog2(val) + mult;
	if (val < SVMTUNE_GRANULARITY_MIN || val > SVMTUNE_GRANULARITY_MAX)
		return -EINVAL;
	*shift = val;
	return 0;
}
