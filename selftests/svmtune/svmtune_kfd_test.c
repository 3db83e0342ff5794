// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of svmtune_kfd against the test kernel's real amdgpu and /dev/kfd
 * (no GPU in the VM): attaching and detaching in every load order, rmmod
 * of amdgpu while attached, refusal of an amdgpu that is not the one
 * svmtune_kfd was built for, svmtune's default granularity showing up in
 * KFD's own AMDKFD_IOC_SVM GET_ATTR for new and existing processes, the
 * sysfs state and hook counts, and KFD's answers to bad input unchanged
 * by the hooks. Needs root (modules, global knobs).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>
#include <linux/svmtune.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"

#define KFD_DEV "/dev/kfd"
#define KFD_SYSFS SVMTUNE_SYSFS "/kfd"
#define MIB (1UL << 20)

/* The SVM ioctl's size covers the attributes that follow the header. */
#define KFD_IOC_SVM_N(n)                                      \
	_IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, 0x20, \
	     sizeof(struct kfd_ioctl_svm_args) +              \
		     (n) * sizeof(struct kfd_ioctl_svm_attribute))

struct kfd_svm_one {
	struct kfd_ioctl_svm_args args;
	struct kfd_ioctl_svm_attribute attr;
};

/* AMDKFD_IOC_SVM with one attribute; return 0 or -errno, @value out. */
static int kfd_svm_one(int fd, __u32 op, __u64 start, __u64 size, __u32 type,
		       __u32 *value)
{
	struct kfd_svm_one req = { 0 };

	req.args.start_addr = start;
	req.args.size = size;
	req.args.op = op;
	req.args.nattr = 1;
	req.attr.type = type;
	req.attr.value = *value;
	if (ioctl(fd, KFD_IOC_SVM_N(1), &req))
		return -errno;
	*value = req.attr.value;
	return 0;
}

/*
 * Fresh anonymous memory: KFD answers SVM requests only for mapped
 * addresses, and an address with no KFD range reports the defaults.
 */
static __u64 test_mapping(void)
{
	void *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? 0 : (__u64)(unsigned long)p;
}

/* KFD's GET_ATTR granularity (log2 pages) for memory with no KFD range. */
static int kfd_granularity(int fd)
{
	__u64 addr = test_mapping();
	__u32 gran = 0;
	int ret;

	if (!addr)
		return -ENOMEM;
	ret = kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, addr, 4096,
			  KFD_IOCTL_SVM_ATTR_GRANULARITY, &gran);
	munmap((void *)(unsigned long)addr, 4 * 4096);
	return ret ? ret : (int)gran;
}

/*
 * The granularity a new KFD process reports: opening /dev/kfd in a fresh
 * process (a new mm) creates a new KFD process. -errno on failure.
 */
static int kfd_granularity_new_process(void)
{
	int status, fd, g;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(200);
		g = kfd_granularity(fd);
		_exit(g < 0 ? 201 : g);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	if (WEXITSTATUS(status) >= 200)
		return -EIO;
	return WEXITSTATUS(status);
}

/*
 * Whether KFD refuses to make a process here: Linux 7.x's
 * kfd_create_process() fails with EINVAL ("no gpu node") while KFD knows
 * no GPU, as in the test VM, where 6.12's made one. Asked in a child, so
 * no KFD process is left behind.
 */
static bool kfd_makes_no_process(void)
{
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
		_exit(fd < 0 && errno == EINVAL ? 2 : 0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 2;
}

#define NO_GPU_NODE                                                           \
	"KFD makes no process without a GPU node (Linux 7.x's "               \
	"kfd_create_process(): \"no gpu node\") and this VM has no GPU; the " \
	"KFD test bed runs this on emulated GPUs"

/*
 * Cut @line off at its newline; return the rest (at its NUL when there is
 * no more). For loops over a file's lines: never NULL.
 */
static char *next_line(char *line)
{
	char *nl = strchr(line, '\n');

	if (!nl)
		return line + strlen(line);
	*nl = '\0';
	return nl + 1;
}

static int read_kfd_file(const char *name, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "kfd/%s", name);
	return svmtune_read_sysfs(path, buf, len);
}

/* The first word of a kfd/ file, or "" if it cannot be read. */
static const char *kfd_word(const char *name)
{
	static char buf[4096];

	if (read_kfd_file(name, buf, sizeof(buf)))
		return "";
	buf[strcspn(buf, "\n ")] = '\0';
	return buf;
}

/* The value of "<key> <value>" in a kfd/ file, or -1. */
static long long kfd_value(const char *file, const char *key)
{
	char buf[4096], *line, *next;
	long long val;
	size_t klen = strlen(key);

	if (read_kfd_file(file, buf, sizeof(buf)))
		return -1;
	for (line = buf; *line && (next = next_line(line)); line = next)
		if (!strncmp(line, key, klen) && line[klen] == ' ' &&
		    sscanf(line + klen, "%lld", &val) == 1)
			return val;
	return -1;
}

