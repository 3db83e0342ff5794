// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune_bench: what each migration policy costs on the emulated GPU, in
 * time and in bytes moved, for the access patterns of real workloads. Every
 * workload runs under every policy in one run of this program; the table
 * gives absolute numbers and ratios to the fixed 2 MiB policy (KFD's
 * default window), so runs on different machines compare by ratio.
 *
 * Workloads (a 32 MiB buffer the CPU initialised; GPU accesses of 4 KiB
 * unless said):
 *   stream   the GPU reads all of it in order
 *   streams2 two streams, over each half, interleaved page by page
 *   streams8 eight streams, over each eighth, interleaved
 *   random   every page once, in a random order (dense random)
 *   sparse   512 random pages
 *   stride   the first 4 KiB of every 256 KiB
 *   tlb      all of it in 2 MiB reads, then 8 passes reading the first
 *            4 KiB of every 64 KiB: TLB-bound once resident
 *   stencil  a 3-point stencil: for each page of the first half, read it
 *            and its neighbours (one read of up to 12 KiB), write the page
 *            of the second half at the same offset
 *   spmv     a sparse matrix-vector product's pattern: stream the first
 *            half (the matrix), gather 4 random pages of the second (x)
 *            per matrix page
 *   oversub  a buffer of 1.5 times the emulated GPU's memory read twice
 *            in 64 KiB reads (tools/bench/run loads it with 48 MiB; 8 MiB
 *            in --smoke)
 *   pingpong the GPU reads a page, the CPU writes it, 64 rounds on each of
 *            8 pages 2 MiB apart (CPU-GPU thrashing)
 *   prefetched  an explicit migration of all of it, then stream
 *   sparse64k   the first 4 KiB of every 64 KiB (UVM's 1 byte per 64 KiB)
 * and the workloads from users' reports that kfdbed_bench runs on KFD's own
 * code (Documentation/benchmarks.rst, "Workloads from users' reports"):
 *   prefetch-race  a thread migrates the buffer to the GPU while the GPU
 *            reads it in order
 *   oversub-sparse the oversub buffer, 4 pages 512 KiB apart read in each
 *            2 MiB, three passes
 *   managed-vs-copy the GPU reads each page and writes it back plus one,
 *            then the CPU checks every byte; explicit-copy the same with
 *            the buffer migrated to the GPU before and back after
 *   reuse    the GPU reads all of it (before the measurement), then 8 CPU
 *            threads write it, an eighth each, a page at a time
 *   turns    GPU 0, GPU 1 (svmtune_emu1: tools/bench/run loads two
 *            emulated GPUs) and the CPU take turns, each reading every
 *            page, checking it and writing it back plus one, three rounds
 * After the table, UVM's three ratios measured on an H200
 * (shared/notes/policy-anchors.md) against svmtune's, from the modeled
 * time: fault-driven sequential throughput / explicit prefetch (stream
 * against prefetched), bytes moved / bytes of the pages touched on
 * sparse64k, and ping-pong under the automatic policy / under the best
 * manual advice (the "advised" row: the pages mapped remotely, as
 * preferred location CPU plus accessed-by does in UVM).
 * --smoke shrinks it all (4 MiB, 1 run, 64 sparse pages, 8 ping-pong
 * rounds on 2 pages, 1 TLB pass) to check the output's shape in make
 * check; its numbers mean nothing.
 *
 * Output: a Markdown table, then the same rows as CSV between the lines
 * "--- csv" and "--- end csv" (tools/bench/run files both). Each row has
 * the time in the VM and a modeled time on an MI300X-class machine,
 * computed from the counters (model_ms(), Documentation/benchmarks.rst).
 *
 * Policies: fixed 4K, 64K, 2M, adaptive; 64K and adaptive with density
 * prefetch at 51 % (UVM's threshold); uvm-like (64 KiB windows, UVM's
 * big-page size, prefetch at 51 %, thrashing throttled three times then
 * pinned, as UVM does); adapt-all (adaptive with prefetch at 51 %, the
 * same thrashing ladder and fragment_auto); for pingpong also 2M with
 * thrashing mitigation: throttle only, remote (throttle three times, then
 * pin), pin at the first detection; adapt+pin (adapt-all, but pinning at
 * the first detection, no throttle); and advised (2M, the buffer set to
 * SVMTUNE_ACCESS_REMOTE: manual advice). With --bpf DIR, where the kernel
 * has programmable policy, the example programs too, each attached
 * globally by DIR/svmtune-policy over the built-in policy of its row:
 * bpf-stride (tools/policies/stride.bpf.c over fixed 64K) and
 * bpf-adaptive (tools/policies/adaptive.bpf.c, the built-in adaptive
 * policy as a program, over fixed 2M: the same counters as adaptive).
 *
 * Each measurement is the best of three runs on a fresh buffer. Run as
 * root in the test VM (it sets global knobs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "svmtune_tool.h"

#define PAGE 4096UL
#define MIB (1UL << 20)

/* The run's size: the full run, or --smoke. */
static unsigned long buf_size = 32 * MIB;
static int repeat = 3;
static unsigned long sparse_pages = 512;
static int pingpong_rounds = 64;
static unsigned long pingpong_pages = 8;
static int tlb_passes = 8;
static unsigned long long device_mem; /* the emulated GPU's, bytes */

struct policy {
	const char *name;
	const char *knob; /* policy */
	const char *granularity;
	const char *thrashing;
	const char *prefetch; /* prefetch_threshold */
	const char *pin_threshold; /* thrashing_pin_threshold */
	const char *fragment_auto;
	int pingpong_only;
	int advise_remote; /* the buffer's range policy: access remote */
	const char *bpf; /* "OBJECT:MAP": a program attached over the knobs */
};

static const struct policy policies[] = {
	{ "fixed-4K", "fixed", "4K", "detect", "0", "3", "0", 0, 0, NULL },
	{ "fixed-64K", "fixed", "64K", "detect", "0", "3", "0", 0, 0, NULL },
	{ "fixed-2M", "fixed", "2M", "detect", "0", "3", "0", 0, 0, NULL },
	{ "adaptive", "adaptive", "2M", "detect", "0", "3", "0", 0, 0, NULL },
	{ "64K+pf51", "fixed", "64K", "detect", "51", "3", "0", 0, 0, NULL },
	{ "adapt+pf51", "adaptive", "2M", "detect", "51", "3", "0", 0, 0,
	  NULL },
	{ "uvm-like", "fixed", "64K", "remote", "51", "3", "0", 0, 0, NULL },
	{ "adapt-all", "adaptive", "2M", "remote", "51", "3", "1", 0, 0, NULL },
	{ "bpf-stride", "fixed", "64K", "detect", "0", "3", "0", 0, 0,
	  "stride.bpf.o:stride" },
	{ "bpf-adaptive", "fixed", "2M", "detect", "0", "3", "0", 0, 0,
	  "adaptive.bpf.o:adaptive" },
	{ "2M+throt", "fixed", "2M", "throttle", "0", "3", "0", 1, 0, NULL },
	{ "2M+remote", "fixed", "2M", "remote", "0", "3", "0", 1, 0, NULL },
	{ "2M+pin", "fixed", "2M", "remote", "0", "0", "0", 1, 0, NULL },
	{ "adapt+pin", "adaptive", "2M", "remote", "51", "0", "1", 1, 0, NULL },
	{ "advised", "fixed", "2M", "detect", "0", "3", "0", 1, 1, NULL },
};

#define NPOLICIES ARRAY_SIZE(policies)
#define BASELINE 2 /* fixed-2M */
#define AUTOMATIC 7 /* adapt-all: svmtune with everything on */
#define AUTO_PIN (NPOLICIES - 2) /* adapt+pin */
#define ADVISED (NPOLICIES - 1)

/* What a workload's GPU accesses were, in 4 KiB pages. */
struct gpu_use {
	unsigned long reads; /* pages the GPU read */
	unsigned long remote; /* page accesses served over the link */
};

struct result {
	double ms;
	struct gpu_use use;
	struct svmtune_counters c;
	uint64_t throttles; /* thrashing throttle periods started */
};

/*
 * The modeled time on an MI300X-class machine: what the counters would
 * cost there (Documentation/benchmarks.rst gives each constant's source;
 * each can be set from the environment).
 */
struct model {
	double fault_us; /* GPU retry fault served, migration excluded */
	double cpu_fault_us; /* CPU fault on device memory, copy excluded */
	double link_gbs; /* host link, each way (PCIe 5.0 x16) */
	double remote_page_us; /* a GPU access of a 4 KiB page over the link */
	double tlb_miss_us; /* a GPU page walk */
	double hbm_gbs; /* the GPU reading its own memory */
	double throttle_us; /* a thrashing throttle: the fault waits */
};

static struct model model = {
	.fault_us = 20,
	.cpu_fault_us = 5,
	.link_gbs = 54,
	.remote_page_us = 1.5,
	.tlb_miss_us = 0.5,
	.hbm_gbs = 5300,
	/* The engine's default thrashing_throttle_us (the bench stretches it). */
	.throttle_us = 1000,
};

static int model_from_env(void)
{
	static const struct {
		const char *name;
		double *val;
	} vars[] = {
		{ "SVMTUNE_MODEL_FAULT_US", &model.fault_us },
		{ "SVMTUNE_MODEL_CPU_FAULT_US", &model.cpu_fault_us },
		{ "SVMTUNE_MODEL_LINK_GBS", &model.link_gbs },
		{ "SVMTUNE_MODEL_REMOTE_PAGE_US", &model.remote_page_us },
		{ "SVMTUNE_MODEL_TLB_MISS_US", &model.tlb_miss_us },
		{ "SVMTUNE_MODEL_HBM_GBS", &model.hbm_gbs },
		{ "SVMTUNE_MODEL_THROTTLE_US", &model.throttle_us },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i].name);
		char *end;
		double d;

		if (!v || !*v)
			continue;
		d = strtod(v, &end);
		if (*end || !(d >= 0) || d > 1e9) {
			fprintf(stderr,
				"svmtune_bench: %s=%s is not a number >= 0\n",
				vars[i].name, v);
			return -1;
		}
		*vars[i].val = d;
	}
	if (model.link_gbs > 0 && model.hbm_gbs > 0)
		return 0;
	fprintf(stderr,
		"svmtune_bench: the link and HBM bandwidths must be > 0\n");
	return -1;
}

