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
 * dev_pagemap_ops' free callback: page_free(page) up to 6.x,
 * folio_free(folio) since device-private memory can be a large folio.
 * SVMTUNE_PAGEMAP_FREE(fn) initialises the member with @fn, which takes a
 * struct page (svmtune's device pages are order 0); the folio form calls
 * it once per page of the folio.
 */
#ifdef SVMTUNE_HAVE_FOLIO_FREE
#define SVMTUNE_PAGEMAP_FREE(fn)					\
	.folio_free = fn##_folio
#define SVMTUNE_DEFINE_PAGEMAP_FREE(fn)					\
	static void fn##_folio(struct folio *folio)			\
	{								\
		long i, n = folio_nr_pages(folio);			\
									\
		for (i = 0; i < n; i++)					\
			fn(folio_page(folio, i));			\
	}
#else
#define SVMTUNE_PAGEMAP_FREE(fn)	.page_free = fn
#define SVMTUNE_DEFINE_PAGEMAP_FREE(fn)
#endif

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

#endif /* _SVMTUNE_COMPAT_H */
