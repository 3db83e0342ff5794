// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of loading and unloading svmtune.ko: the module must refuse to go
 * while its device is open, and must remove and recreate its device node
 * and sysfs directory cleanly on unload and reload. Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stdint.h>
#include <sys/mman.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"
#include "svmtune_reclaim_util.h"

/* svmtune's backends use it: they go first. */
static int unload_svmtune(void)
{
	if (syscall(SYS_delete_module, "svmtune_emu", O_NONBLOCK) &&
	    errno != ENOENT)
		return -1;
	if (syscall(SYS_delete_module, "svmtune_kfd", O_NONBLOCK) &&
	    errno != ENOENT)
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

/*
 * Unload the emulated GPU. A process that had it open holds it until its
 * exit has given back its device memory: wait for that, up to a minute
 * (a test the harness killed leaves its children exiting).
 */
static int unload_emu(void)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (!syscall(SYS_delete_module, "svmtune_emu", O_NONBLOCK))
			return 0;
		if (errno != EWOULDBLOCK && errno != EBUSY)
			return -1;
		usleep(100 * 1000);
	}
	return -1;
}

/* svmtune_emu's parameter @name as loaded, or -1. */
static long emu_param(const char *name)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), "/sys/module/svmtune_emu/parameters/%s",
		 name);
	if (svmtune_read_file(path, val, sizeof(val)))
		return -1;
	return strtol(val, NULL, 10);
}

FIXTURE(module)
{
	int unused;
};

FIXTURE_SETUP(module)
{
	if (geteuid() != 0) {
		SETUP_SKIP("loading and unloading modules needs root");
		return;
	}
	/*
	 * Every test starts and ends with the modules loaded, the emulated GPU
	 * with its defaults: one that another test left with its own (say, one
	 * the harness killed at its timeout) is reloaded.
	 */
	if (access("/sys/module/svmtune_emu", F_OK) == 0 &&
	    (emu_param("ndevices") != 1 || emu_param("vram_mb") != 64 ||
	     emu_param("passthrough_window") != 0)) {
		TH_LOG("svmtune_emu left with other parameters: reloading it");
		ASSERT_EQ(0, unload_emu());
	}
	ASSERT_EQ(0, system("modprobe svmtune_emu"));
	ASSERT_TRUE(version_ok());
}

FIXTURE_TEARDOWN(module)
{
	if (geteuid() != 0)
		return;
	EXPECT_EQ(0, system("modprobe svmtune_emu"));
	/* The KFD backend too, where it was built and amdgpu is there. */
	if (access("/sys/module/amdgpu", F_OK) == 0 &&
	    system("modinfo svmtune_kfd >/dev/null 2>&1") == 0)
		EXPECT_EQ(0, system("modprobe svmtune_kfd"));
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

	ASSERT_EQ(0, unload_svmtune())
	TH_LOG("delete_module: %s", strerror(errno));
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
		ASSERT_EQ(0, unload_svmtune())
		TH_LOG("cycle %d: %s", i, strerror(errno));
		ASSERT_EQ(0, system("modprobe svmtune_emu"));
		ASSERT_EQ(0, stat(SVMTUNE_SYSFS "/version", &st));
		ASSERT_EQ(0, stat("/dev/svmtune_emu0", &st));
		ASSERT_TRUE(version_ok());
	}
}

/* What a racer may see of svmtune while it is unloaded and loaded again. */
static int gone_errno(int e)
{
	return e == ENOENT || e == ENODEV || e == ENXIO;
}

/*
 * One process racing svmtune's unload: open /dev/svmtune, set a policy on
 * its own buffer (which gives its address space the engine's state, with
 * an mmu notifier), read stats, close; read sysfs; and now and then fork
 * a child that does the same and exits at once, so that an address space
 * with engine state dies while the module goes. Returns 0, or 1 on an
 * errno other than "svmtune is not there" or a wrong answer.
 */
