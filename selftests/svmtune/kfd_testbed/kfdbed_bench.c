// SPDX-License-Identifier: GPL-2.0
/*
 * kfdbed_bench: svmtune_bench's workloads on KFD's own SVM code (the KFD
 * test bed), so that KFD's policy ("kfd-default": KFD alone, its 2 MiB
 * granularity) and svmtune's policies on KFD are measured on the same
 * emulated hardware. Written on kfdsvm, as a HIP program would be.
 *
 * Workloads, on a managed buffer the CPU initialised (default 8 MiB):
 *   stream   GPU 0 reads all of it, 4 KiB at a time, in order
 *   sparse   GPU 0 reads 128 random 4 KiB pages
 *   stride   GPU 0 reads the first 4 KiB of every 256 KiB
 *   pingpong GPU 0 reads a page, the CPU writes it; 8 rounds on each of
 *            4 pages 2 MiB apart
 *   reuse    GPU 0 reads all of it (its pages go to VRAM), not measured;
 *            then, measured, 8 CPU threads write it, each its own eighth,
 *            a page at a time, as an OpenMP loop over a buffer the
 *            program freed and malloc handed out again would (ROCm's
 *            rocm-libraries pull 12323: KFD serialises these CPU faults,
 *            Documentation/notes/kfd-reuse.md); every byte checked after
 *   prefetch-race
 *            a thread prefetches the buffer to GPU 0 (hipMemPrefetchAsync)
 *            while GPU 0 already reads all of it in order (ROCm's hip
 *            issue 3111: prefetch ineffective when the GPU touches the data
 *            concurrently); pages moved more than once show as
 *            pages_to_vram over the buffer's pages
 *   oversub-sparse
 *            a 64 MiB buffer (whatever MIB says), VRAM held by the test bed
 *            so that 24 MiB stay free; GPU 0 reads 4 pages 512 KiB apart in
 *            each 2 MiB, three passes: the pages read fit VRAM whole at
 *            64 KiB windows (8 MiB), the 2 MiB windows around them do not
 *            (64 MiB). KFD allocates a range's BO whole (its 8 MiB here, a
 *            range being at most 1/32 of the test bed's 256 MiB;
 *            svm_range_vram_node_new()), so on KFD's code every window
 *            size asks VRAM for the whole buffer
 *   managed-vs-copy
 *            a kernel (GPU 0 reads every page, writes it back plus one)
 *            over a managed buffer the CPU initialised, then the CPU reads
 *            the result: GPU faults in, CPU faults back
 *   explicit-copy
 *            the same kernel with the copies explicit: the buffer
 *            prefetched to GPU 0 before it and back to the CPU after it,
 *            one SDMA migration of the whole buffer each way in KFD's own
 *            code (the test bed has no hipMalloc'd VRAM BO and
 *            hipMemcpy; those move the same bytes over the same SDMA
 *            engine without the migrate_vma bookkeeping, so this row's
 *            time is an upper bound on the copy's); the ratio of the two
 *            rows is the user's question (ORNL/HeCBench pull 326)
 *   turns    GPU 0, GPU 1 and the CPU in turn read every page and write
 *            it back plus one, three rounds (a pipeline over two GPUs with
 *            host steps); needs the test bed's num_gpus=2, and its row is
 *            "turns-xgmi" when the two share an xGMI hive (xgmi_hive=1,1),
 *            "turns-pcie" otherwise; with one GPU its row is a comment
 *            line saying it was not measured. The counters of every GPU
 *            are summed in the rows
 *
 * Usage: kfdbed_bench CONFIG [MIB [WORKLOAD]]: every workload, or the one
 * named; kfdbed_bench --list names them. CONFIG names the policy in effect (the
 * caller sets it up: tools/bench/kfd-bench; "advised" also sets each
 * buffer's svmtune access mode to remote, advise_remote(); "kfd-gran-4K",
 * "kfd-gran-64K" and "kfd-gran-2M" set each buffer's KFD granularity
 * attribute, kfd_granularity()); one CSV row
 * per workload:
 *   config,workload,ms,gpu_faults,dropped,pages_to_vram,pages_to_ram,
 *   mib_moved,remote_accesses,cpu_faults,stuck_threads
 * from the test bed's counters of GPU 0: faults KFD served, faults it
 * dropped (its 2 ms retry filter, or svmtune_kfd's per window), pages
 * copied each way by the SDMA; and the page reads the GPU's page table
 * served from system memory (or a peer's VRAM), over the link, each read
 * counted; and the page faults the workload's CPU threads took while it
 * ran (getrusage(RUSAGE_THREAD) around the measured part of each thread:
 * the buffer was initialised before, so these are the faults on pages in
 * VRAM, each a KFD svm_migrate_to_ram()); and reuse's CPU threads found
 * stuck (reuse()), 0 elsewhere. Every page the GPU reads is checked, and
 * every byte the CPU threads wrote.
 *
 * The buffer is aligned to its size rounded up to a power of two, so that
 * KFD does not split it in two ranges where it crosses a multiple of its
 * range limit (1/32 of VRAM, 2 MiB to 1 GiB: 8 MiB on the test bed's
 * 256 MiB, 1 GiB on an MI300X): at 2 MiB alignment, where the buffer fell
 * changed what the adaptive policy moved on sparse from run to run (222 to
 * 277 pages).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/svmtune.h>

#include "kfdsvm.h"

#define PAGE 4096UL
#define MIB (1UL << 20)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* oversub-sparse's buffer, and the VRAM left free for it. */
#define OVERSUB_SIZE (64 * MIB)
#define OVERSUB_FREE (24 * MIB)

