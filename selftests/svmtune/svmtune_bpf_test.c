// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of programmable policy: the svmtune_ops struct_ops type, driven on
 * the emulated GPU. A program attached to this process sets the windows
 * its faults migrate; what the engine must refuse (sizes out of range,
 * unknown actions, wrong destinations, return values) is refused and
 * counted with the built-in decision used and the data intact; programs
 * that write what they must not, or that could sleep, do not load; a
 * global program needs CAP_SYS_ADMIN; detaching under a running workload
 * loses nothing; a program's storage in blocks and ranges lives with them
 * and is zeroed for each attachment; the built-in adaptive policy as a
 * program (tools/policies/adaptive.bpf.c) decides as the built-in one.
 *
 * The BPF objects are built by this directory's Makefile with clang from
 * the sources in bpf/ and found beside this binary, in bpf/.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/svmtune.h>
#include <linux/svmtune_bpf.h>
#include <linux/svmtune_emu.h>

#include "bpf/svmtune_storage.h"
#include "bpf/svmtune_test_policies.h"
#include "kselftest_harness.h"
#include "svmtune_bpf_util.h"

/* What the test policy answers unless a test says otherwise: 64 KiB. */
static const struct policy_data default_answers = {
	.dev_shift = 16,
	.dev_action = SVMTUNE_BPF_MIGRATE,
	.dev_dest = SAME_AS_FAULT,
	.dev_ret = 1,
	.cpu_shift = 16,
	.cpu_ret = 1,
};

static int set_answers(struct bpf_map *settings, const struct policy_data *p)
{
	__u32 key = 0;

	return bpf_map__update_elem(settings, &key, sizeof(key), p, sizeof(*p),
				    BPF_ANY);
}

FIXTURE(bpf)
{
	int fd;
	char *buf;
	char *tmp;
	unsigned long size;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *settings;
	struct policy_data data;
	struct svmtune_saved_knobs knobs;
};