static int unload_racer(int *shared, unsigned int seed)
{
	unsigned long size = 2UL << 20;
	char buf[256];

	while (!__atomic_load_n(&shared[0], __ATOMIC_RELAXED)) {
		struct svmtune_version ver = { 0 };
		struct svmtune_stats st = { 0 };
		int fd, status, ret = 0;
		bool forked;
		void *mem;
		pid_t pid = -1;

		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return 1;
		forked = rand_r(&seed) % 8 == 0;
		if (forked) {
			pid = fork();
			if (pid < 0)
				return 1;
		}
		fd = open(SVMTUNE_DEV, O_RDWR);
		if (fd < 0 && !gone_errno(errno))
			ret = 1;
		/* Opens that found svmtune, and that found it gone. */
		__atomic_fetch_add(&shared[fd >= 0 ? 1 : 2], 1,
				   __ATOMIC_RELAXED);
		if (fd >= 0) {
			if (ioctl(fd, SVMTUNE_IOC_VERSION, &ver) ||
			    ver.major != SVMTUNE_VERSION_MAJOR)
				ret = 1;
			if (svmtune_set_policy(fd, mem, size,
					       SVMTUNE_POLICY_GRANULARITY, 16,
					       0, 0))
				ret = 1;
			st.scope = SVMTUNE_STATS_PROCESS;
			if (ioctl(fd, SVMTUNE_IOC_GET_STATS, &st))
				ret = 1;
			close(fd);
		}
		status = svmtune_read_sysfs("stats", buf, sizeof(buf));
		if (status && !gone_errno(-status))
			ret = 1;
		if (pid == 0)
			_exit(ret);
		if (pid > 0 && (waitpid(pid, &status, 0) != pid ||
				!WIFEXITED(status) || WEXITSTATUS(status)))
			ret = 1;
		munmap(mem, size);
		if (ret)
			return 1;
	}
	return 0;
}

/*
 * rmmod svmtune (its backends first) and modprobe it again, 20 times,
 * while four processes open, ioctl, read sysfs, fork and exit against it:
 * every unload must complete once the files close (the module refuses to
 * go while one is open), every racer sees either svmtune working or
 * svmtune absent, never another error; the kernel log (KASAN, lockdep)
 * says the rest. Unloading puts the engine state of live processes.
 */