/* How long reuse's CPU threads may take before they count as stuck. */
#define REUSE_DEADLINE_S 120

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Page reads served over the link (system memory, a peer's VRAM). */
static unsigned long long remote_accesses;

/* GPU @gpu reads or writes the page at @p from or to @buf. */
static int gpu_page_on(struct kfdsvm_ctx *ctx, unsigned int gpu,
		       unsigned char *p, unsigned char *buf, int write)
{
	struct kfdbed_access_args a;

	if (kfdsvm_access(ctx->bed, ctx->gpu_id[gpu], p, buf, PAGE, write, &a))
		return -errno;
	remote_accesses += a.sys_pages + a.peer_pages;
	return 0;
}

/* GPU 0 reads or writes the page at @p from or to @buf. */
static int gpu_page(struct kfdsvm_ctx *ctx, unsigned char *p,
		    unsigned char *buf, int write)
{
	return gpu_page_on(ctx, 0, p, buf, write);
}

/* GPU 0 reads the page at @p, which must hold @want in every byte. */
static int read_page(struct kfdsvm_ctx *ctx, unsigned char *p,
		     unsigned char want)
{
	unsigned char buf[PAGE];
	size_t i;
	int r = gpu_page(ctx, p, buf, 0);

	if (r)
		return r;
	for (i = 0; i < PAGE; i++)
		if (buf[i] != want)
			return -EIO;
	return 0;
}

/* reuse: the CPU threads, and one thread's slice. */
#define REUSE_THREADS 8

struct reuse_slice {
	pthread_t thread;
	unsigned char *start;
	size_t size;
};

/* The calling thread's page faults so far (minor and major). */
static unsigned long long thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (unsigned long long)ru.ru_minflt + ru.ru_majflt;
}

/* CPU faults the reuse threads took on the buffer. */
static unsigned long long reuse_faults;

static void *reuse_write(void *arg)
{
	struct reuse_slice *sl = arg;
	unsigned long long f0 = thread_faults();
	size_t i;

	for (i = 0; i < sl->size; i += PAGE)
		memset(sl->start + i, 0xa5, PAGE);
	__atomic_add_fetch(&reuse_faults, thread_faults() - f0,
			   __ATOMIC_RELAXED);
	return NULL;
}

