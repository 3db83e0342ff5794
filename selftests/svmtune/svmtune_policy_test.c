// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of svmtune's policy ioctls and global knobs, without a device:
 * range policies (split, merge, unmap, mremap), process defaults, the
 * effective policy, stats and device queries, sysfs knobs, and the errno of
 * every kind of bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/svmtune.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

#define PAGE 4096UL
#define MIB (1024UL * 1024)

static int get_policy(int fd, void *start, unsigned long size,
		      struct svmtune_range_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->start = (uintptr_t)start;
	p->size = size;
	return ioctl(fd, SVMTUNE_IOC_GET_POLICY, p) ? -errno : 0;
}

FIXTURE(policy)
{
	int fd;
	char *buf;
	unsigned long size;
	char saved_gran[32];
	char saved_policy[32];
	struct svmtune_saved_knobs thrash;
};

FIXTURE_SETUP(policy)
{
	self->fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0);
	self->size = 16 * MIB;
	self->buf = mmap(NULL, self->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_EQ(0, svmtune_read_sysfs("granularity", self->saved_gran,
					sizeof(self->saved_gran)));
	ASSERT_EQ(0, svmtune_read_sysfs("policy", self->saved_policy,
					sizeof(self->saved_policy)));
	ASSERT_EQ(0, svmtune_save_knobs(&self->thrash));
}

FIXTURE_TEARDOWN(policy)
{
	if (geteuid() == 0) {
		svmtune_write_sysfs("granularity", self->saved_gran);
		svmtune_write_sysfs("policy", self->saved_policy);
		svmtune_restore_knobs(&self->thrash);
	}
	munmap(self->buf, self->size);
	close(self->fd);
}

TEST_F(policy, unset_range_reports_global_default)
{
	struct svmtune_range_policy p;

	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(SVMTUNE_GRANULARITY_UNSET, p.granularity);
	EXPECT_EQ(SVMTUNE_LOC_UNSET, p.preferred_loc);
	EXPECT_EQ(SVMTUNE_ACCESS_UNSET, p.access);
	EXPECT_EQ(SVMTUNE_ACCESS_MIGRATE, p.eff_access);
	EXPECT_EQ(SVMTUNE_LOC_UNSET, p.eff_preferred_loc);
	EXPECT_EQ(21, p.eff_granularity); /* the default: 2M */
	EXPECT_EQ((uintptr_t)self->buf + self->size, p.extent_end);
}

TEST_F(policy, set_and_get_every_field)
{
	struct svmtune_range_policy p;

	ASSERT_EQ(0,
		  svmtune_set_policy(self->fd, self->buf, self->size,
				     SVMTUNE_POLICY_ALL, 16, SVMTUNE_LOC_SYSTEM,
				     SVMTUNE_ACCESS_REMOTE));
	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(16, p.granularity);
	EXPECT_EQ(SVMTUNE_LOC_SYSTEM, p.preferred_loc);
	EXPECT_EQ(SVMTUNE_ACCESS_REMOTE, p.access);
	EXPECT_EQ(16, p.eff_granularity);
	EXPECT_EQ((uintptr_t)self->buf + self->size, p.extent_end);
}

TEST_F(policy, partial_set_splits_into_three)
{
	struct svmtune_range_policy p;
	char *mid = self->buf + 4 * MIB;

	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, self->size,
					SVMTUNE_POLICY_GRANULARITY, 14, 0, 0));
	ASSERT_EQ(0, svmtune_set_policy(self->fd, mid, 2 * MIB,
					SVMTUNE_POLICY_GRANULARITY, 20, 0, 0));

	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(14, p.granularity);
	EXPECT_EQ((uintptr_t)mid, p.extent_end);
	ASSERT_EQ(0, get_policy(self->fd, mid, self->size - 4 * MIB, &p));
	EXPECT_EQ(20, p.granularity);
	EXPECT_EQ((uintptr_t)mid + 2 * MIB, p.extent_end);
	ASSERT_EQ(0, get_policy(self->fd, mid + 2 * MIB, 10 * MIB, &p));
	EXPECT_EQ(14, p.granularity);
	EXPECT_EQ((uintptr_t)self->buf + self->size, p.extent_end);
}