TEST_F(module, unload_races_opens_ioctls_forks_and_exits)
{
	int *shared; /* stop; opens served; opens that found svmtune gone */
	int cycle, i, unloads = 0, tries, status;
	pid_t racers[4];

	shared = mmap(NULL, 3 * sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)shared);
	for (i = 0; i < 4; i++) {
		racers[i] = fork();
		ASSERT_GE(racers[i], 0);
		if (!racers[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(unload_racer(shared, 100 + i));
		}
	}
	for (cycle = 0; cycle < 20; cycle++) {
		int err = 0;

		/* Open files hold the module: retry until none is open. */
		for (tries = 0; tries < 10000; tries++) {
			if (!unload_svmtune()) {
				err = 0;
				break;
			}
			err = errno;
			if (err != EWOULDBLOCK && err != EBUSY)
				break;
			usleep(200);
		}
		if (!err)
			unloads++;
		else
			TH_LOG("cycle %d: not unloaded after %d tries: %s",
			       cycle, tries, strerror(err));
		EXPECT_EQ(0, system("modprobe svmtune_emu"));
	}
	__atomic_store_n(&shared[0], 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(racers[i], waitpid(racers[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("racer %d: status 0x%x", i, status);
	}
	TH_LOG("%d of 20 unloads completed under the racers; %d opens served, %d found svmtune gone",
	       unloads, shared[1], shared[2]);
	EXPECT_EQ(20, unloads);
	/* A race, not a turn-taking: the racers met svmtune both ways. */
	EXPECT_LT(0, shared[1]);
	EXPECT_LT(0, shared[2]);
	EXPECT_TRUE(version_ok());
	munmap(shared, 3 * sizeof(*shared));
}

TEST_F(module, emu_parameters_validated)
{
	static const char *const bad[] = {
		"vram_mb=2",  "vram_mb=1025", "vram_mb=abc", "vram_mb=-1",
		"ndevices=0", "ndevices=5",   "ndevices=1x",
	};
	char cmd[128], buf[32];
	struct stat st;
	unsigned int i;
	int fd;

	ASSERT_EQ(0, unload_emu()) TH_LOG("delete_module: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(cmd, sizeof(cmd),
			 "modprobe svmtune_emu %s 2>/dev/null", bad[i]);
		EXPECT_NE(0, system(cmd)) TH_LOG("%s was accepted", bad[i]);
		EXPECT_EQ(-1, stat("/dev/svmtune_emu0", &st));
	}
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=2 vram_mb=8"));
	EXPECT_EQ(0, stat("/dev/svmtune_emu1", &st));
	fd = open("/sys/module/svmtune_emu/parameters/vram_mb", O_RDONLY);
	ASSERT_GE(fd, 0);
	memset(buf, 0, sizeof(buf));
	EXPECT_LT(0, read(fd, buf, sizeof(buf) - 1));
	EXPECT_STREQ("8\n", buf);
	close(fd);
	ASSERT_EQ(0, unload_emu());
}

/*
 * The emulated GPU's parameters, given to finit_module() directly so the
 * errno is seen: out of range, not decimal, overflowing, empty, missing.
 * Every refused load leaves no device behind; a leading zero is decimal.
 * (An unknown parameter is the kernel's business: it logs and ignores it.)
 */
TEST_F(module, emu_parameters_errno)
{
	static const struct {
		const char *params;
		int err;
	} cases[] = {
		{ "vram_mb=3", EINVAL },
		{ "vram_mb=1025", EINVAL },
		{ "vram_mb=0x40", EINVAL },
		{ "vram_mb=-4", EINVAL },
		{ "vram_mb=", EINVAL },
		{ "vram_mb=4294967300", EINVAL },
		{ "vram_mb=64M", EINVAL },
		{ "ndevices=0", EINVAL },
		{ "ndevices=5", EINVAL },
		{ "ndevices=2.0", EINVAL },
		{ "vram_mb", EINVAL },
		{ "tlb_entries=0", EINVAL },
		{ "tlb_entries=4097", EINVAL },
		{ "tlb_max_fragment=11", EINVAL },
		{ "tlb_max_fragment=31", EINVAL },
		{ "passthrough_window=11", EINVAL },
		{ "passthrough_window=22", EINVAL },
		{ "passthrough_window=0x10", EINVAL },
		{ "passthrough_window=-1", EINVAL },
	};
	char path[512], buf[32];
	struct utsname u;
	unsigned int i;
	struct stat st;
	int fd;

	ASSERT_EQ(0, uname(&u));
	snprintf(path, sizeof(path),
		 "/lib/modules/%s/updates/svmtune/svmtune_emu.ko", u.release);
	ASSERT_EQ(0, unload_emu());
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_EQ(-1, syscall(SYS_finit_module, fd, cases[i].params, 0))
		TH_LOG("%s was accepted", cases[i].params);
		EXPECT_EQ(cases[i].err, errno)
		TH_LOG("%s: %s", cases[i].params, strerror(errno));
		close(fd);
		EXPECT_EQ(-1, stat("/dev/svmtune_emu0", &st));
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "vram_mb=010", 0))
	TH_LOG("%s", strerror(errno));
	close(fd);
	fd = open("/sys/module/svmtune_emu/parameters/vram_mb", O_RDONLY);
	ASSERT_LE(0, fd);
	memset(buf, 0, sizeof(buf));
	EXPECT_LT(0, read(fd, buf, sizeof(buf) - 1));
	EXPECT_STREQ("10\n", buf);
	close(fd);
	ASSERT_EQ(0, unload_emu());
}

/* A GPU read of @size bytes at @buf into @data through @gpu. */
static int gpu_read(int gpu, char *buf, unsigned long size, char *data,
		    struct svmtune_emu_access *a)
{
	memset(a, 0, sizeof(*a));
	a->addr = (uintptr_t)buf;
	a->size = size;
	a->ptr = (uintptr_t)data;
	a->op = SVMTUNE_EMU_READ;
	return ioctl(gpu, SVMTUNE_EMU_IOC_ACCESS, a);
}

/* The engine's device counters of svmtune_emu0 (gpu_faults first). */
static int emu0_counters(int ctl, struct svmtune_counters *c)
{
	struct svmtune_stats st;

	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_DEVICE;
	st.id = svmtune_device_id(ctl, "svmtune_emu0");
	if (!st.id || ioctl(ctl, SVMTUNE_IOC_GET_STATS, &st))
		return -1;
	*c = st.counters;
	return 0;
}