/* Calls counted for a hooked function, from the hooks file, or -1. */
static long long hook_calls(const char *symbol)
{
	char buf[4096], *line, *next, *calls;
	size_t len = strlen(symbol);
	long long val;

	if (read_kfd_file("hooks", buf, sizeof(buf)))
		return -1;
	for (line = buf; *line && (next = next_line(line)); line = next) {
		if (strncmp(line, symbol, len) || line[len] != ' ')
			continue;
		calls = strstr(line, " calls ");
		if (calls && sscanf(calls, " calls %lld", &val) == 1)
			return val;
	}
	return -1;
}

/*
 * Whether this svmtune_kfd gives KFD processes svmtune's default
 * granularity: 6.12's KFD has a per-process default, 6.1's has none.
 */
static bool kfd_has_default_granularity(void)
{
	char buf[256];

	return !read_kfd_file("build", buf, sizeof(buf)) &&
	       strstr(buf, " default_granularity yes");
}

#define NO_DEFAULT_GRANULARITY \
	"this kernel's KFD has no per-process default granularity (6.1)"

static bool module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

static int rmmod(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static int load_module(const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "modprobe %s", name);
	return system(cmd) == 0 ? 0 : -1;
}

/* Load a fake amdgpu from next to this program: "mismatch" or "nosvm". */
static int insmod_fake_amdgpu(const char *variant)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;
	int fd, ret;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/fake_amdgpu/%s/amdgpu.ko",
		 dirname(exe), variant);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

#define SRCVERSION_PARAM "/sys/module/svmtune_kfd/parameters/amdgpu_srcversion"

/* Reload svmtune_kfd with amdgpu_srcversion=@srcversion. */
static int reload_svmtune_kfd(const char *srcversion)
{
	char cmd[160];

	if (module_loaded("svmtune_kfd") && rmmod("svmtune_kfd"))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "modprobe svmtune_kfd 'amdgpu_srcversion=%s'", srcversion);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * Reload svmtune_kfd told the loaded (fake, out-of-tree) amdgpu's
 * srcversion, so that it checks what comes after the build's identity.
 */
static int reload_svmtune_kfd_for_loaded_amdgpu(void)
{
	char srcversion[64] = "";
	FILE *f = fopen("/sys/module/amdgpu/srcversion", "r");

	if (!f)
		return -1;
	if (!fgets(srcversion, sizeof(srcversion), f))
		srcversion[0] = '\0';
	fclose(f);
	srcversion[strcspn(srcversion, "\n")] = '\0';
	return srcversion[0] ? reload_svmtune_kfd(srcversion) : -1;
}

/* Whatever a test did: real amdgpu and svmtune_kfd loaded, defaults set. */
static int restore_modules(void)
{
	char param[64] = "";

	if (module_loaded("amdgpu") && access(KFD_DEV, F_OK))
		rmmod("amdgpu"); /* a fake one */
	if (!svmtune_read_file(SRCVERSION_PARAM, param, sizeof(param)) &&
	    strcmp(param, "\n") && rmmod("svmtune_kfd"))
		return -1;
	if (!module_loaded("amdgpu") && load_module("amdgpu"))
		return -1;
	if (!module_loaded("svmtune_kfd") && load_module("svmtune_kfd"))
		return -1;
	return strcmp(kfd_word("state"), "attached") ? -1 : 0;
}

/*
 * The engine's devices for KFD nodes ("amdgpu-kfd-<gpu_id>"), or -errno.
 * svmtune_kfd registers one per KFD node (GPU or partition) it learns; a
 * KFD with no GPU, as here, has none.
 */
static int engine_kfd_devices(void)
{
	struct svmtune_device_info di;
	int fd, n = 0;
	__u32 id;

	fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		memset(&di, 0, sizeof(di));
		di.id = id;
		if (!ioctl(fd, SVMTUNE_IOC_GET_DEVICE, &di) &&
		    !strncmp(di.name, "amdgpu-kfd", strlen("amdgpu-kfd")))
			n++;
	}
	close(fd);
	return n;
}

FIXTURE(kfd)
{
	char granularity[32];
	char policy[32];
	char adaptive_max[32];
};

FIXTURE_SETUP(kfd)
{
	if (geteuid() != 0) {
		SETUP_SKIP(
			"svmtune_kfd tests load modules and set global knobs: need root");
		return;
	}
	if (!module_loaded("amdgpu") && load_module("amdgpu")) {
		SETUP_SKIP("amdgpu cannot be loaded in this kernel");
		return;
	}
	if (access(KFD_DEV, F_OK)) {
		SETUP_SKIP(
			"amdgpu has no /dev/kfd (kernel built without CONFIG_HSA_AMD)");
		return;
	}
	ASSERT_EQ(0, restore_modules())
	TH_LOG("svmtune_kfd did not attach: %s", kfd_word("reason"));
	ASSERT_EQ(0, svmtune_read_sysfs("granularity", self->granularity,
					sizeof(self->granularity)));
	ASSERT_EQ(0, svmtune_read_sysfs("policy", self->policy,
					sizeof(self->policy)));
	ASSERT_EQ(0, svmtune_read_sysfs("adaptive_max_granularity",
					self->adaptive_max,
					sizeof(self->adaptive_max)));
}