/* Milliseconds the counters of @r would cost on the modeled machine. */
static double model_ms(const struct result *r)
{
	double bytes = r->c.bytes_to_device + r->c.bytes_to_system;
	/* Reads the device's own memory served (remote ones go the link). */
	double local_reads =
		r->use.reads > r->use.remote ? r->use.reads - r->use.remote : 0;
	double us = r->c.gpu_faults * model.fault_us +
		    r->c.cpu_faults * model.cpu_fault_us +
		    bytes / (model.link_gbs * 1e3) +
		    r->use.remote * model.remote_page_us +
		    r->c.tlb_misses * model.tlb_miss_us +
		    r->throttles * model.throttle_us +
		    local_reads * PAGE / (model.hbm_gbs * 1e3);

	return us / 1e3;
}

/*
 * --bpf DIR: the policy tool and the BPF objects (DIR/svmtune-policy,
 * DIR/bpf/); NULL, or programmable policy unavailable: no program rows.
 */
static const char *bpf_dir;

/* Whether @p's row is measured in this run (and in this workload). */
static int measured(const struct policy *p, int pingpong)
{
	return (!p->pingpong_only || pingpong) && (!p->bpf || bpf_dir);
}

/* A program attached by the policy tool: its pid, its standard input. */
struct attached {
	pid_t pid;
	int in;
};

/*
 * Attach @spec ("OBJECT:MAP") globally with the policy tool, which keeps
 * it attached until its standard input closes (bpf_detach()).
 */
