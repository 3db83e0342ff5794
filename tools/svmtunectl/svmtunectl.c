// SPDX-License-Identifier: GPL-2.0
/*
 * svmtunectl: command-line front end of /dev/svmtune.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/svmtune.h>

#define SVMTUNE_DEV "/dev/svmtune"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void print_help(FILE *out)
{
	fprintf(out,
		"Usage: svmtunectl COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  version               module version and feature bits\n"
		"  devices               the devices backends registered\n"
		"  stats device ID       counters of one device\n"
		"  stats process PID     counters of one process (0: svmtunectl itself)\n"
		"  stats range PID ADDR  counters of the policy range holding ADDR\n"
		"  get PID ADDR SIZE     the policy set and in effect at ADDR\n"
		"  set PID ADDR SIZE FIELD=VALUE...\n"
		"                        set policy on [ADDR, ADDR + SIZE) of process PID:\n"
		"                          granularity=4K..1G|unset\n"
		"                          location=system|unset|DEVICE_ID\n"
		"                          access=migrate|remote|read-mostly|unset\n"
		"                          thrashing=opt-out|track|unset\n"
		"                          fragment=4K..2M|unset\n"
		"  defaults PID [FIELD=VALUE...]\n"
		"                        show, or set, the process defaults of PID\n"
		"  help                  this text\n"
		"\n"
		"Numbers may be decimal or 0x-hex; SIZE, granularity and fragment take\n"
		"K, M, G.\n"
		"Another process than the caller's: only one of the same user, or with\n"
		"CAP_SYS_PTRACE (the access ptrace would need).\n"
		"Exit status: 0 on success, 1 on error, 2 on bad usage.\n");
}

static int open_dev(void)
{
	int fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "svmtunectl: %s: %s%s\n", SVMTUNE_DEV,
			strerror(errno),
			errno == ENOENT ? " (is svmtune.ko loaded?)" : "");
	return fd;
}

/* ioctl on a fresh fd; print the failure as NAME: strerror. */
static int svm_ioctl(unsigned long cmd, void *arg, const char *name)
{
	int fd = open_dev(), ret;

	if (fd < 0)
		return 1;
	ret = ioctl(fd, cmd, arg);
	if (ret)
		fprintf(stderr, "svmtunectl: %s: %s\n", name, strerror(errno));
	close(fd);
	return ret ? 1 : 0;
}

/* A number with an optional K/M/G suffix; 0 on success. */
static int parse_num(const char *s, __u64 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		v <<= 10, end++;
		break;
	case 'M':
	case 'm':
		v <<= 20, end++;
		break;
	case 'G':
	case 'g':
		v <<= 30, end++;
		break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/*
 * A size that is a power of two, as log2 bytes. 1 byte (log2 0) is
 * refused: 0 is the uapi's "unset", which only "unset" may ask for.
 */
static int parse_log2(const char *s, __u64 *log2)
{
	__u64 v;

	if (parse_num(s, &v) || v < 2 || (v & (v - 1)))
		return -1;
	*log2 = __builtin_ctzll(v);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	__u64 v;

	if (parse_num(s, &v) || v > UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

static const char *const access_names[] = {
	[SVMTUNE_ACCESS_UNSET] = "unset",
	[SVMTUNE_ACCESS_MIGRATE] = "migrate",
	[SVMTUNE_ACCESS_REMOTE] = "remote",
	[SVMTUNE_ACCESS_READ_MOSTLY] = "read-mostly",
};

static const char *const thrashing_names[] = {
	[SVMTUNE_THRASH_UNSET] = "unset",
	[SVMTUNE_THRASH_OPT_OUT] = "opt-out",
	[SVMTUNE_THRASH_TRACK] = "track",
};

/* The index of @val in @names (@n of them), or -1. */
static int name_index(const char *const *names, unsigned int n, const char *val)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(val, names[i]))
			return i;
	return -1;
}

/* The name of @v in @names (@n of them), or "?". */
static const char *name_of(const char *const *names, unsigned int n, uint32_t v)
{
	return v < n ? names[v] : "?";
}

static void print_thrashing(const char *label, uint32_t t)
{
	printf("%s %s\n", label,
	       name_of(thrashing_names, ARRAY_SIZE(thrashing_names), t));
}

static void print_granularity(const char *label, uint32_t g)
{
	static const char suffix[] = "KMG";

	if (g == SVMTUNE_GRANULARITY_UNSET)
		printf("%s unset\n", label);
	else
		printf("%s %lu%c\n", label, 1UL << (g % 10),
		       suffix[g / 10 - 1]);
}

static void print_location(const char *label, uint32_t loc)
{
	if (loc == SVMTUNE_LOC_UNSET)
		printf("%s unset\n", label);
	else if (loc == SVMTUNE_LOC_SYSTEM)
		printf("%s system\n", label);
	else
		printf("%s device %u\n", label, loc);
}

static void print_access(const char *label, uint32_t access)
{
	printf("%s %s\n", label,
	       name_of(access_names, ARRAY_SIZE(access_names), access));
}

/* Parse FIELD=VALUE arguments into set bits and values. */
static int parse_fields(int argc, char **argv, uint32_t *set, uint32_t *gran,
			uint32_t *loc, uint32_t *access, uint32_t *thrashing,
			uint32_t *fragment)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *val = strchr(argv[i], '=');
		__u64 v;

		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(argv[i], "granularity")) {
			*set |= SVMTUNE_POLICY_GRANULARITY;
			if (!strcmp(val, "unset")) {
				*gran = SVMTUNE_GRANULARITY_UNSET;
				continue;
			}
			if (parse_log2(val, &v))
				goto bad;
			*gran = v;
		} else if (!strcmp(argv[i], "location")) {
			*set |= SVMTUNE_POLICY_PREFERRED_LOC;
			if (!strcmp(val, "system"))
				*loc = SVMTUNE_LOC_SYSTEM;
			else if (!strcmp(val, "unset"))
				*loc = SVMTUNE_LOC_UNSET;
			else if (parse_u32(val, loc))
				goto bad;
		} else if (!strcmp(argv[i], "access")) {
			int a = name_index(access_names,
					   ARRAY_SIZE(access_names), val);

			*set |= SVMTUNE_POLICY_ACCESS;
			if (a < 0)
				goto bad;
			*access = a;
		} else if (!strcmp(argv[i], "thrashing")) {
			int t = name_index(thrashing_names,
					   ARRAY_SIZE(thrashing_names), val);

			*set |= SVMTUNE_POLICY_THRASHING;
			if (t < 0)
				goto bad;
			*thrashing = t;
		} else if (!strcmp(argv[i], "fragment")) {
			*set |= SVMTUNE_POLICY_FRAGMENT;
			if (!strcmp(val, "unset")) {
				*fragment = SVMTUNE_FRAGMENT_UNSET;
				continue;
			}
			if (parse_log2(val, &v))
				goto bad;
			*fragment = v;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "svmtunectl: bad field '%s'\n", argv[i]);
	return -1;
}

