// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what: a user with no supplementary groups sets policy on its
 * own address space and on its own children, and cannot touch another
 * user's process or a process that is not dumpable; root without
 * CAP_SYS_PTRACE cannot touch another user's process either; root without
 * CAP_SYS_ADMIN cannot write a knob, although the file mode lets uid 0 open
 * it (so the store's own check is what refuses); one user filling the
 * emulated GPU's memory leaves the GPU usable by another. Needs root to set
 * up the users and capabilities.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

#define OTHER_UID 65533
#define EMU_DEV "/dev/svmtune_emu0"
#define PAGE 4096UL

/* Become @uid with no supplementary groups; 0 or -1. */
static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		return -1;
	return 0;
}

/*
 * A process that waits until killed, as @uid (0: stays root), not
 * dumpable if @nodump. Its pid, or -1.
 */
static pid_t start_target(uid_t uid, bool nodump)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(ready[0]);
		if (uid && become(uid))
			_exit(1);
		/*
		 * Changing uid left the process not dumpable (suid_dumpable
		 * is 0); a user's program started normally is dumpable.
		 */
		if (prctl(PR_SET_DUMPABLE, nodump ? 0 : 1))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Run @fn(@arg) in a child; its exit status, or -1. */
static int run_child(int (*fn)(long), long arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Every ioctl that names a process, on @pid: 0 when each returned
 * @want_errno (0 for success), else the 1-based index of the first that
 * did not.
 */
static int every_pid_ioctl(pid_t pid, int want_errno)
{
	struct svmtune_process_policy pp;
	struct svmtune_range_policy rp;
	struct svmtune_stats st;
	int fd, i, ret;

	fd = open(SVMTUNE_DEV, O_RDWR);
	if (fd < 0)
		return 100;
	for (i = 0; i < 4; i++) {
		switch (i) {
		case 0:
			memset(&pp, 0, sizeof(pp));
			pp.pid = pid;
			pp.set = SVMTUNE_POLICY_GRANULARITY;
			pp.granularity = 16;
			ret = ioctl(fd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp);
			break;
		case 1:
			memset(&pp, 0, sizeof(pp));
			pp.pid = pid;
			ret = ioctl(fd, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp);
			if (!ret && pp.granularity != 16)
				return 50;
			break;
		case 2:
			/* Any page-aligned span: the pid is checked first. */
			memset(&rp, 0, sizeof(rp));
			rp.pid = pid;
			rp.start = 1UL << 30;
			rp.size = PAGE;
			ret = ioctl(fd, SVMTUNE_IOC_GET_POLICY, &rp);
			break;
		default:
			memset(&st, 0, sizeof(st));
			st.scope = SVMTUNE_STATS_PROCESS;
			st.id = pid;
			ret = ioctl(fd, SVMTUNE_IOC_GET_STATS, &st);
			break;
		}
		if (want_errno ? !(ret == -1 && errno == want_errno) : ret != 0)
			return i + 1;
	}
	close(fd);
	return 0;
}

static int as_user_on(long pid)
{
	if (become(UNPRIVILEGED_UID))
		return 99;
	return every_pid_ioctl(pid, pid == getpid() ? 0 : EPERM);
}

static int as_user_on_own_range(long unused)
{
	struct svmtune_range_policy rp;
	char *buf;
	int fd;

	if (become(UNPRIVILEGED_UID))
		return 99;
	buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(SVMTUNE_DEV, O_RDWR);
	if (buf == MAP_FAILED || fd < 0)
		return 100;
	if (svmtune_set_policy(fd, buf, 4 * PAGE, SVMTUNE_POLICY_ALL, 16,
			       SVMTUNE_LOC_SYSTEM, SVMTUNE_ACCESS_REMOTE))
		return 1;
	memset(&rp, 0, sizeof(rp));
	rp.start = (uintptr_t)buf;
	rp.size = 4 * PAGE;
	if (ioctl(fd, SVMTUNE_IOC_GET_POLICY, &rp) || rp.granularity != 16 ||
	    rp.access != SVMTUNE_ACCESS_REMOTE)
		return 2;
	/* The own pid, spelled out, is the own address space too. */
	return every_pid_ioctl(getpid(), 0) ? 3 : 0;
}

TEST(user_sets_policy_on_own_ranges)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	EXPECT_EQ(0, run_child(as_user_on_own_range, 0));
}