static int bpf_attach(const char *spec, struct attached *a)
{
	char obj[1024], tool[1024], map[64], line[128] = "";
	const char *colon = strchr(spec, ':');
	int in[2], out[2];
	FILE *f;

	if (!colon)
		return -EINVAL;
	snprintf(obj, sizeof(obj), "%s/bpf/%.*s", bpf_dir, (int)(colon - spec),
		 spec);
	snprintf(map, sizeof(map), "%s", colon + 1);
	snprintf(tool, sizeof(tool), "%s/svmtune-policy", bpf_dir);
	if (pipe(in))
		return -errno;
	if (pipe(out)) {
		close(in[0]);
		close(in[1]);
		return -errno;
	}
	a->pid = fork();
	if (!a->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(in[1]);
		close(out[0]);
		execl(tool, tool, "attach", obj, map, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	a->in = in[1];
	f = fdopen(out[0], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    strncmp(line, "attached ", 9)) {
		fprintf(stderr, "svmtune_bench: cannot attach %s: %s", spec,
			*line ? line : "no answer\n");
		if (f)
			fclose(f);
		close(a->in);
		if (a->pid > 0)
			waitpid(a->pid, NULL, 0);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static void bpf_detach(struct attached *a)
{
	close(a->in);
	waitpid(a->pid, NULL, 0);
}

static int set_policy(const struct policy *p)
{
	if (svmtune_tool_write_knob("policy", p->knob) ||
	    svmtune_tool_write_knob("granularity", p->granularity) ||
	    svmtune_tool_write_knob("thrashing", p->thrashing) ||
	    svmtune_tool_write_knob("prefetch_threshold", p->prefetch) ||
	    svmtune_tool_write_knob("thrashing_pin_threshold",
				    p->pin_threshold) ||
	    svmtune_tool_write_knob("fragment_auto", p->fragment_auto))
		return -1;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A GPU access of [@addr, @addr + @size), counted in @use; 0 or -errno. */
static int gpu_access(int emu, char *addr, unsigned long size, char *tmp,
		      unsigned int op, struct gpu_use *use)
{
	struct svmtune_emu_access a = { 0 };
	int ret;

	ret = svmtune_tool_gpu_access_counted(emu, addr, size, tmp, op, &a);
	if (ret)
		return ret;
	if (op == SVMTUNE_EMU_READ)
		use->reads += size / PAGE;
	use->remote += a.remote_accesses;
	return 0;
}

static int gpu_read(int emu, char *addr, unsigned long size, char *tmp,
		    struct gpu_use *use)
{
	return gpu_access(emu, addr, size, tmp, SVMTUNE_EMU_READ, use);
}

/* @n interleaved streams over equal parts of [@buf, @buf + @size). */
static int streams(int emu, char *buf, unsigned long size, unsigned int n,
		   char *tmp, struct gpu_use *use)
{
	unsigned long part = size / n, off;
	unsigned int s;
	int ret = 0;

	for (off = 0; off < part && !ret; off += PAGE)
		for (s = 0; s < n && !ret; s++)
			ret = gpu_read(emu, buf + s * part + off, PAGE, tmp,
				       use);
	return ret;
}

/* The second emulated GPU, for turns, or -1. */
static int emu1 = -1;

/*
 * turns: GPU 0 (@emu), GPU 1 (emu1) and the CPU take turns, three rounds:
 * each reads every page, checks it holds the number of turns so far, and
 * writes it back plus one.
 */
static int turns(int emu, char *buf, unsigned long size, char *tmp,
		 struct gpu_use *use)
{
	unsigned int turn;
	unsigned long i, j;
	int ret = emu1 < 0 ? -ENODEV : 0;

	memset(buf, 0, size);
	for (turn = 0; turn < 9 && !ret; turn++) {
		int fd = turn % 3 == 0 ? emu : emu1;

		for (i = 0; i < size && !ret; i += PAGE) {
			char *data = turn % 3 == 2 ? buf + i : tmp;

			if (turn % 3 != 2)
				ret = gpu_read(fd, buf + i, PAGE, tmp, use);
			for (j = 0; j < PAGE && !ret; j++)
				ret = data[j] == (char)turn ? 0 : -EIO;
			if (ret)
				break;
			memset(data, turn + 1, PAGE);
			if (turn % 3 != 2)
				ret = gpu_access(fd, buf + i, PAGE, tmp,
						 SVMTUNE_EMU_WRITE, use);
		}
	}
	return ret;
}

/* An explicit migration of [@buf, @buf + @size) to @dest. */
static int emu_migrate(int emu, char *buf, unsigned long size, __u32 dest)
{
	struct svmtune_emu_migrate m;

	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)buf;
	m.size = size;
	m.dest = dest;
	return ioctl(emu, SVMTUNE_EMU_IOC_MIGRATE, &m) ? -errno : 0;
}

/* prefetch-race's thread: the migration racing the GPU's reads. */
struct race {
	int emu;
	char *buf;
	unsigned long size;
	int ret;
};

static void *race_prefetch(void *arg)
{
	struct race *r = arg;

	r->ret = emu_migrate(r->emu, r->buf, r->size, SVMTUNE_EMU_TO_DEVICE);
	return NULL;
}

/* reuse: the CPU threads, each writing its slice a page at a time. */
#define REUSE_THREADS 8

struct reuse_slice {
	char *start;
	unsigned long size;
};

static void *reuse_write(void *arg)
{
	struct reuse_slice *sl = arg;
	unsigned long i;

	for (i = 0; i < sl->size; i += PAGE)
		memset(sl->start + i, 0xa5, PAGE);
	return NULL;
}

static int reuse_threads(char *buf, unsigned long size)
{
	unsigned long each = size / REUSE_THREADS, i;
	struct reuse_slice sl[REUSE_THREADS];
	pthread_t t[REUSE_THREADS];
	int n, started = 0;

	for (n = 0; n < REUSE_THREADS; n++) {
		sl[n].start = buf + n * each;
		sl[n].size = n == REUSE_THREADS - 1 ? size - n * each : each;
		if (pthread_create(&t[n], NULL, reuse_write, &sl[n]))
			break;
		started++;
	}
	for (n = 0; n < started; n++)
		pthread_join(t[n], NULL);
	if (started < REUSE_THREADS)
		return -EAGAIN;
	for (i = 0; i < size; i++)
		if (buf[i] != (char)0xa5)
			return -EIO;
	return 0;
}

/*
 * managed-vs-copy's kernel (@explicit: explicit-copy's, the buffer
 * migrated to the GPU before and back after): the GPU reads each page
 * and writes it back plus one, then the CPU checks every byte.
 */
static int plus_one(int emu, char *buf, unsigned long size, char *tmp,
		    struct gpu_use *use, int explicit)
{
	unsigned long i, j;
	int ret = 0;

	if (explicit)
		ret = emu_migrate(emu, buf, size, SVMTUNE_EMU_TO_DEVICE);
	for (i = 0; i < size && !ret; i += PAGE) {
		ret = gpu_read(emu, buf + i, PAGE, tmp, use);
		for (j = 0; j < PAGE && !ret; j++)
			ret = tmp[j] == 0x5a ? 0 : -EIO;
		if (ret)
			break;
		memset(tmp, 0x5b, PAGE);
		ret = gpu_access(emu, buf + i, PAGE, tmp, SVMTUNE_EMU_WRITE,
				 use);
	}
	if (explicit && !ret)
		ret = emu_migrate(emu, buf, size, SVMTUNE_EMU_TO_SYSTEM);
	for (i = 0; i < size && !ret; i++)
		ret = buf[i] == 0x5b ? 0 : -EIO;
	return ret;
}

/*
 * The workload's GPU and CPU accesses on @buf of @size bytes, with @tmp
 * (2 MiB) for the data; 0 or -errno.
 */
static int workload(int emu, const char *name, char *buf, unsigned long size,
		    char *tmp, struct gpu_use *use)
{
	unsigned long i, j, npages = size / PAGE, half = size / 2;
	unsigned int seed = 7;
	int ret = 0, r;

	if (!strcmp(name, "stream")) {
		for (i = 0; i < size && !ret; i += PAGE)
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
	} else if (!strcmp(name, "streams2")) {
		ret = streams(emu, buf, size, 2, tmp, use);
	} else if (!strcmp(name, "streams8")) {
		ret = streams(emu, buf, size, 8, tmp, use);
	} else if (!strcmp(name, "random")) {
		unsigned long *order = malloc(npages * sizeof(*order)), j, t;

		if (!order)
			return -ENOMEM;
		for (i = 0; i < npages; i++)
			order[i] = i;
		for (i = npages - 1; i > 0; i--) {
			j = rand_r(&seed) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < npages && !ret; i++)
			ret = gpu_read(emu, buf + order[i] * PAGE, PAGE, tmp,
				       use);
		free(order);
	} else if (!strcmp(name, "sparse")) {
		for (i = 0; i < sparse_pages && !ret; i++)
			ret = gpu_read(emu,
				       buf + (rand_r(&seed) % npages) * PAGE,
				       PAGE, tmp, use);
	} else if (!strcmp(name, "stride")) {
		for (i = 0; i < size && !ret; i += 256 * 1024)
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
	} else if (!strcmp(name, "tlb")) {
		for (i = 0; i < size && !ret; i += 2 * MIB)
			ret = gpu_read(emu, buf + i, 2 * MIB, tmp, use);
		for (r = 0; r < tlb_passes && !ret; r++)
			for (i = 0; i < size && !ret; i += 64 * 1024)
				ret = gpu_read(emu, buf + i, PAGE, tmp, use);
	} else if (!strcmp(name, "stencil")) {
		for (i = 0; i < half && !ret; i += PAGE) {
			unsigned long lo = i ? i - PAGE : 0;
			unsigned long hi = i + PAGE < half ? i + 2 * PAGE :
							     half;

			ret = gpu_read(emu, buf + lo, hi - lo, tmp, use);
			if (!ret)
				ret = gpu_access(emu, buf + half + i, PAGE, tmp,
						 SVMTUNE_EMU_WRITE, use);
		}
	} else if (!strcmp(name, "spmv")) {
		for (i = 0; i < half && !ret; i += PAGE) {
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
			for (r = 0; r < 4 && !ret; r++)
				ret = gpu_read(emu,
					       buf + half +
						       (rand_r(&seed) %
							(half / PAGE)) *
							       PAGE,
					       PAGE, tmp, use);
		}
	} else if (!strcmp(name, "oversub")) {
		for (r = 0; r < 2; r++)
			for (i = 0; i < size && !ret; i += 64 * 1024)
				ret = gpu_read(emu, buf + i, 64 * 1024, tmp,
					       use);
	} else if (!strcmp(name, "prefetched")) {
		ret = emu_migrate(emu, buf, size, SVMTUNE_EMU_TO_DEVICE);
		for (i = 0; i < size && !ret; i += PAGE)
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
	} else if (!strcmp(name, "sparse64k")) {
		for (i = 0; i < size && !ret; i += 64 * 1024)
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
	} else if (!strcmp(name, "prefetch-race")) {
		struct race rc = { emu, buf, size, 0 };
		pthread_t t;

		if (pthread_create(&t, NULL, race_prefetch, &rc))
			return -EAGAIN;
		for (i = 0; i < size && !ret; i += PAGE)
			ret = gpu_read(emu, buf + i, PAGE, tmp, use);
		pthread_join(t, NULL);
		ret = ret ? ret : rc.ret;
	} else if (!strcmp(name, "oversub-sparse")) {
		for (r = 0; r < 3; r++)
			for (i = 0; i + 2 * MIB <= size && !ret; i += 2 * MIB)
				for (j = 0; j < 2 * MIB && !ret;
				     j += 512 * 1024)
					ret = gpu_read(emu, buf + i + j, PAGE,
						       tmp, use);
	} else if (!strcmp(name, "managed-vs-copy")) {
		ret = plus_one(emu, buf, size, tmp, use, 0);
	} else if (!strcmp(name, "explicit-copy")) {
		ret = plus_one(emu, buf, size, tmp, use, 1);
	} else if (!strcmp(name, "reuse")) {
		ret = reuse_threads(buf, size);
	} else if (!strcmp(name, "turns")) {
		ret = turns(emu, buf, size, tmp, use);
	} else {
		for (r = 0; r < pingpong_rounds && !ret; r++)
			for (i = 0; i < pingpong_pages && !ret; i++) {
				ret = gpu_read(emu, buf + i * 2 * MIB, PAGE,
					       tmp, use);
				buf[i * 2 * MIB] = (char)r;
			}
	}
	return ret;
}

/*
 * One measurement: a fresh buffer (with @pol's advice), the workload, the
 * counters' growth.
 */
static int measure(int emu, int ctl, const char *name, const struct policy *pol,
		   struct result *res)
{
	/* The oversubscribed loops' buffer: 1.5 times the device memory. */
	unsigned long size = strcmp(name, "oversub") &&
					     strcmp(name, "oversub-sparse") ?
				     buf_size :
				     device_mem / 2 * 3;
	struct svmtune_counters before, after;
	struct svmtune_mitigations mb = { 0 }, ma = { 0 };
	uint64_t *b = (uint64_t *)&before, *a = (uint64_t *)&after;
	static char tmp[2 * MIB];
	double t0;
	char *buf;
	size_t i;
	int ret;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
	madvise(buf, size, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, size);
	if (pol->advise_remote) {
		struct svmtune_range_policy rp;

		memset(&rp, 0, sizeof(rp));
		rp.start = (uintptr_t)buf;
		rp.size = size;
		rp.set = SVMTUNE_POLICY_ACCESS;
		rp.access = SVMTUNE_ACCESS_REMOTE;
		if (ioctl(ctl, SVMTUNE_IOC_SET_POLICY, &rp)) {
			munmap(buf, size);
			return -errno;
		}
	}
	/* reuse's GPU phase, not measured: the buffer in device memory. */
	if (!strcmp(name, "reuse")) {
		struct gpu_use unused = { 0 };

		for (i = 0; i < size; i += 2 * MIB) {
			ret = gpu_read(emu, buf + i, 2 * MIB, tmp, &unused);
			if (ret) {
				munmap(buf, size);
				return ret;
			}
		}
	}
	if (svmtune_tool_stats(ctl, &before, &mb)) {
		munmap(buf, size);
		return -EIO;
	}
	t0 = now_ms();
	memset(&res->use, 0, sizeof(res->use));
	ret = workload(emu, name, buf, size, tmp, &res->use);
	res->ms = now_ms() - t0;
	if (!ret && svmtune_tool_stats(ctl, &after, &ma))
		ret = -EIO;
	munmap(buf, size);
	for (i = 0; !ret && i < sizeof(after) / sizeof(uint64_t); i++)
		a[i] -= b[i];
	res->c = after;
	res->throttles = ma.thrashing_throttles - mb.thrashing_throttles;
	return ret;
}

struct row {
	double ms, time_x, mib, bytes_x, model_ms, model_x;
	unsigned long long faults, pages_to_gpu, remote, remote_acc, thrash;
	unsigned long long throttles;
};

static struct row make_row(const struct result *r, const struct result *base)
{
	uint64_t bytes = r->c.bytes_to_device + r->c.bytes_to_system;
	uint64_t base_bytes = base->c.bytes_to_device + base->c.bytes_to_system;
	struct row row = {
		.ms = r->ms,
		.time_x = base->ms > 0 ? r->ms / base->ms : 0,
		.mib = (double)bytes / MIB,
		.bytes_x = base_bytes ? (double)bytes / base_bytes : 0,
		.faults = r->c.gpu_faults + r->c.cpu_faults,
		.pages_to_gpu = r->c.pages_to_device,
		.remote = r->c.remote_pages,
		.remote_acc = r->use.remote,
		.thrash = r->c.thrashing_detected,
		.throttles = r->throttles,
		.model_ms = model_ms(r),
		.model_x = model_ms(base) > 0 ? model_ms(r) / model_ms(base) :
						0,
	};

	return row;
}

static void print_row(FILE *f, const char *fmt, const char *w, const char *p,
		      const struct row *r)
{
	fprintf(f, fmt, w, p, r->ms, r->time_x, r->faults, r->pages_to_gpu,
		r->mib, r->bytes_x, r->remote, r->remote_acc, r->thrash,
		r->throttles, r->model_ms, r->model_x);
}

/* The index of workload @name in @workloads. */
static unsigned int workload_index(const char *const *workloads, unsigned int n,
				   const char *name)
{
	unsigned int w;

	for (w = 0; w < n && strcmp(workloads[w], name); w++)
		;
	return w;
}

/*
 * UVM's three ratios on an H200 (shared/notes/policy-anchors.md) and
 * svmtune's on the same patterns, from the modeled time, with the issue's
 * targets.
 */
static void print_uvm_ratios(const char *const *workloads, unsigned int n,
			     struct result (*all)[NPOLICIES])
{
	const struct result *stream =
		&all[workload_index(workloads, n, "stream")][AUTOMATIC];
	const struct result *pre =
		&all[workload_index(workloads, n, "prefetched")][AUTOMATIC];
	const struct result *sparse =
		&all[workload_index(workloads, n, "sparse64k")][AUTOMATIC];
	const struct result *pp = all[workload_index(workloads, n, "pingpong")];
	double moved = sparse->c.bytes_to_device + sparse->c.bytes_to_system;
	double touched = (double)sparse->use.reads * PAGE;
	double thr = model_ms(stream) > 0 ? model_ms(pre) / model_ms(stream) :
					    0;
	double adv = model_ms(&pp[ADVISED]);

	printf("\nUVM's three ratios (H200, shared/notes/policy-anchors.md) and svmtune's (%s, modeled time):\n\n",
	       policies[AUTOMATIC].name);
	printf("| ratio | UVM | svmtune | target |\n|---|---:|---:|---:|\n");
	printf("| fault-driven sequential / explicit prefetch, throughput | 0.20 | %.2f | >= 0.6 |\n",
	       thr);
	printf("| sparse 1 page per 64 KiB: bytes moved / bytes of the pages touched | about 16 | %.2f | <= 2 |\n",
	       touched > 0 ? moved / touched : 0);
	printf("| ping-pong: automatic / best manual advice, time | 122 | %.2f | <= 2 |\n",
	       adv > 0 ? model_ms(&pp[AUTOMATIC]) / adv : 0);
	/* The same with the pin at the first detection: no throttle waits. */
	printf("| ping-pong: automatic pinning at once (%s) / best manual advice, time | 122 | %.2f | <= 2 |\n",
	       policies[AUTO_PIN].name,
	       adv > 0 ? model_ms(&pp[AUTO_PIN]) / adv : 0);
}

static const char *const columns =
	"workload,policy,ms,time_x,faults,pages_to_gpu,mib_moved,bytes_x,remote_pages,remote_accesses,thrashing_detected,throttles,model_ms,model_x";

/*
 * --overhead LOG2: the engine's cost on the fault path. With svmtune_emu
 * loaded normally, fixed windows of 2^LOG2 bytes through the engine (no
 * prefetch, thrashing off); with svmtune_emu's passthrough_window=LOG2,
 * the same windows without the engine. Prints "engine|passthrough,LOG2,
 * workload,ms" for the fault-bound workloads, best of the runs.
 */
static int overhead_main(int emu, int ctl, unsigned int log2)
{
	static const char *const workloads[] = { "stream", "random" };
	static const char *const knobs[] = {
		"policy",    "granularity",   "prefetch_threshold",
		"thrashing", "fragment_auto", "fragment_size"
	};
	char saved[ARRAY_SIZE(knobs)][32], gran[16], pt[16];
	const struct policy none = { 0 };
	unsigned int w, k, passthrough;
	int ret = 0;

	if (svmtune_tool_read_file(
		    "/sys/module/svmtune_emu/parameters/passthrough_window", pt,
		    sizeof(pt)))
		return -EIO;
	passthrough = strtoul(pt, NULL, 10);
	if (passthrough && passthrough != log2)
		return -EINVAL;
	snprintf(gran, sizeof(gran), "%lu%s",
		 log2 >= 20 ? 1UL << (log2 - 20) : 1UL << (log2 - 10),
		 log2 >= 20 ? "M" : "K");
	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		if (svmtune_tool_read_knob(knobs[k], saved[k],
					   sizeof(saved[k])))
			return -EIO;
	if (!passthrough &&
	    (svmtune_tool_write_knob("policy", "fixed") ||
	     svmtune_tool_write_knob("granularity", gran) ||
	     svmtune_tool_write_knob("prefetch_threshold", "0") ||
	     svmtune_tool_write_knob("thrashing", "off") ||
	     svmtune_tool_write_knob("fragment_auto", "0") ||
	     /* The pass-through lays VRAM out per window, so must the engine. */
	     svmtune_tool_write_knob("fragment_size", gran)))
		ret = -EIO;
	for (w = 0; w < ARRAY_SIZE(workloads) && !ret; w++) {
		struct result r, best = { 0 };
		int i;

		for (i = 0; i < repeat && !ret; i++) {
			ret = measure(emu, ctl, workloads[w], &none, &r);
			if (!ret && (i == 0 || r.ms < best.ms))
				best = r;
		}
		if (!ret)
			printf("%s,%u,%s,%.3f\n",
			       passthrough ? "passthrough" : "engine", log2,
			       workloads[w], best.ms);
	}
	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		svmtune_tool_write_knob(knobs[k], saved[k]);
	return ret;
}

/* Best of the runs: MiB/s of @bytes in @ms, kept if faster than @best. */
static void keep_best(double *best, unsigned long bytes, double ms)
{
	double mibs = ms > 0 ? bytes / (double)MIB / (ms / 1e3) : 0;

	if (mibs > *best)
		*best = mibs;
}

/*
 * Explicit migrations of @buf (@size bytes, every page in system memory,
 * or every page on the device for SVMTUNE_EMU_TO_SYSTEM), in calls of
 * @chunk bytes each, their MiB/s kept in @best if faster; 0 or -errno.
 */
static int migrate_chunks(int emu, char *buf, unsigned long size,
			  unsigned long chunk, unsigned int dest, double *best)
{
	struct svmtune_emu_migrate m;
	unsigned long off;
	double t0 = now_ms();

	for (off = 0; off < size; off += chunk) {
		memset(&m, 0, sizeof(m));
		m.addr = (uintptr_t)(buf + off);
		m.size = chunk;
		m.dest = dest;
		if (ioctl(emu, SVMTUNE_EMU_IOC_MIGRATE, &m))
			return -errno;
		if (m.migrated != chunk / PAGE)
			return -EAGAIN;
	}
	keep_best(best, size, now_ms() - t0);
	return 0;
}

/*
 * Migration throughput by window (--copy): the emulated GPU's explicit
 * migrations (migrate_vma, device page allocation, the copy; no fault and
 * no policy) of a buffer in calls of 4 KiB, 64 KiB and 2 MiB, each way,
 * against memcpy() of the same bytes in the same VM. Prints
 * "copy,<memcpy|to_device|to_system>,<log2 window>,<MiB/s>" rows; every
 * byte is checked after the way back.
 */
static int copy_main(int emu)
{
	static const unsigned int windows[] = { 12, 16, 21 };
	unsigned long size = buf_size, i;
	double best = 0;
	char *src, *dst;
	unsigned int w;
	int r, ret = 0;

	src = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED)
		return -ENOMEM;
	madvise(src, size, MADV_NOHUGEPAGE);
	madvise(dst, size, MADV_NOHUGEPAGE);
	memset(src, 0x5a, size);
	memset(dst, 0xa5, size);
	for (r = 0; r < repeat; r++) {
		double t0 = now_ms();

		memcpy(dst, src, size);
		keep_best(&best, size, now_ms() - t0);
	}
	if (memcmp(dst, src, size))
		ret = -EIO;
	munmap(dst, size);
	printf("copy,memcpy,0,%.1f\n", best);

	for (w = 0; w < ARRAY_SIZE(windows) && !ret; w++) {
		unsigned long chunk = 1UL << windows[w];
		double to_dev = 0, to_sys = 0;

		for (r = 0; r < repeat && !ret; r++) {
			for (i = 0; i < size; i += PAGE)
				src[i] = (char)(i / PAGE + r);
			ret = migrate_chunks(emu, src, size, chunk,
					     SVMTUNE_EMU_TO_DEVICE, &to_dev);
			if (!ret)
				ret = migrate_chunks(emu, src, size, chunk,
						     SVMTUNE_EMU_TO_SYSTEM,
						     &to_sys);
			for (i = 0; i < size && !ret; i += PAGE)
				if (src[i] != (char)(i / PAGE + r))
					ret = -EIO;
		}
		if (!ret) {
			printf("copy,to_device,%u,%.1f\n", windows[w], to_dev);
			printf("copy,to_system,%u,%.1f\n", windows[w], to_sys);
		}
	}
	munmap(src, size);
	return ret;
}

/*
 * --thp: 2 MiB-window migration throughput through the fault paths, with
 * svmtune_emu's compound device migration (thp_migration 1: each window
 * one device-private THP) against page by page (0, what kernels without
 * it do), in turn in one run on the same kernel. Each round maps a fresh
 * buffer (2 MiB aligned, MADV_HUGEPAGE) that the CPU fills, as THPs; the
 * GPU reads one page of each 2 MiB window (one GPU fault migrates the
 * window: fixed 2 MiB windows, fragment_size 2M), timed; then the CPU
 * reads one byte of each window (one CPU fault brings it back), timed;
 * the engine's counters must show every page moved each way, and every
 * byte is checked. Best of 2 x repeat rounds per mode, in the order THP,
 * pages, pages, THP. Prints "thp,<thp|pages>,<to_device|to_system>,MiB/s,
 * folios" rows (folios: svmtune_emu's device THPs moved, from debugfs),
 * or "thp,unsupported" first where the kernel has no compound device
 * migration (then only the pages rows).
 */
#define THP_KNOB "/sys/module/svmtune_emu/parameters/thp_migration"
#define THP_STATS "/sys/kernel/debug/svmtune_emu/svmtune_emu0/thp"

/* The counter @name of THP_STATS, or 0. */
static long thp_stat(const char *name)
{
	size_t n = strlen(name);
	char buf[512], *line;

	if (svmtune_tool_read_file(THP_STATS, buf, sizeof(buf)))
		return 0;
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, name, n) && line[n] == ' ')
			return strtol(line + n + 1, NULL, 10);
	}
	return 0;
}

