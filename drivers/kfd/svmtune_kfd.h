/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune_kfd: declarations shared by the files of svmtune_kfd.ko.
 */
#ifndef _SVMTUNE_KFD_H
#define _SVMTUNE_KFD_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <svmtune/backend.h>

struct module;

/* What svmtune_kfd counts; shown in /sys/kernel/svmtune/kfd/stats. */
enum svmtune_kfd_stat {
	SVMTUNE_KFD_GPU_FAULTS,
	SVMTUNE_KFD_CPU_FAULTS,
	SVMTUNE_KFD_UNTRACKED_FAULTS,
	SVMTUNE_KFD_DECISIONS,
	SVMTUNE_KFD_WINDOWS_CHANGED,
	SVMTUNE_KFD_MIGRATIONS_DECLINED,
	SVMTUNE_KFD_DECLINES_SKIPPED_IN_VRAM,
	SVMTUNE_KFD_TO_VRAM_CALLS,
	SVMTUNE_KFD_TO_VRAM_PAGES,
	SVMTUNE_KFD_TO_RAM_CALLS,
	SVMTUNE_KFD_TO_RAM_PAGES,
	SVMTUNE_KFD_DEFAULT_GRANULARITY_SET,
	SVMTUNE_KFD_GRANULARITY_KEPT,
	SVMTUNE_KFD_RANGES_GIVEN_POLICY,
	SVMTUNE_KFD_RETRY_FILTER_PASSED,
	SVMTUNE_KFD_RETRY_FILTER_DUPLICATES,
	SVMTUNE_KFD_RETRY_FILTER_UNKNOWN,
	SVMTUNE_KFD_PROCESSES_ATTACHED,
	SVMTUNE_KFD_ATTACH_FAILED,
	SVMTUNE_KFD_ATTACH_DROPPED,
	SVMTUNE_KFD_CPU_FAULTS_NOT_MIGRATED,
	SVMTUNE_KFD_FAULTS_ON_UNKNOWN_NODES,
	SVMTUNE_KFD_CONTIGUOUS_REQUESTED,
	SVMTUNE_KFD_REMOTE_PAGES_DIRTIED,
	SVMTUNE_KFD_VRAM_PAGES_DIRTIED,
	SVMTUNE_KFD_NR_STATS,
};

/* Number of PTE fragment sizes amdgpu encodes (5 bits). */
#define SVMTUNE_KFD_NR_FRAGMENTS	32

extern atomic64_t svmtune_kfd_stats[SVMTUNE_KFD_NR_STATS];
extern atomic64_t svmtune_kfd_fragment_ptes[SVMTUNE_KFD_NR_FRAGMENTS];

/*
 * KFD's retry-fault filter: per range, as KFD has it (false), or per
 * window mapped (true, the default). See svmtune_kfd_hooks.c.
 */
extern bool svmtune_kfd_filter_per_window;

/*
 * KFD's SVM BOs are created asking amdgpu for contiguous VRAM (true) or as
 * KFD creates them (false, the default). See svmtune_kfd_hooks.c.
 */
extern bool svmtune_kfd_contiguous_vram;

/* svmtune_kfd_main.c */
extern struct mutex svmtune_kfd_lock;
bool svmtune_kfd_refusing(void);
__printf(1, 2) void svmtune_kfd_refuse(const char *fmt, ...);

/* svmtune_kfd_hooks.c */
int svmtune_kfd_hooks_attach(struct module *amdgpu, char *why, size_t len);
bool svmtune_kfd_ftrace_usable(char *why, size_t len);
void svmtune_kfd_hooks_detach(void);
ssize_t svmtune_kfd_hooks_show(char *buf);
u64 svmtune_kfd_untracked_faults(void);
int svmtune_kfd_kfd_version(struct module *amdgpu, u32 *major, u32 *minor,
			    char *why, size_t len);

/* svmtune_kfd_nodes.c */
struct amdgpu_device;
struct svmtune_kfd_node_info;
struct svmtune_device *svmtune_kfd_node_device(const struct svmtune_kfd_node_info *info);
void svmtune_kfd_node_added(const struct svmtune_kfd_node_info *info);
void svmtune_kfd_node_gone(const struct svmtune_kfd_node_info *info);
struct svmtune_device *svmtune_kfd_node_device_by_adev(const struct amdgpu_device *adev);
void svmtune_kfd_nodes_freeze(void);
void svmtune_kfd_nodes_reset(void);
unsigned int svmtune_kfd_nodes_count(void);
unsigned int svmtune_kfd_nodes_apu(void);
struct dev_pagemap;
bool svmtune_kfd_node_pgmap(const struct dev_pagemap *pgmap);

/* svmtune_kfd_dirty.c */
struct pt_regs;
void svmtune_kfd_update_range_entry(struct pt_regs *regs);
void svmtune_kfd_migrate_pages_entry(struct pt_regs *regs);
ssize_t svmtune_kfd_nodes_show(char *buf);

#endif /* _SVMTUNE_KFD_H */
