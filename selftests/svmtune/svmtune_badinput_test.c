// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input, table-driven: every ioctl of /dev/svmtune and of the emulated
 * GPU, every sysfs knob of the engine. Each case starts from an argument
 * the kernel accepts, changes one or two things (the struct size in the
 * command, the argument pointer, a field), and checks the errno that
 * Documentation/userspace-api.rst gives for it, or that the argument is
 * still accepted where the documentation says so. Knob cases check that a
 * refused write left the value as it was.
 *
 * Each case is one test of the harness (a fixture variant), so a report
 * names the case that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

#define EMU_DEV "/dev/svmtune_emu0"
#define PAGE 4096UL
/*
 * Top of the user address space (the kernel's TASK_SIZE_MAX): 47 bits with
 * 4-level paging, 56 with 5-level, which 7.x kernels always build in and
 * use where the CPU has LA57 (QEMU's "max" CPU has it).
 */
#define USER_TOP_4LEVEL 0x7ffffffff000ULL
#define USER_TOP_5LEVEL 0xfffffffffff000ULL

/*
 * 5-level paging is on when a mapping can be placed above 47 bits (the
 * kernel places one there only when asked with a hint that high).
 */
static unsigned long long user_top(void)
{
	static unsigned long long top;
	void *hint = (void *)(1ULL << 50), *p;

	if (top)
		return top;
	p = mmap(hint, PAGE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	top = p == hint ? USER_TOP_5LEVEL : USER_TOP_4LEVEL;
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	return top;
}
/* A kernel address (the direct map). */
#define KERNEL_ADDR 0xffff888000000000ULL
/* A pid no process has (the test kernel's pid_max is far below). */
#define NO_SUCH_PID 0x7ffffff0u

enum ioc_id {
	I_VERSION,
	I_SET_POLICY,
	I_GET_POLICY,
	I_SET_PROCESS,
	I_GET_PROCESS,
	I_STATS,
	I_DEVICE,
	I_ACCESS,
	I_MIGRATE,
	I_SNAPSHOT,
};

static const struct {
	unsigned int cmd;
	bool emu; /* on /dev/svmtune_emu0, not /dev/svmtune */
} ioc_table[] = {
	[I_VERSION] = { SVMTUNE_IOC_VERSION },
	[I_SET_POLICY] = { SVMTUNE_IOC_SET_POLICY },
	[I_GET_POLICY] = { SVMTUNE_IOC_GET_POLICY },
	[I_SET_PROCESS] = { SVMTUNE_IOC_SET_PROCESS_POLICY },
	[I_GET_PROCESS] = { SVMTUNE_IOC_GET_PROCESS_POLICY },
	[I_STATS] = { SVMTUNE_IOC_GET_STATS },
	[I_DEVICE] = { SVMTUNE_IOC_GET_DEVICE },
	[I_ACCESS] = { SVMTUNE_EMU_IOC_ACCESS, true },
	[I_MIGRATE] = { SVMTUNE_EMU_IOC_MIGRATE, true },
	[I_SNAPSHOT] = { SVMTUNE_EMU_IOC_SNAPSHOT, true },
};

/* How the call differs from a good one, besides the fields. */
enum how {
	H_NONE,
	H_SIZE_ZERO, /* struct size 0 in the command */
	H_SIZE_SHORT, /* 8 bytes shorter than the first version */
	H_SIZE_FIRST, /* the first version of a struct that grew */
	H_SIZE_LONG_ZERO, /* 8 bytes longer, the extra bytes zero */
	H_SIZE_LONG_TAIL, /* 8 bytes longer, the last byte nonzero */
	H_SIZE_HUGE_ZERO, /* 2048 bytes longer, zero */
	H_SIZE_HUGE_TAIL, /* 2048 bytes longer, the last byte nonzero */
	H_DIR_NONE, /* _IO: no direction */
	H_DIR_FLIP, /* _IOR for _IOW and _IOWR, _IOW for _IOWR */
	H_OTHER_MAGIC, /* the other svmtune device's ioctl type */
	H_NR_UNKNOWN, /* a command number past the table */
	H_NR_MAX, /* command number 0xff */
	H_ARG_NULL, /* argument pointer NULL */
	H_ARG_UNMAPPED, /* argument pointer into an unmapped page */
	H_ARG_STRADDLE, /* the struct runs into an unmapped page */
	H_ARG_KERNEL, /* argument pointer to kernel memory */
	H_ARG_READONLY, /* the struct is in a read-only page */
	H_OTHER_MM, /* issued by a forked child on the parent's file */
	H_TCGETS, /* a terminal ioctl */
};

/* Where a field's value comes from. */
enum val_kind {
	V_NUM, /* the number itself */
	V_BUF, /* address in the 4 mapped pages, plus the number */
	V_HOLE, /* address in the 4 unmapped pages after them, plus */
	V_DATA, /* address in the 4-page data buffer, plus */
	V_RODATA, /* address in a read-only 4-page buffer, plus */
	V_TOP, /* user_top() minus the number */
	V_NODEV, /* a device id no backend registered */
	V_EMU, /* the emulated GPU's device id */
	V_SELF, /* the caller's pid */
};

struct field_set {
	unsigned short off;
	unsigned short width; /* 0: no change */
	unsigned char kind;
	unsigned long long val;
};

#define M(type, field, kind, val) \
	{ offsetof(type, field), sizeof(((type *)0)->field), kind, val }

#define VE struct svmtune_version
#define RP struct svmtune_range_policy
#define PP struct svmtune_process_policy
#define ST struct svmtune_stats
#define DI struct svmtune_device_info
#define EA struct svmtune_emu_access
#define EM struct svmtune_emu_migrate
#define ES struct svmtune_emu_snapshot

FIXTURE(uapi)
{
	int ctl;
	int emu;
	char *buf; /* 4 mapped pages, then 4 unmapped ones */
	char *data; /* 4 pages: ACCESS's user buffer */
	char *rodata; /* 4 read-only pages */
	uint32_t entries[4];
	__u32 emu_id;
	__u32 nodev;
};

FIXTURE_VARIANT(uapi)
{
	enum ioc_id ioc;
	enum how how;
	int err; /* expected errno, 0: accepted */
	struct field_set m[2];
};

FIXTURE_SETUP(uapi)
{
	struct svmtune_device_info di;
	__u32 id;

	self->ctl = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->ctl, 0)
	TH_LOG("open %s: %s", SVMTUNE_DEV, strerror(errno));
	self->emu = open(EMU_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->emu, 0) TH_LOG("open %s: %s", EMU_DEV, strerror(errno));
	self->emu_id = svmtune_device_id(self->ctl, "svmtune_emu0");
	ASSERT_NE(0, self->emu_id);
	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		memset(&di, 0, sizeof(di));
		di.id = id;
		if (ioctl(self->ctl, SVMTUNE_IOC_GET_DEVICE, &di) &&
		    errno == ENODEV)
			break;
	}
	ASSERT_GE(SVMTUNE_LOC_MAX_DEVICE, id);
	self->nodev = id;

	self->data = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->data);
	memset(self->data, 0xa5, 4 * PAGE);
	self->rodata = mmap(NULL, 4 * PAGE, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->rodata);
	/*
	 * The hole is made last: a mapping made after it could land in it.
	 * (H_ARG_READONLY's page is made in the test, which needs no hole.)
	 */
	self->buf = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 0x5a, 4 * PAGE);
	ASSERT_EQ(0, munmap(self->buf + 4 * PAGE, 4 * PAGE));
}

FIXTURE_TEARDOWN(uapi)
{
	close(self->emu);
	close(self->ctl);
}

/* The good argument of each ioctl, into @arg (zeroed by the caller). */
static void good_arg(FIXTURE_DATA(uapi) * self, enum ioc_id ioc, void *arg)
{
	struct svmtune_range_policy *rp = arg;
	struct svmtune_process_policy *pp = arg;
	struct svmtune_stats *st = arg;
	struct svmtune_device_info *di = arg;
	struct svmtune_emu_access *ea = arg;
	struct svmtune_emu_migrate *em = arg;
	struct svmtune_emu_snapshot *es = arg;

	switch (ioc) {
	case I_VERSION:
	case I_GET_PROCESS:
		break;
	case I_SET_POLICY:
		rp->set = SVMTUNE_POLICY_GRANULARITY;
		rp->granularity = 16;
		/* fall through */
	case I_GET_POLICY:
		rp->start = (uintptr_t)self->buf;
		rp->size = 4 * PAGE;
		break;
	case I_SET_PROCESS:
		pp->set = SVMTUNE_POLICY_GRANULARITY;
		pp->granularity = 16;
		break;
	case I_STATS:
		st->scope = SVMTUNE_STATS_PROCESS;
		break;
	case I_DEVICE:
		di->id = self->emu_id;
		break;
	case I_ACCESS:
		ea->addr = (uintptr_t)self->buf;
		ea->size = 4 * PAGE;
		ea->ptr = (uintptr_t)self->data;
		ea->op = SVMTUNE_EMU_READ;
		break;
	case I_MIGRATE:
		em->addr = (uintptr_t)self->buf;
		em->size = 4 * PAGE;
		em->dest = SVMTUNE_EMU_TO_SYSTEM;
		break;
	case I_SNAPSHOT:
		es->addr = (uintptr_t)self->buf;
		es->size = 4 * PAGE;
		es->ptr = (uintptr_t)self->entries;
		break;
	}
}

static unsigned long long field_value(FIXTURE_DATA(uapi) * self,
				      const struct field_set *f)
{
	switch (f->kind) {
	case V_BUF:
		return (uintptr_t)self->buf + f->val;
	case V_HOLE:
		return (uintptr_t)self->buf + 4 * PAGE + f->val;
	case V_DATA:
		return (uintptr_t)self->data + f->val;
	case V_RODATA:
		return (uintptr_t)self->rodata + f->val;
	case V_TOP:
		return user_top() - f->val;
	case V_NODEV:
		return self->nodev;
	case V_EMU:
		return self->emu_id;
	case V_SELF:
		return getpid();
	default:
		return f->val;
	}
}

