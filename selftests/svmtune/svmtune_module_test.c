// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of loading and unloading svmtune.ko: the module must refuse to go
 * while its device is open, and must remove and recreate its device node
 * and sysfs directory cleanly on unload and reload. Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/svmtune.h>

#include "kselftest_harness.h"

#define SVMTUNE_DEV	"/dev/svmtune"
#define SVMTUNE_SYSFS	"/sys/kernel/svmtune"

/* svmtune's backends use it: they go first. */
static int unload_svmtune(void)
{
	if (syscall(SYS_delete_module, "svmtune_emu", O_NONBLOCK) && errno != ENOENT)
		return -1;
	return syscall(SYS_delete_module, "svmtune", O_NONBLOCK);
}

static int version_ok(void)
{
	struct svmtune_version ver = { 0 };
	int fd, ret;

	fd = open(SVMTUNE_DEV, O_RDWR);
	if (fd < 0)
		return 0;
	ret = ioctl(fd, SVMTUNE_IOC_VERSION, &ver);
	close(fd);
	return ret == 0 && ver.major == SVMTUNE_VERSION_MAJOR;
}

FIXTURE(module)
{
	int unused;
};

FIXTURE_SETUP(module)
{
	if (geteuid() != 0)
		SKIP(return, "loading and unloading modules needs root");
	/* Every test starts and ends with the modules loaded. */
	ASSERT_EQ(0, system("modprobe svmtune_emu"));
	ASSERT_TRUE(version_ok());
}

FIXTURE_TEARDOWN(module)
{
	if (geteuid() == 0)
		EXPECT_EQ(0, system("modprobe svmtune_emu"));
}

TEST_F(module, unload_refused_while_device_open)
{
	int fd = open(SVMTUNE_DEV, O_RDWR);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, unload_svmtune());
	EXPECT_EQ(EWOULDBLOCK, errno);
	/* Still fully working. */
	EXPECT_TRUE(version_ok());
	close(fd);
}

TEST_F(module, unload_removes_device_and_sysfs)
{
	struct stat st;

	ASSERT_EQ(0, unload_svmtune()) TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(-1, stat(SVMTUNE_DEV, &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, stat(SVMTUNE_SYSFS, &st));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(module, reload_cycles_restore_everything)
{
	struct stat st;
	int i;

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, unload_svmtune()) TH_LOG("cycle %d: %s", i, strerror(errno));
		ASSERT_EQ(0, system("modprobe svmtune_emu"));
		ASSERT_EQ(0, stat(SVMTUNE_SYSFS "/version", &st));
		ASSERT_EQ(0, stat("/dev/svmtune_emu0", &st));
		ASSERT_TRUE(version_ok());
	}
}

TEST_HARNESS_MAIN