/* Runs only after a setup that found amdgpu with KFD: restore it all. */
FIXTURE_TEARDOWN(kfd)
{
	if (geteuid() != 0)
		return;
	EXPECT_EQ(0, restore_modules());
	EXPECT_EQ(0, svmtune_write_sysfs("granularity", self->granularity));
	EXPECT_EQ(0, svmtune_write_sysfs("policy", self->policy));
	EXPECT_EQ(0, svmtune_write_sysfs("adaptive_max_granularity",
					 self->adaptive_max));
}

/* Attached to the running amdgpu, which implements the version built for. */
TEST_F(kfd, attached_to_matching_amdgpu)
{
	struct kfd_ioctl_get_version_args ver = { 0 };
	char build[256], amdgpu[256], want[64];
	int fd;

	if (kfd_makes_no_process()) {
		/* The version of the uapi header of the kernel built for. */
		ver.major_version = KFD_IOCTL_MAJOR_VERSION;
		ver.minor_version = KFD_IOCTL_MINOR_VERSION;
	} else {
		fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_GET_VERSION, &ver));
		close(fd);
	}

	ASSERT_STREQ("attached", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", build, sizeof(build)));
	ASSERT_STREQ("\n", build);

	snprintf(want, sizeof(want), "kfd %u.%u ", ver.major_version,
		 ver.minor_version);
	ASSERT_EQ(0, read_kfd_file("build", build, sizeof(build)));
	ASSERT_NE(NULL, strstr(build, want)) TH_LOG("build: %s", build);
	/* Built against this kernel's own tree, attached to its own amdgpu. */
	ASSERT_NE(NULL, strstr(build, " sources in-tree "))
	TH_LOG("build: %s", build);
	ASSERT_EQ(0, read_kfd_file("amdgpu", amdgpu, sizeof(amdgpu)));
	ASSERT_EQ(0, strncmp(amdgpu, want, strlen(want)))
	TH_LOG("amdgpu: %s", amdgpu);
	/* No GPU, so no KFD node: nothing learned, no engine device. */
	ASSERT_EQ(0, read_kfd_file("nodes", build, sizeof(build)));
	ASSERT_STREQ("", build);
	ASSERT_NE(NULL, strstr(amdgpu, " nodes 0 "))
	TH_LOG("amdgpu: %s", amdgpu);
	ASSERT_EQ(0, engine_kfd_devices());
}

/* Every hook is registered, and the XNACK query still answers. */
TEST_F(kfd, hooks_on)
{
	char buf[4096], *line, *next;
	struct kfd_ioctl_set_xnack_mode_args xnack = { .xnack_enabled = -1 };
	int fd, n = 0;

	ASSERT_EQ(0, read_kfd_file("hooks", buf, sizeof(buf)));
	for (line = buf; *line && (next = next_line(line)); line = next) {
		EXPECT_NE(NULL, strstr(line, " on "))
		TH_LOG("hook off: %s", line);
		n++;
	}
	EXPECT_LE(5, n);

	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, AMDKFD_IOC_SET_XNACK_MODE, &xnack));
	EXPECT_EQ(1, xnack.xnack_enabled);
	close(fd);
}

/* The files are read-only for everyone, and root's writes are refused. */
TEST_F(kfd, sysfs_read_only)
{
	static const char *const files[] = {
		"state", "reason", "build",	    "amdgpu",	 "hooks",
		"nodes", "stats",  "pte_fragments", "in_effect",
	};
	char path[128];
	struct stat st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), KFD_SYSFS "/%s", files[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(0444, st.st_mode & 07777) TH_LOG("%s", path);
		snprintf(path, sizeof(path), "kfd/%s", files[i]);
		EXPECT_EQ(-EACCES, svmtune_write_sysfs(path, "1\n"))
		TH_LOG("%s", path);
	}
}

/* stats and pte_fragments: every line "<name> <count>", all present. */
TEST_F(kfd, stats_format)
{
	static const char *const keys[] = {
		"gpu_faults",
		"cpu_faults",
		"untracked_faults",
		"decisions",
		"windows_changed",
		"migrations_declined",
		"to_vram_calls",
		"to_vram_pages",
		"to_ram_calls",
		"to_ram_pages",
		"default_granularity_set",
		"granularity_kept_kfd",
		"ranges_given_policy",
		"retry_filter_passed",
		"retry_filter_duplicates",
		"retry_filter_early_drops",
		"processes_attached",
		"attach_failed",
		"attach_dropped",
		"cpu_faults_not_migrated",
		"faults_on_unknown_nodes",
		"contiguous_requested",
		"vram_count_fixed",
		"vram_count_unfixed",
		"vram_evict_stayed",
		"cpu_faults_migrated",
		"cpu_fault_lock_wait_ns",
	};
	char buf[4096], *line, *next;
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		EXPECT_LE(0, kfd_value("stats", keys[i]))
		TH_LOG("stats key %u missing", i);
	}
	ASSERT_EQ(0, read_kfd_file("pte_fragments", buf, sizeof(buf)));
	for (line = buf; *line && (next = next_line(line)); line = next) {
		unsigned long long kib;
		long long count;

		if (sscanf(line, "%lluK %lld", &kib, &count) != 2) {
			TH_LOG("not '<size>K <count>': %s", line);
			ASSERT_TRUE(false);
		}
		EXPECT_EQ(4ULL << n, kib);
		EXPECT_LE(0, count);
		n++;
	}
	EXPECT_EQ(32, n);
}

