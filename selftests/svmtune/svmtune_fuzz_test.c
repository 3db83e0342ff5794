// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzzer of the emulated GPUs and the policy engine, checked
 * against a shadow copy of every byte.
 *
 * A process keeps a few regions (private anonymous, shared anonymous, or a
 * memfd) and, for each, a shadow of what every byte must be. Random
 * operations change the memory and the shadow together (CPU writes, GPU
 * writes, MADV_DONTNEED, MADV_FREE followed by a write of every page, a new
 * mapping) or move it without changing it (migrations both ways, policy
 * and knob changes, the adaptive bounds moved under adaptive blocks,
 * mremap, mprotect, snapshots, fork, MADV_PAGEOUT, memory pressure from a
 * balloon in the process's own memory cgroup), and every read, by the CPU
 * or by a GPU, is compared with the shadow. Shared regions stay in system
 * memory, so GPU writes to them are exactly what reclaim may drop if the
 * device does not dirty the pages. A fork's child checks the parent's
 * bytes through its own GPU context and writes its copy; the parent then
 * checks that its private bytes did not change and that its shared ones
 * did, as the child wrote them. A thread reads a region
 * through a GPU while the main thread migrates it. As root, the emulated
 * GPUs' module is unloaded and loaded again while a thread reads the
 * regions on the CPU: the unload evicts every page in device memory, racing
 * the reader's CPU faults, and every byte must come back.
 *
 * The seed is printed and a run replays from it:
 *   SVMTUNE_FUZZ_SEED=<n> SVMTUNE_FUZZ_OPS=<n> svmtune_fuzz_test
 * SVMTUNE_FUZZ_SECONDS=<n> stops after n seconds if the operations are
 * not done by then (the final checks and the report still run).
 * SVMTUNE_FUZZ_CHECK_ALL=1 checks every region on the CPU after every
 * operation, to find the one that lost a byte (the last sixteen are
 * printed with the first mismatch either way).
 * As root the process runs in a memory cgroup of its own
 * (SVMTUNE_FUZZ_MEMCG_MB, default 48; 0: none) with swap on zram turned on
 * if there is none, so that the balloon operation makes the kernel reclaim
 * the regions' pages.
 * At the end it prints the operations done, bytes verified, mismatches and
 * a histogram of the errnos seen. Errors the operation documents (a GPU
 * write to a read-only mapping) are expected; any other fails the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/svmtune.h>
#include <linux/svmtune_emu.h>

#include "kselftest_harness.h"
#include "svmtune_test_util.h"
#include "svmtune_reclaim_util.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/*
 * The run's length is chosen at run time (SVMTUNE_FUZZ_OPS, and how many
 * run at once), so no fixed harness limit fits it: make stress's long runs
 * went past svmtune_test_util.h's 10 minutes on a busy TCG host without
 * being stuck. A hang is still caught by the kernel's detectors, and a
 * livelock by the VM's own limit (make check: 3000 s; tools/stress: one
 * scaled to the operations).
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT (24 * 3600)

#define PAGE 4096UL
#define NREGIONS 6
#define MAX_DEVICES 4
#define MAX_REGION (4UL << 20)
#define MAX_GPU_SPAN (256UL << 10)

enum region_kind { REGION_PRIVATE, REGION_SHARED, REGION_MEMFD, REGION_KINDS };

static const char *const kind_names[REGION_KINDS] = { "private", "shared",
						      "memfd" };

struct region {
	char *addr;
	unsigned long size;
	unsigned char *shadow;
	bool readonly;
	enum region_kind kind;
};

enum fuzz_op {
	OP_CPU_WRITE,
	OP_CPU_READ,
	OP_GPU_WRITE,
	OP_GPU_READ,
	OP_MIGRATE,
	OP_SNAPSHOT,
	OP_POLICY,
	OP_DONTNEED,
	OP_REMAP,
	OP_MREMAP,
	OP_MPROTECT,
	OP_FORK,
	OP_THREAD,
	OP_KNOB,
	OP_RELOAD,
	OP_PAGEOUT,
	OP_FREE,
	OP_PRESSURE,
	OP_BOUNDS,
	OP_NR,
};

static const char *const op_names[OP_NR] = {
	"cpu_write", "cpu_read", "gpu_write", "gpu_read", "migrate",
	"snapshot",  "policy",	 "dontneed",  "remap",	  "mremap",
	"mprotect",  "fork",	 "thread",    "knob",	  "reload",
	"pageout",   "free",	 "pressure",  "bounds",
};