/*
 * oversub-sparse's VRAM: hold all of GPU 0's VRAM that BOs do not use but
 * @keep bytes, through a file of its own that the caller closes after the
 * workload (the test bed's KFDBED_IOC_VRAM_HOLD, as amdgpu reserves VRAM
 * for firmware). Returns the file, or -1 after saying why.
 */
static int hold_vram(struct kfdsvm_ctx *ctx, size_t keep)
{
	struct kfdbed_gpu_stats g = kfdsvm_info(ctx->bed).gpus[0];
	struct kfdbed_vram_hold_args h = { .gpu_id = ctx->gpu_id[0] };
	int fd = open("/dev/kfdbed", O_RDWR);

	if (fd < 0 || g.vram_size <= keep + 16 * MIB) {
		fprintf(stderr, "kfdbed_bench: cannot hold VRAM: %s\n",
			fd < 0 ? strerror(errno) : "too little VRAM");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The top @keep bytes and whatever BOs hold below stay free. */
	h.size = (g.vram_size - keep) & ~(PAGE - 1);
	if (ioctl(fd, KFDBED_IOC_VRAM_HOLD, &h)) {
		fprintf(stderr, "kfdbed_bench: KFDBED_IOC_VRAM_HOLD: %s\n",
			strerror(errno));
		close(fd);
		return -1;
	}
	g = kfdsvm_info(ctx->bed).gpus[0];
	fprintf(stderr, "kfdbed_bench: oversub-sparse: %llu MiB of VRAM free\n",
		(unsigned long long)(g.vram_size - g.vram_used - h.held) >> 20);
	return fd;
}

/*
 * After oversub-sparse: KFD frees an unmapped range's BOs from its
 * deferred work, so wait (up to 10 s) until GPU 0's VRAM is back to what
 * BOs used before, lest the next workload find it full and evict.
 */
static void vram_drain(struct kfdsvm_ctx *ctx, unsigned long long used)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000; i++) {
		if (kfdsvm_info(ctx->bed).gpus[0].vram_used <= used)
			return;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "kfdbed_bench: VRAM not freed after oversub-sparse\n");
}

/*
 * The "advised" configuration: the buffer set to be mapped where its pages
 * are, never migrated (svmtune's SVMTUNE_ACCESS_REMOTE through its ioctl,
 * as an operator's svmtunectl set PID ADDR SIZE access=remote would):
 * the advice for data that VRAM cannot hold and the GPU reads sparsely.
 */
static int advise_remote(void *buf, size_t size)
{
	struct svmtune_range_policy rp;
	int fd = open("/dev/svmtune", O_RDWR), r = 0;

	if (fd < 0)
		return -errno;
	memset(&rp, 0, sizeof(rp));
	rp.start = (uintptr_t)buf;
	rp.size = size;
	rp.set = SVMTUNE_POLICY_ACCESS;
	rp.access = SVMTUNE_ACCESS_REMOTE;
	if (ioctl(fd, SVMTUNE_IOC_SET_POLICY, &rp))
		r = -errno;
	close(fd);
	return r;
}

/*
 * The "kfd-gran-SIZE" configurations (SIZE 4K, 64K or 2M): KFD alone with
 * the buffer's own granularity attribute set (KFD_IOCTL_SVM_ATTR_GRANULARITY,
 * hipMemAdvise has no such advice; what a program calling KFD's ioctl, or
 * an operator's amdgpu.svm_default_granularity, gets without svmtune):
 * the log2 of the window in pages, or -1 for any other configuration,
 * -2 for a bad SIZE.
 */
static int kfd_granularity(const char *config)
{
	static const struct {
		const char *name;
		int order;
	} sizes[] = { { "4K", 0 }, { "64K", 4 }, { "2M", 9 } };
	unsigned int i;

	if (strncmp(config, "kfd-gran-", 9))
		return -1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!strcmp(config + 9, sizes[i].name))
			return sizes[i].order;
	return -2;
}