/*
 * Each of the @n words @bad written to svmtune_kfd's knob @name fails with
 * EINVAL and leaves it reading @want.
 */
static void expect_words_refused(struct __test_metadata *_metadata,
				 const char *name, const char *const *bad,
				 unsigned int n, const char *want)
{
	char now[96];
	unsigned int i;

	for (i = 0; i < n; i++) {
		EXPECT_EQ(-EINVAL, svmtune_write_sysfs(name, bad[i]))
		TH_LOG("'%s' accepted", bad[i]);
		ASSERT_EQ(0, svmtune_read_sysfs(name, now, sizeof(now)));
		EXPECT_STREQ(want, now);
	}
}

/* Whether the running kernel is 6.1 (else 6.12: the two svmtune_kfd builds for). */
static bool kernel_is_6_1(void)
{
	struct utsname u;

	return !uname(&u) && !strncmp(u.release, "6.1.", 4);
}

/*
 * in_effect says what this KFD lets svmtune apply: on 6.12 everything; on
 * 6.1, where KFD migrates whole ranges, no window and none of the state
 * that is told from windows.
 */
TEST_F(kfd, in_effect_matches_the_kernel)
{
	static const char *const windowed[] = {
		"gpu_fault_window", "cpu_fault_window",	       "adaptive",
		"thrashing",	    "retry_filter_per_window",
	};
	static const char *const always[] = {
		"remote_mapping",
		"range_attributes",
		"per_process_state",
	};
	bool old = kernel_is_6_1();
	char buf[4096], want[128];
	unsigned int i;

	ASSERT_EQ(0, read_kfd_file("in_effect", buf, sizeof(buf)));
	for (i = 0; i < ARRAY_SIZE(windowed); i++) {
		snprintf(want, sizeof(want), "%s %s", windowed[i],
			 old ? "no (" : "yes\n");
		EXPECT_NE(NULL, strstr(buf, want))
		TH_LOG("no '%s' in:\n%s", want, buf);
	}
	for (i = 0; i < ARRAY_SIZE(always); i++) {
		snprintf(want, sizeof(want), "%s yes\n", always[i]);
		EXPECT_NE(NULL, strstr(buf, want))
		TH_LOG("no '%s' in:\n%s", want, buf);
	}
	snprintf(
		want, sizeof(want), "default_granularity %s",
		old ? "no (" :
		      "yes (raised only: never below amdgpu's svm_default_granularity)\n");
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("no '%s' in:\n%s", want, buf);
	snprintf(want, sizeof(want), "contiguous_vram %s",
		 old ? "no (" : "yes\n");
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("no '%s' in:\n%s", want, buf);
}

/*
 * contiguous_vram: root-only (0644), "off" by default; "on" on 6.12,
 * where a user BO's contiguous flag is a wish; on 6.1, where it is a hard
 * requirement, "on" is -EOPNOTSUPP. Anything else is -EINVAL and changes
 * nothing.
 */
TEST_F(kfd, contiguous_vram_knob)
{
	static const char *const bad[] = { "of",     "on1", "1",   "0", "yes",
					   "on off", "\n",  " on", "On" };
	const char *off =
		kernel_is_6_1() ?
			"off (this amdgpu fails a BO it cannot make contiguous)\n" :
			"off\n";
	char path[128], now[96];
	struct stat st;

	snprintf(path, sizeof(path), KFD_SYSFS "/contiguous_vram");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	ASSERT_EQ(0,
		  svmtune_read_sysfs("kfd/contiguous_vram", now, sizeof(now)));
	EXPECT_STREQ(off, now);
	expect_words_refused(_metadata, "kfd/contiguous_vram", bad,
			     ARRAY_SIZE(bad), off);
	if (kernel_is_6_1()) {
		EXPECT_EQ(-EOPNOTSUPP,
			  svmtune_write_sysfs("kfd/contiguous_vram", "on"));
	} else {
		EXPECT_EQ(0,
			  svmtune_write_sysfs("kfd/contiguous_vram", "on\n"));
		ASSERT_EQ(0, svmtune_read_sysfs("kfd/contiguous_vram", now,
						sizeof(now)));
		EXPECT_STREQ("on\n", now);
	}
	EXPECT_EQ(0, svmtune_write_sysfs("kfd/contiguous_vram", "off"));
	ASSERT_EQ(0,
		  svmtune_read_sysfs("kfd/contiguous_vram", now, sizeof(now)));
	EXPECT_STREQ(off, now);
}