FIXTURE_SETUP(bpf)
{
	const char *why = bpf_unavailable();
	struct bpf_map *map;
	struct svmtune_ops *ops;
	size_t sz;

	if (why) {
		SETUP_SKIP("programmable policy unavailable: %s", why);
		return;
	}
	ASSERT_EQ(0, svmtune_save_knobs(&self->knobs));
	/* The built-in policy under the program: fixed 2 MiB windows. */
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	self->fd = open(EMU_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->size = 4 * MIB;
	self->buf = svmtune_map_aligned(self->size);
	ASSERT_NE(NULL, self->buf);
	self->tmp = malloc(self->size);
	ASSERT_NE(NULL, self->tmp);

	self->obj = open_obj("svmtune_test_policies.bpf.o");
	ASSERT_NE(NULL, self->obj);
	map = bpf_object__find_map_by_name(self->obj, "test_policy");
	ASSERT_NE(NULL, map);
	ops = (void *)bpf_map__initial_value(map, &sz);
	ASSERT_NE(NULL, ops);
	ops->pid = getpid();
	ASSERT_EQ(0, bpf_object__load(self->obj));
	self->settings = bpf_object__find_map_by_name(self->obj, "settings");
	ASSERT_NE(NULL, self->settings);
	self->data = default_answers;
	ASSERT_EQ(0, set_answers(self->settings, &self->data));
	self->link = bpf_map__attach_struct_ops(
		bpf_object__find_map_by_name(self->obj, "test_policy"));
	ASSERT_NE(NULL, self->link);
}

FIXTURE_TEARDOWN(bpf)
{
	if (bpf_unavailable())
		return;
	bpf_link__destroy(self->link);
	bpf_object__close(self->obj);
	free(self->tmp);
	munmap(self->buf, self->size);
	close(self->fd);
	svmtune_restore_knobs(&self->knobs);
}

/* The program's 64 KiB windows replace the built-in 2 MiB ones. */
TEST_F(bpf, program_sets_the_window_of_every_fault)
{
	unsigned long long replaced = bpf_counter("replaced");
	struct svmtune_emu_access out;

	fill(self->buf, self->size, 1);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(self->size / (64 * KIB), out.faults);
	EXPECT_EQ(self->size / PAGE, out.migrated);
	EXPECT_EQ(self->size / (64 * KIB), bpf_counter("replaced") - replaced);
	/* The CPU reads it back: 64 KiB per CPU fault, the program's too. */
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	EXPECT_EQ(2 * self->size / (64 * KIB),
		  bpf_counter("replaced") - replaced);
}

/* Return 0: the built-in decision stands, and nothing is refused. */
TEST_F(bpf, program_that_keeps_the_decision_changes_nothing)
{
	unsigned long long refused = bpf_counter("refused");
	struct svmtune_emu_access out;

	self->data.dev_ret = 0;
	ASSERT_EQ(0, set_answers(self->settings, &self->data));
	fill(self->buf, self->size, 2);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(self->size / (2 * MIB), out.faults);
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	EXPECT_EQ(refused, bpf_counter("refused"));
}

/*
 * Each answer the engine must refuse: the built-in 2 MiB decision is used
 * for every fault, each refusal is counted, and the data is intact.
 */
TEST_F(bpf, misbehaving_answers_are_refused_and_counted)
{
	static const struct policy_data bad[] = {
		{ .dev_shift = 11, .dev_dest = SAME_AS_FAULT, .dev_ret = 1 },
		{ .dev_shift = 31, .dev_dest = SAME_AS_FAULT, .dev_ret = 1 },
		{ .dev_shift = 16,
		  .dev_action = 2,
		  .dev_dest = SAME_AS_FAULT,
		  .dev_ret = 1 },
		{ .dev_shift = 16, .dev_dest = 0, .dev_ret = 1 }, /* to RAM */
		{ .dev_shift = 16,
		  .dev_action = SVMTUNE_BPF_MAP_REMOTE,
		  .dev_dest = 63,
		  .dev_ret = 1 }, /* no such device */
		{ .dev_shift = 16, .dev_dest = SAME_AS_FAULT, .dev_ret = 2 },
		{ .dev_shift = 16, .dev_dest = SAME_AS_FAULT, .dev_ret = -1 },
	};
	struct svmtune_emu_access out;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned long long refused = bpf_counter("refused");
		char *p = self->buf + (i % 2) * 2 * MIB;

		ASSERT_EQ(0, set_answers(self->settings, &bad[i]));
		/* Start from system memory each time. */
		ASSERT_EQ(0, madvise(self->buf, self->size, MADV_DONTNEED));
		fill(p, 2 * MIB, 10 + i);
		ASSERT_EQ(0, gpu_access(self->fd, p, 2 * MIB, self->tmp,
					SVMTUNE_EMU_READ, &out));
		EXPECT_EQ(1, out.faults) TH_LOG("answer %u", i);
		EXPECT_EQ(2 * MIB / PAGE, out.migrated) TH_LOG("answer %u", i);
		EXPECT_EQ(0, memcmp(p, self->tmp, 2 * MIB))
		TH_LOG("answer %u", i);
		EXPECT_EQ(1, bpf_counter("refused") - refused)
		TH_LOG("answer %u", i);
	}
}

/* The widest window a program may ask for is cut to the VMA. */
TEST_F(bpf, widest_window_is_cut_to_the_mapping)
{
	struct svmtune_emu_access out;

	self->data.dev_shift = 30;
	ASSERT_EQ(0, set_answers(self->settings, &self->data));
	fill(self->buf, self->size, 3);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, PAGE, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(1, out.faults);
	/* The whole mapping (and any neighbour it merged with) moved. */
	EXPECT_LE(self->size / PAGE, out.migrated);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(0, out.faults);
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
}

/* Always remote: nothing migrates, every byte is read from RAM. */
TEST_F(bpf, always_remote_migrates_nothing_and_loses_nothing)
{
	struct svmtune_emu_access out;

	self->data.dev_action = SVMTUNE_BPF_MAP_REMOTE;
	self->data.dev_dest = 0;
	ASSERT_EQ(0, set_answers(self->settings, &self->data));
	fill(self->buf, self->size, 4);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_READ, &out));
	EXPECT_EQ(0, out.migrated);
	EXPECT_EQ(self->size / PAGE, out.remote);
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	fill(self->tmp, self->size, 5);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_WRITE, &out));
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
}

