/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svmtune: the kernel interfaces that changed between the kernels svmtune
 * supports (6.1.y, 6.12.y, 7.2.y, 7.3.y), in one place.
 *
 * Which form a kernel has is found in its own headers by the top-level
 * Kbuild (SVMTUNE_HAVE_* below), not from its version number, so a
 * distribution kernel that backported a change is built for what it
 * contains. KFD's own layout is a separate question, answered from the
 * KFD sources (drivers/kfd/svmtune_kfd_compat.h).
 */
#ifndef _SVMTUNE_COMPAT_H
#define _SVMTUNE_COMPAT_H

#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#ifdef SVMTUNE_HAVE_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif
#ifdef CONFIG_X86
#include <asm/ibt.h>
#endif
#include <linux/huge_mm.h>
#include <linux/migrate.h>

/*
 * mmap_assert_locked(): under CONFIG_DEBUG_VM it calls dump_mm(), which
 * 6.1 does not export to modules (6.12 does). Where the kernel's
 * Module.symvers lacks it (Kbuild's SVMTUNE_HAVE_EXPORT_DUMP_MM), only
 * lockdep's half of the assertion.
 */
static inline void svmtune_mmap_assert_locked(struct mm_struct *mm)
{
#if defined(SVMTUNE_HAVE_EXPORT_DUMP_MM) || !defined(CONFIG_DEBUG_VM)
	mmap_assert_locked(mm);
#else
	lockdep_assert_held(&mm->mmap_lock);
#endif
}

/*
 * The dev_pagemap of a ZONE_DEVICE page. 6.14 moved it from struct page
 * to the folio and added page_pgmap().
 */
static inline struct dev_pagemap *svmtune_page_pgmap(const struct page *page)
{
#ifdef SVMTUNE_HAVE_PAGE_PGMAP
	return page_pgmap(page);
#else
	return page->pgmap;
#endif
}

/*
 * Hand out device-private page @page of @pgmap as a new order-0 folio
 * with one reference. 6.15 made zone_device_page_init() take the pagemap
 * (it now sets folio->pgmap itself) and the order.
 */
static inline void svmtune_zone_device_page_init(struct page *page,
						 struct dev_pagemap *pgmap)
{
#ifdef SVMTUNE_HAVE_ZONE_DEVICE_INIT_PGMAP
	zone_device_page_init(page, pgmap, 0);
#else
	zone_device_page_init(page);
#endif
}

/*
 * Whether @mm's owner may be acted on by a caller that passed the
 * credentials check without CAP_SYS_PTRACE: the ptrace rule that a
 * non-dumpable target (setuid, PR_SET_DUMPABLE 0) needs CAP_SYS_PTRACE in
 * the user namespace it was exec'd in. @task owns @mm. Linux 7.3 moved
 * dumpability and that namespace from the mm to the task
 * (task->exec_state); neither form is exported as a function, both are
 * read here as kernel/ptrace.c reads them.
 */
static inline bool svmtune_dumpable_or_capable(struct task_struct *task,
					       struct mm_struct *mm)
{
#ifdef SVMTUNE_HAVE_EXEC_STATE
	const struct task_exec_state *es;
	bool ok;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	/* Only a task being set up has none: refuse it. */
	ok = es && (READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER ||
		    ns_capable(es->user_ns, CAP_SYS_PTRACE));
	rcu_read_unlock();
	return ok;
#else
	if (get_dumpable(mm) == SUID_DUMP_USER)
		return true;
	return ns_capable(mm->user_ns, CAP_SYS_PTRACE);
#endif
}

#ifdef CONFIG_X86
/*
 * Whether the instruction at @addr, a function's first, is ENDBR (an
 * indirect branch may land there under IBT). 6.15 made is_endbr() take a
 * pointer and read the word itself, out of line and not exported; the
 * test on the word stayed inline as __is_endbr().
 */
static inline bool svmtune_is_endbr(void *addr)
{
#if defined(SVMTUNE_HAVE___IS_ENDBR) && defined(CONFIG_X86_KERNEL_IBT)
	u32 word;

	if (get_kernel_nofault(word, (u32 *)addr))
		return false;
	return __is_endbr(word);
#elif defined(SVMTUNE_HAVE___IS_ENDBR)
	/* Without IBT an indirect branch may land anywhere. */
	return true;
#else
	return is_endbr(*(u32 *)addr);
#endif
}
#endif

/*
 * Compound (THP) device-private migration, Linux 7.3: migrate_vma_setup()
 * with MIGRATE_VMA_SELECT_COMPOUND collects an empty or PMD-mapped 2 MiB
 * as one MIGRATE_PFN_COMPOUND entry, device-private memory can be a large
 * folio (zone_device_folio_init()), freed whole by ->folio_free() and
 * split through ->folio_split(). SVMTUNE_DEVICE_THP is defined where the
 * kernel has all of it and its architecture migrates THPs: PMD migration
 * and device-private entries (thp_migration_supported();
 * CONFIG_ARCH_HAS_PMD_SOFTLEAVES in 7.3, CONFIG_ARCH_ENABLE_THP_MIGRATION
 * before).
 */
#if defined(SVMTUNE_HAVE_MIGRATE_COMPOUND) &&				\
	defined(SVMTUNE_HAVE_FOLIO_SPLIT) &&				\
	defined(SVMTUNE_HAVE_FOLIO_FREE) &&				\
	defined(SVMTUNE_HAVE_ZONE_DEVICE_INIT_PGMAP) &&			\
	defined(CONFIG_MIGRATION) &&					\
	defined(CONFIG_TRANSPARENT_HUGEPAGE) &&				\
	(defined(CONFIG_ARCH_HAS_PMD_SOFTLEAVES) ||			\
	 defined(CONFIG_ARCH_ENABLE_THP_MIGRATION))
#define SVMTUNE_DEVICE_THP 1
#endif

/*
 * How many pages the entry @mpfn of a migrate_vma src or dst array
 * stands for: a compound entry covers a PMD's worth (the entries after it
 * are empty), any other one page.
 */
static inline unsigned long svmtune_migrate_pfn_pages(unsigned long mpfn)
{
#ifdef SVMTUNE_DEVICE_THP
	if (mpfn & MIGRATE_PFN_COMPOUND)
		return HPAGE_PMD_NR;
#endif
	return 1;
}

/*
 * SVMTUNE_BPF_STRUCT_OPS: a module may register a struct_ops type of its
 * own (register_bpf_struct_ops(), 6.9 and later; SVMTUNE_HAVE_MODULE_STRUCT_OPS
 * from <linux/bpf.h>), the kernel has BPF, and modules get BTF, without
 * which the type would silently not exist (drivers/core/svmtune_bpf.c).
 */
#if defined(SVMTUNE_HAVE_MODULE_STRUCT_OPS) &&				\
	IS_ENABLED(CONFIG_BPF_SYSCALL) &&				\
	IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
#define SVMTUNE_BPF_STRUCT_OPS
#endif

/*
 * KF_TRUSTED_ARGS: a kfunc takes only trusted pointers. 7.x made that the
 * default for every kfunc and dropped the flag.
 */
#if defined(SVMTUNE_BPF_STRUCT_OPS) && !defined(KF_TRUSTED_ARGS)
#define KF_TRUSTED_ARGS 0
#endif

#endif /* _SVMTUNE_COMPAT_H */