/*
 * svmtune_kfd's knobs refuse, with EINVAL and no change, what a string
 * cannot carry: a NUL inside or at the end of a good word, a page of
 * letters, three pages of spaces (sysfs hands the store one page).
 */
TEST_F(kfd, knobs_refuse_nul_and_long_writes)
{
	static const char *const knobs[] = { "retry_filter",
					     "contiguous_vram" };
	static const struct {
		const char *val;
		size_t len;
		bool repeat;
	} bad[] = {
		{ "off\0on", 6, false }, { "range\0", 6, false },
		{ "on\0", 3, false },	 { "o", 4095, true },
		{ " ", 3 * 4096, true },
	};
	char path[128], was[96], now[96], *val;
	unsigned int k, i;
	ssize_t n;
	size_t j;
	int fd;

	for (k = 0; k < ARRAY_SIZE(knobs); k++) {
		snprintf(path, sizeof(path), "kfd/%s", knobs[k]);
		ASSERT_EQ(0, svmtune_read_sysfs(path, was, sizeof(was)));
		snprintf(path, sizeof(path), KFD_SYSFS "/%s", knobs[k]);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			val = malloc(bad[i].len);
			ASSERT_NE(NULL, val);
			for (j = 0; j < bad[i].len; j++)
				val[j] = bad[i].repeat ? bad[i].val[0] :
							 bad[i].val[j];
			fd = open(path, O_WRONLY);
			ASSERT_LE(0, fd);
			n = write(fd, val, bad[i].len);
			EXPECT_EQ(-1, n)
			TH_LOG("%s: case %u accepted", knobs[k], i);
			EXPECT_EQ(EINVAL, errno);
			close(fd);
			free(val);
			ASSERT_EQ(0, svmtune_read_file(path, now, sizeof(now)));
			EXPECT_STREQ(was, now);
		}
	}
}

/*
 * Root without CAP_SYS_ADMIN opens svmtune_kfd's knobs (uid 0 owns the
 * 0644 files) and each write reaches the store, whose capability check
 * refuses it with EPERM, for the value the knob already has.
 */
TEST_F(kfd, knobs_need_cap_sys_admin)
{
	static const char *const knobs[] = { "retry_filter",
					     "contiguous_vram" };
	unsigned int i;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(99);
		for (i = 0; i < ARRAY_SIZE(knobs); i++) {
			char path[128], val[96], *sp;
			int fd;

			snprintf(path, sizeof(path), "kfd/%s", knobs[i]);
			if (svmtune_read_sysfs(path, val, sizeof(val)))
				_exit(100);
			sp = strchr(val, ' '); /* "off (why)" on 6.1 */
			if (sp)
				*sp = '\0';
			snprintf(path, sizeof(path), KFD_SYSFS "/%s", knobs[i]);
			fd = open(path, O_WRONLY);
			if (fd < 0)
				_exit(101);
			if (write(fd, val, strlen(val)) != -1 || errno != EPERM)
				_exit(i + 1);
			close(fd);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
	TH_LOG("child exit %d: 99 capset, 100 read, 101 open, n: knob n accepted",
	       WEXITSTATUS(status));
}

/*
 * retry_filter: root-only (0644), "window" or "range" on 6.12, only
 * "range" on 6.1; anything else is -EINVAL and changes nothing.
 */
TEST_F(kfd, retry_filter_knob)
{
	static const char *const bad[] = { "windows", "range2", "1",
					   "window range", "\n" };
	char path[128], was[64], now[64];
	struct stat st;

	snprintf(path, sizeof(path), KFD_SYSFS "/retry_filter");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	ASSERT_EQ(0, svmtune_read_sysfs("kfd/retry_filter", was, sizeof(was)));
	EXPECT_STREQ(kernel_is_6_1() ? "range (this KFD maps whole ranges)\n" :
				       "window\n",
		     was);
	expect_words_refused(_metadata, "kfd/retry_filter", bad,
			     ARRAY_SIZE(bad), was);
	EXPECT_EQ(0, svmtune_write_sysfs("kfd/retry_filter", "range\n"));
	if (!kernel_is_6_1()) {
		ASSERT_EQ(0, svmtune_read_sysfs("kfd/retry_filter", now,
						sizeof(now)));
		EXPECT_STREQ("range\n", now);
		EXPECT_EQ(0, svmtune_write_sysfs("kfd/retry_filter", "window"));
		ASSERT_EQ(0, svmtune_read_sysfs("kfd/retry_filter", now,
						sizeof(now)));
		EXPECT_STREQ("window\n", now);
	} else {
		EXPECT_EQ(-EINVAL,
			  svmtune_write_sysfs("kfd/retry_filter", "window"));
	}
}

/* A new KFD process gets svmtune's global granularity as its default. */
/*
 * New processes get svmtune's global granularity as KFD's default when it
 * is larger than KFD's own (amdgpu.svm_default_granularity, 9), never a
 * smaller one: KFD's default is the size of the ranges a GPU fault
 * creates, and svmtune's narrower windows reach KFD through its hooks.
 */
TEST_F(kfd, new_process_gets_global_granularity_never_below_kfds)
{
	static const struct {
		const char *knob;
		int kfd;
		int kept;
	} cases[] = {
		{ "64K\n", 9, 1 }, { "4K\n", 9, 1 },  { "1G\n", 18, 0 },
		{ "2M\n", 9, 0 },  { "4M\n", 10, 0 },
	};
	unsigned int i;
	long long inits;

	/* Before counting: the question makes a KFD process of its own. */
	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	inits = hook_calls("svm_range_list_init");
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	ASSERT_LE(0, inits);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed\n"));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		long long kept;

		ASSERT_EQ(0, svmtune_write_sysfs("granularity", cases[i].knob));
		kept = kfd_value("stats", "granularity_kept_kfd");
		EXPECT_EQ(cases[i].kfd, kfd_granularity_new_process())
		TH_LOG("granularity %s", cases[i].knob);
		/* Counted at each sync: the open and the GET_ATTR. */
		if (cases[i].kept) {
			EXPECT_LT(kept,
				  kfd_value("stats", "granularity_kept_kfd"))
			TH_LOG("granularity %s: KFD's own kept", cases[i].knob);
		} else {
			EXPECT_EQ(kept,
				  kfd_value("stats", "granularity_kept_kfd"))
			TH_LOG("granularity %s: nothing kept", cases[i].knob);
		}
	}
	EXPECT_EQ(inits + 5, hook_calls("svm_range_list_init"));
}