TEST_F(policy, set_keeps_other_fields_of_each_part)
{
	struct svmtune_range_policy p;
	char *mid = self->buf + 4 * MIB;

	ASSERT_EQ(0, svmtune_set_policy(self->fd, mid, 2 * MIB,
					SVMTUNE_POLICY_ACCESS, 0, 0,
					SVMTUNE_ACCESS_READ_MOSTLY));
	/* Granularity over everything: the middle keeps its access mode. */
	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, self->size,
					SVMTUNE_POLICY_GRANULARITY, 16, 0, 0));
	ASSERT_EQ(0, get_policy(self->fd, mid, 2 * MIB, &p));
	EXPECT_EQ(16, p.granularity);
	EXPECT_EQ(SVMTUNE_ACCESS_READ_MOSTLY, p.access);
	ASSERT_EQ(0, get_policy(self->fd, self->buf, PAGE, &p));
	EXPECT_EQ(16, p.granularity);
	EXPECT_EQ(SVMTUNE_ACCESS_UNSET, p.access);
}

TEST_F(policy, equal_neighbours_merge)
{
	struct svmtune_range_policy p;
	char *mid = self->buf + 4 * MIB;

	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, self->size,
					SVMTUNE_POLICY_GRANULARITY, 14, 0, 0));
	ASSERT_EQ(0, svmtune_set_policy(self->fd, mid, 2 * MIB,
					SVMTUNE_POLICY_GRANULARITY, 20, 0, 0));
	ASSERT_EQ(0, svmtune_set_policy(self->fd, mid, 2 * MIB,
					SVMTUNE_POLICY_GRANULARITY, 14, 0, 0));
	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(14, p.granularity);
	EXPECT_EQ((uintptr_t)self->buf + self->size, p.extent_end);
}

TEST_F(policy, unmap_removes_policy_of_the_hole_only)
{
	struct svmtune_range_policy p;
	char *hole = self->buf + 4 * MIB;

	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, self->size,
					SVMTUNE_POLICY_GRANULARITY, 16, 0, 0));
	ASSERT_EQ(0, munmap(hole, 2 * MIB));
	ASSERT_EQ(0, get_policy(self->fd, hole, 2 * MIB, &p));
	EXPECT_EQ(SVMTUNE_GRANULARITY_UNSET, p.granularity);
	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(16, p.granularity);
	EXPECT_EQ((uintptr_t)hole, p.extent_end);
	ASSERT_EQ(0, get_policy(self->fd, hole + 2 * MIB, 10 * MIB, &p));
	EXPECT_EQ(16, p.granularity);
	/* A new mapping in the hole starts with no policy. */
	ASSERT_EQ(hole, mmap(hole, 2 * MIB, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	ASSERT_EQ(0, get_policy(self->fd, hole, 2 * MIB, &p));
	EXPECT_EQ(SVMTUNE_GRANULARITY_UNSET, p.granularity);
}

TEST_F(policy, mremap_move_drops_old_policy)
{
	struct svmtune_range_policy p;
	char *dst;

	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, 2 * MIB,
					SVMTUNE_POLICY_GRANULARITY, 16, 0, 0));
	dst = mremap(self->buf, 2 * MIB, 4 * MIB, MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, dst);
	if (dst != self->buf) {
		/* The old place is unmapped: no policy left there. */
		EXPECT_EQ(0, get_policy(self->fd, self->buf, 2 * MIB, &p));
		EXPECT_EQ(SVMTUNE_GRANULARITY_UNSET, p.granularity);
	}
	munmap(dst, 4 * MIB);
	/* Keep the teardown's munmap valid. */
	ASSERT_EQ(self->buf,
		  mmap(self->buf, 2 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
}

TEST_F(policy, process_defaults_apply_where_no_range)
{
	struct svmtune_process_policy pp = { 0 };
	struct svmtune_range_policy p;

	pp.set = SVMTUNE_POLICY_GRANULARITY | SVMTUNE_POLICY_ACCESS;
	pp.granularity = 18;
	pp.access = SVMTUNE_ACCESS_REMOTE;
	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));
	memset(&pp, 0, sizeof(pp));
	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp));
	EXPECT_EQ(18, pp.granularity);
	EXPECT_EQ(SVMTUNE_ACCESS_REMOTE, pp.access);
	EXPECT_EQ(SVMTUNE_LOC_UNSET, pp.preferred_loc);

	ASSERT_EQ(0, get_policy(self->fd, self->buf, self->size, &p));
	EXPECT_EQ(18, p.eff_granularity);
	EXPECT_EQ(SVMTUNE_ACCESS_REMOTE, p.eff_access);
	/* A range setting overrides the process default. */
	ASSERT_EQ(0, svmtune_set_policy(self->fd, self->buf, PAGE,
					SVMTUNE_POLICY_GRANULARITY, 13, 0, 0));
	ASSERT_EQ(0, get_policy(self->fd, self->buf, PAGE, &p));
	EXPECT_EQ(13, p.eff_granularity);
	EXPECT_EQ(SVMTUNE_ACCESS_REMOTE, p.eff_access);
}