static void set_field(void *arg, const struct field_set *f,
		      unsigned long long v)
{
	char *p = (char *)arg + f->off;

	switch (f->width) {
	case 1:
		*(uint8_t *)p = v;
		break;
	case 4:
		*(uint32_t *)p = v;
		break;
	case 8:
		*(uint64_t *)p = v;
		break;
	default:
		memset(p, (int)v, f->width);
		break;
	}
}

/* The command with its direction, type, number or size changed by @how. */
static unsigned int changed_cmd(unsigned int cmd, enum how how)
{
	unsigned int dir = _IOC_DIR(cmd), type = _IOC_TYPE(cmd);
	unsigned int nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);

	switch (how) {
	case H_SIZE_ZERO:
		size = 0;
		break;
	case H_SIZE_SHORT:
	case H_SIZE_FIRST:
		/* Structs that grew after their first version. */
		if (cmd == SVMTUNE_EMU_IOC_ACCESS)
			size = offsetofend(struct svmtune_emu_access,
					   remote_accesses);
		if (cmd == SVMTUNE_IOC_GET_STATS)
			size = offsetofend(struct svmtune_stats, reserved);
		if (how == H_SIZE_SHORT)
			size -= 8;
		break;
	case H_SIZE_LONG_ZERO:
	case H_SIZE_LONG_TAIL:
		size += 8;
		break;
	case H_SIZE_HUGE_ZERO:
	case H_SIZE_HUGE_TAIL:
		size += 2048;
		break;
	case H_DIR_NONE:
		dir = _IOC_NONE;
		break;
	case H_DIR_FLIP:
		dir = dir == _IOC_WRITE ? _IOC_READ : _IOC_WRITE;
		break;
	case H_OTHER_MAGIC:
		type = type == SVMTUNE_IOC_MAGIC ? SVMTUNE_EMU_IOC_MAGIC :
						   SVMTUNE_IOC_MAGIC;
		break;
	case H_NR_UNKNOWN:
		nr = 0x40;
		break;
	case H_NR_MAX:
		nr = 0xff;
		break;
	default:
		break;
	}
	return _IOC(dir, type, nr, size);
}

TEST_F(uapi, check)
{
	static union {
		unsigned char bytes[4 * PAGE];
		uint64_t align;
	} argbuf;
	unsigned int cmd =
		changed_cmd(ioc_table[variant->ioc].cmd, variant->how);
	int fd = ioc_table[variant->ioc].emu ? self->emu : self->ctl;
	unsigned long argp = (uintptr_t)argbuf.bytes;
	unsigned int i, size = _IOC_SIZE(ioc_table[variant->ioc].cmd);
	char *page;
	int ret, status;
	pid_t pid;

	memset(&argbuf, 0, sizeof(argbuf));
	good_arg(self, variant->ioc, argbuf.bytes);
	for (i = 0; i < 2; i++)
		if (variant->m[i].width)
			set_field(argbuf.bytes, &variant->m[i],
				  field_value(self, &variant->m[i]));
	if (variant->how == H_SIZE_LONG_TAIL)
		argbuf.bytes[size + 7] = 1;
	if (variant->how == H_SIZE_HUGE_TAIL)
		argbuf.bytes[size + 2047] = 1;

	switch (variant->how) {
	case H_ARG_NULL:
		argp = 0;
		break;
	case H_ARG_UNMAPPED:
		argp = (uintptr_t)self->buf + 5 * PAGE;
		break;
	case H_ARG_STRADDLE:
		/* The struct's first 8 bytes mapped, the rest not. */
		memcpy(self->buf + 4 * PAGE - 8, argbuf.bytes, 8);
		argp = (uintptr_t)self->buf + 4 * PAGE - 8;
		break;
	case H_ARG_KERNEL:
		argp = KERNEL_ADDR;
		break;
	case H_ARG_READONLY:
		page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, page);
		memcpy(page, argbuf.bytes, size);
		ASSERT_EQ(0, mprotect(page, PAGE, PROT_READ));
		argp = (uintptr_t)page;
		break;
	case H_TCGETS:
		cmd = TCGETS;
		break;
	default:
		break;
	}

	if (variant->how == H_OTHER_MM) {
		/* The child's address space is not the one the file serves. */
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			ret = ioctl(fd, cmd, argp);
			_exit(ret ? errno : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ret = WEXITSTATUS(status) ? -1 : 0;
		errno = WEXITSTATUS(status);
	} else {
		ret = ioctl(fd, cmd, argp);
	}

	if (variant->err) {
		EXPECT_EQ(-1, ret)
		TH_LOG("accepted; expected %s", strerror(variant->err));
		if (ret)
			EXPECT_EQ(variant->err, errno)
		TH_LOG("errno %d (%s), expected %d (%s)", errno,
		       strerror(errno), variant->err, strerror(variant->err));
	} else {
		EXPECT_EQ(0, ret) TH_LOG("refused: %s", strerror(errno));
	}
}

/* clang-format off */
/*
 * What every ioctl shares: struct sizes, command encoding, the argument
 * pointer, the flags field.
 */
FIXTURE_VARIANT_ADD(uapi, version_size_zero) { I_VERSION, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, version_size_short) { I_VERSION, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, version_size_longer_zero_tail) { I_VERSION, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, version_size_longer_nonzero_tail) {
	I_VERSION, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, version_size_much_longer_zero_tail) {
	I_VERSION, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, version_size_much_longer_nonzero_tail) {
	I_VERSION, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, version_no_direction) { I_VERSION, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, version_wrong_direction) { I_VERSION, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, version_other_device_type) { I_VERSION, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, version_unknown_number) { I_VERSION, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, version_number_0xff) { I_VERSION, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, version_arg_null) { I_VERSION, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, version_arg_unmapped) { I_VERSION, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, version_arg_straddles_unmapped) { I_VERSION, H_ARG_STRADDLE, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, version_arg_kernel_address) { I_VERSION, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, version_flags_bit0) {
	I_VERSION, H_NONE, EINVAL, { M(VE, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, version_flags_bit31) {
	I_VERSION, H_NONE, EINVAL, { M(VE, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_zero) { I_SET_POLICY, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_size_short) { I_SET_POLICY, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_size_longer_zero_tail) {
	I_SET_POLICY, H_SIZE_LONG_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_longer_nonzero_tail) {
	I_SET_POLICY, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_much_longer_zero_tail) {
	I_SET_POLICY, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_much_longer_nonzero_tail) {
	I_SET_POLICY, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, set_policy_no_direction) { I_SET_POLICY, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_wrong_direction) { I_SET_POLICY, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_other_device_type) { I_SET_POLICY, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_unknown_number) { I_SET_POLICY, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_number_0xff) { I_SET_POLICY, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_arg_null) { I_SET_POLICY, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_arg_unmapped) { I_SET_POLICY, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_arg_straddles_unmapped) {
	I_SET_POLICY, H_ARG_STRADDLE, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, set_policy_arg_kernel_address) { I_SET_POLICY, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, set_policy_flags_bit0) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_flags_bit31) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_zero) { I_GET_POLICY, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_size_short) { I_GET_POLICY, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_size_longer_zero_tail) {
	I_GET_POLICY, H_SIZE_LONG_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_longer_nonzero_tail) {
	I_GET_POLICY, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_much_longer_zero_tail) {
	I_GET_POLICY, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_much_longer_nonzero_tail) {
	I_GET_POLICY, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, get_policy_no_direction) { I_GET_POLICY, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_wrong_direction) { I_GET_POLICY, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_other_device_type) { I_GET_POLICY, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_unknown_number) { I_GET_POLICY, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_number_0xff) { I_GET_POLICY, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_arg_null) { I_GET_POLICY, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_arg_unmapped) { I_GET_POLICY, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_arg_straddles_unmapped) {
	I_GET_POLICY, H_ARG_STRADDLE, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, get_policy_arg_kernel_address) { I_GET_POLICY, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_flags_bit0) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_flags_bit31) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_size_zero) { I_SET_PROCESS, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_size_short) { I_SET_PROCESS, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_size_longer_zero_tail) {
	I_SET_PROCESS, H_SIZE_LONG_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_size_longer_nonzero_tail) {
	I_SET_PROCESS, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_size_much_longer_zero_tail) {
	I_SET_PROCESS, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_size_much_longer_nonzero_tail) {
	I_SET_PROCESS, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_no_direction) { I_SET_PROCESS, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_wrong_direction) { I_SET_PROCESS, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_other_device_type) {
	I_SET_PROCESS, H_OTHER_MAGIC, ENOTTY, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_unknown_number) { I_SET_PROCESS, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_number_0xff) { I_SET_PROCESS, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_arg_null) { I_SET_PROCESS, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_arg_unmapped) { I_SET_PROCESS, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_arg_straddles_unmapped) {
	I_SET_PROCESS, H_ARG_STRADDLE, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_arg_kernel_address) {
	I_SET_PROCESS, H_ARG_KERNEL, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, set_process_flags_bit0) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_flags_bit31) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_size_zero) { I_GET_PROCESS, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_size_short) { I_GET_PROCESS, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_size_longer_zero_tail) {
	I_GET_PROCESS, H_SIZE_LONG_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_size_longer_nonzero_tail) {
	I_GET_PROCESS, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_size_much_longer_zero_tail) {
	I_GET_PROCESS, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_size_much_longer_nonzero_tail) {
	I_GET_PROCESS, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_no_direction) { I_GET_PROCESS, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_wrong_direction) { I_GET_PROCESS, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_other_device_type) {
	I_GET_PROCESS, H_OTHER_MAGIC, ENOTTY, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_unknown_number) { I_GET_PROCESS, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_number_0xff) { I_GET_PROCESS, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_arg_null) { I_GET_PROCESS, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_arg_unmapped) { I_GET_PROCESS, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_arg_straddles_unmapped) {
	I_GET_PROCESS, H_ARG_STRADDLE, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_arg_kernel_address) {
	I_GET_PROCESS, H_ARG_KERNEL, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, get_process_flags_bit0) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_flags_bit31) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, stats_size_zero) { I_STATS, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_short) { I_STATS, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_first_version) { I_STATS, H_SIZE_FIRST, 0, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_longer_zero_tail) { I_STATS, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_longer_nonzero_tail) { I_STATS, H_SIZE_LONG_TAIL, E2BIG, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_much_longer_zero_tail) { I_STATS, H_SIZE_HUGE_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, stats_size_much_longer_nonzero_tail) {
	I_STATS, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, stats_no_direction) { I_STATS, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, stats_wrong_direction) { I_STATS, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, stats_other_device_type) { I_STATS, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, stats_unknown_number) { I_STATS, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, stats_number_0xff) { I_STATS, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, stats_arg_null) { I_STATS, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, stats_arg_unmapped) { I_STATS, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, stats_arg_straddles_unmapped) { I_STATS, H_ARG_STRADDLE, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, stats_arg_kernel_address) { I_STATS, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, stats_flags_bit0) { I_STATS, H_NONE, EINVAL, { M(ST, flags, V_NUM, 1) } };