/*
 * KFD's own default is amdgpu's parameter as it is when the process
 * starts (it is writable at run time): svmtune never goes below it.
 */
TEST_F(kfd, floor_follows_amdgpus_parameter)
{
	static const char param[] =
		"/sys/module/amdgpu/parameters/svm_default_granularity";
	char old[32] = "";
	FILE *f;

	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	f = fopen(param, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(old, sizeof(old), f));
	fclose(f);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed\n"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "4K\n"));
	ASSERT_EQ(0, svmtune_write_file(param, "4\n"));
	EXPECT_EQ(4, kfd_granularity_new_process());
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "1M\n"));
	EXPECT_EQ(8, kfd_granularity_new_process());
	/* As KFD computes it: min_t(u8, parameter, 0x1b). */
	ASSERT_EQ(0, svmtune_write_file(param, "40\n"));
	EXPECT_EQ(0x1b, kfd_granularity_new_process());
	ASSERT_EQ(0, svmtune_write_file(param, old));
}

/* Adaptive: new processes get the widest window the policy may choose. */
TEST_F(kfd, adaptive_gives_its_maximum)
{
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "adaptive\n"));
	ASSERT_EQ(0, svmtune_write_sysfs("adaptive_max_granularity", "4M\n"));
	EXPECT_EQ(10, kfd_granularity_new_process());
}

/*
 * An existing KFD process follows the global knob at its next SVM ioctl,
 * down to KFD's own default and no further.
 */
TEST_F(kfd, existing_process_follows_global)
{
	long long calls, set;
	int fd;

	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed\n"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M\n"));
	fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(9, kfd_granularity(fd));

	calls = hook_calls("svm_range_get_attr");
	set = kfd_value("stats", "default_granularity_set");
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "8M\n"));
	EXPECT_EQ(11, kfd_granularity(fd));
	EXPECT_EQ(calls + 1, hook_calls("svm_range_get_attr"));
	EXPECT_EQ(set + 1, kfd_value("stats", "default_granularity_set"));
	/* Below KFD's own: KFD's own again, not 256 KiB. */
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "256K\n"));
	EXPECT_EQ(9, kfd_granularity(fd));
	EXPECT_EQ(set + 2, kfd_value("stats", "default_granularity_set"));
	close(fd);
}

/* A process's own svmtune default beats the global one, in KFD too. */
TEST_F(kfd, process_default_wins)
{
	struct svmtune_process_policy pp = {
		.set = SVMTUNE_POLICY_GRANULARITY,
		.granularity = 22,
	};
	int fd, sfd;

	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed\n"));
	sfd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, ioctl(sfd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));
	fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(10, kfd_granularity(fd));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "8M\n"));
	EXPECT_EQ(10, kfd_granularity(fd));

	/* Unset it: the global knob applies again. */
	pp.granularity = SVMTUNE_GRANULARITY_UNSET;
	ASSERT_EQ(0, ioctl(sfd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));
	EXPECT_EQ(11, kfd_granularity(fd));
	/* A process's 4 KiB: KFD's own ranges stay. */
	pp.granularity = 12;
	ASSERT_EQ(0, ioctl(sfd, SVMTUNE_IOC_SET_PROCESS_POLICY, &pp));
	EXPECT_EQ(9, kfd_granularity(fd));
	close(fd);
	close(sfd);
}

