// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of programmable policy beyond the fault decision, on the emulated
 * GPU: what a program is told (pages that moved, processes attached and
 * detached), what it may decide besides windows (a thrashing chunk's
 * mitigation, which block a full device gives up), what it may read (the
 * kfunc svmtune_bpf_block_state()), where it may be attached (a process, a
 * cgroup, globally) and what attaching refuses, each with its errno. Every
 * invalid answer is refused and counted, the built-in one used, and the
 * data verified.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/svmtune.h>
#include <linux/svmtune_bpf.h>
#include <linux/svmtune_emu.h>

#include "bpf/svmtune_hooks_policy.h"
#include "kselftest_harness.h"
#include "svmtune_bpf_util.h"

#define CGROOT "/sys/fs/cgroup"

static int set_hooks(struct bpf_map *m, const struct hooks_data *h)
{
	__u32 key = 0;

	return bpf_map__update_elem(m, &key, sizeof(key), h, sizeof(*h),
				    BPF_ANY);
}

static int get_hooks(struct bpf_map *m, struct hooks_data *h)
{
	__u32 key = 0;

	return bpf_map__lookup_elem(m, &key, sizeof(key), h, sizeof(*h), 0);
}

/*
 * svmtune_hooks_policy.bpf.o with its struct_ops map's pid and cgroup set
 * as given, loaded; NULL if it does not load.
 */
static struct bpf_object *hooks_obj(pid_t pid, __u64 cgroup)
{
	struct bpf_object *obj = open_obj("svmtune_hooks_policy.bpf.o");
	struct svmtune_ops *ops;
	struct bpf_map *map;
	size_t sz;

	if (!obj)
		return NULL;
	map = bpf_object__find_map_by_name(obj, "hooks_policy");
	ops = map ? (void *)bpf_map__initial_value(map, &sz) : NULL;
	if (!ops) {
		bpf_object__close(obj);
		return NULL;
	}
	ops->pid = pid;
	ops->cgroup = cgroup;
	if (bpf_object__load(obj)) {
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

FIXTURE(hooks)
{
	int fd;
	int ctl;
	__u32 dev_id;
	char *buf;
	char *tmp;
	unsigned long size;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *hooks;
	struct hooks_data h;
	struct svmtune_saved_knobs knobs;
};

FIXTURE_SETUP(hooks)
{
	const char *why = bpf_unavailable();

	if (why) {
		SETUP_SKIP("programmable policy unavailable: %s", why);
		return;
	}
	ASSERT_EQ(0, svmtune_save_knobs(&self->knobs));
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	self->ctl = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->ctl);
	self->dev_id = svmtune_device_id(self->ctl, "svmtune_emu0");
	ASSERT_NE(0, self->dev_id);
	self->fd = open(EMU_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->size = 4 * MIB;
	self->buf = svmtune_map_aligned(self->size);
	ASSERT_NE(NULL, self->buf);
	self->tmp = malloc(self->size);
	ASSERT_NE(NULL, self->tmp);
	self->obj = hooks_obj(getpid(), 0);
	ASSERT_NE(NULL, self->obj);
	self->hooks = bpf_object__find_map_by_name(self->obj, "hooks");
	ASSERT_NE(NULL, self->hooks);
	memset(&self->h, 0, sizeof(self->h));
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	self->link = bpf_map__attach_struct_ops(
		bpf_object__find_map_by_name(self->obj, "hooks_policy"));
	ASSERT_NE(NULL, self->link);
}

FIXTURE_TEARDOWN(hooks)
{
	if (bpf_unavailable())
		return;
	bpf_link__destroy(self->link);
	bpf_object__close(self->obj);
	free(self->tmp);
	munmap(self->buf, self->size);
	close(self->fd);
	close(self->ctl);
	svmtune_restore_knobs(&self->knobs);
}

/* Each page the GPU's faults bring, and each the CPU's take back, told. */
TEST_F(hooks, moved_tells_every_page_each_way)
{
	struct svmtune_emu_access out;

	fill(self->buf, self->size, 1);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_READ, &out));
	ASSERT_EQ(self->size / PAGE, out.migrated);
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(self->size / PAGE, self->h.moved_to_dev);
	EXPECT_EQ(0, self->h.moved_to_sys);
	EXPECT_LE(2, self->h.moved_fault);
	EXPECT_EQ(getpid(), self->h.moved_pid);
	/* The CPU reads it all back: every page leaves the device. */
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(self->size / PAGE, self->h.moved_to_sys);
	EXPECT_EQ(self->size / PAGE, self->h.moved_to_dev);
}