/* A CPU fault on device memory takes the program's window back. */
TEST_F(bpf, cpu_fault_window_is_the_programs)
{
	unsigned long long replaced;
	struct svmtune_emu_access out;
	char c;

	self->data.dev_ret = 0; /* 2 MiB to the device */
	ASSERT_EQ(0, set_answers(self->settings, &self->data));
	fill(self->tmp, self->size, 6);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size, self->tmp,
				SVMTUNE_EMU_WRITE, &out));
	ASSERT_EQ(self->size / PAGE, out.migrated);
	replaced = bpf_counter("replaced");
	c = self->buf[0]; /* one CPU fault: 64 KiB come back */
	EXPECT_EQ(self->tmp[0], c);
	EXPECT_EQ(1, bpf_counter("replaced") - replaced);
	EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	EXPECT_EQ(self->size / (64 * KIB), bpf_counter("replaced") - replaced);
}

struct hammer {
	int fd;
	char *buf;
	unsigned long size;
	atomic_int stop;
	unsigned long rounds;
	unsigned long bad;
};

static void *hammer_gpu(void *arg)
{
	struct hammer *h = arg;
	char *tmp = malloc(h->size);

	while (tmp && !atomic_load(&h->stop)) {
		if (gpu_access(h->fd, h->buf, h->size, tmp, SVMTUNE_EMU_READ,
			       NULL) ||
		    memcmp(h->buf, tmp, h->size))
			h->bad++;
		h->rounds++;
	}
	free(tmp);
	return NULL;
}

/* Attach and detach, again and again, while the GPU faults. */
TEST_F(bpf, detach_under_a_running_workload)
{
	struct bpf_map *map =
		bpf_object__find_map_by_name(self->obj, "test_policy");
	struct hammer h = { .fd = self->fd,
			    .buf = self->buf,
			    .size = self->size };
	pthread_t t;
	int i;

	fill(self->buf, self->size, 7);
	ASSERT_EQ(0, pthread_create(&t, NULL, hammer_gpu, &h));
	for (i = 0; i < 20; i++) {
		bpf_link__destroy(self->link);
		usleep(20000);
		self->link = bpf_map__attach_struct_ops(map);
		ASSERT_NE(NULL, self->link);
		usleep(20000);
	}
	atomic_store(&h.stop, 1);
	pthread_join(t, NULL);
	EXPECT_LT(0, h.rounds);
	EXPECT_EQ(0, h.bad);
}