static int set_granularity(struct kfdsvm_ctx *ctx, void *buf, size_t size,
			   int order)
{
	struct kfd_ioctl_svm_attribute attr = {
		.type = KFD_IOCTL_SVM_ATTR_GRANULARITY,
		.value = order,
	};

	if (kfdsvm_svm(ctx->kfd, KFD_IOCTL_SVM_OP_SET_ATTR, buf, size, &attr,
		       1))
		return -errno;
	return 0;
}

/* The counters of every GPU, summed: the ones a row reports. */
static struct kfdbed_gpu_stats gpus_sum(struct kfdsvm_ctx *ctx)
{
	struct kfdbed_info_args info = kfdsvm_info(ctx->bed);
	struct kfdbed_gpu_stats sum = { 0 };
	unsigned int g;

	for (g = 0; g < info.num_gpus && g < ARRAY_SIZE(info.gpus); g++) {
		sum.faults_handled += info.gpus[g].faults_handled;
		sum.faults_unserved += info.gpus[g].faults_unserved;
		sum.pages_to_vram += info.gpus[g].pages_to_vram;
		sum.pages_to_ram += info.gpus[g].pages_to_ram;
	}
	return sum;
}

/* What a workload does before it is measured: reuse's GPU phase. */
static int prepare(struct kfdsvm_ctx *ctx, const char *name, unsigned char *buf,
		   size_t size)
{
	size_t i;
	int r = 0;

	if (strcmp(name, "reuse"))
		return 0;
	for (i = 0; i < size && !r; i += PAGE)
		r = read_page(ctx, buf + i, 0x5a);
	return r;
}

/* reuse's measured part: the CPU threads write the buffer back. */
/*
 * reuse's CPU threads that had not finished REUSE_DEADLINE_S seconds after
 * they started: each in a CPU fault that KFD returns from without moving
 * the page, again and again (measured on KFD 6.12 alone, benchmarks.rst).
 * Such a thread cannot be stopped but by the process's exit, so reuse is
 * the last workload and main() exits after its row.
 */
static unsigned int reuse_stuck;

static int reuse(unsigned char *buf, size_t size)
{
	struct reuse_slice sl[REUSE_THREADS];
	size_t each = size / REUSE_THREADS / PAGE * PAGE, i;
	bool done[REUSE_THREADS] = { false };
	struct timespec deadline;
	int t, started;

	reuse_stuck = 0;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += REUSE_DEADLINE_S;
	for (started = 0; started < REUSE_THREADS; started++) {
		sl[started].start = buf + started * each;
		sl[started].size = started == REUSE_THREADS - 1 ?
					   size - started * each :
					   each;
		if (pthread_create(&sl[started].thread, NULL, reuse_write,
				   &sl[started]))
			break;
	}
	for (t = 0; t < started; t++) {
		done[t] = !pthread_timedjoin_np(sl[t].thread, NULL, &deadline);
		reuse_stuck += !done[t];
	}
	if (started < REUSE_THREADS)
		return -EAGAIN;
	/* Every byte the threads that finished wrote. */
	for (t = 0; t < REUSE_THREADS; t++)
		for (i = 0; done[t] && i < sl[t].size; i++)
			if (sl[t].start[i] != 0xa5)
				return -EIO;
	return 0;
}

/* prefetch-race: the prefetching thread. */
struct prefetch_arg {
	struct kfdsvm_ctx *ctx;
	unsigned char *buf;
	size_t size;
	int r;
};

static void *prefetch_thread(void *arg)
{
	struct prefetch_arg *a = arg;

	a->r = kfdsvm_prefetch(a->ctx, a->buf, a->size, 0) ? -errno : 0;
	return NULL;
}

/*
 * prefetch-race: the prefetch starts, then GPU 0 reads the buffer in order
 * at once, as a kernel launched right after hipMemPrefetchAsync() on
 * another stream would.
 */
