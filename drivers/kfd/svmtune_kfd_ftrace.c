// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_kfd: whether this kernel's ftrace can carry svmtune_kfd's hooks.
 *
 * Linux 7.3's x86 ftrace (CONFIG_DYNAMIC_FTRACE_WITH_JMP) marks a target
 * that is to be jumped to, not called, by bit 0 of its address, and
 * ftrace_call_replace() reads that bit from every address it is given,
 * callbacks included. On a kernel whose functions are not all aligned
 * (-Os with a compiler that has no -fmin-function-alignment: GCC before
 * 14 ignores -falign-functions under -Os) an odd callback becomes a jump
 * one byte before it: as soon as two users share a traced function,
 * ftrace_call and ftrace_regs_call jump to ftrace_ops_list_func - 1, and
 * the first traced call oopses (a write to kernel text, or a return to
 * address 0 from the function tracer's re-patched trampoline).
 * svmtune_kfd puts an ftrace_ops and a kretprobe (a kprobe on ftrace) on
 * four of KFD's functions, so it refuses to attach on such a kernel, and
 * says why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>

#include "svmtune_kfd.h"

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_JMP
/*
 * The address of kernel function @symbol, or 0. kallsyms_lookup_name() is
 * not exported: a disabled kprobe resolves the name (register_kprobe()
 * fills kp.addr in before it refuses a symbol on the kprobe blacklist, as
 * ftrace_ops_list_func is), and the offset sprint_symbol() gives takes it
 * back to the function's start (with IBT the probe is after the ENDBR).
 */
static unsigned long svmtune_kfd_kernel_symbol(const char *symbol)
{
	struct kprobe kp = { .symbol_name = symbol,
			     .flags = KPROBE_FLAG_DISABLED };
	char where[KSYM_SYMBOL_LEN];
	unsigned long addr, offset, size;
	const char *plus;

	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	addr = (unsigned long)kp.addr;
	if (!addr)
		return 0;
	sprint_symbol(where, addr);
	plus = strchr(where, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &offset, &size) != 2 ||
	    offset > addr)
		return 0;
	return addr - offset;
}

/**
 * svmtune_kfd_ftrace_usable() - may svmtune_kfd hook this kernel's functions?
 * @why: where the reason goes when not
 * @len: its size
 *
 * Return: false on a kernel whose ftrace turns calls to odd addresses into
 * jumps and whose ftrace_ops_list_func sits at an odd address (see above),
 * or where that cannot be checked.
 */
bool svmtune_kfd_ftrace_usable(char *why, size_t len)
{
	unsigned long addr = svmtune_kfd_kernel_symbol("arch_ftrace_ops_list_func");

	if (!addr)
		addr = svmtune_kfd_kernel_symbol("ftrace_ops_list_func");
	if (!addr) {
		snprintf(why, len,
			 "cannot find ftrace_ops_list_func to check this kernel's ftrace (DYNAMIC_FTRACE_WITH_JMP): not hooking");
		return false;
	}
	if (addr & 1) {
		snprintf(why, len,
			 "ftrace here would oops on svmtune_kfd's hooks: DYNAMIC_FTRACE_WITH_JMP with unaligned functions (ftrace_ops_list_func at an odd address: -Os without -fmin-function-alignment); build the kernel with CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE");
		return false;
	}
	return true;
}
#else
bool svmtune_kfd_ftrace_usable(char *why, size_t len)
{
	return true;
}
#endif
