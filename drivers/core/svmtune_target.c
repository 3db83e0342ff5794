// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune core: which address space a request from user space may act on.
 */

/**
 * DOC: Target
 *
 * Policy and stats ioctls, and a programmable policy attached to one
 * process (svmtune_bpf.c), name a process by pid. svmtune_target_mm()
 * answers with its address space if the caller may act on it: its own
 * always; another's under the test ptrace_may_access() makes for
 * PTRACE_MODE_ATTACH_FSCREDS, checked under the target's exec_update_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include <svmtune/compat.h>

#include "svmtune_internal.h"

/*
 * May the caller act on @task, whose address space is @mm? The test
 * ptrace_may_access() makes in PTRACE_MODE_READ_FSCREDS or
 * PTRACE_MODE_ATTACH_FSCREDS (process_madvise() and /proc/PID/mem make
 * it): the caller's filesystem uid and gid match the target's real,
 * effective and saved ids and the target is dumpable, or the caller has
 * CAP_SYS_PTRACE over the target. So a user may tune its own processes
 * and children, not another user's, and root needs CAP_SYS_PTRACE. What a
 * module cannot do is run the LSM hook (security_ptrace_access_check()):
 * neither it nor ptrace_may_access() nor mm_access() is exported, so Yama
 * and SELinux ptrace rules do not apply here.
 */
static bool svmtune_may_act_on(struct task_struct *task, struct mm_struct *mm)
{
	const struct cred *cred = current_cred(), *tcred;
	bool ok;

	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->fsuid, tcred->euid) &&
	      uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) &&
	      gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) &&
	      gid_eq(cred->fsgid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	return ok && svmtune_dumpable_or_capable(task, mm);
}

/**
 * svmtune_target_mm() - the address space process @pid names, if the
 *	caller may act on it
 * @pid: 0 or the caller's own pid for the caller's; another process's
 *
 * The caller may act on another process as svmtune_may_act_on() says,
 * checked under the target's exec_update_lock as mm_access() does, so an
 * exec of a setuid program cannot slip in between.
 *
 * Return: the address space with its users referenced (mmput() it), or
 * ERR_PTR(-EINVAL) (no address space, a pid beyond INT_MAX), -ESRCH,
 * -EPERM, or the error of a killed wait.
 */
struct mm_struct *svmtune_target_mm(u32 pid)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *p;
	int ret;

	if (!pid)
		return get_task_mm(current) ?: ERR_PTR(-EINVAL);
	if (pid > INT_MAX)
		return ERR_PTR(-EINVAL);

	p = find_get_pid(pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return ERR_PTR(-ESRCH);
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret) {
		put_task_struct(task);
		return ERR_PTR(ret);
	}
	mm = get_task_mm(task);
	if (!mm)
		mm = ERR_PTR(-EINVAL);	/* a kernel thread, or exiting */
	else if (mm != current->mm && !svmtune_may_act_on(task, mm)) {
		mmput(mm);
		mm = ERR_PTR(-EPERM);
	}
	up_read(&task->signal->exec_update_lock);
	put_task_struct(task);
	return mm;
}