static int prefetch_race(struct kfdsvm_ctx *ctx, unsigned char *buf,
			 size_t size)
{
	struct prefetch_arg a = { ctx, buf, size, 0 };
	pthread_t t;
	size_t i;
	int r = 0;

	if (pthread_create(&t, NULL, prefetch_thread, &a))
		return -EAGAIN;
	for (i = 0; i < size && !r; i += PAGE)
		r = read_page(ctx, buf + i, 0x5a);
	pthread_join(t, NULL);
	return r ? r : a.r;
}

/* oversub-sparse: three passes of 4 pages 512 KiB apart in each 2 MiB. */
static int oversub_sparse(struct kfdsvm_ctx *ctx, unsigned char *buf,
			  size_t size)
{
	size_t b, k;
	int pass, r = 0;

	for (pass = 0; pass < 3 && !r; pass++)
		for (b = 0; b < size && !r; b += 2 * MIB)
			for (k = 0; k < 2 * MIB && !r; k += 512 * 1024)
				r = read_page(ctx, buf + b + k, 0x5a);
	return r;
}

/* turns: rounds, and the turns in each (GPU 0, GPU 1, the CPU). */
#define TURNS_ROUNDS 3

/*
 * One turn on the page at @p: @who (GPU 0, GPU 1, or 2 for the CPU) reads
 * it, checks that every byte is @turn, and writes @turn + 1 back.
 */
static int turn_page(struct kfdsvm_ctx *ctx, unsigned int who, unsigned char *p,
		     unsigned char turn)
{
	unsigned char page[PAGE], *data = who == 2 ? p : page;
	size_t j;
	int r;

	if (who != 2) {
		r = gpu_page_on(ctx, who, p, page, 0);
		if (r)
			return r;
	}
	for (j = 0; j < PAGE; j++)
		if (data[j] != turn)
			return -EIO;
	memset(data, turn + 1, PAGE);
	return who == 2 ? 0 : gpu_page_on(ctx, who, p, page, 1);
}

/*
 * turns: GPU 0, GPU 1 and the CPU take turns on the buffer, each reading
 * every page, checking it holds the count of turns so far, and writing it
 * back plus one, as a pipeline of kernels on two GPUs with host steps
 * between them does. Needs two GPUs; turns_name() tells their link.
 */
static int turns(struct kfdsvm_ctx *ctx, unsigned char *buf, size_t size)
{
	unsigned int turn;
	size_t i;
	int r = 0;

	memset(buf, 0, size);
	for (turn = 0; turn < TURNS_ROUNDS * 3 && !r; turn++)
		for (i = 0; i < size && !r; i += PAGE)
			r = turn_page(ctx, turn % 3, buf + i, turn);
	for (i = 0; i < size && !r; i++)
		if (buf[i] != (unsigned char)turn)
			r = -EIO;
	return r;
}

/*
 * The name turns' row goes under: "turns-xgmi" when GPUs 0 and 1 share an
 * xGMI hive (peer VRAM mapped over the link), "turns-pcie" otherwise.
 */
static const char *turns_name(struct kfdsvm_ctx *ctx)
{
	struct kfdbed_info_args info = kfdsvm_info(ctx->bed);

	if (info.num_gpus >= 2 && info.gpus[0].xgmi_hive &&
	    info.gpus[0].xgmi_hive == info.gpus[1].xgmi_hive)
		return "turns-xgmi";
	return "turns-pcie";
}

/*
 * The kernel of managed-vs-copy and explicit-copy: GPU 0 reads each page
 * and writes it back plus one; then the CPU checks every byte.
 */
static int plus_one(struct kfdsvm_ctx *ctx, unsigned char *buf, size_t size,
		    int explicit)
{
	unsigned char page[PAGE];
	size_t i, j;

	if (explicit && kfdsvm_prefetch(ctx, buf, size, 0))
		return -errno;
	for (i = 0; i < size; i += PAGE) {
		int r = gpu_page(ctx, buf + i, page, 0);

		if (r)
			return r;
		for (j = 0; j < PAGE; j++) {
			if (page[j] != 0x5a)
				return -EIO;
			page[j]++;
		}
		r = gpu_page(ctx, buf + i, page, 1);
		if (r)
			return r;
	}
	if (explicit && kfdsvm_prefetch(ctx, buf, size, KFDSVM_CPU))
		return -errno;
	for (i = 0; i < size; i++)
		if (buf[i] != 0x5b)
			return -EIO;
	return 0;
}

