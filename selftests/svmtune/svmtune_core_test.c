// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the svmtune core module: device node, version ioctl, ioctl
 * argument validation, sysfs files and their permissions.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/svmtune.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

/* SVMTUNE_IOC_VERSION with a caller-chosen struct size. */
#define VERSION_CMD_SIZED(size) \
	_IOC(_IOC_READ | _IOC_WRITE, SVMTUNE_IOC_MAGIC, 0x00, (size))

FIXTURE(dev)
{
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0)
	TH_LOG("open %s: %s", SVMTUNE_DEV, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST(devnode_is_char_device_rw_for_all)
{
	struct stat st;

	ASSERT_EQ(0, stat(SVMTUNE_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	/* Anyone may query and set policy on their own mm: 0666, root-owned. */
	EXPECT_EQ(0666, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
}

TEST_F(dev, version_reports_header_version)
{
	struct svmtune_version ver;

	memset(&ver, 0, sizeof(ver));
	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
	EXPECT_EQ(SVMTUNE_VERSION_MAJOR, ver.major);
	EXPECT_EQ(SVMTUNE_VERSION_MINOR, ver.minor);
	EXPECT_EQ(SVMTUNE_VERSION_PATCH, ver.patch);
	EXPECT_EQ(0, ver.flags);
	EXPECT_EQ(0, ver.reserved[0]);
	EXPECT_EQ(0, ver.reserved[1]);
	EXPECT_EQ(SVMTUNE_FEATURE_RANGE_POLICY | SVMTUNE_FEATURE_STATS |
			  SVMTUNE_FEATURE_DEVICES | SVMTUNE_FEATURE_PREFETCH |
			  SVMTUNE_FEATURE_TLB_COUNTERS |
			  SVMTUNE_FEATURE_THRASHING | SVMTUNE_FEATURE_FRAGMENT,
		  ver.features & ~SVMTUNE_FEATURE_BPF);
}

/* The BPF feature bit is set exactly where sysfs says "available". */
TEST_F(dev, bpf_feature_bit_matches_sysfs)
{
	struct svmtune_version ver = { 0 };
	char buf[256];

	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
	ASSERT_EQ(0, svmtune_read_sysfs("bpf/state", buf, sizeof(buf)));
	EXPECT_EQ(!strcmp(buf, "available\n"),
		  !!(ver.features & SVMTUNE_FEATURE_BPF))
	TH_LOG("state: %s", buf);
	if (strcmp(buf, "available\n"))
		EXPECT_EQ(0, strncmp(buf, "unavailable: ", 13))
	TH_LOG("state: %s", buf);
}

TEST_F(dev, version_matches_sysfs)
{
	struct svmtune_version ver = { 0 };
	char buf[64], want[64];

	ASSERT_EQ(0, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
	ASSERT_EQ(0, svmtune_read_sysfs("version", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%u.%u.%u\n", ver.major, ver.minor,
		 ver.patch);
	EXPECT_STREQ(want, buf);
}

TEST_F(dev, version_nonzero_flags_einval)
{
	struct svmtune_version ver = { .flags = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
	EXPECT_EQ(EINVAL, errno);
	ver.flags = 0x80000000u;
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, version_nonzero_reserved_einval)
{
	struct svmtune_version ver;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		memset(&ver, 0, sizeof(ver));
		ver.reserved[i] = 1ULL << 63;
		EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_VERSION, &ver));
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(dev, version_short_struct_einval)
{
	struct svmtune_version ver = { 0 };

	EXPECT_EQ(-1, ioctl(self->fd, VERSION_CMD_SIZED(8), &ver));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1,
		  ioctl(self->fd, VERSION_CMD_SIZED(sizeof(ver) - 8), &ver));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, VERSION_CMD_SIZED(0), &ver));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, version_longer_struct_zero_tail_accepted)
{
	struct {
		struct svmtune_version ver;
		uint64_t tail[4];
	} big;

	memset(&big, 0, sizeof(big));
	ASSERT_EQ(0, ioctl(self->fd, VERSION_CMD_SIZED(sizeof(big)), &big));
	EXPECT_EQ(SVMTUNE_VERSION_MAJOR, big.ver.major);
	EXPECT_EQ(SVMTUNE_VERSION_MINOR, big.ver.minor);
	/* The kernel must not write past the struct it knows. */
	EXPECT_EQ(0, big.tail[0] | big.tail[1] | big.tail[2] | big.tail[3]);
}

TEST_F(dev, version_longer_struct_nonzero_tail_e2big)
{
	struct {
		struct svmtune_version ver;
		uint64_t tail[4];
	} big;

	memset(&big, 0, sizeof(big));
	big.tail[3] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, VERSION_CMD_SIZED(sizeof(big)), &big));
	EXPECT_EQ(E2BIG, errno);
}

TEST_F(dev, unknown_command_number_enotty)
{
	struct svmtune_version ver = { 0 };
	unsigned int nr;

	/* 0x00 to 0x06 are defined; every other number is unknown. */
	for (nr = 0x07; nr < 256; nr++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd,
				    _IOC(_IOC_READ | _IOC_WRITE,
					 SVMTUNE_IOC_MAGIC, nr, sizeof(ver)),
				    &ver));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("command number %u", nr);
	}
}