/* Relative frequency of each operation. */
static const unsigned int op_weight[OP_NR] = {
	[OP_CPU_WRITE] = 12, [OP_CPU_READ] = 12, [OP_GPU_WRITE] = 14,
	[OP_GPU_READ] = 14,  [OP_MIGRATE] = 10,	 [OP_SNAPSHOT] = 4,
	[OP_POLICY] = 8,     [OP_DONTNEED] = 3,	 [OP_REMAP] = 2,
	[OP_MREMAP] = 3,     [OP_MPROTECT] = 3,	 [OP_FORK] = 2,
	[OP_THREAD] = 2,     [OP_KNOB] = 3,	 [OP_RELOAD] = 1,
	[OP_PAGEOUT] = 4,    [OP_FREE] = 3,	 [OP_PRESSURE] = 1,
	[OP_BOUNDS] = 2,
};

struct fuzz {
	uint64_t rng;
	int ctl;
	int gpu[MAX_DEVICES];
	__u32 gpu_id[MAX_DEVICES];
	int ngpus;
	struct region r[NREGIONS];
	unsigned char *tmp;
	unsigned long ops[OP_NR];
	unsigned long kinds[REGION_KINDS]; /* regions made, by kind */
	bool memcg; /* in a memory cgroup of its own: OP_PRESSURE reclaims */
	unsigned long balloon; /* bytes OP_PRESSURE writes */
	unsigned long long verified;
	unsigned long mismatches;
	unsigned long unexpected;
	unsigned long errnos[256];
	/* The last operations, for the report of a mismatch. */
	struct {
		enum fuzz_op op;
		int region;
		enum region_kind kind;
	} recent[16];
	unsigned long done;
	bool check_all; /* SVMTUNE_FUZZ_CHECK_ALL: every region after each op */
	bool reported;
	char knobs[7][64]; /* saved_knobs */
};

/* xorshift64*: the next number of the sequence in @state (never 0). */
static uint64_t xorshift64s(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

static uint64_t rnd(struct fuzz *f)
{
	return xorshift64s(&f->rng);
}

static unsigned long below(struct fuzz *f, unsigned long n)
{
	return n ? rnd(f) % n : 0;
}

static void fill_random(struct fuzz *f, unsigned char *p, unsigned long n)
{
	unsigned long i;
	uint64_t v;

	for (i = 0; i + 8 <= n; i += 8) {
		v = rnd(f);
		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = rnd(f);
}

static void note_errno(struct fuzz *f, int err, bool expected, const char *what)
{
	f->errnos[err & 0xff]++;
	if (!expected) {
		f->unexpected++;
		fprintf(stderr, "# unexpected %s from %s\n", strerror(err),
			what);
	}
}

/* Compare @n bytes read from @r at @off with the shadow. */
static void verify(struct fuzz *f, struct region *r, unsigned long off,
		   const unsigned char *got, unsigned long n, const char *who)
{
	unsigned long i;

	f->verified += n;
	if (!memcmp(got, r->shadow + off, n))
		return;
	for (i = 0; i < n && got[i] == r->shadow[off + i]; i++)
		;
	f->mismatches++;
	fprintf(stderr,
		"# MISMATCH (%s) in region %ld (%s, %#lx bytes) at %p + %#lx: got %#x, want %#x\n",
		who, (long)(r - f->r), kind_names[r->kind], r->size, r->addr,
		off + i, got[i], r->shadow[off + i]);
	if (!f->reported) {
		unsigned long k, first = f->done > 15 ? f->done - 15 : 0;

		f->reported = true;
		for (k = first; k <= f->done; k++)
			fprintf(stderr, "#   op %lu: %s on region %d (%s)\n", k,
				op_names[f->recent[k % 16].op],
				f->recent[k % 16].region,
				kind_names[f->recent[k % 16].kind]);
	}
}

static int new_region(struct fuzz *f, struct region *r)
{
	int fd;

	r->size = (1 + below(f, MAX_REGION / PAGE)) * PAGE;
	/* Half private (they migrate), the rest shared in system memory. */
	r->kind = below(f, 2) ? REGION_PRIVATE : 1 + below(f, 2);
	f->kinds[r->kind]++;
	switch (r->kind) {
	case REGION_SHARED:
		r->addr = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case REGION_MEMFD:
		fd = memfd_create("svmtune-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		r->addr = MAP_FAILED;
		if (!ftruncate(fd, r->size))
			r->addr = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0);
		close(fd);
		break;
	default:
		r->addr = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	}
	if (r->addr == MAP_FAILED)
		return -1;
	r->shadow = malloc(r->size);
	if (!r->shadow)
		return -1;
	r->readonly = false;
	/* Some regions stay untouched (zero) until a GPU or CPU writes. */
	if (below(f, 4)) {
		fill_random(f, r->shadow, r->size);
		memcpy(r->addr, r->shadow, r->size);
	} else {
		memset(r->shadow, 0, r->size);
	}
	return 0;
}

/* A random page-aligned span of @r, at most @max bytes. */
static void pick_span(struct fuzz *f, struct region *r, unsigned long max,
		      unsigned long *off, unsigned long *len)
{
	unsigned long pages = r->size / PAGE;
	unsigned long n = 1 + below(f, (max < r->size ? max : r->size) / PAGE);

	*off = below(f, pages - n + 1) * PAGE;
	*len = n * PAGE;
}

static int gpu_access(int fd, void *addr, unsigned long len, void *buf,
		      __u32 op)
{
	struct svmtune_emu_access a;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.size = len;
	a.ptr = (uintptr_t)buf;
	a.op = op;
	return ioctl(fd, SVMTUNE_EMU_IOC_ACCESS, &a) ? errno : 0;
}

static int gpu_migrate(int fd, void *addr, unsigned long len, __u32 dest)
{
	struct svmtune_emu_migrate m;

	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)addr;
	m.size = len;
	m.dest = dest;
	return ioctl(fd, SVMTUNE_EMU_IOC_MIGRATE, &m) ? errno : 0;
}

struct reader_arg {
	struct fuzz *f;
	struct region *r;
	int fd;
	int rounds;
	unsigned char *buf;
	unsigned long mismatches;
	unsigned long long verified;
	int err;
};

/* A second thread: GPU-read the whole region a few times and compare. */
static void *gpu_reader(void *p)
{
	struct reader_arg *a = p;
	unsigned long off, n;
	int i, err;

	for (i = 0; i < a->rounds; i++) {
		for (off = 0; off < a->r->size; off += n) {
			n = a->r->size - off < MAX_GPU_SPAN ? a->r->size - off :
							      MAX_GPU_SPAN;
			err = gpu_access(a->fd, a->r->addr + off, n, a->buf,
					 SVMTUNE_EMU_READ);
			if (err) {
				a->err = err;
				return NULL;
			}
			a->verified += n;
			if (memcmp(a->buf, a->r->shadow + off, n)) {
				unsigned long j;

				for (j = 0; a->buf[j] == a->r->shadow[off + j];
				     j++)
					;
				fprintf(stderr,
					"# MISMATCH (gpu read in thread) at %p + %#lx: got %#x, want %#x\n",
					a->r->addr, off + j, a->buf[j],
					a->r->shadow[off + j]);
				a->mismatches++;
			}
		}
	}
	return NULL;
}

/* A CPU reader racing the emulated GPUs' unload: see reload_emu(). */
struct cpu_reader_arg {
	struct fuzz *f;
	uint64_t rng;
	int stop;
	unsigned long long verified;
	unsigned long mismatches;
};

static void *cpu_reader(void *p)
{
	struct cpu_reader_arg *a = p;
	unsigned long reads = 0;

	/* At least a few reads, however fast the unload. */
	while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE) || reads < 64) {
		struct region *r;
		unsigned long off;

		r = &a->f->r[xorshift64s(&a->rng) % NREGIONS];
		off = (xorshift64s(&a->rng) % (r->size / PAGE)) * PAGE;
		if (memcmp(r->addr + off, r->shadow + off, PAGE)) {
			a->mismatches++;
			fprintf(stderr,
				"# MISMATCH (cpu read racing unload) at %p + %#lx\n",
				r->addr, off);
		}
		a->verified += PAGE;
		reads++;
		/* Race the unload, do not starve it (two vCPUs under TCG). */
		usleep(200);
	}
	return NULL;
}