/* The kfunc reads the block below the fault: resident, on this device. */
TEST_F(hooks, kfunc_reads_another_block_of_the_process)
{
	fill(self->buf, self->size, 2);
	self->h.kfunc_probe = 1;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, 2 * MIB, self->tmp,
				SVMTUNE_EMU_READ, NULL));
	ASSERT_EQ(0, gpu_access(self->fd, self->buf + 2 * MIB, PAGE, self->tmp,
				SVMTUNE_EMU_READ, NULL));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(0, self->h.kfunc_ret);
	EXPECT_EQ((uintptr_t)self->buf, self->h.kfunc_base);
	EXPECT_EQ(2 * MIB / PAGE, self->h.kfunc_resident);
	EXPECT_EQ(self->dev_id, self->h.kfunc_loc);
	EXPECT_EQ(getpid(), self->h.fault_pid);
	/* A block the engine never saw (unmapped: forgotten): -ENOENT. */
	munmap(self->buf, self->size);
	self->buf = svmtune_map_aligned(self->size);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf + 2 * MIB, PAGE, self->tmp,
				SVMTUNE_EMU_READ, NULL));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(-ENOENT, self->h.kfunc_ret);
	EXPECT_EQ(0, self->h.kfunc_resident);
}

/*
 * ping_pong() (svmtune_emu_util.h) to a detection: a long lapse, so that
 * the slow emulated machine counts every reversal, and detection at the
 * third.
 */
static void set_thrashing(struct __test_metadata *_metadata, const char *mode)
{
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing", mode));
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing_threshold", "3"));
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing_lapse_us", "1000000"));
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing_pin_ms", "60000"));
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing_pin_threshold", "0"));
	ASSERT_EQ(0, svmtune_write_sysfs("thrashing_throttle_us", "1000"));
}

/*
 * After ping-pong to a detection: whether the GPU's next read maps the
 * chunk remotely (pinned) or migrates it; and the data it read is the
 * CPU's last write.
 */