static int cmd_version(void)
{
	struct svmtune_version ver;

	memset(&ver, 0, sizeof(ver));
	if (svm_ioctl(SVMTUNE_IOC_VERSION, &ver, "SVMTUNE_IOC_VERSION"))
		return 1;
	printf("svmtune %u.%u.%u\n", ver.major, ver.minor, ver.patch);
	printf("features 0x%016llx\n", (unsigned long long)ver.features);
	return 0;
}

static int cmd_devices(void)
{
	struct svmtune_device_info di;
	int fd = open_dev();
	uint32_t id;

	if (fd < 0)
		return 1;
	printf("%-4s %-16s %12s %12s\n", "id", "name", "memory", "free");
	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		memset(&di, 0, sizeof(di));
		di.id = id;
		if (ioctl(fd, SVMTUNE_IOC_GET_DEVICE, &di))
			continue;
		printf("%-4u %-16s %11lluM %11lluM\n", id, di.name,
		       (unsigned long long)(di.mem_bytes >> 20),
		       (unsigned long long)(di.mem_free_bytes >> 20));
	}
	close(fd);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct svmtune_stats st;
	struct svmtune_counters *c = &st.counters;
	struct svmtune_mitigations *m = &st.mitigations;

	memset(&st, 0, sizeof(st));
	if (argc == 2 && !strcmp(argv[0], "device"))
		st.scope = SVMTUNE_STATS_DEVICE;
	else if (argc == 2 && !strcmp(argv[0], "process"))
		st.scope = SVMTUNE_STATS_PROCESS;
	else if (argc == 3 && !strcmp(argv[0], "range"))
		st.scope = SVMTUNE_STATS_RANGE;
	else
		return 2;
	if (parse_u32(argv[1], &st.id) ||
	    (argc == 3 && parse_num(argv[2], &st.addr)))
		return 2;
	if (svm_ioctl(SVMTUNE_IOC_GET_STATS, &st, "SVMTUNE_IOC_GET_STATS"))
		return 1;
	if (st.scope == SVMTUNE_STATS_RANGE)
		printf("range 0x%llx-0x%llx\n",
		       (unsigned long long)st.range_start,
		       (unsigned long long)st.range_end);
	printf("gpu_faults %llu\ncpu_faults %llu\n"
	       "pages_to_device %llu\npages_to_system %llu\n"
	       "bytes_to_device %llu\nbytes_to_system %llu\n"
	       "remote_pages %llu\nwaste_pages %llu\n"
	       "fallback_pages %llu\nwindow_pages %llu\n"
	       "thrashing_events %llu\nthrashing_detected %llu\n"
	       "prefetch_pages %llu\nprefetch_used %llu\n"
	       "tlb_hits %llu\ntlb_misses %llu\n"
	       "thrashing_throttles %llu\nthrashing_pins %llu\n"
	       "thrashing_unpins %llu\nevicted_pages %llu\n",
	       (unsigned long long)c->gpu_faults,
	       (unsigned long long)c->cpu_faults,
	       (unsigned long long)c->pages_to_device,
	       (unsigned long long)c->pages_to_system,
	       (unsigned long long)c->bytes_to_device,
	       (unsigned long long)c->bytes_to_system,
	       (unsigned long long)c->remote_pages,
	       (unsigned long long)c->waste_pages,
	       (unsigned long long)c->fallback_pages,
	       (unsigned long long)c->window_pages,
	       (unsigned long long)c->thrashing_events,
	       (unsigned long long)c->thrashing_detected,
	       (unsigned long long)c->prefetch_pages,
	       (unsigned long long)c->prefetch_used,
	       (unsigned long long)c->tlb_hits,
	       (unsigned long long)c->tlb_misses,
	       (unsigned long long)m->thrashing_throttles,
	       (unsigned long long)m->thrashing_pins,
	       (unsigned long long)m->thrashing_unpins,
	       (unsigned long long)m->evicted_pages);
	return 0;
}