FIXTURE_VARIANT_ADD(uapi, stats_flags_bit31) {
	I_STATS, H_NONE, EINVAL, { M(ST, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, device_size_zero) { I_DEVICE, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, device_size_short) { I_DEVICE, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, device_size_longer_zero_tail) { I_DEVICE, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, device_size_longer_nonzero_tail) {
	I_DEVICE, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, device_size_much_longer_zero_tail) { I_DEVICE, H_SIZE_HUGE_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, device_size_much_longer_nonzero_tail) {
	I_DEVICE, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, device_no_direction) { I_DEVICE, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, device_wrong_direction) { I_DEVICE, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, device_other_device_type) { I_DEVICE, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, device_unknown_number) { I_DEVICE, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, device_number_0xff) { I_DEVICE, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, device_arg_null) { I_DEVICE, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, device_arg_unmapped) { I_DEVICE, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, device_arg_straddles_unmapped) { I_DEVICE, H_ARG_STRADDLE, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, device_arg_kernel_address) { I_DEVICE, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, device_flags_bit0) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_flags_bit31) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, access_size_zero) { I_ACCESS, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, access_size_short) { I_ACCESS, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, access_size_first_version) { I_ACCESS, H_SIZE_FIRST, 0, {} };
FIXTURE_VARIANT_ADD(uapi, access_size_longer_zero_tail) { I_ACCESS, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, access_size_longer_nonzero_tail) {
	I_ACCESS, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, access_size_much_longer_zero_tail) { I_ACCESS, H_SIZE_HUGE_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, access_size_much_longer_nonzero_tail) {
	I_ACCESS, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, access_no_direction) { I_ACCESS, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, access_wrong_direction) { I_ACCESS, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, access_other_device_type) { I_ACCESS, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, access_unknown_number) { I_ACCESS, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, access_number_0xff) { I_ACCESS, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, access_arg_null) { I_ACCESS, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, access_arg_unmapped) { I_ACCESS, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, access_arg_straddles_unmapped) { I_ACCESS, H_ARG_STRADDLE, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, access_arg_kernel_address) { I_ACCESS, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, access_flags_bit0) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_flags_bit31) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_zero) { I_MIGRATE, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_size_short) { I_MIGRATE, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_size_longer_zero_tail) { I_MIGRATE, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_size_longer_nonzero_tail) {
	I_MIGRATE, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_much_longer_zero_tail) {
	I_MIGRATE, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_much_longer_nonzero_tail) {
	I_MIGRATE, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, migrate_no_direction) { I_MIGRATE, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_wrong_direction) { I_MIGRATE, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_other_device_type) { I_MIGRATE, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_unknown_number) { I_MIGRATE, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_number_0xff) { I_MIGRATE, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_arg_null) { I_MIGRATE, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_arg_unmapped) { I_MIGRATE, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_arg_straddles_unmapped) { I_MIGRATE, H_ARG_STRADDLE, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_arg_kernel_address) { I_MIGRATE, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_flags_bit0) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_flags_bit31) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, flags, V_NUM, 1u << 31) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_zero) { I_SNAPSHOT, H_SIZE_ZERO, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_size_short) { I_SNAPSHOT, H_SIZE_SHORT, EINVAL, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_size_longer_zero_tail) { I_SNAPSHOT, H_SIZE_LONG_ZERO, 0, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_size_longer_nonzero_tail) {
	I_SNAPSHOT, H_SIZE_LONG_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_much_longer_zero_tail) {
	I_SNAPSHOT, H_SIZE_HUGE_ZERO, 0, {}
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_much_longer_nonzero_tail) {
	I_SNAPSHOT, H_SIZE_HUGE_TAIL, E2BIG, {}
};
FIXTURE_VARIANT_ADD(uapi, snapshot_no_direction) { I_SNAPSHOT, H_DIR_NONE, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_wrong_direction) { I_SNAPSHOT, H_DIR_FLIP, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_other_device_type) { I_SNAPSHOT, H_OTHER_MAGIC, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_unknown_number) { I_SNAPSHOT, H_NR_UNKNOWN, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_number_0xff) { I_SNAPSHOT, H_NR_MAX, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_arg_null) { I_SNAPSHOT, H_ARG_NULL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_arg_unmapped) { I_SNAPSHOT, H_ARG_UNMAPPED, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_arg_straddles_unmapped) {
	I_SNAPSHOT, H_ARG_STRADDLE, EFAULT, {}
};
FIXTURE_VARIANT_ADD(uapi, snapshot_arg_kernel_address) { I_SNAPSHOT, H_ARG_KERNEL, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_flags_bit0) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, flags, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_flags_bit31) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, flags, V_NUM, 1u << 31) }
};
/* Getters copy out: a read-only argument cannot take the answer. */
FIXTURE_VARIANT_ADD(uapi, version_arg_readonly) { I_VERSION, H_ARG_READONLY, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_policy_arg_readonly) { I_GET_POLICY, H_ARG_READONLY, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, get_process_arg_readonly) { I_GET_PROCESS, H_ARG_READONLY, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, stats_arg_readonly) { I_STATS, H_ARG_READONLY, EFAULT, {} };
FIXTURE_VARIANT_ADD(uapi, device_arg_readonly) { I_DEVICE, H_ARG_READONLY, EFAULT, {} };
/* Setters copy nothing out: a read-only argument is enough. */
FIXTURE_VARIANT_ADD(uapi, set_policy_arg_readonly) { I_SET_POLICY, H_ARG_READONLY, 0, {} };
FIXTURE_VARIANT_ADD(uapi, set_process_arg_readonly) { I_SET_PROCESS, H_ARG_READONLY, 0, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_arg_readonly) { I_SNAPSHOT, H_ARG_READONLY, 0, {} };
FIXTURE_VARIANT_ADD(uapi, ctl_terminal_ioctl) { I_VERSION, H_TCGETS, ENOTTY, {} };
FIXTURE_VARIANT_ADD(uapi, emu_terminal_ioctl) { I_ACCESS, H_TCGETS, ENOTTY, {} };
/* Reserved fields, each word nonzero. */
FIXTURE_VARIANT_ADD(uapi, version_reserved0) {
	I_VERSION, H_NONE, EINVAL, { M(VE, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, version_reserved1) {
	I_VERSION, H_NONE, EINVAL, { M(VE, reserved[1], V_NUM, 1ULL << 63) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_eff_fragment) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, eff_fragment, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_without_its_set_bit) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, fragment, V_NUM, 21) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_below_4k) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, 11) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_above_2m) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, 22) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_4k) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, 12) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_2m) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, 21) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_fragment_unset) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(RP, fragment, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_reserved_0) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, reserved, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_eff_thrashing) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, eff_thrashing, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_thrashing_without_its_set_bit) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, thrashing, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_thrashing_past_end) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_THRASHING), M(RP, thrashing, V_NUM, 3) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_thrashing_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_THRASHING), M(RP, thrashing, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_thrashing_opt_out) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_THRASHING),
	  M(RP, thrashing, V_NUM, SVMTUNE_THRASH_OPT_OUT) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_in_fragment) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, fragment, V_NUM, 21) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_eff_fragment) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, eff_fragment, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_reserved_0) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, reserved, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_in_thrashing) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, thrashing, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_eff_thrashing) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, eff_thrashing, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_reserved_0) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_reserved_1) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, reserved[1], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_fragment_without_its_set_bit) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, fragment, V_NUM, 16) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_fragment_below_4k) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(PP, fragment, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_fragment_above_2m) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(PP, fragment, V_NUM, 30) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_fragment_all_ones) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(PP, fragment, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_fragment_64k) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_FRAGMENT), M(PP, fragment, V_NUM, 16) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_thrashing_without_its_set_bit) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, thrashing, V_NUM, 2) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_thrashing_past_end) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_THRASHING), M(PP, thrashing, V_NUM, 3) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_thrashing_track) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_THRASHING),
	  M(PP, thrashing, V_NUM, SVMTUNE_THRASH_TRACK) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_reserved_0) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_reserved_1) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, reserved[1], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_in_fragment) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, fragment, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_in_thrashing) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, thrashing, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_reserved0) {
	I_STATS, H_NONE, EINVAL, { M(ST, reserved0, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_reserved_0) {
	I_STATS, H_NONE, EINVAL, { M(ST, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_reserved_1) {
	I_STATS, H_NONE, EINVAL, { M(ST, reserved[1], V_NUM, ~0ULL) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_tlb_hits) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.tlb_hits, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_tlb_misses) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.tlb_misses, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_thrashing_throttles) {
	I_STATS, H_NONE, EINVAL, { M(ST, mitigations.thrashing_throttles, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_thrashing_pins) {
	I_STATS, H_NONE, EINVAL, { M(ST, mitigations.thrashing_pins, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_thrashing_unpins) {
	I_STATS, H_NONE, EINVAL, { M(ST, mitigations.thrashing_unpins, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_evicted_pages) {
	I_STATS, H_NONE, EINVAL, { M(ST, mitigations.evicted_pages, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_mitigations_reserved_3) {
	I_STATS, H_NONE, EINVAL, { M(ST, mitigations.reserved[3], V_NUM, ~0ULL) }
};
FIXTURE_VARIANT_ADD(uapi, device_reserved_0) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_reserved_1) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, reserved[1], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_reserved_2) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, reserved[2], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_reserved_3) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, reserved[3], V_NUM, ~0ULL) }
};
FIXTURE_VARIANT_ADD(uapi, access_remote_accesses) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, remote_accesses, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_reserved_0) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_reserved_1) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, reserved[1], V_NUM, ~0ULL) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_reserved0) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, reserved0, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_reserved_0) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, reserved[0], V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_reserved_1) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, reserved[1], V_NUM, ~0ULL) }
};
/* Output-only fields must be zero on input. */
FIXTURE_VARIANT_ADD(uapi, version_out_major) {
	I_VERSION, H_NONE, EINVAL, { M(VE, major, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, version_out_minor) {
	I_VERSION, H_NONE, EINVAL, { M(VE, minor, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, version_out_patch) {
	I_VERSION, H_NONE, EINVAL, { M(VE, patch, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, version_out_features) {
	I_VERSION, H_NONE, EINVAL, { M(VE, features, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_extent_end) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, extent_end, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_eff_granularity) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, eff_granularity, V_NUM, 16) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_eff_preferred_loc) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, eff_preferred_loc, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_out_eff_access) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, eff_access, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_in_set) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, set, V_NUM, SVMTUNE_POLICY_GRANULARITY) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_granularity) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, granularity, V_NUM, 16) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_preferred_loc) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, preferred_loc, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_access) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, access, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_extent_end) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, extent_end, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_eff_granularity) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, eff_granularity, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_eff_preferred_loc) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, eff_preferred_loc, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_out_eff_access) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, eff_access, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_in_set) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, set, V_NUM, SVMTUNE_POLICY_GRANULARITY) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_out_granularity) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, granularity, V_NUM, 16) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_out_preferred_loc) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, preferred_loc, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_out_access) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, access, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_range_start) {
	I_STATS, H_NONE, EINVAL, { M(ST, range_start, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_range_end) {
	I_STATS, H_NONE, EINVAL, { M(ST, range_end, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_gpu_faults) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.gpu_faults, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_thrashing_detected) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.thrashing_detected, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_prefetch_pages) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.prefetch_pages, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_out_prefetch_used) {
	I_STATS, H_NONE, EINVAL, { M(ST, counters.prefetch_used, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_out_name_first) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, name[0], V_NUM, 'x') }
};
FIXTURE_VARIANT_ADD(uapi, device_out_name_last) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, name[31], V_NUM, 'x') }
};
FIXTURE_VARIANT_ADD(uapi, device_out_mem_bytes) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, mem_bytes, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_out_mem_free_bytes) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, mem_free_bytes, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_faults) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, faults, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_migrated) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, migrated, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_remote) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, remote, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_retries) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, retries, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_tlb_hits) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, tlb_hits, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_tlb_misses) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, tlb_misses, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_out_evicted) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, evicted, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_out_migrated) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, migrated, V_NUM, 1) }
};
/* The set mask and the policy values, on both setters. */
FIXTURE_VARIANT_ADD(uapi, set_policy_set_none) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, set, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_set_unknown_bit) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, set, V_NUM, 1u << 5) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_set_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, set, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_set_all_known) {
	I_SET_POLICY, H_NONE, 0, { M(RP, set, V_NUM, SVMTUNE_POLICY_ALL) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_below_min) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, granularity, V_NUM, 11) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_one) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, granularity, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_above_max) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, granularity, V_NUM, 31) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, granularity, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_min) {
	I_SET_POLICY, H_NONE, 0, { M(RP, granularity, V_NUM, 12) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_max) {
	I_SET_POLICY, H_NONE, 0, { M(RP, granularity, V_NUM, 30) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_unset) {
	I_SET_POLICY, H_NONE, 0, { M(RP, granularity, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_granularity_ignored_when_not_set) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, granularity, V_NUM, 99) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_access_past_end) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, access, V_NUM, 4) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_access_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, access, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_access_last) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, access, V_NUM, SVMTUNE_ACCESS_READ_MOSTLY) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_access_unset) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(RP, access, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_past_max_device) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_NUM, SVMTUNE_LOC_MAX_DEVICE + 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_below_unset) {
	I_SET_POLICY, H_NONE, EINVAL,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_NUM, 0xfffffffe) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_unregistered_device) {
	I_SET_POLICY, H_NONE, ENODEV,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_NODEV, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_system) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_NUM, SVMTUNE_LOC_SYSTEM) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_unset) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_NUM, SVMTUNE_LOC_UNSET) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_loc_registered_device) {
	I_SET_POLICY, H_NONE, 0,
	{ M(RP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(RP, preferred_loc, V_EMU, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_set_none) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, set, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_set_unknown_bit) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, set, V_NUM, 1u << 5) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_set_all_ones) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, set, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_set_all_known) {
	I_SET_PROCESS, H_NONE, 0, { M(PP, set, V_NUM, SVMTUNE_POLICY_ALL) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_below_min) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, granularity, V_NUM, 11) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_one) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, granularity, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_above_max) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, granularity, V_NUM, 31) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_all_ones) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, granularity, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_min) {
	I_SET_PROCESS, H_NONE, 0, { M(PP, granularity, V_NUM, 12) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_max) {
	I_SET_PROCESS, H_NONE, 0, { M(PP, granularity, V_NUM, 30) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_unset) {
	I_SET_PROCESS, H_NONE, 0, { M(PP, granularity, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_granularity_ignored_when_not_set) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, granularity, V_NUM, 99) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_access_past_end) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, access, V_NUM, 4) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_access_all_ones) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, access, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_access_last) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, access, V_NUM, SVMTUNE_ACCESS_READ_MOSTLY) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_access_unset) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_ACCESS), M(PP, access, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_past_max_device) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_NUM, SVMTUNE_LOC_MAX_DEVICE + 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_below_unset) {
	I_SET_PROCESS, H_NONE, EINVAL,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_NUM, 0xfffffffe) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_unregistered_device) {
	I_SET_PROCESS, H_NONE, ENODEV,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_NODEV, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_system) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_NUM, SVMTUNE_LOC_SYSTEM) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_unset) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_NUM, SVMTUNE_LOC_UNSET) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_loc_registered_device) {
	I_SET_PROCESS, H_NONE, 0,
	{ M(PP, set, V_NUM, SVMTUNE_POLICY_PREFERRED_LOC), M(PP, preferred_loc, V_EMU, 0) }
};
/* pid: the caller's own, none, past INT_MAX; on every ioctl that takes one. */
FIXTURE_VARIANT_ADD(uapi, set_policy_pid_self) {
	I_SET_POLICY, H_NONE, 0, { M(RP, pid, V_SELF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_pid_no_such_process) {
	I_SET_POLICY, H_NONE, ESRCH, { M(RP, pid, V_NUM, NO_SUCH_PID) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_pid_past_int_max) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, pid, V_NUM, 0x80000000u) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_pid_all_ones) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, pid, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_pid_self) {
	I_GET_POLICY, H_NONE, 0, { M(RP, pid, V_SELF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_pid_no_such_process) {
	I_GET_POLICY, H_NONE, ESRCH, { M(RP, pid, V_NUM, NO_SUCH_PID) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_pid_past_int_max) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, pid, V_NUM, 0x80000000u) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_pid_all_ones) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, pid, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_pid_self) {
	I_SET_PROCESS, H_NONE, 0, { M(PP, pid, V_SELF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_pid_no_such_process) {
	I_SET_PROCESS, H_NONE, ESRCH, { M(PP, pid, V_NUM, NO_SUCH_PID) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_pid_past_int_max) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, pid, V_NUM, 0x80000000u) }
};
FIXTURE_VARIANT_ADD(uapi, set_process_pid_all_ones) {
	I_SET_PROCESS, H_NONE, EINVAL, { M(PP, pid, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_pid_self) {
	I_GET_PROCESS, H_NONE, 0, { M(PP, pid, V_SELF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_pid_no_such_process) {
	I_GET_PROCESS, H_NONE, ESRCH, { M(PP, pid, V_NUM, NO_SUCH_PID) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_pid_past_int_max) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, pid, V_NUM, 0x80000000u) }
};
FIXTURE_VARIANT_ADD(uapi, get_process_pid_all_ones) {
	I_GET_PROCESS, H_NONE, EINVAL, { M(PP, pid, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, stats_process_pid_self) { I_STATS, H_NONE, 0, { M(ST, id, V_SELF, 0) } };
FIXTURE_VARIANT_ADD(uapi, stats_process_pid_no_such_process) {
	I_STATS, H_NONE, ESRCH, { M(ST, id, V_NUM, NO_SUCH_PID) }
};
FIXTURE_VARIANT_ADD(uapi, stats_process_pid_past_int_max) {
	I_STATS, H_NONE, EINVAL, { M(ST, id, V_NUM, 0x80000000u) }
};
FIXTURE_VARIANT_ADD(uapi, stats_process_pid_all_ones) {
	I_STATS, H_NONE, EINVAL, { M(ST, id, V_NUM, ~0u) }
};
/* Stats scopes and ids. */
FIXTURE_VARIANT_ADD(uapi, stats_scope_zero) { I_STATS, H_NONE, EINVAL, { M(ST, scope, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, stats_scope_past_end) {
	I_STATS, H_NONE, EINVAL, { M(ST, scope, V_NUM, 4) }
};
FIXTURE_VARIANT_ADD(uapi, stats_scope_all_ones) {
	I_STATS, H_NONE, EINVAL, { M(ST, scope, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, stats_process_with_addr) {
	I_STATS, H_NONE, EINVAL, { M(ST, addr, V_BUF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_registered) {
	I_STATS, H_NONE, 0, { M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, id, V_EMU, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_with_addr) {
	I_STATS, H_NONE, EINVAL,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, addr, V_BUF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_id_zero) {
	I_STATS, H_NONE, EINVAL, { M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, id, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_id_past_max) {
	I_STATS, H_NONE, EINVAL,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, id, V_NUM, SVMTUNE_LOC_MAX_DEVICE + 1) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_id_all_ones) {
	I_STATS, H_NONE, EINVAL,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, id, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, stats_device_unregistered) {
	I_STATS, H_NONE, ENODEV,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_DEVICE), M(ST, id, V_NODEV, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_range_no_range) {
	I_STATS, H_NONE, ENOENT,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_RANGE), M(ST, addr, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, stats_range_kernel_addr) {
	I_STATS, H_NONE, ENOENT,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_RANGE), M(ST, addr, V_NUM, KERNEL_ADDR) }
};
FIXTURE_VARIANT_ADD(uapi, stats_range_no_such_process) {
	I_STATS, H_NONE, ESRCH,
	{ M(ST, scope, V_NUM, SVMTUNE_STATS_RANGE), M(ST, id, V_NUM, NO_SUCH_PID) }
};
/* Device ids. */
FIXTURE_VARIANT_ADD(uapi, device_id_zero) { I_DEVICE, H_NONE, EINVAL, { M(DI, id, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, device_id_past_max) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, id, V_NUM, SVMTUNE_LOC_MAX_DEVICE + 1) }
};
FIXTURE_VARIANT_ADD(uapi, device_id_all_ones) {
	I_DEVICE, H_NONE, EINVAL, { M(DI, id, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, device_id_unregistered) {
	I_DEVICE, H_NONE, ENODEV, { M(DI, id, V_NODEV, 0) }
};
FIXTURE_VARIANT_ADD(uapi, device_id_max) {
	I_DEVICE, H_NONE, ENODEV, { M(DI, id, V_NUM, SVMTUNE_LOC_MAX_DEVICE) }
};
/*
 * Spans, on every ioctl that takes one: zero, unaligned, wrapping, ending
 * at or past the top of user space, in kernel space, unmapped, partly
 * unmapped. GET_POLICY and SNAPSHOT read state and fault nothing: an
 * unmapped span has no policy and no pages, and is answered.
 */
FIXTURE_VARIANT_ADD(uapi, set_policy_size_0) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_unaligned) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, PAGE - 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_one_byte) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_start_unaligned) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_BUF, 1) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_start_unaligned_by_half_page) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_BUF, PAGE / 2), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_wraps) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_NUM, -PAGE), M(RP, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_size_all_ones_page) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, -PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_ends_at_user_top) {
	I_SET_POLICY, H_NONE, EFAULT, { M(RP, start, V_TOP, PAGE), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_ends_past_user_top) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_TOP, PAGE), M(RP, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_starts_at_user_top) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_TOP, 0), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_kernel_address) {
	I_SET_POLICY, H_NONE, EINVAL, { M(RP, start, V_NUM, KERNEL_ADDR), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_null_page) {
	I_SET_POLICY, H_NONE, EFAULT, { M(RP, start, V_NUM, 0), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_unmapped) {
	I_SET_POLICY, H_NONE, EFAULT, { M(RP, start, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, set_policy_partly_unmapped) {
	I_SET_POLICY, H_NONE, EFAULT, { M(RP, start, V_BUF, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_0) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_unaligned) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, PAGE - 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_one_byte) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_start_unaligned) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_BUF, 1) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_start_unaligned_by_half_page) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_BUF, PAGE / 2), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_wraps) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_NUM, -PAGE), M(RP, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_size_all_ones_page) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, size, V_NUM, -PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_ends_at_user_top) {
	I_GET_POLICY, H_NONE, 0, { M(RP, start, V_TOP, PAGE), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_ends_past_user_top) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_TOP, PAGE), M(RP, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_starts_at_user_top) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_TOP, 0), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_kernel_address) {
	I_GET_POLICY, H_NONE, EINVAL, { M(RP, start, V_NUM, KERNEL_ADDR), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_null_page) {
	I_GET_POLICY, H_NONE, 0, { M(RP, start, V_NUM, 0), M(RP, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_unmapped) {
	I_GET_POLICY, H_NONE, 0, { M(RP, start, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, get_policy_partly_unmapped) {
	I_GET_POLICY, H_NONE, 0, { M(RP, start, V_BUF, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_size_0) { I_ACCESS, H_NONE, EINVAL, { M(EA, size, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, access_size_unaligned) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, size, V_NUM, PAGE - 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_size_one_byte) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, size, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_start_unaligned) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_BUF, 1) }
};
FIXTURE_VARIANT_ADD(uapi, access_start_unaligned_by_half_page) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_BUF, PAGE / 2), M(EA, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_wraps) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_NUM, -PAGE), M(EA, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_size_all_ones_page) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, size, V_NUM, -PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_ends_at_user_top) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, addr, V_TOP, PAGE), M(EA, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_ends_past_user_top) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_TOP, PAGE), M(EA, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_starts_at_user_top) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_TOP, 0), M(EA, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_kernel_address) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, addr, V_NUM, KERNEL_ADDR), M(EA, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_null_page) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, addr, V_NUM, 0), M(EA, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_unmapped) { I_ACCESS, H_NONE, EFAULT, { M(EA, addr, V_HOLE, 0) } };
FIXTURE_VARIANT_ADD(uapi, access_partly_unmapped) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, addr, V_BUF, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_0) { I_MIGRATE, H_NONE, EINVAL, { M(EM, size, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, migrate_size_unaligned) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, size, V_NUM, PAGE - 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_one_byte) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, size, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_start_unaligned) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_BUF, 1) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_start_unaligned_by_half_page) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_BUF, PAGE / 2), M(EM, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_wraps) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_NUM, -PAGE), M(EM, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_size_all_ones_page) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, size, V_NUM, -PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_ends_at_user_top) {
	I_MIGRATE, H_NONE, EFAULT, { M(EM, addr, V_TOP, PAGE), M(EM, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_ends_past_user_top) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_TOP, PAGE), M(EM, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_starts_at_user_top) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_TOP, 0), M(EM, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_kernel_address) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, addr, V_NUM, KERNEL_ADDR), M(EM, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_null_page) {
	I_MIGRATE, H_NONE, EFAULT, { M(EM, addr, V_NUM, 0), M(EM, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_unmapped) {
	I_MIGRATE, H_NONE, EFAULT, { M(EM, addr, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_partly_unmapped) {
	I_MIGRATE, H_NONE, EFAULT, { M(EM, addr, V_BUF, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_0) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, size, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_unaligned) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, size, V_NUM, PAGE - 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_one_byte) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, size, V_NUM, 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_start_unaligned) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_BUF, 1) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_start_unaligned_by_half_page) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_BUF, PAGE / 2), M(ES, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_wraps) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_NUM, -PAGE), M(ES, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_size_all_ones_page) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, size, V_NUM, -PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ends_at_user_top) {
	I_SNAPSHOT, H_NONE, 0, { M(ES, addr, V_TOP, PAGE), M(ES, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ends_past_user_top) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_TOP, PAGE), M(ES, size, V_NUM, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_starts_at_user_top) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_TOP, 0), M(ES, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_kernel_address) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, addr, V_NUM, KERNEL_ADDR), M(ES, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_null_page) {
	I_SNAPSHOT, H_NONE, 0, { M(ES, addr, V_NUM, 0), M(ES, size, V_NUM, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_unmapped) { I_SNAPSHOT, H_NONE, 0, { M(ES, addr, V_HOLE, 0) } };
FIXTURE_VARIANT_ADD(uapi, snapshot_partly_unmapped) {
	I_SNAPSHOT, H_NONE, 0, { M(ES, addr, V_BUF, 2 * PAGE) }
};
/* The emulated GPU's own limits and user buffers. */
FIXTURE_VARIANT_ADD(uapi, access_size_past_max) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, size, V_NUM, SVMTUNE_EMU_MAX_BYTES + PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_from_other_process) { I_ACCESS, H_OTHER_MM, EPERM, {} };
FIXTURE_VARIANT_ADD(uapi, migrate_size_past_max) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, size, V_NUM, SVMTUNE_EMU_MAX_BYTES + PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_from_other_process) { I_MIGRATE, H_OTHER_MM, EPERM, {} };
FIXTURE_VARIANT_ADD(uapi, snapshot_size_past_max) {
	I_SNAPSHOT, H_NONE, EINVAL, { M(ES, size, V_NUM, SVMTUNE_EMU_MAX_BYTES + PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_from_other_process) { I_SNAPSHOT, H_OTHER_MM, EPERM, {} };
FIXTURE_VARIANT_ADD(uapi, access_op_zero) { I_ACCESS, H_NONE, EINVAL, { M(EA, op, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, access_op_past_end) { I_ACCESS, H_NONE, EINVAL, { M(EA, op, V_NUM, 3) } };
FIXTURE_VARIANT_ADD(uapi, access_op_all_ones) {
	I_ACCESS, H_NONE, EINVAL, { M(EA, op, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, access_write) {
	I_ACCESS, H_NONE, 0, { M(EA, op, V_NUM, SVMTUNE_EMU_WRITE) }
};
FIXTURE_VARIANT_ADD(uapi, access_ptr_null) { I_ACCESS, H_NONE, EFAULT, { M(EA, ptr, V_NUM, 0) } };
FIXTURE_VARIANT_ADD(uapi, access_ptr_unmapped) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, ptr, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, access_ptr_kernel) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, ptr, V_NUM, KERNEL_ADDR) }
};
FIXTURE_VARIANT_ADD(uapi, access_ptr_too_short) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, ptr, V_BUF, 2 * PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_read_into_readonly) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, ptr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, access_write_from_readonly) {
	I_ACCESS, H_NONE, 0, { M(EA, op, V_NUM, SVMTUNE_EMU_WRITE), M(EA, ptr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, access_write_to_readonly_memory) {
	I_ACCESS, H_NONE, EFAULT, { M(EA, op, V_NUM, SVMTUNE_EMU_WRITE), M(EA, addr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, access_read_from_readonly_memory) {
	I_ACCESS, H_NONE, 0, { M(EA, addr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, access_ptr_overlaps_span) {
	I_ACCESS, H_NONE, 0, { M(EA, size, V_NUM, 3 * PAGE), M(EA, ptr, V_BUF, PAGE) }
};
FIXTURE_VARIANT_ADD(uapi, access_ptr_is_span) {
	I_ACCESS, H_NONE, 0, { M(EA, op, V_NUM, SVMTUNE_EMU_WRITE), M(EA, ptr, V_BUF, 0) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_dest_zero) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, dest, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_dest_past_end) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, dest, V_NUM, 3) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_dest_all_ones) {
	I_MIGRATE, H_NONE, EINVAL, { M(EM, dest, V_NUM, ~0u) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_to_device) {
	I_MIGRATE, H_NONE, 0, { M(EM, dest, V_NUM, SVMTUNE_EMU_TO_DEVICE) }
};
FIXTURE_VARIANT_ADD(uapi, migrate_readonly_memory) {
	I_MIGRATE, H_NONE, 0,
	{ M(EM, dest, V_NUM, SVMTUNE_EMU_TO_DEVICE), M(EM, addr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_null) {
	I_SNAPSHOT, H_NONE, EFAULT, { M(ES, ptr, V_NUM, 0) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_unmapped) {
	I_SNAPSHOT, H_NONE, EFAULT, { M(ES, ptr, V_HOLE, 0) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_kernel) {
	I_SNAPSHOT, H_NONE, EFAULT, { M(ES, ptr, V_NUM, KERNEL_ADDR) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_readonly) {
	I_SNAPSHOT, H_NONE, EFAULT, { M(ES, ptr, V_RODATA, 0) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_too_short) {
	I_SNAPSHOT, H_NONE, EFAULT, { M(ES, ptr, V_BUF, 4 * PAGE - 4) }
};
FIXTURE_VARIANT_ADD(uapi, snapshot_ptr_overlaps_span) {
	I_SNAPSHOT, H_NONE, 0, { M(ES, ptr, V_BUF, 0) }
};

/* clang-format on */

/*
 * The engine's knobs in /sys/kernel/svmtune (written as root, which may
 * write them). A refused write leaves the value as it was; an accepted one
 * reads back as @after.
 */
FIXTURE(knob)
{
	char saved[64];
	char path[128];
	bool restore;
};

FIXTURE_VARIANT(knob)
{
	const char *file;
	const char *val;
	size_t len; /* bytes written; 0: strlen(val) */
	bool repeat; /* @val repeated to @len bytes */
	int err; /* expected errno, 0: accepted */
	const char *after; /* what an accepted write reads back as */
};

FIXTURE_SETUP(knob)
{
	snprintf(self->path, sizeof(self->path), SVMTUNE_SYSFS "/%s",
		 variant->file);
	ASSERT_EQ(0, svmtune_read_file(self->path, self->saved,
				       sizeof(self->saved)))
	TH_LOG("%s", self->path);
	self->restore = true;
}

FIXTURE_TEARDOWN(knob)
{
	int fd;

	if (!self->restore)
		return;
	fd = open(self->path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, self->saved, strlen(self->saved)) < 0)
			TH_LOG("restoring %s: %s", self->path, strerror(errno));
		close(fd);
	}
}

TEST_F(knob, write)
{
	size_t len = variant->len ?: strlen(variant->val);
	char *val = malloc(len + 1);
	char now[64];
	ssize_t n;
	int fd;

	ASSERT_NE(NULL, val);
	if (variant->repeat) {
		/* A long value: the string repeated up to len bytes. */
		size_t i, sl = strlen(variant->val);

		for (i = 0; i < len; i++)
			val[i] = variant->val[i % sl];
	} else {
		memcpy(val, variant->val, len);
	}
	fd = open(self->path, O_WRONLY);
	if (fd < 0) {
		n = -errno;
	} else {
		n = write(fd, val, len);
		if (n < 0)
			n = -errno;
		close(fd);
	}
	free(val);

	ASSERT_EQ(0, svmtune_read_file(self->path, now, sizeof(now)));
	if (variant->err) {
		EXPECT_EQ(-variant->err, n) TH_LOG("write returned %zd", n);
		EXPECT_STREQ(self->saved, now);
	} else {
		EXPECT_EQ((ssize_t)len, n)
		TH_LOG("write returned %zd (%s)", n,
		       n < 0 ? strerror(-n) : "short");
		if (variant->after)
			EXPECT_STREQ(variant->after, now);
	}
}

/* clang-format off */
/* Sizes: digits with an optional K, M or G, a power of two, 4K to 1G. */
FIXTURE_VARIANT_ADD(knob, granularity_empty_line) { "granularity", "\n", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_leading_space) {
	"granularity", " 64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_leading_tab) {
	"granularity", "\t64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_trailing_space) {
	"granularity", "64K ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_two_newlines) {
	"granularity", "64K\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_embedded_nul) {
	"granularity", "64K\0001", 5, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_trailing_nul) {
	"granularity", "64K\0", 4, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_negative) { "granularity", "-1", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_a_page_of_digits) {
	"granularity", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_longer_than_a_page) {
	"granularity", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_longer_than_a_page_of_spaces) {
	"granularity", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_garbage) {
	"granularity", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_good_with_newline) {
	"granularity", "64K\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_good_without_newline) {
	"granularity", "64K", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_zero) { "granularity", "0", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_bytes_below_page) {
	"granularity", "2048", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_not_power_of_two) {
	"granularity", "3K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_above_1g) { "granularity", "2G", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_terabyte_suffix) {
	"granularity", "1T", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_two_suffixes) {
	"granularity", "64KK", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_suffix_b) { "granularity", "64KB", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_space_before_suffix) {
	"granularity", "64 K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_hex) { "granularity", "0x10000", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_plus_sign) { "granularity", "+64K", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_overflow) {
	"granularity", "99999999999999999999999K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, granularity_suffix_alone) { "granularity", "K", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, granularity_bytes_page) { "granularity", "4096", 0, false, 0, "4K\n" };
FIXTURE_VARIANT_ADD(knob, granularity_lowercase_suffix) {
	"granularity", "64k", 0, false, 0, "64K\n"
};
FIXTURE_VARIANT_ADD(knob, granularity_max) { "granularity", "1G", 0, false, 0, "1G\n" };
FIXTURE_VARIANT_ADD(knob, granularity_min) { "granularity", "4K", 0, false, 0, "4K\n" };
FIXTURE_VARIANT_ADD(knob, adaptive_min_empty_line) {
	"adaptive_min_granularity", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_leading_space) {
	"adaptive_min_granularity", " 64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_leading_tab) {
	"adaptive_min_granularity", "\t64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_trailing_space) {
	"adaptive_min_granularity", "64K ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_two_newlines) {
	"adaptive_min_granularity", "64K\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_embedded_nul) {
	"adaptive_min_granularity", "64K\0001", 5, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_trailing_nul) {
	"adaptive_min_granularity", "64K\0", 4, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_negative) {
	"adaptive_min_granularity", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_a_page_of_digits) {
	"adaptive_min_granularity", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_longer_than_a_page) {
	"adaptive_min_granularity", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_longer_than_a_page_of_spaces) {
	"adaptive_min_granularity", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_garbage) {
	"adaptive_min_granularity", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_good_with_newline) {
	"adaptive_min_granularity", "64K\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_good_without_newline) {
	"adaptive_min_granularity", "64K", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_zero) {
	"adaptive_min_granularity", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_bytes_below_page) {
	"adaptive_min_granularity", "2048", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_not_power_of_two) {
	"adaptive_min_granularity", "3K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_above_1g) {
	"adaptive_min_granularity", "2G", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_terabyte_suffix) {
	"adaptive_min_granularity", "1T", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_two_suffixes) {
	"adaptive_min_granularity", "64KK", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_suffix_b) {
	"adaptive_min_granularity", "64KB", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_space_before_suffix) {
	"adaptive_min_granularity", "64 K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_hex) {
	"adaptive_min_granularity", "0x10000", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_plus_sign) {
	"adaptive_min_granularity", "+64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_overflow) {
	"adaptive_min_granularity", "99999999999999999999999K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_suffix_alone) {
	"adaptive_min_granularity", "K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_bytes_page) {
	"adaptive_min_granularity", "4096", 0, false, 0, "4K\n"
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_lowercase_suffix) {
	"adaptive_min_granularity", "64k", 0, false, 0, "64K\n"
};
FIXTURE_VARIANT_ADD(knob, adaptive_min_above_max) {
	"adaptive_min_granularity", "1G", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_empty_line) {
	"adaptive_max_granularity", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_leading_space) {
	"adaptive_max_granularity", " 64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_leading_tab) {
	"adaptive_max_granularity", "\t64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_trailing_space) {
	"adaptive_max_granularity", "64K ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_two_newlines) {
	"adaptive_max_granularity", "64K\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_embedded_nul) {
	"adaptive_max_granularity", "64K\0001", 5, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_trailing_nul) {
	"adaptive_max_granularity", "64K\0", 4, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_negative) {
	"adaptive_max_granularity", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_a_page_of_digits) {
	"adaptive_max_granularity", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_longer_than_a_page) {
	"adaptive_max_granularity", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_longer_than_a_page_of_spaces) {
	"adaptive_max_granularity", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_garbage) {
	"adaptive_max_granularity", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_good_with_newline) {
	"adaptive_max_granularity", "64K\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_good_without_newline) {
	"adaptive_max_granularity", "64K", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_zero) {
	"adaptive_max_granularity", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_bytes_below_page) {
	"adaptive_max_granularity", "2048", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_not_power_of_two) {
	"adaptive_max_granularity", "3K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_above_1g) {
	"adaptive_max_granularity", "2G", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_terabyte_suffix) {
	"adaptive_max_granularity", "1T", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_two_suffixes) {
	"adaptive_max_granularity", "64KK", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_suffix_b) {
	"adaptive_max_granularity", "64KB", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_space_before_suffix) {
	"adaptive_max_granularity", "64 K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_hex) {
	"adaptive_max_granularity", "0x10000", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_plus_sign) {
	"adaptive_max_granularity", "+64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_overflow) {
	"adaptive_max_granularity", "99999999999999999999999K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_suffix_alone) {
	"adaptive_max_granularity", "K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_bytes_page) {
	"adaptive_max_granularity", "4096", 0, false, 0, "4K\n"
};
FIXTURE_VARIANT_ADD(knob, adaptive_max_lowercase_suffix) {
	"adaptive_max_granularity", "64k", 0, false, 0, "64K\n"
};
/* Words. */
FIXTURE_VARIANT_ADD(knob, policy_empty_line) { "policy", "\n", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_leading_space) { "policy", " fixed", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_leading_tab) { "policy", "\tfixed", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_trailing_space) { "policy", "fixed ", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_two_newlines) { "policy", "fixed\n\n", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_embedded_nul) { "policy", "fixed\0001", 7, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_trailing_nul) { "policy", "fixed\0", 6, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_negative) { "policy", "-1", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_a_page_of_digits) { "policy", "1", PAGE - 1, true, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_longer_than_a_page) {
	"policy", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, policy_longer_than_a_page_of_spaces) {
	"policy", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, policy_garbage) { "policy", "\x01\xff", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_good_with_newline) { "policy", "fixed\n", 0, false, 0, NULL };
FIXTURE_VARIANT_ADD(knob, policy_good_without_newline) { "policy", "fixed", 0, false, 0, NULL };
FIXTURE_VARIANT_ADD(knob, policy_uppercase) { "policy", "OFF", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_prefix) { "policy", "fix", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_number) { "policy", "1", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, policy_adaptive) { "policy", "adaptive", 0, false, 0, "adaptive\n" };
FIXTURE_VARIANT_ADD(knob, policy_longer_word) { "policy", "fixedx", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_empty_line) { "thrashing", "\n", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_leading_space) {
	"thrashing", " detect", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_leading_tab) {
	"thrashing", "\tdetect", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_trailing_space) {
	"thrashing", "detect ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_two_newlines) {
	"thrashing", "detect\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_embedded_nul) {
	"thrashing", "detect\0001", 8, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_trailing_nul) {
	"thrashing", "detect\0", 7, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_negative) { "thrashing", "-1", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_a_page_of_digits) {
	"thrashing", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_longer_than_a_page) {
	"thrashing", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_longer_than_a_page_of_spaces) {
	"thrashing", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_garbage) { "thrashing", "\x01\xff", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_good_with_newline) {
	"thrashing", "detect\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_good_without_newline) {
	"thrashing", "detect", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_uppercase) { "thrashing", "OFF", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_prefix) { "thrashing", "fix", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_number) { "thrashing", "1", 0, false, EINVAL, NULL };
FIXTURE_VARIANT_ADD(knob, thrashing_off) { "thrashing", "off\n", 0, false, 0, "off\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_remote) { "thrashing", "remote", 0, false, 0, "remote\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_throttle) { "thrashing", "throttle", 0, false, 0, "throttle\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_pin_is_not_a_mode) { "thrashing", "pin", 0, false, EINVAL, NULL };
/* Numbers: decimal, within the knob's bounds. */
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_empty_line) {
	"thrashing_threshold", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_leading_space) {
	"thrashing_threshold", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_leading_tab) {
	"thrashing_threshold", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_trailing_space) {
	"thrashing_threshold", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_two_newlines) {
	"thrashing_threshold", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_embedded_nul) {
	"thrashing_threshold", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_trailing_nul) {
	"thrashing_threshold", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_negative) {
	"thrashing_threshold", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_a_page_of_digits) {
	"thrashing_threshold", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_longer_than_a_page) {
	"thrashing_threshold", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_longer_than_a_page_of_spaces) {
	"thrashing_threshold", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_garbage) {
	"thrashing_threshold", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_good_with_newline) {
	"thrashing_threshold", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_good_without_newline) {
	"thrashing_threshold", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_min) {
	"thrashing_threshold", "1", 0, false, 0, "1\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_max) {
	"thrashing_threshold", "255", 0, false, 0, "255\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_below_min) {
	"thrashing_threshold", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_above_max) {
	"thrashing_threshold", "256", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_past_u32) {
	"thrashing_threshold", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_hex) {
	"thrashing_threshold", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_exponent) {
	"thrashing_threshold", "1e3", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_fraction) {
	"thrashing_threshold", "1.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_leading_zero_is_decimal) {
	"thrashing_threshold", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_plus_sign) {
	"thrashing_threshold", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_threshold_plus_sign_with_newline) {
	"thrashing_threshold", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_empty_line) {
	"thrashing_lapse_us", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_leading_space) {
	"thrashing_lapse_us", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_leading_tab) {
	"thrashing_lapse_us", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_trailing_space) {
	"thrashing_lapse_us", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_two_newlines) {
	"thrashing_lapse_us", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_embedded_nul) {
	"thrashing_lapse_us", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_trailing_nul) {
	"thrashing_lapse_us", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_negative) {
	"thrashing_lapse_us", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_a_page_of_digits) {
	"thrashing_lapse_us", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_longer_than_a_page) {
	"thrashing_lapse_us", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_longer_than_a_page_of_spaces) {
	"thrashing_lapse_us", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_garbage) {
	"thrashing_lapse_us", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_good_with_newline) {
	"thrashing_lapse_us", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_good_without_newline) {
	"thrashing_lapse_us", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_min) { "thrashing_lapse_us", "1", 0, false, 0, "1\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_max) {
	"thrashing_lapse_us", "1000000", 0, false, 0, "1000000\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_below_min) {
	"thrashing_lapse_us", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_above_max) {
	"thrashing_lapse_us", "1000001", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_past_u32) {
	"thrashing_lapse_us", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_hex) {
	"thrashing_lapse_us", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_exponent) {
	"thrashing_lapse_us", "1e3", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_fraction) {
	"thrashing_lapse_us", "1.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_leading_zero_is_decimal) {
	"thrashing_lapse_us", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_plus_sign) {
	"thrashing_lapse_us", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_lapse_us_plus_sign_with_newline) {
	"thrashing_lapse_us", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_empty_line) {
	"thrashing_pin_ms", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_leading_space) {
	"thrashing_pin_ms", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_leading_tab) {
	"thrashing_pin_ms", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_trailing_space) {
	"thrashing_pin_ms", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_two_newlines) {
	"thrashing_pin_ms", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_embedded_nul) {
	"thrashing_pin_ms", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_trailing_nul) {
	"thrashing_pin_ms", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_negative) {
	"thrashing_pin_ms", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_a_page_of_digits) {
	"thrashing_pin_ms", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_longer_than_a_page) {
	"thrashing_pin_ms", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_longer_than_a_page_of_spaces) {
	"thrashing_pin_ms", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_garbage) {
	"thrashing_pin_ms", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_good_with_newline) {
	"thrashing_pin_ms", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_good_without_newline) {
	"thrashing_pin_ms", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_min) { "thrashing_pin_ms", "1", 0, false, 0, "1\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_max) {
	"thrashing_pin_ms", "60000", 0, false, 0, "60000\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_below_min) {
	"thrashing_pin_ms", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_above_max) {
	"thrashing_pin_ms", "60001", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_past_u32) {
	"thrashing_pin_ms", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_hex) {
	"thrashing_pin_ms", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_exponent) {
	"thrashing_pin_ms", "1e3", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_fraction) {
	"thrashing_pin_ms", "1.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_leading_zero_is_decimal) {
	"thrashing_pin_ms", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_plus_sign) {
	"thrashing_pin_ms", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_ms_plus_sign_with_newline) {
	"thrashing_pin_ms", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_empty_line) {
	"thrashing_throttle_us", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_leading_space) {
	"thrashing_throttle_us", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_leading_tab) {
	"thrashing_throttle_us", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_trailing_space) {
	"thrashing_throttle_us", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_two_newlines) {
	"thrashing_throttle_us", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_embedded_nul) {
	"thrashing_throttle_us", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_trailing_nul) {
	"thrashing_throttle_us", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_negative) {
	"thrashing_throttle_us", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_a_page_of_digits) {
	"thrashing_throttle_us", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_longer_than_a_page) {
	"thrashing_throttle_us", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_longer_than_a_page_of_spaces) {
	"thrashing_throttle_us", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_garbage) {
	"thrashing_throttle_us", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_good_with_newline) {
	"thrashing_throttle_us", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_good_without_newline) {
	"thrashing_throttle_us", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_min) { "thrashing_throttle_us", "1", 0, false, 0, "1\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_max) {
	"thrashing_throttle_us", "100000", 0, false, 0, "100000\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_below_min) {
	"thrashing_throttle_us", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_above_max) {
	"thrashing_throttle_us", "100001", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_past_u32) {
	"thrashing_throttle_us", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_hex) {
	"thrashing_throttle_us", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_exponent) {
	"thrashing_throttle_us", "1e3", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_fraction) {
	"thrashing_throttle_us", "1.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_leading_zero_is_decimal) {
	"thrashing_throttle_us", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_plus_sign) {
	"thrashing_throttle_us", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_throttle_us_plus_sign_with_newline) {
	"thrashing_throttle_us", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_empty_line) {
	"thrashing_pin_threshold", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_leading_space) {
	"thrashing_pin_threshold", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_leading_tab) {
	"thrashing_pin_threshold", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_trailing_space) {
	"thrashing_pin_threshold", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_two_newlines) {
	"thrashing_pin_threshold", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_embedded_nul) {
	"thrashing_pin_threshold", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_trailing_nul) {
	"thrashing_pin_threshold", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_negative) {
	"thrashing_pin_threshold", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_a_page_of_digits) {
	"thrashing_pin_threshold", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_longer_than_a_page) {
	"thrashing_pin_threshold", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_longer_than_a_page_of_spaces) {
	"thrashing_pin_threshold", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_garbage) {
	"thrashing_pin_threshold", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_good_with_newline) {
	"thrashing_pin_threshold", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_good_without_newline) {
	"thrashing_pin_threshold", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_min) { "thrashing_pin_threshold", "0", 0, false, 0, "0\n" };
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_max) {
	"thrashing_pin_threshold", "255", 0, false, 0, "255\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_above_max) {
	"thrashing_pin_threshold", "256", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_past_u32) {
	"thrashing_pin_threshold", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_hex) {
	"thrashing_pin_threshold", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_exponent) {
	"thrashing_pin_threshold", "1e3", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_fraction) {
	"thrashing_pin_threshold", "1.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_leading_zero_is_decimal) {
	"thrashing_pin_threshold", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_plus_sign) {
	"thrashing_pin_threshold", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, thrashing_pin_threshold_plus_sign_with_newline) {
	"thrashing_pin_threshold", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_empty_line) {
	"prefetch_threshold", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_leading_space) {
	"prefetch_threshold", " 7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_leading_tab) {
	"prefetch_threshold", "\t7", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_trailing_space) {
	"prefetch_threshold", "7 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_two_newlines) {
	"prefetch_threshold", "7\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_embedded_nul) {
	"prefetch_threshold", "7\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_trailing_nul) {
	"prefetch_threshold", "7\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_negative) {
	"prefetch_threshold", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_a_page_of_digits) {
	"prefetch_threshold", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_longer_than_a_page) {
	"prefetch_threshold", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_longer_than_a_page_of_spaces) {
	"prefetch_threshold", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_garbage) {
	"prefetch_threshold", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_good_with_newline) {
	"prefetch_threshold", "7\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_good_without_newline) {
	"prefetch_threshold", "7", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_off) { "prefetch_threshold", "0", 0, false, 0, "0\n" };
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_max) {
	"prefetch_threshold", "100", 0, false, 0, "100\n"
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_uvm_default) {
	"prefetch_threshold", "51", 0, false, 0, "51\n"
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_above_max) {
	"prefetch_threshold", "101", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_past_u32) {
	"prefetch_threshold", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_hex) {
	"prefetch_threshold", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_exponent) {
	"prefetch_threshold", "5e1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_percent_sign) {
	"prefetch_threshold", "51%", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_fraction) {
	"prefetch_threshold", "50.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_leading_zero_is_decimal) {
	"prefetch_threshold", "010", 0, false, 0, "10\n"
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_plus_sign) {
	"prefetch_threshold", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, prefetch_threshold_plus_sign_with_newline) {
	"prefetch_threshold", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_empty_line) {
	"evict_when_full", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_leading_space) {
	"evict_when_full", " 1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_leading_tab) {
	"evict_when_full", "\t1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_trailing_space) {
	"evict_when_full", "1 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_two_newlines) {
	"evict_when_full", "1\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_embedded_nul) {
	"evict_when_full", "1\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_trailing_nul) {
	"evict_when_full", "1\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_negative) {
	"evict_when_full", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_a_page_of_digits) {
	"evict_when_full", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_longer_than_a_page) {
	"evict_when_full", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_longer_than_a_page_of_spaces) {
	"evict_when_full", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_garbage) {
	"evict_when_full", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_good_with_newline) {
	"evict_when_full", "1\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_good_without_newline) {
	"evict_when_full", "1", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_off) {
	"evict_when_full", "0", 0, false, 0, "0\n"
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_max) {
	"evict_when_full", "1", 0, false, 0, "1\n"
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_above_max) {
	"evict_when_full", "2", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_past_u32) {
	"evict_when_full", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_hex) {
	"evict_when_full", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_exponent) {
	"evict_when_full", "1e0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_fraction) {
	"evict_when_full", "0.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_leading_zero_is_decimal) {
	"evict_when_full", "01", 0, false, 0, "1\n"
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_plus_sign) {
	"evict_when_full", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_plus_sign_with_newline) {
	"evict_when_full", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, evict_when_full_word_on) {
	"evict_when_full", "on", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_empty_line) {
	"fragment_auto", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_leading_space) {
	"fragment_auto", " 1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_leading_tab) {
	"fragment_auto", "\t1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_trailing_space) {
	"fragment_auto", "1 ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_two_newlines) {
	"fragment_auto", "1\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_embedded_nul) {
	"fragment_auto", "1\0001", 3, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_trailing_nul) {
	"fragment_auto", "1\0", 2, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_negative) {
	"fragment_auto", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_a_page_of_digits) {
	"fragment_auto", "1", PAGE - 1, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_longer_than_a_page) {
	"fragment_auto", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_longer_than_a_page_of_spaces) {
	"fragment_auto", " ", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_garbage) {
	"fragment_auto", "\x01\xff", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_good_with_newline) {
	"fragment_auto", "1\n", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_good_without_newline) {
	"fragment_auto", "1", 0, false, 0, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_off) {
	"fragment_auto", "0", 0, false, 0, "0\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_max) {
	"fragment_auto", "1", 0, false, 0, "1\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_above_max) {
	"fragment_auto", "2", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_past_u32) {
	"fragment_auto", "4294967296", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_hex) {
	"fragment_auto", "0x10", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_exponent) {
	"fragment_auto", "1e0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_fraction) {
	"fragment_auto", "0.5", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_leading_zero_is_decimal) {
	"fragment_auto", "01", 0, false, 0, "1\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_plus_sign) {
	"fragment_auto", "+1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_plus_sign_with_newline) {
	"fragment_auto", "+1\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_auto_word_on) {
	"fragment_auto", "on", 0, false, EINVAL, NULL
};
/* Fragment sizes: a power of two, 4K to 2M (fragment_size) or 1G (fragment_cap). */
FIXTURE_VARIANT_ADD(knob, fragment_size_empty_line) {
	"fragment_size", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_leading_space) {
	"fragment_size", " 64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_trailing_space) {
	"fragment_size", "64K ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_two_newlines) {
	"fragment_size", "64K\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_embedded_nul) {
	"fragment_size", "64K\0002M", 6, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_negative) {
	"fragment_size", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_longer_than_a_page) {
	"fragment_size", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_zero) {
	"fragment_size", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_not_power_of_two) {
	"fragment_size", "96K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_below_4k) {
	"fragment_size", "2K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_hex) {
	"fragment_size", "0x10000", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_plus_sign) {
	"fragment_size", "+64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_overflow) {
	"fragment_size", "99999999999999999999999K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_log2_number_is_not_a_size) {
	"fragment_size", "21", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_bytes_page) {
	"fragment_size", "4096", 0, false, 0, "4K\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_size_good_with_newline) {
	"fragment_size", "64K\n", 0, false, 0, "64K\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_size_lowercase_suffix) {
	"fragment_size", "2m", 0, false, 0, "2M\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_size_above_2m) {
	"fragment_size", "4M", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_size_1g) {
	"fragment_size", "1G", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_empty_line) {
	"fragment_cap", "\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_leading_space) {
	"fragment_cap", " 64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_trailing_space) {
	"fragment_cap", "64K ", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_two_newlines) {
	"fragment_cap", "64K\n\n", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_embedded_nul) {
	"fragment_cap", "64K\0002M", 6, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_negative) {
	"fragment_cap", "-1", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_longer_than_a_page) {
	"fragment_cap", "1", 3 * PAGE, true, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_zero) {
	"fragment_cap", "0", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_not_power_of_two) {
	"fragment_cap", "96K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_below_4k) {
	"fragment_cap", "2K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_hex) {
	"fragment_cap", "0x10000", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_plus_sign) {
	"fragment_cap", "+64K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_overflow) {
	"fragment_cap", "99999999999999999999999K", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_log2_number_is_not_a_size) {
	"fragment_cap", "21", 0, false, EINVAL, NULL
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_bytes_page) {
	"fragment_cap", "4096", 0, false, 0, "4K\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_good_with_newline) {
	"fragment_cap", "64K\n", 0, false, 0, "64K\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_lowercase_suffix) {
	"fragment_cap", "2m", 0, false, 0, "2M\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_4m) {
	"fragment_cap", "4M", 0, false, 0, "4M\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_1g) {
	"fragment_cap", "1G", 0, false, 0, "1G\n"
};
FIXTURE_VARIANT_ADD(knob, fragment_cap_above_1g) {
	"fragment_cap", "2G", 0, false, EINVAL, NULL
};
/* The block-state gauges are read-only. */
FIXTURE_VARIANT_ADD(knob, blocks_read_only) { "blocks", "0", 0, false, EACCES, NULL };
FIXTURE_VARIANT_ADD(knob, block_bytes_read_only) { "block_bytes", "1", 0, false, EACCES, NULL };
/* Read-only files cannot be opened for writing, not even by root. */
FIXTURE_VARIANT_ADD(knob, version_read_only) { "version", "1", 0, false, EACCES, NULL };
FIXTURE_VARIANT_ADD(knob, stats_read_only) { "stats", "0", 0, false, EACCES, NULL };

/* clang-format on */

TEST_HARNESS_MAIN