static bool pinned_after_ping_pong(struct __test_metadata *_metadata,
				   FIXTURE_DATA(hooks) * self)
{
	struct svmtune_emu_access out;

	EXPECT_EQ(0, ping_pong(self->fd, self->buf, self->tmp, 2));
	self->buf[7] = 0x5a;
	EXPECT_EQ(0, gpu_access(self->fd, self->buf, PAGE, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(0x5a, self->tmp[7]);
	return out.remote && !out.migrated;
}

/* Built-in: pin at once. The program says no mitigation: none. */
TEST_F(hooks, thrashing_program_declines_the_pin)
{
	unsigned long long replaced = bpf_counter("replaced");

	set_thrashing(_metadata, "remote");
	self->h.thrash_ret = 1;
	self->h.thrash_mitigation = SVMTUNE_BPF_THRASH_NONE;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	EXPECT_FALSE(pinned_after_ping_pong(_metadata, self));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(1, self->h.thrash_calls);
	EXPECT_EQ(SVMTUNE_BPF_THRASH_PIN, self->h.thrash_builtin);
	EXPECT_LE(1, bpf_counter("replaced") - replaced);
}

/* Built-in: detect only. The program pins: the GPU maps remotely. */
TEST_F(hooks, thrashing_program_pins_where_the_builtin_would_not)
{
	set_thrashing(_metadata, "detect");
	self->h.thrash_ret = 1;
	self->h.thrash_mitigation = SVMTUNE_BPF_THRASH_PIN;
	self->h.thrash_pin_ms = 60000;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	EXPECT_TRUE(pinned_after_ping_pong(_metadata, self));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_EQ(SVMTUNE_BPF_THRASH_NONE, self->h.thrash_builtin);
}

/* Answers out of bounds: refused, counted, the built-in one (none) used. */
TEST_F(hooks, thrashing_invalid_answers_are_refused)
{
	static const struct {
		__u32 mitigation, throttle_us, pin_ms;
		int ret;
	} bad[] = {
		{ SVMTUNE_BPF_THRASH_PIN, 0, 0, 1 },
		{ SVMTUNE_BPF_THRASH_PIN, 0, SVMTUNE_BPF_PIN_MS_MAX + 1, 1 },
		{ SVMTUNE_BPF_THRASH_THROTTLE, 0, 1, 1 },
		{ SVMTUNE_BPF_THRASH_THROTTLE, SVMTUNE_BPF_THROTTLE_US_MAX + 1,
		  1, 1 },
		{ 7, 1, 1, 1 },
		{ SVMTUNE_BPF_THRASH_PIN, 1, 60000, 2 },
	};
	unsigned int i;

	set_thrashing(_metadata, "detect");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned long long refused = bpf_counter("refused");

		/* A fresh range: no thrashing history. */
		ASSERT_EQ(0, madvise(self->buf, self->size, MADV_DONTNEED));
		munmap(self->buf, self->size);
		self->buf = svmtune_map_aligned(self->size);
		ASSERT_NE(NULL, self->buf);
		self->h.thrash_mitigation = bad[i].mitigation;
		self->h.thrash_throttle_us = bad[i].throttle_us;
		self->h.thrash_pin_ms = bad[i].pin_ms;
		self->h.thrash_ret = bad[i].ret;
		ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
		EXPECT_FALSE(pinned_after_ping_pong(_metadata, self))
		TH_LOG("answer %u", i);
		EXPECT_EQ(1, bpf_counter("refused") - refused)
		TH_LOG("answer %u", i);
	}
}

/*
 * Whether the GPU's read of @p (@size bytes) into @tmp gives the pattern
 * @seed, without the CPU touching @p (which would fault its pages home).
 */
static bool gpu_reads_pattern(int fd, char *p, unsigned long size, char *tmp,
			      char *ref, unsigned int seed,
			      struct svmtune_emu_access *out)
{
	fill(ref, size, seed);
	return !gpu_access(fd, p, size, tmp, SVMTUNE_EMU_READ, out) &&
	       !memcmp(tmp, ref, size);
}

/*
 * Device memory filled by @a (older on the LRU) and @b, @half bytes each,
 * read by the GPU; then @n (4 MiB) needs room. Returns the pages @n's read
 * evicted; checks every byte the GPU read.
 */
static unsigned long fill_then_need_room(struct __test_metadata *_metadata,
					 int fd, char *a, char *b,
					 unsigned long half, char *n, char *tmp,
					 char *ref)
{
	struct svmtune_emu_access out;

	fill(a, half, 40);
	fill(b, half, 41);
	fill(n, 4 * MIB, 42);
	EXPECT_TRUE(gpu_reads_pattern(fd, a, half, tmp, ref, 40, &out));
	EXPECT_EQ(half / PAGE, out.migrated);
	EXPECT_TRUE(gpu_reads_pattern(fd, b, half, tmp, ref, 41, &out));
	EXPECT_EQ(half / PAGE, out.migrated);
	EXPECT_EQ(0, out.evicted);
	EXPECT_TRUE(gpu_reads_pattern(fd, n, 4 * MIB, tmp, ref, 42, &out));
	return out.evicted;
}

struct full_device {
	char *a, *b, *n, *tmp, *ref;
	unsigned long half;
};

static void full_device_map(struct __test_metadata *_metadata,
			    FIXTURE_DATA(hooks) * self, struct full_device *f)
{
	__u64 free_bytes;

	ASSERT_EQ(0, svmtune_write_sysfs("evict_when_full", "1"));
	free_bytes = svmtune_device_free_bytes(self->ctl, self->dev_id);
	ASSERT_LE(8 * MIB, free_bytes);
	f->half = (free_bytes / 2) & ~(2 * MIB - 1);
	f->a = svmtune_map_aligned(f->half);
	f->b = svmtune_map_aligned(f->half);
	f->n = svmtune_map_aligned(4 * MIB);
	f->tmp = malloc(f->half);
	f->ref = malloc(f->half);
	ASSERT_NE(NULL, f->ref);
	ASSERT_NE(NULL, f->a);
	ASSERT_NE(NULL, f->b);
	ASSERT_NE(NULL, f->n);
	ASSERT_NE(NULL, f->tmp);
}

static void full_device_unmap(struct full_device *f)
{
	munmap(f->a, f->half);
	munmap(f->b, f->half);
	munmap(f->n, 4 * MIB);
	free(f->tmp);
	free(f->ref);
}

/* Whether the GPU reads @p without a fault: it is all still on the device. */
static bool still_resident(int fd, char *p, unsigned long size, char *tmp)
{
	struct svmtune_emu_access out;

	return !gpu_access(fd, p, size, tmp, SVMTUNE_EMU_READ, &out) &&
	       !out.faults;
}

/* The program takes B's blocks: A, older on the LRU, stays. */
TEST_F(hooks, evict_program_takes_the_blocks_it_names)
{
	struct full_device f;
	unsigned long evicted;

	full_device_map(_metadata, self, &f);
	self->h.evict_mode = EVICT_TAKE_RANGE;
	self->h.take_lo = (uintptr_t)f.b;
	self->h.take_hi = (uintptr_t)f.b + f.half;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	evicted = fill_then_need_room(_metadata, self->fd, f.a, f.b, f.half,
				      f.n, f.tmp, f.ref);
	EXPECT_LT(0, evicted);
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_LT(0, self->h.evict_taken);
	EXPECT_EQ(getpid(), self->h.evict_for_pid);
	EXPECT_EQ(getpid(), self->h.evict_pid);
	EXPECT_TRUE(still_resident(self->fd, f.a, f.half, f.tmp));
	fill(f.tmp, f.half, 41);
	EXPECT_EQ(0, memcmp(f.b, f.tmp, f.half));
	full_device_unmap(&f);
}

/* Built-in order for comparison: A, the least recent, goes first. */
TEST_F(hooks, evict_builtin_order_takes_the_oldest)
{
	struct full_device f;

	full_device_map(_metadata, self, &f);
	EXPECT_LT(0, fill_then_need_room(_metadata, self->fd, f.a, f.b, f.half,
					 f.n, f.tmp, f.ref));
	EXPECT_FALSE(still_resident(self->fd, f.a, f.half, f.tmp));
	full_device_unmap(&f);
}

/* Spare everything: nothing is evicted, what does not fit maps remotely. */
TEST_F(hooks, evict_program_that_spares_all_leaves_remote_mappings)
{
	struct svmtune_emu_access out;
	struct full_device f;

	full_device_map(_metadata, self, &f);
	self->h.evict_mode = EVICT_SPARE_ALL;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	EXPECT_EQ(0, fill_then_need_room(_metadata, self->fd, f.a, f.b, f.half,
					 f.n, f.tmp, f.ref));
	EXPECT_TRUE(gpu_reads_pattern(self->fd, f.n, 4 * MIB, f.tmp, f.ref, 42,
				      &out));
	EXPECT_TRUE(still_resident(self->fd, f.a, f.half, f.tmp));
	ASSERT_EQ(0, get_hooks(self->hooks, &self->h));
	EXPECT_LT(0, self->h.evict_calls);
	full_device_unmap(&f);
}

/* An answer the engine does not know: refused, the built-in order used. */
TEST_F(hooks, evict_invalid_answer_is_refused)
{
	unsigned long long refused = bpf_counter("refused");
	struct full_device f;

	full_device_map(_metadata, self, &f);
	self->h.evict_mode = EVICT_INVALID;
	ASSERT_EQ(0, set_hooks(self->hooks, &self->h));
	EXPECT_LT(0, fill_then_need_room(_metadata, self->fd, f.a, f.b, f.half,
					 f.n, f.tmp, f.ref));
	EXPECT_LT(0, bpf_counter("refused") - refused);
	EXPECT_FALSE(still_resident(self->fd, f.a, f.half, f.tmp));
	full_device_unmap(&f);
}

/*
 * The cgroup (v2) id of the directory @path: its inode number (kernfs
 * numbers its nodes by id on 64-bit machines; the test kernel has no
 * CONFIG_FHANDLE for name_to_handle_at()).
 */
static __u64 cgroup_id_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* cgroup2 mounted at CGROOT, and a fresh child cgroup @path made there. */
static const char *make_cgroup(char *path, size_t len)
{
	struct stat st;

	if (stat(CGROOT "/cgroup.procs", &st) &&
	    mount("none", CGROOT, "cgroup2", 0, NULL))
		return "cannot mount cgroup2 on " CGROOT;
	snprintf(path, len, CGROOT "/svmtune_bpf_%d", getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		return "cannot make a cgroup";
	return NULL;
}

/*
 * A program attached to a cgroup runs for the processes in it: a child
 * that joins the cgroup, opens the emulated GPU and reads a buffer on it
 * is attached (its pid, the cgroup's id), its faults run the cgroup's
 * program, and its exit detaches it. This process, outside the cgroup,
 * runs none of it.
 */
TEST(cgroup_program_runs_for_its_processes)
{
	const char *why = bpf_unavailable();
	struct hooks_data h = {};
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *hooks;
	char path[128], procs[160];
	__u64 id;
	pid_t pid;
	int status, i;

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	why = make_cgroup(path, sizeof(path));
	if (why)
		SKIP(return, "%s", why);
	id = cgroup_id_of(path);
	ASSERT_NE(0, id);
	obj = hooks_obj(0, id);
	ASSERT_NE(NULL, obj);
	hooks = bpf_object__find_map_by_name(obj, "hooks");
	ASSERT_EQ(0, set_hooks(hooks, &h));
	link = bpf_map__attach_struct_ops(
		bpf_object__find_map_by_name(obj, "hooks_policy"));
	ASSERT_NE(NULL, link);

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *buf = svmtune_map_aligned(2 * MIB),
		     *tmp = malloc(2 * MIB);
		int fd;

		if (svmtune_write_file(procs, "0") || !buf || !tmp)
			_exit(2);
		fd = open(EMU_DEV, O_RDWR);
		if (fd < 0)
			_exit(3);
		fill(buf, 2 * MIB, 50);
		if (gpu_access(fd, buf, 2 * MIB, tmp, SVMTUNE_EMU_READ, NULL) ||
		    memcmp(buf, tmp, 2 * MIB))
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The address space goes at the child's exit, maybe a little later. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_hooks(hooks, &h));
		if (h.detach_calls)
			break;
		usleep(20000);
	}
	EXPECT_EQ(1, h.attach_calls);
	EXPECT_EQ(pid, h.attach_pid);
	EXPECT_EQ(id, h.attach_cgroup);
	EXPECT_LE(1, h.dev_calls);
	EXPECT_EQ(pid, h.fault_pid);
	EXPECT_EQ(id, h.fault_cgroup);
	EXPECT_EQ(1, h.detach_calls);
	EXPECT_EQ(pid, h.detach_pid);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	EXPECT_EQ(0, rmdir(path));
}

/* What a tenant's GPU read did, sent back by the child that ran it. */
struct tenant_run {
	int status; /* 0, or the step that failed */
	__u64 migrated;
	__u64 remote;
};

/*
 * In a child: join the cgroup at @path, read a @size buffer on the
 * emulated GPU and check it; report what moved through @wfd.
 */
static void tenant(const char *path, unsigned long size, int wfd)
{
	struct tenant_run r = { .status = 1 };
	struct svmtune_emu_access out;
	char procs[160], *buf, *tmp;
	int fd;

	/* Join first: the engine takes the cgroup when it first sees us. */
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	if (svmtune_write_file(procs, "0"))
		goto out;
	buf = svmtune_map_aligned(size);
	tmp = malloc(size);
	fd = open(EMU_DEV, O_RDWR);
	if (buf && tmp && fd >= 0) {
		r.status = 2;
		fill(buf, size, 60);
		if (!gpu_access(fd, buf, size, tmp, SVMTUNE_EMU_READ, &out) &&
		    !memcmp(buf, tmp, size)) {
			r.status = 0;
			r.migrated = out.migrated;
			r.remote = out.remote;
		}
	}
out:
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/* Run tenant() in a child in the cgroup @path; its report. */
static struct tenant_run run_tenant(const char *path, unsigned long size)
{
	struct tenant_run r = { .status = 9 };
	int p[2];
	pid_t pid;

	if (pipe(p))
		return r;
	pid = fork();
	if (!pid)
		tenant(path, size, p[1]);
	close(p[1]);
	if (pid < 0 || read(p[0], &r, sizeof(r)) != sizeof(r))
		r.status = 8;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return r;
}

/*
 * tools/policies/vram_share.bpf.o, attached globally: two tenants (two
 * cgroups) with shares of 16 and 8 MiB each read a 32 MiB buffer with
 * 2 MiB windows. Each gets exactly its share in device memory and maps
 * the rest remotely, every byte read right; when each exits, its pages
 * go back to its tenant's count.
 */
TEST(vram_share_caps_each_tenant)
{
	const unsigned long share[2] = { 16 * MIB, 8 * MIB };
	const char *why = bpf_unavailable();
	struct svmtune_saved_knobs knobs;
	char path[2][160];
	struct bpf_object *obj;
	struct bpf_map *shares;
	struct bpf_link *link;
	__u64 id[2];
	unsigned int t;

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	why = make_cgroup(path[0], sizeof(path[0]) - 2);
	if (why)
		SKIP(return, "%s", why);
	snprintf(path[1], sizeof(path[1]), "%.150s_b", path[0]);
	ASSERT_TRUE(!mkdir(path[1], 0755) || errno == EEXIST);
	ASSERT_EQ(0, svmtune_save_knobs(&knobs));
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	obj = open_obj("vram_share.bpf.o");
	ASSERT_NE(NULL, obj);
	ASSERT_EQ(0, bpf_object__load(obj));
	shares = bpf_object__find_map_by_name(obj, "vram_share");
	ASSERT_NE(NULL, shares);
	for (t = 0; t < 2; t++) {
		struct {
			__u64 share;
			__s64 resident;
		} v = {
			.share = share[t] / PAGE,
		};

		id[t] = cgroup_id_of(path[t]);
		ASSERT_NE(0, id[t]);
		ASSERT_EQ(0, bpf_map__update_elem(shares, &id[t], sizeof(id[t]),
						  &v, sizeof(v), BPF_ANY));
	}
	link = bpf_map__attach_struct_ops(
		bpf_object__find_map_by_name(obj, "vram_share_policy"));
	ASSERT_NE(NULL, link);
	for (t = 0; t < 2; t++) {
		struct tenant_run r = run_tenant(path[t], 32 * MIB);
		struct {
			__u64 share;
			__s64 resident;
		} v;
		int i;

		EXPECT_EQ(0, r.status) TH_LOG("tenant %u", t);
		EXPECT_EQ(share[t] / PAGE, r.migrated) TH_LOG("tenant %u", t);
		EXPECT_EQ((32 * MIB - share[t]) / PAGE, r.remote)
		TH_LOG("tenant %u", t);
		for (i = 0; i < 100; i++) {
			ASSERT_EQ(0, bpf_map__lookup_elem(shares, &id[t],
							  sizeof(id[t]), &v,
							  sizeof(v), 0));
			if (!v.resident)
				break;
			usleep(20000);
		}
		EXPECT_EQ(0, v.resident) TH_LOG("tenant %u", t);
	}
	bpf_link__destroy(link);
	bpf_object__close(obj);
	svmtune_restore_knobs(&knobs);
	EXPECT_EQ(0, rmdir(path[1]));
	EXPECT_EQ(0, rmdir(path[0]));
}

/*
 * svmtune_test_policies.bpf.o with its map's @pid, @cgroup, @name and
 * @reserved as given, in *@obj; its struct_ops map, loaded, or NULL with
 * *@err the load's errno.
 */
static struct bpf_map *test_policy(__u32 pid, __u64 cgroup, const char *name,
				   __u32 reserved, struct bpf_object **obj,
				   int *err)
{
	struct svmtune_ops *ops;
	struct bpf_map *map;
	size_t sz;

	*err = EINVAL;
	*obj = open_obj("svmtune_test_policies.bpf.o");
	if (!*obj)
		return NULL;
	map = bpf_object__find_map_by_name(*obj, "test_policy");
	ops = map ? (void *)bpf_map__initial_value(map, &sz) : NULL;
	if (!ops)
		return NULL;
	ops->pid = pid;
	ops->cgroup = cgroup;
	ops->reserved = reserved;
	memset(ops->name, 0, sizeof(ops->name));
	memcpy(ops->name, name, strnlen(name, sizeof(ops->name)));
	*err = -bpf_object__load(*obj);
	return *err ? NULL : map;
}

/* 0 when @map attaches (then detached), else the attach's errno. */
static int try_attach(struct bpf_map *map)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(map);
	int err = link ? 0 : errno;

	bpf_link__destroy(link);
	return err;
}

/*
 * Attach svmtune_test_policies.bpf.o's map with the fields as given.
 * Return 0 when it attached (then detached), else the errno of the load
 * or the attach.
 */
static int attach_errno(__u32 pid, __u64 cgroup, const char *name,
			__u32 reserved)
{
	struct bpf_object *obj;
	struct bpf_map *map;
	int err;

	map = test_policy(pid, cgroup, name, reserved, &obj, &err);
	if (map)
		err = try_attach(map);
	bpf_object__close(obj);
	return err;
}

/* A pid that no process has: a child's, reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* Every field of the struct_ops map is checked, each with its errno. */
TEST(attach_refuses_bad_fields)
{
	const char *why = bpf_unavailable();

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	EXPECT_EQ(0, attach_errno(getpid(), 0, "ok", 0));
	EXPECT_EQ(ESRCH, attach_errno(dead_pid(), 0, "ok", 0));
	EXPECT_EQ(EINVAL, attach_errno(0x80000000u, 0, "ok", 0));
	EXPECT_EQ(EINVAL, attach_errno(getpid(), 1, "ok", 0));
	EXPECT_EQ(ENOENT, attach_errno(0, 0xffffffffffull, "ok", 0));
	EXPECT_EQ(EINVAL, attach_errno(getpid(), 0, "", 0));
	EXPECT_EQ(EINVAL, attach_errno(getpid(), 0, "two words", 0));
	EXPECT_EQ(EINVAL, attach_errno(getpid(), 0, "tab\there", 0));
	EXPECT_EQ(EINVAL, attach_errno(getpid(), 0, "ok", 1));
}

/* One global program at a time: a second one is EBUSY. */
TEST(second_global_program_is_busy)
{
	const char *why = bpf_unavailable();
	struct bpf_object *obj;
	struct bpf_link *link;
	char buf[256];

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	obj = hooks_obj(0, 0);
	ASSERT_NE(NULL, obj);
	link = bpf_map__attach_struct_ops(
		bpf_object__find_map_by_name(obj, "hooks_policy"));
	ASSERT_NE(NULL, link);
	EXPECT_EQ(EBUSY, attach_errno(0, 0, "second", 0));
	ASSERT_LE(0, svmtune_read_sysfs("bpf/attached", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "global hooks\n")) TH_LOG("%s", buf);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	ASSERT_LE(0, svmtune_read_sysfs("bpf/attached", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "global hooks\n")) TH_LOG("%s", buf);
	EXPECT_EQ(0, attach_errno(0, 0, "second", 0));
}

/*
 * Without CAP_SYS_ADMIN (but with the BPF rights to have loaded them): a
 * cgroup's program is EPERM, a global one too, and so is a per-process one
 * with an evict callback (it sees other processes' blocks); a per-process
 * one without is fine.
 */
TEST(cgroup_and_evict_need_cap_sys_admin)
{
	const char *why = bpf_unavailable();
	struct bpf_object *hobj, *cobj, *gobj, *mobj;
	struct bpf_map *hmap, *cmap, *gmap, *mmap_;
	char path[128];
	int status, err;
	pid_t pid;
	__u64 id;

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	why = make_cgroup(path, sizeof(path));
	if (why)
		SKIP(return, "%s", why);
	id = cgroup_id_of(path);
	ASSERT_NE(0, id);
	hobj = hooks_obj(getpid(), 0);
	ASSERT_NE(NULL, hobj);
	hmap = bpf_object__find_map_by_name(hobj, "hooks_policy");
	cmap = test_policy(0, id, "cg", 0, &cobj, &err);
	ASSERT_NE(NULL, cmap);
	gmap = test_policy(0, 0, "global", 0, &gobj, &err);
	ASSERT_NE(NULL, gmap);
	mmap_ = test_policy(getpid(), 0, "mine", 0, &mobj, &err);
	ASSERT_NE(NULL, mmap_);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(2);
		if (try_attach(cmap) != EPERM)
			_exit(3);
		if (try_attach(hmap) != EPERM)
			_exit(4);
		if (try_attach(gmap) != EPERM)
			_exit(5);
		_exit(try_attach(mmap_) ? 6 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* With it, each attaches. */
	EXPECT_EQ(0, try_attach(cmap));
	EXPECT_EQ(0, try_attach(hmap));
	bpf_object__close(hobj);
	bpf_object__close(cobj);
	bpf_object__close(gobj);
	bpf_object__close(mobj);
	EXPECT_EQ(0, rmdir(path));
}

TEST_HARNESS_MAIN
