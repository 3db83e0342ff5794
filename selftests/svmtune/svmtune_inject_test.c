// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures injected (the kernel's failslab and fail_page_alloc,
 * for this test's child only) while it drives the emulated GPU and the
 * policy engine: GPU reads, migrations both ways, policy changes. Every
 * call must succeed or fail with a clean errno (ENOMEM, or EFAULT where a
 * user copy could not allocate), and once injection stops every byte must
 * still be what it was, read by the CPU and by the GPU; device memory must
 * be free again after the child exits, and kmemleak (make check scans after
 * the run) must find nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

#define EMU_DEV "/dev/svmtune_emu0"
#define DEBUGFS "/sys/kernel/debug"
#define PAGE 4096UL
#define SIZE (4UL << 20)
#define ROUNDS 300

/*
 * Set up @attr (failslab or fail_page_alloc) to fail @percent of the
 * allocations of tasks that asked for it, sleeping ones and order-0 pages
 * included, without a stack trace in the log for each.
 */
static int inject_setup(const char *attr, const char *percent)
{
	static const char *const common[][2] = {
		{ "task-filter", "Y" }, { "interval", "1" },
		{ "times", "-1" },	{ "space", "0" },
		{ "verbose", "0" },	{ "ignore-gfp-wait", "N" },
	};
	char path[128];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(common); i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr,
			 common[i][0]);
		ret = svmtune_write_file(path, common[i][1]);
		if (ret)
			return ret;
	}
	if (!strcmp(attr, "fail_page_alloc")) {
		/* User pages are highmem-capable (GFP_HIGHUSER): include them. */
		ret = svmtune_write_file(
			DEBUGFS "/fail_page_alloc/ignore-gfp-highmem", "N");
		if (!ret)
			ret = svmtune_write_file(
				DEBUGFS "/fail_page_alloc/min-order", "0");
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), DEBUGFS "/%s/probability", attr);
	return svmtune_write_file(path, percent);
}

static void inject_off(const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/probability", attr);
	svmtune_write_file(path, "0");
}

static unsigned char pattern(unsigned long i)
{
	return (unsigned char)(i * 31 + (i >> 12));
}

/*
 * The child: injection on for itself only; ROUNDS random GPU reads,
 * migrations and policy changes; then injection off and every byte
 * checked. Exit status: 0, or what went wrong.
 */
static int child(unsigned int seed)
{
	unsigned long i, errs[4] = { 0 }, ok = 0;
	struct svmtune_emu_migrate m;
	struct svmtune_emu_access a;
	unsigned char *buf, *out;
	int ctl, gpu, r, ret;

	ctl = open(SVMTUNE_DEV, O_RDWR);
	gpu = open(EMU_DEV, O_RDWR);
	buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	out = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctl < 0 || gpu < 0 || buf == MAP_FAILED || out == MAP_FAILED)
		return 10;
	for (i = 0; i < SIZE; i++)
		buf[i] = pattern(i);
	memset(out, 0, SIZE);
	srand(seed);
	if (svmtune_write_file("/proc/self/make-it-fail", "1"))
		return 11;

	for (r = 0; r < ROUNDS; r++) {
		unsigned long off = (rand() % (SIZE / PAGE)) * PAGE;
		unsigned long len = (1 + rand() % ((SIZE - off) / PAGE)) * PAGE;

		switch (rand() % 4) {
		case 0:
			memset(&a, 0, sizeof(a));
			a.addr = (uintptr_t)buf + off;
			a.size = len;
			a.ptr = (uintptr_t)out + off;
			a.op = SVMTUNE_EMU_READ;
			ret = ioctl(gpu, SVMTUNE_EMU_IOC_ACCESS, &a) ? errno :
								       0;
			if (!ret && memcmp(out + off, buf + off, len))
				return 20;
			break;
		case 1:
		case 2:
			memset(&m, 0, sizeof(m));
			m.addr = (uintptr_t)buf + off;
			m.size = len;
			m.dest = r % 2 ? SVMTUNE_EMU_TO_DEVICE :
					 SVMTUNE_EMU_TO_SYSTEM;
			ret = ioctl(gpu, SVMTUNE_EMU_IOC_MIGRATE, &m) ? errno :
									0;
			break;
		default:
			ret = -svmtune_set_policy(ctl, buf + off, len,
						  SVMTUNE_POLICY_GRANULARITY,
						  12 + rand() % 10, 0, 0);
			break;
		}
		if (!ret)
			ok++;
		else if (ret == ENOMEM)
			errs[0]++;
		else if (ret == EFAULT)
			errs[1]++;
		else {
			fprintf(stderr, "# round %d: unexpected %s\n", r,
				strerror(ret));
			return 21;
		}
	}
	/*
	 * The write that turns injection off allocates too, and may itself
	 * be failed (ENOMEM, one time in ten for failslab): try again.
	 */
	for (r = 0; svmtune_write_file("/proc/self/make-it-fail", "0"); r++)
		if (r == 1000)
			return 12;
	printf("# %d rounds: %lu succeeded, %lu ENOMEM, %lu EFAULT\n", ROUNDS,
	       ok, errs[0], errs[1]);

	/* Every byte, by the GPU (all of it) and by the CPU. */
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf;
	a.size = SIZE;
	a.ptr = (uintptr_t)out;
	a.op = SVMTUNE_EMU_READ;
	if (ioctl(gpu, SVMTUNE_EMU_IOC_ACCESS, &a))
		return 30;
	for (i = 0; i < SIZE; i++)
		if (out[i] != pattern(i) || buf[i] != pattern(i)) {
			fprintf(stderr,
				"# byte %lu lost: GPU %#x, CPU %#x, want %#x\n",
				i, out[i], buf[i], pattern(i));
			return 31;
		}
	return 0;
}

static void run_injected(struct __test_metadata *_metadata, const char *attr,
			 const char *percent)
{
	__u64 free_before;
	char dir[128];
	int ctl, status;
	pid_t pid;

	snprintf(dir, sizeof(dir), DEBUGFS "/%s", attr);
	if (access(dir, F_OK))
		SKIP(return, "no %s: debugfs not mounted or no fault injection",
			   dir);
	ctl = open(SVMTUNE_DEV, O_RDWR);
	ASSERT_LE(0, ctl);
	free_before = svmtune_device_free_bytes(
		ctl, svmtune_device_id(ctl, "svmtune_emu0"));
	ASSERT_LT(0, free_before);
	/*
	 * The kernel prints a stack trace for every allocation that fails
	 * without __GFP_NOWARN; tools/testvm/run excuses those, and only
	 * those, between these two lines.
	 */
	ASSERT_EQ(0, svmtune_write_file("/dev/kmsg",
					"svmtune-fault-injection: on"));
	ASSERT_EQ(0, inject_setup(attr, percent));
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(child(getpid()));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	inject_off(attr);
	ASSERT_EQ(0, svmtune_write_file("/dev/kmsg",
					"svmtune-fault-injection: off"));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The child's device pages are freed with its address space. */
	EXPECT_EQ(free_before,
		  svmtune_device_free_bytes(
			  ctl, svmtune_device_id(ctl, "svmtune_emu0")));
	close(ctl);
}

TEST(failslab_loses_no_byte)
{
	run_injected(_metadata, "failslab", "10");
}

TEST(fail_page_alloc_loses_no_byte)
{
	run_injected(_metadata, "fail_page_alloc", "20");
}

TEST_HARNESS_MAIN