/* PID ADDR SIZE into a range policy argument. */
static int parse_span(char **argv, struct svmtune_range_policy *p)
{
	memset(p, 0, sizeof(*p));
	return parse_u32(argv[0], &p->pid) || parse_num(argv[1], &p->start) ||
			       parse_num(argv[2], &p->size) ?
		       -1 :
		       0;
}

static int cmd_get(int argc, char **argv)
{
	struct svmtune_range_policy p;

	if (argc != 3 || parse_span(argv, &p))
		return 2;
	if (svm_ioctl(SVMTUNE_IOC_GET_POLICY, &p, "SVMTUNE_IOC_GET_POLICY"))
		return 1;
	printf("extent 0x%llx-0x%llx\n", (unsigned long long)p.start,
	       (unsigned long long)p.extent_end);
	print_granularity("granularity", p.granularity);
	print_location("location", p.preferred_loc);
	print_access("access", p.access);
	print_granularity("effective_granularity", p.eff_granularity);
	print_location("effective_location", p.eff_preferred_loc);
	print_access("effective_access", p.eff_access);
	print_thrashing("thrashing", p.thrashing);
	print_thrashing("effective_thrashing", p.eff_thrashing);
	print_granularity("fragment", p.fragment);
	print_granularity("effective_fragment", p.eff_fragment);
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct svmtune_range_policy p;

	if (argc < 4 || parse_span(argv, &p))
		return 2;
	if (parse_fields(argc - 3, argv + 3, &p.set, &p.granularity,
			 &p.preferred_loc, &p.access, &p.thrashing,
			 &p.fragment))
		return 2;
	return svm_ioctl(SVMTUNE_IOC_SET_POLICY, &p, "SVMTUNE_IOC_SET_POLICY");
}

static int cmd_defaults(int argc, char **argv)
{
	struct svmtune_process_policy pp;

	memset(&pp, 0, sizeof(pp));
	if (argc < 1 || parse_u32(argv[0], &pp.pid))
		return 2;
	if (argc > 1) {
		if (parse_fields(argc - 1, argv + 1, &pp.set, &pp.granularity,
				 &pp.preferred_loc, &pp.access, &pp.thrashing,
				 &pp.fragment))
			return 2;
		return svm_ioctl(SVMTUNE_IOC_SET_PROCESS_POLICY, &pp,
				 "SVMTUNE_IOC_SET_PROCESS_POLICY");
	}
	if (svm_ioctl(SVMTUNE_IOC_GET_PROCESS_POLICY, &pp,
		      "SVMTUNE_IOC_GET_PROCESS_POLICY"))
		return 1;
	print_granularity("granularity", pp.granularity);
	print_location("location", pp.preferred_loc);
	print_access("access", pp.access);
	print_thrashing("thrashing", pp.thrashing);
	print_granularity("fragment", pp.fragment);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int ret = 2;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") && argc == 2)
		ret = cmd_version();
	else if (!strcmp(cmd, "devices") && argc == 2)
		ret = cmd_devices();
	else if (!strcmp(cmd, "stats"))
		ret = cmd_stats(argc - 2, argv + 2);
	else if (!strcmp(cmd, "get"))
		ret = cmd_get(argc - 2, argv + 2);
	else if (!strcmp(cmd, "set"))
		ret = cmd_set(argc - 2, argv + 2);
	else if (!strcmp(cmd, "defaults"))
		ret = cmd_defaults(argc - 2, argv + 2);

	if (ret == 2) {
		fprintf(stderr, "svmtunectl: bad usage\n");
		print_help(stderr);
	}
	return ret;
}