TEST_F(policy, bad_spans_einval)
{
	uint32_t g = SVMTUNE_POLICY_GRANULARITY;

	EXPECT_EQ(-EINVAL, svmtune_set_policy(self->fd, self->buf + 1, PAGE, g,
					      16, 0, 0));
	EXPECT_EQ(-EINVAL, svmtune_set_policy(self->fd, self->buf, PAGE + 1, g,
					      16, 0, 0));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, 0, g, 16, 0, 0));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, (void *)(uintptr_t)-PAGE,
				     2 * PAGE, g, 16, 0, 0));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, -PAGE, g, 16, 0, 0));
	EXPECT_EQ(-EINVAL, svmtune_set_policy(self->fd, (void *)(1UL << 62),
					      PAGE, g, 16, 0, 0));
}

TEST_F(policy, unmapped_span_efault)
{
	ASSERT_EQ(0, munmap(self->buf + 4 * MIB, PAGE));
	EXPECT_EQ(-EFAULT,
		  svmtune_set_policy(self->fd, self->buf, self->size,
				     SVMTUNE_POLICY_GRANULARITY, 16, 0, 0));
	/* Nothing was set on the mapped parts either. */
	{
		struct svmtune_range_policy p;

		ASSERT_EQ(0, get_policy(self->fd, self->buf, PAGE, &p));
		EXPECT_EQ(SVMTUNE_GRANULARITY_UNSET, p.granularity);
	}
}

TEST_F(policy, bad_policy_values_einval)
{
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, PAGE, 0, 16, 0, 0));
	EXPECT_EQ(-EINVAL, svmtune_set_policy(self->fd, self->buf, PAGE,
					      1u << 5, 16, 0, 0));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, PAGE,
				     SVMTUNE_POLICY_GRANULARITY, 11, 0, 0));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, PAGE,
				     SVMTUNE_POLICY_GRANULARITY, 31, 0, 0));
	EXPECT_EQ(-EINVAL, svmtune_set_policy(self->fd, self->buf, PAGE,
					      SVMTUNE_POLICY_ACCESS, 0, 0, 4));
	EXPECT_EQ(-EINVAL,
		  svmtune_set_policy(self->fd, self->buf, PAGE,
				     SVMTUNE_POLICY_PREFERRED_LOC, 0, 65, 0));
	/* A device id nobody registered. */
	EXPECT_EQ(-ENODEV,
		  svmtune_set_policy(self->fd, self->buf, PAGE,
				     SVMTUNE_POLICY_PREFERRED_LOC, 0, 64, 0));
}

TEST_F(policy, nonzero_flags_and_reserved_einval)
{
	struct svmtune_range_policy p;
	struct svmtune_process_policy pp;

	memset(&p, 0, sizeof(p));
	p.start = (uintptr_t)self->buf;
	p.size = PAGE;
	p.set = SVMTUNE_POLICY_GRANULARITY;
	p.granularity = 16;
	p.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.flags = 0;
	p.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.reserved = 0;
	p.eff_access = 1; /* an output field on input */
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.eff_access = 0;
	/* GET with a SET field. */
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);

	memset(&pp, 0, sizeof(pp));
	pp.set = SVMTUNE_POLICY_GRANULARITY;
	pp.granularity = 16;
	pp.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));
	EXPECT_EQ(EINVAL, errno);
}

static int set_policy_on_init(void)
{
	struct svmtune_process_policy pp = { 0 };
	int fd = open(SVMTUNE_DEV, O_RDWR);

	if (fd < 0)
		return 1;
	pp.pid = 1;
	pp.set = SVMTUNE_POLICY_GRANULARITY;
	pp.granularity = 16;
	if (!ioctl(fd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp))
		return 2;
	if (errno != EPERM)
		return 3;
	/* The own pid is the own address space: allowed. */
	pp.pid = getpid();
	if (ioctl(fd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp))
		return 4;
	return 0;
}