/* "name=value " for each readable parameter of svmtune_emu, into @buf. */
static void emu_params(char *buf, size_t len)
{
	static const char *const names[] = { "ndevices", "vram_mb",
					     "tlb_entries",
					     "tlb_max_fragment" };
	char path[96], val[32];
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path),
			 "/sys/module/svmtune_emu/parameters/%s", names[i]);
		if (svmtune_read_file(path, val, sizeof(val)))
			continue;
		val[strcspn(val, "\n")] = '\0';
		n += snprintf(buf + n, len - n, " %s=%s", names[i], val);
		if (n >= len)
			break;
	}
}

/*
 * Unload svmtune_emu and load it again with the same parameters, while a
 * thread reads the regions on the CPU. The unload evicts every page in
 * device memory back to system memory; after it, every byte of every
 * region is checked. Another process holding a GPU open makes the unload
 * fail with EAGAIN (expected: make stress runs several).
 */
static void reload_emu(struct fuzz *f)
{
	struct cpu_reader_arg a = { .f = f, .rng = rnd(f) | 1 };
	char params[256], cmd[320], path[32];
	int d, ngpus = f->ngpus, err, tries;
	pthread_t t;
	bool reader;

	/* As root, and only if modprobe can load it again (not an insmod). */
	if (geteuid() != 0 || system("modinfo svmtune_emu >/dev/null 2>&1"))
		return;
	emu_params(params, sizeof(params));
	for (d = 0; d < f->ngpus; d++)
		close(f->gpu[d]);
	f->ngpus = 0;
	reader = !pthread_create(&t, NULL, cpu_reader, &a);
	err = syscall(SYS_delete_module, "svmtune_emu", O_NONBLOCK) ? errno : 0;
	/*
	 * Another process holding a GPU open (EAGAIN), or in its own reload:
	 * the module going or coming (EBUSY) or gone (ENOENT).
	 */
	if (err)
		note_errno(f, err,
			   err == EAGAIN || err == EWOULDBLOCK ||
				   err == EBUSY || err == ENOENT,
			   "rmmod svmtune_emu");
	/*
	 * Whoever unloaded it, it is loaded again. Under make stress another
	 * process may be loading it at the same moment, and its modprobe or
	 * this one fails: the devices opening again below is what counts.
	 */
	snprintf(cmd, sizeof(cmd), "modprobe svmtune_emu%s", params);
	if (system(cmd))
		fprintf(stderr,
			"# modprobe svmtune_emu failed, maybe racing another\n");
	if (reader) {
		__atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		f->verified += a.verified;
		f->mismatches += a.mismatches;
	}

	/* The devices again (their engine ids may have changed). */
	for (d = 0; d < ngpus; d++) {
		snprintf(path, sizeof(path), "/dev/svmtune_emu%d", d);
		for (tries = 0; tries < 1000; tries++) {
			f->gpu[d] = open(path, O_RDWR);
			if (f->gpu[d] >= 0)
				break;
			usleep(10000);
		}
		if (f->gpu[d] < 0) {
			note_errno(f, errno, false, "open after reload");
			break;
		}
		f->gpu_id[d] = svmtune_device_id(f->ctl, path + 5);
		if (!f->gpu_id[d]) {
			note_errno(f, ENODEV, false, "engine id after reload");
			close(f->gpu[d]);
			break;
		}
		f->ngpus++;
	}
	/* Every byte came back. */
	for (d = 0; d < NREGIONS; d++)
		verify(f, &f->r[d], 0, (unsigned char *)f->r[d].addr,
		       f->r[d].size, "cpu read after reload");
}

