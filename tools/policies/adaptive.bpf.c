// SPDX-License-Identifier: GPL-2.0
/*
 * Example policy: svmtune's built-in adaptive granularity
 * (drivers/core/svmtune_adaptive.c) as a program, decision for decision.
 * Attached over the fixed 2 MiB policy with the other knobs as for the
 * built-in "adaptive" (adaptive bounds 4 KiB to 2 MiB, no density
 * prefetch, fragment "auto" off, fragment cap at least 2 MiB), it makes
 * the windows the built-in policy makes, so every counter of every
 * workload is the same (make bench's adaptive and bpf-adaptive rows,
 * checked by tools/bench/check-output). A starting point for a policy of
 * one's own: change a rule and compare.
 *
 * State: the engine's per-block and per-range storage
 * (svmtune_bpf_block_data(), svmtune_bpf_range_data()), which lives and
 * goes with the engine's own blocks and ranges; no map, nothing to bound.
 *
 * Per 2 MiB block, a window size (log2 bytes), 64 KiB to start: a fault
 * at the end of the block's last window that the device used (half of it
 * or more, where the device reports use) makes it 8 times larger; where
 * use is unknown, two such faults in a row double it. Two faults in a row
 * elsewhere (sparse) halve it, or bring it to the smallest window such a
 * pair brought any block of the range to. A block's first fault that
 * continues the last window of the block below takes that block's state
 * (a stream crossing blocks keeps its size); else it starts where the
 * range's blocks last were. Pages that left the device untouched, half a
 * window or more, halve the window (the waste callback). A block of which
 * the device used 1/8 migrates the rest of the block at its next fault.
 * CPU faults take the block's window and change no state.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/svmtune_bpf.h>
#include "svmtune_kfuncs.h"

char _license[] SEC("license") = "GPL";

#define PAGE_SHIFT 12
#define BLOCK_SHIFT 21
#define BLOCK_SIZE (1ULL << BLOCK_SHIFT)
#define BLOCK_PAGES (BLOCK_SIZE >> PAGE_SHIFT)
#define SHIFT_MIN 12 /* the adaptive_min knob's default */
#define SHIFT_MAX 21 /* adaptive_max's */
#define SHIFT_START 16
#define STREAK 2
#define JUMP 3
#define DENSE_PAGES (BLOCK_PAGES / 8)
#define CHUNK_SHIFT 16 /* thrashing's chunk */

/* A block's state, in its storage. */
struct ad_block {
	__u8 shift;
	__u8 seq;
	__u8 sparse;
	__u8 grown;
	__u32 last_window; /* pages */
	__u64 next; /* the end of the last window */
};

/* A range's state, in its storage. */
struct ad_range {
	__u8 hint;
	__u8 sparse;
};

_Static_assert(sizeof(struct ad_block) <= SVMTUNE_BPF_DATA_SIZE, "block state");

enum use { USE_UNKNOWN, USED, UNUSED };

static __u8 clamp_shift(__u32 s)
{
	return s < SHIFT_MIN ? SHIFT_MIN : s > SHIFT_MAX ? SHIFT_MAX : s;
}

/* Whether the device used most of the block's last window. */
static enum use window_use(struct svmtune_bpf_fault *f,
			   const struct ad_block *b)
{
	__u64 base = f->addr & ~(BLOCK_SIZE - 1), end = b->next;
	__u64 n = b->last_window, first;
	struct svmtune_bpf_block span;

	if (!f->reports_use || !n || end <= base || end > base + BLOCK_SIZE ||
	    n > (end - base) >> PAGE_SHIFT || f->block_loc != f->dev)
		return USE_UNKNOWN;
	first = end - (n << PAGE_SHIFT);
	if (svmtune_bpf_block_span(f, first, end, &span))
		return USE_UNKNOWN;
	if (2 * (__u64)span.resident < n)
		return USE_UNKNOWN;
	return 2 * span.touched >= span.resident ? USED : UNUSED;
}

/* A device fault (or a CPU fault in a block with no window yet). */
static void adapt(struct svmtune_bpf_fault *f, struct ad_block *b,
		  struct ad_range *r)
{
	__u64 addr = f->addr;
	enum use use;
	int at_next;

