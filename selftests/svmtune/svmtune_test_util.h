/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the svmtune selftests.
 */
#ifndef _SVMTUNE_TEST_UTIL_H
#define _SVMTUNE_TEST_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/svmtune.h>

/*
 * The harness kills a test after TEST_TIMEOUT_DEFAULT (30) seconds. A test
 * that takes 10 s on a quiet machine under KVM can take several times that
 * under TCG on a loaded one, so that limit would fail slow machines, not
 * bugs. Every test here gets 10 minutes: a real hang is caught by the test
 * kernel's hung-task and soft-lockup detectors (a kernel report fails the
 * run), and a livelock by this limit. Redefined after the harness is
 * included, so the TEST_F()s below it take this value.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600
#endif

/*
 * SETUP_SKIP(), then return: SKIP() in a FIXTURE_SETUP. The harness of
 * 6.12 and later then runs neither the test nor its teardown; 6.1's
 * (which has no FIXTURE_TEARDOWN_PARENT, to tell the two apart) runs both,
 * on a fixture half set up. There the setup leaves through the harness's
 * own jump buffer, past the test and the teardown, and the result is the
 * skip.
 */
#ifdef FIXTURE_TEARDOWN_PARENT
#define SETUP_SKIP(fmt, ...) SKIP(, fmt, ##__VA_ARGS__)
#else
#define SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)
#endif

#define SVMTUNE_DEV "/dev/svmtune"
#define SVMTUNE_SYSFS "/sys/kernel/svmtune"
#define UNPRIVILEGED_UID 65534

/*
 * A 2 MiB-aligned anonymous mapping of @size bytes, transparent huge pages
 * off (windows are the subject of these tests, not THP); NULL on failure.
 * Tests that count the pages a 2 MiB window moves need it: 6.12 aligns
 * anonymous mappings of a multiple of 2 MiB to 2 MiB by itself, 6.1 does
 * not, and there an unaligned buffer's first and last windows reach into
 * whatever mapping the kernel merged into the same VMA beside it.
 */
static inline char *svmtune_map_aligned(unsigned long size)
{
	const unsigned long align = 2UL << 20;
	char *p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + size, p + size + align - (a + size));
	madvise(a, size, MADV_NOHUGEPAGE);
	return a;
}

/* Write @val to the file at @path (truncating it); 0 or -errno. */
static inline int svmtune_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/* Read at most @len - 1 bytes of the file at @path, NUL-terminated; 0 or -errno. */
static inline int svmtune_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static inline int svmtune_read_sysfs(const char *name, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SVMTUNE_SYSFS "/%s", name);
	return svmtune_read_file(path, buf, len);
}

/* Write @val to a sysfs file; return 0 or -errno of the open or write. */
static inline int svmtune_write_sysfs(const char *name, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SVMTUNE_SYSFS "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

/*
 * The engine's id of the device a backend named @name, or 0. Ids depend on
 * the order backends registered (svmtune_kfd may come first).
 */
static inline __u32 svmtune_device_id(int ctl, const char *name)
{
	struct svmtune_device_info di;
	__u32 id;

	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		memset(&di, 0, sizeof(di));
		di.id = id;
		if (!ioctl(ctl, SVMTUNE_IOC_GET_DEVICE, &di) &&
		    !strcmp(di.name, name))
			return id;
	}
	return 0;
}

/* Free memory of device @id as GET_DEVICE reports it, or 0. */
static inline __u64 svmtune_device_free_bytes(int ctl, __u32 id)
{
	struct svmtune_device_info di;

	memset(&di, 0, sizeof(di));
	di.id = id;
	if (!id || ioctl(ctl, SVMTUNE_IOC_GET_DEVICE, &di))
		return 0;
	return di.mem_free_bytes;
}

#ifndef offsetofend
#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))
#endif

/* The policy knobs tests change, saved and restored around them. */
static const char *const svmtune_policy_knobs[] = {
	"thrashing",
	"thrashing_threshold",
	"thrashing_lapse_us",
	"thrashing_pin_ms",
	"thrashing_throttle_us",
	"thrashing_pin_threshold",
	"prefetch_threshold",
	"evict_when_full",
	"fragment_auto",
	"fragment_size",
	"fragment_cap",
	"adaptive_max_granularity",
	"adaptive_min_granularity",
};

#define SVMTUNE_NR_POLICY_KNOBS ARRAY_SIZE(svmtune_policy_knobs)

struct svmtune_saved_knobs {
	char val[SVMTUNE_NR_POLICY_KNOBS][32];
};

static inline int svmtune_save_knobs(struct svmtune_saved_knobs *k)
{
	unsigned int i;
	int ret;

	for (i = 0; i < SVMTUNE_NR_POLICY_KNOBS; i++) {
		ret = svmtune_read_sysfs(svmtune_policy_knobs[i], k->val[i],
					 sizeof(k->val[i]));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Restore in an order that keeps the adaptive bounds valid whatever a test
 * left: min down to its smallest first, then max, then min.
 */
static inline void svmtune_restore_knobs(const struct svmtune_saved_knobs *k)
{
	unsigned int i;

	svmtune_write_sysfs("adaptive_min_granularity", "4K");
	for (i = 0; i < SVMTUNE_NR_POLICY_KNOBS; i++)
		svmtune_write_sysfs(svmtune_policy_knobs[i], k->val[i]);
}

/*
 * Run @fn in a child that dropped root and every supplementary group;
 * return the child's exit status.
 */
static inline int svmtune_run_unprivileged(int (*fn)(void))
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(UNPRIVILEGED_UID) ||
		    setuid(UNPRIVILEGED_UID))
			_exit(100);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* SVMTUNE_IOC_SET_POLICY on the caller's [start, start + size); 0 or -errno. */
static inline int svmtune_set_policy(int fd, void *start, unsigned long size,
				     uint32_t set, uint32_t gran, uint32_t loc,
				     uint32_t access)
{
	struct svmtune_range_policy p;

	memset(&p, 0, sizeof(p));
	p.start = (uintptr_t)start;
	p.size = size;
	p.set = set;
	p.granularity = gran;
	p.preferred_loc = loc;
	p.access = access;
	return ioctl(fd, SVMTUNE_IOC_SET_POLICY, &p) ? -errno : 0;
}

/* Drop @cap from the effective, permitted and inheritable sets. */
static inline int drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[cap / 32].effective &= ~(1u << (cap % 32));
	data[cap / 32].permitted &= ~(1u << (cap % 32));
	data[cap / 32].inheritable &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

#endif /* _SVMTUNE_TEST_UTIL_H */