/* KFD refuses bad SVM requests exactly as it does without the hooks. */
TEST_F(kfd, kfd_bad_input_unchanged)
{
	long long set_calls = hook_calls("svm_range_set_attr");
	__u64 addr = test_mapping();
	__u32 val = 0;
	int fd;

	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	ASSERT_NE(0, addr);
	fd = open(KFD_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* Size zero, unaligned start, unaligned size. */
	EXPECT_EQ(-EINVAL, kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, addr, 0,
				       KFD_IOCTL_SVM_ATTR_GRANULARITY, &val));
	EXPECT_EQ(-EINVAL,
		  kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, addr + 1, 4096,
			      KFD_IOCTL_SVM_ATTR_GRANULARITY, &val));
	EXPECT_EQ(-EINVAL,
		  kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, addr, 4095,
			      KFD_IOCTL_SVM_ATTR_GRANULARITY, &val));
	/* Memory that is not mapped. */
	EXPECT_EQ(-EFAULT,
		  kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, 1ULL << 46, 4096,
			      KFD_IOCTL_SVM_ATTR_GRANULARITY, &val));
	/* An attribute type KFD does not know. */
	EXPECT_EQ(-EINVAL, kfd_svm_one(fd, KFD_IOCTL_SVM_OP_GET_ATTR, addr,
				       4096, 0x1000, &val));
	/* SET_ATTR: no GPU VM in this machine, so no range can be made. */
	val = 4;
	EXPECT_EQ(-EINVAL,
		  kfd_svm_one(fd, KFD_IOCTL_SVM_OP_SET_ATTR, addr, 4096,
			      KFD_IOCTL_SVM_ATTR_GRANULARITY, &val));
	if (kfd_has_default_granularity()) /* 6.12 hooks it */
		EXPECT_LT(set_calls, hook_calls("svm_range_set_attr"));
	/* And GET_ATTR still works afterwards. */
	EXPECT_LE(0, kfd_granularity(fd));
	close(fd);
	munmap((void *)(unsigned long)addr, 4 * 4096);
}

/* Unloading svmtune_kfd hands KFD back its own default for new processes. */
TEST_F(kfd, unload_and_reload_svmtune_kfd)
{
	if (!kfd_has_default_granularity())
		SKIP(return, NO_DEFAULT_GRANULARITY);
	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed\n"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "4M\n"));
	EXPECT_EQ(10, kfd_granularity_new_process());

	ASSERT_EQ(0, rmmod("svmtune_kfd"));
	EXPECT_NE(0, access(KFD_SYSFS, F_OK));
	EXPECT_EQ(0, engine_kfd_devices());
	/* amdgpu.svm_default_granularity, 9 unless set. */
	EXPECT_EQ(9, kfd_granularity_new_process());

	ASSERT_EQ(0, load_module("svmtune_kfd"));
	ASSERT_STREQ("attached", kfd_word("state"));
	EXPECT_EQ(10, kfd_granularity_new_process());
}

/* amdgpu can be unloaded under an attached svmtune_kfd, and reloaded. */
TEST_F(kfd, rmmod_amdgpu_while_attached)
{
	long long attaches;
	char buf[4096], *line, *next;

	ASSERT_EQ(0, read_kfd_file("amdgpu", buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "attaches "));
	attaches = atoll(strstr(buf, "attaches ") + 9);

	ASSERT_EQ(0, rmmod("amdgpu"));
	EXPECT_STREQ("waiting", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "amdgpu was unloaded")) TH_LOG("%s", buf);
	ASSERT_EQ(0, read_kfd_file("hooks", buf, sizeof(buf)));
	for (line = buf; *line && (next = next_line(line)); line = next) {
		EXPECT_NE(NULL, strstr(line, " off "))
		TH_LOG("still on: %s", line);
	}
	EXPECT_EQ(0, engine_kfd_devices());

	ASSERT_EQ(0, load_module("amdgpu"));
	EXPECT_STREQ("attached", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("amdgpu", buf, sizeof(buf)));
	EXPECT_EQ(attaches + 1, atoll(strstr(buf, "attaches ") + 9));
}

/* svmtune_kfd loaded first waits for amdgpu, and attaches when it comes. */
TEST_F(kfd, svmtune_kfd_before_amdgpu)
{
	char buf[256];

	ASSERT_EQ(0, rmmod("svmtune_kfd"));
	ASSERT_EQ(0, rmmod("amdgpu"));
	ASSERT_EQ(0, load_module("svmtune_kfd"));
	EXPECT_STREQ("waiting", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_STREQ("amdgpu is not loaded\n", buf);
	ASSERT_EQ(0, read_kfd_file("amdgpu", buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "none ", 5));

	ASSERT_EQ(0, load_module("amdgpu"));
	EXPECT_STREQ("attached", kfd_word("state"));
	EXPECT_EQ(0, engine_kfd_devices());
	if (kfd_makes_no_process())
		SKIP(return, NO_GPU_NODE);
	EXPECT_LE(0, kfd_granularity_new_process());
}

/*
 * An out-of-tree amdgpu (ROCm's amdgpu-dkms, a different build with the
 * same name) is refused unless svmtune_kfd is told its srcversion: its
 * KFD structures need not be those svmtune_kfd was compiled with.
 */
TEST_F(kfd, refuses_out_of_tree_amdgpu_unless_told_its_build)
{
	char buf[512];

	ASSERT_EQ(0, rmmod("amdgpu"));
	ASSERT_EQ(0, insmod_fake_amdgpu("mismatch"));
	EXPECT_STREQ("refused", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "amdgpu is out of tree")) TH_LOG("%s", buf);
	EXPECT_EQ(0, engine_kfd_devices());

	/* Loaded after it, told another build's srcversion: refused. */
	ASSERT_EQ(0, reload_svmtune_kfd("0123456789ABCDEF01234567"));
	EXPECT_STREQ("refused", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "is not 0123456789ABCDEF01234567"))
	TH_LOG("%s", buf);
	EXPECT_EQ(0, engine_kfd_devices());
	ASSERT_EQ(0, read_kfd_file("hooks", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, " on ")) TH_LOG("%s", buf);

	/* Told its own: the next check (its KFD version) decides. */
	ASSERT_EQ(0, reload_svmtune_kfd_for_loaded_amdgpu());
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "out of tree")) TH_LOG("%s", buf);
	EXPECT_EQ(NULL, strstr(buf, "srcversion")) TH_LOG("%s", buf);
}