/* One program per process: a second one is refused with EEXIST. */
TEST_F(bpf, second_program_on_the_same_process_is_refused)
{
	struct bpf_object *obj = open_obj("svmtune_test_policies.bpf.o");
	struct bpf_map *map;
	struct svmtune_ops *ops;
	struct bpf_link *link;
	size_t sz;

	ASSERT_NE(NULL, obj);
	map = bpf_object__find_map_by_name(obj, "test_policy");
	ops = (void *)bpf_map__initial_value(map, &sz);
	ops->pid = getpid();
	ASSERT_EQ(0, bpf_object__load(obj));
	link = bpf_map__attach_struct_ops(map);
	EXPECT_EQ(NULL, link);
	EXPECT_EQ(EEXIST, errno);
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

/* A global program needs CAP_SYS_ADMIN, whatever BPF rights it has. */
TEST_F(bpf, global_program_needs_cap_sys_admin)
{
	struct bpf_object *obj = open_obj("svmtune_test_policies.bpf.o");
	struct bpf_map *map;
	struct bpf_link *link;
	pid_t pid;
	int status;

	ASSERT_NE(NULL, obj);
	map = bpf_object__find_map_by_name(obj, "test_policy");
	ASSERT_EQ(0, bpf_object__load(obj)); /* pid 0: global */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(2);
		link = bpf_map__attach_struct_ops(map);
		_exit(!link && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* With it, the global program attaches, and detaches. */
	link = bpf_map__attach_struct_ops(map);
	EXPECT_NE(NULL, link);
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

/*
 * Load tools/policies/@name.bpf.o, its struct_ops map @map attached to
 * this process. Return the object, or NULL.
 */
static struct bpf_object *load_policy(const char *name, const char *map_name,
				      struct bpf_link **link)
{
	char file[64];
	struct bpf_object *obj;
	struct bpf_map *map;
	struct svmtune_ops *ops;
	size_t sz;

	snprintf(file, sizeof(file), "%s.bpf.o", name);
	obj = open_obj(file);
	if (!obj)
		return NULL;
	map = bpf_object__find_map_by_name(obj, map_name);
	ops = map ? (void *)bpf_map__initial_value(map, &sz) : NULL;
	if (!ops)
		goto fail;
	ops->pid = getpid();
	if (bpf_object__load(obj))
		goto fail;
	*link = bpf_map__attach_struct_ops(map);
	if (*link)
		return obj;
fail:
	bpf_object__close(obj);
	return NULL;
}

FIXTURE(policies)
{
	int fd;
	char *buf;
	char *tmp;
	unsigned long size;
	struct svmtune_saved_knobs knobs;
};

FIXTURE_SETUP(policies)
{
	const char *why = bpf_unavailable();

	if (why) {
		SETUP_SKIP("programmable policy unavailable: %s", why);
		return;
	}
	ASSERT_EQ(0, svmtune_save_knobs(&self->knobs));
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "64K"));
	self->fd = open(EMU_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->size = 8 * MIB;
	self->buf = svmtune_map_aligned(self->size);
	ASSERT_NE(NULL, self->buf);
	self->tmp = malloc(self->size);
	ASSERT_NE(NULL, self->tmp);
	fill(self->buf, self->size, 20);
}

FIXTURE_TEARDOWN(policies)
{
	if (bpf_unavailable())
		return;
	free(self->tmp);
	munmap(self->buf, self->size);
	close(self->fd);
	svmtune_restore_knobs(&self->knobs);
}

/* GPU faults every @stride bytes of the buffer; the faults they took. */
static unsigned long strided_faults(int fd, char *buf, unsigned long size,
				    unsigned long stride, char *tmp)
{
	struct svmtune_emu_access out;
	unsigned long off, faults = 0;

	for (off = 0; off < size; off += stride) {
		if (gpu_access(fd, buf + off, PAGE, tmp, SVMTUNE_EMU_READ,
			       &out))
			return ~0UL;
		if (memcmp(buf + off, tmp, PAGE))
			return ~0UL;
		faults += out.faults;
	}
	return faults;
}

/*
 * The stride detector: a GPU reading a page every 256 KiB faults on each
 * under 64 KiB windows; with the program, once the stride repeats, the
 * window covers four strides (1 MiB) and most of the reads find their page
 * already there.
 */
TEST_F(policies, stride_detector_widens_on_a_repeating_stride)
{
	unsigned long builtin, with;
	struct bpf_object *obj;
	struct bpf_link *link;

	builtin = strided_faults(self->fd, self->buf, self->size, 256 * KIB,
				 self->tmp);
	EXPECT_EQ(self->size / (256 * KIB), builtin);
	ASSERT_EQ(0, madvise(self->buf, self->size, MADV_DONTNEED));
	fill(self->buf, self->size, 21);

	obj = load_policy("stride", "stride", &link);
	ASSERT_NE(NULL, obj);
	with = strided_faults(self->fd, self->buf, self->size, 256 * KIB,
			      self->tmp);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	/* 2 faults to see the stride, then one per 1 MiB window. */
	EXPECT_GE(2 + self->size / MIB, with);
	EXPECT_LT(with, builtin);
}

/* The phase the application writes in the map picks the window. */
TEST_F(policies, phase_hint_from_a_map_picks_the_window)
{
	static const struct {
		__u32 phase;
		unsigned long faults, migrated, remote;
	} want[] = {
		{ 1, 4, 8 * MIB / PAGE, 0 }, /* stream: 2 MiB */
		{ 2, 128, 8 * MIB / PAGE, 0 }, /* sparse: 64 KiB */
		{ 3, 4, 0, 8 * MIB / PAGE }, /* shared: remote */
		{ 0, 128, 8 * MIB / PAGE, 0 }, /* built-in: 64 KiB */
	};
	struct svmtune_emu_access out;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *phase;
	unsigned int i;
	__u32 key = 0;

	obj = load_policy("phase_hint", "phase_hint", &link);
	ASSERT_NE(NULL, obj);
	phase = bpf_object__find_map_by_name(obj, "svmtune_phase");
	ASSERT_NE(NULL, phase);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ASSERT_EQ(0, madvise(self->buf, self->size, MADV_DONTNEED));
		fill(self->buf, self->size, 30 + i);
		ASSERT_EQ(0, bpf_map__update_elem(
				     phase, &key, sizeof(key), &want[i].phase,
				     sizeof(want[i].phase), BPF_ANY));
		ASSERT_EQ(0, gpu_access(self->fd, self->buf, self->size,
					self->tmp, SVMTUNE_EMU_READ, &out));
		EXPECT_EQ(want[i].faults, out.faults)
		TH_LOG("phase %u", want[i].phase);
		EXPECT_EQ(want[i].migrated, out.migrated)
		TH_LOG("phase %u", want[i].phase);
		EXPECT_EQ(want[i].remote, out.remote)
		TH_LOG("phase %u", want[i].phase);
		EXPECT_EQ(0, memcmp(self->buf, self->tmp, self->size));
	}
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

/* What svmtune_storage.bpf.c saw at the last fault. */
static struct storage_seen storage_seen(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "seen");
	struct storage_seen v = { .faults = ~0ULL };
	__u32 key = 0;

	if (map)
		bpf_map__lookup_elem(map, &key, sizeof(key), &v, sizeof(v), 0);
	return v;
}

/*
 * A program's storage: a block's counts the faults in that block, a
 * range's every fault of the buffer; a new attachment finds both zeroed;
 * more than SVMTUNE_BPF_DATA_SIZE bytes is never given.
 */
TEST_F(policies, program_storage_lives_with_blocks_and_ranges)
{
	struct storage_seen v;
	struct bpf_object *obj;
	struct bpf_link *link;
	unsigned long i;

	obj = load_policy("svmtune_storage", "storage", &link);
	ASSERT_NE(NULL, obj);
	/* Four 64 KiB windows of block 0, then one of block 1. */
	for (i = 0; i < 5; i++) {
		char *at = self->buf + (i < 4 ? i * 64 * KIB : 2 * MIB);

		ASSERT_EQ(0, gpu_access(self->fd, at, PAGE, self->tmp,
					SVMTUNE_EMU_READ, NULL));
		ASSERT_EQ(0, memcmp(at, self->tmp, PAGE));
		v = storage_seen(obj);
		EXPECT_EQ(i + 1, v.faults);
		EXPECT_EQ(i < 4 ? i : 0, v.block) TH_LOG("fault %lu", i);
		EXPECT_EQ(i, v.range) TH_LOG("fault %lu", i);
		EXPECT_EQ(0, v.big_not_null);
	}
	bpf_link__destroy(link);
	bpf_object__close(obj);

	/* Another attachment: the same block and range, zeroed for it. */
	obj = load_policy("svmtune_storage", "storage", &link);
	ASSERT_NE(NULL, obj);
	ASSERT_EQ(0, gpu_access(self->fd, self->buf + 4 * 64 * KIB, PAGE,
				self->tmp, SVMTUNE_EMU_READ, NULL));
	v = storage_seen(obj);
	EXPECT_EQ(1, v.faults);
	EXPECT_EQ(0, v.block);
	EXPECT_EQ(0, v.range);
	EXPECT_EQ(0, v.big_not_null);
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

#define ADAPT_STEPS 160

/* What one GPU access of the adaptive comparison took. */
struct adapt_step {
	__u64 faults;
	__u64 migrated;
	__u64 remote;
};

/* One GPU read of the comparison, checked, recorded as step @n. */
static int adapt_read(int fd, char *at, unsigned long len, char *tmp,
		      struct adapt_step *st, int n)
{
	struct svmtune_emu_access out;

	if (n < 0 || n >= ADAPT_STEPS ||
	    gpu_access(fd, at, len, tmp, SVMTUNE_EMU_READ, &out) ||
	    memcmp(at, tmp, len))
		return -1;
	st[n].faults = out.faults;
	st[n].migrated = out.migrated;
	st[n].remote = out.remote;
	return n + 1;
}

/*
 * The workload the adaptive program and the built-in adaptive policy are
 * compared on, over @buf (8 MiB): GPU reads one page in every 256 KiB
 * (sparse), the CPU writes the buffer back (pages the windows brought and
 * the GPU never used: waste), the sparse reads again, a stream of 512 KiB
 * reads over the whole buffer, the CPU writes half of it, then reads of
 * scattered pages. Every GPU read checked. Returns the steps taken, or -1.
 */
static int adapt_workload(int fd, char *buf, unsigned long size, char *tmp,
			  struct adapt_step *st)
{
	unsigned long off, x = 12345;
	int n = 0, pass, i;

	fill(buf, size, 40);
	for (pass = 0; pass < 2; pass++) {
		for (off = 0; off < size; off += 256 * KIB)
			n = adapt_read(fd, buf + off, PAGE, tmp, st, n);
		if (!pass)
			fill(buf, size, 41);
	}
	for (off = 0; off < size; off += 512 * KIB)
		n = adapt_read(fd, buf + off, 512 * KIB, tmp, st, n);
	fill(buf, size / 2, 42);
	for (i = 0; i < 64; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		off = ((x >> 33) % (size / PAGE)) * PAGE;
		n = adapt_read(fd, buf + off, PAGE, tmp, st, n);
	}
	return n;
}

/*
 * tools/policies/adaptive.bpf.c over fixed 2 MiB decides as the built-in
 * adaptive policy: the same faults and pages for every access of a
 * workload that grows, shrinks and wastes windows. The two run on two
 * buffers 2 MiB apart, so neither sees the other's blocks or range.
 */
TEST_F(policies, adaptive_program_decides_as_the_builtin_adaptive)
{
	static struct adapt_step builtin[ADAPT_STEPS], prog[ADAPT_STEPS];
	unsigned long size = self->size, faults = 0, distinct = 0;
	int nb, np, i;
	struct bpf_object *obj;
	struct bpf_link *link;
	char *region, *a, *b;

	region = svmtune_map_aligned(2 * size + 2 * MIB);
	ASSERT_NE(NULL, region);
	a = region;
	b = region + size + 2 * MIB;
	ASSERT_EQ(0, munmap(a + size, 2 * MIB));

	ASSERT_EQ(0, svmtune_write_sysfs("thrashing", "detect"));
	ASSERT_EQ(0, svmtune_write_sysfs("policy", "adaptive"));
	ASSERT_EQ(0, svmtune_write_sysfs("granularity", "2M"));
	nb = adapt_workload(self->fd, a, size, self->tmp, builtin);
	ASSERT_LT(0, nb);

	ASSERT_EQ(0, svmtune_write_sysfs("policy", "fixed"));
	obj = load_policy("adaptive", "adaptive", &link);
	ASSERT_NE(NULL, obj);
	np = adapt_workload(self->fd, b, size, self->tmp, prog);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	ASSERT_EQ(nb, np);

	for (i = 0; i < nb; i++) {
		EXPECT_EQ(builtin[i].faults, prog[i].faults)
		TH_LOG("access %d", i);
		EXPECT_EQ(builtin[i].migrated, prog[i].migrated)
		TH_LOG("access %d", i);
		EXPECT_EQ(builtin[i].remote, prog[i].remote)
		TH_LOG("access %d", i);
		faults += builtin[i].faults;
		/* Windows of more than one size: the policy adapted. */
		if (builtin[i].faults &&
		    builtin[i].migrated != builtin[0].migrated)
			distinct++;
	}
	EXPECT_LT(0, faults);
	EXPECT_LT(0, distinct);
	munmap(a, size);
	munmap(b, size);
}

/* Programs that write what they must not, or may sleep, do not load. */
TEST(verifier_refuses_bad_programs)
{
	static const char *const objs[] = {
		"svmtune_bad_write_fault.bpf.o",
		"svmtune_bad_write_reserved.bpf.o",
		"svmtune_bad_sleepable.bpf.o",
		"svmtune_bad_write_thrash.bpf.o",
		"svmtune_bad_write_moved.bpf.o",
		"svmtune_bad_write_data.bpf.o",
	};
	const char *why = bpf_unavailable();
	unsigned int i;

	if (why)
		SKIP(return, "programmable policy unavailable: %s", why);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		struct bpf_object *obj = open_obj(objs[i]);

		ASSERT_NE(NULL, obj) TH_LOG("%s", objs[i]);
		EXPECT_NE(0, bpf_object__load(obj)) TH_LOG("%s", objs[i]);
		bpf_object__close(obj);
	}
}

TEST_HARNESS_MAIN