/* Write @val to the file at @path; 0 or -errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* One round of --thp: MiB/s each way kept in @to_dev and @to_sys if faster. */
static int thp_round(int emu, int ctl, unsigned int seed, double *to_dev,
		     double *to_sys)
{
	const unsigned long size = buf_size, win = 2 * MIB;
	struct svmtune_counters c0, c1, c2;
	struct svmtune_emu_access a;
	char page[PAGE], *raw, *buf;
	unsigned long off;
	int ret = 0;
	double t0;

	raw = mmap(NULL, size + win, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -ENOMEM;
	buf = (char *)(((uintptr_t)raw + win - 1) & ~(win - 1));
	madvise(buf, size, MADV_HUGEPAGE);
	for (off = 0; off < size; off += PAGE)
		memset(buf + off, (char)(off / PAGE + seed), PAGE);
	if (svmtune_tool_stats(ctl, &c0, NULL))
		ret = -EIO;
	t0 = now_ms();
	for (off = 0; off < size && !ret; off += win) {
		ret = svmtune_tool_gpu_access_counted(
			emu, buf + off, PAGE, page, SVMTUNE_EMU_READ, &a);
		if (!ret && a.migrated != win / PAGE)
			ret = -EAGAIN;
	}
	if (!ret)
		keep_best(to_dev, size, now_ms() - t0);
	if (!ret && svmtune_tool_stats(ctl, &c1, NULL))
		ret = -EIO;
	t0 = now_ms();
	for (off = 0; off < size && !ret; off += win)
		if (__atomic_load_n(&buf[off], __ATOMIC_RELAXED) !=
		    (char)(off / PAGE + seed))
			ret = -EIO;
	if (!ret)
		keep_best(to_sys, size, now_ms() - t0);
	if (!ret && svmtune_tool_stats(ctl, &c2, NULL))
		ret = -EIO;
	/* Every page went each way, and kept its bytes. */
	if (!ret && (c1.pages_to_device - c0.pages_to_device != size / PAGE ||
		     c2.pages_to_system - c1.pages_to_system != size / PAGE))
		ret = -EAGAIN;
	for (off = 0; off < size && !ret; off += PAGE)
		if (buf[off] != (char)(off / PAGE + seed) ||
		    buf[off + PAGE - 1] != (char)(off / PAGE + seed))
			ret = -EIO;
	munmap(raw, size + win);
	return ret;
}

static int thp_main(int emu, int ctl)
{
	static const char *const knobs[] = {
		"policy",	  "granularity",   "prefetch_threshold",
		"thrashing",	  "fragment_auto", "fragment_size",
		"evict_when_full"
	};
	static const char *const order[] = { "1", "0", "0", "1" };
	double best[2][2] = { { 0 } }; /* [thp?][to_system?] */
	long folios[2][2] = { { 0 } };
	char saved[ARRAY_SIZE(knobs)][32], knob[16];
	unsigned int k, i, r, supported;
	int ret = 0;

	if (svmtune_tool_read_file(THP_KNOB, knob, sizeof(knob)))
		return -EIO;
	supported = write_file(THP_KNOB, "1") == 0;
	if (!supported)
		printf("thp,unsupported\n");
	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		if (svmtune_tool_read_knob(knobs[k], saved[k],
					   sizeof(saved[k])))
			return -EIO;
	if (svmtune_tool_write_knob("policy", "fixed") ||
	    svmtune_tool_write_knob("granularity", "2M") ||
	    svmtune_tool_write_knob("prefetch_threshold", "0") ||
	    svmtune_tool_write_knob("thrashing", "off") ||
	    svmtune_tool_write_knob("fragment_auto", "0") ||
	    svmtune_tool_write_knob("fragment_size", "2M") ||
	    svmtune_tool_write_knob("evict_when_full", "1"))
		ret = -EIO;
	for (r = 0; r < (unsigned int)repeat && !ret; r++) {
		for (i = 0; i < ARRAY_SIZE(order) && !ret; i++) {
			int thp = order[i][0] == '1';
			long dev0 = thp_stat("to_device");
			long sys0 = thp_stat("to_system");

			if (thp && !supported)
				continue;
			ret = write_file(THP_KNOB, order[i]);
			if (!ret)
				ret = thp_round(emu, ctl, r * 4 + i,
						&best[thp][0], &best[thp][1]);
			folios[thp][0] += thp_stat("to_device") - dev0;
			folios[thp][1] += thp_stat("to_system") - sys0;
		}
	}
	for (i = supported ? 0 : 1; i < 2 && !ret; i++) {
		int thp = i == 0;

		printf("thp,%s,to_device,%.1f,%ld\n", thp ? "thp" : "pages",
		       best[thp][0], folios[thp][0]);
		printf("thp,%s,to_system,%.1f,%ld\n", thp ? "thp" : "pages",
		       best[thp][1], folios[thp][1]);
	}
	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		svmtune_tool_write_knob(knobs[k], saved[k]);
	write_file(THP_KNOB, knob);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: svmtune_bench [--smoke] [--bpf DIR] [--overhead LOG2 | --copy | --thp]\n"
		"  --smoke  a small, fast run (output shape, not numbers)\n"
		"  --bpf DIR  also the example programs (bpf-* rows), attached by\n"
		"           DIR/svmtune-policy from DIR/bpf/, where programmable\n"
		"           policy is available\n"
		"  --copy   explicit migrations in 4 KiB, 64 KiB and 2 MiB calls, each way,\n"
		"           against memcpy() (\"copy,memcpy|to_device|to_system,LOG2,MiB/s\")\n"
		"  --thp    2 MiB windows by GPU fault and CPU fault, svmtune_emu's compound\n"
		"           device migration against page by page\n"
		"           (\"thp,thp|pages,to_device|to_system,MiB/s,folios\")\n"
		"  --overhead LOG2  fixed 2^LOG2-byte windows through the engine, or,\n"
		"           with svmtune_emu's passthrough_window=LOG2, without it\n"
		"           (the engine's cost; \"engine|passthrough,LOG2,workload,ms\")\n"
		"The modeled time's constants: SVMTUNE_MODEL_FAULT_US, _CPU_FAULT_US,\n"
		"_LINK_GBS, _REMOTE_PAGE_US, _TLB_MISS_US, _HBM_GBS (Documentation/benchmarks.rst).\n"
		"SVMTUNE_BENCH_KERNEL names the test kernel's variant in the header\n"
		"(tools/bench/run sets it: debug or bench).\n");
}