/* A pid below pid_max that no process has. */
static uint32_t free_pid(void)
{
	char path[64];
	uint32_t pid;
	FILE *f;

	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (!f || fscanf(f, "%u", &pid) != 1)
		pid = 32768;
	if (f)
		fclose(f);
	for (pid--; pid > 300; pid--) {
		snprintf(path, sizeof(path), "/proc/%u", pid);
		if (access(path, F_OK))
			return pid;
	}
	return 0;
}

TEST_F(policy, foreign_process_needs_ptrace_access)
{
	struct svmtune_process_policy pp = { 0 };

	if (geteuid() != 0)
		SKIP(return, "needs root to switch to uid %d",
			   UNPRIVILEGED_UID);
	EXPECT_EQ(0, svmtune_run_unprivileged(set_policy_on_init));
	/* Root (CAP_SYS_PTRACE) may; a pid that does not exist is ESRCH. */
	pp.pid = 1;
	EXPECT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp));
	memset(&pp, 0, sizeof(pp));
	pp.pid = 0x80000000u; /* not a pid_t */
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp));
	EXPECT_EQ(EINVAL, errno);
	memset(&pp, 0, sizeof(pp));
	pp.pid = free_pid();
	ASSERT_NE(0, pp.pid);
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp));
	EXPECT_EQ(ESRCH, errno);
}

TEST_F(policy, stats_and_device_queries_validate)
{
	struct svmtune_device_info di;
	struct svmtune_stats st;

	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_PROCESS;
	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	st.scope = 0;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.scope = SVMTUNE_STATS_PROCESS;
	st.addr = 4096;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_RANGE;
	st.addr = (uintptr_t)self->buf;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(ENOENT, errno);
	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_DEVICE;
	st.id = 64;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(ENODEV, errno);

	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_PROCESS;
	st.reserved[0] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.reserved[0] = 0;
	st.counters.gpu_faults = 1; /* an output field on input */
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.counters.gpu_faults = 0;
	st.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);

	memset(&di, 0, sizeof(di));
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_DEVICE, &di));
	EXPECT_EQ(EINVAL, errno);
	di.id = 64;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_DEVICE, &di));
	EXPECT_EQ(ENODEV, errno);
	di.id = 65;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_GET_DEVICE, &di));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(policy, sysfs_granularity_accepts_sizes)
{
	static const char *const good[][2] = {
		{ "4K", "4K\n" }, { "64K", "64K\n" },	{ "2M\n", "2M\n" },
		{ "1G", "1G\n" }, { "65536", "64K\n" }, { "512m", "512M\n" },
	};
	char buf[32];
	unsigned int i;

	if (geteuid() != 0)
		SKIP(return, "writing knobs needs root");
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, svmtune_write_sysfs("granularity", good[i][0]));
		ASSERT_EQ(0,
			  svmtune_read_sysfs("granularity", buf, sizeof(buf)));
		EXPECT_STREQ(good[i][1], buf);
	}
}

TEST_F(policy, sysfs_bad_values_refused_and_old_value_kept)
{
	static const char *const bad[] = {
		"\n", "3K",  "2K",   "2048", "2G",  "48K",
		"0",  "K",   "64KB", "64 K", "-4K", "99999999999999999999",
		"1T", "abc",
	};
	char buf[32];
	unsigned int i;

	if (geteuid() != 0)
		SKIP(return, "writing knobs needs root");
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "256K"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, svmtune_write_sysfs("granularity", bad[i]))
		TH_LOG("value '%s'", bad[i]);
		ASSERT_EQ(0,
			  svmtune_read_sysfs("granularity", buf, sizeof(buf)));
		EXPECT_STREQ("256K\n", buf);
	}
	EXPECT_EQ(-EINVAL, svmtune_write_sysfs("policy", "sometimes"));
	ASSERT_EQ(0, svmtune_read_sysfs("policy", buf, sizeof(buf)));
	EXPECT_STREQ(self->saved_policy, buf);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "adaptive"));
	ASSERT_EQ(0, svmtune_read_sysfs("policy", buf, sizeof(buf)));
	EXPECT_STREQ("adaptive\n", buf);
}