TEST(user_cannot_touch_root_process)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	/* pid 1 is root's init. */
	EXPECT_EQ(0, run_child(as_user_on, 1));
}

TEST(user_cannot_touch_other_users_process)
{
	pid_t target;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	target = start_target(OTHER_UID, false);
	ASSERT_LT(0, target);
	EXPECT_EQ(0, run_child(as_user_on, target));
	stop_target(target);
}

/* A user starts a child and tunes it: the child is the user's own. */
static int user_tunes_child(long nodump)
{
	pid_t child;
	int ret;

	if (become(UNPRIVILEGED_UID))
		return 99;
	child = start_target(0, nodump);
	if (child < 0)
		return 98;
	ret = every_pid_ioctl(child, nodump ? EPERM : 0);
	stop_target(child);
	return ret;
}

TEST(user_tunes_own_child)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	EXPECT_EQ(0, run_child(user_tunes_child, 0));
}

TEST(user_cannot_touch_nondumpable_process)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	EXPECT_EQ(0, run_child(user_tunes_child, 1));
}

/* Root without CAP_SYS_PTRACE on @pid (another user's): refused. */
static int root_without_ptrace_on(long pid)
{
	if (drop_cap(CAP_SYS_PTRACE))
		return 99;
	return every_pid_ioctl(pid, EPERM);
}

TEST(root_needs_cap_sys_ptrace_for_other_users)
{
	pid_t target;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	target = start_target(OTHER_UID, false);
	ASSERT_LT(0, target);
	EXPECT_EQ(0, run_child(root_without_ptrace_on, target));
	/* With it, root may. */
	EXPECT_EQ(0, every_pid_ioctl(target, 0));
	stop_target(target);
}

static const char *const knobs[] = {
	"granularity",
	"adaptive_min_granularity",
	"adaptive_max_granularity",
	"policy",
	"thrashing",
	"thrashing_threshold",
	"thrashing_lapse_us",
	"thrashing_pin_ms",
	"thrashing_throttle_us",
	"thrashing_pin_threshold",
	"prefetch_threshold",
	"evict_when_full",
	"fragment_auto",
};

/*
 * Root without CAP_SYS_ADMIN: uid 0 owns the 0644 files, so the open
 * succeeds and the write reaches the store, whose capability check must
 * refuse it. Writes the value each knob has, so a wrong acceptance would
 * change nothing either.
 */
static int root_without_admin_writes_knobs(long unused)
{
	char val[64], path[128];
	unsigned int i;
	int fd;

	if (drop_cap(CAP_SYS_ADMIN))
		return 99;
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (svmtune_read_sysfs(knobs[i], val, sizeof(val)))
			return 100;
		snprintf(path, sizeof(path), SVMTUNE_SYSFS "/%s", knobs[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return 101;
		if (write(fd, val, strlen(val)) != -1 || errno != EPERM)
			return i + 1;
		close(fd);
	}
	return 0;
}

TEST(root_needs_cap_sys_admin_for_knobs)
{
	if (geteuid() != 0)
		SKIP(return, "needs root");
	EXPECT_EQ(0, run_child(root_without_admin_writes_knobs, 0));
}

/* Without CAP_SYS_ADMIN, root still sets policy on its own address space. */
static int root_without_admin_on_self(long unused)
{
	if (drop_cap(CAP_SYS_ADMIN))
		return 99;
	return every_pid_ioctl(getpid(), 0);
}

TEST(own_policy_needs_no_capability)
{
	if (geteuid() != 0)
		SKIP(return, "needs root");
	EXPECT_EQ(0, run_child(root_without_admin_on_self, 0));
}

static int user_opens_knobs(long unused)
{
	char path[128];
	unsigned int i;

	if (become(UNPRIVILEGED_UID))
		return 99;
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), SVMTUNE_SYSFS "/%s", knobs[i]);
		if (open(path, O_WRONLY) != -1 || errno != EACCES)
			return i + 1;
	}
	return 0;
}

TEST(user_cannot_open_knobs_for_writing)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	EXPECT_EQ(0, run_child(user_opens_knobs, 0));
}

/*
 * The emulated GPU's node is 0666 on purpose, as GPU compute nodes are:
 * any user may use the GPU. Its memory is shared by all users, so one
 * user can fill it; what that must never do is deny another user the GPU.
 * A fault that finds device memory full maps the pages where they are
 * (svmtune's fallback), the access succeeds with its data intact, and the
 * memory is free again once the first user's pages go.
 */