/*
 * The child of a fork: check everything, through the CPU and a GPU, then
 * write the first bytes of each writable region with numbers from
 * f->rng, which the parent set to the seed it replays them from
 * (fork_replay_shared()).
 */
static int fork_child(struct fuzz *f)
{
	unsigned long off, n, bad = 0;
	int i, fd = -1;

	if (f->ngpus) {
		/* The parent's GPU files serve the parent's address space. */
		char path[32];

		snprintf(path, sizeof(path), "/dev/svmtune_emu%d",
			 getpid() % f->ngpus);
		fd = open(path, O_RDWR);
		if (fd < 0)
			return 10;
	}
	for (i = 0; i < NREGIONS; i++) {
		struct region *r = &f->r[i];

		if (memcmp(r->addr, r->shadow, r->size))
			bad++;
		for (off = 0; fd >= 0 && off < r->size; off += n) {
			n = r->size - off < MAX_GPU_SPAN ? r->size - off :
							   MAX_GPU_SPAN;
			if (gpu_access(fd, r->addr + off, n, f->tmp,
				       SVMTUNE_EMU_READ))
				return 11;
			if (memcmp(f->tmp, r->shadow + off, n))
				bad++;
		}
		/* Write the child's copy, through the GPU where possible. */
		if (!r->readonly) {
			n = r->size < MAX_GPU_SPAN ? r->size : MAX_GPU_SPAN;
			fill_random(f, f->tmp, n);
			if (fd >= 0 && gpu_access(fd, r->addr, n, f->tmp,
						  SVMTUNE_EMU_WRITE))
				return 12;
			if (fd < 0)
				memcpy(r->addr, f->tmp, n);
			if (memcmp(r->addr, f->tmp, n))
				bad++;
		}
	}
	return bad ? 1 : 0;
}

/*
 * What a fork's child wrote to the regions the parent shares with it: the
 * same numbers from the same seed, into the parent's shadow.
 */
static void fork_replay_shared(struct fuzz *f, uint64_t seed)
{
	uint64_t saved = f->rng;
	unsigned long n;
	int i;

	f->rng = seed;
	for (i = 0; i < NREGIONS; i++) {
		struct region *r = &f->r[i];

		if (r->readonly)
			continue;
		n = r->size < MAX_GPU_SPAN ? r->size : MAX_GPU_SPAN;
		fill_random(f, f->tmp, n);
		if (r->kind != REGION_PRIVATE)
			memcpy(r->shadow, f->tmp, n);
	}
	f->rng = saved;
}

/*
 * GET_POLICY at a random page of a region whose range sets no granularity
 * (the fuzzer sets no process default), under the adaptive policy: the
 * window reported must be within the adaptive bounds. Knobs read before and
 * after; if another process moved them meanwhile nothing is checked.
 */