static int workload(struct kfdsvm_ctx *ctx, const char *name,
		    unsigned char *buf, size_t size)
{
	unsigned int seed = 7;
	size_t i;
	int r = 0, round;

	if (!strcmp(name, "stream")) {
		for (i = 0; i < size && !r; i += PAGE)
			r = read_page(ctx, buf + i, 0x5a);
	} else if (!strcmp(name, "sparse")) {
		for (i = 0; i < 128 && !r; i++)
			r = read_page(ctx,
				      buf + (rand_r(&seed) % (size / PAGE)) *
						      PAGE,
				      0x5a);
	} else if (!strcmp(name, "stride")) {
		for (i = 0; i < size && !r; i += 256 * 1024)
			r = read_page(ctx, buf + i, 0x5a);
	} else if (!strcmp(name, "reuse")) {
		r = reuse(buf, size);
	} else if (!strcmp(name, "prefetch-race")) {
		r = prefetch_race(ctx, buf, size);
	} else if (!strcmp(name, "oversub-sparse")) {
		r = oversub_sparse(ctx, buf, size);
	} else if (!strcmp(name, "turns")) {
		r = turns(ctx, buf, size);
	} else if (!strcmp(name, "managed-vs-copy")) {
		r = plus_one(ctx, buf, size, 0);
	} else if (!strcmp(name, "explicit-copy")) {
		r = plus_one(ctx, buf, size, 1);
	} else {
		/* Each page's bytes are the round's number after the CPU's write. */
		for (i = 0; i < 4 && i * 2 * MIB < size; i++)
			memset(buf + i * 2 * MIB, 0, PAGE);
		for (round = 0; round < 8 && !r; round++)
			for (i = 0; i < 4 && i * 2 * MIB < size && !r; i++) {
				r = read_page(ctx, buf + i * 2 * MIB, round);
				memset(buf + i * 2 * MIB, round + 1, PAGE);
			}
	}
	return r;
}