int main(int argc, char **argv)
{
	static const char *const workloads[] = { "stream",
						 "streams2",
						 "streams8",
						 "random",
						 "sparse",
						 "stride",
						 "tlb",
						 "stencil",
						 "spmv",
						 "oversub",
						 "pingpong",
						 "prefetched",
						 "sparse64k",
						 "prefetch-race",
						 "oversub-sparse",
						 "managed-vs-copy",
						 "explicit-copy",
						 "reuse",
						 "turns" };
	static const char *const knobs[] = { "policy",
					     "granularity",
					     "thrashing",
					     "thrashing_lapse_us",
					     "prefetch_threshold",
					     "thrashing_pin_threshold",
					     "thrashing_pin_ms",
					     "thrashing_throttle_us",
					     "fragment_auto" };
	char saved[ARRAY_SIZE(knobs)][32];
	struct result res[NPOLICIES];
	struct row rows[ARRAY_SIZE(workloads)][NPOLICIES];
	static struct result all[ARRAY_SIZE(workloads)][NPOLICIES];
	unsigned int w, p, k, overhead = 0, copy = 0, thp = 0;
	int emu, ctl, ret = 0, a;
	const char *kernel;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--smoke")) {
			buf_size = 4 * MIB;
			repeat = 1;
			sparse_pages = 64;
			pingpong_rounds = 8;
			pingpong_pages = 2;
			tlb_passes = 1;
		} else if (!strcmp(argv[a], "--bpf") && a + 1 < argc) {
			bpf_dir = argv[++a];
		} else if (!strcmp(argv[a], "--copy")) {
			copy = 1;
		} else if (!strcmp(argv[a], "--thp")) {
			thp = 1;
		} else if (!strcmp(argv[a], "--overhead") && a + 1 < argc) {
			overhead = strtoul(argv[++a], NULL, 10);
			if (overhead < 12 || overhead > 21) {
				usage(stderr);
				return 2;
			}
		} else {
			/* --help, or anything else: a usage error. */
			usage(strcmp(argv[a], "--help") ? stderr : stdout);
			return strcmp(argv[a], "--help") ? 2 : 0;
		}
	}

	if (model_from_env())
		return 2;
	emu = open("/dev/svmtune_emu0", O_RDWR);
	ctl = open("/dev/svmtune", O_RDWR);
	if (emu < 0 || ctl < 0) {
		perror("svmtune_bench: open /dev/svmtune_emu0 or /dev/svmtune");
		return 1;
	}
	emu1 = open("/dev/svmtune_emu1", O_RDWR);
	device_mem = svmtune_tool_device_mem(ctl, "svmtune_emu0");
	if (device_mem < 2 * MIB) {
		fprintf(stderr,
			"svmtune_bench: svmtune_emu0 has %llu bytes of memory\n",
			device_mem);
		return 1;
	}
	if (copy + thp + !!overhead > 1) {
		usage(stderr);
		return 2;
	}
	if (thp) {
		ret = thp_main(emu, ctl);
		if (ret)
			fprintf(stderr, "svmtune_bench: %s\n", strerror(-ret));
		return ret ? 1 : 0;
	}
	if (copy) {
		ret = copy_main(emu);
		if (ret)
			fprintf(stderr, "svmtune_bench: %s\n", strerror(-ret));
		return ret ? 1 : 0;
	}
	if (overhead) {
		/* More runs: the ratio is of two close times (smoke: 1 MiB). */
		if (repeat == 1)
			buf_size = MIB;
		else
			repeat = 5;
		ret = overhead_main(emu, ctl, overhead);
		if (ret)
			fprintf(stderr, "svmtune_bench: %s\n", strerror(-ret));
		return ret ? 1 : 0;
	}
	for (k = 0; k < ARRAY_SIZE(knobs); k++) {
		if (svmtune_tool_read_knob(knobs[k], saved[k],
					   sizeof(saved[k]))) {
			perror("svmtune_bench: /sys/kernel/svmtune");
			return 1;
		}
	}
	/*
	 * This emulated machine (TCG, the test kernel) runs a GPU fault in
	 * tens of milliseconds where an MI300X takes tens of microseconds:
	 * the thrashing clocks are stretched alike, or a pin would end
	 * before the page comes round again (pingpong visits each page
	 * every 8 GPU and 8 CPU faults, about 0.6 s here).
	 */
	if (bpf_dir) {
		char state[64] = "";

		svmtune_tool_read_file("/sys/kernel/svmtune/bpf/state", state,
				       sizeof(state));
		if (strncmp(state, "available", 9)) {
			printf("Programs (bpf-* rows) not measured: programmable policy %s\n",
			       state);
			bpf_dir = NULL;
		}
	}
	svmtune_tool_write_knob("thrashing_lapse_us", "1000000");
	svmtune_tool_write_knob("thrashing_pin_ms", "30000");
	svmtune_tool_write_knob("thrashing_throttle_us", "20000");

	kernel = getenv("SVMTUNE_BENCH_KERNEL");
	printf("svmtune_bench: %lu MiB buffer (oversub: %llu MiB, the GPU has %llu MiB), emulated GPU, best of %d runs%s, %s test kernel\n\n",
	       buf_size / MIB, device_mem / 2 * 3 / MIB, device_mem / MIB,
	       repeat, repeat == 1 && buf_size < 32 * MIB ? " (smoke)" : "",
	       kernel && *kernel ? kernel : "unnamed");
	printf("Ratios are to fixed-2M in the same run (time x, bytes x, model x).\n");
	printf("Model (MI300X-class, Documentation/benchmarks.rst): GPU fault %g us, CPU fault %g us, link %g GB/s, remote page %g us, TLB miss %g us, HBM %g GB/s, throttle %g us.\n\n",
	       model.fault_us, model.cpu_fault_us, model.link_gbs,
	       model.remote_page_us, model.tlb_miss_us, model.hbm_gbs,
	       model.throttle_us);
	printf("| workload | policy | ms | time x | faults | pages to GPU | MiB moved | bytes x | remote pages | remote accesses | thrashing | throttles | model ms | model x |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (w = 0; w < ARRAY_SIZE(workloads) && !ret; w++) {
		int pingpong = !strcmp(workloads[w], "pingpong");

		for (p = 0; p < NPOLICIES && !ret; p++) {
			struct attached att = { -1, -1 };
			int program = 0;

			if (!measured(&policies[p], pingpong))
				continue;
			ret = set_policy(&policies[p]);
			if (!ret && policies[p].bpf) {
				ret = bpf_attach(policies[p].bpf, &att);
				program = !ret;
			}
			for (k = 0; k < (unsigned int)repeat && !ret; k++) {
				struct result r;

				ret = measure(emu, ctl, workloads[w],
					      &policies[p], &r);
				if (!ret && (k == 0 || r.ms < res[p].ms))
					res[p] = r;
			}
			if (program)
				bpf_detach(&att);
		}
		for (p = 0; p < NPOLICIES && !ret; p++) {
			if (!measured(&policies[p], pingpong))
				continue;
			all[w][p] = res[p];
			rows[w][p] = make_row(&res[p], &res[BASELINE]);
			print_row(
				stdout,
				"| %s | %s | %.1f | %.2f | %llu | %llu | %.1f | %.2f | %llu | %llu | %llu | %llu | %.3f | %.2f |\n",
				workloads[w], policies[p].name, &rows[w][p]);
		}
	}
	if (!ret)
		print_uvm_ratios(workloads, ARRAY_SIZE(workloads), all);
	if (!ret) {
		printf("\n--- csv\n%s\n", columns);
		for (w = 0; w < ARRAY_SIZE(workloads); w++)
			for (p = 0; p < NPOLICIES; p++)
				if (measured(&policies[p],
					     !strcmp(workloads[w], "pingpong")))
					print_row(
						stdout,
						"%s,%s,%.3f,%.4f,%llu,%llu,%.3f,%.4f,%llu,%llu,%llu,%llu,%.4f,%.4f\n",
						workloads[w], policies[p].name,
						&rows[w][p]);
		printf("--- end csv\n");
	}

	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		svmtune_tool_write_knob(knobs[k], saved[k]);
	if (ret) {
		fprintf(stderr, "svmtune_bench: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