/* amdgpu_srcversion takes modpost's uppercase hex digest and nothing else. */
TEST_F(kfd, amdgpu_srcversion_validated)
{
	static const char *const bad[] = {
		"0123456789abcdef01234567", /* lowercase */
		"0123456789ABCDEF0123456G", /* not hex */
		"0123456789ABCDEF0123456789ABCDEF0", /* 33 digits */
		"01234567-89ABCDEF", /* a dash */
		"0x0123456789ABCDEF", /* a prefix */
	};
	char buf[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_NE(0, reload_svmtune_kfd(bad[i])) TH_LOG("%s", bad[i]);
		EXPECT_EQ(0, module_loaded("svmtune_kfd")) TH_LOG("%s", bad[i]);
	}
	/* Empty: the in-tree amdgpu only, as when not given. */
	ASSERT_EQ(0, reload_svmtune_kfd(""));
	ASSERT_EQ(0, svmtune_read_file(SRCVERSION_PARAM, buf, sizeof(buf)));
	EXPECT_STREQ("\n", buf);
	EXPECT_STREQ("attached", kfd_word("state"));
	ASSERT_EQ(0, reload_svmtune_kfd("0123456789ABCDEF0123456789ABCDEF"));
	ASSERT_EQ(0, svmtune_read_file(SRCVERSION_PARAM, buf, sizeof(buf)));
	EXPECT_STREQ("0123456789ABCDEF0123456789ABCDEF\n", buf);
	/* The in-tree amdgpu is attached to whatever the parameter says. */
	EXPECT_STREQ("attached", kfd_word("state"));
	/* Read-only once loaded. */
	EXPECT_NE(0, svmtune_write_file(SRCVERSION_PARAM, "0123\n"));
}

/* An amdgpu with another KFD interface version is refused, in words. */
TEST_F(kfd, refuses_other_kfd_version)
{
	char buf[512];

	ASSERT_EQ(0, rmmod("amdgpu"));
	ASSERT_EQ(0, insmod_fake_amdgpu("mismatch"));
	ASSERT_EQ(0, reload_svmtune_kfd_for_loaded_amdgpu());
	EXPECT_STREQ("refused", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "KFD interface 1.99")) TH_LOG("%s", buf);
	EXPECT_EQ(0, engine_kfd_devices());
	ASSERT_EQ(0, read_kfd_file("hooks", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, " on ")) TH_LOG("%s", buf);

	ASSERT_EQ(0, rmmod("amdgpu"));
	EXPECT_STREQ("waiting", kfd_word("state"));

	/* Loaded after svmtune_kfd (the module notifier's path): refused too. */
	ASSERT_EQ(0, insmod_fake_amdgpu("mismatch"));
	EXPECT_STREQ("refused", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "KFD interface 1.99")) TH_LOG("%s", buf);
	EXPECT_EQ(0, engine_kfd_devices());
}

/* An amdgpu without SVM (Debian's stock build) is refused, in words. */
TEST_F(kfd, refuses_amdgpu_without_svm)
{
	char buf[512];

	ASSERT_EQ(0, rmmod("amdgpu"));
	ASSERT_EQ(0, insmod_fake_amdgpu("nosvm"));
	ASSERT_EQ(0, reload_svmtune_kfd_for_loaded_amdgpu());
	EXPECT_STREQ("refused", kfd_word("state"));
	ASSERT_EQ(0, read_kfd_file("reason", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "has no svm_range_restore_pages"))
	TH_LOG("%s", buf);
	EXPECT_EQ(0, engine_kfd_devices());
	ASSERT_EQ(0, rmmod("amdgpu"));
}

/*
 * The fault paths (GPU and CPU windows, declined migrations, attributes of
 * new ranges, per-process state) are tested on KFD's own code: the KFD
 * test bed's "kfdbed_test policy" and "attach" phases (run_kfdbed.sh).
 */

TEST_HARNESS_MAIN