int main(int argc, char **argv)
{
	/* reuse last: threads it finds stuck end the process (reuse()). */
	static const char *const workloads[] = {
		"stream",	   "sparse",
		"stride",	   "pingpong",
		"prefetch-race",   "oversub-sparse",
		"managed-vs-copy", "explicit-copy",
		"turns",	   "reuse"
	};
	struct kfdbed_gpu_stats s0, s1;
	struct kfdsvm_ctx ctx;
	unsigned int w;
	size_t size, align = 2 * MIB;
	int advised, granularity, r;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (w = 0; w < ARRAY_SIZE(workloads); w++)
			printf("%s\n", workloads[w]);
		return 0;
	}
	if (argc < 2 || argc > 4 || !argv[1][0] || strchr(argv[1], ',')) {
		fprintf(stderr,
			"usage: kfdbed_bench CONFIG [MIB [WORKLOAD]] | --list\n");
		return 2;
	}
	if (argc > 3) {
		for (w = 0; w < ARRAY_SIZE(workloads); w++)
			if (!strcmp(argv[3], workloads[w]))
				break;
		if (w == ARRAY_SIZE(workloads)) {
			fprintf(stderr, "kfdbed_bench: no workload %s\n",
				argv[3]);
			return 2;
		}
	}
	size = (argc > 2 ? strtoul(argv[2], NULL, 0) : 8) * MIB;
	if (size < 2 * MIB || size > 256 * MIB) {
		fprintf(stderr, "kfdbed_bench: MIB is 2 to 256\n");
		return 2;
	}
	while (align < size)
		align *= 2;
	advised = !strcmp(argv[1], "advised");
	granularity = kfd_granularity(argv[1]);
	if (granularity == -2) {
		fprintf(stderr,
			"kfdbed_bench: kfd-gran-SIZE takes 4K, 64K or 2M\n");
		return 2;
	}
	if (kfdsvm_open(&ctx)) {
		perror("kfdbed_bench: /dev/kfd, /dev/kfdbed");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (w = 0; w < ARRAY_SIZE(workloads); w++) {
		int oversub = !strcmp(workloads[w], "oversub-sparse");
		size_t wsize = oversub ? OVERSUB_SIZE : size;
		size_t walign = oversub ? OVERSUB_SIZE : align;
		unsigned char *buf;
		unsigned long long to_vram, to_ram, f0, cpu_faults, vram0 = 0;
		int hold = -1;
		double t0, ms;

		if (argc > 3 && strcmp(argv[3], workloads[w]))
			continue;
		if (!strcmp(workloads[w], "turns") && ctx.num_gpus < 2) {
			if (argc > 3) {
				fprintf(stderr,
					"kfdbed_bench: turns needs two GPUs (the test bed's num_gpus=2)\n");
				return 1;
			}
			printf("# turns not measured: one GPU\n");
			continue;
		}
		if (oversub) {
			vram0 = kfdsvm_info(ctx.bed).gpus[0].vram_used;
			hold = hold_vram(&ctx, OVERSUB_FREE);
			if (hold < 0)
				return 1;
		}
		buf = kfdsvm_malloc_managed_aligned(&ctx, wsize, walign);
		if (!buf) {
			perror("kfdbed_bench: malloc_managed");
			return 1;
		}
		memset(buf, 0x5a, wsize);
		r = advised ? advise_remote(buf, wsize) : 0;
		if (!r && granularity >= 0)
			r = set_granularity(&ctx, buf, wsize, granularity);
		if (!r)
			r = prepare(&ctx, workloads[w], buf, wsize);
		if (r) {
			fprintf(stderr, "kfdbed_bench: %s under %s: %s\n",
				workloads[w], argv[1], strerror(-r));
			return 1;
		}
		s0 = gpus_sum(&ctx);
		remote_accesses = 0;
		reuse_faults = 0;
		f0 = thread_faults();
		t0 = now_ms();
		r = workload(&ctx, workloads[w], buf, wsize);
		ms = now_ms() - t0;
		cpu_faults = thread_faults() - f0 + reuse_faults;
		s1 = gpus_sum(&ctx);
		kfdsvm_free(&ctx, buf, wsize);
		if (hold >= 0) {
			close(hold);
			vram_drain(&ctx, vram0);
		}
		if (r) {
			fprintf(stderr, "kfdbed_bench: %s under %s: %s\n",
				workloads[w], argv[1], strerror(-r));
			return 1;
		}
		to_vram = s1.pages_to_vram - s0.pages_to_vram;
		to_ram = s1.pages_to_ram - s0.pages_to_ram;
		printf("%s,%s,%.3f,%llu,%llu,%llu,%llu,%.3f,%llu,%llu,%u\n",
		       argv[1],
		       strcmp(workloads[w], "turns") ? workloads[w] :
						       turns_name(&ctx),
		       ms,
		       (unsigned long long)(s1.faults_handled -
					    s0.faults_handled),
		       (unsigned long long)(s1.faults_unserved -
					    s0.faults_unserved),
		       to_vram, to_ram, (double)(to_vram + to_ram) * PAGE / MIB,
		       remote_accesses, cpu_faults, reuse_stuck);
		if (reuse_stuck) {
			fprintf(stderr,
				"kfdbed_bench: reuse under %s: %u of %d CPU threads still faulting after %d s: KFD returns from their CPU faults without moving the page\n",
				argv[1], reuse_stuck, REUSE_THREADS,
				REUSE_DEADLINE_S);
			/* They stop with the process only. */
			fflush(NULL);
			_exit(0);
		}
	}
	kfdsvm_close(&ctx);
	return 0;
}