TEST_F(dev, wrong_type_enotty)
{
	struct svmtune_version ver = { 0 };

	EXPECT_EQ(-1, ioctl(self->fd, _IOWR('x', 0x00, struct svmtune_version),
			    &ver));
	EXPECT_EQ(ENOTTY, errno);
	/* A terminal ioctl on a non-terminal device. */
	EXPECT_EQ(-1, ioctl(self->fd, TIOCGWINSZ, &ver));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, wrong_direction_enotty)
{
	struct svmtune_version ver = { 0 };

	EXPECT_EQ(-1,
		  ioctl(self->fd,
			_IOR(SVMTUNE_IOC_MAGIC, 0x00, struct svmtune_version),
			&ver));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1,
		  ioctl(self->fd,
			_IOW(SVMTUNE_IOC_MAGIC, 0x00, struct svmtune_version),
			&ver));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(SVMTUNE_IOC_MAGIC, 0x00), &ver));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, bad_user_pointer_efault)
{
	void *none;

	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);

	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	EXPECT_EQ(-1, ioctl(self->fd, SVMTUNE_IOC_VERSION, none));
	EXPECT_EQ(EFAULT, errno);
	munmap(none, 4096);
}

TEST_F(dev, read_and_write_unsupported)
{
	char buf[8] = { 0 };

	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

static int sysfs_bad_modes;

static int check_sysfs_mode(const char *path, const struct stat *st, int type,
			    struct FTW *ftw)
{
	if (type == FTW_F && (st->st_mode & 0022)) {
		fprintf(stderr, "# %s has mode %o\n", path,
			st->st_mode & 07777);
		sysfs_bad_modes++;
	}
	return 0;
}

TEST(sysfs_never_group_or_world_writable)
{
	sysfs_bad_modes = 0;
	ASSERT_EQ(0, nftw(SVMTUNE_SYSFS, check_sysfs_mode, 16, FTW_PHYS));
	EXPECT_EQ(0, sysfs_bad_modes);
}

TEST(sysfs_version_is_read_only)
{
	struct stat st;

	ASSERT_EQ(0, stat(SVMTUNE_SYSFS "/version", &st));
	EXPECT_EQ(0444, st.st_mode & 07777);
	/* Even root cannot open a file that has no store method for writing. */
	EXPECT_EQ(-1, open(SVMTUNE_SYSFS "/version", O_WRONLY));
	EXPECT_EQ(EACCES, errno);
}

static int query_version_unprivileged(void)
{
	struct svmtune_version ver = { 0 };
	int fd;

	fd = open(SVMTUNE_DEV, O_RDWR);
	if (fd < 0)
		return 1;
	if (ioctl(fd, SVMTUNE_IOC_VERSION, &ver))
		return 2;
	if (ver.major != SVMTUNE_VERSION_MAJOR ||
	    ver.minor != SVMTUNE_VERSION_MINOR)
		return 3;
	close(fd);
	return 0;
}

TEST(unprivileged_user_can_query_version)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch to uid %d",
			   UNPRIVILEGED_UID);
	EXPECT_EQ(0, svmtune_run_unprivileged(query_version_unprivileged));
}

static int write_sysfs_unprivileged(void)
{
	int fd = open(SVMTUNE_SYSFS "/version", O_WRONLY);

	if (fd >= 0)
		return 1;
	return errno == EACCES ? 0 : 2;
}

TEST(unprivileged_user_cannot_write_sysfs)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to switch to uid %d",
			   UNPRIVILEGED_UID);
	EXPECT_EQ(0, svmtune_run_unprivileged(write_sysfs_unprivileged));
}

TEST_HARNESS_MAIN