TEST_F(policy, sysfs_adaptive_bounds_stay_ordered)
{
	char buf[32];

	if (geteuid() != 0)
		SKIP(return, "writing knobs needs root");
	ASSERT_EQ(0, svmtune_write_sysfs("adaptive_min_granularity", "4K"));
	ASSERT_EQ(0, svmtune_write_sysfs("adaptive_max_granularity", "2M"));
	EXPECT_EQ(-EINVAL,
		  svmtune_write_sysfs("adaptive_min_granularity", "4M"));
	EXPECT_EQ(-EINVAL,
		  svmtune_write_sysfs("adaptive_max_granularity", "2K"));
	ASSERT_EQ(0, svmtune_write_sysfs("adaptive_max_granularity", "64K"));
	EXPECT_EQ(-EINVAL,
		  svmtune_write_sysfs("adaptive_min_granularity", "128K"));
	ASSERT_EQ(0, svmtune_read_sysfs("adaptive_min_granularity", buf,
					sizeof(buf)));
	EXPECT_STREQ("4K\n", buf);
	ASSERT_EQ(0, svmtune_write_sysfs("adaptive_max_granularity", "2M"));
}

static int write_knob_unprivileged(void)
{
	static const char *const knobs[] = {
		"granularity",
		"policy",
		"adaptive_min_granularity",
		"adaptive_max_granularity",
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
	char path[128];
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), SVMTUNE_SYSFS "/%s", knobs[i]);
		fd = open(path, O_WRONLY);
		if (fd >= 0)
			return 1;
		if (errno != EACCES)
			return 2;
	}
	return 0;
}

/* The thrashing knobs take their documented values and refuse the rest. */
TEST_F(policy, sysfs_thrashing_knobs_validated)
{
	static const char *const modes[] = { "off", "detect", "throttle",
					     "remote" };
	static const struct {
		const char *knob, *good, *bad[6];
	} nums[] = {
		{ "thrashing_threshold",
		  "7",
		  { "0", "256", "-1", "3x", "99999999999", "\n" } },
		{ "thrashing_lapse_us",
		  "1000000",
		  { "0", "1000001", "-5", "1e3", " ", "0x10" } },
		{ "thrashing_pin_ms",
		  "60000",
		  { "0", "60001", "4294967296", "ms", "1.5", "+" } },
		{ "thrashing_throttle_us",
		  "100000",
		  { "0", "100001", "-1", "1ms", "0x1", "\n" } },
		{ "thrashing_pin_threshold",
		  "0",
		  { "256", "-1", "3 ", "0x3", "1e2", "+" } },
	};
	char buf[32];
	unsigned int i, j;

	if (geteuid() != 0)
		SKIP(return, "sets global knobs: needs root");
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		ASSERT_EQ(0, svmtune_write_sysfs("thrashing", modes[i]));
		ASSERT_EQ(0, svmtune_read_sysfs("thrashing", buf, sizeof(buf)));
		EXPECT_EQ(0, strncmp(buf, modes[i], strlen(modes[i])));
	}
	EXPECT_EQ(-EINVAL, svmtune_write_sysfs("thrashing", "pin"));
	EXPECT_EQ(-EINVAL, svmtune_write_sysfs("thrashing", "remote "));
	EXPECT_EQ(-EINVAL, svmtune_write_sysfs("thrashing", "\n"));
	ASSERT_EQ(0, svmtune_read_sysfs("thrashing", buf, sizeof(buf)));
	EXPECT_STREQ("remote\n", buf);

	for (i = 0; i < ARRAY_SIZE(nums); i++) {
		ASSERT_EQ(0, svmtune_write_sysfs(nums[i].knob, nums[i].good));
		for (j = 0; j < ARRAY_SIZE(nums[i].bad); j++) {
			EXPECT_EQ(-EINVAL, svmtune_write_sysfs(nums[i].knob,
							       nums[i].bad[j]))
			TH_LOG("%s accepted bad value %u", nums[i].knob, j);
		}
		ASSERT_EQ(0,
			  svmtune_read_sysfs(nums[i].knob, buf, sizeof(buf)));
		EXPECT_EQ(0, strncmp(buf, nums[i].good, strlen(nums[i].good)));
		EXPECT_EQ('\n', buf[strlen(nums[i].good)]);
	}
}

TEST_F(policy, sysfs_knobs_root_only)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch to uid %d",
			   UNPRIVILEGED_UID);
	EXPECT_EQ(0, svmtune_run_unprivileged(write_knob_unprivileged));
}

TEST_HARNESS_MAIN