/*
 * passthrough_window (make bench's engine-cost baseline): every GPU fault
 * takes the aligned window of that size, whatever the engine's knobs say
 * (2 MiB here), and the engine hears nothing: its device counters stay
 * where they were. The data is right both ways, and after a CPU fault
 * (same window back).
 */
TEST_F(module, passthrough_window_bypasses_the_engine)
{
	struct svmtune_counters before, after;
	struct svmtune_emu_access a;
	const unsigned long size = 1 << 20;
	char *map, *buf, *data;
	unsigned long i;
	int ctl, gpu;

	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(
		0,
		system("modprobe svmtune_emu vram_mb=8 passthrough_window=16"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	ctl = open(SVMTUNE_DEV, O_RDWR);
	gpu = open("/dev/svmtune_emu0", O_RDWR);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(gpu, 0);
	/* 64 KiB-aligned, so that the 16 windows are exactly the buffer. */
	map = mmap(NULL, size + (64 << 10), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	buf = (char *)(((uintptr_t)map + (64 << 10) - 1) & ~(uintptr_t)0xffff);
	data = malloc(size);
	ASSERT_NE(NULL, data);
	for (i = 0; i < size; i++)
		buf[i] = (char)(i * 7 + 1);
	ASSERT_EQ(0, emu0_counters(ctl, &before));

	ASSERT_EQ(0, gpu_read(gpu, buf, size, data, &a));
	/* A 64 KiB window per fault, not the engine's 2 MiB. */
	EXPECT_EQ(size / (64 << 10), a.faults);
	EXPECT_EQ(size / 4096, a.migrated);
	for (i = 0; i < size; i++)
		if (data[i] != (char)(i * 7 + 1))
			break;
	EXPECT_EQ(size, i);
	/* A CPU read takes its 64 KiB window back. */
	EXPECT_EQ((char)(100 * 7 + 1), buf[100]);
	ASSERT_EQ(0, gpu_read(gpu, buf, size, data, &a));
	EXPECT_EQ(1, a.faults);
	EXPECT_EQ(16, a.migrated);

	ASSERT_EQ(0, emu0_counters(ctl, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)))
	TH_LOG("the engine counted %llu GPU faults of a pass-through",
	       (unsigned long long)(after.gpu_faults - before.gpu_faults));
	munmap(map, size + (64 << 10));
	free(data);
	close(gpu);
	close(ctl);
	ASSERT_EQ(0, unload_emu());
}

TEST_F(module, preferred_other_device_maps_remote)
{
	struct svmtune_emu_access a;
	int ctl, gpu0, gpu1;
	uint32_t id1;
	char *buf, *data;

	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=2 vram_mb=16"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	ctl = open(SVMTUNE_DEV, O_RDWR);
	gpu0 = open("/dev/svmtune_emu0", O_RDWR);
	gpu1 = open("/dev/svmtune_emu1", O_RDWR);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(gpu0, 0);
	ASSERT_GE(gpu1, 0);
	id1 = svmtune_device_id(ctl, "svmtune_emu1");
	ASSERT_NE(0, id1);
	ASSERT_NE(id1, svmtune_device_id(ctl, "svmtune_emu0"));

	buf = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = malloc(2 << 20);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_NE(NULL, data);
	ASSERT_EQ(0,
		  svmtune_set_policy(ctl, buf, 2 << 20,
				     SVMTUNE_POLICY_PREFERRED_LOC, 0, id1, 0));

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf;
	a.size = 4096;
	a.ptr = (uintptr_t)data;
	a.op = SVMTUNE_EMU_READ;
	/* GPU 0 is not the preferred home: it maps remotely. */
	ASSERT_EQ(0, ioctl(gpu0, SVMTUNE_EMU_IOC_ACCESS, &a));
	EXPECT_EQ(0, a.migrated);
	EXPECT_LT(0, a.remote);
	/* GPU 1 is: the pages move there. */
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf;
	a.size = 4096;
	a.ptr = (uintptr_t)data;
	a.op = SVMTUNE_EMU_READ;
	ASSERT_EQ(0, ioctl(gpu1, SVMTUNE_EMU_IOC_ACCESS, &a));
	EXPECT_LT(0, a.migrated);

	munmap(buf, 2 << 20);
	free(data);
	close(gpu0);
	close(gpu1);
	close(ctl);
	ASSERT_EQ(0, unload_emu());
}

static int device_counters(int ctl, uint32_t id, struct svmtune_counters *c)
{
	struct svmtune_stats st;

	memset(&st, 0, sizeof(st));
	st.scope = SVMTUNE_STATS_DEVICE;
	st.id = id;
	if (ioctl(ctl, SVMTUNE_IOC_GET_STATS, &st))
		return -errno;
	*c = st.counters;
	return 0;
}

/*
 * GPU 1 faults on pages that live in GPU 0's memory. GPU 0's
 * ->migrate_to_ram() runs inside GPU 1's fault: that is not a CPU fault of
 * GPU 0, and the pages must end up in GPU 1's memory (through system
 * memory, as GPUs without a peer link move them). Before the fix GPU 0
 * counted a CPU fault and GPU 1 mapped the pages remotely in system
 * memory, migrating none.
 */
TEST_F(module, device_fault_on_other_device_memory_moves_it_over)
{
	struct svmtune_counters c0, c0_after, c1, c1_after;
	const unsigned long size = 2 << 20;
	struct svmtune_emu_snapshot sn;
	struct svmtune_emu_migrate m;
	struct svmtune_emu_access a;
	uint32_t id0, id1, *e;
	int ctl, gpu0, gpu1;
	char *buf, *data;
	unsigned long i;

	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=2 vram_mb=16"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	ctl = open(SVMTUNE_DEV, O_RDWR);
	gpu0 = open("/dev/svmtune_emu0", O_RDWR);
	gpu1 = open("/dev/svmtune_emu1", O_RDWR);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(gpu0, 0);
	ASSERT_GE(gpu1, 0);
	id0 = svmtune_device_id(ctl, "svmtune_emu0");
	id1 = svmtune_device_id(ctl, "svmtune_emu1");
	ASSERT_NE(0, id0);
	ASSERT_NE(0, id1);

	buf = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	buf = (char *)(((uintptr_t)buf + size - 1) & ~(size - 1));
	madvise(buf, size, MADV_NOHUGEPAGE);
	data = malloc(size);
	e = calloc(size / 4096, sizeof(*e));
	ASSERT_NE(NULL, data);
	ASSERT_NE(NULL, e);
	for (i = 0; i < size; i++)
		buf[i] = (char)(i * 13 + 5);

	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)buf;
	m.size = size;
	m.dest = SVMTUNE_EMU_TO_DEVICE;
	ASSERT_EQ(0, ioctl(gpu0, SVMTUNE_EMU_IOC_MIGRATE, &m));
	ASSERT_EQ(size / 4096, m.migrated);

	ASSERT_EQ(0, device_counters(ctl, id0, &c0));
	ASSERT_EQ(0, device_counters(ctl, id1, &c1));
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf;
	a.size = size;
	a.ptr = (uintptr_t)data;
	a.op = SVMTUNE_EMU_READ;
	ASSERT_EQ(0, ioctl(gpu1, SVMTUNE_EMU_IOC_ACCESS, &a));
	ASSERT_EQ(0, device_counters(ctl, id0, &c0_after));
	ASSERT_EQ(0, device_counters(ctl, id1, &c1_after));

	for (i = 0; i < size; i++)
		if (data[i] != (char)(i * 13 + 5))
			break;
	EXPECT_EQ(size, i) TH_LOG("byte %lu differs", i);
	EXPECT_EQ(size / 4096, a.migrated);
	EXPECT_EQ(0, a.remote);
	EXPECT_EQ(c0.cpu_faults, c0_after.cpu_faults)
	TH_LOG("GPU 1's fault was counted as a CPU fault of GPU 0");
	EXPECT_EQ(c0.pages_to_system + size / 4096, c0_after.pages_to_system);
	EXPECT_EQ(c1.pages_to_device + size / 4096, c1_after.pages_to_device);
	EXPECT_EQ(c1.gpu_faults + 1, c1_after.gpu_faults);

	/* All of it is in GPU 1's memory now, mapped there. */
	memset(&sn, 0, sizeof(sn));
	sn.addr = (uintptr_t)buf;
	sn.size = size;
	sn.ptr = (uintptr_t)e;
	ASSERT_EQ(0, ioctl(gpu1, SVMTUNE_EMU_IOC_SNAPSHOT, &sn));
	for (i = 0; i < size / 4096; i++)
		if ((e[i] & (SVMTUNE_EMU_PAGE_DEVICE | SVMTUNE_EMU_PAGE_MAPPED |
			     SVMTUNE_EMU_PAGE_REMOTE)) !=
		    (SVMTUNE_EMU_PAGE_DEVICE | SVMTUNE_EMU_PAGE_MAPPED))
			break;
	EXPECT_EQ(size / 4096, i)
	TH_LOG("page %lu: entry %#x", i, i < size / 4096 ? e[i] : 0);
	/* And the CPU reads the same bytes back. */
	for (i = 0; i < size; i++)
		if (buf[i] != (char)(i * 13 + 5))
			break;
	EXPECT_EQ(size, i);

	free(e);
	free(data);
	close(gpu0);
	close(gpu1);
	close(ctl);
	ASSERT_EQ(0, unload_emu());
}

/*
 * Four processes run the seeded fuzzer (svmtune_fuzz_test, next to this
 * program) at once on four emulated GPUs of 4 MiB each: several processes
 * on one device, several devices in one process, device memory exhausted
 * by all of them (faults fall back to remote mappings), policy and knob
 * changes racing GPU accesses. Every byte each one reads is checked
 * against its shadow; then the GPUs must unload with nothing left behind.
 */
/*
 * 183 s alone under TCG (the CI seeds of 2026-12-04, replayed); with a
 * second TCG VM on the same two cores it passed 600 s. The limit only has
 * to catch a livelock, so it is generous.
 */
TEST_F_TIMEOUT(module, fuzzers_share_four_small_gpus, 1800)
{
	char exe[4096], cmd[4200], *slash;
	int i, status, failed = 0, swap;
	unsigned long seed = time(NULL);
	ssize_t n;
	pid_t pid[4];

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	ASSERT_NE(NULL, slash);
	snprintf(slash + 1, sizeof(exe) - (slash + 1 - exe),
		 "svmtune_fuzz_test");
	ASSERT_EQ(0, access(exe, X_OK)) TH_LOG("%s", exe);

	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=4 vram_mb=4"));
	/* For all four: none of them turns it off under the others. */
	swap = svmtune_swap_on(512);
	ASSERT_LE(0, swap) TH_LOG("no swap and none on zram");
	TH_LOG("seeds %lu to %lu", seed, seed + 3);
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			char env[2][64], out[64];

			snprintf(env[0], sizeof(env[0]),
				 "SVMTUNE_FUZZ_SEED=%lu", seed + i);
			snprintf(env[1], sizeof(env[1]), "SVMTUNE_FUZZ_OPS=%d",
				 400);
			snprintf(out, sizeof(out), "/tmp/fuzz-shared-%d.out",
				 i);
			/* If the harness kills the test, its fuzzers go too. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(125);
			putenv(env[0]);
			putenv(env[1]);
			if (!freopen(out, "w", stdout) || dup2(1, 2) < 0)
				_exit(126);
			execl(exe, exe, (char *)NULL);
			_exit(127);
		}
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failed++;
			TH_LOG("fuzzer %d (seed %lu) ended with status %#x", i,
			       seed + i, status);
			snprintf(cmd, sizeof(cmd),
				 "sed 's/^/# /' /tmp/fuzz-shared-%d.out", i);
			if (system(cmd))
				TH_LOG("no output");
		}
	}
	if (swap == 1)
		svmtune_swap_off();
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, unload_emu()) TH_LOG("delete_module: %s", strerror(errno));
}

/*
 * rmmod of the emulated GPU while its memory holds a process's pages, with
 * a thread of that process reading them back page by page meanwhile (each
 * CPU fault holds the page that eviction wants to lock). Every page must
 * come back to system memory with its bytes, and the unload must end
 * (a single eviction pass left rmmod waiting forever on skipped pages).
 */
struct reader {
	char *buf;
	unsigned long size;
	unsigned long sum;
};

static void *read_pages(void *p)
{
	struct reader *r = p;
	unsigned long off;

	for (off = 0; off < r->size; off += 4096)
		r->sum += __atomic_load_n(&r->buf[off], __ATOMIC_RELAXED);
	return NULL;
}

TEST_F(module, unload_with_resident_pages_keeps_every_byte)
{
	const unsigned long size = 8 << 20;
	struct svmtune_emu_access a;
	struct reader r = { 0 };
	unsigned long i;
	pthread_t thread;
	int ctl, gpu;
	char *buf, *data;

	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	ctl = open(SVMTUNE_DEV, O_RDWR);
	gpu = open("/dev/svmtune_emu0", O_RDWR);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(gpu, 0);
	/* Aligned: the 2 MiB windows are the buffer, nothing beside it. */
	buf = svmtune_map_aligned(size);
	data = malloc(size);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, data);
	for (i = 0; i < size; i++)
		data[i] = (char)(i * 7 + i / 4096);

	/* The GPU writes it all: every page moves to device memory. */
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf;
	a.size = size;
	a.ptr = (uintptr_t)data;
	a.op = SVMTUNE_EMU_WRITE;
	ASSERT_EQ(0, ioctl(gpu, SVMTUNE_EMU_IOC_ACCESS, &a));
	ASSERT_EQ(size / 4096, a.migrated);
	close(gpu);

	/* CPU faults bring back one page at a time while the module goes. */
	ASSERT_EQ(0, svmtune_set_policy(ctl, buf, size,
					SVMTUNE_POLICY_GRANULARITY, 12, 0, 0));
	close(ctl);
	r.buf = buf;
	r.size = size;
	ASSERT_EQ(0, pthread_create(&thread, NULL, read_pages, &r));
	EXPECT_EQ(0, unload_emu()) TH_LOG("delete_module: %s", strerror(errno));
	pthread_join(thread, NULL);
	EXPECT_EQ(0, memcmp(buf, data, size));
	munmap(buf, size);
	free(data);
}

/*
 * A policy that prefers a device must not outlive the device: its id is
 * given to the next device that registers, and the range would follow a
 * GPU it was never tuned for. Unloading the backend resets such range
 * policies and process defaults to unset.
 */
TEST_F(module, unregistered_device_leaves_no_policy_behind)
{
	struct svmtune_process_policy pp;
	struct svmtune_range_policy p;
	const unsigned long size = 2 << 20;
	uint32_t id1;
	int ctl;
	char *buf;

	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=2 vram_mb=8"));
	ctl = open(SVMTUNE_DEV, O_RDWR);
	ASSERT_GE(ctl, 0);
	id1 = svmtune_device_id(ctl, "svmtune_emu1");
	ASSERT_NE(0, id1);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, svmtune_set_policy(ctl, buf, size,
					SVMTUNE_POLICY_PREFERRED_LOC |
						SVMTUNE_POLICY_GRANULARITY,
					16, id1, 0));
	memset(&pp, 0, sizeof(pp));
	pp.set = SVMTUNE_POLICY_PREFERRED_LOC;
	pp.preferred_loc = id1;
	ASSERT_EQ(0, ioctl(ctl, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));

	/* The devices go, and come back with the same ids. */
	ASSERT_EQ(0, unload_emu());
	ASSERT_EQ(0, system("modprobe svmtune_emu ndevices=2 vram_mb=8"));
	EXPECT_EQ(id1, svmtune_device_id(ctl, "svmtune_emu1"));

	memset(&p, 0, sizeof(p));
	p.start = (uintptr_t)buf;
	p.size = size;
	ASSERT_EQ(0, ioctl(ctl, SVMTUNE_IOC_GET_POLICY, &p));
	EXPECT_EQ(SVMTUNE_LOC_UNSET, p.preferred_loc);
	EXPECT_EQ(16, p.granularity); /* the rest of the policy stays */
	memset(&pp, 0, sizeof(pp));
	ASSERT_EQ(0, ioctl(ctl, SVMTUNE_IOC_GET_PROCESS_POLICY, &pp));
	EXPECT_EQ(SVMTUNE_LOC_UNSET, pp.preferred_loc);

	munmap(buf, size);
	close(ctl);
	ASSERT_EQ(0, unload_emu());
}

TEST_HARNESS_MAIN