static void check_adaptive_window(struct fuzz *f)
{
	char pol[2][32], lo[2][32], hi[2][32];
	struct svmtune_range_policy p;
	struct region *r = &f->r[below(f, NREGIONS)];
	unsigned int min, max;
	int i, err;

	for (i = 0; i < 2; i++) {
		if (svmtune_read_sysfs("policy", pol[i], sizeof(pol[i])) ||
		    svmtune_read_sysfs("adaptive_min_granularity", lo[i],
				       sizeof(lo[i])) ||
		    svmtune_read_sysfs("adaptive_max_granularity", hi[i],
				       sizeof(hi[i])))
			return;
		if (i)
			break;
		memset(&p, 0, sizeof(p));
		p.start = (uintptr_t)r->addr + below(f, r->size / PAGE) * PAGE;
		p.size = PAGE;
		err = ioctl(f->ctl, SVMTUNE_IOC_GET_POLICY, &p) ? errno : 0;
		if (err) {
			note_errno(f, err, false, "get policy");
			return;
		}
	}
	if (strcmp(pol[0], pol[1]) || strcmp(lo[0], lo[1]) ||
	    strcmp(hi[0], hi[1]) || strncmp(pol[0], "adaptive", 8) ||
	    p.granularity != SVMTUNE_GRANULARITY_UNSET)
		return;
	min = 12 + 10 * (strchr(lo[0], 'M') != NULL) +
	      20 * (strchr(lo[0], 'G') != NULL);
	max = 12 + 10 * (strchr(hi[0], 'M') != NULL) +
	      20 * (strchr(hi[0], 'G') != NULL);
	/* "4K" is 12, "64K" 16: the digits' log2 on top of the suffix's. */
	min += __builtin_ctz(atoi(lo[0])) - 2;
	max += __builtin_ctz(atoi(hi[0])) - 2;
	if (p.eff_granularity < min || p.eff_granularity > max) {
		f->unexpected++;
		fprintf(stderr,
			"# adaptive window %u outside the bounds %s..%s at %p\n",
			p.eff_granularity, lo[0], hi[0], (void *)p.start);
	}
}

/*
 * MADV_FREE on a span of a private region, maybe reclaim, then a write of
 * every page of the span (by a GPU when there is one, else the CPU): until
 * its next write a lazily freed page may read as its old bytes or as
 * zeros, so the span is written whole before anything reads it, and the
 * shadow is what was written. A GPU write here lands in system pages whose
 * CPU PTEs MADV_FREE left writable and clean: the write must dirty them,
 * or the next reclaim drops them.
 */
static void free_and_write(struct fuzz *f, struct region *r, int gpu)
{
	unsigned long off, len;
	int err;

	if (r->kind != REGION_PRIVATE || r->readonly)
		return;
	pick_span(f, r, MAX_GPU_SPAN, &off, &len);
	if (madvise(r->addr + off, len, MADV_FREE)) {
		note_errno(f, errno, false, "madvise free");
		return;
	}
	if (below(f, 2) && madvise(r->addr + off, len, MADV_PAGEOUT))
		note_errno(f, errno, false, "madvise pageout");
	fill_random(f, f->tmp, len);
	if (gpu >= 0) {
		err = gpu_access(gpu, r->addr + off, len, f->tmp,
				 SVMTUNE_EMU_WRITE);
		if (err) {
			/* The span's bytes are unknown now: write them. */
			note_errno(f, err, false, "gpu write after free");
			memcpy(r->addr + off, f->tmp, len);
		}
	} else {
		memcpy(r->addr + off, f->tmp, len);
	}
	memcpy(r->shadow + off, f->tmp, len);
	/* Reclaim right after the write: what a clean page would not survive. */
	if (below(f, 2) && madvise(r->addr + off, len, MADV_PAGEOUT))
		note_errno(f, errno, false, "madvise pageout");
}

