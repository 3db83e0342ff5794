/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs svmtune.ko gives svmtune_ops programs (Documentation/
 * userspace-api.rst, "Programmable policy"), declared for BPF programs:
 * include after <bpf/bpf_helpers.h> (for __ksym) and
 * <linux/svmtune_bpf.h>.
 */
#ifndef _SVMTUNE_KFUNCS_H
#define _SVMTUNE_KFUNCS_H

extern int svmtune_bpf_block_state(struct svmtune_bpf_fault *fault, __u64 addr,
				   struct svmtune_bpf_block *out) __ksym;
extern int svmtune_bpf_block_span(struct svmtune_bpf_fault *fault, __u64 start,
				  __u64 end,
				  struct svmtune_bpf_block *out) __ksym;
extern __u64 *svmtune_bpf_block_data(struct svmtune_bpf_fault *fault,
				     __u64 addr, int rdwr_buf_size) __ksym;
extern __u64 *svmtune_bpf_range_data(struct svmtune_bpf_fault *fault,
				     int rdwr_buf_size) __ksym;

#endif /* _SVMTUNE_KFUNCS_H */