TEST(emu_node_is_for_every_user)
{
	struct stat st;

	ASSERT_EQ(0, stat(EMU_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 07777);
}

static __u64 emu_free_bytes(void)
{
	int fd = open(SVMTUNE_DEV, O_RDWR);
	__u64 bytes;

	if (fd < 0)
		return 0;
	bytes = svmtune_device_free_bytes(
		fd, svmtune_device_id(fd, "svmtune_emu0"));
	close(fd);
	return bytes;
}

/* As @uid, GPU-read 1 MiB of a pattern; 0 if the data came back. */
/*
 * As another user, GPU-read 1 MiB the CPU wrote and check the bytes, and
 * where they went: @want 1, mapped remotely (device memory full, eviction
 * off); 0, migrated; 2, migrated by evicting another process's pages.
 */
static int gpu_reads_pattern(long want)
{
	long want_remote = want == 1;
	struct svmtune_emu_access a;
	unsigned long i, size = 1UL << 20;
	char *mem, *out;
	int fd;

	if (become(OTHER_UID))
		return 99;
	fd = open(EMU_DEV, O_RDWR);
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	out = malloc(size);
	if (fd < 0 || mem == MAP_FAILED || !out)
		return 100;
	for (i = 0; i < size; i++)
		mem[i] = (char)(i * 7 + 3);
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)mem;
	a.size = size;
	a.ptr = (uintptr_t)out;
	a.op = SVMTUNE_EMU_READ;
	if (ioctl(fd, SVMTUNE_EMU_IOC_ACCESS, &a))
		return 1;
	if (memcmp(mem, out, size))
		return 2;
	/*
	 * Full: nothing migrated, all mapped where it was (windows may
	 * reach past the buffer into a neighbouring mapping); free: some
	 * migrated.
	 */
	if (want_remote ? a.remote < size / PAGE || a.migrated :
			  !a.migrated || (want == 2 && !a.evicted)) {
		fprintf(stderr,
			"# %s: %llu faults, %llu pages migrated, %llu remote, %llu evicted\n",
			want_remote ? "memory full" : "memory free",
			(unsigned long long)a.faults,
			(unsigned long long)a.migrated,
			(unsigned long long)a.remote,
			(unsigned long long)a.evicted);
		return 3;
	}
	return 0;
}

TEST(emu_memory_full_of_one_user_leaves_gpu_to_others)
{
	struct svmtune_emu_migrate m;
	unsigned long size;
	int ready[2];
	pid_t hog;
	char c;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	size = emu_free_bytes();
	ASSERT_LT(0, size)
	TH_LOG("%s has no free memory to start with", EMU_DEV);
	ASSERT_EQ(0, pipe(ready));
	hog = fork();
	ASSERT_LE(0, hog);
	if (hog == 0) {
		char *mem;
		int fd;

		close(ready[0]);
		if (become(UNPRIVILEGED_UID))
			_exit(1);
		fd = open(EMU_DEV, O_RDWR);
		/* More than there is, so every free page is taken. */
		size += 4UL << 20;
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fd < 0 || mem == MAP_FAILED)
			_exit(2);
		memset(mem, 1, size);
		memset(&m, 0, sizeof(m));
		m.addr = (uintptr_t)mem;
		m.size = size;
		m.dest = SVMTUNE_EMU_TO_DEVICE;
		if (ioctl(fd, SVMTUNE_EMU_IOC_MIGRATE, &m))
			_exit(3);
		if (write(ready[1], "x", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	EXPECT_EQ(0, emu_free_bytes());
	/* Eviction off: the other user's pages map remotely. */
	EXPECT_EQ(0, svmtune_write_sysfs("evict_when_full", "0"));
	EXPECT_EQ(0, run_child(gpu_reads_pattern, 1));
	/* On (the default): the hog's least recently used blocks make room. */
	EXPECT_EQ(0, svmtune_write_sysfs("evict_when_full", "1"));
	EXPECT_EQ(0, run_child(gpu_reads_pattern, 2));
	stop_target(hog);
	EXPECT_LT(0, emu_free_bytes());
	EXPECT_EQ(0, run_child(gpu_reads_pattern, 0));
}

TEST_HARNESS_MAIN