static void do_op(struct fuzz *f, enum fuzz_op op)
{
	struct region *r = &f->r[below(f, NREGIONS)];
	int gi = f->ngpus ? (int)below(f, f->ngpus) : -1;
	int gpu = gi >= 0 ? f->gpu[gi] : -1;
	unsigned long off, len;
	int err;

	f->ops[op]++;
	f->recent[f->done % 16].op = op;
	f->recent[f->done % 16].region = r - f->r;
	f->recent[f->done % 16].kind = r->kind;
	switch (op) {
	case OP_CPU_WRITE:
		if (r->readonly)
			break;
		/* Any bytes: unaligned, within one region. */
		off = below(f, r->size);
		len = 1 + below(f, r->size - off < MAX_GPU_SPAN ?
					   r->size - off :
					   MAX_GPU_SPAN);
		fill_random(f, r->shadow + off, len);
		memcpy(r->addr + off, r->shadow + off, len);
		break;
	case OP_CPU_READ:
		pick_span(f, r, r->size, &off, &len);
		verify(f, r, off, (unsigned char *)r->addr + off, len,
		       "cpu read");
		break;
	case OP_GPU_WRITE:
		if (gpu < 0)
			break;
		pick_span(f, r, MAX_GPU_SPAN, &off, &len);
		fill_random(f, f->tmp, len);
		err = gpu_access(gpu, r->addr + off, len, f->tmp,
				 SVMTUNE_EMU_WRITE);
		if (!err)
			memcpy(r->shadow + off, f->tmp, len);
		else
			note_errno(f, err, err == EFAULT && r->readonly,
				   "gpu write");
		break;
	case OP_GPU_READ:
		if (gpu < 0)
			break;
		pick_span(f, r, MAX_GPU_SPAN, &off, &len);
		err = gpu_access(gpu, r->addr + off, len, f->tmp,
				 SVMTUNE_EMU_READ);
		if (err)
			note_errno(f, err, false, "gpu read");
		else
			verify(f, r, off, f->tmp, len, "gpu read");
		break;
	case OP_MIGRATE:
		if (gpu < 0)
			break;
		pick_span(f, r, r->size, &off, &len);
		err = gpu_migrate(gpu, r->addr + off, len,
				  below(f, 2) ? SVMTUNE_EMU_TO_DEVICE :
						SVMTUNE_EMU_TO_SYSTEM);
		if (err)
			note_errno(f, err, false, "migrate");
		break;
	case OP_SNAPSHOT: {
		struct svmtune_emu_snapshot s;

		if (gpu < 0)
			break;
		pick_span(f, r, MAX_GPU_SPAN, &off, &len);
		memset(&s, 0, sizeof(s));
		s.addr = (uintptr_t)r->addr + off;
		s.size = len;
		s.ptr = (uintptr_t)f->tmp;
		if (ioctl(gpu, SVMTUNE_EMU_IOC_SNAPSHOT, &s))
			note_errno(f, errno, false, "snapshot");
		break;
	}
	case OP_POLICY: {
		__u32 loc = below(f, 3) ? SVMTUNE_LOC_UNSET :
					  SVMTUNE_LOC_SYSTEM;

		if (f->ngpus && !below(f, 2))
			loc = f->gpu_id[below(f, f->ngpus)];
		pick_span(f, r, r->size, &off, &len);
		err = svmtune_set_policy(f->ctl, r->addr + off, len,
					 SVMTUNE_POLICY_ALL,
					 below(f, 4) ? 12 + below(f, 10) : 0,
					 loc, below(f, 4));
		if (err)
			note_errno(f, -err, false, "set policy");
		break;
	}
	case OP_DONTNEED:
		pick_span(f, r, r->size, &off, &len);
		if (madvise(r->addr + off, len, MADV_DONTNEED))
			note_errno(f, errno, false, "madvise");
		else if (r->kind == REGION_PRIVATE)
			/* Shared pages stay in the page cache. */
			memset(r->shadow + off, 0, len);
		break;
	case OP_PAGEOUT:
		pick_span(f, r, r->size, &off, &len);
		if (madvise(r->addr + off, len, MADV_PAGEOUT))
			note_errno(f, errno, false, "madvise pageout");
		break;
	case OP_FREE:
		free_and_write(f, r, gpu);
		break;
	case OP_PRESSURE:
		/* Anonymous memory past the cgroup's limit: reclaim runs. */
		if (f->memcg && svmtune_balloon(f->balloon))
			note_errno(f, errno, false, "balloon");
		break;
	case OP_BOUNDS: {
		static const char *const sizes[] = { "4K", "64K", "256K", "2M",
						     "1G" };
		unsigned int lo = below(f, 5), hi = below(f, 5), t;

		if (geteuid() != 0)
			break;
		if (lo > hi) {
			t = lo;
			lo = hi;
			hi = t;
		}
		/*
		 * The order that keeps min <= max from the old bounds to the
		 * new; another process moving them at once may still make a
		 * write fail with EINVAL.
		 */
		err = svmtune_write_sysfs("adaptive_min_granularity", "4K");
		if (!err)
			err = svmtune_write_sysfs("adaptive_max_granularity",
						  sizes[hi]);
		if (!err)
			err = svmtune_write_sysfs("adaptive_min_granularity",
						  sizes[lo]);
		if (err)
			note_errno(f, -err, -err == EINVAL, "bounds write");
		check_adaptive_window(f);
		break;
	}
	case OP_REMAP:
		munmap(r->addr, r->size);
		free(r->shadow);
		if (new_region(f, r))
			note_errno(f, errno, false, "mmap");
		break;
	case OP_MREMAP: {
		/* Move it elsewhere: to a fresh place of the same size. */
		void *to = mmap(NULL, r->size, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		void *moved;

		if (to == MAP_FAILED) {
			note_errno(f, errno, false, "mmap");
			break;
		}
		moved = mremap(r->addr, r->size, r->size,
			       MREMAP_MAYMOVE | MREMAP_FIXED, to);
		if (moved == MAP_FAILED) {
			note_errno(f, errno, false, "mremap");
			munmap(to, r->size);
			break;
		}
		r->addr = moved;
		break;
	}
	case OP_MPROTECT:
		if (mprotect(r->addr, r->size,
			     r->readonly ? PROT_READ | PROT_WRITE : PROT_READ))
			note_errno(f, errno, false, "mprotect");
		else
			r->readonly = !r->readonly;
		break;
	case OP_FORK: {
		uint64_t seed = rnd(f) | 1;
		int status;
		pid_t pid;

		pid = fork();
		if (pid == 0) {
			/* Drawing from @seed: the parent replays its writes. */
			f->rng = seed;
			_exit(fork_child(f));
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			note_errno(f, errno, false, "fork");
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			f->mismatches++;
			fprintf(stderr,
				"# MISMATCH in the fork child: status %#x\n",
				status);
		}
		/*
		 * The child's writes show in the parent's shared regions only.
		 * (A child that failed midway may have written less: its
		 * failure is counted above, and so are the differences.)
		 */
		fork_replay_shared(f, seed);
		for (len = 0; len < NREGIONS; len++)
			verify(f, &f->r[len], 0,
			       (unsigned char *)f->r[len].addr, f->r[len].size,
			       "after fork");
		break;
	}
	case OP_THREAD: {
		struct reader_arg a = { .f = f, .r = r, .fd = gpu, .rounds = 2 };
		pthread_t t;
		int i;

		if (gpu < 0)
			break;
		a.buf = malloc(MAX_GPU_SPAN);
		if (!a.buf || pthread_create(&t, NULL, gpu_reader, &a)) {
			free(a.buf);
			break;
		}
		/* Move the region around under the reader; change no byte. */
		for (i = 0; i < 8; i++) {
			pick_span(f, r, r->size, &off, &len);
			err = gpu_migrate(f->gpu[below(f, f->ngpus)],
					  r->addr + off, len,
					  i % 2 ? SVMTUNE_EMU_TO_SYSTEM :
						  SVMTUNE_EMU_TO_DEVICE);
			if (err)
				note_errno(f, err, false,
					   "migrate under reader");
			verify(f, r, off, (unsigned char *)r->addr + off, len,
			       "cpu read under reader");
		}
		pthread_join(t, NULL);
		if (a.err)
			note_errno(f, a.err, false, "gpu read in thread");
		f->verified += a.verified;
		f->mismatches += a.mismatches;
		free(a.buf);
		break;
	}
	case OP_KNOB: {
		static const char *const gran[] = { "4K", "64K", "256K", "2M" };
		static const char *const pol[] = { "fixed", "adaptive" };
		static const char *const thr[] = { "off", "detect", "remote",
						   "throttle" };
		static const char *const frag[] = { "4K", "64K", "2M" };

		if (geteuid() != 0)
			break;
		switch (below(f, 5)) {
		case 0:
			err = svmtune_write_sysfs("granularity",
						  gran[below(f, 4)]);
			break;
		case 1:
			err = svmtune_write_sysfs("policy", pol[below(f, 2)]);
			break;
		case 2:
			err = svmtune_write_sysfs("fragment_size",
						  frag[below(f, 3)]);
			break;
		case 3:
			err = svmtune_write_sysfs("fragment_auto",
						  below(f, 2) ? "1" : "0");
			break;
		default:
			err = svmtune_write_sysfs("thrashing",
						  thr[below(f, 4)]);
			break;
		}
		if (err)
			note_errno(f, -err, false, "knob write");
		break;
	}
	case OP_RELOAD:
		reload_emu(f);
		break;
	default:
		break;
	}
}

static enum fuzz_op pick_op(struct fuzz *f)
{
	unsigned int total = 0, i, x;

	for (i = 0; i < OP_NR; i++)
		total += op_weight[i];
	x = below(f, total);
	for (i = 0; i < OP_NR; i++) {
		if (x < op_weight[i])
			return i;
		x -= op_weight[i];
	}
	return OP_CPU_READ;
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static const char *const saved_knobs[] = { "granularity",
					   "policy",
					   "thrashing",
					   "fragment_size",
					   "fragment_auto",
					   "adaptive_min_granularity",
					   "adaptive_max_granularity" };

TEST(seeded_mix_against_shadow)
{
	unsigned long nops = env_ulong("SVMTUNE_FUZZ_OPS", 1500), i, done;
	struct fuzz *f = calloc(1, sizeof(*f));
	uint64_t seed;
	char path[32];
	int d, err;

	ASSERT_NE(NULL, f);
	unsigned long memcg_mb = env_ulong("SVMTUNE_FUZZ_MEMCG_MB", 48);
	unsigned long seconds;
	time_t deadline;
	char cgroup[64] = "";
	int swap = 0;

	seed = env_ulong("SVMTUNE_FUZZ_SEED", 0);
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	f->rng = seed ? seed : 1;
	printf("# seed %llu (SVMTUNE_FUZZ_SEED=%llu SVMTUNE_FUZZ_OPS=%lu replays it)\n",
	       (unsigned long long)seed, (unsigned long long)seed, nops);

	f->ctl = open(SVMTUNE_DEV, O_RDWR);
	ASSERT_LE(0, f->ctl);
	for (d = 0; d < MAX_DEVICES; d++) {
		snprintf(path, sizeof(path), "/dev/svmtune_emu%d", d);
		f->gpu[f->ngpus] = open(path, O_RDWR);
		if (f->gpu[f->ngpus] < 0)
			break;
		f->gpu_id[f->ngpus] = svmtune_device_id(f->ctl, path + 5);
		ASSERT_NE(0, f->gpu_id[f->ngpus]);
		f->ngpus++;
	}
	ASSERT_LT(0, f->ngpus) TH_LOG("no emulated GPU (/dev/svmtune_emu0)");
	/* Big enough for a GPU span and for a whole region. */
	f->tmp = malloc(MAX_REGION);
	ASSERT_NE(NULL, f->tmp);
	for (i = 0; i < ARRAY_SIZE(saved_knobs); i++)
		ASSERT_EQ(0, svmtune_read_sysfs(saved_knobs[i], f->knobs[i],
						sizeof(f->knobs[i])));
	/*
	 * Reclaim for real: swap (so that dirty pages leave too) and a
	 * memory cgroup whose limit the balloon goes past. Without root,
	 * MADV_PAGEOUT still reclaims what the process owns.
	 */
	if (geteuid() == 0 && memcg_mb) {
		swap = svmtune_swap_on(512);
		ASSERT_LE(0, swap) TH_LOG("no swap and none on zram");
		snprintf(cgroup, sizeof(cgroup), "svmtune-fuzz-%d", getpid());
		err = svmtune_cgroup_enter(cgroup, memcg_mb << 20);
		ASSERT_EQ(0, err) TH_LOG("memory cgroup: %s", strerror(-err));
		f->memcg = true;
		f->balloon = memcg_mb << 20;
	}
	for (i = 0; i < NREGIONS; i++)
		ASSERT_EQ(0, new_region(f, &f->r[i]));

	f->check_all = env_ulong("SVMTUNE_FUZZ_CHECK_ALL", 0);
	seconds = env_ulong("SVMTUNE_FUZZ_SECONDS", 0);
	deadline = time(NULL) + seconds;
	for (done = 0; done < nops && !f->mismatches; done++) {
		/* A time budget ends the run early, checked and reported. */
		if (seconds && !(done % 16) && time(NULL) >= deadline)
			break;
		f->done = done;
		do_op(f, pick_op(f));
		for (i = 0; f->check_all && i < NREGIONS; i++)
			verify(f, &f->r[i], 0, (unsigned char *)f->r[i].addr,
			       f->r[i].size, "check after the operation");
	}

	/* Last, every byte of every region, by the CPU and by each GPU. */
	for (i = 0; i < NREGIONS; i++) {
		struct region *r = &f->r[i];
		unsigned long off, n;

		for (d = 0; d < f->ngpus; d++)
			for (off = 0; off < r->size; off += n) {
				n = r->size - off < MAX_GPU_SPAN ?
					    r->size - off :
					    MAX_GPU_SPAN;
				err = gpu_access(f->gpu[d], r->addr + off, n,
						 f->tmp, SVMTUNE_EMU_READ);
				if (err)
					note_errno(f, err, false,
						   "final gpu read");
				else
					verify(f, r, off, f->tmp, n,
					       "final gpu read");
			}
		verify(f, r, 0, (unsigned char *)r->addr, r->size,
		       "final cpu read");
	}
	for (i = 0; i < ARRAY_SIZE(saved_knobs); i++)
		svmtune_write_sysfs(saved_knobs[i], f->knobs[i]);

	printf("# %lu operations:", done);
	for (i = 0; i < OP_NR; i++)
		printf(" %s %lu", op_names[i], f->ops[i]);
	printf("\n# regions:");
	for (i = 0; i < REGION_KINDS; i++)
		printf(" %s %lu", kind_names[i], f->kinds[i]);
	printf("\n# %llu bytes verified, %lu mismatches, %lu unexpected errors\n",
	       f->verified, f->mismatches, f->unexpected);
	printf("# errnos:");
	for (i = 0; i < 256; i++)
		if (f->errnos[i])
			printf(" %s %lu", strerror(i), f->errnos[i]);
	printf("\n");
	for (i = 0; i < NREGIONS; i++)
		munmap(f->r[i].addr, f->r[i].size);
	if (f->memcg)
		svmtune_cgroup_leave(cgroup);
	if (swap == 1)
		svmtune_swap_off();
	EXPECT_EQ(0, f->mismatches)
	TH_LOG("seed %llu", (unsigned long long)seed);
	EXPECT_EQ(0, f->unexpected)
	TH_LOG("seed %llu", (unsigned long long)seed);
}

TEST_HARNESS_MAIN