	if (!b->shift) {
		__u64 base = addr & ~(BLOCK_SIZE - 1);
		struct ad_block *below =
			base ? (void *)svmtune_bpf_block_data(
				       f, base - BLOCK_SIZE, sizeof(*below)) :
			       NULL;

		if (below && below->shift && below->next == base &&
		    addr < base + (1ULL << (below->shift & 31)))
			*b = *below;
		else if (r && r->hint)
			b->shift = r->hint;
		else
			b->shift = SHIFT_START;
	}
	at_next = b->next && addr >= b->next &&
		  addr < b->next + (1ULL << (b->shift & 31));
	use = at_next ? window_use(f, b) : UNUSED;
	if (use == USED) {
		b->sparse = 0;
		b->seq = 0;
		b->shift = clamp_shift(b->shift + JUMP);
		b->grown = 1;
	} else if (use == USE_UNKNOWN) {
		b->sparse = 0;
		if (++b->seq >= STREAK) {
			b->seq = 0;
			if (b->shift < SHIFT_MAX) {
				b->shift++;
				b->grown = 1;
			}
		}
	} else if (b->next) {
		b->seq = 0;
		if (++b->sparse >= STREAK) {
			b->sparse = 0;
			if (b->shift > SHIFT_MIN)
				b->shift--;
			if (r) {
				if (r->sparse && r->sparse < b->shift)
					b->shift = r->sparse;
				r->sparse = b->shift;
			}
		} else if (!b->grown && r && r->sparse &&
			   r->sparse < b->shift) {
			b->sparse = 0;
			b->shift = r->sparse;
		}
	}
	b->shift = clamp_shift(b->shift);
	if (r)
		r->hint = b->shift;
}

/* The window the engine cuts for @shift: [*start, *end). */
static void cut(const struct svmtune_bpf_fault *f, __u32 shift, __u64 *start,
		__u64 *end)
{
	__u64 base = f->addr & ~((1ULL << shift) - 1);

	*start = base > f->lo ? base : f->lo;
	*end = base + (1ULL << shift) < f->hi ? base + (1ULL << shift) : f->hi;
}

SEC("struct_ops/device_fault")
int BPF_PROG(adaptive_device_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	struct ad_block *b =
		(void *)svmtune_bpf_block_data(f, f->addr, sizeof(*b));
	struct ad_range *r = (void *)svmtune_bpf_range_data(f, sizeof(*r));
	__u64 base = f->addr & ~(BLOCK_SIZE - 1), start, end;
	struct svmtune_bpf_block blk;
	__u32 shift;

	/* No block: the built-in decision (the engine's adaptive has none). */
	if (!b)
		return 0;
	if (!f->retried || !b->shift)
		adapt(f, b, r);
	shift = b->shift & 31;
	cut(f, shift, &start, &end);
	if (d->action == SVMTUNE_BPF_MIGRATE) {
		/* A block the device used densely: the rest of it. */
		if (f->reports_use && f->block_loc == f->dev &&
		    !f->block_thrashing &&
		    !(start <= base && end >= base + BLOCK_SIZE) &&
		    !svmtune_bpf_block_span(f, base, base + BLOCK_SIZE, &blk) &&
		    blk.touched >= DENSE_PAGES) {
			shift = BLOCK_SHIFT;
			cut(f, shift, &start, &end);
		}
	} else if (!svmtune_bpf_block_state(f, base, &blk) &&
		   (blk.pinned >> (((f->addr - base) >> CHUNK_SHIFT) & 31)) &
			   1) {
		/*
		 * A pinned chunk maps remotely, that chunk only: the engine
		 * clips its adaptive window to the chunk, which the cut at
		 * the chunk's size (or the window's, if smaller) makes.
		 */
		if (shift > CHUNK_SHIFT) {
			shift = CHUNK_SHIFT;
			cut(f, shift, &start, &end);
		}
	}
	if (!f->retried) {
		b->next = end;
		b->last_window = (end - start) >> PAGE_SHIFT;
	}
	d->shift = shift;
	return 1;
}

SEC("struct_ops/cpu_fault")
int BPF_PROG(adaptive_cpu_fault, struct svmtune_bpf_fault *f,
	     struct svmtune_bpf_decision *d)
{
	struct ad_block *b =
		(void *)svmtune_bpf_block_data(f, f->addr, sizeof(*b));
	struct ad_range *r = (void *)svmtune_bpf_range_data(f, sizeof(*r));

	if (!b)
		return 0;
	if (!b->shift)
		adapt(f, b, r);
	/* The built-in's single page (its preferred location is here) stands. */
	if (d->shift == PAGE_SHIFT)
		return 0;
	d->shift = b->shift & 31;
	return 1;
}

SEC("struct_ops/waste")
void BPF_PROG(adaptive_waste, struct svmtune_bpf_fault *w)
{
	struct ad_block *b =
		(void *)svmtune_bpf_block_data(w, w->addr, sizeof(*b));
	struct ad_range *r = (void *)svmtune_bpf_range_data(w, sizeof(*r));
	__u64 npages = (w->end - w->start) >> PAGE_SHIFT;

	if (b && b->last_window && 2 * npages >= b->last_window &&
	    b->shift > SHIFT_MIN) {
		b->shift--;
		if (r)
			r->hint = b->shift;
	}
}

SEC(".struct_ops.link")
struct svmtune_ops adaptive = {
	.device_fault = (void *)adaptive_device_fault,
	.cpu_fault = (void *)adaptive_cpu_fault,
	.waste = (void *)adaptive_waste,
	.name = "adaptive",
};
